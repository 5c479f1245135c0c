//! `pbdfit study`: run (or resume) a study file with a progress bar.

use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pbdfit_fit::Spelling;
use pbdfit_study::{PreparedStudy, Progress, Study, StudyKeywords, on_threads};

use crate::cli::{BackendName, CliError, CliResult, fit_error};
use crate::fit::job_error;

/// Arguments of `pbdfit study`.
#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// Study file (TOML), e.g. fits/thesis.toml.
    study: PathBuf,
    /// Only these parts: `scene`, `scene/experiment` or `*/experiment` (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Results folder (default: `results/<study name>` next to the study file).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the grid rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Use every k-th value of the study's nu range (a quick, coarse run).
    #[arg(long, default_value_t = 1)]
    poisson_stride: usize,
    #[command(flatten)]
    reference: pbdfit_mesh::ReferenceOptions,
    /// Arithmetic of the model's rest states, over the study file's `precision`: f64 or f32 (the
    /// reference library's own; PBD models only).
    #[arg(long, value_enum)]
    precision: Option<pbdfit_pbd::Precision>,
    /// The search, over the study file's `[fit] search`: `gradient` or `pattern`. Choosing another
    /// search than the file's also drops the file's `grid` (each search has its own default grid).
    #[arg(long, value_parser = |s: &str| pbdfit_fit::Search::parse(s))]
    search: Option<pbdfit_fit::Search>,
    /// Run K fits at once in lockstep: each turn of their gradient searches hands its trial rest states
    /// to the backend as one shared batch (what a GPU needs to be busy; on the CPU only the schedule
    /// changes). The same rows as without.
    #[arg(long, value_name = "K")]
    lockstep: Option<usize>,
    /// Testing: abort the process (as kill -9 would) right after the K-th fit of this run is written.
    #[arg(long, hide = true)]
    abort_after: Option<usize>,
}

/// Runs `pbdfit study`.
pub fn run(args: StudyArgs) -> CliResult {
    let job = StudyKeywords {
        study: args.study.display().to_string(),
        only: args.only.clone(),
        jobs: args.jobs,
        out: args.out.as_ref().map(|p| p.display().to_string()),
        poisson_stride: Some(args.poisson_stride),
        reference: args.reference.clone(),
        precision: args.precision.map(|p| p.name().to_string()),
        search: args.search.map(|s| s.name().to_string()),
        lockstep: args.lockstep,
    };
    for prepared in job.prepare(Spelling::Flag).map_err(job_error)? {
        if let Some(note) = &prepared.note {
            eprintln!("{note}");
        }
        if let Some(warning) = prepared.study.mass_warning() {
            eprintln!("warning: {warning}");
        }
        run_with_progress(&prepared, args.jobs, args.backend, args.abort_after)?;
    }
    Ok(())
}

/// Runs a study on `jobs` threads with a progress bar on stderr (plain lines when stderr is not a
/// terminal), then prints the summary.
pub fn run_with_progress(
    prepared: &PreparedStudy,
    jobs: Option<usize>,
    backend: BackendName,
    abort_after: Option<usize>,
) -> CliResult {
    let (study, out) = (&prepared.study, &prepared.out);
    let largest = study.base_and_experiment_resolutions().into_iter().max().unwrap_or(1);
    let summary = with_progress(study, largest, jobs, backend, abort_after, |backend, observer| {
        prepared.run(backend, None, observer).map_err(fit_error)
    })?;
    println!(
        "study {}: {} fits ({} computed now, {} resumed, {} failed, {} at the edge of the box) in {:.1} s on {} threads; results in {}",
        summary.layout.name,
        summary.fits,
        summary.computed,
        summary.resumed,
        summary.failed,
        summary.at_bound,
        summary.seconds,
        summary.threads,
        out.display()
    );
    if study.motion.is_some() {
        println!("  motion: the release test at every fit in {}", prepared.motion_file().display());
    }
    if summary.at_bound > 0 || summary.failed > 0 {
        // Whether those counts are normal ("214 at the edge of the box" with no word).
        println!(
            "  a fit at the edge of the box is kept with its parameter on the bound (the CSVs' at_bound column): \
             usual where the material lies beyond what the model reaches at a dt and nit; a failed fit has no point \
             with a rest state (its reason is in the CSV's status)"
        );
    }
    Ok(())
}

/// Runs `work` on a pool of `jobs` threads with the rest-state backend chosen for `study`'s body at
/// resolution `largest` (the largest the work meets) and a progress bar on stderr (plain lines every 10 s
/// when stderr is not a terminal). `abort_after` (testing) aborts the process as kill -9 would once that
/// many fits of this run are written.
pub fn with_progress<T: Send>(
    study: &Study,
    largest: usize,
    jobs: Option<usize>,
    backend: BackendName,
    abort_after: Option<usize>,
    work: impl FnOnce(&dyn pbdfit_pbd::RestStateBackend, &(dyn Fn(&Progress) + Sync)) -> Result<T, CliError> + Send,
) -> Result<T, CliError> {
    // The backend is chosen for the largest body and a grid sweep of rest states.
    let scene = study.scenes[0].scenes()[0].body(largest).map_err(|e| CliError::Input(e.to_string()))?;
    let grid = study.fit.resolution().pow(study.fit.search_box.dimensions() as u32);
    let backend = crate::cli::backend(backend, &pbdfit_pbd::PbdSystem::new(&scene), grid);
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} fits, {per_sec}, ETA {eta} {msg}")
            .expect("progress template")
            .progress_chars("=> "),
    );
    let plain = bar.is_hidden();
    // When the last plain line was printed (`None`: never). Not `now - 60 s`: subtracting from an
    // `Instant` panics when the clock (time since boot on Linux) is younger than that.
    let last_line = std::sync::Mutex::new(None::<std::time::Instant>);
    let observer = |p: &Progress| {
        if abort_after.is_some_and(|k| p.done >= k && p.done > 0) {
            std::process::abort();
        }
        if p.notice {
            bar.suspend(|| eprintln!("{}", p.message));
            return;
        }
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.message.clone());
        if plain {
            let mut last = last_line.lock().expect("progress lock");
            if last.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) || p.done == p.total || p.done == 0 {
                eprintln!("[{}/{} fits, {} resumed] {}", p.done, p.total, p.resumed, p.message);
                *last = Some(std::time::Instant::now());
            }
        }
    };
    let result = on_threads(jobs, |_| work(backend.as_ref(), &observer)).map_err(fit_error);
    bar.finish_and_clear();
    result?
}
