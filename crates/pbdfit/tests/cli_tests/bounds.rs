//! Runs that cannot end or cannot mean anything are refused before any work, and a fit that is no answer
//! says so: the benchmarks' arguments, time steps the rest state cannot resolve, the settings sweep's
//! grid and target, numbers at the ends of f64 in reports, and fits no better than an undeformed body.

use crate::common::{assert_input_error, assert_refused, displacements, json, max_norm, pbdfit, stdout};

#[test]
fn every_benchmark_refuses_arguments_it_cannot_measure() {
    let pbd = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["bench", "pbd"];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect()
    };
    let cases: [(&[&str], &[&str]); 8] = [
        (&["--n", "0"], &["--n = 0", "at least 1"]),
        (&["--n", "1,100000", "--seconds", "0.01"], &["--n = 100000", "memory"]),
        (&["--n", "1", "--seconds", "inf"], &["--seconds = inf", "(0, 600]"]),
        (&["--n", "1", "--seconds", "NaN"], &["--seconds = NaN"]),
        (&["--n", "1", "--seconds", "0"], &["--seconds = 0"]),
        (&["--n", "1", "--seconds", "0.01", "--nit", "4294967295"], &["--nit = 4294967295", "1 to 1000"]),
        (&["--n", "1", "--seconds", "0.01", "--nit", "0"], &["--nit = 0"]),
        (&["--n", "1", "--seconds", "1e9"], &["--seconds = 1000000000"]),
    ];
    for (extra, words) in cases {
        let args = pbd(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&args, words);
    }
    // The GPU benchmark shares the check of its time per figure (before it looks for a device).
    assert_refused(&["bench", "gpu", "--seconds", "inf"], &["--seconds = inf"]);
    assert_refused(&["bench", "gpu", "--seconds=-1"], &["--seconds = -1"]);
    // The fit benchmark's resolutions go through the fit's size guard.
    assert_refused(&["bench", "fit", "--n", "4,100000", "--model", "pbd"], &["--n 100000", "memory"]);
    assert_refused(&["bench", "motion", "--n", "100000", "--model", "pbd"], &["--n 100000", "memory"]);
    // A valid run measures: one resolution, one row.
    let o = pbdfit(&["bench", "pbd", "--n", "1", "--seconds", "0.01", "--nit", "2"]);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("nit = 2") && out.lines().any(|l| l.trim_start().starts_with("1 ")), "{out}");
}

#[test]
fn a_time_step_whose_load_motion_vanishes_is_refused_in_every_command() {
    let jolt = ["--model", "jolt", "--param", "edge_compliance=1e-3", "--param", "volume_compliance=1e-3"];
    let xpbd = ["--model", "xpbd", "--param", "alpha_d=1e-3", "--param", "alpha_v=1e-3"];
    let wall = ["--scene", "gravity-wall", "--n", "1"];
    for (dt, model) in [("1e-300", &jolt), ("1e-9", &xpbd)] {
        let args: Vec<&str> = ["simulate", "--dt", dt].iter().chain(&wall).chain(model.iter()).copied().collect();
        let o = pbdfit(&args);
        assert_input_error(&o, &[&format!("dt = {dt} s is too small"), "the smallest step resolved is 1.010e-6 s"]);
    }
    // The same check in the fit, the settings sweep (before its header) and the study of a time step.
    assert_refused(&["fit", "--scene", "gravity-wall", "--n", "1", "--model", "xpbd", "--dt", "1e-9"], &["1.010e-6 s"]);
    assert_refused(&["settings", "--scene", "gravity-wall", "--n", "1", "--dt", "1e-300", "--nit", "1"], &["1e-300"]);
    // XPBD at dt = 1e-4 rests as it does at 1e-3: a small step that resolves is no refusal.
    let rest = |dt: &str| -> f64 {
        let args: Vec<&str> =
            ["simulate", "--json", "--dt", dt].iter().chain(&wall).chain(xpbd.iter()).copied().collect();
        max_norm(&displacements(&json(&pbdfit(&args))))
    };
    // (8.0812e-3 and 8.0653e-3 m; the refused 1e-9 had stopped at 2.04e-3 m "converged").
    let (a, b) = (rest("1e-3"), rest("1e-4"));
    assert!(a > 8e-3 && (a - b).abs() < 0.01 * a, "dt 1e-3: {a:e} m, dt 1e-4: {b:e} m");
}

#[test]
fn an_engine_setting_that_removes_the_load_is_refused() {
    let fit = ["fit", "--scene", "gravity-wall", "--n", "1", "--model", "jolt"];
    let args: Vec<&str> = fit.iter().chain(&["--setting", "gravity_factor=0"]).copied().collect();
    assert_refused(&args, &["gravity_factor = 0 removes gravity", "remove the load"]);
    // Jolt's damping of nit/dt or more zeroes the velocity each substep: the body never moves, every
    // parameter scores 1, and the fit says it is no answer (with no lines to paste).
    let args: Vec<&str> =
        fit.iter().chain(&["--setting", "linear_damping=100", "--dt", "0.01", "--json"]).copied().collect();
    let v = json(&pbdfit(&args));
    assert_eq!((v["verdict"].as_str(), v["error"].as_f64()), (Some("cannot_reproduce"), Some(1.0)), "{v}");
}

