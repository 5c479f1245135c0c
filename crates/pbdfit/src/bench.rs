//! `pbdfit bench`: throughput figures (printed, never asserted).

use crate::cli::CliResult;

/// What to benchmark.
#[derive(Debug, clap::Subcommand)]
pub enum BenchArgs {
    /// PBD on the CPU: projections per second and rest-state times for N = 1, 4, 8, 16, 32.
    Pbd {
        /// Solver iterations per step (1 to 1000).
        #[arg(long, default_value_t = 4)]
        nit: usize,
        /// Seconds spent on each throughput figure (a finite number in (0, 600]).
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
        /// Mesh resolutions (each at least 1, and within this machine's memory).
        #[arg(long, value_delimiter = ',', default_value = "1,4,8,16,32")]
        n: Vec<usize>,
    },
    /// PBD on the GPU next to the CPU: projections and rest states per second, single meshes
    /// (N = 16, 32, 64) and 441-point batches (N = 1, 4), with the adapter's name.
    Gpu {
        /// Seconds spent on each throughput figure (a finite number in (0, 600]).
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
    /// Fits on finer meshes: the gradient search's wall time on gravity-floor (E = 1e4 Pa, nu = 0.3,
    /// dt = 0.01 s, nit = 10) per model and N, its rest states and failed points, and one cold rest state
    /// at the fitted point beside it (the fit's time in rest states).
    Fit {
        /// Models (textbook models or engine profiles).
        #[arg(long, value_delimiter = ',', default_value = "pbd,xpbd")]
        model: Vec<pbdfit_pbd::ModelKind>,
        /// Mesh resolutions.
        #[arg(long, value_delimiter = ',', default_value = "4,8,16")]
        n: Vec<usize>,
    },
    /// Motion fits: `pbdfit motion --fit --fit-motion` on gravity-wall (E = 1e3 Pa, nu = 0.3, dt = 0.01 s,
    /// nit = 10) per model and N, its releases, and one release at the fitted parameters beside it.
    Motion {
        /// Models (projection models or engine profiles).
        #[arg(long, value_delimiter = ',', default_value = "pbd,xpbd,jolt")]
        model: Vec<pbdfit_pbd::ModelKind>,
        /// Mesh resolutions.
        #[arg(long, value_delimiter = ',', default_value = "2")]
        n: Vec<usize>,
    },
    /// Fits with the rest states' fixed points solved two ways, the accelerated iteration and
    /// Newton-Krylov: each engine profile on gravity-wall (N = 4, E = 1e3 Pa, dt = 0.01 s, nit = 10;
    /// Newton's at relaxation 0.3) and a stretch-and-bend fit of a 20 x 20 hanging sheet and clamped strip.
    RestSolvers {
        /// Engine profiles, with settings as results write them (`newton-xpbd[relaxation=0.3]`).
        #[arg(long, value_delimiter = ';', default_value = "newton-xpbd[relaxation=0.3];jolt;genesis-pbd")]
        engine: Vec<String>,
        /// Cloth models.
        #[arg(long, value_delimiter = ',', default_value = "cloth-xpbd")]
        cloth: Vec<pbdfit_pbd::ModelKind>,
        /// The fixed-point solves compared.
        #[arg(long, value_delimiter = ',', default_value = "anderson,newton-krylov")]
        solver: Vec<pbdfit_pbd::RootSolve>,
        /// Only the fits whose command line contains this.
        #[arg(long, default_value = "")]
        only: String,
    },
}

/// A benchmark's refused argument, in the command line's spelling (`--nit 0: ...`).
fn bench_error(e: pbdfit_pbd::bench::BenchError) -> crate::cli::CliError {
    crate::cli::CliError::Input(format!("--{e}"))
}

/// Runs `pbdfit bench`.
pub fn run(args: BenchArgs) -> CliResult {
    match args {
        BenchArgs::Pbd { nit, seconds, n } => {
            println!("{}", pbdfit_pbd::bench::bench_report(&n, nit, seconds).map_err(bench_error)?);
        }
        BenchArgs::Gpu { seconds } => print!("{}", pbdfit_gpu::bench::bench_report(seconds).map_err(bench_error)?),
        BenchArgs::Fit { model, n } => {
            if n.contains(&0) {
                return Err(crate::cli::CliError::Input(format!("--n: {}", pbdfit_mesh::ZeroResolution)));
            }
            let rows = pbdfit_jobs::bench::bench_fits(&model, &n).map_err(crate::fit::job_error)?;
            print!("{}", pbdfit_jobs::bench::bench_fit_report(&rows));
        }
        BenchArgs::RestSolvers { engine, cloth, solver, only } => {
            let engine = engine
                .iter()
                .map(|e| e.parse().map_err(|e| crate::cli::CliError::Input(format!("--engine: {e}"))))
                .collect::<Result<Vec<pbdfit_pbd::ModelKind>, _>>()?;
            let rows = pbdfit_jobs::bench::bench_rest_solvers(&engine, &cloth, &solver, &only)
                .map_err(crate::fit::job_error)?;
            print!("{}", pbdfit_jobs::bench::bench_rest_solvers_report(&rows));
        }
        BenchArgs::Motion { model, n } => {
            if n.contains(&0) {
                return Err(crate::cli::CliError::Input(format!("--n: {}", pbdfit_mesh::ZeroResolution)));
            }
            let rows = pbdfit_jobs::bench::bench_motion(&model, &n).map_err(crate::fit::job_error)?;
            print!("{}", pbdfit_jobs::bench::bench_motion_report(&rows));
        }
    }
    Ok(())
}
