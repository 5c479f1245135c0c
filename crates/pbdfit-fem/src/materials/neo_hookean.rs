//! Compressible neo-Hookean: `psi = (mu / 2)(tr(F^T F) - 3) - mu ln J + (lambda / 2)(ln J)^2`,
//! `J = det F`; `P = mu (F - F^-T) + lambda ln(J) F^-T`. Frame indifferent; undefined for inverted
//! elements (J <= 0), where the solver backtracks.

use nalgebra::Matrix3;

use super::Material;
use crate::LameParameters;

/// Compressible neo-Hookean hyperelasticity (the energy of docs/rest-states-and-references.md).
#[derive(Debug, Clone, Copy, Default)]
pub struct NeoHookean;

impl Material for NeoHookean {
    fn name(&self) -> &'static str {
        "neo-hookean"
    }

    fn description(&self) -> &'static str {
        "compressible neo-Hookean (rubber-like; inverted elements are refused)"
    }

    fn needs_positive_volume(&self) -> bool {
        true
    }

    fn energy_density(&self, f: &Matrix3<f64>, lame: LameParameters) -> f64 {
        let j = f.determinant();
        if j <= 0.0 {
            return f64::INFINITY;
        }
        let log_j = j.ln();
        0.5 * lame.mu * (f.norm_squared() - 3.0) - lame.mu * log_j + 0.5 * lame.lambda * log_j * log_j
    }

    fn stress(&self, f: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        let j = f.determinant();
        let Some(inverse) = f.try_inverse().filter(|_| j > 0.0) else {
            return Matrix3::repeat(f64::NAN);
        };
        let f_inv_t = inverse.transpose();
        (f - f_inv_t) * lame.mu + f_inv_t * (lame.lambda * j.ln())
    }

    fn stress_differential(&self, f: &Matrix3<f64>, df: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        let j = f.determinant();
        let Some(inverse) = f.try_inverse().filter(|_| j > 0.0) else {
            return Matrix3::repeat(f64::NAN);
        };
        let f_inv_t = inverse.transpose();
        // d(F^-T) = -F^-T dF^T F^-T, d(ln J) = tr(F^-1 dF).
        let d_inv_t = -(f_inv_t * df.transpose() * f_inv_t);
        df * lame.mu - d_inv_t * lame.mu
            + d_inv_t * (lame.lambda * j.ln())
            + f_inv_t * (lame.lambda * (inverse * df).trace())
    }
}
