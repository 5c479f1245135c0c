//! Torsion: `[[load.rotation]]` with `axis`, `center` (m) and `angle` (rad, within [-pi, pi]). The
//! selected vertices are rotated by `angle` about the line through `center` along `axis` and held there,
//! `u = R (X - c) + c - X`; the rotation is right-handed about the axis.

use super::{Keys, LoadCase};
use crate::{Selector, TetMesh, Vec3};

/// A prescribed rotation of the selected vertices about an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Rotation {
    /// The selected vertices.
    pub on: Selector,
    /// Unit axis direction.
    pub axis: Vec3,
    /// A point on the axis, m.
    pub center: Vec3,
    /// Rotation angle, rad (right-handed about `axis`).
    pub angle: f64,
}

impl LoadCase for Rotation {
    const NAME: &'static str = "rotation";
    const KEYS: &'static [&'static str] = &["axis", "center", "angle"];
    const HOLDS: bool = true;

    fn parse(on: Selector, keys: &Keys) -> Result<Self, String> {
        let axis = keys.vector("axis")?;
        if axis.norm() == 0.0 {
            return Err("axis must not be zero".into());
        }
        let center = keys.vector("center")?;
        let angle = keys.scalar("angle")?;
        if !(angle.is_finite() && angle.abs() <= std::f64::consts::PI) {
            return Err(format!("angle {angle} rad must be finite and within [-pi, pi]"));
        }
        Ok(Rotation { on, axis: axis.normalize(), center, angle })
    }

    fn selector(&self) -> &Selector {
        &self.on
    }

    fn scaled(&self, factor: f64) -> Self {
        Rotation { angle: self.angle * factor, ..self.clone() }
    }

    fn prescribed_at(&self, x: &Vec3) -> Option<Vec3> {
        let rotation = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(self.axis), self.angle);
        let r = x - self.center;
        Some(rotation * r - r)
    }

    fn forces(&self, _: &TetMesh, _: &[bool], _: &[bool], _: &[Option<String>]) -> Result<Option<Vec<Vec3>>, String> {
        Ok(None)
    }
}
