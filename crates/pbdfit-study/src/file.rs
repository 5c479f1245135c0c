//! The study file (TOML) and its validation. Every error names the file and the entry.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pbdfit_mesh::{MassModel, ReferenceOptions, SceneSet, SheetScene};
use pbdfit_pbd::{ModelKind, Precision};
use pbdfit_results::{BaseSettings, ExperimentLayout, ParameterLayout, SceneLayout, StudyLayout};
use serde::Deserialize;

use pbdfit_fem::{ReferenceSpec, YoungPoisson};

use pbdfit_fit::{FitError, FitOptions, FitProblem, FitRequest, PartCache, Search, Settings};

/// The most values of nu a study's `[poisson]` range may give (the thesis's grid has 50).
pub const MAX_POISSON_VALUES: usize = 10_000;

/// The most fits a study may plan: scene sets x values of nu x experiment values (the thesis's study
/// plans about 1500; a million fits of a second each is eleven days).
pub const MAX_FITS: usize = 1_000_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    name: String,
    #[serde(default)]
    description: String,
    scenes: Vec<String>,
    /// One model (default `pbd`): a name, or `[model]` with `name` and `[model.settings]`...
    model: Option<ModelEntry>,
    /// ... or several: one study each, in `<results>/<model>/` ([`Study::all_from_file`]).
    models: Option<Vec<String>>,
    #[serde(default)]
    unbounded: bool,
    mass_model: Option<MassModel>,
    base: BaseDef,
    poisson: PoissonDef,
    #[serde(default)]
    fit: FitDef,
    /// Search box overrides: `name = [lower, upper]`.
    #[serde(default, rename = "box")]
    search_box: BoxDef,
    experiment: Vec<ExperimentDef>,
    /// The reference the fits match (over each scene's own `[reference]`).
    reference: Option<ReferenceOptions>,
    /// `f64` (default) or `f32`: the arithmetic of the model's rest states.
    precision: Option<String>,
    /// The motion pass after the fits (`study::motion`).
    motion: Option<super::motion::MotionDef>,
}

/// A study or table file's model: its name (`model = "xpbd"`, settings in brackets as results write
/// them: `"jolt[linear_damping=0]"`), or a table with the engine's settings under their own names:
///
/// ```toml
/// [model]
/// name = "newton-xpbd"
/// [model.settings]
/// relaxation = 0.8
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ModelEntry {
    /// A name.
    Name(String),
    /// A name and settings.
    Table(ModelTable),
}

/// `[model]` with `name` and `[model.settings]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelTable {
    /// The model's name.
    pub name: String,
    /// Settings by the engine's names.
    #[serde(default)]
    pub settings: std::collections::BTreeMap<String, f64>,
}

