//! End-to-end tests of `pbdfit simulate`, `pbdfit fit` and `pbdfit study`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pbdfit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbdfit")).args(args).output().expect("run pbdfit")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = pbdfit(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn max_norm(rows: &serde_json::Value) -> f64 {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap().powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdfit-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The reference library's rest states (methodology, reference values), through the command line.
#[test]
fn simulate_json_matches_the_reference_library() {
    for (scene, n, dt, nit, expected) in [
        ("gravity-floor", "1", "0.01", "1", 9.9399075845e-04),
        ("gravity-wall", "1", "0.01", "1", 6.2529506192e-03),
        ("gravity-wall", "2", "0.01", "4", 2.6455782944e-03),
        ("gravity-ceiling", "2", "0.001", "1", 3.0391495408e-05),
    ] {
        let v = json(&[
            "simulate", "--scene", scene, "--n", n, "--dt", dt, "--nit", nit, "--kd", "0.5", "--kv", "0.5", "--json",
        ]);
        let got = max_norm(&v["displacements"]);
        assert!((got - expected).abs() <= 1e-9 * expected, "{scene} N = {n}: {got:e} vs {expected:e}");
        assert_eq!(v["converged"], true);
        let positions = v["rest_positions"].as_array().unwrap();
        let vertices = v["vertices"].as_array().unwrap();
        assert_eq!(positions.len(), vertices.len());
    }
    let v = json(&["simulate", "--scene", "gravity-floor", "--n", "1", "--json"]);
    let order: Vec<u64> = v["solve_order"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(&order[..6], &[0, 5, 1, 4, 2, 3]);
    assert_eq!(v["constraints"].as_array().unwrap().len(), 23);
    assert_eq!(v["constraints"][18]["type"], "volume");
    assert_eq!(v["tets"][0], serde_json::json!([0, 3, 6, 5]));
}

#[test]
fn simulate_writes_vtk_and_frames() {
    let dir = temp_dir("frames");
    let vtu = dir.join("rest.vtu");
    let frames = dir.join("frames");
    let out = pbdfit(&[
        "simulate",
        "--scene",
        "gravity-ceiling",
        "--n",
        "2",
        "--vtk",
        vtu.to_str().unwrap(),
        "--frames",
        frames.to_str().unwrap(),
        "--frame-steps",
        "20",
        "--frame-every",
        "10",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let back = pbdfit_mesh::vtk::read_vtu(&vtu).unwrap();
    assert_eq!(back.points.len(), 27);
    let u = &back.point_data[0].1;
    assert!(u.iter().any(|&x| x < 0.0), "the hanging cube moves down");
    let pvd = std::fs::read_to_string(frames.join("dynamics.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 3, "{pvd}");
    assert!(frames.join("frame-000020.vtu").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_parameters_exit_with_2_and_a_message() {
    for (args, needle) in [
        (vec!["simulate", "--scene", "gravity-floor", "--kd", "1.5"], "unbounded"),
        (vec!["simulate", "--scene", "gravity-floor", "--dt", "-0.01"], "dt"),
        (vec!["simulate", "--scene", "gravity-floor", "--nit", "0"], "nit"),
        (vec!["simulate", "--scene", "gravity-floor", "--model", "xpbd", "--compliance-distance", "-1"], "compliance"),
        (vec!["simulate", "--scene", "nope"], "unknown scene"),
        (vec!["fit", "--scene", "gravity-floor", "--poisson", "0.5"], "0.5"),
        (vec!["fit", "--scene", "gravity-floor", "--young", "0"], "oung"),
        (vec!["study", "/no/such/study.toml"], "study"),
    ] {
        let out = pbdfit(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    // Stiffness above 1 is accepted with the flag.
    assert!(pbdfit(&["simulate", "--scene", "gravity-floor", "--kd", "1.2", "--unbounded"]).status.success());
}

#[test]
fn fit_json_reports_the_fitted_point() {
    let v = json(&["fit", "--scene", "gravity", "--young", "1e3", "--poisson", "0.3", "--json"]);
    for key in ["kd", "kv", "error", "evaluations", "seconds"] {
        assert!(v[key].is_number(), "{key} missing: {v}");
    }
    let parts = v["scene_errors"].as_object().unwrap();
    assert_eq!(parts.len(), 3);
    let norm: f64 = parts.values().map(|e| e.as_f64().unwrap().powi(2)).sum::<f64>().sqrt();
    assert!((norm - v["error"].as_f64().unwrap()).abs() < 1e-12, "compound error is the norm of the parts");
    let (kd, kv) = (v["kd"].as_f64().unwrap(), v["kv"].as_f64().unwrap());
    assert!((0.0..=1.0).contains(&kd) && (0.0..=1.0).contains(&kv));
    assert_eq!(v["failed_evaluations"], 21, "the 21 grid points with kd = 0 have no rest state");
}

const SMALL_STUDY: &str = r#"
name = "small"
scenes = ["gravity-floor", "gravity"]
[base]
dt = 0.01
n = 2
nit = 1
young = 1e3
[poisson]
from = 0.0
to = 0.45
step = 0.05
[[experiment]]
name = "base"
[[experiment]]
name = "n"
parameter = "n"
values = [2, 3]
"#;

fn rows_without_seconds(dir: &Path) -> Vec<(String, Vec<String>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
            let seconds = header.iter().position(|h| *h == "seconds").unwrap();
            let rows = text
                .lines()
                .map(|l| {
                    l.split(',')
                        .enumerate()
                        .filter(|(i, _)| *i != seconds)
                        .map(|(_, f)| f)
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            (p.file_name().unwrap().to_string_lossy().into_owned(), rows)
        })
        .collect()
}

/// A study killed mid-run (SIGKILL) and started again gives the same results as an uninterrupted run,
/// recomputing only what was not written.
#[test]
fn killed_study_resumes_to_the_same_result() {
    let dir = temp_dir("study");
    let file = dir.join("small.toml");
    std::fs::write(&file, SMALL_STUDY).unwrap();
    let full = dir.join("full");
    let out = pbdfit(&["study", file.to_str().unwrap(), "--out", full.to_str().unwrap(), "--jobs", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference = rows_without_seconds(&full);
    assert_eq!(reference.len(), 4);
    assert!(reference.iter().all(|(_, rows)| rows.len() == 1 + 10 || rows.len() == 1 + 20));

    let resumed = dir.join("resumed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbdfit"))
        .args(["study", file.to_str().unwrap(), "--out", resumed.to_str().unwrap(), "--jobs", "1"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for some rows, then kill -9.
    let count_rows = || -> usize {
        std::fs::read_dir(&resumed)
            .map(|d| {
                d.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                    .map(|t| t.lines().count().saturating_sub(1))
                    .sum()
            })
            .unwrap_or(0)
    };
    let start = std::time::Instant::now();
    while count_rows() < 6 && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(child.try_wait().unwrap().is_none(), "the study finished before it could be killed");
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = count_rows();
    assert!((6..60).contains(&partial), "{partial} rows before the kill");
    // A kill in the middle of a write leaves a partial line: simulate one.
    let victim = resumed.join("gravity-floor-base.csv");
    if victim.exists() {
        let mut text = std::fs::read_to_string(&victim).unwrap();
        text.push_str("gravity-floor,base,,1000.0,0.4");
        std::fs::write(&victim, text).unwrap();
    }
    let out = pbdfit(&["study", file.to_str().unwrap(), "--out", resumed.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("resumed") && !stdout.contains(" 0 resumed"), "{stdout}");
    assert_eq!(rows_without_seconds(&resumed), reference);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_study_files_are_rejected_before_any_work() {
    let dir = temp_dir("bad-study");
    for (text, needle) in [
        (SMALL_STUDY.replace("\"gravity-floor\"", "\"gravity-moon\""), "gravity-moon"),
        (SMALL_STUDY.replace("parameter = \"n\"", "parameter = \"colour\""), "colour"),
        (SMALL_STUDY.replace("values = [2, 3]", "values = []"), "empty"),
        (SMALL_STUDY.replace("to = 0.45", "to = 0.5"), "0.5"),
        (SMALL_STUDY.replace("young = 1e3", "young = -1"), "base.young"),
        (SMALL_STUDY.replace("[base]", "[base]\ncolour = 1"), "colour"),
    ] {
        let file = dir.join("bad.toml");
        std::fs::write(&file, text).unwrap();
        let out_dir = dir.join("out");
        let out = pbdfit(&["study", file.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(needle) && stderr.contains("bad.toml"), "{needle}: {stderr}");
        assert!(!out_dir.exists(), "no work before validation");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `pbdfit reproduce --quick` end to end on a tiny study: fits, all 39 figures, the report.
#[test]
fn reproduce_runs_end_to_end_on_a_tiny_grid() {
    let dir = temp_dir("reproduce");
    let thesis = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fits/thesis.toml")).unwrap();
    // Two values of nu (0 and 0.49 after the quick stride of 7 over 0..0.49 in steps of 0.07).
    let tiny = thesis.replace("step = 0.01", "step = 0.07").replace("values = [1, 2, 3, 4]", "values = [1, 2]");
    let study = dir.join("tiny.toml");
    std::fs::write(&study, tiny).unwrap();
    let results = dir.join("results");
    let out = dir.join("report");
    let run = pbdfit(&[
        "reproduce",
        "--quick",
        "--study",
        study.to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = std::fs::read_to_string(out.join("README.md")).unwrap();
    for number in 1..=39 {
        assert!(report.contains(&format!("4.{number}")), "report lacks figure 4.{number}");
    }
    let pngs = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "png"))
        .count();
    assert_eq!(pngs, 39);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Resuming into a folder made with another model is refused, not silently mixed.
#[test]
fn resume_refuses_results_of_another_model() {
    let dir = temp_dir("other-model");
    let tiny = SMALL_STUDY.replace("to = 0.45", "to = 0.0").replace("values = [2, 3]", "values = [2]");
    let file = dir.join("s.toml");
    std::fs::write(&file, &tiny).unwrap();
    let out_dir = dir.join("out");
    assert!(pbdfit(&["study", file.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]).status.success());
    std::fs::write(&file, tiny.replace("scenes = [", "model = \"pbd-linearised\"\nscenes = [")).unwrap();
    let out = pbdfit(&["study", file.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("pbd-linearised") && stderr.contains("another --out"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--backend gpu` fits within 1e-3 of the CPU fit (f32 kernels), or says it fell back to the CPU;
/// `--backend auto` says what it chose.
#[test]
fn fit_backend_choice() {
    let args = ["fit", "--scene", "gravity-wall", "--young", "1e3", "--poisson", "0.25", "--json"];
    let cpu = json(&args);
    let out = pbdfit(&[&args[..], &["--backend", "gpu"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("backend:"), "the choice is reported: {stderr}");
    let gpu: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in ["kd", "kv"] {
        let (a, b) = (cpu[k].as_f64().unwrap(), gpu[k].as_f64().unwrap());
        assert!((a - b).abs() < 1e-3, "{k}: cpu {a}, gpu {b} ({stderr})");
    }
    let out = pbdfit(&[&args[..], &["--backend", "auto"]].concat());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("backend:"));
}
