//! Rigid obstacles a body rests on, presses against or slides over: planes, spheres and boxes, each
//! with a Coulomb friction pair, as a scene's `[[obstacle]]` tables (docs/contact.md).
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

//!
//! Each shape is one file here holding its type, its keys, its gap and, where it is curved, the gap's
//! Hessian (for the FEM contact's Newton matrix), plus one line in [`obstacle_shapes!`]'s list below: the
//! scene files, the models' contact and the FEM find it there.

use nalgebra::Matrix3;
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

/// The gap of a point to an obstacle and the direction in which it grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// Signed distance in m: > 0 free, 0 touching, < 0 inside the obstacle.
    pub value: f64,
    /// Unit gradient of the gap: the direction of the contact force on the body.
    pub normal: Vec3,
}

/// One kind of obstacle shape (a file in this folder, listed in [`obstacle_shapes!`]).
pub trait ShapeKind: Sized + Copy + PartialEq + std::fmt::Debug {
    /// The name a scene file gives it (`shape = "plane"`).
    const NAME: &'static str;
    /// The keys of its `[[obstacle]]` table besides `shape` and the friction and displacement every
    /// obstacle has.
    const KEYS: &'static [&'static str];
    /// An example table's keys (TOML, without `shape`), for the tests that iterate the registry.
    const EXAMPLE: &'static str;
    /// The shape from its table's keys; the message names the offending key.
    fn from_keys(keys: &ShapeKeys) -> Result<Self, String>;
    /// The signed gap of `x` and its gradient. Where the gradient is not defined (a sphere's centre, a
    /// box's medial planes) a fixed choice is made.
    fn gap(&self, x: &Vec3) -> Gap;
    /// The shape moved rigidly by `d`.
    fn moved(&self, d: &Vec3) -> Self;
    /// The shape with every length multiplied by `factor` (> 0) about the origin: the obstacle of a
    /// scene whose geometry is scaled by `factor` (`--size`).
    fn resized(&self, factor: f64) -> Self;
    /// A point that stands for the shape in messages (a plane's point, a centre).
    fn anchor(&self) -> Vec3;
    /// The centre of a solid shape (a ball, a box), which must not start inside the body; `None` for a
    /// half-space or a bowl the body sits in.
    fn solid_centre(&self) -> Option<Vec3> {
        None
    }
    /// `factor` times the gap's Hessian at `x` (whose gap normal is `normal`): a curved obstacle turns
    /// its normal as a vertex slides along it, which the FEM contact's Newton matrix needs (with `factor
    /// = -lambda`). `None` where the shape is flat there (planes, a box's faces; a box's rounded edges and
    /// corners are left out too).
    fn gap_hessian_times(&self, x: &Vec3, normal: &Vec3, factor: f64) -> Option<Matrix3<f64>> {
        let _ = (x, normal, factor);
        None
    }
}

