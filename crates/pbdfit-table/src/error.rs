//! Why a table could not be built, read or looked up.

use std::path::PathBuf;

use pbdfit_fit::FitError;

/// Why a table could not be built, read or looked up. [`TableError::is_input`] tells the user's
/// mistakes (exit code 2 on the command line) from the machine's.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// A table definition file is wrong: the file, the key and what is allowed.
    #[error("{origin}: {key}: {message}")]
    File {
        /// The file.
        origin: String,
        /// The key, e.g. `axes.poisson[3]`.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A lookup's parameter is not a valid material or setting.
    #[error("--{parameter} {value}: {message}")]
    Query {
        /// The parameter (`young`, `poisson`, `dt`, `nit`, `n`).
        parameter: String,
        /// Its value as given.
        value: String,
        /// What is allowed.
        message: String,
    },
    /// A lookup outside the table's range without `--extrapolate`.
    #[error(
        "--{parameter} {value} is outside table {table}'s range [{lower}, {upper}] of {parameter}; give \
         --extrapolate to use the table's nearest edge instead (flagged in the output)"
    )]
    OutOfRange {
        /// The parameter.
        parameter: String,
        /// Its value.
        value: f64,
        /// The table's name.
        table: String,
        /// The table's smallest node.
        lower: f64,
        /// The table's largest node.
        upper: f64,
    },
    /// A lookup's cell needs nodes that a part-built table has not fitted yet.
    #[error(
        "table {table} is part-built ({built} of {nodes} nodes fitted): the query's cell needs {count} node(s) \
         with no fit yet: {list}; fit them with `pbdfit table {definition}` (the table's definition file, in \
         fits/tables/ for the shipped ones; it resumes and fits only what is missing), or on a Dask cluster with \
         `pbdfit.table(path, client=client)` (README, \"Building on a Dask cluster\")",
        count = missing.len(),
        list = missing.join("; ")
    )]
    MissingNodes {
        /// The table's name.
        table: String,
        /// Its definition file.
        definition: String,
        /// Nodes fitted.
        built: usize,
        /// Nodes in all.
        nodes: usize,
        /// The cell's missing nodes, each as `E = .., nu = .., dt = .., nit = .., N = ..`.
        missing: Vec<String>,
    },
    /// A table's files are missing or malformed, or the table named does not exist.
    #[error("table {origin}: {message}")]
    Format {
        /// The table (name or folder).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A fit or the study runner failed.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// A file could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// `cannot read` or `cannot write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl TableError {
    /// Whether the error is the user's to fix (bad file, parameter or table) rather than the machine's.
    pub fn is_input(&self) -> bool {
        // Every variant named (no wildcard), so a new one must be classified where it is added.
        match self {
            TableError::Fit(e) => e.is_input(),
            TableError::Io { .. } => false,
            TableError::File { .. }
            | TableError::Query { .. }
            | TableError::OutOfRange { .. }
            | TableError::MissingNodes { .. }
            | TableError::Format { .. } => true,
        }
    }
}
