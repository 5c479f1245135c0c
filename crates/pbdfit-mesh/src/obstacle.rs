//! Rigid obstacles a body rests on, presses against or slides over: planes, spheres and boxes, each
//! with a Coulomb friction pair, as a scene's `[[obstacle]]` tables (methodology, section Contact).
//!
//! An obstacle is a shape with a signed gap `g(x)`: positive where a point is free, zero on the
//! obstacle's surface, negative inside it. Contact asks `g(x) >= 0` of every vertex of the body (the
//! seed's unilateral constraint: `g = |x - c| - R` outside a sphere, `g = R - |x - c|` for a body that
//! rests inside a spherical bowl). [`Shape::gap`] also gives the unit normal `n = grad g`, which points
//! from the obstacle into the free side; a contact force on the body is `lambda n` with `lambda >= 0`.
//!
//! Coordinates are the body's (the unit cube is `[0, 1]^3`). An obstacle may move: `displacement` is
//! where the load takes it (the indentation of a sphere into a block); the body must be free of it at
//! its starting place, and the models and the reference meet it at its final one.
//!
//! ```toml
//! [[obstacle]]
//! shape = "plane"             # plane | sphere | box
//! point = [0.0, 0.0, 0.0]     # plane: a point on it, m
//! normal = [0.0, 1.0, 0.0]    # plane: towards the free side (normalised when read)
//! static_friction = 0.6       # Coulomb mu_s >= 0 (default 0: frictionless)
//! kinetic_friction = 0.4      # mu_k, 0 <= mu_k <= mu_s (default: mu_s)
//!
//! [[obstacle]]
//! shape = "sphere"
//! center = [0.5, 1.25, 0.5]   # m
//! radius = 0.25               # m
//! inside = false              # true: the body rests inside the sphere (a bowl)
//! displacement = [0.0, -0.05, 0.0]   # where the load moves it, m (default 0)
//!
//! [[obstacle]]
//! shape = "box"
//! center = [0.5, -0.5, 0.5]
//! half_extents = [2.0, 0.5, 2.0]
//! ```

use serde::Deserialize;

use crate::Vec3;

/// Coulomb friction between the body and an obstacle: slipping starts when the tangential force
/// exceeds `static_coefficient` times the normal force and, once slipping, the tangential force is
/// `kinetic_coefficient` times the normal force. Both are dimensionless, `0 <= mu_k <= mu_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Friction {
    /// mu_s.
    pub static_coefficient: f64,
    /// mu_k.
    pub kinetic_coefficient: f64,
}

impl Friction {
    /// No friction: contact pushes along the normal only.
    pub const NONE: Friction = Friction { static_coefficient: 0.0, kinetic_coefficient: 0.0 };

    /// Whether both coefficients are zero.
    pub fn is_frictionless(&self) -> bool {
        self.static_coefficient == 0.0 && self.kinetic_coefficient == 0.0
    }
}

/// The geometry of a rigid obstacle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// The half-space behind a plane through `point` with unit `normal` towards the free side.
    Plane {
        /// A point on the plane, m.
        point: Vec3,
        /// Unit normal pointing into the free side.
        normal: Vec3,
    },
    /// A solid ball (`inside = false`) or a spherical bowl the body rests in (`inside = true`).
    Sphere {
        /// Centre, m.
        center: Vec3,
        /// Radius, m (> 0).
        radius: f64,
        /// Whether the body is inside the sphere.
        inside: bool,
    },
    /// A solid axis-aligned box.
    Box {
        /// Centre, m.
        center: Vec3,
        /// Half the edge lengths, m (each > 0).
        half_extents: Vec3,
    },
}

/// The gap of a point to an obstacle and the direction in which it grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// Signed distance in m: > 0 free, 0 touching, < 0 inside the obstacle.
    pub value: f64,
    /// Unit gradient of the gap: the direction of the contact force on the body.
    pub normal: Vec3,
}

