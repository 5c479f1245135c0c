//! Studies: a matrix of fits defined in a TOML file, run in parallel, resumable.
//!
//! A study file lists the scenes, the base settings, the nu range and the experiments (each varies
//! one parameter over a list of values). Results go to one CSV per scene and experiment,
//! `<out>/<scene>-<experiment>.csv`, one [`FitRecord`] per row, appended and flushed as each fit finishes:
//! a study stopped at any moment (Ctrl-C, kill -9) and started again recomputes nothing that was
//! written and loses nothing. When the run completes, every CSV is rewritten sorted by (value, nu), so
//! the final files do not depend on thread timing (apart from the `seconds` column).
//!
//! Fits that appear in several experiments (the base configuration is also the first value of every
//! experiment) are computed once. Grid rest states depend on (scene, dt, N, nit, model) but not on the
//! material, so they are computed once per configuration and shared by every (E, nu).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{MassModel, SceneSet};
use pbdfit_pbd::{Model, PbdSystem, RestOptions, RestStateBackend};
use rayon::prelude::*;
use serde::Deserialize;

use crate::{FitError, FitOptions, FitProblem, FitRecord, FitStatus, GridRestStates, Settings, fit_with_grid};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    name: String,
    #[serde(default)]
    description: String,
    scenes: Vec<String>,
    #[serde(default = "default_model")]
    model: String,
    mass_model: Option<MassModel>,
    base: BaseDef,
    poisson: PoissonDef,
    #[serde(default)]
    fit: FitDef,
    experiment: Vec<ExperimentDef>,
}

fn default_model() -> String {
    "pbd".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaseDef {
    dt: f64,
    n: i64,
    nit: i64,
    young: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoissonDef {
    from: f64,
    to: f64,
    step: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FitDef {
    #[serde(default = "default_grid")]
    grid: usize,
    #[serde(default = "default_min_step")]
    min_step: f64,
}

impl Default for FitDef {
    fn default() -> Self {
        Self { grid: default_grid(), min_step: default_min_step() }
    }
}

fn default_grid() -> usize {
    21
}
fn default_min_step() -> f64 {
    1e-4
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentDef {
    name: String,
    parameter: Option<String>,
    #[serde(default)]
    values: Vec<f64>,
}

/// The parameter an experiment varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parameter {
    /// Time step (s).
    Dt,
    /// Mesh resolution.
    N,
    /// Solver iterations.
    Nit,
    /// Young's modulus (Pa).
    Young,
}

impl Parameter {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "dt" => Self::Dt,
            "n" => Self::N,
            "nit" => Self::Nit,
            "young" => Self::Young,
            _ => return None,
        })
    }
}

/// One experiment: a name and, unless it is the base case, the parameter it varies and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// Name (CSV files are `<scene>-<name>.csv`).
    pub name: String,
    /// Varied parameter and values; `None` for the base case.
    pub varies: Option<(Parameter, Vec<f64>)>,
}

/// The simulation configuration of one fit, besides nu.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Configuration {
    /// Time step (s).
    pub dt: f64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations.
    pub nit: usize,
    /// Young's modulus (Pa).
    pub young: f64,
}

/// A validated study definition.
#[derive(Debug, Clone)]
pub struct Study {
    /// Study name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Where it was read from.
    pub origin: String,
    /// The scene sets fitted, in order.
    pub scenes: Vec<SceneSet>,
    /// Model variant.
    pub model: Model,
    /// The base configuration.
    pub base: Configuration,
    /// The Poisson ratios, ascending.
    pub poisson: Vec<f64>,
    /// The experiments in order.
    pub experiments: Vec<Experiment>,
    /// Fit controls.
    pub fit: FitOptions,
}

