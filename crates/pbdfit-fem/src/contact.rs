//! Static equilibrium with unilateral contact and Coulomb friction against rigid obstacles, for every
//! [`Material`] (issue 29, item 3).
//!
//! ## The problem
//!
//! Every free vertex `i` must stay out of every obstacle `j` at its place for the load factor `t`:
//! `g_ij(u) = shape_j(t).gap(X_i + u_i) >= 0` (m). The obstacle pushes on the vertex with the force
//! `lambda_ij n_ij + t_ij` (N) where `n_ij` is the gap's unit gradient (pointing from the obstacle into
//! the free side), `lambda_ij >= 0` is the normal force and `t_ij` (perpendicular to `n_ij`) the
//! friction force; `lambda_ij g_ij = 0` (a vertex is pushed only where it touches). Equilibrium is
//! `f_int(u) = t f_ext + sum_j (lambda_ij n_ij + t_ij)` at every free vertex, with held vertices at `t`
//! times their prescribed displacement. The load factor `t` scales the loads and prescribed
//! displacements and moves every obstacle by `t` times its displacement ([`Obstacle::at`]).
//!
//! ## The method: a primal-dual active set (semi-smooth Newton)
//!
//! The complementarity conditions are the nonlinear complementarity function
//! `C(lambda, g) = lambda - max(0, lambda - c g) = 0` with `c > 0` (N/m, the mean diagonal of the
//! stiffness); its semi-smooth Newton step is the primal-dual active set method (Hintermueller, Ito and
//! Kunisch, SIAM J. Optim. 13, 2002): a pair is active when `lambda - c g > 0`, an active pair has the
//! linearised gap `g + n . du = 0` imposed on the Newton step, an inactive pair has `lambda = 0`. The
//! gap of a curved obstacle (a sphere) is linearised at each iterate (its normal is re-evaluated), so
//! the gap of an active pair converges quadratically to zero together with the elastic residual.
//!
//! Each Newton step eliminates the constrained directions exactly instead of adding multipliers: with
//! `P_i = I - Q_i Q_i^T` the projector off the constrained directions `Q_i` of vertex `i` (the normals
//! of its active pairs; all three directions for a sticking or held vertex), the step is
//! `du = T w + du_p`, `(T K T + D) w = -T (r + K du_p)`, where `T = diag(P_i)`, `D = diag(Q_i Q_i^T)`
//! and `du_p` the prescribed part (`-g n` for an active pair). `T K T + D` keeps `K`'s pattern and is
//! symmetric positive definite wherever the constraints stop every rigid motion, so the factorisation
//! of Newton's method without contact (Cholesky, LU where the tangent is indefinite) serves. The contact
//! force on vertex `i` is then `r_i + (K du)_i`, split into normal forces along the active normals and
//! the rest (friction, for a sticking vertex).
//!
//! ## Friction (Coulomb, static and kinetic)
//!
//! The load is applied in increments; friction acts on the slip increment relative to the (moving)
//! obstacle, `s_i = P_n (x_i - x_i^start - Delta d_j)`, with `x^start` the position at the start of the
//! increment and `Delta d_j` the obstacle's displacement over it. A pair that comes into contact sticks
//! (its vertex moves with the obstacle: all three directions are constrained). A sticking pair whose
//! friction force exceeds `mu_s lambda` slips: its friction force becomes `mu_k lambda` opposite the
//! slip (first the direction of the force it had, then the direction of the slip increment). The slip
//! force enters the residual as a load, and its dependence on the slip direction enters the Newton
//! matrix: `d(-mu_k lambda s/|s|)/du = -mu_k lambda (P_n - s^ s^T) / |s|`, symmetric and positive
//! semidefinite in the residual's tangent, without which the direction iteration diverges (measured:
//! the resting cube's slipping corners). The normal force in it is taken from the previous iterate (a
//! fixed point, contracting by about 0.2 per iteration in the tests), and an increment converges only
//! when the slip forces changed by less than the relative tolerance. A slipping pair whose slip
//! increment turns against its slip direction sticks again; after [`MAX_FLIPS`] changes in one
//! increment it stays slipping. Nothing is regularised: a stick pair's friction force is the exact
//! reaction of its constraint. With `mu_s = 0` a pair in contact is reported [`ContactState::Slip`]
//! with zero friction force.
//!
//! A vertex that touches several obstacles at once gets a normal constraint from each; friction acts
//! only towards the first of them (lowest index) with friction, and a vertex sticking to it is held in
//! all three directions (its other contacts then carry no separate normal constraint).
//!
//! ## Rigid motion
//!
//! Before every linear solve the held vertices and the active constraints are checked to stop all six
//! rigid motions (a 6 x 6 Gram matrix of the constraint directions against the rigid modes). Where
//! they do not and nothing slips (a frictionless resting body, a body touching nothing), the body has
//! no unique static equilibrium: [`FemError::FreeRigidMotion`].
//!
//! Slipping contacts can still hold a body. Their friction force turns with the slip, so moving a
//! slipping vertex across its slip direction is resisted (the slip tangent above; a pair that has only
//! just started to slip takes the Newton matrix's mean diagonal there for one iteration). A resting
//! cube whose weight spreads its base slips at every bottom corner, outwards in crossing directions,
//! and their friction forces cancel: it rests. So where the constraints leave rigid motions free, the
//! directions across the slips are added to the check, and the load is compared with what friction at
//! its kinetic limit can resist along each free motion (its power against `sum mu_k lambda |v_t|`).
//! Only where the crossing directions still leave a motion free, or the load drives a free motion
//! harder than friction can resist, is the body sliding: [`FemError::Sliding`] (a block on an incline
//! steeper than its friction angle slips everywhere in one direction). No regularisation is added to
//! the equilibrium: the reference reports the singular problem instead of choosing a rigid position.
//!
//! ## Convergence
//!
//! An increment has converged when the active set and the stick/slip states did not change in the
//! last iteration, the residual projected off the constrained directions is at most
//! [`NewtonSettings::relative_tolerance`] times the force scale (the norm of the external load plus the
//! internal forces at the free vertices; or within 100 times it where a full step no
//! longer halves it: round-off), the slip forces changed by no more than that, and every
//! active gap is within [`GAP_TOLERANCE`] times the body's size of zero. An increment that fails is
//! halved as in [`solve_law`](StaticProblem::solve_law) down to `1 / max_increments`. Friction is path
//! dependent, so a frictional problem is loaded in [`ContactSettings::friction_increments`] equal
//! increments (never lengthened).

