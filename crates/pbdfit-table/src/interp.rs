//! Multilinear interpolation on a rectilinear grid (any number of axes), in coordinates the caller
//! chooses (the table uses log10 E, nu, log10 dt, log2 nit, log2 N).
//!
//! The interpolant is a convex combination of the cell's corner values, so it reproduces any function
//! that is multilinear in the coordinates, takes the node values at the nodes (the weight of the node
//! is exactly 1 there and every other weight exactly 0), and is monotone along an axis wherever the node
//! data are.
//!
//! A table's parameters are interpolated in a per-cell *interpolation coordinate*
//! ([`Coordinate::of_cell`], applied by [`interpolate_parameter`], which both lookup and leave-one-out
//! use): log10 of the value where every contributing corner value (the corners with a non-zero weight)
//! is > 0, else the parameter's search coordinate (the value for linear-scale parameters such as kd, kv;
//! log10 for compliances, which are always > 0 and so always interpolated in log10). A power law
//! `c E^p` (more generally any positive function whose log10 is multilinear in the coordinates) is
//! then reproduced exactly between nodes, and the interpolant stays monotone within a cell wherever the
//! corner data are (log10 is monotone). Where a cell has a zero corner and its neighbour has none, the
//! two cells interpolate their shared face differently (the zero-corner cell linearly, the face itself
//! in log10), so the interpolant can jump there by the difference between the arithmetic and geometric
//! means of the face's corner values.

use pbdfit_results::Scale;

use crate::axes::flat;

/// Relative tolerance (of an axis's span, or of the value for a one-node axis) within which a query
/// on the edge of the range counts as on it: a value printed and read back may differ in the last bit.
pub const EDGE_TOLERANCE: f64 = 1e-9;

/// Where a coordinate lies on one axis: the cell's lower node and the position in the cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Position {
    /// Inside the axis's range: lower node index and t in [0, 1] (a one-node axis: node 0, t = 0).
    Inside(usize, f64),
    /// Below the first node.
    Below,
    /// Above the last node.
    Above,
}

/// Locates `x` on the ascending coordinates `axis` (not empty).
pub fn locate(axis: &[f64], x: f64) -> Position {
    let first = axis[0];
    let last = axis[axis.len() - 1];
    let tolerance =
        if axis.len() == 1 { EDGE_TOLERANCE * first.abs().max(1.0) } else { EDGE_TOLERANCE * (last - first) };
    if x.is_nan() {
        return Position::Above;
    }
    if x < first - tolerance {
        return Position::Below;
    }
    if x > last + tolerance {
        return Position::Above;
    }
    if axis.len() == 1 {
        return Position::Inside(0, 0.0);
    }
    let x = x.clamp(first, last);
    let i = axis.partition_point(|&v| v <= x).saturating_sub(1).min(axis.len() - 2);
    let t = (x - axis[i]) / (axis[i + 1] - axis[i]);
    Position::Inside(i, t.clamp(0.0, 1.0))
}

/// The corners of a cell with a non-zero weight, as (flat node index, weight), in a fixed order (the
/// first axis's lower node first). `cells[k] = (lower node, t)` per axis; a one-node axis has t = 0.
pub fn corners(shape: &[usize], cells: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let d = shape.len();
    let mut out = Vec::with_capacity(1 << d);
    let mut index = vec![0; d];
    for bits in 0..(1usize << d) {
        let mut w = 1.0;
        for k in 0..d {
            let upper = (bits >> (d - 1 - k)) & 1 == 1;
            let (i, t) = cells[k];
            if upper {
                w *= t;
                index[k] = i + 1;
            } else {
                w *= 1.0 - t;
                index[k] = i;
            }
        }
        if w != 0.0 {
            out.push((flat(shape, &index), w));
        }
    }
    out
}

/// The interpolated value: the weighted sum of the corner values, in the corners' order. At a node
/// (one corner of weight 1) this is the node's value exactly.
pub fn weighted(corners: &[(usize, f64)], value: impl Fn(usize) -> f64) -> f64 {
    if let [(i, w)] = corners
        && *w == 1.0
    {
        return value(*i);
    }
    corners.iter().map(|&(i, w)| w * value(i)).sum()
}

/// The coordinate a parameter is interpolated in on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinate {
    /// The value itself.
    Linear,
    /// log10 of the value.
    Log10,
}

impl Coordinate {
    /// The search coordinate of a parameter of scale `scale` (the fallback).
    pub fn search(scale: Scale) -> Self {
        match scale {
            Scale::Linear => Self::Linear,
            Scale::Log10 => Self::Log10,
        }
    }

