//! `pbdfit lookup`: a model's parameters interpolated from a stiffness table, with an error estimate (the
//! lookup job, [`pbdfit_jobs::LookupKeywords`]).

use pbdfit_jobs::{Job, LookupKeywords, Spelling};

use crate::cli::CliResult;

/// Arguments of `pbdfit lookup`: the lookup job's keywords and `--json`.
#[derive(Debug, clap::Args)]
#[command(about = <LookupKeywords as pbdfit_jobs::Job>::ABOUT, allow_negative_numbers = true)]
pub struct LookupArgs {
    #[command(flatten)]
    job: LookupKeywords,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit lookup`.
pub fn run(args: LookupArgs) -> CliResult {
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    for note in &prepared.notes {
        eprintln!("pbdfit: {note}");
    }
    crate::cli::run_prepared::<LookupKeywords>(prepared, args.json).map(|_| ())
}
