//! The optimiser on known minima, and fits that recover known parameters.

use std::sync::Arc;

use argmin::core::{CostFunction, Error, Executor, State};
use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOptions, FitProblem, PartCache, PatternSearch, SearchBox, Settings, fit_cpu};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{ModelKind, RestOptions};

struct Quadratic {
    centre: [f64; 2],
    weights: [f64; 2],
}

impl CostFunction for Quadratic {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        Ok(self.weights[0] * (x[0] - self.centre[0]).powi(2) + self.weights[1] * (x[1] - self.centre[1]).powi(2))
    }
}

fn search(centre: [f64; 2], start: [f64; 2]) -> Vec<f64> {
    let problem = Quadratic { centre, weights: [1.0, 3.0] };
    let result = Executor::new(problem, PatternSearch::new(vec![0.0, 0.0], vec![1.0, 1.0], 0.05, 1e-7).unwrap())
        .configure(|s| s.param(start.to_vec()))
        .run()
        .unwrap();
    result.state.get_best_param().unwrap().clone()
}

/// Known minima inside the square, on its edges (minimum outside the box) and in a corner.
#[test]
fn pattern_search_finds_known_minima() {
    for (centre, expected) in [
        ([0.3, 0.7], [0.3, 0.7]),
        ([0.123, 0.987], [0.123, 0.987]),
        ([1.4, 0.25], [1.0, 0.25]),
        ([0.6, -0.3], [0.6, 0.0]),
        ([-1.0, 2.0], [0.0, 1.0]),
    ] {
        let x = search(centre, [0.5, 0.5]);
        assert!(
            (x[0] - expected[0]).abs() < 1e-6 && (x[1] - expected[1]).abs() < 1e-6,
            "centre {centre:?}: found {x:?}, expected {expected:?}"
        );
    }
}

/// The step shrinks by the golden ratio and the poll is complete: on a separable bowl from the centre,
/// the first move goes along the axis with the larger decrease (kv, weight 3), not the first improving
/// direction tried (+kd).
#[test]
fn poll_is_complete_before_moving() {
    let problem = Quadratic { centre: [0.9, 0.9], weights: [1.0, 3.0] };
    let result = Executor::new(problem, PatternSearch::new(vec![0.0, 0.0], vec![1.0, 1.0], 0.1, 1e-3).unwrap())
        .configure(|s| s.param(vec![0.5, 0.5]))
        .run()
        .unwrap();
    let history = result.solver.history();
    assert_eq!(history[0].x, [0.5, 0.5]);
    assert_eq!(history[1].x, [0.5, 0.6]);
    let steps: Vec<f64> = history.iter().map(|h| h.step).collect();
    assert!(steps.windows(2).all(|w| w[1] == w[0] || (w[0] / w[1] - pbdfit_fit::GOLDEN_RATIO).abs() < 1e-12));
}

/// A problem whose reference is the model's own rest state at `values` (a known minimum of error 0).
fn model_reference_problem(scene: &str, n: usize, nit: usize, kind: ModelKind, values: &[f64]) -> FitProblem {
    reference_problem_at(scene, Settings::new(0.01, n, nit, kind), values)
}

/// [`model_reference_problem`] at any settings (time step included).
fn reference_problem_at(scene: &str, settings: Settings, values: &[f64]) -> FitProblem {
    let set = SceneSet::builtin(scene).unwrap();
    let mut problem =
        FitProblem::new(&set, settings, YoungPoisson::new(1e3, 0.3).unwrap(), &PartCache::default()).unwrap();
    for part in &mut problem.parts {
        let rest = part.system.rest_state(&settings.at(values), &RestOptions::default(), None).unwrap();
        let moved = pbdfit_fit::moved_vertices(&rest.displacements, &part.system.held_mask());
        let target = pbdfit_fit::FemTarget { reference: rest.displacements, moved, id: part.target.describe() };
        part.target = std::sync::Arc::new(target);
    }
    problem
}

