//! Every job's two front ends give one report: the command line's `--json` and what Python gets
//! (`pbdfit_jobs::run_json`, the extension's one entry) are equal field for field, wall-clock seconds aside,
//! on each job's own small case ([`pbdfit_jobs::Job::EXAMPLE`]: the command line's options, read into the
//! keywords Python sends by `pbdfit_jobs::keywords_from_args`), so a front end that drops, renames or
//! recomputes a field fails here, and a new job is tested with no line here.

use serde_json::Value;

use crate::common::{displacements, json, pbdfit, scratch};

/// The job `name`'s own small case ([`pbdfit_jobs::Job::EXAMPLE`]), its placeholders replaced by the
/// files this test makes (`{markers}`, `{study}`, `{table}`) and the results folder `out`.
fn case(name: &str, files: &[(&str, String)], out: &str) -> Vec<String> {
    let example = pbdfit_jobs::example_of(name).expect("a job");
    let replace = |arg: &str| files.iter().fold(arg.replace("{out}", out), |arg, (key, path)| arg.replace(key, path));
    example.iter().map(|arg| replace(arg)).collect()
}

/// A study of four fits on `gravity-wall`.
const STUDY: &str = "name = \"tiny\"\nscenes = [\"gravity-wall\"]\n[base]\ndt = 0.01\nn = 1\nnit = 1\nyoung = 1e3\n\
                     [poisson]\nfrom = 0.0\nto = 0.3\nstep = 0.1\n[fit]\ngrid = 4\n[[experiment]]\nname = \"base\"\n";

/// A table of six nodes on `gravity-wall`, two of them predicted by leave-one-out.
const TABLE: &str = "name = \"tiny\"\ndescription = \"six nodes\"\nmodel = \"pbd\"\nscene = \"gravity-wall\"\n\
                     [fit]\nsearch = \"pattern\"\ngrid = 5\nmin_step = 1e-2\n[axes]\nyoung = [1e3, 1e4, 1e5]\n\
                     poisson = [0.2, 0.35]\ndt = [\"1/100\"]\nnit = [4]\nn = [1]\n";

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
    let mut files = vec![("{markers}", markers.display().to_string())];
    let folder = scratch("files");
    for (key, text) in [("study", STUDY), ("table", TABLE)] {
        let file = folder.join(format!("{key}.toml"));
        std::fs::write(&file, text).unwrap();
        files.push((if key == "study" { "{study}" } else { "{table}" }, file.display().to_string()));
    }
    for name in pbdfit_jobs::JOBS {
        // Each front end's results (a study's, a table's) in its own folder: `out` is set aside below.
        let out = scratch(name).display().to_string();
        let options = case(name, &files, &format!("{out}/cli"));
        let args: Vec<&str> = [*name, "--json"].into_iter().chain(options.iter().map(String::as_str)).collect();
        let mut cli = json(&pbdfit(&args));
        let options = case(name, &files, &format!("{out}/python"));
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let keywords =
            pbdfit_jobs::keywords_from_args(name, &options).expect("a job").unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = pbdfit_jobs::run_json(name, &keywords).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut python: Value = serde_json::from_str(&report).unwrap();
        without_seconds(&mut cli);
        without_seconds(&mut python);
        let first = if cli.is_array() { &cli[0] } else { &cli };
        assert!(first.as_object().is_some_and(|m| m.len() > 2), "{name}: {cli}");
        assert_eq!(cli, python, "{name}: the command line's report against Python's");
    }
}
