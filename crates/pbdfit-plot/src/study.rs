//! From a results file to curves: the rows of one `<scene>-<experiment>.csv` become one curve per variant
//! (value of the varied setting), with the study's layout (scene parts, experiment values, the model's
//! parameters) deciding order, colours and axes.

use std::path::Path;

use pbdfit_results::{ExperimentLayout, FitRecord, FitStatus, ParameterLayout, SceneLayout, StudyLayout, read_records};

use crate::PlotError;
use crate::canvas::{number, scientific};

/// One successful fit, as the curves use it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    /// Poisson ratio.
    pub nu: f64,
    /// Fitted parameters in the layout's parameter order.
    pub values: Vec<f64>,
    /// Fitted error.
    pub error: f64,
    /// Compound scene: each part's error `(scene, error)`, in the order the row lists them.
    pub parts: Vec<(String, f64)>,
    /// The parameters the fit reports on the edge of the search box.
    pub at_bound: Vec<String>,
}

/// All rows of one variant (one value of the varied setting), sorted by ν.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    /// The varied setting's value (`None` for a base case).
    pub value: Option<f64>,
    /// Legend label with the unit, e.g. `dt = 0.005 s` ([`value_label`]).
    pub label: String,
    /// Index into the colour, marker and dash tables (the layout's value order).
    pub style_index: usize,
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

/// The curves of one results file, with the layout that describes them.
#[derive(Debug, Clone)]
pub(crate) struct ExperimentData {
    /// Scene of the file.
    pub scene: SceneLayout,
    /// Experiment of the file.
    pub experiment: ExperimentLayout,
    /// The model's name (`pbd`, `xpbd`, ...), from the layout.
    pub model: String,
    /// The fitted parameters, in the layout's order.
    pub parameters: Vec<ParameterLayout>,
    /// One variant per value, in the layout's value order (values not in the layout after, ascending).
    pub variants: Vec<Variant>,
    /// dt, N, nit and E of the first row: the settings the experiment does not vary.
    pub fixed: Option<Fixed>,
}

/// The simulation settings of a row, as the figures name them.
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
    /// The settings not varied, with units, e.g. `N = 1, nit = 1, E = 1e3 Pa` for the dt experiment
    /// (all four for a base case: `dt = 0.01 s, N = 1, nit = 1, E = 1e3 Pa`); empty without data.
    pub fn fixed_label(&self) -> String {
        let Some(f) = self.fixed else { return String::new() };
        let varied = self.experiment.setting.as_deref();
        let mut parts = Vec::new();
        if varied != Some("dt") {
            parts.push(setting_label("dt", f.dt));
        }
        if varied != Some("n") {
            parts.push(setting_label("n", f.n as f64));
        }
        if varied != Some("nit") {
            parts.push(setting_label("nit", f.nit as f64));
        }
        if varied != Some("young") {
            parts.push(setting_label("young", f.young));
        }
        parts.join(", ")
    }

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

    /// The parameter names joined for a sentence: `kd and kv`, `a, b and c`.
    pub fn parameter_list(&self) -> String {
        and_list(&self.parameters.iter().map(|p| p.name.clone()).collect::<Vec<_>>())
    }
}

/// A setting's value as a reader sees it in a legend or title, with its unit and at most six significant
/// digits: `dt = 0.005 s`, `dt = 0.00333333 s`, `N = 2`, `nit = 10`, `E = 1e4 Pa`; another setting as
/// `<setting> = <value>`.
pub(crate) fn setting_label(setting: &str, value: f64) -> String {
    match setting {
        "dt" => format!("dt = {} s", number(value)),
        "n" => format!("N = {}", number(value)),
        "young" => format!("E = {} Pa", scientific(value)),
        other => format!("{other} = {}", number(value)),
    }
}

