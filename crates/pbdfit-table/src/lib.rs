//! # pbdfit-table
//!
//! Stiffness tables: one model fitted over a grid of (E, nu, dt, nit, N) for one scene set, and the
//! lookup that interpolates it (docs/tables.md). It sits after the study runner
//! in the data flow (scene -> mesh -> models -> error -> fit -> study -> **table** -> results) and owns:
//!
//! - [`TableDef`]: the table definition file (TOML: model, scene, reference, fit settings and the five
//!   axes as explicit value lists), validated with errors naming the file and the key;
//! - [`build`]: every node's fit, run by the study runner ([`pbdfit_study::run_plan`] on a plan of
//!   explicit configurations: grid rest states once per (dt, N, nit) and shared across (E, nu),
//!   resumable, deterministic), then leave-one-out, then `table.csv` and `table.json` written atomically;
//! - [`Table`]: the table format (read and write) and the tables compiled into the binary
//!   ([`BUILTIN_TABLES`]);
//! - [`interp`]: multilinear interpolation on a rectilinear grid (in log10 E, nu, log10 dt, log2 nit,
//!   log2 N), each parameter in its cell's interpolation coordinate ([`interp::interpolate_parameter`],
//!   the one rule of lookup and leave-one-out): log10 of the value where the values at all the cell's
//!   corners with a non-zero weight are > 0, else the search coordinate (the value for kd, kv; log10 for
//!   compliances, which are always > 0 and so always in log10). This reproduces power laws in E exactly
//!   (PBD's kd grows roughly in proportion to E) and is monotone within a cell wherever the data are; a
//!   cell with a zero corner is interpolated linearly, and the interpolant can jump at its face with an
//!   all-positive neighbour (see [`interp`]);
//! - [`loo`]: leave-one-out predictions of interior nodes from their neighbours (the same rule);
//! - [`lookup()`]: a query's parameters, its cell's nodes, the leave-one-out error estimate, range checks;
//! - [`mapping`]: the closed-form (E, nu) -> parameter mappings engines and papers use (baselines for
//!   the lookup: Van Gelder springs, bulk-modulus and Macklin-Mueller volume compliances, Godot-Jolt's
//!   constant, their PBD equivalents), one registry [`mapping::MAPPINGS`].
//!
//! Dependencies: `pbdfit-fit` (the study runner, `Study::problem` to simulate leave-one-out
//! predictions, the `[fit]` and `[box]` tables), `pbdfit-results` (the fits' rows, the parameter layout
//! and number format), `pbdfit-mesh` (scene sets, mass models, `[reference]` tables), `pbdfit-pbd` (model
//! kinds, parameter scales, the rest-state backend and precision), `rayon` (leave-one-out simulations in parallel), `serde` + `serde_json` + `toml` (the files),
//! `thiserror` (errors).

pub mod axes;
mod build;
mod error;
mod file;
mod format;
pub mod interp;
mod job;
pub mod loo;
mod lookup;
pub mod mapping;
mod refine;

pub use axes::{Axes, DIMS, Dim};
pub use build::{BuildSummary, build, build_partial, complete, node_configurations, node_plan};
pub use error::TableError;
pub use file::TableDef;
pub use format::{BUILTIN_TABLES, LooStats, LooSummary, Node, NodeLoo, NodeStatus, Stats, Table, TableMeta};
pub use job::{PreparedTable, TableJob, TableKeywords};
pub use lookup::{CornerNode, Estimate, Extrapolated, Lookup, LookupParameter, Query, lookup, parameter_text};
pub use refine::{REFINE_GRID, Refined, refine};
