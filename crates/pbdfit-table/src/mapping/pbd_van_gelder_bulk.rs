//! `pbd-van-gelder-bulk`: `xpbd-van-gelder-bulk`'s compliances turned into PBD stiffness by the
//! XPBD-equivalent per-step fraction and Mueller et al. 2007's iteration-count correction (module docs).

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "pbd-van-gelder-bulk",
    model: ModelKind::PBD,
    description: "k = 1 - (alpha~ / (s + alpha~))^(1/nit) from xpbd-van-gelder-bulk's compliances",
    source: "XPBD per-step fraction with Mueller et al. 2007's iteration correction",
    units: &["1", "1"],
    uses_young: true,
    uses_step: true,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    pbd_from(super::xpbd_van_gelder_bulk::map, q, g)
}
