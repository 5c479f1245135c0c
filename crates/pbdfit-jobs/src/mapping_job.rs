//! The mapping job (`pbdfit mapping`, alias `pbdfit baseline`; `pbdfit.mapping`): a closed-form mapping's
//! parameters for (E, nu), the formulas engines and papers apply without an error estimate
//! (`pbdfit_table::mapping`), or the list of mappings (`list` for the name).

use serde::{Deserialize, Serialize};

use pbdfit_mesh::{BodySummary, SheetScene};
use pbdfit_table::mapping::{MAPPINGS, Mapped, MappingError, map, map_sheet};

use crate::{FitJobError, Spelling};

/// The scene whose body gives a mapping's geometry where a job does not say: the tables' unit cube.
pub const MAPPING_SCENE: &str = "gravity";

/// The mapping job's keywords: the command line's options and Python's keywords of the same names (the
/// mapping's name is `--mapping` on the command line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct MappingKeywords {
    /// The mapping (see the list below), or `list` to print the mappings.
    #[arg(long = "mapping")]
    pub name: String,
    /// Young's modulus E in Pa (> 0).
    #[arg(long)]
    pub young: Option<f64>,
    /// Poisson ratio nu (-1 < nu <= 0.5).
    #[arg(long)]
    pub poisson: Option<f64>,
    /// Time step in s (a decimal or a fraction such as 1/300); used by the PBD mappings.
    #[arg(long, value_parser = |s: &str| pbdfit_table::axes::parse_number(s), allow_hyphen_values = true)]
    pub dt: Option<f64>,
    /// Solver iterations per step (>= 1); used by the PBD mappings.
    #[arg(long)]
    pub nit: Option<usize>,
    /// Mesh resolution N (>= 1) of the scene's body whose geometry the formulas read.
    #[arg(long)]
    pub n: Option<usize>,
    /// The scene whose body gives the geometry (a built-in name or a scene file, a solid or a sheet: a
    /// sheet's mappings read its thickness, which `--thickness` sets); default the tables' scene, the unit
    /// cube `gravity`.
    #[arg(long, default_value = MAPPING_SCENE)]
    pub scene: String,
    /// The body's density, size and (a sheet's) thickness over the scene's (`density`, `size`,
    /// `thickness`).
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::BodyKeywords,
}

impl Default for MappingKeywords {
    fn default() -> Self {
        MappingKeywords {
            name: String::new(),
            young: None,
            poisson: None,
            dt: None,
            nit: None,
            n: None,
            scene: MAPPING_SCENE.to_string(),
            body: Default::default(),
        }
    }
}

/// The list of mappings, as `help` prints it after the options.
pub fn mapping_list_help() -> String {
    let mut s = String::from("Mappings:\n");
    for m in MAPPINGS {
        s.push_str(&format!("  {} ({}): {}\n", m.name, m.model.name(), m.description));
    }
    s
}

/// A mapping's error as the job's: the user's input or a mapping's defect.
fn mapping_error(e: MappingError) -> FitJobError {
    if e.is_input() { FitJobError::Input(e.to_string()) } else { FitJobError::Internal(e.to_string()) }
}

/// The mapping job checked: the list, or one mapping's values on the body.
#[derive(Debug)]
pub enum PreparedMapping {
    /// `list`.
    List,
    /// One mapping evaluated on the body (notes about its imported meshes for the user).
    Mapped {
        /// The mapping's values.
        mapped: Box<Mapped>,
        /// The summary of the body whose geometry it read, per part.
        bodies: Vec<BodySummary>,
        /// Notes about the scene's imported meshes.
        notes: Vec<String>,
    },
}

impl PreparedMapping {
    /// Notes for the user (the imported meshes' sizes and repairs).
    pub fn notes(&self) -> &[String] {
        match self {
            PreparedMapping::List => &[],
            PreparedMapping::Mapped { notes, .. } => notes,
        }
    }
}

/// One mapping of the list (its fields in the order `--json` has always printed them: by name).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappingEntry {
    /// Its formula, in words.
    pub description: &'static str,
    /// The model whose parameters it gives.
    pub model: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// Whether its values depend on E.
    pub uses_young: bool,
}

/// The mapping job's answer: the list of mappings, or one mapping's values with the body they were read
/// on.
#[derive(Debug, Clone)]
pub enum MappingReport {
    /// Every registered mapping.
    List(Vec<MappingEntry>),
    /// One mapping's values.
    Mapped {
        /// The values.
        mapped: Box<Mapped>,
        /// The body's summary per part.
        body: Vec<BodySummary>,
        /// The body's line of text.
        body_line: String,
    },
}

impl Serialize for MappingReport {
    /// The list as an array; a mapping as one object, its keys sorted, with `body` among them.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        match self {
            MappingReport::List(list) => list.serialize(serializer),
            MappingReport::Mapped { mapped, body, .. } => {
                let mut value = serde_json::to_value(mapped).map_err(S::Error::custom)?;
                value["body"] = serde_json::to_value(body).map_err(S::Error::custom)?;
                value.serialize(serializer)
            }
        }
    }
}

