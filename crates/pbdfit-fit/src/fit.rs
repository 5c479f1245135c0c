//! A fit: the grid's best point, refined by pattern search, in the search box's unit coordinates.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;

use argmin::core::{CostFunction, Error, Executor, State};
use pbdfit_pbd::{CpuBackend, PbdError, RestOptions, RestStateBackend, Scale};

use crate::gradient::{self, REACHED, RestSource, gradient_grid};
use crate::grid::{Lineage, SharedRestStates};
use crate::problem::rest_displacements;
use crate::{
    Evaluation, FitError, FitProblem, GridRestStates, Identifiability, PatternSearch, SearchBox, SearchError,
    SearchStep, default_grid,
};

/// Which search a fit runs (docs/method.md, section The fits, and section Sensitivity of the rest state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Search {
    /// The thesis's search: a fine grid (21 x 21 for two parameters), then the golden-ratio compass
    /// search from its best point. Derivative-free; 450 to 750 rest states per fit.
    #[default]
    Pattern,
    /// A coarse grid ([`gradient_grid`] points per axis, at cell centres), then projected
    /// Levenberg-Marquardt on the rest state's sensitivity from the best point of each basin (at most
    /// [`MAX_BASINS`](crate::MAX_BASINS)) and from the caller's starts; the best end point wins.
    Gradient,
}

impl Search {
    /// Every search, in the order the command line lists them.
    pub const ALL: [Search; 2] = [Search::Gradient, Search::Pattern];

    /// The search of a single fit and of a table when none is named (`pbdfit fit`, `pbdfit table`,
    /// Python `fit`): the one place that default is spelled. Study files without `[fit] search` keep the
    /// thesis's [`Search::Pattern`] ([`Search::default`]), as every study did before.
    pub const FIT_DEFAULT: Search = Search::Gradient;

    /// `pattern` or `gradient`.
    pub fn name(self) -> &'static str {
        match self {
            Search::Pattern => "pattern",
            Search::Gradient => "gradient",
        }
    }

    /// Parses [`name`](Self::name)'s values; the error lists them.
    pub fn parse(text: &str) -> Result<Self, SearchError> {
        Self::ALL.into_iter().find(|s| s.name() == text).ok_or_else(|| SearchError::UnknownSearch {
            name: text.to_string(),
            allowed: Self::ALL.map(Search::name).join(", "),
        })
    }
}

impl std::fmt::Display for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of a fit none of whose grid points has a rest state: the time limit's where it passed
/// first (`--max-seconds 1e-9` was reported as the model's failure), else the first point's
/// reason, else that no error is finite.
fn no_rest_state(
    problem: &FitProblem,
    first: Option<PbdError>,
    deadline: Option<Instant>,
    max_seconds: Option<f64>,
) -> FitError {
    match (first, deadline, max_seconds) {
        (Some(_), Some(d), Some(seconds)) if Instant::now() >= d => {
            FitError::TimeLimitBeforeRest { scene: problem.scene.clone(), seconds }
        }
        (Some(first), _, _) => FitError::NoRestState { scene: problem.scene.clone(), first },
        (None, _, _) => FitError::NoFiniteError { scene: problem.scene.clone() },
    }
}

/// The instant `seconds` after `start`; `None` (no limit) where it lies beyond what an [`Instant`] can
/// hold. `Duration::from_secs_f64` panics above `u64::MAX` seconds and `Instant + Duration` panics on
/// overflow, so `--max-seconds 1e19` (a limit no fit reaches) must not go through either; a negative
/// or NaN `seconds` is an immediate deadline (the front ends refuse both before).
pub fn deadline_after(start: Instant, seconds: f64) -> Option<Instant> {
    let seconds = if seconds.is_nan() { 0.0 } else { seconds.max(0.0) };
    std::time::Duration::try_from_secs_f64(seconds).ok().and_then(|d| start.checked_add(d))
}

/// The rest-state budget of a fit, and whether it ran out.
#[derive(Debug)]
pub(crate) struct Budget {
    /// Evaluations counted so far.
    pub spent: usize,
    limit: usize,
    deadline: Option<Instant>,
    /// Why the fit stopped early, once it has.
    pub stopped: Option<String>,
}

impl Budget {
    pub(crate) fn new(options: &FitOptions, start: Instant) -> Self {
        let deadline = options.max_seconds.and_then(|s| deadline_after(start, s));
        Self { spent: 0, limit: options.max_evaluations, deadline, stopped: None }
    }

    /// Counts one rest-state evaluation.
    pub(crate) fn spend(&mut self) {
        self.spent += 1;
    }

    /// Evaluations left before the budget is spent.
    pub(crate) fn left(&self) -> usize {
        self.limit.saturating_sub(self.spent)
    }

