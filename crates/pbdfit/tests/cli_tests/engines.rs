//! The engine profiles from the command line: settings by the engine's names, answers in the engine's
//! terms, the settings question, and the refusal of points the engine never settles at.

use crate::common::{assert_input_error, json, pbdfit, stderr, stdout};

/// Jolt on the wall at N = 1 (E 1e4, nu 0.3, dt 1/60): one substep cannot reach an error of 0.05 at any
/// compliance (2.12), sixteen can (0.0238); `settings` names the cheap one that does.
#[test]
fn settings_names_the_cheapest_setting_that_reaches_the_target() {
    let base = ["settings", "--scene", "gravity-wall", "--n", "1", "--young", "1e4", "--poisson", "0.3"];
    let v = json(&pbdfit(
        &[&base[..], &["--model", "jolt", "--dt", "1/60", "--nit", "16,1", "--target", "0.05", "--json"]].concat(),
    ));
    let rows = v["rows"].as_array().unwrap();
    // Cheapest first, whatever order the list gave.
    assert_eq!(rows[0]["nit"], 1);
    assert_eq!(rows[1]["nit"], 16);
    let (e1, e16) = (rows[0]["error"].as_f64().unwrap(), rows[1]["error"].as_f64().unwrap());
    assert!(e1 > 1.0 && e16 < 0.05, "errors {e1} and {e16}");
    assert_eq!(v["cheapest"]["nit"], 16);
    assert_eq!(v["model"], "jolt");
    // A target nothing reaches: no cheapest, the best named.
    let v = json(&pbdfit(
        &[&base[..], &["--model", "jolt", "--dt", "1/60", "--nit", "1", "--target", "0.01", "--json"]].concat(),
    ));
    assert!(v["cheapest"].is_null());
    assert_eq!(v["best"]["nit"], 1);
    let o = pbdfit(&[&base[..], &["--model", "jolt", "--nit", "1,x"]].concat());
    assert_input_error(&o, &["--nit", "x"]);
}

/// Settings go by the engine's own names and ranges; a bad one exits 2 naming the setting and the range.
#[test]
fn settings_are_refused_with_their_range() {
    let fit = ["fit", "--scene", "gravity-wall", "--n", "1", "--model", "jolt", "--dt", "1/60", "--nit", "5"];
    let o = pbdfit(&[&fit[..], &["--setting", "relaxation=0.5"]].concat());
    assert_input_error(&o, &["no setting `relaxation`", "linear_damping in [0, 1000000] (default 0.1)"]);
    let o = pbdfit(&[&fit[..], &["--setting", "linear_damping=-1"]].concat());
    assert_input_error(&o, &["linear_damping = -1", "[0, 1000000]"]);
    let o =
        pbdfit(&["simulate", "--scene", "gravity-wall", "--n", "1", "--model", "pbd", "--setting", "relaxation=0.5"]);
    assert_input_error(&o, &["model pbd has no setting", "no settings"]);
    // A force-law profile's parameter out of range is named as given, not as the law's constant it sets.
    let o = pbdfit(&[
        "simulate",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--model",
        "pybullet-neohookean",
        "--param",
        "mu=-1",
        "--param",
        "lambda=1e3",
    ]);
    assert_input_error(&o, &["invalid parameter mu = -1", "for model parameter mu"]);
}

