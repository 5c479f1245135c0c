//! The study runner: resume, grid rest states per (dt, N, nit), fits in parallel, sorted files, summary.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use pbdfit_mesh::SceneSet;
use pbdfit_pbd::RestStateBackend;
use pbdfit_results::{FitRecord, FitStatus, SearchRecord, StudySummary};
use rayon::prelude::*;

use super::folder::{LockedFolder, check_settings};
use super::plan::{FitKey, Plan};
use super::{Configuration, Study, store};
use crate::{FitError, GridRestStates, PartCache, Search, fit_with_grid};

/// Which fits a run does.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--only` filters (`scene`, `scene/experiment`, `*/experiment`); empty runs everything.
    pub only: Vec<String>,
    /// When set (by another thread, or the observer), no further fit starts; the fits in flight finish
    /// and are written, and the run returns [`FitError::Interrupted`]. A later run resumes.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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

/// [`run_plan`] in a folder the caller has locked.
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
    let start = Instant::now();
    let out_dir = folder.path();
    // The reference's name for the layout: build one reference now (it is cached for the fits).
    let first = study.scenes[0].scenes().first().ok_or_else(|| FitError::Internal("empty scene set".into()))?;
    let reference_name = cache.reference(first, study.base.n, study.base.dt)?.describe();
    let layout = study.layout(&reference_name);
    let search = study.fit.search.name();
    check_settings(out_dir, &layout, search, &study.origin)?;

    // What earlier runs finished.
    let model = study.kind.name();
    let parameters: Vec<&str> = study.kind.parameters().iter().map(|p| p.name).collect();
    let scene_index = Plan::scene_index(study);
    let mass_of = |scene: &str| {
        study
            .scenes
            .iter()
            .find(|s| s.name() == scene)
            .and_then(|s| s.scenes().first())
            .map(|s| s.mass_model.name().to_string())
    };
    let reference_of = |scene: &str| {
        study.scenes.iter().find(|s| s.name() == scene).map(|s| crate::reference_id(s, cache.overrides()))
    };
    let expected = store::Expected {
        model,
        parameters: &parameters,
        search,
        mass_model: &mass_of,
        reference: &reference_of,
        origin: &study.origin,
    };
    // Checked before anything in the folder changes: a refused folder is left as it was.
    for path in &plan.files {
        let (rows, _, _) = store::read_resumable(path)?;
        store::check_rows(path, &rows, &expected)?;
    }
    let mut manifest = layout.clone();
    manifest.search = Some(search.to_string());
    pbdfit_results::write_manifest(out_dir, &manifest)?;
    let mut existing: Vec<HashMap<FitKey, FitRecord>> = Vec::new();
    let mut known: HashMap<FitKey, FitRecord> = HashMap::new();
    for path in &plan.files {
        let (rows_on_disk, note) = store::load_resumable(path)?;
        if let Some(note) = note {
            observer(&Progress { done: 0, total: 0, resumed: 0, message: note, notice: true });
        }
        let mut rows = HashMap::new();
        for r in rows_on_disk {
            if let Some(&si) = scene_index.get(r.scene.as_str()) {
                let c = Configuration { dt: r.dt, n: r.n, nit: r.nit, young: r.young };
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

    let total = todo.len();
    let done = Mutex::new(0usize);
    let file_locks: Vec<Mutex<()>> = plan.files.iter().map(|_| Mutex::new(())).collect();
    observer(&Progress {
        done: 0,
        total,
        resumed,
        message: format!("{total} fits to do, {resumed} already done"),
        notice: false,
    });
    for ((dt_bits, n, nit), keys) in Plan::groups(&todo) {
        let dt = f64::from_bits(dt_bits);
        let settings = study.settings(dt, n, nit);
        observer(&Progress {
            done: *done.lock().expect("progress lock"),
            total,
            resumed,
            message: format!("grid rest states for dt = {dt}, N = {n}, nit = {nit} on {}", backend.name()),
            notice: false,
        });
        // Grids for every basic scene this group needs.
        let mut grids: HashMap<String, GridRestStates> = HashMap::new();
        let needed: BTreeSet<usize> = keys.iter().map(|k| k.scene).collect();
        for si in needed {
            for scene in study.scenes[si].scenes() {
                if grids.contains_key(&scene.name) {
                    continue;
                }
                let system = cache.system(scene, n)?;
                let grid =
                    GridRestStates::for_fit(&system, &settings, &study.fit, backend, &study.precision.rest_options());
                grids.insert(scene.name.clone(), grid);
            }
        }
        // One chain per task (`with_max_len(1)`): a fit at a soft corner can take minutes while its
        // neighbours take seconds, and rayon's adaptive splitting would otherwise leave a thread with a
        // queue of fits behind the slow one while the other threads run out of work. Chains are single
        // fits unless the study asks for neighbour starts (see [`neighbour_chains`]).
        let chained = study.fit.neighbour_starts();
        let chains = neighbour_chains(&keys, chained);
        let results: Vec<Result<(), FitError>> = chains
            .par_iter()
            .with_max_len(1)
            .map(|chain| {
                // This chain's records so far, for the next fit's start.
                let mut computed: HashMap<FitKey, Vec<f64>> = HashMap::new();
                for key in chain {
                    if options.cancelled() {
                        return Ok(());
                    }
                    // Searched only with neighbour starts: `neighbour` scans the plan.
                    let start = chained.then(|| neighbour(key, plan)).flatten().and_then(|n| {
                        computed.get(&n).cloned().or_else(|| {
                            known
                                .get(&n)
                                .filter(|r| r.status == FitStatus::Ok)
                                .map(|r| r.parameters.iter().map(|(_, v)| *v).collect())
                        })
                    });
                    let set = &study.scenes[key.scene];
                    let record = fit_one(set, key, study, cache, &grids, start);
                    if record.status == FitStatus::Ok && chained {
                        computed.insert(*key, record.parameters.iter().map(|(_, v)| *v).collect());
                    }
                    for t in &plan.fits[key] {
                        let row = FitRecord { experiment: t.experiment.clone(), value: t.value, ..record.clone() };
                        let _guard = file_locks[t.file].lock().expect("file lock");
                        store::append_row(&plan.files[t.file], &row)?;
                    }
                    let mut d = done.lock().expect("progress lock");
                    *d += 1;
                    let values: Vec<String> =
                        record.parameters.iter().map(|(n, v)| format!("{n} = {}", short(*v))).collect();
                    observer(&Progress {
                        done: *d,
                        total,
                        resumed,
                        message: format!(
                            "{} E = {:e} nu = {}: {}, error = {:.3e}",
                            set.name(),
                            record.young,
                            record.poisson,
                            values.join(", "),
                            record.error
                        ),
                        notice: false,
                    });
                }
                Ok(())
            })
            .collect();
        results.into_iter().collect::<Result<(), FitError>>()?;
        if options.cancelled() {
            return Err(FitError::Interrupted { done: *done.lock().expect("progress lock"), total });
        }
    }

    // Rewrite each file sorted by (value, nu): the final files do not depend on completion order.
    let mut failed = 0;
    let mut at_bound = 0;
    for path in &plan.files {
        failed += store::sort_file(path, &parameters)?;
        at_bound += store::load_rows(path)?.iter().filter(|r| !r.at_bound.is_empty()).count();
    }
    let summary = StudySummary {
        layout,
        pbdfit_version: env!("CARGO_PKG_VERSION").into(),
        fits: plan.fits.len(),
        computed: total,
        resumed,
        failed,
        at_bound,
        seconds: start.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
        backend: backend.name(),
        files: plan.files.iter().map(|f| f.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect(),
    };
    pbdfit_results::write_summary(out_dir, &summary)?;
    // summary.json now records what the manifest did (the search only when not the pattern search, the
    // one a summary without it means).
    pbdfit_results::remove_manifest(out_dir)?;
    Ok(summary)
}

/// The fits of one (dt, N, nit) group as chains run one after the other: with neighbour starts
/// ([`crate::FitOptions::neighbour_starts`]), one chain per scene and Young's modulus in increasing nu,
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
/// neighbouring start (methodology, section The fit; issue "Fits that follow the gradient").
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
    set: &SceneSet,
    key: &FitKey,
    study: &Study,
    cache: &PartCache,
    grids: &HashMap<String, GridRestStates>,
    neighbour: Option<Vec<f64>>,
) -> FitRecord {
    let start = Instant::now();
    let c = key.configuration();
    let nu = key.poisson();
    let mass_model = set.scenes().first().map(|s| s.mass_model.name()).unwrap_or("lumped").to_string();
    let mut record = FitRecord {
        scene: set.name().to_string(),
        experiment: String::new(),
        value: None,
        young: c.young,
        poisson: nu,
        dt: c.dt,
        n: c.n,
        nit: c.nit,
        model: study.kind.name().to_string(),
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
        reference: crate::reference_id(set, cache.overrides()),
        search: (study.fit.search != Search::Pattern).then(|| SearchRecord {
            name: study.fit.search.name().to_string(),
            reached: 0,
            starts: 0,
        }),
    };
    let outcome = study.problem(set, &c, nu, cache).and_then(|problem| {
        let part_grids: Vec<&GridRestStates> = problem.parts.iter().map(|p| &grids[&p.scene]).collect();
        let with_start;
        let options = match neighbour.clone() {
            Some(at) => {
                with_start =
                    crate::FitOptions { starts: [study.fit.starts.clone(), vec![at]].concat(), ..study.fit.clone() };
                &with_start
            }
            None => &study.fit,
        };
        fit_with_grid(&problem, &part_grids, options).map(|r| (problem.compound, r))
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
            if let Some(search) = &mut record.search {
                (search.reached, search.starts) = r.starts;
            }
        }
        Err(e) => record.message = e.to_string(),
    }
    record.seconds = start.elapsed().as_secs_f64();
    record
}