    /// The interpolation coordinate of a cell whose contributing corners (non-zero weight) have the
    /// values `corner_values`: log10 where all are > 0, else the search coordinate of `scale`.
    pub fn of_cell(scale: Scale, corner_values: impl IntoIterator<Item = f64>) -> Self {
        if corner_values.into_iter().all(|v| v > 0.0) { Self::Log10 } else { Self::search(scale) }
    }

    /// A value's coordinate.
    pub fn to(self, v: f64) -> f64 {
        match self {
            Self::Linear => v,
            Self::Log10 => v.log10(),
        }
    }

    /// The value at a coordinate.
    pub fn from(self, c: f64) -> f64 {
        match self {
            Self::Linear => c,
            Self::Log10 => 10f64.powf(c),
        }
    }
}

/// A parameter interpolated on a cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interpolated {
    /// The value in its natural units (at a node, the node's value bit for bit).
    pub value: f64,
    /// The cell's interpolation coordinate.
    pub coordinate: Coordinate,
    /// The interpolated coordinate (the weighted sum of the corners' coordinates).
    pub at: f64,
}

impl Interpolated {
    /// The value in the search coordinate of `scale` (log10 for compliances): the interpolated
    /// coordinate itself where the two coincide.
    pub fn search(&self, scale: Scale) -> f64 {
        let search = Coordinate::search(scale);
        if search == self.coordinate { self.at } else { search.to(self.value) }
    }
}

/// Interpolates one parameter (of scale `scale`, node values in natural units given by `value`) on the
/// cell `corners` (from [`corners`]) in the cell's interpolation coordinate ([`Coordinate::of_cell`]):
/// the one rule of the table's lookup and leave-one-out. At a node (one corner of weight 1) the node's
/// value exactly.
///
/// ```
/// use pbdfit_results::Scale;
/// use pbdfit_table::interp::{Coordinate, interpolate_parameter};
/// // kd = 2.5e-6 E on E = 1e2, 1e4 (coordinates log10 E = 2, 4): at E = 1e3 (t = 1/2) exactly 2.5e-3.
/// let kd = [2.5e-4, 2.5e-2];
/// let p = interpolate_parameter(Scale::Linear, &[(0, 0.5), (1, 0.5)], |i| kd[i]);
/// assert_eq!(p.coordinate, Coordinate::Log10);
/// assert!((p.value / 2.5e-3 - 1.0).abs() < 1e-14);
/// // A zero corner: linear in the value.
/// let kd = [0.0, 0.5];
/// let p = interpolate_parameter(Scale::Linear, &[(0, 0.5), (1, 0.5)], |i| kd[i]);
/// assert_eq!((p.coordinate, p.value), (Coordinate::Linear, 0.25));
/// ```
pub fn interpolate_parameter(scale: Scale, corners: &[(usize, f64)], value: impl Fn(usize) -> f64) -> Interpolated {
    let coordinate = Coordinate::of_cell(scale, corners.iter().map(|&(i, _)| value(i)));
    if let [(i, w)] = corners
        && *w == 1.0
    {
        let v = value(*i);
        return Interpolated { value: v, coordinate, at: coordinate.to(v) };
    }
    let at = weighted(corners, |i| coordinate.to(value(i)));
    Interpolated { value: coordinate.from(at), coordinate, at }
}

