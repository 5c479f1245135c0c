//! The fine-mesh fit benchmark of `pbdfit bench fit`: what one fit costs on a finer mesh, against one
//! rest state of the same setting (the unit a fit's cost is counted in). Printed, never asserted.
//!
//! The setting is the fine-mesh one: gravity-floor, E = 1e4 Pa, nu = 0.3, dt = 0.01 s,
//! nit = 10, the default (gradient) search on one CPU backend with every thread. Per model and N it
//! prints the search's wall time (the FEM reference is solved before it and not counted), its rest
//! states (grid points and trials), the points without a rest state, one cold rest state at the fitted
//! point (seconds and sweeps), and the fit's time in those rest states.

use std::time::Instant;

use pbdfit_pbd::{CpuBackend, ModelKind, RestOptions};

use crate::{FitJob, MotionKeywords};
use pbdfit_fit::{FitJobError, Spelling};

/// The benchmark's scene.
pub const FIT_BENCH_SCENE: &str = "gravity-floor";
/// Young's modulus of the benchmark's reference (Pa).
pub const FIT_BENCH_YOUNG: f64 = 1e4;
/// Poisson ratio of the benchmark's reference.
pub const FIT_BENCH_POISSON: f64 = 0.3;
/// Time step of the benchmark (s).
pub const FIT_BENCH_DT: f64 = 0.01;
/// Solver iterations of the benchmark.
pub const FIT_BENCH_NIT: usize = 10;

/// One fit of the benchmark.
#[derive(Debug, Clone)]
pub struct FitBenchRow {
    /// The model.
    pub model: ModelKind,
    /// Mesh resolution.
    pub n: usize,
    /// Wall time of the search (s).
    pub seconds: f64,
    /// Rest states the search computed (grid points and trials).
    pub evaluations: usize,
    /// Of those, points without a rest state.
    pub failed: usize,
    /// The fitted error.
    pub error: f64,
    /// One cold rest state at the fitted point: wall time (s) and projection sweeps.
    pub rest_state: (f64, usize),
}

impl FitBenchRow {
    /// The fit's wall time in cold rest states at its fitted point.
    pub fn in_rest_states(&self) -> f64 {
        self.seconds / self.rest_state.0
    }
}

/// Refuses, before any fit, a resolution of a benchmark's `scene` that is 0 or too large for this
/// machine's memory (the scenes' size guard), naming it as `--n` does.
fn check_resolutions(scene: &str, resolutions: &[usize]) -> Result<(), FitJobError> {
    let set = pbdfit_mesh::SceneSet::builtin(scene).map_err(|e| FitJobError::Internal(e.to_string()))?;
    for &n in resolutions {
        if n == 0 {
            return Err(FitJobError::Input(format!("--n {n}: {}", pbdfit_mesh::ZeroResolution)));
        }
        set.scenes()[0].check_resolution(n).map_err(|e| FitJobError::Input(format!("--n {n}: {e}")))?;
    }
    Ok(())
}

/// Fits each model at each resolution in the benchmark's setting (see the module doc). Every resolution
/// is checked first.
pub fn bench_fits(models: &[ModelKind], resolutions: &[usize]) -> Result<Vec<FitBenchRow>, FitJobError> {
    check_resolutions(FIT_BENCH_SCENE, resolutions)?;
    let mut rows = Vec::new();
    for &n in resolutions {
        for &model in models {
            let job = FitJob {
                n: Some(n),
                young: Some(FIT_BENCH_YOUNG),
                poisson: Some(FIT_BENCH_POISSON),
                dt: FIT_BENCH_DT,
                nit: FIT_BENCH_NIT,
                ..FitJob::new(FIT_BENCH_SCENE, model)
            };
            let prepared = job.prepare(Spelling::Flag)?;
            let outcome = prepared.run(&CpuBackend)?;
            let problem = &outcome.prepared.problem;
            let values: Vec<f64> = outcome.result.parameters.iter().map(|(_, v)| *v).collect();
            let params = problem.settings.at(&values);
            let part = problem.parts.first().ok_or_else(|| FitJobError::Internal("a fit without parts".into()))?;
            let start = Instant::now();
            let rest = part
                .system
                .rest_state(&params, &RestOptions::default(), None)
                .map_err(|e| FitJobError::Fit(e.into()))?;
            let rest_seconds = start.elapsed().as_secs_f64();
            rows.push(FitBenchRow {
                model,
                n,
                seconds: outcome.result.seconds,
                evaluations: outcome.result.evaluations,
                failed: outcome.result.failures.len(),
                error: outcome.result.error,
                rest_state: (rest_seconds, rest.iterations),
            });
        }
    }
    Ok(rows)
}

