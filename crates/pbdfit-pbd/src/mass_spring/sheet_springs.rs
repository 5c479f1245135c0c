//! The springs of a mass-spring cloth (Provot 1995, "Deformation constraints in a mass-spring model to
//! describe rigid cloth behavior"): structural springs on the rows and columns of the sheet's grid, shear
//! springs on the cells' diagonals, and flexion (bending) springs joining vertices two apart along a row
//! or a column. Each group has its own spring constant ([`SpringLaw`](super::SpringLaw)'s `ks`,
//! `ks_shear`, `ks_bend`).
//!
//! **Which edge is which** is read from the rest geometry, so that it holds on every built-in rectangle
//! (each diagonal pattern) and on an imported grid alike:
//! - *structural*: the mesh edges whose rest vector is parallel to a coordinate axis (within `1e-9` of its
//!   length): the grid's rows and columns on a built-in rectangle, which lies in a coordinate plane;
//! - *shear*: every other mesh edge: the quads' diagonals (`forward`, `alternating`), the half diagonals to
//!   the quads' centres (`crossed`);
//! - *bend*: a spring from `a` to `c` wherever `a-b` and `b-c` are structural edges in the same direction
//!   (Provot's flexion springs, two apart along a row or a column), not a mesh edge. Hinge springs (the two
//!   opposite vertices of adjacent triangles) are not used: across a quad's diagonal they join the quad's
//!   other two corners, a second shear spring, not a bending one.
//!
//! An imported mesh that is not an axis-parallel grid has few or no axis-parallel edges: there nearly every
//! edge is a shear spring, and `ks` and `ks_bend` act on few springs or none (a fit then reports them as
//! spanning their box). A bending spring's length changes to second order in the fold angle (by `kappa^2
//! l^3 / 3` for a curvature `kappa` over two edges of length `l`), so its energy is quartic in the
//! curvature and a flat sheet has no bending stiffness to first order: it has no closed form from a shell's
//! `D = E h^3 / (12 (1 - nu^2))`.

use std::collections::{BTreeMap, BTreeSet};

use crate::Vec3;

/// The group of a spring, which decides its spring constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpringGroup {
    /// A solid's edge, or a sheet's grid row or column (constant `ks`).
    Structural,
    /// A sheet's cell diagonal (constant `ks_shear`).
    Shear,
    /// A sheet's flexion spring, two apart along a row or a column (constant `ks_bend`).
    Bend,
}

/// Whether the rest vector `d` is parallel to a coordinate axis.
fn axis_parallel(d: &Vec3) -> bool {
    let tolerance = 1e-9 * d.norm();
    d.iter().filter(|c| c.abs() > tolerance).count() == 1
}

