//! Which rest state an engine profile's fit answers with. An engine's step can have more than one stable
//! rest state (`jolt-cloth` on the imported plate, `newton-cloth` on the steel strip: docs/engines.md,
//! "two rest states"), and the engine rests in the one that stepping from the scene's start reaches, its own
//! dynamics. The fit's fast rest solve (the quasi-static fixed point, `RestMethod::FixedPoint`) may find the
//! other. So after an engine profile's fit the fitted point's rest state is stepped from the start
//! (`RestMethod::Stepping`, no warm start); where it differs from the fixed point's by more than
//! [`SAME_STATE`] (relative L2), the fit is made again with stepped rest states, a pattern search from the
//! fixed point's minimum, and that is the answer: the fit never answers with a rest state the engine does not
//! reach. Every other model (the textbook solids, the cloth models, the force-law profiles, whose rest state
//! is the static equilibrium) is left untouched.

use std::cell::RefCell;
use std::collections::HashMap;

use argmin::core::{CostFunction, Error, Executor, State};
use serde::Serialize;

use pbdfit_pbd::{RestMethod, RestOptions};

use crate::{Evaluation, FitError, FitProblem, FitResult, PatternSearch, SearchBox};

/// Two rest states closer than this (relative L2 over every part's displacements) are the same: the fixed
/// point's tolerance (1e-13) and stepping's (a step's move below 1e-13 of the largest displacement, about
/// 1e-9 where the step contracts by 1e-4 per step along its slowest mode) are far below it, and the engines'
/// own f32 runs stop 1e-5 to 1e-3 apart.
pub const SAME_STATE: f64 = 1e-6;

/// The most projection sweeps one stepped rest state of the check may take (the plate's take 4e4 to 2e5,
/// the strip's 1e5 or so): a point that has not come to rest by then is a failed point of the refit, and at
/// the fitted point the report says stepping was not checked.
pub const STEPPING_SWEEPS: usize = 4_000_000;

/// The refit's pattern search stops below this step (unit coordinates of the box): each of its points is a
/// stepped rest state, seconds each where the fixed point takes a fraction of one.
pub const REFIT_MIN_STEP: f64 = 1e-3;

/// The most stepped rest states a refit computes (besides the check's one): the plate's refit takes 43
/// (docs/engines.md), and Newton's solids cost about 12 s each, so an unbounded refit could run for tens of
/// minutes. Where it stops here, or at the fit's `--max-seconds` or `--max-evaluations`, its best point so far
/// is the answer and the report says why it stopped.
pub const REFIT_MAX_EVALUATIONS: usize = 60;

/// What the check and its refit may spend: the fit's time limit (`--max-seconds`, measured from the fit's
/// start) and its evaluations left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefitBudget {
    /// The fit's deadline, if it has one: a stepped rest state still running then fails, and the refit
    /// computes no new point after it.
    pub deadline: Option<std::time::Instant>,
    /// The most stepped rest states the refit may compute ([`REFIT_MAX_EVALUATIONS`] or the fit's
    /// `max_evaluations`, whichever is less).
    pub evaluations: usize,
}

impl RefitBudget {
    /// The budget of a fit with these options, started at `start`.
    pub fn of(options: &crate::FitOptions, start: std::time::Instant) -> Self {
        Self {
            deadline: options.max_seconds.and_then(|s| crate::deadline_after(start, s)),
            evaluations: REFIT_MAX_EVALUATIONS.min(options.max_evaluations),
        }
    }

    /// No limit but [`REFIT_MAX_EVALUATIONS`].
    pub fn unlimited() -> Self {
        Self { deadline: None, evaluations: REFIT_MAX_EVALUATIONS }
    }
}

