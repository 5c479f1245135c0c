//! The Markdown report: every thesis figure by number (4.1 to 4.39), the picture embedded by a relative
//! link, its caption and the sentences derived from the data; figures not drawn are listed as missing
//! with the reason.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::PlotError;
use crate::render::{FigureOutcome, RenderedFigure};
use crate::study::Scene;
use crate::thesis::{CHAPTER, thesis_figures};

/// What the report says about where its figures come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportContext {
    /// The report's heading.
    pub title: String,
    /// The results folder, as the reader should see it (e.g. `fits/results/thesis`).
    pub results_dir: String,
    /// Paragraphs printed after the heading (how the study was run, the ν grid, the command).
    pub notes: Vec<String>,
}

impl Default for ReportContext {
    fn default() -> Self {
        ReportContext {
            title: "pbdfit: the figures of the thesis, reproduced".into(),
            results_dir: "fits/results/thesis".into(),
            notes: Vec::new(),
        }
    }
}

/// Writes the report to `out_path_md`. Image links are relative to the report's folder.
///
/// Every figure 4.1 to 4.39 gets a section, in number order: the figures in `figures` as rendered (drawn
/// or missing with the reason), any number absent from `figures` as missing.
pub fn write_report(figures: &[RenderedFigure], out_path_md: &Path, context: &ReportContext) -> Result<(), PlotError> {
    let text = report_text(figures, out_path_md.parent().unwrap_or(Path::new("")), context);
    if let Some(dir) = out_path_md.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| PlotError::CreateDir { path: dir.to_path_buf(), source })?;
    }
    std::fs::write(out_path_md, text).map_err(|source| PlotError::Write { path: out_path_md.to_path_buf(), source })
}

/// The report's Markdown.
fn report_text(figures: &[RenderedFigure], report_dir: &Path, context: &ReportContext) -> String {
    let mut md = String::new();
    let all = thesis_figures();
    let drawn = all.iter().filter(|f| find(figures, f.number).is_some_and(|r| r.files().is_some())).count();
    let missing: Vec<String> =
        all.iter().filter(|f| find(figures, f.number).is_none_or(|r| r.files().is_none())).map(|f| f.label()).collect();
    let _ = writeln!(md, "# {}\n", context.title);
    for note in &context.notes {
        let _ = writeln!(md, "{note}\n");
    }
    let _ = writeln!(
        md,
        "Figures are numbered as in chapter {CHAPTER} of the thesis \"Characterization of Position Based Dynamics \
         for elastic materials\". They are drawn from the fits in `{}`; each PNG has an SVG twin of the same name.\n",
        context.results_dir
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
    let mut scene: Option<Scene> = None;
    for f in &all {
        if scene != Some(f.scene) {
            scene = Some(f.scene);
            let _ = writeln!(md, "## {}\n", f.scene.title());
        }
        let rendered = find(figures, f.number);
        let _ = writeln!(md, "### Figure {}\n", f.label());
        match rendered.map(|r| &r.outcome) {
            Some(FigureOutcome::Drawn(files)) => {
                let r = rendered.expect("matched Some");
                let png = relative(&files.png, report_dir);
                let svg = relative(&files.svg, report_dir);
                let _ = writeln!(md, "![{}]({png})\n", r.caption);
                let _ = writeln!(md, "*{}* ([SVG]({svg}))\n", r.caption);
                if !r.sentences.is_empty() {
                    let _ = writeln!(md, "{}\n", r.sentences.join(" "));
                }
            }
            Some(FigureOutcome::Missing(reason)) => {
                let r = rendered.expect("matched Some");
                let _ = writeln!(md, "*{}*\n", r.caption);
                let _ = writeln!(md, "**Missing:** {reason}.\n");
            }
            None => {
                let _ = writeln!(md, "*{}*\n", f.caption());
                let _ = writeln!(md, "**Missing:** not rendered.\n");
            }
        }
    }
    md
}

fn find(figures: &[RenderedFigure], number: u32) -> Option<&RenderedFigure> {
    figures.iter().find(|r| r.figure.number == number)
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

    #[test]
    fn an_empty_rendering_lists_all_39_as_missing() {
        let text = report_text(&[], Path::new("r"), &ReportContext::default());
        for n in 1..=39 {
            assert!(text.contains(&format!("### Figure 4.{n}\n")), "4.{n}");
        }
        assert_eq!(text.matches("**Missing:** not rendered.").count(), 39);
    }
}
