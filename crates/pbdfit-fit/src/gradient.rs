//! The gradient fit: a projected Levenberg-Marquardt search in the box's unit coordinates, from the best
//! point of each basin of a coarse grid (docs/method.md, section The sensitivity of the rest state
//! that follow the gradient).
//!
//! For one scene the error is `e = (1/|D|) sum_i |r_i|^2` with `r_i = (u_i - u_fem,i) / |u_fem,i|`, so
//! with the rest state's sensitivity `S = du*/dp` (pbdfit-pbd) the residual Jacobian is
//! `J_i = S_i (dp/dt) / |u_fem,i|`, the gradient `(2/|D|) J^T r` and the Gauss-Newton Hessian
//! `(2/|D|) J^T J`. A compound scene minimises `sum_p e_p^2` (the same minimiser as its norm) with
//! gradient `sum_p 2 e_p grad e_p` and Hessian `sum_p (2 grad e_p grad e_p^T + 2 e_p H_p)`.
//!
//! A step solves `(H + mu diag H) delta = -g` over the free parameters: a parameter on its bound whose
//! gradient pushes outward is held there (an active set), the step is projected into the box, and it is
//! accepted only if the error falls. `mu` falls by 3 on success and rises by 4 when the error rises; a
//! trial without a rest state is followed by one halfway back along the same step, `mu` unchanged. That
//! step, its damping and projection are the crate's one projected Levenberg-Marquardt
//! ([`crate::levenberg_marquardt`], with [`LmSettings::gradient_fit`]: the module's table says how it
//! differs from `identify`'s); this module gives it the model (the rest state's sensitivity), evaluates
//! its trials, and schedules the starts in turns within the fit's evaluation budget. The LM is written
//! here rather than a dependency: argmin 0.11 has Gauss-Newton without damping or bounds, the
//! `levenberg-marquardt` crate (a MINPACK port) has no bounds, and every step here needs the rest
//! state's own warm start and the fit's evaluation budget, which a generic driver would hide.

use nalgebra::DMatrix;
use pbdfit_pbd::{Differences, PbdError, RestJob, Scale, SensitivityOptions, Vec3};
use rayon::prelude::*;

use crate::fit::{Budget, FailedPoint};
use crate::levenberg_marquardt::{LevenbergMarquardt, LmSettings, Proposal, Trial, Verdict};
use crate::lockstep::Lockstep;
use crate::{Evaluation, FitProblem, Identifiability, SearchBox, SearchStep};

/// The sensitivity solve of a linearisation: GMRES to a relative residual of 1e-6 rather than the
/// default 1e-8, with one-sided products (relative error about 1e-8, one map evaluation each instead of
/// two; `dPhi/dp` stays central). The model only proposes steps, each of which is judged by its own rest
/// state; and near `kd = 0` at small time steps the rest map contracts so slowly that the products
/// stagnate just above 1e-8 (thesis, gravity-wall, dt = 0.001, nu = 0.4: 1.9e-8 after 1,500 products),
/// which would end the descent early. So solved, a linearisation costs a median 0.98 cold forward rest
/// states over the cases of the sensitivity tests (`cargo run --release -p pbdfit-pbd --example
/// sensitivity_cost`).
const LINEARISATION: SensitivityOptions =
    SensitivityOptions { tolerance: 1e-6, max_products: 1500, restart: 60, differences: Differences::Forward };

/// The most basins a fit starts from (besides the starts its caller gives).
pub const MAX_BASINS: usize = 3;

/// Levenberg-Marquardt iterations per start, at most.
const MAX_ITERATIONS: usize = 60;

/// Errors within this relative margin of the best count as reaching it.
pub const REACHED: f64 = 1e-6;

/// The coarse grid of a gradient fit, points per axis (at the centres of equal cells, so no point sits
/// on a bound, where PBD's `kd = 0` has no rest state and costs a divergence probe).
pub fn gradient_grid(dimensions: usize) -> usize {
    match dimensions {
        0 | 1 => 9,
        2 => 5,
        3 => 4,
        _ => 3,
    }
}

