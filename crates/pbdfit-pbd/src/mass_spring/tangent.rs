//! The sparse tangents of the forces over the free DOFs (stiffness `K = df/du`, damping `D = df/dv`)
//! and the sparse LU (faer) that factors and solves the matrices built from them.

use std::collections::BTreeMap;

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::Lu;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat};
use nalgebra::Matrix3;

use super::{SpringBody, SpringLaw};
use crate::Vec3;

/// Sparse matrix entries over the free DOFs, `(row, column) -> value`, summed as they are added.
pub(super) type Entries = BTreeMap<(usize, usize), f64>;

/// `[a]_x`, the cross-product matrix: `[a]_x b = a x b`.
fn cross_matrix(a: Vec3) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

impl SpringBody {
    /// The tangents `K = df/du` and (for damping) `D = df/dv`, as summed entries over the free DOFs.
    pub(super) fn tangents(&self, law: &SpringLaw, u: &[f64]) -> (Entries, Entries) {
        let mut k = BTreeMap::new();
        let mut d = BTreeMap::new();
        let put = |m: &mut Entries, a: usize, b: usize, block: &Matrix3<f64>| {
            let (sa, sb) = (self.slot[a], self.slot[b]);
            if sa == usize::MAX || sb == usize::MAX {
                return;
            }
            for r in 0..3 {
                for c in 0..3 {
                    *m.entry((3 * sa + r, 3 * sb + c)).or_insert(0.0) += block[(r, c)];
                }
            }
        };
        for (spring, &group) in self.edges.iter().zip(&self.groups) {
            let (l, stretch, n) = self.spring(u, spring);
            let nn = n * n.transpose();
            let ke = (nn + (Matrix3::identity() - nn) * (stretch / l)) * law.spring_constant(group);
            let [a, b] = spring.0;
            put(&mut k, a, a, &-ke);
            put(&mut k, b, b, &-ke);
            put(&mut k, a, b, &ke);
            put(&mut k, b, a, &ke);
            if law.damping > 0.0 {
                let de = nn * law.damping;
                put(&mut d, a, a, &-de);
                put(&mut d, b, b, &-de);
                put(&mut d, a, b, &de);
                put(&mut d, b, a, &de);
            }
        }
        if law.kvol > 0.0 {
            for tet in &self.tets {
                let (dv, grad, dd) = self.volume(u, tet);
                // Hessian of V in the edge vectors d1, d2, d3 (d_k = x_k - x_0), then in the vertices.
                let mut h = [[Matrix3::zeros(); 4]; 4];
                let x = |a: Vec3| cross_matrix(a) / 6.0;
                let inner = [
                    [Matrix3::zeros(), -x(dd[2]), x(dd[1])],
                    [x(dd[2]), Matrix3::zeros(), -x(dd[0])],
                    [-x(dd[1]), x(dd[0]), Matrix3::zeros()],
                ];
                for i in 0..3 {
                    for j in 0..3 {
                        h[i + 1][j + 1] = inner[i][j];
                        h[0][j + 1] -= inner[i][j];
                        h[i + 1][0] -= inner[i][j];
                        h[0][0] += inner[i][j];
                    }
                }
                let s = law.kvol / tet.2;
                for i in 0..4 {
                    for j in 0..4 {
                        let block = -(grad[i] * grad[j].transpose() + h[i][j] * dv) * s;
                        put(&mut k, tet.0[i], tet.0[j], &block);
                    }
                }
            }
        }
        if law.has_neo_hookean() {
            for t in 0..self.tets.len() {
                let blocks = self.neo_hookean_tangent(law, u, t);
                let vertices = self.tets[t].0;
                for i in 0..4 {
                    for j in 0..4 {
                        put(&mut k, vertices[i], vertices[j], &blocks[i][j]);
                    }
                }
            }
        }
        self.flex_tangent(law.flex_constants(), u, |i, j, block| put(&mut k, i, j, block));
        (k, d)
    }

    /// The sparse LU of `A = sum of scaled entry maps + diag`.
    pub(super) fn factor(&self, parts: &[(&Entries, f64)], diagonal: Option<&[f64]>) -> Option<Lu<usize, f64>> {
        let n = self.dofs();
        let mut entries: Entries = BTreeMap::new();
        for (m, s) in parts {
            for (&rc, &v) in m.iter() {
                *entries.entry(rc).or_insert(0.0) += s * v;
            }
        }
        if let Some(diag) = diagonal {
            for (i, &v) in diag.iter().enumerate() {
                *entries.entry((i, i)).or_insert(0.0) += v;
            }
        }
        let triplets: Vec<_> = entries.iter().map(|(&(r, c), &v)| Triplet::new(r, c, v)).collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).ok()?;
        a.sp_lu().ok()
    }

    /// Solves `A x = b` for `A = sum of scaled entry maps` (sparse LU).
    pub(super) fn solve(&self, parts: &[(&Entries, f64)], diagonal: Option<&[f64]>, b: &[f64]) -> Option<Vec<f64>> {
        let n = self.dofs();
        let lu = self.factor(parts, diagonal)?;
        let mut x = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        lu.solve_in_place_with_conj(Conj::No, x.as_mut());
        let out: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
        out.iter().all(|v| v.is_finite()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use crate::mass_spring::tests::body;

    /// The tangents equal central differences of the forces: `K` of the elastic forces (springs, volume
    /// penalty, neo-Hookean tetrahedra), `D` of the damping forces in the velocities, at a deformed state with compressed and
    /// stretched springs. (The damping force's dependence on positions, through `n`, is left out of the
    /// implicit-Euler Jacobian: it slows Newton down near large velocities, never changes its solution.)
    #[test]
    fn tangents_are_the_derivatives_of_the_forces() {
        let b = body("gravity-wall", 2);
        let law = SpringLaw { ks: 700.0, kvol: 2500.0, damping: 3.0, mu: 900.0, lambda: 1500.0, ..SpringLaw::NONE };
        let n = b.dofs();
        let u: Vec<f64> = (0..n).map(|i| 0.03 * ((i * 7 % 11) as f64 / 11.0 - 0.5)).collect();
        let v: Vec<f64> = (0..n).map(|i| 0.2 * ((i * 5 % 13) as f64 / 13.0 - 0.5)).collect();
        let (k, d) = b.tangents(&law, &u);
        let dense = |m: &Entries| {
            let mut a = DMatrix::<f64>::zeros(n, n);
            for (&(r, c), &x) in m {
                a[(r, c)] = x;
            }
            a
        };
        let (k, d) = (dense(&k), dense(&d));
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for j in 0..n {
            let shifted = |x: &[f64], s: f64| {
                let mut y = x.to_vec();
                y[j] += s;
                y
            };
            let elastic = SpringLaw { damping: 0.0, ..law };
            let fk_plus = b.forces(&elastic, &shifted(&u, h), None);
            let fk_minus = b.forces(&elastic, &shifted(&u, -h), None);
            let fd_plus = b.forces(&law, &u, Some(&shifted(&v, h)));
            let fd_minus = b.forces(&law, &u, Some(&shifted(&v, -h)));
            for i in 0..n {
                let dk = (fk_plus[i] - fk_minus[i]) / (2.0 * h);
                let dd = (fd_plus[i] - fd_minus[i]) / (2.0 * h);
                worst = worst.max((k[(i, j)] - dk).abs() / k.abs().max()).max((d[(i, j)] - dd).abs() / d.abs().max());
            }
        }
        assert!(worst < 1e-6, "tangent vs finite differences: {worst:e}");
        assert!((k.clone() - k.transpose()).abs().max() < 1e-9 * k.abs().max(), "K is symmetric");
    }
}
