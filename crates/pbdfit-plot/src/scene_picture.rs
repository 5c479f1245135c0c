//! Scene pictures (thesis figures 4.1, 4.11, 4.21): an orthographic wireframe of the cube, initial state
//! and rest state side by side, the displacements magnified by a stated factor.
//!
//! The caller computes the positions (from the FEM or PBD crates, which this crate does not depend on) and
//! passes plain arrays.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::PlotError;
use crate::canvas::{self, Dr, Drawing, FigureFiles, OrMsg};
use crate::style;

/// Everything a scene picture shows; [`crate::render_study`] draws one per basic scene it is given.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenePicture {
    /// The scene's name as in the study layout, e.g. `gravity-floor` (in the thesis naming,
    /// gravity-floor, gravity-wall and gravity-ceiling have numbers 4.1, 4.11, 4.21).
    pub scene: String,
    /// Initial vertex positions in m.
    pub initial: Vec<[f64; 3]>,
    /// Rest positions in m (same vertex order).
    pub rest: Vec<[f64; 3]>,
    /// Mesh edges as vertex index pairs.
    pub edges: Vec<[usize; 2]>,
    /// Whether each vertex is held (inverse mass 0 / Dirichlet).
    pub held: Vec<bool>,
    /// Displacement magnification: a vertex is drawn at `initial + scale * (rest - initial)`.
    pub scale: f64,
    /// Title drawn on the picture.
    pub title: String,
}

impl ScenePicture {
    /// Checks that the arrays fit together and the scale is usable.
    pub fn validate(&self) -> Result<(), PlotError> {
        let bad = |message: String| Err(PlotError::ScenePicture { title: self.title.clone(), message });
        let n = self.initial.len();
        if n == 0 {
            return bad("no vertices".into());
        }
        if self.rest.len() != n || self.held.len() != n {
            return bad(format!(
                "{n} initial positions but {} rest positions and {} held flags; all three must have one entry per vertex",
                self.rest.len(),
                self.held.len()
            ));
        }
        if let Some(e) = self.edges.iter().find(|e| e[0] >= n || e[1] >= n) {
            return bad(format!("edge {e:?} names a vertex beyond the {n} vertices"));
        }
        if self.initial.iter().chain(&self.rest).flatten().any(|c| !c.is_finite()) {
            return bad("a position is not finite".into());
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return bad(format!("scale {} must be a positive finite number", self.scale));
        }
        Ok(())
    }

    /// Displacement norms |rest - initial| per vertex, in m.
    pub fn displacements(&self) -> Vec<f64> {
        self.initial.iter().zip(&self.rest).map(|(a, b)| norm(sub(*b, *a))).collect()
    }
}

/// Draws a scene picture into `<out_dir>/<stem>.png` and `.svg` ([`style::SCENE_PICTURE_SIZE`]).
///
/// `initial` and `rest` hold one position per vertex, `edges` index into them, `held` marks the held
/// vertices, and displacements are drawn `scale` times larger than they are (the picture says so).
///
/// ```
/// // A unit cube held at y = 0 whose top sinks by 5 mm.
/// let initial: Vec<[f64; 3]> = (0..8).map(|i| [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2) as f64]).collect();
/// let rest: Vec<[f64; 3]> = initial.iter().map(|p| [p[0], p[1] * (1.0 - 5e-3), p[2]]).collect();
/// let edges: Vec<[usize; 2]> =
///     (0..8).flat_map(|a| [1, 2, 4].map(move |bit| [a, a | bit])).filter(|[a, b]| a != b).collect();
/// let held: Vec<bool> = initial.iter().map(|p| p[1] == 0.0).collect();
/// let scale = pbdfit_plot::auto_scale(&initial, &rest);
/// let dir = std::env::temp_dir().join("pbdfit-plot-doc-picture");
/// let files = pbdfit_plot::draw_scene_picture(&dir, "cube", &initial, &rest, &edges, &held, scale, "A cube")?;
/// assert!(files.png.exists() && files.svg.exists());
/// # Ok::<(), pbdfit_plot::PlotError>(())
/// ```
pub fn draw_scene_picture(
    out_dir: &Path,
    stem: &str,
    initial: &[[f64; 3]],
    rest: &[[f64; 3]],
    edges: &[[usize; 2]],
    held: &[bool],
    scale: f64,
    title: &str,
) -> Result<FigureFiles, PlotError> {
    let picture = ScenePicture {
        scene: String::new(),
        initial: initial.to_vec(),
        rest: rest.to_vec(),
        edges: edges.to_vec(),
        held: held.to_vec(),
        scale,
        title: title.to_string(),
    };
    picture.validate()?;
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir { path: out_dir.to_path_buf(), source })?;
    canvas::save(&picture, out_dir, stem, style::SCENE_PICTURE_SIZE)
}

