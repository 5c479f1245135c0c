//! One fit job and its report: what `pbdfit fit` and Python's `pbdfit.fit` ask (a [`FitJob`]), checked in
//! one place ([`FitJob::prepare`]), run in one place ([`PreparedFit::run`]) and answered by one serialisable
//! [`FitReport`]. The command line prints the report ([`FitReport::text`]) or its JSON (`--json` is the
//! report); Python returns the same JSON as a dict. Before this, each front end built the problem, ran the
//! fit and shaped the result itself, and the copies drifted apart (field names, options Python lacked).
//!
//! A front end fills the job from its own spelling of the options and gives its [`Spelling`], so that a
//! refused input is named as the user typed it (`--young` on the command line, `young` in Python).

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::builder::TypedValueParser;
use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{Markers, MassModel, SceneSet};
use pbdfit_pbd::{ModelKind, Precision, RestStateBackend};
use serde::Serialize;

use crate::{Context, Job, Report};
use pbdfit_fit::{
    Bootstrap, FitJobError, FitOptions, FitProblem, FitRequest, FitResult, MARKER_TOLERANCE, PartCache, Search,
    SearchBox, Settings, Spelling, start_from_pairs,
};

/// Everything one fit is asked: the scene, the material or the measured markers it is compared with, the
/// model and its step, and the search ([`FitRequest`]). `None` leaves an option at its default.
#[derive(Debug, Clone)]
pub struct FitJob {
    /// A built-in scene name or a scene file.
    pub scene: String,
    /// Mesh resolution (default: the scene's).
    pub n: Option<usize>,
    /// Replaces the scene's mass model (`None`: the scene file's, else the model's engine's, else lumped:
    /// [`resolve_mass_model`](pbdfit_fit::resolve_mass_model)).
    pub mass_model: Option<MassModel>,
    /// Reorient an imported mesh's negatively oriented tetrahedra instead of refusing the mesh.
    pub fix_orientation: bool,
    /// The body's density and size over the scene's; a size is refused with measured markers.
    pub body: pbdfit_fit::BodyKeywords,
    /// Young's modulus of the FEM reference in Pa (default 1e3); refused with measured markers.
    pub young: Option<f64>,
    /// Poisson ratio of the FEM reference (default 0.3); refused with measured markers.
    pub poisson: Option<f64>,
    /// Time step in s.
    pub dt: f64,
    /// Solver iterations per step (an engine profile's own count).
    pub nit: usize,
    /// The FEM reference's options given by the user (unset: the scene's); refused with measured markers.
    pub reference: pbdfit_mesh::ReferenceOptions,
    /// Markers to fit instead of the FEM (default: the scene's `[reference] measured`).
    pub measured: Option<PathBuf>,
    /// Refits of resampled marker noise (needs markers).
    pub bootstrap: Option<usize>,
    /// The model (with its settings) and the search.
    pub request: FitRequest,
    /// The model's arithmetic.
    pub precision: Precision,
}

impl FitJob {
    /// A job with every option at its default: the model and scene given, dt 0.01 s, nit 1.
    pub fn new(scene: &str, kind: ModelKind) -> Self {
        FitJob {
            scene: scene.to_string(),
            n: None,
            mass_model: None,
            fix_orientation: false,
            body: pbdfit_fit::BodyKeywords::default(),
            young: None,
            poisson: None,
            dt: pbdfit_fit::DT,
            nit: 1,
            reference: pbdfit_mesh::ReferenceOptions::default(),
            measured: None,
            bootstrap: None,
            request: FitRequest::new(kind),
            precision: Precision::F64,
        }
    }

