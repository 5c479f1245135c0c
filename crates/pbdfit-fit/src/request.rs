//! One fit request: what a user asks of a fit (model, box, search and its controls), as the command line,
//! the Python package and the study and table files give it, validated in one place into [`FitOptions`].
//!
//! Each front end fills a [`FitRequest`] from its own spelling and names a refused option its own way
//! ([`FitOption::flag`] for `--grid`, [`FitOption::keyword`] for Python's `grid`, [`FitOption::file_key`]
//! for a file's `fit.grid`); the rules and their messages live here once.

use std::fmt;

use pbdfit_pbd::{ModelKind, Scale};

use crate::{FitOptions, Search, SearchBox, SearchError};

/// The most grid points a fit's grid may have (points per axis to the power of the box's dimensions).
/// Every point is a rest state computed before the search and kept in memory, so the bound is on time
/// and memory both: the default grids have at most 2,401 points (7^4), the committed studies and tables
/// 441; 100,000 points is 316 per axis for two parameters, 46 for three, 17 for four. Without it
/// `--grid 1000000` asked for 10^12 points and aborted allocating them (or, without a memory limit,
/// took the machine). [`check_grid_memory`](crate::check_grid_memory) bounds the memory of an
/// allowed grid on a large body.
pub const MAX_GRID_POINTS: usize = 100_000;

/// `per_axis^dimensions`, `None` where it overflows.
fn grid_points(per_axis: usize, dimensions: usize) -> Option<usize> {
    u32::try_from(dimensions).ok().and_then(|d| per_axis.checked_pow(d))
}

/// The most points per axis a grid of `dimensions` axes may have ([`MAX_GRID_POINTS`]).
pub fn largest_grid(dimensions: usize) -> usize {
    let mut r = 2;
    while grid_points(r + 1, dimensions).is_some_and(|p| p <= MAX_GRID_POINTS) {
        r += 1;
    }
    r
}

/// What a user asks of one fit. `None` leaves an option at its default.
#[derive(Debug, Clone, PartialEq)]
pub struct FitRequest {
    /// The model whose parameters are fitted.
    pub kind: ModelKind,
    /// Bounds replacing the model's default box: `(parameter, lower, upper)` in the parameter's unit.
    pub bounds: Vec<(String, f64, f64)>,
    /// Leave out bounds of parameters the model does not have (a study's box shared by several models);
    /// otherwise such a bound is refused.
    pub skip_foreign_bounds: bool,
    /// Allow the PBD variants' experimental stiffness above 1 in the box.
    pub unbounded: bool,
    /// The search (`None`: the front end's default, given to [`FitRequest::options`]).
    pub search: Option<Search>,
    /// Grid points per axis (`None`: the search's default), at least 2.
    pub grid: Option<usize>,
    /// The stopping step as a fraction of each axis (`None`: 1e-4), finite and > 0.
    pub min_step: Option<f64>,
    /// Further starts of a gradient search, each a value for every parameter in the model's order.
    pub starts: Vec<Vec<f64>>,
    /// The gradient search's evaluation budget after its grid (`None`: [`FitOptions::new`]'s).
    pub max_evaluations: Option<usize>,
    /// Wall-clock limit of the fit in seconds, finite and > 0.
    pub max_seconds: Option<f64>,
    /// In a study or table, whether fits start from their neighbour in nu (gradient search only).
    pub neighbour_starts: Option<bool>,
}

/// An option of a [`FitRequest`], to name a refused one in the front end's own spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FitOption {
    /// The whole box (a bound outside what the model allows), or one parameter's bounds.
    Box(Option<String>),
    /// The search.
    Search,
    /// Grid points per axis.
    Grid,
    /// The stopping step.
    MinStep,
    /// The evaluation budget.
    MaxEvaluations,
    /// The time limit.
    MaxSeconds,
    /// Neighbour starts.
    NeighbourStarts,
    /// The start with this index.
    Start(usize),
}

impl FitOption {
    /// The command line's flag: `--box`, `--grid`, `--min-step`, ...
    pub fn flag(&self) -> String {
        match self {
            FitOption::Box(_) => "--box".into(),
            FitOption::Search => "--search".into(),
            FitOption::Grid => "--grid".into(),
            FitOption::MinStep => "--min-step".into(),
            FitOption::MaxEvaluations => "--max-evaluations".into(),
            FitOption::MaxSeconds => "--max-seconds".into(),
            FitOption::NeighbourStarts => "neighbour starts".into(),
            FitOption::Start(_) => "--start".into(),
        }
    }