/// A round magnification (1, 2 or 5 times a power of ten) that draws the largest displacement at about a
/// quarter of the body's size; 1 when nothing moves.
pub fn auto_scale(initial: &[[f64; 3]], rest: &[[f64; 3]]) -> f64 {
    let max_u = initial.iter().zip(rest).map(|(a, b)| norm(sub(*b, *a))).fold(0.0, f64::max);
    let mut extent = 0.0f64;
    for axis in 0..3 {
        let lo = initial.iter().map(|p| p[axis]).fold(f64::INFINITY, f64::min);
        let hi = initial.iter().map(|p| p[axis]).fold(f64::NEG_INFINITY, f64::max);
        extent = extent.max(hi - lo);
    }
    if !(max_u > 0.0 && extent > 0.0 && max_u.is_finite()) {
        return 1.0;
    }
    let raw = 0.25 * extent / max_u;
    let decade = 10f64.powf(raw.log10().floor());
    let mantissa = [5.0, 2.0, 1.0].into_iter().find(|m| m * decade <= raw).unwrap_or(1.0);
    (mantissa * decade).max(1.0)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The orthographic view: seen from azimuth 35° (from +z towards +x) and elevation 22°, y up, so that
/// the front (z = 1), right (x = 1) and top (y = 1) faces are visible and gravity points straight down.
struct View {
    right: [f64; 3],
    up: [f64; 3],
    /// Towards the viewer.
    towards: [f64; 3],
}

impl View {
    fn new() -> Self {
        let (az, el) = (35f64.to_radians(), 22f64.to_radians());
        // Camera direction d = (sin az cos el, sin el, cos az cos el); right = (cos az, 0, -sin az);
        // up = d x right.
        View {
            right: [az.cos(), 0.0, -az.sin()],
            up: [-az.sin() * el.sin(), el.cos(), -az.cos() * el.sin()],
            towards: [az.sin() * el.cos(), el.sin(), az.cos() * el.cos()],
        }
    }

    fn project(&self, p: [f64; 3]) -> (f64, f64) {
        (dot(p, self.right), dot(p, self.up))
    }
}

/// Maps view coordinates into a pixel box, same scale on both axes.
struct Fit {
    scale: f64,
    offset: (f64, f64),
}

impl Fit {
    fn new(bounds: ((f64, f64), (f64, f64)), size: (u32, u32), margin: f64) -> Self {
        let ((x0, y0), (x1, y1)) = bounds;
        let (w, h) = (size.0 as f64 - 2.0 * margin, size.1 as f64 - 2.0 * margin);
        let scale = (w / (x1 - x0).max(1e-12)).min(h / (y1 - y0).max(1e-12));
        let offset =
            (margin + (w - scale * (x1 - x0)) / 2.0 - scale * x0, margin + (h - scale * (y1 - y0)) / 2.0 + scale * y1);
        Fit { scale, offset }
    }

    fn px(&self, (x, y): (f64, f64)) -> (i32, i32) {
        ((self.offset.0 + self.scale * x).round() as i32, (self.offset.1 - self.scale * y).round() as i32)
    }
}

impl Drawing for ScenePicture {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Dr {
        let area = canvas::title(root, &self.title)?;
        let (w, h) = area.dim_in_pixel();
        let (body, note) = area.split_vertically(h - 44);
        let view = View::new();
        let shown: Vec<[f64; 3]> = self
            .initial
            .iter()
            .zip(&self.rest)
            .map(|(a, b)| {
                let u = sub(*b, *a);
                [a[0] + self.scale * u[0], a[1] + self.scale * u[1], a[2] + self.scale * u[2]]
            })
            .collect();
        let start: Vec<(f64, f64)> = self.initial.iter().map(|p| view.project(*p)).collect();
        // 1 for the vertex nearest the viewer, 0 for the farthest (from the initial state, so that both
        // halves shade an edge alike).
        let depth: Vec<f64> = self.initial.iter().map(|p| dot(*p, view.towards)).collect();
        let (d0, d1) = depth.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| (a.min(*d), b.max(*d)));
        let nearness: Vec<f64> = depth.iter().map(|d| if d1 > d0 { (d - d0) / (d1 - d0) } else { 1.0 }).collect();
        let end: Vec<(f64, f64)> = shown.iter().map(|p| view.project(*p)).collect();
        let surface = Surface::of(self, &view);
        // One fit for both halves, so that the two states are drawn at the same size.
        let all = start.iter().chain(&end);
        let bounds = all.fold(((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY)), |b, p| {
            ((b.0.0.min(p.0), b.0.1.min(p.1)), (b.1.0.max(p.0), b.1.1.max(p.1)))
        });
        let halves = body.split_evenly((1, 2));
        let heading_h = 36;
        let headings =
            ["initial state".to_string(), format!("rest state, displacements × {}", format_scale(self.scale))];
        for (i, half) in halves.iter().enumerate() {
            let (hw, _) = half.dim_in_pixel();
            let style = canvas::font(style::LEGEND_SIZE + 1.0).pos(Pos::new(HPos::Center, VPos::Center));
            half.draw_text(&headings[i], &style, (hw as i32 / 2, heading_h / 2)).msg()?;
            let (_, pic) = half.split_vertically(heading_h);
            let fit = Fit::new(bounds, pic.dim_in_pixel(), 40.0);
            if i == 1 {
                // The initial state's grid edges, thin and in another colour, for reference.
                self.wire(&pic, &fit, &start, None, &surface)?;
            }
            let points = if i == 0 { &start } else { &end };
            self.wire(&pic, &fit, points, Some(&nearness), &surface)?;
            self.vertices(&pic, &fit, points, &surface)?;
            if i == 0 {
                axes_triad(&pic, &view)?;
            } else {
                gravity_arrow(&pic)?;
            }
        }
        // Separator between the halves.
        body.draw(&PathElement::new(
            vec![(w as i32 / 2, 10), (w as i32 / 2, h as i32 - 60)],
            style::GRID_BOLD.stroke_width(1),
        ))
        .msg()?;
        let max_u = self.displacements().into_iter().fold(0.0, f64::max);
        let text = format!(
            "■ held vertex   ● free vertex   orange: initial state   largest displacement {:.3e} m, drawn × {}",
            max_u,
            format_scale(self.scale)
        );
        let style = canvas::fitted_font(&note, &text, style::SMALL_SIZE + 1.0, w as f64 - 30.0)?
            .pos(Pos::new(HPos::Center, VPos::Center));
        note.draw_text(&text, &style, (w as i32 / 2, 20)).msg()?;
        Ok(())
    }
}

