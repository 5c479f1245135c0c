//! `pbdfit fit`: the model parameters that best reproduce the reference rest state of one material.

use pbdfit_fit::{FitJob, FitJobError, FitProblem, FitRequest, Search, Spelling, parse_bound, start_from_pairs};
use pbdfit_pbd::Precision;
use std::path::PathBuf;

use pbdfit_mesh::vtk::{PointData, write_vtu};

use crate::cli::{BackendName, CliError, CliResult, ReferenceArgs, SimulationArgs, fit_error, to_json};

/// Arguments of `pbdfit fit`.
#[derive(Debug, clap::Args)]
#[command(allow_negative_numbers = true)]
pub struct FitArgs {
    #[command(flatten)]
    body: pbdfit_fit::Body,
    /// Not with measured markers, which are the reference.
    #[command(flatten)]
    material: pbdfit_fit::Material,
    #[command(flatten)]
    sim: SimulationArgs,
    #[command(flatten)]
    reference: ReferenceArgs,
    /// Fit to measured markers instead of an FEM reference: a CSV with columns x, y, z (the marker in the
    /// undeformed body, m), ux, uy, uz (its observed displacement, m) and optionally sigma (m). The
    /// model's displacement is interpolated at each marker; the error is the mean squared relative error
    /// over the markers that move, or with sigmas the chi-square per degree of freedom, sum (r_k / sigma)^2
    /// over the 3M components / 3M. E, nu and the reference
    /// options are not used. A basic scene only (one body). A `.vtu` file is a full field: its points
    /// with point data `displacement` (and optionally `sigma`). Default: the scene's `[reference] measured`.
    #[arg(long, value_name = "FILE")]
    measured: Option<std::path::PathBuf>,
    /// With --measured: refit K replicates of the markers with resampled noise (the fitted model's
    /// displacements plus Gaussian noise of each marker's sigma, or of the residual's standard deviation)
    /// and report each parameter's 2.5 % and 97.5 % quantiles: a check of the Gauss-Newton intervals.
    /// Seeded (the same K gives the same numbers).
    #[arg(long, value_name = "K")]
    bootstrap: Option<usize>,
    /// Search box of one parameter, `NAME=LOWER:UPPER` (repeatable), e.g. `kd=0:0.5` or
    /// `alpha_d=1e-12:1e2`. Log-scale parameters need bounds > 0. Default: the model's box.
    #[arg(long = "box")]
    search_box: Vec<String>,
    /// Allow PBD stiffness above 1 in the box (experimental).
    #[arg(long)]
    unbounded: bool,
    /// The search: `gradient` (the default: a coarse grid, then Levenberg-Marquardt on the rest state's
    /// sensitivity from the best point of each basin; never worse than `pattern` on the committed thesis
    /// and XPBD studies) or `pattern` (the thesis's fine grid and compass search, 450 to 750 rest states).
    #[arg(long, default_value_t = Search::FIT_DEFAULT, value_parser = |s: &str| Search::parse(s))]
    search: Search,
    /// Grid points per axis (default: pattern 21 for two parameters, 101 for one, 11 for three, 7 for
    /// four; gradient 5, 9, 4, 3, at cell centres).
    #[arg(long)]
    grid: Option<usize>,
    /// A further start of the gradient search, `NAME=VALUE,NAME=VALUE` in the model's parameters
    /// (repeatable), e.g. a table's lookup.
    #[arg(long = "start")]
    starts: Vec<String>,
    /// Largest number of evaluations of the gradient search after its grid; when spent, the best point
    /// so far is the result and the output says so.
    #[arg(long, default_value_t = 400)]
    max_evaluations: usize,
    /// Wall-clock limit of the fit in seconds; when reached, the best point so far is the result and the
    /// output says so.
    #[arg(long)]
    max_seconds: Option<f64>,
    /// Pattern search stops when its step falls below this fraction of each axis's width (in search
    /// coordinates: the value, or log10 of it).
    #[arg(long, default_value_t = 1e-4)]
    min_step: f64,
    /// Where the grid's rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Arithmetic of the model's rest states: f64 (pbdfit's) or f32 (the reference library's own, in
    /// positions, stepped until the motion stops; PBD models only).
    #[arg(long, value_enum, default_value_t = Precision::F64)]
    precision: Precision,
    /// Write the result for ParaView: per scene a `.vtu` (compound scenes: `<stem>-<scene>.vtu`) with the
    /// reference and the model's rest displacements at the fitted parameters and the per-vertex error
    /// as point data.
    #[arg(long, value_name = "FILE.vtu")]
    vtk: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit fit`: the arguments become a [`FitJob`], checked and run in pbdfit-fit, whose
/// [`FitReport`](pbdfit_fit::FitReport) is printed (as text, or as JSON with `--json`).
pub fn run(args: FitArgs) -> CliResult {
    let kind = args.sim.kind()?;
    let bounds = args
        .search_box
        .iter()
        .map(|text| parse_bound(text).map_err(|e| CliError::Input(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let starts = args.starts.iter().map(|s| parse_start(s, kind)).collect::<Result<Vec<_>, _>>()?;
    crate::cli::check_vtu(args.vtk.as_deref())?;
    let job = FitJob {
        n: args.body.n,
        mass_model: args.body.mass_model().map_err(CliError::Input)?,
        fix_orientation: args.body.fix_orientation,
        body: args.body.scale,
        young: args.material.young,
        poisson: args.material.poisson,
        dt: args.sim.dt,
        nit: args.sim.nit,
        reference: args.reference.clone(),
        measured: args.measured.clone(),
        bootstrap: args.bootstrap,
        request: FitRequest {
            bounds,
            unbounded: args.unbounded,
            search: Some(args.search),
            grid: args.grid,
            min_step: Some(args.min_step),
            starts,
            max_evaluations: Some(args.max_evaluations),
            max_seconds: args.max_seconds,
            ..FitRequest::new(kind)
        },
        precision: args.precision,
        ..FitJob::new(&args.body.scene, kind)
    };
    let prepared = job.prepare(Spelling::Flag).map_err(job_error)?;
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    for warning in &prepared.warnings {
        eprintln!("warning: {warning}");
    }
    // The output path checked before the fit; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in prepared.set.scenes() {
            crate::cli::check_output_file(
                "--vtk",
                &crate::cli::part_path(path, &scene.name, prepared.set.is_compound()),
                false,
            )?;
        }
    }
    let backend = crate::cli::backend(args.backend, &prepared.problem.parts[0].system, prepared.grid_points());
    let outcome = prepared.run(backend.as_ref()).map_err(job_error)?;
    if args.json {
        println!("{}", to_json(&outcome.report)?);
    } else {
        print!("{}", outcome.report.text());
    }
    if let Some(path) = &args.vtk {
        let p = &outcome.prepared;
        write_vtk(path, &p.set, &p.problem, &outcome.result, p.markers())?;
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

/// A `--start`: `NAME=VALUE` pairs separated by commas, every parameter of the model once.
fn parse_start(text: &str, kind: pbdfit_pbd::ModelKind) -> Result<Vec<f64>, CliError> {
    let bad = || CliError::Input(format!("--start {text}: expected NAME=VALUE for each of {}", kind.parameter_names()));
    let pairs = text
        .split(',')
        .map(|pair| {
            let (name, value) = pair.split_once('=').ok_or_else(bad)?;
            // Whether the value suits the box is the request's to say.
            Ok((name.trim().to_string(), value.trim().parse::<f64>().map_err(|_| bad())?))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    start_from_pairs(kind, &pairs).map_err(|e| CliError::Input(format!("--start {text}: {e}")))
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