impl Study {
    /// Reads and validates a study file. Every error names the file and the entry.
    pub fn from_file(path: &Path) -> Result<Self, FitError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| FitError::Input(format!("cannot read study file {}: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses and validates study TOML; `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, FitError> {
        let bad = |entry: &str, message: String| FitError::Input(format!("study {origin}: {entry}: {message}"));
        let file: StudyFile =
            toml::from_str(text).map_err(|e| FitError::Input(format!("study {origin}: {}", e.to_string().trim())))?;
        if file.scenes.is_empty() {
            return Err(bad("scenes", "lists no scene".into()));
        }
        let mut scenes = Vec::new();
        for s in &file.scenes {
            let set = SceneSet::load(s).map_err(|e| bad(&format!("scenes: `{s}`"), e.to_string()))?;
            scenes.push(match file.mass_model {
                Some(m) => set.with_mass_model(m),
                None => set,
            });
        }
        let model = match file.model.as_str() {
            "pbd" => Model::Pbd { kd: 0.5, kv: 0.5 },
            "pbd-linearised" => Model::PbdLinearised { kd: 0.5, kv: 0.5 },
            "pbd-textbook-volume" => Model::PbdTextbookVolume { kd: 0.5, kv: 0.5 },
            other => {
                return Err(bad(
                    "model",
                    format!("`{other}` cannot be fitted: expected pbd, pbd-linearised or pbd-textbook-volume"),
                ));
            }
        };
        let check = |entry: &str, p: Parameter, v: f64| -> Result<(), FitError> {
            let ok = match p {
                Parameter::Dt => v.is_finite() && v > 0.0,
                Parameter::N | Parameter::Nit => v >= 1.0 && v.fract() == 0.0 && v <= 1e6,
                Parameter::Young => v.is_finite() && v > 0.0,
            };
            if ok {
                Ok(())
            } else {
                let allowed = match p {
                    Parameter::Dt => "a time step > 0 s",
                    Parameter::N => "an integer mesh resolution >= 1",
                    Parameter::Nit => "an integer iteration count >= 1",
                    Parameter::Young => "a Young's modulus > 0 Pa",
                };
                Err(bad(entry, format!("{v} is not {allowed}")))
            }
        };
        check("base.dt", Parameter::Dt, file.base.dt)?;
        check("base.n", Parameter::N, file.base.n as f64)?;
        check("base.nit", Parameter::Nit, file.base.nit as f64)?;
        check("base.young", Parameter::Young, file.base.young)?;
        let base = Configuration {
            dt: file.base.dt,
            n: file.base.n as usize,
            nit: file.base.nit as usize,
            young: file.base.young,
        };
        let p = &file.poisson;
        if !(p.step.is_finite() && p.step > 0.0) {
            return Err(bad("poisson.step", format!("{} must be > 0", p.step)));
        }
        if !(p.from.is_finite() && p.to.is_finite()) || p.to < p.from {
            return Err(bad("poisson", format!("empty range: from {} to {}", p.from, p.to)));
        }
        if p.from <= -1.0 || p.to >= 0.5 {
            return Err(bad(
                "poisson",
                format!("range [{}, {}] must lie inside (-1, 0.5): nu >= 0.5 is incompressible", p.from, p.to),
            ));
        }
        let count = ((p.to - p.from) / p.step + 1e-9).floor() as usize + 1;
        let poisson: Vec<f64> = (0..count).map(|i| ((p.from + i as f64 * p.step) * 1e10).round() / 1e10).collect();
        if file.fit.grid < 2 {
            return Err(bad("fit.grid", format!("{} must be at least 2", file.fit.grid)));
        }
        if !(file.fit.min_step.is_finite() && file.fit.min_step > 0.0) {
            return Err(bad("fit.min_step", format!("{} must be > 0", file.fit.min_step)));
        }
        if file.experiment.is_empty() {
            return Err(bad("experiment", "lists no experiment".into()));
        }
        let mut experiments = Vec::new();
        let mut names = BTreeSet::new();
        for (i, e) in file.experiment.iter().enumerate() {
            let entry = format!("experiment[{i}] `{}`", e.name);
            if !names.insert(e.name.clone()) {
                return Err(bad(&entry, "duplicate experiment name".into()));
            }
            if e.name.is_empty() || !e.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(bad(&entry, "names use letters, digits, '-' and '_' only".into()));
            }
            let varies = match &e.parameter {
                None if e.values.is_empty() => None,
                None => return Err(bad(&entry, "has values but no parameter".into())),
                Some(name) => {
                    let parameter = Parameter::parse(name).ok_or_else(|| {
                        bad(&entry, format!("unknown parameter `{name}`: expected dt, n, nit or young"))
                    })?;
                    if e.values.is_empty() {
                        return Err(bad(&entry, "empty list of values".into()));
                    }
                    for v in &e.values {
                        check(&entry, parameter, *v)?;
                    }
                    Some((parameter, e.values.clone()))
                }
            };
            experiments.push(Experiment { name: e.name.clone(), varies });
        }
        Ok(Self {
            name: file.name,
            description: file.description,
            origin: origin.to_string(),
            scenes,
            model,
            base,
            poisson,
            experiments,
            fit: FitOptions { grid: file.fit.grid, min_step: file.fit.min_step, ..FitOptions::default() },
        })
    }

