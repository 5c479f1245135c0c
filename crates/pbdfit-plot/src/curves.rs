//! The figures drawn from fit results: error against ν, the fitted parameters against ν (one panel per
//! parameter, in the layout's order), the base case, and a compound scene's error shares.
//!
//! Every figure is a title, a legend strip (never on top of the data) and one or more panels sharing the
//! ν axis. A curve is broken where a fit failed rather than bridged, and data points carry markers so
//! a coarse ν grid reads as points, not as a smooth law.
//!
//! Variants differ in colour, marker shape and dash pattern ([`style::variant_style`]). Every point is
//! drawn at its value: curves that lie on top of each other (several variants fitted at the same bound)
//! overlap, and the legend says so; their markers and dashes still tell them apart (the earlier
//! few-pixel offset made a kv of 1 read as 0.97).
//!
//! A parameter panel is logarithmic for a Log10 parameter, and for a linear one whose positive values
//! span more than [`LOG_SPAN`] (the time-step figures, where kd falls from 0.2 to 0.002). Values a log
//! axis cannot show (0: a fit on the box's lower edge) are drawn as open triangles on the axis floor, and
//! the legend says so. The search box's edges are dashed grey lines, named in the legend.

use std::ops::Range;

use pbdfit_results::{ParameterLayout, Scale};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::canvas::{self, Dr, Drawing, LEGEND_ROW, OrMsg, Sample};
use crate::study::{ExperimentData, Point, Variant, share_absolute, share_percent};
use crate::style::{self, VariantStyle};

/// The vertical axis of a panel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum YAxis {
    /// Linear from `.0` to `.1`.
    Linear(f64, f64),
    /// Logarithmic from `.0` to `.1` (both positive).
    Log(f64, f64),
}

impl YAxis {
    /// Whether `v` lies on the axis.
    fn contains(self, v: f64) -> bool {
        let (lo, hi) = match self {
            YAxis::Linear(lo, hi) | YAxis::Log(lo, hi) => (lo, hi),
        };
        v.is_finite() && lo <= v && v <= hi
    }
}

/// Polylines: segments of (ν, value) points.
type Segments = Vec<Vec<(f64, f64)>>;

/// Something drawn in a panel.
#[derive(Debug, Clone)]
enum Layer {
    /// Line segments with markers.
    Curve { style: VariantStyle, segments: Segments },
    /// A filled area between two curves sampled at the same ν (a stacked share).
    Band { colour: RGBColor, lower: Vec<(f64, f64)>, upper: Vec<(f64, f64)> },
    /// Crosses on the ν axis where fits failed (the curve is broken there).
    Failed { colour: RGBColor, nus: Vec<f64> },
    /// Thin dashed horizontal lines at these values (the edges of a parameter's search box).
    Bounds { values: Vec<f64> },
    /// Open triangles on the floor of a log axis at these ν: values the axis cannot show (0).
    Floor { colour: RGBColor, nus: Vec<f64> },
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

impl Panel {
    fn new(y: YAxis, y_desc: &str, x: Range<f64>, layers: Vec<Layer>) -> Self {
        Panel { y, y_desc: y_desc.into(), x_desc: None, x, compact: false, heading: None, layers }
    }

    /// Whether the panel draws a box edge.
    fn has_bounds(&self) -> bool {
        self.layers.iter().any(|l| matches!(l, Layer::Bounds { values } if !values.is_empty()))
    }

