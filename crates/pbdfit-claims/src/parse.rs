//! Parsing the claims file: TOML to validated [`Claim`]s and [`Check`]s ([`ClaimsFile::parse`]), one
//! parser per check kind, each error naming the claim and the field.

use std::path::Path;

use serde::Deserialize;

use crate::ClaimsError;
use crate::claims::{
    ArgminOver, Bound, Check, Claim, ClaimsFile, CompareAt, CompareTest, Direction, Monotone, NuRange, Quantity,
    Relation, SeriesRef, SeriesStat, Stat, Trend,
};

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

/// A number or a `[from, to]` pair.
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

/// A check kind's parser: its fields in, the check or `(field, message)` out.
type KindParser = fn(&CheckFields) -> Result<Check, CheckError>;

/// Every check kind: its name in `kind = "..."`, the fields it accepts (besides `kind`) and its parser.
/// The one list that the messages, the field check and the dispatch read; a new kind is one line here and
/// its parser.
const CHECK_KINDS: &[(&str, &[&str], KindParser)] = &[
    ("at", &["scene", "experiment", "value", "quantity", "nu", "expect", "tolerance", "below", "above"], parse_at),
    ("range", &["scene", "experiment", "value", "quantity", "nu", "below", "above"], parse_range),
    (
        "trend",
        &["scene", "experiment", "value", "quantity", "nu", "direction", "min_correlation", "tolerance"],
        parse_trend,
    ),
    (
        "values_order",
        &["scene", "experiment", "quantity", "nu", "values", "direction", "monotone", "stat"],
        parse_values_order,
    ),
    ("compare", &["a", "b", "quantity", "nu", "stat", "relation", "ratio", "fraction"], parse_compare),
    ("oscillates", &["scene", "experiment", "value", "quantity", "nu", "min_changes", "max_changes"], parse_oscillates),
    ("argmin", &["scene", "experiment", "value", "quantity", "nu", "over", "values", "within"], parse_argmin),
    ("untestable", &["reason"], parse_untestable),
];

/// The kinds' names for messages: `at, range, ...`.
fn kinds() -> String {
    CHECK_KINDS.iter().map(|(name, _, _)| *name).collect::<Vec<_>>().join(", ")
}

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

/// A check's error: `(field, message)`, the field named with the check's place (`check 2: nu`).
type CheckError = (String, String);

/// One check table being validated: its fields, its kind, and the prefix that places it in messages
/// (`check 2`). Its methods read and validate the fields several kinds share.
struct CheckFields<'a> {
    raw: &'a RawCheck,
    kind: &'a str,
    prefix: &'a str,
}

