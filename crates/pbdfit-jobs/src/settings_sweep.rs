//! The settings question: for a material and a body, the cheapest engine settings (time step and
//! iterations or substeps) at which a model can reach the reference within a target error, and where it
//! cannot at all. One fit per setting, cheapest first; the answer is the first setting whose fit meets the
//! target, and every setting's fit is reported (the feasibility figure). On a sheet scene a cloth model
//! (`jolt-cloth` among them) is fitted to the sheet's shell reference, as `fit` does.

use clap::builder::TypedValueParser;
use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{ModelKind, RestStateBackend};

use pbdfit_fit::{FitError, FitJobError, FitOptions, FitProblem, PartCache, Settings, Spelling, fit};
use pbdfit_mesh::display::{number, scientific};

/// One setting's fit.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingFit {
    /// Time step (s).
    pub dt: f64,
    /// Iterations or substeps per step (the model's `nit`).
    pub nit: usize,
    /// Cost: `nit` per simulated second, `nit / dt` (solver passes per second for Newton, substeps per
    /// second for Jolt and Genesis).
    pub cost: f64,
    /// The fit's error (infinite when no grid point had a rest state).
    pub error: f64,
    /// The fitted parameters, by name.
    pub parameters: Vec<(&'static str, f64)>,
    /// Parameters at the edge of the search box.
    pub at_bound: Vec<String>,
    /// Why the fit failed, when it did.
    pub failed: Option<String>,
}

/// Most settings one sweep fits: each is a whole fit (seconds to minutes), so a grid beyond this would
/// run for days (the default grid is 4 x 6 = 24).
pub const MAX_SETTINGS: usize = 256;

/// Largest `nit` a sweep tries (iterations or substeps per step).
pub const MAX_NIT: usize = 10_000;

/// A grid of settings refused: the option (`dt`, `nit`, or both for the grid's size) and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{option} {message}")]
pub struct GridError {
    /// `dt`, `nit`, or `dt x nit`.
    pub option: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// Whether dt and nit move `kind`'s rest state: not for the mass-spring laws and
/// `pybullet-neohookean`, whose rest state is a Newton equilibrium of forces (`ModelRule::Springs`).
pub fn settings_matter(kind: ModelKind) -> bool {
    kind.has_projection()
}

/// The settings a sweep fits, in order of cost ([`by_cost`]), checked: every dt a finite number > 0,
/// every nit in 1 to [`MAX_NIT`], no value given twice, at most [`MAX_SETTINGS`] pairs. For a model whose
/// rest state ignores dt and nit ([`settings_matter`]) the one setting `(dts[0], nits[0])`: every other
/// would repeat its fit.
pub fn grid(dts: &[f64], nits: &[usize], kind: ModelKind) -> Result<Vec<(f64, usize)>, GridError> {
    let error = |option, message: String| Err(GridError { option, message });
    if dts.is_empty() || nits.is_empty() {
        return error(if dts.is_empty() { "dt" } else { "nit" }, "needs at least one value".into());
    }
    for (i, &dt) in dts.iter().enumerate() {
        if !(dt.is_finite() && dt > 0.0) {
            return error("dt", format!("{dt}: a time step must be a finite number > 0 s"));
        }
        if dts[..i].iter().any(|d| d.to_bits() == dt.to_bits()) {
            return error(
                "dt",
                format!("{} is given twice; give each time step once", pbdfit_mesh::display::number(dt)),
            );
        }
    }
    for (i, &nit) in nits.iter().enumerate() {
        if !(1..=MAX_NIT).contains(&nit) {
            return error("nit", format!("{nit}: must be in 1 to {MAX_NIT}"));
        }
        if nits[..i].contains(&nit) {
            return error("nit", format!("{nit} is given twice; give each value once"));
        }
    }
    if !settings_matter(kind) {
        return Ok(vec![(dts[0], nits[0])]);
    }
    let count = dts.len().saturating_mul(nits.len());
    if count > MAX_SETTINGS {
        return error(
            "dt x nit",
            format!(
                "{} x {} = {count} settings, each a whole fit: at most {MAX_SETTINGS}; give fewer values",
                dts.len(),
                nits.len()
            ),
        );
    }
    Ok(by_cost(dts, nits))
}

/// The settings in order of cost (then dt descending, so a tie goes to the larger step).
pub fn by_cost(dts: &[f64], nits: &[usize]) -> Vec<(f64, usize)> {
    let mut out: Vec<(f64, usize)> = dts.iter().flat_map(|&dt| nits.iter().map(move |&nit| (dt, nit))).collect();
    out.sort_by(|a, b| (a.1 as f64 / a.0).total_cmp(&(b.1 as f64 / b.0)).then(b.0.total_cmp(&a.0)));
    out
}

/// A sweep with every setting's problem built ([`Self::plan`]): what can be refused (the reference's
/// options, a time step the rest states cannot resolve, engine settings that remove the load) has been,
/// before any fit runs or anything is printed.
#[derive(Debug)]
pub struct PlannedSweep {
    problems: Vec<(f64, usize, FitProblem)>,
}

impl PlannedSweep {
    /// The number of fits the sweep makes.
    pub fn len(&self) -> usize {
        self.problems.len()
    }

