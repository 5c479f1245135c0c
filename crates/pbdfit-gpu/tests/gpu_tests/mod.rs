//! The modules of the `gpu` test binary (`tests/gpu.rs`), one behaviour each.

mod backend_choice;
mod batched;
mod fit;
mod single_mesh;
