//! Sheet scenes: a scene file whose body is a sheet (a triangle mesh with a thickness) instead of a
//! tetrahedral solid. The same TOML file form as a solid's, with a `[sheet]` table in place of `[body]`:
//!
//! ```toml
//! name = "clamped-strip"
//! description = "..."
//! [sheet]
//! width = 0.3          # m, along x
//! height = 0.03        # m, along y; the sheet lies in z = 0, its normal +z
//! n = 40               # cells along the longer side (the other side in proportion, at least 1)
//! diagonal = "alternating"   # forward, alternating or crossed
//! thickness = 1e-3     # m
//! [[held]]
//! plane = "x = 0"
//! support = "clamped"  # clamped (all six DOFs) or pinned (the translations; a simply supported edge)
//! [load]
//! gravity = [0, 0, -9.81]
//! [material]
//! density = 7850       # kg/m^3
//! young = 2e11         # Pa: the sheet's default when a run gives none
//! poisson = 0.3
//! [reference]
//! material = "corotational"  # linear, corotational or stvk (the shell reference's membrane)
//! ```
//!
//! Instead of `width` and `height`, `vertices = [[x, y, z], ...]` (m) and `triangles = [[a, b, c], ...]`
//! (vertex indices from 0) give the mesh itself; it is validated as [`SheetMesh::new`] validates (a
//! degenerate, duplicated or non-manifold triangle refused, named), and has its own resolution (`n` not
//! given). The held selectors (`plane`, `box`, `group`) are a solid's, evaluated on the geometry the file
//! gives. `[[obstacle]]` tables are a solid scene's (plane, sphere, box, with friction; see
//! [`Obstacle`](crate::Obstacle)): the shell reference and the cloth models meet them at the vertices; a
//! sheet that starts inside one is refused naming it, and a sheet held by obstacles alone may hold no
//! vertex. Besides gravity a sheet takes pressure loads, `[[load.pressure]]` with a selector,
//! `pressure = p` (Pa, along each triangle's winding normal where positive) and `follower = false` for a
//! dead one ([`Pressure`]), and wind loads, `[[load.wind]]` with a selector and `wind = [wx, wy, wz]` (m/s;
//! [`Wind`]: the quadratic drag of the air's velocity relative to the cloth); the solids' other loads are
//! refused, named.
//!
//! [`SceneSet`](crate::SceneSet) refuses a sheet scene with [`SceneError::Sheet`], so that every command
//! and model made for solids says so instead of misreading it; [`SheetScene::load`] reads one.

use std::path::Path;

use serde::Deserialize;

use crate::load::{LoadTables, Pressure, TrianglePressure, TriangleWind, Wind};
use crate::scene::{BUILTIN_SCENES, BodyError, BodySummary, MAX_SIZE, MIN_SIZE};
use crate::selector::{BoxKeys, SelectorKeys};
use crate::sheet::{Diagonal, Sheet, SheetMesh};
use crate::{Load, SceneError, Selector, Vec3};

/// The sheet scene file's keys (the solid's `body` and `compound` are not among them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SheetFile {
    name: String,
    #[serde(default)]
    description: String,
    sheet: SheetDef,
    held: Option<Vec<HeldKeys>>,
    load: Option<LoadTables>,
    material: Option<MaterialKeys>,
    reference: Option<ReferenceKeys>,
    /// Rigid obstacles (a solid scene's `[[obstacle]]` tables).
    obstacle: Option<Vec<crate::obstacle::ObstacleKeys>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SheetDef {
    width: Option<f64>,
    height: Option<f64>,
    n: Option<i64>,
    diagonal: Option<String>,
    vertices: Option<Vec<[f64; 3]>>,
    triangles: Option<Vec<[i64; 3]>>,
    /// A triangle mesh file (OBJ, Gmsh, VTK), relative to the scene file.
    mesh: Option<String>,
    /// A closed surface: the boundary of a tetrahedral body, `unit-cube` (at the resolution `n`) or a
    /// tetrahedral mesh file (Gmsh, VTK, TetGen), relative to the scene file.
    surface: Option<String>,
    thickness: f64,
    /// The sheet's largest extent in m: the geometry the file gives is scaled to it.
    size: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeldKeys {
    plane: Option<String>,
    #[serde(rename = "box")]
    bounds: Option<BoxKeys>,
    group: Option<String>,
    tolerance: Option<f64>,
    support: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialKeys {
    density: f64,
    young: Option<f64>,
    poisson: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReferenceKeys {
    material: Option<String>,
}

/// The most cells a rectangular sheet takes along its longer side (half a million triangles).
pub const MAX_CELLS: usize = 512;

/// How a held vertex of a sheet is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SheetSupport {
    /// Its three translations held, its rotations free: a simply supported edge, a pinned corner.
    Pinned,
    /// Its translations and rotations held: a clamped edge, a corner in a clip.
    Clamped,
}

impl SheetSupport {
    /// The name in scene files.
    pub fn name(self) -> &'static str {
        match self {
            SheetSupport::Pinned => "pinned",
            SheetSupport::Clamped => "clamped",
        }
    }
}

/// A sheet's geometry as the file gives it (unscaled).
#[derive(Debug, Clone, PartialEq)]
pub enum SheetGeometry {
    /// The rectangle `[0, width] x [0, height]` in z = 0, meshed at a resolution.
    Rectangle {
        /// Along x, m.
        width: f64,
        /// Along y, m.
        height: f64,
        /// How quads are split.
        diagonal: Diagonal,
    },
    /// A mesh given whole (its own resolution).
    Mesh(SheetMesh),
    /// The closed surface of the unit cube meshed as the solids' built-in cube at a resolution (`n`
    /// hexahedra per edge, five tetrahedra each): its boundary triangles, wound outward
    /// ([`TetMesh::boundary_surface`](crate::TetMesh::boundary_surface)).
    CubeSurface,
}

/// A sheet scene: the sheet, its held vertices, gravity, and the material it is made of by default.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetScene {
    /// Scene name.
    pub name: String,
    /// One line saying what it is.
    pub description: String,
    /// Where it came from: a file path or `builtin:<name>`.
    pub origin: String,
    /// The geometry the file gives.
    pub geometry: SheetGeometry,
    /// Cells along the longer side of a rectangle where a run gives none (1 for a mesh given whole).
    pub default_n: usize,
    /// Thickness h, m.
    pub thickness: f64,
    /// Density, kg/m^3.
    pub density: f64,
    /// Young's modulus (Pa) a run uses where it gives none.
    pub young: Option<f64>,
    /// Poisson ratio a run uses where it gives none.
    pub poisson: Option<f64>,
    /// The held selectors and how each holds.
    pub held: Vec<(Selector, SheetSupport)>,
    /// Named vertex groups of an imported mesh (Gmsh physical groups), for `group` selectors.
    pub groups: std::collections::BTreeMap<String, Vec<usize>>,
    /// Gravitational acceleration, m/s^2.
    pub gravity: Vec3,
    /// The pressure loads, each with its key (`load.pressure[0]`).
    pub pressures: Vec<(String, Pressure)>,
    /// The wind loads, each with its key (`load.wind[0]`).
    pub winds: Vec<(String, Wind)>,
    /// Rigid obstacles the sheet may touch (`[[obstacle]]` tables), at their starting places, as the file
    /// gives them (the body's [`SheetBody::obstacles`] are scaled with the sheet).
    pub obstacles: Vec<crate::Obstacle>,
    /// The reference material the scene asks for (`linear`, `corotational`, `stvk`), if any.
    pub reference: Option<String>,
    /// The factor lengths in the plane are multiplied by (1: as the file gives them); the thickness is not.
    pub scale: f64,
}

