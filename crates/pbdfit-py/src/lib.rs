//! # pbdfit-py
//!
//! The `pbdfit._native` extension module behind the Python package in `python/` (built by maturin).
//! It is a thin layer: scenes, FEM references, PBD rest states, fits and studies come from the
//! library crates through the same calls the command line makes, so a result equals the CLI's JSON to
//! the last bit (the pytest suite checks it). The Python package (`python/pbdfit/__init__.py`) wraps
//! these functions in typed classes and converts results to numpy arrays (and pandas, if installed).
//!
//! Errors: bad input raises `ValueError` with the command line's message; internal failures raise
//! `RuntimeError`. Long calls release the GIL and poll for signals: Ctrl-C sets the job's cancel flag
//! (`pbdfit_fit::cancellable`), waits for its loops to stop at their next check and raises
//! `KeyboardInterrupt` (a study finishes the fits in flight, keeps every finished fit and resumes on the
//! next call).

mod distributed;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pbdfit_fit::FitError;
use pbdfit_mesh::{BUILTIN_SCENES, SceneSet, Vec3};
use pbdfit_study::Progress;

fn value_error(message: impl ToString) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// A fit or study error as the CLI maps it: the user's input (ValueError) or ours (RuntimeError).
fn fit_error(e: FitError) -> PyErr {
    if e.is_input() { value_error(e) } else { PyRuntimeError::new_err(e.to_string()) }
}

fn load(scene: &str) -> PyResult<SceneSet> {
    SceneSet::load(scene).map_err(value_error)
}

/// [`load`] with the body's `density` and `size` over the scene's (`SceneSet::with_body`).
fn load_body(scene: &str, density: Option<f64>, size: Option<f64>) -> PyResult<SceneSet> {
    let body = pbdfit_fit::BodyKeywords { density, size, thickness: None };
    pbdfit_fit::with_body(load(scene)?, body, pbdfit_fit::Spelling::Keyword).map_err(value_error)
}

fn resolution(set: &SceneSet, n: Option<usize>) -> PyResult<usize> {
    set.resolution(n).map_err(|e| value_error(format!("n: {e}")))
}

fn matrix<'py>(py: Python<'py>, rows: &[Vec3]) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = rows.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    flat.into_pyarray(py).reshape([rows.len(), 3]).expect("n x 3")
}

/// What [`interruptible`] does on Ctrl-C, after setting the work's cancel flag.
#[derive(Clone, Copy, PartialEq)]
enum OnInterrupt {
    /// Waits for the work to end (a study writes its fits in flight).
    Finish,
    /// Waits for the work to stop at its next cancel check ([`run_job`]), so that no computation
    /// goes on behind the `KeyboardInterrupt`; a second Ctrl-C leaves it to end alone.
    Stop,
    /// Leaves the work to end alone (one that reads no cancel flag and loses nothing).
    Leave,
}

/// Runs `work` on a worker thread with the GIL released, polling for signals every 50 ms. On a
/// signal (Ctrl-C) `cancel` is set and the interrupt raised as `on_interrupt` says. `tick` runs on the
/// calling thread at every poll (with the GIL), e.g. to raise a test interrupt: an error it returns is
/// taken as the signal's.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    on_interrupt: OnInterrupt,
    tick: &dyn Fn(Python<'_>) -> PyResult<()>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (sender, receiver) = std::sync::mpsc::channel();
    // A Receiver is Send but not Sync; the closures that wait on it without the GIL need Sync.
    let receiver = std::sync::Mutex::new(receiver);
    let worker = std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    let poll = || receiver.lock().expect("receiver").recv_timeout(Duration::from_millis(50));
    loop {
        match py.detach(poll) {
            Ok(value) => {
                let _ = worker.join();
                return Ok(value);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("pbdfit: the computation panicked (a bug: please report it)"));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = tick(py).and_then(|()| py.check_signals()) {
                    cancel.store(true, Ordering::SeqCst);
                    if on_interrupt == OnInterrupt::Leave {
                        return Err(interrupt);
                    }
                    loop {
                        match py.detach(poll) {
                            Ok(_) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                if on_interrupt == OnInterrupt::Stop && py.check_signals().is_err() {
                                    return Err(interrupt);
                                }
                            }
                        }
                    }
                    let _ = worker.join();
                    return Err(interrupt);
                }
            }
        }
    }
}

