//! A study's results folder as series: a quantity against nu for one scene, experiment and value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pbdfit_results::{FitRecord, FitStatus, StudyLayout, read_records, read_summary};

use crate::{ClaimsError, Quantity};

/// The fits of a results folder, by scene and experiment. Experiments whose CSV is absent are simply
/// not there: claims on them are "not run".
#[derive(Debug, Clone)]
pub struct Results {
    dir: PathBuf,
    layout: StudyLayout,
    records: BTreeMap<(String, String), Vec<FitRecord>>,
}

/// One point of [`Results::ranged_series`]: nu, the value, and the interval `(low, high)` it is known
/// within.
pub type RangedPoint = (f64, f64, (f64, f64));

pub(crate) use pbdfit_results::same_value;

impl Results {
    /// Reads `summary.json` and every `<scene>-<experiment>.csv` of the layout that exists.
    pub fn open(dir: &Path) -> Result<Results, ClaimsError> {
        let layout = read_summary(dir)?.layout;
        let mut records = BTreeMap::new();
        for scene in &layout.scenes {
            for experiment in &layout.experiments {
                let path = layout.csv_path(dir, &scene.name, &experiment.name);
                if path.exists() {
                    records.insert((scene.name.clone(), experiment.name.clone()), read_records(&path)?);
                }
            }
        }
        Ok(Results { dir: dir.to_path_buf(), layout, records })
    }

    /// Results from records in memory (tests, or results not on disk).
    pub fn from_records(layout: StudyLayout, records: Vec<FitRecord>) -> Results {
        let mut map: BTreeMap<(String, String), Vec<FitRecord>> = BTreeMap::new();
        for r in records {
            map.entry((r.scene.clone(), r.experiment.clone())).or_default().push(r);
        }
        Results { dir: PathBuf::new(), layout, records: map }
    }

    /// The folder the results were read from (empty for [`Results::from_records`]).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The study's layout.
    pub fn layout(&self) -> &StudyLayout {
        &self.layout
    }

    /// Whether any fit of this scene and experiment was read.
    pub fn has(&self, scene: &str, experiment: &str) -> bool {
        self.records.contains_key(&(scene.to_string(), experiment.to_string()))
    }

    /// `quantity` against nu, ascending in nu, for one scene, experiment and value (`None`: the base
    /// case), from the successful fits only. `None` when there is no such fit or a fit lacks the
    /// quantity (an unknown parameter, or `share:` of a part the scene does not have).
    pub fn series(
        &self,
        scene: &str,
        experiment: &str,
        value: Option<f64>,
        quantity: &Quantity,
    ) -> Option<Vec<(f64, f64)>> {
        Some(self.ranged_series(scene, experiment, value, quantity)?.into_iter().map(|(n, q, _)| (n, q)).collect())
    }

    /// As [`Results::series`], each value with the interval it is known within: for a parameter, the
    /// fit's identifiability range (column `ranges`: where the fit's error rises by at most 1 %),
    /// widened to contain the value; for a parameter without a range (results older than the column),
    /// an error or a share, the value itself (no uncertainty is known, so none is assumed).
    pub fn ranged_series(
        &self,
        scene: &str,
        experiment: &str,
        value: Option<f64>,
        quantity: &Quantity,
    ) -> Option<Vec<RangedPoint>> {
        let records = self.records.get(&(scene.to_string(), experiment.to_string()))?;
        let mut out = Vec::new();
        for r in records.iter().filter(|r| match (r.value, value) {
            (None, None) => true,
            (Some(a), Some(b)) => same_value(a, b),
            _ => false,
        }) {
            if r.status != FitStatus::Ok {
                continue;
            }
            let q = match quantity {
                Quantity::Error => r.error,
                Quantity::Parameter(name) => r.parameter(name)?,
                Quantity::Share(part) => {
                    let e = r.scene_errors.iter().find(|(n, _)| n == part)?.1;
                    e * e / (r.error * r.error)
                }
            };
            if q.is_finite() {
                let range = match quantity {
                    Quantity::Parameter(name) => r
                        .ranges
                        .iter()
                        .find(|(n, lo, hi)| n == name && lo.is_finite() && hi.is_finite())
                        .map_or((q, q), |(_, lo, hi)| (lo.min(q), hi.max(q))),
                    Quantity::Error | Quantity::Share(_) => (q, q),
                };
                out.push((r.poisson, q, range));
            }
        }
        if out.is_empty() {
            return None;
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(out)
    }

    /// The experiment's values as the study lists them (empty for a base case or an unknown experiment).
    pub fn values(&self, experiment: &str) -> Vec<f64> {
        self.layout.experiment(experiment).map(|e| e.values.clone()).unwrap_or_default()
    }

    /// The varied setting's symbol for messages (`dt`, `N`, `nit`, `E`; the experiment name otherwise).
    pub fn symbol(&self, experiment: &str) -> String {
        match self.layout.experiment(experiment) {
            Some(e) if e.setting.is_some() => e.symbol().to_string(),
            _ => experiment.to_string(),
        }
    }
}
