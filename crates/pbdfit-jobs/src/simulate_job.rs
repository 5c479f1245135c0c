//! One simulation job: `pbdfit simulate` and Python's `pbdfit.simulate` fill a [`SimulateKeywords`] (the
//! command line's options under their Python names), checked here ([`SimulateKeywords::prepare`]: the
//! model and its parameters, the scene's bodies) and run part by part ([`SimulateSetup::run`]), answered
//! by one serialisable [`SimulateReport`] per part: `pbdfit simulate --json` is it, Python returns it. The
//! Python copy had drifted (every parameter required where the command line has defaults, a sensitivity
//! silently dropped where the rest state had not converged, no mass model, damping, method, integrator).
//!
//! A sheet scene takes a cloth model: its one part is the sheet's particles ([`PbdSystem::sheet_body`],
//! the system a cloth fit solves), so `simulate`'s rest state is the fit's for the same parameters, bit
//! for bit, and a solid model on a sheet or a cloth model on a solid is refused naming the model.

use std::collections::BTreeMap;

use clap::builder::TypedValueParser;
use pbdfit_mesh::vtk::{PointData, write_vtu, write_vtu_triangles};
use pbdfit_mesh::{Body, BodySummary, SceneSet, SheetBody, Vec3};
use pbdfit_pbd::{
    ConstraintRef, IntegrateOptions, Integrator, Model, ModelKind, ModelRule, PbdSystem, RestMethod, RestOptions,
    RestState, RestStateBackend, RuleSettings, SensitivityOptions, SimParams, SpringBody, SpringLaw,
};
use serde::{Deserialize, Serialize};

use pbdfit_fit::{FitJobError, Spelling};

/// A simulation as the command line and Python ask it (the command line's options are these under their
/// flag names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct SimulateKeywords {
    /// The body: `scene`, `n`, `mass_model`, `fix_orientation`, `density`, `size`.
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::Body,
    /// The time step `dt`.
    #[serde(flatten)]
    #[command(flatten)]
    pub step: pbdfit_fit::Step,
    /// The model: `model`, `settings`, `nit`.
    #[serde(flatten)]
    #[command(flatten)]
    pub model: pbdfit_fit::Model,
    /// Distance stiffness kd in [0, 1] (PBD models) [default: 0.5].
    #[arg(long)]
    pub kd: Option<f64>,
    /// Volume stiffness kv in [0, 1] (PBD models) [default: 0.5].
    #[arg(long)]
    pub kv: Option<f64>,
    /// XPBD distance compliance alpha_d in m/N [default: 0].
    #[arg(long)]
    pub compliance_distance: Option<f64>,
    /// XPBD volume compliance alpha_v in m^6/J [default: 0].
    #[arg(long)]
    pub compliance_volume: Option<f64>,
    /// Mass-spring spring constant ks in N/m.
    #[arg(long)]
    pub ks: Option<f64>,
    /// Mass-spring volume penalty kvol in Pa (mass-spring-volume).
    #[arg(long)]
    pub kvol: Option<f64>,
    /// Any model parameter by name, e.g. `--param alpha_d=1e-6` (repeatable; wins over the flags above).
    #[arg(long = "param", value_parser = pbdfit_fit::parse_named_value)]
    #[serde(serialize_with = "pbdfit_fit::ordered_map", deserialize_with = "pbdfit_fit::sorted_pairs")]
    pub params: Vec<(String, f64)>,
    /// Mass-spring models: run the dynamics with this integrator (until they settle or --steps) instead
    /// of solving the Newton rest state.
    #[arg(long, value_parser = clap::builder::EnumValueParser::<Integrator>::new().map(|i| i.name().to_string()))]
    pub integrator: Option<String>,
    /// With --integrator: the largest number of steps [default: 1000000].
    #[arg(long)]
    pub steps: Option<usize>,
    /// PBD models and engine profiles: the largest number of projection sweeps (steps x nit, or map
    /// evaluations x nit) the rest state may spend before the point is refused as not converged: a budget
    /// that ends a slow point the same way on every machine [default: 20000000].
    #[arg(long)]
    pub max_sweeps: Option<usize>,
    /// Allow stiffness above 1 (experimental: it can overshoot).
    #[arg(long)]
    pub unbounded: bool,
    /// PBD models: velocity damping per step in [0, 1); mass-spring models: spring damping in N s/m (>= 0).
    /// It changes the path to rest, not the rest state [default: 0].
    #[arg(long)]
    pub damping: Option<f64>,
    /// Rest-state method: fixed point (Anderson, falls back to stepping) or stepping the dynamics [default:
    /// fixed-point].
    #[arg(long, value_parser = ["fixed-point", "stepping"])]
    pub method: Option<String>,
    /// Also the rest state's sensitivity to each parameter, `du*/dp` (m per unit of the parameter; the
    /// implicit function theorem at the fixed point, or the Newton tangent for mass-spring models): JSON
    /// key `sensitivity`, one array per parameter with a row per vertex.
    #[arg(long)]
    pub sensitivity: bool,
}