    /// The Python keyword: `box`, `grid`, `min_step`, ...
    pub fn keyword(&self) -> String {
        match self {
            FitOption::Box(_) => "box".into(),
            FitOption::Search => "search".into(),
            FitOption::Grid => "grid".into(),
            FitOption::MinStep => "min_step".into(),
            FitOption::MaxEvaluations => "max_evaluations".into(),
            FitOption::MaxSeconds => "max_seconds".into(),
            FitOption::NeighbourStarts => "neighbour_starts".into(),
            FitOption::Start(i) => format!("starts[{i}]"),
        }
    }

    /// The study or table file's key: `box.kd`, `box`, `fit.grid`, `fit.min_step`, ...
    pub fn file_key(&self) -> String {
        match self {
            FitOption::Box(Some(name)) => format!("box.{name}"),
            FitOption::Box(None) => "box".into(),
            FitOption::Search => "fit.search".into(),
            FitOption::Grid => "fit.grid".into(),
            FitOption::MinStep => "fit.min_step".into(),
            FitOption::MaxEvaluations => "fit.max_evaluations".into(),
            FitOption::MaxSeconds => "fit.max_seconds".into(),
            FitOption::NeighbourStarts => "fit.neighbour_starts".into(),
            FitOption::Start(i) => format!("fit.starts[{i}]"),
        }
    }
}

impl fmt::Display for FitOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.keyword())
    }
}

/// A refused option of a [`FitRequest`]: which one, and why (the message starts with the value given, so
/// that `"{flag} {message}"` reads `--grid 1 must be at least 2 (points per axis)`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{option} {message}")]
pub struct FitRequestError {
    /// The option refused.
    pub option: FitOption,
    /// Why, starting with the value given.
    pub message: String,
}

impl FitRequestError {
    fn new(option: FitOption, message: String) -> Self {
        FitRequestError { option, message }
    }

    fn of_box(name: Option<&str>, e: SearchError) -> Self {
        FitRequestError::new(FitOption::Box(name.map(String::from)), e.to_string())
    }
}

impl FitRequest {
    /// A request for `kind` that leaves everything at its default.
    pub fn new(kind: ModelKind) -> Self {
        FitRequest {
            kind,
            bounds: Vec::new(),
            skip_foreign_bounds: false,
            unbounded: false,
            search: None,
            grid: None,
            min_step: None,
            starts: Vec::new(),
            max_evaluations: None,
            max_seconds: None,
            neighbour_starts: None,
        }
    }

