//! The figures drawn from fit results: error against ν, k_d and k_v against ν, the base case, and the
//! compound scene's error shares.
//!
//! Every figure is a title, a legend strip (never on top of the data) and one or more panels sharing the
//! ν axis. A curve is broken where a fit failed rather than bridged, and data points carry markers so
//! a coarse ν grid reads as points, not as a smooth law.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::canvas::{self, Dr, Drawing, LEGEND_ROW, OrMsg, Sample};
use crate::study::{ExperimentData, PartValues, Point, Scene, Variant, shares};
use crate::style;
use crate::thesis::ThesisFigure;

/// The vertical axis of a panel.
#[derive(Debug, Clone, Copy, PartialEq)]
enum YAxis {
    /// Linear from `.0` to `.1`.
    Linear(f64, f64),
    /// Logarithmic from `.0` to `.1` (both positive).
    Log(f64, f64),
}

/// Something drawn in a panel.
#[derive(Debug, Clone)]
enum Layer {
    /// Line segments with markers.
    Curve { colour: RGBColor, segments: Vec<Vec<(f64, f64)>> },
    /// A filled area between two curves sampled at the same ν (a stacked share).
    Band { colour: RGBColor, lower: Vec<(f64, f64)>, upper: Vec<(f64, f64)> },
    /// Crosses on the ν axis where fits failed (the curve is broken there).
    Failed { colour: RGBColor, nus: Vec<f64> },
}

/// One chart.
#[derive(Debug, Clone)]
struct Panel {
    y: YAxis,
    y_desc: String,
    /// Only the lowest panel of a stack names the ν axis.
    x_desc: Option<String>,
    x: Range<f64>,
    /// Small panel (the compound scene's share panels): smaller text, fewer ticks.
    compact: bool,
    /// A heading above the chart, in a colour.
    heading: Option<(String, RGBColor)>,
    layers: Vec<Layer>,
}

/// The ν axis: [0, 0.5] (the thesis range), widened if data lie outside it.
fn nu_range(data: &ExperimentData) -> Range<f64> {
    let (mut lo, mut hi) = (0.0f64, 0.5f64);
    for v in &data.variants {
        for (nu, _) in &v.rows {
            lo = lo.min(*nu);
            hi = hi.max(*nu);
        }
    }
    lo..hi
}

/// A linear axis from 0 to a bit above the largest value (1 if there is none).
fn linear_from_zero(values: impl Iterator<Item = f64>) -> YAxis {
    let max = values.filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    YAxis::Linear(0.0, if max > 0.0 { max * 1.1 } else { 1.0 })
}

/// A logarithmic axis from a power of ten to a power of ten, so that every curve lies between two labelled
/// ticks, with at least 15 % room between the data and the frame; linear from zero if no value is
/// positive.
fn log_decades(values: impl Iterator<Item = f64> + Clone) -> YAxis {
    let positive = values.clone().filter(|v| v.is_finite() && *v > 0.0);
    let (min, max) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if max <= 0.0 {
        return linear_from_zero(values);
    }
    let lo = 10f64.powf((min / 1.15).log10().floor());
    let hi = 10f64.powf((max * 1.15).log10().ceil());
    // plotters finds its ticks by rounding ln(lo)/ln(10) and multiplying up by 10; a hair of slack keeps
    // the end decades from being lost to rounding (ln(0.1)/ln(10) is just above -1).
    YAxis::Log(lo * (1.0 - 1e-9), hi * (1.0 + 1e-9))
}

/// The k axis: [0, 1] with a small margin so that a fit on a bound is not hidden by the frame.
const K_AXIS: YAxis = YAxis::Linear(-0.04, 1.04);

