//! # pbdfit-plot
//!
//! The last step of pbdfit's data flow (scene -> mesh -> models -> error -> fit -> study -> results ->
//! **plot**): the figures of any study, drawn from its results folder (`summary.json` for the layout, one
//! CSV per scene and experiment), and a Markdown report that shows them with sentences derived from the
//! data. It owns:
//!
//! - the curve figures: error against ν, the model's fitted parameters against ν (one panel each, in the
//!   layout's order; log10 axis for a Log10 parameter, and for a linear one whose values span more than
//!   two decades, [`LOG_SPAN`]), the base case, and a compound scene's error shares (stacked areas under
//!   the total in the base case, percent of e² per variant in the error figures). Variants are black, red,
//!   green, blue in the layout's value order, each with its own marker and dash; every point is drawn at
//!   its value, so curves that coincide overlap (the legend says so), and values a log axis cannot show
//!   (0) sit on its floor as open triangles (the legend says so too). Labels carry units (`dt = 0.005 s`);
//! - figure naming ([`Naming`]): generic names for any study, or the thesis numbering (figures 4.1 to
//!   4.39, [`thesis_figures`]) for the thesis study;
//! - scene pictures (orthographic wireframes, initial and rest state side by side, [`draw_scene_picture`]);
//! - the release test's figure (the tracked vertex over time, FEM against model, [`draw_motion`]);
//! - the report ([`write_report`]).
//!
//! Entry points: [`render_study`] then [`write_report`].
//!
//! Rendering is deterministic: the font is embedded (DejaVu Sans, `fonts/`), nothing depends on the
//! machine's fonts, clock or hash order, so the same results give byte-identical PNG and SVG files.
//!
//! Dependencies:
//! - `pbdfit-results`: [`FitRecord`](pbdfit_results::FitRecord) and its CSV reader, and the study layout
//!   in `summary.json`; the plot crate depends on no solver crate (scene pictures take plain positions).
//! - `pbdfit-mesh`, for its `display` module only: the one way numbers are written for a reader (six
//!   significant digits), shared with the command line's output.
//! - `plotters` (bitmap, SVG and `ab_glyph` text backends): charts, PNG and SVG output from one drawing
//!   code path, with a font registered from bytes instead of looked up on the system.
//! - `thiserror`: [`PlotError`], which names the file concerned.

mod canvas;
mod curves;
mod error;
mod models;
mod motion;
mod render;
mod report;
mod scene_picture;
mod study;
mod style;
mod summary;
mod thesis;

pub use canvas::FigureFiles;
pub use curves::LOG_SPAN;
pub use error::PlotError;
pub use models::{ModelsReport, is_models_folder, render_models};
pub use motion::{MOTION_SIZE, MotionTracks, draw_motion};
pub use render::{FigureId, FigureOutcome, Naming, RenderedFigure, RenderedStudy, render_study};
pub use report::{ReportContext, write_report};
pub use scene_picture::{ScenePicture, auto_scale, draw_scene_picture};
pub use style::{
    BASE_PANEL_HEIGHT, BASE_SIZE, COMPOUND_ERROR_SIZE, ERROR_SIZE, PARAMETER_PANEL_HEIGHT, PARAMETERS_SIZE,
    SCENE_PICTURE_SIZE, figure_size,
};
pub use summary::BOUND_TOLERANCE;
pub use thesis::{CHAPTER, FigureContent, ThesisFigure, thesis_figure, thesis_figures};
