//! End-to-end tests of the contact scenes: `resting`, `indentation` and `incline`
//! through `pbdfit fem`, `pbdfit fit` (gradient and pattern searches, model pbd) and `pbdfit simulate`
//! at the fitted parameters.
//!
//! The reference is checked on what `pbdfit fem --json` reports: no vertex inside the obstacle, the
//! bottom face on the floor where the body rests on it, sticking (no slip) where Coulomb's law holds it,
//! and its contact forces (`contact`): Coulomb's law per contact and the balance of load, contact forces
//! and held reactions. The library tests the same in more cases (pbdfit-fem `tests/fem_tests/contact.rs`,
//! pbdfit-pbd `tests/pbd_tests/contact.rs`).

use crate::common::{displacements, json, pbdfit};

/// The sphere of `scenes/indentation.toml` where the load leaves it: centre (m) and radius (m).
const INDENTER: ([f64; 3], f64) = ([0.5, 5.02 - 0.12, 0.5], 4.0);

/// Round-off allowance on a gap (m): the rest states and the FEM meet the obstacle to 1e-12 or better,
/// relative to displacements of 1e-2 m; 1e-9 leaves room for a thousand times that.
const GAP: f64 = 1e-9;

/// The vertices of a `fem --json` record and its displacements (m).
fn reference(scene: &str, n: &str) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let v = json(&pbdfit(&["fem", "--scene", scene, "--n", n, "--young", "1e3", "--poisson", "0.3", "--json"]));
    let x = v["vertices"].as_array().unwrap().iter().map(point).collect();
    (x, displacements(&v))
}

fn point(p: &serde_json::Value) -> [f64; 3] {
    let p = p.as_array().unwrap();
    [p[0].as_f64().unwrap(), p[1].as_f64().unwrap(), p[2].as_f64().unwrap()]
}

/// The signed gap of a point to the scene's obstacle where the load leaves it (m): > 0 free.
fn gap(scene: &str, p: &[f64; 3]) -> f64 {
    if scene == "indentation" {
        let (c, r) = INDENTER;
        ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt() - r
    } else {
        p[1]
    }
}

