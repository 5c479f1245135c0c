//! The table format: `table.csv` (one row per node) and `table.json` (what the table is and how it was
//! made), written atomically; and the tables compiled into the binary.

use std::path::Path;

use pbdfit_pbd::ModelKind;
use pbdfit_results::{ParameterLayout, Scale, format_number};
use serde::{Deserialize, Serialize};

use crate::TableError;
use crate::axes::{Axes, DIMS, Dim, flat};

/// The shipped tables, compiled in: `(name, table.csv, table.json)`. An empty text is a table not built
/// when the binary was (a lookup says so). `pbd-full` and `xpbd-full` are part-built (nodes not fitted
/// yet are missing, and a lookup that needs them names them).
pub const BUILTIN_TABLES: [(&str, &str, &str); 4] = [
    ("pbd", include_str!("../../../fits/tables/pbd/table.csv"), include_str!("../../../fits/tables/pbd/table.json")),
    ("xpbd", include_str!("../../../fits/tables/xpbd/table.csv"), include_str!("../../../fits/tables/xpbd/table.json")),
    (
        "pbd-full",
        include_str!("../../../fits/tables/pbd-full/table.csv"),
        include_str!("../../../fits/tables/pbd-full/table.json"),
    ),
    (
        "xpbd-full",
        include_str!("../../../fits/tables/xpbd-full/table.csv"),
        include_str!("../../../fits/tables/xpbd-full/table.json"),
    ),
];

/// The leave-one-out figures of one node: the worst over the axes along which it is interior.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeLoo {
    /// The axes along which the node was predicted from its neighbours.
    pub axes: Vec<Dim>,
    /// Largest |predicted - fitted| per parameter, in search coordinates (log10 for compliances).
    pub deviation: Vec<f64>,
    /// Largest error that the predicted parameters give when simulated.
    pub error: f64,
    /// Largest (simulated error of the prediction - fitted error).
    pub increase: f64,
}

/// One node of a table: its settings, fitted parameters, error and leave-one-out figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Young's modulus in Pa.
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// Time step in s.
    pub dt: f64,
    /// Solver iterations.
    pub nit: usize,
    /// Mesh resolution.
    pub n: usize,
    /// Fitted parameters in their natural units, in the model's order (NaN for a failed or missing fit).
    pub parameters: Vec<f64>,
    /// The fit's error (NaN for a missing fit).
    pub error: f64,
    /// Per parameter: whether the fitted value lies on the search box's edge.
    pub at_bound: Vec<bool>,
    /// Whether the fit succeeded, failed or was not run.
    pub status: NodeStatus,
    /// Leave-one-out figures (`None` at a node on the edge of every axis, or next to a failed or missing
    /// fit).
    pub loo: Option<NodeLoo>,
}

/// A node's fit: done, failed, or not run (a table written part-built, `pbdfit table --partial`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeStatus {
    /// Fitted.
    Ok,
    /// The fit ran and failed (no rest state, no reference): its parameters are NaN.
    Failed,
    /// Not fitted yet: the table was written before its build finished. A lookup whose cell needs the
    /// node names it and the command that fits it.
    Missing,
}

impl NodeStatus {
    /// Every status, for parsing `table.csv` by [`name`](Self::name).
    pub const ALL: [NodeStatus; 3] = [NodeStatus::Ok, NodeStatus::Failed, NodeStatus::Missing];

    /// The name in `table.csv`'s `status` column.
    pub fn name(self) -> &'static str {
        match self {
            NodeStatus::Ok => "ok",
            NodeStatus::Failed => "failed",
            NodeStatus::Missing => "missing",
        }
    }
}

impl Node {
    /// Whether the node was fitted successfully.
    pub fn is_ok(&self) -> bool {
        self.status == NodeStatus::Ok
    }

    /// The node's settings in [`DIMS`] order.
    pub fn settings(&self) -> [f64; 5] {
        [self.young, self.poisson, self.dt, self.nit as f64, self.n as f64]
    }
}