impl ScenePicture {
    fn wire<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fit: &Fit,
        points: &[(f64, f64)],
        nearness: Option<&[f64]>,
        surface: &Surface,
    ) -> Dr {
        // Far edges first, so near ones are drawn over them.
        let mut order: Vec<(f64, [usize; 2])> =
            self.edges.iter().map(|e| (nearness.map_or(0.0, |n| (n[e[0]] + n[e[1]]) / 2.0), *e)).collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (near, e) in order {
            if !surface.shows_edge(e) {
                continue;
            }
            // Edges along a coordinate axis (the hexahedral grid) carry the shape; the tetrahedra's
            // diagonals are drawn thin and light so that they do not crowd it.
            let (a, b) = (self.initial[e[0]], self.initial[e[1]]);
            let axis_aligned = (0..3).filter(|&k| (a[k] - b[k]).abs() > 1e-12).count() <= 1;
            let back = surface.is_back(e);
            let (colour, w) = match (nearness, axis_aligned) {
                (Some(_), true) if back => (mix(style::DIAGONAL, style::WIRE_FAR, 0.5), 1),
                (Some(_), false) if back => continue,
                (None, _) if back => continue,
                (Some(_), true) => (mix(style::WIRE_FAR, style::WIRE, near), 2),
                (Some(_), false) => (mix(style::DIAGONAL, style::WIRE_FAR, near), 1),
                (None, true) => (style::GHOST, 1),
                (None, false) => continue,
            };
            let path = vec![fit.px(points[e[0]]), fit.px(points[e[1]])];
            area.draw(&PathElement::new(path, colour.stroke_width(w))).msg()?;
        }
        Ok(())
    }

    fn vertices<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fit: &Fit,
        points: &[(f64, f64)],
        surface: &Surface,
    ) -> Dr {
        for (i, (p, held)) in points.iter().zip(&self.held).enumerate() {
            let (x, y) = fit.px(*p);
            if *held {
                area.draw(&Rectangle::new([(x - 6, y - 6), (x + 6, y + 6)], BLACK.filled())).msg()?;
            } else if surface.shows_vertex(i) {
                area.draw(&Circle::new((x, y), 4, style::WIRE.filled())).msg()?;
            }
        }
        Ok(())
    }
}

/// Which vertices lie on the faces of the body's bounding box. For a box-shaped mesh (the cube scenes)
/// the picture shows the surface: the faces turned to the viewer in full, the grid of the faces turned
/// away thin and light, the interior not at all (N = 4 has hundreds of interior edges, which would bury
/// the shape). For other shapes, where few edges lie on the box faces, everything is drawn.
struct Surface {
    /// Per vertex, a bit per box face (x min, x max, y min, ...) the vertex lies on.
    faces: Vec<u8>,
    /// Whether interior edges and vertices are left out.
    hides_interior: bool,
    /// The box faces turned towards the viewer (same bits as `faces`).
    visible: u8,
}