use nalgebra::{Matrix3, Matrix6, SymmetricEigen, Vector3, Vector6};
use nalgebra_sparse::CscMatrix;
use pbdfit_mesh::Obstacle;
use pbdfit_mesh::obstacle::Shape;

use crate::materials::Material;
use crate::nonlinear::{NewtonSettings, ROUND_OFF_FACTOR};
use crate::{FemError, StaticProblem, YoungPoisson};

/// Active gaps converge to within this fraction of the body's size (m per m).
pub const GAP_TOLERANCE: f64 = 1e-10;

/// Smallest eigenvalue of the rigid-mode Gram matrix, relative to its largest, below which a rigid
/// motion counts as free.
const RIGID_TOLERANCE: f64 = 1e-10;

/// Settings of a contact solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSettings {
    /// Newton's tolerance, iterations per increment (active-set changes included) and halvings.
    pub newton: NewtonSettings,
    /// Equal load increments for a problem with friction (the path matters). Frictionless problems
    /// start from [`NewtonSettings::initial_increments`] and lengthen increments after successes.
    pub friction_increments: usize,
}

impl Default for ContactSettings {
    fn default() -> Self {
        Self { newton: NewtonSettings { max_iterations: 60, ..NewtonSettings::default() }, friction_increments: 8 }
    }
}

/// The state of a vertex against an obstacle at the solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactState {
    /// Not pushed (zero normal force); the gap may be zero.
    Open,
    /// In contact and moving with the obstacle over the last increment; the friction force is at most
    /// `mu_s` times the normal force.
    Stick,
    /// In contact and sliding: the friction force is `mu_k` times the normal force, opposite the slip
    /// (zero for a frictionless obstacle).
    Slip,
}

impl ContactState {
    /// The name in `pbdfit fem --json` and its summary: `open`, `stick` or `slip`.
    pub fn name(self) -> &'static str {
        match self {
            ContactState::Open => "open",
            ContactState::Stick => "stick",
            ContactState::Slip => "slip",
        }
    }
}

/// The contact of one vertex with one obstacle at the solution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactForce {
    /// Vertex index.
    pub vertex: usize,
    /// Obstacle index (in the body's `obstacles`).
    pub obstacle: usize,
    /// Open, stick or slip.
    pub state: ContactState,
    /// The gap at the solution, m (>= 0 up to [`GAP_TOLERANCE`] times the body's size).
    pub gap: f64,
    /// The obstacle's unit normal at the vertex (into the free side).
    pub normal: Vector3<f64>,
    /// Normal force on the body, N (>= 0: the obstacle only pushes).
    pub normal_force: f64,
    /// Friction force on the body, N, perpendicular to `normal`.
    pub tangential_force: Vector3<f64>,
    /// Slip over the last increment relative to the obstacle, m (tangential).
    pub slip: Vector3<f64>,
}

impl ContactForce {
    /// The whole force the obstacle exerts on the vertex, N.
    pub fn force(&self) -> Vector3<f64> {
        self.normal * self.normal_force + self.tangential_force
    }
}

/// A static equilibrium with contact.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactSolution {
    /// Displacement of every vertex (m), prescribed values at held vertices.
    pub displacements: Vec<Vector3<f64>>,
    /// Every vertex-obstacle pair in contact or within [`GAP_TOLERANCE`] times the body's size of it,
    /// ordered by vertex, then obstacle.
    pub contacts: Vec<ContactForce>,
    /// Reactions `f_int - f_ext` at held vertices (N): the force each support exerts on the body.
    pub reactions: Vec<(usize, Vector3<f64>)>,
    /// Reactions (N) at roller vertices ([`StaticProblem::with_rollers`]), along each roller's normal.
    pub roller_reactions: Vec<(usize, Vector3<f64>)>,
    /// Load increments that converged.
    pub increments: usize,
    /// Increments that failed and were halved.
    pub halvings: usize,
    /// Newton (active-set) iterations in total.
    pub iterations: usize,
    /// Projected relative residual at the end.
    pub residual: f64,
    /// Which linear solvers ran.
    pub solvers: Vec<&'static str>,
}

