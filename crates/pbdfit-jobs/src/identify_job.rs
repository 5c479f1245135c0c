//! One identification job and its report: `pbdfit identify` and Python's `pbdfit.identify` fill an
//! [`IdentifyKeywords`] / [`IdentifyJob`], which is checked and run here, and both print or return the one
//! [`IdentifyReport`] (`identify --json` is it). As for fits ([`FitJob`](crate::FitJob)), the copies the two
//! front ends kept had drifted (Python lacked the dynamic reference's options).

use std::path::PathBuf;

use pbdfit_mesh::Markers;
use serde::Serialize;

use pbdfit_fit::{FitJobError, MARKER_TOLERANCE, MaterialParameter, Spelling};

/// E and nu of an FEM law from measured markers, as the command line and Python ask it (one body: a
/// compound scene is refused; `size` too, as the markers fix the body's scale).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct IdentifyKeywords {
    #[serde(flatten)]
    #[command(flatten)]
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    pub body: pbdfit_fit::Body,
    /// The marker CSV (columns x, y, z, ux, uy, uz in m, optionally sigma in m; see `fit --measured`) or a
    /// full-field `.vtu`. Default: the scene's `[reference] measured`.
    #[arg(long, value_name = "FILE")]
    pub measured: Option<PathBuf>,
    /// The time step of a dynamic reference (`dynamic`).
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    #[serde(flatten)]
    #[command(flatten)]
    /// The FEM reference's options (`material`, `dynamic`, `time`, `fem_mass`, `rayleigh`, `split`).
    pub reference: pbdfit_mesh::ReferenceOptions,
}

/// An identification job: [`IdentifyKeywords`] under another name, run by [`IdentifyJob::run`].
pub type IdentifyJob = IdentifyKeywords;

impl IdentifyKeywords {
    /// Checks the job (naming a refused option in `spelling`), identifies E and nu, and reports.
    pub fn run(&self, spelling: Spelling) -> Result<IdentifyReport, FitJobError> {
        let input = FitJobError::Input;
        let start = std::time::Instant::now();
        if self.body.scale.size.is_some() {
            return Err(input(format!(
                "{}: identify compares the FEM with measured markers, taken on the body as the scene gives it; \
                 give the mesh at the markers' scale instead ({} applies)",
                spelling.name("size"),
                spelling.name("density")
            )));
        }
        let (set, _) = self.body.load(None, spelling)?;
        let n = self.body.resolution(&set, spelling)?;
        let [scene] = set.scenes() else {
            return Err(input(format!(
                "scene {} is a compound of {} bodies; identify one body at a time",
                set.name(),
                set.scenes().len()
            )));
        };
        let overrides = pbdfit_fit::checked_reference(&self.reference)?;
        let spec = pbdfit_fit::reference_spec(scene, &overrides)?;
        let path = self.measured.clone().or_else(|| scene.measured.clone()).ok_or_else(|| {
            input(format!(
                "identify needs measured markers: {}, or `[reference] measured = \"FILE\"` in scene {}",
                match spelling {
                    Spelling::Flag => "--measured FILE",
                    Spelling::Keyword => "measured=FILE",
                },
                set.name()
            ))
        })?;
        let markers = Markers::read(&path).map_err(|e| input(e.to_string()))?;
        let dt = self.step.dt;
        let id = pbdfit_fit::identify(scene, n, spec, dt, &markers, MARKER_TOLERANCE)?;
        Ok(IdentifyReport {
            scene: set.name().to_string(),
            body: scene.summary(),
            n,
            reference: id.reference,
            measured: markers.source.clone(),
            markers: id.markers,
            weighting: id.weighting.name().to_string(),
            young: id.young,
            poisson: id.poisson,
            young_interval_95: id.intervals[0].map(|(lo, hi)| [lo, hi]),
            poisson_interval_95: id.intervals[1].map(|(lo, hi)| [lo, hi]),
            poisson_at_bound: id.poisson_bound,
            undetermined: id.undetermined.clone(),
            covariance_ln_young_poisson: id.covariance,
            error: id.error,
            evaluations: id.evaluations,
            seconds: start.elapsed().as_secs_f64(),
            pbdfit_version: env!("CARGO_PKG_VERSION").to_string(),
        })
    }
}

