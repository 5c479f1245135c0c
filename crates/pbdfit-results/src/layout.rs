//! How a study is laid out (scenes, experiments, values, model and parameters) and what a run did:
//! the contents of `summary.json`, which makes a results folder self-describing.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ResultsError;

/// How a parameter is searched and drawn: the value itself, or its base-10 logarithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Searched and drawn on a linear axis (PBD stiffness in [0, 1]).
    Linear,
    /// Searched in log10 space and drawn on a logarithmic axis (compliances, spring constants).
    Log10,
}

/// One fitted parameter of the study's model, with the box it was searched in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterLayout {
    /// Column name, e.g. `kd`, `alpha_v`.
    pub name: String,
    /// Unit as text (`1` for dimensionless), e.g. `m/N`.
    pub unit: String,
    /// Search and axis scale.
    pub scale: Scale,
    /// Lower edge of the search box.
    pub lower: f64,
    /// Upper edge of the search box.
    pub upper: f64,
}

/// A scene of the study: a basic scene, or a compound whose error is the norm of its parts' errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneLayout {
    /// Name in file names and in the `scene` column, e.g. `gravity-floor`.
    pub name: String,
    /// The parts of a compound scene, in order (empty for a basic scene).
    #[serde(default)]
    pub parts: Vec<String>,
}

impl SceneLayout {
    /// Whether this is a compound scene.
    pub fn is_compound(&self) -> bool {
        !self.parts.is_empty()
    }

    /// The name a reader sees: `gravity-floor` -> `GravityFloor`.
    pub fn title(&self) -> String {
        title_case(&self.name)
    }
}

/// `gravity-floor` -> `GravityFloor`.
pub(crate) fn title_case(name: &str) -> String {
    name.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// One experiment: a name, and the setting it varies over `values` (none for a base case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentLayout {
    /// Name (files are `<scene>-<name>.csv`).
    pub name: String,
    /// The varied setting: `dt`, `n`, `nit` or `young`; `None` for a base case.
    pub setting: Option<String>,
    /// The setting's values in the study file's order (which is also the colour order).
    #[serde(default)]
    pub values: Vec<f64>,
}

impl ExperimentLayout {
    /// The varied setting as a reader names it (`dt`, `N`, `nit`, `E`; empty for a base case).
    pub fn symbol(&self) -> &str {
        match self.setting.as_deref() {
            None => "",
            Some("n") => "N",
            Some("young") => "E",
            Some("thickness") => "h",
            Some(other) => other,
        }
    }

    /// Words for titles, e.g. `time step dt`.
    pub fn title(&self) -> String {
        match self.setting.as_deref() {
            None => "base case".into(),
            Some("dt") => "time step dt".into(),
            Some("n") => "mesh resolution N".into(),
            Some("nit") => "solver iterations nit".into(),
            Some("young") => "Young's modulus E".into(),
            Some("thickness") => "sheet thickness h".into(),
            Some(other) => other.to_string(),
        }
    }

    /// A variant's legend label, e.g. `dt = 0.005`, `N = 2`, `E = 1e4 Pa`.
    pub fn value_label(&self, value: Option<f64>) -> String {
        match (self.setting.as_deref(), value) {
            (None, _) | (_, None) => "base".into(),
            (Some("young"), Some(v)) => format!("E = {v:e} Pa"),
            (Some("thickness"), Some(v)) => format!("h = {v} m"),
            (Some(_), Some(v)) => format!("{} = {v}", self.symbol()),
        }
    }

    /// Whether the error spans orders of magnitude across variants (the E experiment, or a comparison
    /// of models, setting `model`): a log axis.
    pub fn log_error_axis(&self) -> bool {
        matches!(self.setting.as_deref(), Some("young") | Some("model"))
    }
}

/// The settings every experiment starts from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BaseSettings {
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations per step.
    pub nit: usize,
    /// Young's modulus in Pa.
    pub young: f64,
    /// A sheet study's thickness h in m (`[base] thickness`); absent for solids and for a sheet study
    /// that leaves each scene its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thickness: Option<f64>,
}

fn default_precision() -> String {
    "f64".into()
}