impl ContactSolution {
    /// The largest vertex displacement norm (m).
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }

    /// The sum of all contact forces on the body (N).
    pub fn total_contact_force(&self) -> Vector3<f64> {
        self.contacts.iter().map(ContactForce::force).sum()
    }
}

/// What a [`StaticProblem`] knows about contact: the obstacles, rest positions, rollers.
#[derive(Debug, Clone)]
pub(crate) struct ContactSetup {
    pub(crate) obstacles: Vec<Obstacle>,
    pub(crate) rest: Vec<Vector3<f64>>,
    /// Bilateral frictionless constraints `n . u_v = 0` (symmetry planes): vertex and unit normal.
    pub(crate) rollers: Vec<(usize, Vector3<f64>)>,
    /// Body size, m (rest bounding-box diagonal).
    pub(crate) size: f64,
}

impl ContactSetup {
    pub(crate) fn new(rest: &[Vector3<f64>], obstacles: Vec<Obstacle>) -> Self {
        let (lo, hi) =
            rest.iter().fold((Vector3::repeat(f64::INFINITY), Vector3::repeat(f64::NEG_INFINITY)), |(lo, hi), p| {
                (lo.inf(p), hi.sup(p))
            });
        let size = if rest.is_empty() { 1.0 } else { (hi - lo).norm() };
        Self { obstacles, rest: rest.to_vec(), rollers: Vec::new(), size }
    }
}

/// The iteration state of one vertex-obstacle pair.
#[derive(Debug, Clone, Copy, Default)]
struct Pair {
    active: bool,
    stick: bool,
    /// Normal force from the last solve, N.
    lambda: f64,
    /// Friction force from the last solve (stick) or applied (slip), N.
    friction: Vector3<f64>,
    /// Unit slip direction of a slipping pair.
    direction: Vector3<f64>,
    gap: f64,
    normal: Vector3<f64>,
    slip: Vector3<f64>,
    /// Stick/slip changes in the current increment's iterations.
    flips: u32,
}

/// A pair may change between stick and slip this many times in one increment's iterations; then it
/// stays slipping. With `mu_k < mu_s` the quasi-static stick/slip law is not monotone, and a pair whose
/// kinetic force is too weak to keep it sliding but whose static limit is too low to hold it would
/// otherwise alternate for ever.
pub const MAX_FLIPS: u32 = 4;

/// The constraints a vertex gets in one Newton step.
struct VertexConstraint {
    /// Orthonormal constrained directions (columns), 1 to 3.
    q: Vec<Vector3<f64>>,
    /// Prescribed part of the step, in the span of `q`, m.
    prescribed: Vector3<f64>,
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

impl StaticProblem {
    /// The obstacles of a contact problem (empty otherwise).
    pub fn obstacles(&self) -> &[Obstacle] {
        self.contact.as_ref().map_or(&[], |c| &c.obstacles)
    }

    /// Whether solves of this problem model contact (it has obstacles or rollers).
    pub fn has_contact(&self) -> bool {
        self.contact.is_some()
    }

    /// This problem with bilateral roller constraints `n . u_v = 0` (symmetry planes: the vertex slides
    /// freely along the plane with unit normal `n`), solved by the contact solver. Each entry is a free
    /// vertex and its plane's normal (normalised here); `rest` are the mesh's rest positions (m). Rollers
    /// are meant for frictionless symmetry planes: a vertex that sticks to a frictional obstacle follows
    /// the obstacle and its roller is not imposed.
    pub fn with_rollers(mut self, rest: &[Vector3<f64>], rollers: Vec<(usize, Vector3<f64>)>) -> Self {
        let setup = self.contact.get_or_insert_with(|| ContactSetup::new(rest, Vec::new()));
        setup.rollers.extend(rollers.into_iter().map(|(v, n)| (v, n.normalize())));
        self
    }

    /// Static equilibrium with contact for `law` with the default [`ContactSettings`].
    ///
    /// ```
    /// use pbdfit_fem::{ContactState, StaticProblem, YoungPoisson, materials::material};
    /// // A cube resting on a frictional floor, no vertex held.
    /// let text = "name = \"resting\"\n[body]\nshape = \"unit-cube\"\n[[obstacle]]\nshape = \"plane\"\n\
    ///             point = [0, 0, 0]\nnormal = [0, 1, 0]\nstatic_friction = 0.5\n";
    /// let body = pbdfit_mesh::SceneSet::parse(text, "resting", None).unwrap().scenes()[0].body(2).unwrap();
    /// let problem = StaticProblem::new(&body).unwrap();
    /// let s = problem.solve_contact(material("linear").unwrap(), YoungPoisson::new(1e5, 0.3).unwrap()).unwrap();
    /// // The floor carries the weight, pushing only, at the nine bottom vertices.
    /// let weight: f64 = body.external_forces().iter().map(|f| -f.y).sum();
    /// let up: f64 = s.contacts.iter().map(|c| c.force().y).sum();
    /// assert!((up / weight - 1.0).abs() < 1e-9);
    /// assert_eq!(s.contacts.len(), 9);
    /// assert!(s.contacts.iter().all(|c| c.normal_force > 0.0 && c.state != ContactState::Open));
    /// ```
    pub fn solve_contact(&self, law: &dyn Material, material: YoungPoisson) -> Result<ContactSolution, FemError> {
        self.solve_contact_with(law, material, ContactSettings::default())
    }