/// Median, 90th percentile and maximum of a leave-one-out quantity (`null` when nothing was predicted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Median.
    pub median: Option<f64>,
    /// 90th percentile (nearest rank).
    pub p90: Option<f64>,
    /// Maximum.
    pub max: Option<f64>,
}

impl Stats {
    /// The statistics of `values` (finite ones).
    pub fn of(values: &[f64]) -> Self {
        match crate::loo::quantiles(values) {
            Some((m, p, x)) => Self { median: Some(m), p90: Some(p), max: Some(x) },
            None => Self { median: None, p90: None, max: None },
        }
    }
}

/// Leave-one-out statistics of one parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LooStats {
    /// Parameter name.
    pub name: String,
    /// Statistics of |predicted - fitted| in search coordinates.
    #[serde(flatten)]
    pub stats: Stats,
}

/// How leave-one-out was computed, and its summary over the table's predicted nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LooSummary {
    /// How the figures were computed.
    pub method: String,
    /// Nodes with at least one prediction.
    pub nodes: usize,
    /// Predictions made (node, axis).
    pub predictions: usize,
    /// Per parameter, the node's worst |predicted - fitted| in search coordinates.
    pub parameters: Vec<LooStats>,
    /// The node's worst (error of the simulated prediction - fitted error).
    pub error_increase: Stats,
    /// The same relative to the fitted error.
    pub relative_error_increase: Stats,
}

/// What a table is and how it was made: `table.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMeta {
    /// Table name.
    pub name: String,
    /// What it is, including what it does not cover.
    pub description: String,
    /// The definition file it was built from (file name).
    pub definition: String,
    /// Model name.
    pub model: String,
    /// The model's parameters with unit, scale and the search box.
    pub parameters: Vec<ParameterLayout>,
    /// The scene set.
    pub scene: String,
    /// Its parts (empty for a basic scene).
    pub parts: Vec<String>,
    /// The reference the fits match (id as in the results' `reference` column).
    pub reference: String,
    /// Mass model.
    pub mass_model: String,
    /// The search of every fit, where it is not the thesis's pattern search (`gradient`); absent in the
    /// tables built before the gradient search existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// Grid points per axis of each fit's grid sweep.
    pub grid: usize,
    /// Pattern search's minimum step.
    pub min_step: f64,
    /// The node values.
    pub axes: Axes,
    /// How lookup interpolates.
    pub interpolation: String,
    /// Number of nodes.
    pub nodes: usize,
    /// Failed fits.
    pub failed: usize,
    /// Nodes not fitted yet (a table written part-built; absent, i.e. 0, in a complete table).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub missing: usize,
    /// Nodes with a parameter on the search box's edge.
    pub at_bound: usize,
    /// pbdfit version that built the table.
    pub pbdfit_version: String,
    /// Leave-one-out.
    pub leave_one_out: LooSummary,
}

/// A table: its description and its nodes in node order (E outermost, N innermost).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// `table.json`.
    pub meta: TableMeta,
    /// `table.csv`, one node per row.
    pub nodes: Vec<Node>,
    /// Where it was read from (a folder, or `built-in <name>`).
    pub source: String,
}

fn bad(origin: &str, message: String) -> TableError {
    TableError::Format { origin: origin.to_string(), message }
}

impl Table {
    /// The CSV header: settings, parameters, error, at-bound flags, status, leave-one-out columns.
    pub fn header(parameters: &[String]) -> Vec<String> {
        let mut h: Vec<String> = DIMS.iter().map(|d| d.name().to_string()).collect();
        h.extend(parameters.iter().cloned());
        h.push("error".into());
        h.extend(parameters.iter().map(|p| format!("{p}_at_bound")));
        h.push("status".into());
        h.push("loo_axes".into());
        h.extend(parameters.iter().map(|p| format!("loo_{p}")));
        h.push("loo_error".into());
        h.push("loo_error_increase".into());
        h
    }

