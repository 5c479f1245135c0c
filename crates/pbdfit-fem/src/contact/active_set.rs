//! The contact solve's Newton iteration on one load increment: the primal-dual active set, stick and
//! slip, the projected Newton step and the split of the constraint forces into normal and friction
//! forces (the contact module's documentation, sections The method, Friction and Convergence).

use nalgebra::{Matrix3, Vector3};
use nalgebra_sparse::CscMatrix;
use pbdfit_mesh::obstacle::Shape;

use super::rigid_motion::slip_crossings;
use super::types::{ContactSetup, Failure, Pair, VertexConstraint};
use crate::materials::Material;
use crate::newton::{Admissible, Attempt, NewtonSettings, NewtonSystem, Trial, norm, note_solvers};
use crate::{FemError, StaticProblem, YoungPoisson};

/// The step's search: the full step, halved up to 12 times while an element would invert (the contact
/// solve is the Newton system `ContactIncrement` with [`NewtonSettings::CONTACT`]).
pub(super) const STEP_SEARCH: Admissible = Admissible { tries: 13 };

/// One load increment of the contact solve as a Newton system: the residual with the slip forces as
/// loads, projected on the free directions; the active set and the stick/slip states updated at each
/// iterate before it is evaluated.
pub(super) struct ContactIncrement<'a> {
    pub(super) problem: &'a StaticProblem,
    pub(super) law: &'a dyn Material,
    pub(super) material: YoungPoisson,
    pub(super) setup: &'a ContactSetup,
    /// The displacements at the increment's start (the slips are measured from them).
    pub(super) u_start: &'a [Vector3<f64>],
    pub(super) pairs: &'a mut [Pair],
    pub(super) to: f64,
    /// The obstacles at `to` and their moves over the increment.
    pub(super) shapes: Vec<Shape>,
    pub(super) moves: Vec<Vector3<f64>>,
    /// The gap a pair counts as touching within.
    pub(super) touch: f64,
    /// The stiffness of the constrained directions (the first tangent's mean diagonal).
    pub(super) c: f64,
    pub(super) solvers: Vec<&'static str>,
    /// Active-set changes in all, and at the last update; the largest change of a slip force there.
    pub(super) changes: usize,
    pub(super) changed: usize,
    pub(super) slip_change: f64,
    /// The last iterate's residual.
    pub(super) previous: f64,
}

/// The residual and what the step reads at an iterate.
pub(super) struct Evaluated {
    k: CscMatrix<f64>,
    pub(super) forces: Vec<Vector3<f64>>,
    r: Vec<f64>,
    constraints: Vec<Option<VertexConstraint>>,
    /// The force scale (external plus internal force norms), the projected relative residual, the largest
    /// gap error.
    scale: f64,
    pub(super) residual: f64,
    gap_error: f64,
}

/// Splits the constraint force `f` (N, in the constrained directions) of vertex `v` into normal
/// forces of its active pairs and, for a sticking pair, the friction force.
pub(crate) fn split_force(setup: &ContactSetup, v: usize, f: Vector3<f64>, pairs: &mut [Pair]) {
    let no = pairs.len();
    let mut remaining = f;
    // Rollers are bilateral and take their share first (their normal component).
    for (rv, n) in &setup.rollers {
        if *rv == v {
            remaining -= n * n.dot(&remaining);
        }
    }
    if let Some(j) = (0..no).find(|&j| pairs[j].active && pairs[j].stick) {
        let n = pairs[j].normal;
        pairs[j].lambda = n.dot(&remaining);
        pairs[j].friction = remaining - n * pairs[j].lambda;
        for (k, p) in pairs.iter_mut().enumerate() {
            if k != j && p.active {
                p.lambda = 0.0;
            }
        }
        return;
    }
    let active: Vec<usize> = (0..no).filter(|&j| pairs[j].active).collect();
    match active.len() {
        0 => {}
        1 => pairs[active[0]].lambda = pairs[active[0]].normal.dot(&remaining),
        _ => {
            // remaining = sum lambda_j n_j: least squares on the normals.
            let m = active.len();
            let mut g = nalgebra::DMatrix::<f64>::zeros(m, m);
            let mut b = nalgebra::DVector::<f64>::zeros(m);
            for (a, &ja) in active.iter().enumerate() {
                b[a] = pairs[ja].normal.dot(&remaining);
                for (bb, &jb) in active.iter().enumerate() {
                    g[(a, bb)] = pairs[ja].normal.dot(&pairs[jb].normal);
                }
            }
            let lambdas = g.clone().lu().solve(&b).unwrap_or(b);
            for (a, &ja) in active.iter().enumerate() {
                pairs[ja].lambda = lambdas[a];
            }
        }
    }
}

