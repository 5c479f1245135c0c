//! Gmsh `.msh` files, versions 2.2 and 4.1, ASCII and binary, hand-parsed.
//!
//! Why not the `mshio` crate: its only release (0.4.2) reads 4.1 alone (2.2 would need this parser
//! anyway), ignores `$PhysicalNames`, and panics on some malformed headers (`unimplemented!` for a
//! size_t size other than 1, 2, 4, 8 or 16, `unwrap` on an over-long number), which an importer of
//! user files must turn into errors. The two versions share this file's tokenizer and binary reader.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{FormatDef, FormatReader, ImportError, RawMesh};
use crate::Vec3;

/// Number of nodes of each Gmsh element type with a fixed node count (Gmsh reference manual, "MSH file
/// format", element types 1 to 31, 92, 93).
fn nodes_per_element(element_type: i64) -> Option<usize> {
    Some(match element_type {
        1 => 2,
        2 => 3,
        3 => 4,
        4 => 4,
        5 => 8,
        6 => 6,
        7 => 5,
        8 => 3,
        9 => 6,
        10 => 9,
        11 => 10,
        12 => 27,
        13 => 18,
        14 => 14,
        15 => 1,
        16 => 8,
        17 => 20,
        18 => 15,
        19 => 13,
        20 => 9,
        21 => 10,
        22 => 12,
        23 => 15,
        24 => 15,
        25 => 21,
        26 => 4,
        27 => 5,
        28 => 6,
        29 => 20,
        30 => 35,
        31 => 56,
        92 => 64,
        93 => 125,
        _ => return None,
    })
}

/// Gmsh's type number of the 4-node tetrahedron.
const TET4: i64 = 4;
/// Gmsh element type 2: the 3-node triangle (a sheet's cell).
const TRI3: i64 = 2;

#[derive(Clone, Copy, PartialEq)]
enum Encoding {
    Ascii,
    Binary { little: bool },
}

/// A position in the input, with readers for whitespace-separated tokens and for binary numbers.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    origin: &'a str,
    encoding: Encoding,
    /// Bytes of a `size_t` in binary 4.1 files (4 or 8).
    size_t: usize,
}

impl<'a> Cursor<'a> {
    fn error(&self, message: impl Into<String>) -> ImportError {
        let end = self.pos.min(self.bytes.len());
        let line = self.bytes[..end].iter().filter(|&&b| b == b'\n').count() + 1;
        ImportError::Syntax { origin: self.origin.to_string(), line: Some(line), message: message.into() }
    }

    fn unsupported(&self, message: impl Into<String>) -> ImportError {
        ImportError::Unsupported { origin: self.origin.to_string(), message: message.into() }
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }

    /// The next whitespace-separated token.
    fn token(&mut self, what: &str) -> Result<&'a [u8], ImportError> {
        self.skip_ws();
        let start = self.pos;
        while self.pos < self.bytes.len() && !self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error(format!("expected {what}, found the end of the file")));
        }
        Ok(&self.bytes[start..self.pos])
    }

    fn parse<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ImportError> {
        let token = self.token(what)?;
        std::str::from_utf8(token).ok().and_then(|s| s.parse().ok()).ok_or_else(|| {
            let shown: String = String::from_utf8_lossy(token).chars().take(40).collect();
            self.error(format!("expected {what}, found `{shown}`"))
        })
    }

    /// Skips the rest of the current line, including its newline (binary data starts after it).
    fn skip_line(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
        self.pos = (self.pos + 1).min(self.bytes.len());
    }

    fn expect(&mut self, tag: &str) -> Result<(), ImportError> {
        let found = self.token(tag)?;
        if found != tag.as_bytes() {
            let shown: String = String::from_utf8_lossy(found).chars().take(40).collect();
            return Err(self.error(format!("expected {tag}, found `{shown}`")));
        }
        Ok(())
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ImportError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            _ => Err(self.error(format!("expected {what} ({n} binary bytes), found the end of the file"))),
        }
    }

    fn little(&self) -> bool {
        matches!(self.encoding, Encoding::Binary { little: true })
    }

    /// A C `int` (4 bytes) in binary files, a token in ASCII ones.
    fn int(&mut self, what: &str) -> Result<i64, ImportError> {
        match self.encoding {
            Encoding::Ascii => self.parse(what),
            Encoding::Binary { .. } => {
                let b: [u8; 4] = self.take(4, what)?.try_into().unwrap_or_default();
                Ok(i64::from(if self.little() { i32::from_le_bytes(b) } else { i32::from_be_bytes(b) }))
            }
        }
    }

    /// A `size_t` (4 or 8 bytes as the header says) in binary files, a token in ASCII ones.
    fn size(&mut self, what: &str) -> Result<u64, ImportError> {
        match self.encoding {
            Encoding::Ascii => self.parse(what),
            Encoding::Binary { .. } if self.size_t == 4 => {
                let b: [u8; 4] = self.take(4, what)?.try_into().unwrap_or_default();
                Ok(u64::from(if self.little() { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) }))
            }
            Encoding::Binary { .. } => {
                let b: [u8; 8] = self.take(8, what)?.try_into().unwrap_or_default();
                Ok(if self.little() { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) })
            }
        }
    }

    fn double(&mut self, what: &str) -> Result<f64, ImportError> {
        match self.encoding {
            Encoding::Ascii => self.parse(what),
            Encoding::Binary { .. } => {
                let b: [u8; 8] = self.take(8, what)?.try_into().unwrap_or_default();
                Ok(if self.little() { f64::from_le_bytes(b) } else { f64::from_be_bytes(b) })
            }
        }
    }

    /// A non-negative count or tag that must fit in usize.
    fn count_from(&self, value: i64, what: &str) -> Result<usize, ImportError> {
        usize::try_from(value).map_err(|_| self.error(format!("{what} must be non-negative, found {value}")))
    }

    fn size_usize(&mut self, what: &str) -> Result<usize, ImportError> {
        let v = self.size(what)?;
        usize::try_from(v).map_err(|_| self.error(format!("{what} {v} is too large")))
    }

    fn int_usize(&mut self, what: &str) -> Result<usize, ImportError> {
        let v = self.int(what)?;
        self.count_from(v, what)
    }

    /// Skips a section whose name (after `$`) was just read, up to and including `$End<name>`.
    fn skip_section(&mut self, name: &str) -> Result<(), ImportError> {
        let end = format!("$End{name}");
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        match rest.windows(end.len()).position(|w| w == end.as_bytes()) {
            Some(at) => {
                self.pos += at + end.len();
                Ok(())
            }
            None => Err(self.error(format!("section ${name} has no {end}"))),
        }
    }
}

/// Everything collected while reading, before groups are resolved.
#[derive(Default)]
struct Builder {
    mesh: RawMesh,
    node_index: HashMap<usize, usize>,
    /// (dimension, physical tag) -> member vertex indices.
    physical: BTreeMap<(i64, i64), BTreeSet<usize>>,
    /// (dimension, physical tag) -> name.
    names: BTreeMap<(i64, i64), String>,
    nodes_seen: bool,
}

impl Builder {
    fn add_node(&mut self, c: &Cursor, tag: usize, p: Vec3) -> Result<(), ImportError> {
        let index = self.mesh.vertices.len();
        if self.node_index.insert(tag, index).is_some() {
            return Err(c.error(format!("node {tag} is defined twice")));
        }
        self.mesh.vertices.push(p);
        self.mesh.vertex_ids.push(tag);
        Ok(())
    }

    /// Records one element with its node tags and the physical tags of its (dim, entity).
    fn add_element(
        &mut self,
        c: &Cursor,
        tag: usize,
        element_type: i64,
        dim: i64,
        node_tags: &[usize],
        physical: &[i64],
    ) -> Result<(), ImportError> {
        if !self.nodes_seen {
            return Err(c.error("$Elements before $Nodes"));
        }
        let mut indices = [0usize; 4];
        for (n, &node) in node_tags.iter().enumerate() {
            let index = *self.node_index.get(&node).ok_or_else(|| ImportError::IndexOutOfRange {
                origin: c.origin.to_string(),
                element: tag,
                vertex: node,
                count: self.mesh.vertices.len(),
            })?;
            if n < 4 {
                indices[n] = index;
            }
            for &p in physical {
                self.physical.entry((dim, p)).or_default().insert(index);
            }
        }
        if element_type == TET4 && node_tags.len() == 4 {
            self.mesh.tets.push(indices);
            self.mesh.tet_ids.push(tag);
        } else {
            if element_type == TRI3 && node_tags.len() == 3 {
                self.mesh.triangles.push([indices[0], indices[1], indices[2]]);
            }
            self.mesh.ignored_cells += 1;
        }
        Ok(())
    }

    fn finish(mut self) -> RawMesh {
        for ((dim, tag), members) in self.physical {
            if let Some(name) = self.names.get(&(dim, tag)) {
                self.mesh.groups.entry(name.clone()).or_default().extend(members.iter().copied());
            }
            self.mesh.groups.entry(tag.to_string()).or_default().extend(members);
        }
        self.mesh
    }
}

