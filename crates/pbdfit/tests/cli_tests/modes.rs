//! End-to-end tests of `pbdfit modes`: the modal reference's physics through the command line (frequencies
//! scale with sqrt(E); all modes together carry the whole free mass in every direction), its VTK fields and
//! its refusals.

use crate::common::{assert_refused, pbdfit, scratch, stderr, stdout};

fn modes(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["modes", "--json"];
    args.extend_from_slice(extra);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("one JSON object")
}

fn frequencies(report: &serde_json::Value) -> Vec<f64> {
    report["modes"].as_array().unwrap().iter().map(|m| m["frequency"].as_f64().unwrap()).collect()
}

/// Four times the stiffness, twice the frequencies; and with every mode of the wall cube at N = 1 (12 free
/// DOFs) the effective modal masses add up to the free mass along each axis (the modes are complete), for
/// both mass matrices.
#[test]
fn frequencies_scale_with_the_root_of_e_and_all_modes_carry_the_whole_mass() {
    let soft = modes(&["--scene", "gravity-wall", "--n", "2", "--young", "1e3", "--count", "4"]);
    let stiff = modes(&["--scene", "gravity-wall", "--n", "2", "--young", "4e3", "--count", "4"]);
    let (a, b) = (frequencies(&soft), frequencies(&stiff));
    assert!(a.windows(2).all(|w| w[0] <= w[1]), "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert!((y / x - 2.0).abs() < 1e-9, "{y} / {x}");
    }
    for mass in ["lumped", "consistent"] {
        let all = modes(&["--scene", "gravity-wall", "--n", "1", "--count", "12", "--fem-mass", mass]);
        assert_eq!(all["dofs"], 12);
        for axis in 0..3 {
            let total: f64 =
                all["modes"].as_array().unwrap().iter().map(|m| m["mass_fractions"][axis].as_f64().unwrap()).sum();
            assert!((total - 1.0).abs() < 1e-9, "{mass}, axis {axis}: {total}");
        }
    }
}

/// The table names every mode; `--vtk` writes one field per mode, zero at the held face.
#[test]
fn the_table_and_the_vtk_file_show_every_mode() {
    let out = pbdfit(&["modes", "--scene", "cantilever", "--young", "3e4", "--count", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("scene cantilever") && text.contains("frequency (Hz)"), "{text}");
    assert_eq!(text.lines().filter(|l| l.trim_start().starts_with(['1', '2', '3'])).count(), 3, "{text}");
    let dir = scratch("modes-vtk");
    let file = dir.join("beam.vtu");
    let out = pbdfit(&["modes", "--scene", "cantilever", "--count", "3", "--vtk", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let vtu = std::fs::read_to_string(&file).unwrap();
    for name in ["mode_1", "mode_2", "mode_3"] {
        assert!(vtu.contains(name), "{name} missing");
    }
    let report = modes(&["--scene", "cantilever", "--count", "1"]);
    let shape = report["modes"][0]["shape"].as_array().unwrap();
    let clamp = pbdfit(&["fem", "--scene", "cantilever", "--json"]);
    let fem: serde_json::Value = serde_json::from_str(&stdout(&clamp)).unwrap();
    for v in fem["fixed"].as_array().unwrap() {
        assert_eq!(shape[v.as_u64().unwrap() as usize], serde_json::json!([0.0, 0.0, 0.0]));
    }
}

#[test]
fn bad_counts_and_bodies_on_obstacles_are_refused() {
    assert_refused(&["modes", "--scene", "gravity-wall", "--count", "0"], &["--count", "at least 1"]);
    assert_refused(&["modes", "--scene", "gravity-wall", "--n", "1", "--count", "13"], &["--count = 13", "12 free"]);
    assert_refused(&["modes", "--scene", "resting"], &["obstacle", "held"]);
    assert_refused(&["modes", "--scene", "gravity-wall", "--fem-mass", "heavy"], &["heavy", "lumped, consistent"]);
}
