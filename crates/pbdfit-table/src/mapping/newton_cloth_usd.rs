//! `newton-cloth-usd`: what Newton 1.8's USD cloth import gives the `newton-cloth` profile (Newton 1.8.0's
//! `newton/_src/usd/import_usd_deformable_cloth.py`, read, not run here). The importer calls
//! `add_cloth_mesh` **without springs** (`add_springs` left False) and sets, from the material's `E`, `nu`
//! and the sheet's thickness `h`, `tri_ke = E h / (1 - nu^2)` (N/m), `tri_ka = 0` and
//! `edge_ke = E h^3 / (12 (1 - nu^2))`, the plate's `D` (its comment: "tri_ke = mu ... <- stretchStiffness";
//! authored surface stiffnesses are multiplied by `h` and `h^3` the same way).
//!
//! In the profile's terms (`SolverXPBD` reads only the springs and the bending edges, never `tri_ke`):
//!
//! - `spring_ke = 0` (N/m): no springs. Newton's `solve_springs` kernel skips a spring with `ke <= 0`, and
//!   the profile's step does the same, so `spring_ke = 0` is exactly the body `add_springs=False` builds
//!   (every spring skipped, none acting). 0 is inside the parameter's range (its minimum), below its
//!   search box (3 to 1e4 N/m): a USD cloth under XPBD has no membrane at all.
//! - `edge_ke = D = E h^3 / (12 (1 - nu^2))`: the importer assigns the plate's bending stiffness (J) to a
//!   constant whose unit in Newton's bending kernel is N/(m rad) (gradients of length `|e|`, not the
//!   angle's): the number a user gets, not the plate's law.
//!
//! newton#3973 (`Model.tri_materials` documents `k_mu`, `k_lambda` in Pa where they act in N/m, so a user
//! who enters E as `tri_ke` gets a membrane `1 / h` too stiff) concerns the triangles only: `SolverXPBD`
//! ignores them, and the importer scales `edge_ke` by `h^3` itself, so it changes neither `spring_ke` nor
//! `edge_ke` here and has no variant of this mapping.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "newton-cloth-usd",
    model: ModelKind::NEWTON_CLOTH,
    description: "spring_ke = 0 (the USD import adds no springs; tri_ke = E h / (1 - nu^2) is ignored by SolverXPBD); \
                  edge_ke = D = E h^3 / (12 (1 - nu^2))",
    source: "Newton 1.8.0's import_usd_deformable_cloth.py: add_cloth_mesh without springs, edge_ke = E h^3 / (12 (1 - \
             nu^2))",
    units: &["N/m", "N/(m rad)"],
    uses_young: true,
    uses_step: false,
    uses_mesh: false,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    Ok(vec![0.0, q.bending_stiffness(g.sheet()?.thickness)])
}
