//! Rest states: the reference library's values, and the two methods agreeing.

use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{Model, ModelKind, PbdError, PbdSystem, RestMethod, RestOptions, RestState, SimParams};

fn system(scene: &str, n: usize) -> PbdSystem {
    PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap())
}

fn rest(scene: &str, n: usize, params: SimParams, method: RestMethod) -> RestState {
    let options = RestOptions { method, ..RestOptions::default() };
    let r = system(scene, n).rest_state(&params, &options, None).unwrap();
    assert!(r.converged, "{scene} N = {n} {params:?} {method:?}: not converged, residual {}", r.residual);
    r
}

/// Reference values from docs/method.md: the reference PBD library and an exact fixed-point solve of
/// its step map. The fixed point is solved to ~1e-13, so 1e-9 relative is a comfortable bound.
#[test]
fn matches_the_reference_library() {
    let cases = [
        ("gravity-floor", 1, 0.01, 1, 9.9399075845e-04),
        ("gravity-wall", 1, 0.01, 1, 6.2529506192e-03),
        ("gravity-wall", 2, 0.01, 4, 2.6455782944e-03),
        ("gravity-ceiling", 2, 0.001, 1, 3.0391495408e-05),
    ];
    for (scene, n, dt, nit, expected) in cases {
        for method in [RestMethod::FixedPoint, RestMethod::Stepping] {
            let r = rest(scene, n, SimParams::new(dt, nit, Model::pbd(0.5, 0.5)), method);
            let got = r.max_displacement();
            assert!(
                (got - expected).abs() <= 1e-9 * expected,
                "{scene} N = {n} dt = {dt} nit = {nit} {method:?}: max |u| = {got:.10e}, reference {expected:.10e}"
            );
        }
    }
}

/// Stepping the dynamics and solving the fixed point directly reach the same rest state.
#[test]
fn stepping_and_fixed_point_agree() {
    let models = [
        Model::pbd(0.3, 0.9),
        Model::pbd(1.0, 0.1),
        ModelKind::PBD_LINEARISED.with(&[0.4, 0.6]).unwrap(),
        ModelKind::PBD_TEXTBOOK_VOLUME.with(&[0.7, 0.2]).unwrap(),
        Model::xpbd(1e-4, 1e-5),
        // Stiff enough that the energy-form springs have one rest state: softer ones can settle by stepping
        // in another fixed point of the step than the one the fixed-point solver reaches (module doc).
        ModelKind::XPBD_HOOKEAN.with(&[1e-8, 1e-5]).unwrap(),
        ModelKind::XPBD_STVK.with(&[1e-8, 1e-5]).unwrap(),
        ModelKind::XPBD_MORSE.with(&[1e-8, 1e-5]).unwrap(),
    ];
    let mut sweeps = (0usize, 0usize);
    for scene in ["gravity-floor", "gravity-wall", "gravity-ceiling"] {
        for (i, model) in models.iter().enumerate() {
            let (n, dt, nit) = [
                (1, 0.01, 1),
                (2, 0.005, 2),
                (1, 0.002, 4),
                (2, 0.01, 1),
                (1, 0.01, 3),
                (1, 0.01, 1),
                (2, 0.01, 2),
                (1, 0.005, 1),
            ][i];
            let params = SimParams::new(dt, nit, *model);
            let a = rest(scene, n, params, RestMethod::Stepping);
            let b = rest(scene, n, params, RestMethod::FixedPoint);
            assert_eq!(b.method, RestMethod::FixedPoint, "{scene} {model:?}: fixed point fell back to stepping");
            let scale = a.max_displacement();
            let diff = a.displacements.iter().zip(&b.displacements).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max);
            // The energy-form springs have no linear stiffness, so their slowest modes contract by nearly 1
            // per step and stepping stops (per-step change 1e-13) further from rest: 6e-8 measured.
            let bound = if model.name().starts_with("xpbd-") { 1e-6 } else { 1e-9 };
            assert!(diff <= bound * scale, "{scene} N = {n} {model:?}: differ by {diff:e} (scale {scale:e})");
            println!(
                "{scene} N={n} dt={dt} nit={nit} {model:?}: stepping {} sweeps, fixed point {}",
                a.iterations, b.iterations
            );
            sweeps.0 += a.iterations;
            sweeps.1 += b.iterations;
        }
    }
    println!("total sweeps: stepping {}, fixed point {}", sweeps.0, sweeps.1);
    // A count, not a time: the fixed point should need far fewer sweeps in total.
    assert!(sweeps.1 * 5 < sweeps.0, "fixed point {} sweeps vs stepping {}", sweeps.1, sweeps.0);
}