impl Shape {
    /// The signed gap of `x` and its gradient. Where the gradient is not defined (the centre of a
    /// sphere, the medial planes of a box) a fixed choice is made: the first axis of largest
    /// penetration, `+y` at a sphere's centre.
    pub fn gap(&self, x: &Vec3) -> Gap {
        match *self {
            Shape::Plane { point, normal } => Gap { value: normal.dot(&(x - point)), normal },
            Shape::Sphere { center, radius, inside } => {
                let d = x - center;
                let r = d.norm();
                let radial = if r > 0.0 { d / r } else { Vec3::new(0.0, 1.0, 0.0) };
                if inside {
                    Gap { value: radius - r, normal: -radial }
                } else {
                    Gap { value: r - radius, normal: radial }
                }
            }
            Shape::Box { center, half_extents } => {
                let d = x - center;
                let q = d.abs() - half_extents;
                let outside = Vec3::new(q.x.max(0.0), q.y.max(0.0), q.z.max(0.0));
                let o = outside.norm();
                if o > 0.0 {
                    let n = Vec3::new(outside.x * d.x.signum(), outside.y * d.y.signum(), outside.z * d.z.signum());
                    Gap { value: o, normal: n / o }
                } else {
                    // Inside (or on the surface): the nearest face is the axis of largest q.
                    let axis = (0..3).fold(0, |best, k| if q[k] > q[best] { k } else { best });
                    let mut n = Vec3::zeros();
                    n[axis] = if d[axis] < 0.0 { -1.0 } else { 1.0 };
                    Gap { value: q[axis], normal: n }
                }
            }
        }
    }

    /// The shape moved rigidly by `d`.
    pub fn moved(&self, d: &Vec3) -> Shape {
        match *self {
            Shape::Plane { point, normal } => Shape::Plane { point: point + d, normal },
            Shape::Sphere { center, radius, inside } => Shape::Sphere { center: center + d, radius, inside },
            Shape::Box { center, half_extents } => Shape::Box { center: center + d, half_extents },
        }
    }

    /// The shape's kind as the scene file spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Plane { .. } => "plane",
            Shape::Sphere { .. } => "sphere",
            Shape::Box { .. } => "box",
        }
    }
}

/// A rigid obstacle of a scene: its shape where the body starts, its friction and where the load
/// moves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Obstacle {
    /// The scene-file key (`obstacle[0]`), for messages.
    pub key: String,
    /// The shape at the start.
    pub shape: Shape,
    /// Friction against the body.
    pub friction: Friction,
    /// Rigid displacement the load gives it, m (the full load; a load level scales it).
    pub displacement: Vec3,
}

impl Obstacle {
    /// The shape at load fraction `t` (0: the start, 1: the full displacement).
    pub fn at(&self, t: f64) -> Shape {
        self.shape.moved(&(self.displacement * t))
    }

    /// The shape at the full load: where the models and the reference meet it.
    pub fn placed(&self) -> Shape {
        self.at(1.0)
    }

    /// This obstacle with its displacement multiplied by `factor` (a load level).
    pub fn scaled(&self, factor: f64) -> Obstacle {
        Obstacle { displacement: self.displacement * factor, ..self.clone() }
    }
}

/// An `[[obstacle]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObstacleKeys {
    shape: String,
    point: Option<[f64; 3]>,
    normal: Option<[f64; 3]>,
    center: Option<[f64; 3]>,
    radius: Option<f64>,
    inside: Option<bool>,
    half_extents: Option<[f64; 3]>,
    #[serde(default)]
    static_friction: f64,
    kinetic_friction: Option<f64>,
    displacement: Option<[f64; 3]>,
}

fn finite3(key: &str, v: [f64; 3]) -> Result<Vec3, String> {
    if v.iter().all(|x| x.is_finite()) { Ok(Vec3::from(v)) } else { Err(format!("`{key}` must be finite, got {v:?}")) }
}

