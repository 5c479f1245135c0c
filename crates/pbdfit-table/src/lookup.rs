//! Lookup: a query's parameters interpolated from a table, with the nodes it used, the leave-one-out
//! error estimate, the search box's edge and the range checks.

use pbdfit_mesh::display::number;
use serde::Serialize;

use crate::TableError;
use crate::axes::DIMS;
use crate::format::{Node, NodeStatus, Table};
use crate::interp::{Position, corners, interpolate_parameter, locate, weighted};

/// A lookup's settings and material.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Query {
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
}

impl Query {
    fn values(&self) -> [f64; 5] {
        [self.young, self.poisson, self.dt, self.nit as f64, self.n as f64]
    }

    /// Checks that the query is a valid material and setting (whatever the table): `Err` names the
    /// parameter.
    pub fn check(&self) -> Result<(), TableError> {
        for (d, v) in DIMS.iter().zip(self.values()) {
            d.check(v).map_err(|message| TableError::Query {
                parameter: d.name().into(),
                value: v.to_string(),
                message,
            })?;
        }
        Ok(())
    }
}

/// A parameter as the lookup and mapping reports print it: `name = value` to 6 decimals when
/// dimensionless (unit `1`), else `name = value unit` to 7 significant digits.
pub fn parameter_text(name: &str, value: f64, unit: &str) -> String {
    if unit == "1" { format!("{name} = {value:.6}") } else { format!("{name} = {value:.6e} {unit}") }
}

/// One interpolated parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LookupParameter {
    /// Name.
    pub name: String,
    /// Unit (`1` for dimensionless).
    pub unit: String,
    /// Value in its natural units.
    pub value: f64,
}

/// A query coordinate outside the table that `--extrapolate` moved to the table's edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extrapolated {
    /// The setting.
    pub parameter: String,
    /// The value asked for.
    pub value: f64,
    /// The value used: the table's nearest edge.
    pub used: f64,
    /// The table's range.
    pub range: [f64; 2],
}

/// A node of the interpolation cell (with a non-zero weight).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CornerNode {
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
    /// Interpolation weight.
    pub weight: f64,
    /// The node's fit error.
    pub error: f64,
    /// The node's parameters on the search box's edge.
    pub at_bound: Vec<String>,
    /// The node's worst leave-one-out error increase (`None`: the node is on the table's edge).
    pub loo_error_increase: Option<f64>,
}

/// The lookup's error estimate: the worst leave-one-out figures among the cell's nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// What the estimate is.
    pub method: String,
    /// Cell nodes with leave-one-out figures (nodes on the table's edge have none).
    pub nodes_with_estimate: usize,
    /// Cell nodes.
    pub nodes: usize,
    /// Per parameter, the worst |predicted - fitted| in search coordinates (log10 for compliances);
    /// `None` when no node of the cell has a leave-one-out prediction (not a perfect 0).
    pub parameters: Vec<(String, Option<f64>)>,
    /// The worst error increase of a simulated prediction over the fitted error.
    pub error_increase: Option<f64>,
    /// The worst error of a simulated prediction.
    pub error: Option<f64>,
}

/// The answer to a lookup.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lookup {
    /// The query as asked.
    pub query: Query,
    /// The interpolated parameters.
    pub parameters: Vec<LookupParameter>,
    /// Whether any coordinate lay outside the table (then see `extrapolated`).
    pub extrapolated_any: bool,
    /// The coordinates moved to the table's edge by `--extrapolate`.
    pub extrapolated: Vec<Extrapolated>,
    /// The cell's nodes with non-zero weight (one node when the query is a node).
    pub corners: Vec<CornerNode>,
    /// The nearest node: the corner with the largest weight.
    pub nearest: CornerNode,
    /// The fit error interpolated linearly in its value from the cell's nodes (the error a fit at the query would give,
    /// roughly; the leave-one-out estimate says what interpolating the parameters costs on top).
    pub interpolated_fit_error: f64,
    /// Leave-one-out estimate.
    pub estimate: Estimate,
    /// The parameters on the search box's edge at some corner: there the table cannot reach the target
    /// (the best fit may lie outside the box).
    pub at_bound: Vec<String>,
    /// Table name.
    pub table: String,
    /// Where the table came from (folder or `built-in <name>`).
    pub source: String,
    /// Table description.
    pub description: String,
    /// Model.
    pub model: String,
    /// Scene set.
    pub scene: String,
    /// Reference id.
    pub reference: String,
    /// Mass model.
    pub mass_model: String,
    /// pbdfit version that built the table.
    pub pbdfit_version: String,
    /// Nodes the table has not fitted yet (a part-built table; 0 for a complete one). The query's cell
    /// has none of them (else the lookup is refused naming them).
    pub missing_nodes: usize,
}

