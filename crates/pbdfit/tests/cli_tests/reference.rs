//! End-to-end tests of the reference options: `pbdfit fem` and `pbdfit fit` with nonlinear materials,
//! dynamic solves, scene and study `[reference]` tables, and exit code 2 for what the reference refuses.

use crate::common::{Study, assert_refused, displacements, json, max_difference, max_norm, pbdfit, scratch};

fn fem(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["fem", "--scene", "gravity-wall", "--n", "2", "--json"];
    args.extend_from_slice(extra);
    json(&pbdfit(&args))
}

#[test]
fn nonlinear_materials_are_close_to_linear_at_small_load_and_named_in_the_output() {
    let linear = fem(&[]);
    assert_eq!(linear["reference"], "linear static");
    let ul = displacements(&linear);
    for material in ["corotational", "stvk", "neo-hookean"] {
        let out = fem(&["--material", material]);
        assert_eq!(out["reference"], format!("{material} static"));
        let u = displacements(&out);
        // E = 1e3 Pa: the wall sags by 2 % of its size, so the laws differ from linear by a few per cent.
        let relative = max_difference(&u, &ul) / max_norm(&ul);
        assert!(relative > 1e-4 && relative < 0.05, "{material}: {relative}");
    }
}

#[test]
fn dynamic_linear_reference_at_rest_equals_the_static_one_and_a_short_run_does_not() {
    let stat = displacements(&fem(&[]));
    let out = fem(&["--dynamic", "--rayleigh", "1,0", "--dt", "0.005"]);
    assert_eq!(out["reference"], "linear dynamic lumped rest a=1 b=0");
    let d = max_difference(&displacements(&out), &stat) / max_norm(&stat);
    assert!(d < 1e-9, "{d:e}");
    let early = displacements(&fem(&["--dynamic", "--time", "0.05"]));
    let d = max_difference(&early, &stat) / max_norm(&stat);
    assert!(d > 0.1, "{d}");
}

#[test]
fn the_opposite_split_is_another_mesh_with_the_same_vertices() {
    let same = fem(&[]);
    let opposite = fem(&["--split", "opposite"]);
    assert_eq!(opposite["reference"], "linear static split=opposite");
    assert_eq!(same["vertices"], opposite["vertices"]);
    assert_ne!(same["tets"], opposite["tets"]);
    let six = fem(&["--split", "six"]);
    assert_eq!(six["tets"].as_array().unwrap().len(), 48);
    let d = max_difference(&displacements(&same), &displacements(&opposite));
    assert!(d > 1e-4 * max_norm(&displacements(&same)), "{d:e}");
}

#[test]
fn a_scene_file_reference_table_is_used_and_the_command_line_wins() {
    let dir = scratch("scene");
    let scene = dir.join("soft.toml");
    std::fs::write(
        &scene,
        "name = \"soft\"\n[body]\nshape = \"unit-cube\"\nn = 2\n[[held]]\nplane = \"z = 0\"\n[reference]\nmaterial = \"stvk\"\n",
    )
    .unwrap();
    let path = scene.to_str().unwrap();
    let out = json(&pbdfit(&["fem", "--scene", path, "--json"]));
    assert_eq!(out["reference"], "stvk static");
    let out = json(&pbdfit(&["fem", "--scene", path, "--json", "--material", "neo-hookean"]));
    assert_eq!(out["reference"], "neo-hookean static");
    let fit = json(&pbdfit(&["fit", "--scene", path, "--n", "1", "--grid", "5", "--min-step", "1e-2", "--json"]));
    assert_eq!(fit["reference"], "stvk static");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn what_the_reference_refuses_exits_with_code_2() {
    let base = ["fem", "--scene", "gravity-floor"];
    let with = |extra: &[&'static str]| base.iter().copied().chain(extra.iter().copied()).collect::<Vec<_>>();
    assert_refused(&with(&["--material", "rubber"]), &["material = rubber", "linear, corotational, stvk, neo-hookean"]);
    assert_refused(&with(&["--time", "5"]), &["time", "only with solve = \"dynamic\""]);
    assert_refused(&with(&["--dynamic", "--time", "-1"]), &["time = -1"]);
    assert_refused(&with(&["--split", "seven"]), &["split = seven", "same, opposite, six"]);
    assert_refused(&with(&["--dynamic", "--fem-mass", "heavy"]), &["mass = heavy", "lumped, consistent"]);
    assert_refused(&with(&["--dynamic", "--rayleigh=-1,0"]), &["damping"]);
    assert_refused(&with(&["--dynamic", "--dt", "0"]), &["dt = 0"]);
    assert_refused(&with(&["--material", "neo-hookean", "--poisson", "0.5"]), &["nu = 0.5"]);
    assert_refused(&["fit", "--scene", "gravity-floor", "--material", "rubber"], &["material = rubber"]);
    // The overrides are typed where they are given: a bad split is refused by fit and study before any
    // reference or results folder exists, naming the option.
    assert_refused(&["fit", "--scene", "gravity-floor", "--split", "seven"], &["reference options", "split = seven"]);
    let out = scratch("bad-split-study");
    let study = out.join("s.toml");
    std::fs::write(&study, Study::default().toml()).unwrap();
    let results = out.join("results");
    assert_refused(
        &["study", study.to_str().unwrap(), "--out", results.to_str().unwrap(), "--split", "seven"],
        &["split = seven"],
    );
    assert!(!results.exists(), "nothing written for a refused reference");
    std::fs::remove_dir_all(&out).ok();
    // A load far beyond what the material carries: the load step (and an inverted element) is named.
    let dir = scratch("heavy");
    let scene = dir.join("heavy.toml");
    std::fs::write(
        &scene,
        "name = \"heavy\"\n[body]\nshape = \"unit-cube\"\nn = 2\n[[held]]\nplane = \"y = 0\"\n[load]\ngravity = [0.0, -1e6, 0.0]\n",
    )
    .unwrap();
    assert_refused(
        &["fem", "--scene", scene.to_str().unwrap(), "--material", "neo-hookean", "--young", "100"],
        &["neo-hookean static reference of heavy", "load factor"],
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `evaluate` takes the reference options `fit` takes: at the parameters a fit against a dynamic reference
/// stopped early (`--time`) found, it gives that fit's error, and without the options (the static
/// reference) a different one.
#[test]
fn evaluate_scores_a_fit_against_the_reference_it_was_made_with() {
    let common = ["--scene", "gravity-wall", "--n", "2", "--model", "pbd", "--dt", "0.01", "--json"];
    let dynamic = ["--dynamic", "--time", "0.05"];
    let mut args = vec!["fit"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&dynamic);
    let fit = json(&pbdfit(&args));
    let error = fit["error"].as_f64().unwrap();
    let p = &fit["parameters"];
    let (kd, kv) = (format!("kd={:e}", p["kd"].as_f64().unwrap()), format!("kv={:e}", p["kv"].as_f64().unwrap()));
    let evaluate = |extra: &[&str]| {
        let mut args = vec!["evaluate", "--param", kd.as_str(), "--param", kv.as_str()];
        args.extend_from_slice(&common);
        args.extend_from_slice(extra);
        json(&pbdfit(&args))["error"].as_f64().unwrap()
    };
    let again = evaluate(&dynamic);
    assert!((again - error).abs() <= 1e-12 * error, "evaluate {again:e} against the fit's {error:e}");
    let against_static = evaluate(&[]);
    assert!((against_static - error).abs() > 1e-3 * error, "the static reference gives {against_static:e}");
}
