//! `pbdfit simulate`: the PBD rest state of a scene, as a summary, JSON, VTK, or a VTK time series.

use std::path::PathBuf;

use pbdfit_jobs::{SimulateBody, SimulateKeywords, SimulateReport, SimulateRun, Spelling};
use pbdfit_mesh::vtk::{PointData, write_pvd};
use pbdfit_pbd::{PbdSystem, SimParams};

use crate::cli::{BackendName, CliError, CliResult, to_json};
use crate::fit::job_error;

/// Arguments of `pbdfit simulate`: the simulation job's keywords beside the backend and the outputs.
#[derive(Debug, clap::Args)]
#[command(about = <pbdfit_jobs::SimulateKeywords as pbdfit_jobs::Job>::ABOUT, allow_negative_numbers = true)]
pub struct SimulateArgs {
    #[command(flatten)]
    job: SimulateKeywords,
    /// Where the rest state is computed (the GPU steps the dynamics to rest in f32; --method is the CPU's).
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Print one JSON object (an array of them for a compound scene).
    #[arg(long)]
    json: bool,
    /// Write the rest state with its displacement to this .vtu file (a sheet's as triangles).
    #[arg(long)]
    vtk: Option<PathBuf>,
    /// Write the dynamics from the initial state as a VTK time series (frames + .pvd) into this folder
    /// (point data displacement and velocity, and on a body with obstacles contact_force, N per particle).
    #[arg(long)]
    frames: Option<PathBuf>,
    /// With --frames: write every K-th step.
    #[arg(long, default_value_t = 5)]
    frame_every: usize,
    /// With --frames: number of steps to simulate.
    #[arg(long, default_value_t = 500)]
    frame_steps: usize,
    /// With --frames: write the dynamics only, without solving the rest state (nothing is printed; the
    /// frames are those of the same command without it). For motions of bodies whose rest state is costly.
    #[arg(long, requires = "frames", conflicts_with_all = ["json", "vtk", "integrator"])]
    frames_only: bool,
}

