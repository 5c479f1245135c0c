//! Compass (pattern) search with a complete poll and golden-ratio step reduction, as an argmin solver.

use argmin::core::{CostFunction, Error, IterState, KV, Problem, Solver, TerminationReason, TerminationStatus};

use crate::SearchError;

/// The golden ratio, the factor by which the step shrinks when no poll point improves.
pub const GOLDEN_RATIO: f64 = 1.618_033_988_749_895;

/// One accepted state of the search: where it stood, its cost, and the step it polled with.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchStep {
    /// Position.
    pub x: Vec<f64>,
    /// Cost there.
    pub cost: f64,
    /// Poll step length.
    pub step: f64,
}

/// Compass search on a box in 1 to 4 dimensions (docs/method.md, section The fits): poll `x +- step e_i` in
/// the order `+x0, -x0, +x1, -x1, ...` (poll points outside the box are projected onto it, and skipped when that
/// leaves them at `x`), evaluate all of them (a complete poll), move to the best strictly improving one
/// (ties to the first in poll order); when none improves divide the step by the golden ratio. Stops when
/// the step falls below `min_step`.
///
/// ```
/// use argmin::core::{CostFunction, Error, Executor, State};
/// use pbdfit_fit::PatternSearch;
/// struct Bowl;
/// impl CostFunction for Bowl {
///     type Param = Vec<f64>;
///     type Output = f64;
///     fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
///         Ok((x[0] - 0.3).powi(2) + 2.0 * (x[1] - 0.71).powi(2))
///     }
/// }
/// let search = PatternSearch::new(vec![0.0, 0.0], vec![1.0, 1.0], 0.05, 1e-6).unwrap();
/// let result = Executor::new(Bowl, search)
///     .configure(|s| s.param(vec![0.5, 0.5]))
///     .run()
///     .unwrap();
/// let x = result.state.get_best_param().unwrap();
/// assert!((x[0] - 0.3).abs() < 1e-5 && (x[1] - 0.71).abs() < 1e-5);
/// // Bad settings are refused by the constructor.
/// assert!(PatternSearch::new(vec![0.0], vec![1.0], 0.05, 0.0).is_err());
/// assert!(PatternSearch::new(vec![1.0], vec![1.0], 0.05, 1e-6).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct PatternSearch {
    lower: Vec<f64>,
    upper: Vec<f64>,
    step: f64,
    min_step: f64,
    history: Vec<SearchStep>,
}

impl PatternSearch {
    /// A search on the box `[lower, upper]` (1 to 4 dimensions) starting with `step`, stopping below
    /// `min_step`. Errors for an empty or non-finite box and a step or minimum step that is not > 0.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>, step: f64, min_step: f64) -> Result<Self, SearchError> {
        if lower.len() != upper.len() || !(1..=4).contains(&lower.len()) {
            return Err(SearchError::Dimensions(lower.len().max(upper.len())));
        }
        for (i, (&lo, &hi)) in lower.iter().zip(&upper).enumerate() {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(SearchError::EmptyBox { name: format!("axis {i}"), lower: lo, upper: hi });
            }
        }
        for (name, value) in [("step", step), ("min_step", min_step)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SearchError::Step { name, value });
            }
        }
        Ok(Self { lower, upper, step, min_step, history: Vec::new() })
    }

    /// Every state the search stood in, in order (the start first).
    pub fn history(&self) -> &[SearchStep] {
        &self.history
    }

    /// The current poll step.
    pub fn step(&self) -> f64 {
        self.step
    }
}

type SearchState = IterState<Vec<f64>, (), (), (), (), f64>;

impl<O> Solver<O, SearchState> for PatternSearch
where
    O: CostFunction<Param = Vec<f64>, Output = f64>,
{
    fn name(&self) -> &str {
        "compass search (golden-ratio step reduction)"
    }

    fn init(&mut self, problem: &mut Problem<O>, mut state: SearchState) -> Result<(SearchState, Option<KV>), Error> {
        let x = state.take_param().ok_or_else(|| Error::msg("pattern search needs a start point"))?;
        if x.len() != self.lower.len() {
            return Err(Error::msg(format!("start point has {} coordinates, the box {}", x.len(), self.lower.len())));
        }
        let x: Vec<f64> = (0..x.len()).map(|i| x[i].clamp(self.lower[i], self.upper[i])).collect();
        let cost = problem.cost(&x)?;
        self.history.push(SearchStep { x: x.clone(), cost, step: self.step });
        Ok((state.param(x).cost(cost), None))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: SearchState,
    ) -> Result<(SearchState, Option<KV>), Error> {
        let x = state.take_param().ok_or_else(|| Error::msg("pattern search lost its position"))?;
        let fx = state.get_cost();
        let mut best: Option<(Vec<f64>, f64)> = None;
        for (axis, sign) in (0..x.len()).flat_map(|axis| [(axis, 1.0), (axis, -1.0)]) {
            let mut y = x.clone();
            y[axis] = (x[axis] + sign * self.step).clamp(self.lower[axis], self.upper[axis]);
            if y[axis] == x[axis] {
                continue;
            }
            let cost = problem.cost(&y)?;
            if cost < best.as_ref().map_or(f64::INFINITY, |b| b.1) {
                best = Some((y, cost));
            }
        }
        let state = match best {
            Some((y, cost)) if cost < fx => {
                self.history.push(SearchStep { x: y.clone(), cost, step: self.step });
                state.param(y).cost(cost)
            }
            _ => {
                self.step /= GOLDEN_RATIO;
                state.param(x).cost(fx)
            }
        };
        Ok((state, None))
    }

    fn terminate(&mut self, _state: &SearchState) -> TerminationStatus {
        if self.step < self.min_step {
            TerminationStatus::Terminated(TerminationReason::SolverConverged)
        } else {
            TerminationStatus::NotTerminated
        }
    }
}
