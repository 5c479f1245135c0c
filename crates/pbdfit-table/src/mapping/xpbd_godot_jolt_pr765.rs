//! `xpbd-godot-jolt-pr765`: the linear constant of godot-jolt PR #765's first draft ("Added support for
//! SoftBody3D", `jolt_soft_body_impl_3d.cpp`), which pbdfit shipped as `xpbd-godot-jolt` until it was
//! found to be in no release: `stiffness = max(k 1e5, 1e-5)` N/m, so `alpha_d = 2e-5` m/N at `k = 0.5`.
//! (#765 as merged used `k^3 1e6`, #830 changed it to `k^3 1e5`, which Godot 4.4 to 4.6 ship.) Kept so that
//! earlier results can be compared.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "xpbd-godot-jolt-pr765",
    model: ModelKind::XPBD,
    description: "alpha_d = 1 / (0.5 * 1e5) = 2e-5 m/N (linear in the stiffness); no volume constraint",
    source: "godot-jolt PR #765's first draft, in no release (pbdfit's xpbd-godot-jolt before); ignores E and nu",
    units: &["m/N", "m^6/J"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![1.0 / (GODOT_DEFAULT_STIFFNESS * GODOT_JOLT_FACTOR).max(1e-5), NO_VOLUME_COMPLIANCE])
}