impl CheckFields<'_> {
    /// The field as messages name it: `check 2: nu`.
    fn at(&self, field: &str) -> String {
        format!("{}: {field}", self.prefix)
    }

    /// A field the kind needs.
    fn need(&self, v: &Option<String>, field: &str) -> Result<String, CheckError> {
        v.clone().ok_or_else(|| (self.at(field), format!("missing; kind `{}` needs it", self.kind)))
    }

    /// `quantity`, parsed.
    fn quantity(&self) -> Result<Quantity, CheckError> {
        self.need(&self.raw.quantity, "quantity")?.parse::<Quantity>().map_err(|m| (self.at("quantity"), m))
    }

    /// `scene`, `experiment` and `value`.
    fn series(&self) -> Result<SeriesRef, CheckError> {
        Ok(SeriesRef {
            scene: self.need(&self.raw.scene, "scene")?,
            experiment: self.need(&self.raw.experiment, "experiment")?,
            value: self.raw.value,
        })
    }

    /// A `[low, high]` pair of finite numbers, low <= high.
    fn range(&self, r: [f64; 2], field: &str) -> Result<(f64, f64), CheckError> {
        if r.iter().all(|v| v.is_finite()) && r[0] <= r[1] {
            Ok((r[0], r[1]))
        } else {
            Err((self.at(field), format!("bad range [{}, {}]: needs finite numbers, low <= high", r[0], r[1])))
        }
    }

    /// `nu` as a range (all nu when absent).
    fn nu_range(&self) -> Result<NuRange, CheckError> {
        match self.raw.nu {
            None => Ok(NuRange::ALL),
            Some(NuSpec::Range(r)) => self.range(r, "nu").map(|(from, to)| NuRange { from, to }),
            Some(NuSpec::Single(_)) => Err((
                self.at("nu"),
                format!("kind `{}` takes a range `nu = [from, to]`, not a single number", self.kind),
            )),
        }
    }

    /// `direction`: rising, falling, or (where allowed) flat as `None`.
    fn direction(&self, allow_flat: bool) -> Result<Option<Direction>, CheckError> {
        match self.need(&self.raw.direction, "direction")?.as_str() {
            "rising" => Ok(Some(Direction::Rising)),
            "falling" => Ok(Some(Direction::Falling)),
            "flat" if allow_flat => Ok(None),
            other => Err((
                self.at("direction"),
                format!(
                    "unknown direction `{other}`; one of rising, falling{}",
                    if allow_flat { ", flat" } else { "" }
                ),
            )),
        }
    }

    /// A number that, when given, must be finite and >= 0.
    fn positive(&self, v: Option<f64>, field: &str) -> Result<(), CheckError> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => Err((self.at(field), format!("must be a number >= 0, got {x}"))),
            _ => Ok(()),
        }
    }

    /// `below` and `above` that leave something between them.
    fn band(&self, below: Option<f64>, above: Option<f64>) -> Result<(), CheckError> {
        if let (Some(b), Some(a)) = (below, above)
            && a >= b
        {
            return Err((self.at("above"), format!("above = {a} and below = {b} leave nothing between")));
        }
        Ok(())
    }
}

/// Validates one check table; errors are `(field, message)`.
fn parse_check(value: &toml::Value, prefix: &str) -> Result<Check, CheckError> {
    let at = |field: &str| format!("{prefix}: {field}");
    let table = value.as_table().ok_or_else(|| (prefix.to_string(), "each [[claim.check]] must be a table".into()))?;
    let kind = table
        .get("kind")
        .ok_or_else(|| (at("kind"), format!("missing; one of {}", kinds())))?
        .as_str()
        .ok_or_else(|| (at("kind"), format!("must be a string, one of {}", kinds())))?;
    let &(_, allowed, parse) = CHECK_KINDS
        .iter()
        .find(|(name, _, _)| *name == kind)
        .ok_or_else(|| (at("kind"), format!("unknown kind `{kind}`; one of {}", kinds())))?;
    if let Some(key) = table.keys().find(|k| k.as_str() != "kind" && !allowed.contains(&k.as_str())) {
        return Err((at(key), format!("not used by kind `{kind}` (it takes {})", allowed.join(", "))));
    }
    let raw: RawCheck = value.clone().try_into().map_err(|e| (prefix.to_string(), toml_message(&e)))?;
    let c = CheckFields { raw: &raw, kind, prefix };
    parse(&c)
}

/// Kind `at`: one number `nu`, and `expect` + `tolerance` or `below` and/or `above`.
fn parse_at(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let nu = match raw.nu {
        Some(NuSpec::Single(nu)) => nu,
        Some(NuSpec::Range(_)) => return Err((c.at("nu"), "kind `at` takes one number, not a range".into())),
        None => return Err((c.at("nu"), "missing; kind `at` needs it".into())),
    };
    c.positive(raw.tolerance, "tolerance")?;
    let bound = match (raw.expect, raw.tolerance, raw.below, raw.above) {
        (Some(expect), Some(tolerance), None, None) => Bound::Near { expect, tolerance },
        (Some(_), None, _, _) => return Err((c.at("tolerance"), "missing; `expect` needs a tolerance".into())),
        (None, Some(_), _, _) => return Err((c.at("expect"), "missing; `tolerance` goes with `expect`".into())),
        (None, None, None, None) => {
            return Err((c.at("expect"), "missing; give expect + tolerance, or below and/or above".into()));
        }
        (None, None, below, above) => {
            c.band(below, above)?;
            Bound::Band { below, above }
        }
        (Some(_), Some(_), _, _) => {
            return Err((c.at("below"), "give expect + tolerance, or below/above, not both".into()));
        }
    };
    Ok(Check::At { series: c.series()?, quantity: c.quantity()?, nu, bound })
}

