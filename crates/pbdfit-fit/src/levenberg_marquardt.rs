//! The one projected Levenberg-Marquardt of the crate: the damped normal equations, their solve, the
//! projection of the step onto box bounds, the accept/reject test and the damping's update. The gradient
//! fit ([`crate::gradient`], in the search box's unit coordinates) and `identify` ([`crate::identify`],
//! on `(ln E, nu)`) drive it; what each evaluates, how it gets its model (the rest state's sensitivity,
//! or a Jacobian by central differences of FEM solves) and how many trials it spends stay with them.
//!
//! A caller holds a [`LevenbergMarquardt`] per descent and, for the model `(g, H)` at its point `x`
//! (gradient and Gauss-Newton matrix of the objective, row-major), asks [`propose`] for the next
//! [`Proposal`]; it evaluates a [`Trial`]'s point and gives the objective there to [`judge`], which
//! says whether the trial is the new point ([`Verdict`]) and updates the damping.
//!
//! The two searches differ in the following, each a field of [`LmSettings`] ([`LmSettings::gradient_fit`],
//! [`LmSettings::identify`]); each keeps the arithmetic it had before the two were one, so their
//! results are bit-identical to those of the two copies this replaced:
//!
//! | | gradient fit | identify |
//! |---|---|---|
//! | damping start | `1e-3` | `1e-3` |
//! | on an accepted step | `mu / 3`, floor `1e-12` | `mu / 10`, floor `1e-12` |
//! | on a rejected step or a singular system | `mu * 4`; past `1e10` the search ends | `mu * 10`, no ceiling |
//! | damped diagonal ([`Diagonal`]) | `H_jj + mu max(H_jj, floor)`, `floor = max(1e-12 max_k H_kk, MIN_POSITIVE)` | `H_jj (1 + mu)` |
//! | solve ([`Solve`]) | Cholesky (nalgebra), any size | Cramer's rule on the 2 x 2 system, singular unless its determinant is > 0 |
//! | bounds ([`Projection`]) | `[0, 1]` per axis; a coordinate on its bound whose gradient pushes outward is held (an active set), and no free coordinate or a zero gradient on the free ones ends the search | `ln E` unbounded, `nu` in `[NU_MIN, NU_MAX]`; the step is solved over both and clamped |
//! | a trial without a value | halfway back along the same step next, damping unchanged, when it moved more than `1e-6` ([`LmSettings::backtrack`]) | rejected as a worse one is |
//! | a step that moves at most `1e-12` | ends the search before it is evaluated | evaluated |
//! | converged ([`Convergence`]) | relative decrease `<= 1e-12`, or a move `<= 1e-4` (largest coordinate) gaining `<= 1e-9` | relative decrease `< 1e-14`, or every coordinate of the solved step `< 1e-13` |
//!
//! What a proposal costs is the caller's to count, and differs too: the gradient fit counts evaluated
//! trials only (at most 60 per start, within the fit's budget; a singular system is proposed again at
//! no cost), `identify` counts every proposal, singular or not, against 20 per Jacobian and stops when
//! 20 bring no decrease.
//!
//! Why they differ: the gradient fit's model is the rest state's linearisation in a unit box whose
//! corners (PBD's `kd = kv = 0`) have no rest state, which is what the active set, the backtrack (the
//! damping alone shortens a step that a clamp holds on such a corner only slowly) and the ceiling are
//! for; its trials are rest states from the fit's shared budget. `identify` has two unknowns, a start
//! from the linear law's closed-form E, a model by central differences and no point without a value
//! unless a nonlinear law's solve fails; its rules are Marquardt's (`(1 + lambda)` scaling, factors of
//! 10). Neither set of rules was tuned against the other, and unifying them would change results, so
//! each is kept as it was.
//!
//! [`propose`]: LevenbergMarquardt::propose
//! [`judge`]: LevenbergMarquardt::judge

use nalgebra::{DMatrix, DVector};

/// How the damping enters the diagonal of the normal equations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Diagonal {
    /// `H_jj + mu max(H_jj, floor)` with `floor = max(relative_floor * max_k H_kk, f64::MIN_POSITIVE)`
    /// over the free coordinates (a zero curvature still gets damped); an off-diagonal entry is
    /// `H_jk + 0.0`.
    Floored { relative_floor: f64 },
    /// `H_jj (1 + mu)` (Marquardt's scaling); off-diagonal entries as they are.
    Scaled,
}

