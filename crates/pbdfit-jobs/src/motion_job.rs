//! One motion job, the release test: `pbdfit motion` and Python's `pbdfit.motion` fill a
//! [`MotionKeywords`], checked in one place ([`MotionKeywords::prepare`]) and run into a [`MotionReport`]
//! (`pbdfit motion --json`'s object; [`MotionReport::text`] is what the command prints). The test itself is
//! `pbdfit-fit`'s ([`ReleaseSetup`] builds it, as a study's motion pass does); the job adds the keywords'
//! checks and `fit`, the rest-state fit ([`FitKeywords`](crate::FitKeywords)) before the release.

use std::collections::BTreeMap;

use pbdfit_fit::{
    DEFAULT_PERIODS, FitJobError, FrameSink, MotionReport, Release, ReleaseSetup, ReleaseTest, SheetRelease, Spelling,
    check_periods, has_damping_knob,
};
use pbdfit_mesh::Body;
use pbdfit_pbd::CpuBackend;
use serde::Serialize;

use crate::{Context, Job, Report};

/// A release test, as the command line and Python ask it (the command line's options are these under
/// their flag names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct MotionKeywords {
    /// The body (one part): `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// The FEM's `young` and `poisson`.
    #[serde(flatten)]
    #[command(flatten)]
    pub elastic: pbdfit_fit::Material,
    /// The FEM law: linear, corotational, stvk or neo-hookean (default: the scene's, else linear).
    #[arg(long, value_name = "NAME")]
    pub material: Option<String>,
    /// The time step `dt`.
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    /// The model: `model`, `settings`, `nit`.
    #[serde(flatten)]
    #[command(flatten)]
    pub model: pbdfit_fit::Model,
    /// The model's parameters by name (repeatable; all of them unless --fit), e.g. `--param kd=0.4`.
    #[arg(long = "param", value_parser = pbdfit_fit::parse_named_value)]
    #[serde(serialize_with = "pbdfit_fit::ordered_map", deserialize_with = "pbdfit_fit::sorted_pairs")]
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

/// The release test of a solid, or of a sheet (a cloth model against the shell's transient).
#[derive(Debug)]
enum Test {
    Solid(Box<ReleaseTest>),
    Sheet(Box<SheetRelease>),
}

/// A job checked: the keywords and the release test they make.
#[derive(Debug)]
pub struct PreparedMotion {
    job: MotionKeywords,
    params: BTreeMap<String, f64>,
    spelling: Spelling,
    material: pbdfit_fem::YoungPoisson,
    test: Test,
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
        let params = pbdfit_fit::unique_pairs(params_option(spelling), &self.params)?;
        let (dt, nit) = (self.step.dt, self.model.nit);
        let damping = self.damping.unwrap_or(0.0);
        let fem_damping = self.fem_damping.unwrap_or(0.0);
        ReleaseSetup::check_model(kind, dt, nit, damping, fem_damping, spelling)?;
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
        let setup = ReleaseSetup {
            body: self.body.clone(),
            material,
            law: self.material.clone(),
            kind,
            dt,
            nit,
            damping,
            fem_damping,
            release,
            periods,
        };
        if pbdfit_mesh::SheetScene::names_sheet(&self.body.scene) {
            // A sheet: a gravity release at the given or the rest-state fit's parameters; the motion and
            // damping fits and the unload release are the solids' only.
            let given = [
                (self.fit_motion, "fit_motion"),
                (self.fit_damping, "fit_damping"),
                (release == Release::Unload, "release"),
            ];
            if let Some((_, option)) = given.iter().find(|(g, _)| *g) {
                return Err(input(format!(
                    "{}: a sheet's release test is a gravity release at the given or fitted parameters (no motion \
                     or damping fit, no unload release yet); scene {} is a sheet",
                    spelling.name(option),
                    self.body.scene
                )));
            }
            let pbdfit_fit::LoadedBody::Sheet(sheet) = self.body.load_any(Some(kind), self.elastic, spelling)? else {
                return Err(FitJobError::Internal(format!("scene {} named a sheet, loaded a solid", self.body.scene)));
            };
            let material = sheet.material;
            let test = Test::Sheet(Box::new(setup.sheet_test(*sheet, spelling)?));
            return Ok(PreparedMotion { job: self.clone(), params, spelling, material, test, warnings: Vec::new() });
        }
        let (test, warnings) = setup.test(spelling)?;
        Ok(PreparedMotion { job: self.clone(), params, spelling, material, test: Test::Solid(Box::new(test)), warnings })
    }
}

