//! One modal-analysis job: `pbdfit modes` and Python's `pbdfit.modes` fill a [`ModesKeywords`], checked
//! in one place ([`ModesKeywords::prepare_solid`], the sheet's in `sheet.rs`) and run part by part into a [`ModesReport`] (`pbdfit modes
//! --json`'s object; [`ModesReport::text`] is what the command prints).
//!
//! The modes are the FEM body's (`pbdfit_fem::StaticProblem::modes`): the lowest natural frequencies and
//! mass-normalised shapes of `K0 phi = omega^2 M phi` about the undeformed state, held vertices fixed, for
//! the reference law's small-strain stiffness and a lumped or consistent mass (`fem_mass`). Each mode
//! carries its effective modal mass along x, y and z as a fraction of the free mass (`Gamma_d^2` with
//! `Gamma_d = phi^T M r_d`, `r_d` a unit translation), which tells a bending mode from a torsional or an
//! axial one.

use pbdfit_fem::{MassMatrix, Modes, StaticProblem, YoungPoisson};
use pbdfit_mesh::{Body, SceneSet, Vec3};
use serde::Serialize;

use pbdfit_fit::{FitJobError, LoadedBody, Spelling};

/// The modes asked when the job does not say.
pub const DEFAULT_MODE_COUNT: usize = 6;

/// A modal analysis of a scene, as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct ModesKeywords {
    #[serde(flatten)]
    #[command(flatten)]
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    pub body: pbdfit_fit::Body,
    #[serde(flatten)]
    #[command(flatten)]
    /// The material: `young`, `poisson`.
    pub elastic: pbdfit_fit::Material,
    /// The law whose small-strain stiffness the modes use: linear, corotational, stvk or neo-hookean
    /// (default: the scene's, else linear; all four have the same stiffness at rest).
    #[arg(long, value_name = "NAME")]
    pub material: Option<String>,
    /// The mass matrix: lumped (the body's vertex masses; the default) or consistent (linear tetrahedra).
    #[arg(long, value_name = "lumped|consistent")]
    pub fem_mass: Option<String>,
    /// The FEM mesh's tetrahedral split: same, opposite or six.
    #[arg(long, value_name = "same|opposite|six")]
    pub split: Option<String>,
    /// How many modes, lowest first [default: 6].
    #[arg(long)]
    pub count: Option<usize>,
}

/// A job checked, its parts' problems built.
#[derive(Debug)]
pub struct PreparedModes {
    /// The scene (with the job's mass model).
    pub set: SceneSet,
    /// The material.
    pub material: YoungPoisson,
    /// Modes per part.
    pub count: usize,
    /// One setup per part.
    pub parts: Vec<ModesSetup>,
}

/// One part's problem.
#[derive(Debug)]
pub struct ModesSetup {
    /// Its body.
    pub body: Body,
    summary: pbdfit_mesh::BodySummary,
    law: &'static dyn pbdfit_fem::materials::Material,
    mass: MassMatrix,
    problem: StaticProblem,
}

/// One mode in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeReport {
    /// Frequency (Hz).
    pub frequency: f64,
    /// Angular frequency (rad/s).
    pub angular: f64,
    /// Period (s).
    pub period: f64,
    /// Effective modal mass along x, y, z over the body's free mass.
    pub mass_fractions: [f64; 3],
    /// `|K0 phi - omega^2 M phi| / |K0 phi|` at the end of the iteration.
    pub residual: f64,
    /// The mass-normalised shape per vertex (m per unit modal coordinate; zero at held vertices).
    pub shape: Vec<[f64; 3]>,
}

/// One part's modes: `pbdfit modes --json`'s object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModesReport {
    /// The part's scene.
    pub scene: String,
    /// Its body's size, density and mass.
    pub body: pbdfit_mesh::BodySummary,
    /// Its resolution.
    pub n: usize,
    /// Young's modulus (Pa).
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// The body's mass model.
    pub mass_model: &'static str,
    /// The law (its small-strain stiffness).
    pub material: &'static str,
    /// The mass matrix.
    pub fem_mass: &'static str,
    /// Free degrees of freedom.
    pub dofs: usize,
    /// The body's free mass (kg).
    pub free_mass: f64,
    /// Subspace iterations.
    pub iterations: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The modes, lowest first.
    pub modes: Vec<ModeReport>,
    /// pbdfit's version.
    pub pbdfit_version: &'static str,
}

