//! The deviatoric Green strain's norm as a per-tetrahedron constraint: `C = sqrt(V0) |dev E|` with
//! `E = (H + H^T + H^T H) / 2` from the displacement gradient `H = F - I` and `dev E = E - (tr E / 3) I`;
//! `dC/dF = sqrt(V0) F dev E / |dev E|`, particle k's gradient `(dC/dF) r_k`. `C` is in m^(3/2), a
//! compliance in m^3/J: with `alpha = 1 / (2 mu)` the energy `C^2 / (2 alpha)` is `mu V0 |dev E|^2`,
//! St. Venant-Kirchhoff's shear part. A norm: where `dev E = 0` (the rest shape, a pure dilation) its
//! gradient is undefined and taken as 0, which leaves the tetrahedron to its other constraints there.
//! The constant is not used.

use super::TetGeometry;
use crate::Vec3;

pub(super) const NAME: &str = "deviatoric strain";

#[inline(always)]
pub(super) fn value(g: &TetGeometry, _constant: f64) -> (f64, [Vec3; 3]) {
    let (h, r, six_v0) = g.displacement_gradient();
    let e = (h + h.transpose() + h.transpose() * h) * 0.5;
    let deviator = e - nalgebra::Matrix3::identity() * (e.trace() / 3.0);
    let norm = deviator.norm();
    if norm.is_nan() || norm <= 1e-300 {
        return (0.0, [Vec3::zeros(); 3]);
    }
    let root_v0 = (six_v0.abs() / 6.0).sqrt();
    let d = ((h + nalgebra::Matrix3::identity()) * deviator) * (root_v0 / norm);
    (root_v0 * norm, [d * r[0], d * r[1], d * r[2]])
}

pub(super) const WGSL: &str = "
fn tetrahedron_strain_deviatoric(e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>, c12: vec3<f32>,
                                 wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, constant: f32) -> TetValue {
    let rest = rest_rows(e1, e2, e3, c31, c12);
    let h = displacement_gradient(wa, wb, wc, rest.r1, rest.r2, rest.r3);
    let e = (h + transpose(h) + transpose(h) * h) * 0.5;
    let third = (e[0].x + e[1].y + e[2].z) / 3.0;
    let deviator = e - mat3x3<f32>(vec3<f32>(third, 0.0, 0.0), vec3<f32>(0.0, third, 0.0), vec3<f32>(0.0, 0.0, third));
    let norm = sqrt(dot(deviator[0], deviator[0]) + dot(deviator[1], deviator[1]) + dot(deviator[2], deviator[2]));
    if !(norm > 1e-30) {
        return TetValue(0.0, vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let root_v0 = sqrt(abs(rest.six_v0) / 6.0);
    let f = h + mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    let d = (f * deviator) * (root_v0 / norm);
    return TetValue(root_v0 * norm, d * rest.r1, d * rest.r2, d * rest.r3);
}
";