/// How the answer's rest state was reached, for the report (`engine.rest_state`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineRest {
    /// `stepping from the start` (the engine's own dynamics from the scene's start configuration: the rest
    /// state the answer's error is of), or `fixed point (not checked by stepping)` where stepping from the
    /// start found no rest state at the fitted point ([`note`](Self::note) says why).
    pub reached_by: &'static str,
    /// How far the fixed point's rest state at the answer is from the stepped one (relative L2); `None`
    /// where either has none.
    pub fixed_point_distance: Option<f64>,
    /// Where the fixed point's rest state was another than stepping's, and the fit was made again with
    /// stepped rest states: the fixed point's fit (its parameters and error, and the error of the state
    /// stepping reaches at those parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed_point_fit: Option<FixedPointFit>,
    /// Stepped rest states the check and the refit computed (their time is in the fit's `seconds`).
    pub stepped_evaluations: usize,
    /// Whether the fit was made again with stepped rest states (not where neither state is an answer).
    pub refitted: bool,
    /// Why the answer is not checked, or what the refit left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The fit with the fixed point's rest states, where stepping rests elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedPointFit {
    /// Its parameters, by name, in the model's order.
    pub parameters: Vec<(String, f64)>,
    /// Its error (of the fixed point's rest state).
    pub error: f64,
    /// The error of the rest state stepping from the start reaches at those parameters.
    pub stepped_error: f64,
    /// How far the two rest states are apart there (relative L2).
    pub distance: f64,
}

impl EngineRest {
    /// The report's line.
    pub fn line(&self) -> String {
        let distance = self.fixed_point_distance.map_or("none".to_string(), |d| format!("{d:.2e}"));
        let mut text = format!(
            "rest state: reached by {} ({} stepped rest state(s)); the fixed point's is {distance} from it (relative \
             L2)",
            self.reached_by, self.stepped_evaluations
        );
        if let Some(f) = &self.fixed_point_fit {
            let at: Vec<String> =
                f.parameters.iter().map(|(n, v)| format!("{n} = {}", pbdfit_mesh::display::number(*v))).collect();
            text.push_str(&format!(
                "; the fixed point's fit ({}, error {:.6e}) rests at another state, {:.2e} away, which stepping \
                 does not reach (its error there {:.6e}){}",
                at.join(", "),
                f.error,
                f.distance,
                f.stepped_error,
                if self.refitted { ": refitted with stepped rest states" } else { "" }
            ));
        }
        if let Some(note) = &self.note {
            text.push_str(&format!("; {note}"));
        }
        text
    }
}

/// Relative L2 distance of two evaluations' rest states, every part's displacements together.
pub fn rest_distance(a: &[std::sync::Arc<Vec<pbdfit_pbd::Vec3>>], b: &[std::sync::Arc<Vec<pbdfit_pbd::Vec3>>]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for (u, v) in a.iter().zip(b) {
        for (x, y) in u.iter().zip(v.iter()) {
            num += (x - y).norm_squared();
            den += y.norm_squared();
        }
    }
    if den > 0.0 { (num / den).sqrt() } else { num.sqrt() }
}

/// `problem` with stepped rest states from the start: [`RestMethod::Stepping`], its sweeps capped at
/// [`STEPPING_SWEEPS`], each ending at `deadline` where there is one.
pub fn stepping_problem(problem: &FitProblem, deadline: Option<std::time::Instant>) -> FitProblem {
    let rest_options = RestOptions {
        method: RestMethod::Stepping,
        max_sweeps: problem.rest_options.max_sweeps.min(STEPPING_SWEEPS),
        deadline: deadline.or(problem.rest_options.deadline),
        ..problem.rest_options
    };
    FitProblem { rest_options, ..problem.clone() }
}

/// Stepped evaluations from the start (never warm-started: a warm start is another path), memoised; a new
/// point beyond the budget costs nothing and is infinite (`stopped` says why).
struct SteppedCost<'a> {
    problem: &'a FitProblem,
    search_box: &'a SearchBox,
    evaluated: RefCell<HashMap<Vec<i64>, Evaluation>>,
    budget: RefitBudget,
    stopped: RefCell<Option<String>>,
}

impl SteppedCost<'_> {
    fn key(t: &[f64]) -> Vec<i64> {
        t.iter().map(|x| (x * 1e12).round() as i64).collect()
    }

    fn evaluation(&self, t: &[f64]) -> Evaluation {
        let k = Self::key(t);
        if let Some(e) = self.evaluated.borrow().get(&k) {
            return e.clone();
        }
        let e = self.problem.evaluate(&self.search_box.values(t), None);
        self.evaluated.borrow_mut().insert(k, e.clone());
        e
    }
}

impl CostFunction for SteppedCost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, t: &Vec<f64>) -> Result<f64, Error> {
        if !self.evaluated.borrow().contains_key(&Self::key(t)) {
            let why = refit_stop(self.evaluated.borrow().len(), &self.budget, std::time::Instant::now());
            if let Some(why) = why {
                self.stopped.borrow_mut().get_or_insert(why);
                return Ok(f64::INFINITY);
            }
        }
        Ok(self.evaluation(t).error)
    }
}

