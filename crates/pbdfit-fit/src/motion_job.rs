//! One motion job, the release test: `pbdfit motion` and Python's `pbdfit.motion` fill a
//! [`MotionKeywords`], checked in one place ([`MotionKeywords::prepare`]) and run into a [`MotionReport`]
//! (`pbdfit motion --json`'s object; [`MotionReport::text`] is what the command prints).

use std::collections::BTreeMap;

use pbdfit_fem::{MassMatrix, StaticProblem};
use pbdfit_mesh::{Body, Vec3};
use pbdfit_pbd::{CpuBackend, PbdSystem};
use serde::Serialize;

use crate::motion::{
    DEFAULT_PERIODS, FEM_STEPS_PER_PERIOD, FrameSink, MAX_FEM_STEPS, MAX_MODEL_STEPS, MIN_STEPS_PER_PERIOD,
    MotionReport, Release, ReleaseTest, check_periods, has_damping_knob,
};
use crate::{FitJobError, Spelling};

/// A release test, as the command line and Python ask it (the command line's options are these under
/// their flag names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct MotionKeywords {
    /// The body (one part): `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: crate::Body,
    /// The FEM's `young` and `poisson`.
    #[serde(flatten)]
    #[command(flatten)]
    pub elastic: crate::Material,
    /// The FEM law: linear, corotational, stvk or neo-hookean (default: the scene's, else linear).
    #[arg(long, value_name = "NAME")]
    pub material: Option<String>,
    /// The time step `dt`.
    #[serde(flatten)]
    #[command(flatten)]
    pub step: crate::Step,
    /// The model: `model`, `settings`, `nit`.
    #[serde(flatten)]
    #[command(flatten)]
    pub model: crate::Model,
    /// The model's parameters by name (repeatable; all of them unless --fit), e.g. `--param kd=0.4`.
    #[arg(long = "param", value_parser = crate::parse_named_value)]
    #[serde(serialize_with = "crate::ordered_map", deserialize_with = "crate::sorted_pairs")]
    pub params: Vec<(String, f64)>,
    /// Fit the model's rest state to the FEM first and release at the fitted parameters: how wrong the
    /// motion is at the stiffness that gives the right sag.
    #[arg(long)]
    pub fit: bool,
    /// Fit the parameters to the motion (the trajectory error, pattern search in the model's default box)
    /// from the rest-state fit (with --fit) or from --param: the best motion the model can give, and what it
    /// costs in sag.
    #[arg(long)]
    pub fit_motion: bool,
    /// PBD models' velocity damping per step in [0, 1) [default: 0].
    #[arg(long)]
    pub damping: Option<f64>,
    /// The FEM body's damping ratio in its first mode, in [0, 1) (mass-proportional Rayleigh damping,
    /// the form of an engine's linear damping); 0: the reference does not damp [default: 0].
    #[arg(long)]
    pub fem_damping: Option<f64>,
    /// Search the model's damping knob for the FEM's decay (needs --fem-damping): the engine's damping
    /// setting (Jolt's linear_damping, Newton's k_damp), else --damping; says so where the model's numerical
    /// damping alone is already too much.
    #[arg(long)]
    pub fit_damping: bool,
    /// The window in periods of the FEM's first mode [default: 5].
    #[arg(long)]
    pub periods: Option<f64>,
    /// How the body is released: gravity (undeformed at rest, the load switched on) or unload (at its
    /// loaded rest state, the load switched off) [default: gravity].
    #[arg(long, value_name = "gravity|unload")]
    pub release: Option<String>,
}

/// The parameters' option as `spelling` writes it: `--param` (repeated) on the command line, `params` in
/// Python.
fn params_option(spelling: Spelling) -> &'static str {
    match spelling {
        Spelling::Flag => "--param",
        Spelling::Keyword => "params",
    }
}

/// A job checked: the keywords and the release test they make.
#[derive(Debug)]
pub struct PreparedMotion {
    job: MotionKeywords,
    params: BTreeMap<String, f64>,
    spelling: Spelling,
    test: ReleaseTest,
    /// Warnings about the inputs (masses other than the engine's, with the rest-state difference they
    /// make), for the front end to print.
    pub warnings: Vec<String>,
}

