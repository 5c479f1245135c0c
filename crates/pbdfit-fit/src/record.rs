use std::path::Path;

use serde::{Deserialize, Serialize};

/// Whether a fit produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FitStatus {
    /// The search finished; kd, kv and error are the fitted values.
    Ok,
    /// The fit could not be made (every evaluation diverged, bad input...); see `message`.
    Failed,
}

/// One fitted result: the row of a study CSV (`fits/results/<study>/<scene>-<experiment>.csv`).
///
/// Every row carries all its parameters, so a row is self-describing whatever the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitRecord {
    /// Scene name, e.g. `gravity-floor`, or `gravity` for the compound.
    pub scene: String,
    /// Experiment name: `base`, `dt`, `n`, `nit` or `young` in the thesis study.
    pub experiment: String,
    /// Value of the experiment's varied parameter (empty for `base`).
    pub value: Option<f64>,
    /// Young's modulus E in Pa.
    pub young: f64,
    /// Poisson ratio nu.
    pub poisson: f64,
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution N.
    pub n: usize,
    /// Solver iterations per step.
    pub nit: usize,
    /// PBD model variant (`pbd`, `pbd-linearised`, `pbd-textbook-volume`, `xpbd`).
    pub model: String,
    /// Mass model (`lumped` or `uniform`).
    pub mass_model: String,
    /// Fitted distance stiffness (or distance compliance for XPBD).
    pub kd: f64,
    /// Fitted volume stiffness (or volume compliance for XPBD).
    pub kv: f64,
    /// Mean squared relative error at the fitted point (compound: Euclidean norm of the parts' errors).
    pub error: f64,
    /// For a compound scene, each part's error as `name=value` joined by `;` (empty otherwise).
    pub scene_errors: String,
    /// Error evaluations the fit made (grid + pattern search).
    pub evaluations: usize,
    /// Evaluations without a rest state (diverged or no equilibrium), counted as infinite error.
    pub failed_evaluations: usize,
    /// Wall-clock seconds the fit took.
    pub seconds: f64,
    /// Whether the fit produced a result.
    pub status: FitStatus,
    /// Why a fit failed, or notes (empty when there is nothing to say).
    pub message: String,
}

impl FitRecord {
    /// Parses `scene_errors` into `(part name, error)` pairs, in order.
    pub fn part_errors(&self) -> Vec<(String, f64)> {
        self.scene_errors
            .split(';')
            .filter(|s| !s.is_empty())
            .filter_map(|s| {
                let (name, value) = s.split_once('=')?;
                Some((name.to_string(), value.parse().ok()?))
            })
            .collect()
    }

    /// Formats `(part name, error)` pairs for `scene_errors`.
    pub fn format_part_errors(parts: &[(String, f64)]) -> String {
        parts.iter().map(|(n, e)| format!("{n}={e:e}")).collect::<Vec<_>>().join(";")
    }
}

/// Reads every record of a study CSV.
pub fn read_records(path: &Path) -> Result<Vec<FitRecord>, String> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    reader
        .deserialize()
        .enumerate()
        .map(|(i, r)| r.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2)))
        .collect()
}

/// Writes records to a CSV file with a header row, replacing the file.
pub fn write_records(path: &Path, records: &[FitRecord]) -> Result<(), String> {
    let mut writer = csv::Writer::from_path(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    for r in records {
        writer.serialize(r).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    writer.flush().map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip_keeps_every_field() {
        let r = FitRecord {
            scene: "gravity".into(),
            experiment: "dt".into(),
            value: Some(0.005),
            young: 1e3,
            poisson: 0.27,
            dt: 0.005,
            n: 1,
            nit: 1,
            model: "pbd".into(),
            mass_model: "lumped".into(),
            kd: 0.123456789012345,
            kv: 1.0,
            error: 1.5e-3,
            scene_errors: FitRecord::format_part_errors(&[
                ("gravity-floor".into(), 1e-3),
                ("gravity-wall".into(), 2e-3),
            ]),
            evaluations: 480,
            failed_evaluations: 21,
            seconds: 0.25,
            status: FitStatus::Ok,
            message: String::new(),
        };
        let mut base = r.clone();
        base.experiment = "base".into();
        base.value = None;
        let dir = std::env::temp_dir().join(format!("pbdfit-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.csv");
        write_records(&path, &[r.clone(), base.clone()]).unwrap();
        let back = read_records(&path).unwrap();
        assert_eq!(back, vec![r.clone(), base]);
        assert_eq!(back[0].part_errors(), vec![("gravity-floor".into(), 1e-3), ("gravity-wall".into(), 2e-3)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
