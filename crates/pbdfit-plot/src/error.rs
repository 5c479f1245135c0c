//! What can go wrong while plotting, each case naming the file or input concerned.

use std::path::PathBuf;

/// A plotting failure.
///
/// [`render_study`](crate::render_study) turns the per-file cases ([`MissingResults`](Self::MissingResults),
/// [`Read`](Self::Read)) into figures listed as missing; it fails only when nothing can be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The results folder does not exist.
    #[error(
        "results folder {} does not exist or is not a folder: name the folder that holds the study's \
         summary.json and the <scene>-<experiment>.csv files (for example fits/results/thesis)",
        path.display()
    )]
    ResultsDir {
        /// The folder given.
        path: PathBuf,
    },
    /// The study's `summary.json` (its layout) is missing or unreadable: nothing can be drawn.
    #[error("{message}")]
    Summary {
        /// What the results reader said (names the file).
        message: String,
    },
    /// A results file that a figure needs is not there.
    #[error("no results file {}", path.display())]
    MissingResults {
        /// The file expected.
        path: PathBuf,
    },
    /// A results file could not be read or parsed.
    #[error("cannot read results file {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the CSV reader said (names the row).
        message: String,
    },
    /// The output folder could not be created.
    #[error("cannot create output folder {}: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Drawing or encoding a figure failed.
    #[error("cannot draw {}: {message}", path.display())]
    Draw {
        /// The image file being written.
        path: PathBuf,
        /// What plotters said.
        message: String,
    },
    /// A text file (the report) could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The input of a scene picture is inconsistent.
    #[error("scene picture {title:?}: {message}")]
    ScenePicture {
        /// The picture's title.
        title: String,
        /// What is inconsistent and what is expected.
        message: String,
    },
    /// The input of the release test's figure is inconsistent.
    #[error("motion figure {title:?}: {message}")]
    MotionFigure {
        /// The figure's title.
        title: String,
        /// What is inconsistent and what is expected.
        message: String,
    },
    /// The embedded font could not be registered.
    #[error("embedded font: {0}")]
    Font(String),
}
