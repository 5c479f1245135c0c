//! Load cases besides gravity (methodology, section Load cases): a uniform surface traction on selected
//! boundary faces, a prescribed displacement of selected vertices, and a torsion, i.e. a prescribed
//! rotation of selected vertices about an axis.
//!
//! Sign conventions: a traction is the force per area (Pa) that acts on the body's surface, so
//! `[0, 10, 0]` on the top face `y = 1` pulls it up (tension) and `[0, -10, 0]` pushes it down
//! (compression). A rotation is right-handed about its axis by `angle` radians.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::selector::{BoxKeys, SelectorKeys};
use crate::{Selector, TetMesh, Vec3};

/// One load of a scene besides gravity.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// A uniform traction (Pa, a vector) on the boundary faces whose three vertices are all selected.
    /// Each face of area `A` gives `t A / 3` to each of its vertices (the consistent load of linear
    /// triangles).
    Traction {
        /// The selected vertices; faces made of them carry the traction.
        on: Selector,
        /// Force per area, Pa.
        traction: Vec3,
    },
    /// The selected vertices are moved by `displacement` (m) and held there (Dirichlet in FEM,
    /// kinematic particles with inverse mass 0 in PBD).
    Displacement {
        /// The selected vertices.
        on: Selector,
        /// Prescribed displacement, m.
        displacement: Vec3,
    },
    /// Torsion: the selected vertices are rotated by `angle` about the line through `center` along
    /// `axis` and held there, `u = R (X - c) + c - X`.
    Rotation {
        /// The selected vertices.
        on: Selector,
        /// Unit axis direction.
        axis: Vec3,
        /// A point on the axis, m.
        center: Vec3,
        /// Rotation angle, rad (right-handed about `axis`).
        angle: f64,
    },
}

/// The kinds of load, each with its scene-file table (`[[load.<name>]]`) and keys: the one list the
/// parser, the checks and the messages read (every match on it is exhaustive, so a new kind is a
/// compile error wherever it needs a decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoadKind {
    /// [`Load::Traction`].
    Traction,
    /// [`Load::Displacement`].
    Displacement,
    /// [`Load::Rotation`].
    Rotation,
}

impl LoadKind {
    /// Every kind, in the order a scene file's loads are read.
    pub const ALL: [LoadKind; 3] = [LoadKind::Traction, LoadKind::Displacement, LoadKind::Rotation];

    /// The scene-file name (`[[load.traction]]`, ...).
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::Traction => "traction",
            LoadKind::Displacement => "displacement",
            LoadKind::Rotation => "rotation",
        }
    }

    /// The keys of its table besides the selector's.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            LoadKind::Traction => &["traction"],
            LoadKind::Displacement => &["displacement"],
            LoadKind::Rotation => &["axis", "center", "angle"],
        }
    }

    /// Whether loads of this kind hold the vertices they select (prescribe their displacement), so that
    /// a body with one needs no `[[held]]`.
    pub fn holds(self) -> bool {
        match self {
            LoadKind::Traction => false,
            LoadKind::Displacement | LoadKind::Rotation => true,
        }
    }
}

impl Load {
    /// The kind of this load.
    pub fn load_kind(&self) -> LoadKind {
        match self {
            Load::Traction { .. } => LoadKind::Traction,
            Load::Displacement { .. } => LoadKind::Displacement,
            Load::Rotation { .. } => LoadKind::Rotation,
        }
    }

    /// The scene-file key of this kind of load (`traction`, `displacement`, `rotation`).
    pub fn kind(&self) -> &'static str {
        self.load_kind().name()
    }

    /// Whether the load holds the vertices it selects ([`LoadKind::holds`]).
    pub fn holds(&self) -> bool {
        self.load_kind().holds()
    }

    /// The selector of the load.
    pub fn selector(&self) -> &Selector {
        match self {
            Load::Traction { on, .. } | Load::Displacement { on, .. } | Load::Rotation { on, .. } => on,
        }
    }

    /// The load multiplied by `factor` (a load level): the traction, the displacement or the angle.
    pub fn scaled(&self, factor: f64) -> Self {
        let mut load = self.clone();
        match &mut load {
            Load::Traction { traction, .. } => *traction *= factor,
            Load::Displacement { displacement, .. } => *displacement *= factor,
            Load::Rotation { angle, .. } => *angle *= factor,
        }
        load
    }

    /// The prescribed displacement of a vertex at `x` (m), for the kinds that prescribe one.
    pub fn prescribed_at(&self, x: &Vec3) -> Option<Vec3> {
        match self {
            Load::Traction { .. } => None,
            Load::Displacement { displacement, .. } => Some(*displacement),
            Load::Rotation { axis, center, angle, .. } => {
                let rotation = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(*axis), *angle);
                let r = x - center;
                Some(rotation * r - r)
            }
        }
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

/// `[[load.traction]]`, `[[load.displacement]]` and `[[load.rotation]]` tables: the selector keys and
/// the load's own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadKeys {
    plane: Option<String>,
    #[serde(rename = "box")]
    bounds: Option<BoxKeys>,
    group: Option<String>,
    tolerance: Option<f64>,
    traction: Option<[f64; 3]>,
    displacement: Option<[f64; 3]>,
    axis: Option<[f64; 3]>,
    center: Option<[f64; 3]>,
    angle: Option<f64>,
}

/// The loads of a `[load]` table, in file order per kind.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadTables {
    pub gravity: Option<[f64; 3]>,
    #[serde(default)]
    pub traction: Vec<LoadKeys>,
    #[serde(default)]
    pub displacement: Vec<LoadKeys>,
    #[serde(default)]
    pub rotation: Vec<LoadKeys>,
}

