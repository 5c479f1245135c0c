use std::path::PathBuf;

use crate::MeshError;

/// A mesh file that cannot be imported. Every variant names the file (`origin`) and, where it applies,
/// the line, or the element or vertex by the number the file gives it.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read mesh file {path}: {source}")]
    Io {
        /// File path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file name's extension names no format pbdfit reads.
    #[error("mesh file {path}: unknown format; known extensions are {known}")]
    UnknownFormat {
        /// File path.
        path: PathBuf,
        /// The known extensions and formats ([`MeshFormat::known`](super::MeshFormat::known)).
        known: String,
    },
    /// The file is malformed.
    #[error("mesh file {origin}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Syntax {
        /// File path (or a name for in-memory input).
        origin: String,
        /// 1-based line where the problem was found, where the format has lines.
        line: Option<usize>,
        /// What was wrong and what was expected.
        message: String,
    },
    /// The file is well-formed but uses a feature pbdfit does not read.
    #[error("mesh file {origin}: unsupported: {message}")]
    Unsupported {
        /// File path.
        origin: String,
        /// The feature, and what is supported instead.
        message: String,
    },
    /// The file has no linear tetrahedra.
    #[error(
        "mesh file {origin}: no linear tetrahedra found ({ignored_cells} other cells skipped); pbdfit \
         simulates 4-node tetrahedra only"
    )]
    NoTetrahedra {
        /// File path.
        origin: String,
        /// Cells of other kinds that were skipped.
        ignored_cells: usize,
    },
    /// A vertex coordinate is NaN or infinite.
    #[error("mesh file {origin}: vertex {vertex} has a non-finite coordinate ({x}, {y}, {z})")]
    NonFiniteCoordinate {
        /// File path.
        origin: String,
        /// The vertex's number in the file.
        vertex: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
        /// Its z coordinate.
        z: f64,
    },
    /// An element refers to a vertex that does not exist.
    #[error(
        "mesh file {origin}: element {element} refers to vertex {vertex}, which the file does not define \
         ({count} vertices)"
    )]
    IndexOutOfRange {
        /// File path.
        origin: String,
        /// The element's number in the file.
        element: usize,
        /// The vertex number it names (as the file names it, or a 0-based index for a hand-built mesh).
        vertex: usize,
        /// How many vertices there are.
        count: usize,
    },
    /// A tetrahedron's volume is not a finite number: its coordinates are finite but so large that the
    /// products of their differences overflow.
    #[error(
        "mesh file {origin}: element {element}'s volume is not a finite number ({volume} m^3): its vertex \
         coordinates are too large (up to {largest:e}); pbdfit needs coordinates in metres small enough that \
         their cubes are finite (below about 1e100)"
    )]
    NonFiniteVolume {
        /// File path.
        origin: String,
        /// The element's number in the file.
        element: usize,
        /// Its signed volume as computed (inf or NaN).
        volume: f64,
        /// The largest absolute coordinate of its vertices.
        largest: f64,
    },
    /// A tetrahedron's volume is (nearly) zero.
    #[error(
        "mesh file {origin}: element {element} is degenerate: |volume| {volume:e} m^3 is below 1e-12 times \
         the mean |volume| {mean_volume:e} m^3"
    )]
    DegenerateTet {
        /// File path.
        origin: String,
        /// The element's number in the file.
        element: usize,
        /// Its signed volume in m^3.
        volume: f64,
        /// The mean absolute volume of all tetrahedra in m^3.
        mean_volume: f64,
    },
    /// Some tetrahedra are negatively oriented.
    #[error(
        "mesh file {origin}: {count} tetrahedra are inverted (negative volume), the first is element \
         {element} with volume {volume:e} m^3; pbdfit needs ((p1-p0) x (p2-p0)) . (p3-p0) > 0. Use \
         --fix-orientation to swap the last two vertices of each inverted tetrahedron"
    )]
    InvertedTets {
        /// File path.
        origin: String,
        /// The first inverted element's number in the file.
        element: usize,
        /// Its signed volume in m^3.
        volume: f64,
        /// How many tetrahedra are inverted.
        count: usize,
    },
    /// Two vertices used by tetrahedra sit at the same position (the mesh is not connected there).
    #[error(
        "mesh file {origin}: vertices {first} and {second} are at the same position ({x}, {y}, {z}) \
         (within 1e-12 of the bounding-box diagonal); merge them so the tetrahedra share the vertex"
    )]
    DuplicateVertices {
        /// File path.
        origin: String,
        /// The first vertex's number in the file.
        first: usize,
        /// The second vertex's number in the file.
        second: usize,
        /// x of the position.
        x: f64,
        /// y of the position.
        y: f64,
        /// z of the position.
        z: f64,
    },
    /// The validated mesh was still refused by [`TetMesh::new`](crate::TetMesh::new) (should not happen:
    /// validation checks the same conditions first).
    #[error("mesh file {origin}: {source}")]
    Mesh {
        /// File path.
        origin: String,
        /// The mesh problem.
        source: MeshError,
    },
}
