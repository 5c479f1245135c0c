//! St. Venant-Kirchhoff: `psi = mu G:G + (lambda / 2) (tr G)^2` with the Green strain
//! `G = (F^T F - I) / 2`; `P = F S`, `S = 2 mu G + lambda tr(G) I`. Frame indifferent; softens (and can
//! collapse) under strong compression.

use nalgebra::Matrix3;

use super::{Material, linear_stress};
use crate::LameParameters;

/// St. Venant-Kirchhoff hyperelasticity.
#[derive(Debug, Clone, Copy, Default)]
pub struct StVenantKirchhoff;

fn green(f: &Matrix3<f64>) -> Matrix3<f64> {
    (f.transpose() * f - Matrix3::identity()) * 0.5
}

impl Material for StVenantKirchhoff {
    fn name(&self) -> &'static str {
        "stvk"
    }

    fn description(&self) -> &'static str {
        "St. Venant-Kirchhoff: linear stress-strain law in the Green strain"
    }

    fn energy_density(&self, f: &Matrix3<f64>, lame: LameParameters) -> f64 {
        let g = green(f);
        lame.mu * g.dot(&g) + 0.5 * lame.lambda * g.trace().powi(2)
    }

    fn stress(&self, f: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        f * linear_stress(&green(f), lame)
    }

    fn stress_differential(&self, f: &Matrix3<f64>, df: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
        let s = linear_stress(&green(f), lame);
        let dg = (f.transpose() * df + df.transpose() * f) * 0.5;
        df * s + f * linear_stress(&dg, lame)
    }
}
