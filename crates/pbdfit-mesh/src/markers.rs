//! Measured markers (docs/measured.md): points of the undeformed body with an
//! observed displacement and optionally its standard deviation, read from a CSV file, located in a
//! tetrahedral mesh (the tetrahedron that holds each one and its barycentric coordinates), and the
//! interpolation of a displacement field at them.
//!
//! The file (CSV, read with the `csv` crate: quoting and surrounding spaces as usual) has a header row
//! naming the columns `x, y, z` (the marker in the undeformed body, m),
//! `ux, uy, uz` (its observed displacement, m) and optionally `sigma` (the displacement's standard
//! deviation per component, m, > 0), in any order; other columns are refused (a misspelt `sigma` must not
//! be ignored). Every value must be a finite number. Errors name the file, and the row (1 for the first
//! row after the header) and column where there is one.
//!
//! A full field is a VTK XML unstructured grid (`.vtu`, as `pbdfit fem --vtk` and ParaView write it)
//! whose points carry a point-data array `displacement` (3 components, m) and optionally `sigma` (1
//! component, m): each point becomes a marker, with its row the point's index + 1. Its cells are not
//! read (the points are located in the scene's mesh like any marker), so the field may come from a
//! measurement grid of its own, or from the scene's mesh itself.
//!
//! Locating uses a uniform grid of cells over the mesh's bounding box, each cell listing the tetrahedra
//! whose bounding boxes meet it, so a marker is tested against the few tetrahedra near it (meshes of
//! 1e5 tetrahedra and more), not all of them. A marker on a face or an edge shared by several tetrahedra
//! goes to the lowest-numbered one (the interpolation is the same on any of them: it is continuous).

use std::path::Path;

use crate::{TetMesh, Vec3};

/// A measured marker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    /// The marker's position in the undeformed body (m).
    pub rest: Vec3,
    /// Its observed displacement (m).
    pub displacement: Vec3,
    /// The standard deviation of each displacement component (m), if measured.
    pub sigma: Option<f64>,
}

/// The markers of one measurement, with the file they came from (for messages).
#[derive(Debug, Clone, PartialEq)]
pub struct Markers {
    /// Where they were read from.
    pub source: String,
    /// The markers, in file order.
    pub markers: Vec<Marker>,
}

/// A marker found in a mesh: its tetrahedron and barycentric coordinates (they sum to 1, each
/// >= -tolerance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocatedMarker {
    /// Index of the tetrahedron.
    pub tet: usize,
    /// Barycentric coordinates with respect to the tetrahedron's four vertices, in its vertex order.
    pub weights: [f64; 4],
}

/// A refused marker file or marker.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MarkerError {
    /// The file could not be read.
    #[error("{file}: cannot read: {reason}")]
    Read {
        /// The file.
        file: String,
        /// The system's message.
        reason: String,
    },
    /// The header lacks a required column, or names one twice, or names an unknown one.
    #[error("{file}: header: {problem} (columns: x, y, z, ux, uy, uz, and optionally sigma)")]
    Header {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
    /// A row's value is missing or not a finite number (or a sigma not > 0).
    #[error("{file}: row {row}, column {column}: {problem}")]
    Value {
        /// The file.
        file: String,
        /// Row number, 1 for the first row after the header.
        row: usize,
        /// Column name.
        column: String,
        /// What is wrong.
        problem: String,
    },
    /// A row has another number of fields than the header.
    #[error("{file}: row {row}: {found} fields, the header has {expected}")]
    Fields {
        /// The file.
        file: String,
        /// Row number, 1 for the first row after the header.
        row: usize,
        /// Fields found.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// A full-field `.vtu` file that is not readable or lacks its displacement data.
    #[error("{file}: {problem}")]
    Field {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
    /// The file holds no marker.
    #[error("{file}: no markers (a header and at least one row are needed)")]
    Empty {
        /// The file.
        file: String,
    },
    /// A marker lies outside the body.
    #[error(
        "{file}: row {row}: the marker at ({x}, {y}, {z}) m lies outside the body (no tetrahedron holds it within {tolerance:e} m)"
    )]
    Outside {
        /// The file.
        file: String,
        /// Row number, 1 for the first row after the header.
        row: usize,
        /// The marker's position (m).
        x: f64,
        /// y (m).
        y: f64,
        /// z (m).
        z: f64,
        /// The distance tolerance used (m).
        tolerance: f64,
    },
}

