//! The solid engine profiles' static tangent: the root solve's preconditioner (`newton_krylov.rs`'s
//! [`Preconditioner`]) for `newton-xpbd`, `jolt` and `genesis-pbd`.
//!
//! As the cloth models' (`cloth/tangent.rs`, whose module doc derives it): near a rest state one substep
//! from rest solves about `M (y - x - h^2 a) + grad U~(y) = 0`, `U~ = sum C^2 / (2 c)`, so
//! `(I - J_G)^-1 ~ I + K~^-1 M` with `K~` the Hessian of `U~` (kg), factorised once per Newton step
//! (faer's sparse Cholesky, plus a small shift `M`: `crate::static_tangent`, the shared assembly); the fixed point stays the engine's own. Each engine gives
//! its constraints' blocks ([`EngineStep::tangent`](super::EngineStep::tangent)) with the compliance `c`
//! (kg^-1) its passes rest at: its `alpha / h^2`, plus `W / (r n)` for `n` passes of relaxation `r` (a
//! pass removes about `r / n` of a smooth violation, `W = sum_i w_i |grad_i C|^2`), or for a constraint
//! without a multiplier (Genesis's) the compliance of the same fixed point ([`pbd_compliance`]).
//!
//! The blocks are the Gauss-Newton part `grad C grad C^T / c` plus the geometric part `C hess C / c` where
//! it is positive semidefinite (an edge in tension; Newton's `C_dev = tr(F^T F) - 3` stretched). Newton's
//! pair has no shear stiffness at zero strain (`newton.rs`), so its shear comes from that geometric part
//! alone: the slow modes that make its fixed point ill-conditioned are the tangent's soft ones.

use super::EngineRule;
use crate::newton_krylov::Preconditioner;
pub(crate) use crate::static_tangent::{Blocks, edge, gauss_newton, pbd_compliance, xpbd_compliance};
use crate::static_tangent::{FactoredTangent, scatter};
use crate::{PbdSystem, SimParams, Vec3};

/// The static tangent of one engine rule on one body, refactorised at each Newton step's iterate; the
/// pattern's symbolic factorisation once.
pub(crate) struct EngineTangent<'a> {
    rule: &'a EngineRule,
    system: &'a PbdSystem,
    h: f64,
    /// Each particle's index among the free ones (`usize::MAX`: held).
    slot: Vec<usize>,
    /// `K~ + SHIFT M` over the free unknowns, with the masses the engine gives them.
    factored: FactoredTangent,
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
        Some(EngineTangent { rule, system, h, slot, factored: FactoredTangent::new(mass) })
    }
}

impl Preconditioner for EngineTangent<'_> {
    fn prepare(&mut self, x: &[f64]) -> bool {
        let system = self.system;
        let mut u = system.prescribed.clone();
        for (i, &p) in system.free.iter().enumerate() {
            u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
        let (rule, h, slot) = (self.rule, self.h, &self.slot);
        let zero = [[nalgebra::Matrix3::zeros(); 4]; 4];
        self.factored.prepare(&|put| {
            rule.constants.tangent(system, rule.passes, h, &u, &mut |particles, blocks| {
                scatter(slot, particles, blocks.unwrap_or(&zero), put)
            })
        })
    }

    fn apply(&mut self, v: &[f64], out: &mut [f64]) {
        self.factored.apply(v, out);
    }
}
