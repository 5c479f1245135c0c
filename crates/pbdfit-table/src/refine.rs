//! `lookup --refine`: a short gradient fit started from a lookup's parameters, on the table's own scene or
//! on the user's. On the table's scene it reaches a direct fit's error for about half the rest states
//! (`fits/tables/accuracy.py`), where the lookup alone is up to several times worse; on another mesh it is
//! the fit the table's parameters start.

use std::collections::BTreeMap;

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitError, FitProblem, FitRequest, PartCache, Search, Settings};
use pbdfit_mesh::{SceneSet, Shape};
use pbdfit_pbd::{CpuBackend, ModelKind};
use serde::Serialize;

use crate::{Lookup, TableError};

/// Grid points per axis of the refinement's gradient search: 2 (4 rest states in two dimensions) beside
/// the lookup's start, which does the work.
pub const REFINE_GRID: usize = 2;

/// The fit a refinement made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refined {
    /// The scene fitted.
    pub scene: String,
    /// The resolution fitted at: the query's N on unit-cube scenes, 1 on imported meshes (which have
    /// their own; the query's N chose the table's parameters).
    pub n: usize,
    /// Its reference (the scene's own `[reference]`, else linear static).
    pub reference: String,
    /// The fitted parameters by name.
    pub parameters: BTreeMap<&'static str, f64>,
    /// The fit's error.
    pub error: f64,
    /// Rest states the fit computed.
    pub evaluations: usize,
    /// Parameters on the box's edge.
    pub at_bound: Vec<&'static str>,
    /// Wall-clock seconds of the fit.
    pub seconds: f64,
    /// Set when the fit's reference is not the one the table was made against (a scene with its own
    /// `[reference]`): the refined parameters answer the scene's reference, not the table's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The gradient fit at `lookup`'s material and settings on `scene`, started from its parameters, on a
/// [`REFINE_GRID`] grid, on the CPU.
pub fn refine(lookup: &Lookup, scene: &SceneSet) -> Result<Refined, TableError> {
    let kind: ModelKind = lookup.model.parse().map_err(|e: pbdfit_pbd::PbdError| TableError::Format {
        origin: lookup.table.clone(),
        message: e.to_string(),
    })?;
    let start: Vec<f64> = lookup.parameters.iter().map(|p| p.value).collect();
    let request = FitRequest {
        search: Some(Search::Gradient),
        grid: Some(REFINE_GRID),
        starts: vec![start],
        ..FitRequest::new(kind)
    };
    let options = request.options(Search::Gradient).map_err(|e| TableError::Format {
        origin: lookup.table.clone(),
        message: format!("its parameters cannot start a fit: {e}"),
    })?;
    let q = &lookup.query;
    let material = YoungPoisson::new(q.young, q.poisson)
        .map_err(|e| TableError::Fit(FitError::Internal(format!("a checked query was refused: {e}"))))?;
    // An imported mesh has its own resolution: the table's N is where the start came from, and the fit
    // runs on the mesh as it is (`--n 2 --refine --scene part.toml` was refused: "N must be 1").
    let n = if scene.scenes().iter().all(|s| matches!(s.shape, Shape::Mesh { .. })) { 1 } else { q.n };
    // The scene's masses, else the engine's (a table's fits ran with them).
    let scene = &pbdfit_fit::with_resolved_masses(scene.clone(), None, Some(kind));
    let problem = FitProblem::new(scene, Settings::new(q.dt, n, q.nit, kind), material, &PartCache::default())?;
    let result = pbdfit_fit::fit(&problem, &options, &CpuBackend)?;
    Ok(Refined {
        scene: scene.name().to_string(),
        n,
        reference: problem.reference.clone(),
        parameters: result.parameters.into_iter().collect(),
        error: result.error,
        evaluations: result.evaluations,
        at_bound: result.at_bound,
        seconds: result.seconds,
        note: (problem.reference != lookup.reference).then(|| {
            format!(
                "the table was made against the {} reference, this fit against the scene's {}",
                lookup.reference, problem.reference
            )
        }),
    })
}
