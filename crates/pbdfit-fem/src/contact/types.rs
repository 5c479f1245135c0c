//! The contact solve's types: its settings, the states and forces it reports, its solution, and the
//! iteration state of the vertex-obstacle pairs.

use nalgebra::Vector3;
use pbdfit_mesh::Obstacle;
use pbdfit_mesh::obstacle::{Friction, Gap};

use crate::FemError;
use crate::newton::NewtonSettings;

/// Active gaps converge to within this fraction of the body's size (m per m).
pub const GAP_TOLERANCE: f64 = 1e-10;

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
        Self { newton: NewtonSettings::CONTACT, friction_increments: 8 }
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactSolution {
    /// Displacement of every vertex (m), prescribed values at held vertices.
    pub displacements: Vec<Vector3<f64>>,
    /// Every vertex-obstacle pair in contact or within [`GAP_TOLERANCE`] times the body's size of it,
    /// ordered by vertex, then obstacle.
    pub contacts: Vec<ContactForce>,
    /// Reactions `f_int - f_ext` at held vertices (N): the force each support exerts on the body.
    pub reactions: Vec<(usize, Vector3<f64>)>,
    /// Reactions (N) at roller vertices
    /// ([`StaticProblem::with_rollers`](crate::StaticProblem::with_rollers)), along each roller's normal.
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

/// What a [`StaticProblem`](crate::StaticProblem) knows about contact: the obstacles, rest positions, rollers.
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
pub(crate) struct Pair {
    pub(crate) active: bool,
    pub(crate) stick: bool,
    /// Normal force from the last solve, N.
    pub(crate) lambda: f64,
    /// Friction force from the last solve (stick) or applied (slip), N.
    pub(crate) friction: Vector3<f64>,
    /// Unit slip direction of a slipping pair.
    pub(crate) direction: Vector3<f64>,
    pub(crate) gap: f64,
    pub(crate) normal: Vector3<f64>,
    pub(crate) slip: Vector3<f64>,
    /// Stick/slip changes in the current increment's iterations.
    pub(crate) flips: u32,
}

impl Pair {
    /// The pair as reported at vertex `vertex` and obstacle `obstacle` of a converged solve: `None` for an
    /// inactive pair farther than `touch` (m) from its obstacle, else its state, gap, normal, forces and slip.
    pub(crate) fn reported(&self, vertex: usize, obstacle: usize, touch: f64) -> Option<ContactForce> {
        if !self.active && self.gap > touch {
            return None;
        }
        let state = if !self.active || self.lambda <= 0.0 {
            ContactState::Open
        } else if self.stick {
            ContactState::Stick
        } else {
            ContactState::Slip
        };
        let (normal_force, tangential_force) =
            if self.active { (self.lambda, self.friction) } else { (0.0, Vector3::zeros()) };
        Some(ContactForce {
            vertex,
            obstacle,
            state,
            gap: self.gap,
            normal: self.normal,
            normal_force,
            tangential_force,
            slip: self.slip,
        })
    }

    /// The pair's gap, normal and slip at an iterate, then its active, stick and slip states and its slip
    /// force (the module documentation's method and friction), for iteration `iteration` of an increment:
    /// `gap` the obstacle's at the vertex, `relative` the vertex's move over the increment less the
    /// obstacle's (m), `(c, touch)` the complementarity constant (N/m) and the gap counted as touching at
    /// the start (m), `mu` the obstacle's friction. `friction_taken` is whether an earlier obstacle of
    /// the same vertex already has its friction (then this pair is frictionless), and is set when this
    /// one takes it. Returns whether the active or stick state changed, and the change of the slip force
    /// (N) of a slipping pair with friction.
    pub(crate) fn update(
        &mut self,
        iteration: usize,
        gap: Gap,
        relative: Vector3<f64>,
        (c, touch): (f64, f64),
        mu: Friction,
        friction_taken: &mut bool,
    ) -> (bool, Option<f64>) {
        let p = self;
        if iteration == 0 {
            p.flips = 0;
        }
        p.gap = gap.value;
        p.normal = gap.normal;
        let n = gap.normal;
        p.slip = relative - n * n.dot(&relative);
        let active =
            if iteration == 0 { p.lambda - c * p.gap > 0.0 || p.gap <= touch } else { p.lambda - c * p.gap > 0.0 };
        let was = (p.active, p.stick);
        if !active {
            p.active = false;
            p.stick = false;
            p.lambda = 0.0;
            p.friction = Vector3::zeros();
        } else if !p.active {
            p.active = true;
            p.stick = !mu.is_frictionless() && !*friction_taken;
            p.friction = Vector3::zeros();
        } else if !mu.is_frictionless() && !*friction_taken && iteration > 0 {
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
            *friction_taken = true;
        }
        let flipped = (p.active, p.stick) != was;
        let mut slip_change = None;
        if p.active && !p.stick && !mu.is_frictionless() {
            let force = -p.direction * (mu.kinetic_coefficient * p.lambda.max(0.0));
            slip_change = Some((force - p.friction).norm());
            p.friction = force;
        } else if p.active && mu.is_frictionless() {
            p.friction = Vector3::zeros();
        }
        (flipped, slip_change)
    }
}

/// A pair may change between stick and slip this many times in one increment's iterations; then it
/// stays slipping. With `mu_k < mu_s` the quasi-static stick/slip law is not monotone, and a pair whose
/// kinetic force is too weak to keep it sliding but whose static limit is too low to hold it would
/// otherwise alternate for ever.
pub const MAX_FLIPS: u32 = 4;

/// The constraints a vertex gets in one Newton step.
pub(crate) struct VertexConstraint {
    /// Orthonormal constrained directions (columns), 1 to 3.
    pub(crate) q: Vec<Vector3<f64>>,
    /// Prescribed part of the step, in the span of `q`, m.
    pub(crate) prescribed: Vector3<f64>,
}

/// A converged increment.
#[derive(Debug, Clone)]
pub(super) struct Increment {
    pub(super) u: Vec<Vector3<f64>>,
    pub(super) contacts: Vec<ContactForce>,
    pub(super) reactions: Vec<(usize, Vector3<f64>)>,
    pub(super) roller_reactions: Vec<(usize, Vector3<f64>)>,
    pub(super) iterations: usize,
    pub(super) residual: f64,
    pub(super) solvers: Vec<&'static str>,
}

/// An increment that did not converge.
pub(super) struct Failure {
    pub(super) iterations: usize,
    pub(super) residual: f64,
    pub(super) changes: usize,
    pub(super) error: Option<FemError>,
}