/// A fit of the Jolt profile records its settings with the model and gives the lines to paste into Jolt and
/// the Godot stiffness that maps to the fitted edge compliance (today's mapping `1 / max(k^3 1e5, 1e-6)`).
#[test]
fn a_jolt_fit_answers_in_jolt_and_godot_terms() {
    let v = json(&pbdfit(&[
        "fit",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--young",
        "1e4",
        "--poisson",
        "0.3",
        "--model",
        "jolt",
        "--dt",
        "1/60",
        "--nit",
        "16",
        "--setting",
        "linear_damping=0",
        "--json",
    ]));
    assert_eq!(v["model"], "jolt[linear_damping=0]");
    let alpha = v["parameters"]["edge_compliance"].as_f64().unwrap();
    let paste: Vec<&str> = v["engine"]["paste"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(
        paste[0].starts_with("SoftBodySharedSettings::Edge") && paste[0].contains(&format!("{alpha:.6e}")),
        "{paste:?}"
    );
    let k = (1.0 / (alpha * 1e5)).cbrt();
    assert!(paste[3].contains(&format!("linear_stiffness = {k:.6}")), "{paste:?}");
    assert!(v["error"].as_f64().unwrap() < 0.05);
}

/// Godot's line gives Jolt other parameters than the fitted ones: its `linear_stiffness` printed to six
/// decimals, or clamped at 1 where the fitted edge compliance is stiffer than any stiffness gives (E = 1e7),
/// and no volume constraint. The fit evaluates that body and prints the error it leaves beside the fit's.
#[test]
fn a_jolt_fit_says_what_error_godots_line_leaves() {
    for (young, clamped) in [("1e4", false), ("1e7", true)] {
        let args = [
            "fit",
            "--scene",
            "gravity-wall",
            "--n",
            "1",
            "--young",
            young,
            "--poisson",
            "0.3",
            "--model",
            "jolt",
            "--dt",
            "1/60",
            "--nit",
            "16",
        ];
        let v = json(&pbdfit(&[&args[..], &["--json"]].concat()));
        let alpha = v["parameters"]["edge_compliance"].as_f64().unwrap();
        let pasted = &v["engine"]["pasted"][0];
        assert_eq!(pasted["line"], "Godot SoftBody3D", "{v}");
        let edge = pasted["parameters"]["edge_compliance"].as_f64().unwrap();
        if clamped {
            assert!(alpha < 1e-5 && edge == 1e-5, "fitted {alpha}, Godot's {edge}");
        } else {
            let k: f64 = format!("{:.6}", (1.0 / (alpha * 1e5)).cbrt()).parse().unwrap();
            assert_eq!(edge, 1.0 / (k.powi(3) * 1e5));
        }
        assert_eq!(pasted["parameters"]["volume_compliance"].as_f64(), Some(1e30));
        let error = pasted["error"].as_f64();
        assert!(
            error.is_some_and(|e| e.is_finite() && e != v["error"].as_f64().unwrap()) || pasted["failure"].is_string()
        );
        let text = stdout(&pbdfit(&args));
        assert!(text.contains("    Godot SoftBody3D's body (edge_compliance = "), "{text}");
        assert!(text.contains("leaves error") || text.contains("has no rest state"), "{text}");
    }
}

/// Newton's tetrahedra on the floor: the fixed point of its step repels (the issue and Newton itself,
/// python/tests/test_engines.py), so the profile has no rest state there and says why.
#[test]
fn newton_on_the_floor_has_no_stable_rest_state() {
    let o = pbdfit(&[
        "simulate",
        "--scene",
        "gravity-floor",
        "--n",
        "2",
        "--model",
        "newton-xpbd",
        "--param",
        "k_mu=384.6153846153846",
        "--param",
        "k_lambda=576.9230769230769",
        "--dt",
        "0.01",
        "--nit",
        "10",
        "--setting",
        "relaxation=0.5",
    ]);
    assert_input_error(&o, &["no stable rest state", "spectral radius"]);
}

/// `simulate` reads repeated options as `fit` does (a setting or parameter given twice refused, not the
/// last taken) and states the engine settings it ran with, in its text and its JSON (`model` as `fit`
/// names it, `settings` with every setting, changed or not).
#[test]
fn simulate_refuses_repeated_options_and_states_its_settings() {
    let base = ["simulate", "--scene", "gravity-wall", "--n", "1", "--nit", "10", "--model", "newton-xpbd"];
    let params = ["--param", "k_mu=1e3", "--param", "k_lambda=1e3"];
    let twice = [&base[..], &["--setting", "relaxation=0.3", "--setting", "relaxation=0.5"], &params].concat();
    assert_input_error(&pbdfit(&twice), &["--setting", "relaxation", "given twice"]);
    let twice = [&base[..], &params, &["--param", "k_mu=2e3"]].concat();
    assert_input_error(&pbdfit(&twice), &["--param", "k_mu is given twice"]);
    let once = [&base[..], &["--setting", "relaxation=0.5"], &params].concat();
    let v = json(&pbdfit(&[&once[..], &["--json"]].concat()));
    assert_eq!(v["model"], "newton-xpbd[relaxation=0.5]");
    assert_eq!(v["settings"]["relaxation"], 0.5);
    assert_eq!(v["settings"]["k_damp"], 0.0, "an unchanged setting is stated too");
    let text = String::from_utf8(pbdfit(&once).stdout).unwrap();
    assert!(text.contains("engine settings: relaxation = 0.5, k_damp = 0"), "{text}");
}

/// Genesis and PyBullet give every particle the same mass: without `--mass-model` their profiles simulate
/// and fit the uniform body (the same rest state, bit for bit, as with `--mass-model uniform`), `--help`
/// says so, the paste lines ask for no flag, and lumped masses are kept with a warning giving the
/// rest-state difference they make.
#[test]
fn engine_profiles_use_their_engines_masses_and_warn_of_others() {
    let simulate = [
        "simulate",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--model",
        "pybullet-neohookean",
        "--param",
        "mu=3e3",
        "--param",
        "lambda=5e3",
        "--json",
    ];
    let run = |extra: &[&str]| pbdfit(&[&simulate[..], extra].concat());
    let (default, uniform, lumped) = (run(&[]), run(&["--mass-model", "uniform"]), run(&["--mass-model", "lumped"]));
    let (d, u, l) = (json(&default), json(&uniform), json(&lumped));
    assert_eq!(d["mass_model"], "uniform");
    assert_eq!(d["displacements"], u["displacements"]);
    assert_ne!(d["displacements"], l["displacements"]);
    assert!(!stderr(&default).contains("warning") && !stderr(&uniform).contains("warning"), "{}", stderr(&default));
    let warning = stderr(&lumped);
    assert!(
        warning.contains("warning: model pybullet-neohookean") && warning.contains("--mass-model lumped"),
        "{warning}"
    );
    assert!(warning.contains("(relative L2)") && warning.contains("the run's parameters"), "{warning}");
    let help = String::from_utf8_lossy(&pbdfit(&["fit", "--help"]).stdout).to_string();
    assert!(help.contains("uniform for genesis-pbd and pybullet-neohookean"), "{help}");
    let fit = pbdfit(&[
        "fit",
        "--scene",
        "gravity-wall",
        "--n",
        "1",
        "--model",
        "genesis-pbd",
        "--nit",
        "4",
        "--max-evaluations",
        "5",
    ]);
    let text = String::from_utf8_lossy(&fit.stdout).to_string();
    assert!(fit.status.success(), "{}", stderr(&fit));
    assert!(text.contains("uniform masses") && !text.contains("--mass-model"), "{text}");
}

/// Jolt's edges are created in an order the user picks (`--setting order=sorted`, a word for -1):
/// `simulate --json` lists them in that order and says which in its text; a fit reports how far the other
/// orders move the rest state and the error, and says when that is beyond its own 1 % range.
#[test]
fn jolt_creation_order_is_printed_and_its_spread_reported() {
    let simulate = [
        "simulate",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--model",
        "jolt",
        "--param",
        "edge_compliance=3e-3",
        "--param",
        "volume_compliance=1e-12",
        "--dt",
        "1/30",
        "--nit",
        "2",
        "--setting",
        "order=sorted",
    ];
    let v = json(&pbdfit(&[&simulate[..], &["--json"]].concat()));
    let edges: Vec<[u64; 2]> = serde_json::from_value(v["creation_order"].clone()).unwrap();
    let mut sorted = edges.clone();
    sorted.sort();
    assert_eq!(edges, sorted);
    assert!(edges.iter().all(|[a, b]| a < b));
    let distances = v["constraints"].as_array().unwrap().iter().filter(|c| c["type"] == "distance").count();
    assert_eq!(edges.len(), distances);
    let text = stdout(&pbdfit(&simulate));
    assert!(text.contains("edges created in the sorted order: the unique edges as (min, max) vertex pairs"), "{text}");
    let fit = ["fit", "--scene", "gravity-wall", "--n", "2", "--young", "1e3", "--poisson", "0.3", "--model", "jolt"];
    let fit = [&fit[..], &["--dt", "1/30", "--nit", "2"]].concat();
    let v = json(&pbdfit(&[&fit[..], &["--json"]].concat()));
    let orders = &v["engine"]["orders"];
    assert_eq!(orders["order"], "profile", "{v}");
    assert_eq!(orders["others"].as_array().unwrap().len(), 5);
    assert!(orders["largest_move"].as_f64().unwrap() > 1e-2, "{orders}");
    assert_eq!(orders["beyond_fit_range"], true);
    let text = stdout(&pbdfit(&fit));
    assert!(text.contains("edges created in the profile order; the other orders (sorted, shuffled (seed 1)"), "{text}");
    assert!(text.contains("more than the fit's own 1 % range"), "{text}");
    let bad = pbdfit(&[&simulate[..15], &["--setting", "order=backwards"]].concat());
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("`backwards` is not a number"), "{}", stderr(&bad));
    // A word is the model's own setting's: jolt-cloth's `bend=dihedral` is refused for jolt, naming both.
    let bad = pbdfit(&[&simulate[..15], &["--setting", "bend=dihedral"]].concat());
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--setting: model jolt has no setting `bend`"), "{}", stderr(&bad));
    let bad = pbdfit(&[&simulate[..15], &["--setting", "order=dihedral"]].concat());
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("not a number, nor a word of model jolt's order"), "{}", stderr(&bad));
}
