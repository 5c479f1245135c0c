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
    /// A lookup's cell needs nodes that a part-built table has not fitted yet. The message gives the quick
    /// answer first (one fit of the query itself), then how the table is filled (a newcomer was
    /// sent to `pbdfit table pbd-full.toml`, which fails as written and fits 6,144 nodes for hours).
    #[error(
        "table {table} is part-built ({built} of {nodes} nodes fitted): the query's cell needs {count} node(s) \
         with no fit yet: {list}. For this query, fit it directly (seconds): `{fit}`. To fill the table \
         instead (every missing node: hours for the shipped full tables), run `pbdfit table {definition}` (the \
         definition file: fits/tables/ in pbdfit's repository for the shipped ones) with `--out FOLDER`, and \
         look up in FOLDER (a built-in table is compiled into the binary and does not change), or build it on \
         a Dask cluster with `pbdfit.table(path, client=client)` (docs/dask.md)",
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
        /// The `pbdfit fit` command that answers the query alone.
        fit: String,
    },
    /// A table's files are missing or malformed, or the table named does not exist.
    #[error("table {origin}: {message}")]
    Format {
        /// The table (name or folder).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// An option of a table job is wrong: the option (in the front end's spelling) and what is allowed.
    #[error("{option}: {message}")]
    Option {
        /// The option, e.g. `--search` or `search`.
        option: String,
        /// What is wrong and what is allowed.
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
            | TableError::Option { .. }
            | TableError::OutOfRange { .. }
            | TableError::MissingNodes { .. }
            | TableError::Format { .. } => true,
        }
    }
}
