//! The release test (`pbdfit motion`'s physics; the job is `pbdfit-jobs`' `MotionKeywords`, a study's
//! motion pass builds the test from its rows: [`ReleaseSetup`]).
//!
//! The test: the body at rest and undeformed, gravity (and any traction) switched on at `t = 0`, for a
//! window of `periods` periods of the FEM body's first mode (`StaticProblem::modes`). The reference is the
//! FEM body integrated by Newmark's average acceleration (no numerical damping) at a step that divides the
//! model's `dt` and resolves the first mode with at least [`FEM_STEPS_PER_PERIOD`] steps; the model runs
//! its own dynamics (`PbdSystem::run_dynamics`) at its `dt` and `nit`, from the same state. At the model's
//! sample times both are recorded.
//!
//! Measures, from the tracked vertex (the free vertex the FEM's rest state moves most) along its rest
//! displacement's direction, about each body's own rest state ([`measure`]): the frequency from the zero
//! crossings; the logarithmic decrement from the decay of the first mode's share of that motion (both
//! bodies projected on the FEM's first mode shape; a least-squares line through the logarithms of its half
//! cycles' peaks), the damping ratio from it, within [`DAMPING_RATIO_TOLERANCE`]; a signal with fewer than
//! three crossings in the window is reported as not oscillating (overdamped, or slower than the window),
//! never as a frequency. The step must sample the first period at least [`MIN_STEPS_PER_PERIOD`] times and
//! the window span [`MIN_PERIODS`] to [`MAX_PERIODS`] periods; a model whose rest state does not converge
//! (within the window's sweep budget) is not released. The trajectory error has the rest-state fit's form: the
//! mean over the samples and the vertices the FEM moves of `|u_model(t) - u_fem(t)|^2 / |u_fem,rest|^2`.
//!
//! On a sheet (`sheet.rs`, [`SheetRelease`]) the reference is the corotational shell's transient, by the
//! same Newmark rule, and a cloth model is released against it (a gravity release, without the fits).

mod damping;
mod measures;
mod release;
mod report;
mod setup;
mod sheet;

pub use damping::{DampingFit, has_damping_knob};
use measures::Probe;
pub use measures::{DAMPING_RATIO_TOLERANCE, MotionMeasures, measure};
pub use release::*;
use report::{Labels, ModelRun};
pub use report::{MotionFit, MotionReport};
pub use setup::ReleaseSetup;
pub use sheet::SheetRelease;

use pbdfit_fem::StaticProblem;
use pbdfit_mesh::Body;
use pbdfit_pbd::{ModelKind, PbdSystem};

use crate::{FemTarget, FitJobError, Target, TrajectoryTarget};

/// A release test set up ([`ReleaseSetup::test`]): the body, both problems, the model, the window.
#[derive(Debug)]
pub struct ReleaseTest {
    pub(crate) body: Body,
    pub(crate) problem: StaticProblem,
    pub(crate) system: PbdSystem,
    pub(crate) release: Release,
    /// The body without its loads (gravity and tractions off), for an `unload` release.
    pub(crate) unloaded: Option<(StaticProblem, PbdSystem)>,
    /// The FEM reference (its law; its rest state is the reference's own solve).
    pub(crate) spec: pbdfit_fem::ReferenceSpec,
    /// The model, the FEM's material and first mode (its shape mass-normalised with the body's lumped
    /// masses), the window.
    pub(crate) window: ReleaseWindow,
}

/// The cost of a motion fit: the trajectory error of the model released at a point of its search box (a
/// point without a rest state or whose release leaves f64 costs infinity).
struct MotionCost<'a> {
    test: &'a ReleaseTest,
    search_box: &'a crate::SearchBox,
    target: &'a TrajectoryTarget,
    evaluations: std::cell::Cell<usize>,
}

impl argmin::core::CostFunction for MotionCost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, t: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        // Ctrl-C (`crate::cancellable`): the search stops here, not after its budget of failed releases.
        pbdfit_mesh::cancel::check()?;
        self.evaluations.set(self.evaluations.get() + 1);
        let p = self.test;
        let (kind, damping) = (p.window.kind, p.window.damping);
        let error = match p.model_release(kind, damping, &self.search_box.values(t), false) {
            Ok((_, fields)) => self.target.error(&fields.concat()),
            Err(_) => f64::INFINITY,
        };
        Ok(if error.is_finite() { error } else { f64::INFINITY })
    }
}

impl ReleaseTest {
    /// The body both sides release.
    pub fn body(&self) -> &Body {
        &self.body
    }

    /// The model released.
    pub fn kind(&self) -> ModelKind {
        self.window.kind
    }

