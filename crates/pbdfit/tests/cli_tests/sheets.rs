//! End-to-end tests of sheets through the command line: the built-in sheet scenes' shell references
//! against the closed forms (the clamped strip's cantilever deflection, the plates' Timoshenko
//! coefficients, the simply supported plate's frequency), their JSON and VTK output, `--thickness`, and
//! the refusals (a bad thickness, a sheet given to a model or a solid-only option, a thickness given to a
//! solid, a sheet whose triangles are not a surface).

use crate::common::{assert_refused, json, pbdfit, scratch, stderr, stdout};

fn fem(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["fem", "--json"];
    all.extend_from_slice(args);
    json(&pbdfit(&all))
}

/// The mean z displacement of the vertices at `x` (m).
fn mean_z_at_x(report: &serde_json::Value, x: f64) -> f64 {
    let vertices = report["vertices"].as_array().unwrap();
    let at: Vec<usize> =
        (0..vertices.len()).filter(|&v| (vertices[v][0].as_f64().unwrap() - x).abs() < 1e-12).collect();
    assert!(!at.is_empty());
    at.iter().map(|&v| report["displacements"][v][2].as_f64().unwrap()).sum::<f64>() / at.len() as f64
}

/// The z displacement of the vertex at `(x, y)`.
fn z_at(report: &serde_json::Value, x: f64, y: f64) -> f64 {
    let vertices = report["vertices"].as_array().unwrap();
    let v = (0..vertices.len())
        .find(|&v| {
            (vertices[v][0].as_f64().unwrap() - x).abs() < 1e-12 && (vertices[v][1].as_f64().unwrap() - y).abs() < 1e-12
        })
        .expect("a vertex there");
    report["displacements"][v][2].as_f64().unwrap()
}

/// The steel ruler at nu = 0, linear shell: its tip deflects q L^4 / (8 E I) = 4.678 mm (beam theory)
/// within 1e-3 at the scene's 40 x 4 cells and within 2.5e-4 at 80 x 8, the error shrinking by about four
/// (second order); `--size 1` (q L^3 / B = 4.6) drops the tip by nearly half the length, which the
/// corotational shell follows and the linear one, 16 % deeper, does not.
#[test]
fn the_clamped_strip_s_tip_converges_to_the_beam_s() {
    let beam = 12.0 * 7850.0 * 9.81 * 0.3f64.powi(4) / (8.0 * 2e11 * 1e-6);
    let mut errors = Vec::new();
    for n in ["40", "80"] {
        let r = fem(&["--scene", "clamped-strip", "--poisson", "0", "--material", "linear", "--n", n]);
        assert_eq!(r["reference"], "linear shell");
        errors.push(-mean_z_at_x(&r, 0.3) / beam - 1.0);
    }
    println!("clamped strip tip against the beam: {errors:?}");
    assert!(errors[0].abs() < 1e-3 && errors[1].abs() < 2.5e-4, "{errors:?}");
    let order = (errors[0] / errors[1]).abs().log2();
    assert!((1.8..2.3).contains(&order), "order {order}");
    let heavy = fem(&["--scene", "clamped-strip", "--size", "1"]);
    let linear = fem(&["--scene", "clamped-strip", "--size", "1", "--material", "linear"]);
    let (drop, straight) = (-mean_z_at_x(&heavy, 1.0), -mean_z_at_x(&linear, 1.0));
    println!("heavy strip: tip drop {drop} m (corotational), {straight} m (linear)");
    assert!((0.4..0.5).contains(&drop) && straight > 1.1 * drop, "{drop} {straight}");
}

/// The plates at nu = 0.3, linear shell, 16 x 16 cells: the centre deflections are Timoshenko's
/// `alpha q a^4 / D` (clamped 0.00126532, simply supported 0.00406235) within 1 %; the corotational
/// references deflect less (the membrane stiffens a plate deflecting a third of its thickness or more).
#[test]
fn the_plates_deflect_by_timoshenko_s_coefficients() {
    let d = 2e11 * 1e-9 / (12.0 * (1.0 - 0.09));
    let scale = 7850.0 * 9.81 * 1e-3 * 0.5f64.powi(4) / d;
    for (scene, alpha) in [("clamped-plate", 0.00126532), ("supported-plate", 0.00406235)] {
        let linear = fem(&["--scene", scene, "--material", "linear"]);
        let w = -z_at(&linear, 0.25, 0.25);
        let error = w / (alpha * scale) - 1.0;
        let nonlinear = -z_at(&fem(&["--scene", scene]), 0.25, 0.25);
        println!("{scene}: centre {w} m (linear, {error:e} from Timoshenko), {nonlinear} m (corotational)");
        assert!(error.abs() < 1e-2, "{scene}: {error:e}");
        assert!(nonlinear < w && nonlinear > 0.5 * w, "{scene}: {nonlinear} against {w}");
    }
}

