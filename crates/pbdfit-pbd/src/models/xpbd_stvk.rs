//! XPBD with the St. Venant-Kirchhoff spring potential as the distance constraint, `C = l0 eps^2 / 2`,
//! `eps = (l^2 - l0^2) / (2 l0^2)` (docs/models.md, section Equations).

use super::xpbd::{VOLUME_COMPLIANCE, distance_compliance, xpbd_rule};
use crate::{Fold, ModelDef, ParameterSpec, SpringPotential};

/// `C` is in m, so `alpha_d` is in m/N as for plain XPBD; but `C` is quadratic in the strain, so at rest
/// a spring carries a force cubic in `l - l0`. The box holds the minima of the shipped studies
/// (fits/models.toml) with margin.
const PARAMETERS: [ParameterSpec; 2] = [distance_compliance("m/N", (1e-16, 1e2)), VOLUME_COMPLIANCE];

/// XPBD, St. Venant-Kirchhoff spring potential.
pub(crate) static XPBD_STVK: ModelDef = ModelDef {
    name: "xpbd-stvk",
    description: "XPBD with the St. Venant-Kirchhoff spring potential C = l0 eps^2 / 2 (alpha_d in m/N, alpha_v in m^6/J)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, settings| xpbd_rule(p, settings, SpringPotential::Stvk)),
    // Stiff: 29,392 stepping sweeps on the wall cube at alpha_d = 1e-8, 336 at 1e-12 (measured).
    example: &[1e-12, 1e-5],
    masses: None,
};
