//! Turning device results (f32 displacements and a status word) into pbdfit-pbd's `RestState`s and
//! errors, with the CPU path's checks and messages.

use pbdfit_pbd::{PbdError, PbdSystem, RestMethod, RestState, SimParams, Vec3};

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
            let largest = outcome.largest as f64;
            return Err(PbdError::Diverged {
                scene: self.scene.clone(),
                params: params.describe(),
                sweeps,
                reason: if largest.is_finite() {
                    format!("displacement {largest:.3e} m exceeds the body size {:.3e} m", self.extent)
                } else {
                    "NaN or infinite displacement".into()
                },
            });
        }
        let positions: Vec<Vec3> = self.rest.iter().zip(&u).map(|(x, u)| x + u).collect();
        for (t, tet) in self.tets.iter().enumerate() {
            let volume = pbdfit_mesh::signed_volume(tet.map(|v| positions[v]));
            if volume.is_nan() || volume <= 0.0 {
                return Err(PbdError::InvertedTet {
                    scene: self.scene.clone(),
                    params: params.describe(),
                    tet: t,
                    volume,
                });
            }
        }
        Ok(RestState {
            positions,
            displacements: u,
            iterations: sweeps,
            converged: outcome.status == AT_REST,
            residual: outcome.residual as f64,
            method: RestMethod::Stepping,
        })
    }
}
