//! Tetrahedral meshes from other tools: Gmsh `.msh` (2.2 and 4.1, ASCII and binary), VTK XML unstructured
//! grids (`.vtu`), legacy VTK unstructured grids (`.vtk`) and TetGen `.node`/`.ele` pairs
//! (docs/meshes-and-loads.md).
//!
//! Reading is two steps: a parser gives a [`RawMesh`] (the file's vertices, linear tetrahedra and Gmsh
//! physical groups, with the file's own numbering kept for messages), and [`RawMesh::validate`] turns it
//! into a [`TetMesh`] that pbdfit can simulate: finite coordinates, positively oriented, no degenerate
//! tetrahedra, no duplicate vertices, no unused vertices.
//!
//! Parsers never panic and never allocate from a count the file claims: a count only bounds a loop that
//! stops at the end of the input.
//!
//! ```
//! use pbdfit_mesh::import::{ImportOptions, parse_tetgen};
//! let node = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
//! let ele = "1 4 0\n1 1 2 3 4\n";
//! let raw = parse_tetgen(node, ele, "tet").unwrap();
//! let imported = raw.validate("tet", ImportOptions::default()).unwrap();
//! assert_eq!(imported.mesh.tets(), &[[0, 1, 2, 3]]);
//! assert!((imported.mesh.tet_volume(0) - 1.0 / 6.0).abs() < 1e-15);
//! ```

mod error;
mod gmsh;
mod obj;
mod tetgen;
pub(crate) mod vtk;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub use error::ImportError;
pub use gmsh::parse_gmsh;
pub use obj::parse_obj;
pub use tetgen::parse_tetgen;
pub use vtk::{parse_legacy_vtk, parse_vtu, quietly};

use crate::{TetMesh, Vec3, signed_volume};

/// How a format's file is read: one file's bytes, or from the path (a format of several files).
#[derive(Debug, Clone, Copy)]
pub enum FormatReader {
    /// The bytes of one file and its name for messages.
    OneFile(fn(&[u8], &str) -> Result<RawMesh, ImportError>),
    /// The path of any file of the set (which reads the others beside it).
    Files(fn(&Path) -> Result<RawMesh, ImportError>),
}

/// What pbdfit knows of one mesh format: its definition lives in the format's own file.
#[derive(Debug, Clone, Copy)]
pub struct FormatDef {
    /// File extensions, lower case, without the dot.
    pub extensions: &'static [&'static str],
    /// What the format is, for messages.
    pub description: &'static str,
    /// Its reader.
    pub reader: FormatReader,
}