impl ModesKeywords {
    /// How many modes to compute, [`DEFAULT_MODE_COUNT`] unless given; 0 refused.
    fn count(&self, spelling: Spelling) -> Result<usize, FitJobError> {
        match self.count.unwrap_or(DEFAULT_MODE_COUNT) {
            0 => Err(FitJobError::Input(format!("{} must be at least 1", spelling.name("count")))),
            count => Ok(count),
        }
    }

    /// Checks the job on a solid scene `set` as loaded (naming a refused option in `spelling`) and builds
    /// each part's problem.
    pub fn prepare_solid(&self, set: SceneSet, spelling: Spelling) -> Result<PreparedModes, FitJobError> {
        let input = FitJobError::Input;
        let material = self.elastic.checked()?;
        let count = self.count(spelling)?;
        let n = self.body.resolution(&set, spelling)?;
        // The law and the split are the FEM reference's options, checked by its rules; the mass matrix is
        // the dynamics' (`MassMatrix`), by default the scene's reference's.
        let fem_mass = self
            .fem_mass
            .as_deref()
            .map(|name| {
                MassMatrix::parse(name).ok_or_else(|| {
                    input(format!(
                        "{} = {name} is not supported: allowed lumped, consistent",
                        spelling.name("fem_mass")
                    ))
                })
            })
            .transpose()?;
        let reference = pbdfit_mesh::ReferenceOptions {
            material: self.material.clone(),
            split: self.split.clone(),
            ..Default::default()
        };
        let overrides = pbdfit_fit::checked_reference(&reference)?;
        let mut parts = Vec::new();
        for scene in set.scenes() {
            let spec = pbdfit_fit::reference_spec(scene, &overrides).map_err(|e| input(e.to_string()))?;
            let body = scene.body_split(n, spec.split).map_err(|e| input(e.to_string()))?;
            if !body.obstacles.is_empty() {
                return Err(input(format!(
                    "scene {} has {} obstacle(s): modes are those of a body held at its held vertices, and contact \
                     would make the motion nonlinear",
                    scene.name,
                    body.obstacles.len()
                )));
            }
            let problem = StaticProblem::new(&body)
                .and_then(|p| p.with_masses(body.masses.clone()))
                .map_err(|e| input(format!("FEM problem of {} at N = {n}: {e}", scene.name)))?;
            if count > problem.dofs() {
                return Err(input(format!(
                    "{} = {count}: scene {} at N = {n} has {} free degrees of freedom",
                    spelling.name("count"),
                    scene.name,
                    problem.dofs()
                )));
            }
            parts.push(ModesSetup {
                body,
                summary: scene.summary(),
                law: spec.material,
                mass: fem_mass.unwrap_or(spec.mass()),
                problem,
            });
        }
        Ok(PreparedModes { set, material, count, parts })
    }
}

impl ModesSetup {
    /// The part's modes.
    pub fn run(self, material: YoungPoisson, count: usize) -> Result<ModesReport, FitJobError> {
        let ModesSetup { body, summary, law, mass, problem } = self;
        let start = std::time::Instant::now();
        let failed =
            |e: pbdfit_fem::FemError| FitJobError::Input(format!("modes of {} at N = {}: {e}", body.scene, body.n));
        let modes: Modes = problem.modes(law, material, mass, count).map_err(failed)?;
        // Participation: phi_i^T M r_d for the unit translations r_x, r_y, r_z (free vertices only).
        let translations: Vec<Vec<Vec3>> = (0..3)
            .map(|d| body.held.iter().map(|&h| if h { Vec3::zeros() } else { Vec3::ith(d, 1.0) }).collect())
            .collect();
        let fields: Vec<Vec<Vec3>> = modes.shapes.iter().cloned().chain(translations).collect();
        let products = problem.mass_products(&fields, mass).map_err(failed)?;
        let free_mass = (0..3).map(|d| products[(count + d, count + d)]).sum::<f64>() / 3.0;
        let reports = (0..count)
            .map(|i| ModeReport {
                frequency: modes.angular[i] / std::f64::consts::TAU,
                angular: modes.angular[i],
                period: std::f64::consts::TAU / modes.angular[i],
                mass_fractions: [0, 1, 2].map(|d| products[(i, count + d)].powi(2) / free_mass),
                residual: modes.residuals[i],
                shape: modes.shapes[i].iter().map(|u| [u.x, u.y, u.z]).collect(),
            })
            .collect();
        Ok(ModesReport {
            scene: body.scene.clone(),
            body: summary,
            n: body.n,
            young: material.young(),
            poisson: material.poisson(),
            mass_model: body.mass_model.name(),
            material: law.name(),
            fem_mass: mass.name(),
            dofs: problem.dofs(),
            free_mass,
            iterations: modes.iterations,
            seconds: start.elapsed().as_secs_f64(),
            modes: reports,
            pbdfit_version: env!("CARGO_PKG_VERSION"),
        })
    }
}

