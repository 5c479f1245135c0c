//! Times the linear solvers on one GravityFloor cube and prints the figures quoted in the crate
//! documentation. Usage:
//! `cargo run --release -p pbdfit-fem --example solver_comparison -- [N [nu]] [--skip-nalgebra]
//! [--skip-faer] [--skip-jacobi] [--sweeps=S] [--jacobi-smoother=OMEGA] [--galerkin-product]`
//! (default N = 18, 19,494 unknowns, and nu = 0.3). The multigrid row appears for even N; `--sweeps`
//! and `--jacobi-smoother` change its smoother (default: one symmetric block Gauss-Seidel sweep), and
//! `--galerkin-product` also times nalgebra-sparse's scalar `P^T (K P)` on the finest level. Timings
//! are printed, never asserted.

use std::time::Instant;

use pbdfit_fem::{
    FaerCholesky, JacobiCg, LinearSolver, MultigridCg, NalgebraCholesky, Smoother, StaticProblem, YoungPoisson,
};
use pbdfit_mesh::SceneSet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let n = numbers.first().map_or(18, |&n| n as usize);
    let poisson = numbers.get(1).copied().unwrap_or(0.3);
    let skip_nalgebra = args.iter().any(|a| a == "--skip-nalgebra");
    let skip_faer = args.iter().any(|a| a == "--skip-faer");
    let skip_jacobi = args.iter().any(|a| a == "--skip-jacobi");
    let option = |name: &str| args.iter().find_map(|a| a.strip_prefix(name)).and_then(|v| v.parse::<f64>().ok());
    let sweeps = option("--sweeps=").map_or(1, |s| s as usize);
    let jacobi_omega = option("--jacobi-smoother=");
    let galerkin_product = args.iter().any(|a| a == "--galerkin-product");
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
    let (faer_s, u_faer) = if skip_faer {
        (f64::NAN, JacobiCg::default().solve(&k, &f).expect("solve"))
    } else {
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
    if skip_faer {
        println!("faer skipped: differences below are to Jacobi CG");
    } else {
        println!("faer sparse Cholesky (AMD), symbolic + numeric + solve: {faer_s:.3} s (best of 3)");
    }
    let diff = |u: &[f64]| u.iter().zip(&u_faer).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / max_u;
    if !skip_jacobi {
        let (cg_s, u_cg) = time(&JacobiCg::default(), 1);
        println!(
            "Jacobi-preconditioned CG (rtol 1e-12): {cg_s:.3} s, max difference to faer {:.1e} relative",
            diff(&u_cg)
        );
    }
    if let Some(mut mg) = MultigridCg::for_mesh(&body.mesh, &body.held) {
        mg.sweeps = sweeps;
        if let Some(omega) = jacobi_omega {
            mg.smoother = Smoother::Jacobi { omega };
        }
        let setup = Instant::now();
        let built = MultigridCg::for_mesh(&body.mesh, &body.held).is_some();
        let hierarchy_s = setup.elapsed().as_secs_f64();
        let mut best = f64::INFINITY;
        let mut result = None;
        for _ in 0..3 {
            let t = Instant::now();
            let r = mg.solve_counted(&k, &f).expect("multigrid solve");
            best = best.min(t.elapsed().as_secs_f64());
            result = Some(r);
        }
        let r = result.expect("three runs");
        let t = Instant::now();
        mg.precondition(&k, &f).expect("one V-cycle");
        let setup_s = t.elapsed().as_secs_f64();
        println!(
            "multigrid-preconditioned CG (rtol 1e-12, {:?} x {sweeps}, levels N = {:?}, unknowns {:?}): {best:.3} s \
             (best of 3; hierarchy from the mesh {hierarchy_s:.3} s, built: {built}; level operators + one V-cycle {setup_s:.3} s), {} iterations, max difference \
             to faer {:.1e} relative",
            mg.smoother,
            mg.resolutions(),
            r.level_dofs,
            r.iterations,
            diff(&r.u)
        );
        if galerkin_product {
            let p = &mg.prolongations()[0];
            let t = Instant::now();
            let coarse = &p.transpose() * &(&k * p);
            println!(
                "nalgebra-sparse scalar Galerkin product P^T (K P), finest level: {:.3} s ({} x {}, {} entries)",
                t.elapsed().as_secs_f64(),
                coarse.nrows(),
                coarse.ncols(),
                coarse.nnz()
            );
        }
    }
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
