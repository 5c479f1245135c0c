//! `newton-xpbd`: NVIDIA Newton 1.8's `SolverXPBD` on tetrahedra (`engines/newton.rs`), with the
//! parameters Newton's `ModelBuilder.add_soft_mesh` / `add_tetrahedron` take.

use pbdfit_mesh::MassModel;

use crate::engines::{EngineConstants, EngineRule, newton};
use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SettingSpec};

/// `k_mu`, `k_lambda` in Pa: Newton's tetrahedron material (`tet_materials[:, 0..2]`).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10(
        "k_mu",
        "Pa",
        "Newton's k_mu: stiffness of C_dev = tr(F^T F) - 3 (compliance 1/(V0 k_mu))",
        (1e-1, 1e10),
    ),
    ParameterSpec::log10(
        "k_lambda",
        "Pa",
        "Newton's k_lambda: stiffness of C_vol = det F - 1 (compliance 1/(V0 k_lambda))",
        (1e-1, 1e10),
    ),
];

/// `SolverXPBD(soft_body_relaxation=...)` and the tetrahedra's `k_damp`.
const SETTINGS: [SettingSpec; 2] = [
    SettingSpec::new(
        "relaxation",
        "1",
        "SolverXPBD's soft_body_relaxation: the factor on every tetrahedron's dlambda",
        0.9,
    )
    .within(0.01, 1.0),
    SettingSpec::new(
        "k_damp",
        "1",
        "add_soft_mesh's k_damp (Rayleigh damping of the tetrahedra; it moves the rest state)",
        0.0,
    )
    .within(0.0, 1e3)
    .damping(),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let (relaxation, k_damp) = (s.settings[0], s.settings[1]);
    EngineRule {
        substeps: 1,
        passes: s.nit,
        velocity_factor: 1.0,
        gravity_factor: 1.0,
        constants: EngineConstants::NewtonXpbd(newton::NewtonXpbd { relaxation, k_damp, k_mu: p[0], k_lambda: p[1] }),
    }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!("builder.add_soft_mesh(..., k_mu={:.6e}, k_lambda={:.6e}, k_damp={})", p[0], p[1], s.settings[1]),
        format!(
            "solver = newton.solvers.SolverXPBD(model, iterations={}, soft_body_relaxation={})",
            s.nit, s.settings[0]
        ),
        format!("solver.step(state_in, state_out, control, contacts, dt={})", s.dt),
    ]
}

/// Newton 1.8's XPBD on tetrahedra.
pub(crate) static NEWTON_XPBD: ModelDef = ModelDef {
    name: "newton-xpbd",
    description: "NVIDIA Newton 1.8 SolverXPBD on tetrahedra: k_mu, k_lambda (Pa), Jacobi, relaxation 0.9",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "SolverXPBD's iterations per step (Jacobi passes over every tetrahedron)",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e4, 1e4],
    // add_soft_mesh gives each corner a quarter of its tetrahedron's density x volume.
    masses: Some(MassModel::Lumped),
};
