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
    if args.json {
        let value = json!({
            "scene": set.name(),
            "n": n,
            "reference": id.reference,
            "measured": markers.source,
            "markers": id.markers,
            "weighting": weighting,
            "young": id.young,
            "poisson": id.poisson,
            "young_interval_95": [id.intervals[0].0, id.intervals[0].1],
            "poisson_interval_95": [id.intervals[1].0, id.intervals[1].1],
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
        println!(
            "  E = {:.6e} Pa (95 %: {:.6e} to {:.6e})  nu = {:.6} (95 %: {:.6} to {:.6})",
            id.young, id.intervals[0].0, id.intervals[0].1, id.poisson, id.intervals[1].0, id.intervals[1].1
        );
        println!("  error {:.6e}, {} FEM solves, {:.3} s", id.error, id.evaluations, start.elapsed().as_secs_f64());
    }
    Ok(())
}
