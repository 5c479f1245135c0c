//! Studies and tables whose fits run elsewhere (Python's `pbdfit.study(..., client=...)` and
//! `pbdfit.table(..., client=...)` on a Dask cluster): the study runner's own pieces split between a
//! driver and workers.
//!
//! - The driver ([`Driver`], one per run, in the Python process that holds the results folder) locks the
//!   folder, checks and resumes it ([`resume`]), lists the pending fits as [`Task`]s (JSON), writes each
//!   finished record the workers return ([`write_record`]) and at the end does what a local run does after
//!   its fits ([`finish`]; for a table also `pbdfit_table::complete`: leave-one-out, `table.csv`,
//!   `table.json`).
//! - A worker runs one task ([`run_task_json`], through [`run_task`]) and returns its records as CSV text
//!   (round-trip decimals: read back bit for bit). It writes no file.
//!
//! The local run ([`pbdfit_study::run_plan_in`]) is these same pieces in one process, so a
//! distributed run writes the same bytes (but the `seconds` column and `summary.json`'s timing, threads
//! and backend). A task is a pure function of the study and itself: the grid rest states (once per
//! (dt, N, nit)) and the search's shared rest states a worker keeps between tasks change no bit of a fit
//! (`SharedRestStates`, tested in pbdfit-fit's `shared_rest_states.rs`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pbdfit_fit::{FitError, GridRestStates, PartCache, Spelling};
use pbdfit_jobs::{Job, TableReport};
use pbdfit_pbd::CpuBackend;
use pbdfit_results::FitRecord;
use pbdfit_study::StudyKeywords;
use pbdfit_study::{
    LockedFolder, Pending, Plan, Progress, RunOptions, Study, Task, finish, group_grids, record_line, resume, run_task,
    tasks, write_record,
};
use pbdfit_table::{TableDef, TableKeywords};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::{Deserialize, Serialize};

use crate::{OnInterrupt, fit_error, interruptible, table_error, value_error};

/// What a worker needs to rebuild the study: the job (its keywords, as the driver was given them) and
/// the definition file's text (scene files it names are read by the workers at the same paths).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Source {
    /// `study` or `table`.
    kind: String,
    /// The job's keywords (`StudyKeywords` or `TableKeywords`, JSON).
    keywords: String,
    /// The definition file's text.
    text: String,
}

impl Source {
    fn read(kind: &str, keywords: &str) -> PyResult<Self> {
        let path = match kind {
            "study" => StudyKeywords::from_json(keywords).map_err(|e| value_error(format!("pbdfit.study: {e}")))?.study,
            "table" => TableKeywords::from_json(keywords).map_err(|e| value_error(format!("pbdfit.table: {e}")))?.file,
            _ => return Err(value_error(format!("kind: `{kind}` is not `study` or `table`"))),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| value_error(format!("cannot read {path}: {e}")))?;
        Ok(Self { kind: kind.into(), keywords: keywords.into(), text })
    }

    /// The study (for a table, its study of the nodes' fits), its results folder, its `only` filters, and for a table its
    /// definition: the job's `prepare` on the text, as a local run does it.
    fn study(&self) -> PyResult<(Study, PathBuf, Vec<String>, Option<TableDef>)> {
        if self.kind == "table" {
            let job = TableKeywords::from_json(&self.keywords).map_err(value_error)?;
            let prepared = job.prepare_text(&self.text, Spelling::Keyword).map_err(table_error)?;
            if prepared.partial {
                return Err(value_error("partial: a part-built table fits nothing; build it without a client"));
            }
            return Ok((prepared.def.study.clone(), prepared.out, Vec::new(), Some(prepared.def)));
        }
        let job = StudyKeywords::from_json(&self.keywords).map_err(value_error)?;
        let mut prepared = job.prepare_text(&self.text, Spelling::Keyword).map_err(crate::job_error)?;
        if prepared.len() != 1 || prepared[0].study.model_folder {
            return Err(value_error(format!(
                "{}: a study file with `models = [...]` runs one study per model; run it without a client",
                job.study
            )));
        }
        let p = prepared.remove(0);
        Ok((p.study, p.out, p.only, None))
    }
}