    /// Whether the sweep makes no fit.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// Builds the problem of `kind` against `material` on `set` at resolution `n` for every setting of
    /// `settings` (in the order given: [`grid`] for the cheapest first).
    pub fn plan(
        set: &SceneSet,
        n: usize,
        kind: ModelKind,
        material: YoungPoisson,
        cache: &PartCache,
        settings: &[(f64, usize)],
    ) -> Result<Self, FitError> {
        let problems = settings
            .iter()
            .map(|&(dt, nit)| Ok((dt, nit, FitProblem::new(set, Settings::new(dt, n, nit, kind), material, cache)?)))
            .collect::<Result<Vec<_>, FitError>>()?;
        Ok(Self { problems })
    }

    /// A sheet's sweep: the cloth model `kind` against the sheet's shell reference for `material` at every
    /// setting of `settings`, the shell solved once ([`pbdfit_fit::sheet_problem_with_note`]: the vertices the
    /// particles hold beyond the shell's supports count in the error), with that problem's note on a clamp
    /// made with particles (`None` without one).
    pub fn plan_sheet(
        body: &pbdfit_mesh::SheetBody,
        kind: ModelKind,
        material: YoungPoisson,
        reference: pbdfit_fit::ShellReference,
        settings: &[(f64, usize)],
    ) -> Result<(Self, Option<String>), FitError> {
        let Some(&(dt, nit)) = settings.first() else { return Ok((Self { problems: Vec::new() }, None)) };
        let (first, note) =
            pbdfit_fit::sheet_problem_with_note(body, Settings::new(dt, body.n, nit, kind), material, reference)?;
        let problems = settings
            .iter()
            .map(|&(dt, nit)| {
                let settings = Settings::new(dt, body.n, nit, kind);
                settings.check_step(&first.parts[0].system)?;
                Ok((dt, nit, FitProblem { settings, ..first.clone() }))
            })
            .collect::<Result<Vec<_>, FitError>>()?;
        Ok((Self { problems }, note))
    }

