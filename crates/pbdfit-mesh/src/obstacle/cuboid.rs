//! A solid axis-aligned box: `shape = "box"`, `center` and `half_extents` (m, each > 0).

use super::{Gap, ShapeKeys, ShapeKind};
use crate::Vec3;

/// A solid axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cuboid {
    /// Centre, m.
    pub center: Vec3,
    /// Half the edge lengths, m (each > 0).
    pub half_extents: Vec3,
}

impl ShapeKind for Cuboid {
    const NAME: &'static str = "box";
    const KEYS: &'static [&'static str] = &["center", "half_extents"];
    const EXAMPLE: &'static str = "center = [0.5, -0.5, 0.5]\nhalf_extents = [2.0, 0.5, 2.0]";

    fn from_keys(keys: &ShapeKeys) -> Result<Self, String> {
        let center = keys.need_vec3("center")?;
        let half_extents = keys.need_vec3("half_extents")?;
        if half_extents.iter().any(|h| *h <= 0.0) {
            return Err(format!("`half_extents` must all be > 0 m, got {:?}", half_extents.as_slice()));
        }
        Ok(Cuboid { center, half_extents })
    }

    /// Outside: the distance to the box. Inside (or on the surface): minus the distance to the nearest face,
    /// the first axis of largest penetration where several tie.
    fn gap(&self, x: &Vec3) -> Gap {
        let d = x - self.center;
        let q = d.abs() - self.half_extents;
        let outside = Vec3::new(q.x.max(0.0), q.y.max(0.0), q.z.max(0.0));
        let o = outside.norm();
        if o > 0.0 {
            let n = Vec3::new(outside.x * d.x.signum(), outside.y * d.y.signum(), outside.z * d.z.signum());
            Gap { value: o, normal: n / o }
        } else {
            let axis = (0..3).fold(0, |best, k| if q[k] > q[best] { k } else { best });
            let mut n = Vec3::zeros();
            n[axis] = if d[axis] < 0.0 { -1.0 } else { 1.0 };
            Gap { value: q[axis], normal: n }
        }
    }

    fn moved(&self, d: &Vec3) -> Self {
        Cuboid { center: self.center + d, half_extents: self.half_extents }
    }

    fn resized(&self, factor: f64) -> Self {
        Cuboid { center: self.center * factor, half_extents: self.half_extents * factor }
    }

    fn anchor(&self) -> Vec3 {
        self.center
    }

    fn solid_centre(&self) -> Option<Vec3> {
        Some(self.center)
    }
}
