//! The claims file's schema: claims, their checks, and the types checks are made of. Parsing (`parse.rs`)
//! validates TOML into these types; evaluation (`evaluate.rs`) tests them against results.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// What a series plots against nu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quantity {
    /// The fit's error (`error`).
    Error,
    /// A fitted parameter by name (`kd`, `kv`, `alpha_d`, ...).
    Parameter(String),
    /// A compound record's part error squared over the compound error squared (`share:<part>`): the
    /// part's share of the compound error, since the compound error is the norm of the parts' errors.
    Share(String),
}

impl FromStr for Quantity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty quantity; use `error`, a parameter name (`kd`) or `share:<part>`".into());
        }
        if s == "error" {
            return Ok(Quantity::Error);
        }
        if let Some(part) = s.strip_prefix("share:") {
            if part.is_empty() {
                return Err("`share:` needs a part scene, e.g. `share:gravity-wall`".into());
            }
            return Ok(Quantity::Share(part.to_string()));
        }
        Ok(Quantity::Parameter(s.to_string()))
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Quantity::Error => write!(f, "error"),
            Quantity::Parameter(p) => write!(f, "{p}"),
            Quantity::Share(part) => write!(f, "share of {part}"),
        }
    }
}

/// One curve of a figure: a scene, an experiment and (for a varied experiment) one of its values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesRef {
    /// Scene name, e.g. `gravity-floor`.
    pub scene: String,
    /// Experiment name, e.g. `base`, `dt`.
    pub experiment: String,
    /// The experiment's value (`None` for the base case).
    #[serde(default)]
    pub value: Option<f64>,
}

impl fmt::Display for SeriesRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            None => write!(f, "{} {}", self.scene, self.experiment),
            Some(v) => write!(f, "{} {} = {v}", self.scene, self.experiment),
        }
    }
}

/// A closed interval of nu (the whole study when not given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NuRange {
    /// Lowest nu included.
    pub from: f64,
    /// Highest nu included.
    pub to: f64,
}

impl NuRange {
    /// Every nu.
    pub const ALL: NuRange = NuRange { from: f64::NEG_INFINITY, to: f64::INFINITY };

    /// Whether `nu` lies in the range (with 1e-9 slack for nu values read from CSV).
    pub fn contains(&self, nu: f64) -> bool {
        nu >= self.from - 1e-9 && nu <= self.to + 1e-9
    }
}

impl fmt::Display for NuRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == NuRange::ALL { write!(f, "all nu") } else { write!(f, "nu in [{}, {}]", self.from, self.to) }
    }
}

/// What an `at` check expects of its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Within `tolerance` (absolute) of `expect`.
    Near {
        /// The thesis's value.
        expect: f64,
        /// Absolute tolerance.
        tolerance: f64,
    },
    /// Strictly below and/or above the given numbers.
    Band {
        /// Upper bound (exclusive).
        below: Option<f64>,
        /// Lower bound (exclusive).
        above: Option<f64>,
    },
}

/// Rising or falling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Increasing.
    Rising,
    /// Decreasing.
    Falling,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Rising => "rising",
            Direction::Falling => "falling",
        })
    }
}

/// The shape a `trend` check expects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trend {
    /// Rising or falling: Spearman's rho against nu at least `min_correlation` (falling: at most minus it).
    Monotone {
        /// Rising or falling.
        direction: Direction,
        /// The rank correlation needed (default 0.5).
        min_correlation: f64,
    },
    /// `(max - min) / mean(|values|) <= tolerance` (default 0.2).
    Flat {
        /// The relative spread allowed.
        tolerance: f64,
    },
}

/// How strictly a `values_order` check reads "rising" / "falling".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Monotone {
    /// Every step in the given direction (strictly).
    Strict,
    /// Only the last value against the first.
    Overall,
}

/// The statistic a `compare` check takes of each series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// Mean over the common nu.
    Mean,
    /// Maximum over the common nu.
    Max,
    /// Every common nu on its own.
    AtEach,
}

/// What a `values_order` check takes of each value's series: `stat = "mean" | "min" | "max"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesStat {
    /// The mean over the nu range.
    Mean,
    /// The smallest value (e.g. "the best error").
    Min,
    /// The largest value.
    Max,
}

impl fmt::Display for SeriesStat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SeriesStat::Mean => "mean",
            SeriesStat::Min => "min",
            SeriesStat::Max => "max",
        })
    }
}

/// Less or greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// A < B.
    Less,
    /// A > B.
    Greater,
}

