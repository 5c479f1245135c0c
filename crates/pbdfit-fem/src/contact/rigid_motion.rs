//! Rigid motion of a contact problem: whether the held vertices and the contact constraints stop all
//! six rigid motions, and where they do not, whether slipping friction can still hold the body (the
//! contact module's documentation, section Rigid motion).

use nalgebra::{Matrix6, SymmetricEigen, Vector3, Vector6};

use super::types::{ContactSetup, Pair, VertexConstraint};
use crate::StaticProblem;

/// Smallest eigenvalue of the rigid-mode Gram matrix, relative to its largest, below which a rigid
/// motion counts as free.
const RIGID_TOLERANCE: f64 = 1e-10;

impl StaticProblem {
    /// The number of rigid motions (of six) the held vertices, `constraints` and the extra directions
    /// `across` (vertex, unit direction) leave free, if any.
    pub(super) fn free_rigid_motion(
        &self,
        setup: &ContactSetup,
        constraints: &[Option<VertexConstraint>],
        across: &[(usize, Vector3<f64>)],
    ) -> Option<usize> {
        let map = self.assembler.dof_map();
        free_rigid_motion(setup, &|v| map.is_constrained(v), &Matrix6::zeros(), constraints, across)
    }

    /// [`friction_cannot_hold`] for this problem's held vertices and its loads at the load factor `to`.
    pub(super) fn friction_cannot_hold(
        &self,
        setup: &ContactSetup,
        constraints: &[Option<VertexConstraint>],
        pairs: &[Pair],
        to: f64,
    ) -> bool {
        let map = self.assembler.dof_map();
        friction_cannot_hold(
            setup,
            &|v| map.is_constrained(v),
            &Matrix6::zeros(),
            &|v| self.loads[v] * to,
            constraints,
            pairs,
        )
    }
}

/// The number of rigid motions (of six) the vertices whose translations are `held`, `constraints` (one per
/// vertex) and the extra directions `across` (vertex, unit direction) leave free, if any; `base` is the
/// Gram matrix of whatever else holds the body (a shell's fixed rotations; zero for a solid), in
/// [`rigid_row`]'s terms.
pub(crate) fn free_rigid_motion(
    setup: &ContactSetup,
    held: &dyn Fn(usize) -> bool,
    base: &Matrix6<f64>,
    constraints: &[Option<VertexConstraint>],
    across: &[(usize, Vector3<f64>)],
) -> Option<usize> {
    let gram = rigid_gram(setup, held, base, constraints, across)?;
    let eigen = SymmetricEigen::new(gram).eigenvalues;
    let largest = eigen.max();
    let free = eigen.iter().filter(|&&e| e.is_nan() || e <= RIGID_TOLERANCE * largest).count();
    (free > 0 || largest <= 0.0).then_some(free.max(1))
}

/// Whether the load moves the body along a rigid motion that the `held` vertices and `constraints`
/// leave free by more than slipping friction can resist: for a free mode with velocity `v_i` at vertex
/// `i`, the load's power `|sum f_i . v_i|` exceeds `sum mu_k lambda_j |P_t v_j|` over the slipping
/// pairs `j` (their friction at its kinetic limit, each in its best direction). Then no distribution
/// of friction balances the load: the body slides. A mode the load does not drive (a resting body's
/// sideways motion, whose slipping corners pull against each other) passes.
/// The load on vertex `v` is `load(v)` (N).
pub(crate) fn friction_cannot_hold(
    setup: &ContactSetup,
    held: &dyn Fn(usize) -> bool,
    base: &Matrix6<f64>,
    load: &dyn Fn(usize) -> Vector3<f64>,
    constraints: &[Option<VertexConstraint>],
    pairs: &[Pair],
) -> bool {
    let Some(gram) = rigid_gram(setup, held, base, constraints, &[]) else { return false };
    let nv = setup.rest.len();
    let no = setup.obstacles.len();
    let centre = setup.rest.iter().sum::<Vector3<f64>>() / nv as f64;
    let scale = setup.size.max(f64::MIN_POSITIVE);
    let eigen = SymmetricEigen::new(gram);
    let largest = eigen.eigenvalues.max();
    (0..6).filter(|&k| eigen.eigenvalues[k].is_nan() || eigen.eigenvalues[k] <= RIGID_TOLERANCE * largest).any(|k| {
        let mode = eigen.eigenvectors.column(k);
        let t = Vector3::new(mode[0], mode[1], mode[2]);
        let w = Vector3::new(mode[3], mode[4], mode[5]);
        let velocity = |v: usize| t + w.cross(&((setup.rest[v] - centre) / scale));
        let power: f64 = (0..nv).map(|v| load(v).dot(&velocity(v))).sum();
        let capacity: f64 = (0..nv)
            .flat_map(|v| (0..no).map(move |j| (v, j)))
            .filter(|&(v, j)| pairs[v * no + j].active && !pairs[v * no + j].stick)
            .map(|(v, j)| {
                let p = &pairs[v * no + j];
                let vel = velocity(v);
                let tangential = vel - p.normal * p.normal.dot(&vel);
                setup.obstacles[j].friction.kinetic_coefficient * p.lambda.max(0.0) * tangential.norm()
            })
            .sum();
        power.abs() > capacity * (1.0 + 1e-9)
    })
}