    /// Checks everything and builds the problem, before any rest state is computed: the search options,
    /// the scene, the markers or the material, the reference options, the model's parameters at the box's
    /// corner. A refused input is [`FitJobError::Input`], naming the option in `spelling`.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedFit, FitJobError> {
        let input = |message: String| FitJobError::Input(message);
        let kind = self.request.kind;
        let options = self.request.options(Search::FIT_DEFAULT).map_err(|e| match e.option {
            // A box error names the box itself.
            pbdfit_fit::FitOption::Box(_) => input(e.message),
            _ => input(format!(
                "{} {}",
                match spelling {
                    Spelling::Flag => e.option.flag(),
                    Spelling::Keyword => e.option.keyword(),
                },
                e.message
            )),
        })?;
        let body = pbdfit_fit::Body {
            scene: self.scene.clone(),
            n: self.n,
            mass_model: self.mass_model.map(|m| m.name().to_string()),
            fix_orientation: self.fix_orientation,
            scale: self.body,
        };
        let material = pbdfit_fit::Material { young: self.young, poisson: self.poisson };
        let (set, notes) = match body.load_any(Some(kind), material, spelling)? {
            pbdfit_fit::LoadedBody::Sheet(sheet) => return self.prepare_sheet(*sheet, options, spelling),
            pbdfit_fit::LoadedBody::Solid { set, notes } => (set, notes),
        };
        pbdfit_fit::check_solid_model(kind, set.name())?;
        let n = set.resolution(self.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
        // The file given, else the one the scene names as its reference (the target seam's one resolution).
        let target = pbdfit_fit::resolve_target(&set, self.measured.as_deref()).map_err(FitJobError::Fit)?;
        if !target.kind.uses_fem() && self.body.size.is_some() {
            return Err(input(format!(
                "{} scales the body, but the reference is {}, measured on the body as the scene gives it (give the \
                 mesh at the markers' scale instead)",
                spelling.name("size"),
                target.describe()
            )));
        }
        if !target.kind.uses_fem() && (self.young.is_some() || self.poisson.is_some()) {
            return Err(input(format!(
                "{} and {} set the FEM reference's material, but the reference is {} (to fit to an FEM of an \
                 identified material, pass the scene without it)",
                spelling.name("young"),
                spelling.name("poisson"),
                target.describe()
            )));
        }
        if !target.kind.uses_fem()
            && let Some(option) = self.reference.given().first()
        {
            // Another target replaces the FEM, so its options would be ignored (`--material stvk`).
            return Err(input(format!(
                "{} sets the FEM reference, but the reference is {}: leave it out (to identify E and nu of an FEM \
                 law from the markers, use `pbdfit identify --material ...`)",
                spelling.name(option),
                target.describe()
            )));
        }
        let (young, poisson) = pbdfit_fit::Material { young: self.young, poisson: self.poisson }.values();
        let material = YoungPoisson::new(young, poisson).map_err(|e| input(e.to_string()))?;
        let mut warnings = Vec::new();
        if target.kind.uses_fem()
            && let Some(warning) = material.locking_warning()
        {
            warnings.push(warning.to_string());
        }
        let settings =
            Settings { allow_unbounded: self.request.unbounded, ..Settings::new(self.dt, n, self.nit, kind) };
        let corner: Vec<f64> = options.search_box.axes().iter().map(|a| a.upper).collect();
        settings.at(&corner).validate().map_err(|e| input(e.to_string()))?;
        // Checked after the settings, whose refusal names the option at fault.
        let option = spelling.name("mass_model");
        let mass_warning = pbdfit_fit::mass_model_warning(&set, settings, None, self.mass_model, &option);
        let cache = PartCache::new(pbdfit_fit::checked_reference(&self.reference)?);
        if self.bootstrap.is_some() && !target.kind.resamples() {
            return Err(input(format!(
                "{} needs {} (it resamples the markers' noise)",
                spelling.name("bootstrap"),
                spelling.name("measured")
            )));
        }
        if let Some(k) = self.bootstrap {
            pbdfit_fit::check_bootstrap(k).map_err(|e| input(format!("{} {e}", spelling.name("bootstrap"))))?;
        }
        let problem = target.problem(&set, settings, material, &cache).map_err(FitJobError::Fit)?;
        if let Some(warning) = mass_warning {
            // The FEM's loads follow the masses too (all of the difference where the model's step ignores them).
            let engine = kind.engine_masses().unwrap_or(pbdfit_mesh::MassModel::Uniform);
            let theirs = target.problem(&set.clone().with_mass_model(engine), settings, material, &cache);
            let reference = match theirs.ok().and_then(|t| pbdfit_fit::field_difference(&problem, &t)) {
                Some(d) => format!(", the FEM reference's by {d:.2e}"),
                None => String::new(),
            };
            warnings.push(warning.replacen(" (relative L2)", &format!(" (relative L2){reference}"), 1));
        }
        let problem = FitProblem { rest_options: self.precision.rest_options(), ..problem };
        // The material means nothing where the target is not the FEM.
        let (young, poisson) = if target.kind.uses_fem() { (Some(young), Some(poisson)) } else { (None, None) };
        let body = FitBody::Solid(set);
        Ok(PreparedFit { job: self.clone(), body, n, young, poisson, options, cache, problem, notes, warnings })
    }

    /// [`prepare`](Self::prepare) on a sheet scene: a cloth model against the sheet's shell reference
    /// ([`sheet_problem`](pbdfit_fit::sheet_problem)); a solid model, markers and a bootstrap refused.
    fn prepare_sheet(
        &self,
        loaded: pbdfit_fit::LoadedSheet,
        options: FitOptions,
        spelling: Spelling,
    ) -> Result<PreparedFit, FitJobError> {
        let input = |message: String| FitJobError::Input(message);
        let kind = self.request.kind;
        let pbdfit_fit::LoadedSheet { scene, body: sheet, material } = loaded;
        pbdfit_fit::check_cloth_model(kind, &scene.name)?;
        pbdfit_fit::check_fitted_parameters(kind)?;
        if let Some(option) = [(self.measured.is_some(), "measured"), (self.bootstrap.is_some(), "bootstrap")]
            .iter()
            .find_map(|(given, name)| given.then_some(*name))
        {
            return Err(input(format!(
                "{}: scene {} is a sheet, fitted to its shell reference only (no measured markers on sheets yet)",
                spelling.name(option),
                scene.name
            )));
        }
        let reference = pbdfit_fit::ShellReference::of_job(&self.reference, &scene, spelling)?;
        let settings =
            Settings { allow_unbounded: self.request.unbounded, ..Settings::new(self.dt, sheet.n, self.nit, kind) };
        let corner: Vec<f64> = options.search_box.axes().iter().map(|a| a.upper).collect();
        settings.at(&corner).validate().map_err(|e| input(e.to_string()))?;
        let (problem, clamp) =
            pbdfit_fit::sheet_problem_with_note(&sheet, settings, material, reference).map_err(FitJobError::Fit)?;
        let problem = FitProblem { rest_options: self.precision.rest_options(), ..problem };
        Ok(PreparedFit {
            job: self.clone(),
            n: sheet.n,
            body: FitBody::Sheet(Box::new(scene)),
            young: Some(material.young()),
            poisson: Some(material.poisson()),
            options,
            cache: PartCache::new(Default::default()),
            problem,
            notes: Vec::new(),
            warnings: clamp.into_iter().collect(),
        })
    }
}

/// A job checked and its problem built ([`FitJob::prepare`]), ready to run.
#[derive(Debug)]
pub struct PreparedFit {
    job: FitJob,
    /// The body fitted: a solid scene or a sheet.
    pub body: FitBody,
    /// The mesh resolution.
    pub n: usize,
    young: Option<f64>,
    poisson: Option<f64>,
    /// The fit's options (box, search, budgets).
    pub options: FitOptions,
    cache: PartCache,
    /// The problem the fit minimises.
    pub problem: FitProblem,
    /// What the front end should tell the user on its way (an imported mesh's size and repairs).
    pub notes: Vec<String>,
    /// Warnings about the inputs (a nearly incompressible material's locking).
    pub warnings: Vec<String>,
}

