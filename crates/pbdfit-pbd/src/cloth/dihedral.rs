//! PBD dihedral bending on a hinge: the library's `DihedralConstraint` (Mueller et al. 2007, with
//! Bridson's gradients; `PositionBasedDynamics::solve_DihedralConstraint`). The hinge `[p0, p1, p2,
//! p3]` is the triangles `(p0, p2, p3)` and `(p1, p3, p2)` on the edge `p2 p3`; `C = phi - phi0` with
//! `phi = acos(n1 . n2)`, the correction multiplied by the stiffness `k` (dimensionless, [0, 1]).
//! Near flat `acos` is ill-conditioned (its slope is infinite at 1), so rounding of the normals moves
//! `phi` by about `sqrt(ulp)`: the library's own result moves that much when its start moves by one ulp.

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The dihedral-angle hinge.
pub(crate) struct Dihedral;

/// The library's threshold on the edge's length (m) below which no constraint is made or projected.
const EPS: f64 = 1e-6;

/// `n / |n|^2` for the cross product `n` (the library's scaled normal).
fn scaled(n: Vec3) -> Vec3 {
    n / n.norm_squared()
}

/// The library's clamped `acos(n1 . n2)` of the unit normals.
fn angle(n1: Vec3, n2: Vec3) -> f64 {
    let (n1, n2) = (n1 / n1.norm(), n2 / n2.norm());
    n1.dot(&n2).clamp(-1.0, 1.0).acos()
}

impl ClothConstraint for Dihedral {
    const SUPPORT: Support = Support::Hinges;
    /// The rest angle (rad).
    type Rest = f64;
    /// The stiffness `k`.
    type Constants = f64;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<f64> {
        let [p0, p1, p2, p3] = *x;
        if (p3 - p2).norm() < EPS {
            return None;
        }
        let n1 = scaled((p2 - p0).cross(&(p3 - p0)));
        let n2 = scaled((p3 - p1).cross(&(p2 - p1)));
        Some(angle(n1, n2))
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
        if w[0] == 0.0 && w[1] == 0.0 {
            return false;
        }
        let [p0, p1, p2, p3] = *x;
        let e = p3 - p2;
        let elen = e.norm();
        if elen < EPS {
            return false;
        }
        let inv_elen = 1.0 / elen;
        let n1 = scaled((p2 - p0).cross(&(p3 - p0)));
        let n2 = scaled((p3 - p1).cross(&(p2 - p1)));
        let d0 = n1 * elen;
        let d1 = n2 * elen;
        let d2 = n1 * ((p0 - p3).dot(&e) * inv_elen) + n2 * ((p1 - p3).dot(&e) * inv_elen);
        let d3 = n1 * ((p2 - p0).dot(&e) * inv_elen) + n2 * ((p2 - p1).dot(&e) * inv_elen);
        let (u1, u2) = (n1 / n1.norm(), n2 / n2.norm());
        let phi = u1.dot(&u2).clamp(-1.0, 1.0).acos();
        let mut lambda =
            w[0] * d0.norm_squared() + w[1] * d1.norm_squared() + w[2] * d2.norm_squared() + w[3] * d3.norm_squared();
        if lambda == 0.0 {
            return false;
        }
        lambda = (phi - rest) / lambda * k;
        if u1.cross(&u2).dot(&e) > 0.0 {
            lambda = -lambda;
        }
        for (c, (wi, di)) in corr.iter_mut().zip(w.iter().zip([d0, d1, d2, d3])) {
            *c = di * (-wi * lambda);
        }
        true
    }

    const TANGENT: bool = true;

    /// The Gauss-Newton blocks only (`grad phi grad phi^T / alpha~`, Bridson's gradients as the
    /// projection's): the angle's second derivatives are left out.
    fn stiffness(_rest: &f64, k: &f64, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<super::Blocks> {
        let [p0, p1, p2, p3] = *x;
        let e = p3 - p2;
        let elen = e.norm();
        if elen < EPS {
            return None;
        }
        let inv_elen = 1.0 / elen;
        let n1 = scaled((p2 - p0).cross(&(p3 - p0)));
        let n2 = scaled((p3 - p1).cross(&(p2 - p1)));
        let d = [
            n1 * elen,
            n2 * elen,
            n1 * ((p0 - p3).dot(&e) * inv_elen) + n2 * ((p1 - p3).dot(&e) * inv_elen),
            n1 * ((p2 - p0).dot(&e) * inv_elen) + n2 * ((p2 - p1).dot(&e) * inv_elen),
        ];
        let weight: f64 = (0..4).map(|i| w[i] * d[i].norm_squared()).sum();
        let alpha = super::tangent::pbd_compliance(*k, nit, weight)?;
        Some(super::tangent::gauss_newton(&d, alpha))
    }
}