/// A simulation job: [`SimulateKeywords`] under another name.
pub type SimulateJob = SimulateKeywords;

/// What a job runs: the PBD rest state (or a mass-spring model's Newton rest state), or a mass-spring
/// model's dynamics with an integrator.
#[derive(Debug, Clone)]
pub enum SimulateRun {
    /// The rest state.
    Rest {
        /// The model with its step.
        params: SimParams,
        /// The rest-state method.
        options: RestOptions,
    },
    /// The mass-spring dynamics from rest until they settle or `max_steps`.
    Dynamics {
        /// The springs' law with the damping asked for.
        law: SpringLaw,
        /// The integrator.
        integrator: Integrator,
        /// The largest number of steps.
        max_steps: usize,
    },
}

/// A job checked: the model, what to run, and one setup per part.
#[derive(Debug)]
pub struct PreparedSimulate {
    /// The scene (with the job's mass model); `None` for a sheet scene, whose one part is its sheet.
    pub set: Option<SceneSet>,
    /// The model with its parameters.
    pub model: Model,
    /// The time step (s).
    pub dt: f64,
    /// The iterations per step.
    pub nit: usize,
    /// What runs.
    pub run: SimulateRun,
    /// Whether the sensitivity is asked.
    pub sensitivity: bool,
    /// One setup per part.
    pub parts: Vec<SimulateSetup>,
    /// What the front end should tell the user (an imported mesh's size and repairs).
    pub notes: Vec<String>,
    /// Warnings about the inputs (masses other than the engine's, with the rest-state difference they
    /// make at the run's parameters).
    pub warnings: Vec<String>,
}

/// A part's body: a solid's tetrahedra or a sheet's triangles.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum SimulateBody {
    /// A tetrahedral solid.
    Solid(Body),
    /// A sheet (a triangle mesh with a thickness), for the cloth models.
    Sheet(SheetBody),
}

impl SimulateBody {
    /// The body's vertices at rest (m).
    pub fn vertices(&self) -> &[Vec3] {
        match self {
            SimulateBody::Solid(b) => b.mesh.vertices(),
            SimulateBody::Sheet(s) => s.sheet.mesh.vertices(),
        }
    }

    /// The vertex masses (kg) under `kind`: a sheet's are lumped (a third of each triangle's to each of its
    /// vertices) unless the model's engine gives every particle the same ([`ModelKind::sheet_masses`]).
    pub fn masses(&self, kind: ModelKind) -> Vec<f64> {
        match self {
            SimulateBody::Solid(b) => b.masses.clone(),
            SimulateBody::Sheet(s) => s.sheet.masses(kind.sheet_masses()),
        }
    }

    /// The mass model's name under `kind`.
    pub fn mass_model(&self, kind: ModelKind) -> &'static str {
        match self {
            SimulateBody::Solid(b) => b.mass_model.name(),
            SimulateBody::Sheet(_) => kind.sheet_masses().name(),
        }
    }

    /// The tetrahedra (a solid's; none for a sheet).
    pub fn tets(&self) -> &[[usize; 4]] {
        match self {
            SimulateBody::Solid(b) => b.mesh.tets(),
            SimulateBody::Sheet(_) => &[],
        }
    }

    /// The triangles (a sheet's; none for a solid).
    pub fn triangles(&self) -> &[[usize; 3]] {
        match self {
            SimulateBody::Solid(_) => &[],
            SimulateBody::Sheet(s) => s.sheet.mesh.triangles(),
        }
    }

    /// Writes the body's cells (tetrahedra or triangles) with `data` per vertex to a `.vtu` file.
    pub fn write_vtu(&self, path: &std::path::Path, data: &[(&str, PointData)]) -> Result<(), String> {
        match self {
            SimulateBody::Solid(b) => write_vtu(path, b.mesh.vertices(), b.mesh.tets(), data),
            SimulateBody::Sheet(s) => {
                write_vtu_triangles(path, s.sheet.mesh.vertices(), s.sheet.mesh.triangles(), data)
            }
        }
    }
}

/// The scene a job loaded: a solid scene set, or a sheet scene with its body.
#[allow(clippy::large_enum_variant)]
enum Loaded {
    Solid(SceneSet),
    Sheet(pbdfit_mesh::SheetScene, SheetBody),
}

/// One part's body and PBD system.
#[derive(Debug)]
pub struct SimulateSetup {
    /// The part's scene name.
    pub scene: String,
    /// Its resolution.
    pub n: usize,
    /// Its body.
    pub body: SimulateBody,
    /// The body's size, density and mass, for the report.
    pub summary: BodySummary,
    /// Its PBD system.
    pub system: PbdSystem,
}

