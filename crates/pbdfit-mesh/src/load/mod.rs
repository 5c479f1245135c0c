//! Load cases besides gravity (docs/meshes-and-loads.md): a uniform surface traction on selected
//! boundary faces, a prescribed displacement of selected vertices, and a torsion, i.e. a prescribed
//! rotation of selected vertices about an axis, a pressure normal to a sheet (follower or dead), and a
//! steady wind on a sheet (the quadratic drag of the air's velocity relative to the cloth).
//!
//! Sign conventions: a traction is the force per area (Pa) that acts on the body's surface, so
//! `[0, 10, 0]` on the top face `y = 1` pulls it up (tension) and `[0, -10, 0]` pushes it down
//! (compression). A rotation is right-handed about its axis by `angle` radians.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::selector::SelectorKeys;
use crate::{Selector, TetMesh, Vec3};

mod displacement;
mod pressure;
mod rotation;
mod traction;
mod wind;

pub use displacement::Displacement;
pub use pressure::{Pressure, TrianglePressure};
pub use rotation::Rotation;
pub use traction::Traction;
pub use wind::{TriangleWind, Wind};

/// What a kind of load is and does; one file each in this folder.
///
/// **Adding a kind of load** is one file here (a struct with its selector and values, implementing this
/// trait: its `[[load.<name>]]` keys and their parsing, whether it holds the vertices it selects, the
/// displacement it prescribes or the nodal forces it gives) plus its `mod` line and one line in the
/// [`loads!`] list below. The scene parser, the checks and messages, the body's arrays and every test
/// that iterates [`LoadKind::ALL`] read that list; every consumer of a body (FEM, PBD, the error) reads
/// only `held`, `prescribed` and `forces`, so no other crate changes.
pub trait LoadCase: Clone + PartialEq + std::fmt::Debug {
    /// The scene-file name (`[[load.<NAME>]]`).
    const NAME: &'static str;
    /// The keys of its table besides the selector's.
    const KEYS: &'static [&'static str];
    /// Whether it holds the vertices it selects (prescribes their displacement), so that a body with
    /// one needs no `[[held]]`.
    const HOLDS: bool;

    /// The load from its table: the selector, and the values of its [`Self::KEYS`] (the caller has
    /// refused any other key). The message says what is wrong; the caller names the table.
    fn parse(on: Selector, keys: &Keys) -> Result<Self, String>;

    /// The vertices it acts on.
    fn selector(&self) -> &Selector;

    /// The load multiplied by `factor` (a load level).
    fn scaled(&self, factor: f64) -> Self;

    /// The displacement (m) it prescribes to a selected vertex at `x`, for a kind that [`Self::HOLDS`].
    fn prescribed_at(&self, x: &Vec3) -> Option<Vec3>;

    /// The nodal forces (N, per vertex of `mesh`) it gives when its selector picks `selected` (a mask),
    /// for a kind that gives forces (`None` for one that prescribes). `held` and `fixed_by` (which key
    /// first held each vertex) let it refuse a load on held vertices, naming who holds them.
    fn forces(
        &self,
        mesh: &TetMesh,
        selected: &[bool],
        held: &[bool],
        fixed_by: &[Option<String>],
    ) -> Result<Option<Vec<Vec3>>, String>;
}

/// One `[[load.<kind>]]` table's own keys, with typed accessors whose messages name the key.
#[derive(Debug, Clone)]
pub struct Keys(toml::Table);

impl Keys {
    /// A vector of three finite numbers (m, Pa, ...).
    pub fn vector(&self, key: &str) -> Result<Vec3, String> {
        let value = self.0.get(key).ok_or_else(|| format!("missing `{key}`"))?;
        let numbers: Option<Vec<f64>> = value.as_array().and_then(|a| a.iter().map(number).collect());
        match numbers {
            Some(v) if v.len() == 3 => finite([v[0], v[1], v[2]], key),
            _ => Err(format!("`{key}` must be three numbers, e.g. [0.0, 1.0, 0.0]")),
        }
    }

