use crate::{MeshError, Tet, TetMesh, Vec3, signed_volume};

/// Local corners of the "even" central tetrahedron (docs/method.md: list A).
const A: [[usize; 3]; 4] = [[0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]];
/// Local corners of the "odd" central tetrahedron (docs/method.md: list B).
const B: [[usize; 3]; 4] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]];

/// The unit cube [0, 1]^3 split into `n^3` equal hexahedra of five tetrahedra each.
///
/// The convention (docs/method.md, section The bodies), which results depend on:
/// - grid vertex `(i, j, k)` sits at `(i/n, j/n, k/n)` with index `i + (n+1)(j + (n+1)k)`;
/// - hexahedra are visited `k` outermost, then `j`, then `i`;
/// - a hexahedron whose lowest corner has `i + j + k` even gets central tetrahedron A and corner
///   tetrahedra at the corners of B; an odd one the reverse (conforming face diagonals);
/// - per hexahedron the central tetrahedron comes first, then the corner tetrahedra in list order, a
///   corner tetrahedron being `(c, c with x flipped, c with y flipped, c with z flipped)`;
/// - every tetrahedron is positively oriented, its last two vertices swapped where needed.
///
/// ```
/// let mesh = pbdfit_mesh::unit_cube(1).unwrap();
/// assert_eq!(mesh.tets(), &[[0, 3, 6, 5], [1, 0, 5, 3], [2, 3, 6, 0], [4, 5, 0, 6], [7, 6, 3, 5]]);
/// ```
pub fn unit_cube(n: usize) -> Result<TetMesh, MeshError> {
    unit_cube_split(n, CubeSplit::Five)
}

/// How each hexahedron of the cube is split into tetrahedra.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CubeSplit {
    /// Five tetrahedra, central tetrahedron A in even hexahedra (docs/method.md's convention, the
    /// PBD library's mesh).
    #[default]
    Five,
    /// Five tetrahedra with the opposite parity: central tetrahedron B in even hexahedra (the other
    /// conforming 5-tet mesh of the same grid).
    FiveOpposite,
    /// Six tetrahedra around the diagonal from the lowest to the highest corner (Kuhn's split, as a
    /// hexahedron-to-tetrahedron mapping makes; conforming, all hexahedra alike).
    Six,
}

impl CubeSplit {
    /// The name in files and on the command line, relative to the model's split: `same`, `opposite`,
    /// `six`.
    pub fn name(self) -> &'static str {
        match self {
            CubeSplit::Five => "same",
            CubeSplit::FiveOpposite => "opposite",
            CubeSplit::Six => "six",
        }
    }

    /// Parses [`name`](Self::name)'s values.
    pub fn parse(name: &str) -> Option<Self> {
        [CubeSplit::Five, CubeSplit::FiveOpposite, CubeSplit::Six].into_iter().find(|s| s.name() == name)
    }
}

/// The unit cube with `n^3` hexahedra split as `split` says; vertices are numbered as in
/// [`unit_cube`] whatever the split, so displacements of two splits compare vertex by vertex.
///
/// ```
/// use pbdfit_mesh::{CubeSplit, unit_cube_split};
/// let six = unit_cube_split(2, CubeSplit::Six).unwrap();
/// assert_eq!(six.tets().len(), 48);
/// let total: f64 = (0..48).map(|t| six.tet_volume(t)).sum();
/// assert!((total - 1.0).abs() < 1e-12);
/// ```
pub fn unit_cube_split(n: usize, split: CubeSplit) -> Result<TetMesh, MeshError> {
    cuboid([1.0; 3], [n; 3], split)
}

