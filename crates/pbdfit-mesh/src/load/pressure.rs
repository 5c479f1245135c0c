//! A uniform pressure (Pa, a scalar) normal to a sheet: `[[load.pressure]]` with `pressure = p` and, where
//! the direction should stay fixed, `follower = false`. It acts on the triangles whose three vertices are
//! all selected (`plane = "z = 0"` picks the whole of a flat sheet in that plane).
//!
//! Sign convention: a positive `p` pushes each triangle along its normal `(x1 - x0) x (x2 - x0)` (the
//! right-handed normal of its vertex order), `p A n / 3` to each of its vertices. On a closed surface whose
//! triangles wind outwards, a positive `p` is an inner overpressure (it inflates); on the built-in sheets in
//! `z = 0` (counter-clockwise from above) it pushes along `+z`.
//!
//! A follower pressure (the default) acts on the deformed normal and area, the physical load of an inflated
//! or wind-loaded membrane: it is a load of the deformed state, so the shell reference adds its load
//! stiffness to the Newton tangent and the cloth models evaluate it at their current positions in every
//! step. A dead pressure (`follower = false`) keeps the rest normal and area: fixed nodal forces. A pressure
//! acts on sheets only: on a tetrahedral solid (whose FEM takes dead nodal loads on its boundary faces) it is
//! refused, and a traction is the solid's surface load.

use super::{Keys, LoadCase};
use crate::{Selector, TetMesh, Vec3};

/// A uniform pressure normal to the selected triangles of a sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Pressure {
    /// The selected vertices; triangles made of them carry the pressure.
    pub on: Selector,
    /// Pa, along each triangle's winding normal where positive.
    pub pressure: f64,
    /// Whether it follows the deformed normal and area (`true`) or keeps the rest ones.
    pub follower: bool,
}

impl LoadCase for Pressure {
    const NAME: &'static str = "pressure";
    const KEYS: &'static [&'static str] = &["pressure", "follower"];
    const HOLDS: bool = false;

    fn parse(on: Selector, keys: &Keys) -> Result<Self, String> {
        let pressure = keys.scalar("pressure")?;
        if !pressure.is_finite() {
            return Err(format!("`pressure` must be a finite number (Pa), got {pressure}"));
        }
        let follower = keys.boolean_or("follower", true)?;
        Ok(Pressure { on, pressure, follower })
    }

    fn selector(&self) -> &Selector {
        &self.on
    }

    fn scaled(&self, factor: f64) -> Self {
        Pressure { pressure: self.pressure * factor, ..self.clone() }
    }

    fn prescribed_at(&self, _: &Vec3) -> Option<Vec3> {
        None
    }

    fn forces(&self, _: &TetMesh, _: &[bool], _: &[bool], _: &[Option<String>]) -> Result<Option<Vec<Vec3>>, String> {
        Err("a pressure acts on sheets (triangle meshes with a thickness); a tetrahedral solid's surface load is a \
             traction, [[load.traction]]"
            .into())
    }
}

/// The pressures on a sheet's triangles (Pa per triangle, summed over its pressure loads): the follower
/// part, on the deformed normal and area, and the dead part, on the rest ones. Both have one entry per
/// triangle (zero where none acts); empty when the sheet has no pressure load.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrianglePressure {
    /// Follower pressure per triangle, Pa.
    pub follower: Vec<f64>,
    /// Dead pressure per triangle, Pa.
    pub dead: Vec<f64>,
}

impl TrianglePressure {
    /// Whether no pressure acts.
    pub fn is_none(&self) -> bool {
        self.follower.iter().chain(&self.dead).all(|&p| p == 0.0)
    }

    /// The nodal forces (N, per vertex) of per-triangle pressures `pressure` at positions `x`:
    /// `p (x1 - x0) x (x2 - x0) / 6` to each vertex of a triangle (`p A n / 3`). Empty `pressure`: none.
    pub fn nodal_forces(triangles: &[[usize; 3]], pressure: &[f64], x: &[Vec3]) -> Vec<Vec3> {
        let mut f = vec![Vec3::zeros(); x.len()];
        for (t, &[a, b, c]) in triangles.iter().enumerate() {
            let p = pressure.get(t).copied().unwrap_or(0.0);
            if p == 0.0 {
                continue;
            }
            let third = (x[b] - x[a]).cross(&(x[c] - x[a])) * (p / 6.0);
            for v in [a, b, c] {
                f[v] += third;
            }
        }
        f
    }
}
