//! # pbdfit-plot
//!
//! The last step of pbdfit's data flow (scene -> mesh -> models -> error -> fit -> study -> plot): the
//! figures of the thesis's results chapter, drawn from a study's results CSVs, and a Markdown report that
//! shows them by thesis number with sentences derived from the data. It owns:
//!
//! - the thesis numbering (figures 4.1 to 4.39, [`thesis_figures`]);
//! - the curve figures: error against ν, k_d above k_v against ν, the base case, and the compound scene's
//!   error shares (variants black, red, green, blue in table order; logarithmic error axis for E);
//! - scene pictures (orthographic wireframes, initial and rest state side by side, [`draw_scene_picture`]);
//! - the report ([`write_report`]).
//!
//! Entry points: [`render_study`] then [`write_report`].
//!
//! Rendering is deterministic: the font is embedded (DejaVu Sans, `fonts/`), nothing depends on the
//! machine's fonts, clock or hash order, so the same results give byte-identical PNG and SVG files.
//!
//! Dependencies:
//! - `pbdfit-fit`: [`FitRecord`](pbdfit_fit::FitRecord) and its CSV reader, the format of the results;
//!   the plot crate does not depend on the FEM or PBD crates (scene pictures take plain positions).
//! - `plotters` (bitmap, SVG and `ab_glyph` text backends): charts, PNG and SVG output from one drawing
//!   code path, with a font registered from bytes instead of looked up on the system.
//! - `thiserror`: [`PlotError`], which names the file concerned.

mod canvas;
mod curves;
mod error;
mod render;
mod report;
mod scene_picture;
mod study;
mod style;
mod summary;
mod thesis;

pub use canvas::FigureFiles;
pub use error::PlotError;
pub use render::{FigureOutcome, RenderedFigure, render_study};
pub use report::{ReportContext, write_report};
pub use scene_picture::{ScenePicture, auto_scale, draw_scene_picture};
pub use study::{Experiment, Scene, csv_path};
pub use style::{BASE_SIZE, COMPOUND_ERROR_SIZE, ERROR_SIZE, SCENE_PICTURE_SIZE, STIFFNESS_SIZE, figure_size};
pub use summary::BOUND_TOLERANCE;
pub use thesis::{CHAPTER, FigureContent, ThesisFigure, thesis_figure, thesis_figures};
