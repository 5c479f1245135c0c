//! Sheet bodies: triangle meshes with a thickness and a density, beside the tetrahedral solids.
//!
//! A [`SheetMesh`] is a validated triangle mesh (vertex positions in m, triangles as vertex index
//! triples); a [`Sheet`] adds the thickness `h` (m) and the density `rho` (kg/m^3), so its areal mass is
//! `rho h` (kg/m^2). [`SheetMesh::rectangle`] builds the usual rectangular sheet of `nx x ny` quads with
//! one of the [`Diagonal`] patterns.
//!
//! Validation refuses, with a [`SheetError`] that names the triangle: an out-of-range vertex index, a
//! degenerate (zero-area, including a repeated vertex) triangle, a triangle that repeats another one
//! (same three vertices in any order), and an edge shared by more than two triangles (non-manifold); a
//! vertex with a coordinate that is not finite is refused by its index. A thickness or density that is
//! zero, negative or not finite is refused by [`Sheet::new`]. Triangle orientation is not checked: a
//! sheet has no inside, and a shell element takes its normal from the triangle's own winding.

use std::collections::HashMap;

use crate::Vec3;

/// A triangle: three vertex indices.
pub type Triangle = [usize; 3];

/// A triangle is degenerate when its area is at most this fraction of its longest edge squared (a
/// right isosceles triangle has 0.25; a sliver at this bound has an angle of about 2e-12 rad).
pub const DEGENERATE_AREA_RATIO: f64 = 1e-12;

/// A sheet or sheet mesh that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SheetError {
    /// The mesh has no triangle.
    #[error("the sheet has no triangle")]
    Empty,
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {vertex} has a coordinate that is not finite: {position:?}")]
    VertexNotFinite {
        /// Vertex index.
        vertex: usize,
        /// Its coordinates in m.
        position: [f64; 3],
    },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} refers to vertex {vertex}, but the sheet has only {count} vertices")]
    VertexOutOfRange {
        /// Triangle index.
        triangle: usize,
        /// Offending vertex index.
        vertex: usize,
        /// Number of vertices.
        count: usize,
    },
    /// A triangle has (nearly) zero area: collinear or repeated vertices.
    #[error(
        "triangle {triangle} {vertices:?} is degenerate: area {area:e} m^2 is not more than {DEGENERATE_AREA_RATIO:e} \
         times its longest edge squared ({longest:e} m)"
    )]
    Degenerate {
        /// Triangle index.
        triangle: usize,
        /// Its vertices.
        vertices: Triangle,
        /// Its area in m^2.
        area: f64,
        /// Its longest edge in m.
        longest: f64,
    },
    /// Two triangles have the same three vertices.
    #[error("triangle {triangle} {vertices:?} repeats triangle {first} (the same three vertices)")]
    Duplicate {
        /// The later triangle's index.
        triangle: usize,
        /// Its vertices.
        vertices: Triangle,
        /// The earlier triangle with the same vertices.
        first: usize,
    },
    /// An edge belongs to more than two triangles, so the sheet is not a surface there.
    #[error(
        "triangle {triangle} makes edge {edge:?} non-manifold: it is the third triangle on that edge \
         (after triangles {others:?}); a sheet's edge belongs to one or two triangles"
    )]
    NonManifoldEdge {
        /// The third triangle on the edge.
        triangle: usize,
        /// The edge's vertices, smaller index first.
        edge: [usize; 2],
        /// The two triangles met on it before.
        others: [usize; 2],
    },
    /// An edge belongs to one triangle only where a closed surface is needed (a volume constraint).
    #[error(
        "edge {edge:?} (of triangle {triangle}) belongs to one triangle only: the surface is open there, and a \
         closed surface (every edge on two triangles) is needed to enclose a volume"
    )]
    OpenEdge {
        /// The edge's vertices, smaller index first.
        edge: [usize; 2],
        /// Its one triangle.
        triangle: usize,
    },
    /// The thickness is zero, negative or not finite.
    #[error("sheet thickness h = {0} m is not allowed: h must be a finite number > 0 m")]
    Thickness(f64),
    /// The density is zero, negative or not finite.
    #[error("sheet density rho = {0} kg/m^3 is not allowed: rho must be a finite number > 0 kg/m^3")]
    Density(f64),
    /// The rectangle generator was given a bad size or resolution.
    #[error("rectangular sheet: {0}")]
    Rectangle(String),
}

