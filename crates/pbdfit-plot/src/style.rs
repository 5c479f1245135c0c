//! How every figure looks: the embedded font, colours, line widths, text sizes and picture sizes.
//!
//! Everything a reader compares between figures (a variant's colour, the part colours of the compound
//! scene, the size of the pictures) is fixed here once, so two figures of the same kind always match.

use std::sync::OnceLock;

use plotters::style::{FontStyle, RGBColor, register_font};

use crate::PlotError;
use crate::thesis::FigureContent;

/// DejaVu Sans (Bitstream Vera derivative, free licence: `fonts/LICENSE-DejaVu.txt`), embedded so that
/// rendering never depends on the fonts of the machine (the build and CI machines have none).
static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The family name every text element uses.
///
/// plotters' `ab_glyph` backend looks fonts up by this exact string, and the SVG backend writes it as the
/// `font-family` attribute, so it is registered under a CSS family list: PNGs use the embedded DejaVu Sans,
/// SVG viewers use DejaVu Sans where installed and their sans-serif font otherwise.
pub(crate) const FONT: &str = "DejaVu Sans, sans-serif";

/// Registers the embedded font with plotters (once per process).
pub(crate) fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, DEJAVU_SANS).is_ok());
    if ok { Ok(()) } else { Err(PlotError::Font("DejaVuSans.ttf is not a valid font file".into())) }
}

/// Variant colours in the order of the study table (docs/method.md, section The study matrix): black, red, green, blue;
/// further variants (not in the thesis study) get the remaining colours.
pub(crate) const VARIANT_COLOURS: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(214, 0, 0),
    RGBColor(0, 150, 0),
    RGBColor(0, 40, 220),
    RGBColor(200, 0, 200),
    RGBColor(230, 130, 0),
    RGBColor(0, 170, 190),
    RGBColor(120, 120, 120),
];

/// The colour of the `i`-th variant.
pub(crate) fn variant_colour(i: usize) -> RGBColor {
    VARIANT_COLOURS[i % VARIANT_COLOURS.len()]
}

/// Part colours of the compound scene: red GravityFloor, green GravityWall, blue GravityCeiling.
pub(crate) const FLOOR_COLOUR: RGBColor = RGBColor(214, 0, 0);
/// See [`FLOOR_COLOUR`].
pub(crate) const WALL_COLOUR: RGBColor = RGBColor(0, 150, 0);
/// See [`FLOOR_COLOUR`].
pub(crate) const CEILING_COLOUR: RGBColor = RGBColor(0, 40, 220);
/// Opacity of the filled share areas (light enough that grid lines and the total stay visible).
pub(crate) const SHARE_OPACITY: f64 = 0.35;

/// Light grid lines.
pub(crate) const GRID_LIGHT: RGBColor = RGBColor(238, 238, 238);
/// Grid lines at labelled ticks.
pub(crate) const GRID_BOLD: RGBColor = RGBColor(205, 205, 205);
/// Wireframe of the initial state drawn for reference behind the rest state.
pub(crate) const GHOST: RGBColor = RGBColor(240, 150, 90);
/// Thin tetrahedron diagonals, far end (near end: [`WIRE_FAR`]).
pub(crate) const DIAGONAL: RGBColor = RGBColor(200, 200, 200);
/// Wireframe edges nearest the viewer.
pub(crate) const WIRE: RGBColor = RGBColor(30, 60, 110);
/// Wireframe edges farthest from the viewer (edges between are shaded by depth, so the cube does not
/// flip like a Necker cube).
pub(crate) const WIRE_FAR: RGBColor = RGBColor(165, 180, 205);

/// Text sizes in plotters units (plotters draws an em of `size / 1.24` pixels).
pub(crate) const TITLE_SIZE: f64 = 30.0;
/// Axis descriptions (ν, kd, ...).
pub(crate) const DESC_SIZE: f64 = 24.0;
/// Tick labels.
pub(crate) const TICK_SIZE: f64 = 20.0;
/// Legend entries.
pub(crate) const LEGEND_SIZE: f64 = 21.0;
/// Small panels (the compound scene's share panels) and notes.
pub(crate) const SMALL_SIZE: f64 = 17.0;

/// Curve stroke width in pixels.
pub(crate) const CURVE_WIDTH: u32 = 2;
/// Radius of the data point markers in pixels, for a coarse ν grid.
pub(crate) const MARKER_RADIUS: i32 = 4;