/// The format registry. **Adding a format** is one parser file in this folder, holding its `FormatDef`
/// (extensions, description, reader), plus its `mod` line above and one line here: the enum, the
/// extension lookup, the messages that list known formats and the tests that iterate [`MeshFormat::ALL`]
/// all read this list.
macro_rules! mesh_formats {
    ($( $(#[$doc:meta])* $variant:ident => $def:path ),+ $(,)?) => {
        /// The file formats pbdfit imports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum MeshFormat {
            $( $(#[$doc])* $variant, )+
        }

        impl MeshFormat {
            /// Every format: the one list that file names, messages and tests read.
            pub const ALL: &'static [MeshFormat] = &[$(MeshFormat::$variant),+];

            /// The format's definition.
            pub fn def(self) -> &'static FormatDef {
                match self {
                    $(MeshFormat::$variant => &$def,)+
                }
            }
        }
    };
}

mesh_formats! {
    /// Gmsh `.msh`, versions 2.2 and 4.1, ASCII or binary.
    Gmsh => gmsh::FORMAT,
    /// VTK XML unstructured grid `.vtu`.
    Vtu => vtk::VTU,
    /// Legacy VTK `.vtk`, dataset `UNSTRUCTURED_GRID`.
    LegacyVtk => vtk::LEGACY,
    /// TetGen `base.node` + `base.ele`.
    TetGen => tetgen::FORMAT,
    /// Wavefront `.obj`: triangles and polygons, for sheets.
    Obj => obj::FORMAT,
}

impl MeshFormat {
    /// The file extensions of the format (lower case, without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        self.def().extensions
    }

    /// What the format is, for messages.
    pub fn description(self) -> &'static str {
        self.def().description
    }

    /// The known extensions and formats, e.g. `.msh (Gmsh 2.2 or 4.1), ..., .node/.ele (TetGen)`.
    pub fn known() -> String {
        Self::ALL
            .iter()
            .map(|f| {
                let ext: Vec<String> = f.extensions().iter().map(|e| format!(".{e}")).collect();
                format!("{} ({})", ext.join("/"), f.description())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The format by the file's extension (case-insensitive; `.node` or `.ele` -> TetGen, the pair
    /// `base.node` + `base.ele`). Any other extension is [`ImportError::UnknownFormat`].
    pub fn from_path(path: &Path) -> Result<Self, ImportError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        Self::ALL
            .iter()
            .copied()
            .find(|f| ext.as_deref().is_some_and(|e| f.extensions().contains(&e)))
            .ok_or_else(|| ImportError::UnknownFormat { path: path.to_path_buf(), known: Self::known() })
    }
}

/// A mesh as read, before validation: 0-based indices, orientation as in the file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawMesh {
    /// Vertex positions in m, in file order.
    pub vertices: Vec<Vec3>,
    /// Linear tetrahedra, 0-based indices into `vertices`, vertex order as in the file.
    pub tets: Vec<[usize; 4]>,
    /// For each tet, the element's number as the file names it (Gmsh element tag, VTK cell index,
    /// TetGen element number), for error messages.
    pub tet_ids: Vec<usize>,
    /// For each vertex, its number as the file names it (Gmsh node tag, VTK point index, TetGen point
    /// number).
    pub vertex_ids: Vec<usize>,
    /// Gmsh physical groups as vertex sets (indices into `vertices`): every node of every element (of any
    /// dimension: surfaces, volumes, points) carrying that physical tag. Keyed by the physical name when
    /// `$PhysicalNames` gives one, and by the tag number as a string (`"3"`). Empty for other formats.
    pub groups: BTreeMap<String, BTreeSet<usize>>,
    /// Cells that are not linear tetrahedra (triangles, hexahedra, quadratic tets, ...) and were
    /// skipped; lower-dimensional Gmsh elements still contribute to groups.
    pub ignored_cells: usize,
    /// Linear triangles (Gmsh type 2, VTK cell type 5, OBJ faces), 0-based, for a sheet
    /// ([`RawMesh::validate_sheet`]); a solid's validation counts them among `ignored_cells`.
    pub triangles: Vec<[usize; 3]>,
}

/// How to treat fixable problems when importing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Swap the last two vertices of each negatively oriented tetrahedron instead of refusing the mesh.
    pub fix_orientation: bool,
}

/// What validation changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Tetrahedra whose last two vertices were swapped (only with `fix_orientation`).
    pub orientation_fixed: usize,
    /// Vertices that no tetrahedron uses, dropped.
    pub unused_vertices_dropped: usize,
    /// Cells that are not linear tetrahedra, skipped by the parser.
    pub ignored_cells: usize,
}

impl std::fmt::Display for ImportReport {
    /// What validation changed, e.g. `2 tetrahedra reoriented, 16 non-tetrahedral cells left out of the
    /// body`; `no changes` when nothing was.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let changes: Vec<String> = [
            (self.orientation_fixed, "tetrahedra reoriented"),
            (self.unused_vertices_dropped, "unused vertices dropped"),
            (self.ignored_cells, "non-tetrahedral cells left out of the body"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}"))
        .collect();
        if changes.is_empty() { f.write_str("no changes") } else { f.write_str(&changes.join(", ")) }
    }
}