/// One part's answer: `pbdfit simulate --json`'s object (made once per part, so its variants' sizes
/// matter little).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SimulateReport {
    /// A rest state.
    Rest(RestReport),
    /// A mass-spring model's dynamics.
    Dynamics(DynamicsReport),
}

/// A part's rest state and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestReport {
    /// The part's scene name.
    pub scene: String,
    /// Its body's size, density and mass.
    pub body: BodySummary,
    /// Its resolution.
    pub n: usize,
    /// The model with the engine settings it changed from their defaults (`newton-xpbd[relaxation=0.5]`),
    /// as a fit's report names it.
    pub model: String,
    /// Every engine setting the run used, changed or not, by the engine's names (none for a textbook
    /// model).
    #[serde(serialize_with = "pbdfit_fit::ordered_map")]
    pub settings: Vec<(String, f64)>,
    /// The same settings as the text shows them, `name = value`, a value the setting has a word for as
    /// the word (`bend = dihedral`): made with the report from the model, not read back from [`Self::model`].
    #[serde(skip)]
    pub shown_settings: Vec<String>,
    /// Time step (s).
    pub dt: f64,
    /// Iterations per step.
    pub nit: usize,
    /// The model's parameter values, in its order.
    pub parameters: Vec<f64>,
    /// Their names.
    pub parameter_names: Vec<&'static str>,
    /// Their units.
    pub parameter_units: Vec<&'static str>,
    /// The mass model.
    pub mass_model: &'static str,
    /// Rest positions of the vertices (m).
    pub vertices: Vec<[f64; 3]>,
    /// Tetrahedra (vertex indices; a solid's, absent from the JSON for a sheet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tets: Vec<[usize; 4]>,
    /// Triangles (vertex indices; a sheet's, absent from the JSON for a solid).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub triangles: Vec<[usize; 3]>,
    /// Held vertices (those the model holds: for a cloth model on a clamped edge, the clamped row and the
    /// next).
    pub fixed: Vec<usize>,
    /// Vertex masses (kg).
    pub masses: Vec<f64>,
    /// The constraints in list order: `{"type": "distance" | "volume", "particles": [...]}`; a cloth
    /// model's by their kind's name (`distance_xpbd`, `dihedral`, `isometric`, `fem_triangle`, ...).
    pub constraints: Vec<ConstraintReport>,
    /// The order the solver visits them.
    pub solve_order: Vec<usize>,
    /// For an engine that reads the order its user creates the edges in (Jolt's `order` setting): the
    /// edges in that order, to create them as the profile did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_order: Option<Vec<[usize; 2]>>,
    /// Positions at rest (m).
    pub rest_positions: Vec<[f64; 3]>,
    /// Displacements at rest (m).
    pub displacements: Vec<[f64; 3]>,
    /// Projection sweeps (PBD) or Newton iterations (mass-spring): [`Self::iterations_of`].
    pub iterations: usize,
    /// What `iterations` counts: `projection sweeps` or `Newton iterations`.
    pub iterations_of: &'static str,
    /// Whether the rest state converged.
    pub converged: bool,
    /// Its relative residual.
    pub residual: f64,
    /// How it was computed (`FixedPoint`, `Stepping`, `Newton`, `LibraryF32`).
    pub method: String,
    /// The model as the summary describes it.
    pub description: String,
    /// Particles, constraints and colour groups of the system.
    pub particles: usize,
    /// Constraints.
    pub constraint_count: usize,
    /// Colour groups.
    pub colour_groups: usize,
    /// Wall-clock seconds of the rest state.
    pub seconds: f64,
    /// `du*/dp` per parameter name (m per unit of the parameter), one row per vertex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<BTreeMap<String, Vec<[f64; 3]>>>,
    /// Map evaluations the sensitivity took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitivity_map_evaluations: Option<usize>,
}

/// One constraint of a [`RestReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstraintReport {
    /// `distance` or `volume`, or a cloth constraint kind's name.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its particles.
    pub particles: Vec<usize>,
}

/// A part's mass-spring dynamics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DynamicsReport {
    /// The part's scene name.
    pub scene: String,
    /// Its body's size, density and mass.
    pub body: BodySummary,
    /// Its resolution.
    pub n: usize,
    /// The model.
    pub model: &'static str,
    /// The integrator.
    pub integrator: &'static str,
    /// Time step (s).
    pub dt: f64,
    /// The model's parameter values.
    pub parameters: Vec<f64>,
    /// Their names.
    pub parameter_names: Vec<&'static str>,
    /// Their units.
    pub parameter_units: Vec<&'static str>,
    /// The spring damping (N s/m).
    pub damping: f64,
    /// The mass model.
    pub mass_model: &'static str,
    /// Steps run.
    pub steps: usize,
    /// Whether the motion settled.
    pub settled: bool,
    /// Displacements at the end (m).
    pub displacements: Vec<[f64; 3]>,
    /// Positions at the end (m).
    pub rest_positions: Vec<[f64; 3]>,
    /// The last energy (J).
    pub energy: Option<f64>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

