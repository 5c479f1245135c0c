//! `pbdfit fem`: the FEM rest state of a scene, as a summary, JSON or a VTK file for ParaView.

use std::path::{Path, PathBuf};

use clap::Args;
use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::vtk::{PointData, write_vtu};
use pbdfit_mesh::{Body, BodySummary, MassModel};
use serde::Serialize;

use pbdfit_jobs::{FemJob, FemPart as Part, Spelling};

use crate::cli::{BodyArgs, CliError, CliResult, ReferenceArgs};

/// Arguments of `pbdfit fem`.
#[derive(Debug, Args)]
pub struct FemArgs {
    /// Built-in scene name (gravity-floor, gravity-wall, gravity-ceiling, gravity) or a scene TOML file.
    #[arg(long)]
    scene: String,
    /// Mesh resolution N (hexahedra per cube edge); default: the scene's own.
    #[arg(long)]
    n: Option<usize>,
    /// Young's modulus E in Pa (> 0).
    #[arg(long, default_value_t = 1e3, allow_negative_numbers = true)]
    young: f64,
    /// Poisson ratio nu (-1 < nu < 0.5).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    poisson: f64,
    /// Override the scene's mass model: lumped or uniform.
    #[arg(long, value_name = "lumped|uniform")]
    mass_model: Option<MassModel>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh (and say how many) instead of
    /// refusing the mesh.
    #[arg(long)]
    fix_orientation: bool,
    /// Print one JSON object (a JSON array of them for a compound scene) instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write the mesh with point data displacement (m), held (0/1) and mass (kg) to this `.vtu` file;
    /// for a compound scene one file per part, the part name inserted before the extension.
    #[arg(long, value_name = "OUT.vtu")]
    vtk: Option<PathBuf>,
    /// Time step in s of a dynamic reference (--dynamic), as a decimal or a fraction (`1/200`).
    #[arg(long, default_value_t = 0.01, value_parser = |s: &str| pbdfit_table::axes::parse_number(s), allow_hyphen_values = true)]
    dt: f64,
    #[command(flatten)]
    body: BodyArgs,
    #[command(flatten)]
    reference: ReferenceArgs,
}

/// The contact forces in `--json` (a body with obstacles): per vertex and obstacle in contact, and the
/// totals that balance (`total_load + total_contact_force + total_reaction = 0`, N).
#[derive(Serialize)]
struct ContactJson {
    /// Each vertex-obstacle pair at or in contact: vertex, obstacle (index in the scene's `[[obstacle]]`
    /// order), state (`stick`, `slip`, `open`), gap (m), outward normal, normal force (N, >= 0),
    /// tangential (friction) force (N) and slip over the last load increment (m).
    forces: Vec<ContactForceJson>,
    total_contact_force: [f64; 3],
    total_load: [f64; 3],
    total_reaction: [f64; 3],
}

#[derive(Serialize)]
struct ContactForceJson {
    vertex: usize,
    obstacle: usize,
    state: &'static str,
    gap: f64,
    normal: [f64; 3],
    normal_force: f64,
    tangential_force: [f64; 3],
    slip: [f64; 3],
}

fn xyz(v: &pbdfit_mesh::Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn contact_json(body: &Body, c: &pbdfit_fem::ContactSolution) -> ContactJson {
    let load: pbdfit_mesh::Vec3 = body.external_forces().iter().sum();
    let reaction: pbdfit_mesh::Vec3 =
        c.reactions.iter().map(|(_, f)| f).chain(c.roller_reactions.iter().map(|(_, f)| f)).sum();
    ContactJson {
        forces: c
            .contacts
            .iter()
            .map(|f| ContactForceJson {
                vertex: f.vertex,
                obstacle: f.obstacle,
                state: f.state.name(),
                gap: f.gap,
                normal: xyz(&f.normal),
                normal_force: f.normal_force,
                tangential_force: xyz(&f.tangential_force),
                slip: xyz(&f.slip),
            })
            .collect(),
        total_contact_force: xyz(&c.total_contact_force()),
        total_load: xyz(&load),
        total_reaction: xyz(&reaction),
    }
}

/// The `--json` record of one scene part, in docs/method.md's vertex numbering.
#[derive(Serialize)]
struct FemJson<'a> {
    scene: &'a str,
    body: BodySummary,
    n: usize,
    young: f64,
    poisson: f64,
    mass_model: &'static str,
    reference: String,
    vertices: Vec<[f64; 3]>,
    tets: &'a [[usize; 4]],
    fixed: Vec<usize>,
    masses: &'a [f64],
    displacements: Vec<[f64; 3]>,
    /// A body with obstacles: the contact forces and the force balance.
    #[serde(skip_serializing_if = "Option::is_none")]
    contact: Option<ContactJson>,
}