/// One start's descent.
pub(crate) struct Descent {
    /// Unit coordinates of the end point.
    pub t: Vec<f64>,
    /// Its evaluation.
    pub evaluation: Evaluation,
    /// The objective there (`e`, or `sum e_p^2` for a compound scene).
    pub objective: f64,
    /// Gradient and Gauss-Newton Hessian of the objective in unit coordinates (`None` where the
    /// sensitivity could not be solved).
    pub model: Option<(Vec<f64>, Vec<f64>)>,
    /// Accepted points, from the start.
    pub history: Vec<SearchStep>,
    /// The Levenberg-Marquardt state: damping and pending backtrack.
    lm: LevenbergMarquardt,
    /// Trial points proposed so far.
    trials: usize,
    /// Trial points rejected since the descent last moved, with their objective and whether they had
    /// no rest state.
    rejected: Vec<(Vec<f64>, f64, bool)>,
    /// Whether the descent has ended.
    done: bool,
    /// The descent this one joined (it came within [`MERGE`] of that one's point, which was no higher).
    pub merged: Option<usize>,
}
/// The objective a descent minimises, from an evaluation.
pub(crate) fn objective(problem: &FitProblem, e: &Evaluation) -> f64 {
    if e.failure.is_some() {
        f64::INFINITY
    } else if problem.compound {
        e.part_errors.iter().map(|x| x * x).sum()
    } else {
        e.error
    }
}

/// Gradient and Gauss-Newton Hessian (row-major) of the objective in unit coordinates at `t`.
pub(crate) fn linearise(
    problem: &FitProblem,
    search_box: &SearchBox,
    t: &[f64],
    evaluation: &Evaluation,
) -> Result<(Vec<f64>, Vec<f64>), PbdError> {
    let d = t.len();
    let values = search_box.values(t);
    let params = problem.settings.at(&values);
    // dp/dt per axis: the width on a linear axis, p ln 10 times the decades on a log axis.
    let chain: Vec<f64> = search_box
        .axes()
        .iter()
        .zip(&values)
        .map(|(a, &v)| match a.scale {
            Scale::Linear => a.upper - a.lower,
            Scale::Log10 => v * std::f64::consts::LN_10 * a.search_width(),
        })
        .collect();
    let mut g = vec![0.0; d];
    let mut h = vec![0.0; d * d];
    // Sensitivities by differences of rest states, for the parts whose GMRES solve stalls (computed
    // once, for every part, on the first such part).
    let mut differenced: Option<Vec<Vec<Vec<Vec3>>>> = None;
    for (p, part) in problem.parts.iter().enumerate() {
        let u = &evaluation.rest[p];
        let s = match part.system.sensitivity(&params, u, &LINEARISATION) {
            Ok(s) => s.columns,
            // A stalled GMRES solve, or a body with obstacles (the sensitivity of a rest state with contact
            // is not solved: the active set and friction make the rest map non-smooth).
            Err(stalled @ (PbdError::SensitivityNotConverged { .. } | PbdError::Contact { .. })) => {
                if differenced.is_none() {
                    differenced = Some(differenced_sensitivities(problem, search_box, t, evaluation).ok_or(stalled)?);
                }
                differenced.as_ref().expect("just computed")[p].clone()
            }
            Err(e) => return Err(e),
        };
        let s = Sensitivity { columns: s };
        let (mut ge, mut he) = (vec![0.0; d], vec![0.0; d * d]);
        let mut add = |m: f64, r: Vec3, columns: &[Vec3]| {
            for j in 0..d {
                ge[j] += 2.0 / m * columns[j].dot(&r);
                for k in 0..d {
                    he[j * d + k] += 2.0 / m * columns[j].dot(&columns[k]);
                }
            }
        };
        let m = part.target.terms();
        part.target.linearise(u, &s.columns, &chain, &mut |r, columns| add(m, r, columns));
        if problem.compound {
            let e = evaluation.part_errors[p];
            for j in 0..d {
                g[j] += 2.0 * e * ge[j];
                for k in 0..d {
                    h[j * d + k] += 2.0 * ge[j] * ge[k] + 2.0 * e * he[j * d + k];
                }
            }
        } else {
            g = ge;
            h = he;
        }
    }
    Ok((g, h))
}

/// The columns of a sensitivity, by name what [`linearise`] reads of one.
struct Sensitivity {
    columns: Vec<Vec<Vec3>>,
}