/// How the damped normal equations `A delta = -g` are solved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Solve {
    /// Cholesky factorisation (nalgebra); singular where it fails.
    Cholesky,
    /// Cramer's rule on a 2 x 2 system; singular where the determinant is not > 0.
    Cramer,
}

/// How the bounds act on a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Projection {
    /// A coordinate on its bound whose gradient pushes outward is held there and left out of the
    /// solve; no free coordinate, or a zero gradient on all the free ones, ends the search. The free
    /// coordinates of the trial are clamped into the bounds.
    ActiveSet,
    /// The step is solved over every coordinate and the trial clamped into the bounds.
    Clamp,
}

/// When an accepted step ends the search (`old`, `new`: the objective before and after).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Convergence {
    /// `(old - new) / old <= decrease`, or the trial moved at most `short_move` (largest coordinate)
    /// and `(old - new) / old <= short_decrease`.
    Moved { decrease: f64, short_move: f64, short_decrease: f64 },
    /// `(old - new) / max(old, f64::MIN_POSITIVE) < decrease`, or every coordinate of the solved
    /// (unprojected) step is below `step` in magnitude.
    Solved { decrease: f64, step: f64 },
}

/// What differs between the searches that use [`LevenbergMarquardt`] (module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LmSettings {
    /// The damping at the start.
    pub start: f64,
    /// The damping is divided by this on an accepted step...
    pub decrease: f64,
    /// ...but not below this.
    pub floor: f64,
    /// The damping is multiplied by this on a rejected step or a singular system...
    pub increase: f64,
    /// ...and the search ends when it exceeds this.
    pub ceiling: f64,
    /// How the damping enters the diagonal.
    pub diagonal: Diagonal,
    /// How the normal equations are solved.
    pub solve: Solve,
    /// How the bounds act.
    pub projection: Projection,
    /// A trial without a value that moved more than this (largest coordinate) is followed by one
    /// halfway back along the same step, the damping unchanged; `None`: it is rejected as a worse one is.
    pub backtrack: Option<f64>,
    /// A trial that moves at most this (largest coordinate) ends the search unevaluated; `None`: every
    /// trial is evaluated.
    pub least_move: Option<f64>,
    /// When an accepted step ends the search.
    pub convergence: Convergence,
}

impl LmSettings {
    /// The gradient fit's, in the search box's unit coordinates (bounds `[0, 1]`).
    pub(crate) fn gradient_fit() -> Self {
        Self {
            start: 1e-3,
            decrease: 3.0,
            floor: 1e-12,
            increase: 4.0,
            ceiling: 1e10,
            diagonal: Diagonal::Floored { relative_floor: 1e-12 },
            solve: Solve::Cholesky,
            projection: Projection::ActiveSet,
            backtrack: Some(1e-6),
            least_move: Some(1e-12),
            // A step below the pattern search's resolution (1e-4 of an axis) that gains less than 1e-9
            // ends the descent: a zig-zag of finite-difference gradients along a flat valley would
            // otherwise crawl on for dozens of rest states.
            convergence: Convergence::Moved { decrease: 1e-12, short_move: 1e-4, short_decrease: 1e-9 },
        }
    }

    /// `identify`'s, on `(ln E, nu)`.
    pub(crate) fn identify() -> Self {
        Self {
            start: 1e-3,
            decrease: 10.0,
            floor: 1e-12,
            increase: 10.0,
            ceiling: f64::INFINITY,
            diagonal: Diagonal::Scaled,
            solve: Solve::Cramer,
            projection: Projection::Clamp,
            backtrack: None,
            least_move: None,
            convergence: Convergence::Solved { decrease: 1e-14, step: 1e-13 },
        }
    }
}

/// A point to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trial {
    /// The point, inside the bounds.
    pub point: Vec<f64>,
    /// Its largest coordinate difference from the current point.
    pub moved: f64,
    /// The solved step over the free coordinates (before projection).
    pub solved: Vec<f64>,
}

/// What [`LevenbergMarquardt::propose`] asks of its caller.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Proposal {
    /// Evaluate this trial and give its objective to [`LevenbergMarquardt::judge`].
    Trial(Trial),
    /// The damped system had no solution: the damping was raised; propose again.
    Singular,
    /// The search has ended (nothing free to move, a damping past the ceiling, or a step that does not
    /// move).
    Stop,
}

/// [`LevenbergMarquardt::judge`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Verdict {
    /// The trial is the new point; `converged`: the search ends there.
    Accepted { converged: bool },
    /// The current point stays; `give_up`: the damping passed its ceiling, the search ends.
    Rejected { give_up: bool },
}

