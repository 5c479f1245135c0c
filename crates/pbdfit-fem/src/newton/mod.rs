//! The Newton unit: the line searches ([`LineSearch`]) and the load stepping ([`LoadStepping`]) of
//! every nonlinear solve, written once and used by the static solve without contact
//! ([`solve_law`](crate::StaticProblem::solve_law)), the contact solve ([`contact`](crate::contact)) and
//! the dynamic solve ([`solve_dynamic`](crate::StaticProblem::solve_dynamic)), with the settings they
//! share ([`NewtonSettings`]).
//!
//! ## Where the solves differ, and why
//!
//! The three solves keep their own rules; each difference is a parameter here.
//!
//! | | without contact | contact | dynamic |
//! | --- | --- | --- | --- |
//! | line search | [`Backtracking`] `{ tries: 12, sufficient_decrease: 1e-4 }` on the residual norm | [`Admissible`] `{ tries: 13 }` for a law that needs positive volume, the full step otherwise | none: the full step (`x += dx`) |
//! | load stepping | [`Growth::Double`], `snap: 0` | frictionless: [`Growth::Double`]; friction: [`Growth::Repeat`] of `1 / friction_increments`; `snap: 1e-12` | none (time steps) |
//! | end test | `|r| <= tol`, or within [`ROUND_OFF_FACTOR`] of it where no step of the search is taken | `|P r| <= tol`, or within [`ROUND_OFF_FACTOR`] of it where a full step no longer halves it (after the second iteration), with the active set, the slip forces and the gaps settled | `|g| <= 1e-14`, or `<= 1e-9` where a step no longer halves the best residual |
//!
//! - The contact solve's residual is not a merit the Newton step must lower: the active set, the
//!   stick/slip states and the slip forces (a fixed point) change between iterations, and the residual
//!   may rise while they settle. So its search only keeps every element's volume positive (the step
//!   halved up to 12 times), and convergence is judged by the end test, not by the search.
//! - The dynamic step starts from the predictor `u + dt v`, close to the solution for the study's time
//!   steps, and its Newton matrix carries the mass over `dt^2`: the full step converges, and a search
//!   would only cost residual evaluations.
//! - Friction is path dependent, so a frictional contact problem is loaded in equal increments that a
//!   halving never lengthens past (`Repeat`); without friction the path does not matter and increments
//!   double after a success. The contact solve's last increment snaps to the whole load within 1e-12 (so
//!   that round-off in a sum of equal increments adds no sliver increment); the solve without contact
//!   keeps its exact test.
//!
//! Numbers are bit-identical to the copies these replaced: the same step lengths in the same order, the
//! same tests with the same operations.

mod line_search;
mod load_stepping;

pub(crate) use line_search::{Admissible, Backtracking, LineSearch};
pub(crate) use load_stepping::{Growth, LoadStepping, Outcome};

/// A Newton iteration whose residual no step can lower (round-off: the polar decomposition of an
/// element barely deformed, a stiff material under a small load) counts as converged when its residual
/// is within this factor of the tolerance.
pub const ROUND_OFF_FACTOR: f64 = 100.0;

/// Settings of the Newton solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonSettings {
    /// Converged when `|r| <= relative_tolerance |r_0|` (2-norm over the free DOFs).
    pub relative_tolerance: f64,
    /// Newton iterations allowed per load increment.
    pub max_iterations: usize,
    /// The smallest load increment is `1 / max_increments` (a power of two).
    pub max_increments: usize,
    /// Load increments to start with (1: the whole load at once).
    pub initial_increments: usize,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self { relative_tolerance: 1e-10, max_iterations: 40, max_increments: 1 << 10, initial_increments: 1 }
    }
}

impl NewtonSettings {
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
