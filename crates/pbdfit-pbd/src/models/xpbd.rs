//! XPBD (Macklin, Mueller, Chentanez 2016): compliances, true gradients, multipliers reset each step.

use crate::{Fold, ModelDef, ParameterSpec, ProjectionRule, RuleSettings, SpringPotential};

/// A distance compliance in `unit` on a log10 box.
pub(crate) const fn distance_compliance(unit: &'static str, default_box: (f64, f64)) -> ParameterSpec {
    ParameterSpec::log10("alpha_d", unit, "distance compliance (inverse stiffness of the edge constraint)", default_box)
}

/// The volume compliance of every XPBD model: `C = V - V0` in m^3, energy `C^2 / (2 alpha_v)` in J.
pub(crate) const VOLUME_COMPLIANCE: ParameterSpec = ParameterSpec::log10(
    "alpha_v",
    "m^6/J",
    "volume compliance (inverse stiffness of the tetrahedron-volume constraint)",
    (1e-14, 1e2),
);

/// The compliances. The constraint energy is `C^2 / (2 alpha)` in J, so `alpha_d` (C in m) is in m/N and
/// `alpha_v` (C in m^3) in m^6/J. The default boxes hold every minimum of the shipped studies (E from
/// 1e3 to 1e6 Pa, N from 1 to 4, dt from 1e-3 to 1e-2 s, nit from 1 to 8; the estimates
/// `alpha_d ~ l0 / (E h^2)` and `alpha_v ~ V0 / K` give 1e-7 to 1e-2 and 1e-11 to 1e-2) with margin.
const COMPLIANCE: [ParameterSpec; 2] = [distance_compliance("m/N", (1e-10, 1e2)), VOLUME_COMPLIANCE];

/// The XPBD rule with `alpha~ = alpha / dt^2` per constraint type, true volume gradients and the
/// distance constraint function `potential`.
pub(crate) fn xpbd_rule(p: &[f64], settings: RuleSettings, potential: SpringPotential) -> ProjectionRule {
    let dt2 = settings.dt * settings.dt;
    ProjectionRule::Xpbd {
        distance_potential: potential,
        distance_alpha_tilde: p[0] / dt2,
        volume_alpha_tilde: p[1] / dt2,
        volume_gradient_scale: 1.0 / 6.0,
        distances: true,
        volumes: true,
        tetrahedra: [None; 2],
    }
}

/// XPBD with the stretching constraint `C = l - l0`.
pub(crate) static XPBD: ModelDef = ModelDef {
    name: "xpbd",
    description: "XPBD with compliances alpha_d (m/N) and alpha_v (m^6/J)",
    parameters: &COMPLIANCE,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, settings| xpbd_rule(p, settings, SpringPotential::Stretch)),
    example: &[1e-4, 1e-6],
    masses: None,
};