/// The element dimension of a Gmsh element type (for 2.2 files, which do not store it).
fn element_dim(element_type: i64) -> i64 {
    match element_type {
        15 => 0,
        1 | 8 | 26 | 27 | 28 => 1,
        2 | 3 | 9 | 10 | 16 | 20..=25 => 2,
        _ => 3,
    }
}

/// The format's entry in the registry (`import/mod.rs`).
pub(crate) const FORMAT: FormatDef =
    FormatDef { extensions: &["msh"], description: "Gmsh 2.2 or 4.1", reader: FormatReader::OneFile(parse_gmsh) };

/// Parses a Gmsh `.msh` file, version 2.2 or 4.1, ASCII or binary (either byte order). `origin` names
/// the file in errors.
///
/// Linear tetrahedra (type 4) become tets; all other elements are counted in `ignored_cells`, and every
/// element, of any dimension, adds its nodes to the groups of its physical tags. Partitioned files
/// (`$PartitionedEntities`) and MSH versions other than 2.x and 4.1 are [`ImportError::Unsupported`].
pub fn parse_gmsh(bytes: &[u8], origin: &str) -> Result<RawMesh, ImportError> {
    let mut c = Cursor { bytes, pos: 0, origin, encoding: Encoding::Ascii, size_t: 8 };
    c.expect("$MeshFormat")?;
    let version_token = c.token("the MSH version")?;
    let version = String::from_utf8_lossy(version_token).into_owned();
    let v4 = match version.as_str() {
        "2" | "2.0" | "2.1" | "2.2" => false,
        "4.1" => true,
        v if v.parse::<f64>().is_ok() => {
            return Err(c.unsupported(format!(
                "MSH version {v}; pbdfit reads versions 2.2 and 4.1 (Gmsh: -format msh22 or msh41)"
            )));
        }
        v => {
            return Err(c.error(format!(
                "expected the MSH version (2.2 or 4.1), found `{}`",
                v.chars().take(40).collect::<String>()
            )));
        }
    };
    let file_type: i64 = c.parse("the file type (0 ASCII, 1 binary)")?;
    let data_size: usize = c.parse("the data size")?;
    match file_type {
        0 => {}
        1 => {
            if v4 && data_size != 4 && data_size != 8 {
                return Err(c.unsupported(format!("size_t of {data_size} bytes; pbdfit reads 4 or 8")));
            }
            if !v4 && data_size != 8 {
                return Err(c.unsupported(format!("doubles of {data_size} bytes; pbdfit reads 8")));
            }
            c.size_t = data_size;
            c.skip_line();
            let one = c.take(4, "the binary byte-order mark (int 1)")?;
            let little = match one {
                [1, 0, 0, 0] => true,
                [0, 0, 0, 1] => false,
                _ => return Err(c.error("binary byte-order mark is not the int 1 in either byte order")),
            };
            c.encoding = Encoding::Binary { little };
        }
        t => return Err(c.error(format!("file type must be 0 (ASCII) or 1 (binary), found {t}"))),
    }
    c.expect("$EndMeshFormat")?;

    let mut b = Builder::default();
    // (dim, entity tag) -> physical tags, from $Entities (4.1 only).
    let mut entities: HashMap<(i64, i64), Vec<i64>> = HashMap::new();
    while !c.at_end() {
        let token = c.token("a section")?;
        let name = match token.strip_prefix(b"$") {
            Some(n) => String::from_utf8_lossy(n).into_owned(),
            None => {
                let shown: String = String::from_utf8_lossy(token).chars().take(40).collect();
                return Err(c.error(format!("expected a section ($Name), found `{shown}`")));
            }
        };
        if c.encoding != Encoding::Ascii {
            // Binary data starts right after the section name's newline and may itself begin with
            // bytes that look like whitespace.
            c.skip_line();
        }
        match name.as_str() {
            "PhysicalNames" => {
                read_physical_names(&mut c, &mut b)?;
                c.expect("$EndPhysicalNames")?;
            }
            "Entities" if v4 => {
                read_entities(&mut c, &mut entities)?;
                c.expect("$EndEntities")?;
            }
            "Nodes" if b.nodes_seen => return Err(c.error("a second $Nodes section")),
            "Elements" if !b.mesh.tets.is_empty() || b.mesh.ignored_cells > 0 => {
                return Err(c.error("a second $Elements section"));
            }
            "Nodes" if v4 => {
                read_nodes_41(&mut c, &mut b)?;
                c.expect("$EndNodes")?;
            }
            "Nodes" => {
                read_nodes_22(&mut c, &mut b)?;
                c.expect("$EndNodes")?;
            }
            "Elements" if v4 => {
                read_elements_41(&mut c, &mut b, &entities)?;
                c.expect("$EndElements")?;
            }
            "Elements" => {
                read_elements_22(&mut c, &mut b)?;
                c.expect("$EndElements")?;
            }
            "PartitionedEntities" => {
                return Err(c.unsupported("partitioned meshes ($PartitionedEntities); save the mesh unpartitioned"));
            }
            other if other.starts_with("End") => return Err(c.error(format!("unexpected ${other}"))),
            other => c.skip_section(other)?,
        }
    }
    Ok(b.finish())
}

