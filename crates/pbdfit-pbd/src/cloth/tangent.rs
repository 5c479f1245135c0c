//! The cloth models' static tangent: the root solve's preconditioner (`newton_krylov.rs`'s
//! [`Preconditioner`]).
//!
//! With infinitely many sweeps an XPBD step from rest at `x` solves
//! `M (y - x - dt^2 g) + grad U~(y) = 0`, `U~ = sum C^2 / (2 alpha~)` (`alpha~ = alpha / dt^2`, kg^-1), so
//! near a rest state `I - J_G ~ (M + K~)^-1 K~` with `K~` the Hessian of `U~` (kg), and
//! `(I - J_G)^-1 ~ I + K~^-1 M`: one sparse Cholesky factorisation of `K~` (plus [`SHIFT`] `M`, which keeps
//! it definite where the sheet has no stiffness: a flat region's isometric bending, an untensioned edge's
//! sideways motion) per Newton step. The step map's sweeps are finite (`nit`), so this is an
//! approximation of its tangent, never the map: the fixed point stays the map's own.
//!
//! But the sweeps are finite, and on a sheet their Gauss-Seidel passes converge slowly on its smooth
//! modes: a pass lowers a smooth violation of a stiff constraint network by a small fraction `s` of it, so
//! `nit` passes by about `nit s`, which is what an implicit step with the compliance `W / nit` does
//! (`W = sum_i w_i |grad_i C|^2`, the constraint's diagonal). So each constraint counts with its own
//! compliance plus `W / nit` ([`xpbd_compliance`]): the stiff stretch of a sheet is as stiff in the
//! tangent as `nit` passes make it, and the limit `nit -> infinity` is the static tangent. Measured (the
//! test `the_preconditioned_root_solve_rests_where_the_plain_one_does`): with the bare compliance (the
//! static tangent alone) the hanging sheet's GMRES needed as many products per Newton step as without a
//! preconditioner (about 20 at N = 20); with `W / nit` added, 2 to 4.
//!
//! A PBD kind (a stiffness `k` in [0, 1], no compliance) converges to its hard constraint as the sweeps
//! grow, so its limit has no finite tangent; its stand-in is the compliance of the same fixed point for a
//! single constraint ([`pbd_compliance`]): PBD's `nit` sweeps leave `r = (1 - k)^nit` of a violation, so at
//! rest the violation is `r / (1 - r)` times the step's load on it, which XPBD's (infinitely many sweeps)
//! is for `alpha~ = W r / (1 - r)`; plus `W / (k nit)` for the smooth modes, as above (a pass moves `k`
//! of its correction).
//!
//! Each kind's blocks are the Gauss-Newton part `grad C grad C^T / alpha~` plus its geometric part
//! `C hess C / alpha~` where that is positive semidefinite (an edge in tension: `C / d (I - n n^T)`; the
//! isometric bending's `C Q`, `C <= 0` with `Q` negative semidefinite); the dihedral angle's second
//! derivatives are left out. Kinds without a stiffness (the FEM and strain triangles, the spring
//! potentials) leave their rules unpreconditioned.

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMat, SparseColMatRef, Triplet};
use faer::{Conj, MatMut, Side};
use nalgebra::Matrix3;

use super::{Blocks, ClothRule};
use crate::newton_krylov::Preconditioner;
use crate::{PbdSystem, Vec3};

/// The stiffest a constraint counts in the tangent: its compliance at least this fraction of its `W`
/// (`sum_i w_i |grad_i C|^2`, kg^-1). A hard constraint (PBD's `k = 1`, XPBD's `alpha = 0`) converges in
/// its own sweeps, so its modes need nothing of the preconditioner; the floor keeps the factorisation's
/// stiffness ratios near 1e6 instead of unbounded.
const STIFFEST: f64 = 1e-6;

/// The shift `SHIFT M` added to `K~` before it is factorised (the modes with no stiffness at all then
/// get `1 / SHIFT` of the mass matrix's weight: slow, as the map is there).
const SHIFT: f64 = 1e-8;