impl Surface {
    fn of(p: &ScenePicture, view: &View) -> Self {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for v in &p.initial {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        let faces: Vec<u8> = p
            .initial
            .iter()
            .map(|v| {
                let mut mask = 0u8;
                for k in 0..3 {
                    let tol = 1e-9 * (hi[k] - lo[k]).max(1e-300);
                    if (v[k] - lo[k]).abs() <= tol {
                        mask |= 1 << (2 * k);
                    }
                    if (v[k] - hi[k]).abs() <= tol {
                        mask |= 1 << (2 * k + 1);
                    }
                }
                mask
            })
            .collect();
        let on_face = p.edges.iter().filter(|e| faces[e[0]] & faces[e[1]] != 0).count();
        let interior = p.edges.len() - on_face;
        // A box mesh has most of its edges on the faces up to N = 4 and a recognisable share beyond.
        let hides_interior = interior > 0 && on_face * 5 >= p.edges.len();
        let visible = (0..3).map(|k| if view.towards[k] > 0.0 { 1u8 << (2 * k + 1) } else { 1u8 << (2 * k) }).sum();
        Surface { faces, hides_interior, visible }
    }

    /// Whether an edge lies on a face turned away from the viewer only (drawn faint, like a hidden line).
    fn is_back(&self, e: [usize; 2]) -> bool {
        self.hides_interior && self.faces[e[0]] & self.faces[e[1]] & self.visible == 0
    }

    fn shows_edge(&self, e: [usize; 2]) -> bool {
        !self.hides_interior || self.faces[e[0]] & self.faces[e[1]] != 0
    }

    fn shows_vertex(&self, i: usize) -> bool {
        !self.hides_interior || self.faces[i] & self.visible != 0
    }
}

/// x, y, z arrows in the upper left corner (clear of the cube, whose top face is seen from above), so the
/// held face can be named.
fn axes_triad<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, view: &View) -> Dr {
    let origin = (48, 72);
    let font = canvas::font(style::SMALL_SIZE + 1.0).pos(Pos::new(HPos::Center, VPos::Center));
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        let mut e = [0.0; 3];
        e[axis] = 1.0;
        let (sx, sy) = view.project(e);
        let tip = (origin.0 + (sx * 32.0).round() as i32, origin.1 - (sy * 32.0).round() as i32);
        area.draw(&PathElement::new(vec![origin, tip], BLACK.stroke_width(2))).msg()?;
        let label = (origin.0 + (sx * 46.0).round() as i32, origin.1 - (sy * 46.0).round() as i32);
        area.draw_text(name, &font, label).msg()?;
    }
    Ok(())
}

/// A downward arrow labelled g in the upper right corner.
fn gravity_arrow<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> Dr {
    let (w, _) = area.dim_in_pixel();
    let (x, y0, y1) = (w as i32 - 40, 20, 80);
    area.draw(&PathElement::new(vec![(x, y0), (x, y1)], BLACK.stroke_width(2))).msg()?;
    area.draw(&Polygon::new(vec![(x - 7, y1 - 12), (x + 7, y1 - 12), (x, y1 + 2)], BLACK.filled())).msg()?;
    let font = canvas::font(style::LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
    area.draw_text("g", &font, (x + 12, (y0 + y1) / 2)).msg()
}

/// Linear interpolation between two colours, `t` in [0, 1].
fn mix(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let f = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t.clamp(0.0, 1.0)).round() as u8;
    RGBColor(f(a.0, b.0), f(a.1, b.1), f(a.2, b.2))
}

/// A magnification as text (`100`, `2.5`).
fn format_scale(s: f64) -> String {
    crate::canvas::tick(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_scale_is_round_and_draws_about_a_quarter() {
        let initial = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]];
        let rest = [[0.0, 0.0, 0.0], [1.0, 1.0 - 4.6e-3, 1.0]];
        // 0.25 / 4.6e-3 = 54.3 -> 50.
        assert_eq!(auto_scale(&initial, &rest), 50.0);
        assert_eq!(auto_scale(&initial, &initial), 1.0);
    }

    #[test]
    fn inconsistent_input_is_rejected_with_the_title() {
        let p = ScenePicture {
            scene: String::new(),
            initial: vec![[0.0; 3]; 2],
            rest: vec![[0.0; 3]; 2],
            edges: vec![[0, 2]],
            held: vec![true, false],
            scale: 10.0,
            title: "t".into(),
        };
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("\"t\"") && e.contains("[0, 2]"), "{e}");
    }
}