/// The rest state does not depend on velocity damping (it only changes the path to rest).
#[test]
fn damping_does_not_change_the_rest_state() {
    let params = SimParams::new(0.01, 2, Model::pbd(0.6, 0.4));
    let undamped = rest("gravity-wall", 2, params, RestMethod::Stepping);
    let damped = rest("gravity-wall", 2, SimParams { damping: 0.3, ..params }, RestMethod::Stepping);
    let scale = undamped.max_displacement();
    for (a, b) in undamped.displacements.iter().zip(&damped.displacements) {
        assert!((a - b).norm() <= 1e-9 * scale);
    }
}

/// A warm start from a neighbouring rest state reaches the same state in fewer sweeps.
#[test]
fn warm_start_reaches_the_same_state() {
    let sys = system("gravity-ceiling", 2);
    let options = RestOptions::default();
    let near = sys.rest_state(&SimParams::new(0.01, 1, Model::pbd(0.5, 0.5)), &options, None).unwrap();
    let params = SimParams::new(0.01, 1, Model::pbd(0.52, 0.5));
    let cold = sys.rest_state(&params, &options, None).unwrap();
    let warm = sys.rest_state(&params, &options, Some(&near.displacements)).unwrap();
    let scale = cold.max_displacement();
    for (a, b) in cold.displacements.iter().zip(&warm.displacements) {
        assert!((a - b).norm() <= 1e-10 * scale);
    }
    assert!(warm.iterations <= cold.iterations, "warm {} vs cold {}", warm.iterations, cold.iterations);
}

/// With kd = 0 the volume constraints leave mechanisms: the cube has no rest state, and that is an
/// error naming the scene and parameters, not a hang or a NaN.
#[test]
fn no_rest_state_is_an_error() {
    let e = system("gravity-ceiling", 1)
        .rest_state(&SimParams::new(0.01, 1, Model::pbd(0.0, 0.5)), &RestOptions::default(), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gravity-ceiling") && e.contains("kd = 0"), "{e}");
}

fn rest_result(
    scene: &str,
    n: usize,
    params: &SimParams,
    method: RestMethod,
    probe: bool,
) -> Result<RestState, PbdError> {
    let options = RestOptions { method, divergence_probe: probe, ..RestOptions::default() };
    system(scene, n).rest_state(params, &options, None)
}

fn divergence(r: Result<RestState, PbdError>) -> (usize, String) {
    match r {
        Err(PbdError::Diverged { sweeps, reason, .. }) => (sweeps, reason),
        other => panic!("expected divergence, got {other:?}"),
    }
}

/// A mechanism (kd = 0: volume constraints alone leave the cube free to sag) has no rest state. Its
/// fixed-point solve stalls, and the divergence probe gives it up after 500 map evaluations instead of
/// two full attempts (3,000 evaluations, then 3,000 with the short memory): reported at the same step
/// with the same displacement as the stepping fallback reports it after both attempts.
#[test]
fn the_divergence_probe_gives_up_a_runaway_point_where_stepping_does() {
    let params = SimParams::new(0.01, 1, Model::pbd(0.0, 0.5));
    let (probed, probed_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::FixedPoint, true));
    let (full, full_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::FixedPoint, false));
    let (stepped, stepped_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::Stepping, true));
    assert_eq!(probed_reason, stepped_reason);
    assert_eq!(full_reason, stepped_reason);
    assert!(stepped > 0 && stepped < 200, "the simulation leaves the body after {stepped} sweeps");
    assert_eq!(probed, 500 + stepped, "500 stalled evaluations, then the probe's steps");
    assert_eq!(full, 3000 + 3000 + stepped, "without the probe: both attempts, then the stepping fallback");
}

/// A soft point whose simulation passes the body's extent on its way to rest (undamped overshoot) keeps
/// the rest state its fixed-point solve reaches after the probe has looked (575 evaluations at N = 4),
/// bit for bit; judged by the first exit alone, as the stepping fallback judges, it would be lost.
#[test]
fn the_divergence_probe_changes_no_rest_state() {
    let params = SimParams::new(0.01, 1, Model::pbd(0.05, 0.15));
    let with = rest_result("gravity-wall", 4, &params, RestMethod::FixedPoint, true).unwrap();
    let without = rest_result("gravity-wall", 4, &params, RestMethod::FixedPoint, false).unwrap();
    assert!(with.converged && with.iterations > 500, "{} sweeps: the probe must have run", with.iterations);
    assert_eq!(with.iterations, without.iterations);
    let bits =
        |r: &RestState| r.displacements.iter().flat_map(|u| [u.x, u.y, u.z]).map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(bits(&with), bits(&without));
    assert!(with.max_displacement() < 1.0, "the rest state lies within the body: {}", with.max_displacement());
    divergence(rest_result("gravity-wall", 4, &params, RestMethod::Stepping, true));
}

