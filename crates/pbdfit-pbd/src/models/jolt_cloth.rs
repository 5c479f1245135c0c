//! `jolt-cloth`: Jolt Physics 5.6's soft body on a sheet (`engines/jolt_cloth.rs`), the body Godot's
//! SoftBody3D and Jolt's `SoftBodySharedSettings::CreateConstraints` make of a triangle mesh with bend type
//! `Distance`; the parameters are the compliances of Jolt's `VertexAttributes`.

use crate::engines::{EngineConstants, EngineRule, jolt_cloth};
use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SettingSpec};

/// `VertexAttributes::mCompliance`, `mShearCompliance` and `mBendCompliance` (m/N, each of an edge
/// constraint `C = l - l0`).
const PARAMETERS: [ParameterSpec; 3] = [
    ParameterSpec::log10("compliance", "m/N", "Jolt's VertexAttributes::mCompliance: the face edges", (1e-10, 1e2)),
    ParameterSpec::log10(
        "shear_compliance",
        "m/N",
        "Jolt's VertexAttributes::mShearCompliance: the quads' diagonals",
        (1e-10, 1e2),
    ),
    ParameterSpec::log10(
        "bend_compliance",
        "m/N",
        "Jolt's VertexAttributes::mBendCompliance: the Distance bend edges across non-quad face pairs",
        (1e-10, 1e4),
    ),
];

/// `SoftBodyCreationSettings::mLinearDamping` and `mGravityFactor`.
const SETTINGS: [SettingSpec; 2] = [
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
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let h = s.dt / s.nit.max(1) as f64;
    EngineRule {
        substeps: s.nit.max(1),
        passes: 1,
        velocity_factor: (1.0 - s.settings[0] * h).max(0.0),
        gravity_factor: s.settings[1],
        constants: EngineConstants::JoltCloth(jolt_cloth::JoltCloth {
            compliance: p[0],
            shear_compliance: p[1],
            bend_compliance: p[2],
        }),
    }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "SoftBodySharedSettings::VertexAttributes(/* mCompliance */ {:.6e}, /* mShearCompliance */ {:.6e}, \
             /* mBendCompliance */ {:.6e}); CreateConstraints(&attributes, 1, EBendType::Distance) on the sheet's \
             triangles, then Optimize()",
            p[0], p[1], p[2]
        ),
        format!(
            "SoftBodyCreationSettings: mNumIterations = {}, mLinearDamping = {}, mGravityFactor = {}; \
             PhysicsSystem::Update(dt = {}, 1)",
            s.nit,
            s.settings[0],
            s.settings[1],
            pbdfit_mesh::display::number(s.dt)
        ),
    ]
}

/// Jolt's soft body on a sheet.
pub(crate) static JOLT_CLOTH: ModelDef = ModelDef {
    name: "jolt-cloth",
    description: "sheets: Jolt 5.6 soft body from CreateConstraints (bend type Distance): compliance, \
                  shear_compliance, bend_compliance (m/N)",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Jolt's mNumIterations: substeps of dt/nit, one Gauss-Seidel pass each",
    usage,
    rule: Fold::SheetEngine(rule),
    example: &[1e-4, 1e-4, 1e-2],
    // Jolt takes each vertex's inverse mass as given (SoftBodySharedSettings::Vertex::mInvMass): no convention.
    masses: None,
};
