//! Invariants of the projection and the step.

use pbdfit_mesh::{Body, MassModel, SceneSet, Vec3, unit_cube};
use pbdfit_pbd::{Model, ModelKind, PbdSystem, SimParams};
use proptest::prelude::*;

fn free_body(n: usize) -> Body {
    let mesh = unit_cube(n).unwrap();
    let masses = MassModel::Lumped.masses(&mesh, 1.0);
    let nv = mesh.vertices().len();
    Body {
        scene: "free".into(),
        n,
        mesh,
        masses,
        mass_model: MassModel::Lumped,
        held: vec![false; nv],
        prescribed: vec![Vec3::zeros(); nv],
        forces: vec![Vec3::zeros(); nv],
        gravity: Vec3::zeros(),
        density: 1.0,
        obstacles: Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Projection of free particles conserves linear momentum: sum m_i dp_i = 0 for every constraint.
    #[test]
    fn projection_conserves_momentum(
        seed in proptest::collection::vec(-0.05f64..0.05, 81),
        kd in 0.0f64..=1.0, kv in 0.0f64..=1.0, xpbd in any::<bool>(),
    ) {
        let body = free_body(2);
        let sys = PbdSystem::new(&body);
        let mut d = sys.dynamics();
        for (p, u) in d.u.iter_mut().enumerate() {
            *u = Vec3::new(seed[p * 3 % 81], seed[(p * 3 + 1) % 81], seed[(p * 3 + 2) % 81]);
        }
        let model = if xpbd {
            Model::xpbd(kd * 1e-3, kv * 1e-3)
        } else {
            Model::pbd(kd, kv)
        };
        sys.step(&SimParams::new(0.01, 3, model), &mut d);
        let momentum: Vec3 = d.v.iter().zip(&body.masses).map(|(v, m)| v * *m).sum();
        let scale: f64 = d.v.iter().zip(&body.masses).map(|(v, m)| v.norm() * m).sum::<f64>().max(1e-300);
        // Round-off only: each correction cancels exactly in exact arithmetic.
        prop_assert!(momentum.norm() <= 1e-14 * scale.max(1.0), "momentum {:e} (scale {:e})", momentum.norm(), scale);
    }
}

/// Held vertices never move, however long the simulation runs.
#[test]
fn held_vertices_never_move() {
    for scene in ["gravity-floor", "gravity-wall", "gravity-ceiling"] {
        let body = SceneSet::builtin(scene).unwrap().scenes()[0].body(3).unwrap();
        let sys = PbdSystem::new(&body);
        let mut d = sys.dynamics();
        let params = SimParams::new(0.01, 2, Model::pbd(0.8, 0.8));
        for _ in 0..200 {
            sys.step(&params, &mut d);
        }
        let moved = d.u.iter().filter(|u| u.norm() > 0.0).count();
        assert!(moved > 0);
        for p in body.held_indices() {
            assert_eq!(d.u[p], Vec3::zeros(), "{scene}: held vertex {p} moved");
            assert_eq!(d.v[p], Vec3::zeros());
        }
    }
}

/// A colour group projected serially and on all threads gives bit-identical results, for every
/// registered projection model at its example (so a new rule is checked here by default: the
/// per-tetrahedron constraints of `xpbd-strain` run their own parallel pass).
#[test]
fn parallel_groups_are_bit_identical_to_serial() {
    let body = SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(6).unwrap();
    // The engine profiles have no colour groups (their own order: tests/pbd_tests/engines.rs).
    let examples = ModelKind::all()
        .iter()
        .filter(|k| k.has_projection() && !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
        .map(|k| k.example());
    for model in [Model::pbd(0.7, 0.9), Model::xpbd(1e-4, 1e-6)].into_iter().chain(examples) {
        let params = SimParams::new(0.01, 2, model);
        let run = |threshold| {
            let sys = PbdSystem::new(&body).with_parallel_threshold(threshold);
            let mut d = sys.dynamics();
            for _ in 0..100 {
                sys.step(&params, &mut d);
            }
            d.u
        };
        let serial = run(usize::MAX);
        let parallel = run(1);
        assert!(serial.iter().any(|u| u.norm() > 0.0));
        assert_eq!(serial, parallel, "{model:?}");
    }
}

/// The projection order for N = 1 (the reference library's greedy colouring).
#[test]
fn solve_order_for_n1() {
    let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(1).unwrap();
    let sys = PbdSystem::new(&body);
    let mut expected = vec![0, 5, 1, 4, 2, 3, 6, 9, 12, 15, 7, 10, 13, 16, 8, 11, 14, 17];
    expected.extend(18..23);
    assert_eq!(sys.solve_order(), expected);
    // Distances in six groups (0,5) (1,4) (2,3) (6,9,12,15) (7,10,13,16) (8,11,14,17), then one group per volume.
    assert_eq!(sys.group_count(), 11);
    assert!(sys.group_ranges()[6..].iter().all(|(d, v)| d.is_empty() && v.len() == 1));
}

/// Parallel runs on the same system from several threads give the same answer (the system is shared
/// read-only), the base of thread-count independent fits.
#[test]
fn rest_states_are_deterministic_across_threads() {
    let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(2).unwrap();
    let sys = PbdSystem::new(&body);
    let params: Vec<_> = (1..=8).map(|i| SimParams::new(0.01, 1, Model::pbd(0.1 * i as f64, 0.5))).collect();
    let serial: Vec<_> = params.iter().map(|p| sys.rest_state(p, &Default::default(), None).unwrap()).collect();
    let parallel: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> =
            params.iter().map(|p| s.spawn(|| sys.rest_state(p, &Default::default(), None).unwrap())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(serial, parallel);
}

/// `run_dynamics` (what `simulate --frames` writes) is the step loop: frames at step 0, every `every`
/// steps and the last, the final state bit for bit the one of stepping by hand; a frame's error stops it.
#[test]
fn run_dynamics_shows_the_frames_of_the_step_loop() {
    let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap();
    let system = pbdfit_pbd::PbdSystem::new(&body);
    let params = pbdfit_pbd::SimParams::new(0.01, 2, pbdfit_pbd::Model::pbd(0.5, 0.5));
    let mut shown = Vec::new();
    let last = system
        .run_dynamics(&params, 25, 10, |step, d| {
            shown.push((step, d.u[5]));
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(shown.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 10, 20, 25]);
    let mut d = system.dynamics();
    for _ in 0..25 {
        system.step(&params, &mut d);
    }
    assert_eq!(last.u, d.u);
    assert_eq!(last.v, d.v);
    assert_eq!(shown[3].1, d.u[5]);
    let stopped = system.run_dynamics(&params, 25, 10, |step, _| if step == 10 { Err(step) } else { Ok(()) });
    assert_eq!(stopped.unwrap_err(), 10);
}