/// Replaces `result`'s rest state and error by `stepped`'s (of `problem`) and returns the fixed point's fit
/// it had (`stepped_error` the error of the stepped state at its parameters, `distance` from it), and whether
/// it had 1 % ranges or intervals, which were the fixed point's and are dropped.
fn answer_with_stepped(
    problem: &FitProblem,
    result: &mut FitResult,
    stepped: Evaluation,
    stepped_error: f64,
    distance: f64,
) -> (FixedPointFit, bool) {
    let fixed_point_fit = FixedPointFit {
        parameters: result.parameters.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        error: result.error,
        stepped_error,
        distance,
    };
    result.error = stepped.error;
    result.part_errors = problem.parts.iter().map(|p| p.scene.clone()).zip(stepped.part_errors).collect();
    result.rest_states = stepped.rest;
    let had_ranges = result.identifiability.take().is_some() | result.confidence.take().is_some();
    (fixed_point_fit, had_ranges)
}

/// Why the refit computes no new point (`at its budget ...`, `at the fit's time limit ...`, `cancelled`), with `evaluated` stepped rest states computed (the check's own, the
/// first, is not the refit's) at `now`; `None` while it may go on.
fn refit_stop(evaluated: usize, budget: &RefitBudget, now: std::time::Instant) -> Option<String> {
    if evaluated.saturating_sub(1) >= budget.evaluations {
        Some(format!("at its budget of {} stepped rest states", budget.evaluations))
    } else if budget.deadline.is_some_and(|d| now >= d) {
        Some("at the fit's time limit (--max-seconds)".to_string())
    } else if pbdfit_mesh::cancel::requested() {
        Some("cancelled".to_string())
    } else {
        None
    }
}