/// A variant's curve of one quantity; points the axis cannot show (non-positive on a log axis) break it.
fn curve(variant: &Variant, colour: RGBColor, y: YAxis, f: impl Fn(&Point) -> f64) -> Layer {
    let mut segments = Vec::new();
    for seg in variant.segments() {
        let mut current = Vec::new();
        for p in seg {
            let v = f(p);
            if matches!(y, YAxis::Log(..)) && v <= 0.0 {
                segments.push(std::mem::take(&mut current));
            } else {
                current.push((p.nu, v));
            }
        }
        segments.push(current);
    }
    segments.retain(|s: &Vec<(f64, f64)>| !s.is_empty());
    Layer::Curve { colour, segments }
}

/// Crosses marking a variant's failed fits (none if all succeeded).
fn failed_marks(variant: &Variant, colour: RGBColor) -> Option<Layer> {
    let nus = variant.failed_nus();
    (!nus.is_empty()).then_some(Layer::Failed { colour, nus })
}

/// The legend entry for failed fits, if the data have any.
fn failed_legend(data: &ExperimentData) -> Option<(String, Sample)> {
    (data.failed() > 0).then(|| ("failed fit".to_string(), Sample::Cross(RGBColor(0, 0, 0))))
}

/// The compound scene's stacked shares of one variant (see [`shares`]), floor at the bottom.
fn share_bands(variant: &Variant) -> Vec<Layer> {
    let mut bands = Vec::new();
    for seg in variant.segments() {
        let stacks: Vec<(f64, PartValues)> = seg.iter().map(|p| (p.nu, shares(p))).collect();
        let parts: Vec<Option<Scene>> =
            stacks.first().map(|(_, s)| s.iter().map(|(sc, _)| *sc).collect()).unwrap_or_default();
        let mut lower: Vec<(f64, f64)> = stacks.iter().map(|(nu, _)| (*nu, 0.0)).collect();
        for (k, part) in parts.iter().enumerate() {
            let upper: Vec<(f64, f64)> = stacks
                .iter()
                .zip(&lower)
                .map(|((nu, s), (_, lo))| (*nu, lo + s.get(k).map_or(0.0, |(_, v)| *v)))
                .collect();
            bands.push(Layer::Band { colour: part_colour(*part), lower: lower.clone(), upper: upper.clone() });
            lower = upper;
        }
    }
    bands
}

/// The colour of a part of the compound scene.
fn part_colour(part: Option<Scene>) -> RGBColor {
    match part {
        Some(Scene::GravityFloor) => style::FLOOR_COLOUR,
        Some(Scene::GravityWall) => style::WALL_COLOUR,
        Some(Scene::GravityCeiling) => style::CEILING_COLOUR,
        _ => RGBColor(128, 128, 128),
    }
}

/// Legend entries of the compound scene's shares.
fn share_legend() -> Vec<(String, Sample)> {
    [Scene::GravityFloor, Scene::GravityWall, Scene::GravityCeiling]
        .into_iter()
        .map(|s| (format!("{} share", s.title()), Sample::Fill(part_colour(Some(s)), style::SHARE_OPACITY)))
        .collect()
}

/// Legend entries naming each variant in its colour.
fn variant_legend(data: &ExperimentData) -> Vec<(String, Sample)> {
    let mut entries: Vec<(String, Sample)> =
        data.variants.iter().map(|v| (v.label.clone(), Sample::Curve(style::variant_colour(v.colour_index)))).collect();
    entries.extend(failed_legend(data));
    entries
}

/// A quantity read off a fit.
type Quantity = fn(&Point) -> f64;

/// Axis descriptions.
const NU_DESC: &str = "Poisson ratio ν";
const ERROR_DESC: &str = "relative error e";
const KD_DESC: &str = "k_d (distance)";
const KV_DESC: &str = "k_v (volume)";

/// Figures 4.3, 4.5, ...: the error against ν, one curve per variant; for the compound scene, the totals
/// above and one panel per variant with the parts' shares below.
pub(crate) struct ErrorFigure<'a> {
    /// Which figure.
    pub figure: ThesisFigure,
    /// Its data.
    pub data: &'a ExperimentData,
}

