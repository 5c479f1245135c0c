//! Rendering a whole study: every figure its layout calls for (from `summary.json`), each drawn or listed
//! as missing with the reason, under generic names or the thesis's numbers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pbdfit_results::{ExperimentLayout, SceneLayout, StudyLayout, read_summary};

use crate::PlotError;
use crate::canvas::{self, FigureFiles};
use crate::curves::{BaseFigure, ErrorFigure, ParameterFigure};
use crate::scene_picture::ScenePicture;
use crate::study::{self, ExperimentData, and_list};
use crate::style::{self, figure_size};
use crate::summary;
use crate::thesis::{FigureContent, ThesisFigure, thesis_figure, thesis_figures};

/// How figures are named and ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Naming {
    /// Any study: the layout's scenes and experiments in order, files `<scene>-<experiment>-error`,
    /// `<scene>-<experiment>-parameters`, `<scene>-<experiment>` (a base case) and `<scene>-scene` (a
    /// scene picture, only when one is given); captions without numbers.
    #[default]
    Generic,
    /// The thesis study: figures 4.1 to 4.39 first, in number order, as `fig-4-03-gravity-floor-dt-error`
    /// with captions `Figure 4.3: ...` (a thesis figure the study lacks is listed as missing); figures of
    /// the study that the thesis does not number follow under their generic names.
    Thesis,
}

/// Which figure: a scene, an experiment (none for a scene picture) and what is shown.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FigureId {
    /// Scene name, e.g. `gravity-floor`.
    pub scene: String,
    /// Experiment name, e.g. `dt` (none for a scene picture).
    pub experiment: Option<String>,
    /// What is shown.
    pub content: FigureContent,
}

impl FigureId {
    /// The generic file name without extension: `gravity-floor-dt-error`, `gravity-floor-dt-parameters`,
    /// `gravity-floor-base`, `gravity-floor-scene`.
    pub fn generic_stem(&self) -> String {
        let e = self.experiment.as_deref().unwrap_or_default();
        match self.content {
            FigureContent::ScenePicture => format!("{}-scene", self.scene),
            FigureContent::Base => format!("{}-{e}", self.scene),
            FigureContent::Error => format!("{}-{e}-error", self.scene),
            FigureContent::Parameters => format!("{}-{e}-parameters", self.scene),
        }
    }

    /// The thesis figure with this scene, experiment and content, if there is one.
    pub fn thesis(&self) -> Option<ThesisFigure> {
        thesis_figure(&self.scene, self.experiment.as_deref(), self.content)
    }
}

impl From<ThesisFigure> for FigureId {
    fn from(f: ThesisFigure) -> Self {
        FigureId { scene: f.scene.into(), experiment: f.experiment.map(String::from), content: f.content }
    }
}

/// Whether a figure was drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FigureOutcome {
    /// Drawn into these files.
    Drawn(FigureFiles),
    /// Not drawn; the reason names the file or input that is missing.
    Missing(String),
}

/// One figure after [`render_study`]: drawn or missing, with its caption and the sentences the report
/// prints under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFigure {
    /// Scene, experiment and content.
    pub id: FigureId,
    /// Its thesis number, when drawn with [`Naming::Thesis`] and the thesis has one.
    pub thesis: Option<ThesisFigure>,
    /// File name without extension (`.png` and `.svg`).
    pub stem: String,
    /// Pixel size of the PNG and the SVG canvas.
    pub size: (u32, u32),
    /// `Figure 4.3: GravityFloor, varying time step dt: relative error against ν` (thesis) or the same
    /// without the number (generic).
    pub caption: String,
    /// The files, or why there are none.
    pub outcome: FigureOutcome,
    /// Two to four sentences derived from the data (empty when missing).
    pub sentences: Vec<String>,
}

impl RenderedFigure {
    /// The thesis number (`4.3`) if the figure has one, else its file stem.
    pub fn label(&self) -> String {
        self.thesis.map(|t| t.label()).unwrap_or_else(|| self.stem.clone())
    }

    /// The files, if drawn.
    pub fn files(&self) -> Option<&FigureFiles> {
        match &self.outcome {
            FigureOutcome::Drawn(f) => Some(f),
            FigureOutcome::Missing(_) => None,
        }
    }
}

/// A rendered study: its layout, how the figures were named, and every figure in report order.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedStudy {
    /// The study's layout, from `summary.json`.
    pub layout: StudyLayout,
    /// How the figures are named and ordered.
    pub naming: Naming,
    /// The results folder the figures were drawn from.
    pub results_dir: PathBuf,
    /// Every figure, drawn or missing, in report order.
    pub figures: Vec<RenderedFigure>,
}

impl RenderedStudy {
    /// The number of figures drawn.
    pub fn drawn(&self) -> usize {
        self.figures.iter().filter(|f| f.files().is_some()).count()
    }

