//! Times the linear solvers on one GravityFloor cube and prints the figures quoted in the crate
//! documentation. Usage:
//! `cargo run --release -p pbdfit-fem --example solver_comparison -- [N [nu]] [--skip-nalgebra]`
//! (default N = 18, 19,494 unknowns, and nu = 0.3). Timings are printed, never asserted.

use std::time::Instant;

use pbdfit_fem::{FaerCholesky, JacobiCg, LinearSolver, NalgebraCholesky, StaticProblem, YoungPoisson};
use pbdfit_mesh::SceneSet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let n = numbers.first().map_or(18, |&n| n as usize);
    let poisson = numbers.get(1).copied().unwrap_or(0.3);
    let skip_nalgebra = args.iter().any(|a| a == "--skip-nalgebra");
    let body = SceneSet::builtin("gravity-floor").expect("built-in scene").scenes()[0].body(n).expect("valid N");
    let material = YoungPoisson::new(1e3, poisson).expect("valid material");
    let start = Instant::now();
    let problem = StaticProblem::new(&body).expect("held body");
    let zero = vec![nalgebra::Vector3::zeros(); body.mesh.vertices().len()];
    let (k, f) = problem.assembler().assemble(material, problem.loads(), &zero).expect("assembly");
    let assembly = start.elapsed().as_secs_f64();
    println!(
        "GravityFloor N = {n}, E = 1e3, nu = {poisson}: {} vertices, {} tetrahedra, {} unknowns, {} stored entries; {} logical cores",
        body.mesh.vertices().len(),
        body.mesh.tets().len(),
        f.len(),
        k.nnz(),
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    println!("assembly (pattern + values): {:.3} s", assembly);

    let time = |solver: &dyn LinearSolver, repeats: usize| {
        let mut best = f64::INFINITY;
        let mut u = Vec::new();
        for _ in 0..repeats {
            let t = Instant::now();
            u = solver.solve(&k, &f).expect("solve");
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, u)
    };
    // A fresh solver per repeat: symbolic analysis included, as in a single solve_static.
    let (faer_s, u_faer) = {
        let mut best = f64::INFINITY;
        let mut u = Vec::new();
        for _ in 0..3 {
            let (t, v) = time(&FaerCholesky::new(), 1);
            best = best.min(t);
            u = v;
        }
        (best, u)
    };
    let max_u = u_faer.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    println!("faer sparse Cholesky (AMD), symbolic + numeric + solve: {faer_s:.3} s (best of 3)");
    let diff = |u: &[f64]| u.iter().zip(&u_faer).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / max_u;
    let (cg_s, u_cg) = time(&JacobiCg::default(), 1);
    println!("Jacobi-preconditioned CG (rtol 1e-12): {cg_s:.3} s, max difference to faer {:.1e} relative", diff(&u_cg));
    if !skip_nalgebra {
        let (na_s, u_na) = time(&NalgebraCholesky, 1);
        println!(
            "nalgebra-sparse CscCholesky (no ordering): {na_s:.3} s, max difference to faer {:.1e} relative; \
             faer is {:.0}x faster",
            diff(&u_na),
            na_s / faer_s
        );
    }
}
