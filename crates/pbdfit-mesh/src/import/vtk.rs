//! VTK unstructured grids: XML `.vtu` and legacy `.vtk`, read with `vtkio`; this file turns its model
//! into a [`RawMesh`], checking every count and index against the data actually present.

use vtkio::model::{CellType, DataSet, Piece, VertexNumbers, Vtk};

use super::{FormatDef, FormatReader, ImportError, RawMesh};
use crate::Vec3;

/// The XML format's entry in the registry (`import/mod.rs`).
pub(crate) const VTU: FormatDef = FormatDef {
    extensions: &["vtu"],
    description: "VTK XML unstructured grid",
    reader: FormatReader::OneFile(parse_vtu),
};

/// The legacy format's entry in the registry (`import/mod.rs`).
pub(crate) const LEGACY: FormatDef = FormatDef {
    extensions: &["vtk"],
    description: "legacy VTK unstructured grid",
    reader: FormatReader::OneFile(parse_legacy_vtk),
};

/// Parses a VTK XML unstructured grid (`.vtu`) with inline data arrays, ASCII or base64 binary, without
/// compression (compressed files are [`ImportError::Unsupported`]). Tetrahedra (cell type 10) become tets; other cells are counted in `ignored_cells`.
pub fn parse_vtu(bytes: &[u8], origin: &str) -> Result<RawMesh, ImportError> {
    grid_to_raw(checked_xml(bytes, origin)?, origin)
}

/// A VTK XML file read by vtkio after the checks that keep vtkio from panicking (the compressed-data
/// refusal, a piece without points), with vtkio's own panics caught: the one way pbdfit reads `.vtu`
/// input (meshes, and full-field measured displacements in `markers.rs`).
pub(crate) fn checked_xml(bytes: &[u8], origin: &str) -> Result<Vtk, ImportError> {
    let syntax = |message: String| ImportError::Syntax { origin: origin.to_string(), line: None, message };
    if !bytes.windows(9).any(|w| w == b"<VTKFile ") {
        return Err(syntax("not a VTK XML file (no <VTKFile element)".into()));
    }
    if bytes.windows(11).any(|w| w == b"compressor=") {
        return Err(ImportError::Unsupported {
            origin: origin.to_string(),
            message: "compressed data; write the .vtu uncompressed (ParaView: Data Mode ascii or binary, \
                      Compressor None)"
                .into(),
        });
    }
    // Check the XML's structure before vtkio converts it: vtkio 0.7.0-rc2 unwraps a piece's points
    // (`points.unwrap()`, xml.rs:2619, 2702, 2747), so a <Piece> without <Points> panicked there. A
    // count of the text `<Points` missed one inside a comment.
    if let Some((grid, piece)) = piece_without_points(bytes).map_err(syntax)? {
        return Err(syntax(format!("<Piece> {piece} of the <{grid}> has no <Points>")));
    }
    // Last resort for vtkio's other panics (none known): caught, and the panic hook kept quiet so that
    // no backtrace reaches the user. The closure owns its input and its result is dropped on a panic,
    // so nothing is left half-updated; the panic becomes a syntax error.
    let parsed = quietly(|| Vtk::parse_xml(bytes))
        .map_err(|_| syntax("not a readable VTK XML file (vtkio could not read it)".into()))?;
    parsed.map_err(|e| syntax(format!("not a readable VTK XML file: {e}")))
}