impl PreparedMotion {
    /// The body both sides release: a solid's (`None` for a sheet).
    pub fn body(&self) -> Option<&Body> {
        match &self.test {
            Test::Solid(test) => Some(test.body()),
            Test::Sheet(_) => None,
        }
    }

    fn kind(&self) -> pbdfit_pbd::ModelKind {
        match &self.test {
            Test::Solid(test) => test.kind(),
            Test::Sheet(test) => test.kind(),
        }
    }

    /// The model's parameters: fitted (`fit`) or as given (every one named).
    fn parameters(&self) -> Result<(Vec<f64>, bool), FitJobError> {
        let spelling = self.spelling;
        let names: Vec<&str> = self.kind().parameters().iter().map(|p| p.name).collect();
        if self.job.fit {
            // The rest-state fit sets every parameter: a value given beside it would be ignored.
            if let Some((name, value)) = self.params.iter().next() {
                return Err(FitJobError::Input(format!(
                    "{} {name}={value} with {}: the rest-state fit sets every parameter of model {}, so a given \
                     value would be ignored; give the parameters without {} to release at them (with {} to fit \
                     the motion from them)",
                    params_option(spelling),
                    spelling.name("fit"),
                    self.kind(),
                    spelling.name("fit"),
                    spelling.name("fit_motion")
                )));
            }
            let fit = crate::FitKeywords {
                body: pbdfit_fit::Body { n: self.body().map(|b| b.n).or(self.job.body.n), ..self.job.body.clone() },
                material: pbdfit_fit::Material {
                    young: Some(self.material.young()),
                    poisson: Some(self.material.poisson()),
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
                    self.kind(),
                    names.join(", ")
                )));
            }
        }
        let missing: Vec<&str> = names.iter().copied().filter(|n| !self.params.contains_key(*n)).collect();
        if !missing.is_empty() {
            return Err(FitJobError::Input(format!(
                "{}: give every parameter of model {} ({}), or {} to fit them",
                params_option(spelling),
                self.kind(),
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
        match &self.test {
            Test::Solid(test) => test.run(start, values, fitted, self.job.fit_motion, self.job.fit_damping, frames),
            Test::Sheet(test) => test.run(start, values, fitted, frames),
        }
    }
}

impl Job for MotionKeywords {
    const NAME: &'static str = "motion";
    const ABOUT: &'static str = "The release test: the FEM body (Newmark, no numerical damping) against a model at \
        your dt and iterations, from rest under gravity: frequency, damping and trajectory error";
    const EXAMPLE: &'static [&'static str] =
        &["--scene", "gravity-wall", "--n", "1", "--param", "kd=0.5", "--param", "kv=0.5", "--dt", "0.005"];
    type Prepared = PreparedMotion;
    type Report = MotionReport;

    fn prepare(&self, spelling: Spelling) -> Result<PreparedMotion, FitJobError> {
        MotionKeywords::prepare(self, spelling)
    }

    fn run(prepared: PreparedMotion, context: &mut Context<'_>) -> Result<MotionReport, FitJobError> {
        prepared.run_with_frames(context.frames)
    }
}

impl Report for MotionReport {
    fn text(&self) -> String {
        MotionReport::text(self)
    }
}
