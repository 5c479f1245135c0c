//! Wavefront OBJ (`.obj`): a surface mesh, for sheets. `v x y z` lines are vertices (a fourth
//! coordinate, a weight, is refused), `f a b c ...` lines faces by 1-based vertex numbers (negative
//! numbers count back from the last vertex read, `a/t/n` forms keep the vertex number); a face of more
//! than three vertices is split into a fan of triangles from its first vertex (right for the convex
//! polygons meshing tools write; a concave polygon's fan may overlap, which the sheet's validation then
//! refuses as degenerate or non-manifold). Other statements (`vt`, `vn`, `o`, `g`, `s`, `usemtl`,
//! `mtllib`, comments) are skipped; lines (`l`) and points (`p`) are counted as ignored cells. An OBJ has
//! no tetrahedra: a solid scene naming one is refused by validation.

use super::{FormatDef, FormatReader, ImportError, RawMesh};
use crate::Vec3;

/// The format's definition.
pub(crate) const FORMAT: FormatDef = FormatDef {
    extensions: &["obj"],
    description: "Wavefront OBJ, triangles and polygons (sheets)",
    reader: FormatReader::OneFile(parse_obj),
};

/// Parses an OBJ file's bytes (ASCII or UTF-8); `origin` names it in errors.
pub fn parse_obj(bytes: &[u8], origin: &str) -> Result<RawMesh, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ImportError::Syntax {
        origin: origin.to_string(),
        line: None,
        message: format!("not UTF-8 text ({e}); an OBJ file is text"),
    })?;
    let mut mesh = RawMesh::default();
    for (i, line) in text.lines().enumerate() {
        let syntax = |message: String| ImportError::Syntax { origin: origin.to_string(), line: Some(i + 1), message };
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let coords: Vec<&str> = words.collect();
                if coords.len() != 3 {
                    return Err(syntax(format!(
                        "a vertex takes three coordinates x y z, got {} (weights and colours are not read)",
                        coords.len()
                    )));
                }
                let mut p = [0.0; 3];
                for (k, c) in coords.iter().enumerate() {
                    p[k] = c.parse().map_err(|_| syntax(format!("vertex coordinate `{c}` is not a number")))?;
                }
                mesh.vertex_ids.push(mesh.vertices.len() + 1);
                mesh.vertices.push(Vec3::from(p));
            }
            Some("f") => {
                let count = mesh.vertices.len();
                let mut face = Vec::new();
                for word in words {
                    let number = word.split('/').next().unwrap_or("");
                    let n: i64 = number.parse().map_err(|_| syntax(format!("face vertex `{word}` is not a number")))?;
                    // 1-based, or negative: counted back from the last vertex read so far.
                    let index = match n {
                        n if n > 0 && (n as u64) <= count as u64 => n as usize - 1,
                        n if n < 0 && n.unsigned_abs() <= count as u64 => count - n.unsigned_abs() as usize,
                        _ => {
                            return Err(ImportError::IndexOutOfRange {
                                origin: origin.to_string(),
                                element: mesh.triangles.len(),
                                vertex: n.unsigned_abs() as usize,
                                count,
                            });
                        }
                    };
                    face.push(index);
                }
                if face.len() < 3 {
                    return Err(syntax(format!("a face takes at least three vertices, got {}", face.len())));
                }
                for k in 1..face.len() - 1 {
                    mesh.triangles.push([face[0], face[k], face[k + 1]]);
                }
            }
            Some("l") | Some("p") => mesh.ignored_cells += 1,
            Some("vt" | "vn" | "vp" | "o" | "g" | "s" | "usemtl" | "mtllib") | None => {}
            Some(other) => return Err(syntax(format!("`{other}` is not an OBJ statement pbdfit reads"))),
        }
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SQUARE: &str = "# a unit square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n";

    #[test]
    fn faces_are_fanned_into_triangles() {
        let raw = parse_obj(SQUARE.as_bytes(), "sq").unwrap();
        assert_eq!(raw.vertices.len(), 4);
        assert_eq!(raw.triangles, [[0, 1, 2], [0, 2, 3]]);
        let raw = parse_obj(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n", "neg").unwrap();
        assert_eq!(raw.triangles, [[0, 1, 2]]);
        let (mesh, _) = parse_obj(SQUARE.as_bytes(), "sq").unwrap().validate_sheet("sq").unwrap();
        assert!((mesh.area() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bad_files_are_refused_naming_the_line() {
        for (text, words) in [
            ("v 0 0\n", &["line 1", "three coordinates"][..]),
            ("v 0 0 x\n", &["line 1", "`x`"]),
            ("v 0 0 0\nf 1 2 3\n", &["vertex 2", "(1 vertices)"]),
            ("v 0 0 0\nv 1 0 0\nf 1 2\n", &["line 3", "at least three"]),
            ("v 0 0 0\ncurv 1 2\n", &["line 2", "curv"]),
        ] {
            let e = parse_obj(text.as_bytes(), "bad").unwrap_err().to_string();
            for w in words {
                assert!(e.contains(w), "{text:?}: `{w}` not in {e}");
            }
        }
        let e = parse_obj(b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", "line").unwrap().validate_sheet("line").unwrap_err();
        assert!(e.contains("triangle 0") && e.contains("degenerate"), "{e}");
    }

    proptest! {
        /// Random bytes and mutated files give a mesh or an error, never a panic, from the parser and
        /// from the sheet's validation.
        #[test]
        fn random_and_mutated_obj_never_panics(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            edits in proptest::collection::vec((any::<usize>(), prop::sample::select(vec!["-", "0", "9", " ", "\n", "f", "v", "/", "1e308", "nan"])), 0..6),
        ) {
            if let Ok(raw) = parse_obj(&bytes, "random") {
                let _ = raw.validate_sheet("random");
            }
            let mut text = SQUARE.to_string();
            for (at, token) in edits {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                text.insert_str(at, token);
            }
            if let Ok(raw) = parse_obj(text.as_bytes(), "mutated") {
                let _ = raw.validate_sheet("mutated");
            }
        }
    }
}