/// The body a fit runs on.
#[derive(Debug, Clone)]
pub enum FitBody {
    /// A solid scene (with the job's mass model, density and size), every part of a compound.
    Solid(SceneSet),
    /// A sheet scene (with the job's body), for a cloth model.
    Sheet(Box<pbdfit_mesh::SheetScene>),
}

impl FitBody {
    /// The solid scene, where the body is one.
    pub fn solid(&self) -> Option<&SceneSet> {
        match self {
            FitBody::Solid(set) => Some(set),
            FitBody::Sheet(_) => None,
        }
    }

    /// Each part's size, density and mass.
    pub fn summaries(&self) -> Vec<pbdfit_mesh::BodySummary> {
        match self {
            FitBody::Solid(set) => set.bodies(),
            FitBody::Sheet(sheet) => vec![sheet.summary()],
        }
    }

    /// The masses' name under `kind` (a sheet's are lumped unless the model's engine gives every particle
    /// the same, [`ModelKind::sheet_masses`]).
    pub fn mass_model(&self, kind: ModelKind) -> &'static str {
        self.solid().map_or_else(|| kind.sheet_masses().name(), |s| s.scenes()[0].mass_model().name())
    }
}

impl PreparedFit {
    /// The measured markers, when the target is markers (the statistics only they have read them).
    pub fn markers(&self) -> Option<&Markers> {
        self.problem.parts.first().and_then(|p| p.target.markers()).map(|t| &t.markers)
    }

    /// Grid points of the search's grid (the rest states computed before the search).
    pub fn grid_points(&self) -> usize {
        self.options.resolution().pow(self.options.search_box.dimensions() as u32)
    }

    /// Runs the fit (and the bootstrap, when asked) on `backend`.
    pub fn run(self, backend: &dyn RestStateBackend) -> Result<FitOutcome, FitJobError> {
        let result = pbdfit_fit::fit(&self.problem, &self.options, backend).map_err(FitJobError::Fit)?;
        let bootstrap = match (self.job.bootstrap, self.markers(), self.body.solid()) {
            (Some(k), Some(markers), Some(set)) => {
                let rest = result
                    .rest_states
                    .first()
                    .ok_or_else(|| FitJobError::Internal("a fit without rest state".into()))?;
                // The time limit bounds the fit and its refits together: the refits get what the fit left.
                let left = FitOptions {
                    max_seconds: self.options.max_seconds.map(|s| (s - result.seconds).max(0.0)),
                    ..self.options.clone()
                };
                Some(
                    pbdfit_fit::bootstrap(
                        set,
                        self.problem.settings,
                        markers,
                        MARKER_TOLERANCE,
                        &self.cache,
                        &left,
                        rest,
                        k,
                        BOOTSTRAP_SEED,
                    )
                    .map_err(FitJobError::Fit)?,
                )
            }
            _ => None,
        };
        let report = FitReport::new(&self, &result, bootstrap.as_ref(), &backend.name());
        Ok(FitOutcome { report, result, prepared: self })
    }
}

/// The bootstrap's seed: the same K gives the same numbers, on every front end.
pub const BOOTSTRAP_SEED: u64 = 0x5EED;

/// A finished fit: its report, and the fit itself for what a front end writes besides (ParaView files).
#[derive(Debug)]
pub struct FitOutcome {
    /// What the user is told.
    pub report: FitReport,
    /// The fit (rest states at the fitted point, the search path).
    pub result: FitResult,
    /// The job as prepared (scene, problem, markers).
    pub prepared: PreparedFit,
}

/// One axis of the search box in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoxAxis {
    /// Lower bound in the parameter's unit.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// The parameter's unit.
    pub unit: &'static str,
    /// `linear` or `log10`.
    pub scale: String,
}

/// How many of a gradient search's starts reached the minimum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Starts {
    /// Descents made.
    pub total: usize,
    /// Descents that ended within [`REACHED`](pbdfit_fit::REACHED) of the best error.
    pub reached_minimum: usize,
}

/// An engine profile's answer in the engine's terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineAnswer {
    /// The engine's settings the fit ran with, by the engine's names.
    pub settings: BTreeMap<String, f64>,
    /// What `nit` is in the engine.
    pub nit_means: &'static str,
    /// The lines to paste into the engine.
    pub paste: Vec<String>,
    /// Where a line gives the engine other parameters than the fitted ones (Godot's clamped or rounded
    /// stiffness, no volume constraint): the error those leave.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pasted: Vec<PastedError>,
    /// Where the engine reads the order the program creates the constraints in (Jolt): how far other
    /// orders move the rest state and the error at the fitted point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orders: Option<pbdfit_fit::OrderSpread>,
    /// Which rest state the answer is of: the one stepping from the scene's start reaches (the engine's own
    /// dynamics), how far the fixed point's is, and the fixed point's fit where it rested elsewhere and the
    /// fit was made again with stepped rest states (`pbdfit_fit::check_by_stepping`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest_state: Option<pbdfit_fit::EngineRest>,
}

/// The error a paste line's own parameters leave, where they differ from the fitted ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PastedError {
    /// The line (`Godot SoftBody3D`).
    pub line: String,
    /// The parameters it gives the engine, by name.
    pub parameters: BTreeMap<String, f64>,
    /// The profile's settings it changes (Godot's sheet: `bend` 2, none, and `masses` 1, uniform), by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, f64>,
    /// The error at them; `None` where they have no rest state.
    pub error: Option<f64>,
    /// Why they have no rest state, where they have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// The identifiability of the fitted point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentifiabilityReport {
    /// The error's Hessian in unit search coordinates, row by row.
    pub hessian: Vec<f64>,
    /// Its condition number; `None` where it is not positive definite (a direction the error does not
    /// rise in: not determined).
    pub condition: Option<f64>,
    /// Each parameter's range in which the error stays within 1 % of the minimum.
    pub ranges_1_percent: BTreeMap<String, [f64; 2]>,
    /// Whether those ranges say anything: `false` where one collapses to the fitted point or spans the
    /// whole search box ([`pbdfit_fit::ranges_without_information`]), and then `ranges_note` says why.
    pub ranges_informative: bool,
    /// Why the ranges carry no information (absent where they do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranges_note: Option<String>,
    /// Error evaluations spent on it.
    pub evaluations: usize,
}