    /// Whether the panel draws a value on the log axis's floor.
    fn has_floor(&self) -> bool {
        self.layers.iter().any(|l| matches!(l, Layer::Floor { .. }))
    }
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

/// A linear parameter whose positive values span more than this ratio (two decades) is drawn on a log
/// axis: on a linear one the smaller curves lie flat on zero although they differ by decades (thesis
/// Fig. 4.4: kd of 0.2 at dt = 0.01 s and 0.002 at dt = 0.001 s).
pub const LOG_SPAN: f64 = 100.0;

/// Whether the positive finite values among `values` span more than [`LOG_SPAN`].
fn spans_decades(values: &[f64]) -> bool {
    let positive = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let (min, max) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    max > 0.0 && max / min > LOG_SPAN
}

/// A parameter's axis. Linear parameters: the search box (widened to any value outside it) with a 4 %
/// margin, so a fit on a bound is not hidden by the frame and figures of a study share the axis (the
/// thesis's [0, 1] for PBD stiffness); but where the positive values span more than [`LOG_SPAN`], a log
/// axis from the decade below the smallest positive value to a quarter above the box's upper edge
/// (values of 0 then go on the floor, [`Layer::Floor`]).
/// Log10 parameters: the data's range rounded out to whole decades, not the box, which for compliances
/// spans far more decades than the fits use and would squeeze the curves into a sliver. A box edge
/// inside the axis is drawn as a dashed line.
pub(crate) fn parameter_axis(p: &ParameterLayout, values: &[f64]) -> YAxis {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    match p.scale {
        Scale::Log10 => log_decades(finite().collect::<Vec<_>>().into_iter()),
        Scale::Linear if spans_decades(values) => match log_decades(finite().collect::<Vec<_>>().into_iter()) {
            // Up to the box's upper edge (or the largest value beyond it) and a quarter above, not to the
            // next decade: a stiffness in [0, 1] gets no empty decade above 1, and the box edge and the fits
            // on it stay clear of the frame, as on a linear axis.
            YAxis::Log(lo, _) => {
                let top = finite().fold(if p.upper.is_finite() { p.upper } else { 0.0 }, f64::max);
                YAxis::Log(lo, top * 1.25)
            }
            linear => linear,
        },
        Scale::Linear => {
            let lo = finite().fold(if p.lower.is_finite() { p.lower } else { f64::INFINITY }, f64::min);
            let hi = finite().fold(if p.upper.is_finite() { p.upper } else { f64::NEG_INFINITY }, f64::max);
            if !(lo.is_finite() && hi.is_finite()) {
                return YAxis::Linear(0.0, 1.0);
            }
            let w = if hi > lo { hi - lo } else { lo.abs().max(1.0) };
            YAxis::Linear(lo - 0.04 * w, hi + 0.04 * w)
        }
    }
}

/// A parameter's axis description with its unit: `kd (dimensionless)`, `alpha_d (m/N)`; the bare name
/// where the layout gives no unit.
fn parameter_desc(p: &ParameterLayout) -> String {
    match p.unit.as_str() {
        "" => p.name.clone(),
        "1" => format!("{} (dimensionless)", p.name),
        unit => format!("{} ({unit})", p.name),
    }
}

/// A variant's curve of one quantity; points the axis cannot show (non-positive on a log axis) break it.
fn curve(variant: &Variant, style: VariantStyle, y: YAxis, f: impl Fn(&Point) -> f64) -> Layer {
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
    Layer::Curve { style, segments }
}

/// The ν at which a variant's quantity `f` cannot be shown on the log axis `y` (0 or below), drawn on its
/// floor; none on a linear axis.
fn floor_marks(variant: &Variant, colour: RGBColor, y: YAxis, f: impl Fn(&Point) -> f64) -> Option<Layer> {
    if !matches!(y, YAxis::Log(..)) {
        return None;
    }
    let nus: Vec<f64> = variant.points().filter(|p| f(p) <= 0.0).map(|p| p.nu).collect();
    (!nus.is_empty()).then_some(Layer::Floor { colour, nus })
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

/// Stacked bands of a compound scene's parts for one variant, bottom to top in part order: each part's
/// share as given by `share` (percent, or absolute under the total curve).
fn share_bands(
    data: &ExperimentData,
    variant: &Variant,
    share: fn(&ExperimentData, &Point) -> Vec<(String, f64)>,
) -> Vec<Layer> {
    let mut bands = Vec::new();
    for seg in variant.segments() {
        let stacks: Vec<(f64, Vec<(String, f64)>)> = seg.iter().map(|p| (p.nu, share(data, p))).collect();
        let parts: Vec<String> =
            stacks.first().map(|(_, s)| s.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
        let mut lower: Vec<(f64, f64)> = stacks.iter().map(|(nu, _)| (*nu, 0.0)).collect();
        for (k, part) in parts.iter().enumerate() {
            let upper: Vec<(f64, f64)> = stacks
                .iter()
                .zip(&lower)
                .map(|((nu, s), (_, lo))| (*nu, lo + s.get(k).map_or(0.0, |(_, v)| *v)))
                .collect();
            bands.push(Layer::Band { colour: part_colour(data, part), lower: lower.clone(), upper: upper.clone() });
            lower = upper;
        }
    }
    bands
}

fn percent(data: &ExperimentData, p: &Point) -> Vec<(String, f64)> {
    share_percent(&data.scene, p)
}

fn absolute(data: &ExperimentData, p: &Point) -> Vec<(String, f64)> {
    share_absolute(&data.scene, p)
}

/// The colour of a part of a compound scene, by its place in the scene's parts: red, green, blue (the
/// thesis's GravityFloor, GravityWall, GravityCeiling), then the further variant colours.
fn part_colour(data: &ExperimentData, part: &str) -> RGBColor {
    match data.scene.parts.iter().position(|p| p == part) {
        Some(0) => style::FLOOR_COLOUR,
        Some(1) => style::WALL_COLOUR,
        Some(2) => style::CEILING_COLOUR,
        Some(i) => style::variant_colour(i + 1),
        None => RGBColor(128, 128, 128),
    }
}

/// Legend entries of a compound scene's shares.
fn share_legend(data: &ExperimentData, what: &str) -> Vec<(String, Sample)> {
    data.scene
        .parts
        .iter()
        .map(|p| {
            let title = pbdfit_results::SceneLayout { name: p.clone(), parts: vec![] }.title();
            (format!("{title} {what}"), Sample::Fill(part_colour(data, p), style::SHARE_OPACITY))
        })
        .collect()
}

/// Legend entries naming each variant in its colour, marker and dash.
fn variant_legend(data: &ExperimentData) -> Vec<(String, Sample)> {
    let mut entries: Vec<(String, Sample)> =
        data.variants.iter().map(|v| (v.label.clone(), Sample::Curve(style::variant_style(v.style_index)))).collect();
    entries.extend(failed_legend(data));
    entries
}

/// The legend entries the parameter panels call for: the box edges, if a panel draws one; the values on
/// a log axis's floor, naming the parameters and what the values are (`kd = 0 (box's lower edge): open
/// triangle on the log axis's floor`; the triangle has the variant's colour).
fn panel_legend(data: &ExperimentData, panels: &[(usize, &Panel)]) -> Vec<(String, Sample)> {
    let mut entries = Vec::new();
    if panels.iter().any(|(_, p)| p.has_bounds()) {
        entries.push(("search box bound (dashed)".to_string(), Sample::Bound));
    }
    let floored: Vec<usize> = panels.iter().filter(|(_, p)| p.has_floor()).map(|(i, _)| *i).collect();
    if !floored.is_empty() {
        let names: Vec<String> = floored.iter().map(|&i| data.parameters[i].name.clone()).collect();
        // Exactly 0 where 0 is the box's lower edge (the thesis's PBD stiffness); else "≤ 0".
        let zero_edge = floored.iter().all(|&i| {
            let p = &data.parameters[i];
            p.lower == 0.0 && data.variants.iter().flat_map(|v| v.points()).all(|pt| pt.values[i] >= 0.0)
        });
        let what = if zero_edge { "= 0 (box's lower edge)" } else { "≤ 0" };
        entries.push((
            format!("{} {what}: open triangle on the log axis's floor", names.join(", ")),
            Sample::Floor(style::variant_colour(0)),
        ));
    }
    entries
}

/// Axis descriptions.
const NU_DESC: &str = "Poisson ratio ν";
const ERROR_DESC: &str = "relative error e";

/// Error figures: the error against ν, one curve per variant; for a compound scene, the totals above and,
/// below, one panel per variant with each part's share of e² in percent (stacked to 100 %, so small shares
/// stay visible when the totals span decades on a log axis).
pub(crate) struct ErrorFigure<'a> {
    /// The drawn title (the settings held fixed are added from the data).
    pub title: String,
    /// Its data.
    pub data: &'a ExperimentData,
}

impl Drawing for ErrorFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.title, data))?;
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
            let style = style::variant_style(v.style_index);
            layers.push(curve(v, style, y, |p| p.error));
            layers.extend(failed_marks(v, style.colour));
        }
        let main = Panel { x_desc: Some(NU_DESC.into()), ..Panel::new(y, ERROR_DESC, x.clone(), layers) };
        if !data.scene.is_compound() {
            return draw_panel(&area, &main);
        }
        let (_, h) = area.dim_in_pixel();
        let (top, bottom) = area.split_vertically(h * 56 / 100);
        draw_panel(&top, &main)?;
        let bottom = with_legend(&bottom, &share_legend(data, "share"))?;
        let n = data.variants.len().max(1);
        for (i, (v, cell)) in data.variants.iter().zip(bottom.split_evenly((1, n))).enumerate() {
            let colour = style::variant_colour(v.style_index);
            let mut layers = share_bands(data, v, percent);
            layers.extend(failed_marks(v, colour));
            let panel = Panel {
                x_desc: Some("ν".into()),
                compact: true,
                heading: Some((v.label.clone(), colour)),
                ..Panel::new(YAxis::Linear(0.0, 100.0), if i == 0 { "% of e²" } else { "" }, x.clone(), layers)
            };
            draw_panel(&cell, &panel)?;
        }
        Ok(())
    }
}