impl ModelEntry {
    /// The kind with its settings; on error, the file key to name (`model` or `model.settings`).
    pub fn kind(&self) -> Result<ModelKind, (&'static str, pbdfit_pbd::PbdError)> {
        match self {
            ModelEntry::Name(name) => name.parse().map_err(|e| ("model", e)),
            ModelEntry::Table(t) => {
                let kind: ModelKind = t.name.parse().map_err(|e| ("model.name", e))?;
                let pairs: Vec<(String, f64)> = t.settings.iter().map(|(k, v)| (k.clone(), *v)).collect();
                kind.with_settings(&pairs).map_err(|e| ("model.settings", e))
            }
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaseDef {
    dt: f64,
    n: i64,
    nit: i64,
    young: f64,
    /// A sheet study's thickness in m (default: each sheet scene's own).
    thickness: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoissonDef {
    from: f64,
    to: f64,
    step: f64,
}

/// The `[fit]` table of a study or table file: the grid's points per axis and the search's stopping
/// step (both optional; [`FitOptions::new`]'s defaults otherwise).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitDef {
    /// Grid points per axis (at least 2).
    pub grid: Option<usize>,
    /// Stopping step of the pattern search, in unit coordinates (> 0).
    pub min_step: Option<f64>,
    /// The search, `pattern` (the default of study files: the thesis's) or `gradient` (the default of
    /// table files).
    pub search: Option<String>,
    /// Whether each gradient fit also starts from its neighbour's (default false; needs the gradient
    /// search): see [`FitOptions::neighbour_starts`].
    pub neighbour_starts: Option<bool>,
}

/// The `[box]` table of a study or table file: `name = [lower, upper]` per parameter.
pub type BoxDef = BTreeMap<String, [f64; 2]>;

impl FitDef {
    /// The fit options for `kind`: its default search box with the bounds of `boxes` (entries naming
    /// none of `kind`'s parameters are skipped when `skip_foreign`, as in a file fitting several models,
    /// else refused), checked against `unbounded`, and this table's search (`default_search` when it names none), grid and stopping step. An error is
    /// `(entry, message)`, the entry named as in the file (`box.kd`, `box`, `fit.grid`, `fit.min_step`).
    pub fn options(
        &self,
        kind: ModelKind,
        boxes: &BoxDef,
        skip_foreign: bool,
        unbounded: bool,
        default_search: Search,
    ) -> Result<FitOptions, (String, String)> {
        let search = match &self.search {
            Some(search) => Some(Search::parse(search).map_err(|e| ("fit.search".to_string(), e.to_string()))?),
            None => None,
        };
        let request = FitRequest {
            bounds: boxes.iter().map(|(name, [lower, upper])| (name.clone(), *lower, *upper)).collect(),
            skip_foreign_bounds: skip_foreign,
            unbounded,
            search,
            grid: self.grid,
            min_step: self.min_step,
            neighbour_starts: self.neighbour_starts,
            ..FitRequest::new(kind)
        };
        request.options(default_search).map_err(|e| (e.option.file_key(), e.message))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentDef {
    name: String,
    parameter: Option<String>,
    #[serde(default)]
    values: Vec<f64>,
}

/// A study file's text; an error naming the file when it cannot be read.
pub(crate) fn read_study_file(path: &Path) -> Result<String, FitError> {
    std::fs::read_to_string(path).map_err(|e| FitError::StudyFile {
        origin: path.display().to_string(),
        entry: "file".into(),
        message: format!("cannot read: {e}"),
    })
}

/// The setting an experiment varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Setting {
    /// Time step (s).
    Dt,
    /// Mesh resolution.
    N,
    /// Solver iterations.
    Nit,
    /// Young's modulus (Pa).
    Young,
    /// A sheet's thickness h (m): sheet studies only.
    Thickness,
}

impl Setting {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "dt" => Self::Dt,
            "n" => Self::N,
            "nit" => Self::Nit,
            "young" => Self::Young,
            "thickness" => Self::Thickness,
            _ => return None,
        })
    }

    /// The name in study files and results (`dt`, `n`, `nit`, `young`, `thickness`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Dt => "dt",
            Self::N => "n",
            Self::Nit => "nit",
            Self::Young => "young",
            Self::Thickness => "thickness",
        }
    }

    /// Whether `v` is a valid value of this setting; `Err` says what is allowed (`"a time step > 0 s"`).
    /// The one rule for study files, table files and lookups.
    pub fn allows(self, v: f64) -> Result<(), &'static str> {
        let (ok, allowed) = match self {
            Setting::Dt => (v.is_finite() && v > 0.0, "a time step > 0 s"),
            // The caps are stated ("an integer iteration count >= 1" refused 2e6).
            Setting::N => (v >= 1.0 && v.fract() == 0.0 && v <= 1e6, "an integer mesh resolution from 1 to 1000000"),
            Setting::Nit => (v >= 1.0 && v.fract() == 0.0 && v <= 1e6, "an integer iteration count from 1 to 1000000"),
            Setting::Young => (v.is_finite() && v > 0.0, "a Young's modulus > 0 Pa"),
            Setting::Thickness => (v.is_finite() && v > 0.0, "a sheet thickness > 0 m"),
        };
        if ok { Ok(()) } else { Err(allowed) }
    }

    fn check(self, v: f64) -> Result<(), String> {
        self.allows(v).map_err(|allowed| format!("{v} is not {allowed}"))
    }
}

