//! The solid engine profiles' static tangent: the root solve's preconditioner (`newton_krylov.rs`'s
//! [`Preconditioner`]) for `newton-xpbd`, `jolt` and `genesis-pbd`.
//!
//! As the cloth models' (`cloth/tangent.rs`, whose module doc derives it): near a rest state one substep
//! from rest solves about `M (y - x - h^2 a) + grad U~(y) = 0`, `U~ = sum C^2 / (2 c)`, so
//! `(I - J_G)^-1 ~ I + K~^-1 M` with `K~` the Hessian of `U~` (kg), factorised once per Newton step
//! (faer's sparse Cholesky, plus [`SHIFT`] `M`); the fixed point stays the engine's own. Each engine gives
//! its constraints' blocks ([`EngineStep::tangent`](super::EngineStep::tangent)) with the compliance `c`
//! (kg^-1) its passes rest at: its `alpha / h^2`, plus `W / (r n)` for `n` passes of relaxation `r` (a
//! pass removes about `r / n` of a smooth violation, `W = sum_i w_i |grad_i C|^2`), or for a constraint
//! without a multiplier (Genesis's) the compliance of the same fixed point ([`pbd_compliance`]).
//!
//! The blocks are the Gauss-Newton part `grad C grad C^T / c` plus the geometric part `C hess C / c` where
//! it is positive semidefinite (an edge in tension; Newton's `C_dev = tr(F^T F) - 3` stretched). Newton's
//! pair has no shear stiffness at zero strain (`newton.rs`), so its shear comes from that geometric part
//! alone: the slow modes that make its fixed point ill-conditioned are the tangent's soft ones.

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMat, SparseColMatRef, Triplet};
use faer::{Conj, MatMut, Side};
use nalgebra::Matrix3;

use super::EngineRule;
use crate::newton_krylov::Preconditioner;
use crate::{PbdSystem, SimParams, Vec3};

/// One constraint's blocks over its (up to four) particles: `[a][b]` couples particle `a` to `b`.
pub(crate) type Blocks = [[Matrix3<f64>; 4]; 4];

/// The stiffest a constraint counts: its compliance at least this fraction of its `W` (kg^-1), as the
/// cloth tangent's floor (a hard constraint converges in its own passes).
const STIFFEST: f64 = 1e-6;

/// The shift `SHIFT M` added to `K~` before it is factorised (modes with no stiffness at all).
const SHIFT: f64 = 1e-8;

/// A constraint with a multiplier (XPBD's, Jolt's `lambda = 0` pass): `alpha~` (kg^-1) floored at
/// [`STIFFEST`] `W`, plus `W / (relaxation passes)`; `None` where that is not positive.
pub(crate) fn xpbd_compliance(alpha: f64, weight: f64, passes: f64) -> Option<f64> {
    let c = alpha.max(STIFFEST * weight) + weight / passes.max(1e-12);
    (c > 0.0 && c.is_finite()).then_some(c)
}

/// A constraint without a multiplier whose pass removes the fraction `k` of its violation (Genesis's
/// `relax W / (W + alpha~)`), `n` passes a substep: `W r / (1 - r)`, `r = (1 - k)^n` (the compliance
/// of the same fixed point), plus `W / (k n)` for the smooth modes; `None` for `k <= 0` or `W = 0`.
pub(crate) fn pbd_compliance(k: f64, n: usize, weight: f64) -> Option<f64> {
    if k <= 0.0 || weight <= 0.0 || !weight.is_finite() {
        return None;
    }
    let k = k.min(1.0);
    let r = (1.0 - k).powi(n.clamp(1, i32::MAX as usize) as i32);
    Some(weight * ((r / (1.0 - r)).max(STIFFEST) + 1.0 / (k * n.max(1) as f64)))
}

/// The Gauss-Newton blocks `g_i g_j^T / c`.
pub(crate) fn gauss_newton(g: &[Vec3; 4], c: f64) -> Blocks {
    let mut b = [[Matrix3::zeros(); 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            b[i][j] = g[i] * g[j].transpose() / c;
        }
    }
    b
}

