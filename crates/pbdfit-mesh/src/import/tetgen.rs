//! TetGen `.node` / `.ele` pairs (TetGen manual, section "File formats").
//!
//! `.node`: a header `<#points> <dimension (3)> <#attributes> <boundary markers (0 or 1)>`, then one line
//! per point `<number> <x> <y> <z> [attributes] [marker]`. `.ele`: a header `<#tetrahedra> <nodes per
//! tetrahedron (4 or 10)> <#attributes>`, then `<number> <n1> ... <nk> [attributes]`. Numbering starts at
//! 0 or 1 (whatever the first point uses); elements refer to points by number. `#` starts a comment;
//! blank lines are skipped.

use std::collections::HashMap;
use std::path::Path;

use super::{FormatDef, FormatReader, ImportError, RawMesh, read_file};
use crate::Vec3;

/// The data lines of a file: (1-based line number, whitespace-separated fields), comments removed.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let data = line.split('#').next().unwrap_or("");
        let fields: Vec<&str> = data.split_whitespace().collect();
        (!fields.is_empty()).then_some((i + 1, fields))
    })
}

struct Fields<'a> {
    origin: String,
    line: usize,
    fields: Vec<&'a str>,
}

impl Fields<'_> {
    fn error(&self, message: String) -> ImportError {
        ImportError::Syntax { origin: self.origin.clone(), line: Some(self.line), message }
    }

    fn get<T: std::str::FromStr>(&self, i: usize, what: &str) -> Result<T, ImportError> {
        match self.fields.get(i) {
            None => Err(self.error(format!(
                "expected {what} in field {}, the line has {} fields",
                i + 1,
                self.fields.len()
            ))),
            Some(s) => s.parse().map_err(|_| {
                let shown: String = s.chars().take(40).collect();
                self.error(format!("expected {what}, found `{shown}`"))
            }),
        }
    }

    fn need(&self, n: usize, what: &str) -> Result<(), ImportError> {
        if self.fields.len() < n {
            return Err(self.error(format!("expected {n} fields ({what}), found {}", self.fields.len())));
        }
        Ok(())
    }
}

/// The format's entry in the registry (`import/mod.rs`): two files, read by path.
pub(crate) const FORMAT: FormatDef =
    FormatDef { extensions: &["node", "ele"], description: "TetGen", reader: FormatReader::Files(read_tetgen) };

/// Reads the pair `base.node` + `base.ele` that `path` (either of them) belongs to.
fn read_tetgen(path: &Path) -> Result<RawMesh, ImportError> {
    let base = path.with_extension("");
    let text = |p: &Path| {
        String::from_utf8(read_file(p)?).map_err(|e| ImportError::Syntax {
            origin: p.display().to_string(),
            line: None,
            message: format!("not UTF-8 text ({e})"),
        })
    };
    let node = text(&base.with_extension("node"))?;
    let ele = text(&base.with_extension("ele"))?;
    parse_tetgen(&node, &ele, &base.display().to_string())
}

/// Parses a TetGen `.node` and `.ele` pair given as text. `origin` is the base name: syntax errors name
/// `<origin>.node` or `<origin>.ele` and the line.
///
/// Ten-node (quadratic) tetrahedra are counted in `ignored_cells`, not read.
pub fn parse_tetgen(node: &str, ele: &str, origin: &str) -> Result<RawMesh, ImportError> {
    let node_origin = format!("{origin}.node");
    let ele_origin = format!("{origin}.ele");
    let no_header = |o: &str| ImportError::Syntax {
        origin: o.to_string(),
        line: None,
        message: "the file has no header line".into(),
    };

    let mut lines = data_lines(node);
    let (line, fields) = lines.next().ok_or_else(|| no_header(&node_origin))?;
    let header = Fields { origin: node_origin.clone(), line, fields };
    let count: usize = header.get(0, "the number of points")?;
    let dim: usize = header.get(1, "the dimension")?;
    if dim != 3 {
        return Err(header.error(format!("dimension must be 3, found {dim}")));
    }
    let attributes: usize = header.get(2, "the number of attributes")?;
    let markers: usize = header.get(3, "the boundary-marker flag (0 or 1)")?;
    if markers > 1 {
        return Err(header.error(format!("boundary-marker flag must be 0 or 1, found {markers}")));
    }
    let mut mesh = RawMesh::default();
    let mut index: HashMap<usize, usize> = HashMap::new();
    let expected = 4usize.saturating_add(attributes).saturating_add(markers);
    for _ in 0..count {
        let (line, fields) = lines.next().ok_or_else(|| ImportError::Syntax {
            origin: node_origin.clone(),
            line: None,
            message: format!("the header says {count} points, the file has {}", mesh.vertices.len()),
        })?;
        let f = Fields { origin: node_origin.clone(), line, fields };
        f.need(expected, "number, x, y, z, attributes, marker")?;
        let number: usize = f.get(0, "a point number")?;
        let p = Vec3::new(f.get(1, "x")?, f.get(2, "y")?, f.get(3, "z")?);
        if index.insert(number, mesh.vertices.len()).is_some() {
            return Err(f.error(format!("point {number} is defined twice")));
        }
        mesh.vertices.push(p);
        mesh.vertex_ids.push(number);
    }

    let mut lines = data_lines(ele);
    let (line, fields) = lines.next().ok_or_else(|| no_header(&ele_origin))?;
    let header = Fields { origin: ele_origin.clone(), line, fields };
    let count: usize = header.get(0, "the number of tetrahedra")?;
    let per: usize = header.get(1, "the nodes per tetrahedron (4 or 10)")?;
    if per != 4 && per != 10 {
        return Err(header.error(format!("nodes per tetrahedron must be 4 or 10, found {per}")));
    }
    let attributes: usize =
        header.get(2, "the number of attributes").or_else(|e| if header.fields.len() < 3 { Ok(0) } else { Err(e) })?;
    let expected = (1 + per).saturating_add(attributes);
    for read in 0..count {
        let (line, fields) = lines.next().ok_or_else(|| ImportError::Syntax {
            origin: ele_origin.clone(),
            line: None,
            message: format!("the header says {count} tetrahedra, the file has {read}"),
        })?;
        let f = Fields { origin: ele_origin.clone(), line, fields };
        f.need(expected, "number, nodes, attributes")?;
        let number: usize = f.get(0, "a tetrahedron number")?;
        let mut tet = [0usize; 4];
        for k in 0..per {
            let point: usize = f.get(1 + k, "a point number")?;
            let i = *index.get(&point).ok_or_else(|| ImportError::IndexOutOfRange {
                origin: ele_origin.clone(),
                element: number,
                vertex: point,
                count: mesh.vertices.len(),
            })?;
            if k < 4 {
                tet[k] = i;
            }
        }
        if per == 4 {
            mesh.tets.push(tet);
            mesh.tet_ids.push(number);
        } else {
            mesh.ignored_cells += 1;
        }
    }
    Ok(mesh)
}
