//! `pbdfit fem`: the FEM rest state of a scene, as a summary, JSON or a VTK file for ParaView.

use std::path::PathBuf;

use clap::Args;
use pbdfit_mesh::vtk::{PointData, write_vtu, write_vtu_triangles};

use pbdfit_jobs::{FemJob, FemPrepared, FemReport, Job, Spelling};

use crate::cli::{CliError, CliResult};

/// Arguments of `pbdfit fem`: the job's keywords and the outputs.
#[derive(Debug, Args)]
#[command(about = <pbdfit_jobs::FemKeywords as pbdfit_jobs::Job>::ABOUT)]
pub struct FemArgs {
    #[command(flatten)]
    job: FemJob,
    /// Print one JSON object (a JSON array of them for a compound scene) instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write the mesh with point data displacement (m), held (0/1) and mass (kg) to this `.vtu` file (a
    /// sheet's triangles with its rotation (rad) too); for a compound scene one file per part, the part
    /// name inserted before the extension.
    #[arg(long, value_name = "OUT.vtu")]
    vtk: Option<PathBuf>,
}

/// Runs `pbdfit fem`.
pub fn run(args: FemArgs) -> CliResult {
    crate::cli::check_vtu(args.vtk.as_deref())?;
    let prepared = match Job::prepare(&args.job, Spelling::Flag).map_err(crate::fit::job_error)? {
        FemPrepared::Solid(prepared) => prepared,
        sheet @ FemPrepared::Sheet(_) => {
            if let Some(path) = &args.vtk {
                crate::cli::check_output_file("--vtk", path, false)?;
            }
            let report = crate::cli::run_prepared::<FemJob>(sheet, args.json)?;
            for part in &report.parts {
                if let Some(warning) = &part.warning {
                    eprintln!("pbdfit: warning: {warning}");
                }
                if let Some(path) = &args.vtk {
                    write_vtk(path, part)?;
                }
            }
            return Ok(());
        }
    };
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    for warning in &prepared.warnings {
        eprintln!("pbdfit: warning: {warning}");
    }
    let (name, compound) = (prepared.set.name().to_string(), prepared.set.is_compound());
    // The output path checked before the solve; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in prepared.set.scenes() {
            crate::cli::check_output_file("--vtk", &crate::cli::part_path(path, &scene.name, compound), false)?;
        }
    }
    let report = with_dynamic_progress(&name, |progress| {
        let mut context = pbdfit_jobs::Context {
            backend: &pbdfit_pbd::CpuBackend,
            choose: &pbdfit_jobs::cpu,
            progress,
            frames: &mut |_, _, _| Ok(()),
            lines: &mut |_| {},
            fits: &|_| {},
            cancel: None,
        };
        FemJob::run(FemPrepared::Solid(prepared), &mut context)
    })
    .map_err(crate::fit::job_error)?;
    for warning in report.parts.iter().filter_map(|p| p.warning.as_ref()) {
        eprintln!("pbdfit: warning: {warning}");
    }
    crate::cli::print_report(&report, args.json)?;
    if let Some(path) = &args.vtk {
        for part in &report.parts {
            write_vtk(&crate::cli::part_path(path, &part.scene, compound), part)?;
        }
    }
    Ok(())
}

fn write_vtk(path: &std::path::Path, part: &FemReport) -> CliResult {
    let vectors = |v: &[[f64; 3]]| v.iter().map(|&p| pbdfit_mesh::Vec3::from(p)).collect::<Vec<_>>();
    let mut held = vec![0.0; part.vertices.len()];
    part.fixed.iter().for_each(|&v| held[v] = 1.0);
    let mut data = vec![
        ("displacement", PointData::Vectors(vectors(&part.displacements))),
        ("held", PointData::Scalars(held)),
        ("mass", PointData::Scalars(part.masses.clone())),
    ];
    let written = match &part.rotations {
        Some(rotations) => {
            data.push(("rotation", PointData::Vectors(vectors(rotations))));
            write_vtu_triangles(path, &vectors(&part.vertices), &part.triangles, &data)
        }
        None => write_vtu(path, &vectors(&part.vertices), &part.tets, &data),
    };
    written.map_err(|e| CliError::Input(format!("--vtk: {e}")))
}

/// Runs `solve` with a progress bar on stderr for its dynamic steps (a run of 2,000,000 steps
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