impl Drawing for ErrorFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.figure, self.data))?;
        let area = with_legend(&area, &variant_legend(data))?;
        let all_errors = data.variants.iter().flat_map(|v| v.points().map(|p| p.error).collect::<Vec<_>>());
        let y = if data.experiment.log_error_axis() {
            log_decades(all_errors.collect::<Vec<_>>().into_iter())
        } else {
            linear_from_zero(all_errors)
        };
        let x = nu_range(data);
        let mut layers = Vec::new();
        for v in &data.variants {
            let colour = style::variant_colour(v.colour_index);
            layers.push(curve(v, colour, y, |p| p.error));
            layers.extend(failed_marks(v, colour));
        }
        let main = Panel {
            y,
            y_desc: ERROR_DESC.into(),
            x_desc: Some(NU_DESC.into()),
            x: x.clone(),
            compact: false,
            heading: None,
            layers,
        };
        if !data.scene.is_compound() {
            return draw_panel(&area, &main);
        }
        let (_, h) = area.dim_in_pixel();
        let (top, bottom) = area.split_vertically(h * 56 / 100);
        draw_panel(&top, &main)?;
        let bottom = with_legend(&bottom, &share_legend())?;
        let n = data.variants.len().max(1);
        for (v, cell) in data.variants.iter().zip(bottom.split_evenly((1, n))) {
            let colour = style::variant_colour(v.colour_index);
            let mut layers = share_bands(v);
            layers.push(curve(v, colour, YAxis::Linear(0.0, 1.0), |p| p.error));
            layers.extend(failed_marks(v, colour));
            let panel = Panel {
                y: linear_from_zero(v.points().map(|p| p.error)),
                y_desc: String::new(),
                x_desc: Some("ν".into()),
                x: x.clone(),
                compact: true,
                heading: Some((format!("shares, {}", v.label), colour)),
                layers,
            };
            draw_panel(&cell, &panel)?;
        }
        Ok(())
    }
}

/// Figures 4.4, 4.6, ...: k_d above, k_v below, one curve per variant.
pub(crate) struct StiffnessFigure<'a> {
    /// Which figure.
    pub figure: ThesisFigure,
    /// Its data.
    pub data: &'a ExperimentData,
}

impl Drawing for StiffnessFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.figure, self.data))?;
        let area = with_legend(&area, &variant_legend(data))?;
        let x = nu_range(data);
        let panels = area.split_evenly((2, 1));
        let quantities: [(&str, Quantity); 2] = [(KD_DESC, |p| p.kd), (KV_DESC, |p| p.kv)];
        for (i, ((desc, f), cell)) in quantities.into_iter().zip(&panels).enumerate() {
            let mut layers = Vec::new();
            for v in &data.variants {
                let colour = style::variant_colour(v.colour_index);
                layers.push(curve(v, colour, K_AXIS, f));
                layers.extend(failed_marks(v, colour));
            }
            let panel = Panel {
                y: K_AXIS,
                y_desc: desc.into(),
                x_desc: (i == 1).then(|| NU_DESC.into()),
                x: x.clone(),
                compact: false,
                heading: None,
                layers,
            };
            draw_panel(cell, &panel)?;
        }
        Ok(())
    }
}

/// Figures 4.2, 4.12, 4.22, 4.31: error, k_d and k_v of the base case in three stacked panels.
pub(crate) struct BaseFigure<'a> {
    /// Which figure.
    pub figure: ThesisFigure,
    /// Its data.
    pub data: &'a ExperimentData,
}