fn pbd_reference_problem(scene: &str, n: usize, kd: f64, kv: f64) -> FitProblem {
    model_reference_problem(scene, n, 1, ModelKind::PBD, &[kd, kv])
}

fn options(kind: ModelKind) -> FitOptions {
    FitOptions::new(SearchBox::default_for(kind))
}

/// Fitting PBD to a reference made by PBD itself recovers the parameters that made it.
///
/// The error surface is ill-conditioned (Hessian condition number 300 to 2400 at these points: kv moves
/// the rest state far less than kd), so compass search with the thesis's stopping step 1e-4 halts up to
/// ~6e-3 away in kv with error ~1e-7 (see the next test). With a stopping step of 1e-6 it reaches the
/// minimum: parameters to 1e-3 (in fact ~1e-5) and error below 1e-8 (in fact ~1e-11).
#[test]
fn fit_recovers_known_parameters() {
    for (scene, n, kd, kv) in
        [("gravity-wall", 1, 0.37, 0.81), ("gravity", 1, 0.62, 0.23), ("gravity-floor", 2, 0.44, 0.66)]
    {
        let problem = pbd_reference_problem(scene, n, kd, kv);
        let r = fit_cpu(&problem, &FitOptions { min_step: 1e-6, ..options(ModelKind::PBD) }).unwrap();
        let (fkd, fkv) = (r.value("kd").unwrap(), r.value("kv").unwrap());
        println!("{scene}: kd {fkd} kv {fkv} error {:e} evaluations {}", r.error, r.evaluations);
        assert!((fkd - kd).abs() < 1e-3 && (fkv - kv).abs() < 1e-3, "{scene}: fitted ({fkd}, {fkv}) for ({kd}, {kv})");
        assert!(r.error < 1e-8, "{scene}: error {:e}", r.error);
        assert!(r.at_bound.is_empty(), "{scene}: {:?}", r.at_bound);
        // kd = 0 has no rest state: those grid points are reported (with their typed reason), not fatal.
        let at_zero = r.failures.iter().filter(|f| f.parameters[0] == 0.0).count();
        assert!(at_zero >= 1, "{scene}: {:?}", r.failure_summary());
        assert!(matches!(r.failures[0].reason, pbdfit_pbd::PbdError::Diverged { .. }), "{:?}", r.failures[0]);
    }
}

/// A fit keeps the rest states it scored at its optimum (what `--vtk` writes): their error is the fit's
/// error bit for bit, for both searches, a compound scene and a mass-spring model.
#[test]
fn the_fit_keeps_the_rest_states_it_scored() {
    for (scene, kind, values, search) in [
        ("gravity", ModelKind::PBD, vec![0.62, 0.23], pbdfit_fit::Search::Pattern),
        ("gravity-wall", ModelKind::PBD, vec![0.37, 0.81], pbdfit_fit::Search::Gradient),
        ("gravity-floor", ModelKind::MASS_SPRING_VOLUME, vec![200.0, 3e3], pbdfit_fit::Search::Gradient),
    ] {
        let problem = model_reference_problem(scene, 1, 1, kind, &values);
        let r = fit_cpu(&problem, &FitOptions { search, ..options(kind) }).unwrap();
        assert_eq!(r.rest_states.len(), problem.parts.len(), "{scene}");
        let rest: Vec<pbdfit_fit::RestResult> = r.rest_states.iter().map(|u| Ok(u.clone())).collect();
        let again = problem.error_from(&rest);
        assert_eq!(again.error.to_bits(), r.error.to_bits(), "{scene} {kind}: {} vs {}", again.error, r.error);
        let parts: Vec<f64> = r.part_errors.iter().map(|p| p.1).collect();
        assert_eq!(again.part_errors, parts, "{scene} {kind}");
    }
}