/// With [`RestOptions::collapse_verdict`] (the gradient search's), a body that collapses through itself
/// (gravity-floor at N = 4, kd = 0.01, kv = 0.02: it passes its extent by a few per cent and stays
/// there) is given up by the divergence probe, with the step and displacement the stepping fallback
/// reports, instead of after both full fixed-point attempts. Started from the undeformed state given as a
/// warm start (a search's trial), so that the early collapse probe of a cold solve stays out (the next
/// test): its least residual stays above 1e-3, so the divergence probe runs when the solve stagnates, at
/// its 100th evaluation, instead of after 500.
#[test]
fn the_collapse_verdict_gives_up_a_collapsed_body_where_stepping_does() {
    let params = SimParams::new(0.01, 1, Model::pbd(0.01, 0.02));
    let system = system("gravity-floor", 4);
    let undeformed = vec![pbdfit_pbd::Vec3::zeros(); system.particle_count()];
    let quick = RestOptions { collapse_verdict: true, ..RestOptions::default() };
    let (collapsed, collapsed_reason) = divergence(system.rest_state(&params, &quick, Some(&undeformed)));
    let (full, full_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::FixedPoint, true));
    let (stepped, stepped_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::Stepping, true));
    assert_eq!(collapsed_reason, stepped_reason);
    assert_eq!(full_reason, stepped_reason);
    assert!(stepped > 0 && stepped < 150, "the body leaves its extent after {stepped} sweeps");
    assert_eq!(collapsed, 100 + stepped, "100 stagnated evaluations, then the probe's steps");
    assert_eq!(full, 3000 + 3000 + stepped, "the probe alone sees no runaway: both attempts, then stepping");
}

/// A cold solve that stagnates beyond a quarter of the body is given up by the early collapse probe: the
/// same body as above, sooner than the regular verdict (500 evaluations and the probe), with the bound it
/// passed in the reason; and XPBD's liquid grid point of the fine-mesh benchmark (gravity-floor N = 8,
/// nit = 10, alpha_d = 6.31 m/N, alpha_v = 1e-6: no rest state; its simulation sloshes 0.4 to 0.75 m
/// down for 3.1 s before it leaves the body) within a few converging rest states' sweeps of that fit
/// (220 to 770 each), where without the early probes it cost 63,130.
#[test]
fn a_stagnated_cold_solve_beyond_a_quarter_of_the_body_is_given_up_early() {
    let quick = RestOptions { collapse_verdict: true, ..RestOptions::default() };
    let params = SimParams::new(0.01, 1, Model::pbd(0.01, 0.02));
    let (early, reason) = divergence(system("gravity-floor", 4).rest_state(&params, &quick, None));
    let (_, stepped_reason) = divergence(rest_result("gravity-floor", 4, &params, RestMethod::Stepping, true));
    assert!(early < 500, "{early} sweeps");
    assert!(reason.starts_with("the body collapsed: its largest displacement passed 0.25 m"), "{reason}");
    assert!(stepped_reason.contains("exceeds the body size"), "{stepped_reason}");

    let liquid = SimParams::new(0.01, 10, Model::xpbd(6.30957, 1e-6));
    let (sweeps, reason) = divergence(system("gravity-floor", 8).rest_state(&liquid, &quick, None));
    assert!(sweeps <= 3_000, "{sweeps} sweeps: {reason}");
    assert!(reason.starts_with("the body collapsed"), "{reason}");
}

/// An engine profile's body that rests beyond a quarter of its size keeps its rest state under the
/// collapse verdict, bit for bit: Newton's XPBD on gravity-wall N = 1 at two gradient grid points of the
/// mapping table's fits. At dt = 0.0137 s, nit = 13, k_mu = 10^4.5, k_lambda = 10^2.3 Pa it rests 0.398 m
/// down; its solve wanders (least residual 1e-2 from the 57th evaluation to the 107th) and converges at the
/// 496th. At dt = 0.0035 s, nit = 6, k_mu = k_lambda = 10^2.3 Pa it rests 0.4305 m down; its solve sits at
/// 0.4263 m with a residual of 1.6e-6 from the 306th evaluation on, as XPBD's liquid does (above), and the
/// rest state comes from stepping. The early collapse probe, asked there, had given both up (the simulation
/// stays beyond a quarter of the body: it rests there), and with them every grid point with a rest state
/// of fits such as E = 145 Pa, nu = 0.21 at the first setting: an engine profile's solve does not ask it.
#[test]
fn an_engine_rest_state_beyond_a_quarter_of_the_body_survives_the_collapse_verdict() {
    let kind: pbdfit_pbd::ModelKind = "newton-xpbd".parse().unwrap();
    let cases = [
        (0.013679100513536241, 13, [10f64.powf(4.5), 10f64.powf(2.3)], 0.398),
        (0.0035016396408727546, 6, [10f64.powf(2.3), 10f64.powf(2.3)], 0.4305),
    ];
    for (dt, nit, p, rests) in cases {
        let params = SimParams::new(dt, nit, kind.with(&p).unwrap());
        let quick = RestOptions { collapse_verdict: true, max_sweeps: 200_000, ..RestOptions::default() };
        let with = system("gravity-wall", 1).rest_state(&params, &quick, None).unwrap();
        let without = system("gravity-wall", 1).rest_state(&params, &RestOptions::default(), None).unwrap();
        assert!(with.converged && with.iterations > 13 * 400, "{} sweeps: the solve takes long", with.iterations);
        assert!((with.max_displacement() - rests).abs() < 1e-3, "{}", with.max_displacement());
        let bits =
            |r: &RestState| r.displacements.iter().flat_map(|u| [u.x, u.y, u.z]).map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(&with), bits(&without), "dt = {dt}");
    }
}

