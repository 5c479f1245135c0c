//! The figure numbering of the source thesis ("Characterization of Position Based Dynamics for elastic
//! materials", chapter 4): which figure number shows which scene and experiment.

use crate::study::{Experiment, Scene};

/// What a figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FigureContent {
    /// The cube's initial and rest state side by side.
    ScenePicture,
    /// The base case: error, k_d and k_v against ν.
    Base,
    /// The fitted error against ν, one curve per variant of the experiment.
    Error(Experiment),
    /// The fitted k_d (upper panel) and k_v (lower panel) against ν, one curve per variant.
    Stiffness(Experiment),
}

/// One figure of the thesis's results chapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThesisFigure {
    /// Figure number inside chapter 4 (Figure 4.`number`).
    pub number: u32,
    /// The scene shown.
    pub scene: Scene,
    /// What is shown.
    pub content: FigureContent,
}

/// The thesis chapter the figures belong to.
pub const CHAPTER: u32 = 4;

/// One row of the numbering table.
struct Row {
    scene: Scene,
    picture: Option<u32>,
    base: u32,
    /// (error, k) for dt, N, nit and E.
    pairs: [(u32, u32); 4],
}

/// The numbering, one row per scene exactly as in the methodology's table: scene picture, base, then
/// (error, k) for the experiments dt, N, nit and E.
const TABLE: [Row; 4] = [
    Row { scene: Scene::GravityFloor, picture: Some(1), base: 2, pairs: [(3, 4), (5, 6), (7, 8), (9, 10)] },
    Row { scene: Scene::GravityWall, picture: Some(11), base: 12, pairs: [(13, 14), (15, 16), (17, 18), (19, 20)] },
    Row { scene: Scene::GravityCeiling, picture: Some(21), base: 22, pairs: [(23, 24), (25, 26), (27, 28), (29, 30)] },
    Row { scene: Scene::Gravity, picture: None, base: 31, pairs: [(32, 33), (34, 35), (36, 37), (38, 39)] },
];

/// The experiments of the table's (error, k) column pairs, in column order.
const VARIED: [Experiment; 4] = [Experiment::Dt, Experiment::N, Experiment::Nit, Experiment::Young];

/// Every figure of the chapter (4.1 to 4.39), by number.
pub fn thesis_figures() -> Vec<ThesisFigure> {
    let mut out = Vec::with_capacity(39);
    for Row { scene, picture, base, pairs } in TABLE {
        if let Some(number) = picture {
            out.push(ThesisFigure { number, scene, content: FigureContent::ScenePicture });
        }
        out.push(ThesisFigure { number: base, scene, content: FigureContent::Base });
        for (experiment, (error, k)) in VARIED.into_iter().zip(pairs) {
            out.push(ThesisFigure { number: error, scene, content: FigureContent::Error(experiment) });
            out.push(ThesisFigure { number: k, scene, content: FigureContent::Stiffness(experiment) });
        }
    }
    out.sort_by_key(|f| f.number);
    out
}

/// The figure showing `content` for `scene`, if the thesis has one.
pub fn thesis_figure(scene: Scene, content: FigureContent) -> Option<ThesisFigure> {
    thesis_figures().into_iter().find(|f| f.scene == scene && f.content == content)
}

impl ThesisFigure {
    /// `4.3`.
    pub fn label(&self) -> String {
        format!("{CHAPTER}.{}", self.number)
    }

    /// The experiment whose results file the figure is drawn from (none for a scene picture).
    pub fn experiment(&self) -> Option<Experiment> {
        match self.content {
            FigureContent::ScenePicture => None,
            FigureContent::Base => Some(Experiment::Base),
            FigureContent::Error(e) | FigureContent::Stiffness(e) => Some(e),
        }
    }

    /// File name without extension, sortable by number: `fig-4-03-gravity-floor-dt-error`.
    pub fn file_stem(&self) -> String {
        let what = match self.content {
            FigureContent::ScenePicture => "scene".to_string(),
            FigureContent::Base => "base".to_string(),
            FigureContent::Error(e) => format!("{}-error", e.file_stem()),
            FigureContent::Stiffness(e) => format!("{}-k", e.file_stem()),
        };
        format!("fig-{CHAPTER}-{:02}-{}-{what}", self.number, self.scene.file_stem())
    }

    /// The figure's title: scene and experiment (the drawn title adds the parameters held fixed, read from
    /// the data).
    pub fn title(&self) -> String {
        let scene = self.scene.title();
        match self.content {
            FigureContent::ScenePicture => format!("{scene}: initial and rest state"),
            FigureContent::Base => format!("{scene}, base case: fitted error, k_d and k_v"),
            FigureContent::Error(e) => format!("{scene}, varying {}: fitted error", e.title()),
            FigureContent::Stiffness(e) => format!("{scene}, varying {}: fitted k_d and k_v", e.title()),
        }
    }

    /// The report's caption: `Figure 4.3: ...`.
    pub fn caption(&self) -> String {
        let what = match self.content {
            FigureContent::ScenePicture => format!("{}: the cube's initial and rest state", self.scene.title()),
            FigureContent::Base => format!("{}, base case: relative error, k_d and k_v against ν", self.scene.title()),
            FigureContent::Error(e) => {
                let shares = if self.scene.is_compound() { ", with each part scene's share of the error" } else { "" };
                format!("{}, varying {}: relative error against ν{shares}", self.scene.title(), e.title())
            }
            FigureContent::Stiffness(e) => {
                format!("{}, varying {}: fitted k_d and k_v against ν", self.scene.title(), e.title())
            }
        };
        format!("Figure {}: {what}", self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_run_from_1_to_39_once_each() {
        let numbers: Vec<u32> = thesis_figures().iter().map(|f| f.number).collect();
        assert_eq!(numbers, (1..=39).collect::<Vec<_>>());
    }

    #[test]
    fn spot_checks_against_the_methodology_table() {
        let f = |n: u32| thesis_figures().into_iter().find(|f| f.number == n).unwrap();
        assert_eq!(f(1).content, FigureContent::ScenePicture);
        assert_eq!(f(11), ThesisFigure { number: 11, scene: Scene::GravityWall, content: FigureContent::ScenePicture });
        assert_eq!(f(26).content, FigureContent::Stiffness(Experiment::N));
        assert_eq!(f(26).scene, Scene::GravityCeiling);
        assert_eq!(f(31).content, FigureContent::Base);
        assert_eq!(
            f(38),
            ThesisFigure { number: 38, scene: Scene::Gravity, content: FigureContent::Error(Experiment::Young) }
        );
        assert_eq!(f(9).file_stem(), "fig-4-09-gravity-floor-young-error");
        assert_eq!(thesis_figure(Scene::Gravity, FigureContent::ScenePicture), None);
    }
}
