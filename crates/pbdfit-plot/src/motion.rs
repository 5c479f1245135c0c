//! The release test's figure: the tracked vertex's displacement over time, FEM (black) against the model
//! (red), both about the same axis, with each body's rest level dashed. A reader sees at a glance whether
//! the model rings at the FEM's pitch and how much sooner it stops.
//!
//! The caller (`pbdfit motion --figure`) passes the report's tracks projected on the tracked direction, as
//! plain arrays: this crate depends on no solver.

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::PlotError;
use crate::canvas::{self, Dr, Drawing, FigureFiles, OrMsg};
use crate::style;

/// The figure's size in pixels.
pub const MOTION_SIZE: (u32, u32) = (1000, 600);

/// Everything the release figure shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionTracks {
    /// The title.
    pub title: String,
    /// Sample times (s).
    pub times: Vec<f64>,
    /// The FEM's displacement along the tracked direction (m), one per time.
    pub fem: Vec<f64>,
    /// The model's, one per time.
    pub model: Vec<f64>,
    /// Each body's rest level (m): FEM, model.
    pub rest: [f64; 2],
    /// Legend labels: FEM, model.
    pub labels: [String; 2],
}

impl MotionTracks {
    fn validate(&self) -> Result<(), PlotError> {
        let bad = |message: String| Err(PlotError::MotionFigure { title: self.title.clone(), message });
        if self.times.len() < 2 || self.fem.len() != self.times.len() || self.model.len() != self.times.len() {
            return bad(format!(
                "{} times, {} FEM and {} model samples: at least two, one of each per time",
                self.times.len(),
                self.fem.len(),
                self.model.len()
            ));
        }
        if self.times.iter().chain(&self.fem).chain(&self.model).chain(&self.rest).any(|x| !x.is_finite()) {
            return bad("a sample is not finite".into());
        }
        Ok(())
    }
}

impl Drawing for MotionTracks {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let area = canvas::title(root, &self.title)?;
        let values = self.fem.iter().chain(&self.model).chain(&self.rest);
        let (low, high) = values.fold((0.0f64, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let span = (high - low).max(f64::MIN_POSITIVE);
        let (t0, t1) = (self.times[0], self.times[self.times.len() - 1]);
        // Room above the curves for the legend, so that it never covers them.
        let mut chart = ChartBuilder::on(&area)
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(95)
            .build_cartesian_2d(t0..t1, (low - 0.05 * span)..(high + 0.3 * span))
            .msg()?;
        chart
            .configure_mesh()
            .light_line_style(style::GRID_LIGHT)
            .bold_line_style(style::GRID_BOLD)
            .x_desc("time (s)")
            .y_desc("displacement along the tracked direction (m)")
            .axis_desc_style(canvas::font(style::DESC_SIZE))
            .label_style(canvas::font(style::TICK_SIZE))
            .y_label_formatter(&|v| format!("{v:.2e}"))
            .draw()
            .msg()?;
        let colours = [BLACK, style::FLOOR_COLOUR];
        for (k, (series, colour)) in [&self.fem, &self.model].into_iter().zip(colours).enumerate() {
            let line = colour.stroke_width(style::CURVE_WIDTH);
            chart
                .draw_series(LineSeries::new(self.times.iter().copied().zip(series.iter().copied()), line))
                .msg()?
                .label(self.labels[k].clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 30, y)], line));
            let rest = self.rest[k];
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    vec![(t0, rest), (t1, rest)],
                    6,
                    6,
                    colour.stroke_width(1),
                )))
                .msg()?;
        }
        chart
            .configure_series_labels()
            .label_font(canvas::font(style::LEGEND_SIZE))
            .background_style(WHITE.mix(0.85))
            .border_style(style::GRID_BOLD)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .msg()
    }
}

/// Draws the release figure into `<out_dir>/<stem>.png` and `.svg`.
pub fn draw_motion(tracks: &MotionTracks, out_dir: &Path, stem: &str) -> Result<FigureFiles, PlotError> {
    tracks.validate()?;
    canvas::save(tracks, out_dir, stem, MOTION_SIZE)
}
