//! `pbdfit fit --measured`: markers written from a simulated rest state give the model's parameters
//! back; bad marker files exit with code 2 naming the file and row.

use crate::common::{assert_refused, displacements, json, pbdfit, scratch};

#[test]
fn markers_from_a_rest_state_give_its_parameters_back() {
    let sim =
        json(&pbdfit(&["simulate", "--scene", "gravity-wall", "--n", "2", "--kd", "0.37", "--kv", "0.62", "--json"]));
    let u = displacements(&sim);
    let x: Vec<[f64; 3]> =
        sim["vertices"].as_array().unwrap().iter().map(|v| [0, 1, 2].map(|k| v[k].as_f64().unwrap())).collect();
    // Markers at the vertices of the far face (z = 1), with their simulated displacements.
    let mut csv = String::from("x,y,z,ux,uy,uz\n");
    let top: Vec<usize> = (0..x.len()).filter(|&i| x[i][2] > 0.99).collect();
    for &i in &top {
        csv += &format!("{},{},{},{},{},{}\n", x[i][0], x[i][1], x[i][2], u[i][0], u[i][1], u[i][2]);
    }
    let dir = scratch("measured");
    let file = dir.join("markers.csv");
    std::fs::write(&file, &csv).unwrap();
    let fit =
        json(&pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", file.to_str().unwrap(), "--json"]));
    let (kd, kv) = (fit["kd"].as_f64().unwrap(), fit["kv"].as_f64().unwrap());
    assert!((kd - 0.37).abs() < 1e-4 && (kv - 0.62).abs() < 1e-3, "kd {kd}, kv {kv}");
    assert!(fit["error"].as_f64().unwrap() < 1e-10, "{}", fit["error"]);
    let reference = fit["reference"].as_str().unwrap();
    assert!(reference.contains("markers.csv") && reference.contains(&format!("{} markers", top.len())), "{reference}");
    assert!(fit["young"].is_null() && fit["poisson"].is_null(), "E and nu are not used");
    // The bootstrap refits resampled noise: noise-free markers leave no noise, so every refit is the fit.
    let boot = json(&pbdfit(&[
        "fit",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--measured",
        file.to_str().unwrap(),
        "--bootstrap",
        "5",
        "--json",
    ]));
    assert_eq!((boot["bootstrap_replicates"].as_u64(), boot["bootstrap_failed"].as_u64()), (Some(5), Some(0)));
    let kd_interval = boot["bootstrap_95"]["kd"].as_array().unwrap();
    for end in kd_interval {
        assert!((end.as_f64().unwrap() - kd).abs() < 1e-6, "{kd_interval:?} around {kd}");
    }
    assert_refused(&["fit", "--scene", "gravity-wall", "--bootstrap", "5"], &["--bootstrap needs --measured"]);

    // Bad files: a marker outside the body, a NaN, a missing column; a compound scene.
    let bad = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let outside = bad("outside.csv", "x,y,z,ux,uy,uz\n0.5,0.5,0.5,0,-1e-3,0\n0.5,1.5,0.5,0,-1e-3,0\n");
    assert_refused(
        &["fit", "--scene", "gravity-wall", "--measured", &outside],
        &["outside.csv: row 2", "outside the body"],
    );
    let nan = bad("nan.csv", "x,y,z,ux,uy,uz\n0.5,0.5,0.5,0,NaN,0\n");
    assert_refused(&["fit", "--scene", "gravity-wall", "--measured", &nan], &["nan.csv: row 1, column uy"]);
    let missing = bad("missing.csv", "x,y,z,ux,uy\n0.5,0.5,0.5,0,0\n");
    assert_refused(&["fit", "--scene", "gravity-wall", "--measured", &missing], &["missing.csv", "`uz` missing"]);
    assert_refused(&["fit", "--scene", "gravity", "--measured", file.to_str().unwrap()], &["compound"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// `pbdfit identify`: markers at the far face's vertices with the linear FEM's displacements give E and
/// nu back to 1e-6; a compound scene is refused.
/// `identify` on `gravity-wall` at N = 2 with `measured` (markers from a linear static FEM solution with
/// `young`, `poisson`): E and nu come back to 1e-6. Returns its JSON.
fn identify_gives_back(measured: &std::path::Path, young: f64, poisson: f64) -> serde_json::Value {
    let id = json(&pbdfit(&[
        "identify",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--measured",
        measured.to_str().unwrap(),
        "--json",
    ]));
    let (e, nu) = (id["young"].as_f64().unwrap(), id["poisson"].as_f64().unwrap());
    assert!((e / young - 1.0).abs() < 1e-6 && (nu - poisson).abs() < 1e-6, "E {e}, nu {nu} for {young}, {poisson}");
    id
}

#[test]
fn identify_gives_the_fem_material_back() {
    let fem =
        json(&pbdfit(&["fem", "--scene", "gravity-wall", "--n", "2", "--young", "3e3", "--poisson", "0.35", "--json"]));
    let u = displacements(&fem);
    let mut csv = String::from("x,y,z,ux,uy,uz\n");
    for (i, v) in fem["vertices"].as_array().unwrap().iter().enumerate() {
        let x = [0, 1, 2].map(|k| v[k].as_f64().unwrap());
        if x[2] > 0.49 {
            csv += &format!("{},{},{},{},{},{}\n", x[0], x[1], x[2], u[i][0], u[i][1], u[i][2]);
        }
    }
    let dir = scratch("identify");
    let file = dir.join("markers.csv");
    std::fs::write(&file, &csv).unwrap();
    let id = identify_gives_back(&file, 3e3, 0.35);
    let young = id["young"].as_f64().unwrap();
    assert_eq!(id["reference"], "linear static");
    let interval = id["young_interval_95"].as_array().unwrap();
    assert!(interval[0].as_f64().unwrap() <= young && young <= interval[1].as_f64().unwrap());
    assert_refused(&["identify", "--scene", "gravity", "--measured", file.to_str().unwrap()], &["compound"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// A full field: `pbdfit fem --vtk` writes a `.vtu` whose `displacement` is read as a marker at every
/// vertex, so `identify` gives E and nu back, and a fit to it equals the fit to that FEM reference. A
/// scene file names its markers (`[reference] measured`, relative to the file) so that neither command
/// needs `--measured`; `--vtk` with markers writes the residuals at the markers; E and nu are refused
/// with markers (they would be ignored).
#[test]
fn full_fields_and_scene_named_markers() {
    let dir = scratch("full-field");
    let field = dir.join("field.vtu");
    pbdfit(&[
        "fem",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--young",
        "2e3",
        "--poisson",
        "0.25",
        "--vtk",
        field.to_str().unwrap(),
    ]);
    let id = identify_gives_back(&field, 2e3, 0.25);
    // A marker at each of the 27 vertices; the 9 held ones do not move and are left out.
    assert_eq!(id["markers"].as_u64(), Some(18));
    // The fit to the full field is the fit to the FEM reference it came from (the held vertices do not move
    // and are left out, as the FEM fit leaves them).
    let fem_fit =
        json(&pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--young", "2e3", "--poisson", "0.25", "--json"]));
    let field_fit =
        json(&pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", field.to_str().unwrap(), "--json"]));
    for p in ["kd", "kv"] {
        let (a, b) = (fem_fit[p].as_f64().unwrap(), field_fit[p].as_f64().unwrap());
        assert!((a - b).abs() < 1e-6, "{p}: FEM {a}, full field {b}");
    }
    // The scene names the field; `fit` and `identify` use it, and --vtk writes the residuals at the markers.
    let scene = dir.join("lab.toml");
    let wall =
        std::fs::read_to_string(format!("{}/../../scenes/gravity-wall.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    std::fs::write(
        &scene,
        format!(
            "{}\n[reference]\nmeasured = \"field.vtu\"\n",
            wall.replace("name = \"gravity-wall\"", "name = \"lab\"")
        ),
    )
    .unwrap();
    let scene = scene.to_str().unwrap();
    let id2 = json(&pbdfit(&["identify", "--scene", scene, "--n", "2", "--json"]));
    assert_eq!(id2["young"], id["young"]);
    let vtk = dir.join("fit.vtu");
    let fit = json(&pbdfit(&["fit", "--scene", scene, "--n", "2", "--vtk", vtk.to_str().unwrap(), "--json"]));
    assert_eq!(fit["kd"], field_fit["kd"]);
    let residuals = std::fs::read_to_string(dir.join("fit.markers.csv")).unwrap();
    let rows: Vec<&str> = residuals.lines().collect();
    assert!(rows[0].starts_with("x,y,z,ux,uy,uz,model_ux") && rows.len() == 28, "{}", rows[0]);
    // The residuals are the model's minus the observed, and they make the fit's error: the mean of
    // (|r| / |u_obs|)^2 over the markers that move.
    let (mut sum, mut moving) = (0.0, 0);
    for row in &rows[1..] {
        let v: Vec<f64> = row.split(',').take(13).map(|c| c.parse().unwrap()).collect();
        for k in 0..3 {
            assert!((v[9 + k] - (v[6 + k] - v[3 + k])).abs() <= 1e-12 * v[3 + k].abs().max(1e-12), "{row}");
        }
        let observed = (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]).sqrt();
        if observed > 0.0 {
            sum += (v[12] / observed).powi(2);
            moving += 1;
        }
    }
    let error = fit["error"].as_f64().unwrap();
    assert!(
        moving == 18 && ((sum / moving as f64) / error - 1.0).abs() < 1e-5,
        "{} against {error}",
        sum / moving as f64
    );
    assert!(pbdfit_mesh::vtk::read_vtu(&vtk).unwrap().point_data.iter().any(|(n, _)| n == "model_displacement"));
    assert_refused(&["fit", "--scene", scene, "--young", "3e3"], &["--young and --poisson", "field.vtu"]);
    assert_refused(&["identify", "--scene", "gravity-wall"], &["needs measured markers"]);
    // A silent default: a study, a table or the settings sweep fitted such a scene against the
    // linear FEM (a study gave kd 0.1787 where `fit` gives 0.2738). They refuse it, naming the markers and
    // the command that fits them.
    let study = dir.join("study.toml");
    std::fs::write(
        &study,
        format!(
            "name = \"lab-study\"\nscenes = [\"{scene}\"]\n[base]\ndt = 0.01\nn = 2\nnit = 1\nyoung = 1e3\n\
             [poisson]\nfrom = 0.3\nto = 0.3\nstep = 0.1\n[[experiment]]\nname = \"base\"\n"
        ),
    )
    .unwrap();
    let out = dir.join("study-out");
    let words = ["names measured markers", "field.vtu", "pbdfit fit --scene"];
    assert_refused(&["study", study.to_str().unwrap(), "--out", out.to_str().unwrap()], &words);
    assert_refused(&["settings", "--scene", scene, "--n", "2", "--target", "0.5"], &words);
    std::fs::remove_dir_all(&dir).ok();
}
