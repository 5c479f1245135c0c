//! A fit: the grid's best point, refined by pattern search.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;

use argmin::core::{CostFunction, Error, Executor, State};
use pbdfit_pbd::{CpuBackend, Model, RestStateBackend};

use crate::{Evaluation, FitError, FitProblem, GridRestStates, PatternSearch, SearchStep, grid_points};

/// Controls of a fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitOptions {
    /// Grid points per axis (21: kd, kv in 0, 0.05, ..., 1).
    pub grid: usize,
    /// The search stops when its step falls below this.
    pub min_step: f64,
    /// Largest number of pattern-search iterations.
    pub max_iterations: u64,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self { grid: 21, min_step: 1e-4, max_iterations: 10_000 }
    }
}

/// A point without a rest state, met during a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedPoint {
    /// Distance parameter.
    pub kd: f64,
    /// Volume parameter.
    pub kv: f64,
    /// Why it has no rest state.
    pub reason: String,
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitResult {
    /// Fitted distance stiffness.
    pub kd: f64,
    /// Fitted volume stiffness.
    pub kv: f64,
    /// Error at the fitted point.
    pub error: f64,
    /// Per part errors at the fitted point (one entry for a basic scene).
    pub part_errors: Vec<(String, f64)>,
    /// Distinct error evaluations (grid and search).
    pub evaluations: usize,
    /// The points without a rest state (counted as infinite error).
    pub failures: Vec<FailedPoint>,
    /// The search path, from the grid's best point.
    pub history: Vec<SearchStep>,
    /// Wall-clock seconds (excluding grid rest states computed beforehand and shared).
    pub seconds: f64,
}

impl FitResult {
    /// A one-line summary of the failed points, e.g. "21 points without rest state (kd = 0 ...)".
    pub fn failure_summary(&self) -> String {
        if self.failures.is_empty() {
            return String::new();
        }
        let zero_kd = self.failures.iter().filter(|f| f.kd == 0.0).count();
        format!(
            "{} points without rest state ({} with kd = 0); first: kd = {}, kv = {}: {}",
            self.failures.len(),
            zero_kd,
            self.failures[0].kd,
            self.failures[0].kv,
            self.failures[0].reason
        )
    }
}

/// A parameter point rounded to 1e-12, as integers.
type Key = (i64, i64);

/// Cache key: parameters rounded to 1e-12, so that a search point a rounding error away from a grid
/// point reuses the grid's value.
fn key(kd: f64, kv: f64) -> Key {
    ((kd * 1e12).round() as i64, (kv * 1e12).round() as i64)
}

/// The error as an argmin cost function, memoised, warm-starting each new point from the nearest point
/// already evaluated (deterministic: evaluations happen in the search's fixed order).
struct SearchCost<'a> {
    problem: &'a FitProblem,
    evaluated: RefCell<HashMap<Key, Evaluation>>,
    /// Points with a rest state, in evaluation order (the candidates for warm starts).
    order: RefCell<Vec<(f64, f64, Key)>>,
    failures: RefCell<Vec<FailedPoint>>,
}

impl SearchCost<'_> {
    fn record(&self, kd: f64, kv: f64, evaluation: Evaluation) {
        if let Some(reason) = &evaluation.failure {
            self.failures.borrow_mut().push(FailedPoint { kd, kv, reason: reason.clone() });
        }
        let k = key(kd, kv);
        if !evaluation.rest.is_empty() {
            self.order.borrow_mut().push((kd, kv, k));
        }
        self.evaluated.borrow_mut().insert(k, evaluation);
    }

    fn nearest(&self, kd: f64, kv: f64) -> Option<Key> {
        let order = self.order.borrow();
        let mut best: Option<(f64, Key)> = None;
        for &(a, b, k) in order.iter() {
            let d = (a - kd).powi(2) + (b - kv).powi(2);
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, k));
            }
        }
        best.map(|b| b.1)
    }
}

