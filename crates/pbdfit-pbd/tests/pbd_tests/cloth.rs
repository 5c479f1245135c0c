//! The cloth models on sheets: equal to the reference library (pypbd 2.2.2) within ten times its own
//! rounding floor, refused on the other kind of body, their rest states' sensitivities equal to
//! differences of rest states, their rest states at rest.
//!
//! The library's positions are the committed output of `benchmarks/cloth_against_library.py --write`
//! (`benchmarks/cloth/library.txt`: per case the model, parameters, settings, the library's floor, its
//! positions after the steps); `python/tests/test_cloth_library.py` runs the library itself when
//! `PBDFIT_ENGINE_CHECKS` names `pypbd`.

use super::cloth_cases::{DT, NIT, system};
use pbdfit_mesh::{SceneSet, Vec3};
use pbdfit_pbd::{
    BodyKind, ModelKind, ModelRule, PbdError, PbdSystem, RestOptions, SensitivityOptions, SimParams,
    cloth::xpbd_alpha_tilde,
};

/// The committed library output.
const LIBRARY: &str = include_str!("../../../../benchmarks/cloth/library.txt");

struct LibraryCase {
    case: String,
    model: ModelKind,
    values: Vec<f64>,
    floor: f64,
    positions: Vec<Vec3>,
}

fn library_cases() -> (usize, Vec<LibraryCase>) {
    let mut lines = LIBRARY.lines();
    let header = lines.next().expect("header");
    let steps: usize = header.split_whitespace().find_map(|w| w.parse().ok()).expect("steps in the header");
    let mut cases = Vec::new();
    while let Some(line) = lines.next() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[0], "case", "{line}");
        let mut model: ModelKind = f[2].parse().unwrap();
        if f[4] != "-" {
            for item in f[4].split(',') {
                let (name, value) = item.split_once('=').unwrap();
                model = model.with_setting(name, value.parse().unwrap()).unwrap();
            }
        }
        let n: usize = f[6].parse().unwrap();
        let positions = (0..n)
            .map(|_| {
                let v: Vec<f64> = lines.next().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
                Vec3::new(v[0], v[1], v[2])
            })
            .collect();
        cases.push(LibraryCase {
            case: f[1].to_string(),
            model,
            values: f[3].split(',').map(|v| v.parse().unwrap()).collect(),
            floor: f[5].parse().unwrap(),
            positions,
        });
    }
    (steps, cases)
}

