//! Turning device results (f32 displacements and a status word) into pbdfit-pbd's `RestState`s and
//! errors, with the CPU path's checks and messages.

use pbdfit_pbd::{PbdError, PbdSystem, RestMethod, RestState, SimParams, Vec3, accept_rest_state, diverged};

/// Device status codes (single.wgsl `Stats.status`, batch.wgsl `Status.state`); 3 is the step cap
/// (reached without rest: `converged: false`).
pub(crate) const RUNNING: u32 = 0;
pub(crate) const AT_REST: u32 = 1;
pub(crate) const DIVERGED: u32 = 2;

/// What the device reported for one simulation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeviceOutcome {
    pub status: u32,
    pub steps: u32,
    pub residual: f32,
    pub largest: f32,
}

/// The body data a rest state needs besides the displacements.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub scene: String,
    pub rest: Vec<Vec3>,
    pub tets: Vec<[usize; 4]>,
    pub extent: f64,
}

impl Body {
    pub fn new(system: &PbdSystem, extent: f32) -> Self {
        Self {
            scene: system.scene().to_string(),
            rest: system.rest_positions().to_vec(),
            tets: system.tets().to_vec(),
            extent: extent as f64,
        }
    }

    /// The rest state (or the CPU path's error) from device displacements `u` (all particles).
    pub fn finish(&self, params: &SimParams, u: Vec<Vec3>, outcome: DeviceOutcome) -> Result<RestState, PbdError> {
        let sweeps = outcome.steps as usize * params.nit;
        if outcome.status == DIVERGED {
            return Err(diverged(&self.scene, params, sweeps, outcome.largest as f64, self.extent));
        }
        accept_rest_state(
            &self.scene,
            &self.rest,
            &self.tets,
            params,
            u,
            sweeps,
            outcome.status == AT_REST,
            outcome.residual as f64,
            RestMethod::Stepping,
        )
    }
}
