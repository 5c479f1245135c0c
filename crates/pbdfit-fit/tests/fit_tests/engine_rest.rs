//! An engine profile's fit answers with the rest state the engine reaches by stepping from the scene's start
//! (`pbdfit_fit::check_by_stepping`, docs/engines.md, "Which rest state an engine's fit answers with").

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{
    FitOptions, FitResult, REFIT_MAX_EVALUATIONS, RefitBudget, SAME_STATE, SearchBox, Settings, ShellReference,
    check_by_stepping, rest_distance, sheet_problem, stepping_problem,
};
use pbdfit_mesh::{SheetScene, Vec3};
use pbdfit_pbd::ModelKind;

/// The sheets' default reference.
const COROTATIONAL: ShellReference = ShellReference::Corotational(pbdfit_fem::shell::MembraneLaw::Linear);

/// Jolt's committed rest state of the imported plate at point S (`jolt_cloth.py --cases mesh --rest stepping`).
const JOLT_CLOTH_MESH_REST: &str = include_str!("../../../../benchmarks/engines/results/jolt_cloth_mesh_rest.txt");

/// The plate's first case of the fixture: Jolt's displacements, the density, dt, nit and the point.
fn jolt_plate() -> (Vec<Vec3>, f64, f64, usize, [f64; 3]) {
    let mut lines = JOLT_CLOTH_MESH_REST.lines().filter(|l| !l.starts_with('#'));
    let f: Vec<String> = lines.next().unwrap().split_whitespace().map(str::to_string).collect();
    let number = |i: usize| f[i].parse::<f64>().unwrap();
    let vertices: usize = f[10].parse().unwrap();
    let jolt = (0..vertices)
        .map(|_| {
            let v: Vec<f64> = lines.next().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
            Vec3::new(v[0], v[1], v[2])
        })
        .collect();
    (jolt, number(9), number(3), f[4].parse().unwrap(), [number(5), number(6), number(7)])
}

fn relative(a: &[Vec3], b: &[Vec3]) -> f64 {
    rest_distance(&[std::sync::Arc::new(a.to_vec())], &[std::sync::Arc::new(b.to_vec())])
}

/// A fit result at `values` from `evaluation` (what a search hands the check).
fn result_at(kind: ModelKind, values: &[f64], e: pbdfit_fit::Evaluation) -> FitResult {
    let names = kind.parameters().iter().map(|p| p.name).collect::<Vec<_>>();
    FitResult {
        parameters: names.into_iter().zip(values.iter().copied()).collect(),
        at_bound: Vec::new(),
        error: e.error,
        part_errors: vec![("plate".into(), e.error)],
        rest_states: e.rest,
        evaluations: 1,
        failures: Vec::new(),
        history: Vec::new(),
        identifiability: None,
        confidence: None,
        seconds: 0.0,
        search: pbdfit_fit::Search::Pattern,
        starts: (1, 1),
        stopped: None,
        moved: None,
        engine_rest: None,
    }
}

/// On the imported plate at Jolt's point S, `jolt-cloth`'s fixed point and the state stepping from the flat plate
/// reaches are two rest states 1.5e-2 apart; the stepped evaluation (`stepping_problem`, what the check and the
/// refit use) is Jolt's own within 1e-4 (measured 9.8e-6) and the fixed point's is not (1.5e-2); against the steel
/// plate's shell their errors are 7.2229e3 and 7.2116e3, more than 1e-3 apart.
#[test]
fn a_jolt_cloth_evaluation_on_the_plate_steps_to_the_state_jolt_reaches() {
    let (jolt, density, dt, nit, point) = jolt_plate();
    let scene = SheetScene::load("../../scenes/plate-mesh.toml").unwrap().with_body(Some(density), None, None).unwrap();
    let body = scene.body(Some(1)).unwrap();
    let kind = ModelKind::JOLT_CLOTH;
    let material = YoungPoisson::new(scene.young.unwrap_or(2e11), scene.poisson.unwrap_or(0.3)).unwrap();
    let problem = sheet_problem(&body, Settings::new(dt, 1, nit, kind), material, COROTATIONAL).unwrap();
    let fixed = problem.evaluate(&point, None);
    let stepped = stepping_problem(&problem, None).evaluate(&point, None);
    assert!(fixed.failure.is_none() && stepped.failure.is_none());
    let (to_jolt, fixed_to_jolt) = (relative(&stepped.rest[0], &jolt), relative(&fixed.rest[0], &jolt));
    let apart = rest_distance(&fixed.rest, &stepped.rest);
    println!(
        "plate S: stepped {to_jolt:.2e} from Jolt, fixed point {fixed_to_jolt:.2e}; apart {apart:.2e}; errors {:.6e} \
         (stepped) and {:.6e} (fixed point)",
        stepped.error, fixed.error
    );
    assert!(to_jolt < 1e-4, "the stepped evaluation is {to_jolt:e} from Jolt");
    assert!(fixed_to_jolt > 1e-3 && apart > 1e3 * SAME_STATE, "one rest state, not two: {fixed_to_jolt:e}, {apart:e}");
    assert!((stepped.error / fixed.error - 1.0).abs() > 1e-3, "{} {}", stepped.error, fixed.error);
}