impl MotionKeywords {
    /// Checks the job (naming a refused option in `spelling`): the model, the window's budget (before any
    /// step), and builds both problems.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedMotion, FitJobError> {
        let input = FitJobError::Input;
        let material = self.elastic.checked()?;
        let kind = self.model.kind(spelling)?;
        let params = crate::unique_pairs(params_option(spelling), &self.params)?;
        if !kind.has_projection() {
            return Err(input(format!(
                "model {kind}: its rest state is a Newton solve; the release test runs the projection models and \
                 engine profiles"
            )));
        }
        let (dt, nit) = (self.step.dt, self.model.nit);
        if !(dt.is_finite() && dt > 0.0) {
            return Err(input(format!("{} = {dt}: must be a finite number > 0", spelling.name("dt"))));
        }
        if nit == 0 {
            return Err(input(format!("{} must be at least 1", spelling.name("nit"))));
        }
        let damping = self.damping.unwrap_or(0.0);
        if !(0.0..1.0).contains(&damping) {
            return Err(input(format!("{} = {damping}: must be in [0, 1)", spelling.name("damping"))));
        }
        let fem_damping = self.fem_damping.unwrap_or(0.0);
        if !(0.0..1.0).contains(&fem_damping) {
            return Err(input(format!(
                "{} = {fem_damping}: the FEM's damping ratio must be in [0, 1)",
                spelling.name("fem_damping")
            )));
        }
        if self.fit_damping {
            if fem_damping == 0.0 {
                return Err(input(format!(
                    "{}: the FEM reference does not damp (give {} as its first mode's damping ratio, e.g. 0.02); \
                     the release report already says how much the model damps without a target",
                    spelling.name("fit_damping"),
                    spelling.name("fem_damping")
                )));
            }
            if !has_damping_knob(kind) {
                return Err(input(format!(
                    "{}: model {kind} has no damping setting (the engine damps only numerically)",
                    spelling.name("fit_damping")
                )));
            }
        }
        let release = match self.release.as_deref() {
            None => Release::Gravity,
            Some(name) => Release::parse(name).ok_or_else(|| {
                input(format!("{} = {name}: expected {}", spelling.name("release"), Release::names()))
            })?,
        };
        let periods = check_periods(self.periods.unwrap_or(DEFAULT_PERIODS))
            .map_err(|e| input(format!("{} = {e}", spelling.name("periods"))))?;
        let (set, _) = self.body.load(Some(kind), spelling)?;
        if set.is_compound() {
            return Err(input(format!("scene {}: the release test takes one part at a time", set.name())));
        }
        let n = self.body.resolution(&set, spelling)?;
        let reference = pbdfit_mesh::ReferenceOptions { material: self.material.clone(), ..Default::default() };
        let overrides = crate::checked_reference(&reference)?;
        let scene = &set.scenes()[0];
        let spec = crate::reference_spec(scene, &overrides).map_err(|e| input(e.to_string()))?;
        let body = scene.body(n).map_err(|e| input(e.to_string()))?;
        if !body.obstacles.is_empty() {
            return Err(input(format!("scene {} has obstacles: the release test has no contact yet", scene.name)));
        }
        let problem = StaticProblem::new(&body)
            .and_then(|p| p.with_masses(body.masses.clone()))
            .map_err(|e| input(format!("FEM problem of {} at N = {n}: {e}", scene.name)))?;
        let modes = problem
            .modes(spec.material, material, MassMatrix::Lumped, 1)
            .map_err(|e| input(format!("the first mode of {}: {e}", scene.name)))?;
        let omega = modes.angular[0];
        let mode = modes.shapes.into_iter().next().unwrap_or_default();
        let period = std::f64::consts::TAU / omega;
        if period / dt < MIN_STEPS_PER_PERIOD {
            return Err(input(format!(
                "{} = {dt} s is too coarse for the release test: the FEM's first mode has a period of {period:.4e} s \
                 ({:.4e} Hz), which a step of {dt} s samples {:.3} times; the test needs at least \
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
                 {:.0} FEM steps (at most {MAX_MODEL_STEPS} and {MAX_FEM_STEPS}); the first period is {period:.3e} s",
                spelling.name("periods"),
                model_steps * substeps
            )));
        }
        let given = self.body.mass_model().ok().flatten();
        let option = spelling.name("mass_model");
        let warnings = crate::mass_model_warning(&set, crate::Settings::new(dt, n, nit, kind), None, given, &option)
            .into_iter()
            .collect();
        let system = PbdSystem::new(&body);
        let unloaded = match release {
            Release::Gravity => None,
            Release::Unload => {
                let free =
                    Body { gravity: Vec3::zeros(), forces: vec![Vec3::zeros(); body.forces.len()], ..body.clone() };
                let problem = StaticProblem::new(&free)
                    .and_then(|p| p.with_masses(free.masses.clone()))
                    .map_err(|e| input(format!("FEM problem of {} unloaded: {e}", scene.name)))?;
                Some((problem, PbdSystem::new(&free)))
            }
        };
        let test = ReleaseTest {
            body,
            summary: scene.summary(),
            problem,
            system,
            release,
            unloaded,
            kind,
            spec,
            material,
            dt,
            nit,
            damping,
            fem_damping,
            omega,
            mode,
            model_steps: model_steps as usize,
            substeps: substeps as usize,
        };
        Ok(PreparedMotion { job: self.clone(), params, spelling, test, warnings })
    }
}

