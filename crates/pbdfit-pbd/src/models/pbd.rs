//! The reference library's PBD (Jan Bender's PositionBasedDynamics; docs/method.md, section The model's step).

use crate::{Fold, ModelDef, ParameterSpec, ProjectionRule, Scale};

/// Distance stiffness `kd` and volume stiffness `kv`, dimensionless, searched on [0, 1].
pub(crate) const STIFFNESS: [ParameterSpec; 2] = [
    ParameterSpec::stiffness("kd", "distance stiffness: the fraction of an edge's length error removed per projection"),
    ParameterSpec::stiffness(
        "kv",
        "volume stiffness: the fraction of a tetrahedron's volume error removed per projection",
    ),
];

impl ParameterSpec {
    /// A PBD stiffness in [0, 1] (above 1 with the unbounded flag).
    pub(crate) const fn stiffness(name: &'static str, description: &'static str) -> Self {
        ParameterSpec {
            name,
            unit: "1",
            units_when: &[],
            inert_when: None,
            description,
            scale: Scale::Linear,
            default_box: (0.0, 1.0),
            minimum: 0.0,
            maximum: 1.0,
            maximum_unbounded: f64::INFINITY,
        }
    }
}

/// The PBD rule with stiffness (kd, kv) and volume gradients `scale * 6 dV/dp`: distance corrections
/// scaled by `kd`, volume corrections by `kv / (6 scale)` on the unscaled gradients, and the degenerate
/// threshold `1e-300 / scale^2` on `sum w |6 dV/dp|^2` (the reference's 1e-300 on the scaled sum).
pub(crate) fn pbd_rule(kd: f64, kv: f64, scale: f64) -> ProjectionRule {
    ProjectionRule::Pbd { distance_k: kd, volume_k: kv / (6.0 * scale), volume_gradient_scale: scale }
}

/// `k` multiplies the correction; volume gradients `6 dV/dp` (one sixth of the textbook step).
pub(crate) static PBD: ModelDef = ModelDef {
    name: "pbd",
    description: "the reference library's PBD: k multiplies the correction, volume gradient 6 dV/dp",
    parameters: &STIFFNESS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, _| pbd_rule(p[0], p[1], 1.0)),
    example: &[0.5, 0.5],
    masses: None,
};
