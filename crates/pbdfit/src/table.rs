//! `pbdfit table`: build (or resume) a stiffness table from its definition file.

use std::path::PathBuf;

use pbdfit_fit::Spelling;
use pbdfit_table::{TableError, TableKeywords};

use crate::cli::{BackendName, CliError, CliResult, fit_error};

/// Arguments of `pbdfit table`.
#[derive(Debug, clap::Args)]
pub struct TableArgs {
    /// Table definition file (TOML), e.g. fits/tables/pbd.toml.
    file: PathBuf,
    /// Table folder (default: `<name>/` next to the definition file).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, visible_alias = "threads")]
    jobs: Option<usize>,
    /// Where the grid rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// The search, over the table file's `[fit] search`: `gradient` or `pattern`. Choosing another
    /// search than the file's also drops the file's `grid` (each search has its own default grid).
    #[arg(long, value_parser = |s: &str| pbdfit_fit::Search::parse(s))]
    search: Option<pbdfit_fit::Search>,
    /// Fit nothing: write table.csv and table.json from the fits already finished in the table folder (an
    /// interrupted or time-limited build), the nodes without a fit marked `missing`. A lookup whose cell
    /// needs a missing node names it; running `pbdfit table` again (without --partial) fits only those.
    #[arg(long)]
    partial: bool,
    /// Run K fits at once in lockstep: each turn of their gradient searches hands its trial rest states
    /// to the backend as one shared batch (what a GPU needs to be busy; on the CPU only the schedule
    /// changes). The same table as without.
    #[arg(long, value_name = "K")]
    lockstep: Option<usize>,
    /// Testing: abort the process (as kill -9 would) right after the K-th fit of this run is written.
    #[arg(long, hide = true)]
    abort_after: Option<usize>,
}

/// A table error as the command line's: the user's (exit 2) or the machine's (exit 1).
pub fn table_error(e: TableError) -> CliError {
    match e {
        TableError::Fit(e) => fit_error(e),
        e if e.is_input() => CliError::Input(e.to_string()),
        e => CliError::Internal(e.to_string()),
    }
}

/// Runs `pbdfit table`.
pub fn run(args: TableArgs) -> CliResult {
    let job = TableKeywords {
        file: args.file.display().to_string(),
        out: args.out.as_ref().map(|p| p.display().to_string()),
        jobs: args.jobs,
        search: args.search.map(|s| s.name().to_string()),
        partial: args.partial,
        lockstep: args.lockstep,
    };
    let prepared = job.prepare(Spelling::Flag).map_err(table_error)?;
    let out = &prepared.out;
    if let Some(warning) = prepared.def.study.mass_warning() {
        eprintln!("warning: {warning}");
    }
    let summary = crate::study::with_progress(
        &prepared.def.study,
        prepared.largest_n(),
        args.jobs,
        args.backend,
        args.abort_after,
        |backend, observer| prepared.run(backend, None, observer).map_err(table_error),
    )?;
    let m = &summary.table.meta;
    let loo = &m.leave_one_out;
    let missing = if m.missing > 0 {
        format!(", {} MISSING (part-built: `pbdfit table {}` fits them)", m.missing, args.file.display())
    } else {
        String::new()
    };
    println!(
        "table {}: {} nodes ({} fitted now, {} resumed, {} failed{missing}, {} at the edge of the box), {} \
         leave-one-out predictions simulated, in {:.1} s on {} threads; written to {}",
        m.name,
        m.nodes,
        summary.computed,
        summary.resumed,
        m.failed,
        m.at_bound,
        summary.simulated,
        summary.seconds,
        summary.threads,
        out.display()
    );
    let fmt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3e}"));
    for p in &loo.parameters {
        println!(
            "  leave-one-out {}: |predicted - fitted| median {}, 90th percentile {}, max {} (search coordinates)",
            p.name,
            fmt(p.stats.median),
            fmt(p.stats.p90),
            fmt(p.stats.max)
        );
    }
    println!(
        "  leave-one-out error increase when simulated: median {}, 90th percentile {}, max {} ({} nodes)",
        fmt(loo.error_increase.median),
        fmt(loo.error_increase.p90),
        fmt(loo.error_increase.max),
        loo.nodes
    );
    Ok(())
}
