//! The grid sweep over [0, 1]^2: every point's rest state, computed once per (scene, settings) and
//! shared by the fits of every material (a PBD rest state does not depend on E or nu).

use std::sync::Arc;

use pbdfit_mesh::Vec3;
use pbdfit_pbd::{PbdSystem, RestOptions, RestStateBackend};

use crate::Settings;
use crate::problem::displacements_or_reason;

/// The grid's parameter points in kd-major order (`kd = i/(r-1)` outer, `kv = j/(r-1)` inner).
///
/// ```
/// let p = pbdfit_fit::grid_points(21);
/// assert_eq!(p.len(), 441);
/// assert_eq!((p[0], p[1], p[21]), ((0.0, 0.0), (0.0, 0.05), (0.05, 0.0)));
/// assert_eq!(p[440], (1.0, 1.0));
/// ```
pub fn grid_points(resolution: usize) -> Vec<(f64, f64)> {
    let r = resolution.max(2);
    let at = |i: usize| i as f64 / (r - 1) as f64;
    (0..r).flat_map(|i| (0..r).map(move |j| (at(i), at(j)))).collect()
}

/// Rest displacements of one scene at every grid point (`Err` with the reason where there is none).
#[derive(Debug, Clone)]
pub struct GridRestStates {
    /// Scene name.
    pub scene: String,
    /// Grid resolution per axis.
    pub resolution: usize,
    /// One entry per point of [`grid_points`], same order.
    pub states: Vec<Result<Arc<Vec<Vec3>>, String>>,
}

impl GridRestStates {
    /// Computes every grid point's rest state on `backend` (which spreads them over threads or a GPU).
    pub fn compute(
        system: &PbdSystem,
        settings: &Settings,
        resolution: usize,
        backend: &dyn RestStateBackend,
        options: &RestOptions,
    ) -> Self {
        let params: Vec<_> = grid_points(resolution).into_iter().map(|(kd, kv)| settings.at(kd, kv)).collect();
        let states = backend
            .rest_states(system, &params, options)
            .into_iter()
            .zip(&params)
            .map(|(r, p)| displacements_or_reason(system, p, r))
            .collect();
        Self { scene: system.scene().to_string(), resolution, states }
    }
}