fn finite(v: [f64; 3], what: &str) -> Result<Vec3, String> {
    if v.iter().all(|x| x.is_finite()) { Ok(Vec3::from(v)) } else { Err(format!("{what} must be finite")) }
}

impl LoadTables {
    /// The loads, each with its key (`load.traction[0]`), or the key and what is wrong with it.
    pub fn loads(&self) -> Result<Vec<(String, Load)>, (String, String)> {
        let mut loads = Vec::new();
        for kind in LoadKind::ALL {
            let tables = match kind {
                LoadKind::Traction => &self.traction,
                LoadKind::Displacement => &self.displacement,
                LoadKind::Rotation => &self.rotation,
            };
            for (i, t) in tables.iter().enumerate() {
                let key = format!("load.{}[{i}]", kind.name());
                let load = t.load(kind).map_err(|m| (key.clone(), m))?;
                loads.push((key, load));
            }
        }
        Ok(loads)
    }
}

impl LoadKeys {
    fn load(&self, kind: LoadKind) -> Result<Load, String> {
        let keys = SelectorKeys {
            plane: self.plane.clone(),
            bounds: self.bounds.clone(),
            group: self.group.clone(),
            tolerance: self.tolerance,
        };
        let on = keys.selector()?;
        let allowed = kind.keys();
        let given = [
            ("traction", self.traction.is_some()),
            ("displacement", self.displacement.is_some()),
            ("axis", self.axis.is_some()),
            ("center", self.center.is_some()),
            ("angle", self.angle.is_some()),
        ];
        for (name, present) in given {
            if present && !allowed.contains(&name) {
                return Err(format!(
                    "`{name}` does not belong to a {} load (it takes {})",
                    kind.name(),
                    allowed.join(", ")
                ));
            }
        }
        let missing = |name: &str| format!("missing `{name}`");
        Ok(match kind {
            LoadKind::Traction => {
                Load::Traction { on, traction: finite(self.traction.ok_or_else(|| missing("traction"))?, "traction")? }
            }
            LoadKind::Displacement => Load::Displacement {
                on,
                displacement: finite(self.displacement.ok_or_else(|| missing("displacement"))?, "displacement")?,
            },
            LoadKind::Rotation => {
                let axis = finite(self.axis.ok_or_else(|| missing("axis"))?, "axis")?;
                if axis.norm() == 0.0 {
                    return Err("axis must not be zero".into());
                }
                let center = finite(self.center.ok_or_else(|| missing("center"))?, "center")?;
                let angle = self.angle.ok_or_else(|| missing("angle"))?;
                if !(angle.is_finite() && angle.abs() <= std::f64::consts::PI) {
                    return Err(format!("angle {angle} rad must be finite and within [-pi, pi]"));
                }
                Load::Rotation { on, axis: axis.normalize(), center, angle }
            }
        })
    }
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
/// prescribed displacement larger than the body, a body not connected to its held set.
pub(crate) fn apply(
    mesh: &TetMesh,
    groups: &BTreeMap<String, Vec<usize>>,
    held_selectors: &[Selector],
    loads: &[(String, Load)],
) -> Result<AppliedLoads, (String, String)> {
    let x = mesh.vertices();
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
        match load {
            Load::Traction { traction, .. } => {
                let mut mask = vec![false; nv];
                for &v in &selected {
                    mask[v] = true;
                }
                let faces = selected_boundary_faces(mesh, &mask);
                if faces.is_empty() {
                    return Err((key.clone(), format!("{s} selects no boundary face (a traction acts on faces)")));
                }
                if let Some(f) = faces.iter().find(|f| f.iter().all(|&v| held[v])) {
                    return Err((
                        key.clone(),
                        format!(
                            "the traction acts on a face that is also held (vertices {f:?}, held by {}); a held \
                             face takes no load",
                            fixed_by[f[0]].as_deref().unwrap_or("a load")
                        ),
                    ));
                }
                let traction_forces = traction_forces(mesh, &faces, *traction);
                // Bounded in total, not only per vertex: the solvers sum the forces.
                let total: f64 = traction_forces.iter().map(|f| f.amax()).sum();
                if !total.is_finite() {
                    return Err((
                        key.clone(),
                        format!("the traction {:?} Pa gives a total force that overflows f64", traction.as_slice()),
                    ));
                }
                for (v, f) in traction_forces.into_iter().enumerate() {
                    forces[v] += f;
                    if !forces[v].iter().all(|c| c.is_finite()) {
                        return Err((
                            key.clone(),
                            format!(
                                "the traction {:?} Pa gives vertex {v} a force that overflows f64 ({:?} N)",
                                traction.as_slice(),
                                forces[v].as_slice()
                            ),
                        ));
                    }
                }
            }
            Load::Displacement { .. } | Load::Rotation { .. } => {
                for v in selected {
                    let u = load.prescribed_at(&x[v]).expect("a prescribing load");
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
                        && prescribed[v] != u
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
                    prescribed[v] = u;
                    fixed_by[v].get_or_insert_with(|| key.clone());
                }
            }
        }
    }
    let loose = unanchored_vertices(mesh, &held);
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
            "angle" => "0.1".to_string(),
            _ => "[1.0, 0.0, 0.0]".to_string(),
        };
        for kind in LoadKind::ALL {
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
        let load = Load::Rotation {
            on: Selector::Group("g".into()),
            axis: Vec3::y(),
            center: Vec3::new(0.5, 1.0, 0.5),
            angle: std::f64::consts::FRAC_PI_2,
        };
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