/// Kind `range`: `below` and/or `above` over a nu range.
fn parse_range(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    if raw.below.is_none() && raw.above.is_none() {
        return Err((c.at("below"), "missing; kind `range` needs below and/or above".into()));
    }
    c.band(raw.below, raw.above)?;
    Ok(Check::Range {
        series: c.series()?,
        quantity: c.quantity()?,
        nu: c.nu_range()?,
        below: raw.below,
        above: raw.above,
    })
}

/// Kind `trend`: a direction over a nu range (rising, falling: `min_correlation`; flat: `tolerance`).
fn parse_trend(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let trend = match c.direction(true)? {
        Some(direction) => {
            if raw.tolerance.is_some() {
                return Err((c.at("tolerance"), "only for direction = \"flat\"".into()));
            }
            let min_correlation = raw.min_correlation.unwrap_or(0.5);
            if !(0.0..=1.0).contains(&min_correlation) {
                return Err((c.at("min_correlation"), format!("must lie in [0, 1], got {min_correlation}")));
            }
            Trend::Monotone { direction, min_correlation }
        }
        None => {
            if raw.min_correlation.is_some() {
                return Err((c.at("min_correlation"), "only for direction rising or falling".into()));
            }
            c.positive(raw.tolerance, "tolerance")?;
            Trend::Flat { tolerance: raw.tolerance.unwrap_or(0.2) }
        }
    };
    Ok(Check::Trend { series: c.series()?, quantity: c.quantity()?, nu: c.nu_range()?, trend })
}

/// Kind `values_order`: at least two experiment values, a direction, `monotone` and `stat`.
fn parse_values_order(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let values = raw.values.clone().ok_or_else(|| (c.at("values"), "missing; kind `values_order` needs it".into()))?;
    if values.len() < 2 {
        return Err((c.at("values"), "needs at least two experiment values".into()));
    }
    let monotone = match raw.monotone.as_deref() {
        None | Some("strict") => Monotone::Strict,
        Some("overall") => Monotone::Overall,
        Some(other) => return Err((c.at("monotone"), format!("unknown `{other}`; one of strict, overall"))),
    };
    let stat = match raw.stat.as_deref() {
        None | Some("mean") => SeriesStat::Mean,
        Some("min") => SeriesStat::Min,
        Some("max") => SeriesStat::Max,
        Some(other) => return Err((c.at("stat"), format!("unknown `{other}`; one of mean, min, max"))),
    };
    Ok(Check::ValuesOrder {
        stat,
        scene: c.need(&raw.scene, "scene")?,
        experiment: c.need(&raw.experiment, "experiment")?,
        quantity: c.quantity()?,
        nu: c.nu_range()?,
        values,
        direction: c.direction(false)?.expect("flat refused"),
        monotone,
    })
}

