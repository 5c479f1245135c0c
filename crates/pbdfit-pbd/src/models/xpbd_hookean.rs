//! XPBD with the Hookean spring potential as the distance constraint, `C = (l - l0)^2 / 2` (docs/method.md,
//! section Spring-potential constraints).

use super::xpbd::{VOLUME_COMPLIANCE, distance_compliance, xpbd_rule};
use crate::{Fold, ModelDef, ParameterSpec, SpringPotential};

/// `C` is in m^2, so the energy `C^2 / (2 alpha_d)` puts `alpha_d` in m^4/J. At rest a spring carries
/// the force `(l - l0)^3 / (2 alpha_d)`: a cubic spring with no linear stiffness. The box holds the
/// minima of the shipped studies (fits/models.toml) with margin.
const PARAMETERS: [ParameterSpec; 2] = [distance_compliance("m^4/J", (1e-16, 1e2)), VOLUME_COMPLIANCE];

/// XPBD, Hookean spring potential.
pub(crate) static XPBD_HOOKEAN: ModelDef = ModelDef {
    name: "xpbd-hookean",
    description: "XPBD with the Hookean spring potential C = (l - l0)^2 / 2 (alpha_d in m^4/J, alpha_v in m^6/J)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, settings| xpbd_rule(p, settings, SpringPotential::Hookean)),
    // Stiff: at alpha_d = 1e-8 the potential's correction, which vanishes quadratically near rest, made
    // the wall cube step 113,704 sweeps to rest; at 1e-12 it takes 1,379 (CPU stepping, measured).
    example: &[1e-12, 1e-5],
    masses: None,
};