/// An XPBD kind's compliance in the tangent (kg^-1): its `alpha~` (floored at [`STIFFEST`] `W`) plus
/// `W / nit`, the compliance of `nit` Gauss-Seidel passes on smooth modes (see the module doc); `None`
/// where that is zero (a hard constraint with no gradient).
pub(super) fn xpbd_compliance(alpha: f64, weight: f64, nit: usize) -> Option<f64> {
    let c = alpha.max(STIFFEST * weight) + weight / nit.max(1) as f64;
    (c > 0.0 && c.is_finite()).then_some(c)
}

/// A PBD kind's compliance in the tangent (kg^-1): `W r / (1 - r)`, `r = (1 - k)^nit`, whose XPBD
/// constraint rests where a PBD constraint of stiffness `k` does after `nit` sweeps a step (floored at
/// [`STIFFEST`] `W`), plus `W / (k nit)` for the passes' smooth modes (see the module doc); `None` for
/// `k <= 0` (no constraint) or `W = 0` (no gradient).
pub(super) fn pbd_compliance(k: f64, nit: usize, weight: f64) -> Option<f64> {
    if k <= 0.0 || weight <= 0.0 || !weight.is_finite() {
        return None;
    }
    let r = (1.0 - k.min(1.0)).powi(nit.max(1).min(i32::MAX as usize) as i32);
    Some(weight * ((r / (1.0 - r)).max(STIFFEST) + 1.0 / (k.min(1.0) * nit.max(1) as f64)))
}

/// An edge's blocks, `C = |x0 - x1| - l0`, compliance `alpha~`: `n n^T + max(C, 0) / d (I - n n^T)` over
/// `alpha~` on the diagonal, its negative off it. `None` for a degenerate edge.
pub(super) fn edge(x0: Vec3, x1: Vec3, rest: f64, alpha: f64) -> Option<Blocks> {
    let e = x0 - x1;
    let d = e.norm();
    if d <= 1e-12 {
        return None;
    }
    let n = e / d;
    let nn = n * n.transpose();
    let h = (nn + (Matrix3::identity() - nn) * ((d - rest).max(0.0) / d)) / alpha;
    let mut b = [[Matrix3::zeros(); 4]; 4];
    b[0][0] = h;
    b[1][1] = h;
    b[0][1] = -h;
    b[1][0] = -h;
    Some(b)
}

/// The Gauss-Newton blocks `g_i g_j^T / alpha~` of gradients `g` (in the particles' order).
pub(super) fn gauss_newton(g: &[Vec3; 4], alpha: f64) -> Blocks {
    let mut b = [[Matrix3::zeros(); 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            b[i][j] = g[i] * g[j].transpose() / alpha;
        }
    }
    b
}

/// The static tangent of one cloth rule on one sheet at `nit` sweeps a step, refactorised at each Newton
/// step's iterate; the symbolic factorisation (its pattern: the free particles' couplings) once.
pub(crate) struct StaticTangent<'a> {
    rule: &'a ClothRule,
    system: &'a PbdSystem,
    nit: usize,
    /// Each particle's index among the free ones (`usize::MAX`: held).
    slot: Vec<usize>,
    /// The lumped mass of each unknown (kg).
    mass: Vec<f64>,
    /// The pattern and its symbolic factorisation, from the first [`Preconditioner::prepare`].
    pattern: Option<Pattern>,
    factor: Option<Llt<usize, f64>>,
}

/// The lower triangle's pattern over the free unknowns (column-major, values unused), for each entry the
/// constraints add, in the order [`StaticTangent::entries`] makes them, its place in the values, and the
/// symbolic factorisation.
struct Pattern {
    matrix: SparseColMat<usize, f64>,
    places: Vec<usize>,
    symbolic: SymbolicLlt<usize>,
}

