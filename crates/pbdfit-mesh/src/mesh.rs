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

    /// The closed triangle surface that bounds the body: the faces used by exactly one tetrahedron, wound
    /// outward (`(p1 - p0) x (p2 - p0)` points away from the tetrahedron's fourth vertex), in the order of
    /// [`boundary_faces`](Self::boundary_faces), with their vertices renumbered in ascending order of the
    /// solid's. Returns the surface vertices' positions (m), the triangles, and each surface vertex's
    /// index in this mesh (what a sheet made of the surface shares with the solid).
    pub fn boundary_surface(&self) -> (Vec<Vec3>, Vec<[usize; 3]>, Vec<usize>) {
        let mut outward = std::collections::BTreeMap::new();
        for &[a, b, c, d] in &self.tets {
            for (f, opposite) in [([a, b, c], d), ([a, b, d], c), ([a, c, d], b), ([b, c, d], a)] {
                let p = f.map(|v| self.vertices[v]);
                let normal = (p[1] - p[0]).cross(&(p[2] - p[0]));
                let wound = if normal.dot(&(self.vertices[opposite] - p[0])) > 0.0 { [f[0], f[2], f[1]] } else { f };
                let mut key = f;
                key.sort_unstable();
                outward.entry(key).or_insert(wound);
            }
        }
        let faces: Vec<[usize; 3]> = self.boundary_faces().iter().map(|key| outward[key]).collect();
        let mut used = vec![false; self.vertices.len()];
        faces.iter().flatten().for_each(|&v| used[v] = true);
        let solid: Vec<usize> = (0..self.vertices.len()).filter(|&v| used[v]).collect();
        let mut index = vec![usize::MAX; self.vertices.len()];
        for (k, &v) in solid.iter().enumerate() {
            index[v] = k;
        }
        let triangles = faces.iter().map(|f| f.map(|v| index[v])).collect();
        (solid.iter().map(|&v| self.vertices[v]).collect(), triangles, solid)
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