/// The bootstrap of a fit to markers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapReport {
    /// Each parameter's 2.5 % and 97.5 % quantiles over the refits; `None` with fewer than
    /// [`MIN_BOOTSTRAP`](pbdfit_fit::MIN_BOOTSTRAP) refits.
    pub bootstrap_95: Option<BTreeMap<String, [f64; 2]>>,
    /// Refits made.
    pub bootstrap_replicates: usize,
    /// Refits that failed.
    pub bootstrap_failed: usize,
    /// Refits asked for.
    pub bootstrap_asked: usize,
    /// The noise added per component (m).
    pub bootstrap_noise: f64,
    /// Whether the quantiles come from fewer than [`BOOTSTRAP_QUANTILES`](pbdfit_fit::BOOTSTRAP_QUANTILES)
    /// refits (interpolated between the extremes: rough).
    pub bootstrap_rough: bool,
    /// Why the refits stopped before the number asked (the time limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap_stopped: Option<String>,
}

/// What a fit found and how it was made: the one report of `pbdfit fit` (its `--json` is this) and of
/// Python's `pbdfit.fit`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    /// The scene (a compound's name for a compound).
    pub scene: String,
    /// Each part's body: its size, density and mass.
    pub body: Vec<pbdfit_mesh::BodySummary>,
    /// The model with its settings (`newton-xpbd[relaxation=0.3]`).
    pub model: String,
    /// Fitted parameters by name, in the model's units and order (a JSON object in that order).
    #[serde(serialize_with = "pbdfit_fit::ordered_map")]
    pub parameters: Vec<(String, f64)>,
    /// The error at the fitted point (compound: the norm of the parts').
    pub error: f64,
    /// Each part's error, in the parts' order (a JSON object in that order).
    #[serde(serialize_with = "pbdfit_fit::ordered_map")]
    pub scene_errors: Vec<(String, f64)>,
    /// Distinct error evaluations.
    pub evaluations: usize,
    /// Evaluations without a rest state.
    pub failed_evaluations: usize,
    /// What the first failed evaluation was and why (empty without one).
    pub failures: String,
    /// Parameters on the search box's edge.
    pub at_bound: Vec<String>,
    /// Of those, the ones at the model's own limit, with their value (`kd = 1`): widening the box cannot
    /// help them.
    pub at_model_limit: Vec<String>,
    /// Wall-clock seconds of the fit.
    pub seconds: f64,
    /// The search box, by parameter.
    #[serde(rename = "box")]
    pub search_box: BTreeMap<String, BoxAxis>,
    /// The box in words (`kd in [0, 1], kv in [0, 1]`).
    pub box_text: String,
    /// Mesh resolution.
    pub n: usize,
    /// Time step in s.
    pub dt: f64,
    /// Solver iterations per step.
    pub nit: usize,
    /// The FEM reference's Young's modulus in Pa (`None` with measured markers).
    pub young: Option<f64>,
    /// The FEM reference's Poisson ratio (`None` with measured markers).
    pub poisson: Option<f64>,
    /// The mass model.
    pub mass_model: String,
    /// What the model was compared with (the FEM reference's id, or the markers).
    pub reference: String,
    /// The model's arithmetic.
    pub precision: String,
    /// Where the rest states were computed.
    pub backend: String,
    /// The pbdfit that made it.
    pub pbdfit_version: String,
    /// Grid points computed before the search.
    pub grid_points: usize,
    /// Moves of the search after its grid.
    pub search_moves: usize,
    /// `gradient` or `pattern`.
    pub search: String,
    /// The gradient search's starts.
    pub starts: Starts,
    /// `converged`, or `budget` when the evaluations or the time ran out.
    pub status: String,
    /// `answer`, or `cannot_reproduce` when the best point is no answer (no better than a body that
    /// does not deform, or most points without a rest state: [`pbdfit_fit::verdict::judge`]).
    pub verdict: String,
    /// Why the verdict is `cannot_reproduce`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_reason: Option<String>,
    /// Why the fit stopped before converging.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Where the search's minimum had no stable rest state as `simulate` solves it: what happened (the
    /// result is the best earlier point of the search's path that has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<String>,
    /// An engine profile's answer in the engine's terms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineAnswer>,
    /// A gradient fit to markers: each parameter's 95 % interval (Gauss-Newton).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals_95: Option<BTreeMap<String, [f64; 2]>>,
    /// How well the fitted point is determined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifiability: Option<IdentifiabilityReport>,
    /// The bootstrap, when asked.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<BootstrapReport>,
    /// PBD's stiffness at the top level too (the format before models had named parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kd: Option<f64>,
    /// PBD's volume stiffness at the top level too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv: Option<f64>,
    /// Warnings about the inputs (a nearly incompressible material's locking, masses other than the
    /// engine's with the rest-state difference they make), as the command line prints them before the fit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Whether the scene is a compound (the text lists its parts' errors).
    #[serde(skip)]
    pub compound: bool,
}

