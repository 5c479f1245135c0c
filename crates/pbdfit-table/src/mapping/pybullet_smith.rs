//! `pybullet-smith`: PyBullet's deformable neo-Hookean given Smith, de Goes and Kim's (2018, "Stable
//! Neo-Hookean Flesh Simulation", section 3.4) reparametrisation of the Lame pair, `NeoHookeanMu = 4/3 mu`,
//! `NeoHookeanLambda = lambda + 5/6 mu`: the stable neo-Hookean's small-strain moduli (`3/4 mu'` and
//! `lambda' - 5/8 mu'`, the `pybullet-neohookean` model's doc) are then the material's `mu` and `lambda`,
//! so at small strain the body is the linear FEM's. Undefined at nu = 0.5 and for nu < 0.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "pybullet-smith",
    model: ModelKind::PYBULLET_NEOHOOKEAN,
    description: "NeoHookeanMu = 4/3 mu, NeoHookeanLambda = lambda + 5/6 mu (mu, lambda: the Lame parameters)",
    source: "Smith, de Goes and Kim 2018, Stable Neo-Hookean Flesh Simulation, sec. 3.4 (the energy PyBullet's \
             btDeformableNeoHookeanForce implements)",
    units: &["Pa", "Pa"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    if !(q.poisson >= 0.0 && q.poisson < 0.5) {
        return Err(format!("nu = {}: pybullet-smith needs 0 <= nu < 0.5 (lambda finite and >= 0)", q.poisson));
    }
    let mu = q.shear_modulus();
    Ok(vec![4.0 / 3.0 * mu, q.lame_lambda() + 5.0 / 6.0 * mu])
}