    /// The validated options, `default_search` where the request names no search; the first refused
    /// option otherwise. Nothing is clamped or dropped silently.
    pub fn options(&self, default_search: Search) -> Result<FitOptions, FitRequestError> {
        let mut search_box = SearchBox::default_for(self.kind);
        for (i, (name, _, _)) in self.bounds.iter().enumerate() {
            // A parameter bounded twice: the last would silently win.
            if self.bounds[..i].iter().any(|(other, _, _)| other == name) {
                return Err(FitRequestError::new(
                    FitOption::Box(Some(name.clone())),
                    format!("box for {name}: {name} is bounded twice; give each parameter's bounds once"),
                ));
            }
        }
        for (name, lower, upper) in &self.bounds {
            if self.skip_foreign_bounds && self.kind.parameter(name).is_none() {
                continue;
            }
            search_box = search_box
                .with_bounds(name, *lower, *upper)
                .map_err(|e| FitRequestError::of_box(Some(name.as_str()), e))?;
        }
        search_box.check_allowed(self.unbounded).map_err(|e| FitRequestError::of_box(None, e))?;
        let mut options = FitOptions::new(search_box);
        options.search = self.search.unwrap_or(default_search);
        if let Some(grid) = self.grid {
            if grid < 2 {
                return Err(FitRequestError::new(
                    FitOption::Grid,
                    format!("{grid} must be at least 2 (points per axis)"),
                ));
            }
            let dimensions = options.search_box.dimensions();
            if grid_points(grid, dimensions).is_none_or(|p| p > MAX_GRID_POINTS) {
                return Err(FitRequestError::new(
                    FitOption::Grid,
                    format!(
                        "{grid} gives {grid}^{dimensions} grid points for the {dimensions} parameters of model {}, \
                         above the {MAX_GRID_POINTS} a fit may hold (each point is a rest state, computed and kept \
                         in memory): give at most {} points per axis",
                        self.kind,
                        largest_grid(dimensions)
                    ),
                ));
            }
            options.grid = Some(grid);
        }
        if let Some(min_step) = self.min_step {
            if !(min_step.is_finite() && min_step > 0.0) {
                return Err(FitRequestError::new(
                    FitOption::MinStep,
                    format!("{min_step} must be a finite number > 0"),
                ));
            }
            options.min_step = min_step;
        }
        if let Some(seconds) = self.max_seconds {
            if !(seconds.is_finite() && seconds > 0.0) {
                return Err(FitRequestError::new(
                    FitOption::MaxSeconds,
                    format!("{seconds} must be a finite number > 0"),
                ));
            }
            options.max_seconds = Some(seconds);
        }
        if let Some(budget) = self.max_evaluations {
            options.max_evaluations = budget;
        }
        if let Some(on) = self.neighbour_starts {
            if on && options.search != Search::Gradient {
                return Err(FitRequestError::new(
                    FitOption::NeighbourStarts,
                    format!("needs search = \"gradient\" (the {} search takes no starts)", options.search.name()),
                ));
            }
            options.neighbour_starts = on;
        }
        let axes = options.search_box.axes().to_vec();
        for (i, start) in self.starts.iter().enumerate() {
            let option = || FitOption::Start(i);
            if start.len() != axes.len() {
                return Err(FitRequestError::new(
                    option(),
                    format!(
                        "{start:?} has {} values: give one for every parameter ({})",
                        start.len(),
                        self.kind.parameter_names()
                    ),
                ));
            }
            for (axis, &v) in axes.iter().zip(start) {
                if !v.is_finite() || (axis.scale == Scale::Log10 && v <= 0.0) {
                    return Err(FitRequestError::new(
                        option(),
                        format!("{} = {v} is not a value of the box", axis.name),
                    ));
                }
                // A start outside the box was used as given (kd = 2 in a [0, 1] box).
                if v < axis.lower || v > axis.upper {
                    // Widening the box helps only within what the model allows.
                    let remedy = match self.kind.parameter(axis.name).map(|(_, spec)| spec.check(v, self.unbounded)) {
                        Some(Err(e)) => format!("and outside what the model allows ({e})"),
                        _ => format!("widen it with --box {}=LO:HI to start there", axis.name),
                    };
                    return Err(FitRequestError::new(
                        option(),
                        format!(
                            "{} = {v} is outside the box [{}, {}]: a start lies in the box searched; {remedy}",
                            axis.name, axis.lower, axis.upper
                        ),
                    ));
                }
            }
        }
        options.starts = self.starts.clone();
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_request_gives_the_default_options() {
        for kind in ModelKind::all() {
            let options = FitRequest::new(*kind).options(Search::Pattern).unwrap();
            assert_eq!(options, FitOptions::new(SearchBox::default_for(*kind)), "{kind}");
        }
    }

    #[test]
    fn every_option_is_checked_and_named_in_each_spelling() {
        let request = || FitRequest::new(ModelKind::PBD);
        let refused = |r: FitRequest| r.options(Search::Pattern).unwrap_err();
        let e = refused(FitRequest { grid: Some(1), ..request() });
        assert_eq!(
            (e.option.flag(), e.to_string()),
            ("--grid".into(), "grid 1 must be at least 2 (points per axis)".into())
        );
        assert_eq!(e.option.file_key(), "fit.grid");
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(refused(FitRequest { min_step: Some(bad), ..request() }).option, FitOption::MinStep);
            assert_eq!(refused(FitRequest { max_seconds: Some(bad), ..request() }).option, FitOption::MaxSeconds);
        }
        let e = refused(FitRequest { bounds: vec![("kd".into(), 0.5, 0.2)], ..request() });
        assert_eq!(e.option.file_key(), "box.kd");
        let e = refused(FitRequest { bounds: vec![("kd".into(), 0.0, 2.0)], ..request() });
        assert_eq!(e.option, FitOption::Box(None));
        assert!(e.message.contains("--unbounded"), "{e}");
        assert!(
            FitRequest { bounds: vec![("kd".into(), 0.0, 2.0)], unbounded: true, ..request() }
                .options(Search::Pattern)
                .is_ok()
        );
        let e = refused(FitRequest { bounds: vec![("alpha_d".into(), 1e-3, 1.0)], ..request() });
        assert!(e.message.contains("no parameter `alpha_d`"), "{e}");
        let skipped =
            FitRequest { bounds: vec![("alpha_d".into(), 1e-3, 1.0)], skip_foreign_bounds: true, ..request() };
        assert!(skipped.options(Search::Pattern).is_ok());
        let e = refused(FitRequest { neighbour_starts: Some(true), ..request() });
        assert_eq!(e.option.file_key(), "fit.neighbour_starts");
        assert!(e.message.contains("gradient"), "{e}");
        let gradient = FitRequest { neighbour_starts: Some(true), search: Some(Search::Gradient), ..request() };
        assert!(gradient.options(Search::Pattern).unwrap().neighbour_starts());
        let e = refused(FitRequest { starts: vec![vec![0.5]], ..request() });
        assert_eq!(e.option.keyword(), "starts[0]");
        let xpbd = FitRequest { starts: vec![vec![1e-3, 0.0]], ..FitRequest::new(ModelKind::XPBD) };
        assert!(refused(xpbd).message.contains("alpha_v = 0 is not a value of the box"));
        // A start outside the box, and a parameter bounded twice, were used silently.
        let e = refused(FitRequest { starts: vec![vec![2.0, 0.5]], ..request() });
        assert!(e.message.contains("kd = 2 is outside the box [0, 1]"), "{}", e.message);
        assert!(e.message.contains("outside what the model allows") && !e.message.contains("--box"), "{}", e.message);
        let narrow = vec![("kd".to_string(), 0.0, 0.5)];
        let e = refused(FitRequest { bounds: narrow, starts: vec![vec![0.8, 0.5]], ..request() });
        assert!(e.message.contains("widen it with --box kd=LO:HI"), "{}", e.message);
        let twice = vec![("kd".to_string(), 0.0, 0.5), ("kd".to_string(), 0.0, 1.0)];
        let e = refused(FitRequest { bounds: twice, ..request() });
        assert!(e.message.contains("kd is bounded twice"), "{}", e.message);
    }

