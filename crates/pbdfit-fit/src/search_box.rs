//! The box a fit searches, in the model's parameters and in the search's unit coordinates.

use pbdfit_pbd::{ModelKind, Scale};

use crate::SearchError;

/// One axis of a search box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// Parameter name.
    pub name: &'static str,
    /// Unit.
    pub unit: &'static str,
    /// Search scale.
    pub scale: Scale,
    /// Lower bound (parameter value).
    pub lower: f64,
    /// Upper bound (parameter value).
    pub upper: f64,
}

impl Axis {
    /// The width of the axis in search coordinates: `upper - lower`, or the decades it spans.
    pub fn search_width(&self) -> f64 {
        self.coordinate(self.upper) - self.coordinate(self.lower)
    }

    /// The search coordinate of a value: the value, or its log10.
    fn coordinate(&self, value: f64) -> f64 {
        match self.scale {
            Scale::Linear => value,
            Scale::Log10 => value.log10(),
        }
    }
}

/// The box of a model's parameters that a fit searches.
///
/// The search runs in unit coordinates `t` in [0, 1] per axis: `t = (s - s_lo) / (s_hi - s_lo)` with `s`
/// the search coordinate (the value on a linear scale, its log10 on a log scale). A linear [0, 1] box maps
/// every value to itself bit for bit, so PBD fits are unchanged by the generalisation.
///
/// ```
/// use pbdfit_fit::SearchBox;
/// use pbdfit_pbd::ModelKind;
/// let b = SearchBox::default_for(ModelKind::XPBD).with_overrides(&["alpha_d=1e-8:1e-2"]).unwrap();
/// assert_eq!(b.values(&[0.5, 0.0])[0], 1e-5);
/// assert!(SearchBox::default_for(ModelKind::PBD).with_overrides(&["alpha_d=1:2"]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SearchBox {
    kind: ModelKind,
    axes: Vec<Axis>,
}

/// One `NAME=LOWER:UPPER` box override (`--box kd=0:0.5`) as `(name, lower, upper)`; whether the bounds
/// suit the model is [`SearchBox::with_bounds`]'s to say.
pub fn parse_bound(text: &str) -> Result<(String, f64, f64), SearchError> {
    let syntax = || SearchError::Syntax(text.to_string());
    let (name, range) = text.split_once('=').ok_or_else(syntax)?;
    let (lo, hi) = range.split_once(':').ok_or_else(syntax)?;
    let lower = lo.trim().parse::<f64>().map_err(|_| syntax())?;
    let upper = hi.trim().parse::<f64>().map_err(|_| syntax())?;
    Ok((name.trim().to_string(), lower, upper))
}

impl SearchBox {
    /// The model's default box.
    pub fn default_for(kind: ModelKind) -> Self {
        let axes = kind
            .parameters()
            .iter()
            .map(|p| Axis {
                name: p.name,
                unit: p.unit,
                scale: p.scale,
                lower: p.default_box.0,
                upper: p.default_box.1,
            })
            .collect();
        Self { kind, axes }
    }

    /// The model.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The axes, in the model's parameter order.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// Number of parameters.
    pub fn dimensions(&self) -> usize {
        self.axes.len()
    }

    /// Sets the box of parameter `name` to `[lower, upper]`, checking the name, the order and (for log
    /// scales) the sign. Whether the values are allowed for the model is checked at evaluation (where
    /// the unbounded flag is known) and by [`Self::check_allowed`].
    pub fn with_bounds(mut self, name: &str, lower: f64, upper: f64) -> Result<Self, SearchError> {
        let kind = self.kind;
        let axis = self.axes.iter_mut().find(|a| a.name == name).ok_or_else(|| SearchError::UnknownParameter {
            model: kind.name().into(),
            name: name.into(),
            allowed: kind.parameter_names(),
        })?;
        if !(lower.is_finite() && upper.is_finite() && lower < upper) {
            return Err(SearchError::EmptyBox { name: name.into(), lower, upper });
        }
        if axis.scale == Scale::Log10 && lower <= 0.0 {
            return Err(SearchError::NonPositiveLogBound { name: name.into(), lower, upper });
        }
        axis.lower = lower;
        axis.upper = upper;
        Ok(self)
    }

    /// Applies `NAME=LOWER:UPPER` overrides (the command line's `--box`).
    pub fn with_overrides<S: AsRef<str>>(self, overrides: &[S]) -> Result<Self, SearchError> {
        overrides.iter().try_fold(self, |b, text| {
            let (name, lower, upper) = parse_bound(text.as_ref())?;
            b.with_bounds(&name, lower, upper)
        })
    }

    /// Checks that every bound is a value the model allows (`unbounded`: the experimental k > 1).
    pub fn check_allowed(&self, unbounded: bool) -> Result<(), SearchError> {
        for (axis, spec) in self.axes.iter().zip(self.kind.parameters()) {
            let maximum = if unbounded { spec.maximum_unbounded } else { spec.maximum };
            if axis.lower < spec.minimum || axis.upper > maximum {
                return Err(SearchError::OutsideAllowed {
                    name: axis.name.into(),
                    lower: axis.lower,
                    upper: axis.upper,
                    minimum: spec.minimum,
                    maximum,
                    hint: if !unbounded && spec.maximum_unbounded > spec.maximum {
                        " (stiffness above 1 needs --unbounded)"
                    } else {
                        ""
                    },
                });
            }
        }
        Ok(())
    }

