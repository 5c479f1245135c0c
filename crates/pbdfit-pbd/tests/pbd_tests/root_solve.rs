//! The rest state's fixed point solved as a root (Newton-Krylov, `RootSolve::NewtonKrylov`) against the
//! accelerated iteration (`RootSolve::Anderson`): the same rest state on a case of every model family, and
//! the same verdict where the fixed point repels.

use pbdfit_mesh::{SceneSet, SheetScene};
use pbdfit_pbd::{ModelKind, PbdError, PbdSystem, RestOptions, RestState, RootSolve, SimParams, Vec3};

fn solid(scene: &str, n: usize) -> PbdSystem {
    PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap())
}

fn sheet(scene: &str, n: usize) -> PbdSystem {
    let body = SheetScene::load(scene).unwrap().body(Some(n)).unwrap();
    PbdSystem::sheet_body(&body)
}

fn rest(system: &PbdSystem, params: &SimParams, root: RootSolve) -> Result<RestState, PbdError> {
    system.rest_state(params, &RestOptions { root, max_sweeps: 30_000, ..RestOptions::default() }, None)
}

/// `max |a - b| / max |b|` over the vertices.
fn relative(a: &[Vec3], b: &[Vec3]) -> f64 {
    let diff = a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max);
    diff / b.iter().map(|y| y.norm()).fold(0.0, f64::max)
}

/// On a textbook solid, every engine profile and every cloth model with a step (at their example points, dt = 0.01 s,
/// nit = 10) the root solve rests where the accelerated iteration does, to the tolerance's reach
/// (relative 1e-9: both solve to a residual of 1e-13, and the slowest modes amplify a residual by
/// `1 / (1 - |mu|)`). The isometric-bending cloth models' rest maps round at about 1e-11: the root solve
/// ends there converged (at the map's rounding), the accelerated iteration sits there unconverged until
/// its budget (here 30,000 sweeps) ends; for them the simulation released at the root solve's state must
/// stay there. Printed: the sweeps of each.
#[test]
fn the_root_solve_rests_where_the_accelerated_iteration_does() {
    let newton = ModelKind::NEWTON_XPBD.with_setting("relaxation", 0.3).unwrap();
    let wall = solid("gravity-wall", 2);
    let hanging = sheet("hanging-sheet", 6);
    let mut cases: Vec<(&PbdSystem, ModelKind)> =
        [ModelKind::PBD, ModelKind::XPBD, newton, ModelKind::JOLT, ModelKind::GENESIS_PBD].map(|k| (&wall, k)).to_vec();
    cases.extend(
        ModelKind::all()
            .iter()
            .filter(|k| k.name().starts_with("cloth-") && k.has_projection())
            .map(|&k| (&hanging, k)),
    );
    assert_eq!(cases.len(), 13);
    for (system, kind) in cases {
        let params = SimParams::new(0.01, 10, kind.example());
        let a = rest(system, &params, RootSolve::Anderson).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let b = rest(system, &params, RootSolve::NewtonKrylov).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let d = relative(&b.displacements, &a.displacements);
        println!(
            "{} {}: {} sweeps accelerated, {} root; residuals {:.1e} {:.1e}; difference {d:.1e}",
            system.scene(),
            kind.spec(),
            a.iterations,
            b.iterations,
            a.residual,
            b.residual
        );
        assert!(b.converged && b.residual <= 1e-10, "{kind}: residual {:e}", b.residual);
        if a.converged {
            assert!(d < 1e-9, "{kind}: the two rest states differ by {d:e}");
        } else {
            // The accelerated iteration ran out of budget at the map's rounding: the simulation, released
            // at the root solve's state, stays there.
            let d_run = system.run_dynamics_from(&params, Some(&b.displacements), 200, 200, |_, _| Ok::<(), ()>(()));
            let moved = relative(&d_run.unwrap().u, &b.displacements);
            println!("  released at the root solve's state, 200 steps move it by {moved:.1e}");
            assert!(moved < 1e-9, "{kind}: the simulation leaves the root solve's state by {moved:e}");
        }
    }
}

