//! The claims file: claims, their checks, and the validation that turns TOML into typed checks.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::Deserialize;

use crate::ClaimsError;

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
    /// Reads and validates a claims file.
    pub fn from_path(path: &Path) -> Result<ClaimsFile, ClaimsError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ClaimsError::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses and validates claims from TOML text; `origin` names the text in error messages.
    ///
    /// ```
    /// use pbdfit_claims::{Check, ClaimsFile};
    /// let file = ClaimsFile::parse(
    ///     r#"
    ///     [[claim]]
    ///     id = "F2"
    ///     figure = "4.2"
    ///     thesis = "kd increases with nu."
    ///     [[claim.check]]
    ///     kind = "trend"
    ///     scene = "gravity-floor"
    ///     experiment = "base"
    ///     quantity = "kd"
    ///     direction = "rising"
    ///     "#,
    ///     "example",
    /// )
    /// .unwrap();
    /// assert_eq!(file.claims[0].id, "F2");
    /// assert!(matches!(file.claims[0].checks[0], Check::Trend { .. }));
    /// ```
    pub fn parse(text: &str, origin: &str) -> Result<ClaimsFile, ClaimsError> {
        let file_err = |message: String| ClaimsError::File { origin: origin.to_string(), message };
        let root: toml::Table = text.parse().map_err(|e| file_err(format!("not valid TOML: {e}")))?;
        if let Some(key) = root.keys().find(|k| k.as_str() != "claim") {
            return Err(file_err(format!("unknown top-level key `{key}`; a claims file holds only [[claim]] tables")));
        }
        let Some(list) = root.get("claim") else {
            return Ok(ClaimsFile { origin: origin.to_string(), claims: Vec::new() });
        };
        let list = list.as_array().ok_or_else(|| file_err("`claim` must be an array of tables ([[claim]])".into()))?;
        let mut claims: Vec<Claim> = Vec::with_capacity(list.len());
        for (i, value) in list.iter().enumerate() {
            let claim = parse_claim(value, i, origin)?;
            if let Some(first) = claims.iter().position(|c| c.id == claim.id) {
                return Err(ClaimsError::DuplicateId {
                    origin: origin.to_string(),
                    id: claim.id,
                    first: first + 1,
                    second: i + 1,
                });
            }
            claims.push(claim);
        }
        Ok(ClaimsFile { origin: origin.to_string(), claims })
    }

    /// The claim with this id.
    pub fn claim(&self, id: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.id == id)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    id: String,
    figure: String,
    thesis: String,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    check: Vec<toml::Value>,
}

/// A number or a `[from, to]` pair.
/// A `compare` side: a series, optionally with its own quantity.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawSide {
    scene: String,
    experiment: String,
    #[serde(default)]
    value: Option<f64>,
    #[serde(default)]
    quantity: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum NuSpec {
    Single(f64),
    Range([f64; 2]),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    #[serde(rename = "kind")]
    _kind: String,
    scene: Option<String>,
    experiment: Option<String>,
    value: Option<f64>,
    quantity: Option<String>,
    nu: Option<NuSpec>,
    expect: Option<f64>,
    tolerance: Option<f64>,
    below: Option<f64>,
    above: Option<f64>,
    direction: Option<String>,
    min_correlation: Option<f64>,
    values: Option<Vec<f64>>,
    monotone: Option<String>,
    a: Option<RawSide>,
    b: Option<RawSide>,
    stat: Option<String>,
    relation: Option<String>,
    ratio: Option<[f64; 2]>,
    fraction: Option<f64>,
    min_changes: Option<usize>,
    max_changes: Option<usize>,
    over: Option<String>,
    within: Option<[f64; 2]>,
    reason: Option<String>,
}

