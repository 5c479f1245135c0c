//! XPBD distance on an edge: the library's `DistanceConstraint_XPBD` (`XPBD::solve_DistanceConstraint`),
//! `C = |p0 - p1| - l0` with the compliance `alpha` (m/N; the library's stiffness is `1 / alpha`),
//! `alpha~ = alpha / dt^2`.

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The XPBD edge constraint.
pub(crate) struct DistanceXpbd;

/// The library's `alpha~` for a stiffness `1 / alpha`: `1 / (k dt dt)`, 0 for a zero stiffness (an
/// infinite compliance means no constraint; the library treats a stiffness of 0 as a hard constraint).
pub fn xpbd_alpha_tilde(alpha: f64, dt: f64) -> f64 {
    let k = 1.0 / alpha;
    if k != 0.0 { 1.0 / (k * dt * dt) } else { 0.0 }
}

impl ClothConstraint for DistanceXpbd {
    const SUPPORT: Support = Support::Edges;
    /// The rest length (m).
    type Rest = f64;
    /// `alpha~ = alpha / dt^2` (kg^-1), as [`xpbd_alpha_tilde`] folds it.
    type Constants = f64;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<f64> {
        Some((x[1] - x[0]).norm())
    }

    #[inline(always)]
    fn project(
        rest: &f64,
        alpha: &f64,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let mut k = w[0] + w[1];
        let n = x[0] - x[1];
        let d = n.norm();
        let c = d - rest;
        if d <= 1e-6 {
            return true;
        }
        let n = n / d;
        if *alpha != 0.0 {
            k += alpha;
        }
        if k.abs() <= 1e-6 {
            return true;
        }
        let k_inv = 1.0 / k;
        let delta = -k_inv * (c + alpha * *lambda);
        *lambda += delta;
        let pt = n * delta;
        corr[0] = pt * w[0];
        corr[1] = pt * -w[1];
        true
    }

    const TANGENT: bool = true;

    fn stiffness(rest: &f64, alpha: &f64, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<super::Blocks> {
        super::tangent::edge(x[0], x[1], *rest, super::tangent::xpbd_compliance(*alpha, w[0] + w[1], nit)?)
    }
}
