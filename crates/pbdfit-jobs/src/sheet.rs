//! The `fem` and `modes` jobs on a sheet scene ([`SheetScene`]): the shell reference of
//! `pbdfit_fem::shell` (the linear CST + DKT shell, or the corotational one for large rotations, solved
//! by Newton with load stepping) and the linear shell's modes, reported in the solids' reports
//! ([`FemReport`], [`ModesReport`]) with the sheet's triangles, thickness and rotations.
//!
//! A dynamic `fem` (`dynamic`, with `time`, `rayleigh` and `dt` as a solid's) runs the corotational
//! shell's transient (`CorotationalShell::integrate`: implicit Euler, as the solids' dynamic reference,
//! to rest or for the time, from the flat sheet at rest under its weight) and reports its end state.
//!
//! The keywords are the solids' jobs'; those a sheet has no use for are refused naming them (a
//! consistent or uniform mass, a tetrahedral split, an orientation repair, the linear shell in a dynamic
//! reference), and `young` and `poisson` default to the scene's material (a steel plate's, a fabric's)
//! where the job gives none.

use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{LinearShell, NODE_DOFS, ShellConstraints, ShellError};
use pbdfit_fit::{
    FitJobError, LoadedSheet, Spelling, refuse_solid_options, shell_constraints, solve_shell_dynamic,
    solve_shell_with_contact,
};
use pbdfit_mesh::{BodySummary, SheetBody, SheetScene};

use crate::fem_job::FemReport;
use crate::modes_job::{ModeReport, ModesReport};

pub use pbdfit_fit::ShellReference;

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
    /// A dynamic reference's settings (its time step, stop and damping); `None`: the static solve.
    pub dynamic: Option<(pbdfit_fem::DynamicSettings, String)>,
}

/// Checks a `fem` job on a sheet scene, as loaded.
pub fn prepare_fem(
    job: &crate::FemKeywords,
    sheet: LoadedSheet,
    spelling: Spelling,
) -> Result<PreparedSheetFem, FitJobError> {
    let LoadedSheet { scene, body, material } = sheet;
    let options = &job.reference;
    // The law from the options without the dynamic ones, which the solids' reference checks (time, mass
    // and damping only with a dynamic solve; their values) and a sheet takes as a solid does.
    let law =
        pbdfit_mesh::ReferenceOptions { dynamic: false, time: None, fem_mass: None, rayleigh: None, ..options.clone() };
    let reference = ShellReference::of_job(&law, &scene, spelling)?;
    if !options.dynamic {
        let given = [
            (options.time.is_some(), "time"),
            (options.fem_mass.is_some(), "fem_mass"),
            (options.rayleigh.is_some(), "rayleigh"),
        ];
        if let Some((_, option)) = given.iter().find(|(g, _)| *g) {
            return Err(FitJobError::Input(format!(
                "{}: only with {} (the shell's transient); scene {} is solved statically without it",
                spelling.name(option),
                spelling.name("dynamic"),
                scene.name
            )));
        }
    }
    let timing = pbdfit_mesh::ReferenceOptions {
        dynamic: options.dynamic,
        time: options.time,
        fem_mass: options.fem_mass.clone(),
        rayleigh: options.rayleigh,
        ..Default::default()
    };
    let spec = pbdfit_fem::ReferenceSpec::from_options(&timing)
        .map_err(|e| FitJobError::Input(format!("scene {}: {e}", scene.name)))?;
    let dynamic = match spec.dynamic_settings(job.step.dt) {
        None => None,
        Some(settings) => {
            if settings.mass != pbdfit_fem::MassMatrix::Lumped {
                return Err(FitJobError::Input(format!(
                    "{} = {}: a sheet's mass is lumped (the translations' and the plate's rotary inertia, as its \
                     modes take it)",
                    spelling.name("fem_mass"),
                    settings.mass.name()
                )));
            }
            if !body.obstacles.is_empty() {
                return Err(FitJobError::Input(format!(
                    "{}: the shell's transient has no contact, and scene {} has obstacles (its static equilibrium \
                     with contact is `fem` without it)",
                    spelling.name("dynamic"),
                    scene.name
                )));
            }
            if reference == ShellReference::Linear {
                return Err(FitJobError::Input(format!(
                    "{} = linear with {}: a sheet's transient is the corotational shell's (corotational or stvk), \
                     whose rotations may grow large",
                    spelling.name("material"),
                    spelling.name("dynamic")
                )));
            }
            if !(job.step.dt.is_finite() && job.step.dt > 0.0) {
                return Err(FitJobError::Input(format!(
                    "{} = {}: a time step must be a finite number > 0",
                    spelling.name("dt"),
                    job.step.dt
                )));
            }
            // The solids' id without its law: `dynamic lumped rest`, `dynamic lumped t=2 a=1 b=0`.
            let id = spec.id();
            let words = id.split_once(' ').map_or(id.as_str(), |(_, rest)| rest);
            Some((settings, format!("{} {words}", reference.id())))
        }
    };
    Ok(PreparedSheetFem { scene, body, material, reference, dynamic })
}

fn xyz(v: &pbdfit_mesh::Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

impl PreparedSheetFem {
    /// Solves the shell reference under the sheet's weight: static, or its transient (telling `progress`
    /// after every step).
    pub fn solve(self, progress: &mut dyn FnMut(&pbdfit_fem::DynamicProgress)) -> Result<FemReport, FitJobError> {
        let PreparedSheetFem { scene, body, material, reference, dynamic } = self;
        let start = std::time::Instant::now();
        let failed = |e| shell_error(&scene.name, body.n, e);
        let (solution, note, id, contact) = match (&dynamic, reference) {
            (Some((settings, id)), ShellReference::Corotational(membrane)) => {
                let (solution, note) =
                    solve_shell_dynamic(&body, material, membrane, settings, progress).map_err(failed)?;
                (solution, Some(note), id.clone(), None)
            }
            _ => {
                let (solution, note, contact) = solve_shell_with_contact(&body, material, reference).map_err(failed)?;
                (solution, note, reference.id().to_string(), contact)
            }
        };
        let held = shell_constraints(&body);
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
            reference: id,
            vertices: mesh.vertices().iter().map(xyz).collect(),
            tets: Vec::new(),
            triangles: mesh.triangles().to_vec(),
            fixed: body.held_indices(),
            masses: body.sheet.lumped_masses(),
            displacements: (0..mesh.vertices().len()).map(|v| xyz(&solution.translation(v))).collect(),
            rotations: Some(solution.displacements.iter().map(|d| [d[3], d[4], d[5]]).collect()),
            contact: contact.map(|c| {
                let load: pbdfit_mesh::Vec3 = body.sheet.lumped_masses().iter().map(|m| body.gravity * *m).sum();
                crate::fem_job::ContactReport::from_parts(&c.contacts, load, c.total_reaction())
            }),
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

/// Checks a `modes` job on a sheet scene, as loaded.
pub fn prepare_modes(
    job: &crate::ModesKeywords,
    sheet: LoadedSheet,
    count: usize,
    spelling: Spelling,
) -> Result<PreparedSheetModes, FitJobError> {
    let LoadedSheet { scene, body, material } = sheet;
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
    let free = NODE_DOFS * body.held.len() - held_dofs(&shell_constraints(&body), body.held.len());
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
        let held = shell_constraints(&body);
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
