//! One fitting problem: a scene (or compound) at fixed (dt, N, nit, E, nu), as a function of the model's
//! parameters.

use std::sync::Arc;

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{SceneSet, Vec3};
use pbdfit_pbd::{ModelKind, PbdError, PbdSystem, RestJob, RestOptions, RestState, SimParams};

use crate::{
    FemTarget, FitError, MarkerTarget, PartCache, Target, compound_error, moved_vertices, reference_fault,
    resolve_target,
};

/// The simulation settings a fit holds fixed, besides the material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations per step.
    pub nit: usize,
    /// The model kind (its parameters are what the fit varies).
    pub kind: ModelKind,
    /// Allow PBD stiffness above 1 (experimental).
    pub allow_unbounded: bool,
}

impl Settings {
    /// Settings with bounded stiffness.
    pub fn new(dt: f64, n: usize, nit: usize, kind: ModelKind) -> Self {
        Self { dt, n, nit, kind, allow_unbounded: false }
    }

    /// Refuses a time step the rest states cannot resolve on `system`, or engine settings that remove
    /// its load ([`PbdSystem::check_step`]; the parameter values do not enter, the model's example is
    /// used): every fit, sweep, study and table checks it before any rest state.
    pub fn check_step(&self, system: &PbdSystem) -> Result<(), FitError> {
        let model = self.kind.example();
        let params = SimParams::new(self.dt, self.nit, model);
        system.check_step(&params).map_err(FitError::Model)
    }

    /// The PBD parameters at a parameter point (values in the model's parameter order).
    pub fn at(&self, values: &[f64]) -> SimParams {
        let model = self.kind.with(values).expect("a point of the model's own search box");
        SimParams { allow_unbounded: self.allow_unbounded, ..SimParams::new(self.dt, self.nit, model) }
    }
}

/// One basic scene of a problem: its PBD system and reference rest state.
#[derive(Debug, Clone)]
pub struct Part {
    /// Scene name.
    pub scene: String,
    /// The PBD system (shared by every fit on this scene and resolution).
    pub system: Arc<PbdSystem>,
    /// What its rest state is compared with (an FEM reference's field, measured markers): the target
    /// seam, [`Target`].
    pub target: Arc<dyn Target>,
}

/// A scene set at fixed settings and material: `error(parameters)` is what the fit minimises.
#[derive(Debug, Clone)]
pub struct FitProblem {
    /// Scene set name.
    pub scene: String,
    /// Whether the error is the norm of the parts' errors.
    pub compound: bool,
    /// The basic scenes.
    pub parts: Vec<Part>,
    /// Settings held fixed.
    pub settings: Settings,
    /// What the reference is (e.g. `linear static`; the parts' references joined by `; ` where they
    /// differ).
    pub reference: String,
    /// Rest-state controls.
    pub rest_options: RestOptions,
}

/// A rest state's displacements, or why there is none.
pub type RestResult = Result<Arc<Vec<Vec3>>, PbdError>;

/// The outcome of one error evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Total error (infinite where any part has no rest state).
    pub error: f64,
    /// Per part errors.
    pub part_errors: Vec<f64>,
    /// Per part rest displacements (for warm starts), empty on failure.
    pub rest: Vec<Arc<Vec<Vec3>>>,
    /// Why the point has no error value, if it has none.
    pub failure: Option<PbdError>,
}

/// Refuses a scene set whose reference is measured markers ([`FitError::MeasuredScene`]) for a command
/// that fits against the FEM: [`FitProblem::new`], a study or table file, the settings sweep. One place,
/// so that each refuses it alike and before any work.
pub fn fits_against_fem(scenes: &SceneSet) -> Result<(), FitError> {
    let target = resolve_target(scenes, None)?;
    if target.kind.uses_fem() {
        return Ok(());
    }
    Err(FitError::MeasuredScene {
        scene: scenes.name().to_string(),
        markers: target.file.map_or(String::new(), |f| f.display().to_string()),
    })
}

impl FitProblem {
    /// Builds the problem: PBD systems and references for each part come from `cache` (built there on
    /// first use, shared after), the reference is solved for `material`. A scene whose reference is
    /// measured markers is refused ([`FitError::MeasuredScene`]): its problem is
    /// [`measured`](Self::measured).
    pub fn new(
        scenes: &SceneSet,
        settings: Settings,
        material: YoungPoisson,
        cache: &PartCache,
    ) -> Result<Self, FitError> {
        fits_against_fem(scenes)?;
        let mut parts = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for scene in scenes.scenes() {
            // Before the reference is solved: a step the rest states cannot resolve is refused first.
            let system = cache.system(scene, settings.n)?;
            settings.check_step(&system)?;
            let reference = cache.reference(scene, settings.n, settings.dt)?;
            if !names.contains(&reference.describe()) {
                names.push(reference.describe());
            }
            let displacements = reference.displacements(material)?;
            let moved = moved_vertices(&displacements, &system.held_mask());
            if let Some(fault) = reference_fault(&displacements, &system.held_mask(), &moved) {
                return Err(FitError::UnusableReference {
                    scene: scene.name.clone(),
                    reference: reference.describe(),
                    fault,
                });
            }
            let target = FemTarget { reference: displacements, moved, id: reference.describe() };
            parts.push(Part { scene: scene.name.clone(), system, target: Arc::new(target) });
        }
        Ok(Self {
            scene: scenes.name().to_string(),
            compound: scenes.is_compound(),
            parts,
            settings,
            reference: names.join("; "),
            rest_options: RestOptions::default(),
        })
    }

