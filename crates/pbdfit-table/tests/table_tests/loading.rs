//! A table folder is input, and nothing in it is trusted. Item 2: a `table.json` whose axes'
//! product is huge allocated it before reading a row (5e18 bytes); now the axes are bounded
//! (`MAX_NODES`, checked arithmetic) and cross-checked against `table.csv`'s rows before any slot is
//! allocated. Item 8: lookup trusted the values, printing `kd = NaN` from a table.csv with NaN in a
//! parameter column; now every value is checked against the model's box on load, naming the line.

use pbdfit_table::axes::MAX_NODES;
use pbdfit_table::{BUILTIN_TABLES, Table};
use proptest::prelude::*;

fn shipped() -> (&'static str, serde_json::Value) {
    let (_, csv, json) = BUILTIN_TABLES.iter().find(|t| t.0 == "pbd").unwrap();
    (csv, serde_json::from_str(json).unwrap())
}

/// Valid, ascending values for each axis, `lengths` long (E, nu, dt, nit, N).
fn axes(lengths: [usize; 5]) -> serde_json::Value {
    let axis = |k: usize, f: &dyn Fn(usize) -> f64| (0..k).map(f).collect::<Vec<f64>>();
    serde_json::json!({
        "young": axis(lengths[0], &|i| 100.0 * (i + 1) as f64),
        "poisson": axis(lengths[1], &|i| i as f64 * 1e-4),
        "dt": axis(lengths[2], &|i| 1e-4 * (i + 1) as f64),
        "nit": axis(lengths[3], &|i| (i + 1) as f64),
        "n": axis(lengths[4], &|i| (i + 1) as f64),
    })
}

fn parse_with_axes(lengths: [usize; 5]) -> Result<Table, String> {
    let (csv, mut meta) = shipped();
    meta["axes"] = axes(lengths);
    Table::parse(csv, &meta.to_string(), "t").map_err(|e| e.to_string())
}