    /// Static equilibrium with contact for `law`: load stepping with the active-set Newton method of
    /// the [module documentation](crate::contact).
    pub fn solve_contact_with(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: ContactSettings,
    ) -> Result<ContactSolution, FemError> {
        let empty;
        let setup = match &self.contact {
            Some(s) => s,
            None => {
                empty = ContactSetup::new(&[], Vec::new());
                &empty
            }
        };
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        if setup.rest.len() != nv && !setup.obstacles.is_empty() {
            return Err(FemError::SizeMismatch { what: "rest positions", expected: nv, got: setup.rest.len() });
        }
        let friction = setup.obstacles.iter().any(|o| !o.friction.is_frictionless());
        let newton = settings.newton;
        let minimum = 1.0 / newton.max_increments.max(1) as f64;
        let base = if friction {
            1.0 / settings.friction_increments.max(1) as f64
        } else {
            1.0 / newton.initial_increments.max(1) as f64
        };
        let mut pairs = vec![Pair::default(); nv * setup.obstacles.len()];
        let mut u = vec![Vector3::zeros(); nv];
        let mut solution = ContactSolution {
            displacements: Vec::new(),
            contacts: Vec::new(),
            reactions: Vec::new(),
            roller_reactions: Vec::new(),
            increments: 0,
            halvings: 0,
            iterations: 0,
            residual: 0.0,
            solvers: Vec::new(),
        };
        let mut lambda = 0.0;
        let mut increment = base;
        let mut last = None;
        while lambda < 1.0 {
            let step = increment.min(1.0 - lambda);
            let target = if step >= 1.0 - lambda - 1e-12 { 1.0 } else { lambda + step };
            let start = self.prescribed_at(&u, target);
            let mut trial_pairs = pairs.clone();
            match self.contact_newton(law, material, setup, start, &u, &mut trial_pairs, lambda, target, newton)? {
                Ok(done) => {
                    solution.iterations += done.iterations;
                    solution.increments += 1;
                    solution.residual = done.residual;
                    for s in &done.solvers {
                        if !solution.solvers.contains(s) {
                            solution.solvers.push(s);
                        }
                    }
                    u = done.u.clone();
                    pairs = trial_pairs;
                    lambda = target;
                    // Friction: back to the equal increment after a halved one (never longer: the path matters).
                    increment = if friction { base } else { (2.0 * step).min(1.0) };
                    last = Some(done);
                }
                Err(failure) => {
                    solution.iterations += failure.iterations;
                    if step / 2.0 < minimum * (1.0 - 1e-12) {
                        return Err(failure.error.unwrap_or(FemError::ContactNotConverged {
                            load: target,
                            iterations: failure.iterations,
                            residual: failure.residual,
                            changes: failure.changes,
                        }));
                    }
                    solution.halvings += 1;
                    increment = step / 2.0;
                }
            }
        }
        let done = match last {
            Some(d) => d,
            None => self.converged_state(law, material, setup, &u, &pairs)?,
        };
        // Obstacles that carry nothing at the end must not switch off what the law refuses without them:
        // the active-set Newton halves a step that would invert an element instead of giving the
        // increment up, and so reached far equilibria the load stepping without contact refuses (a sphere
        // that never touched let a neo-Hookean block at E = 1e-3 Pa sag 532 m through its held base, where
        // the same block alone is refused as inverted). The load stepping without contact runs for its
        // refusal; its answer is not used (the solution stays this solve's, bit for bit).
        if !law.is_linear()
            && setup.rollers.is_empty()
            && !setup.obstacles.is_empty()
            && done.contacts.iter().all(|c| c.normal_force == 0.0 && c.state == ContactState::Open)
        {
            self.solve_law_free(law, material, settings.newton)?;
        }
        solution.contacts = done.contacts;
        solution.reactions = done.reactions;
        solution.roller_reactions = done.roller_reactions;
        solution.displacements = u;
        Ok(solution)
    }

    /// `u` with held vertices at `t` times their prescribed displacement.
    fn prescribed_at(&self, u: &[Vector3<f64>], t: f64) -> Vec<Vector3<f64>> {
        let map = self.assembler.dof_map();
        u.iter().enumerate().map(|(v, x)| if map.is_constrained(v) { self.prescribed[v] * t } else { *x }).collect()
    }

    /// The report of an unloaded problem (no increment ran).
    fn converged_state(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        setup: &ContactSetup,
        u: &[Vector3<f64>],
        pairs: &[Pair],
    ) -> Result<Increment, FemError> {
        let (_, forces) = self.assembler.nonlinear_system(law, material, u)?;
        Ok(self.report(setup, u, pairs, &forces, 1.0, 0, 0.0, Vec::new()))
    }