impl<'a> StaticTangent<'a> {
    /// The tangent of `rule` on `system`; `None` where one of its kinds has no stiffness.
    pub(crate) fn new(rule: &'a ClothRule, system: &'a PbdSystem, nit: usize) -> Option<Self> {
        if !rule.terms.iter().flatten().all(|t| t.has_tangent()) {
            return None;
        }
        let mut slot = vec![usize::MAX; system.rest.len()];
        for (i, &p) in system.free.iter().enumerate() {
            slot[p] = i;
        }
        let mass = system.free.iter().flat_map(|&p| [1.0 / system.inverse_masses[p]; 3]).collect();
        Some(StaticTangent { rule, system, nit, slot, mass, pattern: None, factor: None })
    }

    /// Every constraint's lower-triangle entries over the free unknowns at the positions `x` (m), in a
    /// fixed order (a constraint without a stiffness adds zeros), to `put(row, column, value)`.
    fn entries(&self, x: &[Vec3], mut put: impl FnMut(usize, usize, f64)) {
        let system = self.system;
        let body = system.cloth_body().expect("a cloth rule's tangent is a sheet's");
        let zero = [[Matrix3::zeros(); 4]; 4];
        for term in self.rule.terms.iter().flatten() {
            let support = term.support();
            let arity = support.arity();
            for (i, set) in body.sets.of(support).iter().enumerate() {
                if !term.present(&body.data, i) {
                    continue;
                }
                let mut p = [Vec3::zeros(); 4];
                let mut w = [0.0; 4];
                for k in 0..arity {
                    p[k] = x[set[k] as usize];
                    w[k] = system.inverse_masses[set[k] as usize];
                }
                let blocks = term.stiffness(&body.data, i, &p, &w, self.nit);
                let blocks = blocks.as_ref().unwrap_or(&zero);
                for a in 0..arity {
                    let sa = self.slot[set[a] as usize];
                    if sa == usize::MAX {
                        continue;
                    }
                    for b in 0..arity {
                        let sb = self.slot[set[b] as usize];
                        if sb == usize::MAX {
                            continue;
                        }
                        for r in 0..3 {
                            for c in 0..3 {
                                let (row, col) = (3 * sa + r, 3 * sb + c);
                                if row >= col {
                                    put(row, col, blocks[a][b][(r, c)]);
                                }
                            }
                        }
                    }
                }
            }
        }
        for (i, m) in self.mass.iter().enumerate() {
            put(i, i, SHIFT * m);
        }
    }
}

