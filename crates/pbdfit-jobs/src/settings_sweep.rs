//! The settings question: for a material and a body, the cheapest engine settings (time step and
//! iterations or substeps) at which a model can reach the reference within a target error, and where it
//! cannot at all. One fit per setting, cheapest first; the answer is the first setting whose fit meets the
//! target, and every setting's fit is reported (the feasibility figure).

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{ModelKind, RestStateBackend};

use pbdfit_fit::{FitError, FitOptions, FitProblem, PartCache, Settings, fit};

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

/// Most settings one sweep fits: each is a whole fit (seconds to minutes), so a grid beyond this would
/// run for days (the default grid is 4 x 6 = 24).
pub const MAX_SETTINGS: usize = 256;

/// Largest `nit` a sweep tries (iterations or substeps per step).
pub const MAX_NIT: usize = 10_000;

/// A grid of settings refused: the option (`dt`, `nit`, or both for the grid's size) and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{option} {message}")]
pub struct GridError {
    /// `dt`, `nit`, or `dt x nit`.
    pub option: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// Whether dt and nit move `kind`'s rest state: not for the mass-spring laws and
/// `pybullet-neohookean`, whose rest state is a Newton equilibrium of forces (`ModelRule::Springs`).
pub fn settings_matter(kind: ModelKind) -> bool {
    kind.has_projection()
}

/// The settings a sweep fits, in order of cost ([`by_cost`]), checked: every dt a finite number > 0,
/// every nit in 1 to [`MAX_NIT`], no value given twice, at most [`MAX_SETTINGS`] pairs. For a model whose
/// rest state ignores dt and nit ([`settings_matter`]) the one setting `(dts[0], nits[0])`: every other
/// would repeat its fit.
pub fn grid(dts: &[f64], nits: &[usize], kind: ModelKind) -> Result<Vec<(f64, usize)>, GridError> {
    let error = |option, message: String| Err(GridError { option, message });
    if dts.is_empty() || nits.is_empty() {
        return error(if dts.is_empty() { "dt" } else { "nit" }, "needs at least one value".into());
    }
    for (i, &dt) in dts.iter().enumerate() {
        if !(dt.is_finite() && dt > 0.0) {
            return error("dt", format!("{dt}: a time step must be a finite number > 0 s"));
        }
        if dts[..i].iter().any(|d| d.to_bits() == dt.to_bits()) {
            return error(
                "dt",
                format!("{} is given twice; give each time step once", pbdfit_mesh::display::number(dt)),
            );
        }
    }
    for (i, &nit) in nits.iter().enumerate() {
        if !(1..=MAX_NIT).contains(&nit) {
            return error("nit", format!("{nit}: must be in 1 to {MAX_NIT}"));
        }
        if nits[..i].contains(&nit) {
            return error("nit", format!("{nit} is given twice; give each value once"));
        }
    }
    if !settings_matter(kind) {
        return Ok(vec![(dts[0], nits[0])]);
    }
    let count = dts.len().saturating_mul(nits.len());
    if count > MAX_SETTINGS {
        return error(
            "dt x nit",
            format!(
                "{} x {} = {count} settings, each a whole fit: at most {MAX_SETTINGS}; give fewer values",
                dts.len(),
                nits.len()
            ),
        );
    }
    Ok(by_cost(dts, nits))
}

/// The settings in order of cost (then dt descending, so a tie goes to the larger step).
pub fn by_cost(dts: &[f64], nits: &[usize]) -> Vec<(f64, usize)> {
    let mut out: Vec<(f64, usize)> = dts.iter().flat_map(|&dt| nits.iter().map(move |&nit| (dt, nit))).collect();
    out.sort_by(|a, b| (a.1 as f64 / a.0).total_cmp(&(b.1 as f64 / b.0)).then(b.0.total_cmp(&a.0)));
    out
}

/// A sweep with every setting's problem built ([`Self::plan`]): what can be refused (the reference's
/// options, a time step the rest states cannot resolve, engine settings that remove the load) has been,
/// before any fit runs or anything is printed.
#[derive(Debug)]
pub struct PlannedSweep {
    problems: Vec<(f64, usize, FitProblem)>,
}

impl PlannedSweep {
    /// Builds the problem of `kind` against `material` on `set` at resolution `n` for every setting of
    /// `settings` (in the order given: [`grid`] for the cheapest first).
    pub fn plan(
        set: &SceneSet,
        n: usize,
        kind: ModelKind,
        material: YoungPoisson,
        cache: &PartCache,
        settings: &[(f64, usize)],
    ) -> Result<Self, FitError> {
        let problems = settings
            .iter()
            .map(|&(dt, nit)| Ok((dt, nit, FitProblem::new(set, Settings::new(dt, n, nit, kind), material, cache)?)))
            .collect::<Result<Vec<_>, FitError>>()?;
        Ok(Self { problems })
    }

