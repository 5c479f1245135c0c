//! The nonlinear reference materials and the dynamic reference: patch test, small-load limit,
//! Newton's quadratic convergence, frame indifference, and dynamics that come to the static rest state.

use nalgebra::{Rotation3, Vector3};
use pbdfit_fem::materials::{MATERIALS, Material, material};
use pbdfit_fem::{DynamicSettings, FemError, MassMatrix, RestRule, StaticProblem, YoungPoisson};
use pbdfit_mesh::{Body, SceneSet, unit_cube};

fn body(scene: &str, n: usize) -> Body {
    SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap()
}

fn young(e: f64) -> YoungPoisson {
    YoungPoisson::new(e, 0.3).unwrap()
}

fn max_difference(a: &[Vector3<f64>], b: &[Vector3<f64>]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max)
}

/// A problem on `body`'s mesh and held set with the loads scaled by `load`.
fn scaled(body: &Body, load: f64) -> StaticProblem {
    let loads = body.masses.iter().map(|&m| body.gravity * m * load).collect();
    let nv = body.mesh.vertices().len();
    StaticProblem::with_dirichlet(&body.mesh, &body.held, vec![Vector3::zeros(); nv], loads)
        .unwrap()
        .with_masses(body.masses.clone())
        .unwrap()
}

#[test]
fn patch_test_every_material_reproduces_a_homogeneous_deformation() {
    // All boundary vertices follow x = F0 X; the interior must follow too, with no load, for any law.
    let mesh = unit_cube(3).unwrap();
    let f0 = nalgebra::Matrix3::new(1.15, 0.08, 0.0, -0.05, 0.92, 0.04, 0.02, 0.0, 1.07);
    let interior = |p: &Vector3<f64>| p.iter().all(|&c| c > 1e-9 && c < 1.0 - 1e-9);
    let constrained: Vec<bool> = mesh.vertices().iter().map(|p| !interior(p)).collect();
    assert_eq!(constrained.iter().filter(|c| !**c).count(), 8);
    let prescribed: Vec<_> = mesh.vertices().iter().map(|p| f0 * p - p).collect();
    let loads = vec![Vector3::zeros(); mesh.vertices().len()];
    let problem = StaticProblem::with_dirichlet(&mesh, &constrained, prescribed.clone(), loads).unwrap();
    for law in MATERIALS {
        let u = problem.solve_law(*law, young(1e3)).unwrap();
        let error = max_difference(&u.displacements, &prescribed);
        assert!(error < 1e-10, "{}: interior off the affine map by {error:e}", law.name());
    }
}

#[test]
fn linear_law_through_newton_equals_the_linear_solve() {
    let b = body("gravity-wall", 3);
    let problem = StaticProblem::new(&b).unwrap();
    let linear = problem.solve(young(1e3)).unwrap();
    let newton = problem.solve_law(material("linear").unwrap(), young(1e3)).unwrap();
    assert_eq!(newton.iterations, 1, "one Newton step is exact for a linear law");
    let d = max_difference(&linear.displacements, &newton.displacements);
    assert!(d < 1e-12 * linear.max_displacement(), "{d:e}");
}

#[test]
fn every_material_tends_to_the_linear_solution_with_difference_of_order_load_squared() {
    let b = body("gravity-wall", 2);
    for law in MATERIALS.iter().filter(|m| !m.is_linear()) {
        let mut differences = Vec::new();
        for load in [4.0, 2.0, 1.0, 0.5] {
            let problem = scaled(&b, load);
            let linear = problem.solve(young(1e3)).unwrap();
            let nonlinear = problem.solve_law(*law, young(1e3)).unwrap();
            differences.push(max_difference(&linear.displacements, &nonlinear.displacements));
        }
        // Halving the load divides the difference by 4 (second order), up to higher-order terms.
        for pair in differences.windows(2) {
            let ratio = pair[0] / pair[1];
            assert!((3.6..4.4).contains(&ratio), "{}: differences {differences:?}, ratio {ratio}", law.name());
        }
    }
}