/// Parameter figures: one panel per fitted parameter (layout order, top to bottom), one curve per variant.
pub(crate) struct ParameterFigure<'a> {
    /// The drawn title (the settings held fixed are added from the data).
    pub title: String,
    /// Its data.
    pub data: &'a ExperimentData,
}

/// The panel of parameter `i`: curves of every variant, box edges inside the axis as dashed lines.
fn parameter_panel(data: &ExperimentData, i: usize, variant_styles: bool, x: Range<f64>) -> Panel {
    let p = &data.parameters[i];
    let values: Vec<f64> = data.variants.iter().flat_map(|v| v.points().map(|pt| pt.values[i])).collect();
    let y = parameter_axis(p, &values);
    let mut layers =
        vec![Layer::Bounds { values: [p.lower, p.upper].into_iter().filter(|b| y.contains(*b)).collect() }];
    for v in &data.variants {
        let style = if variant_styles { style::variant_style(v.style_index) } else { style::variant_style(0) };
        layers.push(curve(v, style, y, |pt| pt.values[i]));
        layers.extend(floor_marks(v, style.colour, y, |pt| pt.values[i]));
        layers.extend(failed_marks(v, style.colour));
    }
    Panel::new(y, &parameter_desc(p), x, layers)
}

impl Drawing for ParameterFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.title, data))?;
        let x = nu_range(data);
        let panels: Vec<Panel> =
            (0..data.parameters.len()).map(|i| parameter_panel(data, i, true, x.clone())).collect();
        let mut legend = variant_legend(data);
        if data.variants.len() > 1 {
            legend.push(("coinciding curves overlap (told apart by marker and dash)".to_string(), Sample::Note));
        }
        legend.extend(panel_legend(data, &panels.iter().enumerate().collect::<Vec<_>>()));
        let area = with_legend(&area, &legend)?;
        let n = data.parameters.len().max(1);
        let (_, h) = area.dim_in_pixel();
        // Equal panels; the lowest one is taller by the ν axis description.
        let extra = 28;
        let each = (h as i32 - extra) / n as i32;
        let breaks: Vec<i32> = (1..n as i32).map(|k| k * each).collect();
        let cells = area.split_by_breakpoints([] as [i32; 0], breaks);
        let last = panels.len();
        for (i, (cell, mut panel)) in cells.iter().zip(panels).enumerate() {
            if i + 1 == last {
                panel.x_desc = Some(NU_DESC.into());
            }
            draw_panel(cell, &panel)?;
        }
        Ok(())
    }
}