/// One experiment: a name and, unless it is a base case, the setting it varies and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// Name (CSV files are `<scene>-<name>.csv`).
    pub name: String,
    /// Varied setting and values; `None` for a base case.
    pub varies: Option<(Setting, Vec<f64>)>,
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
    /// A sheet's thickness (m); `None` for a solid, and in a sheet study's base for each scene's own
    /// (a fit's key always carries the thickness it runs at, [`crate::FitKey`]).
    pub thickness: Option<f64>,
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
    /// The scene sets fitted, in order (empty in a sheet study).
    pub scenes: Vec<SceneSet>,
    /// The sheet scenes fitted, in order, for a cloth model (empty in a study of solids): a study's scenes
    /// are all solids or all sheets.
    pub sheets: Vec<SheetScene>,
    /// Mass model override (`None`: each scene's own).
    pub mass_model: Option<MassModel>,
    /// Model kind.
    pub kind: ModelKind,
    /// Allow PBD stiffness above 1.
    pub unbounded: bool,
    /// The base configuration.
    pub base: Configuration,
    /// The Poisson ratios, ascending.
    pub poisson: Vec<f64>,
    /// The experiments in order.
    pub experiments: Vec<Experiment>,
    /// Fit controls, with the search box.
    pub fit: FitOptions,
    /// From a file with `models = [...]`: its results go to `<results>/<model>/`.
    pub model_folder: bool,
    /// The study's `[reference]` choices, validated (none: each scene's own reference, by default linear
    /// static).
    pub reference: ReferenceOptions,
    /// The arithmetic of the model's rest states (`precision = "f32"`: the reference library's).
    pub precision: Precision,
    /// The release test at every fit after the fits (`[motion]`; none: no motion pass).
    pub motion: Option<super::motion::MotionPass>,
}

impl Study {
    /// Where the study's masses (its `mass_model`, else a scene file's) differ from those of the engine its
    /// model reproduces: the warning, with the rest-state difference at the base configuration and the
    /// model's example point ([`mass_model_warning`](pbdfit_fit::mass_model_warning)).
    pub fn mass_warning(&self) -> Option<String> {
        let b = &self.base;
        self.scenes.iter().find_map(|set| {
            pbdfit_fit::mass_model_warning(
                set,
                pbdfit_fit::Settings::new(b.dt, b.n, b.nit, self.kind),
                None,
                self.mass_model,
                "the file's mass_model",
            )
        })
    }

    /// Reads and validates a study file. Every error names the file and the entry.
    pub fn from_file(path: &Path) -> Result<Self, FitError> {
        Self::parse(&read_study_file(path)?, &path.display().to_string())
    }

    /// Reads and validates a study file that may list several models (`models = [...]`): one study per
    /// model, in the file's order. A `[box]` entry applies to every listed model with that parameter and
    /// must name a parameter of at least one of them.
    pub fn all_from_file(path: &Path) -> Result<Vec<Self>, FitError> {
        Self::parse_all(&read_study_file(path)?, &path.display().to_string())
    }