    /// Every mesh resolution the study uses (the base and any N experiment's values).
    pub fn base_and_experiment_resolutions(&self) -> Vec<usize> {
        let mut n = vec![self.base.n];
        for e in &self.experiments {
            if let Some((Parameter::N, values)) = &e.varies {
                n.extend(values.iter().map(|v| *v as usize));
            }
        }
        n
    }

    /// Keeps only the given nu values (e.g. a coarse grid for a quick run).
    pub fn with_poisson(mut self, poisson: Vec<f64>) -> Self {
        self.poisson = poisson;
        self
    }

    /// Every (scene, experiment) pair the study writes, as `(scene name, experiment name)`.
    pub fn outputs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for s in &self.scenes {
            for e in &self.experiments {
                out.push((s.name().to_string(), e.name.clone()));
            }
        }
        out
    }

    /// The configuration of an experiment at one of its values.
    fn configuration(&self, varies: Option<(Parameter, f64)>) -> Configuration {
        let mut c = self.base;
        match varies {
            Some((Parameter::Dt, v)) => c.dt = v,
            Some((Parameter::N, v)) => c.n = v as usize,
            Some((Parameter::Nit, v)) => c.nit = v as usize,
            Some((Parameter::Young, v)) => c.young = v,
            None => {}
        }
        c
    }
}

/// Identity of one unique fit: scene set, configuration and nu (bit patterns, so it can be hashed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct FitKey {
    scene: usize,
    dt: u64,
    n: usize,
    nit: usize,
    young: u64,
    poisson: u64,
}

/// One row a unique fit writes: its file and the experiment's value.
#[derive(Debug, Clone)]
struct Target {
    file: usize,
    experiment: String,
    value: Option<f64>,
}

/// Which fits a run does: a filter on `scene`, `scene/experiment` or `*/experiment`.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--only` filters; empty runs everything.
    pub only: Vec<String>,
}

/// Progress of a study run, reported to an observer after each fit.
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
}

/// What a finished run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StudySummary {
    /// Study name.
    pub study: String,
    /// Unique fits in the (filtered) study.
    pub fits: usize,
    /// Fits computed by this run.
    pub computed: usize,
    /// Fits found finished from an earlier run.
    pub resumed: usize,
    /// Fits with status failed.
    pub failed: usize,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Threads used.
    pub threads: usize,
    /// Rest-state backend of the grid sweeps.
    pub backend: String,
    /// The CSV files written.
    pub files: Vec<String>,
}

fn csv_header() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // The header comes from FitRecord's field names; serialising a dummy writes it.
    let dummy = FitRecord {
        scene: String::new(),
        experiment: String::new(),
        value: None,
        young: 0.0,
        poisson: 0.0,
        dt: 0.0,
        n: 0,
        nit: 0,
        model: String::new(),
        mass_model: String::new(),
        kd: 0.0,
        kv: 0.0,
        error: 0.0,
        scene_errors: String::new(),
        evaluations: 0,
        failed_evaluations: 0,
        seconds: 0.0,
        status: FitStatus::Ok,
        message: String::new(),
    };
    w.serialize(&dummy).expect("in-memory CSV");
    let bytes = w.into_inner().expect("in-memory CSV");
    String::from_utf8(bytes).expect("CSV is UTF-8").lines().next().unwrap_or_default().to_string()
}