#[test]
fn newton_converges_quadratically() {
    // A soft body (E = 100 Pa): the wall cube sags by about a fifth of its size.
    let b = body("gravity-wall", 2);
    let problem = StaticProblem::new(&b).unwrap();
    for law in MATERIALS.iter().filter(|m| !m.is_linear()) {
        let solution = problem.solve_law(*law, young(100.0)).unwrap();
        let r = &solution.residuals;
        println!(
            "{}: {} increments, residuals {:?}",
            law.name(),
            solution.increments,
            r.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>()
        );
        assert!(solution.max_displacement() > 0.1, "{}", solution.max_displacement());
        assert!(*r.last().unwrap() <= 1e-10);
        // In the quadratic phase r_{k+1} <= C r_k^2; the last steps show it.
        let quadratic: Vec<f64> = r.windows(2).filter(|w| w[0] < 1e-2).map(|w| w[1] / (w[0] * w[0])).collect();
        assert!(!quadratic.is_empty(), "{}: no iteration in the quadratic phase: {r:?}", law.name());
        assert!(quadratic.iter().all(|&c| c < 50.0), "{}: r_k+1 / r_k^2 = {quadratic:?} ({r:?})", law.name());
    }
}

#[test]
fn rotated_problem_gives_the_rotated_solution_for_nonlinear_laws_only() {
    // Hold the wall face rotated rigidly by 60 degrees and rotate gravity with it: a frame-indifferent
    // law gives x' = Q x; linear elasticity sees the rigid rotation as strain.
    let b = body("gravity-wall", 2);
    let q = *Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(Vector3::new(1.0, 2.0, 0.5)), 1.05).matrix();
    let plain = StaticProblem::new(&b).unwrap();
    let nv = b.mesh.vertices().len();
    let prescribed: Vec<_> = b.mesh.vertices().iter().map(|x| q * x - x).collect();
    let loads: Vec<_> = b.masses.iter().map(|&m| q * b.gravity * m).collect();
    let rotated = StaticProblem::with_dirichlet(&b.mesh, &b.held, prescribed, loads).unwrap();
    assert_eq!(nv, 27);
    for law in MATERIALS {
        let settings = pbdfit_fem::NewtonSettings { initial_increments: 8, ..Default::default() };
        let original = plain.solve_law(*law, young(1e3)).unwrap();
        let turned = rotated.solve_law_with(*law, young(1e3), settings).unwrap();
        let expected: Vec<_> =
            b.mesh.vertices().iter().zip(&original.displacements).map(|(x, u)| q * (x + u) - x).collect();
        let error = max_difference(&turned.displacements, &expected) / original.max_displacement();
        if law.is_linear() {
            assert!(error > 0.1, "linear should not be frame indifferent: relative error {error:e}");
        } else {
            assert!(error < 1e-8, "{}: relative error {error:e}", law.name());
        }
    }
}

#[test]
fn dynamic_linear_run_to_rest_equals_the_static_solution() {
    for (scene, n, dt) in [("gravity-floor", 1, 0.01), ("gravity-wall", 2, 0.005)] {
        let b = body(scene, n);
        let problem = StaticProblem::new(&b).unwrap();
        let reference = problem.solve(young(1e3)).unwrap();
        for mass in [MassMatrix::Lumped, MassMatrix::Consistent] {
            let settings = DynamicSettings { mass, rayleigh_mass: 1.0, ..DynamicSettings::to_rest(dt) };
            let dynamic = problem.solve_dynamic(material("linear").unwrap(), young(1e3), settings).unwrap();
            let d = max_difference(&dynamic.displacements, &reference.displacements) / reference.max_displacement();
            println!("{scene} N = {n} {mass:?}: {} steps, relative difference {d:e}", dynamic.steps);
            assert!(d < 1e-9, "{scene}: {d:e} after {} steps", dynamic.steps);
        }
    }
}

