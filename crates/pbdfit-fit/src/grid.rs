//! The grid sweep over a search box: every point's rest state, computed once per (scene, settings,
//! box) and shared by the fits of every material (a PBD rest state does not depend on E or nu).

use pbdfit_pbd::{PbdSystem, RestOptions, RestStateBackend};

use crate::problem::{RestResult, displacements_or_reason};
use crate::{SearchBox, Settings};

/// Rest displacements of one scene at every grid point (`Err` with the reason where there is none).
#[derive(Debug, Clone)]
pub struct GridRestStates {
    /// Scene name.
    pub scene: String,
    /// The box the grid spans.
    pub search_box: SearchBox,
    /// Grid resolution per axis.
    pub resolution: usize,
    /// One entry per point of [`SearchBox::grid`], same order.
    pub states: Vec<RestResult>,
}

impl GridRestStates {
    /// Computes every grid point's rest state on `backend` (which spreads them over threads or a GPU).
    pub fn compute(
        system: &PbdSystem,
        settings: &Settings,
        search_box: &SearchBox,
        resolution: usize,
        backend: &dyn RestStateBackend,
        options: &RestOptions,
    ) -> Self {
        let params: Vec<_> = search_box.grid(resolution).iter().map(|t| settings.at(&search_box.values(t))).collect();
        let states = backend
            .rest_states(system, &params, options)
            .into_iter()
            .zip(&params)
            .map(|(r, p)| displacements_or_reason(system, p, r))
            .collect();
        Self { scene: system.scene().to_string(), search_box: search_box.clone(), resolution, states }
    }
}