/// The first `<Piece>` (its data set's element name and the piece's index in it) of a data set whose
/// pieces need `<Points>` (unstructured and structured grids, poly data) that has none, read from the
/// XML's events (comments are not elements). `Err` for XML that does not parse.
fn piece_without_points(bytes: &[u8]) -> Result<Option<(String, usize)>, String> {
    use quick_xml::events::Event;
    const WITH_POINTS: [&[u8]; 3] = [b"UnstructuredGrid", b"StructuredGrid", b"PolyData"];
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buffer = Vec::new();
    let mut path: Vec<Vec<u8>> = Vec::new();
    // (data set element, piece index, whether it has <Points>) of the open piece.
    let mut open: Option<(Vec<u8>, usize, bool)> = None;
    let mut pieces = 0usize;
    loop {
        let event = reader
            .read_event_into(&mut buffer)
            .map_err(|e| format!("not a readable VTK XML file: {e} (at byte {})", reader.buffer_position()))?;
        let (name, empty) = match &event {
            Event::Start(e) => (e.name().as_ref().to_vec(), false),
            Event::Empty(e) => (e.name().as_ref().to_vec(), true),
            Event::End(_) => {
                let closed = path.pop();
                if closed.as_deref() == Some(b"Piece".as_slice())
                    && let Some((grid, piece, false)) = open.take()
                {
                    return Ok(Some((String::from_utf8_lossy(&grid).into_owned(), piece)));
                }
                continue;
            }
            Event::Eof => return Ok(None),
            _ => continue,
        };
        let parent = path.last().cloned().unwrap_or_default();
        if name == b"Piece" && WITH_POINTS.contains(&parent.as_slice()) {
            if empty {
                return Ok(Some((String::from_utf8_lossy(&parent).into_owned(), pieces)));
            }
            open = Some((parent.clone(), pieces, false));
            pieces += 1;
        } else if name == b"Points"
            && parent == b"Piece"
            && let Some(o) = open.as_mut()
        {
            o.2 = true;
        }
        if !empty {
            path.push(name);
        }
        buffer.clear();
    }
}

thread_local! {
    /// Whether this thread is inside [`quietly`]: the panic hook then prints nothing.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, catching a panic without the panic hook printing it (on this thread only: the hook that
/// [`quietly`] installs once stays silent while this thread's flag is set and calls the previous hook
/// otherwise, so other threads' panics are reported as before). For calls into third-party code that
/// may panic on bad input (vtkio here, wgpu's adapter and device requests in `pbdfit-gpu`), so that the
/// user sees an error message and no backtrace.
pub fn quietly<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> std::thread::Result<T> {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(f);
    QUIET.with(|q| q.set(false));
    result
}

/// Parses a legacy VTK file (`.vtk`) holding an `UNSTRUCTURED_GRID`, ASCII or binary (big endian, as the
/// legacy format prescribes). Tetrahedra (cell type 10) become tets; other cells are counted in
/// `ignored_cells`.
pub fn parse_legacy_vtk(bytes: &[u8], origin: &str) -> Result<RawMesh, ImportError> {
    let syntax = |message: String| ImportError::Syntax { origin: origin.to_string(), line: None, message };
    if !bytes.starts_with(b"# vtk DataFile Version") {
        return Err(syntax("not a legacy VTK file (the first line must be `# vtk DataFile Version x.y`)".into()));
    }
    let vtk = Vtk::parse_legacy_be(bytes).map_err(|e| {
        // vtkio's legacy parser (nom) reports only the kind of its failure ("Parse error: Complete", "Digit",
        // "Tag"), not where; find the place by reading the file's structure again.
        match locate_legacy_error(bytes) {
            Some((line, what)) => ImportError::Syntax {
                origin: origin.to_string(),
                line: Some(line),
                message: format!("not a readable legacy VTK file: {what}"),
            },
            None => syntax(format!("not a readable legacy VTK file: {e} (vtkio gives no line)")),
        }
    })?;
    grid_to_raw(vtk, origin)
}

/// Where an ASCII legacy VTK unstructured grid first breaks its format, as (1-based line, what was
/// wrong), for the sections pbdfit reads (`POINTS`, `CELLS` or VTK 5's `OFFSETS` and `CONNECTIVITY`,
/// `CELL_TYPES`; a `POINT_DATA`, `CELL_DATA`, `FIELD` or `METADATA` section ends the search). `None` for a
/// binary file or where no fault is found.
fn locate_legacy_error(bytes: &[u8]) -> Option<(usize, String)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() < 3 {
        return Some((lines.len().max(1), "the file ends before its header (version, title, ASCII or BINARY)".into()));
    }
    match lines[2].trim() {
        "ASCII" => {}
        "BINARY" => return None,
        other => return Some((3, format!("line 3 must be ASCII or BINARY, found `{other}`"))),
    }
    // Tokens with their 1-based line, from line 4 on.
    let tokens: Vec<(usize, &str)> =
        lines.iter().enumerate().skip(3).flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t))).collect();
    let mut cursor = Cursor { tokens: &tokens, at: 0, last: lines.len() };
    cursor.read().err()
}

