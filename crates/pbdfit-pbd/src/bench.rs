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
    /// Rest state by stepping: seconds, sweeps, converged (`None`: not measured at this resolution).
    pub stepping: Option<(f64, usize, bool)>,
    /// Rest state by the fixed point: seconds, sweeps, converged (`None`: not measured).
    pub fixed_point: Option<(f64, usize, bool)>,
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

/// The benchmark scene: the GravityFloor cube (held at its base; it has a rest state at every N).
pub const BENCH_SCENE: &str = "gravity-floor";
/// Stiffness of the benchmark (kd = kv).
pub const BENCH_STIFFNESS: f64 = 1.0;
/// Time step of the benchmark (s).
pub const BENCH_DT: f64 = 0.01;
/// Relative tolerance of the benchmark's rest states.
pub const BENCH_REST_TOLERANCE: f64 = 1e-10;
/// Sweep budget of the benchmark's rest states.
pub const BENCH_REST_MAX_SWEEPS: usize = 200_000;
/// Largest resolution at which the benchmark computes rest states (they take minutes beyond).
pub const BENCH_REST_MAX_N: usize = 16;

/// Most solver iterations per step a benchmark takes: every throughput figure times at least two steps,
/// so its shortest run is `2 nit` sweeps (at N = 32, some 6e5 projections each: about 10 ms on one
/// thread), and beyond this cap one figure alone would take minutes whatever `seconds` says.
pub const BENCH_MAX_NIT: usize = 1000;
/// Longest time a benchmark may spend on one figure (s): ten minutes; a run measures several figures
/// per resolution.
pub const BENCH_MAX_SECONDS: f64 = 600.0;

/// An argument of a benchmark outside what it can measure: the option's name, the value given and what
/// is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{option} = {value}: {allowed}")]
pub struct BenchError {
    /// The argument (`n`, `nit`, `seconds`).
    pub option: &'static str,
    /// The value given, as given.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

/// Checks a benchmark's time per figure: a finite number in (0, [`BENCH_MAX_SECONDS`]] (infinity or NaN
/// would never end, zero or less measures nothing). `pbdfit bench pbd` and `bench gpu` share it.
pub fn check_seconds(seconds: f64) -> Result<(), BenchError> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= BENCH_MAX_SECONDS {
        return Ok(());
    }
    Err(BenchError {
        option: "seconds",
        value: seconds.to_string(),
        allowed: format!(
            "the time spent on each figure must be a finite number of seconds in (0, {BENCH_MAX_SECONDS}]"
        ),
    })
}

/// Checks the arguments of [`bench_pbd`]: at least one resolution, each at least 1 and small enough for
/// this machine's memory (the scene's size guard, [`pbdfit_mesh::SizeEstimate`]); `nit` in 1 to
/// [`BENCH_MAX_NIT`]; `seconds` as [`check_seconds`] says.
pub fn check_bench_pbd(resolutions: &[usize], nit: usize, seconds: f64) -> Result<(), BenchError> {
    let n_error = |value: String, allowed: String| BenchError { option: "n", value, allowed };
    if resolutions.is_empty() {
        return Err(n_error(String::new(), "at least one mesh resolution".into()));
    }
    let scene = SceneSet::builtin(BENCH_SCENE).expect("built-in scene");
    for &n in resolutions {
        if n == 0 {
            return Err(n_error("0".into(), pbdfit_mesh::ZeroResolution.to_string()));
        }
        scene.scenes()[0].check_resolution(n).map_err(|e| n_error(n.to_string(), e))?;
    }
    if !(1..=BENCH_MAX_NIT).contains(&nit) {
        return Err(BenchError {
            option: "nit",
            value: nit.to_string(),
            allowed: format!(
                "solver iterations per step must be in 1 to {BENCH_MAX_NIT} (each figure times at least two steps)"
            ),
        });
    }
    check_seconds(seconds)
}