/// Checks an engine profile's fitted point against the rest state stepping from the start reaches, and
/// fits again with stepped rest states where the two differ (see the module doc); `result.engine_rest` says
/// what was done. Every other model's result comes back unchanged (no rest state computed). `step`: the
/// refit's first pattern-search step in unit coordinates (the fit's grid spacing); `budget`: what the check
/// and the refit may spend (a refit stopped by it answers with its best point so far, and says so).
pub fn check_by_stepping(
    problem: &FitProblem,
    search_box: &SearchBox,
    step: f64,
    budget: RefitBudget,
    mut result: FitResult,
) -> Result<FitResult, FitError> {
    if !problem.settings.kind.is_engine_profile() || !result.error.is_finite() {
        return Ok(result);
    }
    let start = std::time::Instant::now();
    let late = |at: std::time::Instant| budget.deadline.is_some_and(|d| at >= d);
    if late(start) {
        result.engine_rest = Some(EngineRest {
            reached_by: "fixed point (not checked by stepping)",
            fixed_point_distance: None,
            fixed_point_fit: None,
            stepped_evaluations: 0,
            refitted: false,
            note: Some("the fit's time limit (--max-seconds) had passed before the check".to_string()),
        });
        return Ok(result);
    }
    let stepping = stepping_problem(problem, budget.deadline);
    let values: Vec<f64> = result.parameters.iter().map(|p| p.1).collect();
    let t0: Vec<f64> = search_box.unit(&values);
    let cost = SteppedCost {
        problem: &stepping,
        search_box,
        evaluated: RefCell::new(HashMap::new()),
        budget,
        stopped: RefCell::new(None),
    };
    let stepped = cost.evaluation(&t0);
    if let Some(why) = &stepped.failure {
        result.engine_rest = Some(EngineRest {
            reached_by: "fixed point (not checked by stepping)",
            fixed_point_distance: None,
            fixed_point_fit: None,
            stepped_evaluations: 1,
            refitted: false,
            note: Some(if late(std::time::Instant::now()) {
                "stepping from the start had not come to rest at the fit's time limit (--max-seconds)".to_string()
            } else {
                format!("stepping from the start found no rest state at the fitted point: {why}")
            }),
        });
        result.seconds += start.elapsed().as_secs_f64();
        return Ok(result);
    }
    let distance = rest_distance(&result.rest_states, &stepped.rest);
    if distance <= SAME_STATE {
        result.engine_rest = Some(EngineRest {
            reached_by: "stepping from the start",
            fixed_point_distance: Some(distance),
            fixed_point_fit: None,
            stepped_evaluations: 1,
            refitted: false,
            note: None,
        });
        result.seconds += start.elapsed().as_secs_f64();
        return Ok(result);
    }
    // Another rest state. Where neither is an answer (both errors at least a body's that does not deform),
    // a refit cannot make one, and each of its points is a stepped rest state (seconds each for Newton's
    // solids): the stepped state at the fitted point is reported instead, the parameters kept.
    let undeformed = crate::verdict::undeformed_error(problem.parts.len());
    if result.error >= undeformed && stepped.error >= undeformed {
        let stepped_error = stepped.error;
        let (fixed_point_fit, had_ranges) = answer_with_stepped(problem, &mut result, stepped, stepped_error, distance);
        result.engine_rest = Some(EngineRest {
            reached_by: "stepping from the start",
            fixed_point_distance: Some(distance),
            fixed_point_fit: Some(fixed_point_fit),
            stepped_evaluations: 1,
            refitted: false,
            note: Some(format!(
                "not refitted: neither state is an answer (errors at least {}, a body's that does not deform){}",
                pbdfit_mesh::display::number(undeformed),
                if had_ranges { "; the identifiability and intervals were the fixed point's: left out" } else { "" }
            )),
        });
        result.seconds += start.elapsed().as_secs_f64();
        return Ok(result);
    }
    // Another rest state: fit again, every point's rest state stepped from the start.
    let dimensions = search_box.dimensions();
    let solver = PatternSearch::new(vec![0.0; dimensions], vec![1.0; dimensions], step, REFIT_MIN_STEP)?;
    let run = Executor::new(cost, solver)
        .configure(|s| s.param(t0.clone()).max_iters(10_000))
        .timer(false)
        .run()
        .map_err(|e| FitError::Internal(format!("the stepped refit's pattern search: {e}")))?;
    let t = run.state.get_best_param().cloned().unwrap_or_else(|| t0.clone());
    let cost = run.problem.problem.as_ref().ok_or_else(|| FitError::Internal("the refit lost its problem".into()))?;
    let best = cost.evaluation(&t);
    let evaluations = cost.evaluated.borrow().len();
    let stopped = cost.stopped.borrow().clone();
    let new_values = search_box.values(&t);
    let fixed = problem.evaluate(&new_values, None);
    let (fixed_point_fit, had_ranges) = answer_with_stepped(problem, &mut result, best, stepped.error, distance);
    result.parameters = search_box.axes().iter().map(|a| a.name).zip(new_values).collect();
    result.at_bound = search_box.at_bound(&t);
    result.evaluations += evaluations;
    result.history = run.solver.history().to_vec();
    let mut notes: Vec<String> = Vec::new();
    if had_ranges {
        notes.push(
            "the identifiability and intervals were the fixed point's fit's: left out (not measured on stepped rest \
             states)"
                .to_string(),
        );
    }
    if let Some(why) = &stopped {
        notes.push(format!("the refit stopped {why}: its best point so far is the answer"));
        result.stopped.get_or_insert_with(|| format!("stopped its stepped refit {why}"));
    }
    result.engine_rest = Some(EngineRest {
        reached_by: "stepping from the start",
        fixed_point_distance: fixed.failure.is_none().then(|| rest_distance(&fixed.rest, &result.rest_states)),
        fixed_point_fit: Some(fixed_point_fit),
        stepped_evaluations: evaluations,
        refitted: true,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    });
    result.seconds += start.elapsed().as_secs_f64();
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The refit computes `budget.evaluations` stepped rest states after the check's one, then none; a passed
    /// deadline stops it whatever is left.
    #[test]
    fn the_refit_stops_at_its_budget_and_at_the_deadline() {
        let now = Instant::now();
        let budget = RefitBudget { deadline: Some(now + Duration::from_secs(3600)), evaluations: 3 };
        for evaluated in 0..=3 {
            assert_eq!(refit_stop(evaluated, &budget, now), None, "{evaluated}");
        }
        let spent = refit_stop(4, &budget, now).unwrap();
        assert_eq!(spent, "at its budget of 3 stepped rest states");
        let late = refit_stop(1, &budget, now + Duration::from_secs(3600)).unwrap();
        assert_eq!(late, "at the fit's time limit (--max-seconds)");
        assert_eq!(refit_stop(1_000_000, &RefitBudget::unlimited(), now).map(|_| ()), Some(()));
        assert_eq!(RefitBudget::unlimited().evaluations, REFIT_MAX_EVALUATIONS);
    }
}
