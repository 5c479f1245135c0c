//! The corotational shell's static equilibrium with unilateral contact and Coulomb friction against
//! rigid obstacles (a sheet resting on a plane, draped over a sphere).
//!
//! Contact acts on the vertices' translations only: a node's rotations are free (an obstacle pushes on
//! the sheet's mid-surface, at its nodes). The method is the solids' (`contact/`, whose module
//! documentation is the reference): the primal-dual active set as a semi-smooth Newton method, a
//! sticking pair held in all three directions and moving with its obstacle, a slipping one loaded by
//! its kinetic friction force opposite the slip with the slip's tangent in the Newton matrix, a curved
//! obstacle's turning normal in it too, the load in equal increments where friction makes it path
//! dependent. The per-pair logic is the solids' own code (`Pair::update`, `vertex_constraint`,
//! `slip_block`, `split_force`, the rigid-motion checks of `contact/rigid_motion.rs`), reused over the
//! shell's system: what differs is the system, six DOFs per node (the translations of a node are three
//! of its reduced DOFs), the shell's consistent tangent (not symmetric, so the projected matrix
//! `T (K + E) T + D` is formed by sparse products and solved by the sparse LU) and its state (positions
//! and rotations, the spins composed). A vertex with any translation fixed takes no contact.
//!
//! A sheet held by obstacles alone must have its rigid motions stopped by the contacts, as a solid's:
//! a sheet on a frictionless plane can slide and turn in it ([`FemError::FreeRigidMotion`]); a sheet
//! only touching a sphere's apex turns about it. Fixed DOFs count (a clamped vertex stops them all).
//!
//! Converged as the solids' increment: the active set and stick/slip states unchanged, the residual
//! projected off the constrained directions within the shell's tolerance (or stalled at round-off, the
//! shell's test), the slip forces settled, every active gap within
//! [`GAP_TOLERANCE`](crate::GAP_TOLERANCE) times the sheet's size of zero.

use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};
use nalgebra_sparse::{CooMatrix, CscMatrix};
use pbdfit_mesh::Obstacle;
use pbdfit_mesh::obstacle::Shape;

use super::corotational::{SEARCH, settled};
use super::{CorotationalShell, CorotationalSolution, NODE_DOFS, ShellConstraints, ShellError, ShellLoad, ShellState};
use super::{ShellSolution, reduced_dead_load};
use crate::contact::{
    ContactSetup, Pair, VertexConstraint, free_rigid_motion, friction_cannot_hold, rigid_centre, rigid_row, slip_block,
    slip_crossings, split_force, vertex_constraint,
};
use crate::newton::{Attempt, Growth, NewtonSettings, NewtonSystem, Outcome, Trial, newton, norm};
use crate::solver::{FaerLu, LinearSolver};
use crate::{ContactForce, ContactSettings, FemError, GAP_TOLERANCE};

/// The last increment ends at the whole load when it reaches to within this of it.
const SNAP: f64 = 1e-12;

/// A sheet's static equilibrium with contact.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellContactSolution {
    /// The configuration, its displacements and the increments, halvings and iterations.
    pub solution: CorotationalSolution,
    /// Every vertex-obstacle pair in contact or within [`GAP_TOLERANCE`] times the sheet's size of it,
    /// ordered by vertex, then obstacle (forces on the sheet, N; gaps, m).
    pub contacts: Vec<ContactForce>,
    /// The supports' forces on the sheet at every vertex with a fixed DOF (N on the translations, N m on
    /// the rotations; zero on a free DOF): `f_int - f_ext` there.
    pub reactions: Vec<(usize, [f64; NODE_DOFS])>,
}

impl ShellContactSolution {
    /// The sum of all contact forces on the sheet (N).
    pub fn total_contact_force(&self) -> Vector3<f64> {
        self.contacts.iter().map(ContactForce::force).sum()
    }

    /// The sum of the supports' forces on the sheet (N).
    pub fn total_reaction(&self) -> Vector3<f64> {
        self.reactions.iter().map(|(_, r)| Vector3::new(r[0], r[1], r[2])).sum()
    }
}

/// The supports' forces per vertex with a fixed DOF (see [`ShellContactSolution::reactions`]).
type Reactions = Vec<(usize, [f64; NODE_DOFS])>;

/// Whether vertex `v` has a fixed translation (then it takes no contact).
fn held(constraints: &ShellConstraints, v: usize) -> bool {
    (0..3).any(|k| constraints.fixed[v][k])
}

