//! Where batches of rest states are computed: the CPU (threads over parameter points) or another
//! backend such as the GPU crate. A grid sweep is one batch: 441 parameter points on one body.

use rayon::prelude::*;

use crate::{PbdError, PbdSystem, RestOptions, RestState, SimParams};

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
