//! The results layout of a study and its curves: which scenes and experiments exist, where their CSV files
//! lie (`<scene>-<experiment>.csv`), and how the rows of one file become one curve per variant.

use std::path::{Path, PathBuf};

use pbdfit_fit::{FitRecord, FitStatus, read_records};

use crate::PlotError;

/// A scene of the thesis study (methodology, "Scenes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scene {
    /// Cube held at y = 0.
    GravityFloor,
    /// Cube held at z = 0.
    GravityWall,
    /// Cube held at y = 1.
    GravityCeiling,
    /// The three above together (compound scene; its error is the norm of the parts' errors).
    Gravity,
}

impl Scene {
    /// All scenes, in thesis order.
    pub const ALL: [Scene; 4] = [Scene::GravityFloor, Scene::GravityWall, Scene::GravityCeiling, Scene::Gravity];

    /// The name in file names and in the `scene` column, e.g. `gravity-floor`.
    pub fn file_stem(self) -> &'static str {
        match self {
            Scene::GravityFloor => "gravity-floor",
            Scene::GravityWall => "gravity-wall",
            Scene::GravityCeiling => "gravity-ceiling",
            Scene::Gravity => "gravity",
        }
    }

    /// The name a reader sees, e.g. `GravityFloor`.
    pub fn title(self) -> &'static str {
        match self {
            Scene::GravityFloor => "GravityFloor",
            Scene::GravityWall => "GravityWall",
            Scene::GravityCeiling => "GravityCeiling",
            Scene::Gravity => "Gravity",
        }
    }

    /// The scene whose [`file_stem`](Self::file_stem) is `stem`.
    pub fn from_file_stem(stem: &str) -> Option<Scene> {
        Scene::ALL.into_iter().find(|s| s.file_stem() == stem)
    }

    /// Whether this is the compound scene.
    pub fn is_compound(self) -> bool {
        self == Scene::Gravity
    }
}

/// An experiment of the study matrix (methodology, "The study matrix").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Experiment {
    /// dt = 0.01, N = 1, nit = 1, E = 1e3 Pa.
    Base,
    /// Time step dt varied.
    Dt,
    /// Mesh resolution N varied.
    N,
    /// Solver iterations nit varied.
    Nit,
    /// Young's modulus E varied.
    Young,
}

impl Experiment {
    /// All experiments, in table order.
    pub const ALL: [Experiment; 5] =
        [Experiment::Base, Experiment::Dt, Experiment::N, Experiment::Nit, Experiment::Young];

    /// The name in file names and in the `experiment` column.
    pub fn file_stem(self) -> &'static str {
        match self {
            Experiment::Base => "base",
            Experiment::Dt => "dt",
            Experiment::N => "n",
            Experiment::Nit => "nit",
            Experiment::Young => "young",
        }
    }

    /// The varied parameter as a reader names it (`dt`, `N`, `nit`, `E`; empty for the base case).
    pub fn symbol(self) -> &'static str {
        match self {
            Experiment::Base => "",
            Experiment::Dt => "dt",
            Experiment::N => "N",
            Experiment::Nit => "nit",
            Experiment::Young => "E",
        }
    }

    /// Words for titles, e.g. `time step dt`.
    pub fn title(self) -> &'static str {
        match self {
            Experiment::Base => "base case",
            Experiment::Dt => "time step dt",
            Experiment::N => "mesh resolution N",
            Experiment::Nit => "solver iterations nit",
            Experiment::Young => "Young's modulus E",
        }
    }

    /// The variants of the thesis study, in table order (which is also the colour order).
    pub fn table_values(self) -> &'static [f64] {
        match self {
            Experiment::Base => &[],
            Experiment::Dt => &[0.01, 0.005, 0.002, 0.001],
            Experiment::N => &[1.0, 2.0, 3.0, 4.0],
            Experiment::Nit => &[1.0, 2.0, 4.0, 8.0],
            Experiment::Young => &[1e3, 1e4, 1e5, 1e6],
        }
    }

    /// A variant's legend label, e.g. `dt = 0.005`, `N = 2`, `E = 1e4 Pa`.
    pub fn value_label(self, value: Option<f64>) -> String {
        match (self, value) {
            (_, None) | (Experiment::Base, _) => "base".to_string(),
            (Experiment::Young, Some(v)) => format!("E = {} Pa", format_young(v)),
            (_, Some(v)) => format!("{} = {}", self.symbol(), format_number(v)),
        }
    }

    /// Whether the error axis is logarithmic: the E experiment spans orders of magnitude.
    pub fn log_error_axis(self) -> bool {
        self == Experiment::Young
    }

    /// The experiment whose [`file_stem`](Self::file_stem) is `stem`.
    pub fn from_file_stem(stem: &str) -> Option<Experiment> {
        Experiment::ALL.into_iter().find(|e| e.file_stem() == stem)
    }
}

/// Shortest decimal form of a value (`0.005`, `2`).
pub(crate) fn format_number(v: f64) -> String {
    format!("{v}")
}

