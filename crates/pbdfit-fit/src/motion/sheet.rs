//! The release test on a sheet: a cloth model's release against the corotational shell's transient
//! (`CorotationalShell::integrate`, Newmark's average acceleration at a step that divides the model's and
//! resolves the shell's first mode with at least [`FEM_STEPS_PER_PERIOD`] steps, from the flat sheet at
//! rest with its weight switched on, with the first mode's Rayleigh damping ratio where asked), measured
//! as a solid's release is ([`Probe`], the trajectory error of [`TrajectoryTarget`]) and reported in the
//! same [`MotionReport`].
//!
//! The shell's first mode is the linear shell's (`LinearShell::modes`, the lumped mass with the plate's
//! rotary inertia); the probe projects both bodies' translations on its translations with the vertices'
//! masses. The model's vertices are the shell's; it holds a clamp's next row too (a particle has no
//! rotation: `SheetBody::particle_held`), and those vertices count in the errors as in a sheet's fit.
//!
//! The job's `fit` (the rest-state fit first) works as for a solid. Not for sheets (refused by the job,
//! naming the option): `release = unload`, `fit_motion`, `fit_damping`, and the command line's `--frames`.

use pbdfit_fem::shell::{CorotationalShell, LinearShell, MembraneLaw, ShellDynamicState, ShellLoad};
use pbdfit_fem::{DynamicSettings, RestRule, TimeIntegrator, YoungPoisson};
use pbdfit_mesh::{SheetBody, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions, SimParams};

use super::measures::Probe;
use super::{
    DAMPING_RATIO_TOLERANCE, FEM_STEPS_PER_PERIOD, FrameSink, MAX_FEM_STEPS, MAX_MODEL_STEPS, MIN_STEPS_PER_PERIOD,
    MotionReport, ReleaseSetup,
};
use crate::{FemTarget, FitJobError, LoadedSheet, ShellReference, Spelling, Target, TrajectoryTarget};

/// A sheet's release test set up ([`ReleaseSetup::sheet_test`]).
#[derive(Debug)]
pub struct SheetRelease {
    body: SheetBody,
    summary: pbdfit_mesh::BodySummary,
    membrane: MembraneLaw,
    reference: ShellReference,
    system: PbdSystem,
    kind: ModelKind,
    material: YoungPoisson,
    dt: f64,
    nit: usize,
    damping: f64,
    fem_damping: f64,
    omega: f64,
    /// The first mode's translations (mass-normalised with the rotary inertia).
    mode: Vec<Vec3>,
    model_steps: usize,
    substeps: usize,
}

impl ReleaseSetup {
    /// The release test on `sheet` (a loaded sheet scene: its body and the material resolved over the
    /// scene's): the model checked for sheets, the shell's law (`law`: corotational or stvk, the scene's by
    /// default), its first mode, and the window's budget before any step.
    pub fn sheet_test(&self, sheet: LoadedSheet, spelling: Spelling) -> Result<SheetRelease, FitJobError> {
        let input = FitJobError::Input;
        let LoadedSheet { scene, body, material } = sheet;
        let (kind, dt, nit, damping, fem_damping) = (self.kind, self.dt, self.nit, self.damping, self.fem_damping);
        Self::check_model(kind, dt, nit, damping, fem_damping, spelling)?;
        crate::check_cloth_model(kind, &scene.name)?;
        let options = pbdfit_mesh::ReferenceOptions { material: self.law.clone(), ..Default::default() };
        let reference = ShellReference::of_job(&options, &scene, spelling)?;
        let ShellReference::Corotational(membrane) = reference else {
            return Err(input(format!(
                "{} = linear: a sheet's release runs the corotational shell (corotational or stvk), whose \
                 rotations may grow large",
                spelling.name("material")
            )));
        };
        let held = crate::shell_constraints(&body);
        let linear =
            LinearShell::new(&body.sheet, material).map_err(|e| input(format!("scene {}: {e}", scene.name)))?;
        let modes = linear.modes(&held, 1).map_err(|e| input(format!("the first mode of {}: {e}", scene.name)))?;
        let omega = modes.angular[0];
        let mode = modes.shapes[0].iter().map(|d| Vec3::new(d[0], d[1], d[2])).collect();
        let period = std::f64::consts::TAU / omega;
        if period / dt < MIN_STEPS_PER_PERIOD {
            return Err(input(format!(
                "{} = {dt} s is too coarse for the release test: the shell's first mode has a period of {period:.4e} \
                 s, which a step of {dt} s samples {:.3} times; the test needs at least {MIN_STEPS_PER_PERIOD} steps \
                 a period (dt <= {:.4e} s)",
                spelling.name("dt"),
                period / dt,
                period / MIN_STEPS_PER_PERIOD
            )));
        }
        let window = self.periods * period;
        let model_steps = (window / dt).ceil();
        let substeps = (dt / (period / FEM_STEPS_PER_PERIOD as f64)).ceil().max(1.0);
        if model_steps > MAX_MODEL_STEPS as f64 || model_steps * substeps > MAX_FEM_STEPS as f64 {
            return Err(input(format!(
                "{} = {}: a window of {window:.3e} s takes {model_steps:.0} model steps of {dt} s and {:.0} shell \
                 steps (at most {MAX_MODEL_STEPS} and {MAX_FEM_STEPS}); the first period is {period:.3e} s",
                spelling.name("periods"),
                self.periods,
                model_steps * substeps
            )));
        }
        Ok(SheetRelease {
            summary: scene.summary(),
            system: PbdSystem::sheet_body(&body),
            body,
            membrane,
            reference,
            kind,
            material,
            dt,
            nit,
            damping,
            fem_damping,
            omega,
            mode,
            model_steps: model_steps as usize,
            substeps: substeps as usize,
        })
    }
}