/// Interpolates node values (flat, last axis fastest) at the point `x` of the grid with coordinates
/// `axes`; `None` when `x` lies outside the grid on some axis.
///
/// ```
/// use pbdfit_table::interp::interpolate;
/// // f(x, y) = 1 + 2x + 3y + 4xy on nodes x in {0, 1}, y in {0, 2}.
/// let axes = vec![vec![0.0, 1.0], vec![0.0, 2.0]];
/// let values = [1.0, 7.0, 3.0, 17.0];
/// assert_eq!(interpolate(&axes, &values, &[0.5, 1.0]), Some(1.0 + 1.0 + 3.0 + 2.0));
/// assert_eq!(interpolate(&axes, &values, &[1.5, 1.0]), None);
/// ```
pub fn interpolate(axes: &[Vec<f64>], values: &[f64], x: &[f64]) -> Option<f64> {
    let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
    let mut cells = Vec::with_capacity(axes.len());
    for (a, &xk) in axes.iter().zip(x) {
        match locate(a, xk) {
            Position::Inside(i, t) => cells.push((i, t)),
            _ => return None,
        }
    }
    Some(weighted(&corners(&shape, &cells), |i| values[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axes::unflat;

    /// Irregular axes, like a table's (one of them a single node).
    fn axes() -> Vec<Vec<f64>> {
        vec![
            vec![2.0, 3.0, 4.5, 7.0],
            vec![0.0, 0.2, 0.35, 0.49],
            vec![-3.0, -2.5, -1.477],
            vec![0.0],
            vec![0.0, 1.0, 2.0],
        ]
    }

    fn on_nodes(axes: &[Vec<f64>], f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
        let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
        let count: usize = shape.iter().product();
        (0..count)
            .map(|i| {
                let idx = unflat(&shape, i);
                let x: Vec<f64> = idx.iter().zip(axes).map(|(&j, a)| a[j]).collect();
                f(&x)
            })
            .collect()
    }

    /// Multilinear in every coordinate (products of distinct coordinates, never squares).
    fn multilinear(x: &[f64]) -> f64 {
        1.5 + 0.3 * x[0] - 2.0 * x[1] + 0.7 * x[2] + 0.25 * x[4] + 0.9 * x[0] * x[1] - 0.4 * x[1] * x[2] * x[4]
            + 0.05 * x[0] * x[1] * x[2] * x[4]
    }

    #[test]
    fn a_multilinear_function_is_reproduced_to_1e_12() {
        let axes = axes();
        let values = on_nodes(&axes, multilinear);
        let mut worst: f64 = 0.0;
        // A deterministic scatter of points over the whole range.
        for k in 0..500 {
            let s = |m: f64, a: &Vec<f64>| a[0] + ((k as f64 * m).fract()) * (a[a.len() - 1] - a[0]);
            let x = [s(0.618034, &axes[0]), s(0.414214, &axes[1]), s(0.732051, &axes[2]), 0.0, s(0.236068, &axes[4])];
            let got = interpolate(&axes, &values, &x).unwrap();
            worst = worst.max((got - multilinear(&x)).abs());
        }
        assert!(worst < 1e-12, "largest deviation {worst:e}");
    }

    #[test]
    fn node_values_are_hit_exactly() {
        let axes = axes();
        // Values that a sum of weighted neighbours would round: exactness needs the single-corner path.
        let values = on_nodes(&axes, |x| (x[0] * 1.1).sin() + x[1].exp() / 3.0 + x[2] * x[4] / 7.0);
        let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
        for (i, v) in values.iter().enumerate() {
            let idx = unflat(&shape, i);
            let x: Vec<f64> = idx.iter().zip(&axes).map(|(&j, a)| a[j]).collect();
            assert_eq!(interpolate(&axes, &values, &x).unwrap().to_bits(), v.to_bits(), "node {idx:?}");
        }
    }

    #[test]
    fn monotone_node_data_give_a_monotone_interpolant() {
        let axes = axes();
        // Increasing in x0 (not linearly), decreasing in x1, at every value of the others.
        let values = on_nodes(&axes, |x| x[0].powi(3) * (1.0 + x[4]) - 5.0 * x[1].sqrt() + x[2].sin());
        let mut previous = f64::NEG_INFINITY;
        for k in 0..=400 {
            let x0 = 2.0 + 5.0 * k as f64 / 400.0;
            let v = interpolate(&axes, &values, &[x0, 0.3, -2.0, 0.0, 1.3]).unwrap();
            assert!(v >= previous, "not increasing at x0 = {x0}");
            previous = v;
        }
        let mut previous = f64::INFINITY;
        for k in 0..=400 {
            let x1 = 0.49 * k as f64 / 400.0;
            let v = interpolate(&axes, &values, &[5.0, x1, -2.0, 0.0, 0.5]).unwrap();
            assert!(v <= previous, "not decreasing at x1 = {x1}");
            previous = v;
        }
    }

    /// The cell of `x` on `axes` (every coordinate inside).
    fn cell(axes: &[Vec<f64>], x: &[f64]) -> Vec<(usize, f64)> {
        let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
        let cells: Vec<(usize, f64)> = axes
            .iter()
            .zip(x)
            .map(|(a, &xk)| match locate(a, xk) {
                Position::Inside(i, t) => (i, t),
                p => panic!("{xk} is {p:?}"),
            })
            .collect();
        corners(&shape, &cells)
    }

    /// A deterministic scatter of points over the whole range of `axes()`.
    fn scatter(axes: &[Vec<f64>], k: usize) -> [f64; 5] {
        let s = |m: f64, a: &Vec<f64>| a[0] + ((k as f64 * m).fract()) * (a[a.len() - 1] - a[0]);
        [s(0.618034, &axes[0]), s(0.414214, &axes[1]), s(0.732051, &axes[2]), 0.0, s(0.236068, &axes[4])]
    }

    #[test]
    fn a_power_law_in_e_is_reproduced_exactly_between_nodes() {
        // kd = c E^p with x0 = log10 E on an irregular axis (1e2 to 1e7), like PBD's kd (p about 1).
        let axes = axes();
        let (c, p) = (2.5e-6, 0.97);
        let kd = |x: &[f64]| c * 10f64.powf(p * x[0]);
        let values = on_nodes(&axes, kd);
        let mut worst: f64 = 0.0;
        for k in 0..500 {
            let x = scatter(&axes, k);
            let got = interpolate_parameter(Scale::Linear, &cell(&axes, &x), |i| values[i]);
            assert_eq!(got.coordinate, Coordinate::Log10);
            worst = worst.max((got.value / kd(&x) - 1.0).abs());
        }
        assert!(worst < 1e-12, "largest relative deviation {worst:e}");
        // Linear in the value, the same data are far off between decades: at E = 10^2.5 the mean of
        // c 10^(2p) and c 10^(3p) is 1.69 times c 10^(2.5p).
        let x = [2.5, 0.1, -2.0, 0.0, 1.0];
        let linear = interpolate(&axes, &values, &x).unwrap();
        assert!(linear / kd(&x) > 1.6, "{}", linear / kd(&x));
    }

    #[test]
    fn a_cell_with_a_zero_corner_falls_back_to_linear() {
        let axes = axes();
        // Positive except at the nodes with x0 = 2 and x1 = 0 (one face of the grid): there 0, as kd on the
        // search box's lower edge.
        let f = |x: &[f64]| if x[0] == 2.0 && x[1] == 0.0 { 0.0 } else { 0.01 * x[0].powi(2) * (1.0 + x[1]) };
        let values = on_nodes(&axes, f);
        let (mut linear, mut log) = (0, 0);
        for k in 0..500 {
            let x = scatter(&axes, k);
            let c = cell(&axes, &x);
            let got = interpolate_parameter(Scale::Linear, &c, |i| values[i]);
            if c.iter().any(|&(i, _)| values[i] == 0.0) {
                // Exactly the multilinear interpolant of the values.
                assert_eq!(got.coordinate, Coordinate::Linear);
                assert_eq!(got.value, interpolate(&axes, &values, &x).unwrap());
                assert_eq!(got.search(Scale::Linear), got.value);
                linear += 1;
            } else {
                assert_eq!(got.coordinate, Coordinate::Log10);
                let logs: Vec<f64> = values.iter().map(|v| v.log10()).collect();
                assert!((got.value.log10() - interpolate(&axes, &logs, &x).unwrap()).abs() < 1e-12);
                log += 1;
            }
        }
        assert!(linear > 10 && log > 100, "{linear} linear, {log} log10 cells");
        // The cell x0 in [2, 3], x1 in [0, 0.2] on its face x0 = 3: the corners at x0 = 2 have weight 0, so
        // only the face's (positive) values count.
        let shape: Vec<usize> = axes.iter().map(|a| a.len()).collect();
        let face = corners(&shape, &[(0, 1.0), (0, 0.5), (0, 0.5), (0, 0.0), (0, 0.5)]);
        assert_eq!(face.len(), 8);
        assert_eq!(interpolate_parameter(Scale::Linear, &face, |i| values[i]).coordinate, Coordinate::Log10);
        let inside = corners(&shape, &[(0, 0.999), (0, 0.5), (0, 0.5), (0, 0.0), (0, 0.5)]);
        assert_eq!(interpolate_parameter(Scale::Linear, &inside, |i| values[i]).coordinate, Coordinate::Linear);
        // A compliance (log10 search coordinate) stays in log10 either way, and at a node the value is exact.
        let alpha = [1e-6, 1e-2];
        let mid = interpolate_parameter(Scale::Log10, &[(0, 0.5), (1, 0.5)], |i| alpha[i]);
        assert_eq!((mid.coordinate, mid.search(Scale::Log10)), (Coordinate::Log10, -4.0));
        let node = interpolate_parameter(Scale::Linear, &[(1, 1.0)], |i| values[i]);
        assert_eq!(node.value.to_bits(), values[1].to_bits());
    }

    #[test]
    fn points_outside_the_range_or_off_a_one_node_axis_are_refused() {
        let axes = axes();
        let values = on_nodes(&axes, multilinear);
        assert_eq!(interpolate(&axes, &values, &[1.9, 0.1, -2.0, 0.0, 1.0]), None);
        assert_eq!(interpolate(&axes, &values, &[3.0, 0.1, -2.0, 0.5, 1.0]), None);
        assert_eq!(locate(&[0.0, 1.0], 1.0 + 1e-12), Position::Inside(0, 1.0));
        assert_eq!(locate(&[0.0, 1.0], -1e-6), Position::Below);
        assert_eq!(locate(&[0.0, 1.0, 3.0], 2.0), Position::Inside(1, 0.5));
    }
}
