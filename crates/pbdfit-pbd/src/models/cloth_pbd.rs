//! Cloth by the reference library's PBD: distance constraints on the sheet's edges and dihedral bending
//! on its hinges (`cloth/distance.rs`, `cloth/dihedral.rs`; the library's `addClothConstraints` method 1
//! with `addBendingConstraints` method 1).

use crate::cloth::{ClothRule, ClothTerm};
use crate::{Fold, ModelDef, ParameterSpec};

/// The bending stiffness of a PBD hinge, dimensionless, searched on [0, 1].
pub(crate) const BENDING: ParameterSpec =
    ParameterSpec::stiffness("kb", "bending stiffness: the fraction of a hinge's bending error removed per projection");

/// Distance stiffness `kd` and dihedral stiffness `kb`.
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::stiffness("kd", "distance stiffness: the fraction of an edge's length error removed per projection"),
    BENDING,
];

/// Edges then hinges, each multiplied by its stiffness.
pub(crate) static CLOTH_PBD: ModelDef = ModelDef {
    name: "cloth-pbd",
    description: "sheets: the reference library's PBD cloth, edge distances (kd) and dihedral bending (kb)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, _| ClothRule { terms: [Some(ClothTerm::Distance(p[0])), Some(ClothTerm::Dihedral(p[1]))], volume: None }),
    example: &[0.9, 0.1],
    masses: None,
};
