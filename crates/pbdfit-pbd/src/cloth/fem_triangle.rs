//! The library's FEM triangle (`FEMTriangleConstraint`; `PositionBasedDynamics::init_FEMTriangleConstraint`,
//! `solve_FEMTriangleConstraint`, after Bender et al., "Position-based simulation of continuous
//! materials", 2014): an orthotropic St. Venant-Kirchhoff membrane energy per triangle as the
//! constraint, `C = A psi(E)` with the Green strain `E` of the triangle's in-plane deformation gradient
//! and `psi = 1/2 E : (C E)`, projected by `dp = -C / sum w |grad C|^2 grad C` with no stiffness factor.
//!
//! The moduli are the library's: Young's moduli along the rest frame's two axes `young_x`, `young_y`,
//! the shear modulus and the two Poisson ratios (`C_00 = E_x / (1 - nu_xy nu_yx)`, `C_01 = E_x nu_yx / ...`,
//! `C_11 = E_y / ...`, `C_10 = E_y nu_xy / ...`, `C_22 = G`). Energy per area is in J/m^2, so the moduli
//! are membrane moduli in N/m (a 3-D modulus times the thickness). Since both `C` and its gradient scale
//! with the moduli, the projection depends only on their ratios and the Poisson ratios: multiplying all
//! three moduli by a factor changes no correction (up to rounding). The library skips a triangle whose
//! `sum w |grad C|^2` is at most 1e-6 (absolute, N^2/kg), and makes none whose rest frame's determinant
//! is at most 1e-6 m^2 in magnitude; so does this.

use super::{ClothConstraint, RestContext, Support};
use crate::Vec3;

/// The FEM triangle.
pub(crate) struct FemTriangle;

/// The library's threshold (see the module doc).
const EPS: f64 = 1e-6;

/// The library's orthotropic membrane moduli.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FemMaterial {
    /// Young's modulus along the rest frame's first axis (N/m).
    pub young_x: f64,
    /// Young's modulus along the second axis (N/m).
    pub young_y: f64,
    /// Shear modulus (N/m).
    pub shear: f64,
    /// Poisson ratio `nu_xy`.
    pub poisson_xy: f64,
    /// Poisson ratio `nu_yx`.
    pub poisson_yx: f64,
}

/// Rest data: the area (m^2) and the inverse rest matrix (row-major, 1/m).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FemRest {
    area: f64,
    inv: [[f64; 2]; 2],
}

impl ClothConstraint for FemTriangle {
    const SUPPORT: Support = Support::Triangles;
    type Rest = FemRest;
    type Constants = FemMaterial;

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<FemRest> {
        let [p0, p1, p2, _] = *x;
        let normal = (p1 - p0).cross(&(p2 - p0));
        let area = normal.norm() * 0.5;
        let a1 = p1 - p0;
        let a1 = a1 / a1.norm();
        let a2 = normal.cross(&a1);
        let a2 = a2 / a2.norm();
        let p = [p0, p1, p2].map(|q| [q.dot(&a2), q.dot(&a1)]);
        let m = [[p[0][0] - p[2][0], p[1][0] - p[2][0]], [p[0][1] - p[2][1], p[1][1] - p[2][1]]];
        let det = m[0][0] * m[1][1] - m[1][0] * m[0][1];
        if det.abs() <= EPS {
            return None;
        }
        let inv_det = 1.0 / det;
        let inv = [[m[1][1] * inv_det, -m[0][1] * inv_det], [-m[1][0] * inv_det, m[0][0] * inv_det]];
        Some(FemRest { area, inv })
    }

    #[inline(always)]
    fn project(
        rest: &FemRest,
        k: &FemMaterial,
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        _lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let FemRest { area, inv } = *rest;
        let den = 1.0 - k.poisson_xy * k.poisson_yx;
        let c00 = k.young_x / den;
        let c01 = k.young_x * k.poisson_yx / den;
        let c11 = k.young_y / den;
        let c10 = k.young_y * k.poisson_xy / den;
        let c22 = k.shear;
        let p13 = x[0] - x[2];
        let p23 = x[1] - x[2];
        // F (3 x 2) by columns.
        let f0 = Vec3::new(
            p13.x * inv[0][0] + p23.x * inv[1][0],
            p13.y * inv[0][0] + p23.y * inv[1][0],
            p13.z * inv[0][0] + p23.z * inv[1][0],
        );
        let f1 = Vec3::new(
            p13.x * inv[0][1] + p23.x * inv[1][1],
            p13.y * inv[0][1] + p23.y * inv[1][1],
            p13.z * inv[0][1] + p23.z * inv[1][1],
        );
        let e00 = 0.5 * (f0.x * f0.x + f0.y * f0.y + f0.z * f0.z - 1.0);
        let e11 = 0.5 * (f1.x * f1.x + f1.y * f1.y + f1.z * f1.z - 1.0);
        let e01 = 0.5 * (f0.x * f1.x + f0.y * f1.y + f0.z * f1.z);
        let s00 = c00 * e00 + c01 * e11 + 0.0 * e01;
        let s11 = c10 * e00 + c11 * e11 + 0.0 * e01;
        let s01 = 0.0 * e00 + 0.0 * e11 + c22 * e01;
        // P = F S (3 x 2) by columns.
        let pk0 = f0 * s00 + f1 * s01;
        let pk1 = f0 * s01 + f1 * s11;
        let psi = 0.5 * (((e00 * s00 + e01 * s01) + e01 * s01) + e11 * s11);
        let energy = area * psi;
        // H = (A P) inv^T: column j is sum_k (A P_k) inv[j][k].
        let (a0, a1) = (pk0 * area, pk1 * area);
        let g0 = a0 * inv[0][0] + a1 * inv[0][1];
        let g1 = a0 * inv[1][0] + a1 * inv[1][1];
        let g2 = -g0 - g1;
        let sum = w[0] * g0.norm_squared() + w[1] * g1.norm_squared() + w[2] * g2.norm_squared();
        if sum.abs() <= EPS {
            return false;
        }
        let s = energy / sum;
        corr[0] = g0 * -(s * w[0]);
        corr[1] = g1 * -(s * w[1]);
        corr[2] = g2 * -(s * w[2]);
        true
    }
}
