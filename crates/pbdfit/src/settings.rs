//! `pbdfit settings`: the cheapest engine settings (dt, iterations or substeps) at which a model reaches
//! the reference within a target error, and where it cannot at all (`pbdfit_jobs::settings_sweep`).

use pbdfit_fit::{FitRequest, PartCache, Search};
use pbdfit_jobs::settings_sweep::{
    PlannedSweep, cheapest, grid, rms_percent, settings_matter, target_from_rms_percent,
};
use pbdfit_mesh::display::{number, scientific};
use serde_json::json;

use crate::cli::{CliError, CliResult, fit_error, to_json};

/// Arguments of `pbdfit settings`.
#[derive(Debug, clap::Args)]
pub struct SettingsArgs {
    #[command(flatten)]
    body: pbdfit_fit::Body,
    #[command(flatten)]
    material: pbdfit_fit::Material,
    /// Model kind: a textbook model or an engine profile (the list below).
    #[arg(long, value_enum, default_value_t = pbdfit_pbd::ModelKind::JOLT)]
    model: pbdfit_pbd::ModelKind,
    /// An engine profile's setting, `NAME=VALUE` (repeatable), as for `pbdfit fit`.
    #[arg(long = "setting", value_name = "NAME=VALUE", value_parser = pbdfit_fit::parse_named_value)]
    settings: Vec<(String, f64)>,
    /// The error the fit must reach, as the mean squared relative displacement error the fits minimise
    /// (0.05 is an RMS relative error of 22.4 %, not 5 %). Give --target-rms for a percentage.
    #[arg(long, conflicts_with = "target_rms")]
    target: Option<f64>,
    /// The error the fit must reach as a root-mean-square relative displacement error in per cent (`5%` or
    /// `5`: a mean squared error of 0.0025). Default: --target 0.05 (22.4 % RMS).
    #[arg(long, value_name = "PERCENT")]
    target_rms: Option<String>,
    /// Time steps to try, comma-separated, as decimals or fractions.
    #[arg(long, default_value = "1/30,1/60,1/120,1/240")]
    dt: String,
    /// Iterations (Newton) or substeps (Jolt, Genesis) to try, comma-separated.
    #[arg(long, default_value = "1,2,4,8,16,32")]
    nit: String,
    #[command(flatten)]
    reference: pbdfit_mesh::ReferenceOptions,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn list<T>(flag: &str, text: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, CliError> {
    text.split(',')
        .map(|item| parse(item.trim()).ok_or_else(|| CliError::Input(format!("{flag} `{item}`: not a valid value"))))
        .collect()
}

/// The default target: a mean squared relative error of 0.05.
const DEFAULT_TARGET: f64 = 0.05;

/// `0.05 (mean squared relative error; 22.4 % RMS)`.
fn describe_target(target: f64) -> String {
    format!("{} (mean squared relative error; {:.3} % RMS)", number(target), rms_percent(target))
}

/// `6.4e5 (80000 % RMS)` for a row's error, `-` where the fit found no rest state.
fn describe_error(error: f64) -> String {
    if error.is_finite() { format!("{} ({} % RMS)", scientific(error), number(rms_percent(error))) } else { "-".into() }
}

/// Runs `pbdfit settings`. Every argument and every setting's problem is checked before anything is
/// printed.
pub fn run(args: SettingsArgs) -> CliResult {
    let kind = args.model.with_settings(&args.settings).map_err(|e| CliError::Input(format!("--setting: {e}")))?;
    let dts = list("--dt", &args.dt, |s| pbdfit_table::axes::parse_number(s).ok())?;
    let nits = list("--nit", &args.nit, |s| s.parse::<usize>().ok())?;
    let grid = grid(&dts, &nits, kind).map_err(|e| CliError::Input(format!("--{e}")))?;
    let target = match (&args.target, &args.target_rms) {
        (_, Some(rms)) => target_from_rms_percent(rms).map_err(|e| CliError::Input(format!("--target-rms {e}")))?,
        (Some(t), None) => {
            if !(t.is_finite() && *t > 0.0 && *t < 1.0) {
                return Err(CliError::Input(format!(
                    "--target {t}: the mean squared relative error must be a number in (0, 1) (1 is what a body that \
                     does not deform scores; --target-rms takes a percentage)"
                )));
            }
            *t
        }
        (None, None) => DEFAULT_TARGET,
    };
    let material = args.material.checked().map_err(crate::fit::job_error)?;
    let (set, notes) = args.body.load(Some(kind), pbdfit_fit::Spelling::Flag).map_err(crate::fit::job_error)?;
    notes.iter().for_each(|note| eprintln!("pbdfit: {note}"));
    // Refused before the table's header: every fit of the sweep is against the FEM.
    pbdfit_fit::fits_against_fem(&set).map_err(fit_error)?;
    let n = args.body.resolution(&set, pbdfit_fit::Spelling::Flag).map_err(crate::fit::job_error)?;
    // Masses a scene file gives, other than the engine's: at the first setting, the model's example point.
    if let Some(warning) = pbdfit_fit::mass_model_warning(
        &set,
        pbdfit_fit::Settings::new(dts[0], n, nits[0], kind),
        None,
        args.body.mass_model().map_err(CliError::Input)?,
        "--mass-model",
    ) {
        eprintln!("warning: {warning}");
    }
    let masses = set.scenes()[0].mass_model().name();
    let options = FitRequest { search: Some(Search::Gradient), ..FitRequest::new(kind) }
        .options(Search::FIT_DEFAULT)
        .map_err(|e| CliError::Input(e.message))?;
    let cache = PartCache::new(pbdfit_fit::checked_reference(&args.reference).map_err(crate::fit::job_error)?);
    // Every setting's problem (the reference's options, the time step, the engine's load) before the header.
    let plan = PlannedSweep::plan(&set, n, kind, material, &cache, &grid).map_err(fit_error)?;
    let backend = pbdfit_pbd::CpuBackend;
    let matter = settings_matter(kind);
    if !args.json {
        println!("{}", set.body_line());
        println!(
            "scene {} (N = {n}, {masses} masses), model {}, E = {} Pa, nu = {}; target error {}; nit = {}",
            set.name(),
            kind.spec(),
            scientific(material.young()),
            number(material.poisson()),
            describe_target(target),
            kind.nit_means()
        );
        if !matter {
            println!(
                "  dt and nit do not move model {}'s rest state (a Newton equilibrium of its forces): one fit, \
                 no grid",
                kind.name()
            );
        }
        println!("  {:>10} {:>5} {:>12} {:>26}  parameters", "dt (s)", "nit", "nit/s", "error");
    }
    let json = args.json;
    let rows = plan.run(&options, &backend, |r| {
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
        let (dt, nit, cost) = if matter {
            (number(r.dt), r.nit.to_string(), number(r.cost))
        } else {
            ("any".into(), "any".into(), "-".into())
        };
        println!("  {dt:>10} {nit:>5} {cost:>12} {:>26}  {}{note}", describe_error(r.error), parameters.join(", "));
    });
    let answer = if matter { cheapest(&rows, target) } else { None };
    let best = rows.iter().filter(|r| r.error.is_finite()).min_by(|a, b| a.error.total_cmp(&b.error));
    if json {
        let row = |r: &pbdfit_jobs::settings_sweep::SettingFit| {
            json!({
                "dt": r.dt, "nit": r.nit, "cost": r.cost,
                "error": r.error.is_finite().then_some(r.error),
                "rms_percent": r.error.is_finite().then(|| rms_percent(r.error)),
                "parameters": r.parameters.iter().map(|(n, v)| (n.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "at_bound": r.at_bound, "failed": r.failed,
            })
        };
        let value = json!({
            "scene": set.name(), "body": set.bodies(), "n": n, "mass_model": masses, "model": kind.spec(),
            "young": material.young(), "poisson": material.poisson(), "target": target, "target_rms_percent": rms_percent(target),
            "nit_means": kind.nit_means(), "settings_matter": matter,
            "rows": rows.iter().map(row).collect::<Vec<_>>(),
            "cheapest": answer.map(row),
            "best": best.map(row),
            "pbdfit_version": env!("CARGO_PKG_VERSION"),
        });
        println!("{}", to_json(&value)?);
        return Ok(());
    }
    if !matter {
        match best {
            Some(b) if b.error <= target => println!(
                "model {} reaches {} with error {} at any dt and nit",
                kind.name(),
                describe_target(target),
                describe_error(b.error)
            ),
            Some(b) => println!(
                "model {} does not reach {}: its error is {} at any dt and nit (another model may)",
                kind.name(),
                describe_target(target),
                describe_error(b.error)
            ),
            None => println!("model {} has no rest state at any parameter of the box", kind.name()),
        }
        return Ok(());
    }
    match answer {
        Some(r) => println!(
            "cheapest setting that reaches {}: dt = {} s, nit = {} ({} per simulated second), error {}",
            describe_target(target),
            number(r.dt),
            r.nit,
            number(r.cost),
            describe_error(r.error)
        ),
        None => match best {
            Some(b) => println!(
                "no setting tried reaches {}: the lowest error is {} at dt = {} s, nit = {}; the model cannot \
                 match this body's FEM closer at these settings (a finer time step or more iterations, or another \
                 model, may)",
                describe_target(target),
                describe_error(b.error),
                number(b.dt),
                b.nit
            ),
            None => println!("no setting tried has a rest state at any parameter of the box"),
        },
    }
    Ok(())
}