/// How each quad of a [`SheetMesh::rectangle`] is split into triangles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// Every quad split along the diagonal from its lower left to its upper right corner.
    Forward,
    /// Quads alternate between the two diagonals in a checkerboard (`(i + j)` even: lower left to
    /// upper right), so no direction is preferred at the scale of two quads.
    Alternating,
    /// Every quad gets a vertex at its centre and four triangles ("union jack" or crossed): symmetric
    /// in both directions, with `(nx + 1)(ny + 1) + nx ny` vertices.
    Crossed,
}

impl Diagonal {
    /// All patterns, for tests and option lists.
    pub const ALL: [Diagonal; 3] = [Diagonal::Forward, Diagonal::Alternating, Diagonal::Crossed];

    /// The pattern's name in scene files and options.
    pub fn name(self) -> &'static str {
        match self {
            Diagonal::Forward => "forward",
            Diagonal::Alternating => "alternating",
            Diagonal::Crossed => "crossed",
        }
    }
}

/// A validated triangle mesh: vertex positions (m) and triangles.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<Triangle>,
}

/// Area of the triangle `p` in m^2.
pub fn triangle_area(p: [Vec3; 3]) -> f64 {
    0.5 * (p[1] - p[0]).cross(&(p[2] - p[0])).norm()
}