/// Reads the finished rows of a results CSV. A partial last line (a run killed mid-write) is dropped
/// and the file truncated to its last complete row, so appending can go on.
fn load_rows(path: &Path) -> Result<Vec<FitRecord>, FitError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| FitError::Input(format!("cannot read {}: {e}", path.display())))?;
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    if complete.len() != text.len() {
        std::fs::write(path, complete)
            .map_err(|e| FitError::Input(format!("cannot repair {}: {e}", path.display())))?;
    }
    if complete.is_empty() {
        return Ok(Vec::new());
    }
    crate::read_records(path).map_err(FitError::Input)
}

fn append_row(path: &Path, record: &FitRecord) -> Result<(), FitError> {
    let io = |e: std::io::Error| FitError::Input(format!("cannot write {}: {e}", path.display()));
    let new = !path.exists() || std::fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
    let mut file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    w.serialize(record).map_err(|e| FitError::Internal(e.to_string()))?;
    let mut bytes = w.into_inner().map_err(|e| FitError::Internal(e.to_string()))?;
    if new {
        let mut header = csv_header().into_bytes();
        header.push(b'\n');
        header.append(&mut bytes);
        bytes = header;
    }
    // One write of whole lines, then flush to the OS: a kill leaves at most a partial last line.
    file.write_all(&bytes).map_err(io)?;
    file.flush().map_err(io)
}

fn key_of(scene: usize, c: &Configuration, poisson: f64) -> FitKey {
    FitKey { scene, dt: c.dt.to_bits(), n: c.n, nit: c.nit, young: c.young.to_bits(), poisson: poisson.to_bits() }
}

fn matches_filter(only: &[String], scene: &str, experiment: &str) -> bool {
    only.is_empty()
        || only.iter().any(|f| match f.split_once('/') {
            Some((s, e)) => (s == "*" || s == scene) && (e == "*" || e == experiment),
            None => f == scene,
        })
}

