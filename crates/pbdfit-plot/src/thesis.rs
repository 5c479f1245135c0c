//! The figure numbering of the source thesis ("Characterization of Position Based Dynamics for elastic
//! materials", chapter 4) as a lookup table: which figure number shows which (scene, experiment, content)
//! of the thesis study (`fits/thesis.toml`). Any other study is drawn under generic names; this table only
//! renames the figures it knows.

/// What a figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FigureContent {
    /// The body's initial and rest state side by side.
    ScenePicture,
    /// A base case (an experiment that varies nothing): error and every fitted parameter against ν.
    Base,
    /// The fitted error against ν, one curve per variant of the experiment.
    Error,
    /// The fitted parameters against ν (one panel each, stacked), one curve per variant.
    Parameters,
}

/// One figure of the thesis's results chapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThesisFigure {
    /// Figure number inside chapter 4 (Figure 4.`number`).
    pub number: u32,
    /// The scene's name in the thesis study, e.g. `gravity-floor`.
    pub scene: &'static str,
    /// The experiment's name in the thesis study (`base`, `dt`, `n`, `nit`, `young`; none for a scene
    /// picture).
    pub experiment: Option<&'static str>,
    /// What is shown.
    pub content: FigureContent,
}

/// The thesis chapter the figures belong to.
pub const CHAPTER: u32 = 4;

/// One row of the numbering table.
struct Row {
    scene: &'static str,
    picture: Option<u32>,
    base: u32,
    /// (error, parameters) for dt, N, nit and E.
    pairs: [(u32, u32); 4],
}

/// The numbering, one row per scene exactly as in docs/method.md's table: scene picture, base, then
/// (error, k) for the experiments dt, N, nit and E.
const TABLE: [Row; 4] = [
    Row { scene: "gravity-floor", picture: Some(1), base: 2, pairs: [(3, 4), (5, 6), (7, 8), (9, 10)] },
    Row { scene: "gravity-wall", picture: Some(11), base: 12, pairs: [(13, 14), (15, 16), (17, 18), (19, 20)] },
    Row { scene: "gravity-ceiling", picture: Some(21), base: 22, pairs: [(23, 24), (25, 26), (27, 28), (29, 30)] },
    Row { scene: "gravity", picture: None, base: 31, pairs: [(32, 33), (34, 35), (36, 37), (38, 39)] },
];

/// The thesis study's base experiment.
const BASE: &str = "base";
/// The experiments of the table's (error, k) column pairs, in column order (names in `fits/thesis.toml`).
const VARIED: [&str; 4] = ["dt", "n", "nit", "young"];

/// Every figure of the chapter (4.1 to 4.39), by number.
pub fn thesis_figures() -> Vec<ThesisFigure> {
    let mut out = Vec::with_capacity(39);
    for Row { scene, picture, base, pairs } in TABLE {
        if let Some(number) = picture {
            out.push(ThesisFigure { number, scene, experiment: None, content: FigureContent::ScenePicture });
        }
        out.push(ThesisFigure { number: base, scene, experiment: Some(BASE), content: FigureContent::Base });
        for (experiment, (error, k)) in VARIED.into_iter().zip(pairs) {
            out.push(ThesisFigure {
                number: error,
                scene,
                experiment: Some(experiment),
                content: FigureContent::Error,
            });
            out.push(ThesisFigure {
                number: k,
                scene,
                experiment: Some(experiment),
                content: FigureContent::Parameters,
            });
        }
    }
    out.sort_by_key(|f| f.number);
    out
}

/// The thesis figure showing `content` of `scene` and `experiment` (names as in the study's layout), if
/// the thesis has one. A scene picture has no experiment.
pub fn thesis_figure(scene: &str, experiment: Option<&str>, content: FigureContent) -> Option<ThesisFigure> {
    thesis_figures().into_iter().find(|f| f.scene == scene && f.experiment == experiment && f.content == content)
}

impl ThesisFigure {
    /// `4.3`.
    pub fn label(&self) -> String {
        format!("{CHAPTER}.{}", self.number)
    }

    /// File name without extension, sortable by number: `fig-4-03-gravity-floor-dt-error`.
    pub fn file_stem(&self) -> String {
        let what = match (self.content, self.experiment) {
            (FigureContent::ScenePicture, _) => "scene".to_string(),
            (FigureContent::Base, _) => "base".to_string(),
            (FigureContent::Error, e) => format!("{}-error", e.unwrap_or_default()),
            (FigureContent::Parameters, e) => format!("{}-k", e.unwrap_or_default()),
        };
        format!("fig-{CHAPTER}-{:02}-{}-{what}", self.number, self.scene)
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
        assert_eq!(
            f(11),
            ThesisFigure { number: 11, scene: "gravity-wall", experiment: None, content: FigureContent::ScenePicture }
        );
        assert_eq!(
            (f(26).scene, f(26).experiment, f(26).content),
            ("gravity-ceiling", Some("n"), FigureContent::Parameters)
        );
        assert_eq!(f(31).content, FigureContent::Base);
        assert_eq!(thesis_figure("gravity", Some("young"), FigureContent::Error).unwrap().number, 38);
        assert_eq!(f(9).file_stem(), "fig-4-09-gravity-floor-young-error");
        assert_eq!(f(4).file_stem(), "fig-4-04-gravity-floor-dt-k");
        assert_eq!(f(31).file_stem(), "fig-4-31-gravity-base");
        assert_eq!(thesis_figure("gravity", None, FigureContent::ScenePicture), None);
        assert_eq!(thesis_figure("gravity-floor", Some("dt"), FigureContent::Base), None);
        assert_eq!(thesis_figure("cantilever", Some("dt"), FigureContent::Error), None);
    }
}