/// What a `compare` check tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CompareTest {
    /// A's statistic is less / greater than B's; with `at_each`, at least `fraction` of the common nu
    /// (default 1: every one) satisfy it.
    Relation {
        /// Less or greater.
        relation: Relation,
        /// Share of common nu that must satisfy the relation (`at_each` only).
        fraction: f64,
    },
    /// stat(A) / stat(B) lies in `[lo, hi]` (with `at_each`: every pointwise ratio does).
    Ratio {
        /// Lowest ratio allowed.
        lo: f64,
        /// Highest ratio allowed.
        hi: f64,
    },
}

/// Where a `compare` check looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CompareAt {
    /// A range of nu, with a statistic.
    Range(NuRange, Stat),
    /// One nu (nearest in the data, within 1e-6).
    Nu(f64),
}

/// What an `argmin` check minimises over.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgminOver {
    /// The nu of the series' smallest value.
    Nu,
    /// The experiment value whose mean over the nu range is smallest; the values are those given, or
    /// the study's values of the experiment when empty.
    Values(Vec<f64>),
}

/// One machine-checkable statement about the results. All checks of a claim must hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The quantity at one nu.
    At {
        /// The curve.
        series: SeriesRef,
        /// What is read.
        quantity: Quantity,
        /// The nu (nearest in the data, within 1e-6).
        nu: f64,
        /// What the value must satisfy.
        bound: Bound,
    },
    /// Every value over a nu range below and/or above a number.
    Range {
        /// The curve.
        series: SeriesRef,
        /// What is read.
        quantity: Quantity,
        /// Where.
        nu: NuRange,
        /// Every value strictly below this.
        below: Option<f64>,
        /// Every value strictly above this.
        above: Option<f64>,
    },
    /// Rising, falling or flat against nu.
    Trend {
        /// The curve.
        series: SeriesRef,
        /// What is read.
        quantity: Quantity,
        /// Where.
        nu: NuRange,
        /// The expected shape.
        trend: Trend,
    },
    /// The mean over a nu range, across an experiment's values in the given order, rises or falls.
    ValuesOrder {
        /// Scene.
        scene: String,
        /// Experiment.
        experiment: String,
        /// What is read.
        quantity: Quantity,
        /// Where.
        nu: NuRange,
        /// The experiment's values, in the order the direction applies to.
        values: Vec<f64>,
        /// Rising or falling along `values`.
        direction: Direction,
        /// Every step, or last against first.
        monotone: Monotone,
        /// What is taken of each value's series over the range (default the mean).
        stat: SeriesStat,
    },
    /// Two series compared by a statistic or a ratio.
    Compare {
        /// Series A.
        a: SeriesRef,
        /// Series B.
        b: SeriesRef,
        /// What is read of A (`quantity` inside `a`, else the check's `quantity`).
        quantity_a: Quantity,
        /// What is read of B.
        quantity_b: Quantity,
        /// Where, and with which statistic.
        at: CompareAt,
        /// The test.
        test: CompareTest,
    },
    /// Sign changes of successive differences within `[min_changes, max_changes]`.
    Oscillates {
        /// The curve.
        series: SeriesRef,
        /// What is read.
        quantity: Quantity,
        /// Where.
        nu: NuRange,
        /// At least this many sign changes ("oscillates").
        min_changes: Option<usize>,
        /// At most this many ("regular", "does not oscillate").
        max_changes: Option<usize>,
    },
    /// Where the quantity is smallest.
    Argmin {
        /// The curve (with `over = "values"`, its `value` is unused).
        series: SeriesRef,
        /// What is read.
        quantity: Quantity,
        /// Where.
        nu: NuRange,
        /// Over nu or over the experiment's values.
        over: ArgminOver,
        /// The argmin must lie in `[lo, hi]`.
        within: (f64, f64),
    },
    /// No predicate can capture the statement.
    Untestable {
        /// Why.
        reason: String,
    },
}

/// One statement of the thesis with the checks that test it.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// Id, e.g. `F1`.
    pub id: String,
    /// The thesis figure(s), e.g. `4.2`.
    pub figure: String,
    /// The statement, in the thesis's words (paraphrased).
    pub thesis: String,
    /// How the words were turned into numbers.
    pub note: Option<String>,
    /// All must hold.
    pub checks: Vec<Check>,
}

/// A parsed, validated claims file.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimsFile {
    /// Where it came from (path or given name), for messages.
    pub origin: String,
    /// The claims in file order.
    pub claims: Vec<Claim>,
}

impl ClaimsFile {
    /// The claim with this id.
    pub fn claim(&self, id: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.id == id)
    }
}