/// The step in unit coordinates of [`differenced_sensitivities`]: a rest state differs by 1e-4 of an
/// axis from the one at `t` (its truncation error, about 1e-4 of the curvature, does not matter to a
/// model that only proposes steps; rest states converge to 1e-13, so rounding is 1e-9 of the derivative).
const DIFFERENCE_STEP: f64 = 1e-4;

/// `du*/dp_j` per part and parameter by one-sided differences of rest states, `DIFFERENCE_STEP` of an
/// axis towards the box's inside, warm-started from `evaluation`: the fallback of [`linearise`] where
/// GMRES on the fixed point's linearisation stalls (seen on the cantilever mesh at dt = 0.001, nit = 8,
/// kd = 0.1: a relative residual of 2.7e-6 after 1,500 products against the 1e-6 asked, which ended both
/// of that fit's descents at their grid points, 5 times above the minimum). Costs one rest state per
/// parameter. `None` where a displaced point has no rest state.
fn differenced_sensitivities(
    problem: &FitProblem,
    search_box: &SearchBox,
    t: &[f64],
    evaluation: &Evaluation,
) -> Option<Vec<Vec<Vec<Vec3>>>> {
    let values = search_box.values(t);
    let mut columns: Vec<Vec<Vec<Vec3>>> = vec![Vec::new(); problem.parts.len()];
    for j in 0..t.len() {
        let mut moved = t.to_vec();
        moved[j] = if t[j] + DIFFERENCE_STEP <= 1.0 { t[j] + DIFFERENCE_STEP } else { t[j] - DIFFERENCE_STEP };
        let moved_values = search_box.values(&moved);
        let dp = moved_values[j] - values[j];
        let e = problem.evaluate(&moved_values, Some(evaluation));
        if e.failure.is_some() || dp == 0.0 {
            return None;
        }
        for (p, column) in columns.iter_mut().enumerate() {
            column.push(e.rest[p].iter().zip(evaluation.rest[p].iter()).map(|(a, b)| (a - b) / dp).collect());
        }
    }
    Some(columns)
}

impl Descent {
    /// A descent starting at `t` (with its evaluation).
    pub(crate) fn new(problem: &FitProblem, search_box: &SearchBox, t: Vec<f64>, evaluation: Evaluation) -> Self {
        let d = t.len();
        Self {
            history: vec![SearchStep { x: t.clone(), cost: evaluation.error, step: 0.0 }],
            model: linearise(problem, search_box, &t, &evaluation).ok(),
            objective: objective(problem, &evaluation),
            t,
            evaluation,
            lm: LevenbergMarquardt::new(LmSettings::gradient_fit(), vec![(0.0, 1.0); d]),
            trials: 0,
            rejected: Vec::new(),
            done: false,
            merged: None,
        }
    }

    /// The next Levenberg-Marquardt trial, without its rest state: [`Pending::Done`] ends the descent (it
    /// has converged, cannot step, or has used [`MAX_ITERATIONS`] trials, or `exhausted` says the fit's
    /// budget is spent). The trial's rest state, where it needs one, is evaluated by the caller (so that the
    /// trials of many descents, and of many fits, can share one batch), and judged by
    /// [`finish`](Self::finish).
    fn propose(&mut self, mut exhausted: impl FnMut() -> bool) -> Pending {
        loop {
            let Some((g, h)) = self.model.as_ref() else {
                self.done = true;
                return Pending::Done;
            };
            if self.trials >= MAX_ITERATIONS || exhausted() {
                self.done = true;
                return Pending::Done;
            }
            let trial = match self.lm.propose(&self.t, g, h) {
                Proposal::Trial(trial) => trial,
                Proposal::Singular => continue,
                Proposal::Stop => {
                    self.done = true;
                    return Pending::Done;
                }
            };
            self.trials += 1;
            // A trial the damping has projected onto a point rejected since the last move (a bound clamps
            // the step whatever the damping) would be the same rest state from the same warm start: its
            // objective is taken from then, with no rest state spent.
            return match self.rejected.iter().find(|(point, ..)| *point == trial.point) {
                Some(&(_, f, failed)) => Pending::Repeat { trial, f, failed },
                None => Pending::Evaluate(trial),
            };
        }
    }

