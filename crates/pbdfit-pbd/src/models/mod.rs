//! The model registry: every model kind pbdfit knows, one file each.
//!
//! **Adding a model** is one file in this folder (a `static` [`ModelDef`](crate::ModelDef): name,
//! parameters with units, scales and default boxes, and the function that folds the parameter values
//! into a [`ModelRule`](crate::ModelRule)) plus one registration line: its `mod` line and
//! entry in [`MODELS`] below. The CPU sweep and the GPU encoder both read the rule, the command line
//! and the study files find the model by name, and the fit searches its parameters by their specs.

mod genesis_pbd;
mod jolt;
mod mass_spring;
mod mass_spring_volume;
mod newton_xpbd;
mod pbd;
mod pbd_linearised;
mod pbd_textbook_volume;
mod pybullet_neohookean;
mod xpbd;
mod xpbd_hookean;
mod xpbd_morse;
mod xpbd_strain;
mod xpbd_stvk;

use crate::ModelDef;

/// Where a model's paste lines give the engine other parameters than the fitted ones: each line's name
/// and the parameter values it makes (see [`crate::ModelKind::pasted_bodies`]).
pub(crate) fn pasted_bodies(name: &str, values: &[f64]) -> Vec<(&'static str, Vec<f64>)> {
    match name {
        "jolt" => vec![("Godot SoftBody3D", jolt::godot_body(values))],
        _ => Vec::new(),
    }
}

/// Every registered model, in the order the command line lists them.
pub(crate) static MODELS: &[&ModelDef] = &[
    &pbd::PBD,
    &pbd_linearised::PBD_LINEARISED,
    &pbd_textbook_volume::PBD_TEXTBOOK_VOLUME,
    &xpbd::XPBD,
    &xpbd_hookean::XPBD_HOOKEAN,
    &xpbd_stvk::XPBD_STVK,
    &xpbd_morse::XPBD_MORSE,
    &xpbd_strain::XPBD_STRAIN,
    &mass_spring::MASS_SPRING,
    &mass_spring_volume::MASS_SPRING_VOLUME,
    &newton_xpbd::NEWTON_XPBD,
    &jolt::JOLT,
    &genesis_pbd::GENESIS_PBD,
    &pybullet_neohookean::PYBULLET_NEOHOOKEAN,
];
