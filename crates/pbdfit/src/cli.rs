//! What every subcommand shares: the error type with its exit codes, and scene loading.

use pbdfit_mesh::{BUILTIN_SCENES, SceneSet};

/// A failed command. `Input` is the user's to fix (exit 2); `Internal` is ours (exit 1).
#[derive(Debug)]
pub enum CliError {
    /// Bad input: a scene, a parameter or a file the user gave.
    Input(String),
    /// Something failed that the input does not explain.
    Internal(String),
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Internal(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m) => write!(f, "error: {m}"),
            CliError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

/// Result of a subcommand.
pub type CliResult = Result<(), CliError>;

/// The arguments of a command that takes none (`pbdfit scenes`).
#[derive(Debug, clap::Args)]
pub struct NoArgs {}

/// `pbdfit scenes`: the built-in scenes and what they hold.
pub fn list_scenes(_: NoArgs) -> CliResult {
    for (name, _) in BUILTIN_SCENES {
        if pbdfit_mesh::SheetScene::names_sheet(name) {
            let sheet = pbdfit_mesh::SheetScene::load(name).map_err(|e| CliError::Internal(e.to_string()))?;
            println!("{name:16} {}", sheet.listing());
            continue;
        }
        let set = SceneSet::builtin(name).map_err(|e| CliError::Internal(e.to_string()))?;
        if set.is_compound() {
            let parts: Vec<_> = set.scenes().iter().map(|s| s.name.as_str()).collect();
            println!("{name:16} compound of {}", parts.join(", "));
        } else {
            let s = &set.scenes()[0];
            let held: Vec<_> = s.held.iter().map(|p| p.to_string()).collect();
            if held.is_empty() {
                // A free body (the contact scenes): its obstacles carry it.
                let on: Vec<_> = s.obstacles.iter().map(|o| o.shape.kind()).collect();
                println!("{name:16} free on {}; {}", on.join(" and "), s.description);
            } else {
                println!("{name:16} held at {}; {}", held.join(" and "), s.description);
            }
        }
    }
    Ok(())
}

/// Maps a fit or study error to the command line's: the user's input (exit 2) or the machine's (exit
/// 1). A failed write during a study says that the finished fits are kept.
pub fn fit_error(e: pbdfit_fit::FitError) -> CliError {
    match e {
        e if e.is_input() => CliError::Input(e.to_string()),
        e @ pbdfit_fit::FitError::Results(_) => CliError::Internal(format!(
            "{e}; every fit finished before is kept in the results folder, and running the same command again \
             resumes from it"
        )),
        // Its own message, without the `internal error:` its Display adds (CliError's says it once).
        pbdfit_fit::FitError::Internal(message) => CliError::Internal(message),
        e => CliError::Internal(e.to_string()),
    }
}

/// A job's command with no output besides its report: the job's keywords and `--json`, its help the job's
/// [`ABOUT`](pbdfit_jobs::Job::ABOUT).
#[derive(Debug, clap::Args)]
#[command(about = J::ABOUT)]
pub struct JobArgs<J: pbdfit_jobs::Job + clap::Args> {
    #[command(flatten)]
    job: J,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs any job from its command line: prepares it (a refusal names the flag), runs it and prints its report.
pub fn run_job<J: pbdfit_jobs::Job + clap::Args>(args: JobArgs<J>) -> CliResult {
    let prepared = args.job.prepare(pbdfit_jobs::Spelling::Flag).map_err(crate::fit::job_error)?;
    run_prepared::<J>(prepared, args.json).map(|_| ())
}

/// Runs a prepared job on the CPU and prints its report (as text, or as JSON with `json`). Returns the
/// report for what the command writes besides (ParaView files).
pub fn run_prepared<J: pbdfit_jobs::Job>(prepared: J::Prepared, json: bool) -> Result<J::Report, CliError> {
    run_on::<J>(prepared, json, BackendName::Cpu, None)
}

/// A job of many fits (a study, a table): its keywords beside the backend and `--json`, its help the job's
/// [`ABOUT`](pbdfit_jobs::Job::ABOUT).
#[derive(Debug, clap::Args)]
#[command(about = J::ABOUT)]
pub struct FitsArgs<J: pbdfit_jobs::Job + clap::Args> {
    #[command(flatten)]
    job: J,
    /// Where the grid rest states are computed.
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Testing: abort the process (as kill -9 would) right after the K-th fit of this run is written.
    #[arg(long, hide = true)]
    abort_after: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs a job of many fits from its command line: [`run_job`] with its backend and progress bar.
pub fn run_fits<J: pbdfit_jobs::Job + clap::Args>(args: FitsArgs<J>) -> CliResult {
    let prepared = args.job.prepare(pbdfit_jobs::Spelling::Flag).map_err(crate::fit::job_error)?;
    run_on::<J>(prepared, args.json, args.backend, args.abort_after).map(|_| ())
}

/// Runs a prepared job and prints its report (as text, or as JSON with `json`): the one way every job's
/// command ends. Its progress lines go to stderr; a study's or table's rest states go to the `backend`
/// chosen for its largest body, its fits to a progress bar on stderr (plain lines every 10 s when stderr is
/// not a terminal). `abort_after` (testing) aborts the process as kill -9 would once that many fits of this
/// run are written.
pub fn run_on<J: pbdfit_jobs::Job>(
    prepared: J::Prepared,
    json: bool,
    backend: BackendName,
    abort_after: Option<usize>,
) -> Result<J::Report, CliError> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    // Made at the first fit, so that a job without fits draws nothing.
    let bar = std::sync::OnceLock::<ProgressBar>::new();
    let new_bar = || {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4));
        let template = "{elapsed_precise} [{bar:30}] {pos}/{len} fits, {per_sec}, ETA {eta} {msg}";
        bar.set_style(ProgressStyle::with_template(template).expect("progress template").progress_chars("=> "));
        bar
    };
    let say = |line: &str| match bar.get() {
        Some(bar) => bar.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    };
    // When the last plain line was printed (`None`: never). Not `now - 60 s`: subtracting from an
    // `Instant` panics when the clock (time since boot on Linux) is younger than that.
    let last_line = std::sync::Mutex::new(None::<std::time::Instant>);
    let fits = |p: &pbdfit_study::Progress| {
        if abort_after.is_some_and(|k| p.done >= k && p.done > 0) {
            std::process::abort();
        }
        if p.notice {
            return say(&p.message);
        }
        let bar = bar.get_or_init(new_bar);
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.message.clone());
        let mut last = last_line.lock().expect("progress lock");
        if bar.is_hidden()
            && (last.is_none_or(|t| t.elapsed() > std::time::Duration::from_secs(10))
                || p.done == p.total
                || p.done == 0)
        {
            eprintln!("[{}/{} fits, {} resumed] {}", p.done, p.total, p.resumed, p.message);
            *last = Some(std::time::Instant::now());
        }
    };
    let choose = |system: &pbdfit_pbd::PbdSystem, rest_states| {
        bar.get()
            .map(|bar| bar.suspend(|| self::backend(backend, system, rest_states)))
            .unwrap_or_else(|| self::backend(backend, system, rest_states))
    };
    let mut context = pbdfit_jobs::Context {
        backend: &pbdfit_pbd::CpuBackend,
        choose: &choose,
        progress: &mut |_| {},
        frames: &mut |_, _, _| Ok(()),
        lines: &mut |line| say(line),
        fits: &fits,
        cancel: None,
    };
    let report = J::run(prepared, &mut context);
    if let Some(bar) = bar.get() {
        bar.finish_and_clear();
    }
    let report = report.map_err(crate::fit::job_error)?;
    print_report(&report, json)?;
    Ok(report)
}