    /// Whether the time limit has passed.
    pub(crate) fn timed_out(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the budget is spent (and, the first time, records why).
    pub(crate) fn exhausted(&mut self) -> bool {
        if self.stopped.is_none() {
            if self.spent >= self.limit {
                self.stopped = Some(format!("stopped at its budget of {} evaluations", self.limit));
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.stopped = Some("stopped at its time limit (--max-seconds)".to_string());
            } else if pbdfit_mesh::cancel::requested() {
                // Ctrl-C (`crate::cancellable`): the fit ends with the cancellation ([`fit`]).
                self.stopped = Some("cancelled".to_string());
            }
        }
        self.stopped.is_some()
    }
}

/// The most projection sweeps one rest state of the gradient search may spend. A converging rest state
/// of the committed studies needs at most a few thousand map evaluations (fixed point, `nit` sweeps
/// each; the solver falls back to stepping after 3,000); what is left of the default 20,000,000 is the
/// stepping fallback's, where a point that creeps without running away (XPBD at alpha_v = 1e-14 on
/// gravity-ceiling at N = 4; torsion near kd = 0) spent minutes. 200,000 sweeps leave the fallback
/// about 100,000 even at nit = 32.
pub const GRADIENT_MAX_SWEEPS: usize = 200_000;

/// Controls of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    /// The search (the thesis's pattern search unless asked otherwise).
    pub search: Search,
    /// Further starts of a gradient search, as parameter values in the model's order (a table's lookup,
    /// a neighbouring setting's fit); clamped into the box.
    pub starts: Vec<Vec<f64>>,
    /// Largest number of error evaluations a gradient fit spends after its grid (each one rest state
    /// per part); when it runs out the fit reports its best point with a note saying so.
    pub max_evaluations: usize,
    /// Wall-clock limit of a fit in seconds (`None`: none); checked between evaluations, so a fit stops
    /// after the rest state under way. Its best point so far is the result, with a note saying so.
    pub max_seconds: Option<f64>,
    /// The box searched (the model's default box unless overridden).
    pub search_box: SearchBox,
    /// Grid points per axis (`None`: [`default_grid`] for the box's dimension; 21 for two parameters).
    pub grid: Option<usize>,
    /// The search stops when its step falls below this fraction of each axis's width (in search
    /// coordinates: the value, or log10 of it).
    pub min_step: f64,
    /// Largest number of pattern-search iterations.
    pub max_iterations: u64,
    /// Whether to measure how well the optimum determines the parameters ([`Identifiability`]: about
    /// 20 to 40 extra error evaluations per parameter, after the fit; it never changes the fit).
    pub identifiability: bool,
    /// In a study or table with the gradient search: whether each fit also starts from the fit at the next
    /// lower nu of the same scene and setting (its neighbour). Such fits run one after the other in
    /// increasing nu, so a group's parallelism falls to its number of (scene, E) chains; the rows stay
    /// independent of the thread count and of interruptions. Off by default; ignored by the pattern
    /// search, which takes no starts ([`Self::neighbour_starts`]).
    pub neighbour_starts: bool,
}

impl FitOptions {
    /// The thesis's controls on `search_box`: default grid, minimum step 1e-4.
    pub fn new(search_box: SearchBox) -> Self {
        Self {
            search: Search::Pattern,
            starts: Vec::new(),
            max_evaluations: 400,
            max_seconds: None,
            search_box,
            grid: None,
            min_step: 1e-4,
            max_iterations: 10_000,
            identifiability: true,
            neighbour_starts: false,
        }
    }

    /// Whether fits start from their neighbours: asked for, with the gradient search.
    pub fn neighbour_starts(&self) -> bool {
        self.neighbour_starts && self.search == Search::Gradient
    }

    /// Runs `search` instead: a grid chosen for another search is dropped (each search has its own
    /// default grid). What `--search` does over a study or table file's `[fit] search`.
    pub fn use_search(&mut self, search: Search) {
        if search != self.search {
            self.search = search;
            self.grid = None;
        }
    }

    /// The rest-state controls of this search from `base`: the gradient search caps every rest state at
    /// [`GRADIENT_MAX_SWEEPS`] projection sweeps (a point that neither converges nor runs away by then is
    /// a failed point, "not converged") and gives up a collapsed body as soon as the divergence probe
    /// sees it stay collapsed ([`RestOptions::collapse_verdict`]); the pattern search keeps `base` (the
    /// thesis's results are pinned).
    pub fn rest_options(&self, base: &RestOptions) -> RestOptions {
        match self.search {
            Search::Pattern => *base,
            Search::Gradient => {
                RestOptions { max_sweeps: base.max_sweeps.min(GRADIENT_MAX_SWEEPS), collapse_verdict: true, ..*base }
            }
        }
    }

    /// How many points the grid has ([`resolution`](Self::resolution) to the power of the box's
    /// dimensions; `usize::MAX` where that overflows), without making them.
    pub fn grid_point_count(&self) -> usize {
        u32::try_from(self.search_box.dimensions())
            .ok()
            .and_then(|d| self.resolution().checked_pow(d))
            .unwrap_or(usize::MAX)
    }

