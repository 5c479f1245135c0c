//! Non-finite physics exited 0. `density = 1e308` gave NaN displacements printed as
//! "max |u| 0", gravity 1e300 "max |u| inf m". Now a body's masses, their inverses and its total weight
//! are finite or the scene names the key, and a reference's displacements (with their lengths) are
//! finite or the solve fails with `FemError::NotFinite`. Item 7 (a dynamic run with no end) below.

use pbdfit_fem::{FemError, ReferenceSpec, StaticProblem, YoungPoisson};
use pbdfit_mesh::SceneSet;
use proptest::prelude::*;

fn scene(density: f64, gravity: f64) -> String {
    format!(
        "name = \"s\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n[material]\ndensity = {density:e}\n\
         [load]\ngravity = [0, {gravity:e}, 0]\n"
    )
}

/// The linear static reference's displacements, or the error that stopped them (scene or FEM).
fn solve(density: f64, gravity: f64, young: f64) -> Result<Vec<pbdfit_mesh::Vec3>, String> {
    let set = SceneSet::parse(&scene(density, gravity), "s.toml", None).map_err(|e| e.to_string())?;
    let body = set.scenes()[0].body(2).map_err(|e| e.to_string())?;
    let problem = StaticProblem::new(&body).map_err(|e| format!("problem: {e}"))?;
    let material = YoungPoisson::new(young, 0.3).unwrap();
    ReferenceSpec::default().displacements(&problem, material, 0.01).map_err(|e| match e {
        FemError::NotFinite { .. } => e.to_string(),
        other => format!("unexpected: {other}"),
    })
}