    /// Judges a proposed trial with its evaluation (`None` for [`Pending::Repeat`] and [`Pending::Done`]);
    /// a move linearises at the new point. What the trial spent comes back for the caller to count.
    fn finish(
        &mut self,
        problem: &FitProblem,
        search_box: &SearchBox,
        pending: Pending,
        e: Option<Evaluation>,
    ) -> StepSpent {
        let mut spent = StepSpent::default();
        let (trial, again, e, f_new, failed) = match pending {
            Pending::Done => return spent,
            Pending::Repeat { trial, f, failed } => (trial, true, None, f, failed),
            Pending::Evaluate(trial) => {
                let e = e.expect("an evaluated trial comes with its evaluation");
                spent.rest_state = true;
                if let Some(reason) = &e.failure {
                    spent.failure =
                        Some(FailedPoint { parameters: search_box.values(&trial.point), reason: reason.clone() });
                }
                let (f, failed) = (objective(problem, &e), e.failure.is_some());
                (trial, false, Some(e), f, failed)
            }
        };
        match self.lm.judge(&self.t, &trial, self.objective, f_new, failed) {
            Verdict::Accepted { converged } => {
                let e = e.expect("a repeated trial was rejected before, so it is rejected again");
                self.rejected.clear();
                self.history.push(SearchStep { x: trial.point.clone(), cost: e.error, step: trial.moved });
                self.model = linearise(problem, search_box, &trial.point, &e).ok();
                self.t = trial.point;
                self.evaluation = e;
                self.objective = f_new;
                self.done = converged;
            }
            Verdict::Rejected { give_up } => {
                if !again {
                    self.rejected.push((trial.point, f_new, failed));
                }
                self.done = give_up
            }
        }
        spent
    }
}

/// A descent's next trial ([`Descent::propose`]).
enum Pending {
    /// The descent has ended: no trial.
    Done,
    /// A point rejected since the descent last moved: judged again from its recorded objective and
    /// whether it had a rest state, with no rest state spent.
    Repeat { trial: Trial, f: f64, failed: bool },
    /// A new point: its rest state is needed.
    Evaluate(Trial),
}

impl Pending {
    /// The parameter values whose rest state the trial needs, if any.
    fn needs(&self, search_box: &SearchBox) -> Option<Vec<f64>> {
        match self {
            Pending::Evaluate(trial) => Some(search_box.values(&trial.point)),
            _ => None,
        }
    }
}

/// Where a fit's trial rest states are computed: on the fit's own threads, or handed to a
/// [`Lockstep`] batch shared with the other fits running beside it.
#[derive(Clone, Copy)]
pub enum RestSource<'a> {
    /// Each trial's rest states on the CPU, the trials of a turn in parallel.
    Direct,
    /// Each turn's trials (every live descent's) handed to one lockstep batch of many fits.
    Lockstep(&'a Lockstep<'a>),
}

impl RestSource<'_> {
    /// Runs a parallel step of the fit (its linearisations) where this source wants it: in place, or on
    /// the lockstep's threads (whose count is the study's, the fits being threads of their own).
    fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match self {
            RestSource::Direct => op(),
            RestSource::Lockstep(batch) => batch.install(op),
        }
    }

    /// The evaluations of `points` (parameter values, and the evaluation whose rest states start each
    /// one's), in order: [`FitProblem::evaluate`] each, or one lockstep batch of their
    /// [`FitProblem::rest_jobs`].
    fn evaluate(&self, problem: &FitProblem, points: Vec<(Vec<f64>, &Evaluation)>) -> Vec<Evaluation> {
        match self {
            RestSource::Direct => {
                points.into_par_iter().map(|(values, warm)| problem.evaluate(&values, Some(warm))).collect()
            }
            RestSource::Lockstep(batch) => {
                let jobs: Vec<Vec<RestJob>> =
                    points.iter().map(|(values, warm)| problem.rest_jobs(values, Some(warm))).collect();
                let mut results = batch.rest_states(jobs.iter().flatten().cloned().collect()).into_iter();
                points
                    .iter()
                    .zip(&jobs)
                    .map(|((values, _), jobs)| {
                        let mine: Vec<_> = results.by_ref().take(jobs.len()).collect();
                        problem.evaluation_of(values, jobs, mine)
                    })
                    .collect()
            }
        }
    }
}

/// What one trial of a descent spent: a rest state, and the point if it had none.
#[derive(Default)]
struct StepSpent {
    rest_state: bool,
    failure: Option<FailedPoint>,
}