/// A validated imported mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMesh {
    /// Validated, positively oriented, unused vertices removed (renumbered, order kept).
    pub mesh: TetMesh,
    /// Gmsh physical groups as sorted vertex indices into `mesh`, renumbered; vertices dropped as unused
    /// are dropped from the groups.
    pub groups: BTreeMap<String, Vec<usize>>,
    /// The file's number of each kept vertex.
    pub vertex_ids: Vec<usize>,
    /// What validation changed.
    pub report: ImportReport,
}

/// Reads a mesh file of any format [`MeshFormat::from_path`] knows. For TetGen, `path` may name either
/// file of the pair; both `base.node` and `base.ele` are read.
pub fn read_mesh(path: &Path) -> Result<RawMesh, ImportError> {
    match MeshFormat::from_path(path)?.def().reader {
        FormatReader::OneFile(parse) => parse(&read_file(path)?, &path.display().to_string()),
        FormatReader::Files(read) => read(path),
    }
}

/// A file's bytes; an error naming it.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, ImportError> {
    std::fs::read(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })
}

/// Parses the bytes of a one-file mesh format (Gmsh, VTU, legacy VTK); `origin` names the source in
/// errors. TetGen meshes are two files (`.node` and `.ele`): [`parse_tetgen`].
///
/// # Panics
/// For a format of several files (TetGen), which has no single-file form (a caller's mistake, not bad
/// input).
pub fn parse_single_file(format: MeshFormat, bytes: &[u8], origin: &str) -> Result<RawMesh, ImportError> {
    match format.def().reader {
        FormatReader::OneFile(parse) => parse(bytes, origin),
        FormatReader::Files(_) => {
            panic!("{origin}: {} meshes are several files; read them by path", format.description())
        }
    }
}

impl RawMesh {
    /// The mesh's triangles as a sheet: vertices in no triangle dropped (the rest renumbered in order,
    /// the groups with them), then validated as [`SheetMesh::new`](crate::SheetMesh::new) validates (a
    /// non-finite vertex, a degenerate, duplicated or non-manifold triangle refused, named by its
    /// number among the file's triangles). Returns the mesh and the groups as sorted vertex indices. The
    /// message says what is wrong, naming `origin`.
    pub fn validate_sheet(self, origin: &str) -> Result<(crate::SheetMesh, BTreeMap<String, Vec<usize>>), String> {
        let RawMesh { vertices, triangles, groups, ignored_cells, .. } = self;
        if triangles.is_empty() {
            return Err(format!(
                "mesh file {origin}: no triangles found ({ignored_cells} other cells skipped); a sheet is made of \
                 3-node triangles"
            ));
        }
        if let Some((t, v)) = triangles
            .iter()
            .enumerate()
            .find_map(|(t, tri)| tri.iter().find(|&&v| v >= vertices.len()).map(|&v| (t, v)))
        {
            return Err(format!(
                "mesh file {origin}: triangle {t} refers to vertex {v}, but the file has only {} vertices",
                vertices.len()
            ));
        }
        let mut new = vec![usize::MAX; vertices.len()];
        let mut kept = Vec::new();
        for &v in triangles.iter().flatten() {
            if new[v] == usize::MAX {
                new[v] = 0;
            }
        }
        for (v, n) in new.iter_mut().enumerate() {
            if *n == 0 {
                *n = kept.len();
                kept.push(vertices[v]);
            }
        }
        let triangles = triangles.iter().map(|t| t.map(|v| new[v])).collect();
        let mesh = crate::SheetMesh::new(kept, triangles).map_err(|e| format!("mesh file {origin}: {e}"))?;
        let groups = groups
            .into_iter()
            .map(|(name, members)| {
                (name, members.into_iter().filter(|&v| new[v] != usize::MAX).map(|v| new[v]).collect())
            })
            .collect();
        Ok((mesh, groups))
    }
}

/// A tetrahedron whose absolute volume is below this fraction of the mean is degenerate (docs/method.md).
const DEGENERATE_FRACTION: f64 = 1e-12;
/// Two used vertices closer than this fraction of the bounding-box diagonal are duplicates.
const DUPLICATE_FRACTION: f64 = 1e-12;