impl ObstacleKeys {
    /// Validates the table into an obstacle named `key`. The message names the offending field.
    pub(crate) fn obstacle(&self, key: &str) -> Result<Obstacle, String> {
        let need = |name: &str, v: Option<[f64; 3]>| {
            v.ok_or_else(|| format!("a {} needs `{name}`", self.shape)).and_then(|v| finite3(name, v))
        };
        let stray = |allowed: &[&str]| -> Result<(), String> {
            let given = [
                ("point", self.point.is_some()),
                ("normal", self.normal.is_some()),
                ("center", self.center.is_some()),
                ("radius", self.radius.is_some()),
                ("inside", self.inside.is_some()),
                ("half_extents", self.half_extents.is_some()),
            ];
            match given.iter().find(|(name, set)| *set && !allowed.contains(name)) {
                Some((name, _)) => Err(format!("`{name}` does not apply to a {}", self.shape)),
                None => Ok(()),
            }
        };
        let shape = match self.shape.as_str() {
            "plane" => {
                stray(&["point", "normal"])?;
                let point = need("point", self.point)?;
                let normal = need("normal", self.normal)?;
                // Scaled by its largest component before its length is taken: a normal of 1e-320 or 1e200
                // is a direction, but its squared length under- or overflows f64 (it was refused as "not
                // non-zero").
                let largest = normal.amax();
                if !largest.is_finite() {
                    return Err(format!("`normal` must be finite, got {:?}", normal.as_slice()));
                }
                if largest == 0.0 {
                    return Err(format!("`normal` must be a non-zero vector, got {:?}", normal.as_slice()));
                }
                let scaled = normal / largest;
                Shape::Plane { point, normal: scaled / scaled.norm() }
            }
            "sphere" => {
                stray(&["center", "radius", "inside"])?;
                let center = need("center", self.center)?;
                let radius = self.radius.ok_or_else(|| "a sphere needs `radius`".to_string())?;
                if !(radius.is_finite() && radius > 0.0) {
                    return Err(format!("`radius` must be > 0 m, got {radius}"));
                }
                Shape::Sphere { center, radius, inside: self.inside.unwrap_or(false) }
            }
            "box" => {
                stray(&["center", "half_extents"])?;
                let center = need("center", self.center)?;
                let half_extents = need("half_extents", self.half_extents)?;
                if half_extents.iter().any(|h| *h <= 0.0) {
                    return Err(format!("`half_extents` must all be > 0 m, got {:?}", half_extents.as_slice()));
                }
                Shape::Box { center, half_extents }
            }
            other => return Err(format!("`shape = \"{other}\"` is not known: expected plane, sphere or box")),
        };
        let mu_s = self.static_friction;
        if !(mu_s.is_finite() && mu_s >= 0.0) {
            return Err(format!("`static_friction` must be a finite number >= 0, got {mu_s}"));
        }
        let mu_k = self.kinetic_friction.unwrap_or(mu_s);
        if !(mu_k.is_finite() && mu_k >= 0.0 && mu_k <= mu_s) {
            return Err(format!(
                "`kinetic_friction` must be between 0 and static_friction = {mu_s}, got {mu_k} (a body slips no harder \
                 than it sticks)"
            ));
        }
        let displacement = match self.displacement {
            Some(d) => finite3("displacement", d)?,
            None => Vec3::zeros(),
        };
        Ok(Obstacle {
            key: key.to_string(),
            shape,
            friction: Friction { static_coefficient: mu_s, kinetic_coefficient: mu_k },
            displacement,
        })
    }
}

/// The first vertex that starts inside an obstacle (gap below `-tolerance`), as (obstacle index,
/// vertex, gap).
pub fn first_penetration(obstacles: &[Obstacle], vertices: &[Vec3], tolerance: f64) -> Option<(usize, usize, f64)> {
    obstacles.iter().enumerate().find_map(|(i, o)| {
        vertices.iter().enumerate().find_map(|(v, x)| {
            let g = o.shape.gap(x).value;
            (g < -tolerance).then_some((i, v, g))
        })
    })
}