/// A variant's legend label: [`setting_label`] of the experiment's setting, `base` for a base case.
pub(crate) fn value_label(experiment: &ExperimentLayout, value: Option<f64>) -> String {
    match (experiment.setting.as_deref(), value) {
        (Some(setting), Some(v)) => setting_label(setting, v),
        _ => "base".into(),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Reads `<scene>-<experiment>.csv` from a results folder into curves.
pub(crate) fn load(
    results_dir: &Path,
    layout: &StudyLayout,
    scene: &SceneLayout,
    experiment: &ExperimentLayout,
) -> Result<ExperimentData, PlotError> {
    let path = layout.csv_path(results_dir, &scene.name, &experiment.name);
    if !path.is_file() {
        return Err(PlotError::MissingResults { path });
    }
    let records = read_records(&path).map_err(|e| PlotError::Read { path: path.clone(), message: e.to_string() })?;
    Ok(group(layout, scene, experiment, &records))
}

/// Groups records into variants in the layout's value order. A repeated (value, ν) keeps the last row, so
/// a resumed study that appended a newer fit shows that one.
pub(crate) fn group(
    layout: &StudyLayout,
    scene: &SceneLayout,
    experiment: &ExperimentLayout,
    records: &[FitRecord],
) -> ExperimentData {
    let base = experiment.setting.is_none();
    let mut variants: Vec<Variant> = Vec::new();
    for r in records {
        let value = if base { None } else { r.value };
        let values: Vec<f64> = layout.parameters.iter().map(|p| r.parameter(&p.name).unwrap_or(f64::NAN)).collect();
        let ok = r.status == FitStatus::Ok && r.error.is_finite() && values.iter().all(|v| v.is_finite());
        let point = ok.then(|| Point {
            nu: r.poisson,
            values,
            error: r.error,
            parts: r.scene_errors.clone(),
            at_bound: r.at_bound.clone(),
        });
        let variant = match variants.iter_mut().position(|v| same_value(v.value, value)) {
            Some(i) => &mut variants[i],
            None => {
                variants.push(Variant {
                    value,
                    label: value_label(experiment, value),
                    style_index: 0,
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
    // The layout's order first (it fixes colours, markers and dashes), values outside it after, ascending.
    let table = &experiment.values;
    let rank = |v: &Variant| -> (usize, f64) {
        match table.iter().position(|t| same_value(Some(*t), v.value)) {
            Some(i) => (i, 0.0),
            None => (table.len(), v.value.unwrap_or(f64::NAN)),
        }
    };
    variants.sort_by(|a, b| {
        let (ra, va) = rank(a);
        let (rb, vb) = rank(b);
        ra.cmp(&rb).then(va.total_cmp(&vb))
    });
    for (i, v) in variants.iter_mut().enumerate() {
        v.style_index = i;
    }
    let fixed = records.first().map(|r| Fixed { dt: r.dt, n: r.n, nit: r.nit, young: r.young });
    ExperimentData {
        scene: scene.clone(),
        experiment: experiment.clone(),
        model: layout.model.clone(),
        parameters: layout.parameters.clone(),
        variants,
        fixed,
    }
}

/// Both absent, or the same value ([`pbdfit_results::same_value`]).
fn same_value(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => pbdfit_results::same_value(a, b),
        _ => false,
    }
}

/// Each part's share of the compound error in percent, in the scene's part order (parts a row names but
/// the layout does not come after, in row order).
///
/// The compound error is e = sqrt(sum e_i^2) (docs/method.md, section The error); part i's share is
/// 100 e_i^2 / sum e_j^2: its contribution to the squared norm. The shares are non-negative and add up to
/// 100 whatever the size of e, so they stay readable when e spans decades (the E experiment). All zero
/// when the parts' errors are all zero or not finite.
pub(crate) fn share_percent(scene: &SceneLayout, point: &Point) -> Vec<(String, f64)> {
    let mut parts: Vec<(String, f64)> = Vec::new();
    for name in &scene.parts {
        let e = point.parts.iter().find(|(n, _)| n == name).map_or(0.0, |p| p.1);
        parts.push((name.clone(), e));
    }
    for (n, e) in &point.parts {
        if !scene.parts.contains(n) {
            parts.push((n.clone(), *e));
        }
    }
    let sum_sq: f64 = parts.iter().map(|(_, e)| e * e).sum();
    if sum_sq <= 0.0 || !sum_sq.is_finite() {
        return parts.into_iter().map(|(s, _)| (s, 0.0)).collect();
    }
    parts.into_iter().map(|(s, e)| (s, 100.0 * e * e / sum_sq)).collect()
}

/// Each part's share of the compound error in the error's own units (share percent times e / 100): the
/// shares stack up to the total curve on a linear axis (the base figure).
pub(crate) fn share_absolute(scene: &SceneLayout, point: &Point) -> Vec<(String, f64)> {
    share_percent(scene, point).into_iter().map(|(s, pct)| (s, pct / 100.0 * point.error)).collect()
}

#[cfg(test)]
mod tests {
    use pbdfit_results::Scale;

    use super::*;

    fn experiment(setting: Option<&str>, values: Vec<f64>) -> ExperimentLayout {
        ExperimentLayout { name: setting.unwrap_or("base").into(), setting: setting.map(String::from), values }
    }

    fn data(setting: Option<&str>) -> ExperimentData {
        ExperimentData {
            scene: SceneLayout { name: "gravity-floor".into(), parts: vec![] },
            experiment: experiment(setting, vec![]),
            model: "pbd".into(),
            parameters: vec![ParameterLayout {
                name: "kd".into(),
                unit: "1".into(),
                scale: Scale::Linear,
                lower: 0.0,
                upper: 1.0,
            }],
            variants: Vec::new(),
            fixed: Some(Fixed { dt: 0.005, n: 1, nit: 2, young: 1e3 }),
        }
    }

    #[test]
    fn the_fixed_settings_leave_out_the_varied_one() {
        assert_eq!(data(Some("dt")).fixed_label(), "N = 1, nit = 2, E = 1e3 Pa");
        assert_eq!(data(None).fixed_label(), "dt = 0.005 s, N = 1, nit = 2, E = 1e3 Pa");
        assert_eq!(data(Some("young")).fixed_label(), "dt = 0.005 s, N = 1, nit = 2");
    }

    /// Every label names its unit, with at most six significant digits.
    #[test]
    fn labels_carry_units() {
        let dt = experiment(Some("dt"), vec![0.005]);
        assert_eq!(value_label(&dt, Some(0.005)), "dt = 0.005 s");
        assert_eq!(value_label(&dt, Some(1.0 / 300.0)), "dt = 0.00333333 s");
        assert_eq!(value_label(&experiment(Some("young"), vec![]), Some(1e4)), "E = 1e4 Pa");
        assert_eq!(value_label(&experiment(Some("n"), vec![]), Some(2.0)), "N = 2");
        assert_eq!(value_label(&experiment(Some("nit"), vec![]), Some(10.0)), "nit = 10");
        assert_eq!(value_label(&experiment(None, vec![]), None), "base");
        let mut d = data(None);
        d.fixed = Some(Fixed { dt: 0.0033333333333333335, n: 1, nit: 1, young: 2.5e4 });
        assert_eq!(d.fixed_label(), "dt = 0.00333333 s, N = 1, nit = 1, E = 2.5e4 Pa");
    }

    #[test]
    fn shares_are_percent_in_part_order_and_add_to_100() {
        let scene = SceneLayout {
            name: "gravity".into(),
            parts: vec!["gravity-floor".into(), "gravity-wall".into(), "gravity-ceiling".into()],
        };
        // Errors over six decades (the E experiment): the percentages do not care.
        for scale in [1e-6, 1.0, 1e3] {
            let p = Point {
                nu: 0.3,
                values: vec![0.5],
                error: scale * (0.01f64 + 0.04 + 0.0001).sqrt(),
                parts: vec![
                    ("gravity-wall".into(), scale * 0.2),
                    ("gravity-floor".into(), scale * 0.1),
                    ("gravity-ceiling".into(), scale * 0.01),
                ],
                at_bound: vec![],
            };
            let s = share_percent(&scene, &p);
            assert_eq!(s.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), scene.parts);
            let total: f64 = s.iter().map(|(_, v)| v).sum();
            assert!((total - 100.0).abs() < 1e-12, "{total}");
            assert!((s[1].1 / s[0].1 - 4.0).abs() < 1e-12);
            // The smallest part is 0.2 % and still there.
            assert!((s[2].1 - 100.0 * 1e-4 / 0.0501).abs() < 1e-9);
            let abs: f64 = share_absolute(&scene, &p).iter().map(|(_, v)| v).sum();
            assert!((abs - p.error).abs() <= 1e-12 * p.error);
        }
    }

    #[test]
    fn variants_follow_the_layout_order_then_ascending() {
        let layout_exp = experiment(Some("dt"), vec![0.01, 0.005]);
        let mut d = data(Some("dt"));
        d.experiment = layout_exp.clone();
        let layout = StudyLayout {
            name: "s".into(),
            description: String::new(),
            model: "pbd".into(),
            parameters: d.parameters.clone(),
            reference: "FEM".into(),
            precision: "f64".into(),
            mass_model: None,
            scenes: vec![d.scene.clone()],
            experiments: vec![layout_exp.clone()],
            base: pbdfit_results::BaseSettings { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None },
            poisson: vec![0.0],
            grid: 21,
            min_step: 1e-4,
            search: None,
            neighbour_starts: false,
        };
        let row = |value: f64, nu: f64| FitRecord {
            scene: "gravity-floor".into(),
            experiment: "dt".into(),
            value: Some(value),
            young: 1e3,
            poisson: nu,
            dt: value,
            n: 1,
            nit: 1,
            model: "pbd".into(),
            mass_model: "lumped".into(),
            parameters: vec![("kd".into(), 0.5)],
            error: 0.1,
            scene_errors: vec![],
            evaluations: 1,
            failed_evaluations: 0,
            at_bound: vec![],
            condition: None,
            hessian: Vec::new(),
            ranges: Vec::new(),
            seconds: 0.0,
            status: FitStatus::Ok,
            message: String::new(),
            reference: "linear static".into(),
            search: None,
            thickness: None,
        };
        let records = [row(0.003, 0.1), row(0.005, 0.2), row(0.001, 0.1), row(0.005, 0.1), row(0.01, 0.0)];
        let g = group(&layout, &d.scene, &layout_exp, &records);
        let values: Vec<f64> = g.variants.iter().map(|v| v.value.unwrap()).collect();
        assert_eq!(values, [0.01, 0.005, 0.001, 0.003]);
        assert_eq!(g.variants[1].rows.iter().map(|r| r.0).collect::<Vec<_>>(), [0.1, 0.2]);
        assert_eq!(g.variants.iter().map(|v| v.style_index).collect::<Vec<_>>(), [0, 1, 2, 3]);
    }
}
