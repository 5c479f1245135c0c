//! Contact and friction against rigid obstacles, shared by the projection models (PBD, XPBD)
//! and the mass-spring Verlet integrator.
//!
//! Every free particle `p` against every obstacle `k` carries the unilateral constraint
//! `C(x_p) = g_k(x_p) >= 0`, with `g_k` the obstacle's signed gap in m
//! ([`pbdfit_mesh::obstacle::Shape::gap`]: positive where free, negative inside; its gradient `n` is the
//! unit normal pointing from the obstacle into the free side).
//! The obstacle is rigid (infinite mass), so a violated constraint is corrected in full on the particle:
//! `dx = -C n` (PBD with stiffness 1; XPBD with compliance 0, where `d_lambda = -C / w` gives the same
//! `dx = w n d_lambda`). The correction depth `d = -C > 0` is the normal correction.
//!
//! Friction is positional (Macklin et al. 2014, "Unified particle physics", section 6.1; Mueller et al.
//! 2020, "Detailed rigid body simulation with XPBD", section 3.5): with `dx_t` the particle's tangential
//! displacement over the time step so far (relative to the obstacle, which does not move during a run),
//! - static: if `|dx_t - F| <= mu_s D` the whole `dx_t` is cancelled (the particle sticks), where `D` is
//!   the particle's normal correction depth summed over the step's iterations so far (its normal impulse
//!   times `dt / m`, as Mueller's static test uses the accumulated normal multiplier) and `F` the
//!   friction correction already applied in the step (so `dx_t - F` is the tangential displacement
//!   friction acts against, not what is left of it after earlier iterations);
//! - kinetic: otherwise `dx_t` is shortened by what is left of the budget `mu_k D - |F|` (at most to
//!   zero), so the step's kinetic corrections add up to `mu_k D`: a tangential impulse `mu_k` times the
//!   normal one.
//!
//! With `nit = 1` this is exactly Macklin's rule. At rest (velocity 0) a particle's step moves it by
//! `dt^2 a`, so it sticks exactly when `|a_t| <= mu_s |a_n|`: Coulomb's cone. (Comparing what is left of
//! `dx_t` after an iteration's kinetic correction with the whole `D` would let a particle that started
//! the step slipping stick in a later iteration: a block starting to slide down an incline, PBD at
//! nit = 4, then slid 4 % short of `g (sin - mu_k cos) t^2 / 2`.)
//!
//! Units: m; the coefficients are dimensionless. The obstacles sit at their placed (full load) position
//! from the first step on (`Obstacle::placed`): a sphere displaced into a block pushes the particles it
//! overlaps out in the first step(s), and the rest state is where the simulation settles after that.

use pbdfit_mesh::Obstacle;
use pbdfit_mesh::obstacle::{Friction, Shape};

use crate::Vec3;

/// An obstacle where the models meet it: its placed shape and its friction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact {
    pub(crate) shape: Shape,
    pub(crate) friction: Friction,
}

impl Contact {
    pub(crate) fn placed(obstacles: &[Obstacle]) -> Vec<Contact> {
        obstacles.iter().map(|o| Contact { shape: o.placed(), friction: o.friction }).collect()
    }
}

/// Whether any of `contacts` has friction.
pub(crate) fn any_friction(contacts: &[Contact]) -> bool {
    contacts.iter().any(|c| !c.friction.is_frictionless())
}

/// The outcome of one contact projection of one particle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Resolved {
    /// The correction to add to the particle's position (m): normal plus friction.
    pub(crate) correction: Vec3,
    /// The normal correction depth (m), > 0.
    pub(crate) depth: f64,
    /// The friction part of `correction` (m), tangential.
    pub(crate) friction: Vec3,
}

impl Contact {
    /// The contact projection of a particle at position `x` (m) that moved by `moved` (m) since the start
    /// of the step, whose normal correction depth summed over the step's earlier iterations is
    /// `depth_before` (m) and whose friction corrections in them add up to `friction_before` (m).
    /// `None` when the particle is free (`gap >= 0`).
    #[inline]
    pub(crate) fn resolve(
        &self,
        x: &Vec3,
        moved: &Vec3,
        depth_before: f64,
        friction_before: &Vec3,
    ) -> Option<Resolved> {
        let gap = self.shape.gap(x);
        if gap.value >= 0.0 {
            return None;
        }
        let depth = -gap.value;
        let normal = gap.normal * depth;
        let mut friction = Vec3::zeros();
        if !self.friction.is_frictionless() {
            let n = gap.normal;
            let after = moved + normal;
            let tangential = after - n * n.dot(&after);
            let length = tangential.norm();
            let total = depth_before + depth;
            if (tangential - friction_before).norm() <= self.friction.static_coefficient * total {
                // Sticking: back to the surface point nearest where the step started (on a plane the
                // normal correction less the whole tangential displacement; on a curved obstacle also
                // exactly where it started, so a sticking particle does not creep along it).
                let start = x - moved;
                let at_start = self.shape.gap(&start);
                let correction = start - at_start.normal * at_start.value - x;
                return Some(Resolved { correction, depth, friction: correction - normal });
            } else if length > 0.0 {
                let budget = (self.friction.kinetic_coefficient * total - friction_before.norm()).max(0.0);
                friction = -tangential * (budget / length).min(1.0);
            }
        }
        let mut correction = normal + friction;
        let mut depth = depth;
        if friction != Vec3::zeros() {
            // On a curved obstacle (a bowl, a sphere) a tangential move leaves the surface: back onto it
            // along the normal there, so no iteration ends inside an obstacle.
            let again = self.shape.gap(&(x + correction));
            if again.value < 0.0 {
                correction -= again.normal * again.value;
                depth -= again.value;
            }
        }
        Some(Resolved { correction, depth, friction })
    }
}

/// What the contacts did in the current step of a projection model, per (obstacle, particle) at
/// `k * particles + p`; empty vectors for a body without obstacles.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ContactRecord {
    /// Normal correction depth summed over the step's iterations (m).
    pub(crate) depth: Vec<f64>,
    /// Total contact correction (normal plus friction) over the step (m).
    pub(crate) push: Vec<Vec3>,
    /// Friction correction over the step (m).
    pub(crate) friction: Vec<Vec3>,
}

impl ContactRecord {
    pub(crate) fn new(obstacles: usize, particles: usize) -> Self {
        let slots = obstacles * particles;
        Self { depth: vec![0.0; slots], push: vec![Vec3::zeros(); slots], friction: vec![Vec3::zeros(); slots] }
    }

    pub(crate) fn clear(&mut self) {
        self.depth.fill(0.0);
        self.push.fill(Vec3::zeros());
        self.friction.fill(Vec3::zeros());
    }
}
