//! `pbdfit identify`: E and nu of an FEM law from measured markers, with 95 % intervals.

use pbdfit_jobs::{IdentifyJob, Job, Spelling};

use crate::cli::CliResult;

/// Arguments of `pbdfit identify`: the job's keywords and the output form.
#[derive(Debug, clap::Args)]
pub struct IdentifyArgs {
    #[command(flatten)]
    job: IdentifyJob,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit identify`: the arguments are an [`IdentifyJob`], run in pbdfit-jobs, whose report is
/// printed (as text, or as JSON with `--json`).
pub fn run(args: IdentifyArgs) -> CliResult {
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    crate::cli::run_prepared::<IdentifyJob>(prepared, args.json).map(drop)
}