    /// One number.
    pub fn scalar(&self, key: &str) -> Result<f64, String> {
        let value = self.0.get(key).ok_or_else(|| format!("missing `{key}`"))?;
        number(value).ok_or_else(|| format!("`{key}` must be a number"))
    }

    /// One number, `default` where the key is not given.
    pub fn scalar_or(&self, key: &str, default: f64) -> Result<f64, String> {
        if self.0.contains_key(key) { self.scalar(key) } else { Ok(default) }
    }

    /// A boolean, `default` where the key is not given.
    pub fn boolean_or(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.0.get(key) {
            None => Ok(default),
            Some(value) => value.as_bool().ok_or_else(|| format!("`{key}` must be true or false")),
        }
    }
}

fn number(value: &toml::Value) -> Option<f64> {
    value.as_float().or_else(|| value.as_integer().map(|i| i as f64))
}

fn finite(v: [f64; 3], what: &str) -> Result<Vec3, String> {
    if v.iter().all(|x| x.is_finite()) { Ok(Vec3::from(v)) } else { Err(format!("{what} must be finite")) }
}

/// The load registry: generates [`Load`] (one variant per kind, holding the kind's struct), [`LoadKind`]
/// and their dispatch, from one line per kind.
macro_rules! loads {
    ($( $(#[$doc:meta])* $variant:ident => $case:ty ),+ $(,)?) => {
        /// One load of a scene besides gravity.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Load {
            $( $(#[$doc])* $variant($case), )+
        }

        /// The kinds of load, each with its scene-file table (`[[load.<name>]]`) and keys: the one list
        /// the parser, the checks and the messages read.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum LoadKind {
            $( $(#[$doc])* $variant, )+
        }

        impl LoadKind {
            /// Every kind, in the order a scene file's loads are read.
            pub const ALL: &'static [LoadKind] = &[$(LoadKind::$variant),+];

            /// The scene-file name (`[[load.traction]]`, ...).
            pub fn name(self) -> &'static str {
                match self {
                    $(LoadKind::$variant => <$case as LoadCase>::NAME,)+
                }
            }

            /// The keys of its table besides the selector's.
            pub fn keys(self) -> &'static [&'static str] {
                match self {
                    $(LoadKind::$variant => <$case as LoadCase>::KEYS,)+
                }
            }

            /// Whether loads of this kind hold the vertices they select (prescribe their displacement), so
            /// that a body with one needs no `[[held]]`.
            pub fn holds(self) -> bool {
                match self {
                    $(LoadKind::$variant => <$case as LoadCase>::HOLDS,)+
                }
            }

            fn parse(self, on: Selector, keys: &Keys) -> Result<Load, String> {
                match self {
                    $(LoadKind::$variant => <$case as LoadCase>::parse(on, keys).map(Load::$variant),)+
                }
            }
        }

        impl Load {
            /// The kind of this load.
            pub fn load_kind(&self) -> LoadKind {
                match self {
                    $(Load::$variant(_) => LoadKind::$variant,)+
                }
            }

            /// The selector of the load.
            pub fn selector(&self) -> &Selector {
                match self {
                    $(Load::$variant(l) => l.selector(),)+
                }
            }

            /// The load multiplied by `factor` (a load level): the traction, the displacement or the angle.
            pub fn scaled(&self, factor: f64) -> Self {
                match self {
                    $(Load::$variant(l) => Load::$variant(l.scaled(factor)),)+
                }
            }

            /// The prescribed displacement of a vertex at `x` (m), for the kinds that prescribe one.
            pub fn prescribed_at(&self, x: &Vec3) -> Option<Vec3> {
                match self {
                    $(Load::$variant(l) => l.prescribed_at(x),)+
                }
            }

            fn forces(
                &self,
                mesh: &TetMesh,
                selected: &[bool],
                held: &[bool],
                fixed_by: &[Option<String>],
            ) -> Result<Option<Vec<Vec3>>, String> {
                match self {
                    $(Load::$variant(l) => l.forces(mesh, selected, held, fixed_by),)+
                }
            }
        }
    };
}

loads! {
    /// A uniform surface traction on selected boundary faces ([`Traction`]).
    Traction => Traction,
    /// A prescribed displacement of the selected vertices ([`Displacement`]).
    Displacement => Displacement,
    /// Torsion: a prescribed rotation of the selected vertices ([`Rotation`]).
    Rotation => Rotation,
    /// A uniform pressure normal to a sheet, follower or dead ([`Pressure`]; sheets only).
    Pressure => Pressure,
    /// A steady wind on a sheet, the quadratic drag of the air's relative velocity ([`Wind`]; sheets only).
    Wind => Wind,
}

impl Load {
    /// The scene-file key of this kind of load (`traction`, `displacement`, `rotation`, `pressure`, `wind`).
    pub fn kind(&self) -> &'static str {
        self.load_kind().name()
    }

    /// Whether the load holds the vertices it selects ([`LoadKind::holds`]).
    pub fn holds(&self) -> bool {
        self.load_kind().holds()
    }
}

/// Nodal forces (N) of a uniform traction `t` (Pa) on `faces`: `t A / 3` to each vertex of a face of
/// area `A`.
pub fn traction_forces(mesh: &TetMesh, faces: &[[usize; 3]], traction: Vec3) -> Vec<Vec3> {
    let x = mesh.vertices();
    let mut f = vec![Vec3::zeros(); x.len()];
    for &[a, b, c] in faces {
        let area = 0.5 * (x[b] - x[a]).cross(&(x[c] - x[a])).norm();
        for v in [a, b, c] {
            f[v] += traction * (area / 3.0);
        }
    }
    f
}

/// The boundary faces whose three vertices are all in `selected` (a mask).
pub fn selected_boundary_faces(mesh: &TetMesh, selected: &[bool]) -> Vec<[usize; 3]> {
    mesh.boundary_faces().into_iter().filter(|f| f.iter().all(|&v| selected[v])).collect()
}

/// Vertices not connected through tetrahedra to any vertex in `anchored` (a mask), ascending: with
/// no anchor they would fall forever.
pub fn unanchored_vertices(mesh: &TetMesh, anchored: &[bool]) -> Vec<usize> {
    let nv = mesh.vertices().len();
    let mut adjacency: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for tet in mesh.tets() {
        for &a in tet {
            for &b in tet {
                if a != b {
                    adjacency[a].push(b);
                }
            }
        }
    }
    let mut reached = anchored.to_vec();
    let mut stack: Vec<usize> = (0..nv).filter(|&v| anchored[v]).collect();
    while let Some(v) = stack.pop() {
        for &w in &adjacency[v] {
            if !reached[w] {
                reached[w] = true;
                stack.push(w);
            }
        }
    }
    // Vertices in no tetrahedron carry no mass and no load; they are not part of the body.
    (0..nv).filter(|&v| !reached[v] && !adjacency[v].is_empty()).collect()
}

/// A `[load]` table: `gravity`, and an array of tables per kind of load (`[[load.traction]]`, ...).
#[derive(Debug, Clone, Deserialize, Default)]
pub(crate) struct LoadTables {
    pub gravity: Option<[f64; 3]>,
    /// The other keys: one array of tables per kind, by the kind's name.
    #[serde(flatten)]
    kinds: BTreeMap<String, toml::Value>,
}

/// The selector's keys of a load table.
const SELECTOR_KEYS: [&str; 4] = ["plane", "box", "group", "tolerance"];

impl LoadTables {
    /// The loads, each with its key (`load.traction[0]`), in [`LoadKind::ALL`]'s order and file order
    /// per kind; or the key and what is wrong with it.
    pub fn loads(&self) -> Result<Vec<(String, Load)>, (String, String)> {
        if let Some(name) = self.kinds.keys().find(|k| !LoadKind::ALL.iter().any(|kind| kind.name() == k.as_str())) {
            let known: Vec<String> = LoadKind::ALL.iter().map(|k| format!("[[load.{}]]", k.name())).collect();
            return Err((
                format!("load.{name}"),
                format!("unknown key; a [load] table has gravity and the loads {}", known.join(", ")),
            ));
        }
        let mut loads = Vec::new();
        for &kind in LoadKind::ALL {
            let Some(value) = self.kinds.get(kind.name()) else { continue };
            let tables = value.as_array().ok_or_else(|| {
                (format!("load.{}", kind.name()), format!("must be an array of tables, [[load.{}]]", kind.name()))
            })?;
            for (i, t) in tables.iter().enumerate() {
                let key = format!("load.{}[{i}]", kind.name());
                let load = parse_table(kind, t).map_err(|m| (key.clone(), m))?;
                loads.push((key, load));
            }
        }
        Ok(loads)
    }
}

/// One `[[load.<kind>]]` table as a load of `kind`.
fn parse_table(kind: LoadKind, value: &toml::Value) -> Result<Load, String> {
    let table = value.as_table().ok_or_else(|| "must be a table".to_string())?;
    let (selector, own): (toml::Table, toml::Table) =
        table.clone().into_iter().partition(|(k, _)| SELECTOR_KEYS.contains(&k.as_str()));
    let allowed = kind.keys();
    if let Some(name) = own.keys().find(|k| !allowed.contains(&k.as_str())) {
        let belongs = LoadKind::ALL.iter().any(|k| k.keys().contains(&name.as_str()));
        return Err(if belongs {
            format!("`{name}` does not belong to a {} load (it takes {})", kind.name(), allowed.join(", "))
        } else {
            format!(
                "unknown key `{name}`: a {} load takes {} and a selector ({})",
                kind.name(),
                allowed.join(", "),
                SELECTOR_KEYS.join(", ")
            )
        });
    }
    let keys: SelectorKeys =
        toml::Value::Table(selector).try_into().map_err(|e: toml::de::Error| e.message().to_string())?;
    kind.parse(keys.selector()?, &Keys(own))
}

/// What a body's loads give its vertices: held flags, prescribed displacements (m) and nodal forces (N)
/// besides gravity.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AppliedLoads {
    pub held: Vec<bool>,
    pub prescribed: Vec<Vec3>,
    pub forces: Vec<Vec3>,
}