/// The built-in scene names.
#[pyfunction]
fn scenes() -> Vec<&'static str> {
    BUILTIN_SCENES.iter().map(|(n, _)| *n).collect()
}

/// The bodies of a scene at resolution `n` (default: the scene's): one dict per basic scene with
/// `name`, `n`, `vertices` (nv x 3, m), `tets` (nt x 4, int64), `held` (nv, bool), `prescribed` (nv x 3,
/// m: displacement of held vertices a load moves), `forces` (nv x 3, N: traction loads), `masses` (nv,
/// kg), `gravity` (3, m/s^2), `mass_model`, `density` (kg/m^3), `size` (m, the largest extent), `mass` (kg),
/// plus `compound` (bool) for the set. `density` and `size` replace the scene's.
#[pyfunction]
#[pyo3(signature = (scene, n=None, density=None, size=None))]
fn scene_bodies<'py>(
    py: Python<'py>,
    scene: &str,
    n: Option<usize>,
    density: Option<f64>,
    size: Option<f64>,
) -> PyResult<(bool, Vec<Bound<'py, PyDict>>)> {
    let set = load_body(scene, density, size)?;
    let n = resolution(&set, n)?;
    let mut out = Vec::new();
    for s in set.scenes() {
        let body = s.body(n).map_err(value_error)?;
        let d = PyDict::new(py);
        d.set_item("name", &s.name)?;
        d.set_item("n", n)?;
        d.set_item("vertices", matrix(py, body.mesh.vertices()))?;
        let tets: Vec<i64> = body.mesh.tets().iter().flatten().map(|&v| v as i64).collect();
        d.set_item("tets", tets.into_pyarray(py).reshape([body.mesh.tets().len(), 4])?)?;
        d.set_item("held", PyArray1::from_slice(py, &body.held))?;
        d.set_item("prescribed", matrix(py, &body.prescribed))?;
        d.set_item("forces", matrix(py, &body.forces))?;
        d.set_item("masses", PyArray1::from_slice(py, &body.masses))?;
        d.set_item("gravity", PyArray1::from_slice(py, body.gravity.as_slice()))?;
        d.set_item("mass_model", body.mass_model.name())?;
        let summary = s.summary();
        d.set_item("density", summary.density_kg_per_m3)?;
        d.set_item("size", summary.size_m)?;
        d.set_item("mass", summary.mass_kg)?;
        out.push(d);
    }
    Ok((set.is_compound(), out))
}

/// A fit job's refusal (ValueError) or failure (as [`fit_error`]).
fn job_error(e: pbdfit_fit::FitJobError) -> PyErr {
    match e {
        pbdfit_fit::FitJobError::Input(message) => value_error(message),
        pbdfit_fit::FitJobError::Fit(e) => fit_error(e),
        pbdfit_fit::FitJobError::Internal(message) => PyRuntimeError::new_err(message),
    }
}

/// Where a local study's or table's progress goes (`progress=`): nowhere, a line to stderr every 50 fits
/// and at the end, or a Python callable `(done, total, line)` called after each fit, on the calling
/// thread (the workers queue the events; the wait loop delivers them). A callable that raises stops the
/// run as Ctrl-C does (the fits written stay) and its exception is raised. A callable
/// was accepted by the signature but raised TypeError without a Dask client.
struct ProgressReport {
    stderr: bool,
    callback: Option<Py<PyAny>>,
    queue: Arc<std::sync::Mutex<Vec<(usize, usize, String)>>>,
    failure: std::cell::RefCell<Option<PyErr>>,
}

