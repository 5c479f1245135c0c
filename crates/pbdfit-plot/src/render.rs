//! Rendering a whole study: every thesis figure from a results folder, each drawn or listed as missing
//! with the reason.

use std::path::Path;

use crate::PlotError;
use crate::canvas::{self, FigureFiles};
use crate::curves::{BaseFigure, ErrorFigure, StiffnessFigure};
use crate::scene_picture::ScenePicture;
use crate::study::{self, Experiment, ExperimentData, Scene};
use crate::style::{self, figure_size};
use crate::summary;
use crate::thesis::{FigureContent, ThesisFigure, thesis_figures};

/// Whether a figure was drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FigureOutcome {
    /// Drawn into these files.
    Drawn(FigureFiles),
    /// Not drawn; the reason names the file or input that is missing.
    Missing(String),
}

/// One thesis figure after [`render_study`]: drawn or missing, with its caption and the sentences the
/// report prints under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFigure {
    /// Number, scene and content.
    pub figure: ThesisFigure,
    /// `Figure 4.3: GravityFloor, varying time step dt: relative error against ν`.
    pub caption: String,
    /// The files, or why there are none.
    pub outcome: FigureOutcome,
    /// Two or three sentences derived from the data (empty when missing).
    pub sentences: Vec<String>,
}

impl RenderedFigure {
    /// The thesis number, `4.3`.
    pub fn label(&self) -> String {
        self.figure.label()
    }

    /// The files, if drawn.
    pub fn files(&self) -> Option<&FigureFiles> {
        match &self.outcome {
            FigureOutcome::Drawn(f) => Some(f),
            FigureOutcome::Missing(_) => None,
        }
    }
}

/// Renders every figure of the thesis's chapter 4 (4.1 to 4.39) from a study's results folder into
/// `out_dir`, as PNG and SVG, and returns them in number order.
///
/// Curves come from `<results_dir>/<scene>-<experiment>.csv`; scene pictures (4.1, 4.11, 4.21) from
/// `scene_pictures`, matched by scene. A missing or unreadable CSV, a file in which every fit failed, or a
/// scene picture not given makes that figure [`FigureOutcome::Missing`], never an error: the report lists
/// it. Failed fits are left out of the curves (a curve breaks there). Errors are reserved for a results
/// folder that does not exist, an inconsistent scene picture, and files that cannot be written.
///
/// ```no_run
/// use std::path::Path;
/// let figures = pbdfit_plot::render_study(Path::new("fits/results/thesis"), Path::new("reports/thesis"), &[])?;
/// let context = pbdfit_plot::ReportContext::default();
/// pbdfit_plot::write_report(&figures, Path::new("reports/thesis/README.md"), &context)?;
/// # Ok::<(), pbdfit_plot::PlotError>(())
/// ```
pub fn render_study(
    results_dir: &Path,
    out_dir: &Path,
    scene_pictures: &[ScenePicture],
) -> Result<Vec<RenderedFigure>, PlotError> {
    if !results_dir.is_dir() {
        return Err(PlotError::ResultsDir { path: results_dir.to_path_buf() });
    }
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir { path: out_dir.to_path_buf(), source })?;
    style::ensure_font()?;
    for p in scene_pictures {
        p.validate()?;
    }
    let mut loaded: Vec<((Scene, Experiment), Result<ExperimentData, String>)> = Vec::new();
    let mut out = Vec::new();
    for figure in thesis_figures() {
        let outcome_and_sentences = match figure.experiment() {
            None => match scene_pictures.iter().find(|p| p.scene == figure.scene) {
                Some(p) => Ok((
                    canvas::save(p, out_dir, &figure.file_stem(), figure_size(&figure))?,
                    summary::picture_sentences(p),
                )),
                None => Err(format!(
                    "no scene picture was given for {} (pbdfit plot draws curves only; pbdfit reproduce computes \
                     the rest state and passes it)",
                    figure.scene.title()
                )),
            },
            Some(experiment) => {
                let key = (figure.scene, experiment);
                if !loaded.iter().any(|(k, _)| *k == key) {
                    let data = study::load(results_dir, figure.scene, experiment).map_err(|e| e.to_string());
                    loaded.push((key, data));
                }
                let data = &loaded.iter().find(|(k, _)| *k == key).expect("just loaded").1;
                match data {
                    Err(reason) => Err(reason.clone()),
                    Ok(data) if !data.has_points() => Err(format!(
                        "every one of the {} fits in {} failed",
                        data.fits(),
                        study::csv_path(results_dir, figure.scene, experiment).display()
                    )),
                    Ok(data) => Ok(draw_curves(&figure, data, out_dir)?),
                }
            }
        };
        let (outcome, sentences) = match outcome_and_sentences {
            Ok((files, sentences)) => (FigureOutcome::Drawn(files), sentences),
            Err(reason) => {
                remove_stale(out_dir, &figure);
                (FigureOutcome::Missing(reason), Vec::new())
            }
        };
        out.push(RenderedFigure { figure, caption: figure.caption(), outcome, sentences });
    }
    Ok(out)
}

/// Draws a curve figure and derives its sentences.
fn draw_curves(
    figure: &ThesisFigure,
    data: &ExperimentData,
    out_dir: &Path,
) -> Result<(FigureFiles, Vec<String>), PlotError> {
    let (stem, size) = (figure.file_stem(), figure_size(figure));
    let figure = *figure;
    Ok(match figure.content {
        FigureContent::Base => {
            (canvas::save(&BaseFigure { figure, data }, out_dir, &stem, size)?, summary::base_sentences(data))
        }
        FigureContent::Error(_) => {
            (canvas::save(&ErrorFigure { figure, data }, out_dir, &stem, size)?, summary::error_sentences(data))
        }
        FigureContent::Stiffness(_) => {
            (canvas::save(&StiffnessFigure { figure, data }, out_dir, &stem, size)?, summary::stiffness_sentences(data))
        }
        FigureContent::ScenePicture => unreachable!("scene pictures are not drawn from results"),
    })
}

/// Removes a figure's files from an earlier rendering, so that a figure now missing is not shown stale.
fn remove_stale(out_dir: &Path, figure: &ThesisFigure) {
    for ext in ["png", "svg"] {
        let _ = std::fs::remove_file(out_dir.join(format!("{}.{ext}", figure.file_stem())));
    }
}
