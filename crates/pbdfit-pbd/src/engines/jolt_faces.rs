//! Jolt 5.6's `SoftBodySharedSettings::CreateConstraints`: the constraints, and their creation order, that
//! Jolt (and Godot's SoftBody3D, which calls it on the render mesh's faces) makes of a triangle mesh, as
//! `Optimize` then reads them (`engines/creation.rs`). It makes nothing of tetrahedra.
//!
//! Jolt lists every face edge `(min, max)` with its face, sorts the list by its vertex pair with its own
//! `QuickSort` (not stable: which of two faces sharing an edge comes first decides the orientation of the
//! shear and bend constraints, so it is reproduced here exactly, [`quick_sort`]), then walks it: for a run
//! of two entries of the same edge (two faces sharing it, with different opposite vertices) it creates,
//! before the edge itself,
//! - a shear edge between the two opposite vertices, where the faces are within 8 degrees of coplanar and
//!   the angle at the edge's first vertex between the opposite vertices is within 8 degrees of a right
//!   angle (the two faces form a quad and the shared edge is its diagonal, which then takes the shear
//!   compliance too);
//! - a bend constraint: with `Distance`, an edge between the opposite vertices (unless it was a shear
//!   edge), with `Dihedral`, a dihedral constraint `(edge, opposite0, opposite1)`;
//!
//! and then the edge itself. Edges whose two vertices are both kinematic are not created. When the last
//! entry of the sorted list shares its edge with the one before, Jolt's walk reaches it twice and creates
//! that edge twice (the loop only skips the second entry of a pair when a third entry follows).

use crate::Vec3;

/// `EBendType`: what `CreateConstraints` makes of two faces sharing an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoltBend {
    /// No bend constraint.
    None,
    /// An edge between the two opposite vertices.
    Distance,
    /// A dihedral-angle constraint on the four vertices.
    Dihedral,
}

/// Which attribute's compliance an edge made by `CreateConstraints` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// A face edge: `mCompliance`.
    Edge,
    /// A quad's diagonal (the shared edge, or the edge between the opposite vertices): `mShearCompliance`.
    Shear,
    /// A `Distance` bend edge between opposite vertices: `mBendCompliance`.
    Bend,
}

/// The constraints `CreateConstraints` makes, each list in creation order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaceConstraints {
    /// Edges `(v0, v1)` with the compliance they take.
    pub edges: Vec<([usize; 2], EdgeKind)>,
    /// Dihedral bend constraints `(edge v0, edge v1, opposite 0, opposite 1)`.
    pub dihedral: Vec<[usize; 4]>,
}

/// `SoftBodySharedSettings::CreateConstraints` with one set of vertex attributes for every vertex (finite
/// compliances; a bend compliance only where `bend` is not `None`) and oxijolt's angle tolerance of 8
/// degrees, on `faces` (vertex indices) at `positions` (m; Jolt reads them in f32), with `movable[v]` false
/// for a kinematic vertex.
pub fn create_constraints(
    faces: &[[usize; 3]],
    positions: &[Vec3],
    movable: &[bool],
    bend: JoltBend,
) -> FaceConstraints {
    #[derive(Clone)]
    struct EdgeHelper {
        vertex: [usize; 2],
        edge: usize,
    }
    let p = |v: usize| [positions[v].x as f32, positions[v].y as f32, positions[v].z as f32];
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross =
        |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let mut edges: Vec<EdgeHelper> = Vec::with_capacity(faces.len() * 3);
    for (f, face) in faces.iter().enumerate() {
        for i in 0..3 {
            let (v0, v1) = (face[i], face[(i + 1) % 3]);
            edges.push(EdgeHelper { vertex: [v0.min(v1), v0.max(v1)], edge: f * 3 + i });
        }
    }
    quick_sort(&mut edges, &|a: &EdgeHelper, b: &EdgeHelper| a.vertex < b.vertex);
    let tolerance = 8.0_f32.to_radians();
    let (sq_sin, sq_cos) = (tolerance.sin().powi(2), tolerance.cos().powi(2));
    let mut out = FaceConstraints::default();
    let add_edge = |out: &mut FaceConstraints, a: usize, b: usize, kind: EdgeKind| {
        if movable[a] || movable[b] {
            out.edges.push(([a, b], kind));
        }
    };
    let mut i = 0;
    while i < edges.len() {
        let e0 = &edges[i];
        let mut is_shear = false;
        let mut j = i + 1;
        while j < edges.len() {
            let e1 = &edges[j];
            if e0.vertex != e1.vertex {
                // Start iterating from the first non-shared edge.
                i = j - 1;
                break;
            }
            let (f0, f1) = (&faces[e0.edge / 3], &faces[e1.edge / 3]);
            let (o0, o1) = (f0[(e0.edge + 2) % 3], f1[(e1.edge + 2) % 3]);
            if o0 != o1 {
                let normal = |f: &[usize; 3]| cross(sub(p(f[2]), p(f[0])), sub(p(f[1]), p(f[0])));
                let (n0, n1) = (normal(f0), normal(f1));
                let n01 = dot(n0, n1);
                if n01 > 0.0 && n01 * n01 > sq_cos * dot(n0, n0) * dot(n1, n1) {
                    let d0 = sub(p(o0), p(e0.vertex[0]));
                    let d1 = sub(p(o1), p(e0.vertex[0]));
                    let c = dot(d0, d1);
                    if c * c < sq_sin * dot(d0, d0) * dot(d1, d1) {
                        add_edge(&mut out, o0, o1, EdgeKind::Shear);
                        is_shear = true;
                    }
                }
                match bend {
                    JoltBend::None => {}
                    JoltBend::Distance => {
                        if !is_shear {
                            add_edge(&mut out, o0, o1, EdgeKind::Bend);
                        }
                    }
                    JoltBend::Dihedral => {
                        if movable[o0] || movable[o1] {
                            out.dihedral.push([e0.vertex[0], e0.vertex[1], o0, o1]);
                        }
                    }
                }
            }
            j += 1;
        }
        add_edge(&mut out, e0.vertex[0], e0.vertex[1], if is_shear { EdgeKind::Shear } else { EdgeKind::Edge });
        i += 1;
    }
    out
}

