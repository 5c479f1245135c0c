//! The Markdown report: every figure of a rendered study with the picture embedded by a relative link,
//! its caption and the sentences derived from the data; figures not drawn are listed as missing with the
//! reason. In the thesis naming, figures go by number (4.1 to 4.39); otherwise by scene and experiment.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use pbdfit_results::{Scale, SceneLayout, format_number};

use crate::PlotError;
use crate::render::{FigureOutcome, Naming, RenderedFigure, RenderedStudy};
use crate::study::and_list;
use crate::thesis::{CHAPTER, thesis_figures};

/// What the report says about where its figures come from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReportContext {
    /// The report's heading; empty: derived from the study (`pbdfit: the figures of the thesis,
    /// reproduced` in the thesis naming, `pbdfit: the figures of study <name>` otherwise).
    pub title: String,
    /// The results folder, as the reader should see it (e.g. `fits/results/thesis`); empty: the folder
    /// the study was rendered from.
    pub results_dir: String,
    /// Paragraphs printed after the heading (how the study was run, the ν grid, the command).
    pub notes: Vec<String>,
    /// Whole Markdown sections (each starting with a `##` heading) printed after the notes and before
    /// the figures, e.g. the comparison with the thesis's claims.
    pub sections: Vec<String>,
}

/// Writes the report of a rendered study to `out_path_md`. Image links are relative to the report's
/// folder.
///
/// [`Naming::Thesis`]: every figure 4.1 to 4.39 gets a section, in number order (drawn, or missing with
/// the reason; a number absent from the rendering as missing), then the study's other figures.
/// [`Naming::Generic`]: the study's model and parameters, then one section per scene and experiment with
/// its figures, captions and the sentences derived from the data.
pub fn write_report(study: &RenderedStudy, out_path_md: &Path, context: &ReportContext) -> Result<(), PlotError> {
    let text = report_text(study, out_path_md.parent().unwrap_or(Path::new("")), context);
    if let Some(dir) = out_path_md.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| PlotError::CreateDir { path: dir.to_path_buf(), source })?;
    }
    std::fs::write(out_path_md, text).map_err(|source| PlotError::Write { path: out_path_md.to_path_buf(), source })
}

/// The report's Markdown.
fn report_text(study: &RenderedStudy, report_dir: &Path, context: &ReportContext) -> String {
    let mut md = String::new();
    let title = match (context.title.is_empty(), study.naming) {
        (false, _) => context.title.clone(),
        (true, Naming::Thesis) => "pbdfit: the figures of the thesis, reproduced".into(),
        (true, Naming::Generic) => format!("pbdfit: the figures of study {}", study.layout.name),
    };
    let results_dir =
        if context.results_dir.is_empty() { slashes(&study.results_dir) } else { context.results_dir.clone() };
    let _ = writeln!(md, "# {title}\n");
    for note in &context.notes {
        let _ = writeln!(md, "{note}\n");
    }
    for section in &context.sections {
        let _ = writeln!(md, "{}\n", section.trim_end());
    }
    match study.naming {
        Naming::Thesis => thesis_report(&mut md, study, report_dir, &results_dir),
        Naming::Generic => generic_report(&mut md, study, report_dir, &results_dir),
    }
    md
}

/// The thesis's 39 figures by number, then any others.
fn thesis_report(md: &mut String, study: &RenderedStudy, report_dir: &Path, results_dir: &str) {
    let all = thesis_figures();
    let find = |number: u32| study.figures.iter().find(|r| r.thesis.is_some_and(|t| t.number == number));
    let drawn = all.iter().filter(|f| find(f.number).is_some_and(|r| r.files().is_some())).count();
    let missing: Vec<String> =
        all.iter().filter(|f| find(f.number).is_none_or(|r| r.files().is_none())).map(|f| f.label()).collect();
    let _ = writeln!(
        md,
        "Figures are numbered as in chapter {CHAPTER} of the thesis \"Characterization of Position Based Dynamics \
         for elastic materials\". They are drawn from the fits in `{results_dir}`; each PNG has an SVG twin of the \
         same name.\n"
    );
    if missing.is_empty() {
        let _ = writeln!(md, "All {} figures are drawn.\n", all.len());
    } else {
        let _ = writeln!(
            md,
            "{drawn} of {} figures are drawn. Missing: {} (the reason is given at each figure).\n",
            all.len(),
            missing.join(", ")
        );
    }
    let mut scene: Option<&str> = None;
    for f in &all {
        if scene != Some(f.scene) {
            scene = Some(f.scene);
            let _ = writeln!(md, "## {}\n", scene_title(f.scene));
        }
        let _ = writeln!(md, "### Figure {}\n", f.label());
        match find(f.number) {
            Some(r) => figure_section(md, r, report_dir),
            None => {
                let _ = writeln!(md, "*Figure {}*\n", f.label());
                let _ = writeln!(md, "**Missing:** not rendered.\n");
            }
        }
    }
    let others: Vec<&RenderedFigure> = study.figures.iter().filter(|r| r.thesis.is_none()).collect();
    if !others.is_empty() {
        let _ = writeln!(md, "## Other figures of the study\n");
        for r in others {
            let _ = writeln!(md, "### {}\n", r.stem);
            figure_section(md, r, report_dir);
        }
    }
}