/// A study's layout: what was fitted, over which scenes, experiments and values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyLayout {
    /// Study name.
    pub name: String,
    /// What it is.
    #[serde(default)]
    pub description: String,
    /// Model name, e.g. `pbd`, `xpbd`.
    pub model: String,
    /// The model's fitted parameters, in column order, with their search boxes.
    pub parameters: Vec<ParameterLayout>,
    /// The reference the fits match, e.g. `linear static` (`linear static FEM` in results from before
    /// the reference was selectable).
    pub reference: String,
    /// The arithmetic of the model's rest states: `f64` (pbdfit's, the default) or `f32` (the reference
    /// library's, stepped).
    #[serde(default = "default_precision")]
    pub precision: String,
    /// Mass model override of the study (`None`: each scene's own).
    pub mass_model: Option<String>,
    /// Scenes in order.
    pub scenes: Vec<SceneLayout>,
    /// Experiments in order.
    pub experiments: Vec<ExperimentLayout>,
    /// The base settings.
    pub base: BaseSettings,
    /// The Poisson ratios, ascending.
    pub poisson: Vec<f64>,
    /// Grid points per axis of the initial sweep.
    pub grid: usize,
    /// The search stops below this step, as a fraction of each axis's width in search coordinates.
    pub min_step: f64,
    /// The search that made the fits when it is not the pattern search (`gradient`). `None` (and absent
    /// from `summary.json`, whose format is unchanged for pattern-search studies) for the pattern search
    /// and in results from before the gradient search; a results folder's manifest always names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// Whether each gradient fit also started from its neighbour's (the fit at the next lower nu of the
    /// same scene and setting). Absent (false) from `summary.json` otherwise, whose format is unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub neighbour_starts: bool,
}

impl StudyLayout {
    /// The parameter called `name`.
    pub fn parameter(&self, name: &str) -> Option<&ParameterLayout> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The scene called `name`.
    pub fn scene(&self, name: &str) -> Option<&SceneLayout> {
        self.scenes.iter().find(|s| s.name == name)
    }

    /// The experiment called `name`.
    pub fn experiment(&self, name: &str) -> Option<&ExperimentLayout> {
        self.experiments.iter().find(|e| e.name == name)
    }

    /// The CSV file of one scene and experiment inside a results folder.
    pub fn csv_path(&self, results_dir: &Path, scene: &str, experiment: &str) -> std::path::PathBuf {
        results_dir.join(format!("{scene}-{experiment}.csv"))
    }
}

/// What a study's run did: its fits by outcome, its wall-clock time and threads (`summary.json`'s counts,
/// and a study job's report's, flattened into both).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunCounts {
    /// Unique fits in the (filtered) study, this run's and earlier runs'.
    pub fits: usize,
    /// Fits computed by this run.
    pub computed: usize,
    /// Fits found finished from an earlier run.
    pub resumed: usize,
    /// Fits with status failed (no point with a rest state).
    pub failed: usize,
    /// Fits whose minimum lies on the edge of the search box.
    pub at_bound: usize,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Threads used.
    pub threads: usize,
}

/// `summary.json`: the study's layout, how the results were made, and what the last run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudySummary {
    /// The layout.
    pub layout: StudyLayout,
    /// pbdfit version that wrote the results.
    pub pbdfit_version: String,
    /// What the run did (`fits`, `computed`, `resumed`, `failed`, `at_bound`, `seconds`, `threads`).
    #[serde(flatten)]
    pub run: RunCounts,
    /// Rest-state backend of the grid sweeps.
    pub backend: String,
    /// The CSV files written.
    pub files: Vec<String>,
}

/// Reads `<results_dir>/summary.json`.
pub fn read_summary(results_dir: &Path) -> Result<StudySummary, ResultsError> {
    let path = results_dir.join("summary.json");
    let text = std::fs::read_to_string(&path).map_err(|e| ResultsError::io("cannot read", &path, e))?;
    serde_json::from_str(&text).map_err(|e| ResultsError::Summary {
        path: path.clone(),
        message: format!("not a pbdfit study summary ({e}); run `pbdfit study` again to rewrite it"),
    })
}

/// Writes `<results_dir>/summary.json` (pretty-printed, newline-terminated).
pub fn write_summary(results_dir: &Path, summary: &StudySummary) -> Result<(), ResultsError> {
    let path = results_dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary)
        .map_err(|e| ResultsError::Summary { path: path.clone(), message: e.to_string() })?;
    std::fs::write(&path, text + "\n").map_err(|e| ResultsError::io("cannot write", &path, e))
}