/// The collapse verdict spares a soft point whose undamped overshoot passes the body's extent on its way
/// to a rest state inside it (the case of `the_divergence_probe_changes_no_rest_state`): the same rest
/// state, bit for bit. The early probes leave it alone too: it rests 0.63 m down, beyond a quarter of the
/// body, but its cold solve does not stagnate (its least residual falls about a decade per hundred
/// evaluations).
#[test]
fn the_collapse_verdict_keeps_a_rest_state_reached_after_an_overshoot() {
    let params = SimParams::new(0.01, 1, Model::pbd(0.05, 0.15));
    let quick = RestOptions { collapse_verdict: true, ..RestOptions::default() };
    let with = system("gravity-wall", 4).rest_state(&params, &quick, None).unwrap();
    let without = rest_result("gravity-wall", 4, &params, RestMethod::FixedPoint, true).unwrap();
    assert!(with.converged && with.iterations > 500, "{} sweeps: the probe must have run", with.iterations);
    assert!(with.max_displacement() > 0.25, "beyond a quarter of the body: {}", with.max_displacement());
    let bits =
        |r: &RestState| r.displacements.iter().flat_map(|u| [u.x, u.y, u.z]).map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(bits(&with), bits(&without));
}

/// PBD with kd = kv = 0 moves nothing (its sweeps are skipped): stepping is free fall, which leaves the
/// body at the first step k with dt^2 g k (k + 1) / 2 beyond its extent (symplectic Euler from rest).
#[test]
fn an_inert_rule_falls_freely() {
    let (dt, nit) = (0.01, 8);
    let params = SimParams::new(dt, nit, Model::pbd(0.0, 0.0));
    assert!(params.projection_rule().unwrap().is_inert());
    assert!(!SimParams::new(dt, nit, Model::pbd(0.0, 1e-300)).projection_rule().unwrap().is_inert());
    let system = system("gravity-floor", 2);
    let g = system.gravity().norm();
    let (sweeps, reason) = divergence(rest_result("gravity-floor", 2, &params, RestMethod::Stepping, true));
    let fallen = |k: usize| dt * dt * g * (k * (k + 1)) as f64 / 2.0;
    let k = (1..).find(|&k| fallen(k) > 1.0).unwrap();
    assert_eq!(sweeps, k * nit, "{reason}");
    assert!(reason.contains(&format!("displacement {:.3e} m", fallen(k))), "{reason} against {:.3e}", fallen(k));
}

/// A candidate rest state that is not a number is divergence, naming the vertex; it was reported as an
/// inverted tetrahedron of volume NaN. A finite state with a flipped tetrahedron still is one.
#[test]
fn a_nan_state_is_divergence_not_an_inverted_tetrahedron() {
    let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(1).unwrap();
    let rest = body.mesh.vertices().to_vec();
    let tets = body.mesh.tets().to_vec();
    let params = pbdfit_pbd::SimParams::new(0.01, 1, pbdfit_pbd::Model::pbd(0.5, 0.5));
    let accept = |u: Vec<pbdfit_pbd::Vec3>| {
        pbdfit_pbd::accept_rest_state("w", &rest, &tets, &params, u, 3, true, 0.0, pbdfit_pbd::RestMethod::FixedPoint)
    };
    let mut u = vec![pbdfit_pbd::Vec3::zeros(); rest.len()];
    u[5].y = f64::NAN;
    let e = accept(u).unwrap_err();
    assert!(matches!(e, pbdfit_pbd::PbdError::Diverged { .. }), "{e}");
    assert!(e.to_string().contains("vertex 5 is not a finite number"), "{e}");
    // Every vertex mirrored through x = 0.5 turns every tetrahedron inside out.
    let flipped: Vec<pbdfit_pbd::Vec3> =
        rest.iter().map(|x| pbdfit_pbd::Vec3::new(1.0 - 2.0 * x.x, 0.0, 0.0)).collect();
    let e = accept(flipped).unwrap_err();
    assert!(matches!(e, pbdfit_pbd::PbdError::InvertedTet { .. }), "{e}");
}