/// Measures the benchmark cube ([`BENCH_SCENE`], kd = kv = [`BENCH_STIFFNESS`], dt = [`BENCH_DT`]) at
/// the given resolutions with `nit` iterations. `seconds` is the minimum time spent on each throughput
/// figure. Rest states, up to N = [`BENCH_REST_MAX_N`], are solved to a relative tolerance of
/// [`BENCH_REST_TOLERANCE`] with a budget of [`BENCH_REST_MAX_SWEEPS`] sweeps. The arguments are
/// checked first ([`check_bench_pbd`]).
pub fn bench_pbd(resolutions: &[usize], nit: usize, seconds: f64) -> Result<Vec<BenchRow>, BenchError> {
    check_bench_pbd(resolutions, nit, seconds)?;
    let scene = SceneSet::builtin(BENCH_SCENE).expect("built-in scene");
    let params = SimParams::new(BENCH_DT, nit, Model::pbd(BENCH_STIFFNESS, BENCH_STIFFNESS));
    let threads = rayon::current_num_threads();
    Ok(resolutions
        .iter()
        .map(|&n| {
            let body = scene.scenes()[0].body(n).expect("unit cube");
            let serial = PbdSystem::new(&body).with_parallel_threshold(usize::MAX);
            let parallel = PbdSystem::new(&body).with_parallel_threshold(256);
            let single_thread = rate(&serial, &params, seconds);
            let mesh_parallel = rate(&parallel, &params, seconds);
            let batch_parallel: f64 = (0..threads).into_par_iter().map(|_| rate(&serial, &params, seconds)).sum();
            let rest = |method| {
                if n > BENCH_REST_MAX_N {
                    return None;
                }
                let options = RestOptions {
                    method,
                    tolerance: BENCH_REST_TOLERANCE,
                    max_sweeps: BENCH_REST_MAX_SWEEPS,
                    ..RestOptions::default()
                };
                let start = Instant::now();
                Some(match parallel.rest_state(&params, &options, None) {
                    Ok(r) => (start.elapsed().as_secs_f64(), r.iterations, r.converged),
                    Err(_) => (start.elapsed().as_secs_f64(), 0, false),
                })
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
        .collect())
}

/// The benchmark as a printable table (the arguments checked first, as [`bench_pbd`] does).
pub fn bench_report(resolutions: &[usize], nit: usize, seconds: f64) -> Result<String, BenchError> {
    let rows = bench_pbd(resolutions, nit, seconds)?;
    let threads = rayon::current_num_threads();
    let mut out = format!(
        "PBD CPU benchmark: {BENCH_SCENE}, kd = kv = {BENCH_STIFFNESS}, dt = {BENCH_DT}, nit = {nit}, f64, \
         {threads} threads\n\
         {:>4} {:>9} {:>14} {:>14} {:>14} {:>22} {:>22}\n",
        "N", "constr.", "proj/s 1 thr", "proj/s mesh", "proj/s batch", "rest: stepping", "rest: fixed point"
    );
    for r in rows {
        let rest = |r: Option<(f64, usize, bool)>| match r {
            Some((s, sweeps, ok)) => format!("{:>8.4} s {:>7} sw{}", s, sweeps, if ok { " " } else { "*" }),
            None => "-".into(),
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
    out.push_str(&format!(
        "proj/s mesh: one mesh, colour groups on all threads; batch: one simulation per thread.\n\
         rest: time to a relative tolerance of {BENCH_REST_TOLERANCE:.0e} and projection sweeps, for N <= \
         {BENCH_REST_MAX_N} only (- = not measured); * = not converged within {BENCH_REST_MAX_SWEEPS} sweeps.\n",
    ));
    Ok(out)
}

/// A serial sweep ready to run: the gravity-floor cube of resolution `n` under the model and settings
/// of `params` after 20 steps, so that every constraint is off its rest value. The kernel benchmarks
/// (`cargo bench -p pbdfit-pbd`) and [`profile_sweeps`] (kd = kv = 1, dt = 0.01, nit = 4) drive it.
pub struct SweepFixture {
    system: PbdSystem,
    /// The state after the 20 steps, which [`Self::reset`] restores.
    start: crate::system::Dynamics,
    dynamics: crate::system::Dynamics,
    rules: crate::ProjectionRule,
}

impl SweepFixture {
    /// The fixture at resolution `n` for `params`; `None` for a model without colour-order sweeps (the
    /// mass-spring models and the engine profiles, whose solve is their own).
    pub fn new(n: usize, params: &SimParams) -> Option<Self> {
        let rules = params.projection_rule().ok()?;
        let scene = SceneSet::builtin("gravity-floor").expect("built-in scene");
        let body = scene.scenes()[0].body(n).expect("unit cube");
        let system = PbdSystem::new(&body).with_parallel_threshold(usize::MAX);
        let mut dynamics = system.dynamics();
        for _ in 0..20 {
            system.step(params, &mut dynamics);
        }
        Some(Self { system, start: dynamics.clone(), dynamics, rules })
    }

    /// Back to the state after the 20 steps. Sweeps repeated without the steps' gravity relax the cube
    /// back to its undeformed shape: the displacements decay geometrically into subnormal numbers (most
    /// coordinates at N = 8 after some 60,000 sweeps, seen once), which the CPU handles slowly (the
    /// sweep then takes 2 to 3 times as long), so a benchmark resets before each batch of sweeps.
    pub fn reset(&mut self) {
        self.dynamics.predicted.copy_from_slice(&self.start.predicted);
        self.dynamics.lambda_distance.copy_from_slice(&self.start.lambda_distance);
        self.dynamics.lambda_volume.copy_from_slice(&self.start.lambda_volume);
        self.dynamics.lambda_tetrahedron.copy_from_slice(&self.start.lambda_tetrahedron);
    }

    /// Projections one [`Self::sweep`] of `kind` does.
    pub fn projections(&self, kind: SweepKind) -> usize {
        let (distances, volumes) = kind.parts();
        distances as usize * self.system.distances.len() + volumes as usize * self.system.volumes.len()
    }

    /// One serial sweep over the constraints of `kind`, in colour order.
    pub fn sweep(&mut self, kind: SweepKind) {
        let (distances, volumes) = kind.parts();
        self.system.sweep_parts(&self.rules, &mut self.dynamics, distances, volumes);
    }
}

/// Profiling hook: `sweeps` serial sweeps of a [`SweepFixture`] of resolution `n`, of the distance
/// constraints only (`Distances`), the volume constraints only (`Volumes`) or both. Returns the
/// projections done and the seconds the sweeps took.
pub fn profile_sweeps(n: usize, sweeps: usize, kind: SweepKind) -> (usize, f64) {
    let params = SimParams::new(0.01, 4, Model::pbd(1.0, 1.0));
    let mut fixture = SweepFixture::new(n, &params).expect("PBD projects");
    let start = Instant::now();
    for _ in 0..sweeps {
        fixture.sweep(kind);
    }
    std::hint::black_box(&fixture.dynamics.predicted);
    let seconds = start.elapsed().as_secs_f64();
    (sweeps * fixture.projections(kind), seconds)
}

/// Which constraints [`profile_sweeps`] projects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKind {
    /// Distance and volume constraints.
    All,
    /// Distance constraints only.
    Distances,
    /// Volume constraints only.
    Volumes,
}

impl SweepKind {
    /// `(distances, volumes)`: which constraint lists the sweep walks.
    fn parts(self) -> (bool, bool) {
        match self {
            SweepKind::All => (true, true),
            SweepKind::Distances => (true, false),
            SweepKind::Volumes => (false, true),
        }
    }
}

/// Serial projections per second of (distance, volume) constraints on the gravity-floor cube of
/// resolution `n`, each timed for at least `seconds` (setup not counted).
pub fn projection_rates_by_type(n: usize, seconds: f64) -> (f64, f64) {
    let rate = |kind| {
        let (mut projections, mut time) = (0, 0.0);
        while time < seconds {
            let (p, t) = profile_sweeps(n, 400, kind);
            projections += p;
            time += t;
        }
        projections as f64 / time
    };
    (rate(SweepKind::Distances), rate(SweepKind::Volumes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pbd_benchmark_refuses_what_cannot_end_or_measure_nothing() {
        let refused = |n: &[usize], nit: usize, seconds: f64| bench_pbd(n, nit, seconds).unwrap_err();
        assert_eq!(refused(&[0], 4, 0.01).option, "n");
        assert_eq!(refused(&[], 4, 0.01).option, "n");
        if pbdfit_mesh::available_memory().is_some() {
            let e = refused(&[1, 100_000], 4, 0.01);
            assert!(e.option == "n" && e.value == "100000" && e.allowed.contains("memory"), "{e}");
        }
        for nit in [0, BENCH_MAX_NIT + 1, u32::MAX as usize] {
            assert_eq!(refused(&[1], nit, 0.01).option, "nit", "nit {nit}");
        }
        for seconds in [f64::INFINITY, f64::NAN, 0.0, -1.0, BENCH_MAX_SECONDS * 1.01] {
            let e = refused(&[1], 4, seconds);
            assert!(e.option == "seconds" && e.allowed.contains("(0, 600]"), "{e}");
        }
        // The GPU benchmark's time per figure is the same check.
        assert!(check_seconds(f64::INFINITY).is_err() && check_seconds(2.0).is_ok());
        // In range: one row per resolution, with the nit asked for (not a silent 1).
        let rows = bench_pbd(&[1], 3, 1e-3).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].constraints, 23);
        assert!(bench_report(&[1], 3, 1e-3).unwrap().contains("nit = 3"));
    }
}
