use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{Body, CubeSplit, MassModel, PlaneSelector, ReferenceTable, SceneError, Vec3, unit_cube_split};

/// The built-in scenes, compiled into the library so that `--scene gravity-floor` works from any
/// directory. Their sources are the files under `scenes/`.
pub const BUILTIN_SCENES: [(&str, &str); 4] = [
    ("gravity-floor", include_str!("../../../scenes/gravity-floor.toml")),
    ("gravity-wall", include_str!("../../../scenes/gravity-wall.toml")),
    ("gravity-ceiling", include_str!("../../../scenes/gravity-ceiling.toml")),
    ("gravity", include_str!("../../../scenes/gravity.toml")),
];

pub(crate) fn builtin_names() -> String {
    BUILTIN_SCENES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    name: String,
    #[serde(default)]
    description: String,
    body: Option<BodyDef>,
    held: Option<Vec<HeldDef>>,
    load: Option<LoadDef>,
    material: Option<MaterialDef>,
    compound: Option<Vec<String>>,
    reference: Option<ReferenceTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyDef {
    shape: String,
    #[serde(default = "default_n")]
    n: i64,
}

fn default_n() -> i64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeldDef {
    plane: String,
    #[serde(default = "default_tolerance")]
    tolerance: f64,
}

fn default_tolerance() -> f64 {
    PlaneSelector::DEFAULT_TOLERANCE
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct LoadDef {
    #[serde(default = "default_gravity")]
    gravity: [f64; 3],
}

fn default_gravity() -> [f64; 3] {
    [0.0, -9.81, 0.0]
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialDef {
    #[serde(default = "default_density")]
    density: f64,
    #[serde(default = "default_mass_model")]
    mass_model: MassModel,
}

impl Default for MaterialDef {
    fn default() -> Self {
        Self { density: default_density(), mass_model: default_mass_model() }
    }
}

fn default_density() -> f64 {
    1.0
}
fn default_mass_model() -> MassModel {
    MassModel::Lumped
}

/// A basic scene: the unit cube, held on one or more planes, loaded by gravity.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Scene name (e.g. `gravity-floor`).
    pub name: String,
    /// One line saying what the scene is.
    pub description: String,
    /// Where it came from: a file path or `builtin:<name>`.
    pub origin: String,
    /// Default mesh resolution N, used when a run does not give one.
    pub default_n: usize,
    /// Planes whose vertices are held.
    pub held: Vec<PlaneSelector>,
    /// Gravitational acceleration, m/s^2.
    pub gravity: Vec3,
    /// Density, kg/m^3.
    pub density: f64,
    /// How mass is spread over the vertices.
    pub mass_model: MassModel,
    /// The reference the scene asks for (its `[reference]` table; empty: the default).
    pub reference: ReferenceTable,
}

/// What a `--scene` argument names: one basic scene, or a compound of several evaluated together
/// with the same parameters (the thesis's `Gravity` scene).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneSet {
    name: String,
    scenes: Vec<Scene>,
    compound: bool,
}

impl SceneSet {
    /// A built-in scene by name.
    pub fn builtin(name: &str) -> Result<Self, SceneError> {
        let (_, text) =
            BUILTIN_SCENES.iter().find(|(n, _)| *n == name).ok_or_else(|| SceneError::Unknown(name.to_string()))?;
        Self::parse(text, &format!("builtin:{name}"), None)
    }

    /// A built-in scene name, or else a path to a TOML scene file.
    pub fn load(name_or_path: &str) -> Result<Self, SceneError> {
        if BUILTIN_SCENES.iter().any(|(n, _)| *n == name_or_path) {
            return Self::builtin(name_or_path);
        }
        let path = Path::new(name_or_path);
        if path.exists() {
            return Self::from_file(path);
        }
        Err(SceneError::Unknown(name_or_path.to_string()))
    }

    /// Reads a scene file. Parts of a compound scene are built-in names or paths relative to the file.
    pub fn from_file(path: &Path) -> Result<Self, SceneError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, &path.display().to_string(), path.parent())
    }

    /// Parses scene TOML. `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str, dir: Option<&Path>) -> Result<Self, SceneError> {
        let file: SceneFile = toml::from_str(text)
            .map_err(|e| SceneError::Parse { origin: origin.to_string(), message: e.to_string().trim().to_string() })?;
        let invalid = |key: &str, message: String| SceneError::Invalid {
            origin: origin.to_string(),
            key: key.to_string(),
            message,
        };
        if let Some(parts) = file.compound {
            if file.body.is_some() || file.held.is_some() || file.load.is_some() || file.material.is_some() {
                return Err(invalid(
                    "compound",
                    "a compound scene lists its parts only; body, held, load and material belong to the parts".into(),
                ));
            }
            if parts.is_empty() {
                return Err(invalid("compound", "lists no scenes".into()));
            }
            let mut scenes = Vec::new();
            for part in &parts {
                let set = if BUILTIN_SCENES.iter().any(|(n, _)| n == part) {
                    Self::builtin(part)?
                } else {
                    let p: PathBuf = dir.map(|d| d.join(part)).unwrap_or_else(|| PathBuf::from(part));
                    if !p.exists() {
                        return Err(invalid(
                            "compound",
                            format!("part `{part}` is neither a built-in scene nor a file"),
                        ));
                    }
                    Self::from_file(&p)?
                };
                if set.compound {
                    return Err(invalid(
                        "compound",
                        format!("part `{part}` is itself compound; nesting is not supported"),
                    ));
                }
                scenes.extend(set.scenes.into_iter().map(|mut s| {
                    if let Some(r) = &file.reference {
                        s.reference = r.over(&s.reference);
                    }
                    s
                }));
            }
            return Ok(Self { name: file.name, scenes, compound: true });
        }
        let body = file.body.ok_or_else(|| invalid("body", "missing: a basic scene needs a [body] table".into()))?;
        if body.shape != "unit-cube" {
            return Err(invalid("body.shape", format!("`{}` is not supported: expected `unit-cube`", body.shape)));
        }
        if body.n < 1 {
            return Err(invalid("body.n", format!("mesh resolution must be at least 1, got {}", body.n)));
        }
        let held_defs = file.held.unwrap_or_default();
        if held_defs.is_empty() {
            return Err(invalid(
                "held",
                "the body is not held at all: with no fixed vertex it has no rest state (the FEM stiffness \
                 matrix is singular). Add e.g. [[held]] plane = \"y = 0\""
                    .into(),
            ));
        }
        let mut held = Vec::new();
        for (i, h) in held_defs.iter().enumerate() {
            held.push(
                PlaneSelector::parse(&h.plane, h.tolerance).map_err(|m| invalid(&format!("held[{i}].plane"), m))?,
            );
        }
        let load = file.load.unwrap_or_default();
        if load.gravity.iter().any(|g| !g.is_finite()) {
            return Err(invalid("load.gravity", "components must be finite".into()));
        }
        let material = file.material.unwrap_or_default();
        if !(material.density.is_finite() && material.density > 0.0) {
            return Err(invalid("material.density", format!("must be > 0 kg/m^3, got {}", material.density)));
        }
        let scene = Scene {
            name: file.name.clone(),
            description: file.description,
            origin: origin.to_string(),
            default_n: body.n as usize,
            held,
            gravity: Vec3::from(load.gravity),
            density: material.density,
            mass_model: material.mass_model,
            reference: file.reference.unwrap_or_default(),
        };
        Ok(Self { name: file.name, scenes: vec![scene], compound: false })
    }

    /// The scene set's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The basic scenes (one, or the parts of a compound).
    pub fn scenes(&self) -> &[Scene] {
        &self.scenes
    }

    /// Whether this is a compound scene (its error is the norm of its parts' errors).
    pub fn is_compound(&self) -> bool {
        self.compound
    }

    /// Multiplies the gravity of every scene in the set by `factor` (a load level).
    pub fn with_gravity_scale(mut self, factor: f64) -> Self {
        for s in &mut self.scenes {
            s.gravity *= factor;
        }
        self
    }

    /// Overrides the mass model of every scene in the set.
    pub fn with_mass_model(mut self, model: MassModel) -> Self {
        for s in &mut self.scenes {
            s.mass_model = model;
        }
        self
    }
}