    /// `table.csv`'s text.
    pub fn csv(&self) -> String {
        let names: Vec<String> = self.meta.parameters.iter().map(|p| p.name.clone()).collect();
        let mut out = Self::header(&names).join(",");
        out.push('\n');
        for node in &self.nodes {
            let mut f: Vec<String> = node.settings().iter().map(|v| format_number(*v)).collect();
            f.extend(node.parameters.iter().map(|v| format_number(*v)));
            f.push(format_number(node.error));
            f.extend(node.at_bound.iter().map(|b| if *b { "1" } else { "0" }.to_string()));
            f.push(node.status.name().into());
            match &node.loo {
                Some(l) => {
                    f.push(l.axes.iter().map(|d| d.name()).collect::<Vec<_>>().join(";"));
                    f.extend(l.deviation.iter().map(|v| format_number(*v)));
                    f.push(format_number(l.error));
                    f.push(format_number(l.increase));
                }
                None => f.extend(std::iter::repeat_n(String::new(), names.len() + 3)),
            }
            out.push_str(&f.join(","));
            out.push('\n');
        }
        out
    }

    /// Writes `table.csv` and `table.json` into `dir`, each to a temporary file renamed into place, so an
    /// interrupted write leaves the previous files (or none), never a partial one.
    pub fn write(&self, dir: &Path) -> Result<(), TableError> {
        let json = serde_json::to_string_pretty(&self.meta)
            .map_err(|e| bad(&dir.display().to_string(), format!("table.json: {e}")))?;
        write_atomic(&dir.join("table.csv"), &self.csv())?;
        write_atomic(&dir.join("table.json"), &(json + "\n"))
    }