/// Applies the held selectors and the loads to a mesh. Errors name the key and what is wrong: a
/// selector that selects nothing, a traction on held faces, a vertex prescribed twice differently, a
/// prescribed displacement larger than the body, a body not connected to its held set (unless
/// `obstacles` is set: then a part may rest on an obstacle instead).
///
/// A scene scaled by `scale` (`--size`) selects on `select_on`, its unscaled vertices (the frame its
/// file is written in), and prescribes `scale` times the unscaled displacement; forces are computed on
/// `mesh`, the scaled body (a traction in Pa on its true areas).
pub(crate) fn apply(
    mesh: &TetMesh,
    select_on: &[Vec3],
    scale: f64,
    groups: &BTreeMap<String, Vec<usize>>,
    held_selectors: &[Selector],
    loads: &[(String, Load)],
    obstacles: bool,
) -> Result<AppliedLoads, (String, String)> {
    let x = select_on;
    let nv = x.len();
    let mut held = vec![false; nv];
    let mut prescribed = vec![Vec3::zeros(); nv];
    // Which key first fixed each vertex, to name both in a conflict.
    let mut fixed_by: Vec<Option<String>> = vec![None; nv];
    for (i, s) in held_selectors.iter().enumerate() {
        let key = format!("held[{i}]");
        let selected = s.select(x, groups).map_err(|m| (key.clone(), m))?;
        if selected.is_empty() {
            return Err((key, format!("{s} selects no vertex of the body")));
        }
        for v in selected {
            held[v] = true;
            fixed_by[v].get_or_insert_with(|| key.clone());
        }
    }
    let size = extent(x);
    let mut forces = vec![Vec3::zeros(); nv];
    for (key, load) in loads {
        let s = load.selector();
        let selected = s.select(x, groups).map_err(|m| (key.clone(), m))?;
        if selected.is_empty() {
            return Err((key.clone(), format!("{s} selects no vertex of the body")));
        }
        if load.holds() {
            for v in selected {
                let u = load.prescribed_at(&x[v]).expect("a load that holds prescribes");
                if !u.iter().all(|c| c.is_finite()) || u.norm() > size {
                    return Err((
                        key.clone(),
                        format!(
                            "prescribes a displacement of {:.3e} m at vertex {v}, larger than the body \
                             ({size:.3e} m across)",
                            u.norm()
                        ),
                    ));
                }
                if let Some(other) = &fixed_by[v]
                    && prescribed[v] != u * scale
                {
                    return Err((
                        key.clone(),
                        format!(
                            "vertex {v} at {:?} is also fixed by {other} with a different displacement",
                            x[v].as_slice()
                        ),
                    ));
                }
                held[v] = true;
                prescribed[v] = u * scale;
                fixed_by[v].get_or_insert_with(|| key.clone());
            }
        } else {
            let mut mask = vec![false; nv];
            for &v in &selected {
                mask[v] = true;
            }
            let Some(load_forces) = load.forces(mesh, &mask, &held, &fixed_by).map_err(|m| (key.clone(), m))? else {
                continue;
            };
            for (v, f) in load_forces.into_iter().enumerate() {
                forces[v] += f;
                if !forces[v].iter().all(|c| c.is_finite()) {
                    return Err((
                        key.clone(),
                        format!(
                            "{} gives vertex {v} a force that overflows f64 ({:?} N)",
                            load.kind(),
                            forces[v].as_slice()
                        ),
                    ));
                }
            }
        }
    }
    let loose = if obstacles { Vec::new() } else { unanchored_vertices(mesh, &held) };
    if let Some(&first) = loose.first() {
        return Err((
            "held".into(),
            format!(
                "{} vertices (the first is vertex {first} at {:?}) are not connected through tetrahedra to any \
                 held vertex: that part of the body would fall forever",
                loose.len(),
                x[first].as_slice()
            ),
        ));
    }
    Ok(AppliedLoads { held, prescribed, forces })
}