    /// Fits every setting in turn, calling `progress` after each. A fit that fails is a row with its
    /// reason, never the end of the sweep.
    pub fn run(
        &self,
        options: &FitOptions,
        backend: &dyn RestStateBackend,
        mut progress: impl FnMut(&SettingFit),
    ) -> Vec<SettingFit> {
        let mut rows = Vec::new();
        for (dt, nit, problem) in &self.problems {
            let (dt, nit) = (*dt, *nit);
            let row = match fit(problem, options, backend) {
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
        rows
    }
}

/// Fits `kind` to `material` on `set` at resolution `n` at every setting of `settings` (in the order
/// given: [`by_cost`] for the cheapest first), calling `progress` after each: [`PlannedSweep::plan`]
/// then [`PlannedSweep::run`].
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
    progress: impl FnMut(&SettingFit),
) -> Result<Vec<SettingFit>, FitError> {
    Ok(PlannedSweep::plan(set, n, kind, material, cache, settings)?.run(options, backend, progress))
}

/// A target error given as a root-mean-square relative displacement error in per cent (`5` or `5%`:
/// each moved vertex off by 5 % of its displacement on average in the squares), as the mean squared
/// relative error the fits minimise: `(pct / 100)^2`. An RMS of 100 % or more is what a body that does
/// not deform reaches, so no target: refused, as is anything not a finite number > 0.
pub fn target_from_rms_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    let pct: f64 = number.parse().map_err(|_| format!("`{text}`: not a number (a percentage such as 5%)"))?;
    if !(pct.is_finite() && pct > 0.0 && pct < 100.0) {
        return Err(format!(
            "`{text}`: the RMS relative error must be a percentage in (0, 100) (100 % is what a body that does not \
             deform scores)"
        ));
    }
    Ok((pct / 100.0) * (pct / 100.0))
}

/// The RMS relative displacement error in per cent of a mean squared relative error: `100 sqrt(e)`.
pub fn rms_percent(mean_squared: f64) -> f64 {
    100.0 * mean_squared.sqrt()
}

/// The first row whose error is at most `target`, in the rows' order.
pub fn cheapest(rows: &[SettingFit], target: f64) -> Option<&SettingFit> {
    rows.iter().find(|r| r.error <= target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_checked_bounded_and_once_per_setting() {
        let jolt = ModelKind::JOLT;
        assert_eq!(
            grid(&[0.02, 0.01], &[2, 1], jolt).unwrap(),
            [(0.02, 1), (0.02, 2), (0.01, 1), (0.01, 2)],
            "by cost, a tie to the larger step"
        );
        let e = grid(&[0.01, 0.01], &[1], jolt).unwrap_err();
        assert_eq!((e.option, e.message.as_str()), ("dt", "0.01 is given twice; give each time step once"));
        assert_eq!(grid(&[0.01], &[4, 4], jolt).unwrap_err().option, "nit");
        assert_eq!(grid(&[f64::NAN], &[1], jolt).unwrap_err().option, "dt");
        assert_eq!(grid(&[0.01], &[0], jolt).unwrap_err().option, "nit");
        assert_eq!(grid(&[0.01], &[MAX_NIT + 1], jolt).unwrap_err().option, "nit");
        let dts: Vec<f64> = (0..3000).map(|i| 0.001 + i as f64 * 1e-5).collect();
        let nits: Vec<usize> = (1..=300).collect();
        let e = grid(&dts, &nits, jolt).unwrap_err();
        assert!(e.option == "dt x nit" && e.message.contains("900000 settings") && e.message.contains("256"), "{e}");
        assert_eq!(grid(&dts[..16], &nits[..16], jolt).unwrap().len(), MAX_SETTINGS);
        // A model whose rest state ignores dt and nit: one setting, whatever the lists.
        for springs in [ModelKind::MASS_SPRING, ModelKind::PYBULLET_NEOHOOKEAN] {
            assert!(!settings_matter(springs));
            assert_eq!(grid(&[0.02, 0.01], &[1, 2, 4], springs).unwrap(), [(0.02, 1)]);
        }
    }

    #[test]
    fn the_target_reads_as_an_rms_percentage() {
        assert_eq!(target_from_rms_percent("5%").unwrap(), 0.05 * 0.05);
        assert_eq!(target_from_rms_percent(" 10 ").unwrap(), 0.1 * 0.1);
        for bad in ["100%", "0", "-5%", "nan", "five", "inf"] {
            assert!(target_from_rms_percent(bad).is_err(), "{bad}");
        }
        // The default 0.05 is 22.4 % RMS, not 5 %.
        assert!((rms_percent(0.05) - 22.360679774997898).abs() < 1e-12);
    }
}
