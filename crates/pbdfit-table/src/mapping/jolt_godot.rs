//! `jolt-godot`: what a Godot 4.4 to 4.6 SoftBody3D at its default stiffness 0.5 runs in Jolt, in the
//! `jolt` profile's terms: edge compliance [`godot_edge_compliance`]`(0.5) = 8e-5` m/N, no volume
//! constraint. Godot's `simulation_precision` is `nit` (Jolt's iterations) and its physics tick `dt`.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "jolt-godot",
    model: ModelKind::JOLT,
    description: "edge_compliance = 1 / max(0.5^3 1e5, 1e-6) = 8e-5 m/N; no volume constraint (Godot makes none)",
    source: "Godot 4.4 to 4.6 JoltSoftBody3D at its default stiffness 0.5; ignores E and nu",
    units: &["m/N", "m^6/J"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![godot_edge_compliance(GODOT_DEFAULT_STIFFNESS), JOLT_NO_VOLUME_COMPLIANCE])
}