impl StaticProblem {
    /// The constrained directions and prescribed step of every vertex (`None`: free).
    fn vertex_constraints(
        &self,
        setup: &ContactSetup,
        u: &[Vector3<f64>],
        u_start: &[Vector3<f64>],
        pairs: &[Pair],
        moves: &[Vector3<f64>],
    ) -> Vec<Option<VertexConstraint>> {
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        let no = setup.obstacles.len();
        let mut out: Vec<Option<VertexConstraint>> = (0..nv).map(|_| None).collect();
        // Rows (normal, gap) per vertex.
        let mut rows: Vec<Vec<(Vector3<f64>, f64)>> = vec![Vec::new(); nv];
        for (v, n) in &setup.rollers {
            rows[*v].push((*n, n.dot(&u[*v])));
        }
        for v in 0..nv {
            if map.is_constrained(v) {
                continue;
            }
            let relative = |j: usize| setup.rest[v] + u[v] - setup.rest[v] - u_start[v] - moves[j];
            out[v] = vertex_constraint(&pairs[v * no..(v + 1) * no], std::mem::take(&mut rows[v]), relative);
        }
        out
    }
}

/// The constrained directions and prescribed step of a vertex whose pairs are `pairs` (one per obstacle),
/// with the bilateral `rows` (normal, gap) it has besides (rollers), `relative(j)` its move over the
/// increment less obstacle `j`'s (m); `None`: free. A vertex sticking to an obstacle is held in all three
/// directions and moves with it; otherwise each active pair's linearised gap is imposed.
pub(crate) fn vertex_constraint(
    pairs: &[Pair],
    mut rows: Vec<(Vector3<f64>, f64)>,
    relative: impl Fn(usize) -> Vector3<f64>,
) -> Option<VertexConstraint> {
    if let Some(j) = (0..pairs.len()).find(|&j| pairs[j].active && pairs[j].stick) {
        let p = &pairs[j];
        let n = p.normal;
        let relative = relative(j);
        let tangential = relative - n * n.dot(&relative);
        return Some(VertexConstraint {
            q: vec![Vector3::x(), Vector3::y(), Vector3::z()],
            prescribed: -n * p.gap - tangential,
        });
    }
    for p in pairs {
        if p.active {
            rows.push((p.normal, p.gap));
        }
    }
    if rows.is_empty() {
        return None;
    }
    // Orthonormal basis of the normals; the prescribed step is the least-norm step with
    // n_k . du = -g_k for every row.
    let mut q: Vec<Vector3<f64>> = Vec::new();
    for (n, _) in &rows {
        let mut e = *n;
        for b in &q {
            e -= b * b.dot(&e);
        }
        let l = e.norm();
        if l > 1e-8 && q.len() < 3 {
            q.push(e / l);
        }
    }
    let m = rows.len();
    let mut g = nalgebra::DMatrix::<f64>::zeros(m, m);
    let mut b = nalgebra::DVector::<f64>::zeros(m);
    for a in 0..m {
        b[a] = -rows[a].1;
        for c in 0..m {
            g[(a, c)] = rows[a].0.dot(&rows[c].0);
        }
    }
    let y = g.clone().pseudo_inverse(1e-12).map(|pinv| pinv * &b).unwrap_or(b);
    let prescribed = (0..m).fold(Vector3::zeros(), |acc, a| acc + rows[a].0 * y[a]);
    Some(VertexConstraint { q, prescribed })
}

/// The Newton matrix's extra block of a slipping pair at `x` (N/m): the slip force turning with the slip
/// (`mu_k lambda (P_n - s^ s^T) / |s|`, or `c` for a pair that has only just started to slip) and the
/// curved obstacle's turning normal (`-lambda` times the gap's Hessian), added to `extra` (the vertex's
/// block; `None` until a pair adds to it).
pub(crate) fn slip_block(p: &Pair, mu: f64, c: f64, shape: &Shape, x: &Vector3<f64>, extra: &mut Option<Matrix3<f64>>) {
    let s = p.slip.norm();
    if p.active && !p.stick && mu > 0.0 && p.lambda > 0.0 {
        let n = p.normal;
        let d = p.direction;
        // A pair that has only just started to slip (no slip yet) has an unbounded tangent
        // across its slip: the Newton matrix's own scale stands in for it this iteration.
        let across = if s > 0.0 { mu * p.lambda / s } else { c };
        let block = (Matrix3::identity() - n * n.transpose() - d * d.transpose()) * across;
        *extra.get_or_insert_with(Matrix3::zeros) += block;
    }
    // A curved obstacle turns its normal as the vertex moves along it: the Lagrangian's
    // Hessian holds -lambda d n / d x (the shape's gap Hessian; for a sphere
    // +-(I - n n^T) / |x - c|), which keeps Newton quadratic on it. Planes and box faces
    // have none.
    if p.active
        && !p.stick
        && p.lambda > 0.0
        && let Some(block) = shape.gap_hessian_times(x, &p.normal, -p.lambda)
    {
        *extra.get_or_insert_with(Matrix3::zeros) += block;
    }
}