    /// Grid points per axis (the search's default unless set).
    pub fn resolution(&self) -> usize {
        self.grid.unwrap_or_else(|| match self.search {
            Search::Pattern => default_grid(self.search_box.dimensions()),
            Search::Gradient => gradient_grid(self.search_box.dimensions()),
        })
    }

    /// The grid's points in unit coordinates: the pattern search's grid includes the box's edges
    /// ([`SearchBox::grid`]), the gradient search's sits at cell centres ([`SearchBox::centred_grid`]).
    pub fn grid_points(&self) -> Vec<Vec<f64>> {
        match self.search {
            Search::Pattern => self.search_box.grid(self.resolution()),
            Search::Gradient => self.search_box.centred_grid(self.resolution()),
        }
    }
}

/// A point without a rest state, met during a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedPoint {
    /// Parameter values, in the model's order.
    pub parameters: Vec<f64>,
    /// Why it has no rest state.
    pub reason: PbdError,
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitResult {
    /// Fitted parameters `(name, value)` in the model's order.
    pub parameters: Vec<(&'static str, f64)>,
    /// The parameters whose fitted value lies on the edge of the search box.
    pub at_bound: Vec<&'static str>,
    /// Error at the fitted point.
    pub error: f64,
    /// Per part errors at the fitted point (one entry for a basic scene).
    pub part_errors: Vec<(String, f64)>,
    /// Per part rest displacements at the fitted point (m, per vertex, in the parts' order): the states
    /// the error was computed from. `--vtk` writes these rather than solving the rest state again, which
    /// from a cold start can find another fixed point (mass-spring bodies have several) or differ in the
    /// last digits (a GPU grid point).
    pub rest_states: Vec<std::sync::Arc<Vec<pbdfit_pbd::Vec3>>>,
    /// Distinct error evaluations (grid and search).
    pub evaluations: usize,
    /// The points without a rest state (counted as infinite error).
    pub failures: Vec<FailedPoint>,
    /// The search path in unit coordinates, from the grid's best point.
    pub history: Vec<SearchStep>,
    /// How well the optimum determines the parameters (`None` when not asked for). Its evaluations
    /// are not counted in `evaluations` or `failures`, which describe the fit itself.
    pub identifiability: Option<Identifiability>,
    /// For a gradient fit to measured markers: each parameter's 95 % confidence interval from the
    /// Gauss-Newton covariance (with sigmas, of the noise they state; without, of the noise the residual
    /// shows), clipped to the search box. `None` otherwise.
    pub confidence: Option<Vec<(f64, f64)>>,
    /// Wall-clock seconds (excluding grid rest states computed beforehand and shared).
    pub seconds: f64,
    /// The search that made the fit.
    pub search: Search,
    /// Starts of a gradient search: `(reached, total)`, how many of its descents ended within
    /// [`REACHED`](crate::REACHED) of the best error, of how many (`(1, 1)` for the pattern search).
    pub starts: (usize, usize),
    /// Why the fit stopped before converging (its budget or time limit), if it did.
    pub stopped: Option<String>,
    /// Where the search's minimum had no stable rest state as `simulate` solves it, and the fit gives the
    /// best earlier point of its path that has one: what happened, naming the minimum ([`confirm_rest`]).
    pub moved: Option<String>,
    /// An engine profile's rest state: reached by stepping from the start, how far the fixed point's is, and
    /// the fixed point's fit where the fit was made again with stepped rest states
    /// ([`crate::engine_rest`]); `None` for every other model.
    pub engine_rest: Option<crate::EngineRest>,
}

impl FitResult {
    /// The fitted value of parameter `name`.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.parameters.iter().find(|(n, _)| *n == name).map(|p| p.1)
    }

    /// A one-line summary of the failed points: how many, the first one and why.
    pub fn failure_summary(&self) -> String {
        let Some(first) = self.failures.first() else { return String::new() };
        let at: Vec<String> = self
            .parameters
            .iter()
            .zip(&first.parameters)
            .map(|((n, _), v)| format!("{n} = {}", pbdfit_mesh::display::number(*v)))
            .collect();
        format!(
            "{} points without rest state (left out of the search: usual where the box reaches soft or unstable \
             parameters; the fit stands unless its minimum lies next to them); first: {}: {}",
            self.failures.len(),
            at.join(", "),
            first.reason
        )
    }
}

/// A point in unit coordinates rounded to 1e-12, as integers: a search point a rounding error away from
/// a grid point reuses the grid's value.
type Key = Vec<i64>;

fn key(t: &[f64]) -> Key {
    t.iter().map(|x| (x * 1e12).round() as i64).collect()
}

