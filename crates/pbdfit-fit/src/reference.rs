//! The reference a fit matches: rest displacements of a body for a material, from the FEM reference a
//! [`ReferenceSpec`] names (linear static by default; nonlinear laws, dynamic solves and other mesh
//! splits through the `[reference]` table of scenes and studies, or the command line).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pbdfit_fem::{ReferenceSpec, StaticProblem, YoungPoisson};
use pbdfit_mesh::{ReferenceOptions, Scene, Vec3};
use pbdfit_pbd::PbdSystem;

use crate::FitError;

/// Rest displacements of one body (one scene at one resolution) for a material.
///
/// Implementations do the material-independent work once (mesh, sparsity, symbolic factorisation) when
/// built, so that a study solves only the numeric part for each nu and E.
pub trait Reference: Send + Sync + std::fmt::Debug {
    /// What the reference is, for results and messages: the [`ReferenceSpec::id`] (e.g.
    /// `linear static`, `stvk dynamic lumped rest`).
    fn describe(&self) -> String;

    /// Displacements of every vertex (m), in the body's vertex numbering; zero at held vertices.
    fn displacements(&self, material: YoungPoisson) -> Result<Vec<Vec3>, FitError>;
}

/// The FEM reference of one scene at one resolution (and, for a dynamic solve, one time step). Keeps
/// pbdfit-fem's [`StaticProblem`]: the pattern and symbolic factorisation are reused.
#[derive(Debug)]
pub struct FemReference {
    scene: String,
    spec: ReferenceSpec,
    dt: f64,
    problem: StaticProblem,
}

impl FemReference {
    /// Builds the problem of `scene` at resolution `n` on the mesh split the spec names; `dt` (s) is
    /// the time step of a dynamic solve.
    pub fn new(scene: &Scene, n: usize, spec: ReferenceSpec, dt: f64) -> Result<Self, FitError> {
        let body = scene.body_split(n, spec.split)?;
        let problem = StaticProblem::new(&body).map_err(|source| FitError::Reference {
            scene: scene.name.clone(),
            reference: spec.id(),
            source,
        })?;
        Ok(Self { scene: scene.name.clone(), spec, dt, problem })
    }
}

impl Reference for FemReference {
    fn describe(&self) -> String {
        self.spec.id()
    }

    fn displacements(&self, material: YoungPoisson) -> Result<Vec<Vec3>, FitError> {
        self.spec.displacements(&self.problem, material, self.dt).map_err(|source| FitError::Reference {
            scene: self.scene.clone(),
            reference: self.spec.id(),
            source,
        })
    }
}

/// The reference `scene` asks for under `overrides` (from a study file or the command line, whose
/// fields win over the scene's `[reference]` table).
pub fn reference_spec(scene: &Scene, overrides: &ReferenceOptions) -> Result<ReferenceSpec, FitError> {
    ReferenceSpec::from_options(&overrides.over(&scene.reference)).map_err(|source| FitError::Reference {
        scene: scene.name.clone(),
        reference: "[reference]".into(),
        source,
    })
}

/// Reference options given above the scenes' own (a study's, a variant's, the command line's),
/// validated ([`ReferenceSpec::validate`]): the error names the options' origin (`what`, e.g. the study
/// file) and the field.
pub fn reference_overrides(what: &str, options: &ReferenceOptions) -> Result<ReferenceOptions, FitError> {
    ReferenceSpec::validate(options).map_err(|source| FitError::Reference {
        scene: what.into(),
        reference: "[reference]".into(),
        source,
    })
}

/// The reference ids of a scene set's parts under `overrides`, joined by `; ` where they differ (an
/// invalid table gives its error text, as the fit itself will fail with it).
pub fn reference_id(set: &pbdfit_mesh::SceneSet, overrides: &ReferenceOptions) -> String {
    let mut ids: Vec<String> = Vec::new();
    for scene in set.scenes() {
        let id = reference_spec(scene, overrides).map_or_else(|e| e.to_string(), |s| s.id());
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.join("; ")
}

/// (scene, mass model, N, reference id, dt bits for a dynamic reference)
type ReferenceKey = (String, String, usize, String, u64);
type SystemKey = (String, String, usize);

/// PBD systems and references per (scene, mass model, N), built once and shared by every fit that needs
/// them (a study builds one `StaticProblem` per scene and resolution, and per dt for a dynamic
/// reference, and reuses it for every nu and E).
#[derive(Debug, Default)]
pub struct PartCache {
    overrides: ReferenceOptions,
    systems: Mutex<HashMap<SystemKey, Arc<PbdSystem>>>,
    references: Mutex<HashMap<ReferenceKey, Arc<dyn Reference>>>,
}

impl PartCache {
    /// An empty cache whose references follow each scene's `[reference]` table with `overrides` on top
    /// (an empty table: the scenes' own choice, by default linear static FEM).
    pub fn new(overrides: ReferenceOptions) -> Self {
        Self { overrides, ..Default::default() }
    }

    /// The reference overrides this cache applies.
    pub fn overrides(&self) -> &ReferenceOptions {
        &self.overrides
    }

    fn key(scene: &Scene, n: usize) -> SystemKey {
        (scene.name.clone(), scene.mass_model().name().to_string(), n)
    }

    /// The PBD system of `scene` at resolution `n`.
    pub fn system(&self, scene: &Scene, n: usize) -> Result<Arc<PbdSystem>, FitError> {
        let key = Self::key(scene, n);
        if let Some(s) = self.systems.lock().expect("cache lock").get(&key) {
            return Ok(s.clone());
        }
        let system = Arc::new(PbdSystem::new(&scene.body(n)?));
        Ok(self.systems.lock().expect("cache lock").entry(key).or_insert(system).clone())
    }

    /// The reference of `scene` at resolution `n` (and time step `dt` in s, used by dynamic references).
    pub fn reference(&self, scene: &Scene, n: usize, dt: f64) -> Result<Arc<dyn Reference>, FitError> {
        let spec = reference_spec(scene, &self.overrides)?;
        let (name, mass, n) = Self::key(scene, n);
        let key = (name, mass, n, spec.id(), if spec.needs_dt() { dt.to_bits() } else { 0 });
        if let Some(r) = self.references.lock().expect("cache lock").get(&key) {
            return Ok(r.clone());
        }
        let reference: Arc<dyn Reference> = Arc::new(FemReference::new(scene, n, spec, dt)?);
        Ok(self.references.lock().expect("cache lock").entry(key).or_insert(reference).clone())
    }

    /// How many references were built (one per scene and resolution, and dt for dynamic ones).
    pub fn reference_count(&self) -> usize {
        self.references.lock().expect("cache lock").len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results from before the reference column read as `DEFAULT_REFERENCE` (pbdfit-results, which
    /// cannot see pbdfit-fem): it must be the id the default reference writes.
    #[test]
    fn old_results_read_as_the_default_reference_id() {
        assert_eq!(ReferenceSpec::default().id(), pbdfit_results::DEFAULT_REFERENCE);
        let scene = &pbdfit_mesh::SceneSet::builtin("gravity-floor").unwrap().scenes()[0].clone();
        assert_eq!(
            reference_spec(scene, &ReferenceOptions::default()).unwrap().id(),
            pbdfit_results::DEFAULT_REFERENCE
        );
    }
}
