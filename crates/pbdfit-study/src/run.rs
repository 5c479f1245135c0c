//! The study runner: resume, grid rest states per (dt, N, nit), fits in parallel, sorted files, summary.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use pbdfit_pbd::RestStateBackend;
use pbdfit_results::{FitRecord, FitStatus, SearchRecord, StudySummary};
use rayon::prelude::*;

use super::folder::{LockedFolder, check_settings};
use super::plan::{FitKey, Plan};
use super::{Configuration, Study, store};
use pbdfit_fit::{FitError, GridRestStates, PartCache, RestSource, Search, fit_with_grid_from};

/// Which fits a run does.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--only` filters (`scene`, `scene/experiment`, `*/experiment`); empty runs everything.
    pub only: Vec<String>,
    /// When set (by another thread, or the observer), no further fit starts; the fits in flight finish
    /// and are written, and the run returns [`FitError::Interrupted`]. A later run resumes.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Run each (dt, N, nit) group's fits in lockstep, this many at once ([`pbdfit_fit::Lockstep`]): their
    /// search turns' rest states go to the backend as shared batches. The same rows as without; `None`
    /// runs the fits one per thread, each computing its own rest states.
    pub lockstep: Option<usize>,
}

impl RunOptions {
    /// Whether the run was asked to stop ([`Self::cancel`] set).
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// Progress of a study run, reported to an observer after each fit (after its rows were written).
#[derive(Debug, Clone)]
pub struct Progress {
    /// Fits finished in this run.
    pub done: usize,
    /// Fits this run must do (excluding those found already finished).
    pub total: usize,
    /// Fits found finished from an earlier run.
    pub resumed: usize,
    /// What was just finished or started.
    pub message: String,
    /// Whether `message` is a notice the user must see (rows removed from a results file), not a
    /// status line that the next one replaces.
    pub notice: bool,
}

/// Runs (or resumes) a study, writing results under `out_dir`. `backend` computes the grid rest states;
/// fits run on rayon's current thread pool; references come from `cache` (one per scene and resolution,
/// reused for every nu and E). `observer` sees progress after every fit.
///
/// A results file that cannot be written (disk full, folder removed) stops the run with
/// [`FitError::Results`]; every fit written before stays on disk and a new run resumes from it.
pub fn run_study(
    study: &Study,
    out_dir: &Path,
    options: &RunOptions,
    backend: &dyn RestStateBackend,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<StudySummary, FitError> {
    let plan = Plan::new(study, out_dir, &options.only)?;
    run_plan(study, &plan, out_dir, options, backend, cache, observer)
}

/// Runs (or resumes) a given plan of `study`'s fits (from [`Plan::new`], or [`Plan::from_configurations`]
/// for fits at explicit configurations such as a stiffness table's nodes): everything [`run_study`] does
/// after planning. `options.only` is not consulted (the plan is already filtered). Takes the folder's
/// lock for the run ([`LockedFolder`]); a caller that must hold it longer locks and calls [`run_plan_in`].
pub fn run_plan(
    study: &Study,
    plan: &Plan,
    out_dir: &Path,
    options: &RunOptions,
    backend: &dyn RestStateBackend,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<StudySummary, FitError> {
    let folder = LockedFolder::lock(out_dir)?;
    run_plan_in(study, plan, &folder, options, backend, cache, observer)
}

/// [`run_plan`] in a folder the caller has locked: [`resume`], then every [`Task`] of [`tasks`] run by
/// [`run_task`] (grids from [`group_grids`], once per (dt, N, nit) group, tasks in parallel) with each
/// record written by [`write_record`] as it finishes, then [`finish`]. A distributed run (Python's
/// `pbdfit.study(..., client=...)`) is the same four pieces with the tasks run elsewhere, so it writes
/// the same files.
///
/// Before any fit: the folder's manifest (a run that started) and `summary.json` (one that finished) must
/// record this study's fit-deciding settings (search, grid, min_step, box, reference, model, precision,
/// masses), and every row already in the plan's files must be of its model, parameters, search, masses
/// and reference ([`FitError::FolderMismatch`], [`FitError::ResultsMismatch`] name what differs); then the
/// manifest is written, so that a run interrupted before `summary.json` is still checked next time.
pub fn run_plan_in(
    study: &Study,
    plan: &Plan,
    folder: &LockedFolder,
    options: &RunOptions,
    backend: &dyn RestStateBackend,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<StudySummary, FitError> {
    let pending = resume(study, plan, folder, cache, observer)?;
    let total = pending.todo.len();
    let resumed = pending.resumed;
    let done = Mutex::new(0usize);
    let file_locks: Vec<Mutex<()>> = plan.files.iter().map(|_| Mutex::new(())).collect();
    observer(&Progress {
        done: 0,
        total,
        resumed,
        message: format!("{total} fits to do, {resumed} already done"),
        notice: false,
    });
    let all = tasks(study, plan, &pending);
    let mut groups: std::collections::BTreeMap<(u64, usize, usize), Vec<&Task>> = std::collections::BTreeMap::new();
    for t in &all {
        groups.entry(t.group()).or_default().push(t);
    }
    for ((dt_bits, n, nit), group) in groups {
        let dt = f64::from_bits(dt_bits);
        observer(&Progress {
            done: *done.lock().expect("progress lock"),
            total,
            resumed,
            message: format!("grid rest states for dt = {dt}, N = {n}, nit = {nit} on {}", backend.name()),
            notice: false,
        });
        let needed: BTreeSet<usize> = group.iter().flat_map(|t| t.fits.iter().map(|f| f.key.scene)).collect();
        let mut grids = HashMap::new();
        group_grids(study, cache, backend, (dt_bits, n, nit), &needed, &mut grids)?;
        // One task per rayon job (`with_max_len(1)`): a fit at a soft corner can take minutes while its
        // neighbours take seconds, and rayon's adaptive splitting would otherwise leave a thread with a
        // queue of fits behind the slow one while the other threads run out of work. Tasks are single
        // fits unless the study asks for neighbour starts (see [`neighbour_chains`]).
        let run_one = |task: &&Task, rest: RestSource| {
            run_task_from(study, task, cache, &grids, rest, &|| options.cancelled(), &mut |key, record| {
                write_record(plan, key, &record, &file_locks)?;
                let mut d = done.lock().expect("progress lock");
                *d += 1;
                observer(&Progress { done: *d, total, resumed, message: record_line(&record), notice: false });
                Ok(())
            })
        };
        let results: Vec<Result<(), FitError>> = match options.lockstep {
            None => group.par_iter().with_max_len(1).map(|task| run_one(task, RestSource::Direct)).collect(),
            Some(fits) => {
                let (results, counts) = pbdfit_fit::run_in_lockstep(&group, fits, backend, run_one);
                observer(&Progress {
                    done: *done.lock().expect("progress lock"),
                    total,
                    resumed,
                    message: format!(
                        "lockstep (dt = {dt}, N = {n}, nit = {nit}): {} trial rest states in {} batches on {} \
                         ({:.1} a batch, at most {})",
                        counts.rest_states,
                        counts.batches,
                        backend.name(),
                        counts.mean(),
                        counts.largest
                    ),
                    // One line per group, always shown: what the lockstep was asked for.
                    notice: true,
                });
                results
            }
        };
        results.into_iter().collect::<Result<(), FitError>>()?;
        if options.cancelled() {
            return Err(FitError::Interrupted { done: *done.lock().expect("progress lock"), total });
        }
    }
    finish(study, plan, folder, &pending, total, backend.name(), rayon::current_num_threads())
}

/// What a run finds in its folder before any fit: the fits still to do, in key order, and those an
/// earlier run finished (their records as read back), from [`resume`].
#[derive(Debug)]
pub struct Pending {
    /// The plan's fits not found finished, in key order.
    pub todo: Vec<FitKey>,
    /// The plan's fits found finished (one record each, the experiment's fields those of one of its rows).
    pub known: HashMap<FitKey, FitRecord>,
    /// How many of the plan's fits were found finished.
    pub resumed: usize,
    /// The study's layout (parameters, scenes, reference) for `summary.json`.
    pub layout: pbdfit_results::StudyLayout,
    /// Notices the reading gave (rows removed from a results file), already shown to the observer.
    pub notices: Vec<String>,
    started: Instant,
}

/// Prepares a run in a locked folder: checks the folder's recorded settings and the rows already there
/// against the study (a refused folder is left as it was), writes the manifest, reads what earlier runs
/// finished, and writes the rows a finished fit still owes to files it was not written to (a fit shared by
/// experiments). Notices (rows removed from a results file) go to `observer`.
pub fn resume(
    study: &Study,
    plan: &Plan,
    folder: &LockedFolder,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<Pending, FitError> {
    let started = Instant::now();
    let out_dir = folder.path();
    // The reference's name for the layout: build one reference now (it is cached for the fits).
    let reference_name = match study.sheets.first() {
        Some(sheet) => study.shell_reference(sheet)?.id().to_string(),
        None => {
            let first = study.scenes[0].scenes().first().ok_or_else(|| FitError::Internal("empty scene set".into()))?;
            cache.reference(first, study.base.n, study.base.dt)?.describe()
        }
    };
    let layout = study.layout(&reference_name);
    let search = study.fit.search.name();
    check_settings(out_dir, &layout, search, &study.origin)?;

    // What earlier runs finished.
    let model = &study.kind.spec();
    let parameters: Vec<&str> = study.kind.parameters().iter().map(|p| p.name).collect();
    let scene_index = Plan::scene_index(study);
    let sheet_masses = study.kind.sheet_masses().name().to_string();
    let mass_of = |scene: &str| {
        if study.is_sheet() {
            return study.scene_names().contains(&scene).then(|| sheet_masses.clone());
        }
        study
            .scenes
            .iter()
            .find(|s| s.name() == scene)
            .and_then(|s| s.scenes().first())
            .map(|s| s.mass_model().name().to_string())
    };
    let reference_of = |scene: &str| {
        if let Some(sheet) = study.sheets.iter().find(|s| s.name == scene) {
            return study.shell_reference(sheet).ok().map(|r| r.id().to_string());
        }
        study.scenes.iter().find(|s| s.name() == scene).map(|s| pbdfit_fit::reference_id(s, cache.overrides()))
    };
    let expected = store::Expected {
        model,
        parameters: &parameters,
        search,
        mass_model: &mass_of,
        reference: &reference_of,
        origin: &study.origin,
    };
    // A finished row is checked as a new fit's record is (a parameter outside the model's range or the
    // box is not resumed: its fit is done again).
    let finished = |r: &FitRecord| study.finished_row(r);
    // Checked before anything in the folder changes: a refused folder is left as it was.
    for path in &plan.files {
        let (rows, _, _) = store::read_resumable(path, &finished)?;
        store::check_rows(path, &rows, &expected)?;
    }
    let mut manifest = layout.clone();
    manifest.search = Some(search.to_string());
    pbdfit_results::write_manifest(out_dir, &manifest)?;
    let mut existing: Vec<HashMap<FitKey, FitRecord>> = Vec::new();
    let mut known: HashMap<FitKey, FitRecord> = HashMap::new();
    let mut notices = Vec::new();
    for path in &plan.files {
        let (rows_on_disk, note) = store::load_resumable(path, &finished)?;
        if let Some(note) = note {
            observer(&Progress { done: 0, total: 0, resumed: 0, message: note.clone(), notice: true });
            notices.push(note);
        }
        let mut rows = HashMap::new();
        for r in rows_on_disk {
            if let Some(&si) = scene_index.get(r.scene.as_str()) {
                let c = Configuration { dt: r.dt, n: r.n, nit: r.nit, young: r.young, thickness: r.thickness };
                let key = FitKey::new(si, &c, r.poisson);
                known.entry(key).or_insert_with(|| r.clone());
                rows.insert(key, r);
            }
        }
        existing.push(rows);
    }
    let mut todo: Vec<FitKey> = Vec::new();
    let mut resumed = 0;
    for (key, targets) in &plan.fits {
        match known.get(key) {
            Some(found) => {
                resumed += 1;
                for t in targets {
                    if !existing[t.file].contains_key(key) {
                        let row = FitRecord { experiment: t.experiment.clone(), value: t.value, ..found.clone() };
                        store::append_row(&plan.files[t.file], &row)?;
                    }
                }
            }
            None => todo.push(*key),
        }
    }
    Ok(Pending { todo, known, resumed, layout, notices, started })
}

/// One unit of a run's work: fits of one (dt, N, nit) group run one after the other on the group's grid
/// rest states, each finished fit a record. A single fit, or with neighbour starts a chain in increasing
/// nu ([`neighbour_chains`]). A task is a pure function of the study and itself ([`run_task`]): the grid
/// rest states and the search's shared rest states it is given change no bit of its fits (see
/// `SharedRestStates`), so it gives the same records wherever and beside whatever it runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Task {
    /// The fits, in the order they run.
    pub fits: Vec<TaskFit>,
}

/// One fit of a [`Task`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskFit {
    /// Which fit.
    pub key: FitKey,
    /// With neighbour starts, the fit it also starts from ([`neighbour`]), if the plan has one.
    pub neighbour: Option<FitKey>,
    /// That neighbour's parameters (bits) where an earlier run finished it successfully: read from its
    /// row (the CSVs hold round-trip decimals, so the very values it computed).
    pub resumed_start: Option<Vec<u64>>,
}

impl Task {
    /// The (dt bits, N, nit) group whose grid rest states the task's fits use.
    pub fn group(&self) -> (u64, usize, usize) {
        let k = &self.fits[0].key;
        (k.dt, k.n, k.nit)
    }
}

/// The tasks of a run's pending fits, group by group in (dt, N, nit) order.
pub fn tasks(study: &Study, plan: &Plan, pending: &Pending) -> Vec<Task> {
    let chained = study.fit.neighbour_starts();
    let mut out = Vec::new();
    for keys in Plan::groups(&pending.todo).into_values() {
        for chain in neighbour_chains(&keys, chained) {
            let fits = chain
                .into_iter()
                .map(|key| {
                    // Searched only with neighbour starts: `neighbour` scans the plan.
                    let neighbour = chained.then(|| neighbour(&key, plan)).flatten();
                    let resumed_start = neighbour
                        .and_then(|n| pending.known.get(&n))
                        .filter(|r| r.status == FitStatus::Ok)
                        .map(|r| r.parameters.iter().map(|(_, v)| v.to_bits()).collect());
                    TaskFit { key, neighbour, resumed_start }
                })
                .collect();
            out.push(Task { fits });
        }
    }
    out
}

/// Adds to `grids` the grid rest states of one (dt bits, N, nit) group for every basic scene of the scene
/// sets `needed` (indices into the study's scenes) that it does not hold yet.
pub fn group_grids(
    study: &Study,
    cache: &PartCache,
    backend: &dyn RestStateBackend,
    (dt_bits, n, nit): (u64, usize, usize),
    needed: &BTreeSet<usize>,
    grids: &mut HashMap<String, GridRestStates>,
) -> Result<(), FitError> {
    let settings = study.settings(f64::from_bits(dt_bits), n, nit);
    if study.is_sheet() {
        // A sheet's fit computes its own grid, as `pbdfit fit` does ([`fit_one`]): its body depends on
        // the thickness as well as (dt, N, nit).
        return Ok(());
    }
    for &si in needed {
        for scene in study.scenes[si].scenes() {
            if grids.contains_key(&scene.name) {
                continue;
            }
            let system = cache.system(scene, n)?;
            pbdfit_fit::check_grid_memory(&system, study.fit.grid_point_count(), study.fit.resolution())?;
            let grid =
                GridRestStates::for_fit(&system, &settings, &study.fit, backend, &study.precision.rest_options());
            grids.insert(scene.name.clone(), grid);
        }
    }
    Ok(())
}

/// Runs a task's fits in order on its group's `grids` (from [`group_grids`]), handing each finished
/// record to `done` (whose error stops the task); stops before the next fit when `cancelled()`.
pub fn run_task(
    study: &Study,
    task: &Task,
    cache: &PartCache,
    grids: &HashMap<String, GridRestStates>,
    cancelled: &dyn Fn() -> bool,
    done: &mut dyn FnMut(&FitKey, FitRecord) -> Result<(), FitError>,
) -> Result<(), FitError> {
    run_task_from(study, task, cache, grids, RestSource::Direct, cancelled, done)
}

/// [`run_task`] with the searches' trial rest states from `rest` (a lockstep batch: the same records).
pub fn run_task_from(
    study: &Study,
    task: &Task,
    cache: &PartCache,
    grids: &HashMap<String, GridRestStates>,
    rest: RestSource,
    cancelled: &dyn Fn() -> bool,
    done: &mut dyn FnMut(&FitKey, FitRecord) -> Result<(), FitError>,
) -> Result<(), FitError> {
    // This chain's results so far, for the next fit's start.
    let mut computed: HashMap<FitKey, Vec<f64>> = HashMap::new();
    for fit in &task.fits {
        if cancelled() {
            return Ok(());
        }
        let start = fit.neighbour.and_then(|n| {
            computed
                .get(&n)
                .cloned()
                .or_else(|| fit.resumed_start.as_ref().map(|s| s.iter().map(|b| f64::from_bits(*b)).collect()))
        });
        let record = fit_one(&fit.key, study, cache, grids, start, rest);
        if record.status == FitStatus::Ok {
            computed.insert(fit.key, record.parameters.iter().map(|(_, v)| *v).collect());
        }
        done(&fit.key, record)?;
    }
    Ok(())
}

/// Writes a finished fit's rows: one per file the plan gives it, each flushed (`file_locks`, one per
/// plan file, serialise writers of one file).
pub fn write_record(plan: &Plan, key: &FitKey, record: &FitRecord, file_locks: &[Mutex<()>]) -> Result<(), FitError> {
    let targets =
        plan.fits.get(key).ok_or_else(|| FitError::Internal(format!("a record of a fit not in the plan: {key:?}")))?;
    for t in targets {
        let row = FitRecord { experiment: t.experiment.clone(), value: t.value, ..record.clone() };
        let _guard = file_locks[t.file].lock().expect("file lock");
        store::append_row(&plan.files[t.file], &row)?;
    }
    Ok(())
}

/// A progress line for a finished fit.
pub fn record_line(record: &FitRecord) -> String {
    let values: Vec<String> = record.parameters.iter().map(|(n, v)| format!("{n} = {}", short(*v))).collect();
    format!(
        "{} E = {:e} nu = {}: {}, error = {:.3e}",
        record.scene,
        record.young,
        record.poisson,
        values.join(", "),
        record.error
    )
}

/// Ends a run whose every fit is written: rewrites each file sorted by (value, nu) (the final files do not
/// depend on completion order) and writes `summary.json` (`computed` fits in this run, `backend` and
/// `threads` as the run reports them), removing the manifest.
pub fn finish(
    study: &Study,
    plan: &Plan,
    folder: &LockedFolder,
    pending: &Pending,
    computed: usize,
    backend: String,
    threads: usize,
) -> Result<StudySummary, FitError> {
    let out_dir = folder.path();
    let parameters: Vec<&str> = study.kind.parameters().iter().map(|p| p.name).collect();
    let mut failed = 0;
    let mut at_bound = 0;
    for path in &plan.files {
        failed += store::sort_file(path, &parameters)?;
        at_bound += store::load_rows(path)?.iter().filter(|r| !r.at_bound.is_empty()).count();
    }
    let summary = StudySummary {
        layout: pending.layout.clone(),
        pbdfit_version: env!("CARGO_PKG_VERSION").into(),
        run: pbdfit_results::RunCounts {
            fits: plan.fits.len(),
            computed,
            resumed: pending.resumed,
            failed,
            at_bound,
            seconds: pending.started.elapsed().as_secs_f64(),
            threads,
        },
        backend,
        files: plan.files.iter().map(|f| f.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect(),
    };
    pbdfit_results::write_summary(out_dir, &summary)?;
    // summary.json now records what the manifest did (the search only when not the pattern search, the
    // one a summary without it means).
    pbdfit_results::remove_manifest(out_dir)?;
    Ok(summary)
}

/// The fits of one (dt, N, nit) group as chains run one after the other: with neighbour starts
/// ([`pbdfit_fit::FitOptions::neighbour_starts`]), one chain per scene and Young's modulus in increasing nu,
/// so each fit can start from the fit of the next lower nu of its setting (its [`neighbour`]); without,
/// one chain per fit. Chains are independent, so the results do not depend on the thread count, and a resumed run
/// finds each neighbour's parameters in the rows already written (exactly as computed: the CSVs hold
/// round-trip decimals), so they do not depend on interruptions either.
fn neighbour_chains(keys: &[FitKey], neighbour_starts: bool) -> Vec<Vec<FitKey>> {
    if !neighbour_starts {
        return keys.iter().map(|k| vec![*k]).collect();
    }
    let mut chains: std::collections::BTreeMap<(usize, u64), Vec<FitKey>> = std::collections::BTreeMap::new();
    for k in keys {
        chains.entry((k.scene, k.young)).or_default().push(*k);
    }
    chains
        .into_values()
        .map(|mut chain| {
            chain.sort_by(|a, b| f64::from_bits(a.poisson).total_cmp(&f64::from_bits(b.poisson)));
            chain
        })
        .collect()
}

/// The fit of the same scene and setting at the next lower nu in the plan, if any: a gradient fit's
/// neighbouring start (docs/method.md, section The fits).
fn neighbour(key: &FitKey, plan: &Plan) -> Option<FitKey> {
    let nu = f64::from_bits(key.poisson);
    plan.fits
        .keys()
        .filter(|k| (k.scene, k.dt, k.n, k.nit, k.young) == (key.scene, key.dt, key.n, key.nit, key.young))
        .filter(|k| f64::from_bits(k.poisson) < nu)
        .max_by(|a, b| f64::from_bits(a.poisson).total_cmp(&f64::from_bits(b.poisson)))
        .copied()
}

/// A value for progress lines: 4 decimals on a linear scale, 3 significant digits otherwise.
fn short(v: f64) -> String {
    if v == 0.0 || (1e-3..1e3).contains(&v.abs()) { format!("{v:.4}") } else { format!("{v:.3e}") }
}

/// One fit of a study, as a record (failed fits become failed records, never errors); it also starts
/// from `neighbour` (its neighbour's parameters, given only with neighbour starts) where given.
fn fit_one(
    key: &FitKey,
    study: &Study,
    cache: &PartCache,
    grids: &HashMap<String, GridRestStates>,
    neighbour: Option<Vec<f64>>,
    rest: RestSource,
) -> FitRecord {
    let start = Instant::now();
    let c = key.configuration();
    let nu = key.poisson();
    let sheet = study.sheets.get(key.scene);
    let set = if sheet.is_some() { None } else { Some(&study.scenes[key.scene]) };
    let (scene, mass_model, reference) = match (sheet, set) {
        (Some(sheet), _) => (
            sheet.name.clone(),
            study.kind.sheet_masses().name().to_string(),
            study.shell_reference(sheet).map(|r| r.id().to_string()).unwrap_or_default(),
        ),
        (None, Some(set)) => (
            set.name().to_string(),
            set.scenes().first().map(|s| s.mass_model().name()).unwrap_or("lumped").to_string(),
            pbdfit_fit::reference_id(set, cache.overrides()),
        ),
        (None, None) => unreachable!("a key indexes a scene or a sheet"),
    };
    let mut record = FitRecord {
        scene,
        experiment: String::new(),
        value: None,
        young: c.young,
        poisson: nu,
        dt: c.dt,
        n: c.n,
        nit: c.nit,
        model: study.kind.spec(),
        mass_model,
        parameters: study.kind.parameters().iter().map(|p| (p.name.to_string(), f64::NAN)).collect(),
        error: f64::INFINITY,
        scene_errors: Vec::new(),
        evaluations: 0,
        failed_evaluations: 0,
        at_bound: Vec::new(),
        condition: None,
        hessian: Vec::new(),
        ranges: Vec::new(),
        seconds: 0.0,
        status: FitStatus::Failed,
        message: String::new(),
        reference,
        thickness: c.thickness,
        search: (study.fit.search != Search::Pattern).then(|| SearchRecord {
            name: study.fit.search.name().to_string(),
            reached: 0,
            starts: 0,
        }),
    };
    let problem = match set {
        Some(set) => study.problem(set, &c, nu, cache),
        None => study.sheet_problem(sheet.expect("a sheet"), &c, nu),
    };
    let outcome = problem.and_then(|problem| {
        let with_start;
        let options = match neighbour.clone() {
            Some(at) => {
                with_start = pbdfit_fit::FitOptions {
                    starts: [study.fit.starts.clone(), vec![at]].concat(),
                    ..study.fit.clone()
                };
                &with_start
            }
            None => &study.fit,
        };
        if set.is_none() {
            // A sheet: `pbdfit fit`'s own path, its grid and search in one (`pbdfit_fit::fit`), on the CPU.
            return pbdfit_fit::fit(&problem, options, &pbdfit_pbd::CpuBackend).map(|r| (problem.compound, r));
        }
        let part_grids: Vec<&GridRestStates> = problem.parts.iter().map(|p| &grids[&p.scene]).collect();
        fit_with_grid_from(&problem, &part_grids, options, rest).map(|r| (problem.compound, r))
    });
    match outcome {
        Ok((compound, r)) => {
            record.parameters = r.parameters.iter().map(|(n, v)| (n.to_string(), *v)).collect();
            record.error = r.error;
            if compound {
                record.scene_errors = r.part_errors.clone();
            }
            record.evaluations = r.evaluations;
            record.failed_evaluations = r.failures.len();
            record.at_bound = r.at_bound.iter().map(|s| s.to_string()).collect();
            if let Some(id) = &r.identifiability {
                record.condition = Some(id.condition);
                record.hessian = id.hessian.clone();
                record.ranges =
                    r.parameters.iter().zip(&id.ranges).map(|((n, _), (lo, hi))| (n.to_string(), *lo, *hi)).collect();
            }
            record.status = FitStatus::Ok;
            record.message = r.failure_summary();
            if let Some(why) = &r.stopped {
                record.message = [format!("the fit {why}"), record.message].join("; ").trim_end_matches("; ").into();
            }
            if let Some(moved) = &r.moved {
                record.message = [moved.clone(), record.message].join("; ").trim_end_matches("; ").into();
            }
            // An engine profile's rest state: reached by stepping, or the fixed point's, and any refit.
            if let Some(rest) = &r.engine_rest {
                record.message = [rest.line(), record.message].join("; ").trim_end_matches("; ").into();
            }
            if let Some(search) = &mut record.search {
                (search.reached, search.starts) = r.starts;
            }
        }
        Err(e) => record.message = e.to_string(),
    }
    record.seconds = start.elapsed().as_secs_f64();
    record
}