/// A mass-spring fit's minimum has a rest state as simulate solves it (Newton from the undeformed body).
/// On gravity-wall N = 1 (E 1e3 Pa, nu 0.49) the pattern search, warm-starting each point from its nearest
/// neighbour, climbs the volume penalty to its bound, ks = 318.01 N/m, kvol = 1e10 Pa (error 0.02372),
/// where the warm Newton stalls within the forces' round-off (about 1e-8 of a node's weight at that
/// penalty) but the cold one ends at a relative residual of 1.06 after 100 iterations; the fit gives the
/// best earlier point of its path that rests cold, and says so.
#[test]
fn a_mass_spring_fit_minimum_rests_when_solved_cold() {
    let kind = ModelKind::MASS_SPRING_VOLUME;
    let set = SceneSet::builtin("gravity-wall").unwrap();
    let material = YoungPoisson::new(1e3, 0.49).unwrap();
    let problem = FitProblem::new(&set, Settings::new(0.01, 1, 1, kind), material, &PartCache::default()).unwrap();
    let r = fit_cpu(&problem, &FitOptions { search: pbdfit_fit::Search::Pattern, ..options(kind) }).unwrap();
    let values: Vec<f64> = r.parameters.iter().map(|p| p.1).collect();
    let cold = problem.evaluate(&values, None);
    println!("{:?} error {} moved {:?}", r.parameters, r.error, r.moved);
    assert!(cold.failure.is_none(), "{:?}: {:?}", r.parameters, cold.failure);
    assert_eq!(cold.error.to_bits(), r.error.to_bits(), "{} vs {}", cold.error, r.error);
    assert!(r.moved.as_deref().is_some_and(|m| m.contains("ks = 318.014, kvol = 1e10")), "{:?}", r.moved);
}

/// With the thesis's stopping step the search stops early in the valley but close: error below 1e-6 and
/// kd (the well-determined parameter) within 1e-3.
#[test]
fn default_stopping_step_stops_in_the_valley() {
    for (scene, kd, kv) in [("gravity-wall", 0.37, 0.81), ("gravity-ceiling", 0.5, 0.5)] {
        let r = fit_cpu(&pbd_reference_problem(scene, 1, kd, kv), &options(ModelKind::PBD)).unwrap();
        let (fkd, fkv) = (r.value("kd").unwrap(), r.value("kv").unwrap());
        assert!(r.error < 1e-6 && (fkd - kd).abs() < 1e-3 && (fkv - kv).abs() < 1e-2, "{scene}: {r:?}");
    }
}

/// The same known-minimum recovery under tractions: the nodal forces reach the fitted model the same way
/// as the reference made from it. (Torsion is left out: with a prescribed displacement as the only load the
/// rest state barely depends on the stiffness's scale, so (kd, kv) is not identifiable there.)
#[test]
fn fit_recovers_known_parameters_under_tractions() {
    for (scene, n, kd, kv) in [("tension", 1, 0.37, 0.81), ("shear", 2, 0.44, 0.66), ("compression", 1, 0.62, 0.23)] {
        let problem = pbd_reference_problem(scene, n, kd, kv);
        let r = fit_cpu(&problem, &FitOptions { min_step: 1e-6, ..options(ModelKind::PBD) }).unwrap();
        let (fkd, fkv) = (r.value("kd").unwrap(), r.value("kv").unwrap());
        assert!((fkd - kd).abs() < 1e-3 && (fkv - kv).abs() < 1e-3, "{scene}: fitted ({fkd}, {fkv}) for ({kd}, {kv})");
        assert!(r.error < 1e-8, "{scene}: error {:e}", r.error);
    }
}

/// Fits are bit-identical whatever the number of threads.
#[test]
fn fits_do_not_depend_on_the_thread_count() {
    let set = SceneSet::builtin("gravity").unwrap();
    let settings = Settings::new(0.01, 1, 1, ModelKind::PBD);
    let material = YoungPoisson::new(1e3, 0.25).unwrap();
    let problem = Arc::new(FitProblem::new(&set, settings, material, &PartCache::default()).unwrap());
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut r = pool.install(|| fit_cpu(&problem, &options(ModelKind::PBD)).unwrap());
        r.seconds = 0.0;
        r
    };
    assert_eq!(run(1), run(2));
}