const COLUMNS: [&str; 7] = ["x", "y", "z", "ux", "uy", "uz", "sigma"];

impl Markers {
    /// Reads a marker file: a full field from a `.vtu` file, else a marker CSV (see the module
    /// documentation for both formats).
    pub fn read(path: &Path) -> Result<Self, MarkerError> {
        let file = path.display().to_string();
        let read_error = |e: std::io::Error| MarkerError::Read { file: file.clone(), reason: e.to_string() };
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("vtu")) {
            return Self::parse_vtu(&std::fs::read(path).map_err(read_error)?, &file);
        }
        let text = std::fs::read_to_string(path).map_err(read_error)?;
        Self::parse(&text, &file)
    }

    /// Parses a full field: a `.vtu` file's points with their `displacement` (and optional `sigma`)
    /// point data; `file` names it in errors.
    pub fn parse_vtu(bytes: &[u8], file: &str) -> Result<Self, MarkerError> {
        use vtkio::model::{Attribute, DataSet, Piece};
        let field = |problem: String| MarkerError::Field { file: file.into(), problem };
        let vtk = crate::import::vtk::checked_xml(bytes, file).map_err(|e| field(e.to_string()))?;
        let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
            return Err(field("not an unstructured grid (a full field is a .vtu of points with point data)".into()));
        };
        // vtkio leaves out, without a word, a point-data array whose value count is not its components
        // times the piece's points (`filter_map(.. .ok())` in its XML conversion): a short `sigma` was
        // dropped and the fit switched from chi-square to relative weighting. The names the XML gives
        // each piece tell a dropped array from an absent one.
        let named = point_data_names(bytes).map_err(field)?;
        let mut with_sigma = Vec::new();
        let mut markers = Vec::new();
        for (index, piece) in pieces.into_iter().enumerate() {
            let Piece::Inline(piece) = piece else {
                return Err(field("pieces stored in other files are not read; give the piece's .vtu".into()));
            };
            let coords: Vec<f64> =
                piece.points.cast_into().ok_or_else(|| field("point coordinates are not numbers".into()))?;
            if !coords.len().is_multiple_of(3) {
                return Err(field(format!("{} point coordinates, not a multiple of 3", coords.len())));
            }
            let points = coords.len() / 3;
            // Each named array's values, checked to hold `components` per point.
            let array = |name: &str, components: usize| -> Result<Option<Vec<f64>>, MarkerError> {
                let found = piece.data.point.iter().find_map(|a| match a {
                    Attribute::DataArray(d) if d.name.eq_ignore_ascii_case(name) => Some(d),
                    _ => None,
                });
                let in_file = named.get(index).is_some_and(|names| names.iter().any(|n| n.eq_ignore_ascii_case(name)));
                let Some(d) = found else {
                    if in_file {
                        return Err(field(format!(
                            "point data `{name}` of piece {index} cannot be read: it must hold {components} \
                             number(s) per point for the piece's {points} points ({} values), and its count \
                             or values differ",
                            components * points
                        )));
                    }
                    return Ok(None);
                };
                let values: Vec<f64> =
                    d.data.clone().cast_into().ok_or_else(|| field(format!("point data `{name}` is not numeric")))?;
                if values.len() != components * points {
                    return Err(field(format!(
                        "point data `{name}` has {} values for {points} points; it needs {components} per point",
                        values.len()
                    )));
                }
                Ok(Some(values))
            };
            let displacement = array("displacement", 3)?
                .ok_or_else(|| field("no point data `displacement` (3 components, m) to read the field from".into()))?;
            let sigma = array("sigma", 1)?;
            with_sigma.push(sigma.is_some());
            if with_sigma.iter().any(|&w| w != sigma.is_some()) {
                // Some points with sigma and some without would be weighted relatively, all of them.
                return Err(field(format!(
                    "point data `sigma` is given for piece {} but not for piece {}: give it for every piece \
                     (chi-square weighting) or for none (relative weighting)",
                    with_sigma.iter().position(|&w| w).unwrap_or(0),
                    with_sigma.iter().position(|&w| !w).unwrap_or(0)
                )));
            }
            for p in 0..points {
                let row = markers.len() + 1;
                let bad = |column: &str, problem: String| MarkerError::Value {
                    file: file.into(),
                    row,
                    column: column.into(),
                    problem,
                };
                let x = Vec3::new(coords[3 * p], coords[3 * p + 1], coords[3 * p + 2]);
                if !x.iter().all(|c| c.is_finite()) {
                    return Err(bad("points", format!("{:?} is not a finite point", x.as_slice())));
                }
                let u = Vec3::new(displacement[3 * p], displacement[3 * p + 1], displacement[3 * p + 2]);
                if !u.iter().all(|c| c.is_finite()) {
                    return Err(bad("displacement", format!("{:?} is not finite", u.as_slice())));
                }
                let s = match &sigma {
                    Some(s) if !(s[p].is_finite() && s[p] > 0.0) => {
                        return Err(bad("sigma", format!("{} must be a finite number > 0", s[p])));
                    }
                    Some(s) => Some(s[p]),
                    None => None,
                };
                markers.push(Marker { rest: x, displacement: u, sigma: s });
            }
        }
        if markers.is_empty() {
            return Err(MarkerError::Empty { file: file.into() });
        }
        Ok(Markers { source: file.into(), markers })
    }

    /// Parses marker CSV text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, MarkerError> {
        let header_error = |problem: String| MarkerError::Header { file: file.into(), problem };
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).flexible(true).from_reader(text.as_bytes());
        let names: Vec<String> = match reader.headers() {
            Ok(h) if !(h.is_empty() || h.len() == 1 && h[0].is_empty()) => {
                h.iter().map(str::to_ascii_lowercase).collect()
            }
            Ok(_) => return Err(MarkerError::Empty { file: file.into() }),
            Err(e) => return Err(header_error(e.to_string())),
        };
        // Column index of each of COLUMNS (sigma optional).
        let mut index = [None; 7];
        for (i, name) in names.iter().enumerate() {
            let Some(k) = COLUMNS.iter().position(|c| c == name) else {
                return Err(header_error(format!("unknown column `{name}`")));
            };
            if index[k].is_some() {
                return Err(header_error(format!("column `{name}` given twice")));
            }
            index[k] = Some(i);
        }
        for (k, name) in COLUMNS.iter().enumerate().take(6) {
            if index[k].is_none() {
                return Err(header_error(format!("column `{name}` missing")));
            }
        }
        let mut markers = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let row = row + 1;
            let fields = record.map_err(|e| MarkerError::Value {
                file: file.into(),
                row,
                column: "(row)".into(),
                problem: e.to_string(),
            })?;
            if fields.len() != names.len() {
                return Err(MarkerError::Fields { file: file.into(), row, found: fields.len(), expected: names.len() });
            }
            let value = |k: usize| -> Result<f64, MarkerError> {
                let i = index[k].expect("required columns are present");
                let bad =
                    |problem: String| MarkerError::Value { file: file.into(), row, column: COLUMNS[k].into(), problem };
                let text = &fields[i];
                if text.is_empty() {
                    return Err(bad("missing value".into()));
                }
                let v: f64 = text.parse().map_err(|_| bad(format!("`{text}` is not a number")))?;
                if !v.is_finite() {
                    return Err(bad(format!("`{text}` is not a finite number")));
                }
                Ok(v)
            };
            let rest = Vec3::new(value(0)?, value(1)?, value(2)?);
            let displacement = Vec3::new(value(3)?, value(4)?, value(5)?);
            let sigma = match index[6] {
                Some(_) => {
                    let s = value(6)?;
                    if s <= 0.0 {
                        return Err(MarkerError::Value {
                            file: file.into(),
                            row,
                            column: "sigma".into(),
                            problem: format!("{s} must be > 0"),
                        });
                    }
                    Some(s)
                }
                None => None,
            };
            markers.push(Marker { rest, displacement, sigma });
        }
        if markers.is_empty() {
            return Err(MarkerError::Empty { file: file.into() });
        }
        Ok(Markers { source: file.into(), markers })
    }

    /// Each marker's tetrahedron and barycentric coordinates in `mesh`. A marker counts as inside a
    /// tetrahedron when no barycentric coordinate is below `-tolerance / size` (`size`: the largest
    /// extent of the mesh), so a marker on the surface, written with fewer digits than the mesh, is
    /// found; the coordinates are then clamped to the tetrahedron and renormalised. `tolerance` in m.
    pub fn locate(&self, mesh: &TetMesh, tolerance: f64) -> Result<Vec<LocatedMarker>, MarkerError> {
        let index = TetGrid::new(mesh);
        let slack = tolerance / index.size.max(f64::MIN_POSITIVE);
        self.markers
            .iter()
            .enumerate()
            .map(|(i, m)| {
                index.locate(mesh, m.rest, slack).ok_or(MarkerError::Outside {
                    file: self.source.clone(),
                    row: i + 1,
                    x: m.rest.x,
                    y: m.rest.y,
                    z: m.rest.z,
                    tolerance,
                })
            })
            .collect()
    }
}