/// A walk through a legacy VTK file's tokens for [`locate_legacy_error`].
struct Cursor<'a> {
    tokens: &'a [(usize, &'a str)],
    at: usize,
    last: usize,
}

impl<'a> Cursor<'a> {
    fn next(&mut self, what: &str) -> Result<(usize, &'a str), (usize, String)> {
        let token =
            self.tokens.get(self.at).copied().ok_or_else(|| (self.last, format!("the file ends before {what}")))?;
        self.at += 1;
        Ok(token)
    }

    fn count(&mut self, what: &str) -> Result<usize, (usize, String)> {
        let (line, t) = self.next(what)?;
        t.parse::<usize>().map_err(|_| (line, format!("{what}: `{t}` is not a count")))
    }

    /// `count` values of `section`, each of them `kind` (`number` or `integer`).
    fn values(&mut self, section: &str, count: usize, integer: bool) -> Result<(), (usize, String)> {
        for k in 0..count {
            let (line, t) = self.next(section).map_err(|(line, _)| {
                (line, format!("the file ends inside {section}: {count} values expected, {k} found"))
            })?;
            let ok = if integer { t.parse::<i64>().is_ok() } else { t.parse::<f64>().is_ok() };
            if !ok {
                return Err((
                    line,
                    format!("{section}: `{t}` is not {}", if integer { "an integer" } else { "a number" }),
                ));
            }
        }
        Ok(())
    }