/// Base figures: the error and every fitted parameter of a base case in stacked panels.
pub(crate) struct BaseFigure<'a> {
    /// The drawn title (the settings held fixed are added from the data).
    pub title: String,
    /// Its data.
    pub data: &'a ExperimentData,
}

impl Drawing for BaseFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.title, data))?;
        let black = style::variant_style(0);
        let x = nu_range(data);
        let parameter_panels: Vec<Panel> =
            (0..data.parameters.len()).map(|i| parameter_panel(data, i, false, x.clone())).collect();
        let mut entries = Vec::new();
        if data.scene.is_compound() {
            entries.push(("total error".to_string(), Sample::Curve(black)));
            entries.extend(share_legend(data, "share"));
        }
        entries.extend(failed_legend(data));
        entries.extend(panel_legend(data, &parameter_panels.iter().enumerate().collect::<Vec<_>>()));
        let area = with_legend(&area, &entries)?;
        let y_error =
            linear_from_zero(data.variants.iter().flat_map(|v| v.points().map(|p| p.error).collect::<Vec<_>>()));
        let (_, h) = area.dim_in_pixel();
        let n = 1 + data.parameters.len();
        // Equal panels; the lowest one carries the ν axis description as well.
        let each = (h as i32 - 30) / n as i32;
        let breaks: Vec<i32> = (1..n as i32).map(|k| k * each).collect();
        let cells = area.split_by_breakpoints([] as [i32; 0], breaks);
        let mut parameter_panels = parameter_panels.into_iter();
        for (i, cell) in cells.iter().enumerate() {
            let mut panel = if i == 0 {
                let mut layers = Vec::new();
                for v in &data.variants {
                    if data.scene.is_compound() {
                        layers.extend(share_bands(data, v, absolute));
                    }
                    layers.push(curve(v, black, y_error, |p| p.error));
                    layers.extend(failed_marks(v, black.colour));
                }
                Panel::new(y_error, ERROR_DESC, x.clone(), layers)
            } else {
                parameter_panels.next().expect("one panel per parameter")
            };
            if i + 1 == n {
                panel.x_desc = Some(NU_DESC.into());
            }
            draw_panel(cell, &panel)?;
        }
        Ok(())
    }
}

