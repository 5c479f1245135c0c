//! One fitting problem: a scene (or compound) at fixed (dt, N, nit, E, nu), as a function of (kd, kv).

use std::sync::Arc;

use pbdfit_fem::{StaticProblem, YoungPoisson};
use pbdfit_mesh::{SceneSet, Vec3};
use pbdfit_pbd::{Model, PbdError, PbdSystem, RestOptions, RestState, SimParams};

use crate::{FitError, compound_error, moved_vertices, relative_error};

/// The simulation settings a fit holds fixed, besides the material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations per step.
    pub nit: usize,
    /// The model variant (its parameters are what the fit varies).
    pub model: Model,
}

impl Settings {
    /// The PBD parameters at a point (kd, kv).
    pub fn at(&self, kd: f64, kv: f64) -> SimParams {
        SimParams::new(self.dt, self.nit, self.model.with_parameters(kd, kv))
    }
}

/// One basic scene of a problem: its PBD system and FEM reference.
#[derive(Debug, Clone)]
pub struct Part {
    /// Scene name.
    pub scene: String,
    /// The PBD system (shared by every fit on this scene and resolution).
    pub system: Arc<PbdSystem>,
    /// FEM rest displacements (m).
    pub fem: Vec<Vec3>,
    /// The vertices the FEM moves.
    pub moved: Vec<usize>,
}

/// A scene set at fixed settings and material: `error(kd, kv)` is what the fit minimises.
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
    /// Rest-state controls.
    pub rest_options: RestOptions,
}

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
    pub failure: Option<String>,
}

impl FitProblem {
    /// Builds the problem: PBD systems for each part (reusing `systems` where given, keyed by scene
    /// name) and the FEM reference for (E, nu).
    pub fn new(
        scenes: &SceneSet,
        settings: Settings,
        material: YoungPoisson,
        systems: &dyn Fn(&str) -> Option<Arc<PbdSystem>>,
    ) -> Result<Self, FitError> {
        let mut parts = Vec::new();
        for scene in scenes.scenes() {
            let body = scene.body(settings.n).map_err(|e| FitError::Input(e.to_string()))?;
            let fem = StaticProblem::new(&body)
                .and_then(|p| p.solve(material))
                .map_err(|e| FitError::Input(format!("scene {}: FEM reference: {e}", scene.name)))?
                .displacements;
            let system = systems(&scene.name).unwrap_or_else(|| Arc::new(PbdSystem::new(&body)));
            let moved = moved_vertices(&fem);
            parts.push(Part { scene: scene.name.clone(), system, fem, moved });
        }
        Ok(Self {
            scene: scenes.name().to_string(),
            compound: scenes.is_compound(),
            parts,
            settings,
            rest_options: RestOptions::default(),
        })
    }

    /// Error at (kd, kv) from given rest displacements per part (`Err` for a part without rest state).
    pub fn error_from(&self, rest: &[Result<Arc<Vec<Vec3>>, String>]) -> Evaluation {
        let mut part_errors = Vec::with_capacity(self.parts.len());
        let mut states = Vec::with_capacity(self.parts.len());
        for (part, r) in self.parts.iter().zip(rest) {
            match r {
                Ok(u) => {
                    part_errors.push(relative_error(u, &part.fem, &part.moved));
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

    /// Evaluates the error at (kd, kv), warm-starting each part's rest state from `warm` if given.
    pub fn evaluate(&self, kd: f64, kv: f64, warm: Option<&Evaluation>) -> Evaluation {
        let params = self.settings.at(kd, kv);
        let rest: Vec<_> = self
            .parts
            .iter()
            .enumerate()
            .map(|(i, part)| {
                let w = warm.and_then(|e| e.rest.get(i)).map(|u| u.as_slice());
                rest_displacements(&part.system, &params, &self.rest_options, w)
            })
            .collect();
        self.error_from(&rest)
    }
}

/// A rest state's displacements, or why there is none (diverged, inverted, not converged).
pub fn rest_displacements(
    system: &PbdSystem,
    params: &SimParams,
    options: &RestOptions,
    warm: Option<&[Vec3]>,
) -> Result<Arc<Vec<Vec3>>, String> {
    displacements_or_reason(system, params, system.rest_state(params, options, warm))
}

/// Turns a rest-state result into its displacements, or a message naming scene and parameters.
pub(crate) fn displacements_or_reason(
    system: &PbdSystem,
    params: &SimParams,
    result: Result<RestState, PbdError>,
) -> Result<Arc<Vec<Vec3>>, String> {
    match result {
        Ok(r) if r.converged => Ok(Arc::new(r.displacements)),
        Ok(r) => Err(format!(
            "scene {}: no rest state within {} sweeps with {} (relative step {:e})",
            system.scene(),
            r.iterations,
            params.describe(),
            r.residual
        )),
        Err(e) => Err(e.to_string()),
    }
}
