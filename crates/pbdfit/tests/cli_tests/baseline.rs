//! End-to-end tests of `pbdfit baseline`: the closed-form mappings' numbers on the
//! unit cube at N = 1, computed here by hand, the nu = 0.5 edge case, the fixed constants, and the errors.
//!
//! The cube at N = 1 is five tetrahedra: four corner tetrahedra (volume 1/6, at the corners B = (1,0,0),
//! (0,1,0), (0,0,1), (1,1,1) or their mirror) around a regular central one (volume 1/3), so the mean
//! volume is 1/5 m^3. Its 18 edges: 12 cube edges (length 1, in one corner tetrahedron: Van Gelder's
//! `|e|^2 / sum V = 6`) and 6 face diagonals (length sqrt 2, in the central tetrahedron and two corner
//! ones: `2 / (2/3) = 3`), mean 5 1/m. Lumped masses (density 1): a corner of the central tetrahedron
//! gets 1/12 + 3/24 = 5/24 kg, the other corners 1/24 kg; so the mean `w1 + w2` is
//! (12 (24/5 + 24) + 6 (48/5)) / 18 = 22.4 1/kg and the mean `sum w |grad V|^2` is
//! (4 (24/12 + 3 (24/5)/36) + 4 (24/5)/12) / 5 = 2.24 m^4/kg.

use crate::common::{assert_input_error, json, pbdfit, stderr, stdout};
use pbdfit_table::mapping::MAPPINGS;

const MEAN_VOLUME: f64 = 0.2;
const VAN_GELDER: f64 = 5.0;
const DISTANCE_W: f64 = 22.4;
const VOLUME_W: f64 = 2.24;

fn mapped(mapping: &str, young: &str, poisson: &str, dt: &str, nit: &str) -> serde_json::Value {
    json(&pbdfit(&[
        "baseline",
        "--mapping",
        mapping,
        "--young",
        young,
        "--poisson",
        poisson,
        "--dt",
        dt,
        "--nit",
        nit,
        "--n",
        "1",
        "--json",
    ]))
}

fn values(v: &serde_json::Value) -> Vec<f64> {
    v["parameters"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect()
}

/// Relative agreement to 1e-12: the formulas are a few sums over 18 edges and 5 tetrahedra, exact
/// to rounding.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs()
}

