//! One motion job, the release test: `pbdfit motion` and Python's `pbdfit.motion` fill a
//! [`MotionKeywords`], checked in one place ([`MotionKeywords::prepare`]) and run into a [`MotionReport`]
//! (`pbdfit motion --json`'s object; [`MotionReport::text`] is what the command prints).

use std::collections::BTreeMap;

use pbdfit_fem::{MassMatrix, ReferenceOverrides, StaticProblem};
use pbdfit_mesh::{Body, Vec3};
use pbdfit_pbd::{CpuBackend, ModelKind, PbdSystem};
use serde::Serialize;

use crate::motion::{
    DEFAULT_PERIODS, FEM_STEPS_PER_PERIOD, FrameSink, MAX_FEM_STEPS, MAX_MODEL_STEPS, MIN_STEPS_PER_PERIOD,
    MotionReport, Release, ReleaseTest, check_periods, has_damping_knob,
};
use crate::{FitJobError, Spelling};

/// A release test, as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct MotionKeywords {
    /// A built-in scene name or a scene file (one part).
    pub scene: String,
    /// Mesh resolution (default: the scene's own).
    pub n: Option<usize>,
    /// `lumped` or `uniform`.
    pub mass_model: Option<String>,
    /// Reorient an imported mesh's negatively oriented tetrahedra.
    pub fix_orientation: bool,
    /// The body's density and size over the scene's (`density`, `size`).
    #[serde(flatten)]
    pub body: crate::BodyKeywords,
    /// Young's modulus in Pa (default 1e3).
    pub young: Option<f64>,
    /// Poisson ratio (default 0.3).
    pub poisson: Option<f64>,
    /// The FEM law (default: the scene's, else linear).
    pub material: Option<String>,
    /// The model (default `pbd`).
    pub model: Option<String>,
    /// An engine profile's settings by the engine's names.
    pub settings: BTreeMap<String, f64>,
    /// The model's parameters by name (all of them, unless `fit`).
    pub params: BTreeMap<String, f64>,
    /// Fit the model's rest state to the FEM's first (`pbdfit fit`'s defaults) and release at the fitted
    /// parameters: how wrong the motion is at the stiffness that gives the right sag.
    pub fit: bool,
    /// Fit the parameters to the motion instead (the trajectory error, by pattern search in the model's
    /// default box, from the rest-state fit, or from `params`): the best motion the model can give, and what
    /// it costs in sag.
    pub fit_motion: bool,
    /// Time step in s (default 0.01).
    pub dt: Option<f64>,
    /// Solver iterations per step (default 1).
    pub nit: Option<usize>,
    /// PBD models' velocity damping per step in [0, 1) (default 0).
    pub damping: Option<f64>,
    /// The FEM body's own damping, as the damping ratio of its first mode in [0, 1) (default 0: none):
    /// mass-proportional Rayleigh damping `C = a M` with `a = 2 zeta omega_1`, the form of an engine's
    /// linear damping. With it the reference decays as the material would; without it, not at all.
    pub fem_damping: Option<f64>,
    /// Search the model's damping knob for the FEM's decay (the damping ratio of the release), at the
    /// stiffness the other options give: the engine's damping setting where it has one (Jolt's
    /// `linear_damping`, Newton's `k_damp`), else pbdfit's velocity damping per step (`damping`). Where the
    /// model's numerical damping alone exceeds the reference's, no setting can fix it and the report says so.
    pub fit_damping: bool,
    /// The window in periods of the FEM's first mode (default [`DEFAULT_PERIODS`]).
    pub periods: Option<f64>,
    /// How the body is released: `gravity` (default: undeformed at rest, the load switched on at t = 0) or
    /// `unload` (each body at its own loaded rest state, the load switched off at t = 0).
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
    test: ReleaseTest,
    /// Warnings about the inputs (masses other than the engine's, with the rest-state difference they
    /// make), for the front end to print.
    pub warnings: Vec<String>,
}

impl MotionKeywords {
    /// The keywords' names (Python's spelling).
    pub fn names() -> Vec<String> {
        crate::keyword_names::<MotionKeywords>()
    }

    /// The job from a JSON object of its keywords (Python's call), unknown keywords refused.
    pub fn from_json(text: &str) -> Result<Self, String> {
        crate::keywords_from_json(text)
    }

