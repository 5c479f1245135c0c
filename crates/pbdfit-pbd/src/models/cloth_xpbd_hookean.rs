//! Cloth by XPBD Hookean springs on the sheet's edges (the solids' `xpbd-hookean` constraint function,
//! `cloth/edge_springs.rs`) with the library's XPBD isometric bending on its hinges. Not in the
//! reference library.

use crate::models::cloth_xpbd::{BENDING_COMPLIANCE, springs_rule};
use crate::models::xpbd::distance_compliance;
use crate::{Fold, ModelDef, ParameterSpec, SpringPotential};

/// The edge compliance in the unit and box of the solids' `xpbd-hookean`, and the bending compliance.
const PARAMETERS: [ParameterSpec; 2] = [distance_compliance("m^4/J", (1e-16, 1e2)), BENDING_COMPLIANCE];

/// Hookean springs on edges, then hinges.
pub(crate) static CLOTH_XPBD_HOOKEAN: ModelDef = ModelDef {
    name: "cloth-xpbd-hookean",
    description: "sheets: XPBD Hookean edge springs (alpha_d) and isometric bending (alpha_b)",
    parameters: &PARAMETERS,
    settings: &crate::cloth::VOLUME_SETTINGS,
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, s| springs_rule(p, s, SpringPotential::Hookean)),
    example: &[1e-6, 1e-2],
    masses: None,
};