/// A sheet scene's body at one resolution: the sheet, how each vertex is held, gravity.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetBody {
    /// The scene's name.
    pub scene: String,
    /// The resolution it was built at.
    pub n: usize,
    /// The sheet (mesh in m, thickness, density).
    pub sheet: Sheet,
    /// Per vertex: how it is held, `None` where free.
    pub held: Vec<Option<SheetSupport>>,
    /// Gravitational acceleration, m/s^2.
    pub gravity: Vec3,
    /// The pressure on each triangle (Pa; follower and dead; empty vectors without a pressure load).
    pub pressure: TrianglePressure,
    /// The wind on each triangle (empty vectors without a wind load).
    pub wind: TriangleWind,
    /// Rigid obstacles the sheet may touch, at their starting places (scaled with the sheet).
    pub obstacles: Vec<crate::Obstacle>,
}

impl SheetBody {
    /// The held vertices, ascending.
    pub fn held_indices(&self) -> Vec<usize> {
        (0..self.held.len()).filter(|&v| self.held[v].is_some()).collect()
    }

    /// The vertices a particle model holds on a sheet: every supported vertex (clamped or pinned), and every
    /// vertex that shares a triangle with a vertex of a clamped edge (a mesh edge whose two vertices are
    /// clamped). A particle carries no rotation, so a clamp held along one row of vertices is a hinge (the strip
    /// swings about it); holding the clamped row and the next (the first cell, each clamped vertex's edge
    /// neighbours on any mesh) is how a clamp is made with particles: the first cell's two rows fix the edge's
    /// slope. A clamped vertex with no clamped neighbour (a clip at a corner) holds itself only: its moment is
    /// a point's, and holding its one-ring would hold a cell's worth of the sheet (at coarse n most of it). A
    /// pinned vertex holds its translations only, for the shell as for the particles, so it adds nothing. The
    /// shell keeps its own clamp (the clamped vertices' six DOFs, `pbdfit_fit::shell_constraints`).
    pub fn particle_held(&self) -> Vec<bool> {
        let mut held: Vec<bool> = self.held.iter().map(Option::is_some).collect();
        let clamped = |v: usize| self.held[v] == Some(SheetSupport::Clamped);
        // A clamped vertex on a clamped edge (a mesh edge to another clamped vertex); an isolated clamped
        // vertex (a clip at a corner) is a point support for particles, whose one-ring would otherwise be held
        // too (7 of 13 vertices of the hanging sheet at n = 2).
        let mut on_clamped_edge = vec![false; held.len()];
        for t in self.sheet.mesh.triangles() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                if clamped(a) && clamped(b) {
                    on_clamped_edge[a] = true;
                    on_clamped_edge[b] = true;
                }
            }
        }
        for t in self.sheet.mesh.triangles() {
            if t.iter().any(|&v| on_clamped_edge[v]) {
                for &v in t {
                    held[v] = true;
                }
            }
        }
        held
    }
}

/// Whether scene TOML `text` is a sheet's (it has a `[sheet]` table), without reading the rest.
fn is_sheet_text(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("sheet"))
}

impl SheetScene {
    /// A built-in sheet scene by name, or a sheet scene file. A solid scene (built-in or file) is
    /// [`SceneError::NotSheet`]; an unknown name [`SceneError::Unknown`].
    pub fn load(name_or_path: &str) -> Result<Self, SceneError> {
        if let Some((name, text)) = BUILTIN_SCENES.iter().find(|(n, _)| *n == name_or_path) {
            return Self::parse(text, &format!("builtin:{name}"), None);
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            return Err(SceneError::Unknown(name_or_path.to_string()));
        }
        let text =
            std::fs::read_to_string(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, &path.display().to_string(), path.parent())
    }

    /// Whether `name_or_path` names a sheet scene (a built-in one, or a readable file with a `[sheet]`
    /// table).
    pub fn names_sheet(name_or_path: &str) -> bool {
        if let Some((_, text)) = BUILTIN_SCENES.iter().find(|(n, _)| *n == name_or_path) {
            return is_sheet_text(text);
        }
        std::fs::read_to_string(name_or_path).is_ok_and(|t| is_sheet_text(&t))
    }

