//! The `fem` and `modes` jobs on a sheet scene ([`SheetScene`]): the shell reference of
//! `pbdfit_fem::shell` (the linear CST + DKT shell, or the corotational one for large rotations, solved
//! by Newton with load stepping) and the linear shell's modes, reported in the solids' reports
//! ([`FemReport`], [`ModesReport`]) with the sheet's triangles, thickness and rotations.
//!
//! The keywords are the solids' jobs'; those a sheet has no use for are refused naming them (a dynamic
//! reference, a consistent or uniform mass, a tetrahedral split, an orientation repair), and `young` and
//! `poisson` default to the scene's material (a steel plate's, a fabric's) where the job gives none.

use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{
    CorotationalShell, LinearShell, MembraneLaw, NODE_DOFS, SHELL_NEWTON, ShellConstraints, ShellError, ShellLoad,
    ShellSolution, Support,
};
use pbdfit_fit::{FitJobError, Spelling};
use pbdfit_mesh::{BodySummary, SheetBody, SheetScene, SheetSupport};

use crate::fem_job::FemReport;
use crate::modes_job::{ModeReport, ModesReport};

/// The shell reference a sheet's `fem` solves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellReference {
    /// The linear shell: small displacements and rotations.
    Linear,
    /// The corotational shell (large rotations, small strains) with this membrane law.
    Corotational(MembraneLaw),
}

impl ShellReference {
    /// From the reference material's name: `linear`, `corotational` (a linear membrane) or `stvk` (a
    /// Saint Venant-Kirchhoff membrane).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "linear" => Some(Self::Linear),
            "corotational" => Some(Self::Corotational(MembraneLaw::Linear)),
            "stvk" => Some(Self::Corotational(MembraneLaw::StVenantKirchhoff)),
            _ => None,
        }
    }

    /// The reference's id in reports.
    pub fn id(self) -> &'static str {
        match self {
            Self::Linear => "linear shell",
            Self::Corotational(MembraneLaw::Linear) => "corotational shell",
            Self::Corotational(MembraneLaw::StVenantKirchhoff) => "corotational shell, stvk membrane",
        }
    }
}

/// Whether the job's scene is a sheet scene.
pub fn is_sheet(body: &pbdfit_fit::Body) -> bool {
    SheetScene::names_sheet(&body.scene)
}

