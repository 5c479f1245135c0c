//! Writing one drawing as both PNG and SVG, and the drawing pieces every figure shares: titles, legends,
//! text, tick labels.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use plotters::coord::{CoordTranslate, Shift};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::PlotError;
use crate::style::{self, FONT, MarkerShape, VariantStyle};

/// Result of a drawing step; the message is plotters' (the caller adds the file name).
pub(crate) type Dr<T = ()> = Result<T, String>;

/// Turns any displayable error into a [`Dr`] message.
pub(crate) trait OrMsg<T> {
    /// The error as text.
    fn msg(self) -> Dr<T>;
}

impl<T, E: Display> OrMsg<T> for Result<T, E> {
    fn msg(self) -> Dr<T> {
        self.map_err(|e| e.to_string())
    }
}

/// Something that can draw itself on any plotters backend (so that the PNG and the SVG are the same
/// drawing).
pub(crate) trait Drawing {
    /// Draws onto `root`, which is already white.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr;
}

/// The two files of one figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureFiles {
    /// The PNG (always).
    pub png: PathBuf,
    /// The SVG (same drawing, vector form).
    pub svg: PathBuf,
}

/// Draws `drawing` into `<out_dir>/<stem>.png` and `<out_dir>/<stem>.svg`, `size` pixels.
pub(crate) fn save<D: Drawing>(
    drawing: &D,
    out_dir: &Path,
    stem: &str,
    size: (u32, u32),
) -> Result<FigureFiles, PlotError> {
    style::ensure_font()?;
    let png = out_dir.join(format!("{stem}.png"));
    let svg = out_dir.join(format!("{stem}.svg"));
    let draw_err = |path: PathBuf| move |message: String| PlotError::Draw { path, message };
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        root.fill(&WHITE)
            .msg()
            .and_then(|_| drawing.draw(&root))
            .and_then(|_| root.present().msg())
            .map_err(draw_err(png.clone()))?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        root.fill(&WHITE)
            .msg()
            .and_then(|_| drawing.draw(&root))
            .and_then(|_| root.present().msg())
            .map_err(draw_err(svg.clone()))?;
    }
    Ok(FigureFiles { png, svg })
}

/// A text style of the embedded font.
pub(crate) fn font(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}

/// A text style of the embedded font in a colour.
pub(crate) fn coloured_font(size: f64, colour: RGBColor) -> TextStyle<'static> {
    TextStyle { color: colour.to_backend_color(), ..font(size) }
}

/// Draws a title centred at the top of `area` and returns the area below it. A title too wide for the
/// figure is set smaller, down to three quarters of the normal size, and beyond that on two lines.
pub(crate) fn title<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str) -> Dr<DrawingArea<DB, Shift>> {
    let (w, _) = area.dim_in_pixel();
    let room = w as f64 - 40.0;
    let width_at = |size: f64, t: &str| area.estimate_text_size(t, &font(size)).map(|(tw, _)| tw as f64).msg();
    let full = width_at(style::TITLE_SIZE, text)?;
    let (size, lines) = if full <= room {
        (style::TITLE_SIZE, vec![text.to_string()])
    } else if full * 0.75 <= room {
        (style::TITLE_SIZE * room / full, vec![text.to_string()])
    } else {
        let (a, b) = split_near_middle(text);
        let size = style::TITLE_SIZE
            * (room / width_at(style::TITLE_SIZE, &a)?.max(width_at(style::TITLE_SIZE, &b)?)).min(1.0);
        (size, vec![a, b])
    };
    let line_h = (size * 1.25) as u32;
    let height = (style::TITLE_SIZE * 1.7) as u32 + line_h * (lines.len() as u32 - 1);
    let (top, rest) = area.split_vertically(height);
    let style = font(size).pos(Pos::new(HPos::Center, VPos::Center));
    let first = height as i32 / 2 + 2 - (line_h as i32 * (lines.len() as i32 - 1)) / 2;
    for (i, line) in lines.iter().enumerate() {
        top.draw_text(line, &style, (w as i32 / 2, first + i as i32 * line_h as i32)).msg()?;
    }
    Ok(rest)
}

/// The font at `size`, or smaller if `text` would be wider than `room` pixels.
pub(crate) fn fitted_font<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    room: f64,
) -> Dr<TextStyle<'static>> {
    let (tw, _) = area.estimate_text_size(text, &font(size)).msg()?;
    Ok(font(if tw as f64 > room { size * room / tw as f64 } else { size }))
}