impl crate::Job for MappingKeywords {
    const NAME: &'static str = "mapping";
    const ABOUT: &'static str = "A closed-form mapping's parameters for (E, nu) (Van Gelder springs, bulk-modulus \
        and Macklin-Mueller volume compliances, Godot-Jolt's constant, their PBD equivalents, xpbd-strain's inverse \
        moduli): the baselines the lookup is measured against. `--mapping list` lists them";
    const EXAMPLE: &'static [&'static str] =
        &["--mapping", "xpbd-van-gelder-bulk", "--young", "1e4", "--poisson", "0.3", "--n", "1"];
    type Prepared = PreparedMapping;
    type Report = MappingReport;

    fn prepare(&self, spelling: Spelling) -> Result<PreparedMapping, FitJobError> {
        if self.name == "list" {
            return Ok(PreparedMapping::List);
        }
        // The name is checked first: an unknown mapping is the mistake to report, whatever else is missing.
        let m = pbdfit_table::mapping::mapping(&self.name).map_err(mapping_error)?;
        // dt, nit and N only where the formula reads them; a value given anyway is checked and recorded.
        let query = m.query(self.young, self.poisson, self.dt, self.nit, self.n).map_err(|key| {
            FitJobError::Input(format!(
                "{} is required with {} {}",
                spelling.name(key),
                spelling.name("mapping"),
                self.name
            ))
        })?;
        query.check().map_err(mapping_error)?;
        let body = pbdfit_fit::Body { scene: self.scene.clone(), scale: self.body, ..Default::default() };
        if SheetScene::names_sheet(&self.scene) {
            // The sheet at the query's N (checked against the scene's resolution); its own material is not
            // read: the mapping's E and nu are the query's.
            let body = pbdfit_fit::Body { n: Some(query.n), ..body };
            let (scene, _, _) = pbdfit_fit::load_sheet(&body, Default::default(), spelling)?;
            let mapped = Box::new(map_sheet(&self.name, &query, &scene).map_err(mapping_error)?);
            return Ok(PreparedMapping::Mapped { mapped, bodies: vec![scene.summary()], notes: Vec::new() });
        }
        // A sheet's mapping names the solid it is given before the solid is loaded.
        m.check_body(pbdfit_pbd::BodyKind::Solid, &self.scene).map_err(mapping_error)?;
        let (set, notes) = body.load(None, spelling)?;
        let mapped = Box::new(map(&self.name, &query, &set).map_err(mapping_error)?);
        Ok(PreparedMapping::Mapped { mapped, bodies: set.bodies(), notes })
    }

    fn run(prepared: PreparedMapping, _: &mut crate::Context<'_>) -> Result<MappingReport, FitJobError> {
        Ok(match prepared {
            PreparedMapping::List => MappingReport::List(
                MAPPINGS
                    .iter()
                    .map(|m| MappingEntry {
                        name: m.name,
                        model: m.model.name(),
                        description: m.description,
                        source: m.source,
                        uses_young: m.uses_young,
                    })
                    .collect(),
            ),
            PreparedMapping::Mapped { mapped, bodies, .. } => {
                let body_line = BodySummary::line(&bodies);
                MappingReport::Mapped { mapped, body: bodies, body_line }
            }
        })
    }
}

impl crate::Report for MappingReport {
    fn text(&self) -> String {
        let (m, body_line) = match self {
            MappingReport::List(list) => {
                return list
                    .iter()
                    .map(|m| format!("{} ({}): {}\n    source: {}\n", m.name, m.model, m.description, m.source))
                    .collect();
            }
            MappingReport::Mapped { mapped, body_line, .. } => (mapped, body_line),
        };
        let mut out = format!("{body_line}\n");
        out += &format!("mapping {} (model {}): {}\n", m.mapping, m.model, m.description);
        out += &format!("  source: {}\n", m.source);
        let q = &m.query;
        let step = if m.uses_step {
            format!(", dt = {} s, nit = {}", pbdfit_mesh::display::number(q.dt), q.nit)
        } else {
            String::new()
        };
        let mesh = if m.uses_mesh { format!(", N = {}, scene {}", q.n, m.scene) } else { String::new() };
        out += &format!("E = {:e} Pa, nu = {}{step}{mesh}\n", q.young, q.poisson);
        if !m.uses_step || !m.uses_mesh {
            let unused: Vec<&str> = [(!m.uses_step, "dt and nit"), (!m.uses_mesh, "N")]
                .into_iter()
                .filter_map(|(unused, what)| unused.then_some(what))
                .collect();
            out += &format!("  ({} not used by this formula)\n", unused.join(" and "));
        }
        let values: Vec<String> =
            m.parameters.iter().map(|p| pbdfit_table::parameter_text(&p.name, p.value, &p.unit)).collect();
        out += &format!("  {}\n", values.join("  "));
        let g = &m.geometry;
        out += &match &g.sheet {
            None => format!(
                "  geometry: {} tetrahedra (mean volume {:.6e} m^3), {} edges (mean length {:.6e} m)\n",
                g.tets, g.mean_tet_volume, g.edges, g.mean_edge_length
            ),
            Some(s) => format!(
                "  geometry: a sheet {} m thick, {} triangles (mean area {:.6e} m^2), {} edges (mean length {:.6e} \
                 m), {} hinges\n",
                pbdfit_mesh::display::number(s.thickness),
                s.triangles,
                s.mean_triangle_area,
                g.edges,
                g.mean_edge_length,
                s.hinges
            ),
        };
        if !m.uses_young {
            out += "  NOTE: a fixed constant: it does not depend on E (nor nu)\n";
        }
        if !m.outside_range.is_empty() {
            out += &format!("  WARNING: outside model {}'s allowed range: {}\n", m.model, m.outside_range.join(", "));
        }
        out
    }
}