impl StepSpent {
    /// Counts it in the fit's budget and failures.
    fn count(self, budget: &mut Budget, failures: &mut Vec<FailedPoint>) {
        if self.rest_state {
            budget.spend();
        }
        failures.extend(self.failure);
    }
}

/// Two descents whose points come within this distance (largest unit coordinate) are taken to be in the
/// same basin: the higher one stops and counts as the lower one's.
pub const MERGE: f64 = 1e-2;

/// Runs Levenberg-Marquardt from every start, in turns of one trial each (so no start is starved of the
/// budget by the ones before it), stopping a descent that comes within [`MERGE`] of another one's point
/// that is no higher. Records points without a rest state in `failures`. The trials' rest states come
/// from `rest` (each result is the one a lone rest state gives, so the descents do not depend on it).
pub(crate) fn descend_all(
    problem: &FitProblem,
    search_box: &SearchBox,
    starts: Vec<(Vec<f64>, Evaluation)>,
    budget: &mut Budget,
    failures: &mut Vec<FailedPoint>,
    rest: RestSource,
) -> Vec<Descent> {
    // Each start's first linearisation (a sensitivity solve, about one rest state) in parallel: they are
    // independent, and collected in the starts' order.
    let mut descents: Vec<Descent> =
        rest.install(|| starts.into_par_iter().map(|(t, e)| Descent::new(problem, search_box, t, e)).collect());
    while descents.iter().any(|d| !d.done) {
        let live = descents.iter().filter(|d| !d.done).count();
        // Histories before this turn: a descent's merge check sees the ones after it in the turn as they
        // were before their trial, as when the trials ran one after another.
        let before: Vec<usize> = descents.iter().map(|d| d.history.len()).collect();
        if live > 1 && live <= budget.left() && !budget.exhausted() {
            // Every live descent's trial fits in the budget, so none would have found it spent: the trials
            // are proposed, their rest states computed together, judged in parallel, then counted and
            // merged in the descents' order.
            // `None` for the descents that had ended before this turn: they take no turn (no merge).
            let pending: Vec<Option<Pending>> =
                descents.iter_mut().map(|d| (!d.done).then(|| d.propose(|| false))).collect();
            let evaluations = evaluate_pending(problem, search_box, &descents, &pending, rest);
            let spent: Vec<Option<StepSpent>> = rest.install(|| {
                descents
                    .par_iter_mut()
                    .zip(pending)
                    .zip(evaluations)
                    .map(|((d, p), e)| p.map(|p| d.finish(problem, search_box, p, e)))
                    .collect()
            });
            for (k, spent) in spent.into_iter().enumerate() {
                if let Some(spent) = spent {
                    spent.count(budget, failures);
                    merge(&mut descents, k, &before);
                }
            }
        } else {
            for k in 0..descents.len() {
                if descents[k].done {
                    continue;
                }
                let mut pending = [Some(descents[k].propose(|| budget.exhausted()))];
                let e = evaluate_pending(problem, search_box, &descents[k..=k], &pending, rest).pop().flatten();
                if let Some(pending) = pending[0].take() {
                    let descent = &mut descents[k];
                    rest.install(|| descent.finish(problem, search_box, pending, e)).count(budget, failures);
                }
                merge(&mut descents, k, &before);
            }
        }
    }
    descents
}

/// The evaluations the `pending` trials of `descents` (one each, `None` for a descent taking no turn)
/// need, from `rest`: `None` for those needing no rest state.
fn evaluate_pending(
    problem: &FitProblem,
    search_box: &SearchBox,
    descents: &[Descent],
    pending: &[Option<Pending>],
    rest: RestSource,
) -> Vec<Option<Evaluation>> {
    let points: Vec<(usize, Vec<f64>)> = pending
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.as_ref().and_then(|p| p.needs(search_box)).map(|v| (k, v)))
        .collect();
    let starts = points.iter().map(|(k, values)| (values.clone(), &descents[*k].evaluation)).collect();
    let mut out: Vec<Option<Evaluation>> = (0..pending.len()).map(|_| None).collect();
    for ((k, _), e) in points.iter().zip(rest.evaluate(problem, starts)) {
        out[*k] = Some(e);
    }
    out
}

