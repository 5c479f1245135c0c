//! The figures drawn from fit results: error against ν, the fitted parameters against ν (one panel per
//! parameter, in the layout's order), the base case, and a compound scene's error shares.
//!
//! Every figure is a title, a legend strip (never on top of the data) and one or more panels sharing the
//! ν axis. A curve is broken where a fit failed rather than bridged, and data points carry markers so
//! a coarse ν grid reads as points, not as a smooth law.
//!
//! Variants differ in colour, marker shape and dash pattern ([`style::variant_style`]). In parameter
//! panels, curves that lie on top of each other (several variants fitted at the same bound) are drawn
//! side by side: at each ν, points closer than [`style::COINCIDE_PX`] are spread [`style::DODGE_PX`]
//! pixels apart around their mean, in legend order from top to bottom ([`dodge`]). Only the drawing
//! moves; the report's numbers are the data's.

use std::collections::BTreeMap;
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
    /// Pixels from the top of a panel `h` pixels high to the value `v`.
    fn to_px(self, v: f64, h: f64) -> f64 {
        match self {
            YAxis::Linear(lo, hi) => (hi - v) / (hi - lo) * h,
            YAxis::Log(lo, hi) => (hi.log10() - v.log10()) / (hi.log10() - lo.log10()) * h,
        }
    }

    /// The value `px` pixels from the top of a panel `h` pixels high.
    fn value_at_px(self, px: f64, h: f64) -> f64 {
        match self {
            YAxis::Linear(lo, hi) => hi - px / h * (hi - lo),
            YAxis::Log(lo, hi) => 10f64.powf(hi.log10() - px / h * (hi.log10() - lo.log10())),
        }
    }

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
    /// Spread curves that lie on top of each other ([`dodge`]), within these value limits (the search
    /// box of a parameter: a curve at kd = 1 is never drawn above 1). `None`: no dodging.
    dodge: Option<(f64, f64)>,
    layers: Vec<Layer>,
}

