//! How well a fit determines its parameters: the Hessian of the error at the optimum in the search
//! coordinates, its condition number, and per parameter the range within which the error rises by at
//! most 1 % (docs/method.md, section The fits; the user question "is kv even determined here?").

use nalgebra::{DMatrix, SymmetricEigen};

use crate::SearchBox;

/// Central-difference step in unit coordinates (1e-3 of each axis's width in search coordinates).
const STEP: f64 = 1e-3;
/// The error rise that bounds a parameter's range: 1 %.
pub const RISE: f64 = 0.01;
/// Bisections that refine each end of a range (to 1/256 of the bracket's width).
const BISECTIONS: usize = 8;

/// Identifiability of one fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Identifiability {
    /// Hessian of the error with respect to the search coordinates (the parameter itself on a linear
    /// scale, log10 of it on a log scale), row-major, `d x d`; evaluated by central differences at the
    /// optimum moved inside the box by one step where it sits on an edge.
    pub hessian: Vec<f64>,
    /// `|lambda_max| / lambda_min` of the Hessian; infinite when it is not positive definite (a
    /// direction in which the error does not rise: the parameters are not all determined).
    pub condition: f64,
    /// Per parameter, the values `(low, high)` between which the error rises by at most 1 % with the
    /// other parameters at their fitted values; an end at the box's edge means the error stays within
    /// 1 % up to the edge.
    pub ranges: Vec<(f64, f64)>,
    /// Per parameter, whether its range reaches both edges of the search box: the error stays within 1 %
    /// of the minimum along the whole axis, so the fit does not determine that parameter in the box.
    pub spans_box: Vec<bool>,
    /// Error evaluations spent.
    pub evaluations: usize,
}

impl Identifiability {
    /// Computes the identifiability at unit coordinates `t` (the optimum, with error `best`) from the
    /// error `cost` at unit coordinates (non-finite where there is no rest state).
    pub fn compute(search_box: &SearchBox, t: &[f64], best: f64, mut cost: impl FnMut(&[f64]) -> f64) -> Self {
        let d = t.len();
        let mut evaluations = 0;
        let mut f = |p: &[f64]| {
            evaluations += 1;
            cost(p)
        };
        let widths: Vec<f64> = search_box.axes().iter().map(|a| a.search_width()).collect();
        let centre: Vec<f64> = t.iter().map(|&x| x.clamp(STEP, 1.0 - STEP)).collect();
        let f0 = if centre == t { best } else { f(&centre) };
        let at = |shifts: &[(usize, f64)]| {
            let mut p = centre.clone();
            for &(i, s) in shifts {
                p[i] += s;
            }
            p
        };
        let mut h = DMatrix::<f64>::zeros(d, d);
        for i in 0..d {
            let (plus, minus) = (f(&at(&[(i, STEP)])), f(&at(&[(i, -STEP)])));
            h[(i, i)] = (plus - 2.0 * f0 + minus) / (STEP * STEP) / (widths[i] * widths[i]);
            for j in 0..i {
                let pp = f(&at(&[(i, STEP), (j, STEP)]));
                let pm = f(&at(&[(i, STEP), (j, -STEP)]));
                let mp = f(&at(&[(i, -STEP), (j, STEP)]));
                let mm = f(&at(&[(i, -STEP), (j, -STEP)]));
                let v = (pp - pm - mp + mm) / (4.0 * STEP * STEP) / (widths[i] * widths[j]);
                h[(i, j)] = v;
                h[(j, i)] = v;
            }
        }
        let condition = condition(&h);
        let limit = best * (1.0 + RISE);
        let mut ranges = Vec::with_capacity(d);
        let mut spans_box = Vec::with_capacity(d);
        for i in 0..d {
            let mut ends = [0.0; 2];
            for (k, direction) in [-1.0, 1.0].into_iter().enumerate() {
                ends[k] = range_end(t, i, direction, limit, &mut f);
            }
            let mut lo = t.to_vec();
            lo[i] = ends[0];
            let mut hi = t.to_vec();
            hi[i] = ends[1];
            ranges.push((search_box.values(&lo)[i], search_box.values(&hi)[i]));
            spans_box.push(ends == [0.0, 1.0]);
        }
        Self { hessian: h.iter_column_major_transposed(), condition, ranges, spans_box, evaluations }
    }
}

