//! End-to-end tests of `pbdfit fem`: JSON against docs/method.md's reference value, the VTK file read
//! back, and exit code 2 with a helpful message for bad input.

use crate::common::{assert_refused, displacements, max_norm, pbdfit, scratch, stderr, stdout};

#[test]
fn json_matches_the_reference_value() {
    let out = pbdfit(&["fem", "--scene", "gravity-wall", "--n", "4", "--young", "1e3", "--poisson", "0.3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    assert_eq!(json["scene"], "gravity-wall");
    assert_eq!(json["n"], 4);
    assert_eq!(json["young"], 1e3);
    assert_eq!(json["poisson"], 0.3);
    assert_eq!(json["mass_model"], "lumped");
    assert_eq!(json["vertices"].as_array().unwrap().len(), 125);
    assert_eq!(json["tets"].as_array().unwrap().len(), 5 * 64);
    assert_eq!(json["fixed"].as_array().unwrap().len(), 25);
    let masses: f64 = json["masses"].as_array().unwrap().iter().map(|m| m.as_f64().unwrap()).sum();
    assert!((masses - 1.0).abs() < 1e-12);
    let u = displacements(&json);
    assert_eq!(u.len(), 125);
    // Methodology reference (independent scikit-fem), 1e-9 relative; JSON keeps full f64 precision.
    let max = max_norm(&u);
    assert!((max / 2.6792241782e-2 - 1.0).abs() < 1e-9, "{max:e}");
    // Held vertices (z = 0) do not move.
    for v in json["fixed"].as_array().unwrap() {
        assert_eq!(u[v.as_u64().unwrap() as usize], [0.0; 3]);
    }
}

#[test]
fn compound_scene_gives_an_array_and_mass_model_override_is_reported() {
    let out = pbdfit(&["fem", "--scene", "gravity", "--n", "1", "--mass-model", "uniform", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let parts = json.as_array().expect("an array for a compound scene");
    let names: Vec<&str> = parts.iter().map(|p| p["scene"].as_str().unwrap()).collect();
    assert_eq!(names, ["gravity-floor", "gravity-wall", "gravity-ceiling"]);
    assert!(parts.iter().all(|p| p["mass_model"] == "uniform"));
    // Uniform: 1 kg over 8 vertices (the total is a sum of tetrahedron volumes, so round-off only).
    let uniform = |m: &serde_json::Value| (m.as_f64().unwrap() - 0.125).abs() < 1e-15;
    assert!(parts.iter().all(|p| p["masses"].as_array().unwrap().iter().all(uniform)));
}

#[test]
fn human_summary_names_the_run() {
    let out = pbdfit(&["fem", "--scene", "gravity-floor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "gravity-floor",
        "N           1",
        "1000 Pa",
        "0.3",
        "lumped",
        "DOFs        12",
        "4.6201726251e-3 m",
        "reference   linear static",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in\n{text}");
    }
}

#[test]
fn vtk_file_reads_back_with_the_same_displacements() {
    let dir = scratch("vtk");
    let path = dir.join("wall.vtu");
    let out = pbdfit(&["fem", "--scene", "gravity-wall", "--n", "2", "--json", "--vtk", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let u = displacements(&json);
    let back = pbdfit_mesh::vtk::read_vtu(&path).expect("readable .vtu");
    assert_eq!(back.points.len(), 27);
    assert_eq!(back.tets.len(), 40);
    let data = |name: &str| back.point_data.iter().find(|(n, _)| n == name).map(|(_, d)| d.clone()).unwrap();
    let flat: Vec<f64> = u.iter().flatten().copied().collect();
    // Both files carry shortest round-trip decimals, and serde_json parses them exactly (float_roundtrip):
    // the values agree bit for bit.
    assert_eq!(data("displacement"), flat);
    assert_eq!(data("held").iter().filter(|&&h| h == 1.0).count(), 9);
    assert!((data("mass").iter().sum::<f64>() - 1.0).abs() < 1e-12);

    // A compound scene writes one file per part.
    let out = pbdfit(&["fem", "--scene", "gravity", "--vtk", dir.join("g.vtu").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for part in ["gravity-floor", "gravity-wall", "gravity-ceiling"] {
        assert!(pbdfit_mesh::vtk::read_vtu(&dir.join(format!("g-{part}.vtu"))).is_ok(), "{part}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `pbdfit fem` with the extra arguments and checks: exit code 2, nothing on stdout, a message on
/// stderr that contains every needle, and no panic.
fn bad_input(extra: &[&str], needles: &[&str]) {
    let mut args = vec!["fem"];
    args.extend_from_slice(extra);
    assert_refused(&args, needles);
}

#[test]
fn bad_input_exits_with_code_2_and_says_why() {
    bad_input(&["--scene", "gravity-floor", "--poisson", "0.5"], &["nu = 0.5", "-1 < nu < 0.5"]);
    bad_input(&["--scene", "gravity-floor", "--young", "-1"], &["E = -1", "> 0"]);
    bad_input(&["--scene", "gravity-floor", "--young", "0"], &["E = 0"]);
    bad_input(&["--scene", "nope"], &["unknown scene `nope`", "gravity-floor"]);
    bad_input(&["--scene", "gravity-floor", "--n", "0"], &["--n", "at least 1"]);
    bad_input(&["--scene", "gravity-floor", "--n", "-3"], &["-3"]);
    bad_input(&["--scene", "gravity-floor", "--mass-model", "heavy"], &["lumped", "uniform"]);
    bad_input(
        &["--scene", "gravity-floor", "--vtk", "/nonexistent-dir/x/out.vtu"],
        &["--vtk", "/nonexistent-dir/x/out.vtu"],
    );
    bad_input(&["--scene", "gravity-floor", "--vtk", "out.txt"], &[".vtu"]);
    bad_input(&[], &["--scene"]);
}

#[test]
fn locking_warning_goes_to_stderr() {
    let out = pbdfit(&["fem", "--scene", "gravity-floor", "--poisson", "0.4995", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("lock"));
    let _: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("stdout stays pure JSON");
}
