//! PBD distance on an edge: the library's `DistanceConstraint` (`PositionBasedDynamics::
//! solve_DistanceConstraint`), `C = |p1 - p0| - l0`, the correction multiplied by the stiffness `k`
//! (dimensionless, [0, 1]).

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The PBD edge constraint.
pub(crate) struct Distance;

impl ClothConstraint for Distance {
    const SUPPORT: Support = Support::Edges;
    /// The rest length (m).
    type Rest = f64;
    /// The stiffness `k`.
    type Constants = f64;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<f64> {
        Some((x[1] - x[0]).norm())
    }

    #[inline(always)]
    fn project(
        rest: &f64,
        k: &f64,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        _lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let w_sum = w[0] + w[1];
        if w_sum == 0.0 {
            return false;
        }
        let n = x[1] - x[0];
        let d = n.norm();
        let n = n / d;
        let c = (n * *k) * (d - rest) / w_sum;
        corr[0] = c * w[0];
        corr[1] = c * -w[1];
        true
    }

    const TANGENT: bool = true;

    fn stiffness(rest: &f64, k: &f64, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<super::Blocks> {
        super::tangent::edge(x[0], x[1], *rest, super::tangent::pbd_compliance(*k, nit, w[0] + w[1])?)
    }
}
