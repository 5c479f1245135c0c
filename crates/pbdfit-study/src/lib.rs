//! # pbdfit-study
//!
//! Studies: a matrix of fits defined in a TOML file, run in parallel, resumable. This crate sits after the
//! fit core (`pbdfit-fit`: the problem, the searches, the fit and release-test jobs a study runs) and
//! before the stiffness tables (`pbdfit-table`, whose tables are studies at explicit configurations).
//!
//! Dependencies: the fit core and `pbdfit-results` (the results files), `rayon` (fits in parallel),
//! `serde` + `toml` (study files), `serde_json` (a study job's keywords), `csv` (the release pass's file),
//! `clap` (the study job's options).
//!
//! - [`file`]: the study file (TOML) and its validation into a [`Study`];
//! - [`plan`]: the unique fits a run must do and the rows each writes (a fit shared by several
//!   experiments is computed once), and the `--only` filter; or the fits at an explicit list of
//!   configurations (a stiffness table's nodes, run by [`run_plan`]);
//! - [`folder`]: the results folder as one run's: its lock, and the check of its recorded settings (the
//!   manifest a run writes first, `summary.json`) against the study's;
//! - [`store`]: the results files: CSVs appended and flushed per fit, the repair of a partial last line,
//!   the check that existing results belong to this study's setup, and `summary.json`;
//! - [`variant`]: a study under a changed setup (reference, mesh split, mass, load, arithmetic), for
//!   `pbdfit compare`;
//! - [`run`]: the runner: grid rest states once per (dt, N, nit), references once per (scene, N), fits
//!   in parallel, progress to an observer; in four pieces a distributed run reuses ([`resume`] the
//!   folder, [`tasks`] still to do, [`run_task`] one of them anywhere, [`write_record`] and [`finish`]
//!   on the driver).
//!
//! A study stopped at any moment (Ctrl-C, kill -9) and started again recomputes nothing that was written
//! and loses nothing. When the run completes, every CSV is rewritten sorted by (value, nu), so the final
//! files do not depend on thread timing (apart from the `seconds` column).

pub mod file;
pub mod folder;
pub mod job;
pub mod motion;
pub mod plan;
pub mod run;
pub mod store;
pub mod variant;

pub use file::{
    BoxDef, Configuration, Experiment, FitDef, MAX_FITS, MAX_POISSON_VALUES, ModelEntry, ModelTable, Setting, Study,
};
pub use folder::LockedFolder;
pub use job::{PreparedStudy, StudyJob, StudyKeywords, on_threads};
pub use motion::{MOTION_FILE, MOTION_FOLDER, MotionPass, run_motion_pass};
pub use plan::{FitKey, Plan, matches_filter};
pub use run::{
    Pending, Progress, RunOptions, Task, TaskFit, finish, group_grids, record_line, resume, run_plan, run_plan_in,
    run_study, run_task, tasks, write_record,
};
pub use variant::Variant;
