//! A uniform surface traction (Pa, a vector) on the boundary faces whose three vertices are all selected:
//! `[[load.traction]]` with `traction = [tx, ty, tz]`. Each face of area `A` gives `t A / 3` to each of
//! its vertices (the consistent load of linear triangles). The traction is the force per area acting on
//! the body's surface: `[0, 10, 0]` on the top face `y = 1` pulls it up (tension).

use super::{Keys, LoadCase, selected_boundary_faces, traction_forces};
use crate::{Selector, TetMesh, Vec3};

/// A uniform traction on selected boundary faces.
#[derive(Debug, Clone, PartialEq)]
pub struct Traction {
    /// The selected vertices; faces made of them carry the traction.
    pub on: Selector,
    /// Force per area, Pa.
    pub traction: Vec3,
}

impl LoadCase for Traction {
    const NAME: &'static str = "traction";
    const KEYS: &'static [&'static str] = &["traction"];
    const HOLDS: bool = false;

    fn parse(on: Selector, keys: &Keys) -> Result<Self, String> {
        Ok(Traction { on, traction: keys.vector("traction")? })
    }

    fn selector(&self) -> &Selector {
        &self.on
    }

    fn scaled(&self, factor: f64) -> Self {
        Traction { on: self.on.clone(), traction: self.traction * factor }
    }

    fn prescribed_at(&self, _: &Vec3) -> Option<Vec3> {
        None
    }

    fn forces(
        &self,
        mesh: &TetMesh,
        selected: &[bool],
        held: &[bool],
        fixed_by: &[Option<String>],
    ) -> Result<Option<Vec<Vec3>>, String> {
        let faces = selected_boundary_faces(mesh, selected);
        if faces.is_empty() {
            return Err(format!("{} selects no boundary face (a traction acts on faces)", self.on));
        }
        if let Some(f) = faces.iter().find(|f| f.iter().all(|&v| held[v])) {
            return Err(format!(
                "the traction acts on a face that is also held (vertices {f:?}, held by {}); a held face takes no \
                 load",
                fixed_by[f[0]].as_deref().unwrap_or("a load")
            ));
        }
        let forces = traction_forces(mesh, &faces, self.traction);
        // Bounded in total, not only per vertex: the solvers sum the forces.
        let total: f64 = forces.iter().map(|f| f.amax()).sum();
        if !total.is_finite() {
            return Err(format!(
                "the traction {:?} Pa gives a total force that overflows f64",
                self.traction.as_slice()
            ));
        }
        Ok(Some(forces))
    }
}
