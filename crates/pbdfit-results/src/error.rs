use std::path::PathBuf;

/// Why a results file could not be read or written. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// The file could not be opened, read, written or flushed.
    #[error("{action} {path}: {source}")]
    Io {
        /// `cannot read`, `cannot write`, ...
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A row or the header does not have the expected form.
    #[error("{path}: row {row}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Line number (1 is the header).
        row: usize,
        /// What is wrong.
        message: String,
    },
    /// `summary.json` does not parse or lacks the study layout.
    #[error("{path}: {message}")]
    Summary {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ResultsError {
    /// An [`ResultsError::Io`] of `path` (`action`: `cannot read`, `cannot write`, ...).
    pub fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io { action, path: path.to_path_buf(), source }
    }
}
