//! The plan of a run: every unique fit and the rows it writes, after the `--only` filter.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{Configuration, Setting, Study};
use pbdfit_fit::FitError;

/// Identity of one unique fit: scene set, configuration and nu (bit patterns, so it can be hashed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct FitKey {
    /// Index of the scene set in the study.
    pub scene: usize,
    /// dt bits.
    pub dt: u64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations.
    pub nit: usize,
    /// Young's modulus bits.
    pub young: u64,
    /// Poisson ratio bits.
    pub poisson: u64,
    /// A sheet's thickness bits (`None` for a solid).
    #[serde(default)]
    pub thickness: Option<u64>,
}

impl FitKey {
    /// The key of a fit.
    pub fn new(scene: usize, c: &Configuration, poisson: f64) -> Self {
        Self {
            scene,
            dt: c.dt.to_bits(),
            n: c.n,
            nit: c.nit,
            young: c.young.to_bits(),
            poisson: poisson.to_bits(),
            thickness: c.thickness.map(f64::to_bits),
        }
    }

    /// The configuration the key encodes.
    pub fn configuration(&self) -> Configuration {
        Configuration {
            dt: f64::from_bits(self.dt),
            n: self.n,
            nit: self.nit,
            young: f64::from_bits(self.young),
            thickness: self.thickness.map(f64::from_bits),
        }
    }

    /// The Poisson ratio.
    pub fn poisson(&self) -> f64 {
        f64::from_bits(self.poisson)
    }
}

/// One row a unique fit writes: its file and the experiment's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Index into [`Plan::files`].
    pub file: usize,
    /// Experiment name.
    pub experiment: String,
    /// The experiment's value (`None` for a base case).
    pub value: Option<f64>,
}

/// The unique fits of a (filtered) study and the rows each writes.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The CSV files, one per (scene, experiment) kept by the filter.
    pub files: Vec<PathBuf>,
    /// Every unique fit, in key order, with the rows it writes.
    pub fits: BTreeMap<FitKey, Vec<Target>>,
}

/// Whether a `--only` filter keeps `(scene, experiment)`: filters are `scene`, `scene/experiment` or
/// `*/experiment`; no filter keeps everything.
pub fn matches_filter(only: &[String], scene: &str, experiment: &str) -> bool {
    only.is_empty()
        || only.iter().any(|f| match f.split_once('/') {
            Some((s, e)) => (s == "*" || s == scene) && (e == "*" || e == experiment),
            None => f == scene,
        })
}