/// Looks `query` up in `table`. Outside the table's range the lookup is refused naming the parameter,
/// its value and the range, unless `extrapolate`: then each such coordinate is clamped to the table's
/// nearest edge (the parameters are those of the edge, not a linear extension, which could leave the
/// search box) and the answer lists it in `extrapolated`.
pub fn lookup(table: &Table, query: &Query, extrapolate: bool) -> Result<Lookup, TableError> {
    query.check()?;
    let axes = &table.meta.axes;
    let coordinates = axes.coordinates();
    let shape = axes.shape();
    let mut cells = Vec::with_capacity(5);
    let mut extrapolated = Vec::new();
    for (k, (d, v)) in DIMS.iter().zip(query.values()).enumerate() {
        let nodes = axes.get(*d);
        let (lower, upper) = (nodes[0], nodes[nodes.len() - 1]);
        let position = locate(&coordinates[k], d.coordinate(v));
        let cell = match position {
            Position::Inside(i, t) => (i, t),
            outside => {
                if !extrapolate {
                    return Err(TableError::OutOfRange {
                        parameter: d.name().into(),
                        value: v,
                        table: table.meta.name.clone(),
                        lower,
                        upper,
                    });
                }
                let (used, cell) = match outside {
                    Position::Below => (lower, (0, 0.0)),
                    _ if nodes.len() == 1 => (upper, (0, 0.0)),
                    _ => (upper, (nodes.len() - 2, 1.0)),
                };
                extrapolated.push(Extrapolated { parameter: d.name().into(), value: v, used, range: [lower, upper] });
                cell
            }
        };
        cells.push(cell);
    }
    let weights = corners(&shape, &cells);
    let corner_nodes: Vec<(&Node, f64)> = weights.iter().map(|&(i, w)| (&table.nodes[i], w)).collect();
    let missing: Vec<String> = corner_nodes
        .iter()
        .filter(|(n, _)| n.status == NodeStatus::Missing)
        .map(|(n, _)| {
            format!("E = {:e}, nu = {}, dt = {} s, nit = {}, N = {}", n.young, n.poisson, number(n.dt), n.nit, n.n)
        })
        .collect();
    if !missing.is_empty() {
        return Err(TableError::MissingNodes {
            table: table.meta.name.clone(),
            definition: table.meta.definition.clone(),
            built: table.meta.nodes - table.meta.missing,
            nodes: table.meta.nodes,
            missing,
            fit: format!(
                "pbdfit fit --scene {} --model {} --young {} --poisson {} --dt {} --nit {} --n {}",
                table.meta.scene,
                table.meta.model,
                query.young,
                query.poisson,
                number(query.dt),
                query.nit,
                query.n
            ),
        });
    }
    if let Some((bad, _)) = corner_nodes.iter().find(|(n, _)| !n.is_ok()) {
        return Err(TableError::Format {
            origin: table.source.clone(),
            message: format!(
                "the fit at node E = {:e}, nu = {}, dt = {} s, nit = {}, N = {} failed, and the query's cell needs it",
                bad.young,
                bad.poisson,
                number(bad.dt),
                bad.nit,
                bad.n
            ),
        });
    }
    let names: Vec<String> = table.meta.parameters.iter().map(|p| p.name.clone()).collect();
    let parameters = table
        .meta
        .parameters
        .iter()
        .enumerate()
        .map(|(j, p)| {
            // At a node (one corner of weight 1) the node's own value, bit for bit; else interpolated in
            // the cell's interpolation coordinate (log10 where every corner value is > 0).
            let value = interpolate_parameter(p.scale, &weights, |i| table.nodes[i].parameters[j]).value;
            LookupParameter { name: p.name.clone(), unit: p.unit.clone(), value }
        })
        .collect();
    let corner = |n: &Node, w: f64| CornerNode {
        young: n.young,
        poisson: n.poisson,
        dt: n.dt,
        nit: n.nit,
        n: n.n,
        weight: w,
        error: n.error,
        at_bound: names.iter().zip(&n.at_bound).filter(|(_, b)| **b).map(|(s, _)| s.clone()).collect(),
        loo_error_increase: n.loo.as_ref().map(|l| l.increase),
    };
    let corners: Vec<CornerNode> = corner_nodes.iter().map(|(n, w)| corner(n, *w)).collect();
    let nearest = corners
        .iter()
        .fold(None::<&CornerNode>, |best, c| match best {
            Some(b) if b.weight >= c.weight => Some(b),
            _ => Some(c),
        })
        .cloned()
        .expect("a cell has at least one corner");
    let with_loo: Vec<_> = corner_nodes.iter().filter_map(|(n, _)| n.loo.as_ref()).collect();
    let estimate = Estimate {
        method: "the worst leave-one-out figures among the cell's nodes (each node predicted from its two \
                 neighbours along each axis, the node dropped, and the prediction simulated); nodes on the \
                 table's edge have none"
            .into(),
        nodes_with_estimate: with_loo.len(),
        nodes: corner_nodes.len(),
        parameters: names
            .iter()
            .enumerate()
            .map(|(j, n)| (n.clone(), with_loo.iter().map(|l| l.deviation[j]).reduce(f64::max)))
            .collect(),
        error_increase: with_loo.iter().map(|l| l.increase).reduce(f64::max),
        error: with_loo.iter().map(|l| l.error).reduce(f64::max),
    };
    let mut at_bound: Vec<String> = Vec::new();
    for c in &corners {
        for p in &c.at_bound {
            if !at_bound.contains(p) {
                at_bound.push(p.clone());
            }
        }
    }
    let m = &table.meta;
    Ok(Lookup {
        query: *query,
        parameters,
        extrapolated_any: !extrapolated.is_empty(),
        extrapolated,
        interpolated_fit_error: weighted(&weights, |i| table.nodes[i].error),
        corners,
        nearest,
        estimate,
        at_bound,
        table: m.name.clone(),
        source: table.source.clone(),
        description: m.description.clone(),
        model: m.model.clone(),
        scene: m.scene.clone(),
        reference: m.reference.clone(),
        mass_model: m.mass_model.clone(),
        pbdfit_version: m.pbdfit_version.clone(),
        missing_nodes: m.missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axes::{Axes, Dim, unflat};
    use crate::format::{LooSummary, NodeLoo, Stats, TableMeta};
    use pbdfit_results::{ParameterLayout, Scale};

    /// A synthetic table: kd = 2.5e-6 E 10^nu (a power law in E; linear-scale) except kd = 0 at nu = 0
    /// (the search box's lower edge), alpha = 10^(-6 - log10 dt) (log10), on E in {1e2, 1e4},
    /// nu in {0, 0.2, 0.4}, dt in {1e-3, 1e-2}, nit in {1, 4}, N in {2}.
    fn table() -> Table {
        let axes = Axes {
            young: vec![1e2, 1e4],
            poisson: vec![0.0, 0.2, 0.4],
            dt: vec![1e-3, 1e-2],
            nit: vec![1.0, 4.0],
            n: vec![2.0],
        };
        let shape = axes.shape();
        let nodes = (0..axes.nodes())
            .map(|i| {
                let s = axes.at(&unflat(&shape, i));
                Node {
                    young: s[0],
                    poisson: s[1],
                    dt: s[2],
                    nit: s[3] as usize,
                    n: s[4] as usize,
                    parameters: vec![kd(s[0], s[1]), 10f64.powf(-6.0 - s[2].log10())],
                    error: 0.01 * (1.0 + s[1]),
                    at_bound: vec![false, s[1] == 0.4 && s[0] == 1e4],
                    status: NodeStatus::Ok,
                    loo: (s[1] == 0.2).then(|| NodeLoo {
                        axes: vec![Dim::Poisson],
                        deviation: vec![0.001, 0.0],
                        error: 0.02,
                        increase: 0.005 * s[0].log10(),
                    }),
                }
            })
            .collect();
        let stats = Stats { median: None, p90: None, max: None };
        let layout =
            |name: &str, scale| ParameterLayout { name: name.into(), unit: "1".into(), scale, lower: 1e-9, upper: 1.0 };
        Table {
            meta: TableMeta {
                name: "synthetic".into(),
                description: String::new(),
                definition: String::new(),
                model: "test".into(),
                parameters: vec![layout("kd", Scale::Linear), layout("alpha", Scale::Log10)],
                scene: "gravity".into(),
                parts: Vec::new(),
                reference: "linear static".into(),
                mass_model: "lumped".into(),
                search: None,
                grid: 21,
                min_step: 1e-4,
                axes,
                interpolation: String::new(),
                nodes: 24,
                failed: 0,
                missing: 0,
                at_bound: 0,
                pbdfit_version: "0".into(),
                leave_one_out: LooSummary {
                    method: String::new(),
                    nodes: 0,
                    predictions: 0,
                    parameters: Vec::new(),
                    error_increase: stats.clone(),
                    relative_error_increase: stats,
                },
            },
            nodes,
            source: "memory".into(),
        }
    }

    fn kd(young: f64, poisson: f64) -> f64 {
        if poisson == 0.0 { 0.0 } else { 2.5e-6 * young * 10f64.powf(poisson) }
    }

    fn q(young: f64, poisson: f64, dt: f64, nit: usize, n: usize) -> Query {
        Query { young, poisson, dt, nit, n }
    }

    #[test]
    fn nodes_are_returned_bit_for_bit_and_cells_interpolated_in_log10_or_linear_by_a_zero_corner() {
        let t = table();
        for node in &t.nodes {
            let l = lookup(&t, &q(node.young, node.poisson, node.dt, node.nit, node.n), false).unwrap();
            assert_eq!(l.parameters[0].value.to_bits(), node.parameters[0].to_bits());
            assert_eq!(l.parameters[1].value.to_bits(), node.parameters[1].to_bits());
            assert_eq!(l.corners.len(), 1);
        }
        // log10 kd linear in log10 E and nu where kd > 0 at every corner (nu >= 0.2), log10 alpha in
        // log10 dt: interpolation is exact (to rounding), though kd is not linear in E.
        let l = lookup(&t, &q(1e3, 0.3, 10f64.powf(-2.5), 2, 2), false).unwrap();
        assert!((l.parameters[0].value / kd(1e3, 0.3) - 1.0).abs() < 1e-12, "{:?}", l.parameters);
        assert!((l.parameters[1].value / 10f64.powf(-3.5) - 1.0).abs() < 1e-12, "{:?}", l.parameters);
        // 2 (E) x 2 (nu) x 2 (dt) x 2 (nit) corners, N a one-node axis.
        assert_eq!(l.corners.len(), 16);
        // nu in (0.2, 0.4): the corners at nu = 0.2 carry leave-one-out figures, the worst at E = 1e4.
        assert_eq!(l.estimate.nodes_with_estimate, 8);
        assert_eq!(l.estimate.error_increase, Some(0.02));
        assert_eq!(l.at_bound, vec!["alpha".to_string()]);
        assert!(!l.extrapolated_any);
        // nu in (0, 0.2): kd = 0 at the corners with nu = 0, so kd is linear in the value there (half of the
        // mean of kd(1e2, 0.2) and kd(1e4, 0.2)); alpha stays log10.
        let l = lookup(&t, &q(1e3, 0.1, 10f64.powf(-2.5), 2, 2), false).unwrap();
        let linear = 0.5 * (0.5 * kd(1e2, 0.2) + 0.5 * kd(1e4, 0.2));
        assert!((l.parameters[0].value / linear - 1.0).abs() < 1e-12, "{:?}", l.parameters);
        assert!((l.parameters[1].value / 10f64.powf(-3.5) - 1.0).abs() < 1e-12, "{:?}", l.parameters);
        // On the face nu = 0.2 the nu = 0 corners have weight 0: log10 again, exact.
        let l = lookup(&t, &q(1e3, 0.2, 1e-3, 1, 2), false).unwrap();
        assert!((l.parameters[0].value / kd(1e3, 0.2) - 1.0).abs() < 1e-12, "{:?}", l.parameters);
    }

    #[test]
    fn outside_the_range_is_refused_naming_the_parameter_unless_extrapolating() {
        let t = table();
        let e = lookup(&t, &q(1e5, 0.1, 1e-3, 1, 2), false).unwrap_err().to_string();
        assert!(e.contains("--young 100000") && e.contains("[100, 10000]") && e.contains("--extrapolate"), "{e}");
        let e = lookup(&t, &q(1e3, 0.1, 1e-3, 1, 4), false).unwrap_err().to_string();
        assert!(e.contains("--n 4") && e.contains("[2, 2]"), "{e}");
        let l = lookup(&t, &q(1e5, 0.1, 1e-3, 1, 4), true).unwrap();
        assert!(l.extrapolated_any);
        let moved: Vec<(&str, f64)> = l.extrapolated.iter().map(|x| (x.parameter.as_str(), x.used)).collect();
        assert_eq!(moved, [("young", 1e4), ("n", 2.0)]);
        let edge = lookup(&t, &q(1e4, 0.1, 1e-3, 1, 2), false).unwrap();
        assert_eq!(l.parameters, edge.parameters);
    }

    #[test]
    fn invalid_materials_and_settings_are_refused_naming_the_parameter() {
        let t = table();
        for (query, name) in [
            (q(1e3, 0.5, 1e-3, 1, 2), "--poisson 0.5"),
            (q(0.0, 0.1, 1e-3, 1, 2), "--young 0"),
            (q(-1.0, 0.1, 1e-3, 1, 2), "--young -1"),
            (q(1e3, 0.1, 0.0, 1, 2), "--dt 0"),
            (q(1e3, 0.1, 1e-3, 0, 2), "--nit 0"),
            (q(1e3, 0.1, 1e-3, 1, 0), "--n 0"),
        ] {
            let e = lookup(&t, &query, true).unwrap_err();
            assert!(e.is_input() && e.to_string().starts_with(name), "{e}");
        }
    }
}