/// The box `[0, size_x] x [0, size_y] x [0, size_z]` (m) with `cells[a]` hexahedra along axis `a`, split
/// as `split` says, numbered as [`unit_cube`] is (vertex `(i, j, k)` at `(i h_x, j h_y, k h_z)`, index
/// `i + (c_x + 1)(j + (c_y + 1) k)`); the unit cube is `cuboid([1.0; 3], [n; 3], split)`, bit for bit.
/// A slender box is a beam (the modal reference's convergence check).
///
/// ```
/// use pbdfit_mesh::{CubeSplit, cuboid};
/// let beam = cuboid([2.0, 0.1, 0.1], [20, 1, 1], CubeSplit::Five).unwrap();
/// assert_eq!((beam.vertices().len(), beam.tets().len()), (21 * 4, 100));
/// let volume: f64 = (0..100).map(|t| beam.tet_volume(t)).sum();
/// assert!((volume - 0.02).abs() < 1e-15);
/// ```
pub fn cuboid(size: [f64; 3], cells: [usize; 3], split: CubeSplit) -> Result<TetMesh, MeshError> {
    if let Some(&zero) = cells.iter().find(|&&c| c == 0) {
        return Err(MeshError::ZeroResolution(zero));
    }
    let [nx, ny, nz] = cells;
    let (mx, my) = (nx + 1, ny + 1);
    let index = |i: usize, j: usize, k: usize| i + mx * (j + my * k);
    let h = [size[0] / nx as f64, size[1] / ny as f64, size[2] / nz as f64];
    let mut vertices = Vec::with_capacity(mx * my * (nz + 1));
    for k in 0..=nz {
        for j in 0..my {
            for i in 0..mx {
                vertices.push(Vec3::new(i as f64 * h[0], j as f64 * h[1], k as f64 * h[2]));
            }
        }
    }
    let mut tets = Vec::with_capacity(6 * nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let corner = |c: [usize; 3]| index(i + c[0], j + c[1], k + c[2]);
                if split == CubeSplit::Six {
                    // The six paths from corner 000 to 111 along the axes, one tetrahedron each.
                    for axes in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                        let mut c = [0usize; 3];
                        let mut t = [corner(c); 4];
                        for (step, &axis) in axes.iter().enumerate() {
                            c[axis] = 1;
                            t[step + 1] = corner(c);
                        }
                        if signed_volume(t.map(|v| vertices[v])) < 0.0 {
                            t.swap(2, 3);
                        }
                        tets.push(t);
                    }
                    continue;
                }
                let even = (i + j + k) % 2 == 0;
                let (central, corners) = if even == (split == CubeSplit::Five) { (A, B) } else { (B, A) };
                let mut local: Vec<Tet> = vec![central.map(corner)];
                for c in corners {
                    let flip = |axis: usize| {
                        let mut f = c;
                        f[axis] = 1 - f[axis];
                        f
                    };
                    local.push([corner(c), corner(flip(0)), corner(flip(1)), corner(flip(2))]);
                }
                for mut t in local {
                    if signed_volume(t.map(|v| vertices[v])) < 0.0 {
                        t.swap(2, 3);
                    }
                    tets.push(t);
                }
            }
        }
    }
    TetMesh::new(vertices, tets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n1_matches_the_reference_library() {
        let mesh = unit_cube(1).unwrap();
        assert_eq!(mesh.tets(), &[[0, 3, 6, 5], [1, 0, 5, 3], [2, 3, 6, 0], [4, 5, 0, 6], [7, 6, 3, 5]]);
    }

    #[test]
    fn n0_is_rejected() {
        assert_eq!(unit_cube(0), Err(MeshError::ZeroResolution(0)));
    }

    #[test]
    fn conforming_positive_and_counted_for_n_1_to_6() {
        for n in 1..=6 {
            let mesh = unit_cube(n).unwrap();
            assert_eq!(mesh.vertices().len(), (n + 1).pow(3));
            assert_eq!(mesh.tets().len(), 5 * n.pow(3));
            let mut total = 0.0;
            for t in 0..mesh.tets().len() {
                let v = mesh.tet_volume(t);
                assert!(v > 0.0, "n = {n}, tet {t} has volume {v}");
                total += v;
            }
            assert!((total - 1.0).abs() < 1e-12, "n = {n}: volumes sum to {total}");
            let counts = mesh.face_use_counts();
            let boundary = counts.values().filter(|&&c| c == 1).count();
            assert!(counts.values().all(|&c| c == 1 || c == 2), "n = {n}: a face used more than twice");
            assert_eq!(boundary, 12 * n * n, "n = {n}: boundary triangles");
            // Every boundary triangle lies on a face of the cube: interior faces are all shared.
            for (f, &c) in &counts {
                if c == 1 {
                    let on_face = (0..3).any(|axis| {
                        f.iter().all(|&v| mesh.vertices()[v][axis] == 0.0)
                            || f.iter().all(|&v| mesh.vertices()[v][axis] == 1.0)
                    });
                    assert!(on_face, "n = {n}: interior triangle {f:?} used once (non-conforming)");
                }
            }
            let edges = mesh.edges();
            assert_eq!(edges.len(), 3 * n * (n + 1).pow(2) + 3 * n * n * (n + 1), "n = {n}: edges");
        }
        assert_eq!(unit_cube(1).unwrap().edges().len(), 18);
        assert_eq!(unit_cube(2).unwrap().edges().len(), 90);
    }

    #[test]
    fn every_split_is_conforming_positive_and_fills_the_cube() {
        for split in [CubeSplit::Five, CubeSplit::FiveOpposite, CubeSplit::Six] {
            for n in 1..=4 {
                let mesh = unit_cube_split(n, split).unwrap();
                let per_hex = if split == CubeSplit::Six { 6 } else { 5 };
                assert_eq!(mesh.tets().len(), per_hex * n.pow(3));
                assert_eq!(mesh.vertices(), unit_cube(n).unwrap().vertices(), "same vertex numbering");
                let total: f64 = (0..mesh.tets().len()).map(|t| mesh.tet_volume(t)).sum();
                assert!((0..mesh.tets().len()).all(|t| mesh.tet_volume(t) > 0.0));
                assert!((total - 1.0).abs() < 1e-12, "{split:?} n = {n}: {total}");
                let counts = mesh.face_use_counts();
                assert_eq!(counts.values().filter(|&&c| c == 1).count(), 12 * n * n, "{split:?} n = {n}");
                assert!(counts.values().all(|&c| c <= 2));
            }
        }
        // The opposite parity is a different mesh: its central tetrahedron at N = 1 is B.
        let opposite = unit_cube_split(1, CubeSplit::FiveOpposite).unwrap();
        let mut first = opposite.tets()[0];
        first.sort_unstable();
        assert_eq!(first, [1, 2, 4, 7]);
        assert_eq!(CubeSplit::parse("opposite"), Some(CubeSplit::FiveOpposite));
        assert_eq!(CubeSplit::parse("five"), None);
    }

    #[test]
    fn edges_in_first_met_order_for_n1() {
        let edges = unit_cube(1).unwrap().edges();
        assert_eq!(&edges[..6], &[[0, 3], [0, 6], [0, 5], [3, 6], [3, 5], [6, 5]]);
        assert_eq!(edges[6], [1, 0]);
    }
}
