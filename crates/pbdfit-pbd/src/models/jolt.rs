//! `jolt`: Jolt Physics 5.6's soft body with edge and volume constraints (`engines/jolt.rs`), as Godot's
//! SoftBody3D and crates.io `oxijolt` run it; the parameters are the compliances Jolt's
//! `SoftBodySharedSettings::Edge` and `::Volume` take.

use crate::engines::{CreationOrder, EngineConstants, EngineRule, creation, jolt};
use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SettingSpec};

/// Jolt's `Edge::mCompliance` (m/N, `C = l - l0`) and `Volume::mCompliance` (`C = |6V| - 6V0`: 36 times
/// the compliance of `C = V - V0`, in m^6/J).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10("edge_compliance", "m/N", "Jolt's Edge::mCompliance (C = l - l0)", (1e-10, 1e2)),
    ParameterSpec::log10(
        "volume_compliance",
        "m^6/J",
        "Jolt's Volume::mCompliance (C = |6V| - 6V0: 36 x the compliance of C = V - V0)",
        (1e-12, 1e4),
    ),
];

/// `SoftBodyCreationSettings::mLinearDamping` and `mGravityFactor`, and the order the edges are created in
/// (`engines/creation.rs`: Jolt's `Optimize` reads it).
const SETTINGS: [SettingSpec; 3] = [
    SettingSpec::new(
        "linear_damping",
        "1/s",
        "SoftBodyCreationSettings::mLinearDamping: v <- (v + g h) max(0, 1 - c h) each substep, so it scales the \
         gravity the rest state feels",
        0.1,
    )
    .within(0.0, 1e6)
    .damping(),
    SettingSpec::new("gravity_factor", "1", "SoftBodyCreationSettings::mGravityFactor: the factor on gravity", 1.0)
        .within(0.0, 1e3),
    SettingSpec::new(
        creation::SETTING,
        "1",
        "the order the Edge constraints are created in, which Optimize sorts by after the distance to a kinematic \
         vertex and the lowest vertex index: 0 (profile) pbdfit's, each edge first met walking the tetrahedra; -1 \
         (sorted) the (min, max) pairs sorted; a seed >= 1 a shuffle of pbdfit's (simulate --json lists it)",
        0.0,
    )
    .within(-1.0, creation::MAX_SEED)
    .whole()
    .with_words(creation::WORDS),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let h = s.dt / s.nit.max(1) as f64;
    EngineRule {
        substeps: s.nit.max(1),
        passes: 1,
        velocity_factor: (1.0 - s.settings[0] * h).max(0.0),
        gravity_factor: s.settings[1],
        constants: EngineConstants::Jolt(jolt::Jolt {
            edge_compliance: p[0],
            volume_compliance: p[1],
            order: CreationOrder::from_setting(s.settings[2]),
        }),
    }
}

/// Godot's `SoftBody3D.linear_stiffness` k in [0, 1] maps to the stiffness `max(k^3 1e5, 1e-6)` N/m
/// (godot-jolt #830, Godot 4.4 to 4.6: `JoltSoftBody3D`), so to the edge compliance `1 / max(k^3 1e5, 1e-6)`.
/// The k that gives `compliance`, or `None` where no k in [0, 1] does.
pub fn godot_stiffness_for(compliance: f64) -> Option<f64> {
    let k = (1.0 / (compliance * 1e5)).cbrt();
    (compliance > 0.0 && k.is_finite() && (0.0..=1.0).contains(&k)).then_some(k)
}

/// Godot makes no volume constraints: its body is Jolt's with a volume compliance so large that the volume
/// constraint moves nothing (its correction is about `C h^2 / compliance`, 1e-34 of `C` at h = 0.01 s).
pub(crate) const GODOT_NO_VOLUME: f64 = 1e30;

/// The parameters of the body Godot's line makes of fitted parameters `p`: the `linear_stiffness` as the
/// line prints it (six decimals), or clamped to [0, 1] where no value gives the fitted edge compliance
/// (1 below a compliance of 1e-5, 0 above), mapped back to an edge compliance, and no volume constraint.
pub(crate) fn godot_body(p: &[f64]) -> Vec<f64> {
    let k = match godot_stiffness_for(p[0]) {
        Some(k) => format!("{k:.6}").parse::<f64>().unwrap_or(k),
        None if p[0] < 1e-5 => 1.0,
        None => 0.0,
    };
    vec![1.0 / (k.powi(3) * 1e5).max(1e-6), GODOT_NO_VOLUME]
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    let godot = match godot_stiffness_for(p[0]) {
        Some(k) => format!(
            "Godot SoftBody3D: linear_stiffness = {k:.6} (compliance 1/max(k^3 1e5, 1e-6)), simulation_precision = {}, \
             damping_coefficient = {}; Godot makes no volume constraints, so its body lacks the fitted volume term",
            s.nit, s.settings[0]
        ),
        None => format!(
            "Godot SoftBody3D: no linear_stiffness in [0, 1] gives edge compliance {:.3e} m/N (k = 1 gives 1e-5, the \
             stiffest; k -> 0 the softest, 1e6)",
            p[0]
        ),
    };
    let order = CreationOrder::from_setting(s.settings[2]);
    vec![
        format!(
            "SoftBodySharedSettings::Edge(v0, v1, /* compliance */ {:.6e})  // every tetrahedron edge, created in the \
             {} order (--setting {}={}): {}",
            p[0],
            order.name(),
            creation::SETTING,
            order.setting(),
            order.how()
        ),
        format!(
            "SoftBodySharedSettings::Volume(v0, v1, v2, v3, /* compliance */ {:.6e})  // every tetrahedron, in mesh order",
            p[1]
        ),
        format!(
            "SoftBodyCreationSettings: mNumIterations = {}, mLinearDamping = {}, mGravityFactor = {}; \
             PhysicsSystem::Update(dt = {}, 1)",
            s.nit,
            s.settings[0],
            s.settings[1],
            pbdfit_mesh::display::number(s.dt)
        ),
        godot,
    ]
}

/// Jolt's soft body.
pub(crate) static JOLT: ModelDef = ModelDef {
    name: "jolt",
    description: "Jolt 5.6 soft body (Godot's SoftBody3D): edge_compliance (m/N), volume_compliance (Jolt's C = |6V| - 6V0)",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Jolt's mNumIterations: substeps of dt/nit, one Gauss-Seidel pass each",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e-4, 1e-4],
    // Jolt takes each vertex's inverse mass as given (SoftBodySharedSettings::Vertex::mInvMass): no convention.
    masses: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Godot's line makes another body than the fit's: its stiffness printed to six decimals (or clamped at
    /// 1 where the fitted edge compliance is stiffer than any k gives) and no volume constraint.
    #[test]
    fn godots_body_is_the_printed_stiffness_without_volume() {
        let body = godot_body(&[1.262783e-5, 8.574221e-5]);
        let k: f64 = 0.925175;
        assert_eq!(body, vec![1.0 / (k.powi(3) * 1e5), GODOT_NO_VOLUME]);
        assert!((body[0] / 1.262783e-5 - 1.0).abs() < 1e-5);
        assert_eq!(godot_body(&[1e-8, 1e-3]), vec![1e-5, GODOT_NO_VOLUME]);
        assert_eq!(godot_body(&[1e7, 1e-3]), vec![1e6, GODOT_NO_VOLUME]);
    }
}