    /// Nothing bounded the grid, and `--grid 1000000` asked for 10^12
    /// points and aborted allocating them. A grid beyond [`MAX_GRID_POINTS`] is refused when the options
    /// are checked (before any work, for the command line, Python and the study and table files alike),
    /// naming the most points per axis allowed; that many are allowed, one more is not.
    #[test]
    fn a_grid_beyond_the_bound_is_refused() {
        let e = FitRequest { grid: Some(1_000_000), ..FitRequest::new(ModelKind::PBD) }
            .options(Search::Pattern)
            .unwrap_err();
        assert_eq!((e.option.flag(), e.option.file_key()), ("--grid".into(), "fit.grid".into()));
        assert!(e.message.contains("1000000^2 grid points") && e.message.contains("at most 316 points"), "{e}");
        for kind in ModelKind::all() {
            let d = SearchBox::default_for(*kind).dimensions();
            let r = largest_grid(d);
            assert!(r.pow(d as u32) <= MAX_GRID_POINTS && (r + 1).pow(d as u32) > MAX_GRID_POINTS, "{kind}");
            for search in Search::ALL {
                let request = |grid| FitRequest { grid: Some(grid), search: Some(search), ..FitRequest::new(*kind) };
                assert!(request(r).options(search).is_ok(), "{kind}: {r}");
                assert_eq!(request(r + 1).options(search).unwrap_err().option, FitOption::Grid, "{kind}");
                // Overflowing usize is refused too, not wrapped.
                assert_eq!(request(usize::MAX).options(search).unwrap_err().option, FitOption::Grid, "{kind}");
            }
        }
        // The default grids are far inside the bound.
        for d in 1..=4 {
            assert!(crate::default_grid(d).pow(d as u32) <= MAX_GRID_POINTS);
        }
    }

    #[test]
    fn what_is_asked_is_what_is_run() {
        let r = FitRequest {
            bounds: vec![("kd".into(), 0.1, 0.9)],
            search: Some(Search::Gradient),
            grid: Some(7),
            min_step: Some(1e-3),
            starts: vec![vec![0.3, 0.4]],
            max_evaluations: Some(50),
            max_seconds: Some(2.5),
            ..FitRequest::new(ModelKind::PBD)
        };
        let o = r.options(Search::Pattern).unwrap();
        assert_eq!(
            (o.search, o.grid, o.min_step, o.max_evaluations, o.max_seconds),
            (Search::Gradient, Some(7), 1e-3, 50, Some(2.5))
        );
        assert_eq!(o.starts, vec![vec![0.3, 0.4]]);
        assert_eq!((o.search_box.axes()[0].lower, o.search_box.axes()[0].upper), (0.1, 0.9));
        assert_eq!(FitRequest::new(ModelKind::PBD).options(Search::Gradient).unwrap().search, Search::Gradient);
    }
}