fn read_physical_names(c: &mut Cursor, b: &mut Builder) -> Result<(), ImportError> {
    // Always ASCII, also in binary files.
    let n: usize = c.parse("the number of physical names")?;
    for _ in 0..n {
        let dim: i64 = c.parse("a physical dimension")?;
        let tag: i64 = c.parse("a physical tag")?;
        c.skip_ws();
        let rest = &c.bytes[c.pos..];
        let line_end = rest.iter().position(|&x| x == b'\n').unwrap_or(rest.len());
        let line = &rest[..line_end];
        let name = match line {
            [b'"', inner @ ..] => match inner.iter().position(|&x| x == b'"') {
                Some(close) => &inner[..close],
                None => return Err(c.error("physical name has no closing quote")),
            },
            _ => return Err(c.error("expected a quoted physical name")),
        };
        let name = std::str::from_utf8(name).map_err(|_| c.error("physical name is not UTF-8"))?;
        b.names.insert((dim, tag), name.to_string());
        c.pos += line_end;
    }
    Ok(())
}

fn read_entities(c: &mut Cursor, entities: &mut HashMap<(i64, i64), Vec<i64>>) -> Result<(), ImportError> {
    let mut counts = [0usize; 4];
    for (dim, count) in counts.iter_mut().enumerate() {
        *count = c.size_usize(
            ["the number of points", "the number of curves", "the number of surfaces", "the number of volumes"][dim],
        )?;
    }
    for (dim, &count) in counts.iter().enumerate() {
        for _ in 0..count {
            let tag = c.int("an entity tag")?;
            for _ in 0..if dim == 0 { 3 } else { 6 } {
                c.double("an entity coordinate")?;
            }
            let n_physical = c.size_usize("the number of physical tags")?;
            let mut physical = Vec::with_capacity(n_physical.min(c.remaining()));
            for _ in 0..n_physical {
                physical.push(c.int("a physical tag")?);
            }
            if dim > 0 {
                let n_bounding = c.size_usize("the number of bounding entities")?;
                for _ in 0..n_bounding {
                    c.int("a bounding entity tag")?;
                }
            }
            entities.insert((dim as i64, tag), physical);
        }
    }
    Ok(())
}

fn read_nodes_41(c: &mut Cursor, b: &mut Builder) -> Result<(), ImportError> {
    b.nodes_seen = true;
    let blocks = c.size_usize("the number of node blocks")?;
    let total = c.size_usize("the number of nodes")?;
    c.size("the minimum node tag")?;
    c.size("the maximum node tag")?;
    b.mesh.vertices.reserve(total.min(c.remaining() / 3));
    let mut tags = Vec::new();
    for _ in 0..blocks {
        let dim = c.int("an entity dimension")?;
        c.int("an entity tag")?;
        let parametric = c.int("the parametric flag")?;
        let n = c.size_usize("the number of nodes in the block")?;
        let extra = match (parametric, dim) {
            (0, _) => 0,
            (1, 0..=3) => dim as usize,
            _ => return Err(c.error(format!("bad node block: parametric {parametric}, dimension {dim}"))),
        };
        tags.clear();
        tags.reserve(n.min(c.remaining()));
        for _ in 0..n {
            tags.push(c.size_usize("a node tag")?);
        }
        for &tag in &tags {
            let p = Vec3::new(c.double("x")?, c.double("y")?, c.double("z")?);
            for _ in 0..extra {
                c.double("a parametric coordinate")?;
            }
            b.add_node(c, tag, p)?;
        }
    }
    if b.mesh.vertices.len() != total {
        return Err(c.error(format!("$Nodes says {total} nodes but its blocks hold {}", b.mesh.vertices.len())));
    }
    Ok(())
}

