//! `xpbd-godot-jolt`: Godot's mapping today ([`godot_edge_compliance`] at the default stiffness 0.5):
//! `alpha_d = 8e-5` m/N **whatever E, nu, dt, nit or the mesh**. Godot makes edge constraints only (face
//! edges and shear diagonals, no tetrahedron volume), so `alpha_v` is [`NO_VOLUME_COMPLIANCE`] (the
//! search box's upper edge: practically no volume stiffness).

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "xpbd-godot-jolt",
    model: ModelKind::XPBD,
    description: "alpha_d = 1 / max(0.5^3 1e5, 1e-6) = 8e-5 m/N (Godot's default stiffness 0.5); no volume \
                  constraint",
    source: "Godot 4.4 to 4.6 JoltSoftBody3D (godot-jolt PR #830); ignores E and nu",
    units: &["m/N", "m^6/J"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![godot_edge_compliance(GODOT_DEFAULT_STIFFNESS), NO_VOLUME_COMPLIANCE])
}