/// The check on the hanging sheet, where `jolt-cloth` has one rest state: the fit's answer stands (parameters and
/// error unchanged), its report says the state is the one stepping reaches, the fixed point's within
/// [`SAME_STATE`]; a textbook model's result is not touched (no `engine_rest`, no rest state computed).
#[test]
fn the_check_keeps_an_answer_whose_fixed_point_is_the_stepped_state_and_ignores_textbook_models() {
    let scene = SheetScene::load("hanging-sheet").unwrap();
    let body = scene.body(Some(2)).unwrap();
    let material = YoungPoisson::new(scene.young.unwrap_or(2e6), scene.poisson.unwrap_or(0.3)).unwrap();
    let kind = ModelKind::JOLT_CLOTH;
    let settings = Settings::new(1.0 / 30.0, 2, 2, kind);
    let problem = sheet_problem(&body, settings, material, COROTATIONAL).unwrap();
    let values = [1e-3, 1e-3, 1e-2];
    let result = result_at(kind, &values, problem.evaluate(&values, None));
    let error = result.error;
    let search_box = FitOptions::new(SearchBox::default_for(kind)).search_box;
    let checked = check_by_stepping(&problem, &search_box, 0.1, RefitBudget::unlimited(), result).unwrap();
    let rest = checked.engine_rest.as_ref().expect("an engine profile's result says its rest state");
    println!("{}", rest.line());
    assert_eq!(rest.reached_by, "stepping from the start");
    assert!(rest.fixed_point_distance.unwrap() <= SAME_STATE && rest.fixed_point_fit.is_none());
    assert_eq!((checked.error, checked.parameters[0].1), (error, values[0]));
    // A fit whose time limit has passed is not checked: its answer stands, said to be the fixed point's.
    let late = RefitBudget { deadline: Some(std::time::Instant::now()), evaluations: REFIT_MAX_EVALUATIONS };
    let result = result_at(kind, &values, problem.evaluate(&values, None));
    let unchecked = check_by_stepping(&problem, &search_box, 0.1, late, result).unwrap();
    let rest = unchecked.engine_rest.as_ref().unwrap();
    println!("{}", rest.line());
    assert_eq!(rest.reached_by, "fixed point (not checked by stepping)");
    assert_eq!(rest.note.as_deref(), Some("the fit's time limit (--max-seconds) had passed before the check"));
    assert_eq!(rest.stepped_evaluations, 0);
    assert_eq!((unchecked.error, unchecked.parameters[0].1), (error, values[0]));
    let textbook = ModelKind::CLOTH_XPBD;
    let problem = sheet_problem(&body, Settings::new(0.01, 2, 10, textbook), material, COROTATIONAL).unwrap();
    let values = textbook.example().values().to_vec();
    let values = values.as_slice();
    let result = result_at(textbook, values, problem.evaluate(values, None));
    let search_box = SearchBox::default_for(textbook);
    let unchanged = check_by_stepping(&problem, &search_box, 0.1, RefitBudget::unlimited(), result.clone()).unwrap();
    assert_eq!(unchanged, result);
}