/// The 6 x 6 Gram matrix of the constrained directions against the rigid modes (translations, then
/// rotations about the rest centroid in units of the body's size); `None` without rest positions.
fn rigid_gram(
    setup: &ContactSetup,
    held: &dyn Fn(usize) -> bool,
    base: &Matrix6<f64>,
    constraints: &[Option<VertexConstraint>],
    across: &[(usize, Vector3<f64>)],
) -> Option<Matrix6<f64>> {
    let nv = constraints.len();
    if setup.rest.len() != nv {
        return None;
    }
    let centre = rigid_centre(setup);
    let mut gram = *base;
    let mut add = |v: usize, d: Vector3<f64>| {
        let row = rigid_row(setup, &centre, v, d);
        gram += row * row.transpose();
    };
    for v in 0..nv {
        if held(v) {
            for d in [Vector3::x(), Vector3::y(), Vector3::z()] {
                add(v, d);
            }
        } else if let Some(c) = &constraints[v] {
            for q in &c.q {
                add(v, *q);
            }
        }
    }
    for (v, d) in across {
        add(*v, *d);
    }
    Some(gram)
}

/// The centre the rigid rotations turn about: the rest centroid (m).
pub(crate) fn rigid_centre(setup: &ContactSetup) -> Vector3<f64> {
    setup.rest.iter().sum::<Vector3<f64>>() / setup.rest.len().max(1) as f64
}

/// The rate at which the unit direction `d` at vertex `v` moves under each rigid motion: translations,
/// then rotations about `centre` in units of the body's size (`d . (t + w x X) = d . t + w . (X x d)`).
pub(crate) fn rigid_row(setup: &ContactSetup, centre: &Vector3<f64>, v: usize, d: Vector3<f64>) -> Vector6<f64> {
    let scale = setup.size.max(f64::MIN_POSITIVE);
    let x = (setup.rest[v] - centre) / scale;
    Vector6::new(d.x, d.y, d.z, 0.0, 0.0, 0.0) + {
        let c = x.cross(&d);
        Vector6::new(0.0, 0.0, 0.0, c.x, c.y, c.z)
    }
}

/// The directions across the slip of every slipping pair with friction, normal force and slip
/// (`n x s^`): the slip tangent of the Newton matrix (module documentation) stiffens them, because
/// moving a slipping vertex across its slip turns its friction force against the move.
pub(crate) fn slip_crossings(setup: &ContactSetup, pairs: &[Pair]) -> Vec<(usize, Vector3<f64>)> {
    let no = setup.obstacles.len().max(1);
    pairs
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            p.active && !p.stick && p.lambda > 0.0 && setup.obstacles[i % no].friction.kinetic_coefficient > 0.0
        })
        .filter_map(|(i, p)| {
            let d = p.normal.cross(&p.direction);
            let l = d.norm();
            (l > 1e-8).then(|| (i / no, d / l))
        })
        .collect()
}