/// Runs `pbdfit fem`.
pub fn run(args: FemArgs) -> CliResult {
    if let Some(path) = &args.vtk
        && path.extension().and_then(|e| e.to_str()) != Some("vtu")
    {
        return Err(CliError::Input(format!("--vtk {}: the file name must end in .vtu", path.display())));
    }
    let job = FemJob {
        scene: args.scene.clone(),
        n: args.n,
        young: Some(args.young),
        poisson: Some(args.poisson),
        mass_model: args.mass_model.map(|m| m.name().to_string()),
        fix_orientation: args.fix_orientation,
        body: args.body,
        dt: Some(args.dt),
        reference: args.reference.clone(),
    };
    let prepared = job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    for warning in &prepared.warnings {
        eprintln!("pbdfit: warning: {warning}");
    }
    let (set, material, dt) = (prepared.set, prepared.material, prepared.dt);
    // The output path checked before the solve; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in set.scenes() {
            crate::cli::check_output_file(
                "--vtk",
                &crate::cli::part_path(path, &scene.name, set.is_compound()),
                false,
            )?;
        }
    }
    let mut parts = Vec::new();
    for setup in prepared.parts {
        let scene = setup.scene.clone();
        let part = with_dynamic_progress(&scene, |progress| setup.solve(material, dt, progress))
            .map_err(crate::fit::job_error)?;
        if let Some(warning) = &part.warning {
            eprintln!("pbdfit: warning: {warning}");
        }
        parts.push(part);
    }
    if args.json {
        let records: Vec<FemJson> =
            parts.iter().zip(set.bodies()).map(|(p, body)| json_record(p, body, material)).collect();
        let text = if set.is_compound() { serde_json::to_string(&records) } else { serde_json::to_string(&records[0]) }
            .map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        println!("{text}");
    } else {
        for (part, body) in parts.iter().zip(set.bodies()) {
            print_summary(part, &body, material);
        }
    }
    if let Some(path) = &args.vtk {
        for part in &parts {
            let file = crate::cli::part_path(path, &part.body.scene, set.is_compound());
            write_vtk(&file, part)?;
        }
    }
    Ok(())
}

fn write_vtk(path: &Path, part: &Part) -> CliResult {
    let body = &part.body;
    let held = body.held.iter().map(|&h| if h { 1.0 } else { 0.0 }).collect();
    write_vtu(
        path,
        body.mesh.vertices(),
        body.mesh.tets(),
        &[
            ("displacement", PointData::Vectors(part.displacements.clone())),
            ("held", PointData::Scalars(held)),
            ("mass", PointData::Scalars(body.masses.clone())),
        ],
    )
    .map_err(|e| CliError::Input(format!("--vtk: {e}")))
}

fn json_record(part: &Part, summary: BodySummary, material: YoungPoisson) -> FemJson<'_> {
    let body = &part.body;
    FemJson {
        scene: &body.scene,
        body: summary,
        n: body.n,
        young: material.young(),
        poisson: material.poisson(),
        mass_model: body.mass_model.name(),
        reference: part.spec.id(),
        vertices: body.mesh.vertices().iter().map(|p| [p.x, p.y, p.z]).collect(),
        tets: body.mesh.tets(),
        fixed: body.held_indices(),
        masses: &body.masses,
        displacements: part.displacements.iter().map(|u| [u.x, u.y, u.z]).collect(),
        contact: part.contact.as_ref().map(|c| contact_json(body, c)),
    }
}

