//! `xpbd-macklin-lame`: the hydrostatic constraint of M. Macklin and M. Mueller, "A Constraint-based
//! Formulation of Stable Neo-Hookean Materials" (MIG 2021): `C_H = det F - gamma` with per-tetrahedron
//! compliance `1 / (lambda V0)`, mapped onto `C = V - V0` by the energy matching of the module docs:
//! `alpha_v = V0^2 / (lambda V0) = V0 / lambda` (V0 the mean rest tetrahedron volume; `gamma = 1 + mu /
//! lambda` is a rest-state shift pbdfit's `V - V0` cannot carry and is dropped). Their deviatoric
//! constraint `C_D = sqrt(tr(F^T F))` with compliance `1 / (mu V0)` acts on the whole deformation
//! gradient and has no edge-constraint counterpart; pbdfit's distance constraints take Van Gelder's
//! `alpha_d` ([`van_gelder_alpha_d`]) instead, so this mapping differs from `xpbd-van-gelder-bulk` only by
//! `lambda` in place of `K = lambda + 2 mu / 3` (softer in volume, much softer at small nu). Lame's
//! `lambda` is used as given (Smith et al. 2018's small-strain match would use `lambda + mu`). Undefined
//! for nu <= 0 (`lambda <= 0`: no finite positive compliance).

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "xpbd-macklin-lame",
    model: ModelKind::XPBD,
    description: "alpha_v = V0^2 / (lambda V0) = V0 / lambda (hydrostatic term); alpha_d as Van Gelder",
    source: "Macklin and Mueller 2021 (MIG, stable neo-Hookean constraints)",
    units: &["m/N", "m^6/J"],
    uses_young: true,
    uses_step: false,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    let lambda = q.lame_lambda();
    if lambda <= 0.0 {
        return Err(format!(
            "the Lame parameter lambda = {lambda:e} Pa is <= 0 at nu = {} (nu <= 0): the compliance V0 / lambda \
             is not finite and positive; this mapping needs 0 < nu <= 0.5",
            q.poisson
        ));
    }
    Ok(vec![van_gelder_alpha_d(q, g), g.mean_tet_volume / lambda])
}
