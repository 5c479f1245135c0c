//! A prescribed displacement: `[[load.displacement]]` with `displacement = [ux, uy, uz]` (m). The
//! selected vertices are moved by it and held there (Dirichlet in FEM, kinematic particles with inverse
//! mass 0 in PBD).

use super::{Keys, LoadCase};
use crate::{Selector, TetMesh, Vec3};

/// The selected vertices moved by `displacement` and held there.
#[derive(Debug, Clone, PartialEq)]
pub struct Displacement {
    /// The selected vertices.
    pub on: Selector,
    /// Prescribed displacement, m.
    pub displacement: Vec3,
}

impl LoadCase for Displacement {
    const NAME: &'static str = "displacement";
    const KEYS: &'static [&'static str] = &["displacement"];
    const HOLDS: bool = true;

    fn parse(on: Selector, keys: &Keys) -> Result<Self, String> {
        Ok(Displacement { on, displacement: keys.vector("displacement")? })
    }

    fn selector(&self) -> &Selector {
        &self.on
    }

    fn scaled(&self, factor: f64) -> Self {
        Displacement { on: self.on.clone(), displacement: self.displacement * factor }
    }

    fn prescribed_at(&self, _: &Vec3) -> Option<Vec3> {
        Some(self.displacement)
    }

    fn forces(&self, _: &TetMesh, _: &[bool], _: &[bool], _: &[Option<String>]) -> Result<Option<Vec<Vec3>>, String> {
        Ok(None)
    }
}