    /// Newton iterations with active-set updates on one increment from load factor `from` to `to`.
    /// The outer `Result` carries errors that end the solve; the inner one a failure that halving
    /// may mend.
    #[allow(clippy::too_many_arguments)]
    fn contact_newton(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        setup: &ContactSetup,
        mut u: Vec<Vector3<f64>>,
        u_start: &[Vector3<f64>],
        pairs: &mut [Pair],
        from: f64,
        to: f64,
        newton: NewtonSettings,
    ) -> Result<Result<Increment, Failure>, FemError> {
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        let no = setup.obstacles.len();
        let shapes: Vec<Shape> = setup.obstacles.iter().map(|o| o.at(to)).collect();
        let moves: Vec<Vector3<f64>> = setup.obstacles.iter().map(|o| o.displacement * (to - from)).collect();
        let touch = GAP_TOLERANCE * setup.size;
        let mut c = 0.0;
        let mut solvers = Vec::new();
        let mut changes = 0;
        let mut slip_change = 0.0;
        let mut external: Vec<Vector3<f64>> = self.loads.iter().map(|f| f * to).collect();
        let mut previous = f64::INFINITY;
        for iteration in 0..=newton.max_iterations {
            // Gaps, normals and slips at the iterate.
            let mut changed = 0;
            let mut new_slip_change: f64 = 0.0;
            for v in 0..nv {
                if map.is_constrained(v) {
                    continue;
                }
                let x = setup.rest[v] + u[v];
                let x_start = setup.rest[v] + u_start[v];
                let mut friction_taken = false;
                for j in 0..no {
                    let p = &mut pairs[v * no + j];
                    if iteration == 0 {
                        p.flips = 0;
                    }
                    let gap = shapes[j].gap(&x);
                    p.gap = gap.value;
                    p.normal = gap.normal;
                    let n = gap.normal;
                    let relative = x - x_start - moves[j];
                    p.slip = relative - n * n.dot(&relative);
                    let active = if iteration == 0 {
                        p.lambda - c * p.gap > 0.0 || p.gap <= touch
                    } else {
                        p.lambda - c * p.gap > 0.0
                    };
                    let mu = setup.obstacles[j].friction;
                    let was = (p.active, p.stick);
                    if !active {
                        p.active = false;
                        p.stick = false;
                        p.lambda = 0.0;
                        p.friction = Vector3::zeros();
                    } else if !p.active {
                        p.active = true;
                        p.stick = !mu.is_frictionless() && !friction_taken;
                        p.friction = Vector3::zeros();
                    } else if !mu.is_frictionless() && !friction_taken && iteration > 0 {
                        if p.stick {
                            let t = p.friction.norm();
                            if t > mu.static_coefficient * p.lambda.max(0.0) * (1.0 + 1e-12) + 1e-300 {
                                p.stick = false;
                                p.direction = -p.friction / t;
                                p.flips += 1;
                            }
                        } else {
                            let s = p.slip.norm();
                            if (s == 0.0 || p.slip.dot(&p.direction) <= 0.0) && p.flips < MAX_FLIPS {
                                p.stick = true;
                                p.flips += 1;
                            } else if s > 0.0 {
                                p.direction = p.slip / s;
                            }
                        }
                    }
                    if p.active && !mu.is_frictionless() {
                        friction_taken = true;
                    }
                    if (p.active, p.stick) != was {
                        changed += 1;
                    }
                    if p.active && !p.stick && !mu.is_frictionless() {
                        let force = -p.direction * (mu.kinetic_coefficient * p.lambda.max(0.0));
                        new_slip_change = new_slip_change.max((force - p.friction).norm());
                        p.friction = force;
                    } else if p.active && mu.is_frictionless() {
                        p.friction = Vector3::zeros();
                    }
                }
            }
            if iteration > 0 {
                changes += changed;
                slip_change = new_slip_change;
            }
            // Residual with slip forces as loads.
            let (k, forces) = match self.assembler.nonlinear_system(law, material, &u) {
                Ok(x) => x,
                Err(FemError::InvertedElement { tet, det, .. }) => {
                    return Ok(Err(Failure {
                        iterations: iteration,
                        residual: f64::INFINITY,
                        changes,
                        error: Some(FemError::InvertedElement { tet, det, load: Some(to) }),
                    }));
                }
                Err(e) => return Err(e),
            };
            if c == 0.0 {
                c = mean_diagonal(&k);
            }
            external.iter_mut().zip(&self.loads).for_each(|(e, f)| *e = f * to);
            for v in 0..nv {
                for j in 0..no {
                    let p = &pairs[v * no + j];
                    if p.active && !p.stick {
                        external[v] += p.friction;
                    }
                }
            }
            let r: Vec<f64> = {
                let mut r = vec![0.0; map.dofs()];
                for v in 0..nv {
                    if let Some(d) = map.dof(v, 0) {
                        for i in 0..3 {
                            r[d + i] = forces[v][i] - external[v][i];
                        }
                    }
                }
                r
            };
            let constraints = self.vertex_constraints(setup, &u, u_start, pairs, &moves);
            let scale = {
                let ext: f64 = (0..nv)
                    .filter(|&v| !map.is_constrained(v))
                    .map(|v| (self.loads[v] * to).norm_squared())
                    .sum::<f64>()
                    .sqrt();
                let int: f64 =
                    (0..nv).filter(|&v| !map.is_constrained(v)).map(|v| forces[v].norm_squared()).sum::<f64>().sqrt();
                ext + int
            };
            let projected = projected_norm(&r, map, &constraints);
            let residual = if scale > 0.0 { projected / scale } else { 0.0 };
            let gap_error = constraints.iter().flatten().map(|c| c.prescribed.norm()).fold(0.0, f64::max);
            let gap_error = gap_error.max(
                (0..nv)
                    .flat_map(|v| (0..no).map(move |j| (v, j)))
                    .filter(|&(v, j)| pairs[v * no + j].active && !map.is_constrained(v))
                    .map(|(v, j)| pairs[v * no + j].gap.abs())
                    .fold(0.0, f64::max),
            );
            // The round-off floor, as in Newton's method without contact: a residual within
            // ROUND_OFF_FACTOR of the tolerance that a full step no longer halves (a graded mesh's
            // conditioning: the Hertz mesh at m = 18 stalls at 1.2e-10) counts as converged.
            let floor = residual <= ROUND_OFF_FACTOR * newton.relative_tolerance && residual > 0.5 * previous;
            let settled = residual <= newton.relative_tolerance || (iteration > 1 && floor);
            previous = residual;
            if iteration > 0
                && changed == 0
                && settled
                && slip_change <= newton.relative_tolerance * scale.max(f64::MIN_POSITIVE)
                && gap_error <= touch
            {
                let done = self.report(setup, &u, pairs, &forces, to, iteration, residual, solvers);
                return Ok(Ok(done));
            }
            if iteration == newton.max_iterations {
                return Ok(Err(Failure { iterations: iteration, residual, changes, error: None }));
            }
            // Rigid motion must be stopped by held vertices and constraints, or by slipping contacts whose
            // friction can hold the body (see the module documentation).
            if let Some(free) = self.free_rigid_motion(setup, &constraints, &[]) {
                let slipping = pairs.iter().filter(|p| p.active && !p.stick && p.friction != Vector3::zeros()).count();
                let contacts = pairs.iter().filter(|p| p.active).count();
                if slipping == 0 {
                    // Whether a touching obstacle has friction already: then the remedy is to hold the body,
                    // not to give friction (issue 38: the advice went to an obstacle with mu_s = 0.5).
                    let frictional = pairs
                        .iter()
                        .enumerate()
                        .any(|(k, p)| p.active && !setup.obstacles[k % no].friction.is_frictionless());
                    return Err(FemError::FreeRigidMotion { free, contacts, load: to, frictional });
                }
                let across = slip_crossings(setup, pairs);
                let pinned = self.free_rigid_motion(setup, &constraints, &across).is_none();
                if !pinned || self.friction_cannot_hold(setup, &constraints, pairs, to) {
                    return Err(FemError::Sliding { load: to, slipping, contacts });
                }
            }
            // The projected Newton step.
            let mut prescribed = vec![0.0; map.dofs()];
            for (v, c) in constraints.iter().enumerate() {
                if let (Some(c), Some(d)) = (c, map.dof(v, 0)) {
                    prescribed[d..d + 3].copy_from_slice(c.prescribed.as_slice());
                }
            }
            let mut kp = vec![0.0; map.dofs()];
            crate::solver::multiply(&k, &prescribed, &mut kp);
            let mut rhs: Vec<f64> = r.iter().zip(&kp).map(|(a, b)| -(a + b)).collect();
            project(&mut rhs, map, &constraints);
            // The slip force's direction follows the slip: d(-mu_k lambda s/|s|)/du = -mu_k lambda (P_n - s^ s^T)/|s|
            // P_n, symmetric and positive semidefinite in the residual's tangent (lambda held: the normal force
            // converges by the fixed point).
            let mut extra: Vec<Option<Matrix3<f64>>> = vec![None; nv];
            for v in 0..nv {
                for j in 0..no {
                    let p = &pairs[v * no + j];
                    let mu = setup.obstacles[j].friction.kinetic_coefficient;
                    let s = p.slip.norm();
                    if p.active && !p.stick && mu > 0.0 && p.lambda > 0.0 {
                        let n = p.normal;
                        let d = p.direction;
                        // A pair that has only just started to slip (no slip yet) has an unbounded tangent
                        // across its slip: the Newton matrix's own scale stands in for it this iteration.
                        let across = if s > 0.0 { mu * p.lambda / s } else { c };
                        let block = (Matrix3::identity() - n * n.transpose() - d * d.transpose()) * across;
                        *extra[v].get_or_insert_with(Matrix3::zeros) += block;
                    }
                    // A curved obstacle turns its normal as the vertex moves along it: the Lagrangian's
                    // Hessian holds -lambda d n / d x (the shape's gap Hessian; for a sphere
                    // +-(I - n n^T) / |x - c|), which keeps Newton quadratic on it. Planes and box faces
                    // have none.
                    if p.active
                        && !p.stick
                        && p.lambda > 0.0
                        && let Some(block) = shapes[j].gap_hessian_times(&(setup.rest[v] + u[v]), &p.normal, -p.lambda)
                    {
                        *extra[v].get_or_insert_with(Matrix3::zeros) += block;
                    }
                }
            }
            let a = transformed(&k, map, &constraints, &extra, c);
            let (w, solver) = match self.linear_solve(&a, &rhs) {
                Ok(x) => x,
                Err(FemError::NotPositiveDefinite { .. } | FemError::Solver { .. }) => {
                    return Ok(Err(Failure { iterations: iteration, residual, changes, error: None }));
                }
                Err(e) => return Err(e),
            };
            if !solvers.contains(&solver) {
                solvers.push(solver);
            }
            let mut step = w;
            project(&mut step, map, &constraints);
            step.iter_mut().zip(&prescribed).for_each(|(s, p)| *s += p);
            // Contact forces of the linearised equilibrium: r + K du at constrained vertices.
            let mut kd = vec![0.0; map.dofs()];
            crate::solver::multiply(&k, &step, &mut kd);
            for v in 0..nv {
                let Some(d) = map.dof(v, 0) else { continue };
                let Some(con) = &constraints[v] else { continue };
                let f = Vector3::new(r[d] + kd[d], r[d + 1] + kd[d + 1], r[d + 2] + kd[d + 2]);
                let f = con.q.iter().fold(Vector3::zeros(), |acc, q| acc + q * q.dot(&f));
                self.split_force(setup, v, f, &mut pairs[v * no..(v + 1) * no]);
            }
            // Step, halved while an element would invert for a law that needs positive volume.
            let mut alpha = 1.0;
            let mut next = self.update(&u, &step, alpha);
            if law.needs_positive_volume() {
                let mut tries = 0;
                while self
                    .assembler
                    .deformation_gradients(&next)
                    .iter()
                    .any(|f| f.determinant().is_nan() || f.determinant() <= 0.0)
                {
                    tries += 1;
                    if tries > 12 {
                        return Ok(Err(Failure { iterations: iteration + 1, residual, changes, error: None }));
                    }
                    alpha *= 0.5;
                    next = self.update(&u, &step, alpha);
                }
            }
            u = next;
        }
        unreachable!("the loop returns at max_iterations")
    }

