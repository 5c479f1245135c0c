//! The modules of the `mesh` test binary (`tests/mesh.rs`), one behaviour each.

mod compound_cycles;
mod import;
mod import_proptest;
mod scene_proptest;
mod shipped_meshes;
mod vtu_without_points;