impl SheetMesh {
    /// Builds a mesh, refusing the bad inputs listed in the module documentation. Checks run in this
    /// order, so the first error reported is: a non-finite vertex, an out-of-range index (any
    /// triangle), then per triangle in index order a degenerate, duplicated or non-manifold one.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<Triangle>) -> Result<Self, SheetError> {
        if triangles.is_empty() {
            return Err(SheetError::Empty);
        }
        if let Some((vertex, p)) = vertices.iter().enumerate().find(|(_, p)| !p.iter().all(|c| c.is_finite())) {
            return Err(SheetError::VertexNotFinite { vertex, position: [p.x, p.y, p.z] });
        }
        let count = vertices.len();
        for (triangle, tri) in triangles.iter().enumerate() {
            if let Some(&vertex) = tri.iter().find(|&&v| v >= count) {
                return Err(SheetError::VertexOutOfRange { triangle, vertex, count });
            }
        }
        let mut seen: HashMap<Triangle, usize> = HashMap::with_capacity(triangles.len());
        let mut edges: HashMap<[usize; 2], Vec<usize>> = HashMap::with_capacity(3 * triangles.len());
        for (triangle, &tri) in triangles.iter().enumerate() {
            let p = tri.map(|v| vertices[v]);
            let area = triangle_area(p);
            let longest = (0..3).map(|k| (p[(k + 1) % 3] - p[k]).norm()).fold(0.0, f64::max);
            if area.is_nan() || area <= DEGENERATE_AREA_RATIO * longest * longest {
                return Err(SheetError::Degenerate { triangle, vertices: tri, area, longest });
            }
            let mut key = tri;
            key.sort_unstable();
            if let Some(&first) = seen.get(&key) {
                return Err(SheetError::Duplicate { triangle, vertices: tri, first });
            }
            seen.insert(key, triangle);
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let edge = [a.min(b), a.max(b)];
                let on_edge = edges.entry(edge).or_default();
                if on_edge.len() == 2 {
                    return Err(SheetError::NonManifoldEdge { triangle, edge, others: [on_edge[0], on_edge[1]] });
                }
                on_edge.push(triangle);
            }
        }
        Ok(Self { vertices, triangles })
    }

    /// A `width x height` rectangle in the plane z = 0 with its lower left corner at the origin, split
    /// into `nx x ny` quads (`nx` along x) and each quad into triangles by `diagonal`. Grid vertex
    /// `(i, j)` (`0 <= i <= nx`, `0 <= j <= ny`) has index `j (nx + 1) + i`; with
    /// [`Diagonal::Crossed`], the centre of quad `(i, j)` follows the grid as `(nx + 1)(ny + 1) + j nx + i`.
    /// Triangles wind counter-clockwise seen from +z (normal +z).
    pub fn rectangle(width: f64, height: f64, nx: usize, ny: usize, diagonal: Diagonal) -> Result<Self, SheetError> {
        for (name, value) in [("width", width), ("height", height)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SheetError::Rectangle(format!("{name} = {value} m must be a finite number > 0 m")));
            }
        }
        if nx == 0 || ny == 0 {
            return Err(SheetError::Rectangle(format!("resolution {nx} x {ny} must be at least 1 x 1")));
        }
        let grid = |i: usize, j: usize| j * (nx + 1) + i;
        let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1));
        for j in 0..=ny {
            for i in 0..=nx {
                vertices.push(Vec3::new(width * i as f64 / nx as f64, height * j as f64 / ny as f64, 0.0));
            }
        }
        let mut triangles = Vec::with_capacity(4 * nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                let (a, b, c, d) = (grid(i, j), grid(i + 1, j), grid(i + 1, j + 1), grid(i, j + 1));
                let forward = match diagonal {
                    Diagonal::Forward => true,
                    Diagonal::Alternating => (i + j) % 2 == 0,
                    Diagonal::Crossed => {
                        let m = vertices.len();
                        vertices.push(Vec3::new(
                            width * (i as f64 + 0.5) / nx as f64,
                            height * (j as f64 + 0.5) / ny as f64,
                            0.0,
                        ));
                        triangles.extend([[a, b, m], [b, c, m], [c, d, m], [d, a, m]]);
                        continue;
                    }
                };
                if forward {
                    triangles.extend([[a, b, c], [a, c, d]]);
                } else {
                    triangles.extend([[a, b, d], [b, c, d]]);
                }
            }
        }
        Self::new(vertices, triangles)
    }

    /// Vertex rest positions in m.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The triangles.
    pub fn triangles(&self) -> &[Triangle] {
        &self.triangles
    }

    /// The rest positions of triangle `t`'s vertices.
    pub fn triangle_points(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|v| self.vertices[v])
    }

    /// Total area in m^2.
    pub fn area(&self) -> f64 {
        (0..self.triangles.len()).map(|t| triangle_area(self.triangle_points(t))).sum()
    }

    /// Whether the surface is closed: every edge on two triangles (validation already refused three). The
    /// first open edge, in triangle order, is [`SheetError::OpenEdge`].
    pub fn check_closed(&self) -> Result<(), SheetError> {
        check_closed(&self.triangles)
    }

    /// Vertices on the boundary (on an edge of only one triangle), flagged per vertex.
    pub fn boundary_vertices(&self) -> Vec<bool> {
        let mut count: HashMap<[usize; 2], usize> = HashMap::new();
        for tri in &self.triangles {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                *count.entry([a.min(b), a.max(b)]).or_default() += 1;
            }
        }
        let mut boundary = vec![false; self.vertices.len()];
        for (edge, n) in count {
            if n == 1 {
                boundary[edge[0]] = true;
                boundary[edge[1]] = true;
            }
        }
        boundary
    }
}