impl SheetRelease {
    /// The model released.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The shell's transient (translations at every model step, the start included) and its static rest
    /// state's translations.
    fn shell_release(&self) -> Result<(Vec<Vec3>, Vec<Vec<Vec3>>), String> {
        let shell = CorotationalShell::with_membrane(&self.body.sheet, self.material, self.membrane)
            .map_err(|e| e.to_string())?;
        let held = crate::shell_constraints(&self.body);
        let load = ShellLoad::gravity(&self.body.sheet, self.body.gravity);
        let (rest, _) = crate::solve_shell(&self.body, self.material, self.reference).map_err(|e| e.to_string())?;
        let vertices = self.body.held.len();
        let rest = (0..vertices).map(|v| rest.translation(v)).collect();
        let fem_dt = self.dt / self.substeps as f64;
        let settings = DynamicSettings {
            integrator: TimeIntegrator::Newmark,
            rayleigh_mass: 2.0 * self.fem_damping * self.omega,
            stop: RestRule::Time((self.model_steps * self.substeps) as f64 * fem_dt),
            ..DynamicSettings::to_rest(fem_dt)
        };
        let (substeps, samples) = (self.substeps, self.model_steps + 1);
        let mut fields: Vec<Vec<Vec3>> = Vec::with_capacity(samples);
        let mut observe = |s: &ShellDynamicState| {
            if s.steps.is_multiple_of(substeps) && fields.len() < samples {
                let d = s.displacements();
                fields.push((0..vertices).map(|v| d.translation(v)).collect());
            }
        };
        shell.integrate(&held, &load, &settings, None, &mut |_| {}, Some(&mut observe)).map_err(|e| e.to_string())?;
        Ok((rest, fields))
    }

    /// The model's rest state (warm-started at `guess`, the shell's: a cold start of a cloth sheet at a
    /// fine step creeps) and its release from the flat sheet at rest, at `values`.
    fn model_release(&self, values: &[f64], guess: &[Vec3]) -> Result<(Vec<Vec3>, Vec<Vec<Vec3>>), String> {
        let model = self.kind.with(values).map_err(|e| e.to_string())?;
        let params = SimParams { damping: self.damping, ..SimParams::new(self.dt, self.nit, model) };
        // The rest-state fit's options (a cloth model's root solve, which accepts the measured rounding of
        // its sweeps in absolute positions).
        let options = RestOptions::default();
        let state = self
            .system
            .rest_state(&params, &options, Some(guess))
            .map_err(|e| format!("the model's rest state: {e}"))?;
        if !state.converged {
            return Err(format!(
                "the model's rest state did not converge within {} projection sweeps (relative residual {:.3e}): its \
                 release would settle about a state that is not at rest",
                state.iterations, state.residual
            ));
        }
        let mut fields = Vec::with_capacity(self.model_steps + 1);
        self.system
            .run_dynamics_from(&params, None, self.model_steps, 1, |_, d| {
                pbdfit_mesh::cancel::check()?;
                fields.push(d.u.clone());
                Ok(())
            })
            .map_err(|e: pbdfit_mesh::cancel::Cancelled| format!("the model's release: {e}"))?;
        Ok((state.displacements, fields))
    }

