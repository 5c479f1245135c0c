//! `genesis-cloth-defaults`: what a Genesis 1.4.5 user who does not set the compliances runs, `PBD.Cloth`'s
//! defaults (`genesis/engine/materials/PBD/cloth.py`): `stretch_compliance = 1e-7` m/N and
//! `bending_compliance = 1e-5` (rad/(N m) in the `genesis-cloth` profile's terms), whatever the material,
//! thickness or mesh: a "mapping" that reads neither E, nu nor h. Genesis documents no rule from a material
//! to its cloth's compliances.

use super::*;

/// `PBD.Cloth`'s default `stretch_compliance` (m/N).
pub const GENESIS_CLOTH_STRETCH_COMPLIANCE: f64 = 1e-7;

/// `PBD.Cloth`'s default `bending_compliance` (rad/(N m)).
pub const GENESIS_CLOTH_BENDING_COMPLIANCE: f64 = 1e-5;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "genesis-cloth-defaults",
    model: ModelKind::GENESIS_CLOTH,
    description: "stretch_compliance = 1e-7 m/N, bending_compliance = 1e-5 rad/(N m): PBD.Cloth's defaults; ignores \
                  E, nu and h",
    source: "Genesis 1.4.5 gs.materials.PBD.Cloth's default arguments",
    units: &["m/N", "rad/(N m)"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![GENESIS_CLOTH_STRETCH_COMPLIANCE, GENESIS_CLOTH_BENDING_COMPLIANCE])
}
