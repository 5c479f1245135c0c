//! A study's motion pass (`[motion]` in a study file): after the rest-state fits, the release test
//! (`pbdfit motion`'s, built by [`pbdfit_fit::ReleaseSetup`]) at every fitted parameter set, one row per fit row, into
//! `<results>/motion/releases.csv`: at the stiffness that gives the right sag, how far the model's
//! frequency and decay are from the FEM's, over the study's dt, nit, N and E. With `fit_motion` it also
//! fits the parameters to the motion and records what that gains in trajectory and costs in sag; with
//! `fit_damping`, the damping setting that matches the FEM's decay (or why none does; a model without a
//! damping knob, Genesis's PBD, has none searched). A release that fails, or a fit row without parameters,
//! is a row with its reason in the `status` column; the pass goes on.
//!
//! The pass reads the fits from the results files, as any reader of results does, and is resumable: a
//! row written is not computed again; when the pass completes the file is rewritten sorted, so it does
//! not depend on thread timing (apart from the `seconds` column).
//!
//! ```toml
//! [motion]
//! periods = 5          # the window, in periods of the FEM's first mode
//! release = "gravity"  # or "unload"
//! fem_damping = 0.0    # the FEM's first-mode damping ratio (mass-proportional Rayleigh)
//! fit_motion = false   # also fit the parameters to the trajectory
//! fit_damping = false  # also search the damping setting (needs fem_damping > 0)
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use serde::Deserialize;

use super::{PreparedStudy, Progress, Study};
use pbdfit_fit::{FitError, MotionReport, Release, ReleaseSetup, Spelling};

/// The folder under a study's results that holds its motion pass.
pub const MOTION_FOLDER: &str = "motion";
/// The motion pass's results file, in [`MOTION_FOLDER`].
pub const MOTION_FILE: &str = "releases.csv";
/// The settings its rows were made with, beside it.
const PASS_FILE: &str = "pass.json";

/// A study file's `[motion]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionDef {
    periods: Option<f64>,
    release: Option<String>,
    fem_damping: Option<f64>,
    #[serde(default)]
    fit_motion: bool,
    #[serde(default)]
    fit_damping: bool,
}

/// A study's motion pass, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionPass {
    /// The window in periods of the FEM's first mode.
    pub periods: f64,
    /// How the bodies are released.
    pub release: Release,
    /// The FEM's first-mode damping ratio.
    pub fem_damping: f64,
    /// Also fit the parameters to the motion.
    pub fit_motion: bool,
    /// Also search the damping setting.
    pub fit_damping: bool,
}

impl MotionPass {
    /// The settings as `pass.json` keeps them (a resumed pass must have the same).
    fn settings_text(&self) -> String {
        format!(
            "{{\"periods\": {:e}, \"release\": \"{}\", \"fem_damping\": {:e}, \"fit_motion\": {}, \"fit_damping\": {}}}\n",
            self.periods,
            self.release.name(),
            self.fem_damping,
            self.fit_motion,
            self.fit_damping
        )
    }
}

impl MotionDef {
    /// The pass, checked (each message names the entry).
    pub(crate) fn pass(&self) -> Result<MotionPass, (String, String)> {
        // The command line's own check of the window (its bounds hold on every body).
        let periods = pbdfit_fit::check_periods(self.periods.unwrap_or(pbdfit_fit::DEFAULT_PERIODS))
            .map_err(|e| ("motion.periods".to_string(), e))?;
        let release = match self.release.as_deref() {
            None => Release::Gravity,
            Some(r) => {
                Release::parse(r).ok_or(("motion.release".into(), format!("`{r}`: expected gravity or unload")))?
            }
        };
        let fem_damping = self.fem_damping.unwrap_or(0.0);
        if !(0.0..1.0).contains(&fem_damping) {
            return Err(("motion.fem_damping".into(), format!("{fem_damping}: a damping ratio in [0, 1)")));
        }
        if self.fit_damping && fem_damping == 0.0 {
            return Err(("motion.fit_damping".into(), "needs fem_damping > 0: the FEM's decay is the target".into()));
        }
        Ok(MotionPass { periods, release, fem_damping, fit_motion: self.fit_motion, fit_damping: self.fit_damping })
    }
}

