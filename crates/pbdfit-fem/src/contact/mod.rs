//! Static equilibrium with unilateral contact and Coulomb friction against rigid obstacles, for every
//! [`Material`].
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
//! [`relative_tolerance`](crate::NewtonSettings::relative_tolerance) times the force scale (the norm of
//! the external load plus the internal forces at the free vertices; or within
//! [`round_off_factor`](crate::NewtonSettings::round_off_factor) times it where a full step no longer
//! halves it: round-off), the slip forces changed by no more than that, and every
//! active gap is within [`GAP_TOLERANCE`] times the body's size of zero. An increment that fails is
//! halved as in [`solve_law`](StaticProblem::solve_law) down to `1 / max_increments`. Friction is path
//! dependent, so a frictional problem is loaded in [`ContactSettings::friction_increments`] equal
//! increments (never lengthened). Newton's method, the load stepping and the step's search are the
//! `newton` unit's, with the contact solve's parameters (its documentation says which and why).
//!
//! ## Files
//!
//! - `types.rs`: the settings, the reported states, forces and solution, the pairs' iteration state;
//! - `active_set.rs`: one increment as a Newton system, `ContactIncrement` (active set, stick and slip,
//!   the projected step, the split of the constraint forces);
//! - `rigid_motion.rs`: whether the constraints stop every rigid motion, and whether friction holds;
//! - `report.rs`: a converged increment's contacts and reactions;
//! - this file: the load stepping over the increments (the solve's entry points).

mod active_set;
mod report;
mod rigid_motion;
mod types;

use nalgebra::Vector3;
use pbdfit_mesh::Obstacle;

use active_set::{ContactIncrement, STEP_SEARCH};
pub(crate) use active_set::{slip_block, split_force, vertex_constraint};
pub(crate) use rigid_motion::{free_rigid_motion, friction_cannot_hold, rigid_centre, rigid_row, slip_crossings};
use types::Failure;
pub use types::{ContactForce, ContactSettings, ContactSolution, ContactState, GAP_TOLERANCE, MAX_FLIPS};
pub(crate) use types::{ContactSetup, Pair, VertexConstraint};

use crate::materials::Material;
use crate::newton::{Growth, Outcome, newton, note_solvers};
use crate::{FemError, StaticProblem, YoungPoisson};

/// The last increment ends at the whole load when it reaches to within this of it: equal increments
/// whose sum misses 1 by round-off leave no sliver increment.
const SNAP: f64 = 1e-12;

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
        // Friction: the equal increment again after a halved one (never longer: the path matters).
        let stepping = if friction {
            settings.newton.load_stepping(1.0 / settings.friction_increments.max(1) as f64, SNAP, Growth::Repeat)
        } else {
            let first = 1.0 / settings.newton.initial_increments.max(1) as f64;
            settings.newton.load_stepping(first, SNAP, Growth::Double)
        };
        let mut pairs = vec![Pair::default(); nv * setup.obstacles.len()];
        let mut u = vec![Vector3::zeros(); nv];
        let mut solution = ContactSolution::default();
        let mut last = None;
        let halvings = stepping.run(
            |from, to| {
                let start = self.with_prescribed(&u, to);
                let mut trial_pairs = pairs.clone();
                let mut system = ContactIncrement {
                    problem: self,
                    law,
                    material,
                    setup,
                    u_start: &u,
                    pairs: &mut trial_pairs,
                    to,
                    shapes: setup.obstacles.iter().map(|o| o.at(to)).collect(),
                    moves: setup.obstacles.iter().map(|o| o.displacement * (to - from)).collect(),
                    touch: GAP_TOLERANCE * setup.size,
                    c: 0.0,
                    solvers: Vec::new(),
                    changes: 0,
                    changed: 0,
                    slip_change: 0.0,
                    previous: f64::INFINITY,
                };
                Ok(match newton(&mut system, &STEP_SEARCH, &settings.newton, start)? {
                    Ok((iteration, next, at)) => {
                        let (pairs_now, solvers) = (&*system.pairs, system.solvers);
                        let done =
                            self.report(setup, &next, pairs_now, &at.forces, to, iteration, at.residual, solvers);
                        solution.iterations += done.iterations;
                        solution.increments += 1;
                        solution.residual = done.residual;
                        note_solvers(&mut solution.solvers, done.solvers.iter().copied());
                        u = done.u.clone();
                        pairs = trial_pairs;
                        last = Some(done);
                        Outcome::Converged
                    }
                    Err(failure) => {
                        solution.iterations += failure.iterations;
                        Outcome::Failed(failure)
                    }
                })
            },
            |failure: Failure, to, _| {
                failure.error.unwrap_or(FemError::ContactNotConverged {
                    load: to,
                    iterations: failure.iterations,
                    residual: failure.residual,
                    changes: failure.changes,
                })
            },
        )?;
        solution.halvings = halvings;
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
}