impl RawMesh {
    /// Validates and cleans the mesh, in this order:
    /// - a non-finite coordinate is refused ([`ImportError::NonFiniteCoordinate`]);
    /// - a vertex index out of range is refused ([`ImportError::IndexOutOfRange`]);
    /// - no tetrahedra at all is refused ([`ImportError::NoTetrahedra`]);
    /// - a degenerate tetrahedron (|volume| < 1e-12 mean |volume|) is refused
    ///   ([`ImportError::DegenerateTet`]);
    /// - inverted (negative) tetrahedra are refused ([`ImportError::InvertedTets`]), unless
    ///   `options.fix_orientation`: then the last two vertices of each are swapped and counted;
    /// - two used vertices at the same position (within 1e-12 of the bounding-box diagonal) are refused
    ///   ([`ImportError::DuplicateVertices`]);
    /// - unused vertices are dropped (the rest renumbered in order) and counted, and dropped from groups.
    ///
    /// `origin` names the file in error messages.
    pub fn validate(self, origin: &str, options: ImportOptions) -> Result<ImportedMesh, ImportError> {
        let RawMesh { vertices, mut tets, tet_ids, vertex_ids, groups, ignored_cells, .. } = self;
        let origin_s = || origin.to_string();
        let vid = |v: usize| vertex_ids.get(v).copied().unwrap_or(v);
        let tid = |t: usize| tet_ids.get(t).copied().unwrap_or(t);
        for (v, p) in vertices.iter().enumerate() {
            if !p.iter().all(|c| c.is_finite()) {
                return Err(ImportError::NonFiniteCoordinate {
                    origin: origin_s(),
                    vertex: vid(v),
                    x: p.x,
                    y: p.y,
                    z: p.z,
                });
            }
        }
        for (t, tet) in tets.iter().enumerate() {
            if let Some(&v) = tet.iter().find(|&&v| v >= vertices.len()) {
                return Err(ImportError::IndexOutOfRange {
                    origin: origin_s(),
                    element: tid(t),
                    vertex: v,
                    count: vertices.len(),
                });
            }
        }
        if tets.is_empty() {
            return Err(ImportError::NoTetrahedra { origin: origin_s(), ignored_cells });
        }

        let volumes: Vec<f64> = tets.iter().map(|t| signed_volume(t.map(|v| vertices[v]))).collect();
        // Non-finite volumes (NaN or inf) come from coordinates so large that the products overflow; they
        // would make the mean infinite and every element "below 1e-12 times the mean".
        if let Some(t) = volumes.iter().position(|v| !v.is_finite()) {
            let largest = tets[t].iter().flat_map(|&v| vertices[v].iter().map(|c| c.abs())).fold(0.0, f64::max);
            return Err(ImportError::NonFiniteVolume {
                origin: origin_s(),
                element: tid(t),
                volume: volumes[t],
                largest,
            });
        }
        let count = volumes.len() as f64;
        let mean = volumes.iter().map(|v| v.abs()).sum::<f64>() / count;
        // A sum of finite volumes near f64::MAX overflows: then each term divided first.
        let mean = if mean.is_finite() { mean } else { volumes.iter().map(|v| v.abs() / count).sum::<f64>() };
        if let Some(t) = volumes.iter().position(|v| v.abs() < DEGENERATE_FRACTION * mean || *v == 0.0) {
            return Err(ImportError::DegenerateTet {
                origin: origin_s(),
                element: tid(t),
                volume: volumes[t],
                mean_volume: mean,
            });
        }
        let inverted: Vec<usize> = (0..tets.len()).filter(|&t| volumes[t] < 0.0).collect();
        if let Some(&first) = inverted.first() {
            if !options.fix_orientation {
                return Err(ImportError::InvertedTets {
                    origin: origin_s(),
                    element: tid(first),
                    volume: volumes[first],
                    count: inverted.len(),
                });
            }
            for &t in &inverted {
                tets[t].swap(2, 3);
            }
        }

        let mut used = vec![false; vertices.len()];
        for tet in &tets {
            for &v in tet {
                used[v] = true;
            }
        }
        let used_list: Vec<usize> = (0..vertices.len()).filter(|&v| used[v]).collect();
        if let Some((a, b)) = find_duplicate(&vertices, &used_list) {
            let p = vertices[a];
            return Err(ImportError::DuplicateVertices {
                origin: origin_s(),
                first: vid(a),
                second: vid(b),
                x: p.x,
                y: p.y,
                z: p.z,
            });
        }

        let mut new_index = vec![usize::MAX; vertices.len()];
        for (n, &v) in used_list.iter().enumerate() {
            new_index[v] = n;
        }
        let kept_vertices: Vec<Vec3> = used_list.iter().map(|&v| vertices[v]).collect();
        let kept_ids: Vec<usize> = used_list.iter().map(|&v| vid(v)).collect();
        let tets: Vec<[usize; 4]> = tets.iter().map(|t| t.map(|v| new_index[v])).collect();
        let groups = groups
            .into_iter()
            .map(|(name, members)| {
                let kept = members.into_iter().filter_map(|v| new_index.get(v).copied().filter(|&n| n != usize::MAX));
                let mut kept: Vec<usize> = kept.collect();
                kept.sort_unstable();
                (name, kept)
            })
            .collect();
        let report = ImportReport {
            orientation_fixed: inverted.len(), // without fix_orientation an inverted tet returned an error above
            unused_vertices_dropped: vertices.len() - used_list.len(),
            ignored_cells,
        };
        let mesh =
            TetMesh::new(kept_vertices, tets).map_err(|source| ImportError::Mesh { origin: origin_s(), source })?;
        Ok(ImportedMesh { mesh, groups, vertex_ids: kept_ids, report })
    }
}

