//! Small-strain linear elasticity: `psi = mu eps:eps + (lambda / 2) (tr eps)^2` with
//! `eps = sym(F - I)`. The reference of the thesis reproduction; not frame indifferent (a rigid
//! rotation produces strain).

use nalgebra::Matrix3;

use super::{Material, linear_stress};
use crate::LameParameters;

/// Small-strain isotropic linear elasticity.
#[derive(Debug, Clone, Copy, Default)]
pub struct Linear;

fn strain(f: &Matrix3<f64>) -> Matrix3<f64> {
    let h = f - Matrix3::identity();
    (h + h.transpose()) * 0.5
}

impl Material for Linear {
    fn name(&self) -> &'static str {
        "linear"
    }

    fn description(&self) -> &'static str {
        "small-strain linear elasticity (the thesis reproduction's reference)"
    }

    fn is_linear(&self) -> bool {
        true
    }

    fn energy_density(&self, f: &Matrix3<f64>, lame: LameParameters) -> f64 {
        let eps = strain(f);
        lame.mu * eps.dot(&eps) + 0.5 * lame.lambda * eps.trace().powi(2)
    }

    fn stress(&self, f: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        linear_stress(&strain(f), lame)
    }

    fn stress_differential(&self, _f: &Matrix3<f64>, df: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        linear_stress(&((df + df.transpose()) * 0.5), lame)
    }
}
