//! Corotational linear elasticity: per element the rotation `R` of the polar decomposition `F = R S`
//! is taken out and the linear law acts on `S - I`: `psi = mu |S - I|^2 + (lambda / 2) tr(S - I)^2`.
//! Its gradient `P = R (2 mu (S - I) + lambda tr(S - I) I)` is the element force `R K_e (R^T x - X)` of
//! SOFA's tetrahedral FEM with a polar rotation (its default "large" method takes the rotation from
//! the element's edges, which agrees with the polar one to first order in the strain). The tangent
//! includes the derivative of `R` (exact, so Newton converges quadratically).

use nalgebra::{Matrix3, Vector3};

use super::{Material, axial, cross_matrix, linear_stress};
use crate::LameParameters;

/// Corotational linear elasticity with the polar rotation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Corotational;

/// The polar decomposition `F = R S` with `R` a proper rotation and `S` symmetric, by the SVD
/// `F = U Sigma V^T`, `R = U V^T` (the smallest singular value's sign flipped when `det F < 0`).
pub fn polar(f: &Matrix3<f64>) -> (Matrix3<f64>, Matrix3<f64>) {
    let svd = f.svd(true, true);
    let (mut u, v_t) = (svd.u.expect("U requested"), svd.v_t.expect("V^T requested"));
    if (u * v_t).determinant() < 0.0 {
        // nalgebra sorts singular values in decreasing order: flip the last column.
        let mut last = u.column_mut(2);
        last *= -1.0;
    }
    let r = u * v_t;
    let s = r.transpose() * f;
    (r, (s + s.transpose()) * 0.5)
}

impl Material for Corotational {
    fn name(&self) -> &'static str {
        "corotational"
    }

    fn description(&self) -> &'static str {
        "corotational linear (polar rotation per element, as SOFA's tetrahedral FEM)"
    }

    fn energy_density(&self, f: &Matrix3<f64>, lame: LameParameters) -> f64 {
        let (_, s) = polar(f);
        let e = s - Matrix3::identity();
        lame.mu * e.dot(&e) + 0.5 * lame.lambda * e.trace().powi(2)
    }

    fn stress(&self, f: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        let (r, s) = polar(f);
        r * linear_stress(&(s - Matrix3::identity()), lame)
    }

    fn stress_differential(&self, f: &Matrix3<f64>, df: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        let (r, s) = polar(f);
        // F = R S: R^T dF = Omega S + dS with Omega = R^T dR skew, dS symmetric, so
        // skew(R^T dF) = (Omega S + S Omega) / 2 = [(tr(S) I - S) w / 2]_x for Omega = [w]_x.
        let g = r.transpose() * df;
        let system = Matrix3::identity() * s.trace() - s;
        let w = system.try_inverse().map_or(Vector3::zeros(), |inv| inv * (axial(&g) * 2.0));
        let dr = r * cross_matrix(&w);
        // P = 2 mu (F - R) + lambda tr(S - I) R; tr(dS) = tr(R^T dF) since tr(Omega S) = 0.
        let trace_e = s.trace() - 3.0;
        (df - dr) * (2.0 * lame.mu) + r * (lame.lambda * g.trace()) + dr * (lame.lambda * trace_e)
    }
}