impl Scene {
    /// Builds the body at resolution `n`: mesh, masses, held vertices. Fails if a held plane selects no
    /// vertex (a typo such as `y = 2` would otherwise leave the body floating).
    pub fn body(&self, n: usize) -> Result<Body, SceneError> {
        self.body_split(n, CubeSplit::Five)
    }

    /// [`body`](Self::body) on the cube split as `split` says (the FEM reference's mesh variants).
    pub fn body_split(&self, n: usize, split: CubeSplit) -> Result<Body, SceneError> {
        let mesh =
            unit_cube_split(n, split).map_err(|source| SceneError::Mesh { origin: self.origin.clone(), source })?;
        let mut held = vec![false; mesh.vertices().len()];
        for (i, plane) in self.held.iter().enumerate() {
            let mut any = false;
            for (v, p) in mesh.vertices().iter().enumerate() {
                if plane.contains(p) {
                    held[v] = true;
                    any = true;
                }
            }
            if !any {
                return Err(SceneError::Invalid {
                    origin: self.origin.clone(),
                    key: format!("held[{i}].plane"),
                    message: format!("plane `{plane}` selects no vertex of the unit cube (coordinates are in [0, 1])"),
                });
            }
        }
        let masses = self.mass_model.masses(&mesh, self.density);
        Ok(Body {
            scene: self.name.clone(),
            n,
            mesh,
            masses,
            mass_model: self.mass_model,
            held,
            gravity: self.gravity,
            density: self.density,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        SceneSet::parse(text, "test.toml", None).unwrap_err().to_string()
    }

    #[test]
    fn builtins_load_and_hold_the_right_face() {
        for (name, axis, value) in [("gravity-floor", 1, 0.0), ("gravity-wall", 2, 0.0), ("gravity-ceiling", 1, 1.0)] {
            let set = SceneSet::load(name).unwrap();
            assert!(!set.is_compound());
            let body = set.scenes()[0].body(3).unwrap();
            for (v, p) in body.mesh.vertices().iter().enumerate() {
                assert_eq!(body.held[v], p[axis] == value, "{name}: vertex {v}");
            }
            assert_eq!(body.held_indices().len(), 16);
            assert_eq!(body.gravity, Vec3::new(0.0, -9.81, 0.0));
        }
        let gravity = SceneSet::load("gravity").unwrap();
        assert!(gravity.is_compound());
        let names: Vec<_> = gravity.scenes().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["gravity-floor", "gravity-wall", "gravity-ceiling"]);
    }

    #[test]
    fn bad_scene_files_name_the_problem() {
        let ok = "name = \"x\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n";
        assert!(SceneSet::parse(ok, "t", None).is_ok());
        let e = err(&format!("{ok}colour = 3\n"));
        assert!(e.contains("test.toml") && e.contains("colour"), "{e}");
        let e = err("name = \"x\"\n[body]\nshape = \"unit-cube\"\nn = \"two\"\n[[held]]\nplane = \"y = 0\"\n");
        assert!(e.contains("n") && e.contains("test.toml"), "{e}");
        let e = err("name = \"x\"\n[body]\nshape = \"unit-cube\"\nn = 0\n[[held]]\nplane = \"y = 0\"\n");
        assert!(e.contains("body.n") && e.contains("at least 1"), "{e}");
        let e = err("name = \"x\"\n[body]\nshape = \"unit-cube\"\n");
        assert!(e.contains("held") && e.contains("not held"), "{e}");
        let e = err("[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n");
        assert!(e.contains("name"), "{e}");
        let e = err("name = \"x\"\n[body]\nshape = \"sphere\"\n[[held]]\nplane = \"y = 0\"\n");
        assert!(e.contains("body.shape"), "{e}");
        let e = err(&ok.replace("y = 0", "q = 0"));
        assert!(e.contains("held[0].plane"), "{e}");
        let set = SceneSet::parse(&ok.replace("y = 0", "y = 2"), "test.toml", None).unwrap();
        let e = set.scenes()[0].body(2).unwrap_err().to_string();
        assert!(e.contains("selects no vertex") && e.contains("test.toml"), "{e}");
        let e = err("name = \"x\"\ncompound = []\n");
        assert!(e.contains("compound"), "{e}");
        assert!(SceneSet::load("no-such-scene").unwrap_err().to_string().contains("gravity-floor"));
    }

    #[test]
    fn mass_model_is_a_scene_option() {
        let text = "name = \"x\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n[material]\nmass_model = \"uniform\"\n";
        let set = SceneSet::parse(text, "t", None).unwrap();
        let body = set.scenes()[0].body(1).unwrap();
        assert_eq!(body.mass_model, MassModel::Uniform);
        assert!(body.masses.iter().all(|&m| (m - 0.125).abs() < 1e-15));
    }
}