/// The springs of a sheet with these triangles and rest positions (m): `((a, b), X_b - X_a, l0)` with
/// `a < b`, and the group of each, sorted by group then by `(a, b)`.
pub(super) fn springs(triangles: &[[usize; 3]], rest: &[Vec3]) -> (Vec<super::Spring>, Vec<SpringGroup>) {
    let mut edges: BTreeSet<[usize; 2]> = BTreeSet::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            edges.insert([a.min(b), a.max(b)]);
        }
    }
    let mut all: BTreeMap<(SpringGroup, [usize; 2]), ()> = BTreeMap::new();
    // The structural neighbours of each vertex.
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); rest.len()];
    for &[a, b] in &edges {
        if axis_parallel(&(rest[b] - rest[a])) {
            all.insert((SpringGroup::Structural, [a, b]), ());
            neighbours[a].push(b);
            neighbours[b].push(a);
        } else {
            all.insert((SpringGroup::Shear, [a, b]), ());
        }
    }
    for (b, around) in neighbours.iter().enumerate() {
        for &a in around {
            for &c in around {
                let (ab, bc) = (rest[b] - rest[a], rest[c] - rest[b]);
                if a < c && ab.dot(&bc) > (1.0 - 1e-9) * ab.norm() * bc.norm() {
                    all.insert((SpringGroup::Bend, [a, c]), ());
                }
            }
        }
    }
    all.into_keys().map(|(g, [a, b])| (([a, b], rest[b] - rest[a], (rest[b] - rest[a]).norm()), g)).unzip()
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::{Diagonal, SheetMesh};

    use super::*;

    fn count(triangles: &[[usize; 3]], rest: &[Vec3]) -> [usize; 3] {
        let (_, groups) = springs(triangles, rest);
        [SpringGroup::Structural, SpringGroup::Shear, SpringGroup::Bend]
            .map(|g| groups.iter().filter(|&&x| x == g).count())
    }

    /// On an `nx x ny` grid: `nx (ny + 1) + ny (nx + 1)` structural springs whatever the diagonals; one
    /// shear spring per quad (`forward`, `alternating`) or four half diagonals (`crossed`); and
    /// `(nx - 1)(ny + 1) + (ny - 1)(nx + 1)` bending springs two apart along rows and columns.
    #[test]
    fn a_grid_has_provots_springs() {
        let (nx, ny) = (3, 2);
        for (diagonal, shear) in [(Diagonal::Forward, 6), (Diagonal::Alternating, 6), (Diagonal::Crossed, 24)] {
            let m = SheetMesh::rectangle(0.9, 0.4, nx, ny, diagonal).unwrap();
            let c = count(m.triangles(), m.vertices());
            assert_eq!(
                c,
                [nx * (ny + 1) + ny * (nx + 1), shear, (nx - 1) * (ny + 1) + (ny - 1) * (nx + 1)],
                "{diagonal:?}"
            );
        }
        // Rotated out of the coordinate axes, a grid's rows are no longer recognised: all shear.
        let m = SheetMesh::rectangle(1.0, 1.0, 2, 2, Diagonal::Forward).unwrap();
        let (s, c) = (0.6f64, 0.8f64);
        let turned: Vec<Vec3> =
            m.vertices().iter().map(|p| Vec3::new(c * p.x - s * p.y, s * p.x + c * p.y, 0.0)).collect();
        assert_eq!(count(m.triangles(), &turned), [0, 16, 0]);
    }

    /// A patch test: a 6 x 6 sheet's two outer rings of vertices moved by a homogeneous in-plane stretch
    /// and shear `u = A X`, no gravity. Each vertex inside them has every spring of the grid and its
    /// opposite (the bending springs reach two vertices away, so a vertex next to the boundary lacks the
    /// opposite of its bending springs: two rings are held), so the forces on the interior balance at
    /// `u = A X`, and Newton lands there from the flat sheet.
    #[test]
    fn a_homogeneous_in_plane_stretch_is_an_equilibrium() {
        use crate::{PbdSystem, SpringBody, SpringLaw};
        let law = SpringLaw { ks: 300.0, ks_shear: 70.0, ks_bend: 20.0, ..SpringLaw::NONE };
        let affine = |p: &Vec3| Vec3::new(0.08 * p.x + 0.03 * p.y, -0.02 * p.x + 0.05 * p.y, 0.0);
        for diagonal in Diagonal::ALL {
            let mesh = SheetMesh::rectangle(1.0, 1.0, 6, 6, diagonal).unwrap();
            let sheet = pbdfit_mesh::Sheet::new(mesh, 1e-3, 1000.0).unwrap();
            let boundary: Vec<bool> =
                sheet.mesh.vertices().iter().map(|p| p.x.min(p.y) < 0.2 || p.x.max(p.y) > 0.8).collect();
            assert_eq!(boundary.iter().filter(|&&b| !b).count(), if diagonal == Diagonal::Crossed { 25 } else { 9 });
            let mut body = SpringBody::new(&PbdSystem::sheet("patch", &sheet, &boundary, Vec3::zeros()));
            let exact: Vec<Vec3> = sheet.mesh.vertices().iter().map(affine).collect();
            for (p, &held) in boundary.iter().enumerate() {
                if held {
                    body.prescribed[p] = exact[p];
                }
            }
            let f = body.forces(&law, &body.flatten(&exact), None);
            let scale = law.ks * 0.08 * 0.25;
            let worst_force = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let e = body.equilibrium(&law, None).unwrap();
            let worst = e.displacements.iter().zip(&exact).map(|(u, x)| (u - x).norm()).fold(0.0, f64::max);
            println!(
                "{diagonal:?}: forces at A X {worst_force:e} N, |u - A X| <= {worst:e} m, {} iterations",
                e.iterations
            );
            assert!(worst_force <= 1e-13 * scale, "{diagonal:?}: {worst_force:e}");
            assert!(worst <= 1e-12, "{diagonal:?}: {worst:e}");
        }
    }
}
