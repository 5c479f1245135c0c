//! Issue 26: a table folder is input, and nothing in it is trusted. Item 2: a `table.json` whose axes'
//! product is huge allocated it before reading a row (5e18 bytes); now the axes are bounded
//! (`MAX_NODES`, checked arithmetic) and cross-checked against `table.csv`'s rows before any slot is
//! allocated.

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
