//! A comparison of models: the results folder of a study file with `models = [...]` (one study per model
//! in `<results>/<model>/`), drawn as the best error of every model against ν per scene and setting,
//! and summarised in a ranking table with the identifiability of the fits (`reports/models`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pbdfit_results::{
    ExperimentLayout, FitRecord, FitStatus, ParameterLayout, Scale, SceneLayout, StudySummary, read_records,
    read_summary,
};

use crate::curves::ErrorFigure;
use crate::study::{ExperimentData, Fixed, Point, Variant};
use crate::{FigureContent, PlotError, canvas, style};

/// One model's results.
struct ModelResults {
    name: String,
    summary: StudySummary,
    records: Vec<FitRecord>,
}

/// A setting of the comparison: (dt, N, nit, E).
type Setting = (f64, usize, usize, f64);

fn setting_of(r: &FitRecord) -> Setting {
    (r.dt, r.n, r.nit, r.young)
}

/// `dt = 0.01 s, N = 1, nit = 1, E = 1e3 Pa`.
fn setting_label((dt, n, nit, young): Setting) -> String {
    use crate::study::setting_label as one;
    [one("dt", dt), one("n", n as f64), one("nit", nit as f64), one("young", young)].join(", ")
}

/// Whether `dir` holds a comparison of models: no `summary.json` of its own, and sub-folders that have one.
pub fn is_models_folder(dir: &Path) -> bool {
    !dir.join("summary.json").is_file() && model_dirs(dir).map(|d| !d.is_empty()).unwrap_or(false)
}

fn model_dirs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("summary.json").is_file())
        .collect();
    out.sort();
    Ok(out)
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let m = values.len() / 2;
    if values.len() % 2 == 1 { values[m] } else { 0.5 * (values[m - 1] + values[m]) }
}

/// Three significant digits: fixed for 1e-3 and above, scientific below.
fn number(v: f64) -> String {
    if v.abs() >= 1e-3 || v == 0.0 || !v.is_finite() { format!("{v:.3}") } else { format!("{v:.2e}") }
}

fn ok(r: &FitRecord) -> bool {
    r.status == FitStatus::Ok && r.error.is_finite()
}

/// The width of a 1 % range as a reader compares them: decades on a log axis, the value's span on a
/// linear one.
fn range_width(p: &ParameterLayout, lo: f64, hi: f64) -> f64 {
    match p.scale {
        Scale::Log10 => (hi / lo).log10(),
        Scale::Linear => hi - lo,
    }
}

/// What [`render_models`] wrote.
#[derive(Debug, Clone)]
pub struct ModelsReport {
    /// The figures (PNG; an SVG sits next to each).
    pub figures: Vec<PathBuf>,
    /// The Markdown report.
    pub report: PathBuf,
}