    /// Parameter values at unit coordinates `t` (each in [0, 1]).
    pub fn values(&self, t: &[f64]) -> Vec<f64> {
        self.axes
            .iter()
            .zip(t)
            .map(|(a, &t)| {
                let (lo, hi) = (a.coordinate(a.lower), a.coordinate(a.upper));
                let s = if t == 1.0 { hi } else { lo + (hi - lo) * t };
                match a.scale {
                    Scale::Linear => s,
                    Scale::Log10 => 10f64.powf(s),
                }
            })
            .collect()
    }

    /// Unit coordinates of parameter values.
    pub fn unit(&self, values: &[f64]) -> Vec<f64> {
        self.axes
            .iter()
            .zip(values)
            .map(|(a, &v)| {
                let (lo, hi) = (a.coordinate(a.lower), a.coordinate(a.upper));
                (a.coordinate(v) - lo) / (hi - lo)
            })
            .collect()
    }

    /// The grid's points in unit coordinates, `resolution` per axis, the first axis outermost (for PBD:
    /// kd-major, `kd = i/(r-1)` outer, `kv = j/(r-1)` inner; docs/method.md, section The fits).
    pub fn grid(&self, resolution: usize) -> Vec<Vec<f64>> {
        let r = resolution.max(2);
        self.product(r, |i| i as f64 / (r - 1) as f64)
    }

    /// Every combination of `r` coordinates `at(0..r)` per axis, the first axis outermost.
    fn product(&self, r: usize, at: impl Fn(usize) -> f64 + Copy) -> Vec<Vec<f64>> {
        let mut points: Vec<Vec<f64>> = vec![Vec::new()];
        for _ in &self.axes {
            points = points.into_iter().flat_map(|p| (0..r).map(move |i| [p.clone(), vec![at(i)]].concat())).collect();
        }
        points
    }

    /// The points at the centres of `resolution` equal cells per axis, `(i + 1/2) / resolution`, the first
    /// axis outermost (the gradient search's grid: no point on a bound).
    pub fn centred_grid(&self, resolution: usize) -> Vec<Vec<f64>> {
        let r = resolution.max(1);
        self.product(r, |i| (i as f64 + 0.5) / r as f64)
    }

    /// The parameters whose unit coordinate lies on the box's edge (0 or 1).
    pub fn at_bound(&self, t: &[f64]) -> Vec<&'static str> {
        self.axes.iter().zip(t).filter(|(_, t)| **t <= 0.0 || **t >= 1.0).map(|(a, _)| a.name).collect()
    }

    /// `kd in [0, 1], kv in [0, 1]` for messages.
    pub fn describe(&self) -> String {
        self.axes
            .iter()
            .map(|a| {
                let scale = if a.scale == Scale::Log10 { " (log10)" } else { "" };
                let (lower, upper) = (pbdfit_mesh::display::number(a.lower), pbdfit_mesh::display::number(a.upper));
                format!("{} in [{lower}, {upper}]{scale}", a.name)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Grid points per axis by default: 21 for two parameters (the thesis grid), more for one, fewer for
/// three or four (docs/models.md).
pub fn default_grid(dimensions: usize) -> usize {
    match dimensions {
        0 | 1 => 101,
        2 => 21,
        3 => 11,
        _ => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pbd_grid_is_the_thesis_grid_bit_for_bit() {
        let b = SearchBox::default_for(ModelKind::PBD);
        let g = b.grid(21);
        assert_eq!(g.len(), 441);
        for (k, p) in g.iter().enumerate() {
            let (i, j) = (k / 21, k % 21);
            let v = b.values(p);
            assert_eq!((v[0].to_bits(), v[1].to_bits()), ((i as f64 / 20.0).to_bits(), (j as f64 / 20.0).to_bits()));
            assert_eq!(b.unit(&v), v);
        }
    }

    #[test]
    fn log_axes_map_decades_linearly() {
        let b = SearchBox::default_for(ModelKind::XPBD).with_bounds("alpha_v", 1e-12, 1e0).unwrap();
        let v = b.values(&[0.0, 0.5]);
        assert_eq!(v[1], 1e-6);
        assert!((b.unit(&[1e-3, 1e-9])[1] - 0.25).abs() < 1e-15);
        assert_eq!(b.at_bound(&[1.0, 0.3]), vec!["alpha_d"]);
        assert_eq!(SearchBox::default_for(ModelKind::XPBD).grid(3).len(), 9);
    }

    #[test]
    fn bad_boxes_name_the_parameter_and_what_is_allowed() {
        let pbd = SearchBox::default_for(ModelKind::PBD);
        let e = pbd.clone().with_overrides(&["ks=1:2"]).unwrap_err().to_string();
        assert!(e.contains("`ks`") && e.contains("kd, kv"), "{e}");
        let e = pbd.clone().with_overrides(&["kd=0.5:0.5"]).unwrap_err().to_string();
        assert!(e.contains("kd") && e.contains("below"), "{e}");
        let e = pbd.clone().with_overrides(&["kd=0.5"]).unwrap_err().to_string();
        assert!(e.contains("NAME=LOWER:UPPER"), "{e}");
        let e = SearchBox::default_for(ModelKind::XPBD).with_overrides(&["alpha_d=0:1"]).unwrap_err().to_string();
        assert!(e.contains("log10") && e.contains("> 0"), "{e}");
        let wide = pbd.with_overrides(&["kd=0:2"]).unwrap();
        assert!(wide.check_allowed(false).unwrap_err().to_string().contains("--unbounded"));
        assert!(wide.check_allowed(true).is_ok());
    }
}