/// A sheet scene loaded for a job: its body options applied (a refusal naming the option), the options a
/// sheet has no use for refused, the material resolved over the scene's.
fn load(
    body: &pbdfit_fit::Body,
    elastic: pbdfit_fit::Material,
    spelling: Spelling,
) -> Result<(SheetScene, SheetBody, YoungPoisson), FitJobError> {
    let input = FitJobError::Input;
    let scene = SheetScene::load(&body.scene).map_err(|e| input(e.to_string()))?;
    if body.fix_orientation {
        return Err(input(format!(
            "{}: applies to imported tetrahedral meshes, and scene {} is a sheet",
            spelling.name("fix_orientation"),
            scene.name
        )));
    }
    if let Some(m) = body.mass_model.as_deref().filter(|m| *m != "lumped") {
        return Err(input(format!(
            "{} = {m}: a sheet's masses are lumped (a third of each triangle's to each of its vertices)",
            spelling.name("mass_model")
        )));
    }
    let scale = body.scale;
    let scene = scene
        .with_body(scale.density, scale.size, scale.thickness)
        .map_err(|e| input(format!("{} {e}", spelling.name(e.option()))))?;
    let n = scene.resolution(body.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
    let sheet = scene.body(Some(n)).map_err(|e| input(e.to_string()))?;
    let young = elastic.young.or(scene.young).unwrap_or(pbdfit_fit::YOUNG);
    let poisson = elastic.poisson.or(scene.poisson).unwrap_or(pbdfit_fit::POISSON);
    let material = YoungPoisson::new(young, poisson).map_err(|e| input(e.to_string()))?;
    Ok((scene, sheet, material))
}

/// Refuses each given option of `given` (their keyword names) as a solid's.
fn refuse_solid_options(given: &[&str], scene: &str, spelling: Spelling) -> Result<(), FitJobError> {
    match given.first() {
        None => Ok(()),
        Some(option) => Err(FitJobError::Input(format!(
            "{}: applies to tetrahedral solids, and scene {scene} is a sheet (its reference is the static shell, \
             with lumped masses)",
            spelling.name(option)
        ))),
    }
}

/// The held DOFs of a sheet body.
fn constraints(body: &SheetBody) -> ShellConstraints {
    let mut c = ShellConstraints::new(body.held.len());
    for (v, held) in body.held.iter().enumerate() {
        match held {
            Some(SheetSupport::Clamped) => c.support(v, Support::Clamped),
            Some(SheetSupport::Pinned) => c.support(v, Support::SimplySupported),
            None => &mut c,
        };
    }
    c
}

fn shell_error(scene: &str, n: usize, e: ShellError) -> FitJobError {
    FitJobError::Input(format!("shell reference of {scene} at n = {n}: {e}"))
}

/// A sheet's `fem` job, checked.
#[derive(Debug)]
pub struct PreparedSheetFem {
    /// The scene (with the job's body).
    pub scene: SheetScene,
    /// Its body at the job's resolution.
    pub body: SheetBody,
    /// The material.
    pub material: YoungPoisson,
    /// The reference.
    pub reference: ShellReference,
}

/// Checks a `fem` job on a sheet scene.
pub fn prepare_fem(job: &crate::FemKeywords, spelling: Spelling) -> Result<PreparedSheetFem, FitJobError> {
    let (scene, body, material) = load(&job.body, job.elastic, spelling)?;
    let r = &job.reference;
    let mut solid: Vec<&str> = Vec::new();
    for (given, name) in [
        (r.dynamic, "dynamic"),
        (r.time.is_some(), "time"),
        (r.fem_mass.is_some(), "fem_mass"),
        (r.rayleigh.is_some(), "rayleigh"),
        (r.split.is_some(), "split"),
    ] {
        if given {
            solid.push(name);
        }
    }
    refuse_solid_options(&solid, &scene.name, spelling)?;
    let name = r.material.clone().or_else(|| scene.reference.clone()).unwrap_or_else(|| "corotational".into());
    let reference = ShellReference::parse(&name).ok_or_else(|| {
        FitJobError::Input(format!(
            "{} = {name}: a sheet's reference is the linear, corotational or stvk shell",
            spelling.name("material")
        ))
    })?;
    Ok(PreparedSheetFem { scene, body, material, reference })
}

fn xyz(v: &pbdfit_mesh::Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

impl PreparedSheetFem {
    /// Solves the shell reference under the sheet's weight.
    pub fn solve(self) -> Result<FemReport, FitJobError> {
        let PreparedSheetFem { scene, body, material, reference } = self;
        let start = std::time::Instant::now();
        let held = constraints(&body);
        let load = ShellLoad::gravity(&body.sheet, body.gravity);
        let failed = |e| shell_error(&scene.name, body.n, e);
        let (solution, note): (ShellSolution, Option<String>) = match reference {
            ShellReference::Linear => {
                let shell = LinearShell::new(&body.sheet, material).map_err(failed)?;
                (shell.solve(&held, &load).map_err(failed)?, None)
            }
            ShellReference::Corotational(membrane) => {
                let shell = CorotationalShell::with_membrane(&body.sheet, material, membrane).map_err(failed)?;
                let s = shell.solve(&held, &load, &SHELL_NEWTON).map_err(failed)?;
                let note = format!(
                    "{} load increments ({} halved), {} Newton iterations",
                    s.increments, s.halvings, s.iterations
                );
                (s.displacements, Some(note))
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let mesh = &body.sheet.mesh;
        let fixed = held_dofs(&held, mesh.vertices().len());
        let summary = scene.summary();
        let largest = (0..mesh.vertices().len()).map(|v| solution.translation(v).norm()).fold(0.0, f64::max);
        let warning = (largest > summary.size_m).then(|| {
            format!(
                "scene {}: the largest displacement, {largest:.3e} m, exceeds the sheet's size ({:.3e} m across)",
                scene.name, summary.size_m
            )
        });
        Ok(FemReport {
            scene: scene.name.clone(),
            body: summary,
            n: body.n,
            young: material.young(),
            poisson: material.poisson(),
            mass_model: "lumped",
            reference: reference.id().to_string(),
            vertices: mesh.vertices().iter().map(xyz).collect(),
            tets: Vec::new(),
            triangles: mesh.triangles().to_vec(),
            fixed: body.held_indices(),
            masses: body.sheet.lumped_masses(),
            displacements: (0..mesh.vertices().len()).map(|v| xyz(&solution.translation(v))).collect(),
            rotations: Some(solution.displacements.iter().map(|d| [d[3], d[4], d[5]]).collect()),
            contact: None,
            dofs: NODE_DOFS * mesh.vertices().len() - fixed,
            seconds,
            warning,
            solve_note: note,
        })
    }
}

/// The number of fixed DOFs.
fn held_dofs(held: &ShellConstraints, vertices: usize) -> usize {
    (0..vertices).map(|v| (0..NODE_DOFS).filter(|&k| held.is_fixed(v, k)).count()).sum()
}

/// A sheet's `modes` job, checked.
#[derive(Debug)]
pub struct PreparedSheetModes {
    /// The scene (with the job's body).
    pub scene: SheetScene,
    /// Its body at the job's resolution.
    pub body: SheetBody,
    /// The material.
    pub material: YoungPoisson,
    /// How many modes.
    pub count: usize,
}

/// Checks a `modes` job on a sheet scene.
pub fn prepare_modes(
    job: &crate::ModesKeywords,
    count: usize,
    spelling: Spelling,
) -> Result<PreparedSheetModes, FitJobError> {
    let (scene, body, material) = load(&job.body, job.elastic, spelling)?;
    let mut solid: Vec<&str> = Vec::new();
    if job.split.is_some() {
        solid.push("split");
    }
    if job.fem_mass.as_deref().is_some_and(|m| m != "lumped") {
        solid.push("fem_mass");
    }
    refuse_solid_options(&solid, &scene.name, spelling)?;
    if let Some(name) = &job.material
        && ShellReference::parse(name).is_none()
    {
        return Err(FitJobError::Input(format!(
            "{} = {name}: a sheet's reference is the linear, corotational or stvk shell (the same stiffness at rest)",
            spelling.name("material")
        )));
    }
    let free = NODE_DOFS * body.held.len() - held_dofs(&constraints(&body), body.held.len());
    if count > free {
        return Err(FitJobError::Input(format!(
            "{} = {count}: scene {} at n = {} has {free} free degrees of freedom",
            spelling.name("count"),
            scene.name,
            body.n
        )));
    }
    Ok(PreparedSheetModes { scene, body, material, count })
}

impl PreparedSheetModes {
    /// The lowest modes of the linear shell about the flat rest state, with its lumped mass (rotary
    /// inertia included). Each mode's shape in the report is its translations; the effective modal masses
    /// are those of the translations.
    pub fn run(self) -> Result<ModesReport, FitJobError> {
        let PreparedSheetModes { scene, body, material, count } = self;
        let start = std::time::Instant::now();
        let failed = |e| shell_error(&scene.name, body.n, e);
        let shell = LinearShell::new(&body.sheet, material).map_err(failed)?;
        let held = constraints(&body);
        let modes = shell.modes(&held, count).map_err(failed)?;
        let masses = body.sheet.lumped_masses();
        let free: Vec<usize> = (0..masses.len()).filter(|&v| body.held[v].is_none()).collect();
        let free_mass: f64 = free.iter().map(|&v| masses[v]).sum();
        let reports = (0..count)
            .map(|i| {
                let shape = &modes.shapes[i];
                let participation = |d: usize| free.iter().map(|&v| masses[v] * shape[v][d]).sum::<f64>();
                ModeReport {
                    frequency: modes.angular[i] / std::f64::consts::TAU,
                    angular: modes.angular[i],
                    period: std::f64::consts::TAU / modes.angular[i],
                    mass_fractions: [0, 1, 2].map(|d| participation(d).powi(2) / free_mass),
                    residual: modes.residuals[i],
                    shape: shape.iter().map(|u| [u[0], u[1], u[2]]).collect(),
                }
            })
            .collect();
        let summary: BodySummary = scene.summary();
        Ok(ModesReport {
            scene: scene.name.clone(),
            body: summary,
            n: body.n,
            young: material.young(),
            poisson: material.poisson(),
            mass_model: "lumped",
            material: "linear shell",
            fem_mass: "lumped",
            dofs: NODE_DOFS * masses.len() - held_dofs(&held, masses.len()),
            free_mass,
            iterations: modes.iterations,
            seconds: start.elapsed().as_secs_f64(),
            modes: reports,
            pbdfit_version: env!("CARGO_PKG_VERSION"),
        })
    }
}
