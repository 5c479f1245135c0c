//! `pybullet-neohookean`: PyBullet's deformable neo-Hookean body (`loadSoftBody(..., useNeoHookean=1)`,
//! Bullet 3.2x `btDeformableNeoHookeanForce`), whose rest state is the static equilibrium of its energy
//! (`mass_spring/neo_hookean.rs`) under the load, solved by Newton like the mass-spring models. PyBullet
//! integrates that energy implicitly; its damping (`NeoHookeanDamping`), time step and solver iterations
//! change the path to rest, not the rest state, so `dt` and `nit` are ignored. The masses are PyBullet's:
//! `mass=` spreads the body's mass evenly over the nodes (`uniform`, [`ModelDef::masses`](crate::ModelDef),
//! unless a run or its scene file gives others).

use pbdfit_mesh::MassModel;

use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SpringLaw};

/// `NeoHookeanMu`, `NeoHookeanLambda` (Pa), on the engine profiles' box.
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10(
        "mu",
        "Pa",
        "loadSoftBody's NeoHookeanMu (the law's small-strain shear modulus is 3/4 of it)",
        (1e-1, 1e10),
    ),
    ParameterSpec::log10("lambda", "Pa", "loadSoftBody's NeoHookeanLambda", (1e-1, 1e10)),
];

fn usage(p: &[f64], _: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "p.loadSoftBody(\"body.vtk\", mass=..., useNeoHookean=1, NeoHookeanMu={:.6e}, NeoHookeanLambda={:.6e}, \
             NeoHookeanDamping=...)",
            p[0], p[1]
        ),
        "# the rest state is the static equilibrium: NeoHookeanDamping, the time step and the solver iterations \
         do not move it"
            .to_string(),
    ]
}

/// PyBullet's neo-Hookean deformable.
pub(crate) static PYBULLET_NEOHOOKEAN: ModelDef = ModelDef {
    name: "pybullet-neohookean",
    description: "PyBullet 3.2 deformable stable neo-Hookean (mu, lambda in Pa); rest state by Newton, dt and nit ignored, uniform masses",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: "ignored: the rest state is the static equilibrium of PyBullet's energy",
    usage,
    rule: Fold::Springs(|p, _| SpringLaw { mu: p[0], lambda: p[1], ..SpringLaw::NONE }),
    example: &[3e3, 5e3],
    // loadSoftBody(mass=...) spreads the mass evenly over the nodes.
    masses: Some(MassModel::Uniform),
};
