//! How a release starts and how long it runs, and both bodies' releases.

use pbdfit_fem::{DynamicSettings, DynamicState, RestRule, TimeIntegrator, YoungPoisson};
use pbdfit_mesh::Vec3;
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions, SimParams};

use super::{Labels, ReleaseSetup, ReleaseTest};
use crate::{FitJobError, Spelling};

/// The window when the job does not say, in periods of the FEM's first mode.
pub const DEFAULT_PERIODS: f64 = 5.0;
/// The fewest FEM steps per period of the first mode (Newmark's period error is then below 2e-4).
pub const FEM_STEPS_PER_PERIOD: usize = 100;
/// The most model steps a window may take (refused before the run).
pub const MAX_MODEL_STEPS: usize = 200_000;
/// The most FEM steps a window may take (refused before the run).
pub const MAX_FEM_STEPS: usize = 2_000_000;
/// The fewest model steps (samples of both bodies) per period of the FEM's first mode: a coarser step
/// aliases the motion (at 1.3 samples a period the FEM's 3.72 Hz mode read 1.28 Hz) or hides it (below 2,
/// an undamped body read as overdamped). Refused before the run, naming the period and the step.
pub const MIN_STEPS_PER_PERIOD: f64 = 10.0;
/// The shortest window, in periods of the FEM's first mode: a release from rest first crosses its rest
/// state a quarter period in, so fewer than two periods may not give the three crossings a frequency needs,
/// and a trajectory error over a fraction of a period measures nothing of the motion.
pub const MIN_PERIODS: f64 = 2.0;
/// The longest window, in periods: every period takes at least [`FEM_STEPS_PER_PERIOD`] FEM steps, so a
/// longer window exceeds [`MAX_FEM_STEPS`] on any body (checked where a study file is read, before any body
/// is built).
pub const MAX_PERIODS: f64 = (MAX_FEM_STEPS / FEM_STEPS_PER_PERIOD) as f64;

/// Checks a window of `periods` periods of the first mode (the command line's and the study file's one
/// check): a finite number within [[`MIN_PERIODS`], [`MAX_PERIODS`]].
pub fn check_periods(periods: f64) -> Result<f64, String> {
    if !periods.is_finite() {
        return Err(format!("{periods}: must be a finite number of periods"));
    }
    if periods < MIN_PERIODS {
        return Err(format!(
            "{}: the window must be at least {MIN_PERIODS} periods of the first mode (a shorter one cannot show \
             the three zero crossings a frequency needs, and its trajectory error measures no motion)",
            pbdfit_mesh::display::number(periods)
        ));
    }
    if periods > MAX_PERIODS {
        return Err(format!(
            "{}: at most {MAX_PERIODS} periods (each period takes at least {FEM_STEPS_PER_PERIOD} FEM steps, and \
             a window at most {MAX_FEM_STEPS})",
            pbdfit_mesh::display::number(periods)
        ));
    }
    Ok(periods)
}

/// How a release test starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Undeformed at rest, the load switched on at `t = 0`.
    Gravity,
    /// At the loaded rest state, the load switched off at `t = 0` (held vertices keep their prescribed
    /// displacement).
    Unload,
}

impl Release {
    /// Every release, in the order messages list them.
    pub const ALL: [Release; 2] = [Release::Gravity, Release::Unload];

    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Release::Gravity => "gravity",
            Release::Unload => "unload",
        }
    }

    /// The release called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    /// `gravity or unload`, for messages.
    pub fn names() -> String {
        Self::ALL.map(|r| r.name()).join(" or ")
    }
}

/// What a solid's and a sheet's release tests hold alike: the model at its step, both dampings, the
/// reference's first mode, the window's steps and what the report says of the body
/// ([`ReleaseSetup::window`]).
#[derive(Debug)]
pub(crate) struct ReleaseWindow {
    /// The report's words on the body and the reference.
    pub(crate) labels: Labels,
    pub(crate) kind: ModelKind,
    /// The reference's material.
    pub(crate) material: YoungPoisson,
    /// The model's step (s).
    pub(crate) dt: f64,
    pub(crate) nit: usize,
    /// The model's velocity damping per step.
    pub(crate) damping: f64,
    /// The reference's damping ratio in its first mode.
    pub(crate) fem_damping: f64,
    /// The reference's first mode's angular frequency (rad/s).
    pub(crate) omega: f64,
    /// The reference's first mode shape (mass-normalised, zero at held vertices): the damping estimate
    /// projects both bodies' motion on it.
    pub(crate) mode: Vec<Vec3>,
    pub(crate) model_steps: usize,
    /// The reference's steps per model step.
    pub(crate) substeps: usize,
}

