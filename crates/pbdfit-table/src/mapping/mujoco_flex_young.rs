//! `mujoco-flex-young`: MuJoCo's own meaning of `<elasticity young>`, the material's Young's modulus,
//! `young = E` (Pa). MuJoCo 4.0.1's flex of dimension 2 (the `mujoco-flex` profile) is St. Venant-Kirchhoff
//! in plane stress with membrane `E h` and Poisson's ratio `nu`, and bending the plate's
//! `D = E h^3 / (12 (1 - nu^2))` (MuJoCo's `user_mesh.cc`, read off the compiled model's `flex_stiffness`
//! and `flex_bending`: engines.md), so the closed form is the shell's own constants. `poisson` and
//! `thickness` are the profile's settings, not parameters: set them to the sheet's `nu` and `h`
//! (`--setting poisson=0.3 --setting thickness=5e-4`), or the profile's body is another material.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "mujoco-flex-young",
    model: ModelKind::MUJOCO_FLEX,
    description: "young = E (with the settings poisson = nu, thickness = h): MuJoCo's documented meaning",
    source: "MuJoCo 4.0.1 <flexcomp dim=\"2\"><elasticity young poisson thickness/>: plane-stress StVK membrane E h, \
             plate bending E h^3 / (12 (1 - nu^2))",
    units: &["Pa"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, _: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![q.young])
}
