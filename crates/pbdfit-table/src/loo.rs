//! Leave-one-out: every interior node predicted from its two neighbours along each axis on which it has
//! a neighbour on both sides, with the node itself dropped (docs/tables.md). The
//! prediction is what interpolation would give there had the node not been fitted, so its deviation from
//! the node's fitted value estimates the interpolation's error between nodes. The prediction uses
//! lookup's rule ([`interpolate_parameter`]): per parameter, in log10 where both neighbours' values are
//! > 0, else in the search coordinate.

use pbdfit_results::Scale;

use crate::axes::{flat, unflat};
use crate::format::to_search;
use crate::interp::interpolate_parameter;

/// One leave-one-out prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// Flat index of the node predicted.
    pub node: usize,
    /// The axis along which it was predicted (index into the grid's axes).
    pub axis: usize,
    /// The predicted values in their natural units.
    pub values: Vec<f64>,
    /// Predicted minus fitted, per value, in search coordinates (log10 for compliances).
    pub deviation: Vec<f64>,
}

/// Every leave-one-out prediction on a grid with coordinates `axes` and per-node values `values` (flat,
/// last axis fastest; one vector per node, in natural units, parameter `j` of scale `scales[j]`), node by
/// node and axis by axis. A node whose values or whose neighbours' values are not finite (a failed fit)
/// is not predicted along that axis.
pub fn predictions(axes: &[Vec<f64>], values: &[Vec<f64>], scales: &[Scale]) -> Vec<Prediction> {
    let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
    let finite = |v: &Vec<f64>| v.iter().all(|x| x.is_finite());
    let mut out = Vec::new();
    for node in 0..values.len() {
        if !finite(&values[node]) {
            continue;
        }
        let index = unflat(&shape, node);
        for (k, axis) in axes.iter().enumerate() {
            let i = index[k];
            if i == 0 || i + 1 >= axis.len() {
                continue;
            }
            let mut lower = index.clone();
            lower[k] = i - 1;
            let mut upper = index.clone();
            upper[k] = i + 1;
            let (lo, hi) = (&values[flat(&shape, &lower)], &values[flat(&shape, &upper)]);
            if !finite(lo) || !finite(hi) {
                continue;
            }
            let t = (axis[i] - axis[i - 1]) / (axis[i + 1] - axis[i - 1]);
            let cell = [(0, 1.0 - t), (1, t)];
            let mut predicted = Vec::with_capacity(scales.len());
            let mut deviation = Vec::with_capacity(scales.len());
            for (j, &scale) in scales.iter().enumerate() {
                let p = interpolate_parameter(scale, &cell, |c| if c == 0 { lo[j] } else { hi[j] });
                predicted.push(p.value);
                deviation.push(p.search(scale) - to_search(scale, values[node][j]));
            }
            out.push(Prediction { node, axis: k, values: predicted, deviation });
        }
    }
    out
}

/// Median, 90th percentile (nearest rank) and maximum of `values` (finite ones only); `None` if none.
pub fn quantiles(values: &[f64]) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((rank(0.5), rank(0.9), v[v.len() - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x, y) = x^2 + y - 10 (negative, so interpolated linearly) on x in {0, 1, 3}, y in {0, 1, 2}:
    /// linear in y (leave-one-out exact along y), and along x the middle node (t = 1/3 between x = 0 and
    /// x = 3) is predicted as (2 f(0) + f(3)) / 3 = -7, 2 above f(1) = -9 whatever y. The second value, 2y,
    /// is exact either way (constant along x, in log10 where positive; linear along y from a zero).
    #[test]
    fn a_known_function_gives_the_known_error() {
        let axes = vec![vec![0.0, 1.0, 3.0], vec![0.0, 1.0, 2.0]];
        let mut values = Vec::new();
        for x in &axes[0] {
            for y in &axes[1] {
                values.push(vec![x * x + y - 10.0, 2.0 * y]);
            }
        }
        let p = predictions(&axes, &values, &[Scale::Linear, Scale::Linear]);
        // Interior along x: the three nodes with x = 1; along y: the three with y = 1.
        assert_eq!(p.len(), 6);
        for q in &p {
            let index = unflat(&[3, 3], q.node);
            if q.axis == 0 {
                assert_eq!(index[0], 1);
                assert!((q.deviation[0] - 2.0).abs() < 1e-15, "{q:?}");
            } else {
                assert_eq!(index[1], 1);
                assert!(q.deviation[0].abs() < 1e-15, "{q:?}");
            }
            assert!(q.deviation[1].abs() < 1e-15, "{q:?}");
        }
        // (Rounded: -10 costs the last bits.)
        let along_x: Vec<f64> = p.iter().map(|q| (q.deviation[0].abs() * 1e12).round() / 1e12).collect();
        // Three zeros (along y) and three 2s (along x): median (rank 3) 0, 90th percentile (rank 6) 2.
        assert_eq!(quantiles(&along_x), Some((0.0, 2.0, 2.0)));
    }

    #[test]
    fn failed_neighbours_are_skipped() {
        let axes = vec![vec![0.0, 1.0, 2.0]];
        let values = vec![vec![0.0], vec![1.0], vec![f64::NAN]];
        assert!(predictions(&axes, &values, &[Scale::Linear]).is_empty());
        assert_eq!(quantiles(&[3.0, f64::NAN, 1.0, 2.0]), Some((2.0, 3.0, 3.0)));
        assert_eq!(quantiles(&[]), None);
    }

    /// kd = c E^p (p near 1, as PBD's) on log10 E in {2, 3, 4, 5}, and a compliance alpha = 1e-3 / E:
    /// both predicted exactly (to rounding) from their neighbours. With kd = 0 at E = 1e2 (the search box's
    /// lower edge) the node at 1e3 falls back to linear: (0 + kd(1e4)) / 2.
    #[test]
    fn a_power_law_is_predicted_exactly_and_a_zero_neighbour_falls_back_to_linear() {
        let axes = vec![vec![2.0, 3.0, 4.0, 5.0]];
        let kd = |x: f64| 2.5e-6 * 10f64.powf(0.98 * x);
        let mut values: Vec<Vec<f64>> = axes[0].iter().map(|&x| vec![kd(x), 1e-3 * 10f64.powf(-x)]).collect();
        let scales = [Scale::Linear, Scale::Log10];
        let p = predictions(&axes, &values, &scales);
        assert_eq!(p.len(), 2);
        for q in &p {
            let x = axes[0][q.node];
            assert!((q.values[0] / kd(x) - 1.0).abs() < 1e-12, "{q:?}");
            assert!(q.deviation[0].abs() < 1e-12 * kd(x) && q.deviation[1].abs() < 1e-12, "{q:?}");
        }
        values[0][0] = 0.0;
        let p = predictions(&axes, &values, &scales);
        assert_eq!(p[0].node, 1);
        assert_eq!(p[0].values[0], 0.5 * kd(4.0));
        assert_eq!(p[0].deviation[0], 0.5 * kd(4.0) - kd(3.0));
        assert!(p[0].deviation[1].abs() < 1e-12, "{:?}", p[0]);
        assert!((p[1].values[0] / kd(4.0) - 1.0).abs() < 1e-12, "{:?}", p[1]);
    }
}