impl FitReport {
    fn new(prepared: &PreparedFit, result: &FitResult, bootstrap: Option<&Bootstrap>, backend: &str) -> Self {
        let job = &prepared.job;
        let kind = job.request.kind;
        let search_box: &SearchBox = &prepared.options.search_box;
        let by_name = |ranges: &[(f64, f64)]| -> BTreeMap<String, [f64; 2]> {
            result.parameters.iter().zip(ranges).map(|((n, _), (lo, hi))| (n.to_string(), [*lo, *hi])).collect()
        };
        let values: Vec<f64> = result.parameters.iter().map(|(_, v)| *v).collect();
        let paste = kind.with(&values).map(|m| m.usage(job.dt, job.nit)).unwrap_or_default();
        let engine = (!paste.is_empty()).then(|| EngineAnswer {
            settings: kind.settings().into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
            nit_means: kind.nit_means(),
            paste,
            pasted: kind
                .pasted_bodies(&values)
                .into_iter()
                .map(|(line, godot, at)| {
                    let mut problem = prepared.problem.clone();
                    problem.settings.kind = godot;
                    let e = problem.evaluate(&at, None);
                    let settings = godot.settings().into_iter().filter(|s| !kind.settings().contains(s));
                    PastedError {
                        line: line.to_string(),
                        parameters: result.parameters.iter().map(|(n, _)| n.to_string()).zip(at).collect(),
                        settings: settings.map(|(n, v)| (n.to_string(), v)).collect(),
                        error: e.failure.is_none().then_some(e.error),
                        failure: e.failure.map(|f| f.to_string()),
                    }
                })
                .collect(),
            orders: result
                .error
                .is_finite()
                .then(|| pbdfit_fit::order_spread(&prepared.problem, &values, result.error))
                .flatten(),
            rest_state: result.engine_rest.clone(),
        });
        let at_model_limit = result
            .at_bound
            .iter()
            .filter_map(|name| {
                let (_, spec) = kind.parameter(name)?;
                let value = result.value(name)?;
                let maximum = if job.request.unbounded { spec.maximum_unbounded } else { spec.maximum };
                (value <= spec.minimum || value >= maximum)
                    .then(|| format!("{name} = {}", pbdfit_mesh::display::number(value)))
            })
            .collect();
        let (verdict, verdict_reason) = pbdfit_fit::verdict::judge(
            result.error,
            result.part_errors.len(),
            result.evaluations,
            result.failures.len(),
        );
        FitReport {
            scene: prepared.problem.scene.clone(),
            body: prepared.body.summaries(),
            model: kind.spec(),
            parameters: result.parameters.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            error: result.error,
            scene_errors: result.part_errors.to_vec(),
            evaluations: result.evaluations,
            failed_evaluations: result.failures.len(),
            failures: result.failure_summary(),
            at_bound: result.at_bound.iter().map(|s| s.to_string()).collect(),
            at_model_limit,
            seconds: result.seconds,
            search_box: search_box
                .axes()
                .iter()
                .map(|a| {
                    let axis = BoxAxis {
                        lower: a.lower,
                        upper: a.upper,
                        unit: a.unit,
                        scale: format!("{:?}", a.scale).to_lowercase(),
                    };
                    (a.name.to_string(), axis)
                })
                .collect(),
            box_text: search_box.describe(),
            n: prepared.n,
            dt: job.dt,
            nit: job.nit,
            young: prepared.young,
            poisson: prepared.poisson,
            mass_model: prepared.body.mass_model(kind).to_string(),
            reference: prepared.problem.reference.clone(),
            precision: job.precision.name().to_string(),
            backend: backend.to_string(),
            pbdfit_version: env!("CARGO_PKG_VERSION").to_string(),
            grid_points: prepared.grid_points(),
            search_moves: result.history.len().saturating_sub(1),
            search: result.search.name().to_string(),
            starts: Starts { total: result.starts.1, reached_minimum: result.starts.0 },
            status: if result.stopped.is_some() { "budget" } else { "converged" }.to_string(),
            stopped: result.stopped.clone(),
            verdict: verdict.name().to_string(),
            verdict_reason,
            moved: result.moved.clone(),
            engine,
            intervals_95: result.confidence.as_deref().map(by_name),
            identifiability: result.identifiability.as_ref().map(|id| {
                let names: Vec<&str> = result.parameters.iter().map(|(n, _)| *n).collect();
                let note = pbdfit_fit::ranges_without_information(&names, id);
                IdentifiabilityReport {
                    hessian: id.hessian.clone(),
                    condition: id.condition.is_finite().then_some(id.condition),
                    ranges_1_percent: by_name(&id.ranges),
                    ranges_informative: note.is_none(),
                    ranges_note: note,
                    evaluations: id.evaluations,
                }
            }),
            bootstrap: bootstrap.map(|b| BootstrapReport {
                bootstrap_95: b.intervals.as_deref().map(by_name),
                bootstrap_replicates: b.replicates,
                bootstrap_failed: b.failed,
                bootstrap_asked: b.asked,
                bootstrap_noise: b.noise,
                bootstrap_rough: b.rough(),
                bootstrap_stopped: b.stopped.clone(),
            }),
            kd: result.value("kd"),
            kv: result.value("kv"),
            warnings: prepared.warnings.clone(),
            compound: prepared.problem.compound,
        }
    }

    /// `kd in [lo, hi], kv in [lo, hi]`.
    fn ranges_text(&self, ranges: &BTreeMap<String, [f64; 2]>) -> String {
        let parts: Vec<String> = self
            .parameters
            .iter()
            .filter_map(|(n, _)| ranges.get(n).map(|[lo, hi]| format!("{n} in [{lo:.4e}, {hi:.4e}]")))
            .collect();
        parts.join(", ")
    }

    /// The command that asks at which dt and nit the model can reproduce this fit's material:
    /// `pbdfit settings --scene S --n N --young E --poisson NU --model M`.
    fn settings_command(&self) -> String {
        let material = match (self.young, self.poisson) {
            (Some(e), Some(nu)) => {
                format!(" --young {} --poisson {}", pbdfit_mesh::display::number(e), pbdfit_mesh::display::number(nu))
            }
            _ => String::new(),
        };
        // The user's own body, where it is not the built-in scenes' 1 m cube of 1 kg/m^3: the advice is for it.
        let body = match self.body.first() {
            Some(b) if b.size_m != 1.0 || b.density_kg_per_m3 != 1.0 => format!(
                " --density {} --size {}",
                pbdfit_mesh::display::number(b.density_kg_per_m3),
                pbdfit_mesh::display::number(b.size_m)
            ),
            _ => String::new(),
        };
        format!("pbdfit settings --scene {} --n {}{body}{material} --model {}", self.scene, self.n, self.model)
    }