fn xyz(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// The constraints `params`' model projects on `system`, in list order, the order it visits them (indices
/// into the list) and the number of colour groups: a solid's distance and volume constraints, or a cloth
/// model's constraints of each kind it lists (`ClothBody::constraint_list`).
fn constraints_of(system: &PbdSystem, params: &SimParams) -> (Vec<ConstraintReport>, Vec<usize>, usize) {
    if let (Some(cloth), ModelRule::Cloth(rule)) = (system.cloth_body(), params.rule()) {
        let particles = system.particle_count();
        let list = cloth.constraint_list(&rule.terms);
        let constraints = list.into_iter().map(|(kind, particles)| ConstraintReport { kind, particles }).collect();
        return (constraints, cloth.solve_order(&rule.terms, particles), cloth.group_count(&rule.terms, particles));
    }
    let constraints = system
        .constraints_in_list_order()
        .into_iter()
        .map(|(c, particles)| ConstraintReport {
            kind: match c {
                ConstraintRef::Distance(_) => "distance",
                ConstraintRef::Volume(_) => "volume",
            },
            particles,
        })
        .collect();
    (constraints, system.solve_order().to_vec(), system.group_count())
}

impl SimulateKeywords {
    /// The model these keywords name with its parameters: a named parameter the model lacks is refused;
    /// kd, kv default to 0.5 and the compliances to 0; `params` wins over the named ones.
    pub fn parameters(&self, kind: ModelKind, spelling: Spelling) -> Result<Model, FitJobError> {
        let input = FitJobError::Input;
        let given = [
            ("kd", self.kd, "kd"),
            ("kv", self.kv, "kv"),
            ("alpha_d", self.compliance_distance, "compliance_distance"),
            ("alpha_v", self.compliance_volume, "compliance_volume"),
            ("ks", self.ks, "ks"),
            ("kvol", self.kvol, "kvol"),
        ];
        // How a parameter is given by name: `--param NAME=VALUE`, or Python's `NAME=VALUE` keyword.
        let (param, give) = match spelling {
            Spelling::Flag => ("--param ", "--param NAME=VALUE"),
            Spelling::Keyword => ("", "NAME=VALUE"),
        };
        for (name, value, option) in given {
            if value.is_some() && kind.parameter(name).is_none() {
                return Err(input(format!(
                    "{}: model {kind} has no parameter `{name}`; its parameters are {} (give them with {give})",
                    spelling.name(option),
                    kind.parameter_names()
                )));
            }
        }
        let params = pbdfit_fit::unique_pairs(param.trim_end(), &self.params)?;
        for name in params.keys() {
            if kind.parameter(name).is_none() {
                return Err(input(format!(
                    "{param}{name}: model {kind} has no parameter `{name}`; its parameters are {}",
                    kind.parameter_names()
                )));
            }
        }
        let defaults = [("kd", 0.5), ("kv", 0.5), ("alpha_d", 0.0), ("alpha_v", 0.0)];
        let named = |name: &str| {
            given
                .iter()
                .find(|g| g.0 == name)
                .and_then(|g| g.1)
                .or_else(|| defaults.iter().find(|d| d.0 == name).map(|d| d.1))
        };
        let values: Vec<f64> = kind
            .parameters()
            .iter()
            .map(|p| {
                params
                    .get(p.name)
                    .copied()
                    .or_else(|| named(p.name))
                    .ok_or_else(|| input(format!("model {kind} needs {}: give {param}{}=VALUE", p.name, p.name)))
            })
            .collect::<Result<_, _>>()?;
        kind.with(&values).map_err(|e| input(e.to_string()))
    }

    /// Checks the job (naming a refused option in `spelling`) and builds each part's system.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedSimulate, FitJobError> {
        let input = FitJobError::Input;
        let kind = self.model.kind(spelling)?;
        // A sheet scene takes a cloth model (its body is the cloth fit's); a solid scene a solid's model.
        let (loaded, notes) = match self.body.load_any(Some(kind), pbdfit_fit::Material::default(), spelling)? {
            pbdfit_fit::LoadedBody::Sheet(sheet) => {
                pbdfit_fit::check_cloth_model(kind, &sheet.scene.name)?;
                (Loaded::Sheet(sheet.scene, sheet.body), Vec::new())
            }
            pbdfit_fit::LoadedBody::Solid { set, notes } => {
                pbdfit_fit::check_solid_model(kind, set.name())?;
                (Loaded::Solid(set), notes)
            }
        };
        let name = match &loaded {
            Loaded::Solid(set) => set.name().to_string(),
            Loaded::Sheet(scene, _) => scene.name.clone(),
        };
        let (dt, nit) = (self.step.dt, self.model.nit);
        let damping = self.damping.unwrap_or(0.0);
        let model = self.parameters(kind, spelling)?;
        let springs = !kind.has_projection();
        let integrator = self
            .integrator
            .as_deref()
            .map(|name| Integrator::parse(name).map_err(|e| input(format!("{}: {e}", spelling.name("integrator")))))
            .transpose()?;
        if integrator.is_some() && !springs {
            return Err(input(format!(
                "{}: model {} has no integrator (its dynamics are the PBD step); integrators are for the \
                 mass-spring models",
                spelling.name("integrator"),
                model.name()
            )));
        }
        let method = match self.method.as_deref() {
            None | Some("fixed-point") => RestMethod::FixedPoint,
            Some("stepping") => RestMethod::Stepping,
            Some(other) => {
                return Err(input(format!(
                    "{}: `{other}` is neither fixed-point nor stepping",
                    spelling.name("method")
                )));
            }
        };
        let mut law = None;
        if let ModelRule::Springs(own) = model.rule(RuleSettings::new(dt, nit, model.kind())) {
            // The model's own parameters by their names and ranges first (a profile's `young`, not the
            // law's constant it sets); then its law, with the spring damping the dynamics add.
            let own_params = SimParams { allow_unbounded: self.unbounded, ..SimParams::new(dt, nit, model) };
            own_params.validate().map_err(|e| input(format!("scene {name}: {e}")))?;
            let own = SpringLaw { damping, ..own };
            own.validate().map_err(|e| input(format!("scene {name}: model {}: {e}", model.name())))?;
            law = Some(own);
        }
        let run = match (integrator, law) {
            (Some(integrator), Some(law)) => {
                SimulateRun::Dynamics { law, integrator, max_steps: self.steps.unwrap_or(1_000_000) }
            }
            _ => {
                let params = SimParams {
                    damping: if springs { 0.0 } else { damping },
                    allow_unbounded: self.unbounded,
                    ..SimParams::new(dt, nit, model)
                };
                params.validate().map_err(|e| input(format!("scene {name}: {e}")))?;
                let defaults = RestOptions::default();
                let max_sweeps = match self.max_sweeps {
                    None => defaults.max_sweeps,
                    Some(0) => return Err(input(format!("{}: must be at least 1", spelling.name("max_sweeps")))),
                    Some(m) => m,
                };
                SimulateRun::Rest { params, options: RestOptions { method, max_sweeps, ..defaults } }
            }
        };
        let (set, parts, warnings) = match loaded {
            Loaded::Solid(set) => {
                let n = self.body.resolution(&set, spelling)?;
                let parts = set
                    .scenes()
                    .iter()
                    .map(|scene| {
                        let body = scene.body(n).map_err(|e| input(e.to_string()))?;
                        let system = PbdSystem::new(&body);
                        let body = SimulateBody::Solid(body);
                        Ok(SimulateSetup { scene: scene.name.clone(), n, body, summary: scene.summary(), system })
                    })
                    .collect::<Result<Vec<_>, FitJobError>>()?;
                let given = self.body.mass_model().ok().flatten();
                let option = spelling.name("mass_model");
                let warnings = pbdfit_fit::mass_model_warning(
                    &set,
                    pbdfit_fit::Settings::new(dt, n, nit, kind),
                    Some(model.values()),
                    given,
                    &option,
                )
                .into_iter()
                .collect();
                (Some(set), parts, warnings)
            }
            Loaded::Sheet(scene, body) => {
                // The cloth fit's system: every supported vertex held, and a clamped edge's next row too.
                let system = PbdSystem::sheet_body(&body);
                let extra = pbdfit_fit::clamp_row(&body);
                let warnings = (!extra.is_empty())
                    .then(|| {
                        format!(
                            "scene {}: a particle carries no rotation, so the model holds each clamped vertex's \
                             neighbours too (the clamp's first cell): {} vertices the shell leaves free (`fixed` lists \
                             every vertex the model holds)",
                            scene.name,
                            extra.len()
                        )
                    })
                    .into_iter()
                    .collect();
                let (n, summary) = (body.n, scene.summary());
                let body = SimulateBody::Sheet(body);
                (None, vec![SimulateSetup { scene: scene.name, n, body, summary, system }], warnings)
            }
        };
        Ok(PreparedSimulate { set, model, dt, nit, run, sensitivity: self.sensitivity, parts, notes, warnings })
    }
}

