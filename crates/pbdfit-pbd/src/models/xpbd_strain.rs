//! XPBD on per-tetrahedron Green-strain constraints (`tetrahedra/`): no edge or volume constraints; per
//! tetrahedron the volumetric strain `sqrt(V0) tr E` with compliance `alpha_vol` and the deviatoric strain's
//! norm `sqrt(V0) |dev E|` with `alpha_dev`, solved together. Their energy is St. Venant-Kirchhoff's with
//! bulk modulus `1 / alpha_vol` and shear modulus `1 / (2 alpha_dev)`, so a material's `E`, `nu` give the
//! closed form `alpha_vol = 3 (1 - 2 nu) / E`, `alpha_dev = (1 + nu) / E` at convergence (many iterations,
//! small dt); the fit says what dt, nit and the mesh make of it. Constraints on the strain tensor per
//! tetrahedron follow Mueller et al.'s strain based dynamics (2014); invariant constraints with
//! compliances `1 / mu`, `1 / lambda` solved together per tetrahedron are Macklin and Mueller's (2021).

use crate::{
    Fold, MAX_TETRAHEDRON_TERMS, ModelDef, ParameterSpec, ProjectionRule, RuleSettings, SpringPotential,
    TetrahedronConstraint, TetrahedronTerm,
};

/// The compliances: `C` is in m^(3/2), so both are in m^3/J (1/Pa). The boxes hold `1 / (2 mu)` and
/// `1 / K` for E from 1e2 to 1e7 Pa and nu up to 0.49 with margin on both sides.
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10("alpha_dev", "m^3/J", "deviatoric strain compliance (1 / (2 mu))", (1e-12, 1e2)),
    ParameterSpec::log10("alpha_vol", "m^3/J", "volumetric strain compliance (1 / K)", (1e-12, 1e2)),
];

fn rule(p: &[f64], settings: RuleSettings) -> ProjectionRule {
    let dt2 = settings.dt * settings.dt;
    let term = |constraint, alpha: f64| Some(TetrahedronTerm { constraint, alpha_tilde: alpha / dt2, constant: 0.0 });
    let mut tetrahedra = [None; MAX_TETRAHEDRON_TERMS];
    tetrahedra[0] = term(TetrahedronConstraint::StrainDeviatoric, p[0]);
    tetrahedra[1] = term(TetrahedronConstraint::StrainVolumetric, p[1]);
    ProjectionRule::Xpbd {
        distance_potential: SpringPotential::Stretch,
        distance_alpha_tilde: 0.0,
        volume_alpha_tilde: 0.0,
        volume_gradient_scale: 1.0 / 6.0,
        distances: false,
        volumes: false,
        tetrahedra,
    }
}

/// XPBD, Green-strain constraints per tetrahedron.
pub(crate) static XPBD_STRAIN: ModelDef = ModelDef {
    name: "xpbd-strain",
    description: "XPBD with per-tetrahedron Green-strain constraints (alpha_dev = 1/(2 mu), alpha_vol = 1/K, m^3/J)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Projection(rule),
    example: &[1e-3, 1e-3],
    masses: None,
};