/// Young's modulus as `1e3`, `2.5e4`.
fn format_young(v: f64) -> String {
    format!("{v:e}")
}

/// The CSV file of one scene and experiment inside a results folder.
pub fn csv_path(results_dir: &Path, scene: Scene, experiment: Experiment) -> PathBuf {
    results_dir.join(format!("{}-{}.csv", scene.file_stem(), experiment.file_stem()))
}

/// One successful fit, as the curves use it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    /// Poisson ratio.
    pub nu: f64,
    /// Fitted distance stiffness.
    pub kd: f64,
    /// Fitted volume stiffness.
    pub kv: f64,
    /// Fitted error.
    pub error: f64,
    /// Compound scene: each part's error (scene, error), in the order the row lists them.
    pub parts: PartValues,
}

/// All rows of one variant (one value of the varied parameter), sorted by ν.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    /// The varied parameter's value (`None` for the base case).
    pub value: Option<f64>,
    /// Legend label, e.g. `dt = 0.005`.
    pub label: String,
    /// Index into the colour table.
    pub colour_index: usize,
    /// `(nu, Some(point))` for a successful fit, `(nu, None)` for a failed one; sorted by ν.
    pub rows: Vec<(f64, Option<Point>)>,
}

impl Variant {
    /// The successful fits.
    pub fn points(&self) -> impl Iterator<Item = &Point> {
        self.rows.iter().filter_map(|(_, p)| p.as_ref())
    }

    /// Runs of consecutive successful fits: a curve is broken where a fit failed, never bridged.
    pub fn segments(&self) -> Vec<Vec<&Point>> {
        let mut out: Vec<Vec<&Point>> = vec![Vec::new()];
        for (_, p) in &self.rows {
            match p {
                Some(p) => out.last_mut().expect("never empty").push(p),
                None => out.push(Vec::new()),
            }
        }
        out.retain(|s| !s.is_empty());
        out
    }

    /// ν of the failed fits.
    pub fn failed_nus(&self) -> Vec<f64> {
        self.rows.iter().filter(|(_, p)| p.is_none()).map(|(nu, _)| *nu).collect()
    }
}

/// The curves of one results file.
#[derive(Debug, Clone)]
pub(crate) struct ExperimentData {
    /// Scene of the file.
    pub scene: Scene,
    /// Experiment of the file.
    pub experiment: Experiment,
    /// One variant per value, in table order.
    pub variants: Vec<Variant>,
    /// dt, N, nit and E of the first row: the parameters the experiment does not vary.
    pub fixed: Option<Fixed>,
}

/// The simulation parameters of a row, as the figures name them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Fixed {
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution.
    pub n: usize,
    /// Solver iterations.
    pub nit: usize,
    /// Young's modulus in Pa.
    pub young: f64,
}

impl ExperimentData {
    /// The parameters not varied, e.g. `N = 1, nit = 1, E = 1e3 Pa` for the dt experiment (all four for
    /// the base case); empty without data.
    pub fn fixed_label(&self) -> String {
        let Some(f) = self.fixed else { return String::new() };
        let mut parts = Vec::new();
        if self.experiment != Experiment::Dt {
            parts.push(format!("dt = {}", format_number(f.dt)));
        }
        if self.experiment != Experiment::N {
            parts.push(format!("N = {}", f.n));
        }
        if self.experiment != Experiment::Nit {
            parts.push(format!("nit = {}", f.nit));
        }
        if self.experiment != Experiment::Young {
            parts.push(format!("E = {} Pa", format_young(f.young)));
        }
        parts.join(", ")
    }
}

impl ExperimentData {
    /// Number of fits (rows after removing duplicates).
    pub fn fits(&self) -> usize {
        self.variants.iter().map(|v| v.rows.len()).sum()
    }

    /// Number of failed fits.
    pub fn failed(&self) -> usize {
        self.variants.iter().map(|v| v.failed_nus().len()).sum()
    }

    /// Whether at least one fit succeeded.
    pub fn has_points(&self) -> bool {
        self.variants.iter().any(|v| v.points().next().is_some())
    }
}

/// Reads `<scene>-<experiment>.csv` from a results folder into curves.
pub(crate) fn load(results_dir: &Path, scene: Scene, experiment: Experiment) -> Result<ExperimentData, PlotError> {
    let path = csv_path(results_dir, scene, experiment);
    if !path.is_file() {
        return Err(PlotError::MissingResults { path });
    }
    let records = read_records(&path).map_err(|message| PlotError::Read { path: path.clone(), message })?;
    Ok(group(scene, experiment, &records))
}