    /// Reads a table folder (`table.csv` + `table.json`).
    pub fn read(dir: &Path) -> Result<Self, TableError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read_to_string(&path).map_err(|e| match e.kind() {
                // A folder without the table's files is the user's to fix (it exited 1): not a table,
                // or one whose build has not finished.
                std::io::ErrorKind::NotFound => bad(
                    &dir.display().to_string(),
                    format!(
                        "is not a table folder: it has no {name} (a build writes its table files when it ends; `pbdfit table DEFINITION --out FOLDER --partial` writes them for the nodes fitted so far)"
                    ),
                ),
                _ => TableError::Io { action: "cannot read", path, source: e },
            })
        };
        Self::parse(&read("table.csv")?, &read("table.json")?, &dir.display().to_string())
    }

    /// A table compiled into the binary, by name (`None`: no such name).
    pub fn builtin(name: &str) -> Option<Result<Self, TableError>> {
        let (_, csv, json) = BUILTIN_TABLES.iter().find(|(n, _, _)| *n == name)?;
        let origin = format!("built-in {name}");
        if csv.trim().is_empty() || json.trim().is_empty() {
            return Some(Err(bad(&origin, "was not built when this binary was compiled".into())));
        }
        Some(Self::parse(csv, json, &origin))
    }

    /// A table folder (a path that exists) or a built-in table's name.
    pub fn open(name_or_path: &str) -> Result<Self, TableError> {
        let path = Path::new(name_or_path);
        if path.is_dir() {
            return Self::read(path);
        }
        Self::builtin(name_or_path).unwrap_or_else(|| {
            let names: Vec<&str> = BUILTIN_TABLES.iter().map(|t| t.0).collect();
            Err(bad(
                name_or_path,
                format!("no such table: built-in tables are {}, or give a table folder", names.join(", ")),
            ))
        })
    }

    /// Parses a table from its two files' text, checking that the rows are exactly the axes' nodes.
    pub fn parse(csv: &str, json: &str, origin: &str) -> Result<Self, TableError> {
        let meta: TableMeta = serde_json::from_str(json).map_err(|e| bad(origin, format!("table.json: {e}")))?;
        meta.axes.validate().map_err(|(k, m)| bad(origin, format!("table.json: axes.{k}: {m}")))?;
        let names: Vec<String> = meta.parameters.iter().map(|p| p.name.clone()).collect();
        let p = names.len();
        check_model(&meta).map_err(|m| bad(origin, format!("table.json: {m}")))?;
        let mut lines = csv.lines();
        let header = lines.next().unwrap_or_default();
        if header != Self::header(&names).join(",") {
            return Err(bad(origin, format!("table.csv: header `{header}` is not that of model {}", meta.model)));
        }
        let shape = meta.axes.shape();
        // The axes are bounded by `validate`; the rows must also be as many as the nodes, checked before
        // a slot is allocated for each.
        let rows = csv.lines().skip(1).count();
        if rows != meta.axes.nodes() {
            return Err(bad(
                origin,
                format!(
                    "table.csv has {rows} rows, but table.json's axes ({} values) give {} nodes",
                    shape.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" x "),
                    meta.axes.nodes()
                ),
            ));
        }
        let mut nodes: Vec<Option<Node>> = vec![None; meta.axes.nodes()];
        for (row, line) in lines.enumerate() {
            let line_no = row + 2;
            let f: Vec<&str> = line.split(',').collect();
            let here = |m: String| bad(origin, format!("table.csv line {line_no}: {m}"));
            if f.len() != 5 + 3 * p + 5 {
                return Err(here(format!("{} fields where {} are expected", f.len(), 5 + 3 * p + 5)));
            }
            let num = |s: &str| s.parse::<f64>().map_err(|_| here(format!("`{s}` is not a number")));
            let mut settings = [0.0; 5];
            for k in 0..5 {
                settings[k] = num(f[k])?;
            }
            let index = meta.axes.index_of(&settings).ok_or_else(|| here("not a node of the table's axes".into()))?;
            let parameters = f[5..5 + p].iter().map(|s| num(s.trim())).collect::<Result<Vec<_>, _>>()?;
            let error = num(f[5 + p])?;
            let at_bound = f[6 + p..6 + 2 * p]
                .iter()
                .zip(&names)
                .map(|(s, name)| match *s {
                    "1" => Ok(true),
                    "0" => Ok(false),
                    other => Err(here(format!("{name}_at_bound `{other}`: expected 0 or 1"))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let status = NodeStatus::ALL.into_iter().find(|s| s.name() == f[6 + 2 * p]).ok_or_else(|| {
                let names: Vec<&str> = NodeStatus::ALL.iter().map(|s| s.name()).collect();
                here(format!("status `{}`: expected one of {}", f[6 + 2 * p], names.join(", ")))
            })?;
            check_values(&meta.parameters, &parameters, error, status).map_err(here)?;
            let loo_axes = f[7 + 2 * p];
            if status == NodeStatus::Missing && !loo_axes.is_empty() {
                return Err(here("a missing node has leave-one-out figures".into()));
            }
            let loo = if loo_axes.is_empty() {
                None
            } else {
                let axes = loo_axes
                    .split(';')
                    .map(|a| DIMS.iter().copied().find(|d| d.name() == a).ok_or_else(|| here(format!("axis `{a}`"))))
                    .collect::<Result<Vec<_>, _>>()?;
                let deviation = f[8 + 2 * p..8 + 3 * p].iter().map(|s| num(s.trim())).collect::<Result<Vec<_>, _>>()?;
                let loo = NodeLoo { axes, deviation, error: num(f[8 + 3 * p])?, increase: num(f[9 + 3 * p])? };
                check_loo(&names, &loo).map_err(here)?;
                Some(loo)
            };
            let node = Node {
                young: settings[0],
                poisson: settings[1],
                dt: settings[2],
                nit: settings[3] as usize,
                n: settings[4] as usize,
                parameters,
                error,
                at_bound,
                status,
                loo,
            };
            let slot = &mut nodes[flat(&shape, &index)];
            if slot.is_some() {
                return Err(here("repeats a node".into()));
            }
            *slot = Some(node);
        }
        let missing = nodes.iter().filter(|n| n.is_none()).count();
        if missing > 0 {
            return Err(bad(origin, format!("table.csv lacks {missing} of the {} nodes", nodes.len())));
        }
        let nodes: Vec<Node> = nodes.into_iter().flatten().collect();
        let unfitted = nodes.iter().filter(|n| n.status == NodeStatus::Missing).count();
        if unfitted != meta.missing {
            return Err(bad(
                origin,
                format!("table.csv has {unfitted} missing node(s), table.json says {}", meta.missing),
            ));
        }
        Ok(Self { meta, nodes, source: origin.to_string() })
    }

    /// The scale of each parameter (linear, or log10 for compliances).
    pub fn scales(&self) -> Vec<Scale> {
        self.meta.parameters.iter().map(|p| p.scale).collect()
    }
}

/// Checks `table.json`'s model and search box against the model's own parameters: the same names in
/// the same order, each box finite, ascending and inside the values the model allows (with stiffness
/// above 1, the most any table may have searched).
fn check_model(meta: &TableMeta) -> Result<(), String> {
    let kind: ModelKind = meta.model.parse().map_err(|e: pbdfit_pbd::PbdError| format!("model: {e}"))?;
    let expected: Vec<&str> = kind.parameters().iter().map(|s| s.name).collect();
    let given: Vec<&str> = meta.parameters.iter().map(|p| p.name.as_str()).collect();
    if expected != given {
        return Err(format!("parameters {given:?} are not model {kind}'s {expected:?}"));
    }
    for (spec, p) in kind.parameters().iter().zip(&meta.parameters) {
        let inside = |v: f64| v.is_finite() && v >= spec.minimum && v <= spec.maximum_unbounded;
        if !(inside(p.lower) && inside(p.upper) && p.lower < p.upper) {
            return Err(format!(
                "parameters: {} box [{}, {}] is not an ascending interval of the values model {kind} allows ([{}, {}])",
                p.name, p.lower, p.upper, spec.minimum, spec.maximum_unbounded
            ));
        }
    }
    Ok(())
}

/// Checks a row's fitted values: a successful fit's parameters lie in the search box and its error is
/// a finite number >= 0; a failed fit's parameters are NaN (or in the box) and its error >= 0 (infinite
/// allowed); a missing node's parameters and error are NaN. A lookup interpolates these values, so
/// anything else would print as a parameter.
fn check_values(box_: &[ParameterLayout], parameters: &[f64], error: f64, status: NodeStatus) -> Result<(), String> {
    if status == NodeStatus::Missing {
        return if parameters.iter().all(|v| v.is_nan()) && error.is_nan() {
            Ok(())
        } else {
            Err("a missing node's parameters and error must be NaN".into())
        };
    }
    let ok = status == NodeStatus::Ok;
    for (b, &v) in box_.iter().zip(parameters) {
        let in_box = v >= b.lower && v <= b.upper;
        if !(in_box || (!ok && v.is_nan())) {
            let allowed = if ok { "" } else { " (or NaN for a failed fit)" };
            return Err(format!("{} = {v} is outside the search box [{}, {}]{allowed}", b.name, b.lower, b.upper));
        }
    }
    if !(error >= 0.0 && (error.is_finite() || !ok)) {
        let allowed = if ok { "a finite number >= 0" } else { "a number >= 0" };
        return Err(format!("error = {error}: expected {allowed}"));
    }
    Ok(())
}

/// Checks a row's leave-one-out figures: deviations finite and >= 0, the simulated error >= 0 and its
/// increase a number (both infinite where the prediction's simulation failed).
fn check_loo(names: &[String], loo: &NodeLoo) -> Result<(), String> {
    for (name, &d) in names.iter().zip(&loo.deviation) {
        if !(d.is_finite() && d >= 0.0) {
            return Err(format!("loo_{name} = {d}: expected a finite number >= 0"));
        }
    }
    if loo.error.is_nan() || loo.error < 0.0 {
        return Err(format!("loo_error = {}: expected a number >= 0", loo.error));
    }
    if loo.increase.is_nan() {
        return Err("loo_error_increase = NaN: expected a number".into());
    }
    Ok(())
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A parameter's search coordinate: the value, or its log10.
pub fn to_search(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear => v,
        Scale::Log10 => v.log10(),
    }
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename.
fn write_atomic(path: &Path, text: &str) -> Result<(), TableError> {
    let tmp = path.with_extension("tmp");
    let io = |e| TableError::Io { action: "cannot write", path: path.to_path_buf(), source: e };
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}
