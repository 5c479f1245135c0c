//! One evaluation job: the error a fit minimises at given parameters (`pbdfit evaluate`, Python's
//! `pbdfit.evaluate`), what a lookup's or any other choice of parameters is worth for a material and a
//! setting.

use pbdfit_fit::{FitJobError, FitProblem, PartCache, Settings, Spelling};
use serde::Serialize;

/// An evaluation as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct EvaluateKeywords {
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// The FEM reference's `young` and `poisson`.
    #[serde(flatten)]
    #[command(flatten)]
    pub elastic: pbdfit_fit::Material,
    /// The FEM reference's options (`material`, `dynamic`, `time`, `fem_mass`, `rayleigh`, `split`; unset:
    /// the scene's), as `fit` takes them, so a fit's error is scored against the same reference.
    #[serde(flatten)]
    #[command(flatten)]
    pub reference: pbdfit_mesh::ReferenceOptions,
    /// The time step `dt`.
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    /// The model: `model`, `settings`, `nit`.
    #[serde(flatten)]
    #[command(flatten)]
    pub model: pbdfit_fit::Model,
    /// Every parameter of the model by name (repeatable), e.g. `--param kd=0.4 --param kv=0.5`.
    #[arg(long = "param", value_parser = pbdfit_fit::parse_named_value)]
    #[serde(serialize_with = "pbdfit_fit::ordered_map", deserialize_with = "pbdfit_fit::sorted_pairs")]
    pub parameters: Vec<(String, f64)>,
}

/// The error at the parameters: `pbdfit evaluate --json`'s object and Python's dict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluateReport {
    /// The error (compound: the norm of the parts').
    pub error: f64,
    /// Each part's error, in the parts' order (a JSON object in that order).
    #[serde(serialize_with = "pbdfit_fit::ordered_map")]
    pub scene_errors: Vec<(String, f64)>,
    /// Each part's body: its size, density and mass.
    pub body: Vec<pbdfit_mesh::BodySummary>,
}

impl crate::Job for EvaluateKeywords {
    const NAME: &'static str = "evaluate";
    const ABOUT: &'static str = "The error a fit minimises at given parameters: what a lookup's or any choice of \
        parameters is worth";
    const EXAMPLE: &'static [&'static str] =
        &["--scene", "gravity-wall", "--n", "1", "--young", "2e3", "--param", "kd=0.3", "--param", "kv=0.5"];
    const POSITIONAL: &'static [&'static str] = &["young", "poisson", "parameters"];
    type Prepared = (FitProblem, Vec<f64>, Vec<pbdfit_mesh::BodySummary>);
    type Report = EvaluateReport;

    fn prepare(&self, spelling: Spelling) -> Result<Self::Prepared, FitJobError> {
        let input = FitJobError::Input;
        let kind = self.model.kind(spelling)?;
        let option = match spelling {
            Spelling::Flag => "--param",
            Spelling::Keyword => "parameters",
        };
        let given = pbdfit_fit::unique_pairs(option, &self.parameters)?;
        let needs = |name: &str| input(format!("{option}: model {kind} needs {name} ({})", kind.parameter_names()));
        let values: Vec<f64> = kind
            .parameters()
            .iter()
            .map(|p| given.get(p.name).copied().ok_or_else(|| needs(p.name)))
            .collect::<Result<_, _>>()?;
        if let Some(extra) = given.keys().find(|k| kind.parameter(k).is_none()) {
            return Err(input(format!(
                "{option}: model {kind} has no parameter `{extra}`: its parameters are {}",
                kind.parameter_names()
            )));
        }
        let reference = &self.reference;
        let set = match self.body.load_any(Some(kind), self.elastic, spelling)? {
            pbdfit_fit::LoadedBody::Solid { set, .. } => set,
            // A cloth model against the sheet's shell reference (the one solve `fem` reports).
            pbdfit_fit::LoadedBody::Sheet(loaded) => {
                let pbdfit_fit::LoadedSheet { scene, body: sheet, material } = *loaded;
                pbdfit_fit::check_cloth_model(kind, &scene.name)?;
                let shell = pbdfit_fit::ShellReference::of_job(reference, &scene, spelling)?;
                let settings = Settings::new(self.step.dt, sheet.n, self.model.nit, kind);
                settings.at(&values).validate().map_err(|e| input(e.to_string()))?;
                let problem = pbdfit_fit::sheet_problem(&sheet, settings, material, shell).map_err(FitJobError::Fit)?;
                return Ok((problem, values, vec![scene.summary()]));
            }
        };
        pbdfit_fit::check_solid_model(kind, set.name())?;
        let n = self.body.resolution(&set, spelling)?;
        let settings = Settings::new(self.step.dt, n, self.model.nit, kind);
        settings.at(&values).validate().map_err(|e| input(e.to_string()))?;
        let cache = PartCache::new(pbdfit_fit::checked_reference(reference)?);
        let problem = FitProblem::new(&set, settings, self.elastic.checked()?, &cache).map_err(FitJobError::Fit)?;
        Ok((problem, values, set.bodies()))
    }

    fn run((problem, values, body): Self::Prepared, _: &mut crate::Context<'_>) -> Result<EvaluateReport, FitJobError> {
        let evaluation = problem.evaluate(&values, None);
        if let Some(reason) = &evaluation.failure {
            return Err(FitJobError::Input(format!("no rest state at these parameters: {reason}")));
        }
        let names = problem.parts.iter().map(|p| p.scene.clone());
        let scene_errors = names.zip(evaluation.part_errors.iter().copied()).collect();
        Ok(EvaluateReport { error: evaluation.error, scene_errors, body })
    }
}

impl crate::Report for EvaluateReport {
    fn text(&self) -> String {
        let mut out = format!("{}\nerror {:.6e}\n", pbdfit_mesh::BodySummary::line(&self.body), self.error);
        if self.scene_errors.len() > 1 {
            for (scene, e) in &self.scene_errors {
                out += &format!("  {scene:16} error {e:.6e}\n");
            }
        }
        out
    }
}
