//! `pbdfit identify`: E and nu of an FEM law from measured markers, with 95 % intervals.

use serde_json::json;
use std::path::PathBuf;

use crate::cli::{CliError, CliResult, ReferenceArgs, fit_error, load_scene, resolution, to_json};

/// Arguments of `pbdfit identify`.
#[derive(Debug, clap::Args)]
pub struct IdentifyArgs {
    /// Built-in scene name or a TOML path (one body: a compound scene is refused).
    #[arg(long)]
    scene: String,
    /// The marker CSV (columns x, y, z, ux, uy, uz in m, optionally sigma in m; see `fit --measured`) or a
    /// full-field `.vtu`. Default: the scene's `[reference] measured`.
    #[arg(long, value_name = "FILE")]
    measured: Option<PathBuf>,
    /// Mesh resolution N of the FEM (default: the scene's).
    #[arg(long)]
    n: Option<usize>,
    /// Time step in s of a dynamic reference (--dynamic).
    #[arg(long, default_value_t = 0.01)]
    dt: f64,
    #[command(flatten)]
    reference: ReferenceArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit identify`.
pub fn run(args: IdentifyArgs) -> CliResult {
    let set = load_scene(&args.scene, None, false)?;
    let n = resolution(&set, args.n)?;
    let [scene] = set.scenes() else {
        return Err(CliError::Input(format!(
            "scene {} is a compound of {} bodies; identify one body at a time",
            set.name(),
            set.scenes().len()
        )));
    };
    let overrides = args.reference.overrides()?;
    let spec = pbdfit_fit::reference_spec(scene, &overrides).map_err(fit_error)?;
    let path = args.measured.clone().or_else(|| scene.measured.clone()).ok_or_else(|| {
        CliError::Input(format!(
            "identify needs measured markers: --measured FILE, or `[reference] measured = \"FILE\"` in scene {}",
            set.name()
        ))
    })?;
    let markers = pbdfit_mesh::Markers::read(&path).map_err(|e| CliError::Input(e.to_string()))?;
    let start = std::time::Instant::now();
    let id = pbdfit_fit::identify(scene, n, spec, args.dt, &markers, 1e-9).map_err(fit_error)?;
    let weighting = id.weighting.name();
    let undetermined: Vec<&str> = id.undetermined.iter().map(|p| p.name()).collect();
    if args.json {
        let interval = |i: Option<(f64, f64)>| i.map_or(serde_json::Value::Null, |(lo, hi)| json!([lo, hi]));
        let value = json!({
            "scene": set.name(),
            "n": n,
            "reference": id.reference,
            "measured": markers.source,
            "markers": id.markers,
            "weighting": weighting,
            "young": id.young,
            "poisson": id.poisson,
            "young_interval_95": interval(id.intervals[0]),
            "poisson_interval_95": interval(id.intervals[1]),
            "poisson_at_bound": id.poisson_bound,
            "undetermined": undetermined,
            "covariance_ln_young_poisson": id.covariance,
            "error": id.error,
            "evaluations": id.evaluations,
            "seconds": start.elapsed().as_secs_f64(),
            "pbdfit_version": env!("CARGO_PKG_VERSION"),
        });
        println!("{}", to_json(&value)?);
    } else {
        println!(
            "scene {} (N = {n}), {} reference, {} markers from {} ({weighting})",
            set.name(),
            id.reference,
            id.markers,
            markers.source
        );
        let young = match id.intervals[0] {
            Some((lo, hi)) => format!("95 %: {lo:.6e} to {hi:.6e}"),
            None => "not determined".into(),
        };
        let poisson = match (id.intervals[1], id.poisson_bound) {
            (Some((lo, hi)), Some(_)) => format!("95 %: {lo:.6} to {hi:.6}, one-sided"),
            (Some((lo, hi)), None) => format!("95 %: {lo:.6} to {hi:.6}"),
            (None, _) => "not determined".into(),
        };
        println!("  E = {:.6e} Pa ({young})  nu = {:.6} ({poisson})", id.young, id.poisson);
        if let Some(bound) = id.poisson_bound {
            println!(
                "  note: nu lies on the searched range's bound {bound} (nu from {} to {}; the FEM refuses 0.5): the \
                 markers may want nu beyond it, so its interval ends at the bound",
                pbdfit_fit::NU_MIN,
                pbdfit_fit::NU_MAX
            );
        }
        if !id.undetermined.is_empty() {
            let names: Vec<&str> = id.undetermined.iter().map(|p| p.symbol()).collect();
            let why = if id.covariance.is_none() {
                "E and nu move them alike (the Gauss-Newton matrix is singular)".to_string()
            } else {
                let reasons: Vec<String> = id
                    .undetermined
                    .iter()
                    .map(|p| match p {
                        pbdfit_fit::MaterialParameter::Young => format!(
                            "E's 95 % interval reaches beyond a factor {:e} either way",
                            pbdfit_fit::YOUNG_FACTOR
                        ),
                        pbdfit_fit::MaterialParameter::Poisson => {
                            "nu's 95 % interval covers the whole range (-1, 0.5)".into()
                        }
                    })
                    .collect();
                format!(
                    "the markers' noise hides {} effect: {}",
                    if names.len() > 1 { "their" } else { "its" },
                    reasons.join("; ")
                )
            };
            println!(
                "  {} not identifiable from these markers ({why}); more markers, less noise, or markers that see \
                 all three components of the motion determine more",
                names.join(" and ")
            );
        }
        println!("  error {:.6e}, {} FEM solves, {:.3} s", id.error, id.evaluations, start.elapsed().as_secs_f64());
    }
    Ok(())
}