/// The fields each kind accepts (besides `kind`).
fn allowed_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "at" => &["scene", "experiment", "value", "quantity", "nu", "expect", "tolerance", "below", "above"],
        "range" => &["scene", "experiment", "value", "quantity", "nu", "below", "above"],
        "trend" => &["scene", "experiment", "value", "quantity", "nu", "direction", "min_correlation", "tolerance"],
        "values_order" => &["scene", "experiment", "quantity", "nu", "values", "direction", "monotone", "stat"],
        "compare" => &["a", "b", "quantity", "nu", "stat", "relation", "ratio", "fraction"],
        "oscillates" => &["scene", "experiment", "value", "quantity", "nu", "min_changes", "max_changes"],
        "argmin" => &["scene", "experiment", "value", "quantity", "nu", "over", "values", "within"],
        "untestable" => &["reason"],
        _ => return None,
    })
}

const KINDS: &str = "at, range, trend, values_order, compare, oscillates, argmin, untestable";

fn parse_claim(value: &toml::Value, index: usize, origin: &str) -> Result<Claim, ClaimsError> {
    let id =
        value.get("id").and_then(|v| v.as_str()).map(String::from).unwrap_or_else(|| format!("#{} (no id)", index + 1));
    let err = |field: String, message: String| ClaimsError::Claim {
        origin: origin.to_string(),
        id: id.clone(),
        field,
        message,
    };
    if !value.is_table() {
        return Err(err("claim".into(), "each [[claim]] must be a table".into()));
    }
    let raw: RawClaim = value.clone().try_into().map_err(|e| err("claim".into(), toml_message(&e)))?;
    if raw.id.trim().is_empty() {
        return Err(err("id".into(), "empty id".into()));
    }
    if raw.check.is_empty() {
        return Err(err(
            "check".into(),
            "a claim needs at least one [[claim.check]] (use kind = \"untestable\" with a reason if none can be \
             written)"
                .into(),
        ));
    }
    let mut checks = Vec::with_capacity(raw.check.len());
    for (j, check) in raw.check.iter().enumerate() {
        let prefix = format!("check {}", j + 1);
        checks.push(parse_check(check, &prefix).map_err(|(field, message)| err(field, message))?);
    }
    Ok(Claim { id: raw.id, figure: raw.figure, thesis: raw.thesis, note: raw.note, checks })
}

fn toml_message(e: &toml::de::Error) -> String {
    e.message().trim().to_string()
}