    /// Splits the constraint force `f` (N, in the constrained directions) of vertex `v` into normal
    /// forces of its active pairs and, for a sticking pair, the friction force.
    fn split_force(&self, setup: &ContactSetup, v: usize, f: Vector3<f64>, pairs: &mut [Pair]) {
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
            if let Some(j) = (0..no).find(|&j| pairs[v * no + j].active && pairs[v * no + j].stick) {
                let p = &pairs[v * no + j];
                let n = p.normal;
                let relative = setup.rest[v] + u[v] - setup.rest[v] - u_start[v] - moves[j];
                let tangential = relative - n * n.dot(&relative);
                out[v] = Some(VertexConstraint {
                    q: vec![Vector3::x(), Vector3::y(), Vector3::z()],
                    prescribed: -n * p.gap - tangential,
                });
                continue;
            }
            for j in 0..no {
                let p = &pairs[v * no + j];
                if p.active {
                    rows[v].push((p.normal, p.gap));
                }
            }
            if rows[v].is_empty() {
                continue;
            }
            // Orthonormal basis of the normals; the prescribed step is the least-norm step with
            // n_k . du = -g_k for every row.
            let mut q: Vec<Vector3<f64>> = Vec::new();
            for (n, _) in &rows[v] {
                let mut e = *n;
                for b in &q {
                    e -= b * b.dot(&e);
                }
                let l = e.norm();
                if l > 1e-8 && q.len() < 3 {
                    q.push(e / l);
                }
            }
            let m = rows[v].len();
            let mut g = nalgebra::DMatrix::<f64>::zeros(m, m);
            let mut b = nalgebra::DVector::<f64>::zeros(m);
            for a in 0..m {
                b[a] = -rows[v][a].1;
                for c in 0..m {
                    g[(a, c)] = rows[v][a].0.dot(&rows[v][c].0);
                }
            }
            let y = g.clone().pseudo_inverse(1e-12).map(|pinv| pinv * &b).unwrap_or(b);
            let prescribed = (0..m).fold(Vector3::zeros(), |acc, a| acc + rows[v][a].0 * y[a]);
            out[v] = Some(VertexConstraint { q, prescribed });
        }
        out
    }