    /// Releases both at the model's `values`, handing every sample to `frames`; the report's wall-clock
    /// time counts from `start`.
    pub fn run(
        &self,
        start: std::time::Instant,
        values: Vec<f64>,
        fitted: bool,
        frames: &mut FrameSink,
    ) -> Result<MotionReport, FitJobError> {
        let input = FitJobError::Input;
        let scene = self.body.scene.clone();
        let (fem_rest, fem_fields) =
            self.shell_release().map_err(|e| input(format!("the shell release of {scene}: {e}")))?;
        // The shell's supports, not the particles' (which hold a clamp's next row too), as a sheet's fit.
        let held: Vec<bool> = self.body.held.iter().map(Option::is_some).collect();
        let moved = crate::moved_vertices(&fem_rest, &held);
        let Some(&tracked) = moved.iter().max_by(|&&a, &&b| fem_rest[a].norm().total_cmp(&fem_rest[b].norm())) else {
            return Err(input(format!("scene {scene}: the load moves no free vertex, so nothing is released")));
        };
        let direction = fem_rest[tracked].normalize();
        let id = format!("{} dynamic", self.reference.id());
        let target = TrajectoryTarget { rest: FemTarget { reference: fem_rest, moved, id }, fields: fem_fields };
        let (fem_rest, fem_fields) = (&target.rest.reference, &target.fields);
        let (model_rest, model_fields) = self.model_release(&values, fem_rest).map_err(input)?;
        let masses = self.body.sheet.lumped_masses();
        let times = (0..fem_fields.len()).map(|j| j as f64 * self.dt).collect();
        let probe = Probe { times, tracked, direction, mode: &self.mode, masses: &masses, unloaded: None };
        let fem = probe.measure(fem_fields, fem_rest);
        let rest_error = target.rest.error(&model_rest);
        let trajectory_error = target.error(&model_fields.concat());
        let samples = fem_fields.len().min(model_fields.len());
        let times = probe.times[..samples].to_vec();
        let model_measures = probe.measure(&model_fields, &model_rest);
        for j in 0..samples {
            frames(times[j], &fem_fields[j], &model_fields[j]).map_err(input)?;
        }
        let xyz = |u: &Vec3| [u.x, u.y, u.z];
        let names = || self.kind.parameters().into_iter().map(|p| p.name.to_string());
        Ok(MotionReport {
            scene,
            body: self.summary.clone(),
            n: self.body.n,
            mass_model: "lumped",
            model: self.kind.spec(),
            parameters: names().zip(values).collect(),
            fitted,
            motion_fit: None,
            release: super::Release::Gravity.name(),
            young: self.material.young(),
            poisson: self.material.poisson(),
            material: self.reference.id(),
            dt: self.dt,
            nit: self.nit,
            damping: self.damping,
            fem_damping: self.fem_damping,
            damping_ratio_tolerance: DAMPING_RATIO_TOLERANCE,
            damping_fit: None,
            modal_frequency: self.omega / std::f64::consts::TAU,
            window: self.model_steps as f64 * self.dt,
            model_steps: self.model_steps,
            fem_substeps: self.substeps,
            tracked_vertex: tracked,
            tracked_direction: xyz(&direction),
            rest_levels: [fem_rest, &model_rest].map(|rest| rest[tracked].dot(&direction)),
            fem,
            model_measures,
            rest_error,
            trajectory_error,
            times,
            fem_track: fem_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            model_track: model_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            seconds: start.elapsed().as_secs_f64(),
            pbdfit_version: env!("CARGO_PKG_VERSION"),
        })
    }
}
