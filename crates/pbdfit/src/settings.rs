//! `pbdfit settings`: the cheapest engine settings (dt, iterations or substeps) at which a model reaches
//! the reference within a target error, and where it cannot at all (`pbdfit_fit::settings_sweep`).

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::settings_sweep::{by_cost, cheapest, sweep};
use pbdfit_fit::{FitRequest, PartCache, Search};
use serde_json::json;

use crate::cli::{CliError, CliResult, ReferenceArgs, fit_error, load_scene, resolution, to_json};

/// Arguments of `pbdfit settings`.
#[derive(Debug, clap::Args)]
pub struct SettingsArgs {
    /// Built-in scene name or a TOML path.
    #[arg(long)]
    scene: String,
    /// Mesh resolution N (default: the scene's).
    #[arg(long)]
    n: Option<usize>,
    /// Young's modulus E in Pa.
    #[arg(long, default_value_t = 1e3)]
    young: f64,
    /// Poisson ratio nu.
    #[arg(long, default_value_t = 0.3)]
    poisson: f64,
    /// Model kind: a textbook model or an engine profile (the list below).
    #[arg(long, value_enum, default_value_t = pbdfit_pbd::ModelKind::JOLT)]
    model: pbdfit_pbd::ModelKind,
    /// An engine profile's setting, `NAME=VALUE` (repeatable), as for `pbdfit fit`.
    #[arg(long = "setting", value_name = "NAME=VALUE", value_parser = crate::cli::parse_param)]
    settings: Vec<(String, f64)>,
    /// The error the fit must reach (the mean squared relative displacement error).
    #[arg(long, default_value_t = 0.05)]
    target: f64,
    /// Time steps to try, comma-separated, as decimals or fractions.
    #[arg(long, default_value = "1/30,1/60,1/120,1/240")]
    dt: String,
    /// Iterations (Newton) or substeps (Jolt, Genesis) to try, comma-separated.
    #[arg(long, default_value = "1,2,4,8,16,32")]
    nit: String,
    #[command(flatten)]
    reference: ReferenceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn list<T>(flag: &str, text: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, CliError> {
    text.split(',')
        .map(|item| parse(item.trim()).ok_or_else(|| CliError::Input(format!("{flag} `{item}`: not a valid value"))))
        .collect()
}

/// Runs `pbdfit settings`.
pub fn run(args: SettingsArgs) -> CliResult {
    let kind = args.model.with_settings(&args.settings).map_err(|e| CliError::Input(format!("--setting: {e}")))?;
    let dts = list("--dt", &args.dt, |s| {
        pbdfit_table::axes::parse_number(s).ok().filter(|v: &f64| v.is_finite() && *v > 0.0)
    })?;
    let nits = list("--nit", &args.nit, |s| s.parse::<usize>().ok().filter(|&v| (1..=10_000).contains(&v)))?;
    if !(args.target.is_finite() && args.target > 0.0) {
        return Err(CliError::Input(format!("--target {}: must be a finite number > 0", args.target)));
    }
    let material = YoungPoisson::new(args.young, args.poisson).map_err(|e| CliError::Input(e.to_string()))?;
    let set = load_scene(&args.scene, None, Some(kind), false)?;
    // Refused before the table's header: every fit of the sweep is against the FEM.
    pbdfit_fit::fits_against_fem(&set).map_err(fit_error)?;
    let n = resolution(&set, args.n)?;
    // Masses a scene file gives, other than the engine's: at the first setting, the model's example point.
    if let Some(warning) =
        pbdfit_fit::mass_model_warning(&set, pbdfit_fit::Settings::new(dts[0], n, nits[0], kind), None, None, "")
    {
        eprintln!("warning: {warning}");
    }
    let masses = set.scenes()[0].mass_model().name();
    let options = FitRequest { search: Some(Search::Gradient), ..FitRequest::new(kind) }
        .options(Search::FIT_DEFAULT)
        .map_err(|e| CliError::Input(e.message))?;
    let cache = PartCache::new(args.reference.overrides()?);
    let order = by_cost(&dts, &nits);
    let backend = pbdfit_pbd::CpuBackend;
    if !args.json {
        println!(
            "scene {} (N = {n}, {masses} masses), model {}, E = {:e} Pa, nu = {}; target error {}; nit = {}",
            set.name(),
            kind.spec(),
            args.young,
            args.poisson,
            args.target,
            kind.nit_means()
        );
        println!("  {:>10} {:>5} {:>12} {:>12}  parameters", "dt (s)", "nit", "nit/s", "error");
    }
    let json = args.json;
    let rows = sweep(&set, n, kind, material, &cache, &options, &backend, &order, |r| {
        if json {
            return;
        }
        let parameters: Vec<String> = r.parameters.iter().map(|(n, v)| format!("{n} = {v:.4e}")).collect();
        let mut note = String::new();
        if !r.at_bound.is_empty() {
            note = format!("  (at the box's edge: {})", r.at_bound.join(", "));
        }
        if let Some(why) = &r.failed {
            note = format!("  no rest state: {why}");
        }
        println!("  {:>10.6} {:>5} {:>12.1} {:>12.4e}  {}{note}", r.dt, r.nit, r.cost, r.error, parameters.join(", "));
    })
    .map_err(fit_error)?;
    let answer = cheapest(&rows, args.target);
    let best = rows.iter().filter(|r| r.error.is_finite()).min_by(|a, b| a.error.total_cmp(&b.error));
    if json {
        let row = |r: &pbdfit_fit::settings_sweep::SettingFit| {
            json!({
                "dt": r.dt, "nit": r.nit, "cost": r.cost,
                "error": r.error.is_finite().then_some(r.error),
                "parameters": r.parameters.iter().map(|(n, v)| (n.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "at_bound": r.at_bound, "failed": r.failed,
            })
        };
        let value = json!({
            "scene": set.name(), "n": n, "mass_model": masses, "model": kind.spec(), "young": args.young, "poisson": args.poisson,
            "target": args.target, "nit_means": kind.nit_means(),
            "rows": rows.iter().map(row).collect::<Vec<_>>(),
            "cheapest": answer.map(row),
            "best": best.map(row),
            "pbdfit_version": env!("CARGO_PKG_VERSION"),
        });
        println!("{}", to_json(&value)?);
        return Ok(());
    }
    match answer {
        Some(r) => println!(
            "cheapest setting that reaches {}: dt = {:.6} s, nit = {} ({:.1} per simulated second), error {:.4e}",
            args.target, r.dt, r.nit, r.cost, r.error
        ),
        None => match best {
            Some(b) => println!(
                "no setting tried reaches {}: the lowest error is {:.4e} at dt = {:.6} s, nit = {}; the model cannot \
                 match this body's FEM closer at these settings (a finer time step or more iterations, or another \
                 model, may)",
                args.target, b.error, b.dt, b.nit
            ),
            None => println!("no setting tried has a rest state at any parameter of the box"),
        },
    }
    Ok(())
}