/// The benchmark as the command prints it.
pub fn bench_fit_report(rows: &[FitBenchRow]) -> String {
    use pbdfit_mesh::display::{number, scientific};
    let mut out = format!(
        "fits on {FIT_BENCH_SCENE}, E = {} Pa, nu = {FIT_BENCH_POISSON}, dt = {FIT_BENCH_DT} s, nit = {FIT_BENCH_NIT}, \
         gradient search, CPU ({} threads)\n",
        number(FIT_BENCH_YOUNG),
        rayon::current_num_threads()
    );
    out.push_str(&format!(
        "{:>6} {:>3} {:>9} {:>11} {:>9} {:>11} {:>16} {:>12}\n",
        "model", "N", "fit (s)", "rest states", "no rest", "error", "rest state (s)", "fit / rest"
    ));
    for r in rows {
        out.push_str(&format!(
            "{:>6} {:>3} {:>9.3} {:>11} {:>9} {:>11} {:>9.4} ({:>5}) {:>12.1}\n",
            r.model.name(),
            r.n,
            r.seconds,
            r.evaluations,
            r.failed,
            scientific(r.error),
            r.rest_state.0,
            r.rest_state.1,
            r.in_rest_states()
        ));
    }
    out.push_str(
        "fit (s): the search's wall time (the FEM reference is solved before it); rest states: grid points and \
         trials; no rest: of those, points without one; rest state: one cold rest state at the fitted point \
         (seconds, sweeps); fit / rest: the fit's time in such rest states\n",
    );
    out
}

/// The motion benchmark's scene: the cantilever, whose release rings in its first (bending) mode.
pub const MOTION_BENCH_SCENE: &str = "gravity-wall";
/// Young's modulus of the motion benchmark (Pa).
pub const MOTION_BENCH_YOUNG: f64 = 1e3;

/// One motion fit of `pbdfit bench motion`.
#[derive(Debug, Clone)]
pub struct MotionBenchRow {
    /// The model.
    pub model: ModelKind,
    /// Mesh resolution.
    pub n: usize,
    /// The whole job's wall time (s): the rest-state fit, the FEM's release, the motion fit's releases.
    pub seconds: f64,
    /// The motion fit's own wall time (s): its pattern search and the release at its result.
    pub motion_seconds: f64,
    /// Releases the motion fit simulated.
    pub releases: usize,
    /// Its trajectory error, from the rest-state fit's to the motion fit's.
    pub trajectory_error: (f64, f64),
    /// One release test at the fitted parameters, alone (s): FEM and model, no fit.
    pub release_seconds: f64,
}