fn mean_diagonal(k: &CscMatrix<f64>) -> f64 {
    let n = k.nrows().max(1);
    let sum: f64 = k.diagonal_as_csc().values().iter().map(|d| d.abs()).sum();
    let mean = sum / n as f64;
    if mean > 0.0 { mean } else { 1.0 }
}

/// `P_v` applied to `x`'s block of every constrained vertex (removes the constrained directions).
fn project(x: &mut [f64], map: &crate::assembly::DofMap, constraints: &[Option<VertexConstraint>]) {
    for (v, c) in constraints.iter().enumerate() {
        let (Some(c), Some(d)) = (c, map.dof(v, 0)) else { continue };
        let mut b = Vector3::new(x[d], x[d + 1], x[d + 2]);
        for q in &c.q {
            b -= q * q.dot(&b);
        }
        x[d..d + 3].copy_from_slice(b.as_slice());
    }
}

fn projected_norm(r: &[f64], map: &crate::assembly::DofMap, constraints: &[Option<VertexConstraint>]) -> f64 {
    let mut x = r.to_vec();
    project(&mut x, map, constraints);
    norm(&x)
}

/// `T (K + E) T + D` with `E` the slip tangent's diagonal blocks `extra`, `T = diag(P_v)`, `D = stiffness diag(Q_v Q_v^T)` (N/m, so that `D` is of `K`'s size), in `K`'s pattern (3 x 3 vertex blocks).
fn transformed(
    k: &CscMatrix<f64>,
    map: &crate::assembly::DofMap,
    constraints: &[Option<VertexConstraint>],
    extra: &[Option<Matrix3<f64>>],
    stiffness: f64,
) -> CscMatrix<f64> {
    let nv = map.vertices();
    let mut vertex_of = vec![usize::MAX; map.dofs()];
    let mut projector: Vec<Option<Matrix3<f64>>> = vec![None; nv];
    for v in 0..nv {
        if let Some(d) = map.dof(v, 0) {
            vertex_of[d] = v;
            if let Some(c) = &constraints[v] {
                let qq = c.q.iter().fold(Matrix3::zeros(), |acc, q| acc + q * q.transpose());
                projector[v] = Some(Matrix3::identity() - qq);
            }
        }
    }
    let mut a = k.clone();
    let (offsets, rows, values) = a.csc_data_mut();
    let offsets = offsets.to_vec();
    let rows = rows.to_vec();
    for col in (0..map.dofs()).step_by(3) {
        let b = vertex_of[col];
        let begin = offsets[col];
        let stride = offsets[col + 1] - begin;
        for idx in (0..stride).step_by(3) {
            let a_vertex = vertex_of[rows[begin + idx]];
            let (pa, pb) = (projector[a_vertex], projector[b]);
            let added = if a_vertex == b { extra[b] } else { None };
            if pa.is_none() && pb.is_none() && added.is_none() {
                continue;
            }
            let at = |i: usize, j: usize| begin + idx + j * stride + i;
            let block = Matrix3::from_fn(|i, j| values[at(i, j)]);
            let mut out = block + added.unwrap_or_else(Matrix3::zeros);
            if let Some(p) = pb {
                out *= p;
            }
            if let Some(p) = pa {
                out = p * out;
            }
            if a_vertex == b
                && let Some(p) = pa
            {
                out += (Matrix3::identity() - p) * stiffness;
            }
            for j in 0..3 {
                for i in 0..3 {
                    values[at(i, j)] = out[(i, j)];
                }
            }
        }
    }
    a
}