    /// Releases both bodies at the model's `start_values` (`fitted`: a rest-state fit's), with the motion
    /// fit and the damping fit first where asked, handing every sample of the final release to `frames`;
    /// the report's wall-clock time counts from `start`.
    pub fn run(
        &self,
        start: std::time::Instant,
        start_values: Vec<f64>,
        fitted: bool,
        fit_motion: bool,
        fit_damping: bool,
        frames: &mut FrameSink,
    ) -> Result<MotionReport, FitJobError> {
        let input = FitJobError::Input;
        let (scene, w) = (&self.body.scene, &self.window);
        // The FEM's rest state (static).
        let fem_rest = self
            .spec
            .displacements(&self.problem, w.material, w.dt)
            .map_err(|e| input(format!("FEM rest state of {scene}: {e}")))?;
        let moved = crate::moved_vertices(&fem_rest, &self.body.held);
        // The free vertex the load moves most (a held vertex's prescribed motion is no response).
        let Some(&tracked) = moved.iter().max_by(|&&a, &&b| fem_rest[a].norm().total_cmp(&fem_rest[b].norm())) else {
            return Err(input(format!("scene {scene}: the load moves no free vertex, so nothing is released")));
        };
        let direction = fem_rest[tracked].normalize();
        let fem_fields = self.fem_release(&fem_rest).map_err(|e| input(format!("the FEM release of {scene}: {e}")))?;
        let rest = FemTarget { reference: fem_rest, moved, id: self.spec.id() };
        let target = TrajectoryTarget { rest, fields: fem_fields };
        let (fem_rest, fem_fields) = (&target.rest.reference, &target.fields);
        // The release at the start's parameters; with `fit_motion`, the pattern search on the trajectory
        // error from there.
        let (start_rest, start_fields) = self.released(w.kind, w.damping, &start_values)?;
        let start_trajectory = target.error(&start_fields.concat());
        let start_rest_error = target.rest.error(&start_rest);
        let motion_start = std::time::Instant::now();
        let (values, model_rest, model_fields, motion_evaluations) = if fit_motion {
            let search_box = crate::SearchBox::default_for(w.kind);
            let cost = MotionCost {
                test: self,
                search_box: &search_box,
                target: &target,
                evaluations: std::cell::Cell::new(0),
            };
            let dimensions = search_box.dimensions();
            let solver = crate::PatternSearch::new(vec![0.0; dimensions], vec![1.0; dimensions], 0.05, 1e-3)
                .map_err(|e| FitJobError::Internal(format!("motion fit: {e}")))?;
            let t0 = search_box.unit(&start_values);
            let result = argmin::core::Executor::new(cost, solver)
                .configure(|s| s.param(t0.clone()).max_iters(500))
                .timer(false)
                .run()
                .map_err(|e| FitJobError::Internal(format!("motion fit: {e}")))?;
            let t = argmin::core::State::get_best_param(&result.state).cloned().unwrap_or(t0);
            let evaluations = result.problem.problem.as_ref().map_or(0, |c| c.evaluations.get());
            let values = search_box.values(&t);
            let (rest, fields) = self.released(w.kind, w.damping, &values)?;
            (values, rest, fields, Some(evaluations))
        } else {
            (start_values.clone(), start_rest, start_fields, None)
        };
        let motion_seconds = motion_start.elapsed().as_secs_f64();
        let unloaded = matches!(self.release, Release::Unload).then_some(self.body.prescribed.as_slice());
        let times = (0..fem_fields.len()).map(|j| j as f64 * w.dt).collect();
        let (mode, masses) = (w.mode.as_slice(), self.body.masses.as_slice());
        let probe = Probe { times, tracked, direction, mode, masses, unloaded };
        let fem = probe.measure(fem_fields, fem_rest);
        // With `fit_damping`: the damping knob searched for the FEM's damping ratio, at these parameters.
        let (kind, damping, rest, fields, damping_fit) = if fit_damping {
            let (found, kind, damping) = self.damping_search(&values, &fem, &probe)?;
            let (rest, fields) = self.released(kind, damping, &values)?;
            (kind, damping, rest, fields, Some(found))
        } else {
            (w.kind, w.damping, model_rest, model_fields, None)
        };
        let names = || w.kind.parameters().into_iter().map(|p| p.name.to_string());
        let motion_fit = motion_evaluations.map(|evaluations| MotionFit {
            start: names().zip(start_values).collect(),
            start_rest_error,
            start_trajectory_error: start_trajectory,
            evaluations,
            seconds: motion_seconds,
        });
        let run = ModelRun { kind, damping, values, fitted, motion_fit, damping_fit, rest, fields };
        w.report(start, &probe, &target, fem, run, frames)
    }
}