/// Validates one check table; errors are `(field, message)`.
fn parse_check(value: &toml::Value, prefix: &str) -> Result<Check, (String, String)> {
    let at = |field: &str| format!("{prefix}: {field}");
    let table = value.as_table().ok_or_else(|| (prefix.to_string(), "each [[claim.check]] must be a table".into()))?;
    let kind = table
        .get("kind")
        .ok_or_else(|| (at("kind"), format!("missing; one of {KINDS}")))?
        .as_str()
        .ok_or_else(|| (at("kind"), format!("must be a string, one of {KINDS}")))?;
    let allowed = allowed_fields(kind).ok_or_else(|| (at("kind"), format!("unknown kind `{kind}`; one of {KINDS}")))?;
    if let Some(key) = table.keys().find(|k| k.as_str() != "kind" && !allowed.contains(&k.as_str())) {
        return Err((at(key), format!("not used by kind `{kind}` (it takes {})", allowed.join(", "))));
    }
    let raw: RawCheck = value.clone().try_into().map_err(|e| (prefix.to_string(), toml_message(&e)))?;

    let need = |v: &Option<String>, field: &str| -> Result<String, (String, String)> {
        v.clone().ok_or_else(|| (at(field), format!("missing; kind `{kind}` needs it")))
    };
    let quantity = || -> Result<Quantity, (String, String)> {
        need(&raw.quantity, "quantity")?.parse::<Quantity>().map_err(|m| (at("quantity"), m))
    };
    let series = || -> Result<SeriesRef, (String, String)> {
        Ok(SeriesRef {
            scene: need(&raw.scene, "scene")?,
            experiment: need(&raw.experiment, "experiment")?,
            value: raw.value,
        })
    };
    let range = |r: [f64; 2], field: &str| -> Result<(f64, f64), (String, String)> {
        if r.iter().all(|v| v.is_finite()) && r[0] <= r[1] {
            Ok((r[0], r[1]))
        } else {
            Err((at(field), format!("bad range [{}, {}]: needs finite numbers, low <= high", r[0], r[1])))
        }
    };
    let nu_range = || -> Result<NuRange, (String, String)> {
        match raw.nu {
            None => Ok(NuRange::ALL),
            Some(NuSpec::Range(r)) => range(r, "nu").map(|(from, to)| NuRange { from, to }),
            Some(NuSpec::Single(_)) => {
                Err((at("nu"), format!("kind `{kind}` takes a range `nu = [from, to]`, not a single number")))
            }
        }
    };
    let direction = |allow_flat: bool| -> Result<Option<Direction>, (String, String)> {
        match need(&raw.direction, "direction")?.as_str() {
            "rising" => Ok(Some(Direction::Rising)),
            "falling" => Ok(Some(Direction::Falling)),
            "flat" if allow_flat => Ok(None),
            other => Err((
                at("direction"),
                format!(
                    "unknown direction `{other}`; one of rising, falling{}",
                    if allow_flat { ", flat" } else { "" }
                ),
            )),
        }
    };
    let positive = |v: Option<f64>, field: &str| -> Result<(), (String, String)> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => Err((at(field), format!("must be a number >= 0, got {x}"))),
            _ => Ok(()),
        }
    };
    let band = |below: Option<f64>, above: Option<f64>| -> Result<(), (String, String)> {
        if let (Some(b), Some(a)) = (below, above)
            && a >= b
        {
            return Err((at("above"), format!("above = {a} and below = {b} leave nothing between")));
        }
        Ok(())
    };

    let check = match kind {
        "at" => {
            let nu = match raw.nu {
                Some(NuSpec::Single(nu)) => nu,
                Some(NuSpec::Range(_)) => return Err((at("nu"), "kind `at` takes one number, not a range".into())),
                None => return Err((at("nu"), "missing; kind `at` needs it".into())),
            };
            positive(raw.tolerance, "tolerance")?;
            let bound = match (raw.expect, raw.tolerance, raw.below, raw.above) {
                (Some(expect), Some(tolerance), None, None) => Bound::Near { expect, tolerance },
                (Some(_), None, _, _) => return Err((at("tolerance"), "missing; `expect` needs a tolerance".into())),
                (None, Some(_), _, _) => return Err((at("expect"), "missing; `tolerance` goes with `expect`".into())),
                (None, None, None, None) => {
                    return Err((at("expect"), "missing; give expect + tolerance, or below and/or above".into()));
                }
                (None, None, below, above) => {
                    band(below, above)?;
                    Bound::Band { below, above }
                }
                (Some(_), Some(_), _, _) => {
                    return Err((at("below"), "give expect + tolerance, or below/above, not both".into()));
                }
            };
            Check::At { series: series()?, quantity: quantity()?, nu, bound }
        }
        "range" => {
            if raw.below.is_none() && raw.above.is_none() {
                return Err((at("below"), "missing; kind `range` needs below and/or above".into()));
            }
            band(raw.below, raw.above)?;
            Check::Range {
                series: series()?,
                quantity: quantity()?,
                nu: nu_range()?,
                below: raw.below,
                above: raw.above,
            }
        }
        "trend" => {
            let trend = match direction(true)? {
                Some(direction) => {
                    if raw.tolerance.is_some() {
                        return Err((at("tolerance"), "only for direction = \"flat\"".into()));
                    }
                    let min_correlation = raw.min_correlation.unwrap_or(0.5);
                    if !(0.0..=1.0).contains(&min_correlation) {
                        return Err((at("min_correlation"), format!("must lie in [0, 1], got {min_correlation}")));
                    }
                    Trend::Monotone { direction, min_correlation }
                }
                None => {
                    if raw.min_correlation.is_some() {
                        return Err((at("min_correlation"), "only for direction rising or falling".into()));
                    }
                    positive(raw.tolerance, "tolerance")?;
                    Trend::Flat { tolerance: raw.tolerance.unwrap_or(0.2) }
                }
            };
            Check::Trend { series: series()?, quantity: quantity()?, nu: nu_range()?, trend }
        }
        "values_order" => {
            let values =
                raw.values.clone().ok_or_else(|| (at("values"), "missing; kind `values_order` needs it".into()))?;
            if values.len() < 2 {
                return Err((at("values"), "needs at least two experiment values".into()));
            }
            let monotone = match raw.monotone.as_deref() {
                None | Some("strict") => Monotone::Strict,
                Some("overall") => Monotone::Overall,
                Some(other) => return Err((at("monotone"), format!("unknown `{other}`; one of strict, overall"))),
            };
            let stat = match raw.stat.as_deref() {
                None | Some("mean") => SeriesStat::Mean,
                Some("min") => SeriesStat::Min,
                Some("max") => SeriesStat::Max,
                Some(other) => return Err((at("stat"), format!("unknown `{other}`; one of mean, min, max"))),
            };
            Check::ValuesOrder {
                stat,
                scene: need(&raw.scene, "scene")?,
                experiment: need(&raw.experiment, "experiment")?,
                quantity: quantity()?,
                nu: nu_range()?,
                values,
                direction: direction(false)?.expect("flat refused"),
                monotone,
            }
        }
        "compare" => {
            let side = |side: &Option<RawSide>, name: &str| -> Result<(SeriesRef, Quantity), (String, String)> {
                let s = side
                    .clone()
                    .ok_or_else(|| (at(name), format!("missing; kind `compare` needs series {name} = {{...}}")))?;
                let q = s.quantity.or_else(|| raw.quantity.clone()).ok_or_else(|| {
                    (at("quantity"), format!("missing; give `quantity`, or `quantity` inside `{name}`"))
                })?;
                let q = q.parse::<Quantity>().map_err(|m| (at(name), m))?;
                Ok((SeriesRef { scene: s.scene, experiment: s.experiment, value: s.value }, q))
            };
            let (a, quantity_a) = side(&raw.a, "a")?;
            let (b, quantity_b) = side(&raw.b, "b")?;
            let stat = match raw.stat.as_deref() {
                None | Some("mean") => Stat::Mean,
                Some("max") => Stat::Max,
                Some("at_each") => Stat::AtEach,
                Some(other) => return Err((at("stat"), format!("unknown `{other}`; one of mean, max, at_each"))),
            };
            let compare_at = match raw.nu {
                None => CompareAt::Range(NuRange::ALL, stat),
                Some(NuSpec::Range(r)) => {
                    let (from, to) = range(r, "nu")?;
                    CompareAt::Range(NuRange { from, to }, stat)
                }
                Some(NuSpec::Single(nu)) => {
                    if raw.stat.is_some() {
                        return Err((at("stat"), "not used with a single nu".into()));
                    }
                    CompareAt::Nu(nu)
                }
            };
            if raw.fraction.is_some() && (stat != Stat::AtEach || raw.relation.is_none()) {
                return Err((at("fraction"), "only with stat = \"at_each\" and a relation".into()));
            }
            let test = match (raw.relation.as_deref(), raw.ratio) {
                (Some(rel), None) => {
                    let relation = match rel {
                        "less" => Relation::Less,
                        "greater" => Relation::Greater,
                        other => return Err((at("relation"), format!("unknown `{other}`; one of less, greater"))),
                    };
                    let fraction = raw.fraction.unwrap_or(1.0);
                    if !(fraction > 0.0 && fraction <= 1.0) {
                        return Err((at("fraction"), format!("must lie in (0, 1], got {fraction}")));
                    }
                    CompareTest::Relation { relation, fraction }
                }
                (None, Some(r)) => {
                    let (lo, hi) = range(r, "ratio")?;
                    CompareTest::Ratio { lo, hi }
                }
                (None, None) => return Err((at("relation"), "missing; give relation or ratio".into())),
                (Some(_), Some(_)) => return Err((at("ratio"), "give relation or ratio, not both".into())),
            };
            Check::Compare { a, b, quantity_a, quantity_b, at: compare_at, test }
        }
        "oscillates" => {
            if raw.min_changes.is_none() && raw.max_changes.is_none() {
                return Err((
                    at("min_changes"),
                    "missing; kind `oscillates` needs min_changes and/or max_changes".into(),
                ));
            }
            if let (Some(lo), Some(hi)) = (raw.min_changes, raw.max_changes)
                && lo > hi
            {
                return Err((at("max_changes"), format!("min_changes = {lo} > max_changes = {hi}")));
            }
            Check::Oscillates {
                series: series()?,
                quantity: quantity()?,
                nu: nu_range()?,
                min_changes: raw.min_changes,
                max_changes: raw.max_changes,
            }
        }
        "argmin" => {
            let within =
                raw.within.ok_or_else(|| (at("within"), "missing; kind `argmin` needs within = [lo, hi]".into()))?;
            let within = range(within, "within")?;
            let over = match raw.over.as_deref() {
                None | Some("nu") => {
                    if raw.values.is_some() {
                        return Err((at("values"), "only with over = \"values\"".into()));
                    }
                    ArgminOver::Nu
                }
                Some("values") => ArgminOver::Values(raw.values.clone().unwrap_or_default()),
                Some(other) => return Err((at("over"), format!("unknown `{other}`; one of nu, values"))),
            };
            Check::Argmin { series: series()?, quantity: quantity()?, nu: nu_range()?, over, within }
        }
        "untestable" => {
            let reason = need(&raw.reason, "reason")?;
            if reason.trim().is_empty() {
                return Err((at("reason"), "empty; say why no predicate fits".into()));
            }
            Check::Untestable { reason }
        }
        _ => unreachable!("kinds checked above"),
    };
    Ok(check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(body: &str) -> String {
        format!("[[claim]]\nid = \"X1\"\nfigure = \"4.2\"\nthesis = \"t\"\n{body}")
    }

    fn error_of(text: &str) -> String {
        ClaimsFile::parse(text, "test.toml").unwrap_err().to_string()
    }

    const TREND: &str = "[[claim.check]]\nkind = \"trend\"\nscene = \"s\"\nexperiment = \"base\"\nquantity = \"kd\"\ndirection = \"rising\"\n";

    #[test]
    fn parses_each_kind() {
        let text = claim(&format!(
            "{TREND}\
             [[claim.check]]\nkind = \"at\"\nscene = \"s\"\nexperiment = \"dt\"\nvalue = 0.01\nquantity = \"error\"\nnu = 0\nexpect = 0.14\ntolerance = 0.04\n\
             [[claim.check]]\nkind = \"range\"\nscene = \"s\"\nexperiment = \"base\"\nquantity = \"error\"\nnu = [0, 0.3]\nbelow = 0.2\n\
             [[claim.check]]\nkind = \"values_order\"\nscene = \"s\"\nexperiment = \"n\"\nquantity = \"kd\"\nvalues = [1, 2, 3, 4]\ndirection = \"rising\"\nmonotone = \"overall\"\n\
             [[claim.check]]\nkind = \"compare\"\na = {{ scene = \"c\", experiment = \"base\" }}\nb = {{ scene = \"f\", experiment = \"base\" }}\nquantity = \"error\"\nnu = 0.49\nratio = [1.1, 1.5]\n\
             [[claim.check]]\nkind = \"oscillates\"\nscene = \"s\"\nexperiment = \"base\"\nquantity = \"share:gravity-wall\"\nmax_changes = 3\n\
             [[claim.check]]\nkind = \"argmin\"\nscene = \"s\"\nexperiment = \"young\"\nquantity = \"error\"\nover = \"values\"\nwithin = [1000, 1000]\n\
             [[claim.check]]\nkind = \"untestable\"\nreason = \"words\"\n"
        ));
        let file = ClaimsFile::parse(&text, "test.toml").unwrap();
        let checks = &file.claims[0].checks;
        assert_eq!(checks.len(), 8);
        assert_eq!(
            checks[1],
            Check::At {
                series: SeriesRef { scene: "s".into(), experiment: "dt".into(), value: Some(0.01) },
                quantity: Quantity::Error,
                nu: 0.0,
                bound: Bound::Near { expect: 0.14, tolerance: 0.04 },
            }
        );
        assert!(matches!(checks[0], Check::Trend { trend: Trend::Monotone { min_correlation: 0.5, .. }, .. }));
        assert!(matches!(&checks[2], Check::Range { nu: NuRange { from: 0.0, to: 0.3 }, below: Some(0.2), .. }));
        assert!(
            matches!(&checks[3], Check::ValuesOrder { values, monotone: Monotone::Overall, .. } if values.len() == 4)
        );
        assert!(matches!(
            checks[4],
            Check::Compare { at: CompareAt::Nu(0.49), test: CompareTest::Ratio { lo: 1.1, hi: 1.5 }, .. }
        ));
        assert!(
            matches!(&checks[5], Check::Oscillates { quantity: Quantity::Share(p), max_changes: Some(3), .. } if p == "gravity-wall")
        );
        assert!(
            matches!(&checks[6], Check::Argmin { over: ArgminOver::Values(v), within: (1000.0, 1000.0), .. } if v.is_empty())
        );
    }

    #[test]
    fn unknown_kind_names_claim_and_field() {
        let e = error_of(&claim("[[claim.check]]\nkind = \"wiggles\"\n"));
        assert!(e.contains("claim X1") && e.contains("check 1: kind") && e.contains("unknown kind `wiggles`"), "{e}");
    }

    #[test]
    fn missing_quantity_names_claim_and_field() {
        let e = error_of(&claim(
            "[[claim.check]]\nkind = \"trend\"\nscene = \"s\"\nexperiment = \"base\"\ndirection = \"rising\"\n",
        ));
        assert!(e.contains("test.toml: claim X1: check 1: quantity: missing"), "{e}");
    }

    #[test]
    fn duplicate_id_is_refused() {
        let one = claim(TREND);
        let e = error_of(&format!("{one}{one}"));
        assert!(e.contains("claim X1: duplicate id") && e.contains("1 and 2"), "{e}");
    }

    #[test]
    fn bad_ranges_and_misplaced_fields_are_refused() {
        let e = error_of(&claim(&TREND.replace("direction", "nu = [0.4, 0.1]\ndirection")));
        assert!(e.contains("claim X1: check 1: nu: bad range [0.4, 0.1]"), "{e}");
        let e = error_of(&claim(&format!("{TREND}expect = 0.1\n")));
        assert!(e.contains("claim X1: check 1: expect: not used by kind `trend`"), "{e}");
        let e = error_of(&claim(&TREND.replace("rising", "sideways")));
        assert!(e.contains("check 1: direction: unknown direction `sideways`"), "{e}");
        let e = error_of(
            "[[claim]]\nfigure = \"1\"\nthesis = \"t\"\n[[claim.check]]\nkind = \"untestable\"\nreason = \"r\"\n",
        );
        assert!(e.contains("claim #1 (no id): claim:") && e.contains("id"), "{e}");
        let e = error_of(&claim(""));
        assert!(e.contains("claim X1: check: a claim needs at least one"), "{e}");
    }
}