    /// Parses sheet scene TOML; `origin` names it in errors. `dir` is the folder a `mesh` file is read
    /// from (`None` for a built-in scene, which names none).
    pub fn parse(text: &str, origin: &str, dir: Option<&Path>) -> Result<Self, SceneError> {
        if !is_sheet_text(text) {
            return Err(SceneError::NotSheet { origin: origin.to_string() });
        }
        let file: SheetFile = toml::from_str(text)
            .map_err(|e| SceneError::Parse { origin: origin.to_string(), message: e.to_string().trim().to_string() })?;
        let invalid =
            |key: &str, message: String| SceneError::Invalid { origin: origin.to_string(), key: key.into(), message };
        crate::check_file_name(&file.name).map_err(|m| invalid("name", m))?;
        let mut obstacles = Vec::new();
        for (i, o) in file.obstacle.iter().flatten().enumerate() {
            let key = format!("obstacle[{i}]");
            obstacles.push(o.obstacle(&key).map_err(|m| invalid(&key, m))?);
        }
        let s = &file.sheet;
        let positive = |key: &str, unit: &str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(value)
            } else {
                Err(invalid(key, format!("must be a finite number > 0 {unit}, got {value}")))
            }
        };
        let thickness = positive("sheet.thickness", "m", s.thickness)?;
        let mut groups = std::collections::BTreeMap::new();
        let whole = |what: &str| {
            if s.n.is_some() || s.diagonal.is_some() {
                return Err(invalid(
                    "sheet",
                    format!("a mesh given by {what} has its own resolution: no `n` or `diagonal`"),
                ));
            }
            Ok(())
        };
        let (geometry, default_n) = match (&s.width, &s.height, &s.vertices, &s.triangles) {
            (None, None, None, None) if s.surface.as_deref() == Some("unit-cube") && s.mesh.is_none() => {
                if s.diagonal.is_some() {
                    return Err(invalid("sheet.diagonal", "a surface has the solid's triangles: no `diagonal`".into()));
                }
                let n = s.n.unwrap_or(4);
                if !(1..=MAX_CELLS as i64).contains(&n) {
                    return Err(invalid(
                        "sheet.n",
                        format!("hexahedra along the cube's edge must be 1 to {MAX_CELLS}, got {n}"),
                    ));
                }
                (SheetGeometry::CubeSurface, n as usize)
            }
            (None, None, None, None) if s.surface.is_some() && s.mesh.is_none() => {
                whole("a `surface` mesh file")?;
                let file = s.surface.as_deref().unwrap_or_default();
                let dir = dir.ok_or_else(|| invalid("sheet.surface", "a built-in scene names no mesh file".into()))?;
                let (solid, named, _) =
                    crate::mesh_file::load(file, Some(dir), false).map_err(|m| invalid("sheet.surface", m))?;
                let (vertices, triangles, of_solid) = solid.boundary_surface();
                let mut index = vec![usize::MAX; solid.vertices().len()];
                for (k, &v) in of_solid.iter().enumerate() {
                    index[v] = k;
                }
                groups = named
                    .into_iter()
                    .map(|(name, vs)| (name, vs.into_iter().map(|v| index[v]).filter(|&v| v != usize::MAX).collect()))
                    .collect();
                let mesh = SheetMesh::new(vertices, triangles).map_err(|e| invalid("sheet.surface", e.to_string()))?;
                mesh.check_closed().map_err(|e| invalid("sheet.surface", e.to_string()))?;
                (SheetGeometry::Mesh(mesh), 1)
            }
            (None, None, None, None) if s.mesh.is_some() && s.surface.is_none() => {
                whole("a `mesh` file")?;
                let file = s.mesh.as_deref().unwrap_or_default();
                let dir = dir.ok_or_else(|| invalid("sheet.mesh", "a built-in scene names no mesh file".into()))?;
                let path = dir.join(file);
                let raw = crate::import::read_mesh(&path).map_err(|e| invalid("sheet.mesh", e.to_string()))?;
                let (mesh, named) =
                    raw.validate_sheet(&path.display().to_string()).map_err(|m| invalid("sheet.mesh", m))?;
                groups = named;
                (SheetGeometry::Mesh(mesh), 1)
            }
            (Some(w), Some(h), None, None) if s.mesh.is_none() && s.surface.is_none() => {
                let (width, height) = (positive("sheet.width", "m", *w)?, positive("sheet.height", "m", *h)?);
                let diagonal = match s.diagonal.as_deref() {
                    None => Diagonal::Alternating,
                    Some(name) => Diagonal::ALL.into_iter().find(|d| d.name() == name).ok_or_else(|| {
                        invalid("sheet.diagonal", format!("`{name}`: expected forward, alternating or crossed"))
                    })?,
                };
                let n = s.n.unwrap_or(16);
                if !(1..=MAX_CELLS as i64).contains(&n) {
                    return Err(invalid(
                        "sheet.n",
                        format!("cells along the longer side must be 1 to {MAX_CELLS}, got {n}"),
                    ));
                }
                (SheetGeometry::Rectangle { width, height, diagonal }, n as usize)
            }
            (None, None, Some(vertices), Some(triangles)) if s.mesh.is_none() && s.surface.is_none() => {
                whole("`vertices` and `triangles`")?;
                let triangles = triangles
                    .iter()
                    .enumerate()
                    .map(|(t, tri)| {
                        let mut out = [0; 3];
                        for (k, &v) in tri.iter().enumerate() {
                            out[k] = usize::try_from(v).map_err(|_| {
                                invalid("sheet.triangles", format!("triangle {t} has a negative vertex index {v}"))
                            })?;
                        }
                        Ok(out)
                    })
                    .collect::<Result<Vec<_>, SceneError>>()?;
                let mesh = SheetMesh::new(vertices.iter().map(|&p| Vec3::from(p)).collect(), triangles)
                    .map_err(|e| invalid("sheet.triangles", e.to_string()))?;
                let mut used = vec![false; mesh.vertices().len()];
                mesh.triangles().iter().flatten().for_each(|&v| used[v] = true);
                if let Some(v) = used.iter().position(|u| !u) {
                    return Err(invalid(
                        "sheet.vertices",
                        format!("vertex {v} belongs to no triangle (it would have no mass and no stiffness)"),
                    ));
                }
                (SheetGeometry::Mesh(mesh), 1)
            }
            _ => {
                return Err(invalid(
                    "sheet",
                    "give `width` and `height` (a rectangle), `vertices` and `triangles` (a mesh), `mesh` (a \
                     triangle mesh file: OBJ, Gmsh, VTK), or `surface` (a solid's closed boundary: `unit-cube` or a \
                     tetrahedral mesh file), one of the four"
                        .into(),
                ));
            }
        };
        let mut held = Vec::new();
        for (i, h) in file.held.unwrap_or_default().iter().enumerate() {
            let key = format!("held[{i}]");
            let keys = SelectorKeys {
                plane: h.plane.clone(),
                bounds: h.bounds.clone(),
                group: h.group.clone(),
                tolerance: h.tolerance,
            };
            let selector = keys.selector().map_err(|m| invalid(&key, m))?;
            let support = match h.support.as_deref() {
                None | Some("clamped") => SheetSupport::Clamped,
                Some("pinned") => SheetSupport::Pinned,
                Some(other) => {
                    return Err(invalid(
                        &format!("{key}.support"),
                        format!("`{other}`: expected clamped (all six DOFs) or pinned (the translations)"),
                    ));
                }
            };
            held.push((selector, support));
        }
        if held.is_empty() && obstacles.is_empty() {
            return Err(invalid(
                "held",
                "the sheet is not held at all: with no held vertex and no obstacle to rest on it has no rest state. \
                 Add e.g. [[held]] plane = \"x = 0\""
                    .into(),
            ));
        }
        let tables = file.load.unwrap_or_default();
        let (mut pressures, mut winds) = (Vec::new(), Vec::new());
        for (key, load) in tables.loads().map_err(|(key, message)| invalid(&key, message))? {
            match load {
                Load::Pressure(p) => pressures.push((key, p)),
                Load::Wind(w) => winds.push((key, w)),
                other => {
                    return Err(invalid(
                        &key,
                        format!(
                            "a sheet takes gravity, pressure and wind loads ([[load.pressure]], [[load.wind]]), not a {}: the {} \
                             loads are the tetrahedral solids'",
                            other.kind(),
                            other.kind()
                        ),
                    ));
                }
            }
        }
        let gravity = tables.gravity.unwrap_or([0.0, 0.0, -9.81]);
        if gravity.iter().any(|g| !g.is_finite()) {
            return Err(invalid("load.gravity", "components must be finite".into()));
        }
        let (density, young, poisson) = match file.material {
            Some(m) => (m.density, m.young, m.poisson),
            None => (1000.0, None, None),
        };
        positive("material.density", "kg/m^3", density)?;
        if let Some(e) = young {
            positive("material.young", "Pa", e)?;
        }
        if let Some(nu) = poisson
            && !(nu > -1.0 && nu < 0.5)
        {
            return Err(invalid("material.poisson", format!("must be in (-1, 0.5), got {nu}")));
        }
        let reference = file.reference.and_then(|r| r.material);
        if let Some(m) = &reference
            && !["linear", "corotational", "stvk"].contains(&m.as_str())
        {
            return Err(invalid(
                "reference.material",
                format!("`{m}`: a sheet's reference is the linear, corotational or stvk shell"),
            ));
        }
        let mut scene = SheetScene {
            name: file.name,
            description: file.description,
            origin: origin.to_string(),
            geometry,
            default_n,
            thickness,
            density,
            young,
            poisson,
            held,
            groups,
            gravity: Vec3::from(gravity),
            pressures,
            winds,
            obstacles,
            reference,
            scale: 1.0,
        };
        if let Some(size) = s.size {
            if !(size.is_finite() && (MIN_SIZE..=MAX_SIZE).contains(&size)) {
                return Err(invalid("sheet.size", format!("must be between 1e-6 m and 1e6 m, got {size}")));
            }
            scene.scale = size / scene.unscaled_extent();
        }
        // Build once, so that a selector that selects nothing fails when the scene is read.
        scene.body(None)?;
        Ok(scene)
    }

    /// The largest side of the geometry's bounding box as the file gives it, m.
    fn unscaled_extent(&self) -> f64 {
        match &self.geometry {
            SheetGeometry::Rectangle { width, height, .. } => width.max(*height),
            SheetGeometry::Mesh(mesh) => crate::load::extent(mesh.vertices()),
            SheetGeometry::CubeSurface => 1.0,
        }
    }

    /// The area the file gives, m^2.
    fn unscaled_area(&self) -> f64 {
        match &self.geometry {
            SheetGeometry::Rectangle { width, height, .. } => width * height,
            SheetGeometry::Mesh(mesh) => mesh.area(),
            SheetGeometry::CubeSurface => 6.0,
        }
    }

    /// The resolution a run uses: `n` where given, else the scene's. A mesh given whole takes only 1.
    pub fn resolution(&self, n: Option<usize>) -> Result<usize, String> {
        let n = n.unwrap_or(self.default_n);
        match (&self.geometry, n) {
            (_, 0) => Err("mesh resolution must be at least 1, got 0".into()),
            (SheetGeometry::Mesh(_), n) if n != 1 => {
                Err(format!("the sheet's mesh is given whole and has its own resolution: n must be 1, got {n}"))
            }
            (SheetGeometry::Rectangle { .. } | SheetGeometry::CubeSurface, n) if n > MAX_CELLS => {
                Err(format!("{n} cells along the longer side is more than the {MAX_CELLS} a sheet takes"))
            }
            _ => Ok(n),
        }
    }

    /// The body over the scene's: `density` (kg/m^3), `size` (m, the largest extent: lengths in the plane
    /// scaled to it, the held selectors picking the same vertices) and `thickness` (m) replace the scene's.
    /// Refused: a value that is not a finite number > 0, a size outside 1e-6 m to 1e6 m.
    pub fn with_body(
        mut self,
        density: Option<f64>,
        size: Option<f64>,
        thickness: Option<f64>,
    ) -> Result<Self, BodyError> {
        for (option, unit, value) in
            [("density", "kg/m^3", density), ("size", "m", size), ("thickness", "m", thickness)]
        {
            if let Some(value) = value
                && !(value.is_finite() && value > 0.0)
            {
                return Err(BodyError::NotPositive { option, unit, value });
            }
        }
        if let Some(size) = size {
            if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
                return Err(BodyError::SizeOutOfRange { value: size });
            }
            self.scale = size / self.unscaled_extent();
        }
        if let Some(density) = density {
            self.density = density;
        }
        if let Some(thickness) = thickness {
            self.thickness = thickness;
        }
        Ok(self)
    }

    /// The sheet's size, thickness, density and mass.
    pub fn summary(&self) -> BodySummary {
        BodySummary {
            scene: self.name.clone(),
            size_m: self.unscaled_extent() * self.scale,
            density_kg_per_m3: self.density,
            mass_kg: self.density * self.thickness * self.unscaled_area() * self.scale * self.scale,
            thickness_m: Some(self.thickness),
        }
    }

    /// The body at resolution `n` (`None`: the scene's): the mesh (a rectangle's `n` cells along its
    /// longer side, the other in proportion, at least 1), the sheet, and each vertex's support (clamped
    /// where two selectors disagree). A selector that selects no vertex is refused, naming it.
    pub fn body(&self, n: Option<usize>) -> Result<SheetBody, SceneError> {
        let invalid =
            |key: &str, message: String| SceneError::Invalid { origin: self.origin.clone(), key: key.into(), message };
        let n = self.resolution(n).map_err(|m| invalid("sheet.n", m))?;
        let mesh = match &self.geometry {
            SheetGeometry::Rectangle { width, height, diagonal } => {
                let (nx, ny) = if width >= height {
                    (n, ((n as f64 * height / width).round() as usize).max(1))
                } else {
                    (((n as f64 * width / height).round() as usize).max(1), n)
                };
                SheetMesh::rectangle(*width, *height, nx, ny, *diagonal).map_err(|e| invalid("sheet", e.to_string()))?
            }
            SheetGeometry::Mesh(mesh) => mesh.clone(),
            SheetGeometry::CubeSurface => {
                let cube = crate::unit_cube(n).map_err(|e| invalid("sheet.surface", e.to_string()))?;
                let (vertices, triangles, _) = cube.boundary_surface();
                SheetMesh::new(vertices, triangles).map_err(|e| invalid("sheet.surface", e.to_string()))?
            }
        };
        let mut held = vec![None; mesh.vertices().len()];
        for (i, (selector, support)) in self.held.iter().enumerate() {
            let selected =
                selector.select(mesh.vertices(), &self.groups).map_err(|m| invalid(&format!("held[{i}]"), m))?;
            if selected.is_empty() {
                return Err(invalid(
                    &format!("held[{i}]"),
                    format!("{selector} selects no vertex of the sheet (coordinates as the scene file gives them)"),
                ));
            }
            for v in selected {
                held[v] = Some(held[v].map_or(*support, |s: SheetSupport| s.max(*support)));
            }
        }
        let mesh_unscaled_vertices = mesh.vertices().to_vec();
        let mesh = if self.scale == 1.0 {
            mesh
        } else {
            SheetMesh::new(mesh.vertices().iter().map(|p| p * self.scale).collect(), mesh.triangles().to_vec())
                .map_err(|e| invalid("sheet", e.to_string()))?
        };
        let sheet = Sheet::new(mesh, self.thickness, self.density).map_err(|e| invalid("sheet", e.to_string()))?;
        if let Some((v, m)) = sheet.lumped_masses().into_iter().enumerate().find(|(_, m)| !(m.is_finite() && *m > 0.0))
        {
            return Err(invalid(
                "material.density",
                format!("gives vertex {v} a mass of {m:e} kg, outside what f64 can simulate"),
            ));
        }
        let obstacles: Vec<crate::Obstacle> = self.obstacles.iter().map(|o| o.resized(self.scale)).collect();
        crate::obstacle::check_start(&obstacles, sheet.mesh.vertices(), "sheet", &self.name)
            .map_err(|(key, message)| invalid(&key, message))?;
        let pressure = self.triangle_pressure(&sheet, &mesh_unscaled_vertices)?;
        let wind = self.triangle_wind(&sheet, &mesh_unscaled_vertices)?;
        Ok(SheetBody { scene: self.name.clone(), n, sheet, held, gravity: self.gravity, pressure, wind, obstacles })
    }

    /// The pressure loads on `sheet`'s triangles, each load on the triangles whose three vertices its
    /// selector picks among `select_on` (the vertices as the file gives them, unscaled); a load that picks
    /// no triangle is refused, naming it.
    fn triangle_pressure(&self, sheet: &Sheet, select_on: &[Vec3]) -> Result<TrianglePressure, SceneError> {
        if self.pressures.is_empty() {
            return Ok(TrianglePressure::default());
        }
        let triangles = sheet.mesh.triangles();
        let mut out = TrianglePressure { follower: vec![0.0; triangles.len()], dead: vec![0.0; triangles.len()] };
        for (key, p) in &self.pressures {
            let invalid =
                |message: String| SceneError::Invalid { origin: self.origin.clone(), key: key.clone(), message };
            let mut selected = vec![false; select_on.len()];
            for v in p.on.select(select_on, &self.groups).map_err(invalid)? {
                selected[v] = true;
            }
            let target = if p.follower { &mut out.follower } else { &mut out.dead };
            let mut any = false;
            for (t, tri) in triangles.iter().enumerate() {
                if tri.iter().all(|&v| selected[v]) {
                    target[t] += p.pressure;
                    any = true;
                }
            }
            // The solvers take norms of the forces: their squares must stay finite.
            let total = p.pressure.abs() * sheet.mesh.area();
            if !(total * total).is_finite() {
                return Err(invalid(format!(
                    "the pressure {:e} Pa gives a total force ({total:e} N) whose square overflows f64",
                    p.pressure
                )));
            }
            if !any {
                return Err(invalid(format!(
                    "{} selects no triangle of the sheet (a pressure acts on the triangles whose three vertices it \
                     selects, coordinates as the scene file gives them)",
                    p.on
                )));
            }
        }
        Ok(out)
    }

    /// The wind loads on `sheet`'s triangles, each on the triangles whose three vertices its selector
    /// picks among `select_on` (unscaled); a load that picks no triangle, or a triangle two winds pick (the
    /// drag of two winds is not the sum of their drags), is refused, naming the key.
    fn triangle_wind(&self, sheet: &Sheet, select_on: &[Vec3]) -> Result<TriangleWind, SceneError> {
        if self.winds.is_empty() {
            return Ok(TriangleWind::default());
        }
        let triangles = sheet.mesh.triangles();
        let nt = triangles.len();
        let mut out =
            TriangleWind { velocity: vec![Vec3::zeros(); nt], normal: vec![0.0; nt], tangential: vec![0.0; nt] };
        let mut by: Vec<Option<&str>> = vec![None; nt];
        for (key, w) in &self.winds {
            let invalid =
                |message: String| SceneError::Invalid { origin: self.origin.clone(), key: key.clone(), message };
            let mut selected = vec![false; select_on.len()];
            for v in w.on.select(select_on, &self.groups).map_err(invalid)? {
                selected[v] = true;
            }
            let mut any = false;
            for (t, tri) in triangles.iter().enumerate() {
                if !tri.iter().all(|&v| selected[v]) {
                    continue;
                }
                if let Some(other) = by[t] {
                    return Err(invalid(format!(
                        "triangle {t} also feels the wind of {other}: give each triangle one wind (the drag of two \
                         winds is not the sum of their drags)"
                    )));
                }
                by[t] = Some(key);
                out.velocity[t] = w.wind;
                out.normal[t] = 0.5 * w.air_density * w.drag;
                out.tangential[t] = 0.5 * w.air_density * w.tangential;
                any = true;
            }
            // The solvers take norms of the forces: their squares must stay finite.
            let total = 0.5 * w.air_density * w.drag.max(w.tangential) * sheet.mesh.area() * w.wind.norm_squared();
            if !(total * total).is_finite() {
                return Err(invalid(format!(
                    "the wind {:?} m/s gives a total force ({total:e} N) whose square overflows f64",
                    w.wind.as_slice()
                )));
            }
            if !any {
                return Err(invalid(format!(
                    "{} selects no triangle of the sheet (a wind acts on the triangles whose three vertices it \
                     selects, coordinates as the scene file gives them)",
                    w.on
                )));
            }
        }
        Ok(out)
    }

    /// What `pbdfit scenes` says of it: how it is held, and its description.
    pub fn listing(&self) -> String {
        let held: Vec<String> = self.held.iter().map(|(s, support)| format!("{s} ({})", support.name())).collect();
        format!("sheet held at {}; {}", held.join(" and "), self.description)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SceneSet;

    const STRIP: &str = "name = \"s\"\n[sheet]\nwidth = 1.0\nheight = 0.1\nn = 20\nthickness = 1e-3\n[[held]]\nplane = \"x = 0\"\n[material]\ndensity = 7850\n";

    #[test]
    fn a_rectangle_is_meshed_in_proportion_and_held() {
        let scene = SheetScene::parse(STRIP, "t", None).unwrap();
        let body = scene.body(None).unwrap();
        assert_eq!(body.sheet.mesh.triangles().len(), 2 * 20 * 2);
        assert_eq!(body.held_indices().len(), 3);
        assert!(body.held.iter().flatten().all(|s| *s == SheetSupport::Clamped));
        let summary = scene.summary();
        assert_eq!((summary.size_m, summary.thickness_m), (1.0, Some(1e-3)));
        assert!((summary.mass_kg - 0.785).abs() < 1e-12);
        assert!((body.sheet.total_mass() - 0.785).abs() < 1e-12);
        // Scaled: the same held vertices, the mass with the area.
        let half = scene.clone().with_body(None, Some(0.5), Some(2e-3)).unwrap();
        let b = half.body(Some(10)).unwrap();
        assert_eq!(b.held_indices().len(), 2);
        assert!((half.summary().mass_kg - 7850.0 * 2e-3 * 0.5 * 0.05).abs() < 1e-12);
        assert!((b.sheet.total_mass() - half.summary().mass_kg).abs() < 1e-12);
    }

    /// A clamped edge is held by particles over its first cell (the clamped column and the next); a clip at
    /// a corner (an isolated clamped vertex) holds itself only; pinned vertices hold themselves.
    #[test]
    fn particles_hold_a_clamped_edge_s_first_cell_and_a_corner_clip_alone() {
        let strip = SheetScene::parse(STRIP, "t", None).unwrap().body(None).unwrap();
        let held = strip.particle_held();
        let columns = |x: f64| {
            let v = strip.sheet.mesh.vertices();
            (0..v.len()).filter(|&i| (v[i].x - x).abs() < 1e-12).collect::<Vec<_>>()
        };
        let expected: Vec<usize> = {
            let mut e = [columns(0.0), columns(0.05)].concat();
            e.sort_unstable();
            e
        };
        assert_eq!((0..held.len()).filter(|&v| held[v]).collect::<Vec<_>>(), expected);
        // Two corner clips; four pinned edges.
        for (scene, supported) in [("hanging-sheet", 2), ("supported-plate", 16)] {
            let body = SheetScene::load(scene).unwrap().body(Some(4)).unwrap();
            let supports: Vec<bool> = body.held.iter().map(Option::is_some).collect();
            assert_eq!(body.particle_held(), supports, "{scene}: no clamped edge, so the supports alone");
            assert_eq!(body.held_indices().len(), supported, "{scene}");
        }
    }

    #[test]
    fn every_built_in_sheet_builds_and_solid_loaders_refuse_it() {
        let mut sheets = 0;
        for (name, text) in BUILTIN_SCENES {
            if !is_sheet_text(text) {
                assert!(matches!(SheetScene::load(name), Err(SceneError::NotSheet { .. })), "{name}");
                continue;
            }
            sheets += 1;
            assert!(SheetScene::names_sheet(name));
            let scene = SheetScene::load(name).unwrap();
            let body = scene.body(None).unwrap();
            assert!(!body.held_indices().is_empty() && scene.young.is_some(), "{name}");
            let e = SceneSet::load(name).unwrap_err();
            assert!(matches!(e, SceneError::Sheet { .. }), "{name}");
            assert!(e.to_string().contains("is a sheet"), "{e}");
        }
        assert_eq!(sheets, 5);
    }

    #[test]
    fn bad_sheets_are_refused_naming_the_key() {
        let e = |text: &str| SheetScene::parse(text, "t", None).unwrap_err().to_string();
        for bad in ["0", "-1e-3", "nan", "inf"] {
            let s = e(&STRIP.replace("thickness = 1e-3", &format!("thickness = {bad}")));
            assert!(s.contains("sheet.thickness") && s.contains("finite number > 0 m"), "{s}");
        }
        let s = e(&STRIP.replace("plane = \"x = 0\"", "plane = \"x = 2\""));
        assert!(s.contains("held[0]") && s.contains("selects no vertex"), "{s}");
        let s = e(&STRIP.replace("[[held]]\nplane = \"x = 0\"\n", ""));
        assert!(s.contains("not held"), "{s}");
        // Obstacles are a solid's tables: a bad key, and a sheet that starts inside one, are refused naming it.
        let s = e(&format!("{STRIP}[[obstacle]]\nshape = \"plane\"\n"));
        assert!(s.contains("obstacle[0]"), "{s}");
        let sphere = "[[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 0.05, -0.1]\nradius = 0.2\n";
        let s = e(&format!("{STRIP}{sphere}"));
        assert!(s.contains("obstacle[0]") && s.contains("starts inside this sphere"), "{s}");
        let touching = sphere.replace("-0.1]", "-0.2]");
        let scene = SheetScene::parse(&format!("{STRIP}{touching}"), "t", None).unwrap();
        let body = scene.with_body(None, Some(2.0), None).unwrap().body(None).unwrap();
        assert_eq!(body.obstacles.len(), 1);
        let resized = match body.obstacles[0].shape {
            crate::obstacle::Shape::Sphere(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!((resized.radius, resized.center.z), (0.4, -0.4));
        let s = e(&STRIP.replace("plane = \"x = 0\"", "plane = \"x = 0\"\nsupport = \"glued\""));
        assert!(s.contains("held[0].support"), "{s}");
        // A mesh given whole: a non-manifold edge named by its triangle.
        let mesh = "name = \"m\"\n[sheet]\nthickness = 1e-3\nvertices = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1]]\ntriangles = [[0, 1, 2], [0, 2, 3], [0, 2, 4]]\n[[held]]\nplane = \"x = 0\"\n";
        let s = e(mesh);
        assert!(s.contains("sheet.triangles") && s.contains("triangle 2") && s.contains("non-manifold"), "{s}");
        let s = e(&mesh.replace(", [0, 2, 4]]", "]"));
        assert!(s.contains("vertex 4 belongs to no triangle"), "{s}");
        let ok = mesh.replace(", [0, 2, 4]]", "]").replace(", [0.5, 0.5, 1]]", "]");
        let scene = SheetScene::parse(&ok, "t", None).unwrap();
        assert_eq!(scene.body(None).unwrap().held_indices(), [0, 3]);
        assert!(scene.resolution(Some(2)).unwrap_err().contains("own resolution"));
        let s = e(&ok.replace("[0, 2, 3]]", "[0, 2, 3], [3, 2, 0]]"));
        assert!(s.contains("repeats triangle 1"), "{s}");
        let s = e(&ok.replace("[0, 2, 3]]", "[0, -2, 3]]"));
        assert!(s.contains("negative vertex index"), "{s}");
    }

    /// A sheet from a mesh file: an OBJ square (two triangles, one quad fanned) and a Gmsh file's
    /// triangles with a physical group held; a file without triangles refused.
    #[test]
    fn a_sheet_reads_a_triangle_mesh_file() {
        let dir = std::env::temp_dir().join(format!("pbdfit-sheet-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("cloth.obj"),
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nf 1 2 3 4\nf 2 5 6\nf 2 6 3\n",
        )
        .unwrap();
        let scene = "name = \"c\"\n[sheet]\nthickness = 1e-3\nmesh = \"cloth.obj\"\n[[held]]\nplane = \"x = 0\"\n";
        let sheet = SheetScene::parse(scene, "c.toml", Some(&dir)).unwrap();
        let body = sheet.body(None).unwrap();
        assert_eq!((body.sheet.mesh.triangles().len(), body.held_indices()), (4, vec![0, 3]));
        assert!((sheet.summary().mass_kg - 1000.0 * 1e-3 * 2.0).abs() < 1e-12);
        let msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n1 7 \"edge\"\n$EndPhysicalNames\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n3\n1 1 2 7 1 4 1\n2 2 2 1 1 1 2 3\n3 2 2 1 1 1 3 4\n$EndElements\n";
        std::fs::write(dir.join("square.msh"), msh).unwrap();
        let scene = "name = \"g\"\n[sheet]\nthickness = 1e-3\nmesh = \"square.msh\"\n[[held]]\ngroup = \"edge\"\n";
        let body = SheetScene::parse(scene, "g.toml", Some(&dir)).unwrap().body(None).unwrap();
        assert_eq!((body.sheet.mesh.triangles().len(), body.held_indices()), (2, vec![0, 3]));
        // A VTK file of triangles, as `pbdfit fem --vtk` writes one for a sheet, read back as a sheet.
        let strip = SheetMesh::rectangle(1.0, 0.1, 10, 2, Diagonal::Crossed).unwrap();
        crate::vtk::write_vtu_triangles(&dir.join("strip.vtu"), strip.vertices(), strip.triangles(), &[]).unwrap();
        let scene = "name = \"v\"\n[sheet]\nthickness = 1e-3\nmesh = \"strip.vtu\"\n[[held]]\nplane = \"x = 0\"\n";
        let body = SheetScene::parse(scene, "v.toml", Some(&dir)).unwrap().body(None).unwrap();
        assert_eq!(body.sheet.mesh, strip);
        std::fs::write(dir.join("points.obj"), "v 0 0 0\n").unwrap();
        let scene = "name = \"p\"\n[sheet]\nthickness = 1e-3\nmesh = \"points.obj\"\n[[held]]\nplane = \"x = 0\"\n";
        let e = SheetScene::parse(scene, "p.toml", Some(&dir)).unwrap_err().to_string();
        assert!(e.contains("sheet.mesh") && e.contains("no triangles"), "{e}");
        let e = SheetScene::parse(&scene.replace("thickness", "n = 3\nthickness"), "p.toml", Some(&dir)).unwrap_err();
        assert!(e.to_string().contains("own resolution"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A pressure load on a sheet: follower by default, dead with `follower = false`, on the triangles its
    /// selector picks (summed where two overlap); its nodal forces `p A n / 3` sum to `p` times the area along
    /// the built-in rectangle's normal +z. A traction on a sheet and a pressure selecting no triangle are
    /// refused, named; a pressure on a solid is refused by the solids' loads.
    #[test]
    fn a_sheet_takes_pressure_loads_on_the_triangles_they_select() {
        let text = format!(
            "{STRIP}[[load.pressure]]\nplane = \"z = 0\"\npressure = 250.0\n[[load.pressure]]\nbox = {{ min = [0.5, -1, -1], max = [2, 2, 2] }}\npressure = -100\nfollower = false\n"
        );
        let scene = SheetScene::parse(&text, "t", None).unwrap();
        assert_eq!(scene.pressures.len(), 2);
        assert!(scene.pressures[0].1.follower && !scene.pressures[1].1.follower);
        let body = scene.clone().with_body(None, Some(2.0), None).unwrap().body(Some(10)).unwrap();
        let nt = body.sheet.mesh.triangles().len();
        assert_eq!(body.pressure.follower, vec![250.0; nt]);
        // The right half's triangles (x >= 0.5 unscaled) carry the dead pressure.
        let dead = body.pressure.dead.iter().filter(|&&p| p == -100.0).count();
        assert_eq!((dead, body.pressure.dead.iter().filter(|&&p| p == 0.0).count()), (nt / 2, nt / 2));
        let f = TrianglePressure::nodal_forces(
            body.sheet.mesh.triangles(),
            &body.pressure.follower,
            body.sheet.mesh.vertices(),
        );
        let total: Vec3 = f.iter().sum();
        let area = body.sheet.mesh.area();
        assert!((area - 2.0 * 0.2).abs() < 1e-12, "scaled to 2 m: {area}");
        assert!((total - Vec3::new(0.0, 0.0, 250.0 * area)).norm() < 1e-12 * 250.0, "{total}");
        let e = |text: &str| SheetScene::parse(text, "t", None).unwrap_err().to_string();
        let s = e(&format!("{STRIP}[[load.traction]]\nplane = \"x = 1\"\ntraction = [1, 0, 0]\n"));
        assert!(s.contains("load.traction[0]") && s.contains("gravity, pressure and wind"), "{s}");
        let s = e(&format!("{STRIP}[[load.pressure]]\nplane = \"x = 1\"\npressure = 1\n"));
        assert!(s.contains("load.pressure[0]") && s.contains("selects no triangle"), "{s}");
        let s = e(&format!("{STRIP}[[load.pressure]]\nplane = \"z = 0\"\npressure = 1\nfollower = 1\n"));
        assert!(s.contains("load.pressure[0]") && s.contains("true or false"), "{s}");
        let s = e(&format!("{STRIP}[[load.pressure]]\nplane = \"z = 0\"\n"));
        assert!(s.contains("missing `pressure`"), "{s}");
        let s = e(&format!("{STRIP}[[load.pressure]]\nplane = \"z = 0\"\npressure = 1e300\n"));
        assert!(s.contains("load.pressure[0]") && s.contains("overflows"), "{s}");
        let tension = BUILTIN_SCENES.iter().find(|(n, _)| *n == "tension").unwrap().1;
        let solid = tension
            .replace("[[load.traction]]", "[[load.pressure]]")
            .replace("traction = [0.0, 10.0, 0.0]", "pressure = 10.0");
        let e = SceneSet::parse(&solid, "t", None).and_then(|set| set.scenes()[0].body(2).map(|_| ())).unwrap_err();
        assert!(e.to_string().contains("load.pressure[0]") && e.to_string().contains("acts on sheets"), "{e}");
    }

    #[test]
    fn a_surface_sheet_is_the_unit_cube_s_boundary_at_its_resolution() {
        let text = "name = \"s\"\n[sheet]\nsurface = \"unit-cube\"\nn = 2\nthickness = 0.1\n[[held]]\n\
                    box = { min = [0.3, 1, 0.3], max = [0.7, 1, 0.7] }\nsupport = \"pinned\"\n";
        let scene = SheetScene::parse(text, "t", None).unwrap();
        let body = scene.body(Some(3)).unwrap();
        assert_eq!(body.sheet.mesh.triangles().len(), 12 * 9);
        body.sheet.mesh.check_closed().unwrap();
        assert_eq!(scene.body(None).unwrap().sheet.mesh.vertices().len(), 26);
        assert!((scene.summary().mass_kg - 1000.0 * 0.1 * 6.0).abs() < 1e-9);
        let bad = SheetScene::parse(
            &text.replace("surface = \"unit-cube\"\n", "surface = \"unit-cube\"\nwidth = 1.0\n"),
            "t",
            None,
        )
        .unwrap_err();
        assert!(bad.to_string().contains("`surface`"), "{bad}");
    }

    #[test]
    fn with_body_refuses_a_bad_thickness_naming_it() {
        let scene = SheetScene::parse(STRIP, "t", None).unwrap();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = scene.clone().with_body(None, None, Some(bad)).unwrap_err();
            assert_eq!(e.option(), "thickness");
            assert!(e.to_string().contains("finite number > 0 m"), "{e}");
        }
    }
}