/// The error as an argmin cost function on unit coordinates, memoised, warm-starting each new point
/// from the nearest point already evaluated (deterministic: evaluations happen in the search's order).
struct SearchCost<'a> {
    problem: &'a FitProblem,
    search_box: &'a SearchBox,
    /// Per part: the rest states shared with the other fits on the same grids.
    shared: Vec<&'a SharedRestStates>,
    evaluated: RefCell<HashMap<Key, Evaluation>>,
    /// Points with a rest state, in evaluation order (the candidates for warm starts).
    order: RefCell<Vec<WarmStart>>,
    failures: RefCell<Vec<FailedPoint>>,
}

/// A point with a rest state, as a warm start for later points.
struct WarmStart {
    /// Unit coordinates.
    t: Vec<f64>,
    /// Its memo key (its evaluation in `evaluated`).
    key: Key,
    /// Each part's [`Lineage`]: what a rest state warm-started from it continues.
    lineages: Vec<Lineage>,
}

impl SearchCost<'_> {
    fn record(&self, t: &[f64], evaluation: Evaluation, lineages: Vec<Lineage>) {
        if let Some(reason) = &evaluation.failure {
            self.failures
                .borrow_mut()
                .push(FailedPoint { parameters: self.search_box.values(t), reason: reason.clone() });
        }
        let k = key(t);
        if !evaluation.rest.is_empty() {
            self.order.borrow_mut().push(WarmStart { t: t.to_vec(), key: k.clone(), lineages });
        }
        self.evaluated.borrow_mut().insert(k, evaluation);
    }

    /// The first of the nearest warm starts to `t`.
    fn nearest<'o>(order: &'o [WarmStart], t: &[f64]) -> Option<&'o WarmStart> {
        let mut best: Option<(f64, &WarmStart)> = None;
        for w in order {
            let d: f64 = w.t.iter().zip(t).map(|(a, b)| (a - b).powi(2)).sum();
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, w));
            }
        }
        best.map(|b| b.1)
    }
}

impl CostFunction for SearchCost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, t: &Vec<f64>) -> Result<f64, Error> {
        let k = key(t);
        if let Some(e) = self.evaluated.borrow().get(&k) {
            return Ok(e.error);
        }
        let mut lineages = Vec::with_capacity(self.shared.len());
        let evaluation = {
            let (order, evaluated) = (self.order.borrow(), self.evaluated.borrow());
            let start = Self::nearest(&order, t);
            let warm = start.and_then(|w| evaluated.get(&w.key));
            let options = &self.problem.rest_options;
            self.problem.evaluate_with(&self.search_box.values(t), warm, |i, part, params, w| {
                let compute = || rest_displacements(&part.system, params, options, w);
                match (w, start.map(|s| s.lineages[i])) {
                    (Some(_), Some(from)) => {
                        let (lineage, rest) = self.shared[i].get_or_compute(t, from, compute);
                        lineages.push(lineage);
                        rest
                    }
                    _ => {
                        lineages.push(self.shared[i].fresh_lineage());
                        compute()
                    }
                }
            })
        };
        let error = evaluation.error;
        self.record(t, evaluation, lineages);
        Ok(error)
    }
}

/// Fits the model's parameters: grid sweep (from precomputed per-part grid rest states) then pattern
/// search. `grids[i]` must be the grid of `problem.parts[i]` at `problem.settings` and `options`' box.
pub fn fit_with_grid(
    problem: &FitProblem,
    grids: &[&GridRestStates],
    options: &FitOptions,
) -> Result<FitResult, FitError> {
    fit_with_grid_from(problem, grids, options, RestSource::Direct)
}

