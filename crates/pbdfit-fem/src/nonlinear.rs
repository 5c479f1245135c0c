//! Static equilibrium for any [`Material`]: Newton's method with load stepping and a backtracking line
//! search on the residual norm (docs/rest-states-and-references.md).
//!
//! The load (nodal loads and prescribed displacements together) is applied in increments of the load
//! factor `lambda` from 0 to 1. Each increment starts from the previous equilibrium and iterates
//! `K(u) du = -(f_int(u) - lambda f_ext)` with the sparse tangent (faer Cholesky, whose symbolic
//! analysis is shared by every iteration; LU where the tangent is not positive definite) until the
//! relative residual `|r| / |r_0|` is at most `1e-10`, `r_0` the residual of the undeformed body under
//! the full load (or until no step lowers a residual already within the round-off factor, 100, of it: the
//! round-off floor, reached for example by the corotational law at E = 1e6 Pa under gravity, whose
//! residual stalls at 1.4e-10). An increment that fails is halved, down to `2^-10`; after a success the next
//! increment doubles again (never past the remaining load).
//!
//! Newton's method, the load stepping and the backtracking are the `newton` unit's (this solve is its
//! system `Equilibrium`, with [`NewtonSettings::STATIC`]; [`LoadStepping`](crate::newton::LoadStepping)
//! with [`Growth::Double`], [`Backtracking`]; no snap: the last increment ends at 1 only where it
//! reaches it exactly). A problem with contact does not come
//! here: its entry points (`static_equilibrium.rs`) send it to the contact solve, which calls this
//! solve, not the reverse.

use nalgebra::Vector3;
use nalgebra_sparse::CscMatrix;

use crate::materials::Material;
use crate::newton::{
    Attempt, Backtracking, Growth, NewtonSettings, NewtonSystem, Outcome, Trial, newton, norm, note_solvers,
};
use crate::solver::{FaerLu, LinearSolver};
use crate::{FemError, StaticProblem, YoungPoisson};

/// The Newton step's search: backtracking on the residual norm, `alpha` from 1 down to `2^-11`.
const SEARCH: Backtracking = Backtracking { tries: 12, sufficient_decrease: 1e-4 };

/// A nonlinear equilibrium and how it was reached.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NonlinearSolution {
    /// Displacement of every vertex (m), prescribed values at constrained vertices.
    pub displacements: Vec<Vector3<f64>>,
    /// Load increments that converged.
    pub increments: usize,
    /// Increments that failed and were halved.
    pub halvings: usize,
    /// Newton iterations in total.
    pub iterations: usize,
    /// Relative residuals of the last increment, one per iteration, starting with the initial one.
    pub residuals: Vec<f64>,
    /// Which linear solvers ran (`faer-cholesky`, `faer-lu` when the tangent was indefinite).
    pub solvers: Vec<&'static str>,
}

impl NonlinearSolution {
    /// The largest vertex displacement norm (m).
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }
}

/// A Newton attempt that did not converge.
struct Failed {
    residual: f64,
    iterations: usize,
    /// The last element that inverted (tetrahedron, determinant), if any did.
    inverted: Option<(usize, f64)>,
}

impl StaticProblem {
    /// Residual `f_int(u) - lambda f_ext` over the free DOFs and the tangent at `u`.
    pub(crate) fn residual_and_tangent(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        u: &[Vector3<f64>],
        lambda: f64,
    ) -> Result<(Vec<f64>, CscMatrix<f64>), FemError> {
        let (k, forces) = self.assembler.nonlinear_system(law, material, u)?;
        Ok((self.reduce(&forces, lambda), k))
    }

    /// `forces - lambda loads` at the free DOFs.
    pub(crate) fn reduce(&self, forces: &[Vector3<f64>], lambda: f64) -> Vec<f64> {
        let map = self.assembler.dof_map();
        let mut r = vec![0.0; map.dofs()];
        for (v, f) in forces.iter().enumerate() {
            if let Some(d) = map.dof(v, 0) {
                for i in 0..3 {
                    r[d + i] = f[i] - lambda * self.loads[v][i];
                }
            }
        }
        r
    }

    /// Adds `step` (free DOFs) times `alpha` to `u`.
    pub(crate) fn update(&self, u: &[Vector3<f64>], step: &[f64], alpha: f64) -> Vec<Vector3<f64>> {
        let map = self.assembler.dof_map();
        u.iter()
            .enumerate()
            .map(|(v, x)| match map.dof(v, 0) {
                Some(d) => x + Vector3::new(step[d], step[d + 1], step[d + 2]) * alpha,
                None => *x,
            })
            .collect()
    }

    /// Solves `k x = b`: Cholesky, or LU where `k` is not positive definite. Returns the solver's name.
    pub(crate) fn linear_solve(&self, k: &CscMatrix<f64>, b: &[f64]) -> Result<(Vec<f64>, &'static str), FemError> {
        let direct = &self.solver.direct;
        match direct.solve(k, b) {
            Ok(x) => Ok((x, direct.name())),
            Err(FemError::NotPositiveDefinite { .. }) => FaerLu.solve(k, b).map(|x| (x, FaerLu.name())),
            Err(e) => Err(e),
        }
    }

