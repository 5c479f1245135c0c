//! The five axes of a table, their order and the coordinates they are interpolated in.

use pbdfit_study::Setting;
use serde::{Deserialize, Serialize};

/// One axis of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dim {
    /// Young's modulus E in Pa (interpolated in log10 E).
    Young,
    /// Poisson ratio nu (interpolated linearly).
    Poisson,
    /// Time step in s (interpolated in log10 dt).
    Dt,
    /// Solver iterations (interpolated in log2 nit).
    Nit,
    /// Mesh resolution (interpolated in log2 N).
    N,
}

/// The axes in node order: E outermost, N innermost (the order of `table.csv`'s rows).
pub const DIMS: [Dim; 5] = [Dim::Young, Dim::Poisson, Dim::Dt, Dim::Nit, Dim::N];

impl Dim {
    /// The name in table files and on the command line (`young`, `poisson`, `dt`, `nit`, `n`).
    pub fn name(self) -> &'static str {
        match self {
            Dim::Young => "young",
            Dim::Poisson => "poisson",
            Dim::Dt => "dt",
            Dim::Nit => "nit",
            Dim::N => "n",
        }
    }

    /// The coordinate the table is interpolated in (docs/tables.md): log10 E,
    /// nu, log10 dt, log2 nit, log2 N.
    pub fn coordinate(self, v: f64) -> f64 {
        match self {
            Dim::Young | Dim::Dt => v.log10(),
            Dim::Poisson => v,
            Dim::Nit | Dim::N => v.log2(),
        }
    }

    /// Whether `v` is a valid value of this setting; `Err` says what is allowed (the study files' rule,
    /// [`Setting::allows`], for E, dt, nit and N).
    pub fn check(self, v: f64) -> Result<(), String> {
        let (label, setting) = match self {
            Dim::Young => ("E", Setting::Young),
            Dim::Dt => ("dt", Setting::Dt),
            Dim::Nit => ("nit", Setting::Nit),
            Dim::N => ("N", Setting::N),
            Dim::Poisson => {
                return if v.is_finite() && v > -1.0 && v < 0.5 {
                    Ok(())
                } else {
                    Err("nu must lie in (-1, 0.5): nu >= 0.5 is incompressible, linear elasticity has no such \
                         material"
                        .into())
                };
            }
        };
        setting.allows(v).map_err(|allowed| format!("{label} must be {allowed}"))
    }
}

/// The most nodes a table may have (the product of its axes' lengths; the shipped tables have a few
/// hundred). Checked before anything is allocated for them, in a definition file and in `table.json`.
pub const MAX_NODES: usize = 100_000;

/// The node values of the five axes, each strictly ascending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axes {
    /// Young's moduli in Pa.
    pub young: Vec<f64>,
    /// Poisson ratios.
    pub poisson: Vec<f64>,
    /// Time steps in s.
    pub dt: Vec<f64>,
    /// Solver iterations.
    pub nit: Vec<f64>,
    /// Mesh resolutions.
    pub n: Vec<f64>,
}

impl Axes {
    /// The values of one axis.
    pub fn get(&self, d: Dim) -> &[f64] {
        match d {
            Dim::Young => &self.young,
            Dim::Poisson => &self.poisson,
            Dim::Dt => &self.dt,
            Dim::Nit => &self.nit,
            Dim::N => &self.n,
        }
    }

    /// Checks every axis: not empty, every value valid for its setting, strictly ascending, and the
    /// nodes (the product of the axes' lengths) at most [`MAX_NODES`]. `Err` names the axis (and the
    /// index of the value) and what is allowed.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let nodes = self.shape().iter().try_fold(1usize, |acc, &k| acc.checked_mul(k));
        if nodes.is_none_or(|k| k > MAX_NODES) {
            let product: f64 = self.shape().iter().map(|&k| k as f64).product();
            let lengths: Vec<String> = self.shape().iter().map(|k| k.to_string()).collect();
            return Err((
                "young, poisson, dt, nit, n".into(),
                format!("{} values give {product:.3e} nodes; at most {MAX_NODES}", lengths.join(" x ")),
            ));
        }
        for d in DIMS {
            let values = self.get(d);
            if values.is_empty() {
                return Err((d.name().into(), "empty axis: list at least one value".into()));
            }
            for (i, &v) in values.iter().enumerate() {
                d.check(v).map_err(|m| (format!("{}[{i}]", d.name()), format!("{v}: {m}")))?;
                if d == Dim::Poisson && v < 0.0 {
                    return Err((format!("poisson[{i}]"), format!("{v}: tables cover nu in [0, 0.5)")));
                }
                if i > 0 && values[i - 1] >= v {
                    return Err((
                        format!("{}[{i}]", d.name()),
                        format!("{v} after {}: the values must be strictly ascending", values[i - 1]),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Number of values per axis, in [`DIMS`] order.
    pub fn shape(&self) -> [usize; 5] {
        DIMS.map(|d| self.get(d).len())
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.shape().iter().product()
    }

    /// The interpolation coordinates of every axis, in [`DIMS`] order.
    pub fn coordinates(&self) -> Vec<Vec<f64>> {
        DIMS.iter().map(|&d| self.get(d).iter().map(|&v| d.coordinate(v)).collect()).collect()
    }

    /// The node values at a multi-index (in [`DIMS`] order).
    pub fn at(&self, index: &[usize]) -> [f64; 5] {
        let mut out = [0.0; 5];
        for (k, d) in DIMS.iter().enumerate() {
            out[k] = self.get(*d)[index[k]];
        }
        out
    }

    /// The multi-index of a node's values (exact match), if it is a node.
    pub fn index_of(&self, values: &[f64; 5]) -> Option<[usize; 5]> {
        let mut out = [0; 5];
        for (k, d) in DIMS.iter().enumerate() {
            out[k] = self.get(*d).iter().position(|&v| v == values[k])?;
        }
        Some(out)
    }
}

/// The flat index of a multi-index on a grid of `shape` (last axis fastest).
pub fn flat(shape: &[usize], index: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (i, s)| acc * s + i)
}

/// The multi-index of a flat index on a grid of `shape` (last axis fastest).
pub fn unflat(shape: &[usize], mut i: usize) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        out[k] = i % shape[k];
        i /= shape[k];
    }
    out
}

pub use pbdfit_fit::parse_number;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_unflat_are_inverse_with_the_last_axis_fastest() {
        let shape = [2, 3, 4];
        assert_eq!(flat(&shape, &[1, 2, 3]), 23);
        assert_eq!(flat(&shape, &[0, 0, 1]), 1);
        for i in 0..24 {
            assert_eq!(flat(&shape, &unflat(&shape, i)), i);
        }
    }

    #[test]
    fn fractions_parse_to_the_quotient() {
        assert_eq!(parse_number("1/30").unwrap(), 1.0 / 30.0);
        assert_eq!(parse_number(" 0.01 ").unwrap(), 0.01);
        assert!(parse_number("1/x").is_err());
    }
}
