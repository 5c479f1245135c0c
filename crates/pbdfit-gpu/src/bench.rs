//! `pbdfit bench gpu`: GPU throughput next to the CPU path of the same run (figures printed, never
//! asserted).

use std::time::Instant;

use pbdfit_mesh::SceneSet;
use pbdfit_pbd::bench::{BENCH_DT, BENCH_SCENE};
use pbdfit_pbd::{CpuBackend, Model, PbdError, PbdSystem, RestOptions, RestState, RestStateBackend, SimParams};

use crate::{GpuBackend, GpuContext, GpuSimulation};

/// Single-mesh resolutions of the benchmark.
pub const BENCH_SINGLE_N: [usize; 3] = [16, 32, 64];
/// Batched resolutions of the benchmark (each a 21 x 21 grid of (kd, kv), 441 rest states).
pub const BENCH_BATCH_N: [usize; 2] = [1, 4];
/// Stiffness of the single-mesh figures (kd = kv).
pub const BENCH_SINGLE_STIFFNESS: f64 = 0.5;

fn system(n: usize) -> PbdSystem {
    let body = SceneSet::builtin(BENCH_SCENE).expect("built-in scene").scenes()[0].body(n).expect("cube");
    PbdSystem::new(&body)
}

/// The pattern search's grid (docs/method.md, section The fits): kd, kv in 0, 0.05, ..., 1 (kd-major), dt = BENCH_DT, nit = 1.
fn grid() -> Vec<SimParams> {
    (0..=20)
        .flat_map(|i| (0..=20).map(move |j| SimParams::new(BENCH_DT, 1, Model::pbd(i as f64 / 20.0, j as f64 / 20.0))))
        .collect()
}

/// Projections done by a batch of results: sweeps x constraints (failed points count nothing).
fn projections(system: &PbdSystem, results: &[Result<RestState, PbdError>]) -> f64 {
    results.iter().filter_map(|r| r.as_ref().ok()).map(|r| (r.iterations * system.constraint_count()) as f64).sum()
}

/// Steps per second of `step(k)`, timing whole calls until `seconds` have passed (at least 2 steps).
fn step_rate(seconds: f64, mut step: impl FnMut(usize) -> Result<(), String>) -> Result<f64, String> {
    step(1)?; // warm up: pipeline compilation, first-touch of buffers
    let start = Instant::now();
    let (mut steps, mut k) = (0usize, 1usize);
    while steps < 2 || start.elapsed().as_secs_f64() < seconds {
        step(k)?;
        steps += k;
        let per_step = start.elapsed().as_secs_f64() / steps as f64;
        let left = seconds - start.elapsed().as_secs_f64();
        k = ((left / per_step.max(1e-9)) as usize).clamp(1, 2 * k);
    }
    Ok(steps as f64 / start.elapsed().as_secs_f64())
}

fn sci(x: f64) -> String {
    format!("{x:.3e}")
}

