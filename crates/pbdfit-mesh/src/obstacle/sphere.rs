//! A solid ball, or a spherical bowl the body rests in: `shape = "sphere"`, `center` and `radius` (m),
//! `inside = true` for the bowl (default false).

use nalgebra::Matrix3;

use super::{Gap, ShapeKeys, ShapeKind};
use crate::Vec3;

/// A solid ball (`inside = false`) or a spherical bowl the body rests in (`inside = true`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre, m.
    pub center: Vec3,
    /// Radius, m (> 0).
    pub radius: f64,
    /// Whether the body is inside the sphere.
    pub inside: bool,
}

impl Sphere {
    /// +1 outside a ball, -1 inside a bowl: the gap grows with the distance from the centre, or shrinks.
    fn sign(&self) -> f64 {
        if self.inside { -1.0 } else { 1.0 }
    }
}

impl ShapeKind for Sphere {
    const NAME: &'static str = "sphere";
    const KEYS: &'static [&'static str] = &["center", "radius", "inside"];
    const EXAMPLE: &'static str = "center = [0.5, 1.5, 0.5]\nradius = 0.5";

    fn from_keys(keys: &ShapeKeys) -> Result<Self, String> {
        let center = keys.need_vec3("center")?;
        let radius = keys.number("radius")?.ok_or_else(|| "a sphere needs `radius`".to_string())?;
        if !(radius.is_finite() && radius > 0.0) {
            return Err(format!("`radius` must be > 0 m, got {radius}"));
        }
        Ok(Sphere { center, radius, inside: keys.flag("inside")?.unwrap_or(false) })
    }

    fn gap(&self, x: &Vec3) -> Gap {
        let d = x - self.center;
        let r = d.norm();
        let radial = if r > 0.0 { d / r } else { Vec3::new(0.0, 1.0, 0.0) };
        if self.inside {
            Gap { value: self.radius - r, normal: -radial }
        } else {
            Gap { value: r - self.radius, normal: radial }
        }
    }

    fn moved(&self, d: &Vec3) -> Self {
        Sphere { center: self.center + d, ..*self }
    }

    fn resized(&self, factor: f64) -> Self {
        Sphere { center: self.center * factor, radius: self.radius * factor, ..*self }
    }

    fn anchor(&self) -> Vec3 {
        self.center
    }

    fn solid_centre(&self) -> Option<Vec3> {
        (!self.inside).then_some(self.center)
    }

    /// `factor (grad^2 g)`: `+-(I - n n^T) / |x - c|` (ball, bowl); `None` at the centre.
    fn gap_hessian_times(&self, x: &Vec3, normal: &Vec3, factor: f64) -> Option<Matrix3<f64>> {
        let r = (x - self.center).norm();
        (r > 0.0).then(|| (Matrix3::identity() - normal * normal.transpose()) * (self.sign() * factor / r))
    }
}