impl PreparedMotion {
    /// The body both sides release.
    pub fn body(&self) -> &Body {
        &self.test.body
    }

    /// The model's parameters: fitted (`fit`) or as given (every one named).
    fn parameters(&self) -> Result<(Vec<f64>, bool), FitJobError> {
        let spelling = self.spelling;
        let names: Vec<&str> = self.test.kind.parameters().iter().map(|p| p.name).collect();
        if self.job.fit {
            // The rest-state fit sets every parameter: a value given beside it would be ignored.
            if let Some((name, value)) = self.params.iter().next() {
                return Err(FitJobError::Input(format!(
                    "{} {name}={value} with {}: the rest-state fit sets every parameter of model {}, so a given \
                     value would be ignored; give the parameters without {} to release at them (with {} to fit \
                     the motion from them)",
                    params_option(spelling),
                    spelling.name("fit"),
                    self.test.kind,
                    spelling.name("fit"),
                    spelling.name("fit_motion")
                )));
            }
            let fit = crate::FitKeywords {
                body: crate::Body { n: Some(self.test.body.n), ..self.job.body.clone() },
                material: crate::Material {
                    young: Some(self.test.material.young()),
                    poisson: Some(self.test.material.poisson()),
                },
                step: self.job.step,
                model: self.job.model.clone(),
                reference: pbdfit_mesh::ReferenceOptions { material: self.job.material.clone(), ..Default::default() },
                ..Default::default()
            };
            let outcome = fit.job(spelling)?.prepare(spelling)?.run(&CpuBackend)?;
            return Ok((outcome.report.parameters.iter().map(|(_, v)| *v).collect(), true));
        }
        for given in self.params.keys() {
            if !names.contains(&given.as_str()) {
                return Err(FitJobError::Input(format!(
                    "{}: model {} has no parameter {given} (its parameters: {})",
                    params_option(spelling),
                    self.test.kind,
                    names.join(", ")
                )));
            }
        }
        let missing: Vec<&str> = names.iter().copied().filter(|n| !self.params.contains_key(*n)).collect();
        if !missing.is_empty() {
            return Err(FitJobError::Input(format!(
                "{}: give every parameter of model {} ({}), or {} to fit them",
                params_option(spelling),
                self.test.kind,
                missing.join(", "),
                spelling.name("fit")
            )));
        }
        Ok((names.iter().map(|n| self.params[*n]).collect(), false))
    }

    /// Runs the release test (and, with `fit_motion` or `fit_damping`, the fits first).
    pub fn run(self) -> Result<MotionReport, FitJobError> {
        self.run_with_frames(&mut |_, _, _| Ok(()))
    }

    /// [`Self::run`], handing every sample of the final release to `frames`: its time (s), the FEM's
    /// displacement field and the model's (m), in order; an error from `frames` stops the job with it.
    pub fn run_with_frames(self, frames: &mut FrameSink) -> Result<MotionReport, FitJobError> {
        let start = std::time::Instant::now();
        let (values, fitted) = self.parameters()?;
        self.test.run(start, values, fitted, self.job.fit_motion, self.job.fit_damping, frames)
    }
}