/// Measures and prints the GPU and CPU figures; `seconds` is the time spent on each throughput figure.
///
/// Single meshes ([`BENCH_SCENE`] cube at N = 16, 32, 64, kd = kv = [`BENCH_SINGLE_STIFFNESS`],
/// dt = [`BENCH_DT`], nit = 1): time steps and projections per second of [`GpuSimulation::step`] and of
/// `PbdSystem::step` (f64; colour groups of at least 4096 constraints on all cores). Batches (the
/// 441-point (kd, kv) grid at N = 1 and N = 4): rest states and projections per second of
/// [`GpuBackend`] (stepping with the device rest test) and [`CpuBackend`] (Anderson fixed point, one
/// point per thread). On a software adapter (lavapipe), where the kernels run on the same cores
/// hundreds of times slower, the N = 4 batch runs a fixed number of steps for its projection rate and
/// solves rest states for 4 of its points only, and the rows say so; so does a row whose figure could
/// not be measured. About a minute on lavapipe with `seconds = 2`. `seconds` is checked first
/// ([`pbdfit_pbd::bench::check_seconds`]: finite, in (0, 600]).
pub fn bench_report(seconds: f64) -> Result<String, pbdfit_pbd::bench::BenchError> {
    pbdfit_pbd::bench::check_seconds(seconds)?;
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut out = String::new();
    let ctx = match GpuContext::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            return Ok(format!("pbdfit bench gpu: {e}\nno GPU figures; `pbdfit bench pbd` measures the CPU path.\n"));
        }
    };
    let software = ctx.is_software();
    out.push_str(&format!(
        "PBD GPU benchmark (f32 kernels) next to the CPU path (f64) of the same run\n\
         adapter: {}{}\n\
         CPU: {cores} cores; scene {BENCH_SCENE}, dt = {BENCH_DT}, nit = 1\n\n",
        ctx.describe(),
        if software { " (software renderer: the GPU figures are CPU emulation, not a GPU)" } else { "" },
    ));

    out.push_str(&format!(
        "single mesh, kd = kv = {BENCH_SINGLE_STIFFNESS}: time steps per second and projections per second\n\
         {:>4} {:>9} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
        "N", "particles", "constr.", "groups", "GPU steps/s", "GPU proj/s", "CPU steps/s", "CPU proj/s"
    ));
    let params = SimParams::new(BENCH_DT, 1, Model::pbd(BENCH_SINGLE_STIFFNESS, BENCH_SINGLE_STIFFNESS));
    for n in BENCH_SINGLE_N {
        let system = system(n);
        let constraints = system.constraint_count() as f64;
        let gpu = GpuSimulation::new(&ctx, &system, &params)
            .map_err(|e| e.to_string())
            .and_then(|mut sim| step_rate(seconds, |k| sim.step(k).map_err(|e| e.to_string())));
        let mut dynamics = system.dynamics();
        let cpu = step_rate(seconds, |k| {
            for _ in 0..k {
                system.step(&params, &mut dynamics);
            }
            Ok(())
        })
        .unwrap_or(f64::NAN);
        let (gpu_steps, gpu_proj) = match &gpu {
            Ok(rate) => (sci(*rate), sci(rate * constraints)),
            Err(e) => (format!("failed: {e}"), String::new()),
        };
        out.push_str(&format!(
            "{:>4} {:>9} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
            n,
            system.particle_count(),
            system.constraint_count(),
            system.group_count(),
            gpu_steps,
            gpu_proj,
            sci(cpu),
            sci(cpu * constraints)
        ));
    }

    out.push_str(&format!(
        "\nbatch: the 441-point (kd, kv) grid, rest states per second and projections per second\n\
         {:>10} {:>14} {:>12} {:>14} {:>12}  notes\n",
        "batch", "GPU rest/s", "GPU proj/s", "CPU rest/s", "CPU proj/s"
    ));
    let backend = GpuBackend::new(ctx.clone());
    for n in BENCH_BATCH_N {
        let system = system(n);
        let points = grid();
        let options = RestOptions::default();
        let start = Instant::now();
        let cpu = CpuBackend.rest_states(&system, &points, &options);
        let cpu_seconds = start.elapsed().as_secs_f64();
        let cpu_rest = points.len() as f64 / cpu_seconds;
        let cpu_proj = projections(&system, &cpu) / cpu_seconds;
        let (gpu_rest, gpu_proj, notes) = if software && n > 1 {
            // Projection rate: every point a fixed number of steps (the step cap ends them all).
            let capped = RestOptions { max_sweeps: 8, ..options };
            let start = Instant::now();
            let run = backend.try_rest_states(&system, &points, &capped);
            let proj_seconds = start.elapsed().as_secs_f64();
            // Rest states: four interior points of the grid.
            let subset: Vec<SimParams> =
                [(5, 5), (5, 15), (15, 5), (15, 15)].iter().map(|&(i, j)| points[21 * i + j]).collect();
            let start = Instant::now();
            let rest = backend.try_rest_states(&system, &subset, &options);
            let rest_seconds = start.elapsed().as_secs_f64();
            match (run, rest) {
                (Ok(run), Ok(_)) => (
                    sci(subset.len() as f64 / rest_seconds),
                    sci(projections(&system, &run) / proj_seconds),
                    format!(
                        "GPU: proj/s over 441 x 8 steps; rest/s over 4 points (kd, kv in 0.25, 0.75) in {rest_seconds:.1} s"
                    ),
                ),
                (Err(e), _) | (_, Err(e)) => ("failed".into(), String::new(), e.to_string()),
            }
        } else {
            let start = Instant::now();
            match backend.try_rest_states(&system, &points, &options) {
                Ok(gpu) => {
                    let s = start.elapsed().as_secs_f64();
                    let failed = gpu.iter().filter(|r| r.is_err()).count();
                    let unconverged = gpu.iter().filter(|r| matches!(r, Ok(r) if !r.converged)).count();
                    (
                        sci(points.len() as f64 / s),
                        sci(projections(&system, &gpu) / s),
                        format!("GPU {s:.2} s, {failed} without rest state, {unconverged} not converged"),
                    )
                }
                Err(e) => ("failed".into(), String::new(), e.to_string()),
            }
        };
        out.push_str(&format!(
            "{:>10} {:>14} {:>12} {:>14} {:>12}  CPU {cpu_seconds:.2} s; {notes}\n",
            format!("441 x N={n}"),
            gpu_rest,
            gpu_proj,
            sci(cpu_rest),
            sci(cpu_proj),
        ));
    }
    out.push_str(
        "\nprojection: one constraint projected once. GPU rest states step the dynamics from rest with the\n\
         windowed rest test on the device; CPU rest states are Anderson fixed points (fewer sweeps per rest\n\
         state), so compare rest/s across backends and proj/s as raw throughput.\n",
    );
    Ok(out)
}