    /// Whether the best point is an answer (see [`pbdfit_fit::verdict`]).
    pub fn is_answer(&self) -> bool {
        self.verdict == pbdfit_fit::verdict::Verdict::Answer.name()
    }

    /// The report as `pbdfit fit` prints it, one line per fact, ending in a newline. A fit that is no
    /// answer leads with the verdict and what may help, and prints no lines to paste.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        // The body first, as every report starts; then the verdict where the fit is no answer.
        line(pbdfit_mesh::BodySummary::line(&self.body));
        if !self.is_answer() {
            line(format!(
                "this model cannot reproduce this material at these settings: {}; its best point below is no \
                 answer (a smaller dt or more iterations, which `{}` searches, or another model may reproduce it)",
                self.verdict_reason.as_deref().unwrap_or("no answer"),
                self.settings_command()
            ));
        }
        let material = match (self.young, self.poisson) {
            (Some(e), Some(nu)) => format!(", E = {e:e} Pa, nu = {nu}"),
            _ => String::new(),
        };
        line(format!(
            "scene {} (N = {}, dt = {}, nit = {}, model {}){material}; box {}",
            self.scene,
            self.n,
            pbdfit_mesh::display::number(self.dt),
            self.nit,
            self.model,
            self.box_text
        ));
        line(format!(
            "  reference {}; model arithmetic {}; {} masses",
            self.reference, self.precision, self.mass_model
        ));
        let values: Vec<String> = self
            .parameters
            .iter()
            .map(|(n, v)| {
                let unit = self.search_box.get(n).map_or("1", |a| a.unit);
                if unit == "1" { format!("{n} = {v:.6}") } else { format!("{n} = {v:.6e} {unit}") }
            })
            .collect();
        line(format!("  {}  error = {:.6e}", values.join("  "), self.error));
        if !self.at_bound.is_empty() {
            // A bound that is the model's own limit cannot be widened (PBD's kd = 1 was told to
            // widen the box, which --box then refused).
            let advice = if self.at_model_limit.is_empty() {
                "the minimum may lie outside; widen it with --box".to_string()
            } else {
                let limits: Vec<String> =
                    self.at_model_limit.iter().map(|l| format!("{l} is the model's own limit")).collect();
                format!(
                    "{}: the material lies beyond what the model reaches at this dt and nit (for PBD's stiffness, \
                     more iterations or a smaller dt reach stiffer materials)",
                    limits.join(", ")
                )
            };
            line(format!("  at the edge of the box: {} ({advice})", self.at_bound.join(", ")));
        }
        if self.compound {
            for (scene, e) in &self.scene_errors {
                line(format!("    {scene:16} error {e:.6e}"));
            }
        }
        line(format!(
            "  {} search: {} evaluations ({} grid points, {} search moves), {:.3} s",
            self.search, self.evaluations, self.grid_points, self.search_moves, self.seconds
        ));
        if self.search == Search::Gradient.name() {
            let (reached, total) = (self.starts.reached_minimum, self.starts.total);
            // Whether fewer is a worry: the other descents ended in other basins or on plateaus, and the
            // best of all is kept; one start alone finding the minimum means the others' basins are worse.
            let note = if reached < total {
                " (the others ended in worse basins or on plateaus of the error; the best is the result)"
            } else {
                ""
            };
            line(format!("  {reached} of {total} starts reached the minimum{note}"));
        }
        if let Some(why) = &self.stopped {
            line(format!("  note: the fit {why}; the result is its best point so far"));
        }
        if let Some(moved) = &self.moved {
            line(format!("  note: {moved}"));
        }
        if let Some(engine) = &self.engine {
            if self.is_answer() {
                line(format!("  in the engine (nit = {}: {}):", self.nit, engine.nit_means));
                for paste in &engine.paste {
                    line(format!("    {paste}"));
                }
            } else {
                line("  no lines to paste into the engine: the fit is no answer".into());
            }
            for pasted in &engine.pasted {
                let at: Vec<String> = pasted
                    .parameters
                    .iter()
                    .chain(&pasted.settings)
                    .map(|(n, v)| format!("{n} = {}", pbdfit_mesh::display::number(*v)))
                    .collect();
                let what = match (&pasted.error, &pasted.failure) {
                    (Some(e), _) => format!("leaves error {e:.6e} (the fit's {:.6e})", self.error),
                    (None, Some(why)) => format!("has no rest state ({why})"),
                    (None, None) => "has no rest state".to_string(),
                };
                line(format!("    {}'s body ({}) {what}", pasted.line, at.join(", ")));
            }
            if let Some(orders) = &engine.orders {
                line(format!("    {}", orders.line(self.error)));
            }
            if let Some(rest) = &engine.rest_state {
                line(format!("    {}", rest.line()));
            }
        }
        if !self.failures.is_empty() {
            line(format!("  {}", self.failures));
        }
        if let Some(id) = &self.identifiability {
            let condition = match id.condition {
                Some(c) => format!("{c:.3e}"),
                None => "infinite (a direction in which the error does not rise: not determined)".into(),
            };
            line(format!("  identifiability: Hessian condition number {condition}"));
            match &id.ranges_note {
                None => {
                    line(format!("    error within 1 % of the minimum for {}", self.ranges_text(&id.ranges_1_percent)))
                }
                Some(why) => line(format!(
                    "    the 1 % ranges carry no information here: {why}; as computed: {}",
                    self.ranges_text(&id.ranges_1_percent)
                )),
            }
        }
        if let Some(intervals) = &self.intervals_95 {
            line(format!("  95 % confidence (Gauss-Newton, from the markers' noise): {}", self.ranges_text(intervals)));
        }
        if let Some(b) = &self.bootstrap {
            let text = match &b.bootstrap_95 {
                Some(intervals) => {
                    let rough = if b.bootstrap_rough {
                        format!(" (rough: from fewer than {} refits)", pbdfit_fit::BOOTSTRAP_QUANTILES)
                    } else {
                        String::new()
                    };
                    format!("95 % {}{rough}", self.ranges_text(intervals))
                }
                None => format!("no interval (it needs at least {} refits)", pbdfit_fit::MIN_BOOTSTRAP),
            };
            line(format!(
                "  bootstrap ({} of {} refits of resampled noise {:.3e} m, {} failed): {text}",
                b.bootstrap_replicates, b.bootstrap_asked, b.bootstrap_noise, b.bootstrap_failed,
            ));
            if let Some(why) = &b.bootstrap_stopped {
                line(format!("  note: the bootstrap {why}"));
            }
        }
        out
    }
}