impl PreparedSimulate {
    /// Whether the scene is a compound (a sheet scene never is).
    pub fn is_compound(&self) -> bool {
        self.set.as_ref().is_some_and(SceneSet::is_compound)
    }

    /// Runs one part: its rest state on `backend` (with the sensitivity where asked), or its dynamics,
    /// calling `frame` with (step, displacements) every `every` steps.
    pub fn run_part(
        &self,
        part: &SimulateSetup,
        backend: &dyn RestStateBackend,
        every: usize,
        frame: &mut dyn FnMut(usize, &[Vec3]),
    ) -> Result<SimulateReport, FitJobError> {
        let input = FitJobError::Input;
        let body = &part.body;
        let start = std::time::Instant::now();
        match &self.run {
            SimulateRun::Rest { params, options } => {
                let rest: RestState = backend
                    .rest_states(&part.system, std::slice::from_ref(params), options)
                    .remove(0)
                    .map_err(|e| input(e.to_string()))?;
                let seconds = start.elapsed().as_secs_f64();
                let names: Vec<&'static str> = params.model.kind().parameters().iter().map(|p| p.name).collect();
                let (sensitivity, evaluations) = if self.sensitivity {
                    if !rest.converged {
                        return Err(input(format!(
                            "scene {}: the sensitivity needs a converged rest state (relative residual {:e})",
                            part.scene, rest.residual
                        )));
                    }
                    let s = part
                        .system
                        .sensitivity(params, &rest.displacements, &SensitivityOptions::default())
                        .map_err(|e| input(e.to_string()))?;
                    let columns = names
                        .iter()
                        .zip(&s.columns)
                        .map(|(name, c)| (name.to_string(), c.iter().map(xyz).collect()))
                        .collect();
                    (Some(columns), Some(s.map_evaluations))
                } else {
                    (None, None)
                };
                let springs = !params.model.kind().has_projection();
                let (constraints, solve_order, colour_groups) = constraints_of(&part.system, params);
                let fixed = match body {
                    SimulateBody::Solid(b) => b.held_indices(),
                    SimulateBody::Sheet(_) => {
                        let held = part.system.held_mask();
                        (0..held.len()).filter(|&v| held[v]).collect()
                    }
                };
                Ok(SimulateReport::Rest(RestReport {
                    scene: part.scene.clone(),
                    body: part.summary.clone(),
                    n: part.n,
                    model: params.model.kind().spec(),
                    settings: params.model.kind().settings().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                    shown_settings: shown_settings(params.model.kind()),
                    dt: params.dt,
                    nit: params.nit,
                    parameters: params.model.values().to_vec(),
                    parameter_names: names,
                    parameter_units: params.model.kind().parameters().iter().map(|p| p.unit).collect(),
                    mass_model: body.mass_model(params.model.kind()),
                    vertices: body.vertices().iter().map(xyz).collect(),
                    tets: body.tets().to_vec(),
                    triangles: body.triangles().to_vec(),
                    fixed,
                    masses: body.masses(params.model.kind()),
                    constraint_count: constraints.len(),
                    constraints,
                    solve_order,
                    creation_order: params
                        .model
                        .kind()
                        .creation_order()
                        .map(|o| part.system.edges_in_creation_order(o)),
                    rest_positions: rest.positions.iter().map(xyz).collect(),
                    displacements: rest.displacements.iter().map(xyz).collect(),
                    iterations: rest.iterations,
                    iterations_of: if springs { "Newton iterations" } else { "projection sweeps" },
                    converged: rest.converged,
                    residual: rest.residual,
                    method: format!("{:?}", rest.method),
                    description: if springs { params.describe_springs() } else { params.describe() },
                    particles: part.system.particle_count(),
                    colour_groups,
                    seconds,
                    sensitivity,
                    sensitivity_map_evaluations: evaluations,
                }))
            }
            SimulateRun::Dynamics { law, integrator, max_steps } => {
                let springs = SpringBody::new(&part.system);
                let options = IntegrateOptions { max_steps: *max_steps, tolerance: 1e-13, every: every.max(1) };
                let t = springs.integrate(law, *integrator, self.dt, &options, frame).map_err(|e| {
                    input(format!(
                        "scene {}: model {}, {}, damping = {}: {e}",
                        part.scene,
                        self.model.name(),
                        self.named_parameters().join(", "),
                        law.damping
                    ))
                })?;
                let seconds = start.elapsed().as_secs_f64();
                let kind = self.model.kind();
                Ok(SimulateReport::Dynamics(DynamicsReport {
                    scene: part.scene.clone(),
                    body: part.summary.clone(),
                    n: part.n,
                    model: kind.name(),
                    integrator: integrator.name(),
                    dt: self.dt,
                    parameters: self.model.values().to_vec(),
                    parameter_names: kind.parameters().iter().map(|p| p.name).collect(),
                    parameter_units: kind.parameters().iter().map(|p| p.unit).collect(),
                    damping: law.damping,
                    mass_model: body.mass_model(kind),
                    steps: t.steps,
                    settled: t.settled,
                    displacements: t.displacements.iter().map(xyz).collect(),
                    rest_positions: body.vertices().iter().zip(&t.displacements).map(|(x, u)| xyz(&(x + u))).collect(),
                    energy: t.energies.last().copied(),
                    seconds,
                }))
            }
        }
    }