/// Kind `compare`: series `a` and `b` with their quantities, where (a nu range with `stat`, or one nu),
/// and a relation (with `fraction` for `at_each`) or a ratio.
fn parse_compare(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let side = |side: &Option<RawSide>, name: &str| -> Result<(SeriesRef, Quantity), CheckError> {
        let s = side
            .clone()
            .ok_or_else(|| (c.at(name), format!("missing; kind `compare` needs series {name} = {{...}}")))?;
        let q = s
            .quantity
            .or_else(|| raw.quantity.clone())
            .ok_or_else(|| (c.at("quantity"), format!("missing; give `quantity`, or `quantity` inside `{name}`")))?;
        let q = q.parse::<Quantity>().map_err(|m| (c.at(name), m))?;
        Ok((SeriesRef { scene: s.scene, experiment: s.experiment, value: s.value }, q))
    };
    let (a, quantity_a) = side(&raw.a, "a")?;
    let (b, quantity_b) = side(&raw.b, "b")?;
    let stat = match raw.stat.as_deref() {
        None | Some("mean") => Stat::Mean,
        Some("max") => Stat::Max,
        Some("at_each") => Stat::AtEach,
        Some(other) => return Err((c.at("stat"), format!("unknown `{other}`; one of mean, max, at_each"))),
    };
    let compare_at = match raw.nu {
        None => CompareAt::Range(NuRange::ALL, stat),
        Some(NuSpec::Range(r)) => {
            let (from, to) = c.range(r, "nu")?;
            CompareAt::Range(NuRange { from, to }, stat)
        }
        Some(NuSpec::Single(nu)) => {
            if raw.stat.is_some() {
                return Err((c.at("stat"), "not used with a single nu".into()));
            }
            CompareAt::Nu(nu)
        }
    };
    if raw.fraction.is_some() && (stat != Stat::AtEach || raw.relation.is_none()) {
        return Err((c.at("fraction"), "only with stat = \"at_each\" and a relation".into()));
    }
    let test = match (raw.relation.as_deref(), raw.ratio) {
        (Some(rel), None) => {
            let relation = match rel {
                "less" => Relation::Less,
                "greater" => Relation::Greater,
                other => return Err((c.at("relation"), format!("unknown `{other}`; one of less, greater"))),
            };
            let fraction = raw.fraction.unwrap_or(1.0);
            if !(fraction > 0.0 && fraction <= 1.0) {
                return Err((c.at("fraction"), format!("must lie in (0, 1], got {fraction}")));
            }
            CompareTest::Relation { relation, fraction }
        }
        (None, Some(r)) => {
            let (lo, hi) = c.range(r, "ratio")?;
            CompareTest::Ratio { lo, hi }
        }
        (None, None) => return Err((c.at("relation"), "missing; give relation or ratio".into())),
        (Some(_), Some(_)) => return Err((c.at("ratio"), "give relation or ratio, not both".into())),
    };
    Ok(Check::Compare { a, b, quantity_a, quantity_b, at: compare_at, test })
}

/// Kind `oscillates`: `min_changes` and/or `max_changes`, not reversed.
fn parse_oscillates(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    if raw.min_changes.is_none() && raw.max_changes.is_none() {
        return Err((c.at("min_changes"), "missing; kind `oscillates` needs min_changes and/or max_changes".into()));
    }
    if let (Some(lo), Some(hi)) = (raw.min_changes, raw.max_changes)
        && lo > hi
    {
        return Err((c.at("max_changes"), format!("min_changes = {lo} > max_changes = {hi}")));
    }
    Ok(Check::Oscillates {
        series: c.series()?,
        quantity: c.quantity()?,
        nu: c.nu_range()?,
        min_changes: raw.min_changes,
        max_changes: raw.max_changes,
    })
}

/// Kind `argmin`: `within = [lo, hi]`, over nu or over the experiment's values.
fn parse_argmin(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let within = raw.within.ok_or_else(|| (c.at("within"), "missing; kind `argmin` needs within = [lo, hi]".into()))?;
    let within = c.range(within, "within")?;
    let over = match raw.over.as_deref() {
        None | Some("nu") => {
            if raw.values.is_some() {
                return Err((c.at("values"), "only with over = \"values\"".into()));
            }
            ArgminOver::Nu
        }
        Some("values") => ArgminOver::Values(raw.values.clone().unwrap_or_default()),
        Some(other) => return Err((c.at("over"), format!("unknown `{other}`; one of nu, values"))),
    };
    Ok(Check::Argmin { series: c.series()?, quantity: c.quantity()?, nu: c.nu_range()?, over, within })
}

/// Kind `untestable`: a reason, not empty.
fn parse_untestable(c: &CheckFields) -> Result<Check, CheckError> {
    let raw = c.raw;
    let reason = c.need(&raw.reason, "reason")?;
    if reason.trim().is_empty() {
        return Err((c.at("reason"), "empty; say why no predicate fits".into()));
    }
    Ok(Check::Untestable { reason })
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
        assert!(e.contains("one of at, range, trend, values_order, compare, oscillates, argmin, untestable"), "{e}");
        // Every listed kind parses as a kind (a field of another kind is named as not used by it).
        for (name, fields, _) in CHECK_KINDS {
            let e = error_of(&claim(&format!("[[claim.check]]\nkind = \"{name}\"\nbogus = 1\n")));
            assert!(e.contains(&format!("not used by kind `{name}` (it takes {})", fields.join(", "))), "{e}");
        }
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