/// Any study: what was fitted, then the figures per scene and experiment.
fn generic_report(md: &mut String, study: &RenderedStudy, report_dir: &Path, results_dir: &str) {
    let l = &study.layout;
    if !l.description.is_empty() {
        let _ = writeln!(md, "{}\n", l.description);
    }
    let params: Vec<String> = l
        .parameters
        .iter()
        .map(|p| {
            let scale = match p.scale {
                Scale::Linear => "linear",
                Scale::Log10 => "log10",
            };
            format!(
                "`{}` ({}, {scale} axis, box [{}, {}])",
                p.name,
                p.unit,
                format_number(p.lower),
                format_number(p.upper)
            )
        })
        .collect();
    let nu = match (l.poisson.first(), l.poisson.last()) {
        (Some(a), Some(b)) => format!(", ν from {a} to {b} ({} values)", l.poisson.len()),
        _ => String::new(),
    };
    let _ = writeln!(
        md,
        "Model `{}` fitted to the {} by its parameters {}{nu}. The figures are drawn from the fits in \
         `{results_dir}`; each PNG has an SVG twin of the same name.\n",
        l.model,
        l.reference,
        and_list(&params)
    );
    let missing: Vec<&str> = study.missing().map(|(f, _)| f.stem.as_str()).collect();
    if missing.is_empty() {
        let _ = writeln!(md, "All {} figures are drawn.\n", study.figures.len());
    } else {
        let _ = writeln!(
            md,
            "{} of {} figures are drawn. Missing: {} (the reason is given at each figure).\n",
            study.drawn(),
            study.figures.len(),
            missing.join(", ")
        );
    }
    let mut scene: Option<&str> = None;
    let mut experiment: Option<Option<&str>> = None;
    for r in &study.figures {
        if scene != Some(r.id.scene.as_str()) {
            scene = Some(&r.id.scene);
            experiment = None;
            let _ = writeln!(md, "## {}\n", scene_title(&r.id.scene));
        }
        if experiment != Some(r.id.experiment.as_deref()) {
            experiment = Some(r.id.experiment.as_deref());
            let heading = match r.id.experiment.as_deref() {
                None => "Scene picture".to_string(),
                Some(e) => match l.experiment(e) {
                    Some(x) if x.setting.is_none() => format!("Base case (`{e}`)"),
                    Some(x) => format!("Varying {} (`{e}`)", x.title()),
                    None => format!("`{e}`"),
                },
            };
            let _ = writeln!(md, "### {}: {heading}\n", scene_title(&r.id.scene));
        }
        figure_section(md, r, report_dir);
    }
}

/// One figure: the picture, its caption with the SVG link, the sentences; or the caption and why it is
/// missing.
fn figure_section(md: &mut String, r: &RenderedFigure, report_dir: &Path) {
    match &r.outcome {
        FigureOutcome::Drawn(files) => {
            let png = relative(&files.png, report_dir);
            let svg = relative(&files.svg, report_dir);
            let _ = writeln!(md, "![{}]({png})\n", r.caption);
            let _ = writeln!(md, "*{}* ([SVG]({svg}))\n", r.caption);
            if !r.sentences.is_empty() {
                let _ = writeln!(md, "{}\n", r.sentences.join(" "));
            }
        }
        FigureOutcome::Missing(reason) => {
            let _ = writeln!(md, "*{}*\n", r.caption);
            let _ = writeln!(md, "**Missing:** {reason}.\n");
        }
    }
}

/// `gravity-floor` -> `GravityFloor`.
fn scene_title(name: &str) -> String {
    SceneLayout { name: name.into(), parts: vec![] }.title()
}

/// `path` relative to `base`, with forward slashes (Markdown links); `path` itself when the two share no
/// root.
fn relative(path: &Path, base: &Path) -> String {
    let p: Vec<Component> = path.components().filter(|c| *c != Component::CurDir).collect();
    let b: Vec<Component> = base.components().filter(|c| *c != Component::CurDir).collect();
    let same_kind = path.is_absolute() == base.is_absolute();
    if !same_kind || b.contains(&Component::ParentDir) {
        return slashes(path);
    }
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    slashes(&out)
}

fn slashes(p: &Path) -> String {
    p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_report() {
        assert_eq!(relative(Path::new("reports/thesis/a.png"), Path::new("reports/thesis")), "a.png");
        assert_eq!(relative(Path::new("/x/fig/a.png"), Path::new("/x/doc")), "../fig/a.png");
        assert_eq!(relative(Path::new("./out/a.png"), Path::new("out")), "a.png");
    }

    fn empty_study(naming: Naming) -> RenderedStudy {
        RenderedStudy {
            layout: pbdfit_results::StudyLayout {
                name: "s".into(),
                description: String::new(),
                model: "pbd".into(),
                parameters: vec![],
                reference: "linear static FEM".into(),
                precision: "f64".into(),
                mass_model: None,
                scenes: vec![],
                experiments: vec![],
                base: pbdfit_results::BaseSettings { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None },
                poisson: vec![],
                grid: 21,
                min_step: 1e-4,
                search: None,
                neighbour_starts: false,
            },
            naming,
            results_dir: "r".into(),
            figures: vec![],
        }
    }

    #[test]
    fn an_empty_rendering_lists_all_39_as_missing() {
        let text = report_text(&empty_study(Naming::Thesis), Path::new("r"), &ReportContext::default());
        for n in 1..=39 {
            assert!(text.contains(&format!("### Figure 4.{n}\n")), "4.{n}");
        }
        assert_eq!(text.matches("**Missing:** not rendered.").count(), 39);
        assert!(text.starts_with("# pbdfit: the figures of the thesis, reproduced\n"));
        let text = report_text(&empty_study(Naming::Generic), Path::new("r"), &ReportContext::default());
        assert!(text.starts_with("# pbdfit: the figures of study s\n"), "{text}");
        assert!(!text.contains("Figure 4."));
    }
}
