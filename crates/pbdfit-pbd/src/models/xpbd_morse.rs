//! XPBD with the modified Morse spring potential as the distance constraint, `C = (1 - exp(l - l0))^2`
//! (docs/models.md, section Equations: the source's k is folded into the compliance, and
//! its printed gradient, which drops the `-l0` in the exponent, is taken as a typo).

use super::xpbd::{VOLUME_COMPLIANCE, distance_compliance, xpbd_rule};
use crate::{Fold, ModelDef, ParameterSpec, SpringPotential};

/// `C` is a number (lengths in m), so `alpha_d` is in 1/J. At rest a spring carries a force of about
/// `2 (l - l0)^3 / alpha_d`. The box holds the minima of the shipped studies (fits/models.toml) with
/// margin.
const PARAMETERS: [ParameterSpec; 2] = [distance_compliance("1/J", (1e-16, 1e2)), VOLUME_COMPLIANCE];

/// XPBD, modified Morse spring potential.
pub(crate) static XPBD_MORSE: ModelDef = ModelDef {
    name: "xpbd-morse",
    description: "XPBD with the modified Morse spring potential C = (1 - exp(l - l0))^2 (alpha_d in 1/J, alpha_v in m^6/J)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, settings| xpbd_rule(p, settings, SpringPotential::Morse)),
    // Stiff: at alpha_d = 1e-8 the wall cube stepped 325,586 sweeps to rest, at 1e-16 it takes 559
    // (floor and ceiling 227; CPU stepping, measured).
    example: &[1e-16, 1e-5],
    masses: None,
};