/// Whether the triangles close a surface: every edge on exactly two triangles; the first edge on one
/// only (in triangle order, then edge order in the triangle) is [`SheetError::OpenEdge`].
pub fn check_closed(triangles: &[Triangle]) -> Result<(), SheetError> {
    let mut count: HashMap<[usize; 2], (usize, usize)> = HashMap::with_capacity(3 * triangles.len());
    let edges = |tri: &Triangle| {
        let tri = *tri;
        (0..3).map(move |k| [tri[k].min(tri[(k + 1) % 3]), tri[k].max(tri[(k + 1) % 3])])
    };
    for (t, tri) in triangles.iter().enumerate() {
        for e in edges(tri) {
            count.entry(e).or_insert((0, t)).0 += 1;
        }
    }
    for tri in triangles {
        for edge in edges(tri) {
            let (n, triangle) = count[&edge];
            if n == 1 {
                return Err(SheetError::OpenEdge { edge, triangle });
            }
        }
    }
    Ok(())
}

/// The volume a closed triangle surface encloses at the positions `x` (m^3): `sum over triangles of
/// (x1 x x2) . x3 / 6`, positive for outward winding (the divergence theorem; independent of the origin
/// only for a closed surface, [`check_closed`]).
pub fn enclosed_volume(x: &[Vec3], triangles: &[Triangle]) -> f64 {
    triangles.iter().map(|t| x[t[0]].cross(&x[t[1]]).dot(&x[t[2]])).sum::<f64>() / 6.0
}

/// A sheet body: a triangle mesh with a thickness and a density.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    /// The mid-surface mesh.
    pub mesh: SheetMesh,
    thickness: f64,
    density: f64,
}

impl Sheet {
    /// A sheet of thickness `thickness` (m) and density `density` (kg/m^3), both finite and > 0.
    pub fn new(mesh: SheetMesh, thickness: f64, density: f64) -> Result<Self, SheetError> {
        if !(thickness.is_finite() && thickness > 0.0) {
            return Err(SheetError::Thickness(thickness));
        }
        if !(density.is_finite() && density > 0.0) {
            return Err(SheetError::Density(density));
        }
        Ok(Self { mesh, thickness, density })
    }

    /// Thickness h in m.
    pub fn thickness(&self) -> f64 {
        self.thickness
    }

    /// Density rho in kg/m^3.
    pub fn density(&self) -> f64 {
        self.density
    }

    /// Areal mass `rho h` in kg/m^2.
    pub fn areal_mass(&self) -> f64 {
        self.density * self.thickness
    }

    /// Total mass `rho h A` in kg.
    pub fn total_mass(&self) -> f64 {
        self.areal_mass() * self.mesh.area()
    }

    /// Vertex masses (kg) by `model`: lumped ([`Self::lumped_masses`]) or uniform (the total mass over the
    /// vertex count, held vertices included: Genesis's cloth particles).
    pub fn masses(&self, model: crate::MassModel) -> Vec<f64> {
        match model {
            crate::MassModel::Lumped => self.lumped_masses(),
            crate::MassModel::Uniform => {
                vec![self.total_mass() / self.mesh.vertices.len() as f64; self.mesh.vertices.len()]
            }
        }
    }