    /// The model's parameters as `name = value unit`, by its registry's names and units.
    fn named_parameters(&self) -> Vec<String> {
        self.model
            .kind()
            .parameters()
            .iter()
            .zip(self.model.values())
            .map(|(p, v)| format!("{} = {v} {}", p.name, p.unit))
            .collect()
    }
}

/// Every setting of an engine profile `kind` as a report's text shows it: `name = value`, a value the setting
/// has a word for as the word (`bend = dihedral`); of a textbook model (the cloth models' volume
/// constraint), the settings changed from their defaults only.
fn shown_settings(kind: ModelKind) -> Vec<String> {
    let shown = |spec: &pbdfit_pbd::SettingSpec, v: f64| {
        spec.word(v).map_or_else(|| pbdfit_mesh::display::number(v), str::to_string)
    };
    let settings = kind.setting_specs().iter().zip(kind.settings());
    settings
        .filter(|(spec, (_, v))| kind.is_engine_profile() || *v != spec.default)
        .map(|(spec, (name, v))| format!("{name} = {}", shown(spec, v)))
        .collect()
}

impl SimulateReport {
    /// The part's scene name.
    pub fn scene(&self) -> &str {
        match self {
            SimulateReport::Rest(r) => &r.scene,
            SimulateReport::Dynamics(d) => &d.scene,
        }
    }