/// The file name of a results folder's manifest: the settings that decide its fits ([`StudyLayout`], with
/// the search always named), written before a run appends any row and removed once `summary.json`
/// (which then records the same settings) is written. An interrupted run leaves it, so the next run into
/// the folder is checked against it even with no `summary.json` yet.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Reads `<results_dir>/manifest.json`; `Ok(None)` when there is none.
pub fn read_manifest(results_dir: &Path) -> Result<Option<StudyLayout>, ResultsError> {
    let path = results_dir.join(MANIFEST_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ResultsError::io("cannot read", &path, e)),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| ResultsError::Summary {
        path: path.clone(),
        message: format!("not a pbdfit results manifest ({e}); remove it if no results in the folder are wanted"),
    })
}

/// Writes `<results_dir>/manifest.json` (through a temporary file and a rename, so a kill leaves the old
/// manifest or the new one, never half of one).
pub fn write_manifest(results_dir: &Path, layout: &StudyLayout) -> Result<(), ResultsError> {
    let path = results_dir.join(MANIFEST_FILE);
    let text = serde_json::to_string_pretty(layout)
        .map_err(|e| ResultsError::Summary { path: path.clone(), message: e.to_string() })?;
    let tmp = results_dir.join(format!("{MANIFEST_FILE}.tmp"));
    std::fs::write(&tmp, text + "\n").map_err(|e| ResultsError::io("cannot write", &tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| ResultsError::io("cannot write", &path, e))
}

/// Removes `<results_dir>/manifest.json` (none there is fine).
pub fn remove_manifest(results_dir: &Path) -> Result<(), ResultsError> {
    let path = results_dir.join(MANIFEST_FILE);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(ResultsError::io("cannot remove", &path, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_titles() {
        let e = |s: Option<&str>| ExperimentLayout { name: "x".into(), setting: s.map(String::from), values: vec![] };
        assert_eq!(e(Some("dt")).value_label(Some(0.005)), "dt = 0.005");
        assert_eq!(e(Some("n")).value_label(Some(2.0)), "N = 2");
        assert_eq!(e(Some("young")).value_label(Some(1e4)), "E = 1e4 Pa");
        assert_eq!(e(None).value_label(None), "base");
        assert!(e(Some("young")).log_error_axis() && !e(Some("dt")).log_error_axis());
        assert_eq!(SceneLayout { name: "gravity-ceiling".into(), parts: vec![] }.title(), "GravityCeiling");
    }

    #[test]
    fn summary_round_trips() {
        let layout = StudyLayout {
            name: "s".into(),
            description: String::new(),
            model: "xpbd".into(),
            parameters: vec![ParameterLayout {
                name: "alpha_d".into(),
                unit: "m/N".into(),
                scale: Scale::Log10,
                lower: 1e-12,
                upper: 1e2,
            }],
            reference: "linear static FEM".into(),
            precision: "f64".into(),
            mass_model: None,
            scenes: vec![SceneLayout { name: "gravity".into(), parts: vec!["gravity-floor".into()] }],
            experiments: vec![ExperimentLayout { name: "dt".into(), setting: Some("dt".into()), values: vec![0.01] }],
            base: BaseSettings { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None },
            poisson: vec![0.0, 0.3],
            grid: 21,
            min_step: 1e-4,
            search: None,
            neighbour_starts: false,
        };
        let summary = StudySummary {
            layout,
            pbdfit_version: "0.1.0".into(),
            run: RunCounts { fits: 2, computed: 2, resumed: 0, failed: 0, at_bound: 1, seconds: 1.5, threads: 2 },
            backend: "cpu".into(),
            files: vec!["gravity-dt.csv".into()],
        };
        let dir = std::env::temp_dir().join(format!("pbdfit-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_summary(&dir, &summary).unwrap();
        assert_eq!(read_summary(&dir).unwrap(), summary);
        std::fs::write(dir.join("summary.json"), "{}").unwrap();
        let e = read_summary(&dir).unwrap_err().to_string();
        assert!(e.contains("summary.json") && e.contains("not a pbdfit study summary"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