/// The columns of `releases.csv`.
const COLUMNS: [&str; 25] = [
    "scene",
    "experiment",
    "value",
    "young",
    "poisson",
    "dt",
    "n",
    "nit",
    "model",
    "parameters",
    "rest_error",
    "fem_frequency",
    "model_frequency",
    "frequency_ratio",
    "fem_damping_ratio",
    "model_damping_ratio",
    "trajectory_error",
    "motion_parameters",
    "motion_trajectory_error",
    "motion_rest_error",
    "damping_knob",
    "damping_value",
    "damping_reached",
    "status",
    "seconds",
];

/// One fit row's releases: at the sag fit's parameters, and where asked the motion fit and the damping
/// search; each may have failed (its reason in `status`, its columns empty).
struct Releases {
    at_sag: Result<MotionReport, String>,
    motion: Option<Result<MotionReport, String>>,
    damped: Option<Result<MotionReport, String>>,
}

impl Releases {
    /// `ok`, or what failed and why.
    fn status(&self) -> String {
        let mut failed = Vec::new();
        for (what, r) in [
            ("release", Some(&self.at_sag)),
            ("motion fit", self.motion.as_ref()),
            ("damping fit", self.damped.as_ref()),
        ] {
            if let Some(Err(e)) = r {
                failed.push(format!("{what}: {e}"));
            }
        }
        if failed.is_empty() { "ok".to_string() } else { failed.join("; ") }
    }
}

/// A number as the file writes it (a round-trip decimal).
fn number(x: f64) -> String {
    if x.is_finite() { format!("{x:e}") } else { x.to_string() }
}

/// An optional number: empty where there is none.
fn optional(x: Option<f64>) -> String {
    x.map_or(String::new(), number)
}

/// One fit row's line: its key columns and the measures.
fn row(record: &pbdfit_results::FitRecord, releases: &Releases, seconds: f64) -> Vec<String> {
    let named = |p: &[(String, f64)]| p.iter().map(|(k, v)| format!("{k}={v:e}")).collect::<Vec<_>>().join(";");
    let at_sag = releases.at_sag.as_ref().ok();
    let ratio = at_sag.and_then(|r| match (r.model_measures.frequency, r.fem.frequency) {
        (Some(m), Some(f)) => Some(m / f),
        _ => None,
    });
    let motion = releases.motion.as_ref().and_then(|r| r.as_ref().ok());
    let damping = releases.damped.as_ref().and_then(|r| r.as_ref().ok()).and_then(|r| r.damping_fit.as_ref());
    vec![
        record.scene.clone(),
        record.experiment.clone(),
        optional(record.value),
        number(record.young),
        number(record.poisson),
        number(record.dt),
        record.n.to_string(),
        record.nit.to_string(),
        record.model.clone(),
        named(&record.parameters),
        optional(at_sag.map(|r| r.rest_error)),
        optional(at_sag.and_then(|r| r.fem.frequency)),
        optional(at_sag.and_then(|r| r.model_measures.frequency)),
        optional(ratio),
        optional(at_sag.and_then(|r| r.fem.damping_ratio)),
        optional(at_sag.and_then(|r| r.model_measures.damping_ratio)),
        optional(at_sag.map(|r| r.trajectory_error)),
        motion.map_or(String::new(), |m| named(&m.parameters)),
        optional(motion.map(|m| m.trajectory_error)),
        optional(motion.map(|m| m.rest_error)),
        damping.map_or(String::new(), |d| d.knob.clone()),
        damping.filter(|d| d.reached).map_or(String::new(), |d| number(d.value)),
        damping.map_or(String::new(), |d| d.reached.to_string()),
        releases.status(),
        format!("{seconds:.3}"),
    ]
}

fn csv_line(fields: &[String]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    w.write_record(fields).expect("in-memory CSV");
    w.into_inner().expect("in-memory CSV")
}

/// The identity of a row: scene, experiment, value and nu as written.
type RowKey = (String, String, String, String);

/// The identity of a written row.
fn key_of(fields: &[String]) -> RowKey {
    (fields[0].clone(), fields[1].clone(), fields[2].clone(), fields[4].clone())
}

/// The scene as [`MotionKeywords`] takes it: a built-in name, or the file it was read from.
fn scene_source(study: &Study, name: &str) -> String {
    if pbdfit_mesh::BUILTIN_SCENES.iter().any(|(n, _)| *n == name) {
        return name.to_string();
    }
    study
        .scenes
        .iter()
        .find(|s| s.name() == name)
        .and_then(|s| s.scenes().first())
        .map_or(name.to_string(), |s| s.origin.clone())
}