/// The first solid obstacle (ball or box) whose centre starts inside the body, as (obstacle index,
/// tetrahedron): such an obstacle overlaps the body even where no vertex lies in it (a ball inside the
/// unit cube at N = 1, whose vertices are its corners; issue 38: ignored at N = 1, refused at N = 2).
/// A centre on a face, an edge or the body's surface counts (half the ball is then inside); `tolerance`
/// (m) is the rounding allowed outside a tetrahedron.
pub fn first_engulfed(obstacles: &[Obstacle], mesh: &crate::TetMesh, tolerance: f64) -> Option<(usize, usize)> {
    let vertices = mesh.vertices();
    obstacles.iter().enumerate().find_map(|(i, o)| {
        let center = match o.shape {
            Shape::Sphere { center, inside: false, .. } | Shape::Box { center, .. } => center,
            Shape::Sphere { inside: true, .. } | Shape::Plane { .. } => return None,
        };
        mesh.tets()
            .iter()
            .position(|t| {
                let corners = t.map(|v| vertices[v]);
                let size = (corners[1] - corners[0]).norm().max(f64::MIN_POSITIVE);
                crate::markers::barycentric(corners, center)
                    .is_some_and(|w| w.iter().all(|&b| b.is_finite() && b >= -tolerance / size))
            })
            .map(|t| (i, t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Result<Obstacle, String> {
        let k: ObstacleKeys = toml::from_str(text).map_err(|e| e.to_string())?;
        k.obstacle("obstacle[0]")
    }

    /// The gap's normal is its gradient: central differences agree away from the kinks.
    #[test]
    fn normals_are_gradients_of_the_gap() {
        let shapes = [
            Shape::Plane { point: Vec3::new(0.1, 0.2, 0.3), normal: Vec3::new(1.0, 2.0, -2.0) / 3.0 },
            Shape::Sphere { center: Vec3::new(0.5, 1.5, 0.5), radius: 0.4, inside: false },
            Shape::Sphere { center: Vec3::new(0.5, 1.5, 0.5), radius: 2.0, inside: true },
            Shape::Box { center: Vec3::new(0.5, -0.5, 0.5), half_extents: Vec3::new(0.3, 0.5, 0.2) },
        ];
        let points = [Vec3::new(0.3, 0.7, 0.1), Vec3::new(0.9, 0.05, 0.6), Vec3::new(0.55, -0.2, 0.45)];
        let h = 1e-6;
        for s in &shapes {
            for x in &points {
                let g = s.gap(x);
                let mut fd = Vec3::zeros();
                for k in 0..3 {
                    let mut e = Vec3::zeros();
                    e[k] = h;
                    fd[k] = (s.gap(&(x + e)).value - s.gap(&(x - e)).value) / (2.0 * h);
                }
                assert!((fd - g.normal).norm() < 1e-8, "{s:?} at {x:?}: {fd:?} vs {:?}", g.normal);
                assert!((g.normal.norm() - 1.0).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn gaps_have_the_sign_of_freedom() {
        let floor = Shape::Plane { point: Vec3::zeros(), normal: Vec3::new(0.0, 1.0, 0.0) };
        assert_eq!(floor.gap(&Vec3::new(3.0, 0.25, -1.0)).value, 0.25);
        assert_eq!(floor.gap(&Vec3::new(3.0, -0.5, -1.0)).value, -0.5);
        let ball = Shape::Sphere { center: Vec3::zeros(), radius: 1.0, inside: false };
        assert_eq!(ball.gap(&Vec3::new(0.0, 3.0, 0.0)).value, 2.0);
        let bowl = Shape::Sphere { center: Vec3::zeros(), radius: 1.0, inside: true };
        assert_eq!(bowl.gap(&Vec3::new(0.0, 0.25, 0.0)).value, 0.75);
        assert_eq!(bowl.gap(&Vec3::new(0.0, 0.25, 0.0)).normal, Vec3::new(0.0, -1.0, 0.0));
        let block = Shape::Box { center: Vec3::zeros(), half_extents: Vec3::new(1.0, 2.0, 3.0) };
        assert_eq!(block.gap(&Vec3::new(0.0, 1.5, 0.0)).value, -0.5);
        assert_eq!(block.gap(&Vec3::new(0.0, 1.5, 0.0)).normal, Vec3::new(0.0, 1.0, 0.0));
        assert!((block.gap(&Vec3::new(4.0, 6.0, 0.0)).value - 5.0).abs() < 1e-15);
        let moved = Obstacle {
            key: "obstacle[0]".into(),
            shape: ball,
            friction: Friction::NONE,
            displacement: Vec3::new(0.0, -1.0, 0.0),
        };
        assert_eq!(moved.at(0.5).gap(&Vec3::new(0.0, 2.0, 0.0)).value, 1.5);
        assert_eq!(moved.scaled(2.0).placed().gap(&Vec3::new(0.0, 2.0, 0.0)).value, 3.0);
    }

    #[test]
    fn tables_are_validated_naming_the_field() {
        let floor = keys("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 2, 0]\nstatic_friction = 0.5").unwrap();
        assert_eq!(floor.shape, Shape::Plane { point: Vec3::zeros(), normal: Vec3::new(0.0, 1.0, 0.0) });
        assert_eq!(floor.friction, Friction { static_coefficient: 0.5, kinetic_coefficient: 0.5 });
        // A direction whatever its length's square does in f64 (issue 38: 1e-320 and 1e200 were refused as
        // "not non-zero").
        for size in ["1e-320", "1e200", "1.7e308"] {
            let tilted = keys(&format!("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, {size}, {size}]")).unwrap();
            let Shape::Plane { normal, .. } = tilted.shape else { panic!("a plane") };
            assert!((normal - Vec3::new(0.0, 1.0, 1.0) / 2f64.sqrt()).norm() < 1e-15, "{size}: {normal}");
        }
        for (text, needle) in [
            ("shape = \"cone\"", "not known"),
            ("shape = \"plane\"\npoint = [0, 0, 0]", "needs `normal`"),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 0]", "non-zero"),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, inf, 0]", "`normal` must be finite"),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nradius = 1.0", "`radius` does not apply"),
            ("shape = \"sphere\"\ncenter = [0, 0, 0]\nradius = -1.0", "`radius` must be > 0"),
            ("shape = \"sphere\"\ncenter = [0, nan, 0]\nradius = 1.0", "`center` must be finite"),
            ("shape = \"box\"\ncenter = [0, 0, 0]\nhalf_extents = [1, 0, 1]", "`half_extents` must all be > 0"),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nstatic_friction = -0.1", "static_friction"),
            (
                "shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nstatic_friction = 0.3\nkinetic_friction = 0.5",
                "kinetic_friction",
            ),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\ndisplacement = [inf, 0, 0]", "displacement"),
            ("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nfriction = 0.3", "unknown field"),
        ] {
            let e = keys(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
