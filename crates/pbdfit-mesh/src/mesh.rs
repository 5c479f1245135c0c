use crate::{MeshError, Vec3};

/// A tetrahedron: four vertex indices, positively oriented
/// (`((p1-p0) x (p2-p0)) . (p3-p0) > 0`).
pub type Tet = [usize; 4];

/// An edge: two vertex indices in the order they were first met.
pub type Edge = [usize; 2];

/// Signed volume `(1/6) ((p1 - p0) x (p2 - p0)) . (p3 - p0)` of a tetrahedron, in m^3.
pub fn signed_volume(p: [Vec3; 4]) -> f64 {
    (p[1] - p[0]).cross(&(p[2] - p[0])).dot(&(p[3] - p[0])) / 6.0
}

/// A tetrahedral mesh: vertex positions (m) and positively oriented tetrahedra.
#[derive(Debug, Clone, PartialEq)]
pub struct TetMesh {
    vertices: Vec<Vec3>,
    tets: Vec<Tet>,
}

impl TetMesh {
    /// Builds a mesh, checking that every index is in range and every tetrahedron has positive volume.
    pub fn new(vertices: Vec<Vec3>, tets: Vec<Tet>) -> Result<Self, MeshError> {
        for (t, tet) in tets.iter().enumerate() {
            for &v in tet {
                if v >= vertices.len() {
                    return Err(MeshError::VertexOutOfRange { tet: t, vertex: v, count: vertices.len() });
                }
            }
            let volume = signed_volume(tet.map(|v| vertices[v]));
            if volume.is_nan() || volume <= 0.0 {
                return Err(MeshError::InvertedTet { tet: t, vertices: *tet, volume });
            }
        }
        Ok(Self { vertices, tets })
    }

    /// Vertex rest positions in m.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Tetrahedra, positively oriented.
    pub fn tets(&self) -> &[Tet] {
        &self.tets
    }

    /// Rest volume of tetrahedron `t` in m^3 (positive).
    pub fn tet_volume(&self, t: usize) -> f64 {
        signed_volume(self.tet_points(t))
    }

    /// The four vertex positions of tetrahedron `t`.
    pub fn tet_points(&self, t: usize) -> [Vec3; 4] {
        self.tets[t].map(|v| self.vertices[v])
    }

    /// Unique edges in the order they are first met walking the tetrahedra in order, each tetrahedron
    /// `(a, b, c, d)` giving `(a,b), (a,c), (a,d), (b,c), (b,d), (c,d)`. An edge keeps the vertex order
    /// in which it was first met.
    pub fn edges(&self) -> Vec<Edge> {
        let mut seen = std::collections::HashSet::new();
        let mut edges = Vec::new();
        for &[a, b, c, d] in &self.tets {
            for e in [[a, b], [a, c], [a, d], [b, c], [b, d], [c, d]] {
                if seen.insert((e[0].min(e[1]), e[0].max(e[1]))) {
                    edges.push(e);
                }
            }
        }
        edges
    }

    /// Triangles on the boundary (faces used by exactly one tetrahedron), as sorted vertex triples.
    pub fn boundary_faces(&self) -> Vec<[usize; 3]> {
        let mut count = std::collections::BTreeMap::new();
        for &[a, b, c, d] in &self.tets {
            for mut f in [[a, b, c], [a, b, d], [a, c, d], [b, c, d]] {
                f.sort_unstable();
                *count.entry(f).or_insert(0usize) += 1;
            }
        }
        count.into_iter().filter(|&(_, n)| n == 1).map(|(f, _)| f).collect()
    }

    /// How many tetrahedra use each triangle, keyed by sorted vertex triple.
    pub fn face_use_counts(&self) -> std::collections::BTreeMap<[usize; 3], usize> {
        let mut count = std::collections::BTreeMap::new();
        for &[a, b, c, d] in &self.tets {
            for mut f in [[a, b, c], [a, b, d], [a, c, d], [b, c, d]] {
                f.sort_unstable();
                *count.entry(f).or_insert(0usize) += 1;
            }
        }
        count
    }
}