/// `pbdfit motion --fit --fit-motion` for each model at each resolution on [`MOTION_BENCH_SCENE`] (E =
/// [`MOTION_BENCH_YOUNG`], nu = 0.3, dt = 0.01 s, nit = 10, five periods), beside one release at the fitted
/// parameters: what a motion fit costs (the goal: at most 10 s at N = 2 on the project's 2 cores).
pub fn bench_motion(models: &[ModelKind], resolutions: &[usize]) -> Result<Vec<MotionBenchRow>, FitJobError> {
    check_resolutions(MOTION_BENCH_SCENE, resolutions)?;
    let mut rows = Vec::new();
    for &n in resolutions {
        for &model in models {
            let job = MotionKeywords {
                body: pbdfit_fit::Body { scene: MOTION_BENCH_SCENE.into(), n: Some(n), ..Default::default() },
                elastic: pbdfit_fit::Material { young: Some(MOTION_BENCH_YOUNG), poisson: Some(FIT_BENCH_POISSON) },
                step: pbdfit_fit::Step { dt: FIT_BENCH_DT },
                model: pbdfit_fit::Model { model: model.spec(), nit: FIT_BENCH_NIT, ..Default::default() },
                fit: true,
                fit_motion: true,
                ..Default::default()
            };
            let start = Instant::now();
            let report = job.clone().prepare(Spelling::Flag)?.run()?;
            let seconds = start.elapsed().as_secs_f64();
            let fit = report.motion_fit.as_ref().ok_or_else(|| FitJobError::Internal("no motion fit".into()))?;
            let once = MotionKeywords { fit: false, fit_motion: false, params: report.parameters.clone(), ..job };
            let start = Instant::now();
            once.prepare(Spelling::Flag)?.run()?;
            rows.push(MotionBenchRow {
                model,
                n,
                seconds,
                motion_seconds: fit.seconds,
                releases: fit.evaluations,
                trajectory_error: (fit.start_trajectory_error, report.trajectory_error),
                release_seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
    Ok(rows)
}

/// The motion benchmark as the command prints it.
pub fn bench_motion_report(rows: &[MotionBenchRow]) -> String {
    use pbdfit_mesh::display::{number, scientific};
    let mut out = format!(
        "motion fits on {MOTION_BENCH_SCENE}, E = {} Pa, nu = {FIT_BENCH_POISSON}, dt = {FIT_BENCH_DT} s, nit = \
         {FIT_BENCH_NIT}, gravity release over 5 periods (pbdfit motion --fit --fit-motion)\n",
        number(MOTION_BENCH_YOUNG)
    );
    out.push_str(&format!(
        "{:>12} {:>3} {:>9} {:>15} {:>9} {:>23} {:>12} {:>15}\n",
        "model", "N", "job (s)", "motion fit (s)", "releases", "trajectory error", "release (s)", "job / release"
    ));
    for r in rows {
        out.push_str(&format!(
            "{:>12} {:>3} {:>9.3} {:>15.3} {:>9} {:>11} -> {:>8} {:>12.4} {:>15.1}\n",
            r.model.spec(),
            r.n,
            r.seconds,
            r.motion_seconds,
            r.releases,
            scientific(r.trajectory_error.0),
            scientific(r.trajectory_error.1),
            r.release_seconds,
            r.seconds / r.release_seconds
        ));
    }
    out.push_str(
        "job (s): the whole command (rest-state fit, the FEM's release, the motion fit); motion fit (s): the motion \
         fit alone (its search and the release at its result); releases: the motion fit's; \
         trajectory error: at the rest-state fit, then at the motion fit; release: one release test at the fitted \
         parameters alone\n",
    );
    out
}

/// A fit's wall time (s), its rest states and its error.
pub type RestSolverFit = (f64, usize, f64);

/// One fit of `pbdfit bench rest-solvers`: the same job with the rest states' fixed points solved by the
/// accelerated iteration, then by Newton-Krylov ([`RootSolve`](pbdfit_pbd::RootSolve)).
#[derive(Debug, Clone)]
pub struct RestSolverRow {
    /// The fit, as its command line reads.
    pub case: String,
    /// Per solver: the fit's wall time (s), its rest states and its error, or the refusal.
    pub fits: Vec<(pbdfit_pbd::RootSolve, Result<RestSolverFit, String>)>,
}

/// The fits of `pbdfit bench rest-solvers`: `pbdfit fit --scene gravity-wall --n 4 --young 1e3 --dt 0.01
/// --nit 10` for each engine profile (Newton's with `relaxation=0.3`), and a stretch-and-bend fit of a 20
/// x 20 hanging sheet and clamped strip (`--n 20 --dt 0.01 --nit 10`, the default gradient search) for
/// each model in `cloth`, each with each of the fixed-point solves `roots`. `only` keeps the cases whose
/// command line contains it.
pub fn bench_rest_solvers(
    engines: &[ModelKind],
    cloth: &[ModelKind],
    roots: &[pbdfit_pbd::RootSolve],
    only: &str,
) -> Result<Vec<RestSolverRow>, FitJobError> {
    let mut jobs = Vec::new();
    for &model in engines {
        let job = FitJob { n: Some(4), young: Some(1e3), dt: 0.01, nit: 10, ..FitJob::new(MOTION_BENCH_SCENE, model) };
        jobs.push((
            format!("--scene {MOTION_BENCH_SCENE} --n 4 --young 1e3 --dt 0.01 --nit 10 --model {}", model.spec()),
            job,
        ));
    }
    for scene in ["hanging-sheet", "clamped-strip"] {
        for &model in cloth {
            let job = FitJob { n: Some(20), dt: 0.01, nit: 10, ..FitJob::new(scene, model) };
            jobs.push((format!("--scene {scene} --n 20 --dt 0.01 --nit 10 --model {}", model.spec()), job));
        }
    }
    let mut rows = Vec::new();
    for (case, job) in jobs.into_iter().filter(|(case, _)| case.contains(only)) {
        let fit = |root| -> Result<RestSolverFit, String> {
            let mut prepared = job.prepare(Spelling::Flag).map_err(|e| e.to_string())?;
            prepared.problem.rest_options.root = root;
            let start = Instant::now();
            let outcome = prepared.run(&CpuBackend).map_err(|e| e.to_string())?;
            Ok((start.elapsed().as_secs_f64(), outcome.result.evaluations, outcome.result.error))
        };
        rows.push(RestSolverRow { case, fits: roots.iter().map(|&root| (root, fit(root))).collect() });
    }
    Ok(rows)
}

/// The rest-solver benchmark as the command prints it.
pub fn bench_rest_solvers_report(rows: &[RestSolverRow]) -> String {
    use pbdfit_mesh::display::scientific;
    let mut out = format!(
        "fits with the rest states' fixed points by each solve, CPU ({} threads); per fit: wall time (s, the \
         reference included), rest states, error\n",
        rayon::current_num_threads()
    );
    for r in rows {
        out.push_str(&format!("pbdfit fit {}\n", r.case));
        for (root, fit) in &r.fits {
            let name = format!("{root:?}");
            match fit {
                Ok((seconds, evaluations, error)) => out.push_str(&format!(
                    "  {name:<13} {seconds:>9.3} s {evaluations:>6} rest states  error {}\n",
                    scientific(*error)
                )),
                Err(e) => out.push_str(&format!("  {name:<13} refused: {}\n", e.lines().next().unwrap_or(""))),
            }
        }
    }
    out
}
