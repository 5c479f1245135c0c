//! A mass-spring system with a volume penalty per tetrahedron, energy `(kvol / 2) (V - V0)^2 / V0`
//! (docs/models.md, section Equations). Rest state by Newton, as for `mass-spring`.

use super::mass_spring::SPRING_CONSTANT;
use crate::{Fold, ModelDef, ParameterSpec, SpringLaw};

/// `ks` (N/m) and the volume penalty `kvol` (Pa), on a log10 box around the bulk modulus
/// `K = E / (3 (1 - 2 nu))` (E from 1e2 to 1e7 Pa, nu up to 0.49) with margin.
const PARAMETERS: [ParameterSpec; 2] =
    [SPRING_CONSTANT, ParameterSpec::log10("kvol", "Pa", "volume penalty of every tetrahedron", (1e-3, 1e10))];

/// Mass-spring with a volume penalty.
pub(crate) static MASS_SPRING_VOLUME: ModelDef = ModelDef {
    name: "mass-spring-volume",
    description: "mass-spring plus a volume penalty kvol (Pa) per tetrahedron; rest state by Newton",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Springs(|p, _| SpringLaw { ks: p[0], kvol: p[1], ..SpringLaw::NONE }),
    example: &[200.0, 3e3],
    masses: None,
};