impl Plan {
    /// Plans `study` into `out_dir`. A filter that matches nothing is an error naming what exists.
    pub fn new(study: &Study, out_dir: &Path, only: &[String]) -> Result<Self, FitError> {
        for f in only {
            let (s, e) = f.split_once('/').unwrap_or((f.as_str(), "*"));
            let scene_ok = s == "*" || study.scene_names().contains(&s);
            let experiment_ok = e == "*" || study.experiments.iter().any(|x| x.name == e);
            if !scene_ok || !experiment_ok {
                return Err(FitError::StudyFile {
                    origin: study.origin.clone(),
                    entry: format!("--only `{f}`"),
                    message: format!(
                        "matches nothing: scenes are {}, experiments {}",
                        study.scene_names().join(", "),
                        study.experiments.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                });
            }
        }
        let mut files = Vec::new();
        let mut fits: BTreeMap<FitKey, Vec<Target>> = BTreeMap::new();
        for (si, name) in study.scene_names().into_iter().enumerate() {
            for e in &study.experiments {
                if !matches_filter(only, name, &e.name) {
                    continue;
                }
                let file = files.len();
                files.push(out_dir.join(format!("{name}-{}.csv", e.name)));
                let values: Vec<Option<(Setting, f64)>> = match &e.varies {
                    None => vec![None],
                    Some((p, vs)) => vs.iter().map(|v| Some((*p, *v))).collect(),
                };
                for v in values {
                    let c = study.resolved(si, study.configuration(v));
                    for &nu in &study.poisson {
                        fits.entry(FitKey::new(si, &c, nu)).or_default().push(Target {
                            file,
                            experiment: e.name.clone(),
                            value: v.map(|x| x.1),
                        });
                    }
                }
            }
        }
        Ok(Self { files, fits })
    }

    /// Plans fits at an explicit list of configurations (e.g. the nodes of a stiffness table), each at
    /// every nu of `study`, for every scene set: one file per scene set, `<scene>-<experiment>.csv`,
    /// whose rows carry no experiment value (the row's settings say which configuration it is). The
    /// study's own experiments are not planned.
    pub fn from_configurations(
        study: &Study,
        out_dir: &Path,
        experiment: &str,
        configurations: &[Configuration],
    ) -> Self {
        let mut files = Vec::new();
        let mut fits: BTreeMap<FitKey, Vec<Target>> = BTreeMap::new();
        for (si, name) in study.scene_names().into_iter().enumerate() {
            let file = files.len();
            files.push(out_dir.join(format!("{name}-{experiment}.csv")));
            for c in configurations {
                for &nu in &study.poisson {
                    let targets = fits.entry(FitKey::new(si, &study.resolved(si, *c), nu)).or_default();
                    if targets.is_empty() {
                        targets.push(Target { file, experiment: experiment.to_string(), value: None });
                    }
                }
            }
        }
        Self { files, fits }
    }

    /// The remaining fits grouped by grid configuration (dt, N, nit): grids are shared inside a group.
    pub fn groups(keys: &[FitKey]) -> BTreeMap<(u64, usize, usize), Vec<FitKey>> {
        let mut groups: BTreeMap<(u64, usize, usize), Vec<FitKey>> = BTreeMap::new();
        for k in keys {
            groups.entry((k.dt, k.n, k.nit)).or_default().push(*k);
        }
        groups
    }

    /// Index of each scene set by name.
    pub fn scene_index(study: &Study) -> HashMap<&str, usize> {
        study.scene_names().into_iter().enumerate().map(|(i, s)| (s, i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study() -> Study {
        Study::parse(
            r#"
name = "t"
scenes = ["gravity-floor", "gravity-wall"]
[base]
dt = 0.01
n = 1
nit = 1
young = 1e3
[poisson]
from = 0.0
to = 0.1
step = 0.1
[[experiment]]
name = "base"
[[experiment]]
name = "dt"
parameter = "dt"
values = [0.01, 0.005]
[[experiment]]
name = "young"
parameter = "young"
values = [1e3, 1e4]
"#,
            "t.toml",
        )
        .unwrap()
    }

    /// The base configuration is also the first value of `dt` and `young`: it is fitted once and written
    /// to three files.
    #[test]
    fn shared_fits_are_planned_once() {
        let plan = Plan::new(&study(), Path::new("out"), &[]).unwrap();
        assert_eq!(plan.files.len(), 6);
        // per scene: base (1) + dt 0.005 (1) + young 1e4 (1) = 3 configurations x 2 nu = 6; two scenes.
        assert_eq!(plan.fits.len(), 12);
        let base = FitKey::new(0, &study().base, 0.0);
        let targets: Vec<&str> = plan.fits[&base].iter().map(|t| t.experiment.as_str()).collect();
        assert_eq!(targets, ["base", "dt", "young"]);
        let rows: usize = plan.fits.values().map(|t| t.len()).sum();
        assert_eq!(rows, 2 * 2 * (1 + 2 + 2));
    }

    /// An explicit list of configurations plans each (configuration, nu) once, into one file per scene.
    #[test]
    fn explicit_configurations_are_planned_once_each() {
        let s = study();
        let a = Configuration { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None };
        let b = Configuration { dt: 0.005, n: 2, nit: 4, young: 1e4, thickness: None };
        let plan = Plan::from_configurations(&s, Path::new("out"), "table", &[a, b, a]);
        assert_eq!(plan.files, vec![Path::new("out/gravity-floor-table.csv"), Path::new("out/gravity-wall-table.csv")]);
        // 2 scenes x 2 distinct configurations x 2 nu.
        assert_eq!(plan.fits.len(), 8);
        assert!(plan.fits.values().all(|t| t.len() == 1 && t[0].value.is_none()));
        assert_eq!(Plan::groups(&plan.fits.keys().copied().collect::<Vec<_>>()).len(), 2);
    }

    #[test]
    fn the_only_filter_keeps_scenes_and_experiments() {
        let s = study();
        let plan = Plan::new(&s, Path::new("out"), &["gravity-wall/dt".into()]).unwrap();
        assert_eq!(plan.files, vec![Path::new("out").join("gravity-wall-dt.csv")]);
        assert_eq!(plan.fits.len(), 4);
        let plan = Plan::new(&s, Path::new("out"), &["*/young".into(), "gravity-floor".into()]).unwrap();
        assert_eq!(plan.files.len(), 4);
        assert!(matches_filter(&[], "x", "y"));
        assert!(!matches_filter(&["a/b".into()], "a", "c"));
        let e = Plan::new(&s, Path::new("out"), &["gravity-ceiling".into()]).unwrap_err().to_string();
        assert!(e.contains("matches nothing") && e.contains("gravity-floor, gravity-wall"), "{e}");
    }
}