/// Splits a text at a space near its middle: after a comma, colon or semicolon if there is one within a
/// quarter of the length from the middle, else at the space nearest the middle.
fn split_near_middle(text: &str) -> (String, String) {
    let chars: Vec<char> = text.chars().collect();
    let middle = chars.len() / 2;
    let spaces: Vec<usize> = (0..chars.len()).filter(|&i| chars[i] == ' ').collect();
    let punctuated = spaces
        .iter()
        .copied()
        .filter(|&i| i > 0 && matches!(chars[i - 1], ',' | ':' | ';') && i.abs_diff(middle) <= chars.len() / 4)
        .min_by_key(|&i| i.abs_diff(middle));
    match punctuated.or_else(|| spaces.iter().copied().min_by_key(|&i| i.abs_diff(middle))) {
        Some(i) => (chars[..i].iter().collect(), chars[i + 1..].iter().collect()),
        None => (text.to_string(), String::new()),
    }
}

/// How a legend entry's sample looks.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sample {
    /// A curve with point markers, in a variant's colour, marker shape and dash pattern.
    Curve(VariantStyle),
    /// A filled area.
    Fill(RGBColor, f64),
    /// A cross (failed fits).
    Cross(RGBColor),
    /// Two variant curves drawn on top of each other (solid black under dashed red, markers on the same
    /// spot): "coinciding curves overlap".
    Note,
    /// A thin grey dashed line: the edges of a parameter's search box.
    Bound,
    /// The open marker that stands for a value a log axis cannot show (0, a fit on the box's lower edge),
    /// drawn at the axis floor.
    Floor(RGBColor),
}

/// Height of one legend row in pixels.
pub(crate) const LEGEND_ROW: u32 = 34;

/// Draws legend entries in centred rows across `area` (they never sit on the data: the caller reserves
/// the strip). Returns the number of rows used.
pub(crate) fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, entries: &[(String, Sample)]) -> Dr<usize> {
    const SAMPLE: i32 = 36;
    const GAP: i32 = 8;
    const SPACING: i32 = 34;
    let text = font(style::LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
    let (w, _) = area.dim_in_pixel();
    let widths: Vec<i32> = entries
        .iter()
        .map(|(label, _)| area.estimate_text_size(label, &text).map(|(tw, _)| SAMPLE + GAP + tw as i32).msg())
        .collect::<Dr<_>>()?;
    // Greedy rows.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0;
    for (i, &ew) in widths.iter().enumerate() {
        let need = if rows.last().expect("never empty").is_empty() { ew } else { used + SPACING + ew };
        if need > w as i32 - 20 && !rows.last().expect("never empty").is_empty() {
            rows.push(vec![i]);
            used = ew;
        } else {
            rows.last_mut().expect("never empty").push(i);
            used = need;
        }
    }
    for (r, row) in rows.iter().enumerate() {
        let row_width: i32 = row.iter().map(|&i| widths[i]).sum::<i32>() + SPACING * (row.len() as i32 - 1);
        let mut x = (w as i32 - row_width) / 2;
        let y = r as i32 * LEGEND_ROW as i32 + LEGEND_ROW as i32 / 2;
        for &i in row {
            let (label, sample) = &entries[i];
            match *sample {
                Sample::Curve(v) => {
                    let line = v.colour.stroke_width(style::CURVE_WIDTH + 1);
                    match v.dash {
                        None => area.draw(&PathElement::new(vec![(x, y), (x + SAMPLE, y)], line)).msg()?,
                        Some((dash, gap)) => {
                            area.draw(&DashedPathElement::new(vec![(x, y), (x + SAMPLE, y)], dash, gap, line)).msg()?
                        }
                    }
                    draw_marker(area, (x + SAMPLE / 2, y), v.marker, v.colour, style::MARKER_RADIUS + 1)?;
                }
                Sample::Fill(c, opacity) => {
                    area.draw(&Rectangle::new([(x + 4, y - 9), (x + SAMPLE - 4, y + 9)], c.mix(opacity).filled()))
                        .msg()?;
                }
                Sample::Cross(c) => {
                    area.draw(&Cross::new((x + SAMPLE / 2, y), 6, c.stroke_width(2))).msg()?;
                }
                Sample::Note => {
                    for v in [style::variant_style(0), style::variant_style(1)] {
                        let line = v.colour.stroke_width(style::CURVE_WIDTH + 1);
                        match v.dash {
                            None => area.draw(&PathElement::new(vec![(x, y), (x + SAMPLE, y)], line)).msg()?,
                            Some((dash, gap)) => area
                                .draw(&DashedPathElement::new(vec![(x, y), (x + SAMPLE, y)], dash, gap, line))
                                .msg()?,
                        }
                    }
                    let d = SAMPLE / 4;
                    draw_marker(area, (x + d, y), MarkerShape::Circle, style::variant_colour(0), style::MARKER_RADIUS)?;
                    draw_marker(
                        area,
                        (x + d, y),
                        MarkerShape::Square,
                        style::variant_colour(1),
                        style::MARKER_RADIUS - 1,
                    )?;
                    draw_marker(
                        area,
                        (x + 3 * d, y),
                        MarkerShape::Circle,
                        style::variant_colour(0),
                        style::MARKER_RADIUS,
                    )?;
                    draw_marker(
                        area,
                        (x + 3 * d, y),
                        MarkerShape::Square,
                        style::variant_colour(1),
                        style::MARKER_RADIUS - 1,
                    )?;
                }
                Sample::Bound => {
                    area.draw(&DashedPathElement::new(
                        vec![(x, y), (x + SAMPLE, y)],
                        6,
                        5,
                        style::BOUND_LINE.stroke_width(style::BOUND_WIDTH),
                    ))
                    .msg()?;
                }
                Sample::Floor(c) => draw_floor_marker(area, (x + SAMPLE / 2, y + style::FLOOR_MARKER_RADIUS), c)?,
            }
            area.draw_text(label, &text, (x + SAMPLE + GAP, y)).msg()?;
            x += widths[i] + SPACING;
        }
    }
    Ok(rows.len())
}

/// Draws one point marker of `shape`, about `r` pixels in radius, centred at `at` (in `area`'s
/// coordinates).
pub(crate) fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    shape: MarkerShape,
    colour: RGBColor,
    r: i32,
) -> Dr {
    let fill = colour.filled();
    match shape {
        MarkerShape::Circle => area.draw(&Circle::new(at, r, fill)),
        MarkerShape::Square => area.draw(&(EmptyElement::at(at) + Rectangle::new([(-r, -r), (r, r)], fill))),
        MarkerShape::Triangle => area.draw(&TriangleMarker::new(at, r + 2, fill)),
        MarkerShape::Diamond => {
            let d = r + 1;
            area.draw(&(EmptyElement::at(at) + Polygon::new(vec![(0, -d), (d, 0), (0, d), (-d, 0)], fill)))
        }
    }
    .msg()
}

