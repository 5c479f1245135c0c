//! The rest state's sensitivity `du*/dp` against central differences of warm-started rest states, for
//! every registered model (docs/method.md, section The sensitivity of the rest state). The engine profiles, whose
//! Jacobi steps have no rest state at some of these points, have their own cases in `engines.rs`.

use crate::points::point;
use pbdfit_mesh::{SceneSet, Vec3};
use pbdfit_pbd::{Differences, ModelKind, PbdSystem, RestOptions, RestState, Scale, SensitivityOptions, SimParams};

fn system(scene: &str, n: usize) -> PbdSystem {
    PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap())
}

fn rest(system: &PbdSystem, params: &SimParams, warm: Option<&[Vec3]>) -> RestState {
    let r = system.rest_state(params, &RestOptions::default(), warm).unwrap();
    assert!(r.converged, "{params:?}: residual {}", r.residual);
    r
}

/// Largest difference between the sensitivity and central differences of rest states in each search
/// coordinate (step 1e-5 of the box width), relative to the largest difference quotient, per parameter.
fn disagreement(scene: &str, n: usize, kind: ModelKind, dt: f64, nit: usize, options: &SensitivityOptions) -> Vec<f64> {
    let system = system(scene, n);
    let values = point(kind);
    let params = SimParams::new(dt, nit, kind.with(&values).unwrap());
    let base = rest(&system, &params, None);
    let s = system.sensitivity(&params, &base.displacements, options).unwrap();
    assert_eq!(s.columns.len(), values.len());
    let mut out = Vec::new();
    for (j, spec) in kind.parameters().iter().enumerate() {
        let width = match spec.scale {
            Scale::Linear => spec.default_box.1 - spec.default_box.0,
            Scale::Log10 => (spec.default_box.1 / spec.default_box.0).log10(),
        };
        let h = 1e-5 * width;
        let shifted = |sign: f64| {
            let mut v = values.clone();
            v[j] = match spec.scale {
                Scale::Linear => v[j] + sign * h,
                Scale::Log10 => v[j] * 10f64.powf(sign * h),
            };
            rest(&system, &SimParams::new(dt, nit, kind.with(&v).unwrap()), Some(&base.displacements))
        };
        let (plus, minus) = (shifted(1.0), shifted(-1.0));
        // d/ds = dp/ds d/dp: 1 on a linear axis, p ln 10 on a log axis.
        let chain = match spec.scale {
            Scale::Linear => 1.0,
            Scale::Log10 => values[j] * std::f64::consts::LN_10,
        };
        let mut largest: f64 = 0.0;
        let mut worst: f64 = 0.0;
        for v in 0..plus.displacements.len() {
            let fd = (plus.displacements[v] - minus.displacements[v]) / (2.0 * h);
            largest = largest.max(fd.norm());
            worst = worst.max((fd - s.columns[j][v] * chain).norm());
        }
        // A parameter that only scales the stiffness leaves a body moved by prescribed displacements
        // alone where it is (mass-spring under torsion): then the sensitivity must vanish too.
        let moved = base.max_displacement();
        if largest <= 1e-9 * moved {
            assert!(
                worst <= 1e-7 * moved,
                "{scene} {kind} {}: |S| {worst:e} where the rest state does not move",
                spec.name
            );
            out.push(0.0);
            continue;
        }
        out.push(worst / largest);
    }
    out
}

fn show(d: &[f64]) -> String {
    d.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>().join(", ")
}

/// Floor and wall at N = 2 and 4, every model.
#[test]
fn sensitivities_match_differences_of_rest_states() {
    let mut failures = Vec::new();
    for &kind in
        ModelKind::all().iter().filter(|k| !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
    {
        for scene in ["gravity-floor", "gravity-wall"] {
            for n in [2, 4] {
                let d = disagreement(scene, n, kind, 0.01, 2, &SensitivityOptions::default());
                println!("{kind:>20} {scene:>14} N = {n}: {}", show(&d));
                if d.iter().any(|&x| x.is_nan() || x > 1e-5) {
                    failures.push(format!("{kind} {scene} N = {n}: {}", show(&d)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A traction scene and a prescribed-displacement scene (rotation of the held top face), every model.
#[test]
fn sensitivities_under_tractions_and_prescribed_displacements() {
    let mut failures = Vec::new();
    for &kind in
        ModelKind::all().iter().filter(|k| !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
    {
        for scene in ["tension", "torsion"] {
            let d = disagreement(scene, 2, kind, 0.01, 1, &SensitivityOptions::default());
            println!("{kind:>20} {scene:>14}: {}", show(&d));
            if d.iter().any(|&x| x.is_nan() || x > 1e-5) {
                failures.push(format!("{kind} {scene}: {}", show(&d)));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A fit's linearisation (GMRES to 1e-6 with one-sided products, `Differences::Forward`, the gradient
/// search's `LINEARISATION`) against the same differences of rest states, every model and scene of the
/// two tests above: within 1e-4 (what a step proposal needs; each step is judged by its own rest state).
#[test]
fn linearisations_match_differences_of_rest_states() {
    let options =
        SensitivityOptions { tolerance: 1e-6, differences: Differences::Forward, ..SensitivityOptions::default() };
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    for &kind in
        ModelKind::all().iter().filter(|k| !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
    {
        let cases = [("gravity-floor", 2, 2), ("gravity-floor", 4, 2), ("gravity-wall", 2, 2), ("gravity-wall", 4, 2)];
        for (scene, n, nit) in cases.into_iter().chain([("tension", 2, 1), ("torsion", 2, 1)]) {
            let d = disagreement(scene, n, kind, 0.01, nit, &options);
            println!("{kind:>20} {scene:>14} N = {n}: {}", show(&d));
            worst = d.iter().copied().fold(worst, f64::max);
            if d.iter().any(|&x| x.is_nan() || x > 1e-4) {
                failures.push(format!("{kind} {scene} N = {n}: {}", show(&d)));
            }
        }
    }
    println!("worst {worst:.2e}");
    assert!(failures.is_empty(), "{failures:#?}");
}