/// Stops descent `k` if it has come within [`MERGE`] of a point of another unmerged descent that is no
/// higher: of descents before `k` their whole history, of those after it their first `before[j]` points
/// (the turn's order: they take their trial after `k`).
fn merge(descents: &mut [Descent], k: usize, before: &[usize]) {
    let here = &descents[k];
    let joined = (0..descents.len()).find(|&j| {
        let seen = if j < k { descents[j].history.len() } else { before[j] };
        j != k
            && descents[j].merged.is_none()
            && descents[j].history[..seen].iter().any(|p| {
                p.cost <= here.evaluation.error && p.x.iter().zip(&here.t).all(|(a, b)| (a - b).abs() <= MERGE)
            })
    });
    if let Some(j) = joined {
        descents[k].merged = Some(j);
        descents[k].done = true;
    }
}

/// Indices of the grid points that start descents: per basin (a local minimum of the grid, ties with
/// an adjacent chosen minimum counting as the same plateau), the lowest, in order of error, at most
/// [`MAX_BASINS`]. `errors` in the grid's order (first axis outermost), `r` points per axis.
pub(crate) fn basin_starts(errors: &[f64], r: usize, d: usize) -> Vec<usize> {
    let index = |i: usize| -> Vec<usize> { (0..d).rev().map(|a| (i / r.pow(a as u32)) % r).collect() };
    let neighbours = |i: usize| -> Vec<usize> {
        let at = index(i);
        let mut out = Vec::new();
        for offset in 0..3usize.pow(d as u32) {
            let mut j = 0usize;
            let mut ok = true;
            let mut zero = true;
            for (a, &c) in at.iter().enumerate() {
                let o = (offset / 3usize.pow((d - 1 - a) as u32)) % 3;
                zero &= o == 1;
                let c = c as isize + o as isize - 1;
                if c < 0 || c >= r as isize {
                    ok = false;
                    break;
                }
                j = j * r + c as usize;
            }
            if ok && !zero {
                out.push(j);
            }
        }
        out
    };
    let mut minima: Vec<usize> = (0..errors.len())
        .filter(|&i| {
            errors[i].is_finite() && neighbours(i).iter().all(|&j| errors[j].is_nan() || errors[j] >= errors[i])
        })
        .collect();
    minima.sort_by(|&a, &b| errors[a].total_cmp(&errors[b]).then(a.cmp(&b)));
    let mut chosen: Vec<usize> = Vec::new();
    let mut covered = vec![false; errors.len()];
    for i in minima {
        if covered[i] || chosen.len() == MAX_BASINS {
            continue;
        }
        chosen.push(i);
        // The plateau of equal errors around it is the same basin.
        let mut stack = vec![i];
        covered[i] = true;
        while let Some(c) = stack.pop() {
            for j in neighbours(c) {
                if !covered[j] && errors[j] == errors[i] {
                    covered[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    chosen
}

/// Indices of further starts on log-scale axes: for each grid value of such an axis, the grid point with
/// the lowest error among those sharing it (the error's profile along the axis), in order of error,
/// without the indices in `taken`.
///
/// Why: on a log axis spanning many decades the error can have a narrow valley (XPBD's volume
/// compliance: a minimum less than a decade wide beside a plateau where the constraint is absent), which
/// a coarse grid straddles without a local minimum in it. A descent from any point of the valley's stiff
/// side leads into it, and the profile holds such points.
pub(crate) fn profile_starts(errors: &[f64], r: usize, log_axes: &[usize], d: usize, taken: &[usize]) -> Vec<usize> {
    let coordinate = |i: usize, axis: usize| (i / r.pow((d - 1 - axis) as u32)) % r;
    let mut out: Vec<usize> = Vec::new();
    for &axis in log_axes {
        for value in 0..r {
            let best = (0..errors.len())
                .filter(|&i| coordinate(i, axis) == value && errors[i].is_finite())
                .min_by(|&a, &b| errors[a].total_cmp(&errors[b]).then(a.cmp(&b)));
            if let Some(i) = best
                && !taken.contains(&i)
                && !out.contains(&i)
            {
                out.push(i);
            }
        }
    }
    out.sort_by(|&a, &b| errors[a].total_cmp(&errors[b]).then(a.cmp(&b)));
    out
}

/// The identifiability of a gradient fit's optimum from its Gauss-Newton model (of the error itself:
/// for a compound scene `e = sqrt(f)`, so `grad e = grad f / (2 e)` and `H_e ~ H_f / (2 e)` near the
/// optimum), each range ending where the points still rest (each end evaluated, warm-started from the
/// optimum: [`Identifiability::from_model_resting`]).
pub(crate) fn identifiability(problem: &FitProblem, search_box: &SearchBox, best: &Descent) -> Option<Identifiability> {
    let (g, h) = best.model.as_ref()?;
    let e = best.evaluation.error;
    let (g, h): (Vec<f64>, Vec<f64>) = if problem.compound && e > 0.0 {
        (g.iter().map(|x| x / (2.0 * e)).collect(), h.iter().map(|x| x / (2.0 * e)).collect())
    } else {
        (g.clone(), h.clone())
    };
    let rests = |p: &[f64]| problem.evaluate(&search_box.values(p), Some(&best.evaluation)).failure.is_none();
    Some(Identifiability::from_model_resting(search_box, &best.t, e, &g, &h, rests))
}

/// 95 % confidence intervals of the parameters of a fit to measured markers, from the Gauss-Newton
/// covariance of its final model (`h`: the error's Hessian in unit coordinates, `(2/M) J^T J` for `M`
/// markers): `(J^T J)^-1 = (2/M) h^-1` with sigmas (residuals of unit variance), times the residual
/// variance `M e / (3M - d)` without them. Mapped to values through the box's coordinates (so a log
/// axis gets a multiplicative interval). `None` for an FEM reference, a compound scene, or a singular
/// model.
pub(crate) fn confidence(problem: &FitProblem, search_box: &SearchBox, best: &Descent) -> Option<Vec<(f64, f64)>> {
    let [part] = problem.parts.as_slice() else { return None };
    let target = part.target.markers()?;
    let (_, h) = best.model.as_ref()?;
    let d = best.t.len();
    let m = target.observed.len() as f64;
    let scale = match target.weighting {
        // The objective is sum r^2 / (3M): its Hessian is 2 J^T J / (3M), the covariance (J^T J)^-1.
        crate::MarkerWeighting::ChiSquare => 2.0 / target.terms(),
        crate::MarkerWeighting::Relative => 2.0 * best.evaluation.error / (3.0 * m - d as f64).max(1.0),
    };
    let inverse = DMatrix::from_row_slice(d, d, h).try_inverse()?;
    let mut intervals = Vec::with_capacity(d);
    for j in 0..d {
        let variance = inverse[(j, j)] * scale;
        if variance.is_nan() || variance < 0.0 {
            return None;
        }
        let half = 1.96 * variance.sqrt();
        let (mut lo, mut hi) = (best.t.clone(), best.t.clone());
        // Clipped to the box: a parameter outside it has no model (PBD's kv < 0), so a fit on a bound
        // gets a one-sided interval (the cantilever's marker fit at kv = 0 gave kv in [-0.548, 0.548]).
        lo[j] = (lo[j] - half).max(0.0);
        hi[j] = (hi[j] + half).min(1.0);
        intervals.push((search_box.values(&lo)[j], search_box.values(&hi)[j]));
    }
    Some(intervals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One basin per local minimum; a plateau of equal minima is one basin; at most [`MAX_BASINS`].
    #[test]
    fn basins_are_local_minima_of_the_grid() {
        // 3 x 3, minima at 0 (1.0) and 8 (0.5); 4 is a saddle.
        let e = [1.0, 2.0, 3.0, 2.0, 2.5, 2.0, 3.0, 2.0, 0.5];
        assert_eq!(basin_starts(&e, 3, 2), vec![8, 0]);
        // A plateau along the last row: one start.
        let e = [5.0, 5.0, 5.0, 4.0, 4.0, 4.0, 1.0, 1.0, 1.0];
        assert_eq!(basin_starts(&e, 3, 2), vec![6]);
        // Points without rest state are never minima and never block one.
        let e = [f64::INFINITY, 2.0, 1.0];
        assert_eq!(basin_starts(&e, 3, 1), vec![2]);
        let e = [1.0, 3.0, 0.5, 3.0, 2.0, 3.0, 0.7];
        assert_eq!(basin_starts(&e, 7, 1), vec![2, 6, 0]);
    }
}
