//! `xpbd-strain-lame`: the `xpbd-strain` model's compliances from the material's moduli,
//! `alpha_dev = 1 / (2 mu) = (1 + nu) / E` and `alpha_vol = 1 / K = 3 (1 - 2 nu) / E` (m^3/J).
//!
//! Derivation. The model's constraints per tetrahedron (crate `pbdfit-pbd`, `tetrahedra/strain_*.rs`)
//! are `C_vol = sqrt(V0) tr E` and `C_dev = sqrt(V0) |dev E|` on the Green strain `E = (F^T F - I) / 2`,
//! each storing `C^2 / (2 alpha)`: together `V0 ((tr E)^2 / (2 alpha_vol) + |dev E|^2 / (2 alpha_dev))`.
//! St. Venant-Kirchhoff's energy is `V0 (lambda / 2 (tr E)^2 + mu E:E)`, and with
//! `E:E = |dev E|^2 + (tr E)^2 / 3` it is `V0 (K / 2 (tr E)^2 + mu |dev E|^2)`, `K = lambda + 2 mu / 3`.
//! Equal for every deformation when `alpha_vol = 1 / K` and `alpha_dev = 1 / (2 mu)` (the test
//! `the_strain_pair_is_st_venant_kirchhoff` in `tetrahedra/mod.rs` checks this identity at a random
//! deformation). With `mu = E / (2 (1 + nu))` and `K = E / (3 (1 - 2 nu))` the formulas above follow;
//! they are written in that form so that nu = 0.5 gives `alpha_vol = 0` exactly (the incompressible
//! limit, a hard volumetric constraint, which the model accepts: its compliances are allowed from 0).
//! No mean over the body: the constraints carry `V0` per tetrahedron, so one value fits every tetrahedron.
//! This is the mapping at convergence (XPBD's many iterations and small dt, where its rest state is the
//! energy's minimum); dt and nit are not used.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "xpbd-strain-lame",
    model: ModelKind::XPBD_STRAIN,
    description: "alpha_dev = 1 / (2 mu) = (1 + nu) / E, alpha_vol = 1 / K = 3 (1 - 2 nu) / E (St. Venant-Kirchhoff)",
    source: "energy matching: the Green-strain constraints' energy is St. Venant-Kirchhoff's",
    units: &["m^3/J", "m^3/J"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![(1.0 + q.poisson) / q.young, 3.0 * (1.0 - 2.0 * q.poisson) / q.young])
}
