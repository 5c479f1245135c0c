//! `pbdfit modes`: the lowest natural frequencies and mode shapes of a scene's FEM body (the reference for
//! motion), as a table, JSON or a VTK file with one displacement field per mode.

use std::path::PathBuf;

use clap::Args;
use pbdfit_mesh::vtk::{PointData, write_vtu};

use pbdfit_jobs::{ModesKeywords, Spelling};

use crate::cli::{CliError, CliResult};

/// Arguments of `pbdfit modes`: the job's keywords and the outputs.
#[derive(Debug, Args)]
pub struct ModesArgs {
    #[command(flatten)]
    job: ModesKeywords,
    /// Print one JSON object per part (an array for a compound scene), with every mode's shape.
    #[arg(long)]
    json: bool,
    /// Write the mesh with one point-data vector per mode (`mode_1`, ..., mass-normalised) to this `.vtu`
    /// file (ParaView's Warp By Vector shows a mode); for a compound scene one file per part.
    #[arg(long, value_name = "OUT.vtu")]
    vtk: Option<PathBuf>,
}

/// Runs `pbdfit modes`.
pub fn run(args: ModesArgs) -> CliResult {
    crate::cli::check_vtu(args.vtk.as_deref())?;
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    let (compound, count) = (prepared.set.is_compound(), prepared.count);
    // The output path checked before the solve; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in prepared.set.scenes() {
            crate::cli::check_output_file("--vtk", &crate::cli::part_path(path, &scene.name, compound), false)?;
        }
    }
    let bodies: Vec<_> = prepared.parts.iter().map(|setup| setup.body.clone()).collect();
    let report = crate::cli::run_prepared::<ModesKeywords>(prepared, args.json)?;
    for (body, report) in bodies.into_iter().zip(report.parts) {
        if let Some(path) = &args.vtk {
            let file = crate::cli::part_path(path, &body.scene, compound);
            let names: Vec<String> = (1..=count).map(|i| format!("mode_{i}")).collect();
            let fields: Vec<(&str, PointData)> = report
                .modes
                .iter()
                .zip(&names)
                .map(|(m, name)| {
                    let shape = m.shape.iter().map(|u| pbdfit_mesh::Vec3::new(u[0], u[1], u[2])).collect();
                    (name.as_str(), PointData::Vectors(shape))
                })
                .collect();
            write_vtu(&file, body.mesh.vertices(), body.mesh.tets(), &fields)
                .map_err(|e| CliError::Input(format!("--vtk: {e}")))?;
        }
    }
    Ok(())
}