impl Preconditioner for StaticTangent<'_> {
    fn prepare(&mut self, u: &[f64]) -> bool {
        let system = self.system;
        let mut x: Vec<Vec3> = system.rest.iter().zip(&system.prescribed).map(|(r, p)| r + p).collect();
        for (i, &p) in system.free.iter().enumerate() {
            x[p] = system.rest[p] + Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
        }
        if self.pattern.is_none() {
            let mut triplets = Vec::new();
            self.entries(&x, |r, c, _| triplets.push(Triplet::new(r, c, 0.0)));
            let n = self.mass.len();
            let Ok(matrix) = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets) else {
                return false;
            };
            let symbolic = matrix.symbolic();
            let place = |r: usize, c: usize| {
                let rows = &symbolic.row_idx()[symbolic.col_ptr()[c]..symbolic.col_ptr()[c + 1]];
                symbolic.col_ptr()[c] + rows.binary_search(&r).expect("an entry of the pattern")
            };
            let places = triplets.iter().map(|t| place(t.row, t.col)).collect();
            let Ok(llt) = SymbolicLlt::try_new(symbolic, Side::Lower) else {
                return false;
            };
            self.pattern = Some(Pattern { matrix, places, symbolic: llt });
        }
        let pattern = self.pattern.take().expect("the pattern");
        let mut values = vec![0.0; pattern.matrix.val().len()];
        let mut k = 0;
        self.entries(&x, |_, _, v| {
            values[pattern.places[k]] += v;
            k += 1;
        });
        let a = SparseColMatRef::new(pattern.matrix.symbolic(), &values);
        self.factor = Llt::try_new_with_symbolic(pattern.symbolic.clone(), a, Side::Lower).ok();
        self.pattern = Some(pattern);
        self.factor.is_some()
    }

    fn apply(&mut self, v: &[f64], out: &mut [f64]) {
        let factor = self.factor.as_ref().expect("a prepared tangent");
        for ((o, vi), m) in out.iter_mut().zip(v).zip(&self.mass) {
            *o = vi * m;
        }
        let n = out.len();
        factor.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(out, n, 1));
        out.iter_mut().zip(v).for_each(|(o, vi)| *o += vi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::ClothConstraint;
    use crate::cloth::distance_xpbd::DistanceXpbd;
    use crate::cloth::isometric::{energy, q_matrix};
    use crate::cloth::isometric_xpbd::IsometricXpbd;

    /// The Hessian of `C^2 / (2 alpha)` by central differences of its gradient `C grad C / alpha`.
    fn differenced(grad: impl Fn(&[Vec3; 4]) -> [Vec3; 4], x: &[Vec3; 4]) -> [[f64; 12]; 12] {
        let h = 1e-6;
        let mut out = [[0.0; 12]; 12];
        for j in 0..12 {
            let (mut plus, mut minus) = (*x, *x);
            plus[j / 3][j % 3] += h;
            minus[j / 3][j % 3] -= h;
            let (gp, gm) = (grad(&plus), grad(&minus));
            for i in 0..12 {
                out[i][j] = (gp[i / 3][i % 3] - gm[i / 3][i % 3]) / (2.0 * h);
            }
        }
        out
    }

    fn largest_difference(b: &Blocks, h: &[[f64; 12]; 12], arity: usize) -> (f64, f64) {
        let (mut diff, mut size) = (0.0f64, 0.0f64);
        for i in 0..3 * arity {
            for j in 0..3 * arity {
                let v = b[i / 3][j / 3][(i % 3, j % 3)];
                diff = diff.max((v - h[i][j]).abs());
                size = size.max(h[i][j].abs());
            }
        }
        (diff, size)
    }

    /// With infinitely many sweeps (the `W / nit` term gone) the blocks are the exact Hessian of
    /// `C^2 / (2 alpha~)`: an edge in tension (its geometric term included) and a bent isometric hinge
    /// (`C Q` included), against central differences of the energy's gradient.
    #[test]
    fn the_blocks_are_the_energys_hessian_in_the_static_limit() {
        let alpha = 0.3;
        let w = [2.0, 3.0, 0.0, 0.0];
        let x = [Vec3::new(0.1, 0.2, -0.1), Vec3::new(1.3, -0.2, 0.4), Vec3::zeros(), Vec3::zeros()];
        let rest = 1.0;
        let b = DistanceXpbd::stiffness(&rest, &alpha, &x, &w, usize::MAX).unwrap();
        let grad = |x: &[Vec3; 4]| {
            let e = x[0] - x[1];
            let d = e.norm();
            let g = e / d * ((d - rest) / alpha);
            [g, -g, Vec3::zeros(), Vec3::zeros()]
        };
        let (diff, size) = largest_difference(&b, &differenced(grad, &x), 2);
        assert!(diff < 1e-7 * size, "edge: {diff:e} of {size:e}");

        let flat =
            [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 1.0)];
        let q = q_matrix(&flat);
        let bent =
            [Vec3::new(0.0, 0.2, 0.0), Vec3::new(1.0, 0.3, 1.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 1.0)];
        let w = [1.0; 4];
        let b = IsometricXpbd::stiffness(&q, &alpha, &bent, &w, usize::MAX).unwrap();
        let grad = |x: &[Vec3; 4]| {
            let (c, g) = energy(&q, x);
            // `energy`'s gradients are in the order [p2, p3, p0, p1].
            [g[2], g[3], g[0], g[1]].map(|v| v * (c / alpha))
        };
        let (diff, size) = largest_difference(&b, &differenced(grad, &bent), 4);
        assert!(size > 0.0 && diff < 1e-6 * size, "hinge: {diff:e} of {size:e}");
    }
}
