//! Where batches of rest states are computed: the CPU (threads over parameter points) or another
//! backend such as the GPU crate. A grid sweep is one batch: 441 parameter points on one body. A
//! lockstep turn of many fits is another ([`RestJob`]s: any bodies, each point with its own warm start).

use std::sync::Arc;

use rayon::prelude::*;

use crate::{PbdError, PbdSystem, RestOptions, RestState, SimParams, Vec3};

/// One rest state of a mixed batch: a body, a parameter point, the displacements to start from (a
/// search's trial starts from the rest state it steps away from) and its controls. Owned (shared
/// pointers), so that fits on different threads can hand their jobs to one batch.
#[derive(Debug, Clone)]
pub struct RestJob {
    /// The body.
    pub system: Arc<PbdSystem>,
    /// The parameter point.
    pub params: SimParams,
    /// Displacements (m, one per particle) to start from; `None` starts from the undeformed body.
    pub warm: Option<Arc<Vec<Vec3>>>,
    /// Rest-state controls.
    pub options: RestOptions,
}

impl RestJob {
    /// [`PbdSystem::rest_state`] of the job, on this thread.
    pub fn solve(&self) -> Result<RestState, PbdError> {
        self.system.rest_state(&self.params, &self.options, self.warm.as_ref().map(|w| w.as_slice()))
    }
}

/// Computes the rest states of many parameter points on one body.
///
/// Implementations must return results in the order of `params` and must not depend on the number of
/// threads (each point is computed independently from a cold start).
pub trait RestStateBackend: Sync {
    /// A short description for progress messages (e.g. `cpu (2 threads)`, `gpu (llvmpipe)`).
    fn name(&self) -> String;

    /// The rest state of `system` for every parameter point.
    fn rest_states(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        options: &RestOptions,
    ) -> Vec<Result<RestState, PbdError>>;

    /// The rest state of every job (bodies and warm starts may differ), in the order of `jobs`. Each
    /// result must be the one [`RestJob::solve`] gives, whatever the batch holds besides: a lockstep run
    /// is bit for bit the run without it. The default solves them on the CPU, one rayon task each.
    fn warm_rest_states(&self, jobs: &[RestJob]) -> Vec<Result<RestState, PbdError>> {
        // One job per task, as for the grid (costs differ by orders of magnitude).
        jobs.par_iter().with_max_len(1).map(RestJob::solve).collect()
    }
}

/// The f64 CPU path: parameter points spread over rayon's threads, each solved by
/// [`PbdSystem::rest_state`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuBackend;

impl RestStateBackend for CpuBackend {
    fn name(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn rest_states(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        options: &RestOptions,
    ) -> Vec<Result<RestState, PbdError>> {
        // One rest state per task: their costs differ by orders of magnitude across a grid (a soft
        // corner can take 1,000 times a stiff one), so no thread may hold a run of them while the other
        // idles. The order of the results is the order of `params` whatever the scheduling.
        params.par_iter().with_max_len(1).map(|p| system.rest_state(p, options, None)).collect()
    }
}