impl Drawing for BaseFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.figure, self.data))?;
        let black = style::variant_colour(0);
        let mut entries = Vec::new();
        if data.scene.is_compound() {
            entries.push(("total error".to_string(), Sample::Curve(black)));
            entries.extend(share_legend());
        }
        entries.extend(failed_legend(data));
        let area = with_legend(&area, &entries)?;
        let x = nu_range(data);
        let y_error =
            linear_from_zero(data.variants.iter().flat_map(|v| v.points().map(|p| p.error).collect::<Vec<_>>()));
        let (_, h) = area.dim_in_pixel();
        // Three panels; the lowest one carries the ν axis description as well.
        let base = (h as i32 - 30) / 3;
        let cells = area.split_by_breakpoints([] as [i32; 0], [base, 2 * base]);
        for (i, cell) in cells.iter().enumerate() {
            let mut layers = Vec::new();
            for v in &data.variants {
                match i {
                    0 => {
                        if data.scene.is_compound() {
                            layers.extend(share_bands(v));
                        }
                        layers.push(curve(v, black, y_error, |p| p.error));
                    }
                    1 => layers.push(curve(v, black, K_AXIS, |p| p.kd)),
                    _ => layers.push(curve(v, black, K_AXIS, |p| p.kv)),
                }
                layers.extend(failed_marks(v, black));
            }
            let panel = Panel {
                y: if i == 0 { y_error } else { K_AXIS },
                y_desc: [ERROR_DESC, KD_DESC, KV_DESC][i].into(),
                x_desc: (i == 2).then(|| NU_DESC.into()),
                x: x.clone(),
                compact: false,
                heading: None,
                layers,
            };
            draw_panel(cell, &panel)?;
        }
        Ok(())
    }
}

/// The title with the parameters held fixed, as the data say: `... (N = 1, nit = 1, E = 1e3 Pa)`.
fn drawn_title(figure: &ThesisFigure, data: &ExperimentData) -> String {
    match data.fixed_label() {
        fixed if fixed.is_empty() => figure.title(),
        fixed => format!("{} ({fixed})", figure.title()),
    }
}

/// Draws a legend strip at the top of `area` and returns the area below it.
fn with_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Sample)],
) -> Dr<DrawingArea<DB, Shift>> {
    if entries.is_empty() {
        return Ok(area.clone());
    }
    // Measure the rows first on a throw-away strip of the full width, then reserve exactly that height.
    let (w, _) = area.dim_in_pixel();
    let rows = legend_rows(area, entries, w)?;
    let (strip, rest) = area.split_vertically(rows as u32 * LEGEND_ROW + 6);
    canvas::legend(&strip, entries)?;
    Ok(rest)
}

/// How many legend rows `entries` need at width `w`.
fn legend_rows<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, entries: &[(String, Sample)], w: u32) -> Dr<usize> {
    let text = canvas::font(style::LEGEND_SIZE);
    let mut rows = 1;
    let mut used = 0i32;
    for (label, _) in entries {
        let ew = 44 + area.estimate_text_size(label, &text).msg()?.0 as i32;
        let need = if used == 0 { ew } else { used + 34 + ew };
        if need > w as i32 - 20 && used > 0 {
            rows += 1;
            used = ew;
        } else {
            used = need;
        }
    }
    Ok(rows)
}