impl ReleaseSetup {
    /// The window on a reference (`what`: `FEM` or `shell`, for messages) of `material` whose first mode
    /// is `first` (its angular frequency, rad/s, and shape), before any step: the model's step samples the
    /// first period at least [`MIN_STEPS_PER_PERIOD`] times, and the window takes at most
    /// [`MAX_MODEL_STEPS`] model steps and [`MAX_FEM_STEPS`] of the reference's (naming a refused option in
    /// `spelling`).
    pub(super) fn window(
        &self,
        labels: Labels,
        what: &str,
        material: YoungPoisson,
        first: (f64, Vec<Vec3>),
        spelling: Spelling,
    ) -> Result<ReleaseWindow, FitJobError> {
        let input = FitJobError::Input;
        let ((omega, mode), dt, periods) = (first, self.dt, self.periods);
        let period = std::f64::consts::TAU / omega;
        if period / dt < MIN_STEPS_PER_PERIOD {
            return Err(input(format!(
                "{} = {dt} s is too coarse for the release test: the {what}'s first mode has a period of \
                 {period:.4e} s ({:.4e} Hz), which a step of {dt} s samples {:.3} times; the test needs at least \
                 {MIN_STEPS_PER_PERIOD} steps a period (dt <= {:.4e} s), since a coarser sampling aliases the motion",
                spelling.name("dt"),
                1.0 / period,
                period / dt,
                period / MIN_STEPS_PER_PERIOD
            )));
        }
        let window = periods * period;
        let model_steps = (window / dt).ceil();
        let substeps = (dt / (period / FEM_STEPS_PER_PERIOD as f64)).ceil().max(1.0);
        if model_steps > MAX_MODEL_STEPS as f64 || model_steps * substeps > MAX_FEM_STEPS as f64 {
            return Err(input(format!(
                "{} = {periods}: a window of {window:.3e} s takes {model_steps:.0} model steps of {dt} s and \
                 {:.0} {what} steps (at most {MAX_MODEL_STEPS} and {MAX_FEM_STEPS}); the first period is {period:.3e} s",
                spelling.name("periods"),
                model_steps * substeps
            )));
        }
        Ok(ReleaseWindow {
            labels,
            kind: self.kind,
            material,
            dt,
            nit: self.nit,
            damping: self.damping,
            fem_damping: self.fem_damping,
            omega,
            mode,
            model_steps: model_steps as usize,
            substeps: substeps as usize,
        })
    }
}

impl ReleaseWindow {
    /// The reference's time integration: Newmark's average acceleration at `dt / substeps` over the
    /// window, with the first mode's Rayleigh mass damping at `fem_damping`.
    pub(super) fn reference_settings(&self) -> DynamicSettings {
        let fem_dt = self.dt / self.substeps as f64;
        DynamicSettings {
            integrator: TimeIntegrator::Newmark,
            rayleigh_mass: 2.0 * self.fem_damping * self.omega,
            stop: RestRule::Time((self.model_steps * self.substeps) as f64 * fem_dt),
            ..DynamicSettings::to_rest(fem_dt)
        }
    }

    /// Whether the reference's state after `steps` steps is a sample, `taken` taken before it: one every
    /// model step, the start included.
    pub(super) fn is_sample(&self, steps: usize, taken: usize) -> bool {
        steps.is_multiple_of(self.substeps) && taken < self.model_steps + 1
    }

    /// The model `kind` at `values` at the window's step and iterations, with velocity damping `damping`.
    pub(super) fn params(&self, kind: ModelKind, damping: f64, values: &[f64]) -> Result<SimParams, String> {
        let model = kind.with(values).map_err(|e| e.to_string())?;
        Ok(SimParams { damping, ..SimParams::new(self.dt, self.nit, model) })
    }

    /// The model's release by `system` at `params` from `start` (its undeformed rest where `None`): its
    /// displacement field at every model step, the start included.
    pub(super) fn model_fields(
        &self,
        system: &PbdSystem,
        params: &SimParams,
        start: Option<&[Vec3]>,
    ) -> Result<Vec<Vec<Vec3>>, String> {
        let mut fields = Vec::with_capacity(self.model_steps + 1);
        system
            .run_dynamics_from(params, start, self.model_steps, 1, |_, d| {
                // Ctrl-C (`crate::cancellable`): the release stops at this step.
                pbdfit_mesh::cancel::check()?;
                fields.push(d.u.clone());
                Ok(())
            })
            .map_err(|e: pbdfit_mesh::cancel::Cancelled| format!("the model's release: {e}"))?;
        Ok(fields)
    }
}