#[test]
fn dynamic_nonlinear_run_to_rest_equals_its_static_solution_and_a_short_run_does_not() {
    let b = body("gravity-wall", 2);
    let problem = StaticProblem::new(&b).unwrap();
    let law = material("corotational").unwrap();
    let stat = problem.solve_law(law, young(1e3)).unwrap();
    let settings = DynamicSettings { rayleigh_mass: 2.0, ..DynamicSettings::to_rest(0.01) };
    let rest = problem.solve_dynamic(law, young(1e3), settings).unwrap();
    let d = max_difference(&rest.displacements, &stat.displacements) / stat.max_displacement();
    assert!(d < 1e-9, "{d:e}");
    // Stopped after 0.05 s the body is still on its way (the first vibration period is about 0.2 s).
    let short = DynamicSettings { stop: RestRule::Time(0.05), ..settings };
    let early = problem.solve_dynamic(law, young(1e3), short).unwrap();
    assert_eq!(early.steps, 5);
    let d = max_difference(&early.displacements, &stat.displacements) / stat.max_displacement();
    assert!(d > 0.1, "after 0.05 s: {d}");
}

#[test]
fn too_large_a_load_is_an_error_naming_the_element_or_the_load_step() {
    // Gravity 1e4 times stronger on a soft body: neo-Hookean elements would invert.
    let b = body("gravity-floor", 2);
    let problem = scaled(&b, 1e4);
    let settings = pbdfit_fem::NewtonSettings { max_increments: 8, ..Default::default() };
    let error = problem.solve_law_with(material("neo-hookean").unwrap(), young(100.0), settings).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    match error {
        FemError::InvertedElement { load, .. } => {
            assert!(message.contains("tetrahedron") && message.contains("load steps"), "{message}");
            assert!(load.unwrap() > 0.0);
        }
        FemError::NewtonFailed { .. } => assert!(message.contains("load factor"), "{message}"),
        other => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn dynamic_without_masses_or_with_a_bad_step_is_an_error() {
    let b = body("gravity-floor", 1);
    let problem = StaticProblem::new(&b).unwrap();
    let law: &dyn Material = material("stvk").unwrap();
    for dt in [0.0, -1.0, f64::NAN] {
        let e = problem.solve_dynamic(law, young(1e3), DynamicSettings::to_rest(dt)).unwrap_err();
        assert!(e.to_string().contains("dt"), "{e}");
    }
    let bare =
        StaticProblem::with_dirichlet(&b.mesh, &b.held, vec![Vector3::zeros(); 8], vec![Vector3::zeros(); 8]).unwrap();
    let e = bare.solve_dynamic(law, young(1e3), DynamicSettings::to_rest(0.01)).unwrap_err();
    assert!(e.to_string().contains("no masses"), "{e}");
}

#[test]
fn a_stiff_body_under_a_small_load_converges_to_the_round_off_floor() {
    // E = 1e6 Pa: displacements of 5e-6 m, where the polar decomposition's round-off keeps the
    // corotational residual near 1e-10 (it stalled at 1.4e-10 before the round-off rule).
    for scene in ["gravity-floor", "gravity-ceiling"] {
        let b = body(scene, 1);
        let problem = StaticProblem::new(&b).unwrap();
        for nu in [0.39, 0.45, 0.49] {
            let m = YoungPoisson::new(1e6, nu).unwrap();
            let linear = problem.solve(m).unwrap();
            for law in MATERIALS.iter().filter(|m| !m.is_linear()) {
                let s = problem.solve_law(*law, m).unwrap_or_else(|e| panic!("{scene} nu = {nu} {}: {e}", law.name()));
                let d = max_difference(&s.displacements, &linear.displacements) / linear.max_displacement();
                assert!(d < 1e-4, "{scene} nu = {nu} {}: {d:e}", law.name());
            }
        }
    }
}

/// A law that says nothing of its linearity: every call goes to `inner`, so the dynamic solve takes the
/// general path (tangent assembled and factored at every Newton iteration).
#[derive(Debug)]
struct Unsaid(&'static dyn Material);

impl Material for Unsaid {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn description(&self) -> &'static str {
        self.0.description()
    }
    fn needs_positive_volume(&self) -> bool {
        self.0.needs_positive_volume()
    }
    fn energy_density(&self, f: &nalgebra::Matrix3<f64>, lame: pbdfit_fem::LameParameters) -> f64 {
        self.0.energy_density(f, lame)
    }
    fn stress(&self, f: &nalgebra::Matrix3<f64>, lame: pbdfit_fem::LameParameters) -> nalgebra::Matrix3<f64> {
        self.0.stress(f, lame)
    }
    fn stress_differential(
        &self,
        f: &nalgebra::Matrix3<f64>,
        df: &nalgebra::Matrix3<f64>,
        lame: pbdfit_fem::LameParameters,
    ) -> nalgebra::Matrix3<f64> {
        self.0.stress_differential(f, df, lame)
    }
}

fn vector_bits(v: &[Vector3<f64>]) -> Vec<[u64; 3]> {
    v.iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect()
}

#[test]
fn a_linear_laws_tangent_is_the_same_bits_everywhere_and_forces_alone_match_the_system() {
    let b = body("gravity-wall", 2);
    let problem = StaticProblem::new(&b).unwrap();
    let asm = problem.assembler();
    let nv = b.mesh.vertices().len();
    let zero = vec![Vector3::zeros(); nv];
    let moved: Vec<Vector3<f64>> =
        (0..nv).map(|i| Vector3::new(1e-2 * (i % 5) as f64, -3e-3 * (i % 3) as f64, 2e-3 * (i % 7) as f64)).collect();
    for law in MATERIALS.iter().copied() {
        let (k0, _) = asm.nonlinear_system(law, young(1e3), &zero).unwrap();
        let (k, forces) = asm.nonlinear_system(law, young(1e3), &moved).unwrap();
        let alone = asm.nonlinear_forces(law, young(1e3), &moved).unwrap();
        assert_eq!(vector_bits(&alone), vector_bits(&forces), "{}", law.name());
        let same = k0.values().iter().zip(k.values()).all(|(a, b)| a.to_bits() == b.to_bits());
        // The dynamic solve relies on this for the laws that say they are linear.
        assert_eq!(same, law.is_linear(), "{}: tangent constant = {same}", law.name());
    }
}

#[test]
fn the_dynamic_solve_with_the_tangent_factored_once_equals_the_general_path_bit_for_bit() {
    let linear = material("linear").unwrap();
    for (scene, n, dt) in [("gravity-floor", 2, 0.01), ("gravity-wall", 2, 0.005)] {
        let b = body(scene, n);
        let problem = StaticProblem::new(&b).unwrap();
        for mass in [MassMatrix::Lumped, MassMatrix::Consistent] {
            for (a, bk) in [(0.0, 0.0), (1.0, 1e-3)] {
                let settings = DynamicSettings {
                    mass,
                    rayleigh_mass: a,
                    rayleigh_stiffness: bk,
                    stop: RestRule::Time(0.3),
                    ..DynamicSettings::to_rest(dt)
                };
                let once = problem.solve_dynamic(linear, young(1e3), settings).unwrap();
                let general = problem.solve_dynamic(&Unsaid(linear), young(1e3), settings).unwrap();
                assert_eq!(once.steps, general.steps);
                assert_eq!(once.newton_iterations, general.newton_iterations, "{scene} {mass:?}");
                assert_eq!(vector_bits(&once.displacements), vector_bits(&general.displacements), "{scene} {mass:?}");
            }
        }
    }
}