    /// The summary `pbdfit simulate` prints.
    pub fn text(&self) -> String {
        match self {
            SimulateReport::Rest(r) => {
                let largest = r.displacements.iter().map(|u| Vec3::from(*u).norm()).fold(0.0, f64::max);
                let mut lines = vec![
                    BodySummary::line(std::slice::from_ref(&r.body)),
                    format!("scene {} (N = {}, {} mass): {}", r.scene, r.n, r.mass_model, r.description),
                ];
                if !r.shown_settings.is_empty() {
                    lines.push(format!("  engine settings: {}", r.shown_settings.join(", ")));
                }
                if let Some(&(_, v)) = r.settings.iter().find(|(k, _)| k == pbdfit_pbd::engines::creation::SETTING) {
                    let order = pbdfit_pbd::CreationOrder::from_setting(v);
                    lines.push(format!(
                        "  edges created in the {} order: {} (--json lists them as creation_order)",
                        order.name(),
                        order.how()
                    ));
                }
                // A sheet's springs or engine keep their own constraints: no projection list to count.
                let constraints = if r.constraint_count == 0 {
                    String::new()
                } else {
                    format!(", {} constraints in {} colour groups", r.constraint_count, r.colour_groups)
                };
                lines.extend([
                    format!("  {} particles ({} held){constraints}", r.particles, r.fixed.len()),
                    format!(
                        "  rest state: max |u| = {largest:.10e} m, {} after {} {} ({}, relative residual {:.1e}), {:.3} ms",
                        if r.converged { "converged" } else { "NOT converged" },
                        r.iterations,
                        r.iterations_of,
                        r.method,
                        r.residual,
                        r.seconds * 1e3
                    ),
                ]);
                if let Some(s) = &r.sensitivity {
                    for (name, unit) in r.parameter_names.iter().zip(&r.parameter_units) {
                        let largest = s[*name].iter().map(|v| Vec3::from(*v).norm()).fold(0.0, f64::max);
                        lines.push(format!("  sensitivity: max |du/d{name}| = {largest:.6e} m per {unit}"));
                    }
                }
                lines.join("\n")
            }
            SimulateReport::Dynamics(d) => {
                let largest = d.displacements.iter().map(|u| Vec3::from(*u).norm()).fold(0.0, f64::max);
                let named: Vec<String> = d
                    .parameter_names
                    .iter()
                    .zip(&d.parameters)
                    .zip(&d.parameter_units)
                    .map(|((n, v), u)| format!("{n} = {} {u}", pbdfit_mesh::display::number(*v)))
                    .collect();
                [
                    BodySummary::line(std::slice::from_ref(&d.body)),
                    format!(
                        "scene {} (N = {}, {} mass): model {}, {}, damping = {} N s/m, {} with dt = {} s",
                        d.scene,
                        d.n,
                        d.mass_model,
                        d.model,
                        named.join(", "),
                        pbdfit_mesh::display::number(d.damping),
                        d.integrator,
                        pbdfit_mesh::display::number(d.dt)
                    ),
                    format!(
                        "  {} after {} steps: max |u| = {largest:.10e} m, energy {:.6e} J, {:.3} ms",
                        if d.settled { "settled" } else { "NOT settled (raise --steps or --damping)" },
                        d.steps,
                        d.energy.unwrap_or(f64::NAN),
                        d.seconds * 1e3
                    ),
                ]
                .join("\n")
            }
        }
    }
}

