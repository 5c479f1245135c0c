//! `xpbd-van-gelder-bulk`: `alpha_d` from Van Gelder ([`van_gelder_alpha_d`]), `alpha_v = V0 / K` with
//! `K = E / (3 (1 - 2 nu))` and `V0` the body's mean rest tetrahedron volume (the energy matching in the
//! module docs). The "volume compliance from the bulk modulus `1 / (K V0)`" is the compliance of
//! the volume *strain* `(V - V0) / V0`; for pbdfit's `C = V - V0` it is `V0^2 / (K V0) = V0 / K`. At
//! nu = 0.5 `K` is infinite and `alpha_v = 0` (a hard volume constraint).

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "xpbd-van-gelder-bulk",
    model: ModelKind::XPBD,
    description: "alpha_d: mean over edges of |e|^2 / (E sum of adjacent tet volumes); alpha_v = V0 / K",
    source: "Van Gelder 1998 (J. Graphics Tools 3(2)); bulk modulus by energy matching",
    units: &["m/N", "m^6/J"],
    uses_young: true,
    uses_step: false,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![van_gelder_alpha_d(q, g), g.mean_tet_volume / q.bulk_modulus()])
}