impl CorotationalShell {
    /// The equilibrium under `load` with `constraints` and `obstacles` (at their places for the load
    /// factor: [`Obstacle::at`]), by the active-set Newton method with load stepping (the module
    /// documentation). Fixed DOFs need not stop every rigid motion: the contacts may.
    pub fn solve_contact(
        &self,
        constraints: &ShellConstraints,
        load: &ShellLoad,
        obstacles: &[Obstacle],
        settings: &ContactSettings,
    ) -> Result<ShellContactSolution, ShellError> {
        self.linear.check_lists(constraints, load)?;
        if load.follower.iter().any(|&p| p != 0.0) {
            return Err(ShellError::FollowerContact);
        }
        let (reduced, free, external) = reduced_dead_load(constraints, load)?;
        let setup = ContactSetup::new(&self.rest, obstacles.to_vec());
        let base = self.fixed_gram(&setup, constraints);
        let friction = obstacles.iter().any(|o| !o.friction.is_frictionless());
        let newton_settings = settings.newton;
        let stepping = if friction {
            newton_settings.load_stepping(1.0 / settings.friction_increments.max(1) as f64, SNAP, Growth::Repeat)
        } else {
            newton_settings.load_stepping(1.0 / newton_settings.initial_increments.max(1) as f64, SNAP, Growth::Double)
        };
        let (nv, no) = (self.rest.len(), obstacles.len());
        let mut pairs = vec![Pair::default(); nv * no];
        let mut solution = CorotationalSolution {
            state: self.rest_state(),
            displacements: ShellSolution { displacements: Vec::new() },
            increments: 0,
            halvings: 0,
            iterations: 0,
        };
        let mut reached = 0.0;
        let halvings = stepping
            .run(
                |from, to| {
                    let mut start = solution.state.clone();
                    for (v, p) in start.positions.iter_mut().enumerate() {
                        for k in 0..3 {
                            if constraints.fixed[v][k] {
                                p[k] = self.rest[v][k] + to * constraints.values[v][k];
                            }
                        }
                    }
                    let mut trial_pairs = pairs.clone();
                    let mut system = ShellContact {
                        shell: self,
                        constraints,
                        reduced: &reduced,
                        free,
                        external: external.iter().map(|f| to * f).collect(),
                        setup: &setup,
                        base: &base,
                        start: solution.state.positions.clone(),
                        pairs: &mut trial_pairs,
                        to,
                        shapes: obstacles.iter().map(|o| o.at(to)).collect(),
                        moves: obstacles.iter().map(|o| o.displacement * (to - from)).collect(),
                        touch: GAP_TOLERANCE * setup.size,
                        c: 0.0,
                        changes: 0,
                        changed: 0,
                        slip_change: 0.0,
                        previous: f64::INFINITY,
                    };
                    Ok(match newton(&mut system, &SEARCH, &newton_settings, start)? {
                        Ok((iterations, next, _)) => {
                            solution.iterations += iterations;
                            solution.increments += 1;
                            solution.state = next;
                            pairs = trial_pairs;
                            reached = to;
                            Outcome::Converged
                        }
                        Err(failure) => {
                            solution.iterations += failure.1;
                            Outcome::Failed(failure)
                        }
                    })
                },
                |(residual, iterations, changes), to, _| FemError::ContactNotConverged {
                    load: to,
                    iterations,
                    residual,
                    changes,
                },
            )
            .map_err(ShellError::Fem)?;
        solution.halvings = halvings;
        solution.displacements = self.displacements(&solution.state);
        let (contacts, reactions) = self.contact_report(constraints, load, &setup, &pairs, &solution.state, reached)?;
        Ok(ShellContactSolution { solution, contacts, reactions })
    }

    /// The Gram matrix (in the contact's rigid-motion terms) of the fixed DOFs: a fixed translation
    /// component as a direction at its vertex, a fixed rotation component as that rotation.
    fn fixed_gram(&self, setup: &ContactSetup, constraints: &ShellConstraints) -> Matrix6<f64> {
        let centre = rigid_centre(setup);
        let mut gram = Matrix6::zeros();
        for (v, fixed) in constraints.fixed.iter().enumerate() {
            for k in (0..NODE_DOFS).filter(|&k| fixed[k]) {
                let row = if k < 3 { rigid_row(setup, &centre, v, Vector3::ith(k, 1.0)) } else { Vector6::ith(k, 1.0) };
                gram += row * row.transpose();
            }
        }
        gram
    }