/// The names of the point-data arrays of each `<Piece>` of a VTK XML file, in piece order, read from the
/// XML's events (comments are not elements); `Err` for XML that does not parse.
fn point_data_names(bytes: &[u8]) -> Result<Vec<Vec<String>>, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buffer = Vec::new();
    let mut path: Vec<Vec<u8>> = Vec::new();
    let mut pieces: Vec<Vec<String>> = Vec::new();
    loop {
        let event = reader
            .read_event_into(&mut buffer)
            .map_err(|e| format!("not a readable VTK XML file: {e} (at byte {})", reader.buffer_position()))?;
        let (element, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                path.pop();
                buffer.clear();
                continue;
            }
            Event::Eof => return Ok(pieces),
            _ => {
                buffer.clear();
                continue;
            }
        };
        let name = element.name().as_ref().to_vec();
        if name == b"Piece" {
            pieces.push(Vec::new());
        } else if name == b"DataArray"
            && path.last().is_some_and(|p| p == b"PointData")
            && path.iter().rev().nth(1).is_some_and(|p| p == b"Piece")
            && let Some(names) = pieces.last_mut()
            && let Some(Ok(attribute)) =
                element.attributes().find(|a| a.as_ref().is_ok_and(|a| a.key.as_ref() == b"Name"))
        {
            names.push(String::from_utf8_lossy(&attribute.value).into_owned());
        }
        if !empty {
            path.push(name);
        }
        buffer.clear();
    }
}

