//! One FEM reference job: `pbdfit fem` and Python's `pbdfit.fem` fill a [`FemKeywords`] (the command
//! line's options under their Python names), which is checked here ([`FemKeywords::prepare_solid`], the sheet's in `sheet.rs`) and solved
//! part by part ([`FemSetup::solve`], with the front end's progress display), so both compute the same
//! reference the same way: the Python copy had drifted (no mass model, no dynamic mass or damping, a solve
//! without the contact report).

use pbdfit_fem::{ContactSolution, DynamicProgress, ReferenceSpec, StaticProblem, YoungPoisson};
use pbdfit_mesh::{Body, BodySummary, SceneSet, Vec3};
use serde::Serialize;

use pbdfit_fit::{FitJobError, LoadedBody, Spelling};

/// An FEM reference of a scene, as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct FemKeywords {
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// The material: `young`, `poisson`.
    #[serde(flatten)]
    #[command(flatten)]
    pub elastic: pbdfit_fit::Material,
    /// The time step of a dynamic reference (`dynamic`).
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    /// The FEM reference's options (`material`, `dynamic`, `time`, `fem_mass`, `rayleigh`, `split`).
    #[serde(flatten)]
    #[command(flatten)]
    pub reference: pbdfit_mesh::ReferenceOptions,
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
    /// Checks the job on a solid scene `set` as loaded, with its `notes` (naming a refused option in
    /// `spelling`), and builds each part's problem.
    pub fn prepare_solid(
        &self,
        set: SceneSet,
        notes: Vec<String>,
        spelling: Spelling,
    ) -> Result<PreparedFem, FitJobError> {
        let input = FitJobError::Input;
        let material = self.elastic.checked()?;
        let n = self.body.resolution(&set, spelling)?;
        let warnings: Vec<String> = material.locking_warning().into_iter().map(|w| w.to_string()).collect();
        let overrides = pbdfit_fit::checked_reference(&self.reference)?;
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
        Ok(PreparedFem { set, material, dt: self.step.dt, parts, notes, warnings })
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

/// One part's FEM reference: `pbdfit fem --json`'s object (in docs/method.md's vertex numbering) and what
/// `pbdfit fem` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FemReport {
    /// The part's scene.
    pub scene: String,
    /// Its body's size, density and mass.
    pub body: BodySummary,
    /// Its resolution.
    pub n: usize,
    /// Young's modulus (Pa).
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// The body's mass model.
    pub mass_model: &'static str,
    /// The reference's id.
    pub reference: String,
    /// Rest positions (m).
    pub vertices: Vec<[f64; 3]>,
    /// The tetrahedra's vertices (a solid's; absent from the JSON for a sheet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tets: Vec<[usize; 4]>,
    /// The triangles' vertices (a sheet's; absent from the JSON for a solid).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub triangles: Vec<[usize; 3]>,
    /// The held vertices.
    pub fixed: Vec<usize>,
    /// Vertex masses (kg).
    pub masses: Vec<f64>,
    /// Rest displacements (m).
    pub displacements: Vec<[f64; 3]>,
    /// A sheet's rest rotations, each vertex's rotation vector (rad, global frame); absent for a solid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotations: Option<Vec<[f64; 3]>>,
    /// A body with obstacles: the contact forces and the force balance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact: Option<ContactReport>,
    /// Degrees of freedom (printed, not in the JSON).
    #[serde(skip)]
    pub dofs: usize,
    /// Wall-clock seconds of the solve (printed, not in the JSON).
    #[serde(skip)]
    pub seconds: f64,
    /// A warning about the result (a displacement beyond the body's size), for the front end to show.
    #[serde(skip)]
    pub warning: Option<String>,
    /// How a nonlinear sheet's Newton went (printed, not in the JSON).
    #[serde(skip)]
    pub solve_note: Option<String>,
}

/// The contact forces of a body with obstacles: per vertex and obstacle in contact, and the totals that
/// balance (`total_load + total_contact_force + total_reaction = 0`, N).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContactReport {
    /// Each vertex-obstacle pair at or in contact.
    pub forces: Vec<ContactForce>,
    /// The sum of the contact forces (N).
    pub total_contact_force: [f64; 3],
    /// The sum of the loads (N).
    pub total_load: [f64; 3],
    /// The sum of the held vertices' reactions (N).
    pub total_reaction: [f64; 3],
}

/// One vertex-obstacle pair at or in contact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContactForce {
    /// The vertex.
    pub vertex: usize,
    /// The obstacle (index in the scene's `[[obstacle]]` order).
    pub obstacle: usize,
    /// `stick`, `slip` or `open`.
    pub state: &'static str,
    /// Gap (m).
    pub gap: f64,
    /// Outward normal.
    pub normal: [f64; 3],
    /// Normal force (N, >= 0).
    pub normal_force: f64,
    /// Tangential (friction) force (N).
    pub tangential_force: [f64; 3],
    /// Slip over the last load increment (m).
    pub slip: [f64; 3],
}