/// What a worker returns for a task: the finished fits' keys and their records as CSV text.
#[derive(Debug, Serialize, Deserialize)]
struct Outcome {
    keys: Vec<pbdfit_study::FitKey>,
    rows: String,
}

/// The state of one run on the driver, between taking the folder and writing the last file.
struct Run {
    study: Study,
    def: Option<TableDef>,
    plan: Plan,
    folder: LockedFolder,
    pending: Pending,
    cache: PartCache,
    file_locks: Vec<Mutex<()>>,
    todo: HashSet<pbdfit_study::FitKey>,
    written: HashSet<pbdfit_study::FitKey>,
    start: Instant,
}

/// The driver of a distributed study or table build (`kind` `study` or `table`): holds the results
/// folder's lock from construction to `finish` or `close`. Used by `pbdfit._dask`.
#[pyclass(unsendable, module = "pbdfit._native")]
pub struct Driver {
    source: String,
    out: PathBuf,
    run: Option<Run>,
}

#[pymethods]
impl Driver {
    /// Takes the results folder of the job `keywords` (`StudyKeywords` or `TableKeywords` as JSON, for
    /// `kind` `study` or `table`), checks it against the study and resumes what earlier runs finished.
    #[new]
    fn new(kind: &str, keywords: &str) -> PyResult<Self> {
        let source = Source::read(kind, keywords)?;
        let (study, out, only, def) = source.study()?;
        let plan = match &def {
            Some(def) => pbdfit_table::node_plan(def, &out),
            None => Plan::new(&study, &out, &only).map_err(fit_error)?,
        };
        let start = Instant::now();
        let folder = LockedFolder::lock(&out).map_err(fit_error)?;
        let cache = PartCache::new(study.reference.clone());
        let pending = resume(&study, &plan, &folder, &cache, &|_: &Progress| {}).map_err(fit_error)?;
        let file_locks = plan.files.iter().map(|_| Mutex::new(())).collect();
        let json = serde_json::to_string(&source).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let todo = pending.todo.iter().copied().collect();
        let run = Run { study, def, plan, folder, pending, cache, file_locks, todo, written: HashSet::new(), start };
        Ok(Self { source: json, out, run: Some(run) })
    }

    /// The definition for the workers (JSON), passed to `run_task` with each task.
    #[getter]
    fn source(&self) -> String {
        self.source.clone()
    }

    /// The results folder.
    #[getter]
    fn out(&self) -> String {
        self.out.display().to_string()
    }

    /// Fits of the plan.
    #[getter]
    fn fits(&self) -> PyResult<usize> {
        Ok(self.run()?.plan.fits.len())
    }

    /// Fits found finished by earlier runs.
    #[getter]
    fn resumed(&self) -> PyResult<usize> {
        Ok(self.run()?.pending.resumed)
    }

    /// Fits this run must do.
    #[getter]
    fn total(&self) -> PyResult<usize> {
        Ok(self.run()?.pending.todo.len())
    }

    /// Notices from reading the results files (rows removed from a damaged file).
    #[getter]
    fn notices(&self) -> PyResult<Vec<String>> {
        Ok(self.run()?.pending.notices.clone())
    }

    /// The pending fits as tasks (JSON each), group by group in (dt, N, nit) order: the local run's order.
    fn tasks(&self) -> PyResult<Vec<String>> {
        let run = self.run()?;
        tasks(&run.study, &run.plan, &run.pending)
            .iter()
            .map(|t| serde_json::to_string(t).map_err(|e| PyRuntimeError::new_err(e.to_string())))
            .collect()
    }