/// Groups records into variants in table order. A repeated (value, ν) keeps the last row, so a resumed
/// study that appended a newer fit shows that one.
pub(crate) fn group(scene: Scene, experiment: Experiment, records: &[FitRecord]) -> ExperimentData {
    let mut variants: Vec<Variant> = Vec::new();
    for r in records {
        let value = if experiment == Experiment::Base { None } else { r.value };
        let point =
            (r.status == FitStatus::Ok && r.error.is_finite() && r.kd.is_finite() && r.kv.is_finite()).then(|| Point {
                nu: r.poisson,
                kd: r.kd,
                kv: r.kv,
                error: r.error,
                parts: r.part_errors().into_iter().map(|(name, e)| (Scene::from_file_stem(&name), e)).collect(),
            });
        let variant = match variants.iter_mut().position(|v| same_value(v.value, value)) {
            Some(i) => &mut variants[i],
            None => {
                variants.push(Variant {
                    value,
                    label: experiment.value_label(value),
                    colour_index: 0,
                    rows: Vec::new(),
                });
                variants.last_mut().expect("just pushed")
            }
        };
        match variant.rows.iter_mut().find(|(nu, _)| *nu == r.poisson) {
            Some(row) => row.1 = point,
            None => variant.rows.push((r.poisson, point)),
        }
    }
    for v in &mut variants {
        v.rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Table order first (it fixes the colours: black, red, green, blue), values outside the table after,
    // ascending.
    let table = experiment.table_values();
    let rank = |v: &Variant| -> (usize, f64) {
        let value = v.value.unwrap_or(f64::NAN);
        match table.iter().position(|t| same_value(Some(*t), v.value)) {
            Some(i) => (i, 0.0),
            None => (table.len(), value),
        }
    };
    variants.sort_by(|a, b| {
        let (ra, va) = rank(a);
        let (rb, vb) = rank(b);
        ra.cmp(&rb).then(va.total_cmp(&vb))
    });
    for (i, v) in variants.iter_mut().enumerate() {
        v.colour_index = i;
    }
    let fixed = records.first().map(|r| Fixed { dt: r.dt, n: r.n, nit: r.nit, young: r.young });
    ExperimentData { scene, experiment, variants, fixed }
}

/// Values equal up to rounding in the CSV text (relative 1e-9).
fn same_value(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        _ => false,
    }
}

/// `(part scene, value)` pairs of a compound scene, floor first.
pub(crate) type PartValues = Vec<(Option<Scene>, f64)>;

/// Each part's share of the compound error, in the order floor, wall, ceiling (then any other parts).
///
/// The compound error is e = sqrt(sum e_i^2) (methodology, "The error"); part i's share is
/// e * e_i^2 / sum e_j^2, so the shares are non-negative and add up to e: stacked, they fill the area
/// under the total curve, each in proportion to its contribution to the squared norm.
pub(crate) fn shares(point: &Point) -> PartValues {
    let mut parts = point.parts.clone();
    parts.sort_by_key(|(s, _)| s.map_or(usize::MAX, |s| s as usize));
    let sum_sq: f64 = parts.iter().map(|(_, e)| e * e).sum();
    if sum_sq <= 0.0 || !sum_sq.is_finite() {
        return parts.into_iter().map(|(s, _)| (s, 0.0)).collect();
    }
    parts.into_iter().map(|(s, e)| (s, point.error * e * e / sum_sq)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_parameter_and_value() {
        assert_eq!(Experiment::Dt.value_label(Some(0.005)), "dt = 0.005");
        assert_eq!(Experiment::N.value_label(Some(2.0)), "N = 2");
        assert_eq!(Experiment::Nit.value_label(Some(8.0)), "nit = 8");
        assert_eq!(Experiment::Young.value_label(Some(1e4)), "E = 1e4 Pa");
        assert_eq!(Experiment::Base.value_label(None), "base");
    }

    #[test]
    fn the_fixed_parameters_leave_out_the_varied_one() {
        let data = ExperimentData {
            scene: Scene::GravityFloor,
            experiment: Experiment::Dt,
            variants: Vec::new(),
            fixed: Some(Fixed { dt: 0.005, n: 1, nit: 2, young: 1e3 }),
        };
        assert_eq!(data.fixed_label(), "N = 1, nit = 2, E = 1e3 Pa");
        let base = ExperimentData { experiment: Experiment::Base, ..data };
        assert_eq!(base.fixed_label(), "dt = 0.005, N = 1, nit = 2, E = 1e3 Pa");
    }

    #[test]
    fn shares_add_up_to_the_total() {
        let p = Point {
            nu: 0.3,
            kd: 0.5,
            kv: 0.5,
            error: (0.01f64 + 0.04 + 0.0).sqrt(),
            parts: vec![
                (Some(Scene::GravityWall), 0.2),
                (Some(Scene::GravityFloor), 0.1),
                (Some(Scene::GravityCeiling), 0.0),
            ],
        };
        let s = shares(&p);
        assert_eq!(
            s.iter().map(|(sc, _)| *sc).collect::<Vec<_>>(),
            vec![Some(Scene::GravityFloor), Some(Scene::GravityWall), Some(Scene::GravityCeiling)]
        );
        let total: f64 = s.iter().map(|(_, v)| v).sum();
        // Three additions of positive numbers: a few ulps.
        assert!((total - p.error).abs() < 1e-15);
        assert!((s[1].1 / s[0].1 - 4.0).abs() < 1e-12);
    }
}