/// [`fit_with_grid`] with the gradient search's trial rest states from `rest` (a [`Lockstep`] batch
/// shared with other fits: the same result, see [`crate::lockstep`]); the pattern search computes its own.
pub fn fit_with_grid_from(
    problem: &FitProblem,
    grids: &[&GridRestStates],
    options: &FitOptions,
    rest: RestSource,
) -> Result<FitResult, FitError> {
    let start = Instant::now();
    let search_box = &options.search_box;
    let resolution = options.resolution();
    let points = options.grid_points();
    if search_box.kind() != problem.settings.kind {
        return Err(FitError::Internal(format!(
            "search box of model {} for a problem of model {}",
            search_box.kind(),
            problem.settings.kind
        )));
    }
    if grids.len() != problem.parts.len()
        || grids.iter().any(|g| g.resolution != resolution || g.search_box != *search_box || g.points != points)
    {
        return Err(FitError::Internal("grid rest states do not match the problem's parts, box or grid".into()));
    }
    // A time limit reaches into the rest states, so that one slow point cannot outlast it; the search
    // may cap each rest state's sweeps.
    let deadline = options.max_seconds.and_then(|seconds| deadline_after(start, seconds));
    let rest_options = options.rest_options(&RestOptions { deadline, ..problem.rest_options });
    let unlimited = problem;
    let limited;
    let problem = if rest_options != problem.rest_options {
        limited = FitProblem { rest_options, ..problem.clone() };
        &limited
    } else {
        problem
    };
    if options.search == Search::Gradient {
        let result = fit_gradient(problem, grids, options, &points, start, rest)?;
        let result = confirm_rest(unlimited, search_box, result)?;
        return crate::engine_rest::check_by_stepping(
            unlimited,
            search_box,
            refit_step(resolution),
            crate::engine_rest::RefitBudget::of(options, start),
            result,
        );
    }
    let dimensions = search_box.dimensions();
    let solver = PatternSearch::new(
        vec![0.0; dimensions],
        vec![1.0; dimensions],
        1.0 / (resolution.max(2) - 1) as f64,
        options.min_step,
    )?;
    let cost = SearchCost {
        problem,
        search_box,
        shared: grids.iter().map(|g| &*g.shared).collect(),
        evaluated: RefCell::new(HashMap::new()),
        order: RefCell::new(Vec::new()),
        failures: RefCell::new(Vec::new()),
    };
    let mut best: Option<(usize, f64)> = None;
    for (i, t) in points.iter().enumerate() {
        let rest: Vec<_> = grids.iter().map(|g| g.states[i].clone()).collect();
        let evaluation = problem.error_from(&rest);
        if evaluation.error < best.map_or(f64::INFINITY, |b| b.1) {
            best = Some((i, evaluation.error));
        }
        cost.record(t, evaluation, vec![i as Lineage; grids.len()]);
    }
    let Some((best_index, _)) = best else {
        let failures = cost.failures.into_inner();
        let first = failures.into_iter().next().map(|f| f.reason);
        return Err(no_rest_state(problem, first, deadline, options.max_seconds));
    };
    let start_point = points[best_index].clone();
    let result = Executor::new(cost, solver)
        .configure(|s| s.param(start_point.clone()).max_iters(options.max_iterations))
        .timer(false)
        .run()
        .map_err(|e| FitError::Internal(format!("pattern search: {e}")))?;
    let t = result.state.get_best_param().cloned().unwrap_or(start_point);
    let cost =
        result.problem.problem.as_ref().ok_or_else(|| FitError::Internal("pattern search lost its problem".into()))?;
    let (error, part_errors, rest_states) = {
        let evaluated = cost.evaluated.borrow();
        let at = &evaluated[&key(&t)];
        (at.error, at.part_errors.clone(), at.rest.clone())
    };
    let evaluations = cost.evaluated.borrow().len();
    let failures = cost.failures.borrow().clone();
    let identifiability = options
        .identifiability
        .then(|| Identifiability::compute(search_box, &t, error, |p| cost.cost(&p.to_vec()).unwrap_or(f64::INFINITY)));
    let names = search_box.axes().iter().map(|a| a.name);
    let result = FitResult {
        parameters: names.zip(search_box.values(&t)).collect(),
        at_bound: search_box.at_bound(&t),
        error,
        part_errors: problem.parts.iter().map(|p| p.scene.clone()).zip(part_errors).collect(),
        rest_states,
        evaluations,
        failures,
        history: result.solver.history().to_vec(),
        identifiability,
        // The pattern search has no Gauss-Newton model: intervals come with the gradient search.
        confidence: None,
        seconds: start.elapsed().as_secs_f64(),
        search: Search::Pattern,
        starts: (1, 1),
        stopped: Budget::new(options, start).timed_out().then(|| "stopped at its time limit (--max-seconds)".into()),
        moved: None,
        engine_rest: None,
    };
    let result = confirm_rest(unlimited, search_box, result)?;
    crate::engine_rest::check_by_stepping(
        unlimited,
        search_box,
        refit_step(resolution),
        crate::engine_rest::RefitBudget::of(options, start),
        result,
    )
}

/// The stepped refit's first step ([`crate::engine_rest`]): the grid's spacing.
fn refit_step(resolution: usize) -> f64 {
    1.0 / (resolution.max(2) - 1) as f64
}

