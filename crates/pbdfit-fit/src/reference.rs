//! The reference a fit matches: rest displacements of a body for a material. Linear static FEM is the
//! one implementation today; nonlinear and dynamic references plug in here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pbdfit_fem::{StaticProblem, YoungPoisson};
use pbdfit_mesh::{Scene, Vec3};
use pbdfit_pbd::PbdSystem;

use crate::FitError;

/// Rest displacements of one body (one scene at one resolution) for a material.
///
/// Implementations do the material-independent work once (mesh, sparsity, symbolic factorisation) when
/// built, so that a study solves only the numeric part for each nu and E.
pub trait Reference: Send + Sync + std::fmt::Debug {
    /// What the reference is, for results and messages (e.g. `linear static FEM`).
    fn describe(&self) -> String;

    /// Displacements of every vertex (m), in the body's vertex numbering; zero at held vertices.
    fn displacements(&self, material: YoungPoisson) -> Result<Vec<Vec3>, FitError>;
}

/// Small-strain linear elasticity, static equilibrium under gravity (methodology, section FEM
/// reference). Keeps pbdfit-fem's [`StaticProblem`]: the pattern and symbolic factorisation are reused.
#[derive(Debug)]
pub struct LinearStaticFem {
    scene: String,
    problem: StaticProblem,
}

impl LinearStaticFem {
    /// The reference's name in results.
    pub const NAME: &'static str = "linear static FEM";

    /// Builds the static problem of `scene` at resolution `n`.
    pub fn new(scene: &Scene, n: usize) -> Result<Self, FitError> {
        let body = scene.body(n)?;
        let problem = StaticProblem::new(&body).map_err(|source| FitError::Reference {
            scene: scene.name.clone(),
            reference: Self::NAME.into(),
            source,
        })?;
        Ok(Self { scene: scene.name.clone(), problem })
    }
}

impl Reference for LinearStaticFem {
    fn describe(&self) -> String {
        Self::NAME.into()
    }

    fn displacements(&self, material: YoungPoisson) -> Result<Vec<Vec3>, FitError> {
        self.problem.solve(material).map(|s| s.displacements).map_err(|source| FitError::Reference {
            scene: self.scene.clone(),
            reference: Self::NAME.into(),
            source,
        })
    }
}

/// Builds a reference for a scene at a resolution.
pub type ReferenceFactory = fn(&Scene, usize) -> Result<Arc<dyn Reference>, FitError>;

/// The linear static FEM factory (the default).
pub fn linear_static_fem(scene: &Scene, n: usize) -> Result<Arc<dyn Reference>, FitError> {
    Ok(Arc::new(LinearStaticFem::new(scene, n)?))
}

type BodyKey = (String, String, usize);

/// PBD systems and references per (scene, mass model, N), built once and shared by every fit that needs
/// them (a study builds one `StaticProblem` per scene and resolution and reuses it for every nu and E).
#[derive(Debug)]
pub struct PartCache {
    factory: ReferenceFactory,
    systems: Mutex<HashMap<BodyKey, Arc<PbdSystem>>>,
    references: Mutex<HashMap<BodyKey, Arc<dyn Reference>>>,
}

impl Default for PartCache {
    fn default() -> Self {
        Self::new(linear_static_fem)
    }
}

impl PartCache {
    /// An empty cache whose references come from `factory`.
    pub fn new(factory: ReferenceFactory) -> Self {
        Self { factory, systems: Mutex::default(), references: Mutex::default() }
    }

    fn key(scene: &Scene, n: usize) -> BodyKey {
        (scene.name.clone(), scene.mass_model.name().to_string(), n)
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

    /// The reference of `scene` at resolution `n`.
    pub fn reference(&self, scene: &Scene, n: usize) -> Result<Arc<dyn Reference>, FitError> {
        let key = Self::key(scene, n);
        if let Some(r) = self.references.lock().expect("cache lock").get(&key) {
            return Ok(r.clone());
        }
        let reference = (self.factory)(scene, n)?;
        Ok(self.references.lock().expect("cache lock").entry(key).or_insert(reference).clone())
    }

    /// How many references were built (one per scene and resolution).
    pub fn reference_count(&self) -> usize {
        self.references.lock().expect("cache lock").len()
    }
}