    /// The figures not drawn, with the reason.
    pub fn missing(&self) -> impl Iterator<Item = (&RenderedFigure, &str)> {
        self.figures.iter().filter_map(|f| match &f.outcome {
            FigureOutcome::Missing(reason) => Some((f, reason.as_str())),
            FigureOutcome::Drawn(_) => None,
        })
    }
}

/// Renders every figure of a study's results folder into `out_dir`, as PNG and SVG.
///
/// The layout comes from `<results_dir>/summary.json` (scenes, experiments and their values, the model's
/// parameters with unit, scale and box); curves from `<results_dir>/<scene>-<experiment>.csv`. Per scene
/// and experiment: an error figure and a parameter figure (one panel per parameter, in the layout's
/// order, log10 axis for a `Log10` parameter), or for a base case (an experiment that varies nothing) one
/// combined figure. Scene pictures come from `scene_pictures`, matched by scene name.
///
/// A missing or unreadable CSV, a file in which every fit failed, a thesis figure the study lacks, or a
/// thesis scene picture not given makes that figure [`FigureOutcome::Missing`], never an error. Failed
/// fits are left out of the curves (a curve breaks there). Errors are reserved for a results folder that
/// does not exist or has no readable `summary.json`, an inconsistent scene picture, and files that cannot
/// be written.
///
/// ```no_run
/// use std::path::Path;
/// use pbdfit_plot::{Naming, ReportContext, render_study, write_report};
/// let study = render_study(Path::new("fits/results/xpbd"), Path::new("reports/xpbd"), Naming::Generic, &[])?;
/// write_report(&study, Path::new("reports/xpbd/README.md"), &ReportContext::default())?;
/// # Ok::<(), pbdfit_plot::PlotError>(())
/// ```
pub fn render_study(
    results_dir: &Path,
    out_dir: &Path,
    naming: Naming,
    scene_pictures: &[ScenePicture],
) -> Result<RenderedStudy, PlotError> {
    if !results_dir.is_dir() {
        return Err(PlotError::ResultsDir { path: results_dir.to_path_buf() });
    }
    let layout = read_summary(results_dir).map_err(|e| PlotError::Summary { message: e.to_string() })?.layout;
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir { path: out_dir.to_path_buf(), source })?;
    style::ensure_font()?;
    for p in scene_pictures {
        p.validate()?;
    }
    let mut loaded: BTreeMap<(String, String), Result<ExperimentData, String>> = BTreeMap::new();
    let mut out = Vec::new();
    for (id, thesis) in planned_figures(&layout, naming, scene_pictures) {
        let stem = thesis.map(|t| t.file_stem()).unwrap_or_else(|| id.generic_stem());
        let compound = layout.scene(&id.scene).is_some_and(SceneLayout::is_compound);
        let size = figure_size(id.content, compound, layout.parameters.len());
        let caption = caption(&layout, &id, thesis);
        let drawn: Result<(FigureFiles, Vec<String>), String> = match (&id.experiment, id.content) {
            (None, _) | (_, FigureContent::ScenePicture) => match scene_pictures.iter().find(|p| p.scene == id.scene) {
                Some(p) => Ok((canvas::save(p, out_dir, &stem, size)?, summary::picture_sentences(p))),
                None => Err(format!(
                    "no scene picture was given for {} (pbdfit plot draws curves only; pbdfit reproduce computes \
                     the rest state and passes it)",
                    scene_title(&id.scene)
                )),
            },
            (Some(experiment), content) => match (layout.scene(&id.scene), layout.experiment(experiment)) {
                (None, _) => Err(format!("the study `{}` has no scene `{}`", layout.name, id.scene)),
                (_, None) => Err(format!("the study `{}` has no experiment `{experiment}`", layout.name)),
                (Some(scene), Some(exp)) => {
                    let key = (scene.name.clone(), exp.name.clone());
                    let data = loaded
                        .entry(key)
                        .or_insert_with(|| study::load(results_dir, &layout, scene, exp).map_err(|e| e.to_string()));
                    match data {
                        Err(reason) => Err(reason.clone()),
                        Ok(data) if !data.has_points() => Err(format!(
                            "every one of the {} fits in {} failed",
                            data.fits(),
                            layout.csv_path(results_dir, &scene.name, &exp.name).display()
                        )),
                        Ok(data) => Ok(draw_curves(content, data, out_dir, &stem, size)?),
                    }
                }
            },
        };
        let (outcome, sentences) = match drawn {
            Ok((files, sentences)) => (FigureOutcome::Drawn(files), sentences),
            Err(reason) => {
                remove_stale(out_dir, &stem);
                (FigureOutcome::Missing(reason), Vec::new())
            }
        };
        out.push(RenderedFigure { id, thesis, stem, size, caption, outcome, sentences });
    }
    Ok(RenderedStudy { layout, naming, results_dir: results_dir.to_path_buf(), figures: out })
}

