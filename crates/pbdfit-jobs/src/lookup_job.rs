//! One table lookup job: a model's parameters interpolated from a stiffness table, with an error estimate
//! and, asked, a short refining fit (`pbdfit lookup`, Python's `pbdfit.lookup`).

use pbdfit_fit::{FitJobError, Spelling};
use pbdfit_mesh::SceneSet;
use pbdfit_mesh::display::number;
use pbdfit_table::{Lookup, Query, Refined, Table, TableError};

/// A lookup as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, clap::Args)]
#[serde(default)]
pub struct LookupKeywords {
    /// A built-in table (`pbd`, `xpbd`; part-built: `pbd-full`, `xpbd-full`) or a table folder (with
    /// table.csv and table.json).
    #[arg(long)]
    pub table: String,
    /// Young's modulus E in Pa (> 0).
    #[arg(long)]
    pub young: f64,
    /// Poisson ratio nu (< 0.5).
    #[arg(long)]
    pub poisson: f64,
    /// Time step in s (a decimal or a fraction such as 1/300).
    #[arg(long, value_parser = |s: &str| pbdfit_table::axes::parse_number(s), allow_hyphen_values = true)]
    pub dt: f64,
    /// Solver iterations per step (>= 1).
    #[arg(long)]
    pub nit: usize,
    /// Mesh resolution N (>= 1).
    #[arg(long)]
    pub n: usize,
    /// Outside the table's range, use the table's nearest edge for each such setting instead of refusing
    /// (the output flags it).
    #[arg(long)]
    pub extrapolate: bool,
    /// Refine the looked-up parameters by a short gradient fit started from them (a 2 x 2 grid plus the
    /// lookup as start): on the table's own scene it reaches a direct fit's error for about 15 rest states
    /// (fits/tables/accuracy.py), where the lookup alone is up to several times worse.
    #[arg(long)]
    pub refine: bool,
    /// With --refine: fit on this scene (a built-in name or a scene file) instead of the table's, e.g. your
    /// own part, starting from the table's parameters.
    #[arg(long, requires = "refine")]
    pub scene: Option<String>,
    /// With --refine: the body's density and size for the refining fit (a table's fits are for its own
    /// body, the built-in tables' a 1 m cube of 1 kg/m^3).
    #[serde(flatten)]
    #[command(flatten)]
    pub body: pbdfit_fit::BodyKeywords,
}

/// A lookup checked and made, its refinement's scene loaded.
#[derive(Debug)]
pub struct PreparedLookup {
    /// The lookup.
    pub lookup: Lookup,
    /// With `refine`: the scene the refining fit runs on.
    pub refine: Option<SceneSet>,
    /// What the front end should tell the user (an imported mesh's size and repairs).
    pub notes: Vec<String>,
}

/// The lookup and its refinement: `pbdfit lookup --json`'s object (the refinement under `refined`, with
/// its scene's `body`), Python's dict.
#[derive(Debug, Clone)]
pub struct LookupReport {
    /// The lookup.
    pub lookup: Lookup,
    /// The refining fit and its scene's body line and bodies.
    pub refined: Option<(Refined, SceneSet)>,
}

fn table_error(e: TableError) -> FitJobError {
    if e.is_input() { FitJobError::Input(e.to_string()) } else { FitJobError::Internal(e.to_string()) }
}

impl crate::Job for LookupKeywords {
    const NAME: &'static str = "lookup";
    const ABOUT: &'static str = "Look a model's parameters up in a stiffness table (interpolated), with an error \
        estimate";
    const EXAMPLE: &'static [&'static str] =
        &["--table", "pbd", "--young", "3e4", "--poisson", "0.3", "--dt", "0.005", "--nit", "4", "--n", "1"];
    type Prepared = PreparedLookup;
    type Report = LookupReport;

    fn prepare(&self, spelling: Spelling) -> Result<PreparedLookup, FitJobError> {
        let refine = match spelling {
            Spelling::Flag => "--refine",
            Spelling::Keyword => "refine=True",
        };
        if self.body.given() && !self.refine {
            return Err(FitJobError::Input(format!(
                "{} and {} apply to {refine} only: a table holds fits of its own body (the built-in tables': a 1 m \
                 cube of 1 kg/m^3) and cannot be rescaled; add {refine} to fit on your body from the table's \
                 parameters, or fit it with `pbdfit fit`",
                spelling.name("density"),
                spelling.name("size"),
            )));
        }
        if self.scene.is_some() && !self.refine {
            return Err(FitJobError::Input(format!(
                "{}: only with {refine} (the lookup itself reads the table)",
                spelling.name("scene")
            )));
        }
        let query = Query { young: self.young, poisson: self.poisson, dt: self.dt, nit: self.nit, n: self.n };
        // The query is checked before the table is read: a bad material is the same mistake for any table.
        query.check().map_err(table_error)?;
        let table = Table::open(&self.table).map_err(table_error)?;
        let lookup = pbdfit_table::lookup(&table, &query, self.extrapolate).map_err(table_error)?;
        let (refine, notes) = match self.refine {
            true => {
                let scene = self.scene.clone().unwrap_or_else(|| lookup.scene.clone());
                let body = pbdfit_fit::Body { scene, scale: self.body, ..Default::default() };
                let (set, notes) = body.load(None, spelling)?;
                (Some(set), notes)
            }
            false => (None, Vec::new()),
        };
        Ok(PreparedLookup { lookup, refine, notes })
    }

    fn run(prepared: PreparedLookup, _: &mut crate::Context<'_>) -> Result<LookupReport, FitJobError> {
        let PreparedLookup { lookup, refine, .. } = prepared;
        let refined = match refine {
            Some(set) => Some((pbdfit_table::refine(&lookup, &set).map_err(table_error)?, set)),
            None => None,
        };
        Ok(LookupReport { lookup, refined })
    }
}