    /// The contacts and reactions at the converged `state` for the load factor `t`.
    fn contact_report(
        &self,
        constraints: &ShellConstraints,
        load: &ShellLoad,
        setup: &ContactSetup,
        pairs: &[Pair],
        state: &ShellState,
        t: f64,
    ) -> Result<(Vec<ContactForce>, Reactions), ShellError> {
        let (nv, no) = (self.rest.len(), setup.obstacles.len());
        let touch = GAP_TOLERANCE * setup.size;
        let mut contacts = Vec::new();
        for v in (0..nv).filter(|&v| !held(constraints, v)) {
            contacts.extend((0..no).filter_map(|j| pairs[v * no + j].reported(v, j, touch)));
        }
        let (_, forces) = self.internal_forces(state)?;
        let reactions = (0..nv)
            .filter(|&v| constraints.fixed[v].iter().any(|&f| f))
            .map(|v| {
                let mut r = [0.0; NODE_DOFS];
                for k in (0..NODE_DOFS).filter(|&k| constraints.fixed[v][k]) {
                    r[k] = forces[v][k] - t * load.nodal[v][k];
                }
                (v, r)
            })
            .collect();
        Ok((contacts, reactions))
    }
}

/// One load increment of the shell's contact solve as a Newton system.
struct ShellContact<'a> {
    shell: &'a CorotationalShell,
    constraints: &'a ShellConstraints,
    reduced: &'a [usize],
    free: usize,
    /// The load at this increment's factor over the free DOFs (N, N m).
    external: Vec<f64>,
    setup: &'a ContactSetup,
    /// The fixed DOFs' rigid-motion Gram matrix.
    base: &'a Matrix6<f64>,
    /// The positions at the increment's start (the slips are measured from them), m.
    start: Vec<Vector3<f64>>,
    pairs: &'a mut [Pair],
    to: f64,
    shapes: Vec<Shape>,
    moves: Vec<Vector3<f64>>,
    touch: f64,
    /// The constrained directions' stiffness (the first tangent's mean diagonal), N/m.
    c: f64,
    changes: usize,
    changed: usize,
    slip_change: f64,
    previous: f64,
}

/// The residual over the free DOFs, the vertices' constraints, the force scale, the projected relative
/// residual and the largest gap error.
struct Evaluated {
    r: Vec<f64>,
    constraints: Vec<Option<VertexConstraint>>,
    scale: f64,
    residual: f64,
    gap_error: f64,
}

/// The relative residual, the iterations and the active-set changes of a failed increment.
type Failure = (f64, usize, usize);

impl ShellContact<'_> {
    /// The first reduced DOF of vertex `v`'s translations, where all three are free.
    fn translation(&self, v: usize) -> Option<usize> {
        let d = self.reduced[NODE_DOFS * v];
        (d != usize::MAX && !held(self.constraints, v)).then_some(d)
    }

    /// `x` with the constrained directions of every constrained vertex removed.
    fn project(&self, x: &mut [f64], constraints: &[Option<VertexConstraint>]) {
        for (v, c) in constraints.iter().enumerate() {
            let (Some(c), Some(d)) = (c, self.translation(v)) else { continue };
            let mut b = Vector3::new(x[d], x[d + 1], x[d + 2]);
            for q in &c.q {
                b -= q * q.dot(&b);
            }
            x[d..d + 3].copy_from_slice(b.as_slice());
        }
    }

    fn failure_of(&self, iterations: usize, residual: f64) -> Failure {
        (residual, iterations, self.changes)
    }
}