impl LocatedMarker {
    /// The displacement field `u` (per mesh vertex) interpolated at the marker.
    pub fn interpolate(&self, mesh: &TetMesh, u: &[Vec3]) -> Vec3 {
        let t = mesh.tets()[self.tet];
        (0..4).map(|k| u[t[k]] * self.weights[k]).sum()
    }
}

/// Barycentric coordinates of `p` in the tetrahedron `v` (its vertices), or `None` when it is degenerate.
pub(crate) fn barycentric(v: [Vec3; 4], p: Vec3) -> Option<[f64; 4]> {
    let m = nalgebra::Matrix3::from_columns(&[v[1] - v[0], v[2] - v[0], v[3] - v[0]]);
    let w = m.lu().solve(&(p - v[0]))?;
    Some([1.0 - w.x - w.y - w.z, w.x, w.y, w.z])
}

/// A uniform grid over the mesh's bounding box; each cell lists the tetrahedra whose bounding boxes meet it.
struct TetGrid {
    lower: Vec3,
    cell: Vec3,
    cells: [usize; 3],
    members: Vec<Vec<usize>>,
    size: f64,
}

impl TetGrid {
    fn new(mesh: &TetMesh) -> Self {
        let vertices = mesh.vertices();
        let (mut lower, mut upper) = (vertices[0], vertices[0]);
        for v in vertices {
            lower = lower.inf(v);
            upper = upper.sup(v);
        }
        let extent = upper - lower;
        let size = extent.max();
        // About one tetrahedron per cell, at most 64 cells along an axis per 1e6 tetrahedra^(1/3).
        let per_axis = ((mesh.tets().len() as f64).cbrt().ceil() as usize).clamp(1, 128);
        let cells = [0, 1, 2].map(|a| if extent[a] > 1e-12 * size { per_axis } else { 1 });
        let cell = Vec3::from_fn(|a, _| (extent[a] / cells[a] as f64).max(f64::MIN_POSITIVE));
        let mut members = vec![Vec::new(); cells[0] * cells[1] * cells[2]];
        let grid = |x: f64, a: usize| (((x - lower[a]) / cell[a]).floor().max(0.0) as usize).min(cells[a] - 1);
        for t in 0..mesh.tets().len() {
            let p = mesh.tet_points(t);
            let (mut lo, mut hi) = (p[0], p[0]);
            for q in &p[1..] {
                lo = lo.inf(q);
                hi = hi.sup(q);
            }
            for i in grid(lo.x, 0)..=grid(hi.x, 0) {
                for j in grid(lo.y, 1)..=grid(hi.y, 1) {
                    for k in grid(lo.z, 2)..=grid(hi.z, 2) {
                        members[(i * cells[1] + j) * cells[2] + k].push(t);
                    }
                }
            }
        }
        TetGrid { lower, cell, cells, members, size }
    }

