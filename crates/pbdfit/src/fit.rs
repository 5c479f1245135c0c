//! `pbdfit fit`: the model parameters that best reproduce the reference rest state of one material.

use pbdfit_fit::{FitJobError, FitProblem, Spelling};
use pbdfit_jobs::{FitKeywords, Job};
use std::path::PathBuf;

use pbdfit_mesh::vtk::{PointData, write_vtu};

use crate::cli::{BackendName, CliError, CliResult, fit_error};

/// Arguments of `pbdfit fit`: the fit job's keywords beside the outputs and the backend.
#[derive(Debug, clap::Args)]
#[command(about = <pbdfit_jobs::FitKeywords as pbdfit_jobs::Job>::ABOUT, allow_negative_numbers = true)]
pub struct FitArgs {
    #[command(flatten)]
    job: FitKeywords,
    /// Where the grid's rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Write the result for ParaView: per scene a `.vtu` (compound scenes: `<stem>-<scene>.vtu`) with the
    /// reference and the model's rest displacements at the fitted parameters and the per-vertex error
    /// as point data.
    #[arg(long, value_name = "FILE.vtu")]
    vtk: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit fit`: the fit job's keywords, checked and run in pbdfit-fit, whose
/// [`FitReport`](pbdfit_jobs::FitReport) is printed (as text, or as JSON with `--json`).
pub fn run(args: FitArgs) -> CliResult {
    crate::cli::check_vtu(args.vtk.as_deref())?;
    let prepared = args.job.prepare(Spelling::Flag).map_err(job_error)?;
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    for warning in &prepared.warnings {
        eprintln!("warning: {warning}");
    }
    // The output path checked before the fit; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        let Some(set) = prepared.body.solid() else {
            return Err(crate::cli::CliError::Input(format!(
                "--vtk writes tetrahedral meshes, and scene {} is a sheet (`pbdfit fem --vtk` writes its shell)",
                prepared.problem.scene
            )));
        };
        for scene in set.scenes() {
            crate::cli::check_output_file(
                "--vtk",
                &crate::cli::part_path(path, &scene.name, set.is_compound()),
                false,
            )?;
        }
    }
    let backend = crate::cli::backend(args.backend, &prepared.problem.parts[0].system, prepared.grid_points());
    let outcome = prepared.run(backend.as_ref()).map_err(job_error)?;
    crate::cli::print_report(&outcome.report, args.json)?;
    if let Some(path) = &args.vtk {
        let p = &outcome.prepared;
        if let Some(set) = p.body.solid() {
            write_vtk(path, set, &p.problem, &outcome.result, p.markers())?;
        }
    }
    Ok(())
}

/// A fit job's refusal or failure as the command line reports it.
pub(crate) fn job_error(e: FitJobError) -> CliError {
    match e {
        FitJobError::Input(message) => CliError::Input(message),
        FitJobError::Fit(e) => fit_error(e),
        FitJobError::Internal(message) => CliError::Internal(message),
    }
}

/// `--vtk`: per part, the reference and the model's rest displacements at the fitted parameters, the
/// per-vertex relative error `|u_model - u_ref| / |u_ref|` (0 where the vertex is not in the error's set:
/// held, prescribed, or not moved by the reference), that set, the held flags and the load forces.
fn write_vtk(
    path: &std::path::Path,
    set: &pbdfit_mesh::SceneSet,
    problem: &FitProblem,
    result: &pbdfit_fit::FitResult,
    markers: Option<&pbdfit_mesh::Markers>,
) -> CliResult {
    if result.rest_states.len() != problem.parts.len() {
        return Err(CliError::Internal(format!(
            "--vtk: the fit kept {} rest states for {} parts",
            result.rest_states.len(),
            problem.parts.len()
        )));
    }
    // The rest states the fit scored, not solved again.
    for ((part, scene), rest) in problem.parts.iter().zip(set.scenes()).zip(&result.rest_states) {
        let n = rest.len();
        let mut error = vec![0.0; n];
        let mut in_error = vec![0.0; n];
        let field = part.target.field();
        for (reference, moved) in field.iter() {
            for &v in moved.iter() {
                error[v] = pbdfit_fit::vertex_error(&rest[v], &reference[v]);
                in_error[v] = 1.0;
            }
        }
        let held: Vec<f64> = part.system.held_mask().iter().map(|&h| if h { 1.0 } else { 0.0 }).collect();
        let body = scene.body(problem.settings.n).map_err(|e| CliError::Input(e.to_string()))?;
        let file = crate::cli::part_path(path, &part.scene, set.is_compound());
        let model = ("model_displacement", PointData::Vectors(rest.to_vec()));
        let held = ("held", PointData::Scalars(held));
        let load = ("load_force", PointData::Vectors(body.external_forces()));
        let data = match (markers, field) {
            // Measured: no reference field on the mesh; the residuals at the markers go to a CSV.
            (Some(markers), _) => {
                let csv = file.with_extension("markers.csv");
                write_marker_residuals(&csv, markers, &body.mesh, rest)?;
                eprintln!("pbdfit: wrote {}", csv.display());
                vec![model, held, load]
            }
            (None, field) => vec![
                ("reference_displacement", PointData::Vectors(field.map(|(r, _)| r.to_vec()).unwrap_or_default())),
                model,
                ("relative_error", PointData::Scalars(error)),
                ("in_error", PointData::Scalars(in_error)),
                held,
                load,
            ],
        };
        write_vtu(&file, part.system.rest_positions(), part.system.tets(), &data)
            .map_err(|e| CliError::Input(format!("--vtk: {e}")))?;
        eprintln!("pbdfit: wrote {}", file.display());
    }
    Ok(())
}

/// The fitted model at each marker: `x, y, z` (the marker, m), the observed and the model's
/// displacement (m), the residual `model - observed` (m) and its norm, and the marker's sigma (empty
/// without one); one row per marker in file order.
fn write_marker_residuals(
    path: &std::path::Path,
    markers: &pbdfit_mesh::Markers,
    mesh: &pbdfit_mesh::TetMesh,
    rest: &[pbdfit_mesh::Vec3],
) -> CliResult {
    let located = markers.locate(mesh, 1e-9).map_err(|e| CliError::Input(e.to_string()))?;
    let mut text =
        String::from("x,y,z,ux,uy,uz,model_ux,model_uy,model_uz,residual_x,residual_y,residual_z,residual,sigma\n");
    for (m, l) in markers.markers.iter().zip(located) {
        let model = l.interpolate(mesh, rest);
        let r = model - m.displacement;
        let values = [m.rest.x, m.rest.y, m.rest.z, m.displacement.x, m.displacement.y, m.displacement.z];
        let fitted = [model.x, model.y, model.z, r.x, r.y, r.z, r.norm()];
        let row: Vec<String> = values.iter().chain(&fitted).map(|v| format!("{v:e}")).collect();
        text += &format!("{},{}\n", row.join(","), m.sigma.map(|s| format!("{s:e}")).unwrap_or_default());
    }
    std::fs::write(path, text).map_err(|e| CliError::Input(format!("--vtk: cannot write {}: {e}", path.display())))
}