impl serde::Serialize for LookupReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let mut value = serde_json::to_value(&self.lookup).map_err(S::Error::custom)?;
        if let Some((r, set)) = &self.refined {
            value["refined"] = serde_json::to_value(r).map_err(S::Error::custom)?;
            value["refined"]["body"] = serde_json::to_value(set.bodies()).map_err(S::Error::custom)?;
        }
        value.serialize(serializer)
    }
}

impl crate::Report for LookupReport {
    fn text(&self) -> String {
        let l = &self.lookup;
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        if l.extrapolated_any {
            for x in &l.extrapolated {
                line(format!(
                    "EXTRAPOLATED: {} = {} lies outside the table's [{}, {}]; the table's edge {} = {} was used",
                    x.parameter, x.value, x.range[0], x.range[1], x.parameter, x.used
                ));
            }
        }
        line(format!(
            "table {} ({}, model {}, scene {}, reference {}, {} masses, pbdfit {})",
            l.table, l.source, l.model, l.scene, l.reference, l.mass_model, l.pbdfit_version
        ));
        if l.missing_nodes > 0 {
            line(format!(
                "  part-built table: {} of its nodes have no fit yet (this query's cell has all of its own)",
                l.missing_nodes
            ));
        }
        let q = &l.query;
        line(format!(
            "E = {:e} Pa, nu = {}, dt = {} s, nit = {}, N = {}",
            q.young,
            q.poisson,
            number(q.dt),
            q.nit,
            q.n
        ));
        let values: Vec<String> =
            l.parameters.iter().map(|p| pbdfit_table::parameter_text(&p.name, p.value, &p.unit)).collect();
        line(format!("  {}", values.join("  ")));
        line(format!("  fit error interpolated from the cell's nodes: {:.4e}", l.interpolated_fit_error));
        let e = &l.estimate;
        let deviations: Vec<String> =
            e.parameters.iter().filter_map(|(n, d)| d.map(|d| format!("{n} {d:.2e}"))).collect();
        line(match e.error_increase {
            Some(inc) => format!(
                "  error estimate (leave-one-out, worst of {} of the cell's {} nodes): parameters off by up to {} \
                 (search coordinates), error up by up to {:.3e} when simulated",
                e.nodes_with_estimate,
                e.nodes,
                deviations.join(", "),
                inc
            ),
            None => format!(
                "  error estimate: none (the cell's {} nodes lie on the table's edge, where leave-one-out cannot \
                 predict)",
                e.nodes
            ),
        });
        // Where interpolation may cost more than a tenth of the error, the closer answer is a short fit from
        // here (a lookup whose estimate was poor did not say so).
        let uncertain = e.error_increase.is_none_or(|inc| inc > 0.1 * l.interpolated_fit_error);
        if uncertain && self.refined.is_none() {
            line(
                "  for a closer answer add --refine (a short fit started from these parameters, about a second), or \
                 fit the query itself with `pbdfit fit`"
                    .into(),
            );
        }
        let n = &l.nearest;
        line(format!(
            "  nearest node: E = {:e}, nu = {}, dt = {}, nit = {}, N = {}: fit error {:.4e}",
            n.young,
            n.poisson,
            number(n.dt),
            n.nit,
            n.n,
            n.error
        ));
        line(format!("  cell nodes ({}):", l.corners.len()));
        for c in &l.corners {
            let edge = if c.at_bound.is_empty() {
                String::new()
            } else {
                format!(", at the box's edge: {}", c.at_bound.join(", "))
            };
            line(format!(
                "    E = {:e}, nu = {}, dt = {}, nit = {}, N = {}: weight {:.3}, fit error {:.4e}{edge}",
                c.young,
                c.poisson,
                number(c.dt),
                c.nit,
                c.n,
                c.weight,
                c.error,
            ));
        }
        if !l.at_bound.is_empty() {
            line(format!(
                "  WARNING: on the search box's edge at a node of this cell: {}; the table cannot reach the target \
                 there (the best fit may lie outside the box)",
                l.at_bound.join(", ")
            ));
        }
        if l.extrapolated_any {
            line(
                "  WARNING: extrapolated (see above): the values are the table edge's, not a fit at this query".into(),
            );
        }
        if !l.description.is_empty() {
            line(format!("  about the table: {}", l.description));
        }
        if let Some((r, set)) = &self.refined {
            line(set.body_line());
            let values: Vec<String> = r.parameters.iter().map(|(n, v)| format!("{n} = {v:.6e}")).collect();
            let edge = if r.at_bound.is_empty() {
                String::new()
            } else {
                format!(", at the box's edge: {}", r.at_bound.join(", "))
            };
            line(format!(
                "refined on scene {} ({}): {}, error {:.4e} ({} rest states, {:.2} s){edge}",
                r.scene,
                r.reference,
                values.join(", "),
                r.error,
                r.evaluations,
                r.seconds,
            ));
            if let Some(note) = &r.note {
                line(format!("  NOTE: {note}"));
            }
        }
        out
    }
}