/// The first pair (lowest first index, then lowest second) of vertices among `candidates` within
/// `DUPLICATE_FRACTION` of their bounding-box diagonal of each other.
///
/// Points are binned into cubes of the tolerance's size and the bins sorted; each point then looks in
/// its own and the 26 neighbouring bins by binary search: O(n log n), where comparing all pairs would
/// be O(n^2).
fn find_duplicate(vertices: &[Vec3], candidates: &[usize]) -> Option<(usize, usize)> {
    if candidates.len() < 2 {
        return None;
    }
    let mut lo = vertices[candidates[0]];
    let mut hi = lo;
    for &v in candidates {
        lo = lo.inf(&vertices[v]);
        hi = hi.sup(&vertices[v]);
    }
    let tol = DUPLICATE_FRACTION * (hi - lo).norm();
    if !(tol.is_finite() && tol > 0.0) {
        // All points coincide (tol 0) or the extent overflows: fall back to exact equality.
        let mut sorted = candidates.to_vec();
        let key = |v: &usize| (vertices[*v].x, vertices[*v].y, vertices[*v].z);
        sorted.sort_by(|a, b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(ka.2.total_cmp(&kb.2)).then(a.cmp(b))
        });
        return sorted
            .windows(2)
            .filter(|w| vertices[w[0]] == vertices[w[1]])
            .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
            .min();
    }
    // Bin coordinates are at most diagonal / tol = 1e12, well inside i64.
    let bin = |p: &Vec3| -> [i64; 3] { [0, 1, 2].map(|a| ((p[a] - lo[a]) / tol).floor() as i64) };
    let mut sorted: Vec<([i64; 3], usize)> = candidates.iter().map(|&v| (bin(&vertices[v]), v)).collect();
    sorted.sort_unstable();
    let mut best: Option<(usize, usize)> = None;
    for &(b, v) in &sorted {
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [b[0] + dx, b[1] + dy, b[2] + dz];
                    let start = sorted.partition_point(|(k, _)| *k < key);
                    for &(k, w) in &sorted[start..] {
                        if k != key {
                            break;
                        }
                        if w > v && (vertices[w] - vertices[v]).norm() <= tol && best.is_none_or(|p| (v, w) < p) {
                            best = Some((v, w));
                        }
                    }
                }
            }
        }
    }
    best
}