impl ModesReport {
    /// The summary `pbdfit modes` prints.
    pub fn text(&self) -> String {
        let mut out = pbdfit_mesh::BodySummary::line(std::slice::from_ref(&self.body)) + "\n";
        out.push_str(&format!(
            "scene {} (N = {}, {} mass, {} free DOFs, free mass {:.6e} kg): {} law at E = {} Pa, nu = {}, {} mass \
             matrix; {} subspace iterations, {:.3} s\n",
            self.scene,
            self.n,
            self.mass_model,
            self.dofs,
            self.free_mass,
            self.material,
            pbdfit_mesh::display::number(self.young),
            pbdfit_mesh::display::number(self.poisson),
            self.fem_mass,
            self.iterations,
            self.seconds
        ));
        out.push_str("  mode  frequency (Hz)  omega (rad/s)    period (s)   modal mass x     y     z   residual\n");
        for (i, m) in self.modes.iter().enumerate() {
            out.push_str(&format!(
                "  {:>4}  {:>14.6e}  {:>13.6e}  {:>12.6e}   {:>9.3} {:>5.3} {:>5.3}   {:.1e}\n",
                i + 1,
                m.frequency,
                m.angular,
                m.period,
                m.mass_fractions[0],
                m.mass_fractions[1],
                m.mass_fractions[2],
                m.residual
            ));
        }
        out
    }
}

/// A `modes` job checked: a solid scene's parts, or a sheet.
#[derive(Debug)]
pub enum ModesPrepared {
    /// A tetrahedral solid (or a compound of them).
    Solid(PreparedModes),
    /// A sheet.
    Sheet(Box<crate::sheet::PreparedSheetModes>),
}

impl crate::Job for ModesKeywords {
    const NAME: &'static str = "modes";
    const ABOUT: &'static str = "The lowest natural frequencies and mode shapes of a scene's FEM body (the reference \
        for motion): table, JSON or VTK";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--count", "2"];
    type Prepared = ModesPrepared;
    type Report = crate::Parts<ModesReport>;

    fn prepare(&self, spelling: Spelling) -> Result<ModesPrepared, FitJobError> {
        Ok(match self.body.load_any(None, self.elastic, spelling)? {
            LoadedBody::Sheet(sheet) => {
                let count = self.count(spelling)?;
                ModesPrepared::Sheet(Box::new(crate::sheet::prepare_modes(self, *sheet, count, spelling)?))
            }
            LoadedBody::Solid { set, .. } => ModesPrepared::Solid(self.prepare_solid(set, spelling)?),
        })
    }

    fn run(prepared: ModesPrepared, _: &mut crate::Context<'_>) -> Result<Self::Report, FitJobError> {
        let prepared = match prepared {
            ModesPrepared::Solid(prepared) => prepared,
            ModesPrepared::Sheet(sheet) => return Ok(crate::Parts { compound: false, parts: vec![sheet.run()?] }),
        };
        let PreparedModes { set, material, count, parts } = prepared;
        let parts = parts.into_iter().map(|setup| setup.run(material, count)).collect::<Result<_, _>>()?;
        Ok(crate::Parts { compound: set.is_compound(), parts })
    }
}

impl crate::Report for ModesReport {
    fn text(&self) -> String {
        ModesReport::text(self)
    }
}