/// One to four dimensions: the compass search finds a known minimum of a bowl in each, inside the box and
/// on its edge.
#[test]
fn pattern_search_works_in_one_to_four_dimensions() {
    struct Bowl(Vec<f64>);
    impl CostFunction for Bowl {
        type Param = Vec<f64>;
        type Output = f64;
        fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
            Ok(x.iter().zip(&self.0).enumerate().map(|(i, (a, b))| (i + 1) as f64 * (a - b).powi(2)).sum())
        }
    }
    for centre in [vec![0.31], vec![0.2, 0.9], vec![0.7, 0.1, 1.3], vec![0.25, 0.5, 0.75, -0.5]] {
        let d = centre.len();
        let search = PatternSearch::new(vec![0.0; d], vec![1.0; d], 0.1, 1e-8).unwrap();
        let result = Executor::new(Bowl(centre.clone()), search).configure(|s| s.param(vec![0.5; d])).run().unwrap();
        let x = result.state.get_best_param().unwrap();
        for (i, c) in centre.iter().enumerate() {
            assert!((x[i] - c.clamp(0.0, 1.0)).abs() < 1e-6, "{centre:?}: {x:?}");
        }
    }
    assert!(PatternSearch::new(vec![0.0; 5], vec![1.0; 5], 0.1, 1e-4).is_err());
    assert!(PatternSearch::new(vec![0.0], vec![1.0], -0.1, 1e-4).is_err());
    assert!(PatternSearch::new(vec![0.0, 0.5], vec![1.0, 0.5], 0.1, 1e-4).is_err());
}

/// XPBD compliances are fitted on a log10 box: fitting XPBD to its own rest state recovers the
/// compliances (to 1 % in alpha_d; alpha_v is weakly identified, as kv is for PBD), with error ~0; a box
/// that leaves the minimum outside reports the parameter at its edge.
#[test]
fn xpbd_fit_recovers_compliances_on_a_log_box() {
    let (alpha_d, alpha_v) = (3e-4, 2e-5);
    let problem = model_reference_problem("gravity-wall", 1, 4, ModelKind::XPBD, &[alpha_d, alpha_v]);
    let r = fit_cpu(&problem, &FitOptions { min_step: 1e-6, ..options(ModelKind::XPBD) }).unwrap();
    let (fd, fv) = (r.value("alpha_d").unwrap(), r.value("alpha_v").unwrap());
    println!("alpha_d {fd:e} alpha_v {fv:e} error {:e} evaluations {}", r.error, r.evaluations);
    assert!((fd / alpha_d - 1.0).abs() < 1e-2, "alpha_d {fd:e} for {alpha_d:e}");
    assert!((fv / alpha_v).log10().abs() < 0.3, "alpha_v {fv:e} for {alpha_v:e}");
    assert!(r.error < 1e-8, "error {:e}", r.error);
    assert!(r.at_bound.is_empty());
    let narrow = SearchBox::default_for(ModelKind::XPBD).with_overrides(&["alpha_d=1e-3:1e-1"]).unwrap();
    let r = fit_cpu(&problem, &FitOptions::new(narrow)).unwrap();
    assert!(r.at_bound.contains(&"alpha_d"), "{:?}", r.at_bound);
    assert_eq!(r.value("alpha_d"), Some(1e-3));
}

/// The error leaves out the vertices a load prescribes: in the torsion scene the turned top face moves
/// in the reference, but by the load, not by the material.
#[test]
fn prescribed_vertices_are_not_in_the_error() {
    let set = SceneSet::builtin("torsion").unwrap();
    let settings = Settings::new(0.01, 2, 1, ModelKind::PBD);
    let problem = FitProblem::new(&set, settings, YoungPoisson::new(1e3, 0.3).unwrap(), &PartCache::default()).unwrap();
    let part = &problem.parts[0];
    let held = part.system.held_mask();
    assert_eq!(held.iter().filter(|&&h| h).count(), 18, "bottom and top faces of the N = 2 cube");
    let (_, moved) = part.target.field().expect("an FEM target");
    assert!(moved.iter().all(|&v| !held[v]));
    // Exactly the middle layer y = 0.5 (index i + 3 (j + 3 k) with j = 1); its centre moves too, a little,
    // because the five-tetrahedron split is not symmetric under a quarter turn.
    assert_eq!(moved.to_vec(), vec![3, 4, 5, 12, 13, 14, 21, 22, 23]);
}

