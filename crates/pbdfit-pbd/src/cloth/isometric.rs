//! PBD isometric bending on a hinge: the library's `IsometricBendingConstraint` (Bergou et al. 2006,
//! "A quadratic bending model for inextensible surfaces"; `PositionBasedDynamics::
//! init_IsometricBendingConstraint`, `solve_IsometricBendingConstraint`). With the hinge's points in
//! the order `x = [p2, p3, p0, p1]` (the edge first) the constraint is the bending energy
//! `C = 1/2 sum_jk Q_jk x_j . x_k` of the cotangent matrix `Q = K K^T * (-3 / (2 (A0 + A1)))` (1/m^2),
//! zero on the flat rest shape; the correction `-k C / sum w |grad C|^2 grad C` is multiplied by the
//! stiffness `k` (dimensionless). The library skips a hinge whose `sum w |grad C|^2` is at most 1e-6
//! (an absolute threshold in m^2/kg), as this does. `C` is evaluated on absolute positions, so its
//! rounding grows with the distance from the origin.

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The isometric-bending hinge.
pub(crate) struct Isometric;

/// The library's threshold on `sum w |grad C|^2`.
pub(super) const EPS: f64 = 1e-6;

/// The library's `cot` of the angle between `v` and `w`.
fn cot(v: Vec3, w: Vec3) -> f64 {
    v.dot(&w) / v.cross(&w).norm()
}

/// The matrix `Q` (row-major 4 x 4, 1/m^2) of a hinge's rest positions.
pub(super) fn q_matrix(x: &[Vec3; 4]) -> [[f64; 4]; 4] {
    let [p0, p1, p2, p3] = *x;
    let y = [p2, p3, p0, p1];
    let e0 = y[1] - y[0];
    let e1 = y[2] - y[0];
    let e2 = y[3] - y[0];
    let e3 = y[2] - y[1];
    let e4 = y[3] - y[1];
    let c01 = cot(e0, e1);
    let c02 = cot(e0, e2);
    let c03 = cot(-e0, e3);
    let c04 = cot(-e0, e4);
    let a0 = 0.5 * e0.cross(&e1).norm();
    let a1 = 0.5 * e0.cross(&e2).norm();
    let coef = -3.0 / (2.0 * (a0 + a1));
    let k = [c03 + c04, c01 + c02, -c01 - c03, -c02 - c04];
    let k2 = k.map(|v| coef * v);
    let mut q = [[0.0; 4]; 4];
    for j in 0..4 {
        for i in 0..j {
            q[j][i] = k[j] * k2[i];
            q[i][j] = q[j][i];
        }
        q[j][j] = k[j] * k2[j];
    }
    q
}

/// `C` and its gradients (in the order `[p2, p3, p0, p1]`) at the positions `x`.
#[inline(always)]
pub(super) fn energy(q: &[[f64; 4]; 4], x: &[Vec3; 4]) -> (f64, [Vec3; 4]) {
    let [p0, p1, p2, p3] = *x;
    let y = [p2, p3, p0, p1];
    let mut c = 0.0;
    for k in 0..4 {
        for j in 0..4 {
            c += q[j][k] * y[k].dot(&y[j]);
        }
    }
    c *= 0.5;
    let mut grad = [Vec3::zeros(); 4];
    for k in 0..4 {
        for j in 0..4 {
            grad[j] += y[k] * q[j][k];
        }
    }
    (c, grad)
}

/// The inverse masses in the order `[p2, p3, p0, p1]`.
pub(super) fn reordered(w: &[f64; 4]) -> [f64; 4] {
    [w[2], w[3], w[0], w[1]]
}

/// `sum w |grad C|^2` over the particles with `w != 0`, in the order `[p2, p3, p0, p1]`.
pub(super) fn gradient_weight(w: &[f64; 4], grad: &[Vec3; 4]) -> f64 {
    let mut sum = 0.0;
    for j in 0..4 {
        if w[j] != 0.0 {
            sum += w[j] * grad[j].norm_squared();
        }
    }
    sum
}

/// A hinge's stiffness blocks (`tangent.rs`) at the positions `x` for the compliance `compliance(W)` of
/// its `W = sum w |grad C|^2`: `(grad C grad C^T + min(C, 0) Q) / alpha~`, positive semidefinite (`Q`
/// is, times `-3 / (2 (A0 + A1))`, the outer product of the cotangent vector: negative semidefinite, and
/// `C <= 0` with it), mapped from the order `[p2, p3, p0, p1]` back to the hinge's.
pub(super) fn stiffness(
    q: &[[f64; 4]; 4],
    x: &[Vec3; 4],
    w: &[f64; 4],
    compliance: impl FnOnce(f64) -> Option<f64>,
) -> Option<super::Blocks> {
    let (c, grad) = energy(q, x);
    let alpha = compliance(gradient_weight(&reordered(w), &grad))?;
    let order = [2, 3, 0, 1];
    let mut b = super::tangent::gauss_newton(&[grad[2], grad[3], grad[0], grad[1]], alpha);
    for j in 0..4 {
        for l in 0..4 {
            b[order[j]][order[l]] += nalgebra::Matrix3::identity() * (c.min(0.0) * q[j][l] / alpha);
        }
    }
    Some(b)
}

impl ClothConstraint for Isometric {
    const SUPPORT: Support = Support::Hinges;
    /// `Q`.
    type Rest = [[f64; 4]; 4];
    /// The stiffness `k`.
    type Constants = f64;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<Self::Rest> {
        Some(q_matrix(x))
    }

    #[inline(always)]
    fn project(
        q: &Self::Rest,
        k: &f64,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        _lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let (c, grad) = energy(q, x);
        let wr = reordered(w);
        let sum = gradient_weight(&wr, &grad);
        if sum.abs() <= EPS {
            return false;
        }
        let s = c / sum;
        // corr of p0, p1, p2, p3 from grad[2], grad[3], grad[0], grad[1].
        for (i, j) in [(0, 2), (1, 3), (2, 0), (3, 1)] {
            corr[i] = grad[j] * (-k * (s * wr[j]));
        }
        true
    }

    const TANGENT: bool = true;

    fn stiffness(q: &Self::Rest, k: &f64, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<super::Blocks> {
        stiffness(q, x, w, |weight| super::tangent::pbd_compliance(*k, nit, weight))
    }
}