impl Study {
    /// Checks that a motion pass can run on this study: single-part scenes, a model with a projection step.
    pub(crate) fn check_motion(&self) -> Result<(), (String, String)> {
        if self.motion.is_none() {
            return Ok(());
        }
        if !self.kind.has_projection() {
            return Err(("motion".into(), format!("model {}: the release test runs projection models", self.kind)));
        }
        if let Some(set) = self.scenes.iter().find(|s| s.is_compound()) {
            return Err(("motion".into(), format!("scene {}: the release test takes one part at a time", set.name())));
        }
        // As the command line refuses them: the release test has no contact.
        if let Some(scene) = self.scenes.iter().flat_map(|s| s.scenes()).find(|s| !s.obstacles.is_empty()) {
            return Err((
                "motion".into(),
                format!("scene {} has obstacles: the release test has no contact yet", scene.name),
            ));
        }
        // The release test's FEM is the scene's body with the study's law; any other reference choice would
        // make its rows describe another FEM than the fits'.
        if self.reference != self.reference.material_only() {
            return Err((
                "motion".into(),
                "the release test takes the study's [reference] law only (no solve, split, mass, time or damping \
                 there: its FEM is the scene's own body, integrated by Newmark)"
                    .into(),
            ));
        }
        if self.precision != pbdfit_pbd::Precision::F64 {
            return Err((
                "motion".into(),
                "the release test runs in f64: a study with [motion] keeps precision = \"f64\"".into(),
            ));
        }
        Ok(())
    }
}

impl PreparedStudy {
    /// The motion pass's results file.
    pub fn motion_file(&self) -> PathBuf {
        self.out.join(MOTION_FOLDER).join(MOTION_FILE)
    }

    /// Runs (or resumes) the study's motion pass over the fits in its results files (none without a
    /// `[motion]` table): returns the rows written in this run. `observer` sees each row as it lands.
    pub fn run_motion(
        &self,
        cancel: Option<&std::sync::atomic::AtomicBool>,
        observer: &(dyn Fn(&Progress) + Sync),
    ) -> Result<usize, FitError> {
        if self.study.motion.is_none() {
            return Ok(0);
        }
        let plan = super::Plan::new(&self.study, &self.out, &self.only)?;
        // The folder is the pass's alone while it writes (the fits' run has released it).
        let _folder = super::LockedFolder::lock(&self.out)?;
        run_motion_pass(&self.study, &self.out, &plan.files, cancel, observer)
    }
}