    /// Parses and validates study TOML with one model; `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, FitError> {
        let mut all = Self::parse_all(text, origin)?;
        if all.len() != 1 {
            return Err(FitError::StudyFile {
                origin: origin.to_string(),
                entry: "models".into(),
                message: format!("lists {} models where one is expected (run it with `pbdfit study`)", all.len()),
            });
        }
        Ok(all.remove(0))
    }

    /// Parses and validates study TOML: one study per model.
    pub fn parse_all(text: &str, origin: &str) -> Result<Vec<Self>, FitError> {
        let bad = |entry: &str, message: String| FitError::StudyFile {
            origin: origin.to_string(),
            entry: entry.to_string(),
            message,
        };
        let file: StudyFile = toml::from_str(text).map_err(|e| bad("file", e.to_string().trim().to_string()))?;
        pbdfit_mesh::check_file_name(&file.name).map_err(|m| bad("name", m))?;
        let names = match (&file.model, &file.models) {
            (Some(_), Some(_)) => return Err(bad("models", "give either `model` or `models`, not both".into())),
            (None, Some(list)) if list.is_empty() => return Err(bad("models", "lists no model".into())),
            (None, Some(list)) => list.iter().map(|n| ModelEntry::Name(n.clone())).collect(),
            (Some(one), None) => vec![one.clone()],
            (None, None) => vec![ModelEntry::Name("pbd".into())],
        };
        let mut kinds: Vec<ModelKind> = Vec::new();
        for name in &names {
            let kind = name.kind().map_err(|(key, e)| bad(key, e.to_string()))?;
            if kinds.contains(&kind) {
                return Err(bad("models", format!("lists {kind} twice")));
            }
            // Each listed model's results go to `<results>/<model name>/`: one engine under two settings
            // would write both into one folder, and the second would be refused only after the first ran.
            if let Some(other) = kinds.iter().find(|k| k.name() == kind.name()) {
                return Err(bad(
                    "models",
                    format!(
                        "lists `{}` and `{}`, one model under two settings: both would write to <results>/{}/ \
                         (list one of them per study file)",
                        other.spec(),
                        kind.spec(),
                        kind.name()
                    ),
                ));
            }
            kinds.push(kind);
        }
        for name in file.search_box.keys() {
            if file.models.is_some() && !kinds.iter().any(|k| k.parameter(name).is_some()) {
                return Err(bad(&format!("box.{name}"), format!("none of the models has a parameter `{name}`")));
            }
        }
        kinds.iter().map(|&kind| Self::from_parts(&file, kind, origin)).collect()
    }

    fn from_parts(file: &StudyFile, kind: ModelKind, origin: &str) -> Result<Self, FitError> {
        let bad = |entry: &str, message: String| FitError::StudyFile {
            origin: origin.to_string(),
            entry: entry.to_string(),
            message,
        };
        if file.scenes.is_empty() {
            return Err(bad("scenes", "lists no scene".into()));
        }
        let mut scenes: Vec<SceneSet> = Vec::new();
        let mut sheets: Vec<SheetScene> = Vec::new();
        for s in &file.scenes {
            let entry = format!("scenes: `{s}`");
            if let Some(sheet) = load_sheet_scene(s, Path::new(origin)).map_err(|m| bad(&entry, m))? {
                // The model and the scene named before any fit runs (exit 2 from the command line).
                pbdfit_fit::check_cloth_model(kind, &sheet.name).map_err(|e| bad(&entry, e.to_string()))?;
                pbdfit_fit::check_fitted_parameters(kind).map_err(|e| bad(&entry, e.to_string()))?;
                if sheets.iter().any(|other| other.name == sheet.name) {
                    return Err(bad(
                        &entry,
                        format!("scene `{}` is listed twice (its name names the results files)", sheet.name),
                    ));
                }
                sheets.push(sheet);
                continue;
            }
            let set = SceneSet::load_from(s, std::path::Path::new(origin))
                .map_err(|e| bad(&format!("scenes: `{s}`"), e.to_string()))?;
            // A scene set's name names its CSV files: listed twice, it was computed twice into them.
            if scenes.iter().any(|other| other.name() == set.name()) {
                return Err(bad(
                    &format!("scenes: `{s}`"),
                    format!("scene `{}` is listed twice (its name names the results files)", set.name()),
                ));
            }
            pbdfit_fit::check_solid_model(kind, set.name()).map_err(|e| bad(&entry, e.to_string()))?;
            scenes.push(pbdfit_fit::with_resolved_masses(set, file.mass_model, Some(kind)));
        }
        if !sheets.is_empty() {
            if file.mass_model.is_some_and(|m| m != MassModel::Lumped) {
                return Err(bad(
                    "mass_model",
                    "a sheet's masses are lumped (a third of each triangle's to each of its vertices)".into(),
                ));
            }
            if file.motion.is_some() {
                return Err(bad(
                    "motion",
                    "the release pass after the fits takes solids only (run `pbdfit motion` on a sheet)".into(),
                ));
            }
        }
        let fit = file
            .fit
            .options(kind, &file.search_box, file.models.is_some(), file.unbounded, Search::default())
            .map_err(|(entry, message)| bad(&entry, message))?;
        let base_checks = [
            ("base.dt", Setting::Dt, file.base.dt),
            ("base.n", Setting::N, file.base.n as f64),
            ("base.nit", Setting::Nit, file.base.nit as f64),
            ("base.young", Setting::Young, file.base.young),
        ];
        for (entry, setting, v) in base_checks {
            setting.check(v).map_err(|m| bad(entry, m))?;
        }
        if let Some(h) = file.base.thickness {
            if sheets.is_empty() {
                return Err(bad(
                    "base.thickness",
                    "sets a sheet's thickness, and the study's scenes are solids".into(),
                ));
            }
            Setting::Thickness.check(h).map_err(|m| bad("base.thickness", m))?;
        }
        let base = Configuration {
            dt: file.base.dt,
            n: file.base.n as usize,
            nit: file.base.nit as usize,
            young: file.base.young,
            thickness: file.base.thickness,
        };
        let p = &file.poisson;
        if !(p.step.is_finite() && p.step > 0.0) {
            return Err(bad("poisson.step", format!("{} must be > 0", p.step)));
        }
        if p.step < 1e-10 {
            // The values are rounded to 1e-10 (below), so a finer step would repeat them.
            return Err(bad("poisson.step", format!("{} is below nu's resolution of 1e-10", p.step)));
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
        // Counted in f64 and bounded before anything is allocated: a tiny step asked for terabytes, and
        // 1e-300 overflowed the count to 0 (an empty study that exited 0).
        let count = ((p.to - p.from) / p.step + 1e-9).floor() + 1.0;
        if count.is_nan() || count > MAX_POISSON_VALUES as f64 {
            return Err(bad(
                "poisson.step",
                format!(
                    "{} from {} to {} gives {count:.3e} values of nu; at most {MAX_POISSON_VALUES} (a larger step)",
                    p.step, p.from, p.to
                ),
            ));
        }
        let count = count as usize;
        let poisson: Vec<f64> = (0..count).map(|i| ((p.from + i as f64 * p.step) * 1e10).round() / 1e10).collect();
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
                    let setting = Setting::parse(name).ok_or_else(|| {
                        bad(
                            &entry,
                            format!("unknown parameter `{name}`: expected dt, n, nit, young or thickness (sheets)"),
                        )
                    })?;
                    if e.values.is_empty() {
                        return Err(bad(&entry, "empty list of values".into()));
                    }
                    if setting == Setting::Thickness && sheets.is_empty() {
                        return Err(bad(
                            &entry,
                            "varies a sheet's thickness, and the study's scenes are solids".into(),
                        ));
                    }
                    for (i, v) in e.values.iter().enumerate() {
                        setting.check(*v).map_err(|m| bad(&entry, m))?;
                        // Each value writes its rows once; a repeated one wrote them twice.
                        if e.values[..i].contains(v) {
                            return Err(bad(&entry, format!("value {v} is listed twice")));
                        }
                    }
                    Some((setting, e.values.clone()))
                }
            };
            experiments.push(Experiment { name: e.name.clone(), varies });
        }
        // Every fit the study plans (before `--only`), bounded like nu's count; explicit value lists are
        // short, but their products are not.
        let values: usize = experiments.iter().map(|e| e.varies.as_ref().map_or(1, |(_, v)| v.len())).sum();
        let fits = ((scenes.len() + sheets.len()) as f64) * (poisson.len() as f64) * (values as f64);
        if fits > MAX_FITS as f64 {
            return Err(bad(
                "experiment",
                format!(
                    "{} scene sets x {} values of nu x {values} experiment values give {fits:.3e} fits; at most \
                     {MAX_FITS}",
                    scenes.len() + sheets.len(),
                    poisson.len()
                ),
            ));
        }
        let reference = ReferenceSpec::validate(&file.reference.clone().unwrap_or_default())
            .map_err(|e| bad("reference", e.to_string()))?;
        let precision = match file.precision.as_deref() {
            None => Precision::F64,
            Some(p) => Precision::parse(p).ok_or_else(|| bad("precision", format!("`{p}`: allowed f64, f32")))?,
        };
        let study = Self {
            name: file.name.clone(),
            description: file.description.clone(),
            origin: origin.to_string(),
            scenes,
            sheets,
            mass_model: file.mass_model,
            kind,
            unbounded: file.unbounded,
            base,
            poisson,
            experiments,
            fit,
            model_folder: file.models.is_some(),
            reference,
            precision,
            motion: file.motion.as_ref().map(|m| m.pass()).transpose().map_err(|(entry, m)| bad(&entry, m))?,
        };
        study.check_reference().map_err(|e| bad("reference", e.to_string()))?;
        study.check_motion().map_err(|(entry, m)| bad(&entry, m))?;
        Ok(study)
    }

    /// What is wrong with a finished results row for this study (`None`: nothing): a parameter outside the
    /// model's range or the study's search box, which no fit of the study gives (see
    /// [`super::store::finished_row`]). Resume leaves such a row out and fits it again.
    pub fn finished_row(&self, r: &pbdfit_results::FitRecord) -> Option<String> {
        super::store::finished_row(r, self.kind, self.unbounded, &self.fit.search_box)
    }

    /// Checks that the study's `[reference]` (over each scene's own) names a reference pbdfit-fem has,
    /// for every scene: the error names the scene and the field. A scene whose reference is measured
    /// markers is refused before any work ([`FitError::MeasuredScene`]): a study fits against the FEM.
    pub fn check_reference(&self) -> Result<(), FitError> {
        for sheet in &self.sheets {
            self.shell_reference(sheet)?;
        }
        for set in &self.scenes {
            pbdfit_fit::fits_against_fem(set)?;
            for scene in set.scenes() {
                pbdfit_fit::reference_spec(scene, &self.reference)?;
            }
        }
        Ok(())
    }

    /// Every mesh resolution the study uses (the base and any N experiment's values).
    pub fn base_and_experiment_resolutions(&self) -> Vec<usize> {
        let mut n = vec![self.base.n];
        for e in &self.experiments {
            if let Some((Setting::N, values)) = &e.varies {
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
    pub fn configuration(&self, varies: Option<(Setting, f64)>) -> Configuration {
        let mut c = self.base;
        match varies {
            Some((Setting::Dt, v)) => c.dt = v,
            Some((Setting::N, v)) => c.n = v as usize,
            Some((Setting::Nit, v)) => c.nit = v as usize,
            Some((Setting::Young, v)) => c.young = v,
            Some((Setting::Thickness, v)) => c.thickness = Some(v),
            None => {}
        }
        c
    }

    /// The settings of this study's fits at time step `dt` (s), resolution `n` and `nit` iterations.
    pub fn settings(&self, dt: f64, n: usize, nit: usize) -> Settings {
        Settings { dt, n, nit, kind: self.kind, allow_unbounded: self.unbounded }
    }

    /// The fit problem of scene set `set` at configuration `c` and Poisson ratio `nu`, its reference from
    /// `cache`, its rest states in the study's precision: what every fit of the study, and whatever
    /// evaluates a point of it (a table's leave-one-out), starts from.
    pub fn problem(
        &self,
        set: &SceneSet,
        c: &Configuration,
        nu: f64,
        cache: &PartCache,
    ) -> Result<FitProblem, FitError> {
        let material = YoungPoisson::new(c.young, nu)?;
        let problem = FitProblem::new(set, self.settings(c.dt, c.n, c.nit), material, cache)?;
        Ok(FitProblem { rest_options: self.precision.rest_options(), ..problem })
    }

    /// Whether the study fits sheets (a cloth model against the shell reference).
    pub fn is_sheet(&self) -> bool {
        !self.sheets.is_empty()
    }

    /// The names of the study's scenes (scene sets or sheets), in order: a fit key's `scene` indexes them.
    pub fn scene_names(&self) -> Vec<&str> {
        if self.is_sheet() {
            self.sheets.iter().map(|s| s.name.as_str()).collect()
        } else {
            self.scenes.iter().map(|s| s.name()).collect()
        }
    }

    /// The shell reference of `sheet` under the study's `[reference]` (over the scene's own; the
    /// corotational shell by default), as `pbdfit fit` reads it.
    pub fn shell_reference(&self, sheet: &SheetScene) -> Result<pbdfit_fit::ShellReference, FitError> {
        pbdfit_fit::ShellReference::of_job(&self.reference, sheet, pbdfit_fit::Spelling::Keyword)
            .map_err(|e| FitError::Internal(e.to_string()))
    }

    /// The configuration `c` with the sheet's thickness where it leaves it to the scene: what a sheet
    /// study's fit key records (solids: `c` as it is).
    pub fn resolved(&self, scene: usize, c: Configuration) -> Configuration {
        match (self.sheets.get(scene), c.thickness) {
            (Some(sheet), None) => Configuration { thickness: Some(sheet.thickness), ..c },
            _ => c,
        }
    }

    /// The fit problem of sheet `sheet` at configuration `c` (its thickness given) and Poisson ratio `nu`:
    /// the problem `pbdfit fit --scene <sheet> --thickness h --n N --dt dt --nit nit --young E --poisson nu`
    /// builds (`pbdfit_fit::load_sheet`, the shell reference, `sheet_problem_with_note`), in the study's
    /// precision.
    pub fn sheet_problem(&self, sheet: &SheetScene, c: &Configuration, nu: f64) -> Result<FitProblem, FitError> {
        let reference = self.shell_reference(sheet)?;
        let scene = sheet.clone().with_body(None, None, c.thickness).map_err(|e| FitError::Internal(e.to_string()))?;
        let body = scene.body(Some(c.n))?;
        let material = YoungPoisson::new(c.young, nu)?;
        let (problem, _) =
            pbdfit_fit::sheet_problem_with_note(&body, self.settings(c.dt, c.n, c.nit), material, reference)?;
        Ok(FitProblem { rest_options: self.precision.rest_options(), ..problem })
    }

    /// The study's layout as `summary.json` records it (`reference`: what the fits match).
    pub fn layout(&self, reference: &str) -> StudyLayout {
        let b = &self.fit.search_box;
        StudyLayout {
            name: self.name.clone(),
            description: self.description.clone(),
            model: self.kind.spec(),
            parameters: b
                .axes()
                .iter()
                .map(|a| ParameterLayout {
                    name: a.name.into(),
                    unit: a.unit.into(),
                    scale: match a.scale {
                        pbdfit_pbd::Scale::Linear => pbdfit_results::Scale::Linear,
                        pbdfit_pbd::Scale::Log10 => pbdfit_results::Scale::Log10,
                    },
                    lower: a.lower,
                    upper: a.upper,
                })
                .collect(),
            reference: reference.into(),
            precision: self.precision.name().into(),
            mass_model: self.mass_model.map(|m| m.name().to_string()),
            scenes: self
                .scenes
                .iter()
                .map(|s| SceneLayout {
                    name: s.name().into(),
                    parts: if s.is_compound() { s.scenes().iter().map(|p| p.name.clone()).collect() } else { vec![] },
                })
                .chain(self.sheets.iter().map(|s| SceneLayout { name: s.name.clone(), parts: vec![] }))
                .collect(),
            experiments: self
                .experiments
                .iter()
                .map(|e| ExperimentLayout {
                    name: e.name.clone(),
                    setting: e.varies.as_ref().map(|(s, _)| s.name().to_string()),
                    values: e.varies.as_ref().map(|(_, v)| v.clone()).unwrap_or_default(),
                })
                .collect(),
            base: BaseSettings {
                dt: self.base.dt,
                n: self.base.n,
                nit: self.base.nit,
                young: self.base.young,
                thickness: self.base.thickness,
            },
            poisson: self.poisson.clone(),
            grid: self.fit.resolution(),
            min_step: self.fit.min_step,
            search: (self.fit.search != pbdfit_fit::Search::Pattern).then(|| self.fit.search.name().to_string()),
            neighbour_starts: self.fit.neighbour_starts(),
        }
    }
}

/// The sheet scene `name_or_path` names (a built-in sheet, or a `[sheet]` scene file, relative to the
/// study file `definition` as a solid scene file is), or `None` where it names no sheet; `Err` where it
/// names a sheet that does not read.
fn load_sheet_scene(name_or_path: &str, definition: &Path) -> Result<Option<SheetScene>, String> {
    let path = match definition.parent() {
        Some(folder) if Path::new(name_or_path).is_relative() && !folder.as_os_str().is_empty() => {
            let joined = folder.join(name_or_path);
            if joined.exists() { joined.to_string_lossy().into_owned() } else { name_or_path.to_string() }
        }
        _ => name_or_path.to_string(),
    };
    if !SheetScene::names_sheet(&path) {
        return Ok(None);
    }
    SheetScene::load(&path).map(Some).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
name = "t"
scenes = ["gravity-floor"]
model = "xpbd"
[base]
dt = 0.01
n = 1
nit = 1
young = 1e3
[poisson]
from = 0.0
to = 0.2
step = 0.1
[box]
alpha_d = [1e-8, 1e-2]
[[experiment]]
name = "base"
"#;

    #[test]
    fn a_study_reads_its_reference_and_precision_and_refuses_bad_ones() {
        let text = MINIMAL
            .replace("model = \"xpbd\"", "model = \"pbd\"\nprecision = \"f32\"")
            .replace("[box]\nalpha_d = [1e-8, 1e-2]\n", "")
            + "[reference]\nmaterial = \"corotational\"\nsolve = \"dynamic\"\ntime = 2.0\nsplit = \"six\"\n";
        let s = Study::parse(&text, "t.toml").unwrap();
        assert_eq!(s.precision, Precision::F32);
        assert_eq!(s.layout("x").precision, "f32");
        let spec = pbdfit_fit::reference_spec(&s.scenes[0].scenes()[0], &s.reference).unwrap();
        assert_eq!(spec.id(), "corotational dynamic lumped t=2 split=six");
        let e = Study::parse(&text.replace("\"six\"", "\"seven\""), "t.toml").unwrap_err().to_string();
        assert!(e.contains("t.toml") && e.contains("reference") && e.contains("same, opposite, six"), "{e}");
        let e = Study::parse(&text.replace("\"f32\"", "\"f16\""), "t.toml").unwrap_err().to_string();
        assert!(e.contains("precision") && e.contains("f64, f32"), "{e}");
        let e =
            Study::parse(&text.replace("time = 2.0", "time = 2.0\nviscosity = 1"), "t.toml").unwrap_err().to_string();
        assert!(e.contains("viscosity"), "{e}");
    }

    #[test]
    fn a_study_reads_its_model_and_box() {
        let s = Study::parse(MINIMAL, "t.toml").unwrap();
        assert_eq!(s.kind, ModelKind::XPBD);
        assert_eq!((s.fit.search_box.axes()[0].lower, s.fit.search_box.axes()[0].upper), (1e-8, 1e-2));
        assert_eq!(s.poisson, vec![0.0, 0.1, 0.2]);
        let layout = s.layout("linear static FEM");
        assert_eq!(layout.parameters[1].name, "alpha_v");
        assert_eq!(layout.grid, 21);
    }

    /// Every listed model writes to `<results>/<model name>/`: one engine under two settings is refused when
    /// the file is read, naming both entries, before any fit runs (Jolt's damping, and Newton at its
    /// default settings beside a changed relaxation); two different engines each get their folder.
    #[test]
    fn one_engine_under_two_settings_is_refused_when_the_file_is_read() {
        let list = |models: &str| {
            MINIMAL
                .replace("model = \"xpbd\"", &format!("models = {models}"))
                .replace("[box]\nalpha_d = [1e-8, 1e-2]\n", "")
        };
        let e = Study::parse_all(&list(r#"["jolt[linear_damping=0.5]", "jolt[linear_damping=0.6]"]"#), "t.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.toml")
                && e.contains("jolt[linear_damping=0.5]")
                && e.contains("jolt[linear_damping=0.6]")
                && e.contains("<results>/jolt/"),
            "{e}"
        );
        let e = Study::parse_all(&list(r#"["newton-xpbd", "xpbd", "newton-xpbd[relaxation=0.3]"]"#), "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`newton-xpbd`") && e.contains("`newton-xpbd[relaxation=0.3]`"), "{e}");
        let studies =
            Study::parse_all(&list(r#"["jolt[linear_damping=0.5]", "newton-xpbd[relaxation=0.3]"]"#), "t.toml")
                .unwrap();
        let folders: Vec<&str> = studies.iter().map(|s| s.kind.name()).collect();
        assert_eq!(folders, ["jolt", "newton-xpbd"]);
    }

    #[test]
    fn bad_studies_name_the_entry_and_what_is_allowed() {
        let e = Study::parse(&MINIMAL.replace("\"xpbd\"", "\"pbx\""), "t.toml").unwrap_err().to_string();
        assert!(e.contains("t.toml") && e.contains("model") && e.contains("pbd, pbd-linearised"), "{e}");
        let e = Study::parse(&MINIMAL.replace("alpha_d = ", "kd = "), "t.toml").unwrap_err().to_string();
        assert!(e.contains("box.kd") && e.contains("alpha_d, alpha_v"), "{e}");
        let e = Study::parse(&MINIMAL.replace("[1e-8, 1e-2]", "[1e-2, 1e-8]"), "t.toml").unwrap_err().to_string();
        assert!(e.contains("box.alpha_d") && e.contains("below"), "{e}");
        let e = Study::parse(&MINIMAL.replace("[1e-8, 1e-2]", "[0, 1e-2]"), "t.toml").unwrap_err().to_string();
        assert!(e.contains("log10"), "{e}");
        let e = Study::parse(&MINIMAL.replace("n = 1\n", "n = 0\n"), "t.toml").unwrap_err().to_string();
        assert!(e.contains("base.n"), "{e}");
    }
}
