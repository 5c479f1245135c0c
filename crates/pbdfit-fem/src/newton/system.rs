//! The Newton iteration, written once: a solve is a [`NewtonSystem`], and [`newton`] iterates it with a
//! [`LineSearch`] under [`NewtonSettings`].

use super::{LineSearch, NewtonSettings};
use crate::FemError;

/// What a method gives: an error that ends the solve (outer), or its value or the system's failure.
pub(crate) type Attempt<T, F> = Result<Result<T, F>, FemError>;

/// A converged solve: the iteration it ended at, the iterate and its evaluation.
pub(crate) type Converged<S> = (usize, <S as NewtonSystem>::State, <S as NewtonSystem>::Evaluation);

/// A line search's trial point: the state, its evaluation where the merit needed one (the next iteration
/// takes it rather than evaluate the state again), and the merit.
pub(crate) type Trial<S> = Option<((<S as NewtonSystem>::State, Option<<S as NewtonSystem>::Evaluation>), f64)>;

/// A nonlinear system for Newton's method: the residual and tangent at a state, the step (over the free
/// DOFs) and the admissible step along it, an active-set update and the convergence test. Each method is
/// told the iteration (0: the start).
pub(crate) trait NewtonSystem {
    /// The iterate.
    type State;
    /// The residual and tangent at a state, with what the step and the end test read of them.
    type Evaluation;
    /// How a solve fails (where a halved increment may mend it).
    type Failure;

    /// Updates the active set at `state` before its evaluation; none by default.
    fn update_active_set(&mut self, _iteration: usize, _state: &Self::State) {}

    /// The residual and tangent at `state`.
    fn evaluate(&mut self, iteration: usize, state: &Self::State) -> Attempt<Self::Evaluation, Self::Failure>;

    /// The convergence test, once per iterate (a system may record the residual here).
    fn converged(&mut self, iteration: usize, state: &Self::State, at: &Self::Evaluation, s: &NewtonSettings) -> bool;

    /// The Newton step from `state`.
    fn step(&mut self, i: usize, state: &Self::State, at: &Self::Evaluation) -> Attempt<Vec<f64>, Self::Failure>;

    /// The merit the line search starts from (none by default: a search that reads no merit).
    fn merit(&self, _at: &Self::Evaluation) -> f64 {
        f64::NAN
    }

    /// `state + alpha step` with its merit, `None` where it is not admissible.
    fn trial(&mut self, state: &Self::State, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError>;

    /// The failure after `iterations` iterations.
    fn failure(&mut self, iterations: usize, at: &Self::Evaluation) -> Self::Failure;

    /// Where the line search takes no step: converged (`Ok`) or failed; failed by default.
    fn stalled(&mut self, iteration: usize, at: &Self::Evaluation, _: &NewtonSettings) -> Result<(), Self::Failure> {
        Err(self.failure(iteration + 1, at))
    }
}

/// Newton's method on `system` from `start`: at each iterate the active-set update, the evaluation and the
/// convergence test; then, at most `settings.max_iterations` times, the step and the line search.
/// The outer `Result` is an error that ends the solve.
pub(crate) fn newton<S: NewtonSystem>(
    system: &mut S,
    search: &impl LineSearch,
    settings: &NewtonSettings,
    start: S::State,
) -> Attempt<Converged<S>, S::Failure> {
    let (mut state, mut evaluated, mut iteration) = (start, None, 0);
    loop {
        pbdfit_mesh::cancel::check()?;
        system.update_active_set(iteration, &state);
        let at = match evaluated.take() {
            Some(at) => at,
            None => match system.evaluate(iteration, &state)? {
                Ok(at) => at,
                Err(failure) => return Ok(Err(failure)),
            },
        };
        if system.converged(iteration, &state, &at, settings) {
            return Ok(Ok((iteration, state, at)));
        } else if iteration == settings.max_iterations {
            return Ok(Err(system.failure(iteration, &at)));
        }
        let step = match system.step(iteration, &state, &at)? {
            Ok(step) => step,
            Err(failure) => return Ok(Err(failure)),
        };
        match search.search(system.merit(&at), |alpha| system.trial(&state, &step, alpha))? {
            Some((next, next_at)) => (state, evaluated) = (next, next_at),
            None => return Ok(system.stalled(iteration, &at, settings).map(|()| (iteration, state, at))),
        }
        iteration += 1;
    }
}