impl Identifiability {
    /// The identifiability from a quadratic model of the error at unit coordinates `t` (error `best`,
    /// gradient `gradient` and Gauss-Newton Hessian `hessian` in unit coordinates, row-major): what a
    /// gradient fit knows at its optimum without further evaluations (docs/method.md: `J^T J` at the optimum
    /// is the Hessian identifiability reports). Each range ends where the model's error along its axis
    /// rises by [`RISE`], or at the box's edge.
    pub fn from_model(search_box: &SearchBox, t: &[f64], best: f64, gradient: &[f64], hessian: &[f64]) -> Self {
        Self::model_ends(search_box, t, best, gradient, hessian).0
    }

    /// [`from_model`](Self::from_model) and each range's ends in unit coordinates.
    fn model_ends(
        search_box: &SearchBox,
        t: &[f64],
        best: f64,
        gradient: &[f64],
        hessian: &[f64],
    ) -> (Self, Vec<[f64; 2]>) {
        let d = t.len();
        let widths: Vec<f64> = search_box.axes().iter().map(|a| a.search_width()).collect();
        let h = DMatrix::<f64>::from_fn(d, d, |i, j| hessian[i * d + j] / (widths[i] * widths[j]));
        let condition = condition(&h);
        let rise = best * RISE;
        let ends: Vec<[f64; 2]> = (0..d)
            .map(|i| {
                let (g, c) = (gradient[i], 0.5 * hessian[i * d + i]);
                // The step x along the axis where g x + c x^2 = rise, for x > 0 (up) and x < 0 (down).
                let end = |sign: f64| {
                    let (a, b) = (c, sign * g);
                    let x = if a > 0.0 {
                        (-b + (b * b + 4.0 * a * rise).sqrt()) / (2.0 * a)
                    } else if b > 0.0 {
                        rise / b
                    } else {
                        f64::INFINITY
                    };
                    (t[i] + sign * x).clamp(0.0, 1.0)
                };
                [end(-1.0), end(1.0)]
            })
            .collect();
        let ranges = ends.iter().enumerate().map(|(i, e)| range_values(search_box, t, i, *e)).collect();
        let spans_box = ends.iter().map(|e| *e == [0.0, 1.0]).collect();
        (Self { hessian: h.iter_column_major_transposed(), condition, ranges, spans_box, evaluations: 0 }, ends)
    }

    /// [`from_model`](Self::from_model), with each range ending where the points still have a rest state:
    /// `rests(p)` says whether the point at unit coordinates `p` has one (a stable one, for an engine). The
    /// quadratic model knows nothing of where the simulation stops resting, so a soft end without a rest
    /// state made a range span the whole box; an end that does not rest is moved back towards the optimum
    /// by bisection ([`BISECTIONS`]) to the last point found resting. Ends that rest cost one evaluation
    /// each and stay as they were, bit for bit.
    pub fn from_model_resting(
        search_box: &SearchBox,
        t: &[f64],
        best: f64,
        gradient: &[f64],
        hessian: &[f64],
        mut rests: impl FnMut(&[f64]) -> bool,
    ) -> Self {
        let (mut id, ends) = Self::model_ends(search_box, t, best, gradient, hessian);
        let mut evaluations = 0;
        for (i, ends) in ends.into_iter().enumerate() {
            let point = |x: f64| {
                let mut p = t.to_vec();
                p[i] = x;
                p
            };
            let mut moved = ends;
            for (k, &end) in ends.iter().enumerate() {
                if end == t[i] {
                    continue;
                }
                evaluations += 1;
                if rests(&point(end)) {
                    continue;
                }
                let (mut inside, mut outside) = (t[i], end);
                for _ in 0..BISECTIONS {
                    let mid = 0.5 * (inside + outside);
                    evaluations += 1;
                    if rests(&point(mid)) {
                        inside = mid;
                    } else {
                        outside = mid;
                    }
                }
                moved[k] = inside;
            }
            if moved != ends {
                id.ranges[i] = range_values(search_box, t, i, moved);
                id.spans_box[i] = moved == [0.0, 1.0];
            }
        }
        id.evaluations = evaluations;
        id
    }
}

