//! `pbdfit mapping` (alias `pbdfit baseline`): a closed-form mapping's parameters for (E, nu), or the list
//! of mappings (the mapping job, [`pbdfit_jobs::MappingKeywords`]).

use pbdfit_jobs::{Job, MappingKeywords, Spelling, mapping_list_help};

use crate::cli::CliResult;

/// Arguments of `pbdfit mapping`: the mapping job's keywords and `--json`.
#[derive(Debug, clap::Args)]
#[command(about = <MappingKeywords as pbdfit_jobs::Job>::ABOUT)]
#[command(allow_negative_numbers = true, after_help = mapping_list_help())]
pub struct MappingArgs {
    #[command(flatten)]
    job: MappingKeywords,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit mapping`.
pub fn run(args: MappingArgs) -> CliResult {
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    for note in prepared.notes() {
        eprintln!("pbdfit: {note}");
    }
    crate::cli::run_prepared::<MappingKeywords>(prepared, args.json).map(|_| ())
}