/// On the floor Newton's Jacobi step repels from its fixed point (tetrahedra in compression): the root
/// solve, which converges to a repelling fixed point as readily as to an attracting one, gives the very
/// verdict the accelerated iteration gives, never a rest state.
#[test]
fn a_repelling_fixed_point_gets_the_same_verdict() {
    let s = solid("gravity-floor", 4);
    let kind = ModelKind::NEWTON_XPBD.with_setting("relaxation", 0.3).unwrap();
    let lame = [1e3 / 2.6, 1e3 * 0.3 / (1.3 * 0.4)];
    let params = SimParams::new(0.01, 10, kind.with(&lame).unwrap());
    let a = rest(&s, &params, RootSolve::Anderson).unwrap_err();
    let b = rest(&s, &params, RootSolve::NewtonKrylov).unwrap_err();
    assert!(matches!(a, PbdError::Unstable { .. } | PbdError::Diverged { .. }), "{a}");
    assert_eq!(std::mem::discriminant(&a), std::mem::discriminant(&b), "{a} / {b}");
    if let (PbdError::Unstable { radius: ra, .. }, PbdError::Unstable { radius: rb, .. }) = (&a, &b) {
        assert!(*ra > 1.0 && *rb > 1.0, "{ra} {rb}");
    }
}

/// The gradient search's rest options (its sweep cap and collapse verdict).
fn search_options() -> RestOptions {
    RestOptions { max_sweeps: 200_000, collapse_verdict: true, ..RestOptions::default() }
}

/// Cloth models compute in positions, so their rest maps round at a position's last places amplified by
/// the projections: at stiff points of the hanging sheet (N = 4, dt = 0.01 s, nit = 10) a relative residual
/// of about 5e-10, which no solve lowers. The root solve measures that rounding and ends converged there in
/// a few hundred sweeps (before, each such point ran every solve and stepping to the search's 200,000 sweeps
/// and counted as one without a rest state); the simulation released at its state stays there. On the
/// clamped strip (N = 10, dt = 0.002 s) a point whose accelerated iteration converges slowly (a relative
/// residual of 4.6e-12 after 3,000 evaluations, never the tolerance) is solved by Newton in a few thousand
/// sweeps; a point whose simulation runs away keeps its divergence verdict.
#[test]
fn a_cloth_rest_state_at_its_maps_rounding_is_one() {
    let hanging = sheet("hanging-sheet", 4);
    let params = SimParams::new(0.01, 10, ModelKind::CLOTH_XPBD.with(&[1.58489e-9, 1.58489e-7]).unwrap());
    let r = hanging.rest_state(&params, &search_options(), None).unwrap();
    println!("hanging sheet, stiff point: residual {:.1e}, {} sweeps", r.residual, r.iterations);
    assert!(r.converged && r.residual > 1e-13 && r.residual < 1e-8, "residual {:e}", r.residual);
    assert!(r.iterations < 2_000, "{} sweeps", r.iterations);
    let run = hanging.run_dynamics_from(&params, Some(&r.displacements), 200, 200, |_, _| Ok::<(), ()>(()));
    let moved = relative(&run.unwrap().u, &r.displacements);
    println!("  released there, 200 steps move it by {moved:.1e}");
    assert!(moved < 1e-7, "the simulation leaves the rest state by {moved:e}");

    let strip = sheet("clamped-strip", 10);
    let slow = SimParams::new(0.002, 10, ModelKind::CLOTH_XPBD.with(&[0.0251189, 3.98107e-5]).unwrap());
    let r = strip.rest_state(&slow, &search_options(), None).unwrap();
    println!("clamped strip, slow point: residual {:.1e}, {} sweeps", r.residual, r.iterations);
    assert!(r.converged && r.residual < 1e-10, "residual {:e}", r.residual);
    assert!(r.iterations < 20_000, "{} sweeps", r.iterations);
    let run = strip.run_dynamics_from(&slow, Some(&r.displacements), 200, 200, |_, _| Ok::<(), ()>(()));
    let moved = relative(&run.unwrap().u, &r.displacements);
    println!("  released there, 200 steps move it by {moved:.1e}");
    assert!(moved < 1e-7, "the simulation leaves the rest state by {moved:e}");

    let soft = SimParams::new(0.002, 10, ModelKind::CLOTH_XPBD.with(&[6.30957, 2.51189]).unwrap());
    let e = strip.rest_state(&soft, &search_options(), None).unwrap_err();
    assert!(matches!(e, PbdError::Diverged { .. } | PbdError::OutOfReach { .. }), "{e}");
}