impl Panel {
    fn new(y: YAxis, y_desc: &str, x: Range<f64>, layers: Vec<Layer>) -> Self {
        Panel { y, y_desc: y_desc.into(), x_desc: None, x, compact: false, heading: None, dodge: None, layers }
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

/// A parameter's axis. Linear parameters: the search box (widened to any value outside it) with a 4 %
/// margin, so a fit on a bound is not hidden by the frame and all figures of a study share the axis (the
/// thesis's [0, 1] for PBD stiffness). Log10 parameters: the data's range rounded out to whole decades,
/// not the box, which for compliances spans far more decades than the fits use and would squeeze the
/// curves into a sliver; a box edge inside that range is drawn as a dashed line.
pub(crate) fn parameter_axis(p: &ParameterLayout, values: &[f64]) -> YAxis {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    match p.scale {
        Scale::Log10 => log_decades(finite().collect::<Vec<_>>().into_iter()),
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

/// A parameter's axis description: `kd`, `alpha_d (m/N)`.
fn parameter_desc(p: &ParameterLayout) -> String {
    if p.unit.is_empty() || p.unit == "1" { p.name.clone() } else { format!("{} ({})", p.name, p.unit) }
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
        layers.extend(failed_marks(v, style.colour));
    }
    let dodge = variant_styles.then_some((p.lower, p.upper));
    Panel { dodge, ..Panel::new(y, &parameter_desc(p), x, layers) }
}

impl Drawing for ParameterFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let data = self.data;
        let area = canvas::title(root, &drawn_title(&self.title, data))?;
        let mut legend = variant_legend(data);
        if data.variants.len() > 1 {
            legend
                .push((format!("coinciding curves drawn {} px apart, inside the box", style::DODGE_PX), Sample::Note));
        }
        let area = with_legend(&area, &legend)?;
        let x = nu_range(data);
        let n = data.parameters.len().max(1);
        let (_, h) = area.dim_in_pixel();
        // Equal panels; the lowest one is taller by the ν axis description.
        let extra = 28;
        let each = (h as i32 - extra) / n as i32;
        let breaks: Vec<i32> = (1..n as i32).map(|k| k * each).collect();
        let cells = area.split_by_breakpoints([] as [i32; 0], breaks);
        for (i, cell) in cells.iter().enumerate().take(data.parameters.len()) {
            let mut panel = parameter_panel(data, i, true, x.clone());
            if i + 1 == data.parameters.len() {
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
        let mut entries = Vec::new();
        if data.scene.is_compound() {
            entries.push(("total error".to_string(), Sample::Curve(black)));
            entries.extend(share_legend(data, "share"));
        }
        entries.extend(failed_legend(data));
        let area = with_legend(&area, &entries)?;
        let x = nu_range(data);
        let y_error =
            linear_from_zero(data.variants.iter().flat_map(|v| v.points().map(|p| p.error).collect::<Vec<_>>()));
        let (_, h) = area.dim_in_pixel();
        let n = 1 + data.parameters.len();
        // Equal panels; the lowest one carries the ν axis description as well.
        let each = (h as i32 - 30) / n as i32;
        let breaks: Vec<i32> = (1..n as i32).map(|k| k * each).collect();
        let cells = area.split_by_breakpoints([] as [i32; 0], breaks);
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
                parameter_panel(data, i - 1, false, x.clone())
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

/// Spreads curves that lie on top of each other: at each ν, points of different curves closer than
/// [`style::COINCIDE_PX`] (chained: a point joins a group if it is that close to the group's last
/// point) are redrawn [`style::DODGE_PX`] apart around the group's mean, the first curve (legend order)
/// on top. A group is then shifted as a whole so that none of it crosses `limits` (lower, upper: the
/// parameter's box; Fig. 4.20's curves at kd = 1 were drawn at 0.98 and 1.01): a group on a bound fans out
/// inward from it. `h` is the panel's height in pixels. Curves alone at a ν keep their exact values.
pub(crate) fn dodge(curves: &[Segments], y: YAxis, h: f64, limits: (f64, f64)) -> Vec<Segments> {
    let mut out = curves.to_vec();
    if h <= 0.0 {
        return out;
    }
    // ν (by bits, deterministic order) -> (pixel y, curve, segment, index).
    let mut at: BTreeMap<u64, Vec<(f64, usize, usize, usize)>> = BTreeMap::new();
    for (c, segments) in curves.iter().enumerate() {
        for (s, seg) in segments.iter().enumerate() {
            for (i, &(nu, v)) in seg.iter().enumerate() {
                let px = y.to_px(v, h);
                if px.is_finite() {
                    at.entry(nu.to_bits()).or_default().push((px, c, s, i));
                }
            }
        }
    }
    for points in at.values_mut() {
        points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut start = 0;
        while start < points.len() {
            let mut end = start + 1;
            while end < points.len() && points[end].0 - points[end - 1].0 <= style::COINCIDE_PX {
                end += 1;
            }
            let group = &mut points[start..end];
            if group.len() > 1 {
                let mean = group.iter().map(|g| g.0).sum::<f64>() / group.len() as f64;
                group.sort_by_key(|g| g.1);
                let m = group.len() as f64;
                let spread = |rank: usize| mean + (rank as f64 - (m - 1.0) / 2.0) * style::DODGE_PX;
                // Pixels grow downwards: the upper limit is the smallest pixel allowed, the lower the largest.
                let (top, bottom) = (y.to_px(limits.1, h), y.to_px(limits.0, h));
                let (first, last) = (spread(0), spread(group.len() - 1));
                let shift = if top.is_finite() && first < top {
                    top - first
                } else if bottom.is_finite() && last > bottom {
                    bottom - last
                } else {
                    0.0
                };
                for (rank, &(_, c, s, i)) in group.iter().enumerate() {
                    out[c][s][i].1 = y.value_at_px(spread(rank) + shift, h);
                }
            }
            start = end;
        }
    }
    out
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
        .y_label_area_size(match (panel.compact, panel.y_desc.is_empty()) {
            (true, true) => 52,
            (true, false) => 74,
            (false, _) => 105,
        });
    let x = panel.x.clone();
    let x_labels = if panel.compact { 3 } else { 6 };
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

/// Draws box edges and bands first (under everything), then failed-fit crosses, then curves with markers
/// (spread by [`dodge`] in a dodging panel).
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
                        style::BOUND_LINE.stroke_width(1),
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
    let curves: Vec<(VariantStyle, &Segments)> = panel
        .layers
        .iter()
        .filter_map(|l| match l {
            Layer::Curve { style, segments } => Some((*style, segments)),
            _ => None,
        })
        .collect();
    let segments: Vec<Segments> = curves.iter().map(|(_, s)| (*s).clone()).collect();
    let shown = if let Some(limits) = panel.dodge {
        let (_, h) = chart.plotting_area().dim_in_pixel();
        dodge(&segments, panel.y, h as f64, limits)
    } else {
        segments
    };
    for ((style, _), segments) in curves.iter().zip(&shown) {
        let radius = style::marker_radius(segments.iter().map(Vec::len).sum(), panel.compact);
        let line = style.colour.stroke_width(style::CURVE_WIDTH);
        for seg in segments {
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

    #[test]
    fn coinciding_curves_are_spread_in_legend_order_and_lone_ones_stay() {
        let y = YAxis::Linear(-0.04, 1.04);
        let h = 300.0;
        // Four curves at kd = 1 for the first two ν; at the third ν they part.
        let curve = |last: f64| vec![vec![(0.0, 1.0), (0.1, 1.0), (0.2, last)]];
        let curves = vec![curve(1.0), curve(0.8), curve(0.6), curve(0.4)];
        let shown = dodge(&curves, y, h, (f64::NEG_INFINITY, f64::INFINITY));
        for i in 0..2 {
            let px: Vec<f64> = shown.iter().map(|c| y.to_px(c[0][i].1, h)).collect();
            let at_one = y.to_px(1.0, h);
            for (k, p) in px.iter().enumerate() {
                let expected = at_one + (k as f64 - 1.5) * style::DODGE_PX;
                assert!((p - expected).abs() < 1e-9, "curve {k} at {p}, expected {expected}");
            }
        }
        // Apart at ν = 0.2: exact values.
        for (c, v) in shown.iter().zip([1.0, 0.8, 0.6, 0.4]) {
            assert_eq!(c[0][2].1, v);
        }
        // A log axis works the same way, in pixels.
        let y = YAxis::Log(1e-10, 1e-2);
        let shown = dodge(&[vec![vec![(0.0, 1e-6)]], vec![vec![(0.0, 1e-6)]]], y, h, (1e-10, 1e-2));
        let gap = y.to_px(shown[1][0][0].1, h) - y.to_px(shown[0][0][0].1, h);
        assert!((gap - style::DODGE_PX).abs() < 1e-9, "{gap}");
    }

    /// Issue 26 (Fig. 4.20): curves that coincide on a bound of the box fan out inward, never beyond it,
    /// still DODGE_PX apart and in legend order.
    #[test]
    fn coinciding_curves_on_a_bound_stay_inside_the_box() {
        let y = YAxis::Linear(-0.04, 1.04);
        let h = 300.0;
        for bound in [1.0, 0.0] {
            let curves: Vec<Segments> = (0..4).map(|_| vec![vec![(0.49, bound)]]).collect();
            let shown = dodge(&curves, y, h, (0.0, 1.0));
            let values: Vec<f64> = shown.iter().map(|c| c[0][0].1).collect();
            assert!(values.iter().all(|v| (0.0 - 1e-12..=1.0 + 1e-12).contains(v)), "{values:?}");
            // One curve stays on the bound; the others step inward by DODGE_PX each.
            let px: Vec<f64> = values.iter().map(|&v| y.to_px(v, h)).collect();
            assert!(values.iter().any(|&v| (v - bound).abs() < 1e-12), "{values:?}");
            for w in px.windows(2) {
                assert!((w[1] - w[0] - style::DODGE_PX).abs() < 1e-9, "{px:?}");
            }
        }
        // Away from the bounds nothing shifts.
        let curves: Vec<Segments> = (0..2).map(|_| vec![vec![(0.3, 0.5)]]).collect();
        let shown = dodge(&curves, y, h, (0.0, 1.0));
        let mean = (y.to_px(shown[0][0][0].1, h) + y.to_px(shown[1][0][0].1, h)) / 2.0;
        assert!((mean - y.to_px(0.5, h)).abs() < 1e-9);
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
    }
}