impl NewtonSystem for ContactIncrement<'_> {
    type State = Vec<Vector3<f64>>;
    type Evaluation = Evaluated;
    type Failure = Failure;

    /// Gaps, normals and slips at the iterate; which pairs are active, which stick and which slip, and
    /// the slip forces.
    fn update_active_set(&mut self, iteration: usize, u: &Self::State) {
        let map = self.problem.assembler.dof_map();
        let (setup, no) = (self.setup, self.setup.obstacles.len());
        let mut changed = 0;
        let mut new_slip_change: f64 = 0.0;
        for v in 0..map.vertices() {
            if map.is_constrained(v) {
                continue;
            }
            let x = setup.rest[v] + u[v];
            let x_start = setup.rest[v] + self.u_start[v];
            let mut friction_taken = false;
            for j in 0..no {
                let p = &mut self.pairs[v * no + j];
                let gap = self.shapes[j].gap(&x);
                let relative = x - x_start - self.moves[j];
                let (flip, slip_change) = p.update(
                    iteration,
                    gap,
                    relative,
                    (self.c, self.touch),
                    setup.obstacles[j].friction,
                    &mut friction_taken,
                );
                changed += usize::from(flip);
                if let Some(change) = slip_change {
                    new_slip_change = new_slip_change.max(change);
                }
            }
        }
        self.changed = changed;
        if iteration > 0 {
            self.changes += changed;
            self.slip_change = new_slip_change;
        }
    }

    /// The residual with the slip forces as loads, projected on the free directions.
    fn evaluate(&mut self, iteration: usize, u: &Self::State) -> Attempt<Evaluated, Failure> {
        let problem = self.problem;
        let map = problem.assembler.dof_map();
        let (nv, no, to) = (map.vertices(), self.setup.obstacles.len(), self.to);
        let (k, forces) = match problem.assembler.nonlinear_system(self.law, self.material, u) {
            Ok(x) => x,
            Err(FemError::InvertedElement { tet, det, .. }) => {
                return Ok(Err(Failure {
                    iterations: iteration,
                    residual: f64::INFINITY,
                    changes: self.changes,
                    error: Some(FemError::InvertedElement { tet, det, load: Some(to) }),
                }));
            }
            Err(e) => return Err(e),
        };
        if self.c == 0.0 {
            self.c = mean_diagonal(&k);
        }
        let mut external: Vec<Vector3<f64>> = problem.loads.iter().map(|f| f * to).collect();
        for v in 0..nv {
            for j in 0..no {
                let p = &self.pairs[v * no + j];
                if p.active && !p.stick {
                    external[v] += p.friction;
                }
            }
        }
        let mut r = vec![0.0; map.dofs()];
        for v in 0..nv {
            if let Some(d) = map.dof(v, 0) {
                for i in 0..3 {
                    r[d + i] = forces[v][i] - external[v][i];
                }
            }
        }
        let constraints = problem.vertex_constraints(self.setup, u, self.u_start, self.pairs, &self.moves);
        let free = || (0..nv).filter(|&v| !map.is_constrained(v));
        let ext: f64 = free().map(|v| (problem.loads[v] * to).norm_squared()).sum::<f64>().sqrt();
        let int: f64 = free().map(|v| forces[v].norm_squared()).sum::<f64>().sqrt();
        let scale = ext + int;
        let projected = projected_norm(&r, map, &constraints);
        let residual = if scale > 0.0 { projected / scale } else { 0.0 };
        let gap_error = constraints.iter().flatten().map(|c| c.prescribed.norm()).fold(0.0, f64::max);
        let gap_error = gap_error.max(
            (0..nv)
                .flat_map(|v| (0..no).map(move |j| (v, j)))
                .filter(|&(v, j)| self.pairs[v * no + j].active && !map.is_constrained(v))
                .map(|(v, j)| self.pairs[v * no + j].gap.abs())
                .fold(0.0, f64::max),
        );
        Ok(Ok(Evaluated { k, forces, r, constraints, scale, residual, gap_error }))
    }

    /// The residual settled (within the tolerance, or at the round-off floor), with the active set, the
    /// slip forces and the gaps.
    fn converged(&mut self, iteration: usize, _: &Self::State, at: &Evaluated, newton: &NewtonSettings) -> bool {
        // The round-off floor, as in Newton's method without contact: a residual within the round-off
        // factor of the tolerance that a full step no longer halves (a graded mesh's conditioning: the
        // Hertz mesh at m = 18 stalls at 1.2e-10) counts as converged.
        let residual = at.residual;
        let floor = residual <= newton.round_off_tolerance() && residual > 0.5 * self.previous;
        let settled = residual <= newton.relative_tolerance || (iteration > 1 && floor);
        self.previous = residual;
        iteration > 0
            && self.changed == 0
            && settled
            && self.slip_change <= newton.relative_tolerance * at.scale.max(f64::MIN_POSITIVE)
            && at.gap_error <= self.touch
    }

    /// The projected Newton step, after the check that the body cannot move rigidly; the constraint
    /// forces of the linearised equilibrium split into the pairs' normal and friction forces.
    fn step(&mut self, iteration: usize, u: &Self::State, at: &Evaluated) -> Attempt<Vec<f64>, Failure> {
        let (problem, setup, to) = (self.problem, self.setup, self.to);
        let map = problem.assembler.dof_map();
        let (nv, no) = (map.vertices(), setup.obstacles.len());
        let (k, r, constraints, c) = (&at.k, &at.r, &at.constraints, self.c);
        // Rigid motion must be stopped by held vertices and constraints, or by slipping contacts whose
        // friction can hold the body (see the module documentation).
        if let Some(free) = problem.free_rigid_motion(setup, constraints, &[]) {
            let pairs = &*self.pairs;
            let slipping = pairs.iter().filter(|p| p.active && !p.stick && p.friction != Vector3::zeros()).count();
            let contacts = pairs.iter().filter(|p| p.active).count();
            if slipping == 0 {
                // Whether a touching obstacle has friction already: then the remedy is to hold the body,
                // not to give friction (the advice once went to an obstacle with mu_s = 0.5).
                let frictional = pairs
                    .iter()
                    .enumerate()
                    .any(|(k, p)| p.active && !setup.obstacles[k % no].friction.is_frictionless());
                return Err(FemError::FreeRigidMotion { free, contacts, load: to, frictional });
            }
            let across = slip_crossings(setup, pairs);
            let pinned = problem.free_rigid_motion(setup, constraints, &across).is_none();
            if !pinned || problem.friction_cannot_hold(setup, constraints, pairs, to) {
                return Err(FemError::Sliding { load: to, slipping, contacts });
            }
        }
        let mut prescribed = vec![0.0; map.dofs()];
        for (v, c) in constraints.iter().enumerate() {
            if let (Some(c), Some(d)) = (c, map.dof(v, 0)) {
                prescribed[d..d + 3].copy_from_slice(c.prescribed.as_slice());
            }
        }
        let mut kp = vec![0.0; map.dofs()];
        crate::solver::multiply(k, &prescribed, &mut kp);
        let mut rhs: Vec<f64> = r.iter().zip(&kp).map(|(a, b)| -(a + b)).collect();
        project(&mut rhs, map, constraints);
        // The slip force's direction follows the slip: d(-mu_k lambda s/|s|)/du = -mu_k lambda (P_n - s^ s^T)/|s|
        // P_n, symmetric and positive semidefinite in the residual's tangent (lambda held: the normal force
        // converges by the fixed point).
        let mut extra: Vec<Option<Matrix3<f64>>> = vec![None; nv];
        for v in 0..nv {
            for j in 0..no {
                let mu = setup.obstacles[j].friction.kinetic_coefficient;
                let x = setup.rest[v] + u[v];
                slip_block(&self.pairs[v * no + j], mu, c, &self.shapes[j], &x, &mut extra[v]);
            }
        }
        let a = transformed(k, map, constraints, &extra, c);
        let (w, solver) = match problem.linear_solve(&a, &rhs) {
            Ok(x) => x,
            Err(FemError::NotPositiveDefinite { .. } | FemError::Solver { .. }) => {
                return Ok(Err(self.failure(iteration, at)));
            }
            Err(e) => return Err(e),
        };
        note_solvers(&mut self.solvers, [solver]);
        let mut step = w;
        project(&mut step, map, constraints);
        step.iter_mut().zip(&prescribed).for_each(|(s, p)| *s += p);
        // Contact forces of the linearised equilibrium: r + K du at constrained vertices.
        let mut kd = vec![0.0; map.dofs()];
        crate::solver::multiply(k, &step, &mut kd);
        for v in 0..nv {
            let Some(d) = map.dof(v, 0) else { continue };
            let Some(con) = &constraints[v] else { continue };
            let f = Vector3::new(r[d] + kd[d], r[d + 1] + kd[d + 1], r[d + 2] + kd[d + 2]);
            let f = con.q.iter().fold(Vector3::zeros(), |acc, q| acc + q * q.dot(&f));
            split_force(setup, v, f, &mut self.pairs[v * no..(v + 1) * no]);
        }
        Ok(Ok(step))
    }

    /// The step, admissible where no element inverts, for a law that needs positive volume.
    fn trial(&mut self, u: &Self::State, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        let next = self.problem.update(u, step, alpha);
        let admissible = !self.law.needs_positive_volume()
            || !self
                .problem
                .assembler
                .deformation_gradients(&next)
                .iter()
                .any(|f| f.determinant().is_nan() || f.determinant() <= 0.0);
        Ok(admissible.then_some(((next, None), f64::NAN)))
    }

    fn failure(&mut self, iterations: usize, at: &Evaluated) -> Failure {
        Failure { iterations, residual: at.residual, changes: self.changes, error: None }
    }
}
