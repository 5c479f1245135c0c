//! `jolt-cloth-godot`: what a Godot SoftBody3D on a triangle mesh runs in Jolt, in the `jolt-cloth`
//! profile's terms. Godot's `JoltSoftBody3D::_ref_shared_data` (modules/jolt_physics/objects/
//! jolt_soft_body_3d.cpp, Godot 4.4 to 4.6) sets `mCompliance = mShearCompliance = 1 / max(k^3 1e5, 1e-6)`
//! for its 0-1 `linear_stiffness` `k` ("we crudely map one to the other with an arbitrary constant", its
//! comment says) and calls `CreateConstraints` with `EBendType::None`: no bend constraints. With the default
//! `k = 0.5` that is `8e-5` m/N for the edges and the shear diagonals; "no bend constraint" is
//! `bend_compliance` at the top of the profile's box ([`JOLT_NO_BEND_COMPLIANCE`]). It is the only
//! documented rule Godot has for a sheet, and it reads neither E, nu, h nor the mesh.

use super::*;

/// `jolt-cloth`'s bend compliance standing for Godot's "no bend constraints" (m/N): the top of its box, at
/// which `alpha / dt^2` is at least 1e8 m/N for dt <= 0.01 s.
pub const JOLT_NO_BEND_COMPLIANCE: f64 = 1e4;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "jolt-cloth-godot",
    model: ModelKind::JOLT_CLOTH,
    description: "compliance = shear_compliance = 1 / max(0.5^3 1e5, 1e-6) = 8e-5 m/N; no bend constraints \
                  (bend_compliance 1e4 m/N)",
    source: "Godot 4.4 to 4.6 JoltSoftBody3D at its default stiffness 0.5, EBendType::None; ignores E, nu and h",
    units: &["m/N", "m/N", "m/N"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    let edge = godot_edge_compliance(GODOT_DEFAULT_STIFFNESS);
    Ok(vec![edge, edge, JOLT_NO_BEND_COMPLIANCE])
}