/// The figures of a study in report order, with their thesis figure where the naming uses one.
fn planned_figures(
    layout: &StudyLayout,
    naming: Naming,
    scene_pictures: &[ScenePicture],
) -> Vec<(FigureId, Option<ThesisFigure>)> {
    let mut generic = Vec::new();
    for scene in &layout.scenes {
        if scene_pictures.iter().any(|p| p.scene == scene.name) {
            generic.push(FigureId {
                scene: scene.name.clone(),
                experiment: None,
                content: FigureContent::ScenePicture,
            });
        }
        for e in &layout.experiments {
            let id = |content| FigureId { scene: scene.name.clone(), experiment: Some(e.name.clone()), content };
            if e.setting.is_none() {
                generic.push(id(FigureContent::Base));
            } else {
                generic.push(id(FigureContent::Error));
                generic.push(id(FigureContent::Parameters));
            }
        }
    }
    match naming {
        Naming::Generic => generic.into_iter().map(|id| (id, None)).collect(),
        Naming::Thesis => {
            let mut out: Vec<(FigureId, Option<ThesisFigure>)> =
                thesis_figures().into_iter().map(|t| (FigureId::from(t), Some(t))).collect();
            out.extend(generic.into_iter().filter(|id| id.thesis().is_none()).map(|id| (id, None)));
            out
        }
    }
}

/// `gravity-floor` -> `GravityFloor`.
fn scene_title(name: &str) -> String {
    SceneLayout { name: name.into(), parts: vec![] }.title()
}

/// The experiment called `name`, or for one the study lacks, a stand-in whose setting is its name (the
/// thesis's experiments are named after their settings).
fn experiment_or_stand_in(layout: &StudyLayout, name: &str) -> ExperimentLayout {
    layout.experiment(name).cloned().unwrap_or_else(|| ExperimentLayout {
        name: name.into(),
        setting: (name != "base").then(|| name.to_string()),
        values: Vec::new(),
    })
}

/// The caption: `Figure 4.3: ` (thesis) and what the figure shows, with the model's parameter names.
fn caption(layout: &StudyLayout, id: &FigureId, thesis: Option<ThesisFigure>) -> String {
    let scene = scene_title(&id.scene);
    let compound = layout.scene(&id.scene).is_some_and(SceneLayout::is_compound);
    let params = and_list(&layout.parameters.iter().map(|p| p.name.clone()).collect::<Vec<_>>());
    let experiment = id.experiment.as_deref().map(|e| experiment_or_stand_in(layout, e));
    let varying = experiment.as_ref().map(|e| e.title()).unwrap_or_default();
    let what = match id.content {
        FigureContent::ScenePicture => format!("{scene}: initial and rest state"),
        FigureContent::Base => {
            let shares = if compound { " (with each part scene's share of the error)" } else { "" };
            format!("{scene}, base case: relative error{shares} and fitted {params} against ν")
        }
        FigureContent::Error => {
            let shares = if compound { ", and each part scene's share of e² in percent" } else { "" };
            format!("{scene}, varying {varying}: relative error against ν{shares}")
        }
        FigureContent::Parameters => {
            let several = experiment.as_ref().is_none_or(|e| e.values.len() != 1);
            let note = if several {
                "; variants differ in colour, marker and dash, and curves that coincide (fits at the same \
                 value, e.g. a bound) overlap, each point drawn at its value"
                    .to_string()
            } else {
                String::new()
            };
            format!("{scene}, varying {varying}: fitted {params} against ν ({}){note}", layout.model)
        }
    };
    match thesis {
        Some(t) => format!("Figure {}: {what}", t.label()),
        None => what,
    }
}

/// Draws a curve figure and derives its sentences.
fn draw_curves(
    content: FigureContent,
    data: &ExperimentData,
    out_dir: &Path,
    stem: &str,
    size: (u32, u32),
) -> Result<(FigureFiles, Vec<String>), PlotError> {
    let scene = data.scene.title();
    let varying = data.experiment.title();
    let params = data.parameter_list();
    Ok(match content {
        FigureContent::Base => {
            let title = format!("{scene}, base case: fitted error, {params}");
            (canvas::save(&BaseFigure { title, data }, out_dir, stem, size)?, summary::base_sentences(data))
        }
        FigureContent::Error => {
            let title = format!("{scene}, varying {varying}: fitted error");
            (canvas::save(&ErrorFigure { title, data }, out_dir, stem, size)?, summary::error_sentences(data))
        }
        FigureContent::Parameters => {
            let title = format!("{scene}, varying {varying}: fitted {params}");
            (canvas::save(&ParameterFigure { title, data }, out_dir, stem, size)?, summary::parameter_sentences(data))
        }
        FigureContent::ScenePicture => unreachable!("scene pictures are not drawn from results"),
    })
}

/// Removes a figure's files from an earlier rendering, so that a figure now missing is not shown stale.
fn remove_stale(out_dir: &Path, stem: &str) {
    for ext in ["png", "svg"] {
        let _ = std::fs::remove_file(out_dir.join(format!("{stem}.{ext}")));
    }
}