/// `jolt-cloth`'s stiff strip (N = 4, dt 1/60 s, nit 64: compliances 3.2e-9 m/N, bends 5.6e-9 m/N) rests
/// on a curved manifold of slow modes: the accelerated iteration's attempts spend their evaluations there
/// and stepping takes over (1,066,752 sweeps), past a fit's 200,000. Its default, the root solve with
/// each trial smoothed by 64 map evaluations, takes about 101,000 (a tenth) to the same rest state. Both
/// solve to a relative residual of 1e-13, which the slowest mode (`1 - |mu|` = 4.7e-5 at the rest state,
/// the root solve's Ritz values) amplifies by `1 / (1 - |mu|)` = 2.1e4: they may differ by 2e-9 in
/// relative L2, so 1e-8 is the bound (measured: 1.4e-11).
#[test]
fn jolt_cloths_stiff_strip_rests_by_the_root_solve_in_a_tenth_of_the_sweeps() {
    let strip = sheet("clamped-strip", 4);
    let kind = ModelKind::JOLT_CLOTH.with(&[3.16228e-9, 3.16228e-9, 5.62341e-9]).unwrap();
    let params = SimParams::new(1.0 / 60.0, 64, kind);
    let solve = |root| strip.rest_state(&params, &RestOptions { root, ..RestOptions::default() }, None).unwrap();
    let (stepped, root) = (solve(RootSolve::Anderson), solve(RootSolve::Auto));
    println!(
        "accelerated then {:?}: {} sweeps; root solve ({:?}): {} sweeps",
        stepped.method, stepped.iterations, root.method, root.iterations
    );
    assert!(stepped.converged && root.converged);
    assert_eq!(root.method, pbdfit_pbd::RestMethod::FixedPoint, "the root solve, not stepping, gave it");
    assert!(stepped.iterations > 1_000_000, "the accelerated iteration spent {} sweeps", stepped.iterations);
    assert!(root.iterations < 200_000, "the root solve spent {} sweeps", root.iterations);
    let squared = |v: &mut dyn Iterator<Item = Vec3>| v.map(|x| x.norm_squared()).sum::<f64>();
    let distance = squared(&mut root.displacements.iter().zip(&stepped.displacements).map(|(a, b)| a - b));
    let l2 = (distance / squared(&mut stepped.displacements.iter().copied())).sqrt();
    println!("relative L2 {l2:.2e}");
    assert!(l2 < 1e-8, "the root solve rests {l2:e} from stepping");
    // It sags: the strip bends, its rest state is not the flat start.
    assert!(stepped.displacements.iter().map(|u| -u.z).fold(0.0, f64::max) > 0.05);
}