/// Jolt's `QuickSort` (`Jolt/Core/QuickSort.h`: ninther pivot, Hoare partition, insertion sort at 32
/// elements or fewer), element for element, so that equal keys end in Jolt's order.
fn quick_sort<T: Clone>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    let (mut begin, mut end) = (0, v.len());
    loop {
        let n = end - begin;
        if n < 2 {
            return;
        }
        if n <= 32 {
            insertion_sort(&mut v[begin..end], less);
            return;
        }
        let pivot = begin + ((n - 1) >> 1);
        ninther(v, begin, pivot, end - 1, less);
        // Jolt partitions around a copy of the pivot's value.
        let pivot = v[pivot].clone();
        let (mut i, mut j) = (begin, end);
        loop {
            while less(&v[i], &pivot) {
                i += 1;
            }
            j -= 1;
            while less(&pivot, &v[j]) {
                j -= 1;
            }
            if i >= j {
                break;
            }
            v.swap(i, j);
            i += 1;
        }
        j += 1;
        if j - begin < end - j {
            quick_sort(&mut v[begin..j], less);
            begin = j;
        } else {
            quick_sort(&mut v[j..end], less);
            end = j;
        }
    }
}

fn ninther<T>(v: &mut [T], first: usize, middle: usize, last: usize, less: &dyn Fn(&T, &T) -> bool) {
    let diff = (last - first) >> 3;
    let two_diff = diff << 1;
    let mid1 = first + diff;
    median_of_three(v, first, mid1, first + two_diff, less);
    median_of_three(v, middle - diff, middle, middle + diff, less);
    let mid3 = last - diff;
    median_of_three(v, last - two_diff, mid3, last, less);
    median_of_three(v, mid1, middle, mid3, less);
}

fn median_of_three<T>(v: &mut [T], first: usize, middle: usize, last: usize, less: &dyn Fn(&T, &T) -> bool) {
    if less(&v[middle], &v[first]) {
        v.swap(first, middle);
    }
    if less(&v[last], &v[first]) {
        v.swap(first, last);
    }
    if less(&v[last], &v[middle]) {
        v.swap(middle, last);
    }
}

