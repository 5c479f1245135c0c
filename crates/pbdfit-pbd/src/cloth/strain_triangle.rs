//! The library's strain triangle (`StrainTriangleConstraint`; `PositionBasedDynamics::
//! init_StrainTriangleConstraint`, `solve_StrainTriangleConstraint`, after Mueller et al., "Strain based
//! dynamics", 2014): the Green strain's components `S_xx`, `S_yy` (target 1, optionally as stretches
//! `sqrt(S)`) and `S_xy` (target 0, optionally normalised to the cosine of the angle between the
//! deformed axes) projected one after the other with Gauss-Seidel updates inside the triangle, each
//! multiplied by its stiffness (dimensionless: `xx`, `yy`, `xy`).
//!
//! The rest frame: the library takes a triangle's rest coordinates as `(x, z)`, its cloth lying in a
//! plane `y = const`. A sheet that lies in such a plane gets exactly that; any other sheet gets each
//! triangle's own frame (first axis along its first edge, second in its plane), where the library
//! would see a degenerate projection. The library makes no constraint whose rest determinant is below
//! 1e-6 m^2 in magnitude; neither does this.

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The strain triangle.
pub(crate) struct StrainTriangle;

/// The library's threshold on the rest determinant (m^2).
const EPS: f64 = 1e-6;

/// The strain triangle's stiffnesses and normalisations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrainStiffness {
    /// Stiffness of the strain along the rest frame's first axis.
    pub xx: f64,
    /// Stiffness of the strain along the second axis.
    pub yy: f64,
    /// Shear stiffness.
    pub xy: f64,
    /// Project the stretches `sqrt(S_ii)` instead of `S_ii`.
    pub normalize_stretch: bool,
    /// Project the shear normalised by the deformed axes' lengths.
    pub normalize_shear: bool,
}

/// `r . c` with the library's third component 0.
#[inline(always)]
fn dot(r: [f64; 2], c: [f64; 2]) -> f64 {
    r[0] * c[0] + r[1] * c[1]
}

impl ClothConstraint for StrainTriangle {
    const SUPPORT: Support = Support::Triangles;
    /// The inverse rest matrix (row-major, 1/m).
    type Rest = [[f64; 2]; 2];
    type Constants = StrainStiffness;

    fn rest(x: &[Vec3; 4], context: RestContext) -> Option<Self::Rest> {
        let [p0, p1, p2, _] = *x;
        let (y0, y1, y2) = if context.xz_plane {
            ([p0.x, p0.z], [p1.x, p1.z], [p2.x, p2.z])
        } else {
            let a1 = (p1 - p0) / (p1 - p0).norm();
            let n = (p1 - p0).cross(&(p2 - p0));
            let a2 = n.cross(&a1);
            let a2 = a2 / a2.norm();
            let frame = |q: Vec3| [(q - p0).dot(&a1), (q - p0).dot(&a2)];
            (frame(p0), frame(p1), frame(p2))
        };
        let a = y1[0] - y0[0];
        let b = y2[0] - y0[0];
        let c = y1[1] - y0[1];
        let d = y2[1] - y0[1];
        let det = a * d - b * c;
        if det.abs() < EPS {
            return None;
        }
        let s = 1.0 / det;
        Some([[d * s, -b * s], [-c * s, a * s]])
    }

    #[inline(always)]
    fn project(
        inv: &Self::Rest,
        k: &StrainStiffness,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        _lambda: &mut f64,
        out: &mut [Vec3; 4],
    ) -> bool {
        let c = [[inv[0][0], inv[1][0]], [inv[0][1], inv[1][1]]];
        let [p0, p1, p2, _] = *x;
        let mut corr = [Vec3::zeros(); 3];
        for i in 0..2 {
            for j in 0..=i {
                let mut r = [[0.0; 2]; 3];
                for (m, rm) in r.iter_mut().enumerate() {
                    let q0 = p0[m] + corr[0][m];
                    *rm = [(p1[m] + corr[1][m]) - q0, (p2[m] + corr[2][m]) - q0];
                }
                let fi = Vec3::new(dot(r[0], c[i]), dot(r[1], c[i]), dot(r[2], c[i]));
                let fj = Vec3::new(dot(r[0], c[j]), dot(r[1], c[j]), dot(r[2], c[j]));
                let mut s_ij = 0.0;
                for m in 0..3 {
                    s_ij += fi[m] * fj[m];
                }
                let mut d = [Vec3::zeros(); 3];
                for m in 0..2 {
                    d[m + 1] = fj * inv[m][i];
                    d[m + 1] += fi * inv[m][j];
                    d[0] -= d[m + 1];
                }
                if i != j && k.normalize_shear {
                    let mut fi2 = 0.0;
                    let mut fj2 = 0.0;
                    for m in 0..3 {
                        fi2 += fi[m] * fi[m];
                        fj2 += fj[m] * fj[m];
                    }
                    let (ni, nj) = (fi2.sqrt(), fj2.sqrt());
                    d[0] = Vec3::zeros();
                    let s = s_ij / (fi2 * ni * fj2 * nj);
                    for m in 0..2 {
                        d[m + 1] /= ni * nj;
                        d[m + 1] -= fi * (nj * nj) * inv[m][i] * s;
                        d[m + 1] -= fj * (ni * ni) * inv[m][j] * s;
                        d[0] -= d[m + 1];
                    }
                    s_ij /= ni * nj;
                }
                let mut lambda = w[0] * d[0].norm_squared() + w[1] * d[1].norm_squared() + w[2] * d[2].norm_squared();
                if lambda == 0.0 {
                    continue;
                }
                let stretch = |stiffness: f64, lambda: f64| {
                    if k.normalize_stretch {
                        let s = s_ij.sqrt();
                        2.0 * s * (s - 1.0) / lambda * stiffness
                    } else {
                        (s_ij - 1.0) / lambda * stiffness
                    }
                };
                lambda = match (i, j) {
                    (0, 0) => stretch(k.xx, lambda),
                    (1, 1) => stretch(k.yy, lambda),
                    _ => s_ij / lambda * k.xy,
                };
                for m in 0..3 {
                    corr[m] -= d[m] * (lambda * w[m]);
                }
            }
        }
        out[..3].copy_from_slice(&corr);
        true
    }
}
