//! `pbdfit modes`: the lowest natural frequencies and mode shapes of a scene's FEM body (the reference for
//! motion), as a table, JSON or a VTK file with one displacement field per mode.

use std::path::PathBuf;

use clap::Args;
use pbdfit_mesh::vtk::{PointData, write_vtu, write_vtu_triangles};

use pbdfit_jobs::{Job, ModesKeywords, ModesPrepared, ModesReport, Spelling};

use crate::cli::{CliError, CliResult};

/// Arguments of `pbdfit modes`: the job's keywords and the outputs.
#[derive(Debug, Args)]
#[command(about = <pbdfit_jobs::ModesKeywords as pbdfit_jobs::Job>::ABOUT)]
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
    let prepared = match Job::prepare(&args.job, Spelling::Flag).map_err(crate::fit::job_error)? {
        ModesPrepared::Solid(prepared) => prepared,
        ModesPrepared::Sheet(sheet) => {
            if let Some(path) = &args.vtk {
                crate::cli::check_output_file("--vtk", path, false)?;
            }
            let mesh = sheet.body.sheet.mesh.clone();
            let report = crate::cli::run_prepared::<ModesKeywords>(ModesPrepared::Sheet(sheet), args.json)?;
            if let Some(path) = &args.vtk {
                let fields = mode_fields(&report.parts[0]);
                let fields: Vec<(&str, PointData)> = fields.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
                write_vtu_triangles(path, mesh.vertices(), mesh.triangles(), &fields)
                    .map_err(|e| CliError::Input(format!("--vtk: {e}")))?;
            }
            return Ok(());
        }
    };
    let (compound, count) = (prepared.set.is_compound(), prepared.count);
    // The output path checked before the solve; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in prepared.set.scenes() {
            crate::cli::check_output_file("--vtk", &crate::cli::part_path(path, &scene.name, compound), false)?;
        }
    }
    let bodies: Vec<_> = prepared.parts.iter().map(|setup| setup.body.clone()).collect();
    let report = crate::cli::run_prepared::<ModesKeywords>(ModesPrepared::Solid(prepared), args.json)?;
    for (body, report) in bodies.into_iter().zip(report.parts) {
        if let Some(path) = &args.vtk {
            let file = crate::cli::part_path(path, &body.scene, compound);
            debug_assert_eq!(report.modes.len(), count);
            let fields = mode_fields(&report);
            let fields: Vec<(&str, PointData)> = fields.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
            write_vtu(&file, body.mesh.vertices(), body.mesh.tets(), &fields)
                .map_err(|e| CliError::Input(format!("--vtk: {e}")))?;
        }
    }
    Ok(())
}

/// One point-data vector per mode, `mode_1`, ...: its mass-normalised translations.
fn mode_fields(report: &ModesReport) -> Vec<(String, PointData)> {
    let shape =
        |m: &pbdfit_jobs::ModeReport| m.shape.iter().map(|u| pbdfit_mesh::Vec3::new(u[0], u[1], u[2])).collect();
    report.modes.iter().enumerate().map(|(i, m)| (format!("mode_{}", i + 1), PointData::Vectors(shape(m)))).collect()
}