/// One projected Levenberg-Marquardt search's state: its settings, bounds, damping and pending
/// backtrack.
#[derive(Debug, Clone)]
pub(crate) struct LevenbergMarquardt {
    settings: LmSettings,
    /// `(lower, upper)` per coordinate (infinite for an unbounded one).
    bounds: Vec<(f64, f64)>,
    /// The damping.
    mu: f64,
    /// The next trial, after one without a value: halfway to it along the same step (the step's
    /// direction was not at fault but its length, which on a box corner such as PBD's `kd = kv = 0` the
    /// damping shortens only slowly while the clamp holds it there).
    backtrack: Option<Vec<f64>>,
}

impl LevenbergMarquardt {
    /// A search with `settings` within `bounds` (`(lower, upper)` per coordinate).
    pub(crate) fn new(settings: LmSettings, bounds: Vec<(f64, f64)>) -> Self {
        Self { mu: settings.start, settings, bounds, backtrack: None }
    }

    /// The next proposal from the point `x` with the model's gradient `g` and Gauss-Newton matrix `h`
    /// (row-major, `x.len()` square).
    pub(crate) fn propose(&mut self, x: &[f64], g: &[f64], h: &[f64]) -> Proposal {
        let d = x.len();
        let free: Vec<usize> = match self.settings.projection {
            Projection::ActiveSet => {
                let bounds = &self.bounds;
                let free: Vec<usize> = (0..d)
                    .filter(|&j| !((x[j] <= bounds[j].0 && g[j] > 0.0) || (x[j] >= bounds[j].1 && g[j] < 0.0)))
                    .collect();
                if free.is_empty() || free.iter().all(|&j| g[j] == 0.0) {
                    return Proposal::Stop;
                }
                free
            }
            Projection::Clamp => (0..d).collect(),
        };
        let Some(delta) = self.solve(g, h, d, &free) else {
            // Not an evaluation spent: raise the damping (the caller proposes again).
            return if self.raise() { Proposal::Stop } else { Proposal::Singular };
        };
        let point = match self.backtrack.take() {
            Some(point) => point,
            None => {
                let mut point = x.to_vec();
                for (r, &j) in free.iter().enumerate() {
                    point[j] = (point[j] + delta[r]).clamp(self.bounds[j].0, self.bounds[j].1);
                }
                point
            }
        };
        let moved = point.iter().zip(x).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        if self.settings.least_move.is_some_and(|least| moved <= least) {
            return Proposal::Stop;
        }
        Proposal::Trial(Trial { point, moved, solved: delta })
    }

    /// Judges `trial` from the point `x`, whose objective is `old`, by its objective `new` (`failed`:
    /// the trial had no value, `new` being then infinite or ignored), and updates the damping.
    pub(crate) fn judge(&mut self, x: &[f64], trial: &Trial, old: f64, new: f64, failed: bool) -> Verdict {
        let s = &self.settings;
        if !failed && new < old {
            let converged = match s.convergence {
                Convergence::Moved { decrease, short_move, short_decrease } => {
                    let relative = (old - new) / old;
                    relative <= decrease || (trial.moved <= short_move && relative <= short_decrease)
                }
                Convergence::Solved { decrease, step } => {
                    let relative = (old - new) / old.max(f64::MIN_POSITIVE);
                    relative < decrease || trial.solved.iter().all(|s| s.abs() < step)
                }
            };
            self.mu = (self.mu / s.decrease).max(s.floor);
            Verdict::Accepted { converged }
        } else if failed && s.backtrack.is_some_and(|least| trial.moved > least) {
            self.backtrack = Some(x.iter().zip(&trial.point).map(|(a, b)| 0.5 * (a + b)).collect());
            Verdict::Rejected { give_up: false }
        } else {
            Verdict::Rejected { give_up: self.raise() }
        }
    }

    /// Raises the damping; whether it passed the ceiling.
    fn raise(&mut self) -> bool {
        self.mu *= self.settings.increase;
        self.mu > self.settings.ceiling
    }