/// Draws the comparison in `results` (sub-folders per model) into `out`: one figure per scene and
/// setting (best error against ν, one curve per model) and `README.md` with the ranking table, the
/// identifiability per model, and `notes` (Markdown) appended. The models are listed in `order` (model
/// names: the caller passes the model registry's order, which this crate, reading results only, does
/// not know), a model missing from it after those, by name.
pub fn render_models(
    results: &Path,
    out: &Path,
    order: &[&str],
    notes: Option<&str>,
) -> Result<ModelsReport, PlotError> {
    if !results.is_dir() {
        return Err(PlotError::ResultsDir { path: results.to_path_buf() });
    }
    let dirs = model_dirs(results).map_err(|_| PlotError::ResultsDir { path: results.to_path_buf() })?;
    let mut models = Vec::new();
    for dir in &dirs {
        let summary = read_summary(dir).map_err(|e| PlotError::Summary { message: e.to_string() })?;
        let mut records = Vec::new();
        for file in &summary.files {
            let path = dir.join(file);
            let rows =
                read_records(&path).map_err(|e| PlotError::Read { path: path.clone(), message: e.to_string() })?;
            records.extend(rows);
        }
        // A fit appears once per experiment that holds its setting: keep one row per (scene, setting, nu).
        let mut unique: BTreeMap<(String, String, String), FitRecord> = BTreeMap::new();
        for r in records {
            unique.insert((r.scene.clone(), format!("{:?}", setting_of(&r)), format!("{:.6}", r.poisson)), r);
        }
        let name = summary.layout.model.clone();
        models.push(ModelResults { name, summary, records: unique.into_values().collect() });
    }
    models.sort_by(|a, b| {
        let rank = |name: &str| order.iter().position(|p| *p == name).unwrap_or(order.len());
        rank(&a.name).cmp(&rank(&b.name)).then_with(|| a.name.cmp(&b.name))
    });
    std::fs::create_dir_all(out).map_err(|e| PlotError::Write { path: out.to_path_buf(), source: e })?;
    let scenes: Vec<SceneLayout> = models.first().map(|m| m.summary.layout.scenes.clone()).unwrap_or_default();
    let mut settings: Vec<Setting> = models.iter().flat_map(|m| m.records.iter().map(setting_of)).collect();
    settings.sort_by(|a, b| a.partial_cmp(b).expect("finite settings"));
    settings.dedup();
    let experiment = ExperimentLayout {
        name: "models".into(),
        setting: Some("model".into()),
        values: (0..models.len()).map(|i| i as f64).collect(),
    };
    let mut figures = Vec::new();
    let mut md = String::new();
    let reference = models.first().map(|m| m.summary.layout.reference.clone()).unwrap_or_default();
    let version = models.first().map(|m| m.summary.pbdfit_version.clone()).unwrap_or_default();
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    let _ = writeln!(md, "# Which model reproduces linear elasticity? {} models compared\n", models.len());
    let _ = writeln!(
        md,
        "Generated by `pbdfit plot {}` (pbdfit {version}) from the results of `pbdfit study` with one study per \
         model ({}). Every fit matches the same reference, {reference}. Each model searches its own default box; \
         the error is the thesis's relative error e of the rest state (docs/method.md, section The error).\n",
        results.display(),
        crate::study::and_list(&names)
    );
    // Figures and per-(scene, setting) rankings.
    let mut rankings = Vec::new();
    for scene in &scenes {
        for &setting in &settings {
            let variants: Vec<Variant> = models
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let mut rows: Vec<(f64, Option<Point>)> = m
                        .records
                        .iter()
                        .filter(|r| r.scene == scene.name && setting_of(r) == setting)
                        .map(|r| {
                            let p = ok(r).then(|| Point {
                                nu: r.poisson,
                                values: Vec::new(),
                                error: r.error,
                                parts: r.scene_errors.clone(),
                                at_bound: r.at_bound.clone(),
                            });
                            (r.poisson, p)
                        })
                        .collect();
                    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Variant { value: Some(i as f64), label: m.name.clone(), style_index: i, rows }
                })
                .collect();
            if variants.iter().all(|v| v.rows.is_empty()) {
                continue;
            }
            let (dt, n, nit, young) = setting;
            let data = ExperimentData {
                scene: scene.clone(),
                experiment: experiment.clone(),
                model: String::new(),
                parameters: Vec::new(),
                variants,
                fixed: Some(Fixed { dt, n, nit, young }),
            };
            let stem = format!("error-{}-n{n}-nit{nit}", scene.name);
            let size = style::figure_size(FigureContent::Error, scene.is_compound(), 0);
            let title = format!("{}: best error of each model", scene.title());
            let files = canvas::save(&ErrorFigure { title, data: &data }, out, &stem, size)?;
            figures.push(files.png.clone());
            // Ranking by the median error over ν.
            let mut scored: Vec<(String, f64, f64)> = data
                .variants
                .iter()
                .map(|v| {
                    let mut e: Vec<f64> = v.points().map(|p| p.error).collect();
                    let last = v.rows.last().and_then(|(_, p)| p.as_ref()).map(|p| p.error).unwrap_or(f64::NAN);
                    (v.label.clone(), median(&mut e), last)
                })
                .collect();
            scored.sort_by(|a, b| a.1.total_cmp(&b.1));
            rankings.push((scene.clone(), setting, stem, scored));
        }
    }
    // The table.
    let _ = writeln!(md, "## Ranking\n");
    let _ = writeln!(
        md,
        "Per model, over every scene, setting and ν: the median and worst error, how many fits sit on the edge of \
         their box, and the time per fit (grid rest states shared by the fits of one scene and setting are not \
         included). Identifiability: the median condition number of the error's Hessian at the optimum (search \
         coordinates: the value, or log10 of it), the share of fits where it is not positive definite \
         (some direction does not raise the error), and per parameter the median width of the range in which \
         the error stays within 1 % of the minimum (decades on log axes).\n"
    );
    let _ = writeln!(
        md,
        "| model | parameters | fits | median e | worst e | at box edge | median s/fit | median condition | not determined | 1 % range (median width) |"
    );
    let _ = writeln!(md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut sentences = Vec::new();
    for m in &models {
        let fits: Vec<&FitRecord> = m.records.iter().collect();
        let good: Vec<&&FitRecord> = fits.iter().filter(|r| ok(r)).collect();
        let mut errors: Vec<f64> = good.iter().map(|r| r.error).collect();
        let worst = errors.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let at_edge = good.iter().filter(|r| !r.at_bound.is_empty()).count();
        let mut seconds: Vec<f64> = good.iter().map(|r| r.seconds).collect();
        let mut conditions: Vec<f64> = good.iter().filter_map(|r| r.condition).filter(|c| c.is_finite()).collect();
        let undetermined = good.iter().filter(|r| r.condition.is_some_and(|c| !c.is_finite())).count();
        let params = &m.summary.layout.parameters;
        let mut widths = Vec::new();
        for p in params {
            let mut w: Vec<f64> = good
                .iter()
                .filter_map(|r| {
                    r.ranges.iter().find(|(n, _, _)| *n == p.name).map(|(_, lo, hi)| range_width(p, *lo, *hi))
                })
                .collect();
            let unit = if p.scale == Scale::Log10 { " decades" } else { "" };
            widths.push((p.name.clone(), median(&mut w), unit));
        }
        let param_list: Vec<String> = params.iter().map(|p| format!("{} ({})", p.name, p.unit)).collect();
        let median_condition = median(&mut conditions);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} ({:.0} %) | {:.3} | {:.3e} | {} | {} |",
            m.name,
            param_list.join(", "),
            fits.len(),
            number(median(&mut errors)),
            number(worst),
            at_edge,
            100.0 * at_edge as f64 / good.len().max(1) as f64,
            median(&mut seconds),
            median_condition,
            undetermined,
            widths.iter().map(|(n, w, u)| format!("{n}: {w:.3}{u}")).collect::<Vec<_>>().join(", ")
        );
        let loosest = widths.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let sentence = match (params.len(), loosest) {
            (1, Some((n, w, u))) => format!(
                "**{}**: one parameter, always determined; the error stays within 1 % over a median {w:.3}{u} of {n}.",
                m.name
            ),
            (_, Some((n, w, u))) if undetermined * 2 > good.len() => format!(
                "**{}**: in {undetermined} of {} fits the Hessian is not positive definite: the parameters are not \
                 all determined; {n} is the loosest (median 1 % range {w:.3}{u}).",
                m.name,
                good.len()
            ),
            (_, Some((n, w, u))) => format!(
                "**{}**: determined in {} of {} fits (median condition number {median_condition:.2e}); {n} is the \
                 loosest (median 1 % range {w:.3}{u}).",
                m.name,
                good.len() - undetermined,
                good.len()
            ),
            _ => format!("**{}**: no successful fits.", m.name),
        };
        sentences.push(sentence);
    }
    let _ = writeln!(md, "\n## Is each parameter determined?\n");
    for s in &sentences {
        let _ = writeln!(md, "- {s}");
    }
    let _ = writeln!(md, "\n## Best model per scene and setting\n");
    let _ = writeln!(
        md,
        "Ranked by the median error over ν. A model within 1 % of the best median is called a tie, not ranked. \
         The last column is the best error any model reaches at the largest ν (nearest incompressible).\n"
    );
    let _ = writeln!(md, "| scene | setting | best (median e) | next | at largest ν: best model, e |");
    let _ = writeln!(md, "| --- | --- | --- | --- | --- |");
    for (scene, setting, _, scored) in &rankings {
        let best = &scored[0];
        let ties: Vec<&str> = scored.iter().filter(|s| s.1 <= best.1 * 1.01).map(|s| s.0.as_str()).collect::<Vec<_>>();
        let next = scored.iter().find(|s| s.1 > best.1 * 1.01);
        let last = scored.iter().filter(|s| s.2.is_finite()).min_by(|a, b| a.2.total_cmp(&b.2));
        let _ = writeln!(
            md,
            "| {} | {} | {} ({}){} | {} | {} |",
            scene.name,
            setting_label(*setting),
            ties.join(" = "),
            number(best.1),
            if ties.len() > 1 { " tie" } else { "" },
            next.map(|s| format!("{} ({})", s.0, number(s.1))).unwrap_or_else(|| "-".into()),
            last.map(|s| format!("{}, {}", s.0, number(s.2))).unwrap_or_else(|| "-".into()),
        );
    }
    let _ = writeln!(md, "\n## Figures\n");
    for (scene, setting, stem, _) in &rankings {
        let _ = writeln!(md, "### {} — {}\n\n![{stem}]({stem}.png)\n", scene.title(), setting_label(*setting));
    }
    if let Some(notes) = notes {
        let _ = writeln!(md, "\n{}", notes.trim_end());
    }
    let report = out.join("README.md");
    std::fs::write(&report, md).map_err(|e| PlotError::Write { path: report.clone(), source: e })?;
    Ok(ModelsReport { figures, report })
}
