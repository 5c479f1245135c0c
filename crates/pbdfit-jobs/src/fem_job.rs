//! One FEM reference job: `pbdfit fem` and Python's `pbdfit.fem` fill a [`FemKeywords`] (the command
//! line's options under their Python names), which is checked here ([`FemKeywords::prepare`]) and solved
//! part by part ([`FemSetup::solve`], with the front end's progress display), so both compute the same
//! reference the same way: the Python copy had drifted (no mass model, no dynamic mass or damping, a solve
//! without the contact report).

use pbdfit_fem::{ContactSolution, DynamicProgress, ReferenceOverrides, ReferenceSpec, StaticProblem, YoungPoisson};
use pbdfit_mesh::{Body, SceneSet, Vec3};
use serde::Serialize;

use pbdfit_fit::{FitJobError, Spelling};

/// An FEM reference of a scene, as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FemKeywords {
    /// A built-in scene name or a scene file.
    pub scene: String,
    /// Mesh resolution (default: each part's own).
    pub n: Option<usize>,
    /// Young's modulus in Pa (default 1e3).
    pub young: Option<f64>,
    /// Poisson ratio (default 0.3).
    pub poisson: Option<f64>,
    /// `lumped` or `uniform`.
    pub mass_model: Option<String>,
    /// Reorient an imported mesh's negatively oriented tetrahedra.
    pub fix_orientation: bool,
    /// The body's density and size over the scene's (`density`, `size`).
    #[serde(flatten)]
    pub body: pbdfit_fit::BodyKeywords,
    /// Time step in s of a dynamic reference (default 0.01).
    pub dt: Option<f64>,
    /// The FEM reference's options (`material`, `dynamic`, `time`, `fem_mass`, `rayleigh`, `split`).
    #[serde(flatten)]
    pub reference: pbdfit_fit::ReferenceKeywords,
}

/// An FEM job: [`FemKeywords`] under another name.
pub type FemJob = FemKeywords;

/// A job checked, its parts' problems built, ready to solve.
#[derive(Debug)]
pub struct PreparedFem {
    /// The scene (with the job's mass model).
    pub set: SceneSet,
    /// The material.
    pub material: YoungPoisson,
    /// The time step of a dynamic reference (s).
    pub dt: f64,
    /// One setup per part.
    pub parts: Vec<FemSetup>,
    /// What the front end should tell the user on its way (an imported mesh's size and repairs).
    pub notes: Vec<String>,
    /// Warnings about the inputs (a nearly incompressible material's locking).
    pub warnings: Vec<String>,
}

/// One part's FEM problem.
#[derive(Debug)]
pub struct FemSetup {
    /// The part's scene name.
    pub scene: String,
    /// Its resolution.
    pub n: usize,
    /// Its body (with the reference's split).
    pub body: Body,
    /// Its reference.
    pub spec: ReferenceSpec,
    problem: StaticProblem,
}

/// One part's solved reference.
#[derive(Debug)]
pub struct FemPart {
    /// Its body.
    pub body: Body,
    /// Its reference.
    pub spec: ReferenceSpec,
    /// Rest displacements (m, per vertex).
    pub displacements: Vec<Vec3>,
    /// With obstacles: the contact solution (forces, states).
    pub contact: Option<ContactSolution>,
    /// Degrees of freedom.
    pub dofs: usize,
    /// Wall-clock seconds of the solve.
    pub seconds: f64,
    /// Its resolution.
    pub n: usize,
    /// A warning about the result (a displacement beyond the body's size).
    pub warning: Option<String>,
}

impl FemKeywords {
    /// The keywords' names (Python's spelling).
    pub fn names() -> Vec<String> {
        pbdfit_fit::keyword_names::<FemKeywords>()
    }

    /// The job from a JSON object of its keywords (Python's call), unknown keywords refused.
    pub fn from_json(text: &str) -> Result<Self, String> {
        pbdfit_fit::keywords_from_json(text)
    }

    /// Checks the job (naming a refused option in `spelling`) and builds each part's problem.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedFem, FitJobError> {
        let input = FitJobError::Input;
        let material = YoungPoisson::new(self.young.unwrap_or(1e3), self.poisson.unwrap_or(0.3))
            .map_err(|e| input(e.to_string()))?;
        let (set, notes) = pbdfit_fit::load_scene(
            &self.scene,
            self.fix_orientation,
            self.mass_model.as_deref(),
            self.body,
            None,
            spelling,
        )?;
        let n = set.resolution(self.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
        let warnings: Vec<String> = material.locking_warning().into_iter().map(|w| w.to_string()).collect();
        let table = self.reference.table();
        let overrides =
            ReferenceOverrides::from_table(&table).map_err(|e| input(format!("the reference options: {e}")))?;
        let mut parts = Vec::new();
        for scene in set.scenes() {
            let spec = pbdfit_fit::reference_spec(scene, &overrides).map_err(|e| input(e.to_string()))?;
            let body = scene.body_split(n, spec.split).map_err(|e| input(e.to_string()))?;
            // The scene loader guarantees a valid body, but not that its held vertices stop every rigid
            // motion (all on one line): that, like a solve that fails (Newton, an inverted element, no
            // rest), is the input's. Other failures to build the problem are ours.
            let problem = StaticProblem::new(&body).map_err(|e| {
                let message = format!("FEM problem of {} at N = {n}: {e}", scene.name);
                if e.is_input() { input(message) } else { FitJobError::Internal(message) }
            })?;
            parts.push(FemSetup { scene: scene.name.clone(), n, body, spec, problem });
        }
        Ok(PreparedFem { set, material, dt: self.dt.unwrap_or(0.01), parts, notes, warnings })
    }
}

impl FemSetup {
    /// Solves the part's reference: with obstacles, one contact solve gives the displacements and the
    /// forces; a dynamic reference reports its steps to `progress`.
    pub fn solve(
        self,
        material: YoungPoisson,
        dt: f64,
        progress: &mut dyn FnMut(&DynamicProgress),
    ) -> Result<FemPart, FitJobError> {
        let FemSetup { scene, n, body, spec, problem } = self;
        let start = std::time::Instant::now();
        let failed =
            |e: pbdfit_fem::FemError| FitJobError::Input(format!("{} reference of {scene} at N = {n}: {e}", spec.id()));
        let contact = spec.contact(&problem, material).map_err(failed)?;
        let displacements = match &contact {
            Some(c) => c.displacements.clone(),
            None => spec.displacements_observed(&problem, material, dt, progress).map_err(failed)?,
        };
        let seconds = start.elapsed().as_secs_f64();
        let largest = displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        let warning = (largest > body.size()).then(|| {
            format!(
                "scene {scene}: the largest displacement, {largest:.3e} m, exceeds the body's size ({:.3e} m \
                 across): a linear reference means little at such strains (is E too small, or the load too large?)",
                body.size()
            )
        });
        Ok(FemPart { dofs: problem.dofs(), body, spec, displacements, contact, seconds, n, warning })
    }
}
