//! A release test built from its inputs: the motion job (`pbdfit motion`) reads them from its keywords, a
//! study's motion pass from its fit rows and `[motion]` table; both build the test here.

use pbdfit_fem::{MassMatrix, StaticProblem, YoungPoisson};
use pbdfit_mesh::{Body, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem};

use super::{Labels, Release, ReleaseTest};
use crate::{FitJobError, Spelling};

/// What a release test is asked: the body, the FEM's material and law, the model at its step, the
/// damping on either side, the release and the window.
#[derive(Debug, Clone)]
pub struct ReleaseSetup {
    /// The body (one part): `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    pub body: crate::Body,
    /// The FEM's Young's modulus (Pa) and Poisson ratio.
    pub material: YoungPoisson,
    /// The FEM law by name (`None`: the scene's, else linear).
    pub law: Option<String>,
    /// The model (a projection model or an engine profile).
    pub kind: ModelKind,
    /// The model's time step (s).
    pub dt: f64,
    /// The model's iterations per step.
    pub nit: usize,
    /// PBD models' velocity damping per step, in [0, 1).
    pub damping: f64,
    /// The FEM body's damping ratio in its first mode, in [0, 1).
    pub fem_damping: f64,
    /// How the body is released.
    pub release: Release,
    /// The window in periods of the FEM's first mode ([`check_periods`](super::check_periods)'d).
    pub periods: f64,
}

impl ReleaseSetup {
    /// Whether the release test takes model `kind` at `dt` and `nit` with these dampings (naming a refused
    /// option in `spelling`): a projection model or an engine profile, a finite step > 0, at least one
    /// iteration, both dampings in [0, 1).
    pub fn check_model(
        kind: ModelKind,
        dt: f64,
        nit: usize,
        damping: f64,
        fem_damping: f64,
        spelling: Spelling,
    ) -> Result<(), FitJobError> {
        let input = FitJobError::Input;
        if !kind.has_projection() {
            return Err(input(format!(
                "model {kind}: its rest state is a Newton solve; the release test runs the projection models and \
                 engine profiles"
            )));
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(input(format!("{} = {dt}: must be a finite number > 0", spelling.name("dt"))));
        }
        if nit == 0 {
            return Err(input(format!("{} must be at least 1", spelling.name("nit"))));
        }
        if !(0.0..1.0).contains(&damping) {
            return Err(input(format!("{} = {damping}: must be in [0, 1)", spelling.name("damping"))));
        }
        if !(0.0..1.0).contains(&fem_damping) {
            return Err(input(format!(
                "{} = {fem_damping}: the FEM's damping ratio must be in [0, 1)",
                spelling.name("fem_damping")
            )));
        }
        Ok(())
    }

    /// Checks the model and the step (naming a refused option in `spelling`), the window's budget (before
    /// any step), and builds both problems; with the warnings about the inputs (masses other than the
    /// engine's, with the rest-state difference they make) for the front end to print.
    pub fn test(&self, spelling: Spelling) -> Result<(ReleaseTest, Vec<String>), FitJobError> {
        let input = FitJobError::Input;
        let (kind, material, dt, nit, damping, fem_damping) =
            (self.kind, self.material, self.dt, self.nit, self.damping, self.fem_damping);
        Self::check_model(kind, dt, nit, damping, fem_damping, spelling)?;
        let (set, _) = self.body.load(Some(kind), spelling)?;
        if set.is_compound() {
            return Err(input(format!("scene {}: the release test takes one part at a time", set.name())));
        }
        let n = self.body.resolution(&set, spelling)?;
        let reference = pbdfit_mesh::ReferenceOptions { material: self.law.clone(), ..Default::default() };
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
        let first = (modes.angular[0], modes.shapes.into_iter().next().unwrap_or_default());
        let labels = Labels {
            scene: body.scene.clone(),
            body: scene.summary(),
            n: body.n,
            mass_model: body.mass_model.name(),
            release: self.release.name(),
            material: spec.material.name(),
        };
        let window = self.window(labels, "FEM", material, first, spelling)?;
        let given = self.body.mass_model().ok().flatten();
        let option = spelling.name("mass_model");
        let warnings = crate::mass_model_warning(&set, crate::Settings::new(dt, n, nit, kind), None, given, &option)
            .into_iter()
            .collect();
        let system = PbdSystem::new(&body);
        let unloaded = match self.release {
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
        let test = ReleaseTest { body, problem, system, release: self.release, unloaded, spec, window };
        Ok((test, warnings))
    }
}
