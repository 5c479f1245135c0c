//! End-to-end tests of `pbdfit table` and `pbdfit lookup`: a tiny real table (gravity-floor, N = 1, two
//! dt, three nit, two E, two nu, pbd) whose nodes are exactly what `pbdfit fit` gives, looked up bit for
//! bit at a node, its nit = 2 nodes predicted by leave-one-out from their neighbours, resumed after a
//! kill without changing a byte; and bad input refused with exit code 2.

use std::path::Path;

use crate::common::{assert_input_error, csv_rows, json, pbdfit, scratch, stderr, stdout};

// An 11 x 11 grid keeps the 24 fits quick; `pbdfit fit --grid 11` is the same fit. The nit axis has an
// interior value (2), so leave-one-out predicts the 8 nodes at nit = 2 from nit = 1 and 4.
const TINY: &str = r#"
name = "tiny"
description = "test table"
model = "pbd"
scene = "gravity-floor"
[fit]
grid = 11
[axes]
young = [1e3, 1e4]
poisson = [0.0, 0.3]
dt = [0.005, 0.01]
nit = [1, 2, 4]
n = [1]
"#;

/// The (kd, kv) of the table.csv row at the given settings.
fn row(dir: &Path, young: &str, poisson: &str, dt: &str, nit: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(dir.join("table.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(&header[..8], ["young", "poisson", "dt", "nit", "n", "kd", "kv", "error"]);
    let want = [young, poisson, dt, nit, "1"].map(|s| s.parse::<f64>().unwrap());
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let settings: Vec<f64> = f[..5].iter().map(|s| s.parse().unwrap()).collect();
        if settings == want {
            return (f[5].parse().unwrap(), f[6].parse().unwrap());
        }
    }
    panic!("no row {want:?} in\n{text}");
}

/// Each nit = 2 node's leave-one-out deviations are |prediction - fitted value|, the prediction being the
/// interpolation of its nit = 1 and nit = 4 neighbours halfway in log2 nit (in log10 of a parameter where
/// both are > 0, else linearly; kd and kv are searched linearly, so the deviation is in their units),
/// and its error increase is the simulated prediction's error minus the node's own.
fn leave_one_out_predicts_from_the_neighbours(dir: &Path) {
    let rows = csv_rows(&dir.join("table.csv"));
    let f = |r: &std::collections::HashMap<String, String>, k: &str| -> f64 { r[k].parse().unwrap() };
    let at = |young: f64, poisson: f64, dt: f64, nit: f64| {
        rows.iter()
            .find(|r| [f(r, "young"), f(r, "poisson"), f(r, "dt"), f(r, "nit")] == [young, poisson, dt, nit])
            .unwrap()
    };
    let mut predicted = 0;
    for r in &rows {
        let (young, poisson, dt, nit) = (f(r, "young"), f(r, "poisson"), f(r, "dt"), f(r, "nit"));
        if nit != 2.0 {
            assert_eq!(r["loo_axes"], "", "a boundary node is not predicted");
            continue;
        }
        predicted += 1;
        assert_eq!(r["loo_axes"], "nit");
        let (lo, hi) = (at(young, poisson, dt, 1.0), at(young, poisson, dt, 4.0));
        for p in ["kd", "kv"] {
            let (a, b) = (f(lo, p), f(hi, p));
            let prediction = if a > 0.0 && b > 0.0 { (a * b).sqrt() } else { 0.5 * (a + b) };
            let want = (prediction - f(r, p)).abs();
            let got = f(r, &format!("loo_{p}"));
            assert!((got - want).abs() <= 1e-12, "{p} at {young} {poisson} {dt}: deviation {got} vs {want}");
        }
        let (error, loo_error) = (f(r, "error"), f(r, "loo_error"));
        assert!(loo_error.is_finite() && loo_error > 0.0);
        assert!((f(r, "loo_error_increase") - (loo_error - error)).abs() <= 1e-12 * loo_error, "{r:?}");
    }
    assert_eq!(predicted, 8);
}

#[test]
fn a_tiny_table_matches_pbdfit_fit_bit_for_bit_and_resumes_unchanged() {
    let dir = scratch("tiny");
    let file = dir.join("tiny.toml");
    std::fs::write(&file, TINY).unwrap();
    let out = dir.join("out");
    let built = pbdfit(&["table", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--jobs", "2"]);
    assert!(built.status.success(), "{}", stderr(&built));
    let printed = stdout(&built);
    assert!(printed.contains("24 nodes (24 fitted now, 0 resumed, 0 failed"), "{printed}");
    let csv = std::fs::read(out.join("table.csv")).unwrap();
    let meta = std::fs::read(out.join("table.json")).unwrap();
    let table: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    assert_eq!(table["model"], "pbd");
    assert_eq!(table["nodes"], 24);
    // A table file without `[fit] search` runs the gradient search, and table.json says so.
    assert_eq!(table["search"], "gradient");
    // Only the nit = 2 nodes are interior (along nit), each predicted once.
    assert_eq!(table["leave_one_out"]["predictions"], 8);
    leave_one_out_predicts_from_the_neighbours(&out);

    // One node against `pbdfit fit` at its setting: the same kd and kv, bit for bit.
    let fit = json(&pbdfit(&[
        "fit",
        "--scene",
        "gravity-floor",
        "--n",
        "1",
        "--dt",
        "0.005",
        "--nit",
        "2",
        "--young",
        "1e4",
        "--poisson",
        "0.3",
        "--grid",
        "11",
        "--json",
    ]));
    let (kd, kv) = row(&out, "1e4", "0.3", "0.005", "2");
    assert_eq!(fit["kd"].as_f64().unwrap().to_bits(), kd.to_bits(), "kd: fit {} table {kd}", fit["kd"]);
    assert_eq!(fit["kv"].as_f64().unwrap().to_bits(), kv.to_bits(), "kv: fit {} table {kv}", fit["kv"]);

    // The lookup at that node returns the node's values.
    let node = [
        "lookup",
        "--table",
        out.to_str().unwrap(),
        "--young",
        "1e4",
        "--poisson",
        "0.3",
        "--dt",
        "0.005",
        "--nit",
        "2",
        "--n",
        "1",
        "--json",
    ];
    let l = json(&pbdfit(&node));
    let values: Vec<f64> = l["parameters"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect();
    assert_eq!(values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [kd.to_bits(), kv.to_bits()]);
    assert_eq!(l["corners"].as_array().unwrap().len(), 1);
    assert_eq!(l["extrapolated_any"], false);
    // Between nodes: inside the range of the cell's values (a convex combination).
    let mid = json(&pbdfit(&[
        "lookup",
        "--table",
        out.to_str().unwrap(),
        "--young",
        "3e3",
        "--poisson",
        "0.15",
        "--dt",
        "1/150",
        "--nit",
        "1",
        "--n",
        "1",
        "--json",
    ]));
    assert_eq!(mid["corners"].as_array().unwrap().len(), 8);
    let corner_kd: Vec<(f64, f64, f64, usize)> = mid["corners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["young"].as_f64().unwrap(), c["poisson"].as_f64().unwrap(), c["dt"].as_f64().unwrap(), 1))
        .collect();
    let kds: Vec<f64> = corner_kd
        .iter()
        .map(|(e, nu, dt, _)| row(&out, &e.to_string(), &nu.to_string(), &dt.to_string(), "1").0)
        .collect();
    let got = mid["parameters"][0]["value"].as_f64().unwrap();
    let (lo, hi) = kds.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    assert!(lo <= got && got <= hi, "kd {got} outside the corners' [{lo}, {hi}]");

    // Resumed: nothing is refitted and the table's files keep every byte.
    let again = pbdfit(&["table", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--jobs", "1"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("(0 fitted now, 24 resumed"));
    assert_eq!(std::fs::read(out.join("table.csv")).unwrap(), csv);
    assert_eq!(std::fs::read(out.join("table.json")).unwrap(), meta);

    // Killed after 5 fits (no table files yet), then resumed on another thread count: the same bytes.
    let killed = dir.join("killed");
    let k = pbdfit(&[
        "table",
        file.to_str().unwrap(),
        "--out",
        killed.to_str().unwrap(),
        "--jobs",
        "1",
        "--abort-after",
        "5",
    ]);
    assert!(!k.status.success());
    assert!(!killed.join("table.csv").exists() && !killed.join("table.json").exists());
    // Written part-built (--partial fits nothing): the 19 nodes without a fit are listed as missing, a
    // lookup at a fitted node gives the value the complete table will have and says the table is
    // part-built, and a lookup whose cell needs a missing node is refused naming it.
    let partial = pbdfit(&["table", file.to_str().unwrap(), "--out", killed.to_str().unwrap(), "--partial"]);
    assert!(partial.status.success(), "{}", stderr(&partial));
    assert!(stdout(&partial).contains("(0 fitted now, 5 resumed, 0 failed, 19 MISSING"), "{}", stdout(&partial));
    let part: serde_json::Value = serde_json::from_slice(&std::fs::read(killed.join("table.json")).unwrap()).unwrap();
    assert_eq!((part["nodes"].as_u64(), part["missing"].as_u64()), (Some(24), Some(19)));
    let rows = csv_rows(&killed.join("table.csv"));
    assert_eq!(rows.len(), 24);
    let status = |r: &std::collections::HashMap<String, String>| r["status"].clone();
    assert_eq!(rows.iter().filter(|r| status(r) == "missing").count(), 19);
    assert!(rows.iter().filter(|r| status(r) == "missing").all(|r| r["kd"] == "NaN" && r["error"] == "NaN"));
    let at = |r: &std::collections::HashMap<String, String>, json_out: bool| {
        let mut a: Vec<String> =
            ["lookup", "--table", killed.to_str().unwrap()].iter().map(|s| s.to_string()).collect();
        for (flag, key) in
            [("--young", "young"), ("--poisson", "poisson"), ("--dt", "dt"), ("--nit", "nit"), ("--n", "n")]
        {
            a.push(flag.into());
            a.push(r[key].clone());
        }
        if json_out {
            a.push("--json".into());
        }
        pbdfit(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>())
    };
    let fitted = rows.iter().find(|r| status(r) == "ok").unwrap();
    let l = json(&at(fitted, true));
    assert_eq!(l["missing_nodes"], 19);
    assert_eq!(l["parameters"][0]["value"].as_f64().unwrap().to_bits(), fitted["kd"].parse::<f64>().unwrap().to_bits());
    assert!(stdout(&at(fitted, false)).contains("part-built table: 19 of its nodes have no fit yet"));
    let absent = rows.iter().find(|r| status(r) == "missing").unwrap();
    let named = format!("E = {:e}, nu = {}", absent["young"].parse::<f64>().unwrap(), absent["poisson"]);
    let refused = at(absent, false);
    assert_input_error(&refused, &["part-built (5 of 24 nodes fitted)", &named, "pbdfit table tiny.toml"]);
    // The quick answer comes first: the fit of the query itself, a command that runs as written.
    let e = stderr(&refused);
    let command = e.split("fit it directly (seconds): `").nth(1).and_then(|r| r.split('`').next()).unwrap();
    let args: Vec<&str> = command.split_whitespace().skip(1).chain(["--json"]).collect();
    let direct = json(&pbdfit(&args));
    assert!(direct["error"].as_f64().is_some_and(f64::is_finite), "{command}: {direct}");
    let resumed = pbdfit(&["table", file.to_str().unwrap(), "--out", killed.to_str().unwrap(), "--jobs", "2"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(stdout(&resumed).contains("(19 fitted now, 5 resumed"));
    assert_eq!(std::fs::read(killed.join("table.csv")).unwrap(), csv);
    assert_eq!(std::fs::read(killed.join("table.json")).unwrap(), meta);

    // Outside the range: refused naming the parameter, or flagged with --extrapolate.
    let mut far = node;
    far[4] = "1e5";
    let refused = pbdfit(&far);
    assert_input_error(&refused, &["--young 100000", "[1000, 10000]"]);
    let mut extrapolated = far.to_vec();
    extrapolated.push("--extrapolate");
    let x = json(&pbdfit(&extrapolated));
    assert_eq!(x["extrapolated_any"], true);
    assert_eq!(x["extrapolated"][0]["parameter"], "young");
    assert_eq!(x["parameters"][0]["value"].as_f64().unwrap().to_bits(), kd.to_bits());
    let text =
        pbdfit(&extrapolated[..extrapolated.len() - 2].iter().chain(&["--extrapolate"]).copied().collect::<Vec<_>>());
    assert!(stdout(&text).contains("EXTRAPOLATED: young = 100000"));
}

#[test]
fn bad_table_files_and_lookups_exit_2_naming_what_is_wrong_and_write_nothing() {
    let dir = scratch("bad");
    for (from, to, named) in [
        ("poisson = [0.0, 0.3]", "poisson = []", "axes.poisson"),
        ("poisson = [0.0, 0.3]", "poisson = [0.0, 0.5]", "axes.poisson[1]"),
        ("young = [1e3, 1e4]", "young = [0, 1e4]", "axes.young[0]"),
        ("dt = [0.005, 0.01]", "dt = [0.01, 0.005]", "axes.dt[1]"),
    ] {
        let file = dir.join("bad.toml");
        std::fs::write(&file, TINY.replace(from, to)).unwrap();
        let out = dir.join("out");
        let r = pbdfit(&["table", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_input_error(&r, &["bad.toml", named]);
        assert!(!out.exists(), "{to}: something was written");
    }
    // A lookup with an invalid material or setting names the parameter (whatever the table).
    for (flag, value, says) in [
        ("--poisson", "0.5", "incompressible"),
        ("--young", "0", "E must be a Young's modulus > 0 Pa"),
        ("--young", "-3", "E must be a Young's modulus > 0 Pa"),
        ("--dt", "0", "dt must be a time step > 0 s"),
        ("--nit", "0", "nit must be"),
        ("--n", "0", "N must be"),
    ] {
        let mut args = vec![
            "lookup",
            "--table",
            "pbd",
            "--young",
            "1e3",
            "--poisson",
            "0.3",
            "--dt",
            "0.01",
            "--nit",
            "1",
            "--n",
            "1",
        ];
        let i = args.iter().position(|a| *a == flag).unwrap();
        args[i + 1] = value;
        assert_input_error(&pbdfit(&args), &[&format!("{flag} {value}"), says]);
    }
    let r = pbdfit(&[
        "lookup",
        "--table",
        "nosuch",
        "--young",
        "1e3",
        "--poisson",
        "0.3",
        "--dt",
        "0.01",
        "--nit",
        "1",
        "--n",
        "1",
    ]);
    assert_input_error(&r, &["built-in tables are pbd, xpbd"]);
}

/// `lookup --refine`: a gradient fit started from the looked-up parameters reaches the direct fit's error
/// with fewer rest states; `--scene` fits another scene from them; `--scene` alone is refused.
#[test]
fn lookup_refine_reaches_the_direct_fit_for_fewer_rest_states() {
    let query = ["--young", "3e4", "--poisson", "0.3", "--dt", "0.005", "--nit", "4", "--n", "1"];
    let refined = json(&pbdfit(&[&["lookup", "--table", "pbd", "--refine", "--json"][..], &query].concat()));
    let fit = json(&pbdfit(&[&["fit", "--scene", "gravity", "--json"][..], &query].concat()));
    let (r, f) = (refined["refined"]["error"].as_f64().unwrap(), fit["error"].as_f64().unwrap());
    assert!((r - f).abs() <= 1e-6 * f, "refined {r} against the direct fit's {f}");
    let (re, fe) = (refined["refined"]["evaluations"].as_u64().unwrap(), fit["evaluations"].as_u64().unwrap());
    assert!(re < fe, "refined in {re} rest states, the direct fit in {fe}");
    let part = json(&pbdfit(
        &[&["lookup", "--table", "pbd", "--refine", "--scene", "cantilever", "--json"][..], &query].concat(),
    ));
    assert_eq!(part["refined"]["scene"], "cantilever");
    assert!(refined["refined"].get("note").is_none() && part["refined"].get("note").is_none());
    // The table's N = 2 starts a fit on the imported mesh at its own resolution (was refused: "N must be 1").
    let at_two: Vec<&str> = query.iter().map(|a| if *a == "1" { "2" } else { a }).collect();
    let part2 = json(&pbdfit(
        &[&["lookup", "--table", "pbd", "--refine", "--scene", "cantilever", "--json"][..], &at_two].concat(),
    ));
    assert_eq!((part2["query"]["n"].as_u64(), part2["refined"]["n"].as_u64()), (Some(2), Some(1)));
    assert_eq!(part["refined"]["n"].as_u64(), Some(1));
    // A scene with its own reference: the refinement says it answers that reference, not the table's.
    let dir = scratch("refine-reference");
    let scene = dir.join("soft.toml");
    std::fs::write(
        &scene,
        "name = \"soft\"\n[body]\nshape = \"unit-cube\"\nn = 1\n[[held]]\nplane = \"y = 0\"\n[reference]\nmaterial = \"stvk\"\n",
    )
    .unwrap();
    let other = json(&pbdfit(
        &[&["lookup", "--table", "pbd", "--refine", "--scene", scene.to_str().unwrap(), "--json"][..], &query].concat(),
    ));
    let note = other["refined"]["note"].as_str().unwrap();
    assert!(note.contains("linear static") && note.contains("stvk static"), "{note}");
    let alone = pbdfit(&[&["lookup", "--table", "pbd", "--scene", "cantilever"][..], &query].concat());
    assert_eq!(alone.status.code(), Some(2), "{}", stderr(&alone));
    assert!(stderr(&alone).contains("--refine"), "{}", stderr(&alone));
}
