//! `--density` and `--size`: every command that builds a body takes them, states the body (size, density,
//! mass) at the top of its report, text and JSON, and refuses bad values naming the option.

use crate::common::{assert_input_error, displacements, json, pbdfit, stdout};

const RUBBER: &str = "body: 0.1 m (largest extent), density 1100 kg/m^3, mass 1.1 kg";

#[test]
fn every_command_that_builds_a_body_states_it_at_the_top() {
    let body = ["--density", "1100", "--size", "0.1"];
    let commands: Vec<Vec<&str>> = vec![
        vec!["fem", "--scene", "gravity-wall", "--n", "2", "--young", "1e6"],
        vec!["modes", "--scene", "gravity-wall", "--n", "2", "--young", "1e6", "--count", "2"],
        vec!["simulate", "--scene", "gravity-wall", "--n", "2"],
        vec!["fit", "--scene", "gravity-wall", "--n", "1", "--young", "1e6"],
        vec![
            "motion",
            "--scene",
            "gravity-wall",
            "--n",
            "1",
            "--young",
            "1e6",
            "--param",
            "kd=1",
            "--param",
            "kv=1",
            "--dt",
            "1e-4",
            "--periods",
            "2",
        ],
        vec!["settings", "--scene", "gravity-wall", "--n", "1", "--young", "1e6", "--dt", "1/60", "--nit", "1"],
        vec!["baseline", "--mapping", "xpbd-van-gelder-bulk", "--young", "1e6", "--poisson", "0.3", "--n", "1"],
    ];
    for command in commands {
        let args: Vec<&str> = command.iter().chain(&body).copied().collect();
        let o = pbdfit(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        let text = stdout(&o);
        // baseline's default scene is the compound `gravity`: its three parts are one body each.
        let want = if command[0] == "baseline" { format!("{RUBBER} (each of the 3 parts)") } else { RUBBER.into() };
        assert_eq!(text.lines().next(), Some(want.as_str()), "{args:?}:\n{text}");
        let mut args = args.clone();
        args.push("--json");
        let value = json(&pbdfit(&args));
        let part = if value["body"].is_array() { &value["body"][0] } else { &value["body"] };
        assert_eq!(
            (part["size_m"].as_f64(), part["density_kg_per_m3"].as_f64()),
            (Some(0.1), Some(1100.0)),
            "{args:?}"
        );
        let mass = part["mass_kg"].as_f64().unwrap();
        assert!((mass - 1.1).abs() < 1e-12, "{args:?}: {mass}");
    }
    // The defaults are the thesis's body, and `identify` takes a density (not a size: the markers fix it).
    let o = pbdfit(&["fem", "--scene", "gravity-floor", "--n", "1"]);
    assert_eq!(stdout(&o).lines().next(), Some("body: 1 m (largest extent), density 1 kg/m^3, mass 1 kg"));
}

/// The command line's scaling is the FEM's: `fem --json` at twice the density gives twice the
/// displacement, at twice the size four times (a linear static FEM, `rho g L^2 / E`).
#[test]
fn the_fem_command_scales_its_displacements_as_density_times_size_squared() {
    let fem = |extra: &[&str]| {
        let mut args = vec!["fem", "--scene", "gravity-floor", "--n", "2", "--json"];
        args.extend_from_slice(extra);
        displacements(&json(&pbdfit(&args)))
    };
    let base = fem(&[]);
    let largest = base.iter().map(|u| u.iter().map(|c| c * c).sum::<f64>().sqrt()).fold(0.0, f64::max);
    for (extra, factor) in [(vec!["--density", "2"], 2.0), (vec!["--size", "2"], 4.0), (vec!["--size", "1/2"], 0.25)] {
        let u = fem(&extra);
        for (a, b) in u.iter().zip(&base) {
            for k in 0..3 {
                assert!((a[k] - factor * b[k]).abs() <= 1e-12 * largest * factor, "{extra:?}: {a:?} against {b:?}");
            }
        }
    }
}

#[test]
fn bad_densities_and_sizes_are_refused_naming_the_option() {
    for (command, option, value, unit) in [
        (vec!["fit", "--scene", "gravity-wall"], "--density", "0", "kg/m^3"),
        (vec!["simulate", "--scene", "gravity-wall"], "--size", "-1", "m"),
        (vec!["fem", "--scene", "gravity-wall"], "--density", "nan", "kg/m^3"),
        (vec!["modes", "--scene", "gravity-wall"], "--size", "inf", "m"),
        (vec!["settings", "--scene", "gravity-wall"], "--density", "-5", "kg/m^3"),
    ] {
        let mut args = command.clone();
        args.extend_from_slice(&[option, value]);
        let o = pbdfit(&args);
        assert_input_error(&o, &[&format!("{option} must be a finite number > 0 {unit}, got")]);
        assert!(stdout(&o).is_empty(), "{args:?}: nothing printed before the refusal");
    }
    // A table is fitted on its own body: lookup takes a body for --refine only.
    let o = pbdfit(&[
        "lookup",
        "--table",
        "pbd",
        "--young",
        "3e4",
        "--poisson",
        "0.3",
        "--dt",
        "1/200",
        "--nit",
        "4",
        "--n",
        "1",
        "--density",
        "1000",
    ]);
    assert_input_error(&o, &["--density and --size apply to --refine only"]);
    // Measured markers fix the body's scale.
    let o = pbdfit(&[
        "identify",
        "--scene",
        "cantilever",
        "--measured",
        "reports/measured/example/markers.csv",
        "--size",
        "0.1",
    ]);
    assert_input_error(&o, &["--size: identify compares the FEM with measured markers"]);
}