/// The motion pass of `study` (none without `[motion]`) over the fits in `files` (its plan's results
/// files), into `out`'s [`MOTION_FOLDER`]; [`PreparedStudy::run_motion`], and a distributed run's driver
/// after its fits (each holding the folder's lock). `cancel`, when set, starts no further row: the rows
/// written stay, and the pass returns [`FitError::Interrupted`]. The pass's settings are kept beside its
/// rows (`pass.json`): rows made with other settings are not resumed but made again.
pub fn run_motion_pass(
    study: &Study,
    out: &Path,
    files: &[PathBuf],
    cancel: Option<&std::sync::atomic::AtomicBool>,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<usize, FitError> {
    {
        let Some(pass) = &study.motion else { return Ok(0) };
        let mut records = Vec::new();
        for file in files.iter().filter(|f| f.is_file()) {
            records.extend(pbdfit_results::read_records(file)?);
        }
        let path = out.join(MOTION_FOLDER).join(MOTION_FILE);
        let folder = path.parent().expect("in a folder");
        std::fs::create_dir_all(folder).map_err(|e| io(&path, e))?;
        // Rows already written (a resumed pass, with the same settings), less a partial last line.
        let settings = pass.settings_text();
        let settings_path = folder.join(PASS_FILE);
        let same = std::fs::read_to_string(&settings_path).is_ok_and(|t| t == settings);
        let mut done: Vec<Vec<String>> = Vec::new();
        if path.is_file() && !same {
            observer(&Progress {
                done: 0,
                total: 0,
                resumed: 0,
                message: format!(
                    "motion: {} was made with other [motion] settings (or before they were recorded): its rows are \
                     made again",
                    path.display()
                ),
                notice: true,
            });
        }
        if path.is_file() && same {
            let mut reader =
                csv::ReaderBuilder::new().flexible(true).from_path(&path).map_err(|e| csv_error(&path, e))?;
            for line in reader.records() {
                match line {
                    Ok(r) if r.len() == COLUMNS.len() => done.push(r.iter().map(str::to_string).collect()),
                    _ => break,
                }
            }
        }
        let written: std::collections::BTreeSet<_> = done.iter().map(|r| key_of(r)).collect();
        let todo: Vec<_> = records
            .iter()
            .filter(|r| {
                let probe = row_key(r);
                !written.contains(&probe)
            })
            .collect();
        // The rows kept, rewritten whole (a partial last line dropped) by a rename: a kill at any moment
        // leaves the old file or the new one, never a truncated one.
        let mut text = csv_line(&COLUMNS.map(str::to_string));
        for r in &done {
            text.extend(csv_line(r));
        }
        replace(&path, &text)?;
        replace(&settings_path, settings.as_bytes())?;
        let file = std::fs::OpenOptions::new().append(true).open(&path).map_err(|e| io(&path, e))?;
        let file = Mutex::new(file);
        let total = todo.len();
        let count = std::sync::atomic::AtomicUsize::new(0);
        let resumed = done.len();
        // One release per distinct fit, its rows written together.
        let mut groups: std::collections::BTreeMap<ReleaseKey, Vec<&pbdfit_results::FitRecord>> = Default::default();
        for record in todo {
            groups.entry(release_key(record)).or_default().push(record);
        }
        let groups: Vec<Vec<&pbdfit_results::FitRecord>> = groups.into_values().collect();
        let rows: Vec<Option<Vec<Vec<String>>>> = groups
            .par_iter()
            .map(|group| -> Result<Option<Vec<Vec<String>>>, FitError> {
                let record = group[0];
                if cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst)) {
                    return Ok(None);
                }
                let start = std::time::Instant::now();
                // The release test at the row's setting: one setup, released once per pass asked. A release that
                // fails (a fitted point whose rest state is unstable when solved cold, say) is a row with its reason
                // in `status`, not the end of the pass.
                let model = pbdfit_fit::Model { model: record.model.clone(), nit: record.nit, ..Default::default() };
                let test = || -> Result<_, pbdfit_fit::FitJobError> {
                    let setup = ReleaseSetup {
                        body: pbdfit_fit::Body {
                            scene: scene_source(study, &record.scene),
                            n: Some(record.n),
                            mass_model: Some(record.mass_model.clone()),
                            ..Default::default()
                        },
                        material: pbdfit_fit::Material { young: Some(record.young), poisson: Some(record.poisson) }
                            .checked()?,
                        law: study.reference.material.clone(),
                        kind: model.kind(Spelling::Keyword)?,
                        dt: record.dt,
                        nit: record.nit,
                        damping: 0.0,
                        fem_damping: pass.fem_damping,
                        release: pass.release,
                        periods: pass.periods,
                    };
                    let (test, _) = setup.test(Spelling::Keyword)?;
                    let values = pbdfit_fit::start_from_pairs(test.kind(), &record.parameters)
                        .map_err(|e| pbdfit_fit::FitJobError::Input(format!("params: {e}")))?;
                    Ok((test, values))
                };
                let test = if record.parameters.iter().all(|(_, v)| v.is_finite()) {
                    test().map_err(|e| e.to_string())
                } else {
                    Err("the fit found no parameters (a failed fit: its reason is in the fit's results file)"
                        .to_string())
                };
                let release = |fit_motion: bool, fit_damping: bool| -> Result<MotionReport, String> {
                    let (test, values) = test.as_ref().map_err(Clone::clone)?;
                    let frames = &mut |_: f64, _: &[_], _: &[_]| Ok(());
                    test.run(std::time::Instant::now(), values.clone(), false, fit_motion, fit_damping, frames)
                        .map_err(|e| e.to_string())
                };
                let at_sag = release(false, false);
                let motion = (pass.fit_motion && at_sag.is_ok()).then(|| release(true, false));
                // A model without a damping knob (Genesis's PBD) has no damping search: its columns stay empty.
                let damped = (pass.fit_damping && at_sag.is_ok() && pbdfit_fit::has_damping_knob(study.kind))
                    .then(|| release(false, true));
                let releases = Releases { at_sag, motion, damped };
                let seconds = start.elapsed().as_secs_f64();
                let lines: Vec<Vec<String>> = group.iter().map(|r| row(r, &releases, seconds)).collect();
                let bytes: Vec<u8> = lines.iter().flat_map(|l| csv_line(l)).collect();
                let mut f = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                f.write_all(&bytes).and_then(|()| f.flush()).map_err(|e| io(&path, e))?;
                drop(f);
                let done = count.fetch_add(group.len(), std::sync::atomic::Ordering::SeqCst) + group.len();
                observer(&Progress {
                    done,
                    total,
                    resumed,
                    message: format!("release {} {} nu = {}", record.scene, record.experiment, record.poisson),
                    notice: false,
                });
                Ok(Some(lines))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rows: Vec<Vec<String>> = rows.into_iter().flatten().flatten().collect();
        if rows.len() < total {
            return Err(FitError::Interrupted { done: rows.len(), total });
        }
        // Complete: rewritten sorted by (scene, experiment, value, nu), as the fits' files are.
        let mut all: Vec<Vec<String>> = done.into_iter().chain(rows).collect();
        let num = |s: &str| s.parse::<f64>().unwrap_or(f64::NEG_INFINITY);
        all.sort_by(|a, b| {
            (&a[0], &a[1])
                .cmp(&(&b[0], &b[1]))
                .then(num(&a[2]).total_cmp(&num(&b[2])))
                .then(num(&a[4]).total_cmp(&num(&b[4])))
        });
        let status = COLUMNS.iter().position(|c| *c == "status").expect("a status column");
        let failed = all.iter().filter(|r| r[status] != "ok").count();
        // A row whose release at the fit's parameters failed says so first (`release: ...`).
        let released = all.iter().filter(|r| !r[status].starts_with("release: ")).count();
        if !all.is_empty() && released == 0 {
            // Every release failed: the pass measured nothing, which no exit status 0 may hide.
            let mut text = csv_line(&COLUMNS.map(str::to_string));
            for r in &all {
                text.extend(csv_line(r));
            }
            replace(&path, &text)?;
            return Err(FitError::MotionPassFailed {
                rows: all.len(),
                path: path.clone(),
                first: all[0][status].clone(),
            });
        }
        if failed > 0 {
            observer(&Progress {
                done: total,
                total,
                resumed,
                message: format!(
                    "motion: {failed} of {} fit rows have a failed release (their reason in the status column of {})",
                    all.len(),
                    path.display()
                ),
                notice: true,
            });
        }
        let mut text = csv_line(&COLUMNS.map(str::to_string));
        for r in &all {
            text.extend(csv_line(r));
        }
        replace(&path, &text)?;
        Ok(total)
    }
}

/// The key a record's row will have ([`row`] writes these columns so).
fn row_key(record: &pbdfit_results::FitRecord) -> RowKey {
    (record.scene.clone(), record.experiment.clone(), optional(record.value), number(record.poisson))
}

/// What a release depends on: the fit's setting and parameters (bit patterns). Experiments share fits (the
/// base case is also a value of dt, nit and N), and their rows share one release.
type ReleaseKey = (String, String, String, Vec<u64>, usize, usize);

/// The [`ReleaseKey`] of a fit row.
fn release_key(record: &pbdfit_results::FitRecord) -> ReleaseKey {
    let mut bits = vec![record.young.to_bits(), record.poisson.to_bits(), record.dt.to_bits()];
    bits.extend(record.parameters.iter().map(|(_, v)| v.to_bits()));
    (record.scene.clone(), record.model.clone(), record.mass_model.clone(), bits, record.n, record.nit)
}

/// Writes `path` whole through a temporary file beside it and a rename.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), FitError> {
    let temporary = path.with_extension("partial");
    std::fs::write(&temporary, bytes).map_err(|e| io(&temporary, e))?;
    std::fs::rename(&temporary, path).map_err(|e| io(path, e))
}

fn io(path: &Path, e: std::io::Error) -> FitError {
    FitError::Results(pbdfit_results::ResultsError::io("cannot write", path, e))
}

fn csv_error(path: &Path, e: csv::Error) -> FitError {
    FitError::Results(pbdfit_results::ResultsError::Format { path: path.to_path_buf(), row: 0, message: e.to_string() })
}