/// The diagonal of the points' bounding box, m (zero for none): the body's size.
pub(crate) fn extent(points: &[Vec3]) -> f64 {
    let Some(first) = points.first() else { return 0.0 };
    let (mut lo, mut hi) = (*first, *first);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (hi - lo).norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered kind of load: its table parses from TOML into that kind, refuses the keys of
    /// every other kind, and holds its vertices exactly when it prescribes their displacement.
    #[test]
    fn every_load_kind_parses_refuses_foreign_keys_and_holds_as_it_prescribes() {
        let value = |key: &str| match key {
            "angle" | "pressure" | "air_density" | "drag" | "tangential" => "0.1".to_string(),
            "follower" => "false".to_string(),
            _ => "[1.0, 0.0, 0.0]".to_string(),
        };
        for &kind in LoadKind::ALL {
            let keys: String = kind.keys().iter().map(|k| format!("{k} = {}\n", value(k))).collect();
            let text = format!("[[{}]]\nplane = \"y = 1\"\n{keys}", kind.name());
            let tables: LoadTables = toml::from_str(&text).unwrap();
            let loads = tables.loads().unwrap();
            assert_eq!(loads.len(), 1, "{text}");
            let (key, load) = &loads[0];
            assert_eq!((key.as_str(), load.load_kind()), (format!("load.{}[0]", kind.name()).as_str(), kind));
            assert_eq!(load.holds(), load.prescribed_at(&Vec3::new(0.3, 1.0, 0.2)).is_some(), "{kind:?}");
            for other in LoadKind::ALL.iter().filter(|o| **o != kind) {
                let foreign = other.keys()[0];
                if kind.keys().contains(&foreign) {
                    continue;
                }
                let text = format!("{text}{foreign} = {}\n", value(foreign));
                let tables: LoadTables = toml::from_str(&text).unwrap();
                let (key, message) = tables.loads().unwrap_err();
                assert_eq!(key, format!("load.{}[0]", kind.name()));
                assert!(
                    message.contains(&format!("`{foreign}` does not belong to a {} load", kind.name())),
                    "{message}"
                );
            }
        }
    }

    /// A kind that is not registered and a key no kind takes are named, with what is allowed.
    #[test]
    fn unknown_kinds_and_keys_are_named() {
        let tables: LoadTables = toml::from_str("[[suction]]\nplane = \"y = 1\"\n").unwrap();
        let (key, message) = tables.loads().unwrap_err();
        assert_eq!(key, "load.suction");
        for kind in LoadKind::ALL {
            assert!(message.contains(&format!("[[load.{}]]", kind.name())), "{message}");
        }
        let tables: LoadTables =
            toml::from_str("[[traction]]\nplane = \"y = 1\"\ntraction = [0, 1, 0]\ncolour = 2\n").unwrap();
        let (key, message) = tables.loads().unwrap_err();
        assert_eq!(key, "load.traction[0]");
        assert!(message.contains("unknown key `colour`") && message.contains("plane, box, group"), "{message}");
        // Integers are numbers.
        let tables: LoadTables = toml::from_str("[[traction]]\nplane = \"y = 1\"\ntraction = [0, 1, 0]\n").unwrap();
        let loads = tables.loads().unwrap();
        assert!(matches!(&loads[0].1, Load::Traction(t) if t.traction == Vec3::y()), "{loads:?}");
    }

    #[test]
    fn a_traction_on_the_unit_square_gives_its_force() {
        // The top face of the N = 2 cube: area 1, so the nodal forces sum to the traction.
        let mesh = crate::unit_cube(2).unwrap();
        let top: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 1.0).collect();
        let faces = selected_boundary_faces(&mesh, &top);
        assert_eq!(faces.len(), 8, "two triangles per quad, 4 quads");
        let f = traction_forces(&mesh, &faces, Vec3::new(0.0, 10.0, 0.0));
        let total: Vec3 = f.iter().sum();
        assert!((total - Vec3::new(0.0, 10.0, 0.0)).norm() < 1e-13, "{total}");
        assert!(f.iter().zip(&top).all(|(f, &t)| t || f.norm() == 0.0), "only top vertices are loaded");
    }

    #[test]
    fn a_rotation_moves_points_on_a_circle() {
        let load = Load::Rotation(Rotation {
            on: Selector::Group("g".into()),
            axis: Vec3::y(),
            center: Vec3::new(0.5, 1.0, 0.5),
            angle: std::f64::consts::FRAC_PI_2,
        });
        let u = load.prescribed_at(&Vec3::new(1.0, 1.0, 0.5)).unwrap();
        // (0.5, 0, 0) rotated a quarter turn about +y goes to (0, 0, -0.5).
        assert!((u - Vec3::new(-0.5, 0.0, -0.5)).norm() < 1e-15, "{u}");
        assert_eq!(load.prescribed_at(&Vec3::new(0.5, 0.0, 0.5)).unwrap(), Vec3::zeros(), "on the axis");
    }

    #[test]
    fn a_part_not_connected_to_the_held_set_is_found() {
        // Two cubes side by side that share no vertex: hold the first only.
        let a = crate::unit_cube(1).unwrap();
        let mut vertices = a.vertices().to_vec();
        vertices.extend(a.vertices().iter().map(|p| p + Vec3::new(2.0, 0.0, 0.0)));
        let mut tets = a.tets().to_vec();
        tets.extend(a.tets().iter().map(|t| t.map(|v| v + 8)));
        let mesh = TetMesh::new(vertices, tets).unwrap();
        let mut held = vec![false; 16];
        held[0] = true;
        assert_eq!(unanchored_vertices(&mesh, &held), (8..16).collect::<Vec<_>>());
        held[8] = true;
        assert!(unanchored_vertices(&mesh, &held).is_empty());
    }
}