#[test]
fn the_settings_sweep_checks_its_grid_and_target_before_printing() {
    let sweep = ["settings", "--scene", "gravity-wall", "--n", "1"];
    let with = |extra: &[&str]| -> Vec<String> { sweep.iter().chain(extra).map(|s| s.to_string()).collect() };
    let refused = |extra: &[&str], words: &[&str]| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&args, words);
    };
    let dts: Vec<String> = (0..300).map(|i| format!("{}", 0.001 + i as f64 * 1e-5)).collect();
    let dts = dts.join(",");
    refused(&["--dt", &dts, "--nit", "1,2"], &["--dt x nit 300 x 2 = 600 settings", "at most 256"]);
    refused(&["--dt", "0.01,0.01", "--nit", "1"], &["--dt 0.01 is given twice"]);
    refused(&["--dt", "0.01", "--nit", "1,1"], &["--nit 1 is given twice"]);
    refused(&["--dt", "0.01", "--nit", "1", "--fem-mass", "consistent"], &["mass"]);
    refused(&["--target-rms", "150%"], &["--target-rms", "(0, 100)"]);
    refused(&["--target", "1.5"], &["--target 1.5", "(0, 1)"]);
    refused(&["--target", "0.05", "--target-rms", "5%"], &["--target"]);
}

#[test]
fn the_settings_target_reads_as_an_rms_percentage_and_models_without_dt_fit_once() {
    let o = pbdfit(&[
        "settings",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--dt",
        "0.01",
        "--nit",
        "4",
        "--target-rms",
        "5%",
    ]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("target error 0.0025 (mean squared relative error; 5.000 % RMS)"),
        "{out}"
    );
    // The old flag, spelled out.
    let o = pbdfit(&["settings", "--scene", "gravity-wall", "--n", "1", "--dt", "0.01", "--nit", "4", "--json"]);
    let v = json(&o);
    assert_eq!(v["target"], 0.05);
    assert!((v["target_rms_percent"].as_f64().unwrap() - 22.360679774997898).abs() < 1e-9, "{v}");
    // A mass-spring model: dt and nit do not move its rest state, so one fit and no cheapest setting.
    let o = pbdfit(&[
        "settings",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--model",
        "mass-spring",
        "--dt",
        "0.01,0.02",
        "--nit",
        "1,2",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    assert!(out.contains("dt and nit do not move model mass-spring's rest state"), "{out}");
    assert_eq!(out.lines().filter(|l| l.trim_start().starts_with("any")).count(), 1, "one fit: {out}");
    assert!(!out.contains("cheapest"), "{out}");
}

#[test]
fn numbers_at_the_ends_of_f64_print_in_bounded_form() {
    for args in [
        &["simulate", "--scene", "gravity-wall", "--n", "1", "--model", "newton-xpbd", "--setting", "relaxation=1e308"]
            [..],
        &[
            "simulate",
            "--scene",
            "gravity-wall",
            "--n",
            "2",
            "--model",
            "pybullet-neohookean",
            "--param",
            "mu=1e-300",
            "--param",
            "lambda=1e-300",
        ][..],
    ] {
        let o = pbdfit(args);
        let text = format!("{}{}", stdout(&o), crate::common::stderr(&o));
        let longest = text.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']').map(str::len).max();
        assert!(longest.unwrap_or(0) < 60, "{args:?}: {text}");
        assert!(text.contains("1e308") || text.contains("1e-300"), "{args:?}: {text}");
    }
}

#[test]
fn a_fit_no_better_than_an_undeformed_body_leads_with_cannot_and_pastes_nothing() {
    // One substep of 1/30 s: Jolt's body cannot sag as the FEM's does (docs/engines.md, The settings question).
    let args = [
        "fit",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--young",
        "1e4",
        "--model",
        "jolt",
        "--dt",
        "0.0333333",
        "--nit",
        "1",
    ];
    let o = pbdfit(&args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "an honest `cannot` is no error: {out}");
    // The body's line first, as every report starts, then the verdict.
    assert!(out.starts_with("body: 1 m"), "{out}");
    assert!(
        out.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("this model cannot reproduce this material at these settings")),
        "{out}"
    );
    assert!(
        out.contains("pbdfit settings --scene gravity-wall --n 1 --young 10000 --poisson 0.3 --model jolt"),
        "{out}"
    );
    assert!(!out.contains("in the engine") && !out.contains("SoftBodySharedSettings"), "{out}");
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&pbdfit(&with_json));
    assert_eq!(v["verdict"], "cannot_reproduce", "{v}");
    assert!(v["error"].as_f64().unwrap() >= 1.0);
    // A fit that answers: verdict `answer`, and the lines to paste.
    let o = pbdfit(&["fit", "--scene", "gravity-wall", "--n", "1", "--model", "jolt", "--dt", "0.01", "--nit", "10"]);
    let out = stdout(&o);
    assert!(out.lines().nth(1).is_some_and(|l| l.starts_with("scene gravity-wall")), "{out}");
    assert!(out.contains("SoftBodySharedSettings"), "{out}");
}