impl NewtonSystem for ShellContact<'_> {
    type State = ShellState;
    type Evaluation = Evaluated;
    type Failure = Failure;

    fn update_active_set(&mut self, iteration: usize, state: &ShellState) {
        let no = self.setup.obstacles.len();
        let (mut changed, mut slip_change) = (0, 0.0f64);
        for v in (0..self.shell.rest.len()).filter(|&v| !held(self.constraints, v)) {
            let x = state.positions[v];
            let mut friction_taken = false;
            for j in 0..no {
                let gap = self.shapes[j].gap(&x);
                let relative = x - self.start[v] - self.moves[j];
                let (flip, change) = self.pairs[v * no + j].update(
                    iteration,
                    gap,
                    relative,
                    (self.c, self.touch),
                    self.setup.obstacles[j].friction,
                    &mut friction_taken,
                );
                changed += usize::from(flip);
                if let Some(change) = change {
                    slip_change = slip_change.max(change);
                }
            }
        }
        self.changed = changed;
        if iteration > 0 {
            self.changes += changed;
            self.slip_change = slip_change;
        }
    }

    fn evaluate(&mut self, iteration: usize, state: &ShellState) -> Attempt<Evaluated, Failure> {
        let nv = self.shell.rest.len();
        let no = self.setup.obstacles.len();
        let forces = match self.shell.internal_forces(state) {
            Ok((_, forces)) => forces,
            Err(ShellError::DegenerateFacet { .. }) => return Ok(Err(self.failure_of(iteration, f64::INFINITY))),
            Err(ShellError::Fem(e)) => return Err(e),
            Err(other) => return Err(FemError::Solver { solver: "corotational shell", detail: other.to_string() }),
        };
        let mut r: Vec<f64> = self.external.iter().map(|f| -f).collect();
        let mut internal = vec![0.0; self.free];
        for (i, &ri) in self.reduced.iter().enumerate() {
            if ri != usize::MAX {
                internal[ri] = forces[i / NODE_DOFS][i % NODE_DOFS];
                r[ri] += internal[ri];
            }
        }
        for v in 0..nv {
            let Some(d) = self.translation(v) else { continue };
            for j in 0..no {
                let p = &self.pairs[v * no + j];
                if p.active && !p.stick {
                    for k in 0..3 {
                        r[d + k] -= p.friction[k];
                    }
                }
            }
        }
        let constraints: Vec<Option<VertexConstraint>> = (0..nv)
            .map(|v| {
                self.translation(v)?;
                let x = state.positions[v];
                let relative = |j: usize| x - self.start[v] - self.moves[j];
                vertex_constraint(&self.pairs[v * no..(v + 1) * no], Vec::new(), relative)
            })
            .collect();
        let scale = norm(&self.external) + norm(&internal);
        let mut projected = r.clone();
        self.project(&mut projected, &constraints);
        let residual = if scale > 0.0 { norm(&projected) / scale } else { 0.0 };
        let mut gap_error = constraints.iter().flatten().map(|c| c.prescribed.norm()).fold(0.0, f64::max);
        for v in (0..nv).filter(|&v| self.translation(v).is_some()) {
            for p in self.pairs[v * no..(v + 1) * no].iter().filter(|p| p.active) {
                gap_error = gap_error.max(p.gap.abs());
            }
        }
        Ok(Ok(Evaluated { r, constraints, scale, residual, gap_error }))
    }

    fn converged(&mut self, iteration: usize, _: &ShellState, at: &Evaluated, s: &NewtonSettings) -> bool {
        let floor = self.shell.noise / at.scale.max(f64::MIN_POSITIVE);
        let settled = settled(s, iteration, 2, at.residual, &mut self.previous, floor);
        iteration > 0
            && self.changed == 0
            && settled
            && self.slip_change <= s.relative_tolerance * at.scale.max(f64::MIN_POSITIVE)
            && at.gap_error <= self.touch
    }

    fn step(&mut self, iteration: usize, state: &ShellState, at: &Evaluated) -> Attempt<Vec<f64>, Failure> {
        let (setup, constraints) = (self.setup, &at.constraints);
        let (nv, no) = (self.shell.rest.len(), setup.obstacles.len());
        // The fixed DOFs are in `base`, each once.
        let fixed = |_: usize| false;
        if let Some(free) = free_rigid_motion(setup, &fixed, self.base, constraints, &[]) {
            let pairs = &*self.pairs;
            let slipping = pairs.iter().filter(|p| p.active && !p.stick && p.friction != Vector3::zeros()).count();
            let contacts = pairs.iter().filter(|p| p.active).count();
            if slipping == 0 {
                let frictional = pairs
                    .iter()
                    .enumerate()
                    .any(|(k, p)| p.active && !setup.obstacles[k % no].friction.is_frictionless());
                return Err(FemError::FreeRigidMotion { free, contacts, load: self.to, frictional });
            }
            let across = slip_crossings(setup, pairs);
            let pinned = free_rigid_motion(setup, &fixed, self.base, constraints, &across).is_none();
            let load = |v: usize| match self.translation(v) {
                Some(d) => Vector3::new(self.external[d], self.external[d + 1], self.external[d + 2]),
                None => Vector3::zeros(),
            };
            if !pinned || friction_cannot_hold(setup, &fixed, self.base, &load, constraints, pairs) {
                return Err(FemError::Sliding { load: self.to, slipping, contacts });
            }
        }
        // No follower pressure here (`solve_contact` refuses one): no load stiffness.
        let k = match self.shell.tangent(state, self.reduced, self.free, &[]) {
            Ok(k) => k,
            Err(_) => return Ok(Err(self.failure_of(iteration, at.residual))),
        };
        if self.c == 0.0 {
            let diagonal: f64 = k.diagonal_as_csc().values().iter().map(|d| d.abs()).sum();
            let mean = diagonal / self.free.max(1) as f64;
            self.c = if mean > 0.0 { mean } else { 1.0 };
        }
        let c = self.c;
        // T = diag(P_v) on the constrained translations (identity elsewhere), E the slip blocks,
        // D = c diag(Q_v Q_v^T).
        let mut t = CooMatrix::new(self.free, self.free);
        let mut e = CooMatrix::new(self.free, self.free);
        let mut prescribed = vec![0.0; self.free];
        let mut done = vec![false; self.free];
        let mut d_blocks = Vec::new();
        for v in 0..nv {
            let Some(d) = self.translation(v) else { continue };
            let x = state.positions[v];
            let mut extra = None;
            for j in 0..no {
                let mu = setup.obstacles[j].friction.kinetic_coefficient;
                slip_block(&self.pairs[v * no + j], mu, c, &self.shapes[j], &x, &mut extra);
            }
            if let Some(block) = extra {
                push_block(&mut e, d, &block);
            }
            if let Some(con) = &constraints[v] {
                let qq = con.q.iter().fold(Matrix3::zeros(), |acc, q| acc + q * q.transpose());
                push_block(&mut t, d, &(Matrix3::identity() - qq));
                d_blocks.push((d, qq * c));
                prescribed[d..d + 3].copy_from_slice(con.prescribed.as_slice());
                done[d..d + 3].iter_mut().for_each(|x| *x = true);
            }
        }
        for (i, _) in done.iter().enumerate().filter(|(_, d)| !**d) {
            t.push(i, i, 1.0);
        }
        let t = CscMatrix::from(&t);
        let ke = &k + &CscMatrix::from(&e);
        let mut a = &(&t * &ke) * &t;
        if !d_blocks.is_empty() {
            let mut dm = CooMatrix::new(self.free, self.free);
            for (d, block) in &d_blocks {
                push_block(&mut dm, *d, block);
            }
            a = &a + &CscMatrix::from(&dm);
        }
        let mut kp = vec![0.0; self.free];
        crate::solver::multiply(&k, &prescribed, &mut kp);
        let mut rhs: Vec<f64> = at.r.iter().zip(&kp).map(|(a, b)| -(a + b)).collect();
        self.project(&mut rhs, constraints);
        let w = match FaerLu.solve(&a, &rhs) {
            Ok(w) => w,
            Err(_) => return Ok(Err(self.failure_of(iteration, at.residual))),
        };
        let mut step = w;
        self.project(&mut step, constraints);
        step.iter_mut().zip(&prescribed).for_each(|(s, p)| *s += p);
        // The contact forces of the linearised equilibrium: r + K du on the constrained translations.
        let mut kd = vec![0.0; self.free];
        crate::solver::multiply(&k, &step, &mut kd);
        for v in 0..nv {
            let (Some(d), Some(con)) = (self.translation(v), &constraints[v]) else { continue };
            let f = Vector3::new(at.r[d] + kd[d], at.r[d + 1] + kd[d + 1], at.r[d + 2] + kd[d + 2]);
            let f = con.q.iter().fold(Vector3::zeros(), |acc, q| acc + q * q.dot(&f));
            split_force(setup, v, f, &mut self.pairs[v * no..(v + 1) * no]);
        }
        Ok(Ok(step))
    }

    fn trial(&mut self, state: &ShellState, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        let next = self.shell.update(state, self.reduced, step, alpha);
        Ok(self.shell.internal_forces(&next).is_ok().then_some(((next, None), f64::NAN)))
    }

    fn failure(&mut self, iterations: usize, at: &Evaluated) -> Failure {
        self.failure_of(iterations, at.residual)
    }
}

/// Adds the 3 x 3 `block` at rows and columns `d..d + 3`.
fn push_block(m: &mut CooMatrix<f64>, d: usize, block: &Matrix3<f64>) {
    for i in 0..3 {
        for j in 0..3 {
            m.push(d + i, d + j, block[(i, j)]);
        }
    }
}
