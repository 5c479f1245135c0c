//! Typed errors: every variant names the file (or origin) and, for a bad claim, the claim and field.

use std::path::PathBuf;

use pbdfit_results::ResultsError;

/// Why a claims file or a results folder could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ClaimsError {
    /// The claims file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The text is not TOML, or its top level is not a list of `[[claim]]` tables.
    #[error("{origin}: {message}")]
    File {
        /// Where the text came from (a path, or a name given to [`crate::ClaimsFile::parse`]).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// One claim is malformed: a missing or unknown field, an unknown kind, a bad range.
    #[error("{origin}: claim {id}: {field}: {message}")]
    Claim {
        /// Where the text came from.
        origin: String,
        /// The claim's id (`#<n> (no id)` when the id itself is missing).
        id: String,
        /// The field at fault, e.g. `check 2: quantity`.
        field: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// Two claims share an id.
    #[error("{origin}: claim {id}: duplicate id (claims number {first} and {second} both use it)")]
    DuplicateId {
        /// Where the text came from.
        origin: String,
        /// The repeated id.
        id: String,
        /// 1-based position of the first claim with it.
        first: usize,
        /// 1-based position of the second.
        second: usize,
    },
    /// The results folder could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
}