/// The registry of obstacle shapes: each line is `Variant(file::Type)` for a file in this folder whose
/// type implements [`ShapeKind`]. It generates the `mod` and `pub use` lines, [`Shape`] and its dispatch,
/// and the list of names scene files accept.
macro_rules! obstacle_shapes {
    ($($variant:ident($module:ident::$kind:ident)),+ $(,)?) => {
        $(
            mod $module;
            pub use $module::$kind;
        )+

        /// The geometry of a rigid obstacle: one of the registered shapes.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Shape {
            $(
                #[doc = concat!("`shape = \"", stringify!($variant), "\"`: see [`", stringify!($kind), "`].")]
                $variant($kind),
            )+
        }

        /// The shapes' names as scene files spell them, in the registry's order.
        pub const SHAPE_NAMES: &[&str] = &[$(<$kind as ShapeKind>::NAME),+];

        /// Every key some registered shape takes.
        const SHAPE_KEYS: &[&[&str]] = &[$(<$kind as ShapeKind>::KEYS),+];

        /// Each shape's name and example keys ([`ShapeKind::EXAMPLE`]), for the tests.
        #[cfg(test)]
        const SHAPE_EXAMPLES: &[(&str, &str)] = &[$((<$kind as ShapeKind>::NAME, <$kind as ShapeKind>::EXAMPLE)),+];

        impl Shape {
            /// The signed gap of `x` and its gradient (see [`ShapeKind::gap`]).
            pub fn gap(&self, x: &Vec3) -> Gap {
                match self { $(Shape::$variant(s) => s.gap(x)),+ }
            }

            /// The shape moved rigidly by `d`.
            pub fn moved(&self, d: &Vec3) -> Shape {
                match self { $(Shape::$variant(s) => Shape::$variant(s.moved(d))),+ }
            }

            /// The shape with every length multiplied by `factor` about the origin (see [`ShapeKind::resized`]).
            pub fn resized(&self, factor: f64) -> Shape {
                match self { $(Shape::$variant(s) => Shape::$variant(s.resized(factor))),+ }
            }

            /// The shape's kind as the scene file spells it.
            pub fn kind(&self) -> &'static str {
                match self { $(Shape::$variant(_) => <$kind as ShapeKind>::NAME),+ }
            }

            /// A point that stands for the shape in messages.
            pub fn anchor(&self) -> Vec3 {
                match self { $(Shape::$variant(s) => s.anchor()),+ }
            }

            /// The centre of a solid shape (see [`ShapeKind::solid_centre`]).
            pub fn solid_centre(&self) -> Option<Vec3> {
                match self { $(Shape::$variant(s) => s.solid_centre()),+ }
            }

            /// `factor` times the gap's Hessian at `x` (see [`ShapeKind::gap_hessian_times`]).
            pub fn gap_hessian_times(&self, x: &Vec3, normal: &Vec3, factor: f64) -> Option<Matrix3<f64>> {
                match self { $(Shape::$variant(s) => s.gap_hessian_times(x, normal, factor)),+ }
            }

            /// The shape named `name` from its keys.
            fn from_keys(name: &str, keys: &ShapeKeys) -> Option<Result<Shape, String>> {
                match name {
                    $(<$kind as ShapeKind>::NAME => Some(keys.only(<$kind as ShapeKind>::KEYS, name).and_then(|()| {
                        <$kind as ShapeKind>::from_keys(keys).map(Shape::$variant)
                    })),)+
                    _ => None,
                }
            }
        }
    };
}

obstacle_shapes! {
    Plane(plane::Plane),
    Sphere(sphere::Sphere),
    Box(cuboid::Cuboid),
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

    /// This obstacle in a scene whose geometry is multiplied by `factor` about the origin: its shape and
    /// its displacement (lengths) scale, its friction (ratios) does not.
    pub fn resized(&self, factor: f64) -> Obstacle {
        Obstacle { shape: self.shape.resized(factor), displacement: self.displacement * factor, ..self.clone() }
    }
}

/// An `[[obstacle]]` table as written: the keys every obstacle has, and the shape's own.
#[derive(Debug, Deserialize)]
pub(crate) struct ObstacleKeys {
    shape: String,
    #[serde(default)]
    static_friction: f64,
    kinetic_friction: Option<f64>,
    displacement: Option<[f64; 3]>,
    #[serde(flatten)]
    rest: toml::Table,
}

/// A shape's keys from its `[[obstacle]]` table, read with the checks every shape wants.
#[derive(Debug)]
pub struct ShapeKeys<'a> {
    shape: &'a str,
    table: &'a toml::Table,
}

fn finite3(key: &str, v: [f64; 3]) -> Result<Vec3, String> {
    if v.iter().all(|x| x.is_finite()) { Ok(Vec3::from(v)) } else { Err(format!("`{key}` must be finite, got {v:?}")) }
}

