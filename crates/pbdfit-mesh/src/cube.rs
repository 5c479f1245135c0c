use crate::{MeshError, Tet, TetMesh, Vec3, signed_volume};

/// Local corners of the "even" central tetrahedron (methodology: list A).
const A: [[usize; 3]; 4] = [[0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]];
/// Local corners of the "odd" central tetrahedron (methodology: list B).
const B: [[usize; 3]; 4] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]];

/// The unit cube [0, 1]^3 split into `n^3` equal hexahedra of five tetrahedra each.
///
/// The convention (methodology, section Scenes), which results depend on:
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
    if n == 0 {
        return Err(MeshError::ZeroResolution(n));
    }
    let m = n + 1;
    let index = |i: usize, j: usize, k: usize| i + m * (j + m * k);
    let h = 1.0 / n as f64;
    let mut vertices = Vec::with_capacity(m * m * m);
    for k in 0..m {
        for j in 0..m {
            for i in 0..m {
                vertices.push(Vec3::new(i as f64 * h, j as f64 * h, k as f64 * h));
            }
        }
    }
    let mut tets = Vec::with_capacity(5 * n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let corner = |c: [usize; 3]| index(i + c[0], j + c[1], k + c[2]);
                let (central, corners) = if (i + j + k) % 2 == 0 { (A, B) } else { (B, A) };
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
    fn edges_in_first_met_order_for_n1() {
        let edges = unit_cube(1).unwrap().edges();
        assert_eq!(&edges[..6], &[[0, 3], [0, 6], [0, 5], [3, 6], [3, 5], [6, 5]]);
        assert_eq!(edges[6], [1, 0]);
    }
}