/// A gradient fit whose minimum lies beside the corner kd = kv = 0 (no rest state: nothing holds the body
/// up) recovers the parameters that made its reference. Its Levenberg-Marquardt steps overshoot into
/// points without a rest state; each such trial is followed by one halfway back along the same step.
/// Here that spends 4 such points (3 on the corner); raising the damping alone spent 8, and on
/// gravity-floor at N = 4 kept the clamped trial on the corner eight times in a row (README, Benchmarks).
#[test]
fn a_gradient_fit_beside_a_corner_without_rest_state_backtracks() {
    let (kd, kv) = (0.004, 0.002);
    let problem = reference_problem_at("gravity-floor", Settings::new(0.001, 1, 32, ModelKind::PBD), &[kd, kv]);
    let mut options = options(ModelKind::PBD);
    options.use_search(pbdfit_fit::Search::Gradient);
    let result = fit_cpu(&problem, &options).unwrap();
    let corner = result.failures.iter().filter(|f| f.parameters.iter().all(|&p| p == 0.0)).count();
    println!(
        "{:?} error {:e}, {} evaluations, {} without rest state ({corner} on the corner)",
        result.parameters,
        result.error,
        result.evaluations,
        result.failures.len()
    );
    assert!(result.error < 1e-10, "error {:e}", result.error);
    assert!((result.parameters[0].1 - kd).abs() < 1e-5 && (result.parameters[1].1 - kv).abs() < 1e-5);
    assert!(result.failures.len() <= 5, "{} points without rest state", result.failures.len());
}

/// Where GMRES on the fixed point's linearisation stalls, a descent linearises by differences of rest
/// states instead of ending where it starts. On the cantilever mesh at dt = 0.001, nit = 8 (neo-Hookean
/// FEM, E = 1e4 Pa, nu = 0.35) both starts' solves stalled (2.7e-6 against the 1e-6 asked, at kd = 0.1,
/// kv = 0.9 and at kd = 0.112, kv = 0), and the fit returned its best grid point, kd = 0.1, kv = 0.9,
/// error 0.244, while the pattern search found 0.0480 at kd = 0.1545, kv = 0.2504. Now the gradient fit
/// is at least as low as the pattern search's (to 1e-5) and both its starts reach it.
#[test]
fn a_stalled_sensitivity_falls_back_to_differences() {
    let set = SceneSet::builtin("cantilever").unwrap();
    let settings = Settings::new(0.001, 1, 8, ModelKind::PBD);
    let overrides = pbdfit_mesh::ReferenceOptions { material: Some("neo-hookean".into()), ..Default::default() };
    let problem =
        FitProblem::new(&set, settings, YoungPoisson::new(1e4, 0.35).unwrap(), &PartCache::new(overrides)).unwrap();
    let mut options = options(ModelKind::PBD);
    options.use_search(pbdfit_fit::Search::Gradient);
    let result = fit_cpu(&problem, &options).unwrap();
    let (kd, kv) = (result.parameters[0].1, result.parameters[1].1);
    println!("kd {kd}, kv {kv}, error {:e}, starts {:?}", result.error, result.starts);
    assert!(result.error <= 0.0479728 * (1.0 + 1e-5), "error {:e}", result.error);
    assert!((kd - 0.1545).abs() < 2e-3 && (kv - 0.25).abs() < 2e-2, "kd {kd}, kv {kv}");
    assert_eq!(result.starts, (2, 2), "both starts reach the minimum");
}

