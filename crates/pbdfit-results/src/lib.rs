//! # pbdfit-results
//!
//! The results layer between the fits and the plots (scene -> mesh -> models -> error -> fit -> study ->
//! **results** -> plot). It knows nothing of meshes, solvers or models: only what a finished fit wrote
//! and how a study was laid out, so that `pbdfit-plot` depends on this crate alone and can draw any
//! study, and so that a results folder records how it was made.
//!
//! - [`FitRecord`]: one fitted result, one row of a study CSV. Its parameter columns are named by the
//!   model (`kd,kv` for PBD, `alpha_d,alpha_v` for XPBD, `ks` for a mass-spring model), so a row is
//!   self-describing; [`read_records`] / [`write_records`] / [`append_record`] handle the files.
//! - [`StudyLayout`]: scenes (with the parts of a compound scene), experiments and their values, the nu
//!   values, the model and its parameters (name, unit, scale, box), written into `summary.json` together
//!   with the run's statistics ([`StudySummary`]), and into the folder's manifest ([`MANIFEST_FILE`]) while
//!   a run writes it.
//!
//! Dependencies: `serde` + `csv` (the row format), `serde_json` (`summary.json`), `thiserror` (typed
//! errors naming the file).

mod error;
mod layout;
mod record;

pub use error::ResultsError;
pub use layout::{
    BaseSettings, ExperimentLayout, MANIFEST_FILE, ParameterLayout, RunCounts, Scale, SceneLayout, StudyLayout,
    StudySummary, read_manifest, read_summary, remove_manifest, write_manifest, write_summary,
};
pub use record::{
    DEFAULT_REFERENCE, FIXED_COLUMNS_AFTER, FIXED_COLUMNS_BEFORE, FitRecord, FitStatus, LEGACY_COLUMNS_AFTER,
    SEARCH_COLUMNS, SearchRecord, THICKNESS_COLUMN, UNREFERENCED_COLUMNS_AFTER, append_record, csv_header,
    format_number, is_legacy, parse_records, read_records, records_text, same_value, write_records,
};
