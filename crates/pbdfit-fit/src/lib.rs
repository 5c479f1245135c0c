//! # pbdfit-fit
//!
//! From a material (Young's modulus E, Poisson ratio nu) and simulation settings (dt, N, nit) to the PBD
//! stiffness (kd, kv) whose rest state best matches the FEM rest state, and whole study matrices of such
//! fits. This crate sits after the models in pbdfit's data flow (scene -> mesh -> (FEM, PBD) -> error ->
//! fit -> study -> plot) and owns:
//!
//! - the error metric ([`relative_error`], [`compound_error`]; methodology, section The error);
//! - [`FitProblem`]: a scene (or compound) at fixed settings and material, `error(kd, kv)`;
//! - the grid sweep ([`GridRestStates`]: rest states shared by every material) and [`PatternSearch`], an
//!   argmin [`Solver`](argmin::core::Solver) (argmin 0.11 has no pattern search);
//! - [`fit`] / [`fit_with_grid`]: grid then search, with failed points counted and reported;
//! - [`FitRecord`]: one fitted result, the row format of the study CSVs that `pbdfit-plot` reads;
//! - [`study`]: study files, the plan of unique fits, and the resumable parallel runner.
//!
//! Dependencies: `argmin` (the solver framework the search plugs into), `rayon` (fits in parallel),
//! `serde` + `toml` + `csv` + `serde_json` (study files, results, summaries), `thiserror` (errors).

mod error_metric;
mod fit;
mod grid;
mod pattern_search;
mod problem;
mod record;
pub mod study;

pub use error_metric::{compound_error, moved_vertices, relative_error};
pub use fit::{FailedPoint, FitOptions, FitResult, fit, fit_cpu, fit_with_grid};
pub use grid::{GridRestStates, grid_points};
pub use pattern_search::{GOLDEN_RATIO, PatternSearch, SearchStep};
pub use problem::{Evaluation, FitProblem, Part, Settings, rest_displacements};
pub use record::{FitRecord, FitStatus, read_records, write_records};

/// Why a fit or study could not run.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum FitError {
    /// Bad input: names the file, entry or parameter.
    #[error("{0}")]
    Input(String),
    /// No grid point has a rest state.
    #[error("scene {scene}: no grid point has a rest state (first reason: {reason})")]
    NoRestState {
        /// Scene name.
        scene: String,
        /// The first failure's reason.
        reason: String,
    },
    /// Something failed that the input does not explain.
    #[error("internal error: {0}")]
    Internal(String),
}