    /// Fits every setting in turn, calling `progress` after each. A fit that fails is a row with its
    /// reason, never the end of the sweep.
    pub fn run(
        &self,
        options: &FitOptions,
        backend: &dyn RestStateBackend,
        mut progress: impl FnMut(&SettingFit),
    ) -> Vec<SettingFit> {
        let mut rows = Vec::new();
        for (dt, nit, problem) in &self.problems {
            let (dt, nit) = (*dt, *nit);
            let row = match fit(problem, options, backend) {
                Ok(r) => SettingFit {
                    dt,
                    nit,
                    cost: nit as f64 / dt,
                    error: r.error,
                    parameters: r.parameters.clone(),
                    at_bound: r.at_bound.iter().map(|s| s.to_string()).collect(),
                    failed: (!r.error.is_finite()).then(|| r.failure_summary()),
                },
                Err(e) => SettingFit {
                    dt,
                    nit,
                    cost: nit as f64 / dt,
                    error: f64::INFINITY,
                    parameters: Vec::new(),
                    at_bound: Vec::new(),
                    failed: Some(e.to_string()),
                },
            };
            progress(&row);
            rows.push(row);
        }
        rows
    }
}

/// Fits `kind` to `material` on `set` at resolution `n` at every setting of `settings` (in the order
/// given: [`by_cost`] for the cheapest first), calling `progress` after each: [`PlannedSweep::plan`]
/// then [`PlannedSweep::run`].
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    set: &SceneSet,
    n: usize,
    kind: ModelKind,
    material: YoungPoisson,
    cache: &PartCache,
    options: &FitOptions,
    backend: &dyn RestStateBackend,
    settings: &[(f64, usize)],
    progress: impl FnMut(&SettingFit),
) -> Result<Vec<SettingFit>, FitError> {
    Ok(PlannedSweep::plan(set, n, kind, material, cache, settings)?.run(options, backend, progress))
}

/// A target error given as a root-mean-square relative displacement error in per cent (`5` or `5%`:
/// each moved vertex off by 5 % of its displacement on average in the squares), as the mean squared
/// relative error the fits minimise: `(pct / 100)^2`. An RMS of 100 % or more is what a body that does
/// not deform reaches, so no target: refused, as is anything not a finite number > 0.
pub fn target_from_rms_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    let pct: f64 = number.parse().map_err(|_| format!("`{text}`: not a number (a percentage such as 5%)"))?;
    if !(pct.is_finite() && pct > 0.0 && pct < 100.0) {
        return Err(format!(
            "`{text}`: the RMS relative error must be a percentage in (0, 100) (100 % is what a body that does not \
             deform scores)"
        ));
    }
    Ok((pct / 100.0) * (pct / 100.0))
}

/// The RMS relative displacement error in per cent of a mean squared relative error: `100 sqrt(e)`.
pub fn rms_percent(mean_squared: f64) -> f64 {
    100.0 * mean_squared.sqrt()
}

/// The first row whose error is at most `target`, in the rows' order.
pub fn cheapest(rows: &[SettingFit], target: f64) -> Option<&SettingFit> {
    rows.iter().find(|r| r.error <= target)
}

/// The model a sweep fits where a job does not say: the engine whose settings it was made for.
pub const SETTINGS_MODEL: &str = "jolt";
/// The time steps a sweep tries where a job does not say (s).
pub const SETTINGS_DTS: &str = "1/30,1/60,1/120,1/240";
/// The iterations or substeps a sweep tries where a job does not say.
pub const SETTINGS_NITS: &str = "1,2,4,8,16,32";
/// The default target: a mean squared relative error of 0.05.
pub const DEFAULT_TARGET: f64 = 0.05;

