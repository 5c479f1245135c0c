//! `pbdfit settings`: the cheapest engine settings (dt, iterations or substeps) at which a model reaches
//! the reference within a target error, and where it cannot at all (the settings job,
//! [`pbdfit_jobs::SettingsKeywords`]).

use pbdfit_jobs::{Job, SettingsKeywords, Spelling};

use crate::cli::CliResult;

/// Arguments of `pbdfit settings`: the settings job's keywords and `--json`.
#[derive(Debug, clap::Args)]
#[command(about = <SettingsKeywords as pbdfit_jobs::Job>::ABOUT)]
pub struct SettingsArgs {
    #[command(flatten)]
    job: SettingsKeywords,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit settings`. Every argument and every setting's problem is checked before anything is
/// printed.
pub fn run(args: SettingsArgs) -> CliResult {
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    prepared.notes.iter().for_each(|note| eprintln!("pbdfit: {note}"));
    prepared.warnings.iter().for_each(|warning| eprintln!("warning: {warning}"));
    crate::cli::run_prepared::<SettingsKeywords>(prepared, args.json).map(|_| ())
}