/// The title with the model and the settings held fixed, as the data say:
/// `... (pbd; N = 1, nit = 1, E = 1e3 Pa)`.
fn drawn_title(title: &str, data: &ExperimentData) -> String {
    match (data.fixed_label(), data.model.as_str()) {
        (fixed, model) if fixed.is_empty() => format!("{title} ({model})"),
        (fixed, "") => format!("{title} ({fixed})"),
        (fixed, model) => format!("{title} ({model}; {fixed})"),
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
            // Set smaller where it would be wider than the panel (`mass-spring-volume` in a seventh of
            // the figure's width), never cut off.
            let size = canvas::fitted_font(&top, text, style::SMALL_SIZE + 2.0, w as f64 - 4.0)?.font.get_size();
            let style = canvas::coloured_font(size, *colour).pos(Pos::new(HPos::Center, VPos::Center));
            // Centred over the plotting area, which starts after the y label area, as far as the text fits.
            let (tw, _) = top.estimate_text_size(text, &style).msg()?;
            let centre = ((w as i32 + 55) / 2).min(w as i32 - tw as i32 / 2 - 2).max(tw as i32 / 2 + 2);
            top.draw_text(text, &style, (centre, 15)).msg()?;
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
        .y_label_area_size(match (panel.compact, panel.y_desc.is_empty()) {
            (true, true) => 52,
            (true, false) => 74,
            (false, _) => 105,
        });
    let x = panel.x.clone();
    // A compact panel narrower than about 120 plotting pixels (the first of seven, beside its y
    // description) has room for two ν labels, not three ("0 0.20.4").
    let (w, _) = area.dim_in_pixel();
    let x_labels = match (panel.compact, panel.y_desc.is_empty()) {
        (true, false) if w < 200 => 2,
        (true, _) => 3,
        (false, _) => 6,
    };
    let y_labels = if panel.compact { 5 } else { 6 };
    match panel.y {
        YAxis::Linear(lo, hi) => {
            let mut chart = builder.build_cartesian_2d(x, lo..hi).msg()?;
            let fmt_x = |v: &f64| canvas::tick(*v);
            let fmt_y = |v: &f64| canvas::tick(*v);
            configure(&mut chart, panel, tick_size, desc_size, x_labels, y_labels, &fmt_x, &fmt_y)?;
            draw_layers(&mut chart, panel)
        }
        YAxis::Log(lo, hi) => {
            let mut chart = builder.build_cartesian_2d(x, (lo..hi).log_scale()).msg()?;
            let fmt_x = |v: &f64| canvas::tick(*v);
            let fmt_y = |v: &f64| canvas::log_tick(*v);
            configure(&mut chart, panel, tick_size, desc_size, x_labels, 20, &fmt_x, &fmt_y)?;
            draw_layers(&mut chart, panel)
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

/// Draws box edges and bands first (under everything), then failed-fit crosses and floor triangles, then
/// curves with markers, each point at its value.
fn draw_layers<DB: DrawingBackend, YC: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, YC>>,
    panel: &Panel,
) -> Dr {
    let x = panel.x.clone();
    for layer in &panel.layers {
        if let Layer::Bounds { values } = layer {
            for &b in values {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(x.start, b), (x.end, b)],
                        6,
                        5,
                        style::BOUND_LINE.stroke_width(style::BOUND_WIDTH),
                    ))
                    .msg()?;
            }
        }
    }
    for layer in &panel.layers {
        if let Layer::Band { colour, lower, upper } = layer {
            let mut outline: Vec<(f64, f64)> = upper.clone();
            outline.extend(lower.iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(outline, colour.mix(style::SHARE_OPACITY).filled())))
                .msg()?;
        }
    }
    let y = chart.y_range();
    for layer in &panel.layers {
        if let Layer::Failed { colour, nus } = layer {
            // On the ν axis line itself, where no data point can be (a parameter axis has a margin below
            // the box, an error axis starts at 0 or below the smallest error), so a cross is never read
            // as a fitted value.
            let at = y.start;
            chart.draw_series(nus.iter().map(|&nu| Cross::new((nu, at), 6, colour.stroke_width(2)))).msg()?;
        }
    }
    for layer in &panel.layers {
        if let Layer::Floor { colour, nus } = layer {
            // The tip on the axis floor, the triangle above it: the value lies below what the axis shows.
            let area = chart.plotting_area();
            for &nu in nus {
                canvas::draw_floor_marker(area, (nu, y.start), *colour)?;
            }
        }
    }
    let curves: Vec<(VariantStyle, &Segments)> = panel
        .layers
        .iter()
        .filter_map(|l| match l {
            Layer::Curve { style, segments } => Some((*style, segments)),
            _ => None,
        })
        .collect();
    for (style, segments) in &curves {
        let radius = style::marker_radius(segments.iter().map(Vec::len).sum(), panel.compact);
        let line = style.colour.stroke_width(style::CURVE_WIDTH);
        for seg in segments.iter() {
            match style.dash {
                None => chart.draw_series(LineSeries::new(seg.iter().copied(), line)).msg()?,
                Some((dash, gap)) => {
                    chart.draw_series(DashedLineSeries::new(seg.iter().copied(), dash, gap, line)).msg()?
                }
            };
            if radius > 0 || seg.len() == 1 {
                // A lone point (between failed fits) always gets a marker: it has no line.
                let r = radius.max(2);
                let area = chart.plotting_area();
                for &p in seg {
                    canvas::draw_marker(area, p, style.marker, style.colour, r)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use pbdfit_results::{ExperimentLayout, SceneLayout};

    use crate::study::Fixed;

    /// kd of four time steps (one variant each) at three ν; the smallest time step fits kd = 0 (the box's
    /// lower edge) at ν = 0.2.
    fn dt_data(kd: [[f64; 3]; 4]) -> ExperimentData {
        let p = ParameterLayout { name: "kd".into(), unit: "1".into(), scale: Scale::Linear, lower: 0.0, upper: 1.0 };
        let variants = kd
            .iter()
            .enumerate()
            .map(|(i, values)| Variant {
                value: Some([0.01, 0.005, 0.002, 0.001][i]),
                label: format!("v{i}"),
                style_index: i,
                rows: values
                    .iter()
                    .zip([0.0, 0.1, 0.2])
                    .map(|(&v, nu)| {
                        let point = Point { nu, values: vec![v], error: 0.1, parts: vec![], at_bound: vec![] };
                        (nu, Some(point))
                    })
                    .collect(),
            })
            .collect();
        ExperimentData {
            scene: SceneLayout { name: "gravity-floor".into(), parts: vec![] },
            experiment: ExperimentLayout { name: "dt".into(), setting: Some("dt".into()), values: vec![] },
            model: "pbd".into(),
            parameters: vec![p],
            variants,
            fixed: Some(Fixed { dt: 0.01, n: 1, nit: 1, young: 1e3 }),
        }
    }

    /// Fig. 4.4: kd from 0.2 down to 0.002 lay flat on zero on a linear 0-1 axis; a linear
    /// parameter whose values span more than two decades gets a log axis, a 0 on it is drawn on the floor
    /// and the legend says so; values within two decades keep the linear box axis.
    #[test]
    fn a_panel_spanning_decades_is_logarithmic_and_its_zeros_are_noted() {
        let data = dt_data([[0.2, 0.2, 0.3], [0.05, 0.05, 0.06], [0.01, 0.01, 0.02], [0.002, 0.001, 0.0]]);
        let panel = parameter_panel(&data, 0, true, 0.0..0.5);
        let YAxis::Log(lo, hi) = panel.y else { panic!("not a log axis: {:?}", panel.y) };
        assert!((lo / 1e-4 - 1.0).abs() < 1e-6 && (hi - 1.25).abs() < 1e-9, "{lo} {hi}");
        // The 0 is not on the curve but on the floor, in its variant's colour; the other points are.
        let floors: Vec<(RGBColor, Vec<f64>)> = panel
            .layers
            .iter()
            .filter_map(|l| match l {
                Layer::Floor { colour, nus } => Some((*colour, nus.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(floors, [(style::variant_colour(3), vec![0.2])]);
        let Some(Layer::Curve { segments, .. }) =
            panel.layers.iter().filter(|l| matches!(l, Layer::Curve { .. })).nth(3)
        else {
            panic!("four curves")
        };
        assert_eq!(segments, &[vec![(0.0, 0.002), (0.1, 0.001)]]);
        // The box edge 1 is inside the axis: dashed, and named in the legend with the floor.
        assert!(panel.has_bounds());
        let legend: Vec<String> = panel_legend(&data, &[(0, &panel)]).into_iter().map(|e| e.0).collect();
        assert_eq!(
            legend,
            ["search box bound (dashed)", "kd = 0 (box's lower edge): open triangle on the log axis's floor"]
        );
        assert_eq!(panel.y_desc, "kd (dimensionless)");
        // Within two decades (0.01 to 0.3): the linear box axis, zeros drawn at 0 and no floor note.
        let data = dt_data([[0.2, 0.2, 0.3], [0.05, 0.05, 0.06], [0.01, 0.01, 0.02], [0.01, 0.01, 0.0]]);
        let panel = parameter_panel(&data, 0, true, 0.0..0.5);
        assert_eq!(panel.y, YAxis::Linear(-0.04, 1.04));
        assert!(!panel.has_floor());
        assert_eq!(panel_legend(&data, &[(0, &panel)]).len(), 1);
    }

    #[test]
    fn log_parameters_get_decades_around_the_data_and_linear_ones_the_box() {
        let p = |scale, lower, upper| ParameterLayout { name: "a".into(), unit: "m/N".into(), scale, lower, upper };
        let YAxis::Log(lo, hi) = parameter_axis(&p(Scale::Log10, 1e-12, 1e2), &[1e-9, 3e-4, 1e-2]) else {
            panic!("not a log axis")
        };
        assert!((lo / 1e-10 - 1.0).abs() < 1e-6 && (hi / 1e-1 - 1.0).abs() < 1e-6, "{lo} {hi}");
        assert_eq!(parameter_axis(&p(Scale::Linear, 0.0, 1.0), &[0.2, 1.0]), YAxis::Linear(-0.04, 1.04));
        assert_eq!(parameter_desc(&p(Scale::Log10, 0.0, 1.0)), "a (m/N)");
        // Linear, but spanning more than two decades: decades around the data, zeros left to the floor.
        let YAxis::Log(lo, hi) = parameter_axis(&p(Scale::Linear, 0.0, 1.0), &[0.0, 2e-3, 0.5]) else {
            panic!("not a log axis")
        };
        assert!((lo / 1e-3 - 1.0).abs() < 1e-6 && (hi - 1.25).abs() < 1e-9, "{lo} {hi}");
        assert!(!spans_decades(&[0.0, 0.0051, 0.5]) && spans_decades(&[0.0049, 0.5]));
    }
}
