//! `genesis-pbd`: Genesis 1.4.5's PBD elastic solver (`engines/genesis.rs`), with the compliances of
//! `gs.materials.PBD.Elastic`.

use pbdfit_mesh::MassModel;

use crate::engines::{EngineConstants, EngineRule, genesis};
use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SettingSpec};

/// `stretch_compliance` (m/N) and `volume_compliance` of `gs.materials.PBD.Elastic` (Genesis's default for
/// both is 0, which the log box leaves out: give it with `--param`).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10("stretch_compliance", "m/N", "PBD.Elastic's stretch_compliance (C = l - l0)", (1e-10, 1e2)),
    ParameterSpec::log10(
        "volume_compliance",
        "m^6/J",
        "PBD.Elastic's volume_compliance (C = V - V0; its correction carries an extra |grad C|^2)",
        (1e-14, 1e2),
    ),
];

/// `gs.materials.PBD.Elastic`'s relaxations and `gs.options.PBDOptions`'s iteration counts.
const SETTINGS: [SettingSpec; 4] = [
    SettingSpec::fraction(
        "stretch_relaxation",
        "PBD.Elastic's stretch_relaxation: the factor on every edge correction",
        0.1,
    ),
    SettingSpec::fraction(
        "volume_relaxation",
        "PBD.Elastic's volume_relaxation: the factor on every volume correction",
        0.1,
    ),
    SettingSpec::count(
        "max_stretch_solver_iterations",
        "PBDOptions.max_stretch_solver_iterations: Jacobi passes over the edges per substep",
        4.0,
        1.0,
    ),
    SettingSpec::count(
        "max_volume_solver_iterations",
        "PBDOptions.max_volume_solver_iterations: Jacobi passes over the tetrahedra per substep",
        1.0,
        0.0,
    ),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    EngineRule {
        substeps: s.nit.max(1),
        passes: 1,
        velocity_factor: 1.0,
        gravity_factor: 1.0,
        constants: EngineConstants::GenesisPbd(genesis::GenesisPbd {
            stretch_compliance: p[0],
            volume_compliance: p[1],
            stretch_relaxation: s.settings[0],
            volume_relaxation: s.settings[1],
            stretch_iterations: s.settings[2] as usize,
            volume_iterations: s.settings[3] as usize,
        }),
    }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "gs.materials.PBD.Elastic(stretch_compliance={:.6e}, volume_compliance={:.6e}, stretch_relaxation={}, \
             volume_relaxation={})",
            p[0], p[1], s.settings[0], s.settings[1]
        ),
        format!(
            "gs.options.PBDOptions(max_stretch_solver_iterations={}, max_volume_solver_iterations={})",
            s.settings[2], s.settings[3]
        ),
        format!("gs.options.SimOptions(dt={}, substeps={})", s.dt, s.nit),
    ]
}

/// Genesis's PBD elastic solver.
pub(crate) static GENESIS_PBD: ModelDef = ModelDef {
    name: "genesis-pbd",
    description: "Genesis 1.4.5 PBD elastic: stretch_compliance (m/N), volume_compliance; Jacobi, relaxation 0.1, uniform masses",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Genesis's substeps (SimOptions.substeps) per step of dt",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e-4, 1e-6],
    // Genesis gives every particle the same mass: rho x the morph's volume over the particle count.
    masses: Some(MassModel::Uniform),
};