    /// Writes the records of a task's outcome (from `run_task`) to their files, each flushed, skipping
    /// fits already written; returns a progress line per record written.
    fn record(&mut self, outcome: &str) -> PyResult<Vec<String>> {
        let run = self.run.as_mut().ok_or_else(closed)?;
        let outcome: Outcome =
            serde_json::from_str(outcome).map_err(|e| PyRuntimeError::new_err(format!("a task's outcome: {e}")))?;
        let records = pbdfit_results::parse_records(&outcome.rows, Path::new("a task's outcome"))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        if records.len() != outcome.keys.len() {
            return Err(PyRuntimeError::new_err("a task's outcome: as many keys as records expected"));
        }
        let mut lines = Vec::new();
        for (key, record) in outcome.keys.iter().zip(&records) {
            if !run.todo.contains(key) || run.written.contains(key) {
                continue;
            }
            write_record(&run.plan, key, record, &run.file_locks).map_err(fit_error)?;
            run.written.insert(*key);
            lines.push(record_line(record));
        }
        Ok(lines)
    }

    /// Fits written in this run.
    #[getter]
    fn done(&self) -> PyResult<usize> {
        Ok(self.run()?.written.len())
    }

    /// Ends the run once every task's records are written: sorts the files and writes `summary.json`
    /// (`threads`: the cluster's worker threads), for a table then leave-one-out (on this machine, GIL
    /// released) and `table.csv` / `table.json`. Releases the folder. Returns the summary as a dict.
    fn finish<'py>(&mut self, py: Python<'py>, threads: usize) -> PyResult<Bound<'py, PyDict>> {
        let run = self.run.take().ok_or_else(closed)?;
        let missing = run.pending.todo.len() - run.written.len();
        if missing > 0 {
            self.run = Some(run);
            return Err(PyRuntimeError::new_err(format!("{missing} fits of this run are not written yet")));
        }
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let options = RunOptions { cancel: Some(cancel.clone()), ..RunOptions::default() };
        let done = interruptible(py, cancel, OnInterrupt::Finish, &|_| Ok(()), move || {
            let computed = run.written.len();
            // The workers' rest states are on their CPUs (`CpuBackend`), over their own cores.
            let backend = format!("dask ({threads} worker threads, cpu)");
            let summary = finish(&run.study, &run.plan, &run.folder, &run.pending, computed, backend, threads)
                .map_err(pbdfit_table::TableError::from)?;
            // A study's motion pass (`[motion]`) runs here, on the driver, over the fits just written.
            pbdfit_study::run_motion_pass(
                &run.study,
                run.folder.path(),
                &run.plan.files,
                options.cancel.as_deref(),
                &|_: &Progress| {},
            )
            .map_err(pbdfit_table::TableError::from)?;
            let table = match &run.def {
                Some(def) => Some(pbdfit_table::complete(
                    def,
                    &run.plan,
                    &run.folder,
                    &summary,
                    &options,
                    &run.cache,
                    &|_: &Progress| {},
                    run.start,
                )?),
                None => None,
            };
            Ok::<_, pbdfit_table::TableError>((summary, table))
        })?
        .map_err(|e| match e {
            pbdfit_table::TableError::Fit(FitError::Interrupted { .. }) => PyKeyboardInterrupt::new_err(e.to_string()),
            e => table_error(e),
        })?;
        let (summary, table) = done;
        // The local run's report (`run_job`'s), so that both runs return the same summary.
        let report = match table {
            Some(t) => serde_json::to_string(&pbdfit_jobs::TableReport {
                threads,
                ..TableReport::new(t, &self.out, "".into())
            }),
            None => serde_json::to_string(&pbdfit_jobs::StudyRun::new(summary, &self.out, None)),
        };
        let report = report.map_err(|e| PyRuntimeError::new_err(format!("JSON output: {e}")))?;
        Ok(py.import("json")?.call_method1("loads", (report,))?.cast_into::<PyDict>()?)
    }

    /// Releases the folder (an interrupted run: every written fit stays and a later run resumes it).
    fn close(&mut self) {
        self.run = None;
    }
}

impl Driver {
    fn run(&self) -> PyResult<&Run> {
        self.run.as_ref().ok_or_else(closed)
    }
}

fn closed() -> PyErr {
    PyRuntimeError::new_err("this run is finished or closed")
}