impl CostFunction for SearchCost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        let k = key(x[0], x[1]);
        if let Some(e) = self.evaluated.borrow().get(&k) {
            return Ok(e.error);
        }
        let warm_key = self.nearest(x[0], x[1]);
        let evaluation = {
            let evaluated = self.evaluated.borrow();
            let warm = warm_key.and_then(|k| evaluated.get(&k));
            self.problem.evaluate(x[0], x[1], warm)
        };
        let error = evaluation.error;
        self.record(x[0], x[1], evaluation);
        Ok(error)
    }
}

/// Fits (kd, kv): grid sweep (from precomputed per-part grid rest states) then pattern search.
///
/// `grids[i]` must be the grid of `problem.parts[i]` at `problem.settings`.
pub fn fit_with_grid(
    problem: &FitProblem,
    grids: &[&GridRestStates],
    options: &FitOptions,
) -> Result<FitResult, FitError> {
    let start = Instant::now();
    if matches!(problem.settings.model, Model::Xpbd { .. }) {
        return Err(FitError::Input(
            "fitting XPBD compliances is not supported yet: the fit searches [0, 1]^2, and compliance has no such range"
                .into(),
        ));
    }
    if grids.len() != problem.parts.len() || grids.iter().any(|g| g.resolution != options.grid) {
        return Err(FitError::Input("grid rest states do not match the problem's parts or grid resolution".into()));
    }
    let cost = SearchCost {
        problem,
        evaluated: RefCell::new(HashMap::new()),
        order: RefCell::new(Vec::new()),
        failures: RefCell::new(Vec::new()),
    };
    let mut best: Option<(usize, f64)> = None;
    let points = grid_points(options.grid);
    for (i, &(kd, kv)) in points.iter().enumerate() {
        let rest: Vec<_> = grids.iter().map(|g| g.states[i].clone()).collect();
        let evaluation = problem.error_from(&rest);
        if evaluation.error < best.map_or(f64::INFINITY, |b| b.1) {
            best = Some((i, evaluation.error));
        }
        cost.record(kd, kv, evaluation);
    }
    let Some((best_index, _)) = best else {
        let failures = cost.failures.into_inner();
        return Err(FitError::NoRestState {
            scene: problem.scene.clone(),
            reason: failures.first().map(|f| f.reason.clone()).unwrap_or_default(),
        });
    };
    let (kd0, kv0) = points[best_index];
    let spacing = 1.0 / (options.grid.max(2) - 1) as f64;
    let solver = PatternSearch::new([0.0, 0.0], [1.0, 1.0], spacing, options.min_step);
    let result = Executor::new(cost, solver)
        .configure(|s| s.param(vec![kd0, kv0]).max_iters(options.max_iterations))
        .timer(false)
        .run()
        .map_err(|e| FitError::Internal(format!("pattern search: {e}")))?;
    let x = result.state.get_best_param().cloned().unwrap_or(vec![kd0, kv0]);
    let cost =
        result.problem.problem.as_ref().ok_or_else(|| FitError::Internal("pattern search lost its problem".into()))?;
    let evaluated = cost.evaluated.borrow();
    let at = &evaluated[&key(x[0], x[1])];
    Ok(FitResult {
        kd: x[0],
        kv: x[1],
        error: at.error,
        part_errors: problem.parts.iter().map(|p| p.scene.clone()).zip(at.part_errors.iter().copied()).collect(),
        evaluations: evaluated.len(),
        failures: cost.failures.borrow().clone(),
        history: result.solver.history().to_vec(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Fits (kd, kv) from scratch: computes the grid rest states on `backend`, then [`fit_with_grid`].
pub fn fit(problem: &FitProblem, options: &FitOptions, backend: &dyn RestStateBackend) -> Result<FitResult, FitError> {
    let start = Instant::now();
    let grids: Vec<GridRestStates> = problem
        .parts
        .iter()
        .map(|p| GridRestStates::compute(&p.system, &problem.settings, options.grid, backend, &problem.rest_options))
        .collect();
    let refs: Vec<&GridRestStates> = grids.iter().collect();
    let mut result = fit_with_grid(problem, &refs, options)?;
    result.seconds = start.elapsed().as_secs_f64();
    Ok(result)
}

/// [`fit`] on the CPU backend.
pub fn fit_cpu(problem: &FitProblem, options: &FitOptions) -> Result<FitResult, FitError> {
    fit(problem, options, &CpuBackend)
}