/// Draws one panel.
fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &Panel) -> Dr {
    let area = match &panel.heading {
        Some((text, colour)) => {
            let (top, rest) = area.split_vertically(28);
            let (w, _) = top.dim_in_pixel();
            let style =
                canvas::coloured_font(style::SMALL_SIZE + 2.0, *colour).pos(Pos::new(HPos::Center, VPos::Center));
            // Centred over the plotting area, which starts after the y label area.
            top.draw_text(text, &style, ((w as i32 + 55) / 2, 15)).msg()?;
            rest
        }
        None => area.clone(),
    };
    let (tick_size, desc_size) =
        if panel.compact { (style::SMALL_SIZE, style::SMALL_SIZE) } else { (style::TICK_SIZE, style::DESC_SIZE) };
    let mut builder = ChartBuilder::on(&area);
    builder
        .margin_top(8)
        .margin_bottom(4)
        .margin_left(if panel.compact { 4 } else { 12 })
        .margin_right(if panel.compact { 14 } else { 30 })
        .x_label_area_size(match (&panel.x_desc, panel.compact) {
            (Some(_), false) => 62,
            (Some(_), true) => 46,
            (None, _) => 34,
        })
        .y_label_area_size(if panel.compact { 62 } else { 105 });
    let x = panel.x.clone();
    let x_labels = if panel.compact { 3 } else { 6 };
    let y_labels = if panel.compact { 5 } else { 6 };
    match panel.y {
        YAxis::Linear(lo, hi) => {
            let mut chart = builder.build_cartesian_2d(x, lo..hi).msg()?;
            let fmt_x = |v: &f64| canvas::tick(*v);
            let fmt_y = |v: &f64| canvas::tick(*v);
            configure(&mut chart, panel, tick_size, desc_size, x_labels, y_labels, &fmt_x, &fmt_y)?;
            draw_layers(&mut chart, &panel.layers, panel.compact)
        }
        YAxis::Log(lo, hi) => {
            let mut chart = builder.build_cartesian_2d(x, (lo..hi).log_scale()).msg()?;
            let fmt_x = |v: &f64| canvas::tick(*v);
            let fmt_y = |v: &f64| canvas::log_tick(*v);
            configure(&mut chart, panel, tick_size, desc_size, x_labels, 20, &fmt_x, &fmt_y)?;
            draw_layers(&mut chart, &panel.layers, panel.compact)
        }
    }
}

/// Draws grid, axes, tick labels and descriptions.
fn configure<DB: DrawingBackend, YC: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, YC>>,
    panel: &Panel,
    tick_size: f64,
    desc_size: f64,
    x_labels: usize,
    y_labels: usize,
    fmt_x: &dyn Fn(&f64) -> String,
    fmt_y: &dyn Fn(&f64) -> String,
) -> Dr {
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(x_labels)
        .y_labels(y_labels)
        .x_label_formatter(fmt_x)
        .y_label_formatter(fmt_y)
        .label_style(canvas::font(tick_size))
        .axis_desc_style(canvas::font(desc_size))
        .max_light_lines(1)
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID_BOLD)
        .axis_style(BLACK.stroke_width(1));
    if let Some(d) = &panel.x_desc {
        mesh.x_desc(d.as_str());
    }
    if !panel.y_desc.is_empty() {
        mesh.y_desc(panel.y_desc.as_str());
    }
    mesh.draw().msg()
}

/// Draws bands first (under everything), then curves with markers.
fn draw_layers<DB: DrawingBackend, YC: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, YC>>,
    layers: &[Layer],
    compact: bool,
) -> Dr {
    for layer in layers {
        if let Layer::Band { colour, lower, upper } = layer {
            let mut outline: Vec<(f64, f64)> = upper.clone();
            outline.extend(lower.iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(outline, colour.mix(style::SHARE_OPACITY).filled())))
                .msg()?;
        }
    }
    let y = chart.y_range();
    for layer in layers {
        if let Layer::Failed { colour, nus } = layer {
            // On the ν axis line itself, where no data point can be (the k axis starts below 0, an error
            // axis at 0 or below the smallest error), so a cross is never read as a fitted value.
            let at = y.start;
            chart.draw_series(nus.iter().map(|&nu| Cross::new((nu, at), 6, colour.stroke_width(2)))).msg()?;
        }
    }
    for layer in layers {
        if let Layer::Curve { colour, segments } = layer {
            let radius = style::marker_radius(segments.iter().map(Vec::len).sum(), compact);
            for seg in segments {
                chart
                    .draw_series(LineSeries::new(seg.iter().copied(), colour.stroke_width(style::CURVE_WIDTH)))
                    .msg()?;
                if radius > 0 || seg.len() == 1 {
                    // A lone point (between failed fits) always gets a marker: it has no line.
                    let r = radius.max(2);
                    chart.draw_series(seg.iter().map(|&p| Circle::new(p, r, colour.filled()))).msg()?;
                }
            }
        }
    }
    Ok(())
}