/// The marker of a value drawn at a log axis's floor because the axis cannot show it (0): an open
/// triangle pointing down (towards "below this axis"), its tip at `at`.
pub(crate) fn draw_floor_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    colour: RGBColor,
) -> Dr {
    let r = style::FLOOR_MARKER_RADIUS;
    let outline = vec![(-r, -2 * r), (r, -2 * r), (0, 0), (-r, -2 * r)];
    area.draw(&(EmptyElement::at(at) + PathElement::new(outline, colour.stroke_width(2)))).msg()
}

pub(crate) use pbdfit_mesh::display::{number, scientific};

/// A tick label without float noise: 6 significant digits, shortest form (`0.002`, not
/// `0.0020000000000000005`).
pub(crate) fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let rounded: f64 = format!("{v:.5e}").parse().unwrap_or(v);
    format!("{rounded}")
}

/// A tick label on a logarithmic axis: powers of ten as 10 with a superscript exponent.
pub(crate) fn log_tick(v: f64) -> String {
    let e = v.log10().round();
    if (v / 10f64.powf(e) - 1.0).abs() < 1e-9 {
        let digits: String = format!("{}", e as i64)
            .chars()
            .map(|c| match c {
                '-' => '⁻',
                '0' => '⁰',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                '4' => '⁴',
                '5' => '⁵',
                '6' => '⁶',
                '7' => '⁷',
                '8' => '⁸',
                '9' => '⁹',
                c => c,
            })
            .collect();
        format!("10{digits}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick(0.1 + 0.2), "0.3");
        assert_eq!(tick(0.0020000000000000005), "0.002");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(12.5), "12.5");
        assert_eq!(log_tick(1e-3), "10⁻³");
        assert_eq!(log_tick(1.0), "10⁰");
        assert_eq!(log_tick(3e-3), "");
    }

    #[test]
    fn numbers_have_six_significant_digits_at_most() {
        assert_eq!(number(1.0 / 300.0), "0.00333333");
        assert_eq!(number(0.0033333333333333335), "0.00333333");
        assert_eq!(number(0.01), "0.01");
        assert_eq!(number(0.005), "0.005");
        assert_eq!((number(0.0), number(1.0), number(-2.5)), ("0".into(), "1".into(), "-2.5".into()));
        assert_eq!(number(41.880123), "41.8801");
        assert_eq!(number(3.981071705534969e-13), "3.98107e-13");
        assert_eq!(scientific(1e3), "1e3");
        assert_eq!(scientific(2.5e4), "2.5e4");
        assert_eq!(scientific(1.0 / 3.0 * 1e6), "3.33333e5");
    }

    #[test]
    fn long_titles_split_near_the_middle_preferring_punctuation() {
        let (a, b) = split_near_middle("GravityWall: N = 4, PBD rest state, kd = 0.806, kv = 1.000");
        assert_eq!(a, "GravityWall: N = 4, PBD rest state,");
        assert_eq!(b, "kd = 0.806, kv = 1.000");
    }
}
