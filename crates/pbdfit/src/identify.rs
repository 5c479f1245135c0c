//! `pbdfit identify`: E and nu of an FEM law from measured markers, with 95 % intervals.

use std::path::PathBuf;

use pbdfit_fit::{IdentifyJob, Spelling};

use crate::cli::{BodyArgs, CliResult, ReferenceArgs, to_json};

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
    // The body's `--density` (`--size` is refused: the markers fix the body's scale).
    #[command(flatten)]
    body: BodyArgs,
    #[command(flatten)]
    reference: ReferenceArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit identify`: the arguments become an [`IdentifyJob`], run in pbdfit-fit, whose report is
/// printed (as text, or as JSON with `--json`).
pub fn run(args: IdentifyArgs) -> CliResult {
    let job = IdentifyJob {
        scene: args.scene.clone(),
        measured: args.measured.clone(),
        n: args.n,
        dt: Some(args.dt),
        body: args.body.keywords(),
        reference: args.reference.keywords(),
    };
    let report = job.run(Spelling::Flag).map_err(crate::fit::job_error)?;
    if args.json {
        println!("{}", to_json(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}
