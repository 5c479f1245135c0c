//! Every job's two front ends give one report: the command line's `--json` and what Python gets
//! (`pbdfit_jobs::run_json`, the extension's one entry) are equal field for field, wall-clock seconds aside,
//! on a small case of each job of the registry, so a front end that drops, renames or recomputes a field
//! fails here, and a job added without a case fails too.

use serde_json::{Value, json as object};

use crate::common::{displacements, json, pbdfit, scratch};

/// One small case of the job `name`: the command line's options and the same job's keywords (most on
/// `gravity-wall` at N = 1).
fn case<'a>(name: &str, markers: &'a str) -> (Vec<&'a str>, Value) {
    let wall = |extra: Value| {
        let mut keywords = object!({"scene": "gravity-wall", "n": 1});
        keywords.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        keywords
    };
    let (extra, keywords) = match name {
        "evaluate" => (
            vec!["--young", "2e3", "--param", "kd=0.3", "--param", "kv=0.5"],
            wall(object!({"young": 2e3, "parameters": {"kd": 0.3, "kv": 0.5}})),
        ),
        "fem" => (vec!["--young", "2e3"], wall(object!({"young": 2e3}))),
        "fit" => (vec!["--model", "xpbd", "--nit", "2"], wall(object!({"model": "xpbd", "nit": 2}))),
        "identify" => (vec!["--measured", markers], wall(object!({"measured": markers}))),
        "lookup" => {
            let args =
                vec!["--table", "pbd", "--young", "3e4", "--poisson", "0.3", "--dt", "0.005", "--nit", "4", "--n", "1"];
            return (args, object!({"table": "pbd", "young": 3e4, "poisson": 0.3, "dt": 0.005, "nit": 4, "n": 1}));
        }
        "mapping" => {
            let args = vec!["--mapping", "xpbd-van-gelder-bulk", "--young", "1e4", "--poisson", "0.3", "--n", "1"];
            return (args, object!({"name": "xpbd-van-gelder-bulk", "young": 1e4, "poisson": 0.3, "n": 1}));
        }
        "modes" => (vec!["--count", "2"], wall(object!({"count": 2}))),
        // A study and a table of a few fits, each front end's into its own folder (`out` set aside below).
        "study" | "table" => {
            let file = scratch("files").join(format!("{name}.toml"));
            std::fs::write(&file, if name == "study" { STUDY } else { TABLE }).unwrap();
            let (file, out) = (leak(file.display().to_string()), scratch(name).display().to_string());
            let (cli, python) = (leak(format!("{out}/cli")), format!("{out}/python"));
            let key = if name == "study" { "study" } else { "file" };
            let mut keywords = object!({"out": python, "jobs": 1});
            keywords[key] = file.into();
            return (vec![file, "--out", cli, "--jobs", "1"], keywords);
        }
        "motion" => (
            vec!["--param", "kd=0.5", "--param", "kv=0.5", "--dt", "0.005"],
            wall(object!({"params": {"kd": 0.5, "kv": 0.5}, "dt": 0.005})),
        ),
        "settings" => (vec!["--dt", "1/30", "--nit", "1,2"], wall(object!({"dt": "1/30", "nit": "1,2"}))),
        "simulate" => (vec!["--model", "xpbd", "--nit", "3"], wall(object!({"model": "xpbd", "nit": 3}))),
        _ => panic!("no case for the job {name}: add one here"),
    };
    ([vec!["--scene", "gravity-wall", "--n", "1"], extra].concat(), keywords)
}

/// A study of four fits on `gravity-wall`.
const STUDY: &str = "name = \"tiny\"\nscenes = [\"gravity-wall\"]\n[base]\ndt = 0.01\nn = 1\nnit = 1\nyoung = 1e3\n\
                     [poisson]\nfrom = 0.0\nto = 0.3\nstep = 0.1\n[fit]\ngrid = 4\n[[experiment]]\nname = \"base\"\n";

/// A table of six nodes on `gravity-wall`, two of them predicted by leave-one-out.
const TABLE: &str = "name = \"tiny\"\ndescription = \"six nodes\"\nmodel = \"pbd\"\nscene = \"gravity-wall\"\n\
                     [fit]\nsearch = \"pattern\"\ngrid = 5\nmin_step = 1e-2\n[axes]\nyoung = [1e3, 1e4, 1e5]\n\
                     poisson = [0.2, 0.35]\ndt = [\"1/100\"]\nnit = [4]\nn = [1]\n";

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// `value` without the wall-clock seconds (every key ending in `seconds`, at any depth) and the results
/// folder (`out`, each front end's own).
fn without_seconds(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|k, _| !k.ends_with("seconds") && k != "out");
            map.values_mut().for_each(without_seconds);
        }
        Value::Array(items) => items.iter_mut().for_each(without_seconds),
        _ => {}
    }
}

#[test]
fn every_job_s_command_line_and_python_reports_are_equal_field_for_field() {
    // Markers of the linear FEM's far face, for identify.
    let fem = json(&pbdfit(&["fem", "--scene", "gravity-wall", "--n", "1", "--young", "3e3", "--json"]));
    let u = displacements(&fem);
    let mut csv = String::from("x,y,z,ux,uy,uz\n");
    for (i, v) in fem["vertices"].as_array().unwrap().iter().enumerate() {
        let x = [0, 1, 2].map(|k| v[k].as_f64().unwrap());
        csv += &format!("{},{},{},{},{},{}\n", x[0], x[1], x[2], u[i][0], u[i][1], u[i][2]);
    }
    let markers = scratch("markers").join("markers.csv");
    std::fs::write(&markers, csv).unwrap();
    let markers = markers.to_str().unwrap();
    for name in pbdfit_jobs::JOBS {
        let (options, keywords) = case(name, markers);
        let args = [vec![*name, "--json"], options].concat();
        let mut cli = json(&pbdfit(&args));
        let report = pbdfit_jobs::run_json(name, &keywords.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut python: Value = serde_json::from_str(&report).unwrap();
        without_seconds(&mut cli);
        without_seconds(&mut python);
        let first = if cli.is_array() { &cli[0] } else { &cli };
        assert!(first.as_object().is_some_and(|m| m.len() > 2), "{name}: {cli}");
        assert_eq!(cli, python, "{name}: the command line's report against Python's");
    }
}
