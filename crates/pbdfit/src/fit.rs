//! `pbdfit fit`: the model parameters that best reproduce the reference rest state of one material.

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOption, FitProblem, FitRequest, PartCache, Search, SearchBox, Settings, parse_bound};
use pbdfit_mesh::MassModel;
use pbdfit_pbd::Precision;
use serde_json::json;
use std::path::PathBuf;

use pbdfit_mesh::vtk::{PointData, write_vtu};

use crate::cli::{
    BackendName, CliError, CliResult, ReferenceArgs, SimulationArgs, fit_error, load_scene, resolution, to_json,
};

/// Arguments of `pbdfit fit`.
#[derive(Debug, clap::Args)]
#[command(allow_negative_numbers = true)]
pub struct FitArgs {
    /// Built-in scene name (a compound such as `gravity` fits all its parts at once) or a TOML path.
    #[arg(long)]
    scene: String,
    /// Mesh resolution N (default: the scene's).
    #[arg(long)]
    n: Option<usize>,
    /// Override the scene's mass model.
    #[arg(long, value_parser = |s: &str| s.parse::<MassModel>())]
    mass_model: Option<MassModel>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh (and say how many) instead of
    /// refusing the mesh.
    #[arg(long)]
    fix_orientation: bool,
    /// Young's modulus E in Pa of the FEM reference [default: 1e3] (e.g. the value `pbdfit identify`
    /// found). Not with measured markers, which are the reference.
    #[arg(long)]
    young: Option<f64>,
    /// Poisson ratio nu, -1 < nu < 0.5, of the FEM reference [default: 0.3]. Not with measured markers.
    #[arg(long)]
    poisson: Option<f64>,
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

/// Runs `pbdfit fit`.
pub fn run(args: FitArgs) -> CliResult {
    let kind = args.sim.kind()?;
    // Everything the user gave is checked before any work: the fit's options in one place (FitRequest).
    let bounds = args
        .search_box
        .iter()
        .map(|text| parse_bound(text).map_err(|e| CliError::Input(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let starts =
        args.starts.iter().map(|s| parse_start(s, &SearchBox::default_for(kind))).collect::<Result<Vec<_>, _>>()?;
    let request = FitRequest {
        bounds,
        unbounded: args.unbounded,
        search: Some(args.search),
        grid: args.grid,
        min_step: Some(args.min_step),
        starts,
        max_evaluations: Some(args.max_evaluations),
        max_seconds: args.max_seconds,
        ..FitRequest::new(kind)
    };
    let options = request.options(Search::FIT_DEFAULT).map_err(|e| match e.option {
        // A box error names the box itself.
        FitOption::Box(_) => CliError::Input(e.message),
        _ => CliError::Input(format!("{} {}", e.option.flag(), e.message)),
    })?;
    let search_box = options.search_box.clone();
    let set = load_scene(&args.scene, args.mass_model, args.fix_orientation)?;
    let n = resolution(&set, args.n)?;
    // Markers on the command line, else the ones the scene names as its reference.
    let measured = args.measured.clone().or_else(|| set.measured().map(std::path::Path::to_path_buf));
    if let Some(path) = &measured
        && (args.young.is_some() || args.poisson.is_some())
    {
        return Err(CliError::Input(format!(
            "--young and --poisson set the FEM reference's material, but the reference is the measured markers in {} \
             (to fit to an FEM of an identified material, pass the scene without markers)",
            path.display()
        )));
    }
    if let Some(path) = &measured
        && let Some(flag) = args.reference.given().first()
    {
        // The markers replace the FEM, so its options would be ignored (issue 38, D18: `--material stvk`).
        return Err(CliError::Input(format!(
            "{flag} sets the FEM reference, but the reference is the measured markers in {}: leave it out (to \
             identify E and nu of an FEM law from the markers, use `pbdfit identify --material ...`)",
            path.display()
        )));
    }
    let (young, poisson) = (args.young.unwrap_or(1e3), args.poisson.unwrap_or(0.3));
    let material = YoungPoisson::new(young, poisson).map_err(|e| CliError::Input(e.to_string()))?;
    if measured.is_none()
        && let Some(warning) = material.locking_warning()
    {
        eprintln!("warning: {warning}");
    }
    if let Some(path) = &args.vtk
        && path.extension().and_then(|e| e.to_str()) != Some("vtu")
    {
        return Err(CliError::Input(format!("--vtk {}: the file name must end in .vtu", path.display())));
    }
    let settings = Settings { allow_unbounded: args.unbounded, ..Settings::new(args.sim.dt, n, args.sim.nit, kind) };
    let corner: Vec<f64> = search_box.axes().iter().map(|a| a.upper).collect();
    settings.at(&corner).validate().map_err(|e| CliError::Input(e.to_string()))?;
    let cache = PartCache::new(args.reference.overrides()?);
    if args.bootstrap.is_some() && measured.is_none() {
        return Err(CliError::Input("--bootstrap needs --measured (it resamples the markers' noise)".into()));
    }
    if let Some(k) = args.bootstrap {
        pbdfit_fit::check_bootstrap(k).map_err(|e| CliError::Input(format!("--bootstrap {e}")))?;
    }
    let mut marker_data = None;
    let problem = match &measured {
        Some(path) => {
            let markers = pbdfit_mesh::Markers::read(path).map_err(|e| CliError::Input(e.to_string()))?;
            // A marker within 1e-9 m of the surface counts as on it.
            let problem = FitProblem::measured(&set, settings, &markers, 1e-9, &cache);
            marker_data = Some(markers);
            problem
        }
        None => FitProblem::new(&set, settings, material, &cache),
    }
    .map_err(fit_error)?;
    let problem = FitProblem { rest_options: args.precision.rest_options(), ..problem };
    let grid_points = options.resolution().pow(search_box.dimensions() as u32);
    let backend = crate::cli::backend(args.backend, &problem.parts[0].system, grid_points);
    let result = pbdfit_fit::fit(&problem, &options, backend.as_ref()).map_err(fit_error)?;
    if let Some(path) = &args.vtk {
        write_vtk(path, &set, &problem, &result, marker_data.as_ref())?;
    }
    let bootstrap = match (args.bootstrap, &marker_data) {
        (Some(k), Some(markers)) => {
            let rest =
                result.rest_states.first().ok_or_else(|| CliError::Internal("a fit without rest state".into()))?;
            // --max-seconds bounds the fit and its refits together: the refits get what the fit left.
            let left = pbdfit_fit::FitOptions {
                max_seconds: options.max_seconds.map(|s| (s - result.seconds).max(0.0)),
                ..options.clone()
            };
            Some(
                pbdfit_fit::bootstrap(&set, settings, markers, 1e-9, &cache, &left, rest, k, 0x5EED)
                    .map_err(fit_error)?,
            )
        }
        _ => None,
    };
    // An engine profile's answer in the engine's own terms: the lines to paste.
    let values: Vec<f64> = result.parameters.iter().map(|(_, v)| *v).collect();
    let usage = kind.with(&values).map(|m| m.usage(args.sim.dt, args.sim.nit)).unwrap_or_default();
    if args.json {
        let scene_errors: serde_json::Map<String, serde_json::Value> =
            result.part_errors.iter().map(|(s, e)| (s.clone(), json!(e))).collect();
        let parameters: serde_json::Map<String, serde_json::Value> =
            result.parameters.iter().map(|(n, v)| (n.to_string(), json!(v))).collect();
        let boxes: serde_json::Map<String, serde_json::Value> = search_box
            .axes()
            .iter()
            .map(|a| (a.name.to_string(), json!({"lower": a.lower, "upper": a.upper, "unit": a.unit, "scale": format!("{:?}", a.scale).to_lowercase()})))
            .collect();
        let mut value = json!({
            "scene": set.name(),
            "model": kind.spec(),
            "parameters": parameters,
            "error": result.error,
            "scene_errors": scene_errors,
            "evaluations": result.evaluations,
            "failed_evaluations": result.failures.len(),
            "at_bound": result.at_bound,
            "seconds": result.seconds,
            "box": boxes,
            "n": n,
            "dt": args.sim.dt,
            "nit": args.sim.nit,
            "young": measured.is_none().then_some(young),
            "poisson": measured.is_none().then_some(poisson),
            "mass_model": set.scenes()[0].mass_model.name(),
            "reference": problem.reference,
            "precision": args.precision.name(),
            "backend": backend.name(),
            "pbdfit_version": env!("CARGO_PKG_VERSION"),
            "search_moves": result.history.len() - 1,
            "search": result.search.name(),
            "starts": {"total": result.starts.1, "reached_minimum": result.starts.0},
            "status": if result.stopped.is_some() { "budget" } else { "converged" },
        });
        if let Some(why) = &result.stopped {
            value["stopped"] = json!(why);
        }
        if !usage.is_empty() {
            value["engine"] = json!({"settings": kind.settings().into_iter().collect::<std::collections::BTreeMap<_, _>>(), "nit_means": kind.nit_means(), "paste": usage});
        }
        // One `[lower, upper]` per parameter, by name (intervals, bootstrap quantiles, 1 % ranges).
        let by_name = |ranges: &[(f64, f64)]| -> serde_json::Value {
            let map: serde_json::Map<String, serde_json::Value> = result
                .parameters
                .iter()
                .zip(ranges)
                .map(|((n, _), (lo, hi))| (n.to_string(), json!([lo, hi])))
                .collect();
            json!(map)
        };
        if let Some(b) = &bootstrap {
            value["bootstrap_95"] = b.intervals.as_deref().map_or(serde_json::Value::Null, by_name);
            value["bootstrap_replicates"] = json!(b.replicates);
            value["bootstrap_failed"] = json!(b.failed);
            value["bootstrap_asked"] = json!(b.asked);
            if let Some(why) = &b.stopped {
                value["bootstrap_stopped"] = json!(why);
            }
        }
        if let Some(intervals) = &result.confidence {
            value["intervals_95"] = by_name(intervals);
        }
        if let Some(id) = &result.identifiability {
            let ranges = by_name(&id.ranges);
            // JSON has no infinity: a Hessian that is not positive definite has condition null.
            value["identifiability"] = json!({
                "hessian": id.hessian,
                "condition": id.condition.is_finite().then_some(id.condition),
                "ranges_1_percent": ranges,
                "evaluations": id.evaluations,
            });
        }
        // The PBD models keep kd, kv at the top level (the format before models had named parameters).
        for name in ["kd", "kv"] {
            if let Some(v) = result.value(name) {
                value[name] = json!(v);
            }
        }
        println!("{}", to_json(&value)?);
    } else {
        let material = match measured {
            Some(_) => String::new(),
            None => format!(", E = {young:e} Pa, nu = {poisson}"),
        };
        println!(
            "scene {} (N = {n}, dt = {}, nit = {}, model {}){material}; box {}",
            set.name(),
            pbdfit_mesh::display::number(args.sim.dt),
            args.sim.nit,
            kind,
            search_box.describe()
        );
        println!("  reference {}; model arithmetic {}", problem.reference, args.precision.name());
        let values: Vec<String> = result
            .parameters
            .iter()
            .zip(search_box.axes())
            .map(
                |((n, v), a)| if a.unit == "1" { format!("{n} = {v:.6}") } else { format!("{n} = {v:.6e} {}", a.unit) },
            )
            .collect();
        println!("  {}  error = {:.6e}", values.join("  "), result.error);
        if !result.at_bound.is_empty() {
            // A bound that is the model's own limit cannot be widened (issue 38: PBD's kd = 1 was told to
            // widen the box, which --box then refused).
            let limits: Vec<String> = result
                .at_bound
                .iter()
                .filter_map(|name| {
                    let (_, spec) = kind.parameter(name)?;
                    let value = result.parameters.iter().find(|(n, _)| n == name)?.1;
                    let maximum = if args.unbounded { spec.maximum_unbounded } else { spec.maximum };
                    (value <= spec.minimum || value >= maximum)
                        .then(|| format!("{name} = {} is the model's own limit", pbdfit_mesh::display::number(value)))
                })
                .collect();
            let advice = if limits.is_empty() {
                "the minimum may lie outside; widen it with --box".to_string()
            } else {
                format!(
                    "{}: the material lies beyond what the model reaches at this dt and nit (for PBD's stiffness, \
                     more iterations or a smaller dt reach stiffer materials)",
                    limits.join(", ")
                )
            };
            println!("  at the edge of the box: {} ({advice})", result.at_bound.join(", "));
        }
        if set.is_compound() {
            for (scene, e) in &result.part_errors {
                println!("    {scene:16} error {e:.6e}");
            }
        }
        println!(
            "  {} search: {} evaluations ({grid_points} grid points, {} search moves), {:.3} s",
            result.search.name(),
            result.evaluations,
            result.history.len() - 1,
            result.seconds
        );
        if result.search == Search::Gradient {
            println!("  {} of {} starts reached the minimum", result.starts.0, result.starts.1);
        }
        if let Some(why) = &result.stopped {
            println!("  note: the fit {why}; the result is its best point so far");
        }
        if !usage.is_empty() {
            println!("  in the engine (nit = {}: {}):", args.sim.nit, kind.nit_means());
            for line in &usage {
                println!("    {line}");
            }
        }
        if !result.failures.is_empty() {
            println!("  {}", result.failure_summary());
        }
        if let Some(id) = &result.identifiability {
            let ranges: Vec<String> = result
                .parameters
                .iter()
                .zip(&id.ranges)
                .map(|((n, _), (lo, hi))| format!("{n} in [{lo:.4e}, {hi:.4e}]"))
                .collect();
            let condition = if id.condition.is_finite() {
                format!("{:.3e}", id.condition)
            } else {
                "infinite (a direction in which the error does not rise: not determined)".into()
            };
            println!("  identifiability: Hessian condition number {condition}");
            println!("    error within 1 % of the minimum for {}", ranges.join(", "));
        }
        // `kd in [lo, hi], kv in [lo, hi]` for a list of intervals in the parameters' order.
        let intervals_text = |intervals: &[(f64, f64)]| -> Vec<String> {
            result
                .parameters
                .iter()
                .zip(intervals)
                .map(|((n, _), (lo, hi))| format!("{n} in [{lo:.4e}, {hi:.4e}]"))
                .collect()
        };
        if let Some(intervals) = &result.confidence {
            let text = intervals_text(intervals);
            println!("  95 % confidence (Gauss-Newton, from the markers' noise): {}", text.join(", "));
        }
        if let Some(b) = &bootstrap {
            let text = match &b.intervals {
                Some(intervals) => {
                    let text = intervals_text(intervals);
                    let rough = if b.rough() {
                        format!(" (rough: from fewer than {} refits)", pbdfit_fit::BOOTSTRAP_QUANTILES)
                    } else {
                        String::new()
                    };
                    format!("95 % {}{rough}", text.join(", "))
                }
                None => format!("no interval (it needs at least {} refits)", pbdfit_fit::MIN_BOOTSTRAP),
            };
            println!(
                "  bootstrap ({} of {} refits of resampled noise {:.3e} m, {} failed): {text}",
                b.replicates, b.asked, b.noise, b.failed,
            );
            if let Some(why) = &b.stopped {
                println!("  note: the bootstrap {why}");
            }
        }
    }
    Ok(())
}

/// A `--start`: `NAME=VALUE` pairs separated by commas, every parameter of the model once.
fn parse_start(text: &str, search_box: &SearchBox) -> Result<Vec<f64>, CliError> {
    let axes = search_box.axes();
    let mut values: Vec<Option<f64>> = vec![None; axes.len()];
    for pair in text.split(',') {
        let bad = || {
            CliError::Input(format!(
                "--start {text}: expected NAME=VALUE for each of {}",
                search_box.kind().parameter_names()
            ))
        };
        let (name, value) = pair.split_once('=').ok_or_else(bad)?;
        let i = axes.iter().position(|a| a.name == name.trim()).ok_or_else(bad)?;
        if values[i].is_some() {
            // The last would silently win (issue 38, D18).
            return Err(CliError::Input(format!(
                "--start {text}: {} is given twice; give each parameter once",
                axes[i].name
            )));
        }
        // Whether the value suits the box is the request's to say.
        values[i] = Some(value.trim().parse().map_err(|_| bad())?);
    }
    values.into_iter().collect::<Option<Vec<f64>>>().ok_or_else(|| {
        CliError::Input(format!("--start {text}: give every parameter ({})", search_box.kind().parameter_names()))
    })
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
        let n = part.reference.len();
        let mut error = vec![0.0; n];
        let mut in_error = vec![0.0; n];
        for &v in &part.moved {
            error[v] = pbdfit_fit::vertex_error(&rest[v], &part.reference[v]);
            in_error[v] = 1.0;
        }
        let held: Vec<f64> = part.system.held_mask().iter().map(|&h| if h { 1.0 } else { 0.0 }).collect();
        let body = scene.body(problem.settings.n).map_err(|e| CliError::Input(e.to_string()))?;
        let file = crate::cli::part_path(path, &part.scene, set.is_compound());
        let model = ("model_displacement", PointData::Vectors(rest.to_vec()));
        let held = ("held", PointData::Scalars(held));
        let load = ("load_force", PointData::Vectors(body.external_forces()));
        let data = match markers {
            // Measured: no reference field on the mesh; the residuals at the markers go to a CSV.
            Some(markers) => {
                let csv = file.with_extension("markers.csv");
                write_marker_residuals(&csv, markers, &body.mesh, rest)?;
                eprintln!("pbdfit: wrote {}", csv.display());
                vec![model, held, load]
            }
            None => vec![
                ("reference_displacement", PointData::Vectors(part.reference.clone())),
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
