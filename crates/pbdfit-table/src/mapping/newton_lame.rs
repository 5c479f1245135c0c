//! `newton-lame`: what Newton's USD import does (`newton/_src/usd/utils.py`, `_deformable_lame_parameters`): `k_mu` and
//! `k_lambda` set to the material's Lame parameters `mu = E / (2 (1 + nu))`, `lambda = E nu / ((1 + nu)
//! (1 - 2 nu))`. Newton's pair `tr(F^T F) - 3`, `det F - 1` has no shear stiffness at small strain, so the
//! body sags several times the FEM's (the `newton-xpbd` profile's doc); undefined at nu = 0.5 (lambda
//! infinite) and for nu <= 0 (lambda <= 0, which Newton's kernel skips).

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "newton-lame",
    model: ModelKind::NEWTON_XPBD,
    description: "k_mu = mu = E / (2 (1 + nu)), k_lambda = lambda = E nu / ((1 + nu)(1 - 2 nu))",
    source: "Newton 1.8's USD import (_src/usd/utils.py) sets the tetrahedra's k_mu, k_lambda to the Lame parameters",
    units: &["Pa", "Pa"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    if !(q.poisson > 0.0 && q.poisson < 0.5) {
        return Err(format!("nu = {}: newton-lame needs 0 < nu < 0.5 (lambda finite and > 0)", q.poisson));
    }
    Ok(vec![q.shear_modulus(), q.lame_lambda()])
}
