//! The settings question: for a material and a body, the cheapest engine settings (time step and
//! iterations or substeps) at which a model can reach the reference within a target error, and where it
//! cannot at all. One fit per setting, cheapest first; the answer is the first setting whose fit meets the
//! target, and every setting's fit is reported (the feasibility figure).

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{ModelKind, RestStateBackend};

use crate::{FitError, FitOptions, FitProblem, PartCache, Settings, fit};

/// One setting's fit.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingFit {
    /// Time step (s).
    pub dt: f64,
    /// Iterations or substeps per step (the model's `nit`).
    pub nit: usize,
    /// Cost: `nit` per simulated second, `nit / dt` (solver passes per second for Newton, substeps per
    /// second for Jolt and Genesis).
    pub cost: f64,
    /// The fit's error (infinite when no grid point had a rest state).
    pub error: f64,
    /// The fitted parameters, by name.
    pub parameters: Vec<(&'static str, f64)>,
    /// Parameters at the edge of the search box.
    pub at_bound: Vec<String>,
    /// Why the fit failed, when it did.
    pub failed: Option<String>,
}

/// The settings in order of cost (then dt descending, so a tie goes to the larger step).
pub fn by_cost(dts: &[f64], nits: &[usize]) -> Vec<(f64, usize)> {
    let mut out: Vec<(f64, usize)> = dts.iter().flat_map(|&dt| nits.iter().map(move |&nit| (dt, nit))).collect();
    out.sort_by(|a, b| (a.1 as f64 / a.0).total_cmp(&(b.1 as f64 / b.0)).then(b.0.total_cmp(&a.0)));
    out
}

/// Fits `kind` to `material` on `set` at resolution `n` at every setting of `settings` (in the order
/// given: [`by_cost`] for the cheapest first), calling `progress` after each. A fit that fails is a row
/// with its reason, never the end of the sweep.
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    set: &SceneSet,
    n: usize,
    kind: ModelKind,
    material: YoungPoisson,
    cache: &PartCache,
    options: &FitOptions,
    backend: &dyn RestStateBackend,
    settings: &[(f64, usize)],
    mut progress: impl FnMut(&SettingFit),
) -> Result<Vec<SettingFit>, FitError> {
    let mut rows = Vec::new();
    for &(dt, nit) in settings {
        let problem = FitProblem::new(set, Settings::new(dt, n, nit, kind), material, cache)?;
        let row = match fit(&problem, options, backend) {
            Ok(r) => SettingFit {
                dt,
                nit,
                cost: nit as f64 / dt,
                error: r.error,
                parameters: r.parameters.clone(),
                at_bound: r.at_bound.iter().map(|s| s.to_string()).collect(),
                failed: (!r.error.is_finite()).then(|| r.failure_summary()),
            },
            Err(e) => SettingFit {
                dt,
                nit,
                cost: nit as f64 / dt,
                error: f64::INFINITY,
                parameters: Vec::new(),
                at_bound: Vec::new(),
                failed: Some(e.to_string()),
            },
        };
        progress(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The first row whose error is at most `target`, in the rows' order.
pub fn cheapest(rows: &[SettingFit], target: f64) -> Option<&SettingFit> {
    rows.iter().find(|r| r.error <= target)
}