    /// The solution of `A delta = -g` over the `free` coordinates, `A` the damped `h`; `None` where the
    /// system is singular.
    fn solve(&self, g: &[f64], h: &[f64], d: usize, free: &[usize]) -> Option<Vec<f64>> {
        let mu = self.mu;
        let n = free.len();
        let a: Vec<f64> = match self.settings.diagonal {
            Diagonal::Floored { relative_floor } => {
                let largest = free.iter().map(|&j| h[j * d + j]).fold(0.0, f64::max);
                let floor = (relative_floor * largest).max(f64::MIN_POSITIVE);
                (0..n * n)
                    .map(|i| {
                        let (r, c) = (i / n, i % n);
                        let (j, k) = (free[r], free[c]);
                        h[j * d + k] + if r == c { mu * h[j * d + j].max(floor) } else { 0.0 }
                    })
                    .collect()
            }
            Diagonal::Scaled => (0..n * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    let (j, k) = (free[r], free[c]);
                    if r == c { h[j * d + k] * (1.0 + mu) } else { h[j * d + k] }
                })
                .collect(),
        };
        match self.settings.solve {
            Solve::Cholesky => {
                let b = DVector::from_fn(n, |r, _| -g[free[r]]);
                let delta = DMatrix::from_row_slice(n, n, &a).cholesky()?.solve(&b);
                Some(delta.iter().copied().collect())
            }
            Solve::Cramer => {
                assert_eq!(n, 2, "Cramer's rule solves two unknowns");
                let (g0, g1) = (g[free[0]], g[free[1]]);
                let m = [[a[0], a[1]], [a[2], a[3]]];
                let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
                if det.is_nan() || det <= 0.0 {
                    return None;
                }
                Some(vec![-(m[1][1] * g0 - m[0][1] * g1) / det, -(m[0][0] * g1 - m[1][0] * g0) / det])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both settings find the minimum of a convex quadratic inside their bounds, and the gradient fit's
    /// stops at a bound its gradient pushes against.
    #[test]
    fn both_settings_descend_a_quadratic() {
        // f(x) = (x0 - 0.3)^2 + 2 (x1 - 0.6)^2 + 0.5 (x0 - 0.3)(x1 - 0.6), with its exact model.
        let f = |x: &[f64]| {
            let (a, b) = (x[0] - 0.3, x[1] - 0.6);
            a * a + 2.0 * b * b + 0.5 * a * b
        };
        let model = |x: &[f64]| {
            let (a, b) = (x[0] - 0.3, x[1] - 0.6);
            (vec![2.0 * a + 0.5 * b, 4.0 * b + 0.5 * a], vec![2.0, 0.5, 0.5, 4.0])
        };
        for (settings, bounds) in [
            (LmSettings::gradient_fit(), vec![(0.0, 1.0); 2]),
            (LmSettings::identify(), vec![(f64::NEG_INFINITY, f64::INFINITY), (-0.99, 0.499)]),
        ] {
            let mut lm = LevenbergMarquardt::new(settings, bounds);
            let mut x = vec![0.9, 0.1];
            for _ in 0..100 {
                let (g, h) = model(&x);
                match lm.propose(&x, &g, &h) {
                    Proposal::Trial(trial) => {
                        let verdict = lm.judge(&x, &trial, f(&x), f(&trial.point), false);
                        if let Verdict::Accepted { converged } = verdict {
                            x = trial.point;
                            if converged {
                                break;
                            }
                        }
                    }
                    Proposal::Singular => {}
                    Proposal::Stop => break,
                }
            }
            // The minimum is inside both boxes' bounds except identify's nu upper bound 0.499 < 0.6.
            let nu_bounded = settings == LmSettings::identify();
            if nu_bounded {
                assert!((x[1] - 0.499).abs() < 1e-12, "{x:?}");
            } else {
                assert!((x[0] - 0.3).abs() < 1e-6 && (x[1] - 0.6).abs() < 1e-6, "{x:?}");
            }
        }
        // On its lower bound with the gradient pushing outward, the gradient fit's coordinate is held.
        let mut lm = LevenbergMarquardt::new(LmSettings::gradient_fit(), vec![(0.0, 1.0); 2]);
        let Proposal::Trial(trial) = lm.propose(&[0.0, 0.5], &[1.0, -1.0], &[1.0, 0.0, 0.0, 1.0]) else {
            panic!("a trial")
        };
        assert_eq!(trial.point[0], 0.0);
        assert_eq!(trial.solved.len(), 1);
        // A failed trial that moved is followed by the halfway point, the damping unchanged.
        assert_eq!(lm.judge(&[0.0, 0.5], &trial, 1.0, f64::INFINITY, true), Verdict::Rejected { give_up: false });
        let mu = lm.mu;
        let Proposal::Trial(back) = lm.propose(&[0.0, 0.5], &[1.0, -1.0], &[1.0, 0.0, 0.0, 1.0]) else {
            panic!("a trial")
        };
        assert_eq!(back.point, vec![0.0, 0.5 + 0.5 * (trial.point[1] - 0.5)]);
        assert_eq!(lm.mu, mu);
    }
}