/// An engine profile's fitted point is solved again as `simulate` solves it: from the undeformed body,
/// with the problem's own rest options (no search budget). The search's rest states are warm-started, and
/// at the edge of a Jacobi engine's stability (Newton on the compressed floor) the estimate of the step's
/// spectral radius from a warm start can pass a point that the same estimate from the cold start refuses
/// (gravity-floor N = 2, relaxation 0.3, nit 10: k_mu = 2.33 Pa fitted, simulate's radius 1.0010). Such a
/// minimum is no rest state of the engine (docs/engines.md: the profile never fits through one), so the
/// fit gives the best earlier point of its path that simulate accepts, and says so in
/// [`FitResult::moved`]; its identifiability (measured at the minimum) is dropped. Where no point of the
/// path is accepted: [`FitError::NoStableMinimum`]. The mass-spring models' Newton is checked the same way:
/// warm-started from a neighbour it reaches equilibria the cold solve cannot (gravity-wall N = 1, nu = 0.49:
/// the pattern search climbs to kvol = 1e10 Pa, where the warm Newton stalls within the forces' round-off,
/// about 1e-8 of a node's weight at that penalty, while the cold one ends at 1.06 after 100 iterations). The textbook PBD and XPBD
/// models have no verdict that a warm start changes: their results pass unchanged, with no extra solve.
fn confirm_rest(problem: &FitProblem, search_box: &SearchBox, mut result: FitResult) -> Result<FitResult, FitError> {
    let kind = problem.settings.kind;
    if !kind.is_engine_profile() && kind.has_projection() {
        return Ok(result);
    }
    // The values as the report prints them and the paste lines carry them (seven significant digits):
    // at the edge of stability the last digits decide (Newton on the compressed floor at N = 2: k_mu =
    // 2.3251343520 Pa rests, the printed 2.325134 Pa has a radius of 1.0010).
    let printed = |v: &[f64]| -> Vec<f64> { v.iter().map(|x| format!("{x:.6e}").parse().unwrap_or(*x)).collect() };
    // Why simulate refuses the point or its printed values (`None`: it accepts both), and the point's evaluation.
    let refusal = |v: &[f64]| -> (Option<PbdError>, Evaluation) {
        let e = problem.evaluate(v, None);
        let why = match &e.failure {
            Some(f) => Some(f.clone()),
            None if printed(v) != v => problem.evaluate(&printed(v), None).failure,
            None => None,
        };
        (why, e)
    };
    let values: Vec<f64> = result.parameters.iter().map(|p| p.1).collect();
    let Some(reason) = refusal(&values).0 else { return Ok(result) };
    let named = |values: &[f64]| {
        search_box
            .axes()
            .iter()
            .zip(values)
            .map(|(a, v)| format!("{} = {}", a.name, pbdfit_mesh::display::number(*v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let minimum = named(&values);
    let error = pbdfit_mesh::display::number(result.error);
    for step in result.history.iter().rev() {
        let at = search_box.values(&step.x);
        if at == values {
            continue;
        }
        let (why, e) = refusal(&at);
        if why.is_some() || !e.error.is_finite() {
            continue;
        }
        result.moved = Some(format!(
            "the search's minimum {minimum} (error {error}) has no rest state as simulate solves it, at its printed values or exactly ({reason}); \
             the fit gives the best earlier point of its path that has one"
        ));
        result.at_bound = search_box.at_bound(&step.x);
        result.parameters = search_box.axes().iter().map(|a| a.name).zip(at).collect();
        result.error = e.error;
        result.part_errors = problem.parts.iter().map(|p| p.scene.clone()).zip(e.part_errors).collect();
        result.rest_states = e.rest;
        result.identifiability = None;
        result.confidence = None;
        return Ok(result);
    }
    Err(FitError::NoStableMinimum {
        scene: problem.scene.clone(),
        parameters: minimum,
        error,
        reason: Box::new(reason),
    })
}

/// The gradient search of [`fit_with_grid`] (see [`Search::Gradient`]).
fn fit_gradient(
    problem: &FitProblem,
    grids: &[&GridRestStates],
    options: &FitOptions,
    points: &[Vec<f64>],
    start: Instant,
    rest: RestSource,
) -> Result<FitResult, FitError> {
    let search_box = &options.search_box;
    let mut failures = Vec::new();
    let mut budget = Budget::new(options, start);
    let scored: Vec<Evaluation> = (0..points.len())
        .map(|i| problem.error_from(&grids.iter().map(|g| g.states[i].clone()).collect::<Vec<_>>()))
        .collect();
    for (t, e) in points.iter().zip(&scored) {
        if let Some(reason) = &e.failure {
            failures.push(FailedPoint { parameters: search_box.values(t), reason: reason.clone() });
        }
    }
    let errors: Vec<f64> = scored.iter().map(|e| e.error).collect();
    let (r, d) = (options.resolution(), points[0].len());
    let basins = gradient::basin_starts(&errors, r, d);
    let log_axes: Vec<usize> =
        search_box.axes().iter().enumerate().filter(|(_, a)| a.scale == Scale::Log10).map(|(i, _)| i).collect();
    let profile = gradient::profile_starts(&errors, r, &log_axes, d, &basins);
    let mut starts: Vec<(Vec<f64>, Evaluation)> =
        basins.into_iter().chain(profile).map(|i| (points[i].clone(), scored[i].clone())).collect();
    let mut evaluations = points.len();
    for values in &options.starts {
        let t: Vec<f64> =
            search_box.unit(values).iter().map(|x| if x.is_nan() { 0.5 } else { x.clamp(0.0, 1.0) }).collect();
        // Warm-started from the nearest grid point with a rest state.
        let nearest = (0..points.len()).filter(|&i| scored[i].failure.is_none()).min_by(|&a, &b| {
            let d = |p: &[f64]| p.iter().zip(&t).map(|(x, y)| (x - y).powi(2)).sum::<f64>();
            d(&points[a]).total_cmp(&d(&points[b]))
        });
        let e = problem.evaluate(&search_box.values(&t), nearest.map(|i| &scored[i]));
        budget.spend();
        evaluations += 1;
        match &e.failure {
            Some(reason) => failures.push(FailedPoint { parameters: search_box.values(&t), reason: reason.clone() }),
            None => starts.push((t, e)),
        }
    }
    if starts.is_empty() {
        let first = failures.into_iter().next().map(|f| f.reason);
        return Err(no_rest_state(problem, first, budget.deadline, options.max_seconds));
    }
    let before = budget.spent;
    let descents = gradient::descend_all(problem, search_box, starts, &mut budget, &mut failures, rest);
    evaluations += budget.spent - before;
    let best = descents
        .iter()
        .enumerate()
        .min_by(|(i, a), (j, b)| a.evaluation.error.total_cmp(&b.evaluation.error).then(i.cmp(j)))
        .map(|(i, _)| i)
        .expect("at least one start");
    let best_error = descents[best].evaluation.error;
    // A merged descent reached what the descent it joined reached.
    let end = |mut i: usize| {
        while let Some(j) = descents[i].merged {
            i = j;
        }
        descents[i].evaluation.error
    };
    let reached = (0..descents.len()).filter(|&i| end(i) <= best_error * (1.0 + REACHED)).count();
    let total = descents.len();
    let chosen = descents.into_iter().nth(best).expect("the best start");
    let identifiability =
        if options.identifiability { gradient::identifiability(problem, search_box, &chosen) } else { None };
    let confidence = gradient::confidence(problem, search_box, &chosen);
    let names = search_box.axes().iter().map(|a| a.name);
    Ok(FitResult {
        parameters: names.zip(search_box.values(&chosen.t)).collect(),
        at_bound: search_box.at_bound(&chosen.t),
        error: chosen.evaluation.error,
        part_errors: problem.parts.iter().map(|p| p.scene.clone()).zip(chosen.evaluation.part_errors.clone()).collect(),
        rest_states: chosen.evaluation.rest.clone(),
        evaluations,
        failures,
        history: chosen.history,
        identifiability,
        confidence,
        seconds: start.elapsed().as_secs_f64(),
        search: Search::Gradient,
        starts: (reached, total),
        stopped: budget.stopped,
        moved: None,
        engine_rest: None,
    })
}

/// Fits from scratch: computes the grid rest states on `backend`, then [`fit_with_grid`].
pub fn fit(problem: &FitProblem, options: &FitOptions, backend: &dyn RestStateBackend) -> Result<FitResult, FitError> {
    let start = Instant::now();
    let deadline = options.max_seconds.and_then(|s| deadline_after(start, s));
    // `GridRestStates::for_fit` applies the search's own rest-state controls.
    let rest_options = RestOptions { deadline, ..problem.rest_options };
    for p in &problem.parts {
        crate::check_grid_memory(&p.system, options.grid_point_count(), options.resolution())?;
    }
    let grids: Vec<GridRestStates> = problem
        .parts
        .iter()
        .map(|p| GridRestStates::for_fit(&p.system, &problem.settings, options, backend, &rest_options))
        .collect();
    // Ctrl-C (`crate::cancellable`): the grid's rest states were cancelled, and no search follows.
    pbdfit_mesh::cancel::check()?;
    let refs: Vec<&GridRestStates> = grids.iter().collect();
    // The search gets what the grid left of the time limit.
    let options = FitOptions {
        max_seconds: options.max_seconds.map(|s| (s - start.elapsed().as_secs_f64()).max(0.0)),
        ..options.clone()
    };
    let mut result = fit_with_grid(problem, &refs, &options)?;
    pbdfit_mesh::cancel::check()?;
    result.seconds = start.elapsed().as_secs_f64();
    Ok(result)
}

/// [`fit`] on the CPU backend.
pub fn fit_cpu(problem: &FitProblem, options: &FitOptions) -> Result<FitResult, FitError> {
    fit(problem, options, &CpuBackend)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbdfit_pbd::ModelKind;

    /// `--max-seconds 1e19` panicked in `Duration::from_secs_f64` (or
    /// adding the duration to an `Instant`). A limit the clock cannot hold is no limit; a finite one is
    /// the instant it names; no value panics.
    #[test]
    fn a_time_limit_beyond_the_clock_is_no_limit() {
        let now = Instant::now();
        assert_eq!(deadline_after(now, 2.5), Some(now + std::time::Duration::from_millis(2500)));
        assert_eq!(deadline_after(now, 0.0), Some(now));
        assert_eq!(deadline_after(now, -1.0), Some(now));
        assert_eq!(deadline_after(now, f64::NAN), Some(now));
        for huge in [1e19, 1.8446744073709552e19, 1e300, f64::MAX, f64::INFINITY] {
            assert!(deadline_after(now, huge).is_none_or(|d| d > now), "{huge}");
        }
        assert_eq!(deadline_after(now, 1e300), None);
        let options =
            FitOptions { max_seconds: Some(1e300), ..FitOptions::new(SearchBox::default_for(ModelKind::PBD)) };
        let mut budget = Budget::new(&options, now);
        assert!(!budget.timed_out() && !budget.exhausted());
    }

    /// The pattern search's rest states are the thesis's (pinned results); the gradient search caps
    /// each at [`GRADIENT_MAX_SWEEPS`], gives up collapsed bodies early, and keeps every other control.
    #[test]
    fn only_the_gradient_search_caps_a_rest_states_sweeps() {
        let base = RestOptions { anderson_memory: 7, ..RestOptions::default() };
        let mut options = FitOptions::new(SearchBox::default_for(ModelKind::PBD));
        assert_eq!(options.rest_options(&base), base);
        options.use_search(Search::Gradient);
        let capped = options.rest_options(&base);
        assert_eq!(capped.max_sweeps, GRADIENT_MAX_SWEEPS);
        assert!(!base.collapse_verdict && capped.collapse_verdict);
        assert_eq!(RestOptions { max_sweeps: base.max_sweeps, collapse_verdict: false, ..capped }, base);
        // A smaller budget the caller set stays.
        let small = RestOptions { max_sweeps: 1000, ..base };
        assert_eq!(options.rest_options(&small), RestOptions { collapse_verdict: true, ..small });
    }

    /// An engine profile's fitted point is the rest state `simulate` gives: solved again from the
    /// undeformed body, a minimum simulate refuses (Newton on the compressed floor: k_mu = 3 Pa has a
    /// spectral radius of 1.0017) moves to the best earlier point of the search's path that simulate
    /// accepts (k_mu = 2.2841 Pa), saying so; a path with no such point is refused naming the minimum; a
    /// minimum simulate accepts passes unchanged.
    #[test]
    fn an_engine_minimum_simulate_refuses_is_not_the_fit() {
        let set = pbdfit_mesh::SceneSet::builtin("gravity-floor").unwrap();
        let kind = ModelKind::NEWTON_XPBD.with_setting("relaxation", 0.3).unwrap();
        let material = pbdfit_fem::YoungPoisson::new(1e3, 0.3).unwrap();
        let cache = crate::PartCache::new(Default::default());
        let problem = FitProblem::new(&set, crate::Settings::new(0.01, 2, 10, kind), material, &cache).unwrap();
        let search_box = SearchBox::default_for(kind);
        let step = |k_mu: f64, cost: f64| SearchStep { x: search_box.unit(&[k_mu, 260.637]), cost, step: 0.1 };
        let fitted = |k_mu: f64, history: Vec<SearchStep>| FitResult {
            parameters: vec![("k_mu", k_mu), ("k_lambda", 260.637)],
            at_bound: Vec::new(),
            error: 0.5,
            part_errors: vec![("gravity-floor".into(), 0.5)],
            rest_states: Vec::new(),
            evaluations: 2,
            failures: Vec::new(),
            history,
            identifiability: None,
            confidence: None,
            seconds: 0.0,
            search: Search::Gradient,
            starts: (1, 1),
            stopped: None,
            moved: None,
            engine_rest: None,
        };
        let unstable = fitted(3.0, vec![step(2.2841, 1.0), step(3.0, 0.5)]);
        let moved = confirm_rest(&problem, &search_box, unstable).unwrap();
        assert!((moved.parameters[0].1 / 2.2841 - 1.0).abs() < 1e-9, "{:?}", moved.parameters);
        let e = problem.evaluate(&[moved.parameters[0].1, moved.parameters[1].1], None);
        assert!(e.failure.is_none() && moved.error == e.error && moved.rest_states.len() == 1);
        let note = moved.moved.unwrap();
        assert!(note.contains("k_mu = 3,") && note.contains("spectral radius"), "{note}");
        // No point of the path rests stably: refused, naming the minimum and why.
        let nowhere = fitted(3.0, vec![step(10.0, 1.0), step(3.0, 0.5)]);
        let e = confirm_rest(&problem, &search_box, nowhere).unwrap_err();
        assert!(matches!(e, FitError::NoStableMinimum { .. }) && e.is_input(), "{e}");
        assert!(e.to_string().contains("k_mu = 3,") && e.to_string().contains("spectral radius"), "{e}");
        // A minimum simulate accepts is the fit, bit for bit.
        let stable = fitted(2.2841, vec![step(2.2841, 0.5)]);
        assert_eq!(confirm_rest(&problem, &search_box, stable.clone()).unwrap(), stable);
    }
}