/// The report's first line states the sheet; the JSON carries triangles, rotations and the thickness; the
/// VTK file holds triangles with the displacement and rotation fields; `--thickness` halves a linear
/// strip's stiffness eightfold and its weight twofold.
#[test]
fn the_report_json_and_vtk_describe_the_sheet() {
    let out = pbdfit(&["fem", "--scene", "clamped-strip", "--n", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("body: 0.3 m (largest extent), thickness 0.001 m, density 7850 kg/m^3, mass 0.07065 kg"));
    assert!(text.contains("reference   corotational shell") && text.contains("80 triangles"), "{text}");
    let r = fem(&["--scene", "clamped-strip", "--n", "20"]);
    assert_eq!(r["body"]["thickness_m"], 1e-3);
    assert_eq!(r["triangles"].as_array().unwrap().len(), 80);
    assert!(r.get("tets").is_none() && r["rotations"].as_array().unwrap().len() == 63);
    let solid = fem(&["--scene", "gravity-wall"]);
    assert!(
        solid.get("triangles").is_none()
            && solid.get("rotations").is_none()
            && solid["body"].get("thickness_m").is_none()
    );
    let thin = fem(&["--scene", "clamped-strip", "--n", "20", "--material", "linear", "--thickness", "5e-4"]);
    let thick = fem(&["--scene", "clamped-strip", "--n", "20", "--material", "linear"]);
    let ratio = mean_z_at_x(&thin, 0.3) / mean_z_at_x(&thick, 0.3);
    assert!((ratio - 4.0).abs() < 1e-6, "{ratio}");
    let dir = scratch("sheet-vtk");
    let file = dir.join("strip.vtu");
    let out = pbdfit(&["fem", "--scene", "clamped-strip", "--n", "20", "--vtk", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let back = pbdfit_mesh::vtk::read_vtu(&file).unwrap();
    assert_eq!((back.triangles.len(), back.points.len(), back.tets.len()), (80, 63, 0));
    let names: Vec<&str> = back.point_data.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["displacement", "held", "mass", "rotation"]);
    let file = dir.join("plate.vtu");
    let out = pbdfit(&["modes", "--scene", "supported-plate", "--count", "2", "--vtk", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let back = pbdfit_mesh::vtk::read_vtu(&file).unwrap();
    assert_eq!((back.triangles.len(), back.point_data.len()), (512, 2));
}

/// The simply supported plate's lowest frequency is pi / a^2 sqrt(D / (rho h)) = 19.19 Hz.
#[test]
fn the_supported_plate_s_lowest_frequency_is_the_plate_s() {
    let r = json(&pbdfit(&["modes", "--json", "--scene", "supported-plate", "--count", "1"]));
    let d: f64 = 2e11 * 1e-9 / (12.0 * (1.0 - 0.09));
    let f11 = std::f64::consts::PI / 0.25 * (d / 7.85).sqrt();
    let f = r["modes"][0]["frequency"].as_f64().unwrap();
    assert!((f / f11 - 1.0).abs() < 2e-3, "{f} against {f11}");
}

#[test]
fn bad_thicknesses_and_misplaced_sheets_are_refused() {
    for bad in ["0", "-1e-3", "nan", "inf"] {
        for command in ["fem", "modes"] {
            assert_refused(
                &[command, "--scene", "clamped-strip", "--thickness", bad],
                &["--thickness", "finite number > 0 m"],
            );
        }
    }
    // A sheet to a model, or to a solid-only command; a solid-only option to a sheet.
    assert_refused(
        &["fit", "--scene", "hanging-sheet", "--model", "xpbd"],
        &["model `xpbd`", "fit a cloth model to it"],
    );
    assert_refused(&["simulate", "--scene", "clamped-strip"], &["model `pbd`", "fit a cloth model to it"]);
    assert_refused(&["identify", "--scene", "clamped-strip", "--measured", "m.csv"], &["is a sheet"]);
    assert_refused(
        &["fem", "--scene", "clamped-plate", "--split", "six"],
        &["--split", "tetrahedral solids", "is a sheet"],
    );
    assert_refused(&["fem", "--scene", "clamped-plate", "--fem-mass", "consistent"], &["--fem-mass", "--dynamic"]);
    // The shell's transient: a lumped mass, the corotational shell, the dynamic options with --dynamic.
    assert_refused(
        &["fem", "--scene", "clamped-plate", "--dynamic", "--fem-mass", "consistent"],
        &["--fem-mass", "lumped"],
    );
    assert_refused(
        &["fem", "--scene", "clamped-plate", "--dynamic", "--material", "linear"],
        &["--material", "corotational shell's"],
    );
    assert_refused(&["fem", "--scene", "clamped-plate", "--rayleigh", "1,0"], &["--rayleigh", "--dynamic"]);
    assert_refused(
        &["fit", "--scene", "clamped-strip", "--model", "cloth-xpbd", "--dynamic"],
        &["--dynamic", "static shell", "`fem --dynamic` runs its transient", "is a sheet"],
    );
    assert_refused(&["fem", "--scene", "clamped-plate", "--mass-model", "uniform"], &["--mass-model", "lumped"]);
    assert_refused(&["fem", "--scene", "clamped-plate", "--material", "neo-hookean"], &["--material", "stvk shell"]);
    // A thickness to a solid.
    for command in ["fem", "modes", "simulate", "fit"] {
        assert_refused(
            &[command, "--scene", "gravity-wall", "--thickness", "1e-3"],
            &["--thickness", "tetrahedral solid"],
        );
    }
}

/// A sheet scene file whose triangles are not a surface: each refused with exit 2, naming the triangle.
#[test]
fn a_sheet_of_bad_triangles_is_refused_naming_the_triangle() {
    let dir = scratch("bad-sheets");
    let head = "name = \"bad\"\n[sheet]\nthickness = 1e-3\nvertices = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1], [2, 2, 0]]\n";
    let held = "[[held]]\nplane = \"x = 0\"\n";
    for (triangles, words) in [
        ("[[0, 1, 2], [0, 2, 3], [0, 2, 4], [2, 5, 3]]", &["triangle 2", "non-manifold"][..]),
        ("[[0, 1, 2], [0, 2, 3], [0, 2, 5], [1, 2, 4]]", &["triangle 2", "degenerate"]),
        ("[[0, 1, 2], [0, 2, 3], [3, 2, 0], [1, 4, 5]]", &["triangle 2", "repeats triangle 1"]),
    ] {
        let file = dir.join("bad.toml");
        std::fs::write(&file, format!("{head}triangles = {triangles}\n{held}")).unwrap();
        let mut words = words.to_vec();
        words.push("sheet.triangles");
        assert_refused(&["fem", "--scene", file.to_str().unwrap()], &words);
    }
    // Good triangles: solved (the square clamped along x = 0 and its flap).
    let file = dir.join("good.toml");
    std::fs::write(&file, format!("{head}triangles = [[0, 1, 2], [0, 2, 3], [1, 5, 2], [1, 4, 5]]\n{held}")).unwrap();
    let r = fem(&["--scene", file.to_str().unwrap(), "--young", "1e9"]);
    assert_eq!(r["triangles"].as_array().unwrap().len(), 4);
}

/// A sheet from an OBJ file: the strip's own mesh written as OBJ (quads, fanned into the same triangles
/// by the importer) gives the built-in strip's displacements to the last bit; a file with no faces is
/// refused naming the file.
#[test]
fn a_sheet_from_an_obj_file_is_the_built_in_one() {
    let built_in = fem(&["--scene", "clamped-strip", "--n", "10", "--material", "linear"]);
    let dir = scratch("obj-sheet");
    let mut obj = String::new();
    for v in built_in["vertices"].as_array().unwrap() {
        obj += &format!("v {} {} {}\n", v[0], v[1], v[2]);
    }
    for t in built_in["triangles"].as_array().unwrap() {
        let i = |k: usize| t[k].as_u64().unwrap() + 1;
        obj += &format!("f {} {} {}\n", i(0), i(1), i(2));
    }
    std::fs::write(dir.join("strip.obj"), obj).unwrap();
    let scene = "name = \"obj-strip\"\n[sheet]\nthickness = 1e-3\nmesh = \"strip.obj\"\n[[held]]\nplane = \"x = 0\"\n\
                 [load]\ngravity = [0.0, 0.0, -9.81]\n[material]\ndensity = 7850.0\nyoung = 2e11\npoisson = 0.3\n";
    std::fs::write(dir.join("strip.toml"), scene).unwrap();
    let path = dir.join("strip.toml");
    let imported = fem(&["--scene", path.to_str().unwrap(), "--material", "linear"]);
    assert_eq!(imported["triangles"], built_in["triangles"]);
    assert_eq!(imported["displacements"], built_in["displacements"]);
    std::fs::write(dir.join("strip.obj"), "v 0 0 0\nv 1 0 0\n").unwrap();
    assert_refused(&["fem", "--scene", path.to_str().unwrap()], &["sheet.mesh", "strip.obj", "no triangles"]);
}

/// A cloth model on a sheet goes through `fit`, `evaluate` and `simulate` against the shell's
/// translations; a solid model on a sheet and a cloth model on a solid are refused naming the model. The
/// clamped strip is held along one edge of vertices: a particle carries no rotation, so the cloth holds
/// the clamped column and the next (the clamp's first cell), and the built-in steel ruler has a rest
/// state; at alpha_d = 1e-8 m/N, alpha_b = 1e-2 1/J it sags far more than the steel shell (error 426.2,
/// of which 0.1 is the floor of the two vertices the cloth holds and the shell moves).
#[test]
fn cloth_models_fit_sheets_and_the_wrong_body_is_refused() {
    assert_refused(&["fit", "--scene", "clamped-strip", "--model", "pbd"], &["model `pbd`", "fit a cloth model to it"]);
    assert_refused(
        &[
            "evaluate",
            "--scene",
            "clamped-strip",
            "--model",
            "xpbd",
            "--param",
            "alpha_d=1e-6",
            "--param",
            "alpha_v=1e-6",
        ],
        &["model `xpbd`", "fit a cloth model to it"],
    );
    assert_refused(
        &["fit", "--scene", "gravity-wall", "--model", "cloth-xpbd", "--n", "2"],
        &["model `cloth-xpbd`", "is a tetrahedral solid"],
    );
    assert_refused(
        &["simulate", "--scene", "gravity-wall", "--model", "cloth-xpbd", "--n", "1"],
        &["model `cloth-xpbd`", "is a tetrahedral solid"],
    );
    assert_refused(
        &["fit", "--scene", "clamped-strip", "--model", "cloth-xpbd", "--measured", "m.csv"],
        &["--measured", "shell reference only"],
    );
    let error = strip_error("clamped-strip", "1e-2", &[]);
    assert!((error - 426.25).abs() < 0.1, "{error}");
}

/// `evaluate --json`'s error of cloth-xpbd at alpha_d = 1e-8 m/N and `alpha_b` (1/J) on a strip scene at
/// n 10, dt 0.002 s, 10 iterations, with `extra` options.
fn strip_error(scene: &str, alpha_b: &str, extra: &[&str]) -> f64 {
    let alpha_b = format!("alpha_b={alpha_b}");
    let mut args = vec!["evaluate", "--json", "--scene", scene, "--model", "cloth-xpbd", "--param", "alpha_d=1e-8"];
    args.extend(["--param", &alpha_b, "--n", "10", "--dt", "0.002", "--nit", "10"]);
    args.extend_from_slice(extra);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    json(&out)["error"].as_f64().unwrap()
}

/// `evaluate` of a cloth model on a sheet is the error against the corotational shell's translations
/// (a fabric-like strip, E = 1e8 Pa, 2 mm, 1100 kg/m^3, 0.2 m, 10 cells, clamped over its first cell, so
/// that the cloth holds three columns and the shell two): a bending compliance of 1e-2 1/J sags it about
/// as much as the shell (the mean squared relative error 0.229, of which 0.1 is the floor of the column
/// the cloth holds and the shell moves); 1 1/J sags it further (1.49).
#[test]
fn evaluate_compares_a_cloth_model_with_the_shell() {
    let dir = scratch("cloth-evaluate");
    let scene = dir.join("strip.toml");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/clamped-strip.toml"))
        .unwrap()
        .replace("plane = \"x = 0\"", "box = [[-1.0, -1.0, -1.0], [0.031, 1.0, 1.0]]");
    std::fs::write(&scene, text).unwrap();
    let fabric = ["--young", "1e8", "--density", "1100", "--thickness", "2e-3", "--size", "0.2"];
    let error = |alpha_b: &str| strip_error(scene.to_str().unwrap(), alpha_b, &fabric);
    let (stiff, soft) = (error("1e-2"), error("1"));
    assert!((stiff - 0.2293).abs() < 2e-3, "{stiff}");
    assert!((soft - 1.489).abs() < 1e-2, "{soft}");
}

/// `simulate` of a cloth model on a sheet: its JSON and its `--vtk` file of triangles describe the same
/// rest state (the file's displacements equal the JSON's to the last bit, the held flags the JSON's
/// `fixed`: the clamped column and the next), and `--frames` writes the dynamics as triangles too, the
/// same with `--frames-only`, which solves no rest state.
#[test]
fn simulate_writes_a_sheet_s_rest_state_as_triangles() {
    let dir = scratch("sheet-simulate");
    let (file, frames) = (dir.join("strip.vtu"), dir.join("frames"));
    let mut args = vec![
        "simulate",
        "--json",
        "--scene",
        "clamped-strip",
        "--model",
        "cloth-xpbd",
        "--param",
        "alpha_d=1e-8",
        "--param",
        "alpha_b=1e-2",
        "--n",
        "10",
        "--dt",
        "0.002",
        "--nit",
        "10",
        "--vtk",
        file.to_str().unwrap(),
    ];
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["converged"], true);
    assert!(report.get("tets").is_none() && report["triangles"].as_array().unwrap().len() == 20);
    let fixed: Vec<u64> = report["fixed"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(fixed, [0, 1, 11, 12]);
    let back = pbdfit_mesh::vtk::read_vtu(&file).unwrap();
    assert_eq!((back.triangles.len(), back.points.len(), back.tets.len()), (20, 22, 0));
    let data = |name: &str| &back.point_data.iter().find(|(n, _)| n == name).expect(name).1;
    let from_json: Vec<f64> = report["displacements"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    assert_eq!(data("displacement"), &from_json);
    let held: Vec<u64> = (0..22).filter(|&v| data("held")[v] == 1.0).map(|v| v as u64).collect();
    assert_eq!(held, fixed);
    args.truncate(args.len() - 2);
    args.extend(["--frames", frames.to_str().unwrap(), "--frame-steps", "10", "--frame-every", "5"]);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let last = pbdfit_mesh::vtk::read_vtu(&frames.join("frame-000010.vtu")).unwrap();
    assert_eq!((last.triangles.len(), last.point_data.len()), (20, 2));
    assert!(frames.join("dynamics.pvd").exists());
    // `--frames-only` writes the same frames, bit for bit, without the rest state: nothing on stdout.
    let only = dir.join("frames-only");
    let mut args: Vec<&str> = args.iter().filter(|a| **a != "--json").copied().collect();
    let at = args.iter().position(|a| *a == "--frames").unwrap() + 1;
    args[at] = only.to_str().unwrap();
    args.push("--frames-only");
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    for name in ["frame-000000.vtu", "frame-000005.vtu", "frame-000010.vtu", "dynamics.pvd"] {
        assert_eq!(std::fs::read(frames.join(name)).unwrap(), std::fs::read(only.join(name)).unwrap(), "{name}");
    }
    // Without `--frames` it has nothing to do, and with `--json` nothing to print: refused (exit 2).
    assert_refused(&["simulate", "--scene", "clamped-strip", "--model", "cloth-xpbd", "--frames-only"], &["--frames"]);
    let json_too = ["simulate", "--scene", "clamped-strip", "--model", "cloth-xpbd", "--frames", "x", "--frames-only"];
    assert_refused(&[&json_too[..], &["--json"]].concat(), &["--json"]);
}

/// Jolt's soft body on a sheet (`jolt-cloth`) fits the hanging sheet against the shell with Jolt's names in
/// its paste lines and the rest state stepping from the flat sheet reaches (`engine.rest_state`), `evaluate` at the fitted compliances gives the fit's error, the damping moves the answer
/// as it scales gravity, and the profile refuses a solid (exit 2, naming the model).
#[test]
fn jolt_cloth_fits_a_sheet_and_refuses_a_solid() {
    let fit = |extra: &[&str]| {
        let mut args =
            vec!["fit", "--json", "--scene", "hanging-sheet", "--n", "2", "--model", "jolt-cloth", "--dt", "1/60"];
        args.extend_from_slice(&["--nit", "5"]);
        args.extend_from_slice(extra);
        let out = pbdfit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        json(&out)
    };
    let r = fit(&[]);
    assert_eq!(r["model"], "jolt-cloth");
    let error = r["error"].as_f64().unwrap();
    assert!(error > 0.0 && error < 0.1, "{error}");
    let paste = r["engine"]["paste"].to_string();
    for name in ["mCompliance", "mShearCompliance", "mBendCompliance", "CreateConstraints", "mNumIterations = 5"] {
        assert!(paste.contains(name), "{name}: {paste}");
    }
    // The rest state the answer is of is the one Jolt reaches by stepping from the flat sheet; here the fixed
    // point's is the same (one rest state), so the fit stands and no refit is reported.
    let rest = &r["engine"]["rest_state"];
    assert_eq!(rest["reached_by"], "stepping from the start", "{rest}");
    assert!(rest["fixed_point_distance"].as_f64().unwrap() <= 1e-6 && rest["fixed_point_fit"].is_null(), "{rest}");
    let p = &r["parameters"];
    let param = |name: &str| format!("{name}={:e}", p[name].as_f64().unwrap());
    let (c, s, b) = (param("compliance"), param("shear_compliance"), param("bend_compliance"));
    let out = pbdfit(&[
        "evaluate",
        "--json",
        "--scene",
        "hanging-sheet",
        "--n",
        "2",
        "--model",
        "jolt-cloth",
        "--dt",
        "1/60",
        "--nit",
        "5",
        "--param",
        &c,
        "--param",
        &s,
        "--param",
        &b,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let evaluated = json(&out)["error"].as_f64().unwrap();
    assert!((evaluated / error - 1.0).abs() < 1e-6, "evaluate {evaluated:e} against the fit's {error:e}");
    // Jolt's damping scales the gravity the rest state feels, by 1 - c h = 0.9 at c = 30 1/s, h = 1/300 s:
    // the fit makes the edges about 1 / 0.9 times as compliant (1.12 measured; the sag is not linear).
    let damped = fit(&["--setting", "linear_damping=30"]);
    assert_eq!(damped["model"], "jolt-cloth[linear_damping=30]");
    let ratio = damped["parameters"]["compliance"].as_f64().unwrap() / p["compliance"].as_f64().unwrap();
    assert!((ratio - 1.0 / 0.9).abs() < 0.03, "compliance ratio {ratio}");
    assert_refused(
        &["fit", "--scene", "gravity-wall", "--model", "jolt-cloth", "--n", "2"],
        &["model `jolt-cloth`", "is a tetrahedral solid"],
    );
}

/// Godot's sheet in `jolt-cloth`: a fit's Godot line evaluates Godot's own body (`engine.pasted`: bend=none,
/// uniform masses, the edges' compliance on the shear diagonals) with an error of its own, and its face
/// orders report no move at all (every face order rests alike on a sheet of at most 256 vertices);
/// `simulate` runs `bend=none` with uniform masses and lists them (the sheet's mass over its vertex count);
/// a fit with `bend=none` is refused naming `bend_compliance`, and bad words are refused naming the allowed
/// ones (exit 2).
#[test]
fn jolt_cloth_evaluates_godots_body_and_its_face_orders() {
    let base = ["--scene", "hanging-sheet", "--n", "2", "--model", "jolt-cloth", "--dt", "1/60", "--nit", "5"];
    let out = pbdfit(&[&["fit", "--json"][..], &base].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json(&out);
    let error = r["error"].as_f64().unwrap();
    let godot = &r["engine"]["pasted"][0];
    assert_eq!(godot["line"], "Godot SoftBody3D", "{r}");
    assert_eq!((godot["settings"]["bend"].as_f64(), godot["settings"]["masses"].as_f64()), (Some(2.0), Some(1.0)));
    let parameters = &godot["parameters"];
    assert_eq!(parameters["compliance"], parameters["shear_compliance"], "{godot}");
    let pasted = godot["error"].as_f64().unwrap();
    println!("fit error {error:.6e}, Godot's body {pasted:.6e}");
    assert!(pasted.is_finite() && pasted != error, "{godot}");
    let orders = &r["engine"]["orders"];
    assert_eq!(orders["order"], "profile", "{orders}");
    assert_eq!(orders["others"].as_array().unwrap().len(), 5);
    assert_eq!(orders["largest_move"].as_f64(), Some(0.0), "{orders}");
    assert_eq!(orders["beyond_fit_range"], false);
    let godot_settings = ["--setting", "bend=none", "--setting", "masses=uniform"];
    let params = ["--param", "compliance=1e-3", "--param", "shear_compliance=1e-3", "--param", "bend_compliance=1"];
    let out = pbdfit(&[&["simulate", "--json"][..], &base, &godot_settings, &params].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["model"], "jolt-cloth[bend=none,masses=uniform]", "{}", v["model"]);
    let text = v.to_string();
    assert!(text.contains("\"uniform\""), "the masses are reported uniform: {text}");
    assert_refused(
        &[&["fit"][..], &base, &godot_settings].concat(),
        &["bend_compliance acts on nothing with bend=none", "fit under another value of that setting"],
    );
    assert_refused(
        &[&["simulate"][..], &base, &["--setting", "bend=flat"], &params].concat(),
        &["nor a word of model jolt-cloth's bend (distance = 0, dihedral = 1, none = 2)"],
    );
    assert_refused(
        &[&["simulate"][..], &base, &["--setting", "masses=heavy"], &params].concat(),
        &["nor a word of model jolt-cloth's masses (lumped = 0, uniform = 1)"],
    );
}

/// NVIDIA Newton's XPBD cloth (`newton-cloth`) fits the hanging sheet against the shell at Newton's cloth
/// example's substep (dt 1/600 s, 10 iterations) with the lines to paste under Newton's keyword names
/// (`add_cloth_mesh(add_springs=True, spring_ke=..., edge_ke=...)`, `SolverXPBD(iterations=10)`); the sheet
/// hangs in its plane, so the springs are determined (spring_ke 288.5 N/m, error 7.11e-3) and the bending
/// edges are not; `evaluate` at the fitted values gives the fit's error. Bad settings are refused with the
/// setting's range (exit 2).
#[test]
fn newton_cloth_fits_a_sheet_in_newtons_terms() {
    let base = ["--scene", "hanging-sheet", "--n", "2", "--model", "newton-cloth", "--dt", "1/600", "--nit", "10"];
    let out = pbdfit(&[&["fit", "--json"][..], &base].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json(&out);
    assert_eq!(r["model"], "newton-cloth");
    let error = r["error"].as_f64().unwrap();
    assert!((error - 7.1148e-3).abs() < 1e-6, "{error}");
    let spring_ke = r["parameters"]["spring_ke"].as_f64().unwrap();
    assert!((spring_ke - 288.485).abs() < 0.5, "{spring_ke}");
    let paste = r["engine"]["paste"].to_string();
    for words in
        ["add_cloth_mesh(", "add_springs=True", "spring_ke=2.88485", "edge_ke=", "SolverXPBD(model, iterations=10)"]
    {
        assert!(paste.contains(words), "{words}: {paste}");
    }
    let param = |name: &str| format!("{name}={:e}", r["parameters"][name].as_f64().unwrap());
    let (k, e) = (param("spring_ke"), param("edge_ke"));
    let out = pbdfit(&[&["evaluate", "--json"][..], &base, &["--param", &k, "--param", &e]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let evaluated = json(&out)["error"].as_f64().unwrap();
    assert!((evaluated / error - 1.0).abs() < 1e-6, "evaluate {evaluated:e} against the fit's {error:e}");
    for (setting, words) in [
        ("spring_kd=-1", &["invalid setting spring_kd = -1", "allowed [0, 1000000]"][..]),
        ("edge_kd=2e6", &["invalid setting edge_kd = 2000000", "allowed [0, 1000000]"]),
        (
            "relaxation=0.5",
            &["model newton-cloth has no setting `relaxation`", "spring_kd in [0, 1000000]", "edge_kd in [0, 1000000]"],
        ),
    ] {
        assert_refused(&[&["simulate"][..], &base, &["--setting", setting]].concat(), words);
    }
}

/// MuJoCo's flex shell (`mujoco-flex`) fits the steel strip's `young` against the shell with the MJCF lines to
/// paste (`<flexcomp>`, `<elasticity young poisson thickness elastic2d>`, the lumped masses set per vertex
/// body); `evaluate` at the fitted young gives the fit's error, and MuJoCo's own closed form (young = the
/// scene's E, its flex being plane stress with the plate's D) a larger one at N = 4 (the cotangent bending is
/// too stiff on 4 cells: young 9.42e10 against 2e11). Unknown settings and values out of range are refused
/// with the range (exit 2).
#[test]
fn mujoco_flex_fits_the_strip_in_mujocos_terms() {
    let base = ["--scene", "clamped-strip", "--n", "4", "--model", "mujoco-flex", "--setting", "poisson=0.3"];
    let out = pbdfit(&[&["fit", "--json"][..], &base].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json(&out);
    assert_eq!(r["model"], "mujoco-flex[poisson=0.3]");
    let error = r["error"].as_f64().unwrap();
    assert!((error - 0.26345).abs() < 1e-4, "{error}");
    let young = r["parameters"]["young"].as_f64().unwrap();
    assert!((young / 9.416e10 - 1.0).abs() < 1e-3, "{young:e}");
    let paste: Vec<&str> = r["engine"]["paste"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let paste = paste.join("\n");
    for words in [
        "<flexcomp",
        "type=\"direct\" dim=\"2\"",
        "young=\"9.416",
        "poisson=\"0.3\"",
        "thickness=\"0.001\"",
        "elastic2d=\"both\"",
        "<pin id=",
        "model.body_mass",
    ] {
        assert!(paste.contains(words), "{words}: {paste}");
    }
    let evaluate = |young: &str| {
        let out = pbdfit(&[&["evaluate", "--json"][..], &base, &["--param", young]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        json(&out)["error"].as_f64().unwrap()
    };
    let evaluated = evaluate(&format!("young={young:e}"));
    assert!((evaluated / error - 1.0).abs() < 1e-6, "evaluate {evaluated:e} against the fit's {error:e}");
    let closed_form = evaluate("young=2e11");
    assert!(closed_form > 1.5 * error, "{closed_form:e} against the fit's {error:e}");
    for (setting, words) in [
        ("poisson=0.5", &["invalid setting poisson = 0.5", "allowed [0, 0.5)"][..]),
        ("thickness=0", &["invalid setting thickness = 0", "allowed [0.000001, 1]"]),
        ("elastic2d=0", &["invalid setting elastic2d = 0", "allowed [1, 3]", "both = 3"]),
        ("damping=0.1", &["model mujoco-flex has no setting `damping`", "poisson in [0, 0.5)", "thickness in"]),
    ] {
        assert_refused(&[&["simulate"][..], &base[..6], &["--setting", setting]].concat(), words);
    }
    // A parameter out of its range is named as the user wrote it, not as the force law's constant it sets.
    assert_refused(
        &[&["simulate"][..], &base, &["--param", "young=-1"]].concat(),
        &["invalid parameter young = -1", "for model parameter young"],
    );
}

/// Genesis's `PBD.Cloth` (`genesis-cloth`) fits the clamped strip (E 1e9 Pa, N = 4) at Genesis's default step
/// (dt 0.01 s, one substep) with the lines to paste under Genesis's names, and Genesis's default compliances
/// (stretch 1e-7 m/N, bending 1e-5) are measured against the shell there: its bending, with no stiffness at
/// flat, lets the strip hang from its clamp (error 0.373), and the fit (error 0.2574, of which 0.25 is the
/// clamp's floor) softens both compliances by factors of 1e6. The hanging sheet (flat, its top compressed)
/// has no stable rest state for Genesis's cloth: refused with the reason. Unknown settings and out-of-range
/// values are refused with the range (exit 2).
#[test]
fn genesis_cloth_fits_a_strip_in_genesis_terms() {
    let base = ["--scene", "clamped-strip", "--n", "4", "--model", "genesis-cloth", "--dt", "0.01", "--nit", "1"];
    let out = pbdfit(&[&["fit", "--json", "--young", "1e9"][..], &base].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json(&out);
    assert_eq!(r["model"], "genesis-cloth");
    assert_eq!(r["verdict"], "answer");
    // Genesis's step gives every particle the same mass, and the report says so.
    assert_eq!(r["mass_model"], "uniform");
    let error = r["error"].as_f64().unwrap();
    assert!((error - 0.25737).abs() < 1e-4, "{error}");
    let stretch = r["parameters"]["stretch_compliance"].as_f64().unwrap();
    assert!((stretch / 0.2107 - 1.0).abs() < 0.02, "{stretch}");
    let paste = r["engine"]["paste"].to_string();
    for words in [
        "gs.materials.PBD.Cloth(",
        "stretch_compliance=2.10",
        "bending_compliance=1.30",
        "stretch_relaxation=0.3",
        "max_bending_solver_iterations=1",
        "SimOptions(dt=0.01, substeps=1)",
        "fix_particles",
    ] {
        assert!(paste.contains(words), "{words}: {paste}");
    }
    let defaults = ["--param", "stretch_compliance=1e-7", "--param", "bending_compliance=1e-5"];
    let out = pbdfit(&[&["evaluate", "--json", "--young", "1e9"][..], &base, &defaults].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let at_defaults = json(&out)["error"].as_f64().unwrap();
    assert!((at_defaults - 0.3726).abs() < 1e-3, "{at_defaults}");
    assert_refused(
        &[
            &["simulate", "--scene", "hanging-sheet", "--n", "2", "--model", "genesis-cloth", "--dt", "0.01"][..],
            &defaults,
        ]
        .concat(),
        &["no stable rest state with model genesis-cloth", "spectral radius"],
    );
    for (setting, words) in [
        (
            "max_bending_solver_iterations=0",
            &["invalid setting max_bending_solver_iterations = 0", "allowed [1, 1000]"][..],
        ),
        ("air_resistance=-1", &["invalid setting air_resistance = -1", "allowed [0, 1000]"]),
        ("stretch_relaxation=1.5", &["invalid setting stretch_relaxation = 1.5", "allowed [0, 1]"]),
        (
            "volume_relaxation=0.1",
            &["model genesis-cloth has no setting `volume_relaxation`", "bending_relaxation in [0, 1]"],
        ),
    ] {
        assert_refused(&[&["simulate"][..], &base, &defaults, &["--setting", setting]].concat(), words);
    }
}

/// `jolt-cloth`'s `bend_compliance` is an edge's compliance (m/N) with bend type `Distance` and an angle's
/// (rad/(N m)) with `Dihedral`: the fit's text and JSON and simulate's JSON carry the unit of the setting,
/// the other compliances stay m/N.
#[test]
fn jolt_cloth_s_bend_compliance_unit_follows_the_bend_type() {
    let base = ["--scene", "clamped-strip", "--n", "4", "--model", "jolt-cloth", "--dt", "1/30", "--nit", "2"];
    for (bend, unit) in [("bend=distance", "m/N"), ("bend=dihedral", "rad/(N m)")] {
        let mut args = vec!["fit"];
        args.extend_from_slice(&base);
        args.extend_from_slice(&["--setting", bend]);
        let out = pbdfit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let line = text.lines().find(|l| l.contains("bend_compliance = ")).expect("the parameter line");
        let (_, after) = line.split_once("bend_compliance = ").unwrap().1.split_once(' ').unwrap();
        assert!(after.starts_with(&format!("{unit}  error")), "{line}");
        assert_eq!(line.matches("m/N").count(), if unit == "m/N" { 3 } else { 2 }, "{line}");
        args.push("--json");
        let out = pbdfit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let r = json(&out);
        assert_eq!(r["box"]["bend_compliance"]["unit"], unit, "{bend}");
        assert_eq!(r["box"]["compliance"]["unit"], "m/N", "{bend}");
        let mut args = vec!["simulate", "--json"];
        args.extend_from_slice(&base);
        args.extend_from_slice(&["--setting", bend, "--param", "compliance=1e-4", "--param", "shear_compliance=1e-4"]);
        args.extend_from_slice(&["--param", "bend_compliance=1"]);
        let out = pbdfit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(json(&out)["parameter_units"], serde_json::json!(["m/N", "m/N", unit]), "{bend}");
    }
}

/// `settings` on a sheet fits a cloth model to the shell at every setting, as `fit` does: on the 0.3 m steel
/// strip at N = 4 `jolt-cloth` is far too soft at these substeps, the error falls as the substep shrinks
/// (1/30 s to 1/240 s: 3.2e3, 2.4e3, 1.6e3, 1.3e3, each the error of the rest state Jolt reaches by stepping
/// from the flat strip at the fit's parameters; the fixed point's fits said 7.5e2 and 3.4e2 at the last two,
/// of states Jolt does not reach, and no state is an answer, so they are not refitted), two settings with the same substep dt/nit rest alike (Jolt's
/// substeps differ only in h), and none reaches the target, which the answer says. A strip a thousandth as
/// stiff reaches a target above the clamp's floor (0.25) at the cheapest setting. A solid's model is refused
/// naming it (exit 2).
#[test]
fn settings_sweeps_jolt_cloth_on_the_clamped_strip() {
    let run = |extra: &[&str]| {
        let mut args = vec!["settings", "--json", "--scene", "clamped-strip", "--n", "4", "--model", "jolt-cloth"];
        args.extend_from_slice(&["--dt", "1/30,1/60", "--nit", "1,2,4"]);
        args.extend_from_slice(extra);
        let out = pbdfit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        json(&out)
    };
    let steel = run(&[]);
    assert_eq!(steel["model"], "jolt-cloth");
    let rows = steel["rows"].as_array().unwrap();
    let error = |i: usize| rows[i]["error"].as_f64().unwrap();
    let substeps: Vec<f64> = rows.iter().map(|r| r["cost"].as_f64().unwrap()).collect();
    assert_eq!(substeps, [30.0, 60.0, 60.0, 120.0, 120.0, 240.0]);
    for (i, j) in [(1, 2), (3, 4)] {
        assert!((error(i) / error(j) - 1.0).abs() < 1e-9, "the same substep: {} against {}", error(i), error(j));
    }
    assert!(error(0) > error(1) && error(1) > error(3) && error(3) > 1.2 * error(5), "{rows:?}");
    assert!(error(5) > 1.0 && steel["cheapest"].is_null(), "{steel}");
    assert_eq!((steel["best"]["dt"].as_f64(), steel["best"]["nit"].as_u64()), (Some(1.0 / 60.0), Some(4)));
    let soft = run(&["--young", "2e8", "--target", "0.4", "--setting", "bend=dihedral"]);
    assert_eq!(soft["model"], "jolt-cloth[bend=dihedral]");
    let cheapest = &soft["cheapest"];
    assert_eq!((cheapest["dt"].as_f64(), cheapest["nit"].as_u64()), (Some(1.0 / 30.0), Some(1)), "{soft}");
    assert!(cheapest["error"].as_f64().unwrap() > 0.25, "the clamp's floor: {cheapest}");
    assert_refused(
        &["settings", "--scene", "clamped-strip", "--n", "4", "--model", "jolt"],
        &["model `jolt`", "scene clamped-strip is a sheet", "jolt-cloth"],
    );
}

/// `settings --json` with `args`, succeeding.
fn settings(args: &[&str]) -> serde_json::Value {
    let out = pbdfit(&[&["settings", "--json"], args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    json(&out)
}

/// `settings` with `newton-cloth` answers in SolverXPBD's iterations. On the hanging sheet at N = 2 (10
/// iterations): at dt 1/30 s no point of the box has a stable rest state (Newton's Jacobi passes overshoot at
/// the sheet's real density), which its row says, and 1/300 s is the cheapest setting that reaches the
/// default target (error 7.10e-3, 3000 iterations per simulated second); a target of 5 % RMS is reached by
/// none, which the answer says, naming the best.
#[test]
fn settings_answers_in_newton_s_iterations_on_a_sheet() {
    let run = settings;
    let newton =
        ["--scene", "hanging-sheet", "--n", "2", "--model", "newton-cloth", "--dt", "1/30,1/300", "--nit", "10"];
    let r = run(&newton);
    assert!(r["nit_means"].as_str().unwrap().starts_with("SolverXPBD's iterations"), "{r}");
    let rows = r["rows"].as_array().unwrap();
    let costs: Vec<f64> = rows.iter().map(|r| r["cost"].as_f64().unwrap()).collect();
    assert_eq!(costs, [300.0, 3000.0]);
    assert!(rows[0]["error"].is_null() && rows[0]["failed"].as_str().unwrap().contains("no stable rest state"), "{r}");
    let cheapest = &r["cheapest"];
    assert_eq!((cheapest["dt"].as_f64(), cheapest["nit"].as_u64()), (Some(1.0 / 300.0), Some(10)), "{r}");
    let error = cheapest["error"].as_f64().unwrap();
    assert!((error - 7.104e-3).abs() < 1e-5, "{error}");
    let mut strict = newton.to_vec();
    strict.extend_from_slice(&["--target-rms", "5%"]);
    let out = pbdfit(&[&["settings"], &strict[..]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("0.0333333    10          300") && text.contains("no rest state: "), "{text}");
    assert!(
        text.contains("no setting tried reaches 0.0025") && text.contains("at dt = 0.00333333 s, nit = 10"),
        "{text}"
    );
}

/// `settings` with `genesis-cloth` and `mujoco-flex` on a sheet. `genesis-cloth` on the strip (E 1e9 Pa)
/// counts Genesis's substeps, reports Genesis's uniform masses, and stays above the clamp's floor of 0.5 at
/// N = 2 (error 0.513). `mujoco-flex`'s rest state ignores dt and nit: one fit whatever the lists (young
/// 4.94e10 Pa, error 0.500), said once. Bad input exits 2 naming it: a setting out of MuJoCo's range, a
/// solid's engine profile on a sheet, a time step given twice, an N other than 1 on the imported mesh.
#[test]
fn settings_answers_in_genesis_s_substeps_and_once_for_mujoco() {
    let run = settings;
    let genesis = ["--scene", "clamped-strip", "--n", "2", "--model", "genesis-cloth", "--young", "1e9"];
    let r = run(&[&genesis[..], &["--dt", "1/100", "--nit", "1,2"]].concat());
    assert_eq!(r["mass_model"], "uniform", "Genesis's masses: {r}");
    assert!(r["nit_means"].as_str().unwrap().starts_with("Genesis's substeps"), "{r}");
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.iter().map(|r| r["cost"].as_f64().unwrap()).collect::<Vec<_>>(), [100.0, 200.0]);
    for row in rows {
        let e = row["error"].as_f64().unwrap();
        assert!(e > 0.5 && e < 0.52, "above the clamp's floor of 0.5 at N = 2: {row}");
    }
    assert!(r["cheapest"].is_null(), "{r}");

    let mujoco =
        ["--scene", "clamped-strip", "--n", "2", "--model", "mujoco-flex", "--dt", "1/60,1/120", "--nit", "1,4"];
    let r = run(&mujoco);
    assert_eq!(r["settings_matter"], false);
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one fit: {r}");
    let young = rows[0]["parameters"]["young"].as_f64().unwrap();
    assert!((young / 4.9398e10 - 1.0).abs() < 1e-3, "{young}");
    assert!((rows[0]["error"].as_f64().unwrap() - 0.500025).abs() < 1e-5, "{r}");
    let out = pbdfit(&[&["settings"], &mujoco[..]].concat());
    let text = stdout(&out);
    assert_eq!(text.matches("dt and nit do not move model mujoco-flex's rest state").count(), 1, "{text}");
    assert!(text.contains("         any   any") && text.contains("at any dt and nit"), "{text}");

    assert_refused(
        &[&["settings"], &mujoco[..], &["--setting", "poisson=0.7"]].concat(),
        &["poisson = 0.7", "[0, 0.5)"],
    );
    assert_refused(
        &["settings", "--scene", "clamped-strip", "--n", "2", "--model", "newton-xpbd"],
        &["model `newton-xpbd`", "scene clamped-strip is a sheet", "newton-cloth"],
    );
    assert_refused(
        &["settings", "--scene", "hanging-sheet", "--n", "2", "--model", "newton-cloth", "--dt", "1/600,1/600"],
        &["--dt 0.00166667 is given twice"],
    );
    let plate = format!("{}/../../scenes/plate-mesh.toml", env!("CARGO_MANIFEST_DIR"));
    assert_refused(
        &["settings", "--scene", &plate, "--n", "2", "--model", "newton-cloth"],
        &["--n", "given whole", "n must be 1, got 2"],
    );
}

/// The mass-spring cloth fits the hanging sheet (`--n 4`: error 1.674e-3 against the shell at
/// ks_stretch 334, ks_shear 694, ks_bend 20 N/m, which `evaluate` gives back), and refuses a solid scene;
/// the solids' mass-spring refuses a sheet (exit 2, naming the model).
#[test]
fn mass_spring_cloth_fits_a_sheet_and_the_wrong_body_is_refused() {
    assert_refused(
        &["fit", "--scene", "gravity-wall", "--model", "cloth-mass-spring", "--n", "1"],
        &["model `cloth-mass-spring`", "is a tetrahedral solid"],
    );
    assert_refused(
        &["fit", "--scene", "hanging-sheet", "--model", "mass-spring", "--n", "2"],
        &["model `mass-spring`", "fit a cloth model to it", "cloth-mass-spring"],
    );
    let out = pbdfit(&["fit", "--json", "--scene", "hanging-sheet", "--n", "4", "--model", "cloth-mass-spring"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let error = json(&out)["error"].as_f64().unwrap();
    assert!((error - 1.674e-3).abs() < 1e-5, "{error}");
    let out = pbdfit(&[
        "evaluate",
        "--json",
        "--scene",
        "hanging-sheet",
        "--n",
        "4",
        "--model",
        "cloth-mass-spring",
        "--param",
        "ks_stretch=333.8952",
        "--param",
        "ks_shear=694.1202",
        "--param",
        "ks_bend=19.97693",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let evaluated = json(&out)["error"].as_f64().unwrap();
    assert!((evaluated - 1.6743e-3).abs() < 1e-7, "{evaluated}");
}

/// `simulate`'s text shows a setting's word (`bend = dihedral`, not its number) and counts no projection
/// constraints where the model keeps its own (Jolt's cloth, the mass-spring cloth).
#[test]
fn simulate_on_a_sheet_shows_setting_words_and_no_empty_constraint_list() {
    let out = pbdfit(&[
        "simulate",
        "--scene",
        "clamped-strip",
        "--n",
        "4",
        "--model",
        "jolt-cloth",
        "--setting",
        "bend=dihedral",
        "--param",
        "compliance=1e-4",
        "--param",
        "shear_compliance=1e-4",
        "--param",
        "bend_compliance=1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("bend = dihedral"), "{text}");
    assert!(text.contains("10 particles (4 held)\n") && !text.contains("0 constraints"), "{text}");
    let out = pbdfit(&[
        "simulate",
        "--scene",
        "clamped-strip",
        "--n",
        "4",
        "--model",
        "cloth-mass-spring",
        "--param",
        "ks_stretch=1e5",
        "--param",
        "ks_shear=1e5",
        "--param",
        "ks_bend=1e5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("0 constraints"), "{}", stdout(&out));
}

/// A rest state whose attempts spent the whole sweep budget reports the residual they reached, not an
/// infinite "last relative step": Jolt's cloth on the steel strip at 64 substep iterations, where the root
/// solve gives the fit rest states at some grid points (a million sweeps by stepping at its first, about
/// 100,000 now) and the rest, over a million sweeps by stepping, spend the fit's budget (200,000).
#[test]
fn a_spent_budget_reports_the_residual_reached() {
    let out = pbdfit(&[
        "fit",
        "--scene",
        "clamped-strip",
        "--n",
        "4",
        "--model",
        "jolt-cloth",
        "--dt",
        "1/60",
        "--nit",
        "64",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stdout(&out);
    assert!(err.contains("points without rest state"), "{err}");
    let step = err.split("last relative step ").nth(1).expect("the residual").split(')').next().unwrap();
    let step: f64 = step.trim().parse().unwrap_or_else(|_| panic!("{err}"));
    assert!(step.is_finite() && step > 0.0, "{err}");
}

/// A sheet scene with a pressure: the supported plate without gravity under a pressure of its weight per
/// area along -z (`[[load.pressure]]`, follower) deflects as the built-in plate under its weight, to
/// round-off for the linear shell (which takes a follower pressure at rest) and within 1e-4 (2.5e-6) for the
/// corotational one (the follower turns with the facets, and its area grows); a dead pressure
/// (`follower = false`) is nearer still. A cloth model rests under it (`simulate`, a fabric drum) and
/// `evaluate` compares it with the shell. A traction on a sheet and a pressure on a solid are refused
/// (exit 2), naming the load.
#[test]
fn a_pressure_loads_the_shell_and_the_cloth_models() {
    let dir = scratch("pressure");
    let plate = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/supported-plate.toml"))
        .unwrap()
        .replace("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, 0.0, 0.0]");
    let weight = 7850.0 * 1e-3 * 9.81;
    let pressed = |extra: &str| format!("{plate}\n[[load.pressure]]\nplane = \"z = 0\"\npressure = -{weight}\n{extra}");
    let (follower, dead) = (dir.join("follower.toml"), dir.join("dead.toml"));
    std::fs::write(&follower, pressed("")).unwrap();
    std::fs::write(&dead, pressed("follower = false\n")).unwrap();
    let (follower, dead) = (follower.to_str().unwrap(), dead.to_str().unwrap());
    let centre = |args: &[&str]| -z_at(&fem(args), 0.25, 0.25);
    let n = ["--n", "8"];
    let linear = centre(&[&["--scene", "supported-plate", "--material", "linear"], &n[..]].concat());
    let pressed_linear = centre(&[&["--scene", follower, "--material", "linear"], &n[..]].concat());
    println!("linear: weight {linear:.10e} m, follower pressure {pressed_linear:.10e} m");
    assert!((pressed_linear / linear - 1.0).abs() < 1e-12, "{pressed_linear} {linear}");
    let weighed = centre(&[&["--scene", "supported-plate"], &n[..]].concat());
    let (f, d) = (centre(&[&["--scene", follower], &n[..]].concat()), centre(&[&["--scene", dead], &n[..]].concat()));
    println!("corotational: weight {weighed:.6e} m, follower {f:.6e} m, dead {d:.6e} m");
    assert!((f / weighed - 1.0).abs() < 1e-4 && (d / weighed - 1.0).abs() < 1e-9, "{f} {d} {weighed}");
    assert!(f != d);
    // A fabric drum: the plate as a rubber-like fabric, pressed by 1 Pa.
    let fabric = ["--n", "4"];
    let drum = dir.join("drum.toml");
    let text = pressed("")
        .replace(&format!("-{weight}"), "1.0")
        .replace("density = 7850.0", "density = 300.0")
        .replace("young = 2e11", "young = 2e6")
        .replace("thickness = 1e-3", "thickness = 5e-4");
    std::fs::write(&drum, text).unwrap();
    let drum = drum.to_str().unwrap();
    let mut args = vec!["simulate", "--json", "--scene", drum, "--model", "cloth-xpbd", "--param", "alpha_d=1e-3"];
    args.extend(["--param", "alpha_b=1e3", "--dt", "0.01", "--nit", "10"]);
    args.extend_from_slice(&fabric);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    let lift = report["displacements"].as_array().unwrap().iter().map(|u| u[2].as_f64().unwrap()).fold(0.0, f64::max);
    println!("cloth-xpbd drum under 1 Pa: centre lifted {lift:.4e} m");
    assert!(lift > 0.0, "a positive pressure pushes along +z");
    let mut args = vec!["evaluate", "--json", "--scene", drum, "--model", "cloth-xpbd", "--param", "alpha_d=1e-3"];
    args.extend(["--param", "alpha_b=1e3", "--dt", "0.01", "--nit", "10"]);
    args.extend_from_slice(&fabric);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let error = json(&out)["error"].as_f64().unwrap();
    println!("cloth-xpbd drum against the shell: error {error:.4e}");
    assert!(error.is_finite() && error > 0.0, "{error}");
    let traction = dir.join("traction.toml");
    std::fs::write(&traction, format!("{plate}\n[[load.traction]]\nplane = \"x = 0.5\"\ntraction = [1.0, 0.0, 0.0]\n"))
        .unwrap();
    assert_refused(
        &["fem", "--scene", traction.to_str().unwrap()],
        &["load.traction[0]", "gravity, pressure and wind"],
    );
    let tension = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/tension.toml"))
        .unwrap()
        .replace("[[load.traction]]", "[[load.pressure]]")
        .replace("traction = [0.0, 10.0, 0.0]", "pressure = 10.0");
    let solid = dir.join("solid.toml");
    std::fs::write(&solid, tension).unwrap();
    assert_refused(&["fem", "--scene", solid.to_str().unwrap()], &["load.pressure[0]", "acts on sheets"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A wind (`[[load.wind]]`) on a solid is refused (exit 2) naming the key and that a wind acts on sheets;
/// on a sheet the shell reference refuses it (its drag depends on the velocity), naming the load, and a
/// cloth model simulates the sheet in it (`simulate --json`: finite, and the wind along +z lifts the plate
/// held on its boundary).
#[test]
fn a_wind_is_refused_on_a_solid_and_by_the_shell_and_moves_a_cloth() {
    let dir = scratch("wind");
    let tension = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/tension.toml"))
        .unwrap()
        .replace("[[load.traction]]", "[[load.wind]]")
        .replace("traction = [0.0, 10.0, 0.0]", "wind = [0.0, 10.0, 0.0]");
    let solid = dir.join("solid.toml");
    std::fs::write(&solid, tension).unwrap();
    assert_refused(&["fem", "--scene", solid.to_str().unwrap()], &["load.wind[0]", "a wind acts on sheets"]);
    let plate = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/supported-plate.toml"))
        .unwrap()
        .replace("density = 7850.0", "density = 300.0")
        .replace("young = 2e11", "young = 2e6")
        .replace("thickness = 1e-3", "thickness = 5e-4");
    let windy = dir.join("windy.toml");
    std::fs::write(&windy, format!("{plate}\n[[load.wind]]\nplane = \"z = 0\"\nwind = [0.0, 0.0, 20.0]\n")).unwrap();
    let windy = windy.to_str().unwrap();
    assert_refused(&["fem", "--scene", windy, "--n", "4"], &["the shell reference takes no wind", "[[load.wind]]"]);
    let mut args = vec!["simulate", "--json", "--scene", windy, "--n", "4", "--model", "cloth-xpbd"];
    args.extend(["--param", "alpha_d=1e-3", "--param", "alpha_b=1e3", "--dt", "0.01", "--nit", "10"]);
    let out = pbdfit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    let u: Vec<f64> = report["displacements"].as_array().unwrap().iter().map(|u| u[2].as_f64().unwrap()).collect();
    let lift = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    println!("cloth-xpbd plate in a 20 m/s wind along +z: centre lifted {lift:.4e} m");
    // The wind's pressure at rest, 1/2 1.2 400 = 240 Pa, against the weight 300 * 5e-4 * 9.81 = 1.5 Pa: up.
    assert!(u.iter().all(|x| x.is_finite()) && lift > 0.0, "{u:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The draped sheet through `fem`: the film held at its centre sags onto the sphere, every contact is
/// out of it (gap >= -1e-10 of its size) and pushes (normal force >= 0, friction within 0.3 of it), and
/// the contacts and the held centre carry the weight (the forces balance to 1e-9 of it). The shell's
/// transient and the linear shell, which have no contact, are refused naming the option.
#[test]
fn the_draped_sheet_rests_on_its_sphere_with_its_forces_in_balance() {
    let r = fem(&["--scene", "draped-sheet", "--n", "4"]);
    let contact = &r["contact"];
    let forces = contact["forces"].as_array().unwrap();
    let pushing = forces.iter().filter(|f| f["normal_force"].as_f64().unwrap() > 0.0).count();
    assert!(pushing >= 4, "{pushing} contacts push");
    for f in forces {
        let (gap, normal) = (f["gap"].as_f64().unwrap(), f["normal_force"].as_f64().unwrap());
        let t: f64 = (0..3).map(|k| f["tangential_force"][k].as_f64().unwrap().powi(2)).sum::<f64>().sqrt();
        assert!(gap >= -1e-10 * 1.5 && normal >= 0.0 && t <= 0.3 * normal * (1.0 + 1e-9) + 1e-15, "{f}");
    }
    let sum = |key: &str, k: usize| contact[key][k].as_f64().unwrap();
    let weight = -sum("total_load", 2);
    assert!((weight - 0.15 * 9.81).abs() < 1e-12 * weight, "{weight}");
    for k in 0..3 {
        let balance = sum("total_load", k) + sum("total_contact_force", k) + sum("total_reaction", k);
        assert!(balance.abs() <= 1e-9 * weight, "component {k}: {balance:e}");
    }
    assert!(sum("total_contact_force", 2) > 0.1 * weight, "the sphere carries part of the weight");
    let low = (0..r["vertices"].as_array().unwrap().len())
        .map(|v| r["displacements"][v][2].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(low < -0.03, "the film sags onto the sphere: {low}");
    assert_refused(&["fem", "--scene", "draped-sheet", "--n", "2", "--dynamic"], &["dynamic", "no contact"]);
    assert_refused(&["fem", "--scene", "draped-sheet", "--n", "2", "--material", "linear"], &["linear", "obstacles"]);
}

/// The cloth models on the draped sheet (N = 4, dt = 0.01 s, one iteration): `simulate` steps the film
/// held at its centre particle onto the sphere (friction makes the rest state path dependent, so it is
/// stepped from the flat sheet) and ends at the rest map's rounding (relative residual 1.3e-12 for
/// cloth-xpbd, 1.3e-11 for cloth-pbd), touching the sphere (gap within 1e-9 m) and draped 0.19 to 0.21 m
/// at its corners, no vertex inside. `evaluate` against the shell's contact equilibrium: error 4.446 for
/// cloth-xpbd at alpha_b = 1e-2 (the shell's film sags 6.3 cm, the cloth, whose held particle carries no
/// rotation, hangs its corners 0.21 m). With ten iterations cloth-xpbd's sheet turns about its held
/// particle (the sweeps' spurious torque, as a PBD cube's on a frictionless floor, beats the friction at
/// its few contacts near the centre) ever faster, and the growth judge gives it up: refused as turning
/// about its hold (`PbdError::Turns`, 60.6 degrees after 24.38 s), not as diverged.
#[test]
fn cloth_models_rest_on_the_draped_sheet_s_sphere() {
    for (model, params) in [("cloth-xpbd", ["alpha_d=0", "alpha_b=1e-2"]), ("cloth-pbd", ["kd=1", "kb=1"])] {
        let out = pbdfit(&[
            "simulate",
            "--json",
            "--scene",
            "draped-sheet",
            "--n",
            "4",
            "--model",
            model,
            "--param",
            params[0],
            "--param",
            params[1],
            "--nit",
            "1",
        ]);
        assert!(out.status.success(), "{model}: {}", stderr(&out));
        let r = json(&out);
        assert_eq!(r["converged"], true, "{model}");
        assert_eq!(r["method"], "Stepping", "{model}");
        let residual = r["residual"].as_f64().unwrap();
        let positions: Vec<[f64; 3]> = (0..r["vertices"].as_array().unwrap().len())
            .map(|v| std::array::from_fn(|k| r["rest_positions"][v][k].as_f64().unwrap()))
            .collect();
        let gap = positions
            .iter()
            .map(|p| ((p[0] - 0.5).powi(2) + (p[1] - 0.5).powi(2) + (p[2] + 1.0).powi(2)).sqrt() - 1.0)
            .fold(f64::INFINITY, f64::min);
        let low = positions.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min);
        println!("{model}: residual {residual:.1e}, least gap {gap:.1e} m, lowest z {low:.4} m");
        assert!(residual < 1e-10, "{model}: {residual:e}");
        assert!((-1e-12..1e-9).contains(&gap), "{model}: touches the sphere, not inside: {gap:e}");
        assert!((-0.21..-0.18).contains(&low), "{model}: {low}");
    }
    let out = pbdfit(&[
        "evaluate",
        "--json",
        "--scene",
        "draped-sheet",
        "--n",
        "4",
        "--model",
        "cloth-xpbd",
        "--param",
        "alpha_d=0",
        "--param",
        "alpha_b=1e-2",
        "--nit",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let error = json(&out)["error"].as_f64().unwrap();
    println!("cloth-xpbd against the shell on the draped sheet: error {error:.4}");
    assert!((error - 4.446).abs() < 1e-3, "{error}");
    assert_refused(
        &[
            "simulate",
            "--scene",
            "draped-sheet",
            "--n",
            "4",
            "--model",
            "cloth-xpbd",
            "--param",
            "alpha_b=1e-2",
            "--nit",
            "10",
        ],
        &["turns about its hold (60.6 degrees after 24.38 s", "false torque"],
    );
}

/// The volume a closed surface encloses at the vertices plus displacements of a `simulate --json` report.
fn enclosed_volume(r: &serde_json::Value, displaced: bool) -> f64 {
    let v = |i: usize| -> [f64; 3] {
        let p = &r["vertices"][i];
        let u = &r["displacements"][i];
        let s = if displaced { 1.0 } else { 0.0 };
        [0, 1, 2].map(|k| p[k].as_f64().unwrap() + s * u[k].as_f64().unwrap())
    };
    let mut total = 0.0;
    for t in r["triangles"].as_array().unwrap() {
        let [a, b, c] = [0, 1, 2].map(|k| v(t[k].as_u64().unwrap() as usize));
        let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        total += cross[0] * c[0] + cross[1] * c[1] + cross[2] * c[2];
    }
    total / 6.0
}

#[test]
fn a_closed_surface_keeps_its_volume_under_the_volume_constraint_and_an_open_one_is_refused() {
    let dir = scratch("closed-surface");
    let scene = dir.join("box.toml");
    std::fs::write(
        &scene,
        "name = \"box\"\n[sheet]\nsurface = \"unit-cube\"\nn = 2\nthickness = 0.16666666666666666\n[[held]]\n\
         box = { min = [0.4, 1, 0.4], max = [0.6, 1, 0.6] }\nsupport = \"pinned\"\n[[held]]\n\
         box = { min = [0, 1, 0.4], max = [0, 1, 0.6] }\nsupport = \"pinned\"\n[[held]]\n\
         box = { min = [1, 1, 0.4], max = [1, 1, 0.6] }\nsupport = \"pinned\"\n[load]\ngravity = [0, -9.81, 0]\n\
         [material]\ndensity = 1.0\n",
    )
    .unwrap();
    let run = |volume: &str| {
        json(&pbdfit(&[
            "simulate",
            "--scene",
            scene.to_str().unwrap(),
            "--model",
            "cloth-xpbd-hookean",
            "--param",
            "alpha_d=1e-3",
            "--param",
            "alpha_b=1e4",
            "--dt",
            "0.05",
            "--nit",
            "20",
            "--setting",
            &format!("volume={volume}"),
            "--json",
        ]))
    };
    let (on, off) = (run("on"), run("off"));
    let ratio = |r: &serde_json::Value| enclosed_volume(r, true) / enclosed_volume(r, false);
    let (with, without) = (ratio(&on), ratio(&off));
    println!("V / V0 at rest: {with:.12} with the volume constraint, {without:.12} without");
    assert!((enclosed_volume(&on, false) - 1.0).abs() < 1e-14);
    assert!((with - 1.0).abs() < 1e-9, "{with}");
    assert!((without - 1.0).abs() > 1e-3, "{without}");
    assert_refused(
        &[
            "simulate",
            "--scene",
            "hanging-sheet",
            "--model",
            "cloth-xpbd",
            "--param",
            "alpha_d=1e-6",
            "--param",
            "alpha_b=1e-2",
            "--setting",
            "volume=on",
        ],
        &["volume=on", "closed surface", "edge ["],
    );
}

/// A sheet study of cloth-xpbd on the hanging sheet at N 2: base and a thickness experiment.
fn sheet_study(dir: &std::path::Path, scenes: &str, model: &str) -> std::path::PathBuf {
    let text = format!(
        r#"name = "sheet"
scenes = {scenes}
model = "{model}"
[base]
dt = 0.01
n = 2
nit = 4
young = 2e6
[poisson]
from = 0.3
to = 0.3
step = 0.1
[fit]
search = "gradient"
grid = 3
[[experiment]]
name = "base"
[[experiment]]
name = "h"
parameter = "thickness"
values = [2.5e-4, 1e-3]
"#
    );
    let file = dir.join("sheet.toml");
    std::fs::write(&file, text).unwrap();
    file
}

/// A study of a sheet runs each fit through `pbdfit fit`'s path: its row at h = 1 mm has the parameters
/// and error `pbdfit fit --thickness 1e-3` gives, bit for bit (both print round-trip decimals); its rows
/// are the same bytes (but the seconds) on 1 and 2 threads and after a run stopped after one fit and
/// resumed; the CSV's last column is the thickness (the scene's 0.5 mm in the base row) and the
/// experiment's setting is `thickness` in summary.json.
#[test]
fn a_sheet_study_fits_as_pbdfit_fit_does_on_any_thread_count_and_resumes() {
    use crate::common::{files, rows_without_seconds};
    let dir = scratch("sheet-study");
    let file = sheet_study(&dir, r#"["hanging-sheet"]"#, "cloth-xpbd");
    let run = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        pbdfit(&args)
    };
    let (one, two, resumed) = (dir.join("one"), dir.join("two"), dir.join("resumed"));
    let o = run(&one, &["--jobs", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&two, &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows_without_seconds(&one), rows_without_seconds(&two), "1 and 2 threads");
    let o = run(&resumed, &["--jobs", "1", "--abort-after", "1"]);
    assert!(!o.status.success(), "the run was aborted");
    let o = run(&resumed, &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 resumed"), "{}", stdout(&o));
    assert_eq!(rows_without_seconds(&one), rows_without_seconds(&resumed), "resumed");
    let names: Vec<String> = files(&one).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"hanging-sheet-h.csv".to_string()), "{names:?}");
    let rows = pbdfit_results::read_records(&one.join("hanging-sheet-h.csv")).unwrap();
    let base = pbdfit_results::read_records(&one.join("hanging-sheet-base.csv")).unwrap();
    assert_eq!(base[0].thickness, Some(5e-4), "the scene's own thickness");
    assert_eq!(base[0].reference, "corotational shell");
    let header = std::fs::read_to_string(one.join("hanging-sheet-h.csv")).unwrap();
    assert!(header.lines().next().unwrap().ends_with(",thickness"), "{header}");
    let row = rows.iter().find(|r| r.thickness == Some(1e-3)).expect("the row at 1 mm");
    assert_eq!(row.value, Some(1e-3));
    let fit = json(&pbdfit(&[
        "fit",
        "--scene",
        "hanging-sheet",
        "--model",
        "cloth-xpbd",
        "--n",
        "2",
        "--dt",
        "0.01",
        "--nit",
        "4",
        "--young",
        "2e6",
        "--poisson",
        "0.3",
        "--thickness",
        "1e-3",
        "--search",
        "gradient",
        "--grid",
        "3",
        "--json",
    ]));
    for (name, value) in &row.parameters {
        assert_eq!(fit["parameters"][name].as_f64().unwrap().to_bits(), value.to_bits(), "{name}");
    }
    assert_eq!(fit["error"].as_f64().unwrap().to_bits(), row.error.to_bits());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["layout"]["experiments"][1]["setting"], "thickness", "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A study names the model and the scene when they take different bodies, before any fit: a solid's
/// model on a sheet and a cloth model on a solid; solids and sheets in one file; a thickness experiment
/// on solids; and a table over a sheet says what it lacks (exit 2 each, no results folder).
#[test]
fn a_study_of_the_wrong_body_is_refused_before_any_fit() {
    let dir = scratch("sheet-study-refusals");
    let out = dir.join("out");
    for (scenes, model, words) in [
        (r#"["hanging-sheet"]"#, "xpbd", &["`xpbd`", "hanging-sheet", "is a sheet"][..]),
        (r#"["gravity-floor"]"#, "cloth-xpbd", &["`cloth-xpbd`", "gravity-floor", "tetrahedral solid"][..]),
        // Solids and sheets in one file: the model refuses one of them.
        (r#"["gravity-floor", "hanging-sheet"]"#, "cloth-xpbd", &["`cloth-xpbd`", "gravity-floor"][..]),
    ] {
        let file = sheet_study(&dir, scenes, model);
        let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        crate::common::assert_input_error(&o, words);
        assert!(!out.exists());
    }
    let file = sheet_study(&dir, r#"["gravity-floor"]"#, "xpbd");
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    crate::common::assert_input_error(&o, &["experiment[1] `h`", "thickness", "solids"]);
    let table = dir.join("table.toml");
    std::fs::write(
        &table,
        "name = \"t\"\nmodel = \"cloth-xpbd\"\nscene = \"hanging-sheet\"\n[axes]\nyoung = [1e3]\npoisson = [0.3]\ndt = [0.01]\nnit = [1]\nn = [2]\n",
    )
    .unwrap();
    let o = pbdfit(&["table", table.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    crate::common::assert_input_error(&o, &["hanging-sheet", "is a sheet", "tables take tetrahedral solids only"]);
    let _ = std::fs::remove_dir_all(&dir);
}