impl crate::Job for SimulateKeywords {
    const NAME: &'static str = "simulate";
    const ABOUT: &'static str = "A model's rest state on a scene (PBD, XPBD, mass-spring or an engine profile): \
        summary, JSON, VTK, or a VTK time series";
    const EXAMPLE: &'static [&'static str] = &["--scene", "gravity-wall", "--n", "1", "--model", "xpbd", "--nit", "3"];
    type Prepared = PreparedSimulate;
    type Report = crate::Parts<SimulateReport>;

    fn prepare(&self, spelling: Spelling) -> Result<PreparedSimulate, FitJobError> {
        SimulateKeywords::prepare(self, spelling)
    }

    fn run(prepared: PreparedSimulate, context: &mut crate::Context<'_>) -> Result<Self::Report, FitJobError> {
        let run = |part| prepared.run_part(part, context.backend, 1, &mut |_, _| {});
        let parts = prepared.parts.iter().map(run).collect::<Result<_, _>>()?;
        Ok(crate::Parts { compound: prepared.is_compound(), parts })
    }
}

impl crate::Report for SimulateReport {
    fn text(&self) -> String {
        SimulateReport::text(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(job: &SimulateKeywords, spelling: Spelling) -> String {
        match job.prepare(spelling) {
            Err(FitJobError::Input(message)) => message,
            other => panic!("refused expected, got {other:?}"),
        }
    }

    fn model(name: &str) -> pbdfit_fit::Model {
        pbdfit_fit::Model { model: name.into(), ..Default::default() }
    }

    #[test]
    fn defaults_are_the_command_lines_and_refusals_name_the_option_in_each_spelling() {
        let body = pbdfit_fit::Body { scene: "gravity-wall".into(), n: Some(1), ..Default::default() };
        let job = SimulateKeywords { body, ..Default::default() };
        let prepared = job.prepare(Spelling::Keyword).expect("defaults");
        assert_eq!(prepared.model.values(), &[0.5, 0.5]);
        assert_eq!((prepared.dt, prepared.nit), (0.01, 1));
        let xpbd = SimulateKeywords { model: model("xpbd"), kd: Some(0.3), ..job.clone() };
        assert!(refused(&xpbd, Spelling::Flag).starts_with("--kd: model xpbd has no parameter `kd`"));
        assert!(refused(&xpbd, Spelling::Keyword).starts_with("kd: model xpbd has no parameter `kd`"));
        let springs = SimulateKeywords { model: model("mass-spring"), ..job.clone() };
        assert_eq!(refused(&springs, Spelling::Flag), "model mass-spring needs ks: give --param ks=VALUE");
        assert_eq!(refused(&springs, Spelling::Keyword), "model mass-spring needs ks: give ks=VALUE");
        let integrator = SimulateKeywords { integrator: Some("verlet".into()), ..job.clone() };
        assert!(refused(&integrator, Spelling::Flag).starts_with("--integrator: model pbd has no integrator"));
        let method = SimulateKeywords { method: Some("newton".into()), ..job.clone() };
        assert_eq!(refused(&method, Spelling::Keyword), "method: `newton` is neither fixed-point nor stepping");
        let unknown = SimulateKeywords { integrator: Some("rk4".into()), ks: Some(100.0), ..springs };
        assert!(refused(&unknown, Spelling::Keyword).starts_with("integrator: `rk4` is not an integrator"));
    }

    #[test]
    fn a_sensitivity_needs_a_converged_rest_state() {
        let job = SimulateKeywords {
            body: pbdfit_fit::Body { scene: "gravity-wall".into(), n: Some(1), ..Default::default() },
            method: Some("stepping".into()),
            sensitivity: true,
            ..Default::default()
        };
        let prepared = job.prepare(Spelling::Keyword).expect("a job");
        let part = &prepared.parts[0];
        let SimulateReport::Rest(rest) =
            prepared.run_part(part, &pbdfit_pbd::CpuBackend, 1, &mut |_, _| {}).expect("converges")
        else {
            panic!("a rest state expected");
        };
        let columns = rest.sensitivity.as_ref().expect("asked");
        assert_eq!(columns.keys().collect::<Vec<_>>(), ["kd", "kv"]);
        assert!(columns["kd"].iter().any(|u| u.iter().any(|x| *x != 0.0)));
    }
}
