//! Throughput figures for `pbdfit bench pbd`: projections per second and rest-state times.

use std::time::Instant;

use pbdfit_mesh::SceneSet;
use rayon::prelude::*;

use crate::{Model, PbdSystem, RestMethod, RestOptions, SimParams};

/// One row of the benchmark.
#[derive(Debug, Clone)]
pub struct BenchRow {
    /// Mesh resolution.
    pub n: usize,
    /// Constraints in the mesh.
    pub constraints: usize,
    /// Projections per second, one thread, one mesh.
    pub single_thread: f64,
    /// Projections per second, one mesh, colour groups on all threads.
    pub mesh_parallel: f64,
    /// Projections per second, one independent simulation per thread (a batch, as in a grid sweep).
    pub batch_parallel: f64,
    /// Rest state by stepping: seconds, sweeps, converged.
    pub stepping: (f64, usize, bool),
    /// Rest state by the fixed point: seconds, sweeps, converged.
    pub fixed_point: (f64, usize, bool),
}

fn rate(system: &PbdSystem, params: &SimParams, min_seconds: f64) -> f64 {
    let mut d = system.dynamics();
    let mut steps = 0usize;
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < min_seconds || steps < 2 {
        system.step(params, &mut d);
        steps += 1;
    }
    (steps * params.nit * system.constraint_count()) as f64 / start.elapsed().as_secs_f64()
}

/// Measures the GravityWall cube at the given resolutions with `nit` iterations (kd = kv = 0.5,
/// dt = 0.01). `seconds` is the minimum time spent on each throughput figure. Rest states are solved
/// to a relative tolerance of 1e-10 with a budget of 2e5 sweeps.
pub fn bench_pbd(resolutions: &[usize], nit: usize, seconds: f64) -> Vec<BenchRow> {
    let scene = SceneSet::builtin("gravity-wall").expect("built-in scene");
    let params = SimParams::new(0.01, nit, Model::Pbd { kd: 0.5, kv: 0.5 });
    let threads = rayon::current_num_threads();
    resolutions
        .iter()
        .map(|&n| {
            let body = scene.scenes()[0].body(n).expect("unit cube");
            let serial = PbdSystem::new(&body).with_parallel_threshold(usize::MAX);
            let parallel = PbdSystem::new(&body).with_parallel_threshold(256);
            let single_thread = rate(&serial, &params, seconds);
            let mesh_parallel = rate(&parallel, &params, seconds);
            let batch_parallel: f64 = (0..threads).into_par_iter().map(|_| rate(&serial, &params, seconds)).sum();
            let rest = |method| {
                let options = RestOptions { method, tolerance: 1e-10, max_sweeps: 200_000, ..RestOptions::default() };
                let start = Instant::now();
                match parallel.rest_state(&params, &options, None) {
                    Ok(r) => (start.elapsed().as_secs_f64(), r.iterations, r.converged),
                    Err(_) => (start.elapsed().as_secs_f64(), 0, false),
                }
            };
            BenchRow {
                n,
                constraints: serial.constraint_count(),
                single_thread,
                mesh_parallel,
                batch_parallel,
                stepping: rest(RestMethod::Stepping),
                fixed_point: rest(RestMethod::FixedPoint),
            }
        })
        .collect()
}

/// The benchmark as a printable table.
pub fn bench_report(resolutions: &[usize], nit: usize, seconds: f64) -> String {
    let threads = rayon::current_num_threads();
    let mut out = format!(
        "PBD CPU benchmark: gravity-wall, kd = kv = 0.5, dt = 0.01, nit = {nit}, f64, {threads} threads\n\
         {:>4} {:>9} {:>14} {:>14} {:>14} {:>22} {:>22}\n",
        "N", "constr.", "proj/s 1 thr", "proj/s mesh", "proj/s batch", "rest: stepping", "rest: fixed point"
    );
    for r in bench_pbd(resolutions, nit, seconds) {
        let rest = |(s, sweeps, ok): (f64, usize, bool)| {
            format!("{:>8.4} s {:>7} sw{}", s, sweeps, if ok { " " } else { "*" })
        };
        out.push_str(&format!(
            "{:>4} {:>9} {:>14.3e} {:>14.3e} {:>14.3e} {:>22} {:>22}\n",
            r.n,
            r.constraints,
            r.single_thread,
            r.mesh_parallel,
            r.batch_parallel,
            rest(r.stepping),
            rest(r.fixed_point)
        ));
    }
    out.push_str(
        "proj/s mesh: one mesh, colour groups on all threads; batch: one simulation per thread.\n\
         rest: time to a relative tolerance of 1e-10 and projection sweeps; * = not converged within 2e5 sweeps.\n",
    );
    out
}
