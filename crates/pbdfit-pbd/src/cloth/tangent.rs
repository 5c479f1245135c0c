//! The cloth models' static tangent: the root solve's preconditioner (`newton_krylov.rs`'s
//! [`Preconditioner`]).
//!
//! With infinitely many sweeps an XPBD step from rest at `x` solves
//! `M (y - x - dt^2 g) + grad U~(y) = 0`, `U~ = sum C^2 / (2 alpha~)` (`alpha~ = alpha / dt^2`, kg^-1), so
//! near a rest state `I - J_G ~ (M + K~)^-1 K~` with `K~` the Hessian of `U~` (kg), and
//! `(I - J_G)^-1 ~ I + K~^-1 M`: one sparse Cholesky factorisation of `K~` (plus a small shift `M`, which keeps
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

use super::ClothRule;
use crate::newton_krylov::Preconditioner;
use crate::static_tangent::{FactoredTangent, scatter};
use crate::{PbdSystem, Vec3};

/// An XPBD kind's compliance in the tangent (kg^-1): its `alpha~` (floored) plus `W / nit`, the compliance
/// of `nit` Gauss-Seidel passes on smooth modes (see the module doc; `crate::static_tangent`).
pub(super) fn xpbd_compliance(alpha: f64, weight: f64, nit: usize) -> Option<f64> {
    crate::static_tangent::xpbd_compliance(alpha, weight, nit.max(1) as f64)
}

pub(super) use crate::static_tangent::{gauss_newton, pbd_compliance};

/// An edge's blocks, `C = |x0 - x1| - l0`, compliance `alpha~` (`crate::static_tangent::edge`).
pub(super) fn edge(x0: Vec3, x1: Vec3, rest: f64, alpha: f64) -> Option<super::Blocks> {
    crate::static_tangent::edge(x0 - x1, rest, alpha)
}

/// The static tangent of one cloth rule on one sheet at `nit` sweeps a step, refactorised at each Newton
/// step's iterate; the symbolic factorisation (its pattern: the free particles' couplings) once.
pub(crate) struct StaticTangent<'a> {
    rule: &'a ClothRule,
    system: &'a PbdSystem,
    nit: usize,
    /// Each particle's index among the free ones (`usize::MAX`: held).
    slot: Vec<usize>,
    /// `K~ + SHIFT M` over the free unknowns, with their lumped masses.
    factored: FactoredTangent,
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
        Some(StaticTangent { rule, system, nit, slot, factored: FactoredTangent::new(mass) })
    }

    /// Every constraint's lower-triangle entries over the free unknowns at the positions `x` (m), in a
    /// fixed order (a constraint without a stiffness adds zeros), to `put(row, column, value)`.
    fn entries(
        (rule, system, nit, slot): (&ClothRule, &PbdSystem, usize, &[usize]),
        x: &[Vec3],
        put: &mut dyn FnMut(usize, usize, f64),
    ) {
        let body = system.cloth_body().expect("a cloth rule's tangent is a sheet's");
        let zero = [[nalgebra::Matrix3::zeros(); 4]; 4];
        for term in rule.terms.iter().flatten() {
            let support = term.support();
            let arity = support.arity();
            for (i, set) in body.sets.of(support).iter().enumerate() {
                if !term.present(&body.data, i) {
                    continue;
                }
                let mut p = [Vec3::zeros(); 4];
                let mut w = [0.0; 4];
                let mut particles = [0usize; 4];
                for k in 0..arity {
                    particles[k] = set[k] as usize;
                    p[k] = x[particles[k]];
                    w[k] = system.inverse_masses[particles[k]];
                }
                let blocks = term.stiffness(&body.data, i, &p, &w, nit);
                scatter(slot, &particles[..arity], blocks.as_ref().unwrap_or(&zero), put);
            }
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
        let parts = (self.rule, system, self.nit, self.slot.as_slice());
        self.factored.prepare(&|put| Self::entries(parts, &x, put))
    }

    fn apply(&mut self, v: &[f64], out: &mut [f64]) {
        self.factored.apply(v, out);
    }
}