    /// [`solve_law_with`](Self::solve_law_with) without contact: load stepping with Newton's method,
    /// whatever obstacles the problem has (for a contact solve whose obstacles carry nothing).
    pub(crate) fn solve_law_free(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: NewtonSettings,
    ) -> Result<NonlinearSolution, FemError> {
        let map = self.assembler.dof_map();
        // Scale of the residual: the undeformed body under the full load and prescribed displacements.
        let zero = vec![Vector3::zeros(); map.vertices()];
        let full = self.with_prescribed(&zero, 1.0);
        let (_, forces) = self.assembler.nonlinear_system(law, material, &full)?;
        let scale = norm(&self.reduce(&forces, 1.0));
        let mut u = zero;
        let mut solution = NonlinearSolution::default();
        if scale == 0.0 {
            solution.displacements = full;
            return Ok(solution);
        }
        let stepping = settings.load_stepping(1.0 / settings.initial_increments.max(1) as f64, 0.0, Growth::Double);
        let halvings = stepping.run(
            |_, target| {
                let start = self.with_prescribed(&u, target);
                let mut system = Equilibrium {
                    problem: self,
                    law,
                    material,
                    lambda: target,
                    scale,
                    residuals: Vec::new(),
                    solvers: Vec::new(),
                    inverted: None,
                };
                Ok(match newton(&mut system, &SEARCH, &settings, start)? {
                    Ok((_, next, _)) => {
                        solution.iterations += system.residuals.len() - 1;
                        solution.increments += 1;
                        solution.residuals = system.residuals;
                        note_solvers(&mut solution.solvers, system.solvers);
                        u = next;
                        Outcome::Converged
                    }
                    Err(failed) => {
                        solution.iterations += failed.iterations;
                        Outcome::Failed(failed)
                    }
                })
            },
            |Failed { residual, iterations, inverted }, target, step| match inverted {
                Some((tet, det)) => FemError::InvertedElement { tet, det, load: Some(target) },
                None => FemError::NewtonFailed {
                    material: law.name(),
                    load: target,
                    increment: step,
                    residual,
                    iterations,
                    tolerance: settings.relative_tolerance,
                },
            },
        )?;
        solution.halvings = halvings;
        solution.displacements = u;
        Ok(solution)
    }

    /// `u` with the constrained vertices at `lambda` times their prescribed displacement.
    pub(crate) fn with_prescribed(&self, u: &[Vector3<f64>], lambda: f64) -> Vec<Vector3<f64>> {
        let map = self.assembler.dof_map();
        u.iter()
            .enumerate()
            .map(|(v, x)| if map.is_constrained(v) { self.prescribed[v] * lambda } else { *x })
            .collect()
    }
}

/// The static equilibrium at load factor `lambda` as a Newton system: residual `f_int(u) - lambda f_ext`
/// over the free DOFs relative to `scale`, evaluated in the backtracking's trials.
struct Equilibrium<'a> {
    problem: &'a StaticProblem,
    law: &'a dyn Material,
    material: YoungPoisson,
    lambda: f64,
    scale: f64,
    /// Relative residuals of the iterates.
    residuals: Vec<f64>,
    solvers: Vec<&'static str>,
    /// The last element that inverted.
    inverted: Option<(usize, f64)>,
}

/// The residual, the tangent and the relative residual norm at a state.
type Evaluated = (Vec<f64>, CscMatrix<f64>, f64);

impl Equilibrium<'_> {
    /// The evaluation at `u`, `None` where an element inverts (remembered for the failure).
    fn at(&mut self, u: &[Vector3<f64>]) -> Result<Option<Evaluated>, FemError> {
        match self.problem.residual_and_tangent(self.law, self.material, u, self.lambda) {
            Ok((r, k)) => {
                let n = norm(&r) / self.scale;
                Ok(Some((r, k, n)))
            }
            Err(FemError::InvertedElement { tet, det, .. }) => {
                self.inverted = Some((tet, det));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

impl NewtonSystem for Equilibrium<'_> {
    type State = Vec<Vector3<f64>>;
    type Evaluation = Evaluated;
    type Failure = Failed;

    fn evaluate(&mut self, iteration: usize, u: &Self::State) -> Attempt<Evaluated, Failed> {
        let at = self.at(u)?;
        Ok(at.ok_or(Failed { residual: f64::INFINITY, iterations: iteration, inverted: self.inverted }))
    }

    fn converged(&mut self, _: usize, _: &Self::State, at: &Evaluated, settings: &NewtonSettings) -> bool {
        self.residuals.push(at.2);
        at.2 <= settings.relative_tolerance
    }

    fn step(&mut self, iteration: usize, _: &Self::State, at: &Evaluated) -> Attempt<Vec<f64>, Failed> {
        let minus_r: Vec<f64> = at.0.iter().map(|x| -x).collect();
        let Ok((step, solver)) = self.problem.linear_solve(&at.1, &minus_r) else {
            return Ok(Err(self.failure(iteration, at)));
        };
        note_solvers(&mut self.solvers, [solver]);
        Ok(Ok(step))
    }

    fn merit(&self, at: &Evaluated) -> f64 {
        at.2
    }

    fn trial(&mut self, u: &Self::State, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        let trial = self.problem.update(u, step, alpha);
        Ok(self.at(&trial)?.map(|at| {
            let n = at.2;
            ((trial, Some(at)), n)
        }))
    }

    fn failure(&mut self, iterations: usize, at: &Evaluated) -> Failed {
        Failed { residual: at.2, iterations, inverted: self.inverted }
    }

    /// No step lowers the residual: round-off. Close enough to the tolerance, that is the solution.
    fn stalled(&mut self, iteration: usize, at: &Evaluated, settings: &NewtonSettings) -> Result<(), Failed> {
        if at.2 <= settings.round_off_tolerance() { Ok(()) } else { Err(self.failure(iteration + 1, at)) }
    }
}
