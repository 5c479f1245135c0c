//! XPBD isometric bending on a hinge: the library's `IsometricBendingConstraint_XPBD`
//! (`XPBD::solve_IsometricBendingConstraint`): the constraint of `isometric.rs` (`C`, dimensionless)
//! with the compliance `alpha` (1/J; the library's stiffness is `1 / alpha`), `alpha~ = alpha / dt^2`.

use super::isometric::{EPS, energy, gradient_weight, q_matrix, reordered};
use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The XPBD isometric-bending hinge.
pub(crate) struct IsometricXpbd;

impl ClothConstraint for IsometricXpbd {
    const SUPPORT: Support = Support::Hinges;
    /// `Q` (1/m^2).
    type Rest = [[f64; 4]; 4];
    /// `alpha~` as [`super::xpbd_alpha_tilde`] folds it.
    type Constants = f64;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<Self::Rest> {
        Some(q_matrix(x))
    }

    #[inline(always)]
    fn project(
        q: &Self::Rest,
        alpha: &f64,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let (c, grad) = energy(q, x);
        let wr = reordered(w);
        let mut sum = gradient_weight(&wr, &grad);
        if *alpha != 0.0 {
            sum += alpha;
        }
        if sum.abs() <= EPS {
            return false;
        }
        let delta = -(c + alpha * *lambda) / sum;
        *lambda += delta;
        for (i, j) in [(0, 2), (1, 3), (2, 0), (3, 1)] {
            corr[i] = grad[j] * (delta * wr[j]);
        }
        true
    }

    const TANGENT: bool = true;

    fn stiffness(q: &Self::Rest, alpha: &f64, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<super::Blocks> {
        super::isometric::stiffness(q, x, w, |weight| super::tangent::xpbd_compliance(*alpha, weight, nit))
    }
}
