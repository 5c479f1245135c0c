//! `pbd-fixed`: `kd = kv = 1`, the plain projection (Mueller et al. 2007: stiffness 1 removes the whole
//! violation; the untuned setting). A fixed constant: it ignores E, nu, dt, nit and the mesh.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "pbd-fixed",
    model: ModelKind::PBD,
    description: "kd = kv = 1 (the plain projection); ignores E, nu, dt, nit",
    source: "Mueller et al. 2007 (stiffness 1); a fixed constant",
    units: &["1", "1"],
    uses_young: false,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(_: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![1.0, 1.0])
}