#[test]
fn xpbd_mappings_on_the_unit_cube_equal_the_hand_computed_values() {
    let (e, nu) = (1e4, 0.25);
    let v = mapped("xpbd-van-gelder-bulk", "1e4", "0.25", "0.01", "4");
    assert_eq!(v["model"], "xpbd");
    let g = &v["geometry"];
    assert_eq!((g["tets"].as_u64(), g["edges"].as_u64()), (Some(5), Some(18)));
    assert!(close(g["mean_tet_volume"].as_f64().unwrap(), MEAN_VOLUME), "{g}");
    assert!(close(g["van_gelder_compliance_times_young"].as_f64().unwrap(), VAN_GELDER), "{g}");
    assert!(close(g["mean_distance_inverse_mass"].as_f64().unwrap(), DISTANCE_W), "{g}");
    assert!(close(g["mean_volume_inverse_mass"].as_f64().unwrap(), VOLUME_W), "{g}");
    let bulk = e / (3.0 * (1.0 - 2.0 * nu));
    let p = values(&v);
    assert!(close(p[0], VAN_GELDER / e) && close(p[1], MEAN_VOLUME / bulk), "{p:?}");
    assert_eq!(v["outside_range"], serde_json::json!([]));
    // Macklin-Mueller: lambda in place of K, the same alpha_d.
    let lambda = e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    let p = values(&mapped("xpbd-macklin-lame", "1e4", "0.25", "0.01", "4"));
    assert!(close(p[0], VAN_GELDER / e) && close(p[1], MEAN_VOLUME / lambda), "{p:?}");
    // Godot today (4.4 to 4.6): 1 / max(0.5^3 1e5, 1e-6) whatever the material; the linear draft of
    // godot-jolt #765 kept under its own name; the same compliance in the jolt profile's terms.
    for (young, poisson) in [("1e2", "0"), ("1e7", "0.49")] {
        let v = mapped("xpbd-godot-jolt", young, poisson, "0.001", "1");
        assert_eq!(values(&v), vec![8e-5, 1e2]);
        assert_eq!(v["uses_young"], false);
        assert_eq!(values(&mapped("xpbd-godot-jolt-pr765", young, poisson, "0.001", "1")), vec![2e-5, 1e2]);
        assert_eq!(values(&mapped("jolt-godot", young, poisson, "0.001", "1")), vec![8e-5, 1e4]);
    }
    // Newton's USD import: the Lame parameters, refused where lambda is not finite and positive.
    let p = values(&mapped("newton-lame", "1e4", "0.25", "0.01", "4"));
    assert!(close(p[0], e / (2.0 * (1.0 + nu))) && close(p[1], lambda), "{p:?}");
    let o = pbdfit(&[
        "baseline",
        "--mapping",
        "newton-lame",
        "--young",
        "1e4",
        "--poisson",
        "0.5",
        "--dt",
        "0.01",
        "--nit",
        "1",
        "--n",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn pbd_mappings_follow_the_xpbd_fraction_and_muellers_iteration_rule() {
    let (e, nu, dt, nit) = (1e4, 0.25, 0.01, 4.0);
    let bulk = e / (3.0 * (1.0 - 2.0 * nu));
    let k = |alpha: f64, s: f64| {
        let a = alpha / (dt * dt);
        1.0 - (a / (s + a)).powf(1.0 / nit)
    };
    let p = values(&mapped("pbd-van-gelder-bulk", "1e4", "0.25", "0.01", "4"));
    assert!(close(p[0], k(VAN_GELDER / e, DISTANCE_W)) && close(p[1], k(MEAN_VOLUME / bulk, VOLUME_W)), "{p:?}");
    // One iteration: k is XPBD's one-step fraction s / (s + alpha~) itself.
    let p = values(&mapped("pbd-van-gelder-bulk", "1e4", "0.25", "0.01", "1"));
    let a = VAN_GELDER / e / (dt * dt);
    assert!(close(p[0], DISTANCE_W / (DISTANCE_W + a)), "{p:?}");
    let v = mapped("pbd-fixed", "1e3", "0.3", "1/300", "8");
    assert_eq!(values(&v), vec![1.0, 1.0]);
    assert_eq!(v["model"], "pbd");
}

#[test]
fn xpbd_strain_lame_is_the_inverse_moduli_whatever_the_mesh_dt_and_nit() {
    // alpha_dev = 1 / (2 mu) = (1 + nu) / E, alpha_vol = 1 / K = 3 (1 - 2 nu) / E, computed in that form
    // (1 + 0.3 and 1 - 0.6 are exact in f64's rounding of the printed decimals): bit for bit.
    let (e, nu) = (3e4, 0.3);
    let v = mapped("xpbd-strain-lame", "3e4", "0.3", "0.01", "4");
    assert_eq!(v["model"], "xpbd-strain");
    let names: Vec<&str> = v["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha_dev", "alpha_vol"]);
    assert_eq!(values(&v), vec![1.3 / 3e4, 3.0 * 0.4 / 3e4]);
    // The same as the moduli's inverses to rounding: mu = 3e4 / 2.6, K = 3e4 / 1.2 Pa.
    let p = values(&v);
    let (mu, bulk) = (e / (2.0 * (1.0 + nu)), e / (3.0 * (1.0 - 2.0 * nu)));
    assert!(close(p[0], 1.0 / (2.0 * mu)) && close(p[1], 1.0 / bulk), "{p:?}");
    assert!(close(v["moduli"]["shear"].as_f64().unwrap(), mu) && close(v["moduli"]["bulk"].as_f64().unwrap(), bulk));
    assert_eq!(v["outside_range"], serde_json::json!([]));
    // No dt, nit or mesh in the formula (the constraints carry V0 per tetrahedron).
    assert_eq!(values(&mapped("xpbd-strain-lame", "3e4", "0.3", "1/300", "32")), p);
    // nu = 0.5: alpha_vol = 0 exactly, inside the model's allowed range (compliances from 0); nu = 0 and
    // negative nu are defined too (K > 0 for nu > -1).
    let v = mapped("xpbd-strain-lame", "1e4", "0.5", "0.01", "4");
    assert_eq!(values(&v), vec![1.5 / 1e4, 0.0]);
    assert_eq!(v["outside_range"], serde_json::json!([]));
    assert_eq!(values(&mapped("xpbd-strain-lame", "1e4", "0", "0.01", "4")), vec![1e-4, 3e-4]);
    let p = values(&mapped("xpbd-strain-lame", "1e4", "-0.5", "0.01", "4"));
    assert!(close(p[0], 0.5e-4) && close(p[1], 6e-4), "{p:?}");
}

#[test]
fn nu_one_half_gives_a_hard_volume_constraint() {
    // K and lambda are infinite at nu = 0.5: alpha_v = 0 (in range), kv = 1; JSON has no infinity.
    for mapping in ["xpbd-van-gelder-bulk", "xpbd-macklin-lame"] {
        let v = mapped(mapping, "1e4", "0.5", "0.01", "4");
        assert_eq!(values(&v)[1], 0.0, "{mapping}");
        assert_eq!(v["outside_range"], serde_json::json!([]));
        assert!(v["moduli"]["bulk"].is_null() && v["moduli"]["lambda"].is_null(), "{v}");
    }
    assert_eq!(values(&mapped("pbd-van-gelder-bulk", "1e4", "0.5", "0.01", "4"))[1], 1.0);
}

#[test]
fn text_output_and_the_list_name_every_mapping() {
    // The registry, not a hand-written list: a new mapping is listed without touching this test.
    let o = pbdfit(&["baseline", "--mapping", "list"]);
    assert!(o.status.success());
    for m in MAPPINGS {
        assert!(stdout(&o).contains(&format!("{} ({})", m.name, m.model.name())), "{} missing from the list", m.name);
    }
    let list: serde_json::Value = json(&pbdfit(&["baseline", "--mapping", "list", "--json"]));
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, MAPPINGS.iter().map(|m| m.name).collect::<Vec<_>>());
    let o = pbdfit(&[
        "baseline",
        "--mapping",
        "xpbd-godot-jolt",
        "--young",
        "1e4",
        "--poisson",
        "0.3",
        "--dt",
        "0.01",
        "--nit",
        "1",
        "--n",
        "2",
    ]);
    let text = stdout(&o);
    assert!(text.contains("alpha_d = 8.000000e-5 m/N") && text.contains("does not depend on E"), "{text}");
    assert!(text.contains("40 tetrahedra"), "N = 2 is 8 cubes of 5: {text}");
}

#[test]
fn bad_mappings_and_materials_exit_2_naming_what_is_wrong() {
    let base = ["--young", "1e4", "--poisson", "0.3", "--dt", "0.01", "--nit", "1", "--n", "1"];
    let o = pbdfit(&[&["baseline", "--mapping", "lame"][..], &base].concat());
    assert_input_error(&o, &["unknown mapping `lame`", "xpbd-van-gelder-bulk", "pbd-fixed"]);
    // Macklin-Mueller's compliance V0 / lambda is undefined for nu <= 0.
    let o = pbdfit(&[
        "baseline",
        "--mapping",
        "xpbd-macklin-lame",
        "--young",
        "1e4",
        "--poisson",
        "0",
        "--dt",
        "0.01",
        "--nit",
        "1",
        "--n",
        "1",
    ]);
    assert_input_error(&o, &["xpbd-macklin-lame", "lambda", "0 < nu <= 0.5"]);
    let o = pbdfit(&[
        "baseline",
        "--mapping",
        "xpbd-van-gelder-bulk",
        "--young",
        "1e4",
        "--poisson",
        "0.6",
        "--dt",
        "0.01",
        "--nit",
        "1",
        "--n",
        "1",
    ]);
    assert_input_error(&o, &["--poisson 0.6", "(-1, 0.5]"]);
    let o = pbdfit(&["baseline", "--mapping", "pbd-fixed", "--young", "1e4"]);
    assert_input_error(&o, &["--poisson is required"]);
    // Dt, nit and N are asked for only where the formula reads them.
    let material = ["--young", "1e4", "--poisson", "0.3"];
    let o = pbdfit(&[&["baseline", "--mapping", "newton-lame"][..], &material[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("(dt and nit and N not used by this formula)"), "{}", stderr(&o));
    let o = pbdfit(&[&["baseline", "--mapping", "xpbd-van-gelder-bulk"][..], &material[..]].concat());
    assert_input_error(&o, &["--n is required"]);
    let o = pbdfit(&[&["baseline", "--mapping", "xpbd-van-gelder-bulk", "--n", "2"][..], &material[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("(dt and nit not used by this formula)"), "{}", stderr(&o));
    let o = pbdfit(&[&["baseline", "--mapping", "pbd-van-gelder-bulk", "--n", "2"][..], &material[..]].concat());
    assert_input_error(&o, &["--dt is required"]);
    let o = pbdfit(&[&["baseline", "--mapping", "pbd-fixed", "--scene", "no-such-scene"][..], &base].concat());
    assert_input_error(&o, &["no-such-scene"]);
}

/// The sheet mappings on the built-in hanging sheet at N = 4 (4 x 4 crossed quads of 0.25 m, 0.5 mm):
/// Van Gelder's mean `|e|^2 / sum A_t` over its 104 edges is (16 x 4 + 24 x 2 + 64 x 1) / 104 (the
/// quads' boundary and interior sides and the half-diagonals), over `E h`; Bergou's `alpha_b` is `1 / D`,
/// and `--thickness` moves it by the cube of the thickness. A solid's mapping refuses the sheet and a
/// sheet's mapping the unit cube, each naming the mapping, its model and the scene (exit 2).
#[test]
fn sheet_mappings_on_the_hanging_sheet_and_the_wrong_body_refused() {
    let sheet = |mapping: &str, extra: &[&str]| {
        let base = ["mapping", "--mapping", mapping, "--scene", "hanging-sheet", "--young", "2e6", "--poisson", "0.3"];
        pbdfit(&[&base[..], &["--n", "4", "--dt", "0.01", "--nit", "10"], extra].concat())
    };
    let m = json(&sheet("cloth-xpbd-van-gelder-bergou", &["--json"]));
    let d = |h: f64| 2e6 * h * h * h / (12.0 * (1.0 - 0.09));
    let v = values(&m);
    assert!(close(v[0], 176.0 / 104.0 / (2e6 * 5e-4)), "{v:?}");
    assert!(close(v[1], 1.0 / d(5e-4)), "{v:?}");
    assert_eq!(m["geometry"]["sheet"]["hinges"], 88);
    assert_eq!(m["model"], "cloth-xpbd");
    let thick = values(&json(&sheet("cloth-xpbd-van-gelder-bergou", &["--thickness", "1e-3", "--json"])));
    assert!(close(thick[1], 1.0 / d(1e-3)) && close(thick[0], v[0] / 2.0), "{thick:?}");
    for name in ["cloth-pbd-van-gelder-shells", "jolt-cloth-godot"] {
        let o = sheet(name, &[]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(stdout(&o).contains("88 hinges") && stdout(&o).contains("thickness 0.0005 m"), "{}", stdout(&o));
        let p = values(&json(&sheet(name, &["--json"])));
        assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0), "{name}: {p:?}");
    }
    let o = sheet("xpbd-van-gelder-bulk", &[]);
    assert_input_error(
        &o,
        &["mapping xpbd-van-gelder-bulk", "model xpbd", "a solid", "scene hanging-sheet is a sheet"],
    );
    let o = pbdfit(&[
        "mapping",
        "--mapping",
        "cloth-xpbd-van-gelder-bergou",
        "--young",
        "2e6",
        "--poisson",
        "0.3",
        "--n",
        "1",
    ]);
    assert_input_error(
        &o,
        &["cloth-xpbd-van-gelder-bergou", "cloth-xpbd simulates a sheet", "scene gravity is a solid"],
    );
}

/// The engines' closed forms for sheets (`pbdfit mapping --mapping list` names them): Newton's USD cloth
/// import gives `newton-cloth` no springs (`spring_ke = 0`) and `edge_ke = D = E h^3 / (12 (1 - nu^2))`,
/// by hand 2.289377e-5 for E 2e6 Pa, nu 0.3, h 0.5 mm (and eight times that at 1 mm); MuJoCo's flex takes
/// `young = E`; Genesis's defaults are 1e-7 and 1e-5 whatever the material. Each refuses the unit cube (exit
/// 2, naming its model). Newton's USD body under XPBD has no membrane: `pbdfit evaluate` at the mapping's
/// values finds no rest state, its free vertices falling freely (the largest displacement after the first
/// window of T = 0.4517 s is `g T^2 (1 + dt / T) / 2` = 1.0043 m, symplectic Euler's free fall at dt 1/600 s).
#[test]
fn engine_sheet_mappings_follow_their_engines_and_newtons_usd_cloth_falls_freely() {
    let list = stdout(&pbdfit(&["mapping", "--mapping", "list"]));
    for (name, model) in [
        ("newton-cloth-usd", "newton-cloth"),
        ("mujoco-flex-young", "mujoco-flex"),
        ("genesis-cloth-defaults", "genesis-cloth"),
    ] {
        assert!(list.contains(&format!("{name} ({model})")), "{name} missing from the list: {list}");
    }
    let sheet = |mapping: &str, young: &str, extra: &[&str]| {
        let base = ["mapping", "--mapping", mapping, "--scene", "hanging-sheet", "--young", young, "--poisson", "0.3"];
        values(&json(&pbdfit(&[&base[..], extra, &["--json"]].concat())))
    };
    let d = 2e6 * 5e-4f64.powi(3) / (12.0 * (1.0 - 0.09));
    assert!((d - 2.289377289e-5).abs() < 1e-14, "{d}");
    let usd = sheet("newton-cloth-usd", "2e6", &[]);
    assert!(usd[0] == 0.0 && close(usd[1], d), "{usd:?}");
    let thick = sheet("newton-cloth-usd", "2e6", &["--thickness", "1e-3"]);
    assert!(thick[0] == 0.0 && close(thick[1], 8.0 * d), "{thick:?}");
    assert_eq!(sheet("mujoco-flex-young", "2e6", &[]), vec![2e6]);
    assert_eq!(sheet("genesis-cloth-defaults", "7e9", &["--thickness", "3e-3"]), vec![1e-7, 1e-5]);
    for (name, model) in [
        ("newton-cloth-usd", "newton-cloth"),
        ("mujoco-flex-young", "mujoco-flex"),
        ("genesis-cloth-defaults", "genesis-cloth"),
    ] {
        let o = pbdfit(&["mapping", "--mapping", name, "--young", "2e6", "--poisson", "0.3"]);
        assert_input_error(&o, &[name, &format!("{model} simulates a sheet"), "scene gravity is a solid"]);
    }
    let o = pbdfit(&[
        "evaluate",
        "--scene",
        "hanging-sheet",
        "--n",
        "2",
        "--young",
        "2e6",
        "--poisson",
        "0.3",
        "--model",
        "newton-cloth",
        "--param",
        "spring_ke=0",
        "--param",
        &format!("edge_ke={d:e}"),
        "--dt",
        "1/600",
        "--nit",
        "10",
    ]);
    let text = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(text.contains("no rest state") && text.contains("diverged"), "{text}");
    let window: f64 = text.split("successive windows of ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let first: f64 = text.split("was 0.00000e0 m, ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let fall = 9.81 * window * window * (1.0 + 1.0 / 600.0 / window) / 2.0;
    assert!((first / fall - 1.0).abs() < 1e-3, "largest displacement {first} m after {window} s, free fall {fall} m");
}