/// The FEM reference of each contact scene at N = 2 keeps out of the obstacle and meets it: the resting
/// and inclined cubes stand on the floor with their whole bottom face (no lift-off, no penetration), the
/// resting cube's face sticks (Coulomb with plain vertical gravity: no tangential force, so no slip), the
/// inclined one creeps by a fraction of its elastic displacement at most (the FEM's partial slip of the
/// trailing edge at tan theta = 0.2, crates/pbdfit-fem docs); the indenter touches the top face, none
/// of whose vertices ends inside it.
#[test]
fn fem_reference_of_the_contact_scenes_keeps_out_of_the_obstacles() {
    for scene in ["resting", "incline", "indentation"] {
        let (x, u) = reference(scene, "2");
        let largest = u.iter().map(|u| (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt()).fold(0.0, f64::max);
        assert!(largest > 1e-4, "{scene}: the body moved by {largest:e} m");
        let moved: Vec<[f64; 3]> = x.iter().zip(&u).map(|(x, u)| [x[0] + u[0], x[1] + u[1], x[2] + u[2]]).collect();
        let lowest = moved.iter().map(|p| gap(scene, p)).fold(f64::INFINITY, f64::min);
        assert!(lowest >= -GAP, "{scene}: a vertex {lowest:e} m inside the obstacle");
        match scene {
            "indentation" => assert!(lowest <= GAP, "{scene}: the sphere touches nothing ({lowest:e} m)"),
            _ => {
                let bottom: Vec<&[f64; 3]> = x.iter().zip(&u).filter(|(x, _)| x[1] == 0.0).map(|(_, u)| u).collect();
                assert_eq!(bottom.len(), 9, "{scene}");
                for u in &bottom {
                    assert!(u[1].abs() <= GAP, "{scene}: bottom vertex lifted or sunk by {:e} m", u[1]);
                    let slip = (u[0] * u[0] + u[2] * u[2]).sqrt();
                    let allowed = if scene == "resting" { GAP } else { 0.2 * largest };
                    assert!(slip <= allowed, "{scene}: bottom vertex slipped {slip:e} m (max |u| {largest:e} m)");
                }
            }
        }
    }
}

/// `fem --json` reports the contact forces of a body with obstacles: normal forces >= 0, friction within
/// Coulomb's cone (at most mu_s times the normal force where a contact sticks, mu_k times it where it
/// slips, none on the frictionless indenter), and load + contact forces + held reactions = 0 to 1e-9 of
/// the forces, at nu 0.3 and at 0.45, where every bottom corner of `resting` slips outwards. A scene
/// without obstacles has no `contact`.
#[test]
fn fem_json_reports_contact_forces_that_balance() {
    let norm = |v: &serde_json::Value| {
        let p = point(v);
        (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()
    };
    for (scene, mu_s, mu_k) in [("resting", 0.5, 0.4), ("incline", 0.5, 0.4), ("indentation", 0.0, 0.0)] {
        for nu in ["0.3", "0.45"] {
            let v = json(&pbdfit(&["fem", "--scene", scene, "--n", "2", "--young", "1e3", "--poisson", nu, "--json"]));
            let c = &v["contact"];
            let forces = c["forces"].as_array().unwrap();
            assert!(!forces.is_empty(), "{scene} nu {nu}");
            let mut scale = norm(&c["total_load"]);
            for f in forces {
                let (normal, tangential) = (f["normal_force"].as_f64().unwrap(), norm(&f["tangential_force"]));
                scale += normal + tangential;
                assert!(normal >= 0.0, "{scene} nu {nu}: {f}");
                match f["state"].as_str().unwrap() {
                    "stick" => assert!(tangential <= mu_s * normal * (1.0 + 1e-9), "{scene} nu {nu}: {f}"),
                    "slip" => assert!((tangential - mu_k * normal).abs() <= 1e-9 * normal, "{scene} nu {nu}: {f}"),
                    state => assert_eq!((state, normal, tangential), ("open", 0.0, 0.0), "{scene} nu {nu}"),
                }
            }
            let total = [0, 1, 2].map(|k| {
                ["total_load", "total_contact_force", "total_reaction"].iter().map(|t| point(&c[t])[k]).sum::<f64>()
            });
            let off = (total[0] * total[0] + total[1] * total[1] + total[2] * total[2]).sqrt();
            assert!(off <= 1e-9 * scale, "{scene} nu {nu}: forces off balance by {off:e} N (scale {scale:e} N)");
            if scene == "resting" && nu == "0.45" {
                let slipping = forces.iter().filter(|f| f["state"] == "slip").count();
                assert!(slipping >= 4, "{scene}: the corners slip outwards ({slipping} slipping)");
            }
        }
    }
    let plain = json(&pbdfit(&["fem", "--scene", "gravity-wall", "--n", "1", "--json"]));
    assert!(plain.get("contact").is_none());
}

/// A pbd fit of `scene` at N = 1 by `search`: (error, kd, kv).
fn fit(scene: &str, search: &str) -> (f64, f64, f64) {
    let args = format!(
        "fit --scene {scene} --n 1 --young 1e3 --poisson 0.3 --dt 0.01 --nit 1 --model pbd --search {search} --json"
    );
    let v = json(&pbdfit(&args.split(' ').collect::<Vec<_>>()));
    let p = &v["parameters"];
    (v["error"].as_f64().unwrap(), p["kd"].as_f64().unwrap(), p["kv"].as_f64().unwrap())
}

/// Every contact scene fits with pbd by both searches at N = 1. The gradient search (its descents
/// linearise by differences of rest states, contact having no solved sensitivity) is no worse than the
/// pattern search beyond 1e-6 relative (the pattern search's own stopping step leaves its error about
/// that far above its minimum), and the rest state at the gradient fit's parameters stands on or
/// against the obstacle without entering it.
#[test]
fn contact_scenes_fit_by_both_searches_without_penetration() {
    for scene in ["resting", "incline", "indentation"] {
        let (gradient, kd, kv) = fit(scene, "gradient");
        let (pattern, _, _) = fit(scene, "pattern");
        eprintln!("{scene}: gradient {gradient:.8e} (kd {kd:.6}, kv {kv:.6}), pattern {pattern:.8e}");
        assert!(gradient.is_finite() && gradient > 0.0 && gradient < 1.0, "{scene}: {gradient}");
        assert!(gradient <= pattern * (1.0 + 1e-6), "{scene}: gradient {gradient:e} > pattern {pattern:e}");
        let args = format!("simulate --scene {scene} --n 1 --dt 0.01 --nit 1 --kd {kd} --kv {kv} --json");
        let v = json(&pbdfit(&args.split(' ').collect::<Vec<_>>()));
        assert_eq!(v["converged"], serde_json::Value::Bool(true), "{scene}");
        let lowest =
            v["rest_positions"].as_array().unwrap().iter().map(|p| gap(scene, &point(p))).fold(f64::INFINITY, f64::min);
        assert!(lowest >= -GAP, "{scene}: the fitted rest state is {lowest:e} m inside the obstacle");
        assert!(lowest <= GAP, "{scene}: the fitted rest state does not touch the obstacle ({lowest:e} m)");
    }
}