/// Runs (or resumes) a study, writing results under `out_dir`. `backend` computes the grid rest
/// states; fits run on rayon's current thread pool. `observer` sees progress after every fit.
pub fn run_study(
    study: &Study,
    out_dir: &Path,
    options: &RunOptions,
    backend: &dyn RestStateBackend,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<StudySummary, FitError> {
    let start = Instant::now();
    for f in &options.only {
        let (s, e) = f.split_once('/').unwrap_or((f.as_str(), "*"));
        let scene_ok = s == "*" || study.scenes.iter().any(|x| x.name() == s);
        let experiment_ok = e == "*" || study.experiments.iter().any(|x| x.name == e);
        if !scene_ok || !experiment_ok {
            return Err(FitError::Input(format!(
                "--only `{f}` matches nothing in study {}: scenes are {}, experiments {}",
                study.origin,
                study.scenes.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
                study.experiments.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    std::fs::create_dir_all(out_dir)
        .map_err(|e| FitError::Input(format!("cannot create {}: {e}", out_dir.display())))?;

    // The plan: every unique fit and the rows it writes.
    let mut files: Vec<PathBuf> = Vec::new();
    let mut plan: BTreeMap<FitKey, Vec<Target>> = BTreeMap::new();
    let mut configs: HashMap<FitKey, Configuration> = HashMap::new();
    for (si, set) in study.scenes.iter().enumerate() {
        for e in &study.experiments {
            if !matches_filter(&options.only, set.name(), &e.name) {
                continue;
            }
            let file = files.len();
            files.push(out_dir.join(format!("{}-{}.csv", set.name(), e.name)));
            let values: Vec<Option<(Parameter, f64)>> = match &e.varies {
                None => vec![None],
                Some((p, vs)) => vs.iter().map(|v| Some((*p, *v))).collect(),
            };
            for v in values {
                let c = study.configuration(v);
                for &nu in &study.poisson {
                    let key = key_of(si, &c, nu);
                    configs.insert(key, c);
                    plan.entry(key).or_default().push(Target {
                        file,
                        experiment: e.name.clone(),
                        value: v.map(|x| x.1),
                    });
                }
            }
        }
    }

    // What earlier runs finished.
    let model_name = study.model.name().to_string();
    let mut existing: Vec<HashMap<FitKey, FitRecord>> = Vec::new();
    let mut known: HashMap<FitKey, FitRecord> = HashMap::new();
    let scene_index: HashMap<&str, usize> = study.scenes.iter().enumerate().map(|(i, s)| (s.name(), i)).collect();
    for path in &files {
        let mut rows = HashMap::new();
        for r in load_rows(path)? {
            let expected_mass = study.scenes.iter().find(|s| s.name() == r.scene).and_then(|s| s.scenes().first());
            let mass_ok = expected_mass.is_none_or(|s| s.mass_model.name() == r.mass_model);
            if r.model != model_name || !mass_ok {
                return Err(FitError::Input(format!(
                    "{} holds results of model {} with {} masses, but study {} asks for model {}{}: \
                     choose another --out folder or remove the old results",
                    path.display(),
                    r.model,
                    r.mass_model,
                    study.origin,
                    model_name,
                    expected_mass.map(|s| format!(" with {} masses", s.mass_model.name())).unwrap_or_default()
                )));
            }
            if let Some(&si) = scene_index.get(r.scene.as_str()) {
                let c = Configuration { dt: r.dt, n: r.n, nit: r.nit, young: r.young };
                let key = key_of(si, &c, r.poisson);
                known.entry(key).or_insert_with(|| r.clone());
                rows.insert(key, r);
            }
        }
        existing.push(rows);
    }
    let mut todo: Vec<FitKey> = Vec::new();
    let mut resumed = 0;
    for (key, targets) in &plan {
        match known.get(key) {
            Some(found) => {
                resumed += 1;
                for t in targets {
                    if !existing[t.file].contains_key(key) {
                        let row = FitRecord { experiment: t.experiment.clone(), value: t.value, ..found.clone() };
                        append_row(&files[t.file], &row)?;
                    }
                }
            }
            None => todo.push(*key),
        }
    }

    let total = todo.len();
    let done = Mutex::new(0usize);
    let file_locks: Vec<Mutex<()>> = files.iter().map(|_| Mutex::new(())).collect();
    let mut failed_run = 0usize;
    // Group the remaining fits by grid configuration (dt, n, nit): grids are shared inside a group.
    let mut groups: BTreeMap<(u64, usize, usize), Vec<FitKey>> = BTreeMap::new();
    for k in &todo {
        groups.entry((k.dt, k.n, k.nit)).or_default().push(*k);
    }
    observer(&Progress { done: 0, total, resumed, message: format!("{total} fits to do, {resumed} already done") });
    for ((dt_bits, n, nit), keys) in groups {
        let dt = f64::from_bits(dt_bits);
        let settings = Settings { dt, n, nit, model: study.model };
        observer(&Progress {
            done: *done.lock().expect("progress lock"),
            total,
            resumed,
            message: format!("grid rest states for dt = {dt}, N = {n}, nit = {nit} on {}", backend.name()),
        });
        // Systems and grids for every basic scene this group needs.
        let mut systems: HashMap<String, Arc<PbdSystem>> = HashMap::new();
        let mut grids: HashMap<String, GridRestStates> = HashMap::new();
        let needed: BTreeSet<usize> = keys.iter().map(|k| k.scene).collect();
        for si in needed {
            for scene in study.scenes[si].scenes() {
                if systems.contains_key(&scene.name) {
                    continue;
                }
                let body = scene.body(n).map_err(|e| FitError::Input(e.to_string()))?;
                let system = Arc::new(PbdSystem::new(&body));
                let grid =
                    GridRestStates::compute(&system, &settings, study.fit.grid, backend, &RestOptions::default());
                systems.insert(scene.name.clone(), system);
                grids.insert(scene.name.clone(), grid);
            }
        }
        let results: Vec<Result<usize, FitError>> = keys
            .par_iter()
            .map(|key| {
                let c = configs[key];
                let nu = f64::from_bits(key.poisson);
                let set = &study.scenes[key.scene];
                let record = fit_one(set, c, nu, settings, study, &systems, &grids, &model_name);
                let failed = usize::from(record.status == FitStatus::Failed);
                for t in &plan[key] {
                    let row = FitRecord { experiment: t.experiment.clone(), value: t.value, ..record.clone() };
                    let _guard = file_locks[t.file].lock().expect("file lock");
                    append_row(&files[t.file], &row)?;
                }
                let mut d = done.lock().expect("progress lock");
                *d += 1;
                observer(&Progress {
                    done: *d,
                    total,
                    resumed,
                    message: format!(
                        "{} E = {:e} nu = {nu}: kd = {:.4}, kv = {:.4}, error = {:.3e}",
                        set.name(),
                        c.young,
                        record.kd,
                        record.kv,
                        record.error
                    ),
                });
                Ok(failed)
            })
            .collect();
        for r in results {
            failed_run += r?;
        }
    }

    // Rewrite each file sorted by (value, nu): the final files do not depend on completion order.
    let mut failed = 0;
    for path in &files {
        let mut rows = load_rows(path)?;
        rows.sort_by(|a, b| {
            (a.value.unwrap_or(f64::NEG_INFINITY), a.poisson)
                .partial_cmp(&(b.value.unwrap_or(f64::NEG_INFINITY), b.poisson))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        rows.dedup_by(|a, b| a.value == b.value && a.poisson == b.poisson);
        failed += rows.iter().filter(|r| r.status == FitStatus::Failed).count();
        let tmp = path.with_extension("csv.tmp");
        crate::write_records(&tmp, &rows).map_err(FitError::Input)?;
        std::fs::rename(&tmp, path).map_err(|e| FitError::Input(format!("cannot write {}: {e}", path.display())))?;
    }
    let summary = StudySummary {
        study: study.name.clone(),
        fits: plan.len(),
        computed: total,
        resumed,
        failed: failed.max(failed_run),
        seconds: start.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
        backend: backend.name(),
        files: files.iter().map(|f| f.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect(),
    };
    let json = serde_json::to_string_pretty(&summary).map_err(|e| FitError::Internal(e.to_string()))?;
    std::fs::write(out_dir.join("summary.json"), json + "\n")
        .map_err(|e| FitError::Input(format!("cannot write summary in {}: {e}", out_dir.display())))?;
    Ok(summary)
}

/// One fit of a study, as a record (failed fits become failed records, never errors).
fn fit_one(
    set: &SceneSet,
    c: Configuration,
    nu: f64,
    settings: Settings,
    study: &Study,
    systems: &HashMap<String, Arc<PbdSystem>>,
    grids: &HashMap<String, GridRestStates>,
    model_name: &str,
) -> FitRecord {
    let start = Instant::now();
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
        model: model_name.to_string(),
        mass_model,
        kd: f64::NAN,
        kv: f64::NAN,
        error: f64::INFINITY,
        scene_errors: String::new(),
        evaluations: 0,
        failed_evaluations: 0,
        seconds: 0.0,
        status: FitStatus::Failed,
        message: String::new(),
    };
    let outcome = YoungPoisson::new(c.young, nu)
        .map_err(|e| FitError::Input(e.to_string()))
        .and_then(|material| FitProblem::new(set, settings, material, &|name| systems.get(name).cloned()))
        .and_then(|problem| {
            let part_grids: Vec<&GridRestStates> = problem.parts.iter().map(|p| &grids[&p.scene]).collect();
            fit_with_grid(&problem, &part_grids, &study.fit).map(|r| (problem.compound, r))
        });
    match outcome {
        Ok((compound, r)) => {
            record.kd = r.kd;
            record.kv = r.kv;
            record.error = r.error;
            if compound {
                record.scene_errors = FitRecord::format_part_errors(&r.part_errors);
            }
            record.evaluations = r.evaluations;
            record.failed_evaluations = r.failures.len();
            record.status = FitStatus::Ok;
            record.message = r.failure_summary();
        }
        Err(e) => record.message = e.to_string(),
    }
    record.seconds = start.elapsed().as_secs_f64();
    record
}