/// An edge `x0 - x1 = e` (m) of rest length `rest` at compliance `c`: `n n^T + max(C, 0) / d (I - n n^T)`
/// over `c` on the diagonal, its negative off it; `None` for a degenerate edge.
pub(crate) fn edge(e: Vec3, rest: f64, c: f64) -> Option<Blocks> {
    let d = e.norm();
    if d <= 1e-12 {
        return None;
    }
    let n = e / d;
    let nn = n * n.transpose();
    let h = (nn + (Matrix3::identity() - nn) * ((d - rest).max(0.0) / d)) / c;
    let mut b = [[Matrix3::zeros(); 4]; 4];
    b[0][0] = h;
    b[1][1] = h;
    b[0][1] = -h;
    b[1][0] = -h;
    Some(b)
}

/// The static tangent of one engine rule on one body, refactorised at each Newton step's iterate; the
/// pattern's symbolic factorisation once.
pub(crate) struct EngineTangent<'a> {
    rule: &'a EngineRule,
    system: &'a PbdSystem,
    h: f64,
    /// Each particle's index among the free ones (`usize::MAX`: held).
    slot: Vec<usize>,
    /// The mass the engine gives each free unknown (kg).
    mass: Vec<f64>,
    pattern: Option<Pattern>,
    factor: Option<Llt<usize, f64>>,
}

/// The lower triangle's pattern, each entry's place in its values, and the symbolic factorisation.
struct Pattern {
    matrix: SparseColMat<usize, f64>,
    places: Vec<usize>,
    symbolic: SymbolicLlt<usize>,
}

impl<'a> EngineTangent<'a> {
    /// The tangent of `rule` on `system` at `params`; `None` where the engine gives none.
    pub(crate) fn new(rule: &'a EngineRule, system: &'a PbdSystem, params: &SimParams) -> Option<Self> {
        if !rule.constants.has_tangent() {
            return None;
        }
        let mut slot = vec![usize::MAX; system.rest.len()];
        for (i, &p) in system.free.iter().enumerate() {
            slot[p] = i;
        }
        let mass =
            system.free.iter().flat_map(|&p| [1.0 / rule.constants.inverse_mass(system, p); 3]).collect::<Vec<_>>();
        if mass.iter().any(|m| !(m.is_finite() && *m > 0.0)) {
            return None;
        }
        let h = params.dt / rule.substeps.max(1) as f64;
        Some(EngineTangent { rule, system, h, slot, mass, pattern: None, factor: None })
    }

    /// Every constraint's lower-triangle entries over the free unknowns at the displacements `u`, in a
    /// fixed order (a constraint without a tangent there adds zeros), to `put(row, column, value)`.
    fn entries(&self, u: &[Vec3], mut put: impl FnMut(usize, usize, f64)) {
        let zero = [[Matrix3::zeros(); 4]; 4];
        self.rule.constants.tangent(self.system, self.rule.passes, self.h, u, &mut |particles, blocks| {
            let blocks = blocks.unwrap_or(&zero);
            for (a, &pa) in particles.iter().enumerate() {
                let sa = self.slot[pa];
                if sa == usize::MAX {
                    continue;
                }
                for (b, &pb) in particles.iter().enumerate() {
                    let sb = self.slot[pb];
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
        });
        for (i, m) in self.mass.iter().enumerate() {
            put(i, i, SHIFT * m);
        }
    }
}

impl Preconditioner for EngineTangent<'_> {
    fn prepare(&mut self, x: &[f64]) -> bool {
        let system = self.system;
        let mut u = system.prescribed.clone();
        for (i, &p) in system.free.iter().enumerate() {
            u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
        if self.pattern.is_none() {
            let mut triplets = Vec::new();
            self.entries(&u, |r, c, _| triplets.push(Triplet::new(r, c, 0.0)));
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
        self.entries(&u, |_, _, v| {
            values[pattern.places[k]] += v;
            k += 1;
        });
        self.factor = if values.iter().all(|v| v.is_finite()) {
            let a = SparseColMatRef::new(pattern.matrix.symbolic(), &values);
            Llt::try_new_with_symbolic(pattern.symbolic.clone(), a, Side::Lower).ok()
        } else {
            None
        };
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