impl ProgressReport {
    /// From `progress=` (`None`: True).
    fn new(progress: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(progress) = progress else {
            return Ok(Self { stderr: true, callback: None, queue: Arc::default(), failure: Default::default() });
        };
        let (stderr, callback) = if let Ok(on) = progress.cast::<pyo3::types::PyBool>() {
            (on.is_true(), None)
        } else if progress.is_callable() {
            (false, Some(progress.clone().unbind()))
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "progress: expected True, False or a callable (done, total, line), got {}",
                progress.get_type().name()?
            )));
        };
        Ok(Self { stderr, callback, queue: Arc::default(), failure: Default::default() })
    }

    /// What the workers' observer does with a finished fit (`notice`s always go to stderr).
    fn sink(&self) -> impl Fn(&Progress) + Send + Sync + 'static {
        let (stderr, queue, call) = (self.stderr, self.queue.clone(), self.callback.is_some());
        move |p: &Progress| {
            if p.notice {
                eprintln!("{}", p.message);
            } else if call {
                queue.lock().expect("progress queue").push((p.done, p.total, p.message.clone()));
            } else if stderr && (p.done == p.total || p.done.is_multiple_of(50)) {
                eprintln!("[{}/{} fits, {} resumed] {}", p.done, p.total, p.resumed, p.message);
            }
        }
    }

    /// Calls the callable with the queued events (from the wait loop); a raise cancels the run.
    fn deliver(&self, py: Python<'_>, cancel: &AtomicBool) {
        let Some(callback) = &self.callback else { return };
        if self.failure.borrow().is_some() {
            return;
        }
        let events = std::mem::take(&mut *self.queue.lock().expect("progress queue"));
        for (done, total, line) in events {
            if let Err(e) = callback.call1(py, (done, total, line)) {
                cancel.store(true, Ordering::SeqCst);
                *self.failure.borrow_mut() = Some(e);
                return;
            }
        }
    }

    /// After the run: the events not yet delivered, then the callable's exception if it raised.
    fn finish(&self, py: Python<'_>) -> PyResult<()> {
        self.deliver(py, &AtomicBool::new(false));
        match self.failure.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A table error as the command line maps it: the user's input (ValueError) or ours (RuntimeError).
fn table_error(e: pbdfit_table::TableError) -> PyErr {
    match e {
        pbdfit_table::TableError::Fit(e) => fit_error(e),
        e if e.is_input() => value_error(e),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// Every fit of a results folder (or one CSV file) as columns: name -> list, with the parameter
/// columns named by the model, `scene_errors` and `ranges` as text, and failed fits included (status).
#[pyfunction]
fn read_results<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut f: Vec<PathBuf> = std::fs::read_dir(&path)
            .map_err(|e| value_error(format!("cannot read {}: {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        f.sort();
        f
    } else {
        vec![path.clone()]
    };
    if files.is_empty() {
        return Err(value_error(format!("{}: no results CSV files", path.display())));
    }
    let mut records = Vec::new();
    for f in &files {
        records.extend(pbdfit_results::read_records(f).map_err(value_error)?);
    }
    let d = PyDict::new(py);
    macro_rules! column {
        ($name:expr, $f:expr) => {
            d.set_item($name, records.iter().map($f).collect::<Vec<_>>())?;
        };
    }
    column!("scene", |r| r.scene.clone());
    column!("experiment", |r| r.experiment.clone());
    column!("value", |r| r.value.unwrap_or(f64::NAN));
    column!("young", |r| r.young);
    column!("poisson", |r| r.poisson);
    column!("dt", |r| r.dt);
    column!("n", |r| r.n as i64);
    column!("nit", |r| r.nit as i64);
    column!("model", |r| r.model.clone());
    column!("mass_model", |r| r.mass_model.clone());
    let mut names: Vec<String> = Vec::new();
    for r in &records {
        for (n, _) in &r.parameters {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    for name in &names {
        column!(name.as_str(), |r| r.parameter(name).unwrap_or(f64::NAN));
    }
    column!("error", |r| r.error);
    column!("evaluations", |r| r.evaluations as i64);
    column!("failed_evaluations", |r| r.failed_evaluations as i64);
    column!("at_bound", |r| r.at_bound.join(";"));
    column!("condition", |r| r.condition.unwrap_or(f64::NAN));
    column!("seconds", |r| r.seconds);
    column!("status", |r| if r.status == pbdfit_results::FitStatus::Ok { "ok" } else { "failed" });
    column!("message", |r| r.message.clone());
    column!("reference", |r| r.reference.clone());
    // A sheet study's thickness (its files' last column); the solids' results have none.
    if records.iter().any(|r| r.thickness.is_some()) {
        column!("thickness", |r| r.thickness.unwrap_or(f64::NAN));
    }
    Ok(d)
}

/// Any job of `pbdfit_jobs::JOBS` by name: `keywords` is a JSON object of its command's options under their
/// Python names; returns its report, the command's `--json` output, as JSON text. A study's or table's fits
/// go to `progress=` (see [`ProgressReport`]); Ctrl-C, or a raising progress callable, stops it once the
/// fits in flight are written, and raises the callable's exception, else `KeyboardInterrupt`. `_interrupt`
/// (tests) interrupts the call as Ctrl-C would at its first poll, `_interrupt_after` once that many fits
/// are done.
#[pyfunction]
#[pyo3(signature = (name, keywords, _interrupt=false, progress=None, _interrupt_after=None))]
fn run_job<'py>(
    py: Python<'py>,
    name: &str,
    keywords: &str,
    _interrupt: bool,
    progress: Option<Bound<'py, PyAny>>,
    _interrupt_after: Option<usize>,
) -> PyResult<String> {
    let report = ProgressReport::new(progress.as_ref())?;
    let cancel = Arc::new(AtomicBool::new(false));
    let interrupt = Arc::new(AtomicBool::new(_interrupt));
    let (sink, tick_cancel, worker_cancel, worker_interrupt) =
        (report.sink(), cancel.clone(), cancel.clone(), interrupt.clone());
    let tick = |py: Python<'_>| {
        report.deliver(py, &tick_cancel);
        if interrupt.swap(false, Ordering::SeqCst) {
            // What Ctrl-C does: the interpreter's KeyboardInterrupt, raised by the code's own signal check
            // (then it is this error) or by the next one.
            return py.run(c"import _thread; _thread.interrupt_main()", None, None);
        }
        Ok(())
    };
    // A study or table waits for its fits in flight to be written; another job stops at its next check.
    let on_interrupt = if pbdfit_jobs::RESUMABLE.contains(&name) { OnInterrupt::Finish } else { OnInterrupt::Stop };
    let (name, keywords) = (name.to_string(), keywords.to_string());
    let outcome = interruptible(py, cancel, on_interrupt, &tick, move || {
        let observer = |p: &Progress| {
            if _interrupt_after.is_some_and(|k| p.done >= k) {
                // As the signal would, but at a fixed fit: no further fit starts.
                worker_cancel.store(true, Ordering::SeqCst);
                worker_interrupt.store(true, Ordering::SeqCst);
            }
            sink(p);
        };
        let stop = Some(worker_cancel.clone());
        pbdfit_fit::cancellable(&worker_cancel, || pbdfit_jobs::run_json_with(&name, &keywords, &observer, stop))
    });
    // A raising progress callable stopped the run: its exception, not the cancellation's.
    report.finish(py)?;
    outcome?.map_err(|e| pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()))?.map_err(job_error)
}

/// The keywords the job `name` takes (Python's spelling of its command's options).
#[pyfunction]
fn job_keywords(name: &str) -> PyResult<Vec<String>> {
    pbdfit_jobs::keywords_of(name).ok_or_else(|| value_error(format!("no job named {name}")))
}

/// The job `name` as a Python function takes it, as JSON: `name`, `keywords` (each with `name`, `kind`,
/// `required`, `positional`, `help`, in the function's order) and `doc` (`pbdfit_jobs::signature`), from
/// which `pbdfit._job_function` makes the function.
#[pyfunction]
fn job_signature(name: &str) -> PyResult<String> {
    let signature = pbdfit_jobs::signature_of(name).ok_or_else(|| value_error(format!("no job named {name}")))?;
    serde_json::to_string(&signature).map_err(|e| PyRuntimeError::new_err(format!("JSON output: {e}")))
}

/// The module `pbdfit._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scenes, m)?)?;
    m.add_function(wrap_pyfunction!(run_job, m)?)?;
    m.add_function(wrap_pyfunction!(job_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(job_signature, m)?)?;
    m.add_function(wrap_pyfunction!(scene_bodies, m)?)?;
    m.add_function(wrap_pyfunction!(distributed::run_task_json, m)?)?;
    m.add_class::<distributed::Driver>()?;
    m.add_function(wrap_pyfunction!(read_results, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