    /// The tetrahedron holding `p` (barycentric coordinates all >= -slack), lowest index first among
    /// the cells around `p`.
    fn locate(&self, mesh: &TetMesh, p: Vec3, slack: f64) -> Option<LocatedMarker> {
        // The cells within `slack * size` of p (a point on a cell border may belong to either side).
        let reach = slack * self.size;
        let range = |a: usize| {
            let lo = ((p[a] - reach - self.lower[a]) / self.cell[a]).floor();
            let hi = ((p[a] + reach - self.lower[a]) / self.cell[a]).floor();
            if !(lo.is_finite() && hi.is_finite()) || hi < 0.0 || lo > (self.cells[a] - 1) as f64 {
                return None;
            }
            Some((lo.max(0.0) as usize, (hi as usize).min(self.cells[a] - 1)))
        };
        let (x, y, z) = (range(0)?, range(1)?, range(2)?);
        let mut candidates: Vec<usize> = Vec::new();
        for i in x.0..=x.1 {
            for j in y.0..=y.1 {
                for k in z.0..=z.1 {
                    candidates.extend(&self.members[(i * self.cells[1] + j) * self.cells[2] + k]);
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates.into_iter().find_map(|t| {
            let w = barycentric(mesh.tet_points(t), p)?;
            if w.iter().all(|&c| c >= -slack) {
                let clamped = w.map(|c| c.max(0.0));
                let sum: f64 = clamped.iter().sum();
                Some(LocatedMarker { tet: t, weights: clamped.map(|c| c / sum) })
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::unit_cube;

    const HEADER: &str = "x,y,z,ux,uy,uz\n";

    #[test]
    fn reads_columns_in_any_order_with_optional_sigma() {
        let m = Markers::parse("uz, sigma, x,y,z,ux,uy\n3,0.01,0.5,0.25,0.75,1,2\n", "m.csv").unwrap();
        assert_eq!(m.markers.len(), 1);
        assert_eq!(m.markers[0].rest, Vec3::new(0.5, 0.25, 0.75));
        assert_eq!(m.markers[0].displacement, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(m.markers[0].sigma, Some(0.01));
        let m = Markers::parse(&format!("{HEADER}0,0,0,1e-3,0,0\n\n1,1,1,0,0,0\n"), "m.csv").unwrap();
        assert_eq!((m.markers.len(), m.markers[1].sigma), (2, None));
    }

    #[test]
    fn bad_files_name_the_row_and_column() {
        let e = |text: &str| Markers::parse(text, "m.csv").unwrap_err().to_string();
        let s = e("x,y,z,ux,uy\n0,0,0,0,0\n");
        assert!(s.contains("m.csv") && s.contains("`uz` missing"), "{s}");
        let s = e("x,y,z,ux,uy,uz,sigmma\n0,0,0,0,0,0,1\n");
        assert!(s.contains("unknown column `sigmma`"), "{s}");
        let s = e("x,y,z,ux,uy,uz,x\n0,0,0,0,0,0,0\n");
        assert!(s.contains("`x` given twice"), "{s}");
        let s = e(&format!("{HEADER}0,0,0,0,0,0\n0,0,NaN,0,0,0\n"));
        assert!(s.contains("row 2, column z") && s.contains("not a finite number"), "{s}");
        let s = e(&format!("{HEADER}0,0,0,0,,0\n"));
        assert!(s.contains("row 1, column uy: missing value"), "{s}");
        let s = e(&format!("{HEADER}0,0,0,0,0\n"));
        assert!(s.contains("row 1: 5 fields, the header has 6"), "{s}");
        let s = e("x,y,z,ux,uy,uz,sigma\n0,0,0,0,0,0,0\n");
        assert!(s.contains("column sigma: 0 must be > 0"), "{s}");
        assert!(e(HEADER).contains("no markers") && e("").contains("no markers"));
        let s = e(&format!("{HEADER}0,0,0,abc,0,0\n"));
        assert!(s.contains("column ux: `abc` is not a number"), "{s}");
    }

    /// Interpolation reproduces a linear field exactly (the patch test of the marker reference): for
    /// `u(X) = A X + b` at the vertices, every marker gets `A X_m + b`.
    #[test]
    fn located_markers_interpolate_linear_fields_exactly() {
        let mesh = unit_cube(3).unwrap();
        let a = nalgebra::Matrix3::new(0.1, -0.2, 0.03, 0.05, 0.4, -0.1, -0.3, 0.02, 0.2);
        let b = Vec3::new(0.01, -0.02, 0.005);
        let field = |x: Vec3| a * x + b;
        let u: Vec<Vec3> = mesh.vertices().iter().map(|&x| field(x)).collect();
        let mut text = HEADER.to_string();
        let points = [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.123, 0.987, 0.5], [1.0, 0.3, 0.7]];
        for p in points {
            text += &format!("{},{},{},0,0,0\n", p[0], p[1], p[2]);
        }
        let markers = Markers::parse(&text, "m.csv").unwrap();
        let located = markers.locate(&mesh, 1e-9).unwrap();
        for (m, l) in markers.markers.iter().zip(&located) {
            assert!((l.weights.iter().sum::<f64>() - 1.0).abs() < 1e-15);
            assert!(l.weights.iter().all(|&w| w >= 0.0));
            let got = l.interpolate(&mesh, &u);
            assert!((got - field(m.rest)).norm() < 1e-15, "{:?}: {got:?}", m.rest);
        }
        // A marker at a vertex interpolates that vertex's displacement.
        let v = mesh.vertices()[7];
        let at = Markers::parse(&format!("{HEADER}{},{},{},0,0,0\n", v.x, v.y, v.z), "m.csv").unwrap();
        let l = at.locate(&mesh, 1e-9).unwrap()[0];
        assert!((l.interpolate(&mesh, &u) - u[7]).norm() < 1e-15);
    }

    #[test]
    fn markers_outside_the_body_are_refused_with_their_row() {
        let mesh = unit_cube(2).unwrap();
        let markers = Markers::parse(&format!("{HEADER}0.5,0.5,0.5,0,0,0\n1.2,0.5,0.5,0,0,0\n"), "m.csv").unwrap();
        let s = markers.locate(&mesh, 1e-9).unwrap_err().to_string();
        assert!(s.contains("m.csv: row 2") && s.contains("(1.2, 0.5, 0.5)") && s.contains("outside"), "{s}");
        // Just outside the surface, within the tolerance: found, clamped onto the face.
        let near = Markers::parse(&format!("{HEADER}1.0000000001,0.5,0.5,0,0,0\n"), "m.csv").unwrap();
        let l = near.locate(&mesh, 1e-9).unwrap()[0];
        assert!(l.weights.iter().all(|&w| w >= 0.0));
        assert!(near.locate(&mesh, 1e-12).is_err(), "beyond a tighter tolerance it is outside");
    }

    /// The grid finds the same tetrahedron as a search over all of them (the lowest-numbered holder).
    #[test]
    fn the_grid_agrees_with_a_search_over_every_tetrahedron() {
        let mesh = unit_cube(4).unwrap();
        let mut text = HEADER.to_string();
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            text += &format!("{},{},{},0,0,0\n", next(), next(), next());
        }
        let markers = Markers::parse(&text, "m.csv").unwrap();
        let located = markers.locate(&mesh, 1e-12).unwrap();
        for (m, l) in markers.markers.iter().zip(located) {
            let brute = (0..mesh.tets().len())
                .find(|&t| barycentric(mesh.tet_points(t), m.rest).unwrap().iter().all(|&c| c >= -1e-12))
                .unwrap();
            assert_eq!(l.tet, brute, "{:?}", m.rest);
        }
    }

    /// The bytes of a `.vtu` of `unit_cube(2)` with the given point data (written by `vtk::write_vtu`).
    fn field_vtu(name: &str, data: &[(&str, crate::vtk::PointData)]) -> Vec<u8> {
        let mesh = unit_cube(2).unwrap();
        let path = std::env::temp_dir().join(format!("pbdfit-markers-{}-{name}.vtu", std::process::id()));
        crate::vtk::write_vtu(&path, mesh.vertices(), mesh.tets(), data).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }

    /// A full field read from a `.vtu` is a marker at every point, each located at its vertex with the
    /// vertex's displacement; sigma comes along when given.
    #[test]
    fn a_full_field_is_a_marker_at_every_point() {
        use crate::vtk::PointData;
        let mesh = unit_cube(2).unwrap();
        let u: Vec<Vec3> = mesh.vertices().iter().map(|x| Vec3::new(x.y * x.y, -0.1 * x.x, 0.02 * x.z)).collect();
        let sigma = vec![1e-3; u.len()];
        let bytes =
            field_vtu("full", &[("displacement", PointData::Vectors(u.clone())), ("sigma", PointData::Scalars(sigma))]);
        let m = Markers::parse_vtu(&bytes, "field.vtu").unwrap();
        assert_eq!(m.markers.len(), mesh.vertices().len());
        let located = m.locate(&mesh, 1e-9).unwrap();
        for (i, (marker, l)) in m.markers.iter().zip(&located).enumerate() {
            assert_eq!((marker.rest, marker.displacement, marker.sigma), (mesh.vertices()[i], u[i], Some(1e-3)));
            assert!((l.interpolate(&mesh, &u) - u[i]).norm() < 1e-15, "vertex {i}");
        }
        // Without sigma, none; other arrays are ignored.
        let bytes = field_vtu(
            "plain",
            &[("mass", PointData::Scalars(vec![1.0; u.len()])), ("displacement", PointData::Vectors(u.clone()))],
        );
        assert!(Markers::parse_vtu(&bytes, "f.vtu").unwrap().markers.iter().all(|m| m.sigma.is_none()));
        // Refusals name the file, the array and the point.
        let e = |bytes: &[u8]| Markers::parse_vtu(bytes, "f.vtu").unwrap_err().to_string();
        let s = e(&field_vtu("none", &[("mass", PointData::Scalars(vec![1.0; u.len()]))]));
        assert!(s.contains("f.vtu") && s.contains("no point data `displacement`"), "{s}");
        let s = e(&field_vtu("scalar", &[("displacement", PointData::Scalars(vec![1.0; u.len()]))]));
        assert!(s.contains("needs 3 per point"), "{s}");
        let mut bad = u.clone();
        bad[4].y = f64::NAN;
        let s = e(&field_vtu("nan", &[("displacement", PointData::Vectors(bad))]));
        assert!(s.contains("row 5, column displacement") && s.contains("not finite"), "{s}");
        let mut zero = vec![1e-3; u.len()];
        zero[2] = 0.0;
        let s = e(&field_vtu("zero", &[("displacement", PointData::Vectors(u)), ("sigma", PointData::Scalars(zero))]));
        assert!(s.contains("row 3, column sigma"), "{s}");
        assert!(e(b"x,y,z\n").contains("not a VTK XML file"));
    }

    /// A hand-written `.vtu` of one tetrahedron's 4 points per piece, with the given point-data arrays
    /// (name, components, values as text) in each piece.
    fn tet_vtu(pieces: &[&[(&str, usize, &str)]]) -> Vec<u8> {
        let mut xml = String::from(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" \
             byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n",
        );
        for arrays in pieces {
            xml += "<Piece NumberOfPoints=\"4\" NumberOfCells=\"1\">\n<PointData>\n";
            for (name, components, values) in *arrays {
                xml += &format!(
                    "<DataArray type=\"Float64\" Name=\"{name}\" NumberOfComponents=\"{components}\" \
                     format=\"ascii\">{values}</DataArray>\n"
                );
            }
            xml += "</PointData>\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" \
                    format=\"ascii\">0.1 0.1 0.1 0.5 0.1 0.1 0.1 0.5 0.1 0.1 0.1 0.5</DataArray>\n</Points>\n\
                    <Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">0 1 2 3\
                    </DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">4</DataArray>\n\
                    <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">10</DataArray>\n</Cells>\n\
                    </Piece>\n";
        }
        xml += "</UnstructuredGrid>\n</VTKFile>\n";
        xml.into_bytes()
    }

    /// A full field whose `sigma` array has the wrong length was
    /// dropped by vtkio without a word, and the fit switched from chi-square to relative weighting. Such
    /// an array is refused naming it and the count it needs; so is a displacement of the wrong length
    /// (it read "no point data `displacement`"), and a sigma given in some pieces and not in others.
    #[test]
    fn a_point_data_array_of_the_wrong_length_is_refused_not_dropped() {
        let u = ("displacement", 3, "0 -1e-3 0 0 -2e-3 0 0 -1e-3 0 0 -1e-3 0");
        let ok = Markers::parse_vtu(&tet_vtu(&[&[u, ("sigma", 1, "1e-4 1e-4 1e-4 1e-4")]]), "f.vtu").unwrap();
        assert!(ok.markers.iter().all(|m| m.sigma == Some(1e-4)) && ok.markers.len() == 4);
        let e =
            |pieces: &[&[(&str, usize, &str)]]| Markers::parse_vtu(&tet_vtu(pieces), "f.vtu").unwrap_err().to_string();
        let s = e(&[&[u, ("sigma", 1, "1e-4 1e-4 1e-4")]]);
        assert!(s.contains("f.vtu") && s.contains("point data `sigma`") && s.contains("4 points (4 values)"), "{s}");
        let s = e(&[&[("displacement", 3, "0 -1e-3 0 0 -2e-3 0 0 -1e-3 0")]]);
        assert!(s.contains("point data `displacement`") && s.contains("(12 values)"), "{s}");
        let s = e(&[&[u, ("sigma", 1, "1e-4 1e-4 1e-4 1e-4")], &[u]]);
        assert!(s.contains("`sigma` is given for piece 0 but not for piece 1"), "{s}");
        // Other arrays of the wrong length are not read, so they are not refused.
        let other = Markers::parse_vtu(&tet_vtu(&[&[u, ("mass", 1, "1 2")]]), "f.vtu").unwrap();
        assert!(other.markers.iter().all(|m| m.sigma.is_none()));
    }

    proptest! {
        /// Any mutation of a valid full-field file is read or refused: never a panic.
        #[test]
        fn mutated_fields_never_panic(position in 0usize..4000, byte in any::<u8>(), cut in 0usize..4000) {
            static VALID: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
            let valid = VALID.get_or_init(|| {
                let n = unit_cube(2).unwrap().vertices().len();
                field_vtu("proptest", &[("displacement", crate::vtk::PointData::Vectors(vec![Vec3::new(1e-3, 0.0, 0.0); n]))])
            });
            let mut bytes = valid.clone();
            let p = position % bytes.len();
            bytes[p] = byte;
            bytes.truncate(bytes.len() - cut % bytes.len());
            if let Ok(m) = Markers::parse_vtu(&bytes, "f.vtu") {
                let _ = m.locate(&unit_cube(2).unwrap(), 1e-9);
            }
        }

        /// Any text, and any mutation of a valid file, is read or refused: never a panic.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC*") {
            let _ = Markers::parse(&text, "m.csv");
        }

        #[test]
        fn mutated_files_never_panic(position in 0usize..80, byte in any::<u8>(), cut in 0usize..80) {
            let valid = "x,y,z,ux,uy,uz,sigma\n0.5,0.5,0.5,1e-3,0,0,1e-5\n0.1,0.2,0.3,0,-2e-3,0,1e-5\n";
            let mut bytes = valid.as_bytes().to_vec();
            let p = position % bytes.len();
            bytes[p] = byte;
            bytes.truncate(bytes.len() - cut % bytes.len());
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(m) = Markers::parse(&text, "m.csv") {
                let _ = m.locate(&unit_cube(1).unwrap(), 1e-9);
            }
        }
    }
}
