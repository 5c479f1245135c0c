//! Tests of the multigrid-preconditioned conjugate gradients that assert numbers: agreement with the
//! direct solver, mesh-independent iteration counts, symmetry of the V-cycle, where `AutoSolver` uses it.
//!
//! The agreement tests force the multigrid solver with `solve_with`, whatever the threshold of
//! `AutoSolver`. The dev profile is optimised (opt-level 2), so N = 16 costs little in a test build.

use nalgebra::Vector3;
use nalgebra_sparse::CscMatrix;
use pbdfit_fem::{
    FaerCholesky, FemError, LinearSolver, MULTIGRID_THRESHOLD_DOFS, MultigridCg, StaticProblem, YoungPoisson,
};
use pbdfit_mesh::{Body, CubeSplit, SceneSet};

fn body(scene: &str, n: usize) -> Body {
    SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap()
}

fn material(poisson: f64) -> YoungPoisson {
    YoungPoisson::new(1e3, poisson).unwrap()
}

fn multigrid(b: &Body) -> MultigridCg {
    MultigridCg::for_mesh(&b.mesh, &b.held).expect("unit cube of even N has a hierarchy")
}

/// The reduced system of a body, as the solvers see it.
fn system(b: &Body, poisson: f64) -> (StaticProblem, CscMatrix<f64>, Vec<f64>) {
    let problem = StaticProblem::new(b).unwrap();
    let (k, f) = problem.assembler().assemble(material(poisson), problem.loads(), &b.prescribed).unwrap();
    (problem, k, f)
}

/// max_v |u_v - w_v| / max_v |w_v| over all vertices.
fn relative_difference(u: &[Vector3<f64>], w: &[Vector3<f64>]) -> f64 {
    let scale = w.iter().map(|v| v.norm()).fold(0.0, f64::max);
    u.iter().zip(w).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max) / scale
}

#[test]
fn agrees_with_cholesky_on_floor_wall_and_torsion() {
    let mut worst: f64 = 0.0;
    for scene in ["gravity-floor", "gravity-wall", "torsion"] {
        for n in [8, 16] {
            let b = body(scene, n);
            let problem = StaticProblem::new(&b).unwrap();
            let mg = multigrid(&b);
            for nu in [0.3, 0.49] {
                let direct = problem.solve_with(material(nu), &FaerCholesky::new()).unwrap();
                let iterative = problem.solve_with(material(nu), &mg).unwrap();
                assert_eq!(iterative.solver, "multigrid-cg");
                let d = relative_difference(&iterative.displacements, &direct.displacements);
                assert!(d <= 1e-10, "{scene} N = {n} nu = {nu}: {d:e}");
                worst = worst.max(d);
            }
        }
    }
    eprintln!("worst relative difference to Cholesky: {worst:e}");
}

/// A cube given `--size` keeps its multigrid hierarchy (the grid is the unit cube's, scaled), agrees
/// with Cholesky, and sags as `L^2` (a linear FEM under gravity, `rho g L^2 / E`): 0.01 times the unit
/// cube's at L = 0.1.
#[test]
fn a_cube_of_another_size_keeps_its_hierarchy_and_sags_as_its_size_squared() {
    let unit = body("gravity-wall", 8);
    let small =
        SceneSet::builtin("gravity-wall").unwrap().with_body(None, Some(0.1)).unwrap().scenes()[0].body(8).unwrap();
    let mg = multigrid(&small);
    assert_eq!(mg.resolutions(), multigrid(&unit).resolutions());
    let base = StaticProblem::new(&unit).unwrap().solve_with(material(0.3), &FaerCholesky::new()).unwrap();
    let problem = StaticProblem::new(&small).unwrap();
    let direct = problem.solve_with(material(0.3), &FaerCholesky::new()).unwrap();
    let iterative = problem.solve_with(material(0.3), &mg).unwrap();
    assert!(relative_difference(&iterative.displacements, &direct.displacements) <= 1e-10);
    let expected: Vec<Vector3<f64>> = base.displacements.iter().map(|u| u * 0.01).collect();
    let d = relative_difference(&direct.displacements, &expected);
    assert!(d <= 1e-10, "{d:e}");
}

#[test]
fn agrees_with_cholesky_on_the_other_cube_scenes_and_the_six_tet_split() {
    // The other built-in cube scenes (traction loads, the held top face of the ceiling), and a mesh
    // with other tetrahedra on the same vertex grid (the Galerkin operators need only the grid).
    let mut bodies: Vec<Body> =
        ["tension", "compression", "shear", "gravity-ceiling"].iter().map(|s| body(s, 8)).collect();
    bodies.push(SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body_split(8, CubeSplit::Six).unwrap());
    for b in bodies {
        let problem = StaticProblem::new(&b).unwrap();
        let mg = multigrid(&b);
        for nu in [0.3, 0.49] {
            let direct = problem.solve_with(material(nu), &FaerCholesky::new()).unwrap();
            let iterative = problem.solve_with(material(nu), &mg).unwrap();
            let d = relative_difference(&iterative.displacements, &direct.displacements);
            assert!(d <= 1e-10, "{} nu = {nu}: {d:e}", b.scene);
        }
    }
}