/// A soft-stretch point of the hanging sheet (N = 4, alpha_d = 6.3 m/N: the sheet stretches beyond its own
/// size and keeps stretching) has no rest state for the gradient search. The root solve looks beyond the
/// body within its first Newton steps and asks the divergence probe there, whose run leaves four times the
/// body, so the point is given up in a fraction of the sweeps the accelerated attempts and stepping take
/// to call it out of reach (measured: 720 sweeps against 3,790; at N = 20
/// the root solve had pressed such points against its admissible bound for 330 to 1,230 evaluations
/// before the accelerated attempts and stepping gave it: 5,750 sweeps at this point, 1,190 now).
#[test]
fn a_cloth_point_out_of_reach_is_judged_as_soon_as_the_root_solve_looks_beyond_the_body() {
    let hanging = sheet("hanging-sheet", 4);
    let params = SimParams::new(0.01, 10, ModelKind::CLOTH_XPBD.with(&[6.30957, 2.51189]).unwrap());
    let verdict = |root| {
        let e = hanging.rest_state(&params, &RestOptions { root, ..search_options() }, None).unwrap_err();
        match e {
            PbdError::OutOfReach { sweeps, largest, extent, .. } => {
                assert!(largest > extent, "{largest} within {extent}");
                sweeps
            }
            // The root solve's probe: the run went beyond four times the body (a sheet that keeps
            // stretching), the divergence probe's verdict.
            PbdError::Diverged { sweeps, .. } if root == RootSolve::Auto => sweeps,
            other => panic!("{other}"),
        }
    };
    let (accelerated, root) = (verdict(RootSolve::Anderson), verdict(RootSolve::Auto));
    println!("out of reach after {accelerated} sweeps (accelerated, then stepping), {root} (root solve)");
    assert!(2 * root < accelerated, "root solve {root} sweeps, accelerated {accelerated}");
}

/// The cloth models' root solve, its GMRES preconditioned by the static tangent of their constraints
/// (`cloth/tangent.rs`), rests where the unpreconditioned one does (`RootSolve::Unpreconditioned`) to the
/// tolerance's reach (relative 1e-9, as the root solve against the accelerated iteration above), on the
/// hanging sheet and the clamped strip at N = 10 (cloth-xpbd, and cloth-pbd, whose tangent is the
/// compliance of the same fixed point), and in fewer sweeps in all: measured 11,390 against 19,440 (the
/// strip's stiff cloth-xpbd point 7,610 against 13,050, the hanging sheet's cloth-pbd at kd = kb = 0.1 510
/// against 1,430; points whose first 30 accelerated evaluations converge cost the same). Printed: the
/// sweeps of each.
#[test]
fn the_preconditioned_root_solve_rests_where_the_plain_one_does() {
    let hanging = sheet("hanging-sheet", 10);
    let strip = sheet("clamped-strip", 10);
    let cases = [
        (&hanging, 0.01, ModelKind::CLOTH_XPBD, [1e-6, 1e-2]),
        (&hanging, 0.01, ModelKind::CLOTH_XPBD, [1e-4, 1e-6]),
        (&hanging, 0.01, ModelKind::CLOTH_XPBD, [1e-10, 1e4]),
        (&hanging, 0.01, ModelKind::CLOTH_XPBD, [1e-2, 1e-4]),
        (&hanging, 0.01, ModelKind::CLOTH_PBD, [0.5, 0.5]),
        (&hanging, 0.01, ModelKind::CLOTH_PBD, [0.1, 0.1]),
        (&hanging, 0.01, ModelKind::CLOTH_PBD, [1.0, 1.0]),
        (&strip, 0.002, ModelKind::CLOTH_XPBD, [1e-6, 1e-4]),
        (&strip, 0.002, ModelKind::CLOTH_PBD, [0.5, 0.5]),
    ];
    let (mut plain, mut preconditioned) = (0, 0);
    for (system, dt, kind, p) in cases {
        let params = SimParams::new(dt, 10, kind.with(&p).unwrap());
        let options = |root| RestOptions { root, max_sweeps: 200_000, ..RestOptions::default() };
        let a = system.rest_state(&params, &options(RootSolve::Unpreconditioned), None).unwrap();
        let b = system.rest_state(&params, &options(RootSolve::NewtonKrylov), None).unwrap();
        let d = relative(&b.displacements, &a.displacements);
        println!(
            "{} {kind} {p:?}: {} sweeps plain, {} preconditioned; residuals {:.1e} {:.1e}; difference {d:.1e}",
            system.scene(),
            a.iterations,
            b.iterations,
            a.residual,
            b.residual
        );
        // Converged to the tolerance, or at the map's measured rounding (1e-10 relative here at most).
        assert!(a.converged && b.converged && b.residual <= 1e-9, "{kind} {p:?}: residual {:e}", b.residual);
        assert!(d < 1e-9, "{kind} {p:?}: the two rest states differ by {d:e}");
        plain += a.iterations;
        preconditioned += b.iterations;
    }
    println!("in all: {plain} sweeps plain, {preconditioned} preconditioned");
    assert!(4 * preconditioned < 3 * plain, "{preconditioned} sweeps against {plain}");
}

