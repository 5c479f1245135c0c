//! Cloth by the reference library's PBD with isometric bending (Bergou et al. 2006): distance
//! constraints on the sheet's edges, the quadratic bending energy on its hinges (`cloth/distance.rs`,
//! `cloth/isometric.rs`; `addBendingConstraints` method 2).

use crate::cloth::{ClothRule, ClothTerm};
use crate::{Fold, ModelDef, ParameterSpec};

/// Distance stiffness `kd` and isometric bending stiffness `kb`.
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::stiffness("kd", "distance stiffness: the fraction of an edge's length error removed per projection"),
    ParameterSpec::stiffness("kb", "bending stiffness: the factor on a hinge's isometric bending correction"),
];

/// Edges then hinges.
pub(crate) static CLOTH_PBD_ISOMETRIC: ModelDef = ModelDef {
    name: "cloth-pbd-isometric",
    description: "sheets: PBD cloth with isometric bending (Bergou), edge distances (kd) and bending (kb)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, _| ClothRule { terms: [Some(ClothTerm::Distance(p[0])), Some(ClothTerm::Isometric(p[1]))], volume: None }),
    example: &[0.9, 0.1],
    masses: None,
};
