//! The Newton unit: Newton's method written once ([`newton`] over a [`NewtonSystem`]), its line searches
//! ([`LineSearch`]), its load stepping ([`LoadStepping`]) and its settings ([`NewtonSettings`]), used by
//! the static solve without contact ([`solve_law`](crate::StaticProblem::solve_law)), the contact solve
//! ([`contact`](crate::contact)) and the dynamic solve ([`solve_dynamic`](crate::StaticProblem::solve_dynamic)).
//!
//! ## Where the solves differ, and why
//!
//! Each solve is a [`NewtonSystem`] (`nonlinear.rs`'s `Equilibrium`, `contact/active_set.rs`'s
//! `ContactIncrement`, `dynamic.rs`'s `TimeStep`) with its own [`NewtonSettings`] constant; each
//! difference is a parameter or a method here.
//!
//! | | without contact | contact | dynamic |
//! | --- | --- | --- | --- |
//! | settings | [`NewtonSettings::STATIC`]: 40 steps, `1e-10` | [`NewtonSettings::CONTACT`]: 60 steps, `1e-10` | [`NewtonSettings::DYNAMIC`]: 29 steps, `1e-14` |
//! | round-off factor | 100 | 100 | `1e5` (`1e-9`) |
//! | evaluation | in the line search's trials (the merit) | at each iterate, after the active-set update | at each iterate |
//! | active set | none | pairs open, stick or slip; slip forces (a fixed point) | none |
//! | line search | [`Backtracking`] `{ tries: 12, sufficient_decrease: 1e-4 }` on the residual norm | [`Admissible`] `{ tries: 13 }` for a law that needs positive volume, the full step otherwise | [`FULL_STEP`] (`Admissible { tries: 1 }`) |
//! | load stepping | [`Growth::Double`], `snap: 0` | frictionless: [`Growth::Double`]; friction: [`Growth::Repeat`] of `1 / friction_increments`; `snap: 1e-12` | none (time steps) |
//! | end test | `|r| <= tol`, or within the round-off factor of it where the search takes no step | `|P r| <= tol`, or within the round-off factor of it where a full step no longer halves it (after the second iteration), with the active set, the slip forces and the gaps settled | `|g| <= tol`, or within the round-off factor of it where a step no longer halves the best residual, or stalled at the forces' round-off |
//!
//! - The contact solve's residual is not a merit the Newton step must lower: the active set, the
//!   stick/slip states and the slip forces (a fixed point) change between iterations, and the residual
//!   may rise while they settle. So its search only keeps every element's volume positive (the step
//!   halved up to 12 times), and convergence is judged by the end test, not by the search.
//! - The dynamic step starts from the predictor `u + dt v`, close to the solution for the study's time
//!   steps, and its Newton matrix carries the mass over `dt^2`: the full step converges, and a search
//!   would only cost residual evaluations. It tests 30 residuals (29 steps).
//! - Friction is path dependent, so a frictional contact problem is loaded in equal increments that a
//!   halving never lengthens past (`Repeat`); without friction the path does not matter and increments
//!   double after a success. The contact solve's last increment snaps to the whole load within 1e-12 (so
//!   that round-off in a sum of equal increments adds no sliver increment); the solve without contact
//!   keeps its exact test.
//!
//! Numbers are bit-identical to the copies these replaced: the same evaluations, step lengths and tests
//! in the same order, with the same operations.

mod line_search;
mod load_stepping;
mod system;

pub(crate) use line_search::{Admissible, Backtracking, FULL_STEP, LineSearch};
pub(crate) use load_stepping::{Growth, LoadStepping, Outcome};
pub(crate) use system::{Attempt, NewtonSystem, Trial, newton};

/// Settings of a Newton solve: its tolerances and iteration cap, and the load stepping of a static one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonSettings {
    /// Converged when `|r| <= relative_tolerance |r_0|` (2-norm over the free DOFs).
    pub relative_tolerance: f64,
    /// A residual no step can lower (round-off: the polar decomposition of an element barely deformed, a
    /// stiff material under a small load) counts as converged within this factor of the tolerance.
    pub round_off_factor: f64,
    /// Newton steps allowed per load increment (or time step).
    pub max_iterations: usize,
    /// The smallest load increment is `1 / max_increments` (a power of two).
    pub max_increments: usize,
    /// Load increments to start with (1: the whole load at once).
    pub initial_increments: usize,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self::STATIC
    }
}

impl NewtonSettings {
    /// The static solve without contact (the default).
    pub const STATIC: Self = Self {
        relative_tolerance: 1e-10,
        round_off_factor: 100.0,
        max_iterations: 40,
        max_increments: 1 << 10,
        initial_increments: 1,
    };
    /// The contact solve: more iterations, for the active set to settle.
    pub const CONTACT: Self = Self { max_iterations: 60, ..Self::STATIC };
    /// A dynamic time step (no load stepping): the residual relative to the load's weight.
    pub const DYNAMIC: Self =
        Self { relative_tolerance: 1e-14, round_off_factor: 1e5, max_iterations: 29, ..Self::STATIC };

    /// The tolerance of a residual stalled at round-off: `round_off_factor relative_tolerance`.
    pub fn round_off_tolerance(&self) -> f64 {
        self.round_off_factor * self.relative_tolerance
    }

    /// The load stepping these settings ask for: from `first`, doubling or repeating after a success
    /// (`growth`), halving a failure down to `1 / max_increments`.
    pub(crate) fn load_stepping(&self, first: f64, snap: f64, growth: Growth) -> LoadStepping {
        LoadStepping { first, minimum: 1.0 / self.max_increments.max(1) as f64, snap, growth }
    }
}

/// The 2-norm of `v`.
pub(crate) fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Adds to `solvers` the linear solvers of `ran` it does not name yet, in order.
pub(crate) fn note_solvers(solvers: &mut Vec<&'static str>, ran: impl IntoIterator<Item = &'static str>) {
    for name in ran {
        if !solvers.contains(&name) {
            solvers.push(name);
        }
    }
}