    /// The number of rigid motions (of six) the held vertices, `constraints` and the extra directions
    /// `across` (vertex, unit direction) leave free, if any.
    fn free_rigid_motion(
        &self,
        setup: &ContactSetup,
        constraints: &[Option<VertexConstraint>],
        across: &[(usize, Vector3<f64>)],
    ) -> Option<usize> {
        let gram = self.rigid_gram(setup, constraints, across)?;
        let eigen = SymmetricEigen::new(gram).eigenvalues;
        let largest = eigen.max();
        let free = eigen.iter().filter(|&&e| e.is_nan() || e <= RIGID_TOLERANCE * largest).count();
        (free > 0 || largest <= 0.0).then_some(free.max(1))
    }

    /// Whether the load moves the body along a rigid motion that the held vertices and `constraints`
    /// leave free by more than slipping friction can resist: for a free mode with velocity `v_i` at vertex
    /// `i`, the load's power `|sum f_i . v_i|` exceeds `sum mu_k lambda_j |P_t v_j|` over the slipping
    /// pairs `j` (their friction at its kinetic limit, each in its best direction). Then no distribution
    /// of friction balances the load: the body slides. A mode the load does not drive (a resting body's
    /// sideways motion, whose slipping corners pull against each other) passes.
    fn friction_cannot_hold(
        &self,
        setup: &ContactSetup,
        constraints: &[Option<VertexConstraint>],
        pairs: &[Pair],
        to: f64,
    ) -> bool {
        let Some(gram) = self.rigid_gram(setup, constraints, &[]) else { return false };
        let nv = setup.rest.len();
        let no = setup.obstacles.len();
        let centre = setup.rest.iter().sum::<Vector3<f64>>() / nv as f64;
        let scale = setup.size.max(f64::MIN_POSITIVE);
        let eigen = SymmetricEigen::new(gram);
        let largest = eigen.eigenvalues.max();
        (0..6).filter(|&k| eigen.eigenvalues[k].is_nan() || eigen.eigenvalues[k] <= RIGID_TOLERANCE * largest).any(
            |k| {
                let mode = eigen.eigenvectors.column(k);
                let t = Vector3::new(mode[0], mode[1], mode[2]);
                let w = Vector3::new(mode[3], mode[4], mode[5]);
                let velocity = |v: usize| t + w.cross(&((setup.rest[v] - centre) / scale));
                let power: f64 = (0..nv).map(|v| (self.loads[v] * to).dot(&velocity(v))).sum();
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
            },
        )
    }