/// The settings job's keywords (`pbdfit settings`, `pbdfit.settings`): the body, the FEM's material and
/// reference, the model with its engine settings, the target and the settings to try.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct SettingsKeywords {
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`, `thickness`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// The FEM's material: `young`, `poisson`.
    #[serde(flatten)]
    #[command(flatten)]
    pub material: pbdfit_fit::Material,
    /// Model kind: a textbook model or an engine profile (the list below).
    #[arg(long, default_value = SETTINGS_MODEL, value_parser = clap::builder::EnumValueParser::<ModelKind>::new().map(|k| k.name().to_string()))]
    pub model: String,
    /// An engine profile's setting, `NAME=VALUE` (repeatable), as for `pbdfit fit`.
    #[arg(long = "setting", value_name = "NAME=VALUE", value_parser = pbdfit_fit::parse_setting)]
    #[serde(serialize_with = "pbdfit_fit::ordered_map", deserialize_with = "pbdfit_fit::sorted_pairs")]
    pub settings: Vec<(String, pbdfit_fit::SettingValue)>,
    /// The error the fit must reach, as the mean squared relative displacement error the fits minimise
    /// (0.05 is an RMS relative error of 22.4 %, not 5 %). Give --target-rms for a percentage.
    #[arg(long, conflicts_with = "target_rms")]
    pub target: Option<f64>,
    /// The error the fit must reach as a root-mean-square relative displacement error in per cent (`5%` or
    /// `5`: a mean squared error of 0.0025). Default: --target 0.05 (22.4 % RMS).
    #[arg(long, value_name = "PERCENT")]
    pub target_rms: Option<String>,
    /// Time steps to try, comma-separated, as decimals or fractions.
    #[arg(long, default_value = SETTINGS_DTS)]
    pub dt: String,
    /// Iterations (Newton) or substeps (Jolt, Genesis) to try, comma-separated.
    #[arg(long, default_value = SETTINGS_NITS)]
    pub nit: String,
    /// The FEM reference's options.
    #[serde(flatten)]
    #[command(flatten)]
    pub reference: pbdfit_mesh::ReferenceOptions,
}

impl Default for SettingsKeywords {
    fn default() -> Self {
        SettingsKeywords {
            body: Default::default(),
            material: Default::default(),
            model: SETTINGS_MODEL.to_string(),
            settings: Vec::new(),
            target: None,
            target_rms: None,
            dt: SETTINGS_DTS.to_string(),
            nit: SETTINGS_NITS.to_string(),
            reference: Default::default(),
        }
    }
}

/// A sweep checked, every setting's problem built: the notes and warnings for the user, the plan.
#[derive(Debug)]
pub struct PreparedSettings {
    /// Notes about the scene's imported meshes.
    pub notes: Vec<String>,
    /// Warnings (masses other than the engine's).
    pub warnings: Vec<String>,
    setup: SweepSetup,
    options: FitOptions,
    plan: PlannedSweep,
}

/// What a sweep's report states besides its rows.
#[derive(Debug, Clone)]
struct SweepSetup {
    scene: String,
    body: Vec<pbdfit_mesh::BodySummary>,
    body_line: String,
    n: usize,
    masses: &'static str,
    kind: ModelKind,
    material: YoungPoisson,
    target: f64,
}

/// The settings job's answer: every setting's fit, the cheapest that reaches the target and the best.
#[derive(Debug, Clone)]
pub struct SettingsReport {
    setup: SweepSetup,
    /// Every setting's fit, cheapest first.
    pub rows: Vec<SettingFit>,
}

fn list<T>(option: String, text: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, FitJobError> {
    text.split(',')
        .map(|item| {
            parse(item.trim()).ok_or_else(|| FitJobError::Input(format!("{option} `{item}`: not a valid value")))
        })
        .collect()
}

impl crate::Job for SettingsKeywords {
    const NAME: &'static str = "settings";
    const ABOUT: &'static str = "The cheapest engine settings (dt, iterations or substeps) at which a model reaches \
        a material's FEM within a target error, and where it cannot at all: one fit per setting, cheapest first";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--dt", "1/30", "--nit", "1,2"];
    type Prepared = PreparedSettings;
    type Report = SettingsReport;

    /// Every keyword and every setting's problem is checked before anything runs.
    fn prepare(&self, spelling: Spelling) -> Result<PreparedSettings, FitJobError> {
        let input = FitJobError::Input;
        let model = pbdfit_fit::Model { model: self.model.clone(), settings: self.settings.clone(), nit: 1 };
        let kind = model.kind(spelling)?;
        let dts = list(spelling.name("dt"), &self.dt, |s| pbdfit_table::axes::parse_number(s).ok())?;
        let nits = list(spelling.name("nit"), &self.nit, |s| s.parse::<usize>().ok())?;
        let grid = grid(&dts, &nits, kind).map_err(|e| input(format!("{} {}", spelling.name(e.option), e.message)))?;
        let target = match (&self.target, &self.target_rms) {
            (_, Some(rms)) => {
                target_from_rms_percent(rms).map_err(|e| input(format!("{} {e}", spelling.name("target_rms"))))?
            }
            (Some(t), None) => {
                if !(t.is_finite() && *t > 0.0 && *t < 1.0) {
                    return Err(input(format!(
                        "{} {t}: the mean squared relative error must be a number in (0, 1) (1 is what a body that \
                         does not deform scores; {} takes a percentage)",
                        spelling.name("target"),
                        spelling.name("target_rms")
                    )));
                }
                *t
            }
            (None, None) => DEFAULT_TARGET,
        };
        let material = self.material.checked()?;
        let (set, notes) = match self.body.load_any(Some(kind), self.material, spelling)? {
            pbdfit_fit::LoadedBody::Sheet(sheet) => return self.prepare_sheet(*sheet, kind, grid, target, spelling),
            pbdfit_fit::LoadedBody::Solid { set, notes } => (set, notes),
        };
        // Refused before the table's header: every fit of the sweep is against the FEM.
        pbdfit_fit::fits_against_fem(&set).map_err(FitJobError::Fit)?;
        let n = self.body.resolution(&set, spelling)?;
        // Masses a scene file gives, other than the engine's: at the first setting, the model's example point.
        let warnings = pbdfit_fit::mass_model_warning(
            &set,
            Settings::new(dts[0], n, nits[0], kind),
            None,
            self.body.mass_model().map_err(input)?,
            &spelling.name("mass_model"),
        );
        let masses = set.scenes()[0].mass_model().name();
        let options = sweep_options(kind)?;
        let cache = PartCache::new(pbdfit_fit::checked_reference(&self.reference)?);
        // Every setting's problem (the reference's options, the time step, the engine's load) before the header.
        let plan = PlannedSweep::plan(&set, n, kind, material, &cache, &grid).map_err(FitJobError::Fit)?;
        let setup = SweepSetup {
            scene: set.name().to_string(),
            body: set.bodies(),
            body_line: set.body_line(),
            n,
            masses,
            kind,
            material,
            target,
        };
        Ok(PreparedSettings { notes, warnings: warnings.into_iter().collect(), setup, options, plan })
    }

    fn run(prepared: PreparedSettings, context: &mut crate::Context<'_>) -> Result<SettingsReport, FitJobError> {
        let total = prepared.plan.len();
        let mut done = 0;
        let rows = prepared.plan.run(&prepared.options, context.backend, |row| {
            done += 1;
            (context.lines)(&format!(
                "settings: fit {done} of {total}: dt {} s, nit {}: error {}",
                number(row.dt),
                row.nit,
                describe_error(row.error)
            ))
        });
        Ok(SettingsReport { setup: prepared.setup, rows })
    }
}

/// Each setting's fit options: the gradient search over `kind`'s default box, as `fit` runs it.
fn sweep_options(kind: ModelKind) -> Result<FitOptions, FitJobError> {
    pbdfit_fit::FitRequest { search: Some(pbdfit_fit::Search::Gradient), ..pbdfit_fit::FitRequest::new(kind) }
        .options(pbdfit_fit::Search::FIT_DEFAULT)
        .map_err(|e| FitJobError::Input(e.message))
}

impl SettingsKeywords {
    /// [`prepare`](crate::Job::prepare) on a sheet scene: a cloth model against the sheet's shell reference
    /// (its material the job's over the sheet's own) at every setting; a solid's model refused naming it.
    fn prepare_sheet(
        &self,
        sheet: pbdfit_fit::LoadedSheet,
        kind: ModelKind,
        grid: Vec<(f64, usize)>,
        target: f64,
        spelling: Spelling,
    ) -> Result<PreparedSettings, FitJobError> {
        let pbdfit_fit::LoadedSheet { scene, body, material } = sheet;
        pbdfit_fit::check_cloth_model(kind, &scene.name)?;
        pbdfit_fit::check_fitted_parameters(kind)?;
        let reference = pbdfit_fit::ShellReference::of_job(&self.reference, &scene, spelling)?;
        let options = sweep_options(kind)?;
        let (plan, clamp) =
            PlannedSweep::plan_sheet(&body, kind, material, reference, &grid).map_err(FitJobError::Fit)?;
        let summary = scene.summary();
        let setup = SweepSetup {
            scene: scene.name.clone(),
            body_line: pbdfit_mesh::BodySummary::line(std::slice::from_ref(&summary)),
            body: vec![summary],
            n: body.n,
            // The engine's masses on a sheet (`genesis-cloth`'s uniform ones), as `fit` reports them.
            masses: kind.sheet_masses().name(),
            kind,
            material,
            target,
        };
        Ok(PreparedSettings { notes: Vec::new(), warnings: clamp.into_iter().collect(), setup, options, plan })
    }
}

/// `0.05 (mean squared relative error; 22.4 % RMS)`.
fn describe_target(target: f64) -> String {
    format!("{} (mean squared relative error; {:.3} % RMS)", number(target), rms_percent(target))
}

/// `6.4e5 (80000 % RMS)` for a row's error, `-` where the fit found no rest state.
fn describe_error(error: f64) -> String {
    if error.is_finite() { format!("{} ({} % RMS)", scientific(error), number(rms_percent(error))) } else { "-".into() }
}

impl SettingsReport {
    /// Whether dt and nit move the model's rest state.
    fn matter(&self) -> bool {
        settings_matter(self.setup.kind)
    }

    /// The cheapest row that reaches the target (none where the settings do not matter).
    pub fn cheapest(&self) -> Option<&SettingFit> {
        if self.matter() { cheapest(&self.rows, self.setup.target) } else { None }
    }

    /// The row with the lowest error.
    pub fn best(&self) -> Option<&SettingFit> {
        self.rows.iter().filter(|r| r.error.is_finite()).min_by(|a, b| a.error.total_cmp(&b.error))
    }
}

impl serde::Serialize for SettingsReport {
    /// One object, its keys sorted (as `--json` has always printed it).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde_json::json;
        let row = |r: &SettingFit| {
            json!({
                "dt": r.dt, "nit": r.nit, "cost": r.cost,
                "error": r.error.is_finite().then_some(r.error),
                "rms_percent": r.error.is_finite().then(|| rms_percent(r.error)),
                "parameters": r.parameters.iter().map(|(n, v)| (n.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "at_bound": r.at_bound, "failed": r.failed,
            })
        };
        let s = &self.setup;
        json!({
            "scene": s.scene, "body": s.body, "n": s.n, "mass_model": s.masses, "model": s.kind.spec(),
            "young": s.material.young(), "poisson": s.material.poisson(), "target": s.target,
            "target_rms_percent": rms_percent(s.target), "nit_means": s.kind.nit_means(), "settings_matter": self.matter(),
            "rows": self.rows.iter().map(row).collect::<Vec<_>>(),
            "cheapest": self.cheapest().map(row),
            "best": self.best().map(row),
            "pbdfit_version": env!("CARGO_PKG_VERSION"),
        })
        .serialize(serializer)
    }
}

impl crate::Report for SettingsReport {
    fn text(&self) -> String {
        let (s, matter) = (&self.setup, self.matter());
        let kind = s.kind;
        let mut out = format!("{}\n", s.body_line);
        out += &format!(
            "scene {} (N = {}, {} masses), model {}, E = {} Pa, nu = {}; target error {}; nit = {}\n",
            s.scene,
            s.n,
            s.masses,
            kind.spec(),
            scientific(s.material.young()),
            number(s.material.poisson()),
            describe_target(s.target),
            kind.nit_means()
        );
        if !matter {
            out += &format!(
                "  dt and nit do not move model {}'s rest state (a Newton equilibrium of its forces): one fit, no grid\n",
                kind.name()
            );
        }
        out += &format!("  {:>10} {:>5} {:>12} {:>26}  parameters\n", "dt (s)", "nit", "nit/s", "error");
        for r in &self.rows {
            let parameters: Vec<String> = r.parameters.iter().map(|(n, v)| format!("{n} = {v:.4e}")).collect();
            let mut note = String::new();
            if !r.at_bound.is_empty() {
                note = format!("  (at the box's edge: {})", r.at_bound.join(", "));
            }
            if let Some(why) = &r.failed {
                note = format!("  no rest state: {why}");
            }
            let (dt, nit, cost) = if matter {
                (number(r.dt), r.nit.to_string(), number(r.cost))
            } else {
                ("any".into(), "any".into(), "-".into())
            };
            out += &format!(
                "  {dt:>10} {nit:>5} {cost:>12} {:>26}  {}{note}\n",
                describe_error(r.error),
                parameters.join(", ")
            );
        }
        let (target, best) = (describe_target(s.target), self.best());
        let last = if !matter {
            match best {
                Some(b) if b.error <= s.target => format!(
                    "model {} reaches {target} with error {} at any dt and nit",
                    kind.name(),
                    describe_error(b.error)
                ),
                Some(b) => format!(
                    "model {} does not reach {target}: its error is {} at any dt and nit (another model may)",
                    kind.name(),
                    describe_error(b.error)
                ),
                None => format!("model {} has no rest state at any parameter of the box", kind.name()),
            }
        } else {
            match (self.cheapest(), best) {
                (Some(r), _) => format!(
                    "cheapest setting that reaches {target}: dt = {} s, nit = {} ({} per simulated second), error {}",
                    number(r.dt),
                    r.nit,
                    number(r.cost),
                    describe_error(r.error)
                ),
                (None, Some(b)) => format!(
                    "no setting tried reaches {target}: the lowest error is {} at dt = {} s, nit = {}; the model cannot \
                     match this body's FEM closer at these settings (a finer time step or more iterations, or another \
                     model, may)",
                    describe_error(b.error),
                    number(b.dt),
                    b.nit
                ),
                (None, None) => "no setting tried has a rest state at any parameter of the box".to_string(),
            }
        };
        out + &last + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_checked_bounded_and_once_per_setting() {
        let jolt = ModelKind::JOLT;
        assert_eq!(
            grid(&[0.02, 0.01], &[2, 1], jolt).unwrap(),
            [(0.02, 1), (0.02, 2), (0.01, 1), (0.01, 2)],
            "by cost, a tie to the larger step"
        );
        let e = grid(&[0.01, 0.01], &[1], jolt).unwrap_err();
        assert_eq!((e.option, e.message.as_str()), ("dt", "0.01 is given twice; give each time step once"));
        assert_eq!(grid(&[0.01], &[4, 4], jolt).unwrap_err().option, "nit");
        assert_eq!(grid(&[f64::NAN], &[1], jolt).unwrap_err().option, "dt");
        assert_eq!(grid(&[0.01], &[0], jolt).unwrap_err().option, "nit");
        assert_eq!(grid(&[0.01], &[MAX_NIT + 1], jolt).unwrap_err().option, "nit");
        let dts: Vec<f64> = (0..3000).map(|i| 0.001 + i as f64 * 1e-5).collect();
        let nits: Vec<usize> = (1..=300).collect();
        let e = grid(&dts, &nits, jolt).unwrap_err();
        assert!(e.option == "dt x nit" && e.message.contains("900000 settings") && e.message.contains("256"), "{e}");
        assert_eq!(grid(&dts[..16], &nits[..16], jolt).unwrap().len(), MAX_SETTINGS);
        // A model whose rest state ignores dt and nit: one setting, whatever the lists.
        for springs in [ModelKind::MASS_SPRING, ModelKind::PYBULLET_NEOHOOKEAN] {
            assert!(!settings_matter(springs));
            assert_eq!(grid(&[0.02, 0.01], &[1, 2, 4], springs).unwrap(), [(0.02, 1)]);
        }
    }

    #[test]
    fn the_target_reads_as_an_rms_percentage() {
        assert_eq!(target_from_rms_percent("5%").unwrap(), 0.05 * 0.05);
        assert_eq!(target_from_rms_percent(" 10 ").unwrap(), 0.1 * 0.1);
        for bad in ["100%", "0", "-5%", "nan", "five", "inf"] {
            assert!(target_from_rms_percent(bad).is_err(), "{bad}");
        }
        // The default 0.05 is 22.4 % RMS, not 5 %.
        assert!((rms_percent(0.05) - 22.360679774997898).abs() < 1e-12);
    }
}
