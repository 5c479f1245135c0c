//! PBD with the true volume gradient `dV/dp` (the textbook step, six times the library's).

use super::pbd::{STIFFNESS, pbd_rule};
use crate::{Fold, ModelDef};

/// As `pbd`, with the volume gradient `dV/dp`.
pub(crate) static PBD_TEXTBOOK_VOLUME: ModelDef = ModelDef {
    name: "pbd-textbook-volume",
    description: "PBD with the true volume gradient dV/dp",
    parameters: &STIFFNESS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(|p, _| pbd_rule(p[0], p[1], 1.0 / 6.0)),
    example: &[0.9, 0.3],
    masses: None,
};
