//! The half-space behind a plane: `shape = "plane"`, `point` (m) on it and `normal` towards the free side
//! (normalised when read).

use super::{Gap, ShapeKeys, ShapeKind};
use crate::Vec3;

/// The half-space behind a plane through `point` with unit `normal` towards the free side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    /// A point on the plane, m.
    pub point: Vec3,
    /// Unit normal pointing into the free side.
    pub normal: Vec3,
}

impl ShapeKind for Plane {
    const NAME: &'static str = "plane";
    const KEYS: &'static [&'static str] = &["point", "normal"];
    const EXAMPLE: &'static str = "point = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]";

    fn from_keys(keys: &ShapeKeys) -> Result<Self, String> {
        let point = keys.need_vec3("point")?;
        let normal = keys.need_vec3("normal")?;
        // Scaled by its largest component before its length is taken: a normal of 1e-320 or 1e200 is a
        // direction, but its squared length under- or overflows f64 (it was refused as "not non-zero").
        let largest = normal.amax();
        if !largest.is_finite() {
            return Err(format!("`normal` must be finite, got {:?}", normal.as_slice()));
        }
        if largest == 0.0 {
            return Err(format!("`normal` must be a non-zero vector, got {:?}", normal.as_slice()));
        }
        let scaled = normal / largest;
        Ok(Plane { point, normal: scaled / scaled.norm() })
    }

    fn gap(&self, x: &Vec3) -> Gap {
        Gap { value: self.normal.dot(&(x - self.point)), normal: self.normal }
    }

    fn moved(&self, d: &Vec3) -> Self {
        Plane { point: self.point + d, normal: self.normal }
    }

    fn resized(&self, factor: f64) -> Self {
        Plane { point: self.point * factor, normal: self.normal }
    }

    fn anchor(&self) -> Vec3 {
        self.point
    }
}