/// A fit job as keywords: the command line's `pbdfit fit` options and Python's `pbdfit.fit(...)` arguments
/// under their Python names (`--max-seconds` is `max_seconds`; the repeatable `--start` and `--setting` are
/// the lists `starts` and the dict `settings`; `--box kd=0:0.5` is `box={"kd": (0, 0.5)}`). An unknown
/// keyword is refused. Both front ends end in the same [`FitJob`] ([`FitKeywords::job`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct FitKeywords {
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// Not with measured markers, which are the reference.
    #[serde(flatten)]
    #[command(flatten)]
    pub material: pbdfit_fit::Material,
    /// The time step `dt`.
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    /// The model: `model`, `settings`, `nit`.
    #[serde(flatten)]
    #[command(flatten)]
    pub model: pbdfit_fit::Model,
    /// The FEM reference's options (`material`, `dynamic`, `time`, `fem_mass`, `rayleigh`, `split`).
    #[serde(flatten)]
    #[command(flatten)]
    pub reference: pbdfit_mesh::ReferenceOptions,
    /// Fit to measured markers instead of an FEM reference: a CSV with columns x, y, z (the marker in the
    /// undeformed body, m), ux, uy, uz (its observed displacement, m) and optionally sigma (m). The
    /// model's displacement is interpolated at each marker; the error is the mean squared relative error
    /// over the markers that move, or with sigmas the chi-square per degree of freedom, sum (r_k / sigma)^2
    /// over the 3M components / 3M. E, nu and the reference
    /// options are not used. A basic scene only (one body). A `.vtu` file is a full field: its points
    /// with point data `displacement` (and optionally `sigma`). Default: the scene's `[reference] measured`.
    #[arg(long, value_name = "FILE")]
    pub measured: Option<PathBuf>,
    /// With --measured: refit K replicates of the markers with resampled noise (the fitted model's
    /// displacements plus Gaussian noise of each marker's sigma, or of the residual's standard deviation)
    /// and report each parameter's 2.5 % and 97.5 % quantiles: a check of the Gauss-Newton intervals.
    /// Seeded (the same K gives the same numbers).
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,
    /// Search box of one parameter, `NAME=LOWER:UPPER` (repeatable), e.g. `kd=0:0.5` or
    /// `alpha_d=1e-12:1e2`. Log-scale parameters need bounds > 0. Default: the model's box.
    // Its id is its keyword's (serde's `box`), so Python's signature made from the job names it so; the
    // value name is the one `--help` has always shown.
    #[arg(id = "box", long = "box", value_name = "SEARCH_BOX")]
    #[arg(value_parser = |s: &str| pbdfit_fit::parse_bound(s).map_err(|e| e.to_string()))]
    #[serde(rename = "box", serialize_with = "bounds_map", deserialize_with = "bounds_from_map")]
    pub search_box: Vec<(String, f64, f64)>,
    /// Allow PBD stiffness above 1 in the box (experimental).
    #[arg(long)]
    pub unbounded: bool,
    /// The search: `gradient` (the default: a coarse grid, then Levenberg-Marquardt on the rest state's
    /// sensitivity from the best point of each basin; never worse than `pattern` on the committed thesis
    /// and XPBD studies) or `pattern` (the thesis's fine grid and compass search, 450 to 750 rest states).
    #[arg(long, value_parser = |s: &str| Search::parse(s).map(|s| s.name().to_string()).map_err(|e| e.to_string()))]
    pub search: Option<String>,
    /// Grid points per axis (default: pattern 21 for two parameters, 101 for one, 11 for three, 7 for
    /// four; gradient 5, 9, 4, 3, at cell centres).
    #[arg(long)]
    pub grid: Option<usize>,
    /// A further start of the gradient search, `NAME=VALUE,NAME=VALUE` in the model's parameters
    /// (repeatable), e.g. a table's lookup.
    #[arg(long = "start", value_parser = parse_start)]
    pub starts: Vec<BTreeMap<String, f64>>,
    /// Largest number of evaluations of the gradient search after its grid; when spent, the best point
    /// so far is the result and the output says so [default: 400].
    #[arg(long)]
    pub max_evaluations: Option<usize>,
    /// Wall-clock limit of the fit in seconds; when reached, the best point so far is the result and the
    /// output says so.
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Pattern search stops when its step falls below this fraction of each axis's width (in search
    /// coordinates: the value, or log10 of it) [default: 1e-4].
    #[arg(long)]
    pub min_step: Option<f64>,
    /// Arithmetic of the model's rest states: f64 (pbdfit's) or f32 (the reference library's own, in
    /// positions, stepped until the motion stops; PBD models only) [default: f64].
    #[arg(long, value_parser = clap::builder::EnumValueParser::<Precision>::new().map(|p| p.name().to_string()))]
    pub precision: Option<String>,
}

/// A `--start`: `NAME=VALUE` pairs separated by commas, each name once.
fn parse_start(text: &str) -> Result<BTreeMap<String, f64>, String> {
    let mut start = BTreeMap::new();
    for pair in text.split(',') {
        let (name, value) = pbdfit_fit::parse_named_value(pair)?;
        if start.insert(name.clone(), value).is_some() {
            // The last would silently win.
            return Err(format!("{name} is given twice; give each parameter once"));
        }
    }
    Ok(start)
}