    /// The 6 x 6 Gram matrix of the constrained directions against the rigid modes (translations, then
    /// rotations about the rest centroid in units of the body's size); `None` without rest positions.
    fn rigid_gram(
        &self,
        setup: &ContactSetup,
        constraints: &[Option<VertexConstraint>],
        across: &[(usize, Vector3<f64>)],
    ) -> Option<Matrix6<f64>> {
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        if setup.rest.len() != nv {
            return None;
        }
        let centre = setup.rest.iter().sum::<Vector3<f64>>() / nv as f64;
        let scale = setup.size.max(f64::MIN_POSITIVE);
        let mut gram = Matrix6::<f64>::zeros();
        let mut add = |v: usize, d: Vector3<f64>| {
            let x = (setup.rest[v] - centre) / scale;
            // d . (t + w x X) = d . t + w . (X x d)
            let row = Vector6::new(d.x, d.y, d.z, 0.0, 0.0, 0.0) + {
                let c = x.cross(&d);
                Vector6::new(0.0, 0.0, 0.0, c.x, c.y, c.z)
            };
            gram += row * row.transpose();
        };
        for v in 0..nv {
            if map.is_constrained(v) {
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

    /// The converged increment's report.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        setup: &ContactSetup,
        u: &[Vector3<f64>],
        pairs: &[Pair],
        forces: &[Vector3<f64>],
        t: f64,
        iterations: usize,
        residual: f64,
        solvers: Vec<&'static str>,
    ) -> Increment {
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        let no = setup.obstacles.len();
        let touch = GAP_TOLERANCE * setup.size;
        let mut contacts = Vec::new();
        for v in 0..nv {
            if map.is_constrained(v) {
                continue;
            }
            for j in 0..no {
                let p = &pairs[v * no + j];
                if !p.active && p.gap > touch {
                    continue;
                }
                let state = if !p.active || p.lambda <= 0.0 {
                    ContactState::Open
                } else if p.stick {
                    ContactState::Stick
                } else {
                    ContactState::Slip
                };
                let (normal_force, tangential_force) =
                    if p.active { (p.lambda, p.friction) } else { (0.0, Vector3::zeros()) };
                contacts.push(ContactForce {
                    vertex: v,
                    obstacle: j,
                    state,
                    gap: p.gap,
                    normal: p.normal,
                    normal_force,
                    tangential_force,
                    slip: p.slip,
                });
            }
        }
        let reactions =
            (0..nv).filter(|&v| map.is_constrained(v)).map(|v| (v, forces[v] - self.loads[v] * t)).collect();
        let roller_reactions = setup
            .rollers
            .iter()
            .map(|(v, n)| {
                let mut f = forces[*v] - self.loads[*v] * t;
                for p in &pairs[v * no..(v + 1) * no] {
                    if p.active {
                        f -= p.normal * p.lambda + p.friction;
                    }
                }
                (*v, n * n.dot(&f))
            })
            .collect();
        Increment { u: u.to_vec(), contacts, reactions, roller_reactions, iterations, residual, solvers }
    }
}

/// A converged increment.
#[derive(Debug, Clone)]
struct Increment {
    u: Vec<Vector3<f64>>,
    contacts: Vec<ContactForce>,
    reactions: Vec<(usize, Vector3<f64>)>,
    roller_reactions: Vec<(usize, Vector3<f64>)>,
    iterations: usize,
    residual: f64,
    solvers: Vec<&'static str>,
}

/// An increment that did not converge.
struct Failure {
    iterations: usize,
    residual: f64,
    changes: usize,
    error: Option<FemError>,
}

/// The directions across the slip of every slipping pair with friction, normal force and slip
/// (`n x s^`): the slip tangent of the Newton matrix (module documentation) stiffens them, because
/// moving a slipping vertex across its slip turns its friction force against the move.
fn slip_crossings(setup: &ContactSetup, pairs: &[Pair]) -> Vec<(usize, Vector3<f64>)> {
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
