//! `pbdfit fit`: the (kd, kv) that best reproduce the FEM rest state of one material.

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOptions, FitProblem, Settings};
use pbdfit_mesh::MassModel;
use serde_json::json;

use crate::cli::{BackendName, CliError, CliResult, SimulationArgs, load_scene, resolution, to_json};

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
    /// Young's modulus E in Pa.
    #[arg(long, default_value_t = 1e3)]
    young: f64,
    /// Poisson ratio nu, -1 < nu < 0.5.
    #[arg(long, default_value_t = 0.3)]
    poisson: f64,
    #[command(flatten)]
    sim: SimulationArgs,
    /// Pattern search stops when its step falls below this.
    #[arg(long, default_value_t = 1e-4)]
    min_step: f64,
    /// Where the grid's rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit fit`.
pub fn run(args: FitArgs) -> CliResult {
    let set = load_scene(&args.scene, args.mass_model)?;
    let n = resolution(&set, args.n)?;
    let material = YoungPoisson::new(args.young, args.poisson).map_err(|e| CliError::Input(e.to_string()))?;
    if let Some(warning) = material.locking_warning() {
        eprintln!("warning: {warning}");
    }
    if !(args.min_step.is_finite() && args.min_step > 0.0) {
        return Err(CliError::Input(format!("--min-step {} must be > 0", args.min_step)));
    }
    let settings = Settings { dt: args.sim.dt, n, nit: args.sim.nit, model: args.sim.model(0.5, 0.5, (0.0, 0.0)) };
    settings.at(0.5, 0.5).validate().map_err(|e| CliError::Input(e.to_string()))?;
    let problem = FitProblem::new(&set, settings, material, &|_| None).map_err(|e| CliError::Input(e.to_string()))?;
    let options = FitOptions { min_step: args.min_step, ..FitOptions::default() };
    let backend = crate::cli::backend(args.backend, &problem.parts[0].system, options.grid * options.grid);
    let result = pbdfit_fit::fit(&problem, &options, backend.as_ref()).map_err(|e| match e {
        pbdfit_fit::FitError::Internal(m) => CliError::Internal(m),
        other => CliError::Input(other.to_string()),
    })?;
    if args.json {
        let scene_errors: serde_json::Map<String, serde_json::Value> =
            result.part_errors.iter().map(|(s, e)| (s.clone(), json!(e))).collect();
        let value = json!({
            "scene": set.name(),
            "n": n,
            "dt": args.sim.dt,
            "nit": args.sim.nit,
            "young": args.young,
            "poisson": args.poisson,
            "model": settings.model.name(),
            "kd": result.kd,
            "kv": result.kv,
            "error": result.error,
            "scene_errors": scene_errors,
            "evaluations": result.evaluations,
            "failed_evaluations": result.failures.len(),
            "search_moves": result.history.len() - 1,
            "seconds": result.seconds,
        });
        println!("{}", to_json(&value)?);
    } else {
        println!(
            "scene {} (N = {n}, dt = {}, nit = {}, model {}), E = {:e} Pa, nu = {}",
            set.name(),
            args.sim.dt,
            args.sim.nit,
            settings.model.name(),
            args.young,
            args.poisson
        );
        println!("  kd = {:.6}  kv = {:.6}  error = {:.6e}", result.kd, result.kv, result.error);
        if set.is_compound() {
            for (scene, e) in &result.part_errors {
                println!("    {scene:16} error {e:.6e}");
            }
        }
        println!(
            "  {} evaluations ({} grid points, {} search moves), {:.3} s",
            result.evaluations,
            options.grid * options.grid,
            result.history.len() - 1,
            result.seconds
        );
        if !result.failures.is_empty() {
            println!("  {}", result.failure_summary());
        }
    }
    Ok(())
}
