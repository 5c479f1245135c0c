//! # pbdfit-mesh
//!
//! The left end of pbdfit's data flow (scene -> mesh -> models -> error -> fit -> study -> plot). This
//! crate owns:
//!
//! - [`Scene`]: a scene file (TOML) naming the body, the held vertices, gravity, density and the mass
//!   model, and the compound scenes built of several basic ones ([`SceneSet`]);
//! - [`TetMesh`]: the unit cube split into `N^3` hexahedra of five tetrahedra each, with the exact vertex,
//!   hexahedron and tetrahedron ordering of docs/method.md (section The bodies);
//! - [`Body`]: a mesh together with its per-vertex masses ([`MassModel`]), held set and gravity, which is
//!   what the FEM and PBD models consume;
//! - [`vtk`]: writing meshes with point data as VTK XML unstructured grids (`.vtu`) and time series
//!   (`.pvd`) for ParaView;
//! - [`import`]: tetrahedral meshes from Gmsh (`.msh` 2.2 and 4.1), VTK (`.vtu`, legacy `.vtk`) and
//!   TetGen (`.node`/`.ele`), validated (orientation, degenerate tetrahedra, duplicate and unused
//!   vertices) into a [`TetMesh`] with Gmsh physical groups as vertex sets;
//! - [`cancel`]: a thread's cancel flag, which the long loops of the crates to the right check (the one
//!   crate they all depend on).
//!
//! Units: lengths in metres, masses in kilograms, accelerations in m/s^2.
//!
//! Dependencies: `nalgebra` for points and vectors, `serde` + `toml` for scene files, `thiserror` for
//! error types, `clap` (only for [`ReferenceOptions`]' flags, so the command line and the files parse one
//! type), `csv` for measured marker files, and `vtkio` for VTK files (a maintained reader/writer, so the output is checked by reading
//! it back rather than trusted from a hand-written XML template; the importers read `.vtu` and legacy
//! `.vtk` through it too). The importers add no dependency: Gmsh files are parsed by hand in
//! `import/gmsh.rs`, because the `mshio` crate (0.4.2, its only release) reads MSH 4.1 only, ignores
//! `$PhysicalNames` and panics on some malformed headers; TetGen's format is a few lines of text.
//!
//! ```
//! use pbdfit_mesh::{Scene, SceneSet};
//! let set = SceneSet::builtin("gravity-floor").unwrap();
//! let body = set.scenes()[0].body(1).unwrap();
//! assert_eq!(body.mesh.tets()[0], [0, 3, 6, 5]);
//! assert_eq!(body.held.iter().filter(|&&h| h).count(), 4);
//! assert!((body.total_mass() - 1.0).abs() < 1e-15);
//! # let _: &Scene = &set.scenes()[0];
//! ```

mod body;
pub mod cancel;
mod cube;
pub mod display;
mod error;
mod held;
pub mod import;
mod load;
mod markers;
mod mass;
mod mesh;
mod mesh_file;
mod name;
pub mod obstacle;
mod reference;
mod scene;
mod selector;
pub mod sheet;
mod sheet_scene;
mod size;
pub mod vtk;

pub use body::Body;
pub use cube::{CubeSplit, cuboid, unit_cube, unit_cube_split};
pub use error::{MeshError, SceneError};
pub use held::PlaneSelector;
pub use load::{
    Displacement, Keys, Load, LoadCase, LoadKind, Pressure, Rotation, Traction, TrianglePressure, TriangleWind, Wind,
    selected_boundary_faces, traction_forces, unanchored_vertices,
};
pub use markers::{LocatedMarker, Marker, MarkerError, Markers};
pub use mass::MassModel;
pub use mesh::{Edge, Tet, TetMesh, signed_volume};
pub use name::check_file_name;
pub use obstacle::{Friction, Obstacle};
pub use reference::ReferenceOptions;
pub use scene::{BUILTIN_SCENES, BodyError, BodySummary, Scene, SceneSet, Shape, ZeroResolution};
pub use selector::{BoxSelector, Selector};
pub use sheet::{Diagonal, Sheet, SheetError, SheetMesh, Triangle};
pub use sheet_scene::{SheetBody, SheetGeometry, SheetScene, SheetSupport};
pub use size::{SizeEstimate, available_memory, human_bytes};

/// A point or vector in 3D, in metres.
pub type Vec3 = nalgebra::Vector3<f64>;