fn insertion_sort<T>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 x 2 grid of unit quads (vertex `i + 3 j` at `(i, j, 0)`), each split along `(i, j)-(i+1, j+1)`.
    fn grid() -> (Vec<[usize; 3]>, Vec<Vec3>) {
        let v = |i: usize, j: usize| i + 3 * j;
        let mut faces = Vec::new();
        for j in 0..2 {
            for i in 0..2 {
                let (a, b, c, d) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
                faces.extend([[a, b, c], [a, c, d]]);
            }
        }
        let positions = (0..9).map(|k| Vec3::new((k % 3) as f64, (k / 3) as f64, 0.0)).collect();
        (faces, positions)
    }

    fn count(c: &FaceConstraints, kind: EdgeKind) -> usize {
        c.edges.iter().filter(|(_, k)| *k == kind).count()
    }

    /// 16 face edges (the 4 quad diagonals with the shear compliance), 4 shear edges between the quads'
    /// other corners, and per bend type 4 bend edges (the 4 interior grid edges) or 8 dihedral constraints
    /// (every shared edge); edges between two kinematic vertices are not made. `jolt_rest` counts the same
    /// in Jolt itself (`benchmarks/engines/results/jolt_faces.txt`).
    #[test]
    fn a_quad_grid_makes_jolts_constraints() {
        let (faces, positions) = grid();
        let free = vec![true; 9];
        let distance = create_constraints(&faces, &positions, &free, JoltBend::Distance);
        assert_eq!((count(&distance, EdgeKind::Edge), count(&distance, EdgeKind::Shear)), (12, 8));
        assert_eq!((count(&distance, EdgeKind::Bend), distance.dihedral.len()), (4, 0));
        let dihedral = create_constraints(&faces, &positions, &free, JoltBend::Dihedral);
        assert_eq!((dihedral.edges.len(), dihedral.dihedral.len()), (20, 8));
        let none = create_constraints(&faces, &positions, &free, JoltBend::None);
        assert_eq!((none.edges.len(), none.dihedral.len()), (20, 0));
        // The bottom row held: its two edges go.
        let held: Vec<bool> = (0..9).map(|k| k >= 3).collect();
        assert_eq!(create_constraints(&faces, &positions, &held, JoltBend::Distance).edges.len(), 22);
        // Creation order: by the sorted vertex pair, each shared edge after its shear or bend constraint.
        assert_eq!(distance.edges[0], ([0, 1], EdgeKind::Edge));
        assert_eq!(distance.edges[1], ([0, 3], EdgeKind::Edge));
        assert!(matches!(distance.edges[2], ([1, 3] | [3, 1], EdgeKind::Shear)));
        assert_eq!(distance.edges[3], ([0, 4], EdgeKind::Shear));
    }

    /// Where the last edge of the sorted list is shared, Jolt's walk creates it twice.
    #[test]
    fn the_last_shared_edge_is_created_twice() {
        let positions = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
        ];
        let c = create_constraints(&[[0, 2, 3], [1, 3, 2]], &positions, &[true; 4], JoltBend::None);
        let twice = c.edges.iter().filter(|(e, _)| *e == [2, 3]).count();
        assert_eq!((c.edges.len(), twice), (6, 2));
    }

    /// An irregular fan of four faces around vertex 4, vertex 0 kinematic, read by hand from Jolt's source
    /// rules (`CreateConstraints`, then `Optimize`). The sorted face edges are walked (0,1), (0,3), (0,4) x2,
    /// (1,2), (1,4) x2, (2,3), (2,4) x2, (3,4) x2. At a shared edge the angle at its first vertex between the
    /// opposite vertices decides the quad (cos^2 below sin^2 8 deg = 0.0194): (0,4): 1 and 3 at 0, cos^2
    /// 0.032, a bend (1,3); (1,4): 0 and 2 at 1, cos^2 0.123, a bend (0,2) (vertex 0 kinematic, 2 free: made);
    /// (2,4): 1 and 3 at 2, cos^2 0.0085, a shear (1,3) and the diagonal (2,4) a shear; (3,4): 2 and 0 at 3,
    /// cos^2 0.0074, a shear (2,0), the diagonal a shear, and (3,4) being the list's last entry, made again as
    /// a face edge. So (1,3) is made twice, as a bend and as a shear. `Optimize` (one group) sorts by the
    /// distance from vertex 0 (all straight: 4 at 0.75, 1 at 1, 3 at 1.118, 2 at 1.526), then the smallest
    /// vertex, then the creation index. Jolt itself makes 13 edges of these faces too (`jolt_rest` with
    /// `count_only`).
    #[test]
    fn an_irregular_fan_makes_jolts_constraints_in_jolts_order() {
        let positions =
            [(0.0, 0.0), (1.0, 0.0), (1.3, 0.8), (0.2, 1.1), (0.6, 0.45)].map(|(x, y)| Vec3::new(x, y, 0.0)).to_vec();
        let faces = [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]];
        let movable = [false, true, true, true, true];
        let made = create_constraints(&faces, &positions, &movable, JoltBend::Distance);
        use EdgeKind::{Bend, Edge, Shear};
        let expected = vec![
            ([0, 1], Edge),
            ([0, 3], Edge),
            ([1, 3], Bend),
            ([0, 4], Edge),
            ([1, 2], Edge),
            ([0, 2], Bend),
            ([1, 4], Edge),
            ([2, 3], Edge),
            ([1, 3], Shear),
            ([2, 4], Shear),
            ([2, 0], Shear),
            ([3, 4], Shear),
            ([3, 4], Edge),
        ];
        assert_eq!(made.edges, expected);
        let pairs: Vec<[usize; 2]> = made.edges.iter().map(|(p, _)| *p).collect();
        let created: Vec<usize> = (0..pairs.len()).collect();
        let inverse_masses = [0.0, 1.0, 1.0, 1.0, 1.0];
        let order = super::super::jolt::Order::optimize(&positions, &inverse_masses, &pairs, &created, &created, &[]);
        // Distance 0 (touching vertex 0), then 0.75 (vertex 4), 1 (vertex 1), 1.118 (vertex 3).
        assert_eq!(order.groups, vec![(vec![], vec![0, 1, 3, 5, 10, 6, 9, 11, 12, 2, 4, 8, 7])]);
    }

    /// The port of Jolt's QuickSort (its partition runs above 32 elements) sorts a long list with many equal
    /// keys and keeps every element.
    #[test]
    fn quick_sort_sorts() {
        let mut v: Vec<(u32, usize)> = (0..500).map(|i| (((i * 7919) % 97) as u32, i)).collect();
        quick_sort(&mut v, &|a: &(u32, usize), b: &(u32, usize)| a.0 < b.0);
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut ids: Vec<usize> = v.iter().map(|x| x.1).collect();
        ids.sort();
        assert_eq!(ids, (0..500).collect::<Vec<_>>());
    }
}