/// Runs `pbdfit simulate`.
pub fn run(args: SimulateArgs) -> CliResult {
    let prepared = args.job.prepare(Spelling::Flag).map_err(job_error)?;
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    for warning in &prepared.warnings {
        eprintln!("warning: {warning}");
    }
    let dynamics = matches!(prepared.run, SimulateRun::Dynamics { .. });
    if args.frames.is_some() && !dynamics && !prepared.model.kind().has_projection() {
        return Err(CliError::Input(format!(
            "--frames: model {} has no PBD step; give --integrator to write its dynamics",
            prepared.model.name()
        )));
    }
    let compound = prepared.is_compound();
    // Every output path checked before the work (an unwritable one found after it lost the result), and a
    // previous run's frames cleared from the frames' folder.
    if let Some(path) = &args.vtk {
        for part in &prepared.parts {
            crate::cli::check_output_file("--vtk", &crate::cli::part_path(path, &part.scene, compound), false)?;
        }
    }
    if let Some(dir) = &args.frames {
        crate::cli::check_output_folder("--frames", dir)?;
        for part in &prepared.parts {
            let prefix = if compound { format!("{}-", part.scene) } else { String::new() };
            crate::cli::clear_old_frames(
                "--frames",
                dir,
                &format!("{prefix}frame-"),
                &format!("{prefix}dynamics.pvd"),
            )?;
        }
    }
    // A file that cannot be written after all is reported after the results are printed, never instead.
    let mut write_failure: Option<CliError> = None;
    // Rest states that did not converge: printed, then the command fails naming them.
    let mut unconverged = Vec::new();
    let mut outputs = Vec::new();
    for part in &prepared.parts {
        let body = &part.body;
        let prefix = if compound { format!("{}-", part.scene) } else { String::new() };
        let mut frames = Vec::new();
        let mut write_error = None;
        let report = match &prepared.run {
            SimulateRun::Rest { params, .. } => {
                if let Some(dir) = &args.frames
                    && let Err(e) = write_frames(
                        &part.system,
                        body,
                        &part.scene,
                        params,
                        dir,
                        args.frame_every.max(1),
                        args.frame_steps,
                        compound,
                    )
                {
                    write_failure = write_failure.or(Some(e));
                }
                if args.frames_only {
                    continue;
                }
                let backend: Box<dyn pbdfit_pbd::RestStateBackend> = match args.backend {
                    BackendName::Cpu => Box::new(pbdfit_pbd::CpuBackend),
                    other => crate::cli::backend(other, &part.system, 1),
                };
                prepared.run_part(part, backend.as_ref(), 1, &mut |_, _| {})
            }
            SimulateRun::Dynamics { .. } => {
                // The frames of the mass-spring dynamics, written as they come (the first failure kept).
                let mut frame = |step: usize, u: &[pbdfit_mesh::Vec3]| {
                    let Some(dir) = &args.frames else { return };
                    if write_error.is_some() {
                        return;
                    }
                    let name = format!("{prefix}frame-{step:06}.vtu");
                    let written = std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
                        .and_then(|_| {
                            body.write_vtu(&dir.join(&name), &[("displacement", PointData::Vectors(u.to_vec()))])
                        });
                    match written {
                        Ok(()) => frames.push((step as f64 * prepared.dt, name)),
                        Err(e) => write_error = Some(e),
                    }
                };
                prepared.run_part(part, &pbdfit_pbd::CpuBackend, args.frame_every, &mut frame)
            }
        };
        let report = report.map_err(job_error)?;
        if let Some(e) = write_error {
            write_failure = write_failure.or(Some(CliError::Input(format!("--frames: {e}"))));
        } else if dynamics && let Some(dir) = &args.frames {
            let pvd = dir.join(format!("{prefix}dynamics.pvd"));
            match write_pvd(&pvd, &frames) {
                Ok(()) => eprintln!("wrote {} frames and {}", frames.len(), pvd.display()),
                Err(e) => write_failure = write_failure.or(Some(CliError::Input(format!("--frames: {e}")))),
            }
        }
        if let SimulateReport::Rest(rest) = &report
            && !rest.converged
        {
            unconverged.push(format!(
                "scene {}: the rest state did not converge after {} {} (relative residual {:.3e}): the displacements \
                 printed are the last iterate, not a rest state (a larger dt or more iterations let the model reach \
                 rest sooner)",
                rest.scene, rest.iterations, rest.iterations_of, rest.residual
            ));
        }
        if let (Some(path), SimulateReport::Rest(rest)) = (&args.vtk, &report) {
            let path = crate::cli::part_path(path, &part.scene, compound);
            let displacements = rest.displacements.iter().map(|u| pbdfit_mesh::Vec3::from(*u)).collect();
            let mut held = vec![0.0; rest.vertices.len()];
            for &v in &rest.fixed {
                held[v] = 1.0;
            }
            let written = body
                .write_vtu(
                    &path,
                    &[
                        ("displacement", PointData::Vectors(displacements)),
                        ("held", PointData::Scalars(held)),
                        ("mass", PointData::Scalars(rest.masses.clone())),
                    ],
                )
                .map_err(|e| CliError::Input(format!("--vtk: {e}")));
            if let Err(e) = written {
                write_failure = write_failure.or(Some(e));
            }
        }
        if args.json {
            outputs.push(report);
        } else {
            println!("{}", report.text());
        }
    }
    if args.json {
        let value = if compound { to_json(&outputs)? } else { to_json(&outputs[0])? };
        println!("{value}");
    }
    if let Some(e) = write_failure {
        return Err(e);
    }
    if !unconverged.is_empty() {
        return Err(CliError::Input(unconverged.join("; ")));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn write_frames(
    system: &PbdSystem,
    body: &SimulateBody,
    scene: &str,
    params: &SimParams,
    dir: &std::path::Path,
    every: usize,
    steps: usize,
    compound: bool,
) -> CliResult {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Input(format!("cannot create {}: {e}", dir.display())))?;
    let prefix = if compound { format!("{scene}-") } else { String::new() };
    let mut frames = Vec::new();
    system.run_dynamics(params, steps, every, |step, d| {
        let name = format!("{prefix}frame-{step:06}.vtu");
        let mut data =
            vec![("displacement", PointData::Vectors(d.u.clone())), ("velocity", PointData::Vectors(d.v.clone()))];
        // A body on obstacles: the force they exerted on each particle over the step (N).
        if !system.obstacles().is_empty() {
            data.push(("contact_force", PointData::Vectors(system.particle_contact_forces(params.dt, d))));
        }
        body.write_vtu(&dir.join(&name), &data).map_err(CliError::Input)?;
        frames.push((step as f64 * params.dt, name));
        Ok(())
    })?;
    let pvd = dir.join(format!("{prefix}dynamics.pvd"));
    write_pvd(&pvd, &frames).map_err(CliError::Input)?;
    eprintln!("wrote {} frames and {}", frames.len(), pvd.display());
    Ok(())
}