/// Prints a job's report: its text, or its JSON object with `json`.
pub fn print_report<R: pbdfit_jobs::Report>(report: &R, json: bool) -> CliResult {
    if json {
        println!("{}", to_json(report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

/// Checks that a `--vtk` file name ends in `.vtu`, before any work.
pub fn check_vtu(path: Option<&std::path::Path>) -> CliResult {
    match path {
        Some(path) if path.extension().and_then(|e| e.to_str()) != Some("vtu") => {
            Err(CliError::Input(format!("--vtk {}: the file name must end in .vtu", path.display())))
        }
        _ => Ok(()),
    }
}

/// Serialises to JSON for stdout.
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string(value).map_err(|e| CliError::Internal(format!("JSON output: {e}")))
}

/// For a compound scene, `out.vtu` -> `out-<part>.vtu`; for a basic scene the path itself.
pub fn part_path(path: &std::path::Path, part: &str, compound: bool) -> std::path::PathBuf {
    if !compound {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{stem}-{part}.vtu"))
}

/// Where rest states are computed (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendName {
    /// The f64 CPU path.
    Cpu,
    /// The f32 GPU path (wgpu); the CPU path with a one-line message when no adapter exists.
    Gpu,
    /// The GPU when a hardware adapter exists and the work is large enough to gain, else the CPU.
    Auto,
}

/// Picks the rest-state backend for `rest_states` rest states of `system`, and says on stderr which.
pub fn backend(
    name: BackendName,
    system: &pbdfit_pbd::PbdSystem,
    rest_states: usize,
) -> Box<dyn pbdfit_pbd::RestStateBackend> {
    use pbdfit_gpu::{BackendChoice, WorkSize, choose_backend};
    let choice = match name {
        BackendName::Cpu => BackendChoice::Cpu,
        BackendName::Gpu => BackendChoice::Gpu,
        BackendName::Auto => BackendChoice::Auto,
    };
    let (backend, message) = choose_backend(choice, WorkSize::new(system, rest_states), Some(handoff_reporter()));
    eprintln!("{message}");
    backend
}

/// Tells the user on stderr why the GPU backend computed rest states on the CPU: a model without a kernel
/// or a scene whose loads the kernels do not take once per reason, each failure of the device every time.
fn handoff_reporter() -> pbdfit_gpu::HandoffObserver {
    let said = std::sync::Mutex::new(Vec::<String>::new());
    std::sync::Arc::new(move |h: &pbdfit_gpu::Handoff| {
        let line = h.to_string();
        let mut said = said.lock().unwrap_or_else(|e| e.into_inner());
        if h.repeats() || !said.contains(&line) {
            eprintln!("pbdfit: {line}");
            said.push(line);
        }
    })
}

/// Checks, before any work, that the output file `path` of `option` can be written: its folder exists (or,
/// with `make_folder`, is made), and a file there can be created (or the file, where it exists, opened for
/// writing). Nothing is left behind but a folder made. An unwritable path found only after the computation
/// lost its result.
pub fn check_output_file(option: &str, path: &std::path::Path, make_folder: bool) -> CliResult {
    let refused = |what: String| CliError::Input(format!("{option} {}: {what}", path.display()));
    if path.is_dir() {
        return Err(refused("is a folder; give a file name".to_string()));
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if make_folder {
        std::fs::create_dir_all(folder)
            .map_err(|e| refused(format!("cannot create the folder {}: {e}", folder.display())))?;
    } else if !folder.is_dir() {
        return Err(refused(format!("the folder {} does not exist", folder.display())));
    }
    if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path).map_err(|e| refused(format!("cannot be written: {e}")))?;
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| refused(format!("cannot be written: {e}")))?;
        std::fs::remove_file(path).map_err(|e| refused(format!("cannot be written: {e}")))?;
    }
    Ok(())
}

/// Checks, before any work, that the output folder `dir` of `option` can be written: made where it does
/// not exist, and a file created and removed in it.
pub fn check_output_folder(option: &str, dir: &std::path::Path) -> CliResult {
    let refused = |what: String| CliError::Input(format!("{option} {}: {what}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| refused(format!("cannot create the folder: {e}")))?;
    let probe = dir.join(format!(".pbdfit-write-check-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| refused(format!("cannot be written: {e}")))?;
    std::fs::remove_file(&probe).map_err(|e| refused(format!("cannot be written: {e}")))?;
    Ok(())
}

/// Removes a previous run's frames from `dir` before a run writes its own there: the files named
/// `<prefix>NNNNNN.vtu` (six digits, the frames' own pattern) and the series file `series`, nothing else.
/// Frames left from a longer run would otherwise sit beside the new ones. Says on stderr how many it removed.
pub fn clear_old_frames(option: &str, dir: &std::path::Path, prefix: &str, series: &str) -> CliResult {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let frame = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(".vtu"))
            .is_some_and(|digits| digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()));
        if (frame || name == series) && entry.path().is_file() {
            std::fs::remove_file(entry.path())
                .map_err(|e| CliError::Input(format!("{option}: cannot remove the old frame {name}: {e}")))?;
            removed += usize::from(frame);
        }
    }
    if removed > 0 {
        eprintln!("pbdfit: removed {removed} frames of an earlier run from {}", dir.display());
    }
    Ok(())
}
