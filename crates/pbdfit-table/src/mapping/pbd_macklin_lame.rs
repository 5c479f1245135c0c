//! `pbd-macklin-lame`: `xpbd-macklin-lame`'s compliances turned into PBD stiffness as
//! `pbd-van-gelder-bulk` does.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "pbd-macklin-lame",
    model: ModelKind::PBD,
    description: "k = 1 - (alpha~ / (s + alpha~))^(1/nit) from xpbd-macklin-lame's compliances",
    source: "XPBD per-step fraction with Mueller et al. 2007's iteration correction",
    units: &["1", "1"],
    uses_young: true,
    uses_step: true,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    pbd_from(super::xpbd_macklin_lame::map, q, g)
}