    /// The problem of fitting a basic scene's model to measured `markers` (located in its mesh at
    /// resolution `settings.n` within `tolerance` m of the surface): no FEM is solved; the error is the
    /// markers' (see [`MarkerTarget`]).
    pub fn measured(
        scenes: &SceneSet,
        settings: Settings,
        markers: &pbdfit_mesh::Markers,
        tolerance: f64,
        cache: &PartCache,
    ) -> Result<Self, FitError> {
        let [scene] = scenes.scenes() else {
            return Err(FitError::MeasuredCompound { scene: scenes.name().into(), parts: scenes.scenes().len() });
        };
        let system = cache.system(scene, settings.n)?;
        settings.check_step(&system)?;
        let body = scene.body(settings.n)?;
        let target = MarkerTarget::new(markers, &body.mesh, tolerance)?;
        let reference = target.describe();
        let part = Part { scene: scene.name.clone(), system, target: Arc::new(target) };
        Ok(Self {
            scene: scenes.name().to_string(),
            compound: false,
            parts: vec![part],
            settings,
            reference,
            rest_options: RestOptions::default(),
        })
    }

    /// The error from given rest displacements per part (`Err` for a part without rest state).
    pub fn error_from(&self, rest: &[RestResult]) -> Evaluation {
        let mut part_errors = Vec::with_capacity(self.parts.len());
        let mut states = Vec::with_capacity(self.parts.len());
        for (part, r) in self.parts.iter().zip(rest) {
            match r {
                Ok(u) => {
                    part_errors.push(part.target.error(u));
                    states.push(u.clone());
                }
                Err(reason) => {
                    return Evaluation {
                        error: f64::INFINITY,
                        part_errors: vec![f64::INFINITY; self.parts.len()],
                        rest: Vec::new(),
                        failure: Some(reason.clone()),
                    };
                }
            }
        }
        let error = if self.compound { compound_error(&part_errors) } else { part_errors[0] };
        Evaluation { error, part_errors, rest: states, failure: None }
    }

    /// Evaluates the error at a parameter point, warm-starting each part's rest state from `warm`.
    pub fn evaluate(&self, values: &[f64], warm: Option<&Evaluation>) -> Evaluation {
        let jobs = self.rest_jobs(values, warm);
        let results = jobs.iter().map(RestJob::solve).collect();
        self.evaluation_of(values, &jobs, results)
    }

    /// The rest-state jobs of [`evaluate`](Self::evaluate) at `values`: one per part, in the parts' order,
    /// warm-started from `warm`'s rest states. [`evaluation_of`](Self::evaluation_of) turns their results
    /// into the same evaluation.
    pub fn rest_jobs(&self, values: &[f64], warm: Option<&Evaluation>) -> Vec<RestJob> {
        let params = self.settings.at(values);
        self.parts
            .iter()
            .enumerate()
            .map(|(i, part)| RestJob {
                system: Arc::clone(&part.system),
                params,
                warm: warm.and_then(|e| e.rest.get(i)).cloned(),
                options: self.rest_options,
            })
            .collect()
    }

    /// The evaluation at `values` from the results of its [`rest_jobs`](Self::rest_jobs), in order.
    pub fn evaluation_of(
        &self,
        values: &[f64],
        jobs: &[RestJob],
        results: Vec<Result<RestState, PbdError>>,
    ) -> Evaluation {
        let params = self.settings.at(values);
        let states: Vec<RestResult> =
            jobs.iter().zip(results).map(|(job, r)| displacements_or_reason(&job.system, &params, r)).collect();
        self.error_from(&states)
    }

    /// [`evaluate`](Self::evaluate) with each part's rest state from `rest(index, part, params, warm)`
    /// (which may take it from a store of states computed before).
    pub(crate) fn evaluate_with(
        &self,
        values: &[f64],
        warm: Option<&Evaluation>,
        mut rest: impl FnMut(usize, &Part, &SimParams, Option<&[Vec3]>) -> RestResult,
    ) -> Evaluation {
        let params = self.settings.at(values);
        let states: Vec<_> = self
            .parts
            .iter()
            .enumerate()
            .map(|(i, part)| rest(i, part, &params, warm.and_then(|e| e.rest.get(i)).map(|u| u.as_slice())))
            .collect();
        self.error_from(&states)
    }
}

/// A rest state's displacements, or why there is none (invalid, diverged, inverted, not converged).
pub fn rest_displacements(
    system: &PbdSystem,
    params: &SimParams,
    options: &RestOptions,
    warm: Option<&[Vec3]>,
) -> RestResult {
    displacements_or_reason(system, params, system.rest_state(params, options, warm))
}

/// Turns a rest-state result into its displacements, or the error naming scene and parameters.
pub(crate) fn displacements_or_reason(
    system: &PbdSystem,
    params: &SimParams,
    result: Result<RestState, PbdError>,
) -> RestResult {
    match result {
        Ok(r) if r.converged => Ok(Arc::new(r.displacements)),
        Ok(r) => Err(PbdError::NotConverged {
            scene: system.scene().to_string(),
            params: params.describe(),
            sweeps: r.iterations,
            residual: r.residual,
        }),
        Err(e) => Err(e),
    }
}
