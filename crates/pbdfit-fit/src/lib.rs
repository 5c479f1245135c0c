//! # pbdfit-fit
//!
//! From a material (Young's modulus E, Poisson ratio nu) and simulation settings (dt, N, nit) to the
//! parameters of any registered model (PBD stiffness kd, kv; XPBD compliances alpha_d, alpha_v; ...)
//! whose rest state best matches the reference rest state: the fit core. This crate sits after the
//! models in pbdfit's data flow (scene -> mesh -> (reference, model) -> error -> fit -> study -> results
//! -> plot) and owns:
//!
//! - the error metric ([`relative_error`], [`compound_error`]; docs/method.md, section The error);
//! - the reference seam: [`Reference`], implemented by [`FemReference`] for every reference pbdfit-fem
//!   offers (chosen by a [`ReferenceSpec`](pbdfit_fem::ReferenceSpec): the scene's `[reference]` table
//!   under the study's and the command line's), and [`PartCache`], which builds PBD systems and
//!   references once per scene and resolution (and dt, for a dynamic reference);
//! - [`FitProblem`]: a scene (or compound) at fixed settings and material, `error(parameters)`;
//! - [`SearchBox`]: the box of the model's parameters, linear or log10 per parameter, searched in unit
//!   coordinates;
//! - the grid sweep ([`GridRestStates`]: rest states shared by every material, with the searched ones
//!   in [`SharedRestStates`], shared bit-identically by the fits of a group) and [`PatternSearch`], an
//!   argmin [`Solver`](argmin::core::Solver) in 1 to 4 dimensions (argmin 0.11 has no pattern search);
//! - [`fit`] / [`fit_with_grid`]: grid then search, with failed points counted and reported, and the
//!   parameters at the box's edge named;
//! - the release test ([`ReleaseSetup`] builds a [`ReleaseTest`] from its inputs; `pbdfit motion` and a
//!   study's motion pass both run it);
//! - the keyword groups the jobs share (`keywords.rs`: [`Body`], [`Material`], [`Step`], [`Model`]) and the
//!   jobs' [`Spelling`] and [`FitJobError`]. The jobs themselves (the fit job, the motion job's keywords and
//!   its rest-state fit, the benchmarks) are `pbdfit-jobs`'.
//!
//! Studies (study files, the plan of unique fits, the results folder, the resumable runner) are
//! `pbdfit-study`'s; the row format ([`FitRecord`]) and `summary.json` belong to `pbdfit-results`.
//!
//! Dependencies: `argmin` (the solver framework the search plugs into), `nalgebra` (the eigenvalues of the
//! identifiability Hessian), `rayon` (fits in parallel),
//! `serde` + `toml` (keywords), `serde_json` (the names of a fit job's keywords, which are its fields),
//! `pbdfit-results` (results files), `thiserror` (errors).

mod cancel;
mod engine_rest;
mod error;
mod error_metric;
mod fit;
mod gradient;
mod grid;
mod identifiability;
mod identify;
mod keywords;
mod levenberg_marquardt;
mod lockstep;
mod masses;
mod measured;
mod motion;
mod order_spread;
mod pattern_search;
mod problem;
mod reference;
mod request;
mod search_box;
mod sheet;
mod target;
pub mod verdict;

pub use cancel::{Cancelled, cancellable};
pub use engine_rest::{
    EngineRest, FixedPointFit, REFIT_MAX_EVALUATIONS, RefitBudget, SAME_STATE, check_by_stepping, rest_distance,
    stepping_problem,
};
pub use error::{FitError, FitJobError, ReferenceFault, SearchError};
pub use error_metric::{compound_error, moved_vertices, reference_fault, relative_error, vertex_error};
pub use fit::{
    FailedPoint, FitOptions, FitResult, GRADIENT_MAX_SWEEPS, Search, deadline_after, fit, fit_cpu, fit_with_grid,
    fit_with_grid_from,
};
pub use gradient::{MAX_BASINS, REACHED, RestSource, gradient_grid};
pub use grid::{GridRestStates, Lineage, SharedRestStates, check_grid_memory};
pub use identifiability::{Identifiability, RISE, ranges_without_information};
pub use identify::{Identification, MaterialParameter, NU_MAX, NU_MIN, YOUNG_FACTOR, identify};
pub use keywords::{
    Body, BodyKeywords, DT, LoadedBody, LoadedSheet, MODEL, Material, Model, NIT, POISSON, SettingValue, Spelling,
    Step, YOUNG, checked_reference, keyword_names, keywords_from_json, mesh_notes, ordered_map, parse_named_value,
    parse_number, parse_setting, scene_error, sorted_pairs, start_from_pairs, unique_pairs, with_body,
};
pub use lockstep::{Lockstep, LockstepCounts, Member, run_in_lockstep};
pub use masses::{field_difference, mass_model_warning, resolve_mass_model, with_resolved_masses};
pub use measured::{
    BOOTSTRAP_QUANTILES, Bootstrap, MARKER_TOLERANCE, MAX_BOOTSTRAP, MIN_BOOTSTRAP, MarkerTarget, MarkerWeighting,
    bootstrap, check_bootstrap,
};
pub use motion::{
    DEFAULT_PERIODS, DampingFit, FEM_STEPS_PER_PERIOD, FrameSink, MAX_FEM_STEPS, MAX_MODEL_STEPS, MotionFit,
    MotionMeasures, MotionReport, Release, ReleaseSetup, ReleaseTest, SheetRelease, check_periods, has_damping_knob,
    measure,
};
pub use order_spread::{OrderPoint, OrderSpread, SEEDS as ORDER_SEEDS, order_spread};
pub use pattern_search::{GOLDEN_RATIO, PatternSearch, SearchStep};
pub use pbdfit_results::{FitRecord, FitStatus, read_records};
pub use problem::{Evaluation, FitProblem, Part, RestResult, Settings, fits_against_fem, rest_displacements};
pub use reference::{FemReference, PartCache, Reference, reference_id, reference_overrides, reference_spec};
pub use request::{FitOption, FitRequest, FitRequestError, MAX_GRID_POINTS, largest_grid};
pub use search_box::{Axis, SearchBox, default_grid, parse_bound};
pub use sheet::{
    ShellReference, check_cloth_model, check_fitted_parameters, check_solid_model, clamp_note, clamp_row, load_sheet,
    refuse_solid_options, sheet_problem, sheet_problem_with_note, shell_constraints, solve_shell, solve_shell_dynamic,
    solve_shell_with_contact,
};
pub use target::*;