/// A worker's study: parsed once per process, with its references and the grid rest states of the
/// groups it met last.
struct WorkerStudy {
    study: Study,
    cache: PartCache,
    groups: Mutex<Vec<(Group, GroupGrids)>>,
}

/// A (dt bits, N, nit) group.
type Group = (u64, usize, usize);

/// One (dt, N, nit) group's grid rest states per basic scene, filled by the first task that needs them.
type GroupGrids = Arc<Mutex<HashMap<String, GridRestStates>>>;

/// Groups whose grid rest states a worker keeps (each with its search's shared rest states, up to 256 MB
/// per scene): the driver submits tasks group by group, so a worker meets few at a time. Dropping one
/// costs a recomputation, never a bit of a result.
const KEPT_GROUPS: usize = 2;

/// The studies a worker process met (by source), the last few.
static STUDIES: Mutex<Vec<(String, Arc<WorkerStudy>)>> = Mutex::new(Vec::new());

fn worker_study(source: &str) -> PyResult<Arc<WorkerStudy>> {
    let mut studies = STUDIES.lock().expect("worker studies");
    if let Some((_, s)) = studies.iter().find(|(k, _)| k == source) {
        return Ok(s.clone());
    }
    let parsed: Source = serde_json::from_str(source).map_err(|e| value_error(format!("a task's source: {e}")))?;
    let (study, ..) = parsed.study()?;
    let cache = PartCache::new(study.reference.clone());
    let s = Arc::new(WorkerStudy { study, cache, groups: Mutex::new(Vec::new()) });
    studies.push((source.to_string(), s.clone()));
    if studies.len() > 2 {
        studies.remove(0);
    }
    Ok(s)
}

impl WorkerStudy {
    fn group(&self, key: Group) -> GroupGrids {
        let mut groups = self.groups.lock().expect("worker groups");
        if let Some(i) = groups.iter().position(|(k, _)| *k == key) {
            let g = groups.remove(i);
            groups.push(g.clone());
            return g.1;
        }
        let g = Arc::new(Mutex::new(HashMap::new()));
        groups.push((key, g.clone()));
        if groups.len() > KEPT_GROUPS {
            groups.remove(0);
        }
        g
    }
}

/// Runs one task (JSON from `Driver.tasks`) of the study `source` (`Driver.source`) on this process's
/// cores (GIL released) and returns its outcome for `Driver.record`. Writes no file; the same task gives
/// the same records (but `seconds`) wherever it runs.
#[pyfunction]
pub fn run_task_json(py: Python<'_>, source: &str, task: &str) -> PyResult<String> {
    let task: Task = serde_json::from_str(task).map_err(|e| value_error(format!("a task: {e}")))?;
    if task.fits.is_empty() {
        return Err(value_error("a task without fits"));
    }
    let worker = worker_study(source)?;
    let outcome = interruptible(py, Arc::default(), OnInterrupt::Leave, &|_| Ok(()), move || {
        let study = &worker.study;
        let slot = worker.group(task.group());
        let grids = {
            // Held while a group's grids are computed: another task of the group waits for them.
            let mut grids = slot.lock().expect("group grids");
            let needed: BTreeSet<usize> = task.fits.iter().map(|f| f.key.scene).collect();
            group_grids(study, &worker.cache, &CpuBackend, task.group(), &needed, &mut grids)?;
            grids.clone()
        };
        let mut keys = Vec::new();
        let mut records: Vec<FitRecord> = Vec::new();
        run_task(study, &task, &worker.cache, &grids, &|| false, &mut |key, record| {
            keys.push(*key);
            records.push(record);
            Ok(())
        })?;
        let names: Vec<&str> = study.kind.parameters().iter().map(|p| p.name).collect();
        let rows = pbdfit_results::records_text(Path::new("a task's outcome"), &names, &records)?;
        Ok::<_, FitError>(Outcome { keys, rows })
    })?
    .map_err(fit_error)?;
    serde_json::to_string(&outcome).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}