#[test]
fn huge_axes_are_refused_before_allocation_naming_the_count() {
    let e = parse_with_axes([1000, 1000, 1000, 1000, 1000]).unwrap_err();
    assert!(e.contains("table.json") && e.contains("1.000e15 nodes") && e.contains(&MAX_NODES.to_string()), "{e}");
    // Within the limit, but not the rows the CSV has.
    let e = parse_with_axes([7, 5, 4, 3, 2]).unwrap_err();
    assert!(e.contains("720 rows") && e.contains("840 nodes"), "{e}");
    assert!(Table::builtin("pbd").unwrap().is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any axis lengths: an error (the shipped CSV has the 720 rows of 6 x 5 x 4 x 3 x 2) naming nodes,
    /// never a panic or an allocation of the product.
    #[test]
    fn any_axis_lengths_are_checked_against_the_rows(lengths in prop::array::uniform5(1usize..200)) {
        let e = parse_with_axes(lengths);
        if lengths != [6, 5, 4, 3, 2] {
            let e = e.unwrap_err();
            prop_assert!(e.contains("nodes"), "{}", e);
        }
    }

    /// Rows dropped or repeated: an error naming the rows or the line, never a panic.
    #[test]
    fn dropped_or_repeated_rows_are_errors(drop in 1usize..721, repeat in 1usize..721, which in 0usize..3) {
        let (csv, meta) = shipped();
        let lines: Vec<&str> = csv.lines().collect();
        let mut edited: Vec<&str> = lines.clone();
        match which {
            0 => { edited.remove(drop); }
            1 => edited.push(lines[repeat]),
            _ => { edited[drop] = lines[repeat]; }
        }
        let text = edited.join("\n") + "\n";
        let result = Table::parse(&text, &meta.to_string(), "t");
        if which == 2 && drop == repeat {
            prop_assert!(result.is_ok());
        } else {
            let e = result.unwrap_err().to_string();
            prop_assert!(e.contains("rows") || e.contains("repeats a node"), "{}", e);
        }
    }
}

/// The shipped table with field `column` of data row `row` (0-based) replaced by `value`.
fn with_field(row: usize, column: usize, value: &str) -> Result<Table, String> {
    let (csv, meta) = shipped();
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[row + 1].split(',').collect();
    fields[column] = value;
    lines[row + 1] = fields.join(",");
    Table::parse(&(lines.join("\n") + "\n"), &meta.to_string(), "t").map_err(|e| e.to_string())
}

#[test]
fn a_parameter_outside_the_box_names_the_line() {
    // Columns: young, poisson, dt, nit, n, kd (5), kv (6), error (7), kd_at_bound, kv_at_bound, status.
    for value in ["NaN", "inf", "-5", "1.5", "-inf"] {
        let e = with_field(0, 5, value).unwrap_err();
        assert!(e.contains("table.csv line 2") && e.contains("kd =") && e.contains("search box [0, 1]"), "{e}");
    }
    let e = with_field(3, 7, "NaN").unwrap_err();
    assert!(e.contains("line 5") && e.contains("error = NaN"), "{e}");
    let e = with_field(3, 10, "okay").unwrap_err();
    assert!(e.contains("line 5") && e.contains("status `okay`"), "{e}");
    let e = with_field(3, 8, "yes").unwrap_err();
    assert!(e.contains("kd_at_bound `yes`"), "{e}");
    // A failed fit's parameters are NaN, its error infinite.
    let mut failed = with_field(0, 10, "failed").map(|_| ()).map_err(|e| e.to_string());
    assert!(failed.is_ok(), "{failed:?}");
    let (csv, meta) = shipped();
    let line = csv.lines().nth(1).unwrap();
    let f: Vec<&str> = line.split(',').collect();
    let failed_line = [&f[..5], &["NaN", "NaN", "inf"], &f[8..10], &["failed"], &f[11..]].concat().join(",");
    failed = Table::parse(&csv.replacen(line, &failed_line, 1), &meta.to_string(), "t")
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert!(failed.is_ok(), "{failed:?}");
    // The box itself is checked against the model's.
    let mut meta = meta;
    meta["parameters"][0]["upper"] = serde_json::json!(f64::MAX);
    meta["parameters"][0]["lower"] = serde_json::json!(-1.0);
    let e = Table::parse(csv, &meta.to_string(), "t").unwrap_err().to_string();
    assert!(e.contains("table.json") && e.contains("kd box"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any value in any parameter, error or leave-one-out column of any row: the table loads with every
    /// value in its box, or the error names the line; never a table that interpolates nonsense.
    #[test]
    fn any_value_in_any_column_is_checked(
        row in 0usize..720,
        column in prop::sample::select(vec![5usize, 6, 7, 12, 13, 14, 15]),
        value in prop_oneof![
            Just("NaN".to_string()), Just("inf".to_string()), Just("-inf".to_string()),
            (-1e3f64..1e3).prop_map(|v| v.to_string()), (-300i32..300).prop_map(|e| format!("1e{e}")),
        ],
    ) {
        match with_field(row, column, &value) {
            Ok(table) => {
                let node = &table.nodes[row];
                for (p, v) in table.meta.parameters.iter().zip(&node.parameters) {
                    prop_assert!(*v >= p.lower && *v <= p.upper, "{} = {}", p.name, v);
                }
                prop_assert!(node.error.is_finite() && node.error >= 0.0);
            }
            Err(e) => prop_assert!(e.contains(&format!("table.csv line {}", row + 2)), "{}", e),
        }
    }
}

/// The shipped `pbd-full` is part-built. Its N = 8 nodes are `missing` (NaN parameters and
/// error, no leave-one-out), table.json counts them, and every N = 1, 2 and 4 node is fitted. A missing
/// row with a value, a count that disagrees with the rows, or a missing row with leave-one-out figures is
/// refused naming what is wrong.
#[test]
fn the_part_built_table_marks_its_missing_nodes_and_checks_them() {
    let (_, csv, json) = BUILTIN_TABLES.iter().find(|t| t.0 == "pbd-full").unwrap();
    let table = Table::parse(csv, json, "pbd-full").unwrap();
    let missing: Vec<_> = table.nodes.iter().filter(|n| n.status == pbdfit_table::NodeStatus::Missing).collect();
    assert_eq!(missing.len(), table.meta.missing);
    assert_eq!(table.meta.nodes, 12_288);
    assert!(missing.iter().all(|n| n.n >= 8 && n.parameters.iter().all(|v| v.is_nan()) && n.loo.is_none()));
    assert!(table.nodes.iter().filter(|n| n.n <= 4).all(|n| n.status != pbdfit_table::NodeStatus::Missing));
    assert_eq!(missing.len(), 3_072);

    let mut meta: serde_json::Value = serde_json::from_str(json).unwrap();
    meta["missing"] = serde_json::json!(3_071);
    let e = Table::parse(csv, &meta.to_string(), "t").unwrap_err().to_string();
    assert!(e.contains("3072 missing node(s), table.json says 3071"), "{e}");

    let lines: Vec<&str> = csv.lines().collect();
    let k = lines.iter().position(|l| l.contains(",missing,")).unwrap();
    let mutate = |from: &str, to: &str| {
        let mut l = lines.clone();
        let changed = l[k].replacen(from, to, 1);
        l[k] = &changed;
        Table::parse(&(l.join("\n") + "\n"), json, "t").unwrap_err().to_string()
    };
    let e = mutate("NaN", "0.5");
    assert!(
        e.contains(&format!("line {}", k + 1)) && e.contains("missing node's parameters and error must be NaN"),
        "{e}"
    );
    let e = mutate(",missing,", ",missing,nit");
    assert!(e.contains("missing node has leave-one-out figures"), "{e}");
}

/// Every table compiled into the binary reads, its `missing` count agrees with its rows, and a lookup at
/// its first fitted node gives that node's values.
#[test]
fn every_built_in_table_reads_and_looks_up_its_nodes() {
    for (name, _, _) in BUILTIN_TABLES {
        let table = Table::builtin(name).unwrap().unwrap_or_else(|e| panic!("{name}: {e}"));
        let missing = table.nodes.iter().filter(|n| n.status == pbdfit_table::NodeStatus::Missing).count();
        assert_eq!(missing, table.meta.missing, "{name}");
        let node = table.nodes.iter().find(|n| n.is_ok()).unwrap();
        let q = pbdfit_table::Query { young: node.young, poisson: node.poisson, dt: node.dt, nit: node.nit, n: node.n };
        let l = pbdfit_table::lookup(&table, &q, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<f64> = l.parameters.iter().map(|p| p.value).collect();
        assert_eq!(got, node.parameters, "{name}");
    }
}