fn read_elements_41(
    c: &mut Cursor,
    b: &mut Builder,
    entities: &HashMap<(i64, i64), Vec<i64>>,
) -> Result<(), ImportError> {
    let blocks = c.size_usize("the number of element blocks")?;
    let total = c.size_usize("the number of elements")?;
    c.size("the minimum element tag")?;
    c.size("the maximum element tag")?;
    let mut count = 0usize;
    let mut nodes = Vec::new();
    let no_physical = Vec::new();
    for _ in 0..blocks {
        let dim = c.int("an entity dimension")?;
        let entity = c.int("an entity tag")?;
        let element_type = c.int("an element type")?;
        let n = c.size_usize("the number of elements in the block")?;
        let per = nodes_per_element(element_type)
            .ok_or_else(|| c.unsupported(format!("element type {element_type} (not a fixed-size Gmsh element)")))?;
        let physical = entities.get(&(dim, entity)).unwrap_or(&no_physical);
        for _ in 0..n {
            let tag = c.size_usize("an element tag")?;
            nodes.clear();
            for _ in 0..per {
                nodes.push(c.size_usize("a node tag")?);
            }
            b.add_element(c, tag, element_type, dim, &nodes, physical)?;
            count += 1;
        }
    }
    if count != total {
        return Err(c.error(format!("$Elements says {total} elements but its blocks hold {count}")));
    }
    Ok(())
}

fn read_nodes_22(c: &mut Cursor, b: &mut Builder) -> Result<(), ImportError> {
    b.nodes_seen = true;
    let n: usize = c.parse("the number of nodes")?;
    if c.encoding != Encoding::Ascii {
        c.skip_line();
    }
    b.mesh.vertices.reserve(n.min(c.remaining() / 3));
    for _ in 0..n {
        let tag = c.int_usize("a node tag")?;
        let p = Vec3::new(c.double("x")?, c.double("y")?, c.double("z")?);
        b.add_node(c, tag, p)?;
    }
    Ok(())
}

fn read_elements_22(c: &mut Cursor, b: &mut Builder) -> Result<(), ImportError> {
    let n: usize = c.parse("the number of elements")?;
    let mut nodes = Vec::new();
    let mut tags = Vec::new();
    match c.encoding {
        Encoding::Ascii => {
            for _ in 0..n {
                // elm-number elm-type number-of-tags tag... node-number...
                let tag: usize = c.parse("an element number")?;
                let element_type: i64 = c.parse("an element type")?;
                let n_tags: usize = c.parse("the number of element tags")?;
                let per = nodes_per_element(element_type)
                    .ok_or_else(|| c.unsupported(format!("element type {element_type} (element {tag})")))?;
                tags.clear();
                for _ in 0..n_tags {
                    tags.push(c.parse::<i64>("an element tag")?);
                }
                nodes.clear();
                for _ in 0..per {
                    nodes.push(c.parse::<usize>("a node number")?);
                }
                add_element_22(c, b, tag, element_type, &tags, &nodes)?;
            }
        }
        Encoding::Binary { .. } => {
            c.skip_line();
            let mut read = 0usize;
            while read < n {
                // Block header: elm-type, number of elements that follow, number of tags.
                let element_type = c.int("an element type")?;
                let follow = c.int_usize("the number of elements that follow")?;
                let n_tags = c.int_usize("the number of element tags")?;
                let per = nodes_per_element(element_type)
                    .ok_or_else(|| c.unsupported(format!("element type {element_type}")))?;
                if follow == 0 || follow > n - read {
                    return Err(c.error(format!("element block of {follow} elements, {} left of {n}", n - read)));
                }
                for _ in 0..follow {
                    let tag = c.int_usize("an element number")?;
                    tags.clear();
                    for _ in 0..n_tags {
                        tags.push(c.int("an element tag")?);
                    }
                    nodes.clear();
                    for _ in 0..per {
                        nodes.push(c.int_usize("a node number")?);
                    }
                    add_element_22(c, b, tag, element_type, &tags, &nodes)?;
                }
                read += follow;
            }
        }
    }
    Ok(())
}

/// In 2.2 the first element tag is the physical tag (0: none), the second the elementary entity.
fn add_element_22(
    c: &Cursor,
    b: &mut Builder,
    tag: usize,
    element_type: i64,
    tags: &[i64],
    nodes: &[usize],
) -> Result<(), ImportError> {
    let physical: &[i64] = match tags.first() {
        Some(&p) if p != 0 => &tags[..1],
        _ => &[],
    };
    b.add_element(c, tag, element_type, element_dim(element_type), nodes, physical)
}