fn bounds_map<S: serde::Serializer>(bounds: &[(String, f64, f64)], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(bounds.iter().map(|(k, lo, hi)| (k, (lo, hi))))
}

fn bounds_from_map<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, f64, f64)>, D::Error> {
    let map = <BTreeMap<String, (f64, f64)> as serde::Deserialize>::deserialize(d)?;
    Ok(map.into_iter().map(|(k, (lo, hi))| (k, lo, hi)).collect())
}

impl FitKeywords {
    /// The job these keywords ask for; a bad value is refused naming its option in `spelling`.
    pub fn job(&self, spelling: Spelling) -> Result<FitJob, FitJobError> {
        let input = FitJobError::Input;
        let kind = self.model.kind(spelling)?;
        let search = self
            .search
            .as_deref()
            .map(Search::parse)
            .transpose()
            .map_err(|e| input(format!("{}: {e}", spelling.name("search"))))?;
        let option = match spelling {
            Spelling::Flag => "--start",
            Spelling::Keyword => "starts",
        };
        let starts = self
            .starts
            .iter()
            .map(|s| {
                let pairs: Vec<(String, f64)> = s.iter().map(|(k, v)| (k.clone(), *v)).collect();
                start_from_pairs(kind, &pairs).map_err(|e| input(format!("{option}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mass_model = self.body.mass_model().map_err(|e| input(format!("{}: {e}", spelling.name("mass_model"))))?;
        let precision = match self.precision.as_deref() {
            None | Some("f64") => Precision::F64,
            Some("f32") => Precision::F32,
            Some(other) => {
                return Err(input(format!("{}: `{other}` is neither f64 nor f32", spelling.name("precision"))));
            }
        };
        Ok(FitJob {
            n: self.body.n,
            mass_model,
            fix_orientation: self.body.fix_orientation,
            body: self.body.scale,
            young: self.material.young,
            poisson: self.material.poisson,
            dt: self.step.dt,
            nit: self.model.nit,
            reference: self.reference.clone(),
            measured: self.measured.clone(),
            bootstrap: self.bootstrap,
            request: FitRequest {
                bounds: self.search_box.clone(),
                unbounded: self.unbounded,
                search,
                grid: self.grid,
                min_step: self.min_step,
                starts,
                max_evaluations: self.max_evaluations,
                max_seconds: self.max_seconds,
                ..FitRequest::new(kind)
            },
            precision,
            ..FitJob::new(&self.body.scene, kind)
        })
    }
}

impl Job for FitKeywords {
    const NAME: &'static str = "fit";
    const ABOUT: &'static str = "Fit a model's parameters (PBD's kd, kv; XPBD's compliances; an engine profile's) so \
        that its rest state matches the FEM rest state of a material, or measured markers";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--model", "xpbd", "--nit", "2"];
    type Prepared = PreparedFit;
    type Report = FitReport;

    fn prepare(&self, spelling: Spelling) -> Result<PreparedFit, FitJobError> {
        self.job(spelling)?.prepare(spelling)
    }

    fn run(prepared: PreparedFit, context: &mut Context<'_>) -> Result<FitReport, FitJobError> {
        Ok(prepared.run(context.backend)?.report)
    }
}

impl Report for FitReport {
    fn text(&self) -> String {
        FitReport::text(self)
    }
}

#[cfg(test)]
mod tests {
    /// The command line's flags and Python's keywords make one job: `--box` and `--start` parse into the
    /// dict and the list of dicts Python gives, the groups flatten the same names.
    #[test]
    fn flags_and_keywords_make_the_same_fit_and_motion_jobs() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Fit {
            #[command(flatten)]
            job: crate::FitKeywords,
        }
        #[derive(clap::Parser)]
        struct Motion {
            #[command(flatten)]
            job: crate::MotionKeywords,
        }
        let flags = ["fit", "--scene", "gravity-wall", "--n", "2", "--young", "3e3", "--dt", "1/200", "--model"];
        let more = ["jolt", "--setting", "linear_damping=0.1", "--nit", "4", "--box", "edge_compliance=1e-9:1e-3"];
        let start = ["--start", "edge_compliance=1e-6,volume_compliance=1e-7", "--split", "six", "--precision"];
        let cli = Fit::try_parse_from(flags.iter().chain(&more).chain(&start).chain(&["f32"])).unwrap().job;
        let json = crate::keywords_from_json::<crate::FitKeywords>(
            r#"{"scene": "gravity-wall", "n": 2, "young": 3e3, "dt": 0.005, "model": "jolt", "nit": 4,
                "settings": {"linear_damping": 0.1}, "box": {"edge_compliance": [1e-9, 1e-3]}, "split": "six",
                "starts": [{"edge_compliance": 1e-6, "volume_compliance": 1e-7}], "precision": "f32"}"#,
        );
        assert_eq!(cli, json.unwrap());
        let flags = ["motion", "--scene", "gravity-wall", "--param", "kd=0.4", "--param", "kv=1", "--fit-motion"];
        let cli = Motion::try_parse_from(flags).unwrap().job;
        let json = r#"{"scene": "gravity-wall", "params": {"kv": 1, "kd": 0.4}, "fit_motion": true}"#;
        assert_eq!(cli, crate::keywords_from_json::<crate::MotionKeywords>(json).unwrap());
        assert_eq!(cli.model.kind(crate::Spelling::Flag).unwrap(), pbdfit_pbd::ModelKind::PBD);
        use pbdfit_fit::Model;
        let bad = Model {
            settings: vec![("relaxation".into(), pbdfit_fit::SettingValue::Number(2.0))],
            ..Model { model: "newton-xpbd".into(), ..cli.model }
        };
        let refused = |spelling| bad.kind(spelling).unwrap_err().to_string();
        assert!(refused(crate::Spelling::Flag).starts_with("--setting: invalid setting relaxation = 2"));
        assert!(refused(crate::Spelling::Keyword).starts_with("settings: invalid setting relaxation = 2"));
    }
}