    /// Lumped vertex masses: a third of each triangle's mass to each of its vertices (kg).
    pub fn lumped_masses(&self) -> Vec<f64> {
        let mut m = vec![0.0; self.mesh.vertices.len()];
        for (t, tri) in self.mesh.triangles.iter().enumerate() {
            let third = self.areal_mass() * triangle_area(self.mesh.triangle_points(t)) / 3.0;
            for &v in tri {
                m[v] += third;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_unit_cube_s_boundary_is_a_closed_outward_surface_enclosing_one_cubic_metre() {
        for n in [1, 2, 3] {
            let (x, tris, solid) = crate::unit_cube(n).unwrap().boundary_surface();
            assert_eq!((x.len(), tris.len()), (6 * n * n + 2, 12 * n * n), "n = {n}");
            assert!(solid.windows(2).all(|w| w[0] < w[1]));
            let mesh = SheetMesh::new(x.clone(), tris.clone()).unwrap();
            mesh.check_closed().unwrap();
            assert!((mesh.area() - 6.0).abs() < 1e-13);
            let volume = enclosed_volume(&x, &tris);
            println!("n = {n}: enclosed volume {volume:.17} m^3 (1 exactly)");
            assert!((volume - 1.0).abs() < 1e-14, "{volume}");
            // Outward: every triangle's normal points away from the centre.
            let c = Vec3::new(0.5, 0.5, 0.5);
            for t in &tris {
                let p = t.map(|v| x[v]);
                assert!((p[1] - p[0]).cross(&(p[2] - p[0])).dot(&(p[0] - c)) > 0.0);
            }
            // The same volume about any origin (closed).
            let moved: Vec<Vec3> = x.iter().map(|p| p + Vec3::new(3.0, -7.0, 11.0)).collect();
            assert!((enclosed_volume(&moved, &tris) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn an_open_surface_is_refused_naming_its_edge() {
        let (v, t) = square();
        let e = SheetMesh::new(v, t).unwrap().check_closed().unwrap_err();
        assert!(matches!(e, SheetError::OpenEdge { edge: [0, 1], triangle: 0 }), "{e:?}");
        assert!(e.to_string().contains("edge [0, 1]"), "{e}");
    }

    fn square() -> (Vec<Vec3>, Vec<Triangle>) {
        let v = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        (v, vec![[0, 1, 2], [0, 2, 3]])
    }

    #[test]
    fn rectangle_counts_areas_and_masses() {
        for d in Diagonal::ALL {
            let m = SheetMesh::rectangle(2.0, 0.5, 4, 3, d).unwrap();
            let (nv, nt) = match d {
                Diagonal::Crossed => (20 + 12, 48),
                _ => (20, 24),
            };
            assert_eq!((m.vertices().len(), m.triangles().len()), (nv, nt), "{}", d.name());
            assert!((m.area() - 1.0).abs() < 1e-14, "{}", d.name());
            // Every triangle winds counter-clockwise seen from +z.
            for t in 0..m.triangles().len() {
                let p = m.triangle_points(t);
                assert!((p[1] - p[0]).cross(&(p[2] - p[0])).z > 0.0);
            }
            let boundary = m.boundary_vertices().iter().filter(|&&b| b).count();
            assert_eq!(boundary, 2 * (4 + 3));
            let sheet = Sheet::new(m, 1e-3, 1200.0).unwrap();
            assert!((sheet.areal_mass() - 1.2).abs() < 1e-15);
            let lumped: f64 = sheet.lumped_masses().iter().sum();
            assert!((lumped - 1.2).abs() < 1e-14 && (sheet.total_mass() - 1.2).abs() < 1e-14);
        }
        // Alternating: quad (0, 0) uses the forward diagonal, quad (1, 0) the other one.
        let m = SheetMesh::rectangle(1.0, 1.0, 2, 1, Diagonal::Alternating).unwrap();
        assert_eq!(m.triangles()[..4], [[0, 1, 4], [0, 4, 3], [1, 2, 4], [2, 5, 4]]);
    }

    #[test]
    fn rectangle_refuses_bad_sizes() {
        assert!(matches!(SheetMesh::rectangle(0.0, 1.0, 1, 1, Diagonal::Forward), Err(SheetError::Rectangle(_))));
        assert!(matches!(SheetMesh::rectangle(1.0, f64::NAN, 1, 1, Diagonal::Forward), Err(SheetError::Rectangle(_))));
        assert!(matches!(SheetMesh::rectangle(1.0, 1.0, 0, 1, Diagonal::Forward), Err(SheetError::Rectangle(_))));
    }

    #[test]
    fn out_of_range_vertex_is_refused_by_triangle() {
        let (v, mut t) = square();
        t[1] = [0, 2, 4];
        assert_eq!(SheetMesh::new(v, t), Err(SheetError::VertexOutOfRange { triangle: 1, vertex: 4, count: 4 }));
    }

    #[test]
    fn degenerate_triangles_are_refused() {
        let (mut v, t) = square();
        // Repeated vertex.
        let e = SheetMesh::new(v.clone(), vec![[0, 1, 2], [0, 3, 3]]).unwrap_err();
        assert!(matches!(e, SheetError::Degenerate { triangle: 1, .. }), "{e}");
        // Collinear vertices.
        v[3] = Vec3::new(2.0, 2.0, 0.0);
        let e = SheetMesh::new(v, t).unwrap_err();
        assert!(matches!(e, SheetError::Degenerate { triangle: 1, vertices: [0, 2, 3], .. }), "{e}");
        assert!(e.to_string().contains("triangle 1"));
    }

    #[test]
    fn duplicated_triangle_is_refused() {
        let (v, mut t) = square();
        t.push([2, 3, 0]);
        assert_eq!(SheetMesh::new(v, t), Err(SheetError::Duplicate { triangle: 2, vertices: [2, 3, 0], first: 1 }));
    }

    #[test]
    fn non_manifold_edge_is_refused() {
        let (mut v, mut t) = square();
        v.push(Vec3::new(0.5, 0.5, 1.0));
        t.push([0, 2, 4]);
        let e = SheetMesh::new(v, t).unwrap_err();
        assert_eq!(e, SheetError::NonManifoldEdge { triangle: 2, edge: [0, 2], others: [0, 1] });
        assert!(e.to_string().contains("triangle 2"));
    }

    #[test]
    fn bad_thickness_density_and_vertices_are_refused() {
        let m = SheetMesh::rectangle(1.0, 1.0, 1, 1, Diagonal::Forward).unwrap();
        for h in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
            assert!(matches!(Sheet::new(m.clone(), h, 1000.0), Err(SheetError::Thickness(_))), "{h}");
            assert!(matches!(Sheet::new(m.clone(), 1e-3, h), Err(SheetError::Density(_))), "{h}");
        }
        let (mut v, t) = square();
        v[2].y = f64::NAN;
        assert!(matches!(SheetMesh::new(v, t), Err(SheetError::VertexNotFinite { vertex: 2, .. })));
        assert_eq!(SheetMesh::new(vec![], vec![]), Err(SheetError::Empty));
    }

    proptest! {
        /// A valid rectangular sheet mutated at random (an index changed, a triangle repeated, a vertex
        /// moved onto another, coordinates set to extreme values) is accepted or refused with an error,
        /// never a panic; an accepted mesh has only in-range, non-degenerate, distinct triangles.
        #[test]
        fn mutated_meshes_give_errors_not_panics(
            nx in 1usize..4, ny in 1usize..4, pattern in 0usize..3,
            edits in proptest::collection::vec((0usize..5, any::<usize>(), any::<usize>(), -1e300f64..1e300), 0..6),
        ) {
            let m = SheetMesh::rectangle(1.0, 0.7, nx, ny, Diagonal::ALL[pattern]).unwrap();
            let (mut v, mut t) = (m.vertices().to_vec(), m.triangles().to_vec());
            for (kind, a, b, x) in edits {
                let (nt, nv) = (t.len(), v.len());
                match kind {
                    0 => t[a % nt][b % 3] = b % (nv + 2),
                    1 => { let tri = t[a % nt]; t.push([tri[2], tri[0], tri[1]]); }
                    2 => v[a % nv] = v[b % nv],
                    3 => v[a % nv][b % 3] = x,
                    _ => { v.push(Vec3::new(x, 0.5, 1.0)); let tri = t[a % nt]; t.push([tri[0], tri[1], nv]); }
                }
            }
            match SheetMesh::new(v, t) {
                Ok(mesh) => {
                    let mut keys = std::collections::HashSet::new();
                    for (i, tri) in mesh.triangles().iter().enumerate() {
                        prop_assert!(tri.iter().all(|&k| k < mesh.vertices().len()));
                        prop_assert!(triangle_area(mesh.triangle_points(i)) > 0.0);
                        let mut k = *tri;
                        k.sort_unstable();
                        prop_assert!(keys.insert(k));
                    }
                }
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }
}
