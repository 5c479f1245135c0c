//! `pbdfit motion`: the release test, the FEM body (Newmark, no numerical damping) against a model at
//! your dt and iterations: frequency, logarithmic decrement and trajectory error, at parameters you give
//! or at the rest-state fit's (`--fit`).

use clap::Args;
use pbdfit_mesh::MassModel;

use pbdfit_fit::{MotionKeywords, Spelling};

use crate::cli::{CliError, CliResult, SimulationArgs};

/// Arguments of `pbdfit motion`.
#[derive(Debug, Args)]
pub struct MotionArgs {
    /// Built-in scene name or a scene TOML file (one part).
    #[arg(long)]
    scene: String,
    /// Mesh resolution N; default: the scene's own.
    #[arg(long)]
    n: Option<usize>,
    /// Young's modulus E in Pa (> 0).
    #[arg(long, default_value_t = 1e3, allow_negative_numbers = true)]
    young: f64,
    /// Poisson ratio nu (-1 < nu < 0.5).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    poisson: f64,
    /// The FEM law: linear, corotational, stvk or neo-hookean (default: the scene's, else linear).
    #[arg(long, value_name = "NAME")]
    material: Option<String>,
    #[command(flatten)]
    simulation: SimulationArgs,
    /// The model's parameters by name (repeatable; all of them unless --fit), e.g. `--param kd=0.4`.
    #[arg(long = "param", value_parser = crate::cli::parse_param)]
    param: Vec<(String, f64)>,
    /// Fit the model's rest state to the FEM first and release at the fitted parameters: how wrong the
    /// motion is at the stiffness that gives the right sag.
    #[arg(long)]
    fit: bool,
    /// PBD models' velocity damping per step in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    damping: f64,
    /// The window in periods of the FEM's first mode.
    #[arg(long, default_value_t = pbdfit_fit::DEFAULT_PERIODS)]
    periods: f64,
    /// Override the scene's mass model: lumped or uniform.
    #[arg(long, value_name = "lumped|uniform")]
    mass_model: Option<MassModel>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh instead of refusing the mesh.
    #[arg(long)]
    fix_orientation: bool,
    /// Print one JSON object (with both tracks over time) instead of a summary.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit motion`.
pub fn run(args: MotionArgs) -> CliResult {
    let job = MotionKeywords {
        scene: args.scene.clone(),
        n: args.n,
        mass_model: args.mass_model.map(|m| m.name().to_string()),
        fix_orientation: args.fix_orientation,
        young: Some(args.young),
        poisson: Some(args.poisson),
        material: args.material.clone(),
        model: Some(args.simulation.model.name().to_string()),
        settings: args.simulation.settings.iter().cloned().collect(),
        params: args.param.iter().cloned().collect(),
        fit: args.fit,
        dt: Some(args.simulation.dt),
        nit: Some(args.simulation.nit),
        damping: Some(args.damping),
        periods: Some(args.periods),
    };
    let prepared = job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    let report = prepared.run(Spelling::Flag).map_err(crate::fit::job_error)?;
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", report.text());
    }
    Ok(())
}