#[test]
fn iteration_count_is_mesh_independent() {
    // Jacobi CG needs about twice the iterations when N doubles; multigrid about the same.
    let mut report = Vec::new();
    for scene in ["gravity-floor", "gravity-wall", "torsion"] {
        let counts: Vec<usize> = [8, 16]
            .iter()
            .map(|&n| {
                let b = body(scene, n);
                let (_, k, f) = system(&b, 0.3);
                let solve = multigrid(&b).solve_counted(&k, &f).unwrap();
                assert!(solve.residual <= 1e-12);
                solve.iterations
            })
            .collect();
        assert!(2 * counts[1] <= 3 * counts[0], "{scene}: {counts:?} iterations at N = 8, 16");
        report.push((scene, counts));
    }
    // Measured: gravity-floor [17, 17], gravity-wall [18, 18], torsion [17, 17].
    eprintln!("{report:?}");
}

#[test]
fn hierarchy_levels() {
    let b = body("gravity-floor", 16);
    let mg = multigrid(&b);
    assert_eq!(mg.resolutions(), &[16, 8, 4, 2]);
    // Free vertices: (N + 1)^2 N (the floor y = 0 is held on every level).
    assert_eq!(mg.level_dofs(), &[3 * 17 * 17 * 16, 3 * 9 * 9 * 8, 3 * 5 * 5 * 4, 3 * 3 * 3 * 2]);
    let twelve = body("torsion", 12);
    let mg = multigrid(&twelve);
    assert_eq!(mg.resolutions(), &[12, 6, 3]);
    // Floor and top face held: (N + 1)^2 (N - 1) free vertices.
    assert_eq!(mg.level_dofs(), &[3 * 13 * 13 * 11, 3 * 7 * 7 * 5, 3 * 4 * 4 * 2]);
    // No hierarchy: odd N, N = 2, an imported mesh.
    assert!(MultigridCg::for_mesh(&body("gravity-floor", 9).mesh, &body("gravity-floor", 9).held).is_none());
    assert!(MultigridCg::for_mesh(&body("gravity-floor", 2).mesh, &body("gravity-floor", 2).held).is_none());
    let beam = body("cantilever", 1);
    assert!(MultigridCg::for_mesh(&beam.mesh, &beam.held).is_none());
}

/// A deterministic pseudo-random vector in [-1, 1).
fn random_vector(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn v_cycle_is_symmetric_positive_definite() {
    for (scene, n) in [("gravity-wall", 8), ("torsion", 12)] {
        let b = body(scene, n);
        let mg = multigrid(&b);
        for nu in [0.3, 0.49] {
            let (_, k, _) = system(&b, nu);
            let x = random_vector(k.nrows(), 1);
            let y = random_vector(k.nrows(), 2);
            let (mx, my) = (mg.precondition(&k, &x).unwrap(), mg.precondition(&k, &y).unwrap());
            let (xmy, mxy) = (dot(&x, &my), dot(&mx, &y));
            let scale = (dot(&x, &mx) * dot(&y, &my)).sqrt();
            assert!((xmy - mxy).abs() <= 1e-12 * scale, "{scene} nu = {nu}: {xmy:e} vs {mxy:e}");
            eprintln!("{scene} nu = {nu}: |<x, My> - <Mx, y>| / scale = {:e}", (xmy - mxy).abs() / scale);
            assert!(dot(&x, &mx) > 0.0 && dot(&y, &my) > 0.0);
        }
    }
}

#[test]
fn auto_solver_uses_multigrid_only_from_the_threshold() {
    // N = 10, the largest mesh of the committed results, stays with the direct solver.
    let ten = StaticProblem::new(&body("gravity-floor", 10)).unwrap();
    assert!(ten.dofs() < MULTIGRID_THRESHOLD_DOFS);
    let u = ten.solve(material(0.3)).unwrap();
    assert_eq!(u.solver, "faer-cholesky");
    let sixteen = StaticProblem::new(&body("gravity-floor", 16)).unwrap();
    assert!(sixteen.dofs() >= MULTIGRID_THRESHOLD_DOFS);
    let auto = sixteen.solve(material(0.3)).unwrap();
    assert_eq!(auto.solver, "multigrid-cg");
    let direct = sixteen.solve_with(material(0.3), &FaerCholesky::new()).unwrap();
    assert!(relative_difference(&auto.displacements, &direct.displacements) <= 1e-10);
    // Odd N: no hierarchy, the direct solver.
    let seventeen = StaticProblem::new(&body("gravity-floor", 17)).unwrap();
    assert!(seventeen.dofs() >= MULTIGRID_THRESHOLD_DOFS);
    assert_eq!(seventeen.solve(material(0.3)).unwrap().solver, "faer-cholesky");
}

#[test]
fn errors_are_typed() {
    let b = body("gravity-wall", 8);
    let (_, k, f) = system(&b, 0.49);
    let mut mg = multigrid(&b);
    mg.max_iterations = Some(3);
    match mg.solve(&k, &f) {
        Err(FemError::NotConverged { solver: "multigrid-cg", iterations: 3, residual, tolerance }) => {
            assert!(residual > tolerance && tolerance == 1e-12)
        }
        other => panic!("{other:?}"),
    }
    // A matrix of another size than the hierarchy's.
    let other = system(&body("gravity-wall", 4), 0.3);
    assert!(matches!(mg.solve(&other.1, &other.2), Err(FemError::Solver { solver: "multigrid-cg", .. })));
    // An indefinite matrix (the stiffness with its sign flipped).
    let negative = &k * -1.0;
    assert!(matches!(mg.solve(&negative, &f), Err(FemError::NotPositiveDefinite { solver: "multigrid-cg", .. })));
    // Zero load: zero displacement, no iteration.
    let zero = multigrid(&b).solve_counted(&k, &vec![0.0; f.len()]).unwrap();
    assert_eq!(zero.iterations, 0);
    assert!(zero.u.iter().all(|&v| v == 0.0));
}