    fn read(&mut self) -> Result<(), (usize, String)> {
        let (line, dataset) = self.next("the DATASET line")?;
        if dataset != "DATASET" {
            return Err((line, format!("expected DATASET, found `{dataset}`")));
        }
        let (line, kind) = self.next("the data set's type")?;
        if kind != "UNSTRUCTURED_GRID" {
            return Err((line, format!("pbdfit reads DATASET UNSTRUCTURED_GRID, found `{kind}`")));
        }
        while self.at < self.tokens.len() {
            let (line, keyword) = self.next("a section")?;
            match keyword {
                "POINTS" => {
                    let n = self.count("the POINTS count")?;
                    self.next("the POINTS data type")?;
                    self.values("POINTS", n.saturating_mul(3), false)?;
                }
                "CELLS" => {
                    self.count("the CELLS count")?;
                    let size = self.count("the CELLS size")?;
                    // VTK 5 writes OFFSETS and CONNECTIVITY sections instead of the list.
                    if self.tokens.get(self.at).is_none_or(|(_, t)| *t != "OFFSETS") {
                        self.values("CELLS", size, true)?;
                    }
                }
                "OFFSETS" | "CONNECTIVITY" => {
                    self.next(&format!("the {keyword} data type"))?;
                    // Integers up to the next keyword.
                    while let Some(&(line, t)) = self.tokens.get(self.at) {
                        if t.starts_with(|c: char| c.is_ascii_alphabetic()) {
                            break;
                        }
                        if t.parse::<i64>().is_err() {
                            return Err((line, format!("{keyword}: `{t}` is not an integer")));
                        }
                        self.at += 1;
                    }
                }
                "CELL_TYPES" => {
                    let n = self.count("the CELL_TYPES count")?;
                    self.values("CELL_TYPES", n, true)?;
                }
                "POINT_DATA" | "CELL_DATA" | "FIELD" | "METADATA" => return Ok(()),
                other => {
                    return Err((
                        line,
                        format!(
                            "expected a section (POINTS, CELLS, CELL_TYPES, POINT_DATA, CELL_DATA), found `{other}`"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn grid_to_raw(vtk: Vtk, origin: &str) -> Result<RawMesh, ImportError> {
    let syntax = |message: String| ImportError::Syntax { origin: origin.to_string(), line: None, message };
    let unsupported = |message: String| ImportError::Unsupported { origin: origin.to_string(), message };
    let pieces = match vtk.data {
        DataSet::UnstructuredGrid { pieces, .. } => pieces,
        other => {
            let kind = match other {
                DataSet::ImageData { .. } => "image data",
                DataSet::StructuredGrid { .. } => "a structured grid",
                DataSet::RectilinearGrid { .. } => "a rectilinear grid",
                DataSet::PolyData { .. } => "poly data",
                DataSet::Field { .. } => "field data",
                DataSet::UnstructuredGrid { .. } => "an unstructured grid",
            };
            return Err(unsupported(format!("the file holds {kind}; pbdfit reads unstructured grids")));
        }
    };
    let mut mesh = RawMesh::default();
    let mut cell_base = 0usize;
    for piece in pieces {
        let piece = match piece {
            Piece::Inline(p) => *p,
            Piece::Source(..) | Piece::Loaded(..) => {
                return Err(unsupported(
                    "pieces stored in other files (parallel .pvtu); read the pieces' .vtu files".into(),
                ));
            }
        };
        let base = mesh.vertices.len();
        let coords: Vec<f64> =
            piece.points.cast_into().ok_or_else(|| syntax("point coordinates are not numbers".into()))?;
        if !coords.len().is_multiple_of(3) {
            return Err(syntax(format!("{} point coordinates, not a multiple of 3", coords.len())));
        }
        for (i, p) in coords.chunks_exact(3).enumerate() {
            mesh.vertices.push(Vec3::new(p[0], p[1], p[2]));
            mesh.vertex_ids.push(base + i);
        }
        let count = mesh.vertices.len();
        let types = &piece.cells.types;
        // Each cell's point list, as (start, end) into a flat array, checked against its length.
        let (flat, ranges): (Vec<u64>, Vec<(usize, usize)>) = match piece.cells.cell_verts {
            VertexNumbers::Legacy { num_cells, vertices } => {
                if num_cells as usize != types.len() {
                    return Err(syntax(format!("{num_cells} cells but {} cell types", types.len())));
                }
                let mut ranges = Vec::with_capacity(types.len().min(vertices.len()));
                let mut at = 0usize;
                for c in 0..types.len() {
                    let n =
                        *vertices.get(at).ok_or_else(|| syntax(format!("cell {} has no point count", cell_base + c)))?
                            as usize;
                    let end = at.checked_add(1 + n).filter(|&e| e <= vertices.len());
                    let end = end
                        .ok_or_else(|| syntax(format!("cell {} runs past the end of the cell list", cell_base + c)))?;
                    ranges.push((at + 1, end));
                    at = end;
                }
                (vertices.into_iter().map(u64::from).collect(), ranges)
            }
            VertexNumbers::XML { connectivity, offsets } => {
                let offsets: &[u64] = if offsets.len() == types.len() + 1 && offsets.first() == Some(&0) {
                    &offsets[1..]
                } else {
                    &offsets
                };
                if offsets.len() != types.len() {
                    return Err(syntax(format!("{} cell offsets but {} cell types", offsets.len(), types.len())));
                }
                let mut ranges = Vec::with_capacity(types.len());
                let mut start = 0usize;
                for (c, &end) in offsets.iter().enumerate() {
                    let end = usize::try_from(end).ok().filter(|&e| e >= start && e <= connectivity.len());
                    let end = end.ok_or_else(|| {
                        syntax(format!("cell {} has an offset outside the connectivity array", cell_base + c))
                    })?;
                    ranges.push((start, end));
                    start = end;
                }
                (connectivity, ranges)
            }
        };
        for (c, (&kind, &(start, end))) in types.iter().zip(&ranges).enumerate() {
            let element = cell_base + c;
            let points = &flat[start..end];
            let mut tet = [0usize; 4];
            for (k, &p) in points.iter().enumerate() {
                let p = usize::try_from(p).ok().filter(|&p| p < count - base);
                let p = p.ok_or_else(|| ImportError::IndexOutOfRange {
                    origin: origin.to_string(),
                    element,
                    vertex: points[k] as usize,
                    count: count - base,
                })?;
                if k < 4 {
                    tet[k] = base + p;
                }
            }
            if kind == CellType::Tetra && points.len() == 4 {
                mesh.tets.push(tet);
                mesh.tet_ids.push(element);
            } else {
                if kind == CellType::Triangle && points.len() == 3 {
                    mesh.triangles.push([tet[0], tet[1], tet[2]]);
                }
                mesh.ignored_cells += 1;
            }
        }
        cell_base += types.len();
    }
    Ok(mesh)
}