/// What an identification found: `pbdfit identify --json`'s object and Python's `pbdfit.identify` dict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentifyReport {
    /// The scene.
    pub scene: String,
    /// The body's size, density and mass.
    pub body: pbdfit_mesh::BodySummary,
    /// Mesh resolution.
    pub n: usize,
    /// The FEM reference's id.
    pub reference: String,
    /// Where the markers came from.
    pub measured: String,
    /// Markers used.
    pub markers: usize,
    /// `sigma` (chi-square) or `relative`.
    pub weighting: String,
    /// Young's modulus in Pa.
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// E's 95 % interval (multiplicative), `None` where the markers do not determine it.
    pub young_interval_95: Option<[f64; 2]>,
    /// nu's 95 % interval, `None` where the markers do not determine it.
    pub poisson_interval_95: Option<[f64; 2]>,
    /// The searched range's bound nu lies on (its interval then one-sided up to it).
    pub poisson_at_bound: Option<f64>,
    /// The parameters the markers do not determine (`young`, `poisson` in JSON).
    pub undetermined: Vec<MaterialParameter>,
    /// The Gauss-Newton covariance of (ln E, nu); `None` where singular.
    pub covariance_ln_young_poisson: Option<[[f64; 2]; 2]>,
    /// The error at the identified material.
    pub error: f64,
    /// FEM solves.
    pub evaluations: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The pbdfit that made it.
    pub pbdfit_version: String,
}

impl IdentifyReport {
    /// The report as `pbdfit identify` prints it, ending in a newline.
    pub fn text(&self) -> String {
        let mut out = pbdfit_mesh::BodySummary::line(std::slice::from_ref(&self.body)) + "\n";
        out.push_str(&format!(
            "scene {} (N = {}), {} reference, {} markers from {} ({})\n",
            self.scene, self.n, self.reference, self.markers, self.measured, self.weighting
        ));
        let young = match self.young_interval_95 {
            Some([lo, hi]) => format!("95 %: {lo:.6e} to {hi:.6e}"),
            None => "not determined".into(),
        };
        let poisson = match (self.poisson_interval_95, self.poisson_at_bound) {
            (Some([lo, hi]), Some(_)) => format!("95 %: {lo:.6} to {hi:.6}, one-sided"),
            (Some([lo, hi]), None) => format!("95 %: {lo:.6} to {hi:.6}"),
            (None, _) => "not determined".into(),
        };
        out += &format!("  E = {:.6e} Pa ({young})  nu = {:.6} ({poisson})\n", self.young, self.poisson);
        if let Some(bound) = self.poisson_at_bound {
            out += &format!(
                "  note: nu lies on the searched range's bound {bound} (nu from {} to {}; the FEM refuses 0.5): the \
                 markers may want nu beyond it, so its interval ends at the bound\n",
                pbdfit_fit::NU_MIN,
                pbdfit_fit::NU_MAX
            );
        }
        if !self.undetermined.is_empty() {
            let names: Vec<&str> = self.undetermined.iter().map(|p| p.symbol()).collect();
            let why = if self.covariance_ln_young_poisson.is_none() {
                "E and nu move them alike (the Gauss-Newton matrix is singular)".to_string()
            } else {
                let reasons: Vec<String> = self
                    .undetermined
                    .iter()
                    .map(|p| match p {
                        MaterialParameter::Young => {
                            format!(
                                "E's 95 % interval reaches beyond a factor {:e} either way",
                                pbdfit_fit::YOUNG_FACTOR
                            )
                        }
                        MaterialParameter::Poisson => "nu's 95 % interval covers the whole range (-1, 0.5)".into(),
                    })
                    .collect();
                format!(
                    "the markers' noise hides {} effect: {}",
                    if names.len() > 1 { "their" } else { "its" },
                    reasons.join("; ")
                )
            };
            out += &format!(
                "  {} not identifiable from these markers ({why}); more markers, less noise, or markers that see \
                 all three components of the motion determine more\n",
                names.join(" and ")
            );
        }
        out += &format!("  error {:.6e}, {} FEM solves, {:.3} s\n", self.error, self.evaluations, self.seconds);
        out
    }
}

impl crate::Job for IdentifyKeywords {
    const NAME: &'static str = "identify";
    const ABOUT: &'static str = "Identify E and nu of an FEM law from measured markers, with 95 % intervals \
        (Gauss-Newton covariance)";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--measured", "{markers}"];
    // Identification checks its inputs as it reads the markers: the job runs whole.
    type Prepared = (IdentifyKeywords, Spelling);
    type Report = IdentifyReport;

    fn prepare(&self, spelling: Spelling) -> Result<Self::Prepared, FitJobError> {
        Ok((self.clone(), spelling))
    }

    fn run((job, spelling): Self::Prepared, _: &mut crate::Context<'_>) -> Result<IdentifyReport, FitJobError> {
        job.run(spelling)
    }
}

impl crate::Report for IdentifyReport {
    fn text(&self) -> String {
        IdentifyReport::text(self)
    }
}