    /// Checks the job (naming a refused option in `spelling`): the model, the window's budget (before any
    /// step), and builds both problems.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedMotion, FitJobError> {
        let input = FitJobError::Input;
        let material = crate::Material { young: self.young, poisson: self.poisson }.checked()?;
        let kind: ModelKind = self
            .model
            .as_deref()
            .unwrap_or("pbd")
            .parse()
            .map_err(|e| input(format!("{}: {e}", spelling.name("model"))))?;
        let settings: Vec<(String, f64)> = self.settings.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let kind = kind.with_settings(&settings).map_err(|e| input(format!("{}: {e}", spelling.name("settings"))))?;
        if !kind.has_projection() {
            return Err(input(format!(
                "model {kind}: its rest state is a Newton solve; the release test runs the projection models and \
                 engine profiles"
            )));
        }
        let dt = self.dt.unwrap_or(crate::DT);
        if !(dt.is_finite() && dt > 0.0) {
            return Err(input(format!("{} = {dt}: must be a finite number > 0", spelling.name("dt"))));
        }
        let nit = self.nit.unwrap_or(1);
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
        let (set, _) = crate::keywords::load_scene(
            &self.scene,
            self.fix_orientation,
            self.mass_model.as_deref(),
            self.body,
            Some(kind),
            spelling,
        )?;
        if set.is_compound() {
            return Err(input(format!("scene {}: the release test takes one part at a time", set.name())));
        }
        let n = set.resolution(self.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
        let reference = crate::ReferenceKeywords { material: self.material.clone(), ..Default::default() };
        let overrides = ReferenceOverrides::from_table(&reference.table())
            .map_err(|e| input(format!("the reference options: {e}")))?;
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
        let given = self.mass_model.as_deref().and_then(|m| m.parse().ok());
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
        Ok(PreparedMotion { job: self.clone(), test, warnings })
    }
}

impl PreparedMotion {
    /// The body both sides release.
    pub fn body(&self) -> &Body {
        &self.test.body
    }

    /// The model's parameters: fitted (`fit`) or as given (every one named).
    fn parameters(&self, spelling: Spelling) -> Result<(Vec<f64>, bool), FitJobError> {
        let names: Vec<&str> = self.test.kind.parameters().iter().map(|p| p.name).collect();
        if self.job.fit {
            // The rest-state fit sets every parameter: a value given beside it would be ignored.
            if let Some((name, value)) = self.job.params.iter().next() {
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
                scene: self.job.scene.clone(),
                n: Some(self.test.body.n),
                mass_model: self.job.mass_model.clone(),
                fix_orientation: self.job.fix_orientation,
                body: self.job.body,
                young: Some(self.test.material.young()),
                poisson: Some(self.test.material.poisson()),
                dt: Some(self.test.dt),
                nit: Some(self.test.nit),
                model: self.job.model.clone(),
                settings: self.job.settings.clone(),
                reference: crate::ReferenceKeywords { material: self.job.material.clone(), ..Default::default() },
                ..Default::default()
            };
            let outcome = fit.job()?.prepare(spelling)?.run(&CpuBackend)?;
            return Ok((outcome.report.parameters.iter().map(|(_, v)| *v).collect(), true));
        }
        for given in self.job.params.keys() {
            if !names.contains(&given.as_str()) {
                return Err(FitJobError::Input(format!(
                    "{}: model {} has no parameter {given} (its parameters: {})",
                    params_option(spelling),
                    self.test.kind,
                    names.join(", ")
                )));
            }
        }
        let missing: Vec<&str> = names.iter().copied().filter(|n| !self.job.params.contains_key(*n)).collect();
        if !missing.is_empty() {
            return Err(FitJobError::Input(format!(
                "{}: give every parameter of model {} ({}), or {} to fit them",
                params_option(spelling),
                self.test.kind,
                missing.join(", "),
                spelling.name("fit")
            )));
        }
        Ok((names.iter().map(|n| self.job.params[*n]).collect(), false))
    }

    /// Runs the release test (and, with `fit_motion` or `fit_damping`, the fits first).
    pub fn run(self, spelling: Spelling) -> Result<MotionReport, FitJobError> {
        self.run_with_frames(spelling, &mut |_, _, _| Ok(()))
    }

    /// [`Self::run`], handing every sample of the final release to `frames`: its time (s), the FEM's
    /// displacement field and the model's (m), in order; an error from `frames` stops the job with it.
    pub fn run_with_frames(self, spelling: Spelling, frames: &mut FrameSink) -> Result<MotionReport, FitJobError> {
        let start = std::time::Instant::now();
        let (values, fitted) = self.parameters(spelling)?;
        self.test.run(start, values, fitted, self.job.fit_motion, self.job.fit_damping, frames)
    }
}