/// The solid engine profiles' root solve, its GMRES preconditioned by the static tangent of their
/// constraints (`engines/tangent.rs`), against the unpreconditioned one (`RootSolve::Unpreconditioned`)
/// and the accelerated iteration on gravity-wall (dt = 0.01 s, nit = 10, each profile's example point):
/// the same rest state to the tolerance's reach (relative 1e-9, as above), in fewer sweeps (map
/// evaluations times nit, the first 30 accelerated evaluations and the Jacobi engines' 80-step stability
/// check included) than the unpreconditioned solve. Measured (sweeps: accelerated, plain, preconditioned):
/// N = 2 newton-xpbd (relaxation 0.3) 2,690 / 2,270 / 1,480, jolt 670 / 750 / 480, genesis-pbd
/// 1,520 / 1,550 / 1,180; N = 4 jolt 710 / 800 / 550, genesis-pbd 2,070 / 2,200 / 1,220. Newton's point at
/// N = 4 repels (its spectral radius about 19): every solve refuses it (unstable; the preconditioned one's
/// stepping fallback diverges).
#[test]
fn the_engines_preconditioned_root_solve_rests_where_the_others_do_in_fewer_sweeps() {
    let newton = ModelKind::NEWTON_XPBD.with_setting("relaxation", 0.3).unwrap();
    for n in [2, 4] {
        let wall = solid("gravity-wall", n);
        for kind in [newton, ModelKind::JOLT, ModelKind::GENESIS_PBD] {
            let params = SimParams::new(0.01, 10, kind.example());
            let solve = |root| {
                wall.rest_state(&params, &RestOptions { root, max_sweeps: 200_000, ..RestOptions::default() }, None)
            };
            let (a, u, p) =
                (solve(RootSolve::Anderson), solve(RootSolve::Unpreconditioned), solve(RootSolve::NewtonKrylov));
            let show = |r: &Result<RestState, PbdError>| match r {
                Ok(r) => format!("{} sweeps ({:.1e})", r.iterations, r.residual),
                Err(e) => format!("{e}"),
            };
            println!(
                "N {n} {}: accelerated {}; plain {}; preconditioned {}",
                kind.spec(),
                show(&a),
                show(&u),
                show(&p)
            );
            if n == 4 && kind == newton {
                // No rest state by any solve: the accelerated and plain solves call the fixed point
                // unstable; the preconditioned solve hands a different iterate on, whose stepping
                // fallback diverges (measured: after 66,190 sweeps).
                for r in [&a, &u] {
                    assert!(matches!(r, Err(PbdError::Unstable { .. })), "{}", show(r));
                }
                assert!(matches!(p, Err(PbdError::Unstable { .. } | PbdError::Diverged { .. })), "{}", show(&p));
                continue;
            }
            let (a, u, p) = (a.unwrap(), u.unwrap(), p.unwrap());
            assert!(p.converged && p.residual <= 1e-10, "{kind}: residual {:e}", p.residual);
            for other in [&a, &u] {
                let d = relative(&p.displacements, &other.displacements);
                assert!(d < 1e-9, "N {n} {kind}: the rest states differ by {d:e}");
            }
            assert!(
                p.iterations < u.iterations,
                "N {n} {kind}: {} sweeps preconditioned, {} plain",
                p.iterations,
                u.iterations
            );
        }
    }
}
