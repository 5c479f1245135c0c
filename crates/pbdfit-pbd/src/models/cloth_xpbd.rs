//! Cloth by the reference library's XPBD: distance constraints with compliance on the sheet's edges and
//! isometric bending with compliance on its hinges (`cloth/distance_xpbd.rs`, `cloth/isometric_xpbd.rs`;
//! `addClothConstraints` method 4 with `addBendingConstraints` method 3). The library takes stiffnesses
//! `1 / alpha`. With `volume=on` (its settings and the spring potentials', `cloth/volume.rs`) a closed
//! sheet also keeps its enclosed volume by the global volume constraint.

use crate::cloth::{ClothRule, ClothTerm, VOLUME_SETTINGS, VolumeTerm, xpbd_alpha_tilde};
use crate::models::xpbd::distance_compliance;
use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SpringPotential};

/// The compliance of the isometric bending constraint (dimensionless `C`, energy `C^2 / (2 alpha_b)`).
pub(crate) const BENDING_COMPLIANCE: ParameterSpec = ParameterSpec::log10(
    "alpha_b",
    "1/J",
    "bending compliance (inverse stiffness of the isometric bending constraint)",
    (1e-8, 1e4),
);

/// The compliances.
const PARAMETERS: [ParameterSpec; 2] = [distance_compliance("m/N", (1e-10, 1e2)), BENDING_COMPLIANCE];

/// The bending term with `alpha_b` at `settings.dt`.
pub(crate) fn bending(alpha_b: f64, settings: RuleSettings) -> ClothTerm {
    ClothTerm::IsometricXpbd(xpbd_alpha_tilde(alpha_b, settings.dt))
}

/// The rule of an XPBD spring potential on edges with `alpha_d`, `alpha_b` at `settings.dt`
/// (`cloth-xpbd-hookean`, `-stvk`, `-morse`: the solids' potentials, `cloth/edge_springs.rs`).
pub(crate) fn springs_rule(p: &[f64], settings: RuleSettings, potential: SpringPotential) -> ClothRule {
    let dt2 = settings.dt * settings.dt;
    ClothRule {
        terms: [Some(ClothTerm::EdgeSpring((potential, p[0] / dt2))), Some(bending(p[1], settings))],
        volume: VolumeTerm::from_settings(settings),
    }
}

/// Edges then hinges.
pub(crate) static CLOTH_XPBD: ModelDef = ModelDef {
    name: "cloth-xpbd",
    description: "sheets: XPBD cloth, edge distances (alpha_d, m/N) and isometric bending (alpha_b, 1/J)",
    parameters: &PARAMETERS,
    settings: &VOLUME_SETTINGS,
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, s| ClothRule {
        terms: [Some(ClothTerm::DistanceXpbd(xpbd_alpha_tilde(p[0], s.dt))), Some(bending(p[1], s))],
        volume: VolumeTerm::from_settings(s),
    }),
    example: &[1e-6, 1e-2],
    masses: None,
};