/// Every case of the committed library run: pbdfit's positions after the same steps within ten times
/// the library's floor (its move for a one-ulp move of its start), printed per case.
#[test]
fn cloth_models_equal_the_library_within_its_floor() {
    let (steps, cases) = library_cases();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let mut kinds = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for c in &cases {
        let (system, _, _) = system(&c.case);
        let params = SimParams::new(DT, NIT, c.model.with(&c.values).unwrap());
        let d = system.run_dynamics(&params, steps, steps, |_, _| Ok::<(), ()>(())).unwrap();
        let difference = system
            .rest_positions()
            .iter()
            .zip(&d.u)
            .zip(&c.positions)
            .map(|((x, u), lib)| (x + u - lib).amax())
            .fold(0.0, f64::max);
        println!(
            "{} {} {:?}: floor {:.2e} m, pbdfit - library {:.2e} m ({:.2} floors)",
            c.case,
            c.model.spec(),
            c.values,
            c.floor,
            difference,
            difference / c.floor
        );
        kinds.insert(c.model.name());
        if difference.is_nan() || difference > 10.0 * c.floor {
            failures.push(format!("{} {} {:?}: {difference:e} > 10 x {:e}", c.case, c.model.spec(), c.values, c.floor));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    for name in ["cloth-pbd", "cloth-pbd-isometric", "cloth-xpbd", "cloth-fem", "cloth-strain"] {
        assert!(kinds.contains(name), "{name} is compared");
    }
}

/// A cloth model on a solid and a solid model on a sheet: refused, naming the model and both kinds.
#[test]
fn a_model_of_the_other_kind_of_body_is_refused() {
    let (sheet, _, _) = system("strip");
    let solid = PbdSystem::new(&SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(1).unwrap());
    for (system, kind) in [(&sheet, ModelKind::PBD), (&solid, ModelKind::CLOTH_PBD), (&sheet, ModelKind::MASS_SPRING)] {
        let params = SimParams::new(DT, NIT, kind.example());
        let e = system.rest_state(&params, &RestOptions::default(), None).unwrap_err();
        assert!(matches!(e, PbdError::BodyKind { model, .. } if model == kind.name()), "{e}");
        let text = e.to_string();
        assert!(text.contains(kind.name()) && text.contains("sheet") && text.contains("solid"), "{text}");
        assert!(
            system.sensitivity(&params, &vec![Vec3::zeros(); system.particle_count()], &Default::default()).is_err()
        );
    }
    assert_eq!(ModelKind::CLOTH_XPBD.body_kind(), BodyKind::Sheet);
    assert_eq!(ModelKind::XPBD.body_kind(), BodyKind::Solid);
    let cloth: Vec<&str> =
        ModelKind::all().iter().filter(|k| k.body_kind() == BodyKind::Sheet).map(|k| k.name()).collect();
    assert_eq!(cloth.len(), 13, "{cloth:?}");
    assert_eq!(ModelKind::JOLT_CLOTH.body_kind(), BodyKind::Sheet);
    assert_eq!(ModelKind::MUJOCO_FLEX.body_kind(), BodyKind::Sheet);
}

/// Every cloth model rests on the clamped strip at its example point (the fixed point of its step map),
/// hanging below the clamp, and the rest state is a fixed point of one step (the mass-spring cloth has no
/// step: its rest state is Newton's, converged). The models with isometric
/// bending or none converge to the tolerance (1e-13); the dihedral ones (`cloth-pbd`, `-fem`, `-strain`)
/// reach about 1e-11 in 400,000 sweeps: `acos` at a flat hinge (the strip's hinges along its length
/// stay flat) makes their step map non-smooth there, which stalls the accelerated fixed point.
#[test]
fn every_cloth_model_rests_on_the_clamped_strip() {
    let (system, _, held) = system("strip");
    for kind in ModelKind::all().iter().filter(|k| k.body_kind() == BodyKind::Sheet) {
        let params = SimParams::new(DT, NIT, kind.example());
        let options = RestOptions { max_sweeps: 400_000, ..RestOptions::default() };
        let rest = system.rest_state(&params, &options, None).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let dihedral =
            matches!(params.rule(), ModelRule::Cloth(r) if r.terms.iter().flatten().any(|t| t.name() == "dihedral"));
        println!("{kind}: converged {} residual {:e}, {} sweeps", rest.converged, rest.residual, rest.iterations);
        assert!(rest.converged || (dihedral && rest.residual <= 1e-10), "{kind}: residual {:e}", rest.residual);
        let tip = rest.positions.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        assert!(tip < -0.05, "{kind}: the free end hangs below the clamp ({tip} m)");
        for (p, u) in rest.displacements.iter().enumerate() {
            if held[p] {
                assert_eq!(*u, Vec3::zeros());
            }
        }
        if !kind.has_projection() {
            continue;
        }
        // One step from rest at zero velocity moves nothing beyond the tolerance.
        let mut d = system.dynamics_from(Some(&rest.displacements));
        system.step(&params, &mut d);
        let moved = d.u.iter().zip(&rest.displacements).map(|(a, b)| (a - b).amax()).fold(0.0, f64::max);
        assert!(moved <= 1e-10 * rest.max_displacement(), "{kind}: one step moves {moved:e} m");
        println!("{kind}: tip at y = {tip:.4} m, {} sweeps", rest.iterations);
    }
}

/// The sensitivity of the strip's rest state to each parameter against central differences of
/// warm-started rest states (relative step 1e-2 in the parameter: XPBD's edge compliance moves the rest state by 4e-10 m per 1e-3 of its value, near the rest states' tolerance), for the models whose step map is
/// smooth at the rest state: not the dihedral bending, whose `acos` has no derivative at the strip's flat
/// hinges (there the differences of `kb` measured 1.9e-5 m and the sensitivity none of it). Where a
/// parameter barely moves the step map the map's parameter differences lose digits to the positions'
/// rounding (the cloth constraints read `X + u`): `cloth-xpbd` at `alpha_d = 1e-6` (its `alpha~` 1e-2
/// against inverse masses of 500/kg) disagreed by 4 %, at `1e-3` by 3e-5.
#[test]
fn cloth_sensitivities_match_differences_of_rest_states() {
    let (system, _, _) = system("strip");
    for (kind, values) in [
        (ModelKind::CLOTH_PBD_ISOMETRIC, vec![0.9, 0.1]),
        (ModelKind::CLOTH_XPBD, vec![1e-3, 1e-2]),
        (ModelKind::CLOTH_XPBD_MORSE, vec![1e-9, 1e-2]),
        (ModelKind::JOLT_CLOTH, vec![1e-3, 1e-3, 1e-2]),
    ] {
        let options = RestOptions { max_sweeps: 400_000, ..RestOptions::default() };
        let params = SimParams::new(DT, NIT, kind.with(&values).unwrap());
        let base = system.rest_state(&params, &options, None).unwrap();
        let s = system.sensitivity(&params, &base.displacements, &SensitivityOptions::default()).unwrap();
        for j in 0..values.len() {
            let h = 1e-2 * values[j];
            let at = |sign: f64| {
                let mut v = values.clone();
                v[j] += sign * h;
                let p = SimParams::new(DT, NIT, kind.with(&v).unwrap());
                let r = system.rest_state(&p, &options, Some(&base.displacements)).unwrap();
                assert!(r.converged);
                r.displacements
            };
            let (plus, minus) = (at(1.0), at(-1.0));
            let mut largest: f64 = 0.0;
            let mut worst: f64 = 0.0;
            for v in 0..plus.len() {
                let fd = (plus[v] - minus[v]) / (2.0 * h);
                largest = largest.max(fd.norm());
                worst = worst.max((fd - s.columns[j][v]).norm());
            }
            println!(
                "{kind} {}: |du/dp| {largest:.3e}, sensitivity - differences {:.2e} relative",
                kind.parameters()[j].name,
                worst / largest
            );
            assert!(largest > 0.0 && worst <= 1e-3 * largest, "{kind} parameter {j}: {worst:e} of {largest:e}");
        }
    }
}

/// The library folds an XPBD stiffness `k` into `1 / (k dt dt)`; so does pbdfit for `alpha = 1 / k`.
#[test]
fn xpbd_compliance_folds_as_the_library() {
    let k = 2f64.powi(20);
    assert_eq!(xpbd_alpha_tilde(1.0 / k, DT), 1.0 / (k * DT * DT));
}

/// A closed surface (the unit cube's at n = 2, hung by three top vertices) with the volume constraint: its
/// rest state keeps the enclosed volume, and its sensitivity to the edge compliance equals central
/// differences of warm-started rest states (so gradient fits work with `volume=on`).
#[test]
fn the_volume_constraint_s_rest_state_keeps_the_volume_and_its_sensitivity_matches_differences() {
    let text = "name = \"box\"\n[sheet]\nsurface = \"unit-cube\"\nn = 2\nthickness = 0.16666666666666666\n\
                [[held]]\nbox = { min = [0, 1, 0.5], max = [1, 1, 0.5] }\nsupport = \"pinned\"\n[load]\n\
                gravity = [0, -9.81, 0]\n[material]\ndensity = 1.0\n";
    let body = pbdfit_mesh::SheetScene::parse(text, "test", None).unwrap().body(None).unwrap();
    let system = PbdSystem::sheet_body(&body);
    let triangles = body.sheet.mesh.triangles();
    let kind = ModelKind::CLOTH_XPBD_HOOKEAN.with_setting("volume", 1.0).unwrap();
    let values = [1e-3, 1e4];
    let (dt, nit) = (0.05, 20);
    let options = RestOptions { max_sweeps: 400_000, ..RestOptions::default() };
    let params = SimParams::new(dt, nit, kind.with(&values).unwrap());
    let base = system.rest_state(&params, &options, None).unwrap();
    assert!(base.converged);
    let x: Vec<Vec3> = system.rest_positions().iter().zip(&base.displacements).map(|(r, u)| r + u).collect();
    let ratio = pbdfit_mesh::sheet::enclosed_volume(&x, triangles);
    println!("V / V0 at rest {ratio:.15}");
    assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
    let s = system.sensitivity(&params, &base.displacements, &SensitivityOptions::default()).unwrap();
    let h = 1e-2 * values[0];
    let at = |sign: f64| {
        let p = SimParams::new(dt, nit, kind.with(&[values[0] + sign * h, values[1]]).unwrap());
        let r = system.rest_state(&p, &options, Some(&base.displacements)).unwrap();
        assert!(r.converged);
        r.displacements
    };
    let (plus, minus) = (at(1.0), at(-1.0));
    let (mut largest, mut worst): (f64, f64) = (0.0, 0.0);
    for v in 0..plus.len() {
        let fd = (plus[v] - minus[v]) / (2.0 * h);
        largest = largest.max(fd.norm());
        worst = worst.max((fd - s.columns[0][v]).norm());
    }
    println!("volume=on alpha_d: |du/dp| {largest:.3e}, sensitivity - differences {:.2e} relative", worst / largest);
    assert!(largest > 0.0 && worst <= 1e-3 * largest, "{worst:e} of {largest:e}");
}