/// Jolt reads the order a program creates its edges in: at a parameter point of the wall (N = 2, dt 1/30,
/// 2 substeps) the other orders (sorted pairs, four seeded shuffles) move the rest state by more than 1e-3
/// in relative L2 (Jolt itself: 1.2e-2 sorted, `benchmarks/engines/results/jolt_order.txt`), the spread is
/// the same numbers every time (fixed seeds), and a model whose engine reads no order has none.
#[test]
fn jolt_order_spread_is_deterministic() {
    let set = SceneSet::builtin("gravity-wall").unwrap();
    let material = YoungPoisson::new(1e3, 0.3).unwrap();
    let settings = Settings::new(1.0 / 30.0, 2, 2, ModelKind::JOLT);
    let problem = FitProblem::new(&set, settings, material, &PartCache::default()).unwrap();
    let values = [3e-2, 3.6e-4];
    let fitted = problem.evaluate(&values, None).error;
    let a = pbdfit_fit::order_spread(&problem, &values, fitted).unwrap();
    let b = pbdfit_fit::order_spread(&problem, &values, fitted).unwrap();
    assert_eq!(a, b);
    let names: Vec<&str> = a.others.iter().map(|o| o.order.as_str()).collect();
    assert_eq!(names, ["sorted", "shuffled (seed 1)", "shuffled (seed 2)", "shuffled (seed 3)", "shuffled (seed 4)"]);
    assert!(a.others.iter().all(|o| o.moved.is_some_and(|m| m > 1e-3)), "{a:?}");
    assert_eq!(a.largest_move, a.others.iter().filter_map(|o| o.moved).fold(0.0, f64::max));
    let xpbd = Settings::new(1.0 / 30.0, 2, 2, ModelKind::XPBD);
    let problem = FitProblem::new(&set, xpbd, material, &PartCache::default()).unwrap();
    assert!(pbdfit_fit::order_spread(&problem, &[1e-3, 1e-5], 0.1).is_none());
}

/// The mass-spring cloth fitted to a rest state it made itself on the hanging sheet (`--n 4`) recovers the
/// three spring constants that made it (its gradient search, on the Newton tangent's sensitivities): the
/// bending springs, two apart along rows and columns, act in the sheet's plane too, so all three are
/// identifiable on a sheet hanging in its plane.
#[test]
fn mass_spring_cloth_fit_recovers_its_own_constants() {
    let body = pbdfit_mesh::SheetScene::load("hanging-sheet").unwrap().body(Some(4)).unwrap();
    let system = Arc::new(pbdfit_pbd::PbdSystem::sheet_body(&body));
    let kind = ModelKind::CLOTH_MASS_SPRING;
    let values = [1e3, 3e2, 1e2];
    let settings = Settings::new(0.01, 4, 1, kind);
    let rest = system.rest_state(&settings.at(&values), &RestOptions::default(), None).unwrap();
    let moved = pbdfit_fit::moved_vertices(&rest.displacements, &system.held_mask());
    let target = pbdfit_fit::FemTarget { reference: rest.displacements, moved, id: "own rest state".into() };
    let problem = FitProblem {
        scene: body.scene.clone(),
        compound: false,
        parts: vec![pbdfit_fit::Part { scene: body.scene.clone(), system, target: Arc::new(target) }],
        settings,
        reference: "own rest state".into(),
        rest_options: RestOptions::default(),
    };
    let r = fit_cpu(&problem, &FitOptions { search: pbdfit_fit::Search::Gradient, ..options(kind) }).unwrap();
    let fitted: Vec<f64> = ["ks_stretch", "ks_shear", "ks_bend"].iter().map(|n| r.value(n).unwrap()).collect();
    println!("fitted {fitted:?} for {values:?}: error {:e}, {} evaluations", r.error, r.evaluations);
    for (f, v) in fitted.iter().zip(values) {
        assert!((f / v - 1.0).abs() < 1e-3, "fitted {fitted:?} for {values:?}");
    }
    assert!(r.error < 1e-10, "error {:e}", r.error);
}