fn number_of(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

impl ShapeKeys<'_> {
    /// A number, if given.
    pub fn number(&self, key: &str) -> Result<Option<f64>, String> {
        self.table
            .get(key)
            .map(|v| number_of(v).ok_or_else(|| format!("`{key}` must be a number, got {v}")))
            .transpose()
    }

    /// A true/false flag, if given.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, String> {
        self.table
            .get(key)
            .map(|v| v.as_bool().ok_or_else(|| format!("`{key}` must be true or false, got {v}")))
            .transpose()
    }

    /// A vector of three finite numbers (m), if given.
    pub fn vec3(&self, key: &str) -> Result<Option<Vec3>, String> {
        let Some(value) = self.table.get(key) else { return Ok(None) };
        let bad = || format!("`{key}` must be three numbers [x, y, z], got {value}");
        let items = value.as_array().ok_or_else(bad)?;
        let numbers: Vec<f64> = items.iter().map(number_of).collect::<Option<_>>().ok_or_else(bad)?;
        let v: [f64; 3] = numbers.try_into().map_err(|_| bad())?;
        finite3(key, v).map(Some)
    }

    /// A vector the shape cannot do without.
    pub fn need_vec3(&self, key: &str) -> Result<Vec3, String> {
        self.vec3(key)?.ok_or_else(|| format!("a {} needs `{key}`", self.shape))
    }

    /// Refuses a key that is not among `allowed`: another shape's (`radius` on a plane) or none's.
    fn only(&self, allowed: &[&str], shape: &str) -> Result<(), String> {
        match self.table.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(key) if SHAPE_KEYS.iter().any(|keys| keys.contains(&key.as_str())) => {
                Err(format!("`{key}` does not apply to a {shape}"))
            }
            Some(key) => Err(format!(
                "unknown field `{key}`: a {shape} takes {}, and every obstacle shape, static_friction, \
                 kinetic_friction and displacement",
                allowed.join(", ")
            )),
            None => Ok(()),
        }
    }
}