#[test]
fn overflowing_inputs_name_their_key_and_overflowing_solutions_are_errors() {
    let e = solve(1e308, -9.81, 1e3).unwrap_err();
    assert!(e.contains("load.gravity") && e.contains("material.density = 1e308"), "{e}");
    let e = solve(1e-320, -9.81, 1e3).unwrap_err();
    assert!(e.contains("material.density") && e.contains("inverse"), "{e}");
    let e = solve(1.0, -1e300, 1e3).unwrap_err();
    assert!(e.contains("not finite") && e.contains("load.gravity"), "{e}");
    assert!(solve(1.0, -9.81, 1e3).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Density, gravity and E anywhere in f64's range: displacements whose every length is finite, or
    /// an error naming the key (scene) or saying the solution is not finite; never a panic, never NaN.
    #[test]
    fn any_density_gravity_and_modulus_give_finite_displacements_or_an_error(
        density_exp in -320.0f64..308.0,
        gravity_exp in -320.0f64..308.0,
        young_exp in -300.0f64..300.0,
    ) {
        let (density, gravity, young) = (10f64.powf(density_exp), -(10f64.powf(gravity_exp)), 10f64.powf(young_exp));
        prop_assume!(density > 0.0 && density.is_finite() && gravity.is_finite());
        match solve(density, gravity, young) {
            Ok(u) => prop_assert!(u.iter().all(|d| d.norm().is_finite())),
            Err(e) => prop_assert!(
                e.contains("material.density") || e.contains("load.gravity") || e.contains("not finite"),
                "{}", e
            ),
        }
    }
}

/// `fem --dynamic --time 1e300 --dt 0.01` ran until killed; the step count a fixed
/// time asks for is now bounded by `MAX_DYNAMIC_STEPS` before the first step. And (item 10) `--dt 1e-300`
/// said "faer-lu: the matrix is singular"; now the time step is named.
mod dynamic {
    use pbdfit_fem::{DynamicSettings, FemError, MAX_DYNAMIC_STEPS, RestRule, StaticProblem, YoungPoisson};
    use pbdfit_mesh::SceneSet;
    use proptest::prelude::*;

    fn run(time: Option<f64>, dt: f64) -> Result<usize, FemError> {
        let body = SceneSet::load("gravity-floor").unwrap().scenes()[0].body(1).unwrap();
        let problem = StaticProblem::new(&body).unwrap();
        let law = pbdfit_fem::materials::material("linear").unwrap();
        let stop = time.map_or(RestRule::AtRest { tolerance: 1e-13 }, RestRule::Time);
        let settings = DynamicSettings { stop, ..DynamicSettings::to_rest(dt) };
        problem.solve_dynamic(law, YoungPoisson::new(1e3, 0.3).unwrap(), settings).map(|s| s.steps)
    }

    #[test]
    fn a_time_beyond_the_step_budget_is_refused_and_a_tiny_dt_is_named() {
        let e = run(Some(1e300), 0.01).unwrap_err();
        assert!(matches!(e, FemError::TooManySteps { limit: MAX_DYNAMIC_STEPS, .. }), "{e}");
        assert!(e.to_string().contains("1.000e302 steps") && e.to_string().contains("at most 2000000"), "{e}");
        let e = run(None, 1e-300).unwrap_err().to_string();
        assert!(e.contains("dt = 1e-300") && e.contains("too small"), "{e}");
        assert_eq!(run(Some(0.05), 0.01).unwrap(), 5);
    }

    /// Item 7's progress: the observer hears of every step, in order, with the run's step count when it
    /// has one, and observing changes no bit of the solution.
    #[test]
    fn a_dynamic_solve_reports_every_step_and_is_unchanged_by_it() {
        let body = SceneSet::load("gravity-floor").unwrap().scenes()[0].body(2).unwrap();
        let problem = StaticProblem::new(&body).unwrap();
        let law = pbdfit_fem::materials::material("linear").unwrap();
        let material = YoungPoisson::new(1e3, 0.3).unwrap();
        for (stop, total) in [(RestRule::Time(0.25), Some(25)), (RestRule::AtRest { tolerance: 1e-13 }, None)] {
            let settings = DynamicSettings { stop, ..DynamicSettings::to_rest(0.01) };
            let mut seen = Vec::new();
            let observed = problem.solve_dynamic_observed(law, material, settings, &mut |p| seen.push(*p)).unwrap();
            let plain = problem.solve_dynamic(law, material, settings).unwrap();
            assert_eq!(observed, plain);
            assert_eq!(seen.len(), plain.steps);
            for (k, p) in seen.iter().enumerate() {
                assert_eq!((p.steps, p.total), (k + 1, total));
                assert_eq!(p.time, (k + 1) as f64 * 0.01);
            }
            assert_eq!(seen.last().unwrap().ratio, plain.last_step_ratio);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any time and step whose count exceeds the budget (up to f64's largest) is refused before
        /// the first step.
        #[test]
        fn every_count_beyond_the_budget_is_refused(time_exp in -3.0f64..308.0, dt_exp in -150.0f64..0.0) {
            let (time, dt) = (10f64.powf(time_exp), 10f64.powf(dt_exp));
            prop_assume!(time / dt > 1.0001 * MAX_DYNAMIC_STEPS as f64);
            let refused = matches!(run(Some(time), dt), Err(FemError::TooManySteps { .. }));
            prop_assert!(refused);
        }
    }
}

/// A mesh scaled to 1e-100 m said its held vertices were collinear: the default
/// selector tolerance (an absolute 1e-9 m) held every vertex, and the collinearity check's squares
/// underflowed. Both are now relative to the body: a scaled mesh holds the same vertices and builds.
mod scaled {
    use pbdfit_fem::StaticProblem;
    use pbdfit_mesh::SceneSet;
    use proptest::prelude::*;

    fn held_of_scaled_cube(exponent: i32) -> Result<(usize, usize), String> {
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../pbdfit-mesh/tests/data/cube.vtu");
        let text = std::fs::read_to_string(source)
            .unwrap()
            .replace("1.0 ", &format!("1e{exponent} "))
            .replace("1.0<", &format!("1e{exponent}<"));
        let dir = std::env::temp_dir().join(format!("pbdfit-fem-scaled-{}-{exponent}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cube.vtu"), text).unwrap();
        let scene = "name = \"s\"\n[body]\nmesh = \"cube.vtu\"\n[[held]]\nplane = \"y = 0\"\n";
        let result = SceneSet::parse(scene, "s.toml", Some(&dir)).map_err(|e| e.to_string()).and_then(|set| {
            let body = set.scenes()[0].body(1).map_err(|e| e.to_string())?;
            StaticProblem::new(&body).map_err(|e| e.to_string())?;
            Ok((body.held_indices().len(), body.mesh.vertices().len()))
        });
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    #[test]
    fn a_mesh_scaled_to_1e_minus_100_holds_one_face() {
        assert_eq!(held_of_scaled_cube(-100), Ok((4, 8)));
        assert_eq!(held_of_scaled_cube(0), Ok((4, 8)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any scale whose volumes f64 holds: the same face held, the FEM problem built.
        #[test]
        fn any_scale_holds_the_same_face(exponent in -90i32..90) {
            prop_assert_eq!(held_of_scaled_cube(exponent), Ok((4, 8)));
        }
    }
}
