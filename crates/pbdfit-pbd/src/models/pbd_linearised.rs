//! PBD with the original paper's iteration-count correction `k' = 1 - (1 - k)^(1/nit)`.

use super::pbd::pbd_rule;
use crate::{Fold, ModelDef, ParameterSpec};

const LINEARISED: [ParameterSpec; 2] = {
    let [mut kd, mut kv] = super::pbd::STIFFNESS;
    // (1 - k)^(1/nit) has no meaning for k > 1.
    kd.maximum_unbounded = 1.0;
    kv.maximum_unbounded = 1.0;
    [kd, kv]
};

/// As `pbd`, with `k' = 1 - (1 - k)^(1/nit)` for both stiffnesses.
pub(crate) static PBD_LINEARISED: ModelDef = ModelDef {
    name: "pbd-linearised",
    description: "PBD with k' = 1 - (1 - k)^(1/nit)",
    parameters: &LINEARISED,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, settings| {
        let linearise = |k: f64| 1.0 - (1.0 - k).powf(1.0 / settings.nit as f64);
        pbd_rule(linearise(p[0]), linearise(p[1]), 1.0)
    }),
    example: &[0.7, 0.4],
    masses: None,
};