impl ObstacleKeys {
    /// Validates the table into an obstacle named `key`. The message names the offending field.
    pub(crate) fn obstacle(&self, key: &str) -> Result<Obstacle, String> {
        let keys = ShapeKeys { shape: &self.shape, table: &self.rest };
        let shape = Shape::from_keys(&self.shape, &keys).unwrap_or_else(|| {
            Err(format!("`shape = \"{}\"` is not known: expected {}", self.shape, SHAPE_NAMES.join(", ")))
        })?;
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

/// How far (m) a vertex meant to touch an obstacle may lie inside it by rounding: a billionth of the
/// body's extent.
pub fn touch_tolerance(vertices: &[Vec3]) -> f64 {
    1e-9 * crate::load::extent(vertices)
}

/// A body (`body`: "body" or "sheet") that starts inside an obstacle has no admissible start: the first
/// vertex more than a billionth of the body's extent deep in one (the tolerance forgives the rounding of a
/// vertex meant to touch: a cube standing on a floor, a sheet laid on a sphere's apex) is refused as
/// (the obstacle's key, the message naming the vertex, its depth and `scene`).
pub fn check_start(obstacles: &[Obstacle], vertices: &[Vec3], body: &str, scene: &str) -> Result<(), (String, String)> {
    let touch = touch_tolerance(vertices);
    let first = obstacles.iter().find_map(|o| {
        vertices.iter().enumerate().find_map(|(v, x)| {
            let g = o.shape.gap(x).value;
            (g < -touch).then_some((o, v, g))
        })
    });
    match first {
        None => Ok(()),
        Some((o, v, gap)) => Err((
            o.key.clone(),
            format!(
                "the {body} starts inside this {}: vertex {v} at {:?} is {:e} m deep in it (scene `{scene}`; \
                 obstacles start clear of the {body} or touching it, and `displacement` moves them in)",
                o.shape.kind(),
                vertices[v].as_slice(),
                -gap,
            ),
        )),
    }
}

/// The first solid obstacle (ball or box) whose centre starts inside the body, as (obstacle index,
/// tetrahedron): such an obstacle overlaps the body even where no vertex lies in it (a ball inside the
/// unit cube at N = 1, whose vertices are its corners; it was ignored at N = 1, refused at N = 2).
/// A centre on a face, an edge or the body's surface counts (half the ball is then inside); `tolerance`
/// (m) is the rounding allowed outside a tetrahedron.
pub fn first_engulfed(obstacles: &[Obstacle], mesh: &crate::TetMesh, tolerance: f64) -> Option<(usize, usize)> {
    let vertices = mesh.vertices();
    obstacles.iter().enumerate().find_map(|(i, o)| {
        let center = o.shape.solid_centre()?;
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
            Shape::Plane(Plane { point: Vec3::new(0.1, 0.2, 0.3), normal: Vec3::new(1.0, 2.0, -2.0) / 3.0 }),
            Shape::Sphere(Sphere { center: Vec3::new(0.5, 1.5, 0.5), radius: 0.4, inside: false }),
            Shape::Sphere(Sphere { center: Vec3::new(0.5, 1.5, 0.5), radius: 2.0, inside: true }),
            Shape::Box(Cuboid { center: Vec3::new(0.5, -0.5, 0.5), half_extents: Vec3::new(0.3, 0.5, 0.2) }),
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

    /// Every registered shape reads from its example, and its gap Hessian is the derivative of its normal
    /// (central differences) where it gives one, the normal constant where it gives none.
    #[test]
    fn every_shape_reads_and_its_gap_hessian_is_the_normals_derivative() {
        assert_eq!(SHAPE_EXAMPLES.len(), SHAPE_NAMES.len());
        let points = [Vec3::new(0.3, 0.7, 0.1), Vec3::new(0.9, 0.05, 0.6), Vec3::new(0.55, 2.2, 0.45)];
        for (name, example) in SHAPE_EXAMPLES {
            let o = keys(&format!("shape = \"{name}\"\n{example}")).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(o.shape.kind(), *name);
            let h = 1e-6;
            for x in &points {
                let g = o.shape.gap(x);
                let mut jacobian = Matrix3::zeros();
                for k in 0..3 {
                    let mut e = Vec3::zeros();
                    e[k] = h;
                    let column = (o.shape.gap(&(x + e)).normal - o.shape.gap(&(x - e)).normal) / (2.0 * h);
                    jacobian.set_column(k, &column);
                }
                let hessian =
                    o.shape.gap_hessian_times(x, &g.normal, -2.0).map(|m| m / -2.0).unwrap_or_else(Matrix3::zeros);
                assert!((hessian - jacobian).norm() < 1e-7, "{name} at {x:?}: {hessian} vs {jacobian}");
            }
        }
    }

    #[test]
    fn gaps_have_the_sign_of_freedom() {
        let floor = Shape::Plane(Plane { point: Vec3::zeros(), normal: Vec3::new(0.0, 1.0, 0.0) });
        assert_eq!(floor.gap(&Vec3::new(3.0, 0.25, -1.0)).value, 0.25);
        assert_eq!(floor.gap(&Vec3::new(3.0, -0.5, -1.0)).value, -0.5);
        let ball = Shape::Sphere(Sphere { center: Vec3::zeros(), radius: 1.0, inside: false });
        assert_eq!(ball.gap(&Vec3::new(0.0, 3.0, 0.0)).value, 2.0);
        let bowl = Shape::Sphere(Sphere { center: Vec3::zeros(), radius: 1.0, inside: true });
        assert_eq!(bowl.gap(&Vec3::new(0.0, 0.25, 0.0)).value, 0.75);
        assert_eq!(bowl.gap(&Vec3::new(0.0, 0.25, 0.0)).normal, Vec3::new(0.0, -1.0, 0.0));
        let block = Shape::Box(Cuboid { center: Vec3::zeros(), half_extents: Vec3::new(1.0, 2.0, 3.0) });
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
        assert_eq!(floor.shape, Shape::Plane(Plane { point: Vec3::zeros(), normal: Vec3::new(0.0, 1.0, 0.0) }));
        assert_eq!(floor.friction, Friction { static_coefficient: 0.5, kinetic_coefficient: 0.5 });
        // A direction whatever its length's square does in f64 (1e-320 and 1e200 were refused as
        // "not non-zero").
        for size in ["1e-320", "1e200", "1.7e308"] {
            let tilted = keys(&format!("shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, {size}, {size}]")).unwrap();
            let Shape::Plane(Plane { normal, .. }) = tilted.shape else { panic!("a plane") };
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