fn xyz(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

impl ContactReport {
    fn new(body: &Body, c: &ContactSolution) -> Self {
        let load: Vec3 = body.external_forces().iter().sum();
        let reaction: Vec3 = c.reactions.iter().map(|(_, f)| f).chain(c.roller_reactions.iter().map(|(_, f)| f)).sum();
        Self::from_parts(&c.contacts, load, reaction)
    }

    /// The report of the pairs `contacts`, with the sums of the loads and of the supports' reactions (N).
    pub(crate) fn from_parts(contacts: &[pbdfit_fem::ContactForce], load: Vec3, reaction: Vec3) -> Self {
        let c = contacts;
        let forces = c.iter().map(|f| ContactForce {
            vertex: f.vertex,
            obstacle: f.obstacle,
            state: f.state.name(),
            gap: f.gap,
            normal: xyz(&f.normal),
            normal_force: f.normal_force,
            tangential_force: xyz(&f.tangential_force),
            slip: xyz(&f.slip),
        });
        ContactReport {
            forces: forces.collect(),
            total_contact_force: xyz(&c.iter().map(pbdfit_fem::ContactForce::force).sum()),
            total_load: xyz(&load),
            total_reaction: xyz(&reaction),
        }
    }
}

impl FemReport {
    fn new(part: FemPart, body: BodySummary, material: YoungPoisson) -> Self {
        let b = &part.body;
        FemReport {
            scene: b.scene.clone(),
            body,
            n: b.n,
            young: material.young(),
            poisson: material.poisson(),
            mass_model: b.mass_model.name(),
            reference: part.spec.id(),
            vertices: b.mesh.vertices().iter().map(xyz).collect(),
            tets: b.mesh.tets().to_vec(),
            triangles: Vec::new(),
            fixed: b.held_indices(),
            masses: b.masses.clone(),
            displacements: part.displacements.iter().map(xyz).collect(),
            rotations: None,
            contact: part.contact.as_ref().map(|c| ContactReport::new(b, c)),
            dofs: part.dofs,
            seconds: part.seconds,
            warning: part.warning,
            solve_note: None,
        }
    }
}

impl crate::Report for FemReport {
    fn text(&self) -> String {
        let mut out = BodySummary::line(std::slice::from_ref(&self.body)) + "\n";
        out += &format!("scene       {}\nN           {}\n", self.scene, self.n);
        out += &format!("E           {} Pa\nnu          {}\n", self.young, self.poisson);
        out += &format!("mass model  {}\nreference   {}\n", self.mass_model, self.reference);
        let cells = match self.triangles.len() {
            0 => format!("{} tetrahedra", self.tets.len()),
            t => format!("{t} triangles"),
        };
        out += &format!(
            "DOFs        {} ({} vertices, {} held, {cells})\n",
            self.dofs,
            self.vertices.len(),
            self.fixed.len(),
        );
        let max = self.displacements.iter().map(|u| length(&Vec3::from(*u))).fold(0.0, f64::max);
        out += &format!("max |u|     {max:.10e} m\n");
        if let Some(rotations) = &self.rotations {
            let max = rotations.iter().map(|r| length(&Vec3::from(*r))).fold(0.0, f64::max);
            out += &format!("max |theta| {max:.10e} rad\n");
        }
        if let Some(note) = &self.solve_note {
            out += &format!("Newton      {note}\n");
        }
        if let Some(c) = &self.contact {
            let count = |s: &str| c.forces.iter().filter(|f| f.state == s).count();
            let f = |v: [f64; 3]| format!("({:.4e}, {:.4e}, {:.4e})", v[0], v[1], v[2]);
            out += &format!("contacts    {} stick, {} slip, {} open\n", count("stick"), count("slip"), count("open"));
            out += &format!(
                "forces      load {} N, contact {} N, held {} N\n",
                f(c.total_load),
                f(c.total_contact_force),
                f(c.total_reaction)
            );
        }
        out + &format!("time        {:.3} ms\n\n", self.seconds * 1e3)
    }
}

/// |u| without the underflow of its squares: a body scaled to 1e-100 m moves by about 1e-200 m, whose
/// square is 0 in f64 (printed as "max |u| 0").
fn length(u: &Vec3) -> f64 {
    let largest = u.amax();
    if largest == 0.0 || !largest.is_finite() { largest } else { largest * (u / largest).norm() }
}

/// A `fem` job checked: a solid scene's parts, or a sheet.
#[derive(Debug)]
pub enum FemPrepared {
    /// A tetrahedral solid (or a compound of them).
    Solid(PreparedFem),
    /// A sheet.
    Sheet(Box<crate::sheet::PreparedSheetFem>),
}

impl crate::Job for FemKeywords {
    const NAME: &'static str = "fem";
    const ABOUT: &'static str = "FEM rest state of a scene (linear or nonlinear material, static or dynamic): \
        summary, JSON or VTK";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--young", "2e3"];
    type Prepared = FemPrepared;
    type Report = crate::Parts<FemReport>;

    fn prepare(&self, spelling: Spelling) -> Result<FemPrepared, FitJobError> {
        Ok(match self.body.load_any(None, self.elastic, spelling)? {
            LoadedBody::Sheet(sheet) => {
                FemPrepared::Sheet(Box::new(crate::sheet::prepare_fem(self, *sheet, spelling)?))
            }
            LoadedBody::Solid { set, notes } => FemPrepared::Solid(self.prepare_solid(set, notes, spelling)?),
        })
    }

    fn run(prepared: FemPrepared, context: &mut crate::Context<'_>) -> Result<Self::Report, FitJobError> {
        let prepared = match prepared {
            FemPrepared::Solid(prepared) => prepared,
            FemPrepared::Sheet(sheet) => {
                return Ok(crate::Parts { compound: false, parts: vec![sheet.solve(context.progress)?] });
            }
        };
        let PreparedFem { set, material, dt, parts, .. } = prepared;
        let parts = parts
            .into_iter()
            .zip(set.bodies())
            .map(|(setup, body)| Ok(FemReport::new(setup.solve(material, dt, context.progress)?, body, material)))
            .collect::<Result<_, FitJobError>>()?;
        Ok(crate::Parts { compound: set.is_compound(), parts })
    }
}