/// The values of parameter `i` at unit coordinates `ends` of its axis, the others at `t`.
fn range_values(search_box: &SearchBox, t: &[f64], i: usize, ends: [f64; 2]) -> (f64, f64) {
    let (mut lo, mut hi) = (t.to_vec(), t.to_vec());
    lo[i] = ends[0];
    hi[i] = ends[1];
    (search_box.values(&lo)[i], search_box.values(&hi)[i])
}

/// Why a fit's 1 % ranges carry no information, if they carry none. Two cases, each named per parameter
/// (`names`, in the model's order):
///
/// - a range **collapses** to the fitted point (`low == high`, to 1e-12 of the value): the error was not
///   seen to stay within 1 % of the minimum anywhere along that axis, either because its curvature there
///   is so steep next to flat directions (an ill-conditioned Hessian: `id.condition`, infinite where it is
///   not positive definite) that the first step out already rises by more than 1 %, or because the points
///   next to it have no rest state. Such a range would read as a parameter known exactly.
/// - a range **spans the whole search box** ([`Identifiability::spans_box`]): along that parameter's
///   axis through the fitted point the error was not seen to rise by 1 % up to either edge of the box (by
///   evaluations for a pattern search, by the Gauss-Newton model at the optimum, its ends checked for rest
///   states, for a gradient search), so the fit bounds that parameter nowhere inside the box (the built-in
///   steel strip's cloth-xpbd fit at the box's stiff corner, error 169.25). Such a range would read as an
///   error bar as wide as the user's box, which is the box, not the physics.
///
/// Either is no error bar, so the report says so instead; `None` where every range is an interval
/// strictly inside the box.
pub fn ranges_without_information(names: &[&str], id: &Identifiability) -> Option<String> {
    let plural = |list: &[&str], one: &'static str, many: &'static str| if list.len() == 1 { one } else { many };
    let collapsed: Vec<&str> = names
        .iter()
        .zip(&id.ranges)
        .filter(|(_, (lo, hi))| (hi - lo).abs() <= 1e-12 * lo.abs().max(hi.abs()))
        .map(|(name, _)| *name)
        .collect();
    let spanning: Vec<&str> =
        names.iter().zip(&id.spans_box).filter(|(_, spans)| **spans).map(|(name, _)| *name).collect();
    let mut notes = Vec::new();
    if !collapsed.is_empty() {
        let hessian = if id.condition.is_finite() {
            format!("the error's Hessian has condition number {:.3e}", id.condition)
        } else {
            "the error's Hessian is not positive definite".to_string()
        };
        notes.push(format!(
            "{} collapse{} to the fitted point ({hessian}; the first step along {} already leaves 1 % of the minimum \
             or has no rest state)",
            collapsed.join(" and "),
            plural(&collapsed, "s", ""),
            plural(&collapsed, "it", "them")
        ));
    }
    if !spanning.is_empty() {
        notes.push(format!(
            "{} span{} the whole search box (no 1 % rise of the error was found along {} up to either edge of the \
             box, so the fit bounds {} nowhere inside it)",
            spanning.join(" and "),
            plural(&spanning, "s", ""),
            plural(&spanning, "it", "them"),
            plural(&spanning, "it", "them")
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// `|lambda_max| / lambda_min` of a symmetric matrix; infinite when it is not positive definite.
fn condition(h: &DMatrix<f64>) -> f64 {
    if !h.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let eigen = SymmetricEigen::new(h.clone()).eigenvalues;
    let (lo, hi) = eigen.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &e| (lo.min(e), hi.max(e.abs())));
    if lo > 0.0 { hi / lo } else { f64::INFINITY }
}

/// Where, along axis `i` from `t` in `direction`, the error first exceeds `limit`: doubling steps from
/// [`STEP`] until it does or the box's edge is reached, then bisection. Unit coordinate of the end.
fn range_end(t: &[f64], i: usize, direction: f64, limit: f64, f: &mut impl FnMut(&[f64]) -> f64) -> f64 {
    let edge = if direction > 0.0 { 1.0 } else { 0.0 };
    let point = |x: f64| {
        let mut p = t.to_vec();
        p[i] = x;
        p
    };
    let (mut inside, mut outside) = (t[i], None);
    let mut step = STEP;
    while inside != edge {
        let x = (t[i] + direction * step).clamp(0.0, 1.0);
        if f(&point(x)) > limit {
            outside = Some(x);
            break;
        }
        inside = x;
        step *= 2.0;
    }
    let Some(mut outside) = outside else { return edge };
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (inside + outside);
        if f(&point(mid)) > limit {
            outside = mid;
        } else {
            inside = mid;
        }
    }
    0.5 * (inside + outside)
}

/// Row-major flattening of a symmetric matrix (equal to column-major, named for the reader).
trait Flatten {
    fn iter_column_major_transposed(&self) -> Vec<f64>;
}

impl Flatten for DMatrix<f64> {
    fn iter_column_major_transposed(&self) -> Vec<f64> {
        self.transpose().iter().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_pbd::ModelKind;

    use super::*;

    /// An identifiability with these ranges (spanning the box where `spans`) and condition number.
    fn with_ranges(ranges: &[(f64, f64)], spans: &[bool], condition: f64) -> Identifiability {
        Identifiability {
            hessian: vec![],
            condition,
            ranges: ranges.to_vec(),
            spans_box: spans.to_vec(),
            evaluations: 0,
        }
    }

    /// The cloth-xpbd fit of the built-in steel strip (10 cells, dt 0.002 s, nit 10) with the Anderson
    /// rest states: alpha_b's range is the fitted point itself with the Hessian's condition 1.88e10, so
    /// the ranges carry no information; the fabric strip's fit (condition 5.2e3) has ranges that do.
    #[test]
    fn a_range_collapsed_to_the_point_carries_no_information() {
        let names = ["alpha_d", "alpha_b"];
        let strip = [(4.53265349402953e-8, 4.930047946375939e-8), (3.9484260780547567e-4, 3.9484260780547567e-4)];
        let why = ranges_without_information(&names, &with_ranges(&strip, &[false, false], 1.8830906620651188e10))
            .expect("no information");
        assert_eq!(
            why,
            "alpha_b collapses to the fitted point (the error's Hessian has condition number 1.883e10; the first \
             step along it already leaves 1 % of the minimum or has no rest state)"
        );
        let fabric = [(7.638515371241392e-4, 1.1038623655424784e-3), (6.7968594581938385e-3, 1.6597100484548273e-2)];
        assert_eq!(ranges_without_information(&names, &with_ranges(&fabric, &[false, false], 5247.368275294339)), None);
        let both = [(1.0, 1.0), (2.0, 2.0)];
        let why = ranges_without_information(&names, &with_ranges(&both, &[false, false], f64::INFINITY)).unwrap();
        assert!(why.starts_with("alpha_d and alpha_b collapse to") && why.contains("not positive definite"), "{why}");
    }

    /// A fit whose error does not rise along either axis (the steel strip's cloth-xpbd fit with Newton-Krylov
    /// rest states, 169.25 at the box's stiff corner): computed on a flat error, both ranges reach both edges of
    /// cloth-xpbd's box, `spans_box` says so, and the note names them; a range inside the box (a bowl) does
    /// not span it, and a collapsed range and a spanning one are both named.
    #[test]
    fn a_range_spanning_the_whole_box_carries_no_information() {
        let b = SearchBox::default_for(ModelKind::CLOTH_XPBD);
        let names = ["alpha_d", "alpha_b"];
        let flat = Identifiability::compute(&b, &[1.0, 1.0], 169.25, |_| 169.25);
        assert_eq!(flat.spans_box, vec![true, true]);
        assert_eq!(flat.ranges, vec![(1e-10, 1e2), (1e-8, 1e4)], "the box of cloth-xpbd");
        let why = ranges_without_information(&names, &flat).expect("no information");
        assert_eq!(
            why,
            "alpha_d and alpha_b span the whole search box (no 1 % rise of the error was found along them up to \
             either edge of the box, so the fit bounds them nowhere inside it)"
        );
        // Only alpha_b flat: alpha_d's bowl is inside the box.
        let bowl = Identifiability::compute(&b, &[0.5, 0.2], 1.0, |p| 1.0 + 10.0 * (p[0] - 0.5).powi(2));
        assert_eq!(bowl.spans_box, vec![false, true]);
        let why = ranges_without_information(&names, &bowl).unwrap();
        assert!(why.starts_with("alpha_b spans the whole search box") && why.contains("bounds it nowhere"), "{why}");
        // The quadratic model's ranges: the same rule.
        let model = Identifiability::from_model(&b, &[0.5, 0.5], 1.0, &[0.0, 0.0], &[20.0, 0.0, 0.0, 0.0]);
        assert_eq!(model.spans_box, vec![false, true]);
        // Both kinds at once.
        let mixed = with_ranges(&[(3.0, 3.0), (1e-8, 1e4)], &[false, true], 4.3e14);
        let why = ranges_without_information(&names, &mixed).unwrap();
        assert!(why.starts_with("alpha_d collapses to the fitted point") && why.contains("; alpha_b spans"), "{why}");
    }

    /// A known quadratic bowl: exact Hessian (central differences are exact on quadratics), condition
    /// number, and 1 % ranges `x* +- sqrt(2 * 0.01 * e* / H_ii)`; a flat direction is not determined.
    #[test]
    fn recovers_a_known_quadratic() {
        let b = SearchBox::default_for(ModelKind::PBD);
        let (x0, y0, e0) = (0.4, 0.6, 0.5);
        let (a, c, bxy) = (3.0, 0.5, 0.4);
        let bowl = |p: &[f64]| {
            e0 + 0.5 * (a * (p[0] - x0).powi(2) + 2.0 * bxy * (p[0] - x0) * (p[1] - y0) + c * (p[1] - y0).powi(2))
        };
        let id = Identifiability::compute(&b, &[x0, y0], e0, bowl);
        for (got, want) in id.hessian.iter().zip([a, bxy, bxy, c]) {
            assert!((got - want).abs() < 1e-6, "{:?}", id.hessian);
        }
        let m = nalgebra::Matrix2::new(a, bxy, bxy, c);
        let ev = m.symmetric_eigen().eigenvalues;
        let want = ev.max() / ev.min();
        assert!((id.condition - want).abs() < 1e-5 * want, "{} vs {want}", id.condition);
        for (i, (lo, hi)) in id.ranges.iter().enumerate() {
            let (centre, curvature) = if i == 0 { (x0, a) } else { (y0, c) };
            let half = (2.0 * RISE * e0 / curvature).sqrt();
            let edge = |v: f64| v.clamp(0.0, 1.0);
            assert!((lo - edge(centre - half)).abs() < 2e-3, "{i}: {lo} vs {}", centre - half);
            assert!((hi - edge(centre + half)).abs() < 2e-3, "{i}: {hi} vs {}", centre + half);
        }
        let flat = |p: &[f64]| e0 + (p[0] - x0).powi(2);
        let id = Identifiability::compute(&b, &[x0, y0], e0, flat);
        assert!(id.condition.is_infinite(), "kv does not matter: not determined");
        assert_eq!(id.ranges[1], (0.0, 1.0), "the whole box");
    }

    /// On a log axis the Hessian is with respect to log10 of the value.
    #[test]
    fn log_axes_use_log10_coordinates() {
        let b = SearchBox::default_for(ModelKind::XPBD);
        let w: Vec<f64> = b.axes().iter().map(|a| a.search_width()).collect();
        assert_eq!(w, vec![12.0, 16.0]);
        let t = [0.5, 0.5];
        let e = |p: &[f64]| 1.0 + (w[0] * (p[0] - 0.5)).powi(2) + 4.0 * (w[1] * (p[1] - 0.5)).powi(2);
        let id = Identifiability::compute(&b, &t, 1.0, e);
        assert!((id.hessian[0] - 2.0).abs() < 1e-6 && (id.hessian[3] - 8.0).abs() < 1e-6, "{:?}", id.hessian);
        let (lo, hi) = id.ranges[0];
        let centre = b.values(&t)[0];
        assert!(((hi / centre).log10() - 0.1).abs() < 5e-3 && ((centre / lo).log10() - 0.1).abs() < 5e-3);
    }

    /// A gradient fit's 1 % range comes from its quadratic model, which knows nothing of where the
    /// simulation stops resting: over a shallow bowl it spanned the whole box though the soft end had no
    /// rest state. Ends that do not rest move back to the last point found resting (within the
    /// bisection's 1/256 of the way); ends that rest are the model's, bit for bit, one evaluation each.
    #[test]
    fn ranges_end_where_the_points_stop_resting() {
        let b = SearchBox::default_for(ModelKind::XPBD);
        let (t, e) = ([0.5, 0.5], 1.0);
        // A shallow bowl: the model's 1 % ranges reach the box's edges on both axes.
        let (g, h) = ([0.0, 0.0], [1e-3, 0.0, 0.0, 1e-3]);
        let model = Identifiability::from_model(&b, &t, e, &g, &h);
        assert_eq!(model.ranges[0], (b.values(&[0.0, 0.5])[0], b.values(&[1.0, 0.5])[0]));
        // Nothing rests above 0.8 on the first axis (its soft end) nor below 0.3 on the second.
        let rests = |p: &[f64]| p[0] <= 0.8 && p[1] >= 0.3;
        let id = Identifiability::from_model_resting(&b, &t, e, &g, &h, rests);
        let unit = |i: usize, v: f64| {
            let mut p = b.values(&t);
            p[i] = v;
            b.unit(&p)[i]
        };
        let (lo0, hi0) = id.ranges[0];
        assert_eq!(lo0, model.ranges[0].0, "the end that rests is the model's");
        assert!(unit(0, hi0) <= 0.8 && unit(0, hi0) > 0.8 - 0.5 / 256.0 - 1e-12, "{}", unit(0, hi0));
        let (lo1, hi1) = id.ranges[1];
        assert!(unit(1, lo1) >= 0.3 && unit(1, lo1) < 0.3 + 0.5 / 256.0 + 1e-12, "{}", unit(1, lo1));
        assert_eq!(hi1, model.ranges[1].1);
        assert_eq!(id.evaluations, 4 + 2 * BISECTIONS);
        assert_eq!(id.hessian, model.hessian);
        // Where every end rests, the ranges are the model's.
        let all = Identifiability::from_model_resting(&b, &t, e, &g, &h, |_| true);
        assert_eq!(all.ranges, model.ranges);
    }
}