/// Marker radius for a curve of `points` points: full markers on a coarse ν grid (a quick run reads as
/// points), small ones on the thesis grid of 50 values, none in small panels where they would merge into a
/// rope.
pub(crate) fn marker_radius(points: usize, compact: bool) -> i32 {
    match (points > 20, compact) {
        (false, false) => MARKER_RADIUS,
        (false, true) => MARKER_RADIUS - 1,
        (true, false) => 3,
        (true, true) => 0,
    }
}

/// Error against ν for one basic scene.
pub const ERROR_SIZE: (u32, u32) = (1000, 700);
/// Error against ν for a compound scene: the totals, and one panel per variant below them with each part's
/// share of the squared error in percent.
pub const COMPOUND_ERROR_SIZE: (u32, u32) = (1000, 1000);
/// Fitted parameters against ν for a model with two parameters (one panel each, stacked); each further
/// parameter adds [`PARAMETER_PANEL_HEIGHT`].
pub const PARAMETERS_SIZE: (u32, u32) = (1000, 860);
/// Base case of a model with two parameters: error and the parameters stacked; each further parameter adds
/// [`BASE_PANEL_HEIGHT`].
pub const BASE_SIZE: (u32, u32) = (1000, 1100);
/// Scene picture: initial and rest state side by side.
pub const SCENE_PICTURE_SIZE: (u32, u32) = (1000, 600);
/// Height one more (or one fewer) parameter panel adds to a parameter figure.
pub const PARAMETER_PANEL_HEIGHT: u32 = 380;
/// Height one more (or one fewer) parameter panel adds to a base figure.
pub const BASE_PANEL_HEIGHT: u32 = 333;

/// The pixel size (width, height) of a figure's PNG (and of its SVG canvas): what it shows, whether its
/// scene is compound, and how many parameters the model fits (at least one panel is drawn).
pub fn figure_size(content: FigureContent, compound: bool, parameters: usize) -> (u32, u32) {
    let n = parameters.max(1) as i64;
    let grow = |(w, h): (u32, u32), per: u32| (w, (h as i64 + (n - 2) * per as i64) as u32);
    match content {
        FigureContent::ScenePicture => SCENE_PICTURE_SIZE,
        FigureContent::Base => grow(BASE_SIZE, BASE_PANEL_HEIGHT),
        FigureContent::Error if compound => COMPOUND_ERROR_SIZE,
        FigureContent::Error => ERROR_SIZE,
        FigureContent::Parameters => grow(PARAMETERS_SIZE, PARAMETER_PANEL_HEIGHT),
    }
}

/// A point marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum MarkerShape {
    /// Filled circle.
    Circle,
    /// Filled square.
    Square,
    /// Filled triangle, tip up.
    Triangle,
    /// Filled diamond.
    Diamond,
}

/// How a variant's curve looks: colour, marker and dash pattern all differ between the first four
/// variants, so curves lying on top of each other (fits at a bound) can still be told apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VariantStyle {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Marker shape.
    pub marker: MarkerShape,
    /// `None` for a solid line, else (dash, gap) in pixels.
    pub dash: Option<(u32, u32)>,
}

/// Marker shapes in variant order.
const MARKERS: [MarkerShape; 4] =
    [MarkerShape::Circle, MarkerShape::Square, MarkerShape::Triangle, MarkerShape::Diamond];
/// Dash patterns in variant order: solid, long dashes, dots, short dashes.
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((14, 6)), Some((3, 4)), Some((7, 4))];

/// The style of the `i`-th variant.
pub(crate) fn variant_style(i: usize) -> VariantStyle {
    VariantStyle { colour: variant_colour(i), marker: MARKERS[i % MARKERS.len()], dash: DASHES[i % DASHES.len()] }
}

/// Box edges of a parameter (where a fit "at the bound" sits) are drawn as thin dashed lines in this
/// colour.
pub(crate) const BOUND_LINE: RGBColor = RGBColor(150, 150, 150);
/// Stroke width of the box edges in pixels.
pub(crate) const BOUND_WIDTH: u32 = 1;
/// Half size in pixels of the open triangle that marks a value drawn at a log axis's floor
/// ([`crate::canvas::draw_floor_marker`]).
pub(crate) const FLOOR_MARKER_RADIUS: i32 = 5;