/// What receives each sample of a release: its time (s), the FEM's displacement field and the model's (m).
pub type FrameSink<'a> = dyn FnMut(f64, &[Vec3], &[Vec3]) -> Result<(), String> + 'a;

/// A model's release: its loaded rest state where asked, and its displacement field at every model step.
type ModelRelease = (Option<Vec<Vec3>>, Vec<Vec<Vec3>>);
/// A model's release with its loaded rest state.
type Released = (Vec<Vec3>, Vec<Vec<Vec3>>);

impl ReleaseTest {
    /// The FEM release: Newmark at dt / substeps, sampled every model step (the start included). Gravity:
    /// from undeformed rest, loaded, about the loaded rest state `fem_rest`. Unload: from `fem_rest`,
    /// unloaded, about the undeformed state (held vertices at their prescribed displacement).
    pub(super) fn fem_release(&self, fem_rest: &[Vec3]) -> Result<Vec<Vec<Vec3>>, String> {
        let w = &self.window;
        let settings = w.reference_settings();
        let (fem_problem, fem_start) = match &self.unloaded {
            None => (&self.problem, None),
            Some((problem, _)) => (
                problem,
                Some(pbdfit_fem::DynamicStart {
                    displacements: fem_rest.to_vec(),
                    velocities: vec![Vec3::zeros(); fem_rest.len()],
                }),
            ),
        };
        let mut fem_fields: Vec<Vec<Vec3>> = Vec::with_capacity(w.model_steps + 1);
        fem_problem
            .integrate(
                self.spec.material,
                w.material,
                settings,
                fem_start.as_ref(),
                &mut |_| {},
                Some(&mut |s: &DynamicState| {
                    if w.is_sample(s.steps, fem_fields.len()) {
                        fem_fields.push(s.displacements());
                    }
                }),
            )
            .map_err(|e| e.to_string())?;
        Ok(fem_fields)
    }

    /// [`Self::model_release`] with the model's own rest state, a failure the job's input error.
    pub(super) fn released(&self, kind: ModelKind, damping: f64, values: &[f64]) -> Result<Released, FitJobError> {
        let (rest, fields) = self.model_release(kind, damping, values, true).map_err(FitJobError::Input)?;
        Ok((rest.expect("asked for"), fields))
    }

    /// The model's release at `values`: its displacement field at every model step (the start included)
    /// and, where `with_rest` is set or the release starts from it (`unload`), its own loaded rest state. A
    /// motion fit's gravity releases need no rest state: the search does not solve one per point.
    pub(super) fn model_release(
        &self,
        kind: ModelKind,
        damping: f64,
        values: &[f64],
        with_rest: bool,
    ) -> Result<ModelRelease, String> {
        let w = &self.window;
        let params = w.params(kind, damping, values)?;
        let rest = if with_rest || self.unloaded.is_some() {
            // Within the window's own budget: as many projection sweeps as the longest window's steps take.
            let options = RestOptions { max_sweeps: MAX_MODEL_STEPS * w.nit, ..RestOptions::default() };
            let state =
                self.system.rest_state(&params, &options, None).map_err(|e| format!("the model's rest state: {e}"))?;
            if !state.converged {
                return Err(format!(
                    "the model's rest state did not converge within {} projection sweeps ({MAX_MODEL_STEPS} steps of \
                     {} iterations; relative residual {:.3e}, needed {:e}): the release would start from, or settle \
                     about, a state that is not at rest, and its measures would mean nothing; a larger dt or more \
                     iterations let the model reach rest",
                    state.iterations, w.nit, state.residual, options.tolerance
                ));
            }
            Some(state.displacements)
        } else {
            None
        };
        let (system, start) = match (&self.unloaded, &rest) {
            (Some((_, system)), Some(rest)) => (system, Some(rest.as_slice())),
            _ => (&self.system, None),
        };
        let fields = w.model_fields(system, &params, start)?;
        Ok((rest, fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window's bounds are one check for the command line and study files: under two periods, beyond
    /// the FEM's step budget on any body, or not finite, refused naming the bound.
    #[test]
    fn windows_outside_the_bounds_are_refused() {
        assert_eq!(check_periods(5.0), Ok(5.0));
        assert_eq!(check_periods(MIN_PERIODS), Ok(MIN_PERIODS));
        for (periods, said) in [(1e-300, "at least 2 periods"), (1.5, "at least 2"), (1e9, "at most 20000 periods")] {
            let e = check_periods(periods).unwrap_err();
            assert!(e.contains(said), "{periods}: {e}");
        }
        assert!(check_periods(f64::NAN).unwrap_err().contains("finite"));
        assert!(check_periods(f64::INFINITY).unwrap_err().contains("finite"));
    }
}
