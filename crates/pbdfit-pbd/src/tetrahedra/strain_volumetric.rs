//! The volumetric Green strain as a per-tetrahedron constraint: `C = sqrt(V0) tr E` with
//! `E = (F^T F - I) / 2 = (H + H^T + H^T H) / 2` computed from the displacement gradient `H = F - I` (no
//! cancellation against the identity: `tr E = tr H + |H|^2 / 2`), `dC/dF = sqrt(V0) F`, particle k's
//! gradient `sqrt(V0) F r_k`. `C` is in m^(3/2), a compliance in m^3/J: with `alpha = 1 / K` (`K` the bulk
//! modulus) the energy `C^2 / (2 alpha)` is `K V0 (tr E)^2 / 2`, St. Venant-Kirchhoff's volumetric part.
//! The constant is not used.

use super::TetGeometry;
use crate::Vec3;

pub(super) const NAME: &str = "volumetric strain";

#[inline(always)]
pub(super) fn value(g: &TetGeometry, _constant: f64) -> (f64, [Vec3; 3]) {
    let (h, r, six_v0) = g.displacement_gradient();
    let root_v0 = (six_v0.abs() / 6.0).sqrt();
    let trace = h.trace() + 0.5 * h.norm_squared();
    let d = (h + nalgebra::Matrix3::identity()) * root_v0;
    (root_v0 * trace, [d * r[0], d * r[1], d * r[2]])
}

pub(super) const WGSL: &str = "
fn tetrahedron_strain_volumetric(e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>, c12: vec3<f32>,
                                 wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, constant: f32) -> TetValue {
    let rest = rest_rows(e1, e2, e3, c31, c12);
    let h = displacement_gradient(wa, wb, wc, rest.r1, rest.r2, rest.r3);
    let root_v0 = sqrt(abs(rest.six_v0) / 6.0);
    let trace = (h[0].x + h[1].y + h[2].z) + 0.5 * (dot(h[0], h[0]) + dot(h[1], h[1]) + dot(h[2], h[2]));
    let d = (h + mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0))) * root_v0;
    return TetValue(root_v0 * trace, d * rest.r1, d * rest.r2, d * rest.r3);
}
";