fn print_summary(part: &Part, summary: &BodySummary, material: YoungPoisson) {
    let body = &part.body;
    println!("{}", BodySummary::line(std::slice::from_ref(summary)));
    println!("scene       {}", body.scene);
    println!("N           {}", body.n);
    println!("E           {} Pa", material.young());
    println!("nu          {}", material.poisson());
    println!("mass model  {}", body.mass_model.name());
    println!("reference   {}", part.spec.id());
    println!(
        "DOFs        {} ({} vertices, {} held, {} tetrahedra)",
        part.dofs,
        body.mesh.vertices().len(),
        body.held_indices().len(),
        body.mesh.tets().len()
    );
    let max = part.displacements.iter().map(length).fold(0.0, f64::max);
    println!("max |u|     {max:.10e} m");
    if let Some(c) = &part.contact {
        let j = contact_json(body, c);
        let count = |s: &str| j.forces.iter().filter(|f| f.state == s).count();
        let f = |v: [f64; 3]| format!("({:.4e}, {:.4e}, {:.4e})", v[0], v[1], v[2]);
        println!("contacts    {} stick, {} slip, {} open", count("stick"), count("slip"), count("open"));
        println!(
            "forces      load {} N, contact {} N, held {} N",
            f(j.total_load),
            f(j.total_contact_force),
            f(j.total_reaction)
        );
    }
    println!("time        {:.3} ms", part.seconds * 1e3);
    println!();
}

/// |u| without the underflow of its squares: a body scaled to 1e-100 m moves by about 1e-200 m, whose
/// square is 0 in f64 (printed as "max |u| 0").
fn length(u: &pbdfit_mesh::Vec3) -> f64 {
    let largest = u.amax();
    if largest == 0.0 || !largest.is_finite() { largest } else { largest * (u / largest).norm() }
}

/// Runs `solve` with a progress bar on stderr for its dynamic steps (issue 26: a run of 2,000,000 steps
/// takes hours): a bar when the run has a fixed step count, a spinner with the last step's ratio for a
/// run to rest, plain lines every 10 s when stderr is not a terminal. A static solve shows nothing.
fn with_dynamic_progress<T>(scene: &str, solve: impl FnOnce(&mut dyn FnMut(&pbdfit_fem::DynamicProgress)) -> T) -> T {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::time::{Duration, Instant};
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
    let plain = bar.is_hidden();
    let start = Instant::now();
    let mut last_line = start;
    let mut styled = false;
    let mut progress = |p: &pbdfit_fem::DynamicProgress| {
        // Nothing for the first second: most dynamic references take less.
        if start.elapsed() < Duration::from_secs(1) {
            return;
        }
        if plain {
            if last_line.elapsed() >= Duration::from_secs(10) {
                let of = p.total.map_or(String::new(), |t| format!(" of {t}"));
                eprintln!(
                    "pbdfit: {scene}: dynamic reference, step {}{of} (t = {:.4e} s, last step / largest displacement {:.2e})",
                    p.steps, p.time, p.ratio
                );
                last_line = Instant::now();
            }
            return;
        }
        if !styled {
            let template = match p.total {
                Some(total) => {
                    bar.set_length(total as u64);
                    "{elapsed_precise} [{bar:30}] {pos}/{len} steps, ETA {eta} {msg}"
                }
                None => "{elapsed_precise} {spinner} {pos} steps {msg}",
            };
            bar.set_style(ProgressStyle::with_template(template).expect("progress template").progress_chars("=> "));
            styled = true;
        }
        bar.set_position(p.steps as u64);
        bar.set_message(format!("{scene}: t = {:.3e} s, step ratio {:.1e}", p.time, p.ratio));
    };
    let result = solve(&mut progress);
    bar.finish_and_clear();
    result
}
