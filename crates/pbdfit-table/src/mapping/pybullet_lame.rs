//! `pybullet-lame`: PyBullet's deformable neo-Hookean given the material's Lame parameters,
//! `NeoHookeanMu = mu = E / (2 (1 + nu))`, `NeoHookeanLambda = lambda = E nu / ((1 + nu) (1 - 2 nu))`, as
//! PyBullet's examples and Bullet's own `setYoungsModulus` / `setPoissonRatio` do. The stable
//! neo-Hookean's small-strain shear modulus is 3/4 of the `mu` it is given and its first Lame parameter
//! `lambda - 5/8 mu` (the `pybullet-neohookean` model's doc), so the body is softer than the material:
//! about 4/3 of the FEM's sag where shear dominates. Undefined at nu = 0.5 (lambda infinite) and for
//! nu < 0.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "pybullet-lame",
    model: ModelKind::PYBULLET_NEOHOOKEAN,
    description: "NeoHookeanMu = mu = E / (2 (1 + nu)), NeoHookeanLambda = lambda = E nu / ((1 + nu)(1 - 2 nu))",
    source: "PyBullet's deformable examples and Bullet 3.2's btDeformableNeoHookeanForce::updateLameParameters",
    units: &["Pa", "Pa"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    if !(q.poisson >= 0.0 && q.poisson < 0.5) {
        return Err(format!("nu = {}: pybullet-lame needs 0 <= nu < 0.5 (lambda finite and >= 0)", q.poisson));
    }
    Ok(vec![q.shear_modulus(), q.lame_lambda()])
}
