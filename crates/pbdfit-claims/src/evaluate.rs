//! Evaluating claims against results: verdicts, the score, and the Markdown table.

use std::fmt;

use crate::claims::{
    ArgminOver, Bound, Check, Claim, ClaimsFile, CompareAt, CompareTest, Direction, Monotone, NuRange, Quantity,
    Relation, SeriesRef, SeriesStat, Stat, Trend,
};
use crate::results::{Results, same_value};

/// How a claim (or one check) came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Our results satisfy it.
    Holds,
    /// Our results contradict it.
    Fails,
    /// Decided only by a margin smaller than the fits' own uncertainty: a fitted parameter's 1 % range
    /// (column `ranges`) reaches across the claim's threshold, or two compared values' ranges overlap so
    /// that the comparison could go either way (whether it holds or fails at the fitted values).
    Undecided,
    /// The results folder lacks the data it needs (an experiment not run, a fit that failed).
    NotRun,
    /// No predicate captures it.
    Untestable,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Holds => "holds",
            Outcome::Fails => "fails",
            Outcome::Undecided => "undecided",
            Outcome::NotRun => "not run",
            Outcome::Untestable => "untestable",
        })
    }
}

/// One check's outcome and our numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    /// How it came out.
    pub outcome: Outcome,
    /// Our numbers and what the thesis needs, e.g. `error at nu = 0: 0.220 (thesis 0.14 +- 0.04)`.
    pub measured: String,
}

/// A claim's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Claim id.
    pub id: String,
    /// Thesis figure(s).
    pub figure: String,
    /// The thesis's statement.
    pub thesis: String,
    /// The claim's outcome: fails if any check fails, else undecided if any is undecided, else not run if
    /// any lacks data, else untestable if any is untestable, else holds.
    pub outcome: Outcome,
    /// Our numbers, each check's text joined by `; ` (a failing or undecided check marked `[fails]`,
    /// `[undecided]`; any check of several that does not hold marked with its outcome).
    pub measured: String,
    /// Each check's result, in order.
    pub checks: Vec<CheckResult>,
}

/// How many claims came out each way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Score {
    /// Claims that hold.
    pub holds: usize,
    /// Claims that fail.
    pub fails: usize,
    /// Claims decided only within the fits' own uncertainty (neither holding nor failing).
    pub undecided: usize,
    /// Claims without data.
    pub not_run: usize,
    /// Claims no predicate captures.
    pub untestable: usize,
}

impl Score {
    /// Counts the verdicts.
    pub fn of(verdicts: &[Verdict]) -> Score {
        let mut s = Score::default();
        for v in verdicts {
            match v.outcome {
                Outcome::Holds => s.holds += 1,
                Outcome::Fails => s.fails += 1,
                Outcome::Undecided => s.undecided += 1,
                Outcome::NotRun => s.not_run += 1,
                Outcome::Untestable => s.untestable += 1,
            }
        }
        s
    }

    /// All claims counted.
    pub fn total(&self) -> usize {
        self.holds + self.fails + self.undecided + self.not_run + self.untestable
    }

    /// Claims decided either way (holds or fails): what variants are ranked on, by the claims that hold.
    pub fn decided(&self) -> usize {
        self.holds + self.fails
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} claims hold, {} fail, {} undecided, {} not run, {} untestable",
            self.holds,
            self.total(),
            self.fails,
            self.undecided,
            self.not_run,
            self.untestable
        )
    }
}

/// Evaluates every claim of the file against the results, in file order.
pub fn evaluate(file: &ClaimsFile, results: &Results) -> Vec<Verdict> {
    file.claims.iter().map(|c| evaluate_claim(c, results)).collect()
}

/// Evaluates one claim.
pub fn evaluate_claim(claim: &Claim, results: &Results) -> Verdict {
    let checks: Vec<CheckResult> = claim.checks.iter().map(|c| evaluate_check(c, results)).collect();
    let any = |o: Outcome| checks.iter().any(|c| c.outcome == o);
    let outcome = if any(Outcome::Fails) {
        Outcome::Fails
    } else if any(Outcome::Undecided) {
        Outcome::Undecided
    } else if any(Outcome::NotRun) {
        Outcome::NotRun
    } else if any(Outcome::Untestable) {
        Outcome::Untestable
    } else {
        Outcome::Holds
    };
    // A check of several that does not hold carries its outcome; a failing or undecided check carries it
    // even alone (issue 26: the rows of F5 and W2, single checks, lacked the marker every other failing
    // row has).
    let several = checks.len() > 1;
    let measured = checks
        .iter()
        .map(|c| {
            if c.outcome != Outcome::Holds && (several || matches!(c.outcome, Outcome::Fails | Outcome::Undecided)) {
                format!("[{}] {}", c.outcome, c.measured)
            } else {
                c.measured.clone()
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    Verdict {
        id: claim.id.clone(),
        figure: claim.figure.clone(),
        thesis: claim.thesis.clone(),
        outcome,
        measured,
        checks,
    }
}

/// A number with 3 significant digits: `0.220`, `0.0912`, `12.3`, `649`, `6.49e3`, `4.56e-5`, `0`.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".into();
    }
    // `{:.2e}` rounds to 3 significant digits first, so the exponent is that of the rounded value.
    let s = format!("{v:.2e}");
    let (mantissa, exp) = s.split_once('e').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    if (-3..3).contains(&exp) {
        let decimals = (2 - exp).max(0) as usize;
        let m: f64 = mantissa.parse().expect("mantissa");
        format!("{:.*}", decimals, m * 10f64.powi(exp))
    } else {
        format!("{mantissa}e{exp}")
    }
}

/// Spearman's rank correlation (ties get their mean rank); `None` with fewer than 2 points or when
/// either variable is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean_rank = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[order[k]] = mean_rank;
        }
        i = j + 1;
    }
    r
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 { None } else { Some(sxy / (sxx * syy).sqrt()) }
}

/// Sign changes between successive non-zero differences of `v` (a zero difference is skipped).
pub fn sign_changes(v: &[f64]) -> usize {
    let signs: Vec<bool> = v.windows(2).map(|w| w[1] - w[0]).filter(|d| *d != 0.0).map(|d| d > 0.0).collect();
    signs.windows(2).filter(|w| w[0] != w[1]).count()
}

/// `(max - min) / mean(|v|)`: the relative spread a `flat` trend bounds.
pub fn relative_spread(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let mean_abs = v.iter().map(|x| x.abs()).sum::<f64>() / v.len() as f64;
    (max - min) / mean_abs
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn result(holds: bool, measured: String) -> CheckResult {
    CheckResult { outcome: if holds { Outcome::Holds } else { Outcome::Fails }, measured }
}

fn not_run(measured: String) -> CheckResult {
    CheckResult { outcome: Outcome::NotRun, measured }
}

/// `gravity-floor base`, `gravity-floor dt = 0.005`, `gravity N = 4`.
fn label(s: &SeriesRef, results: &Results) -> String {
    match s.value {
        None => format!("{} {}", s.scene, s.experiment),
        Some(v) => format!("{} {} = {}", s.scene, results.symbol(&s.experiment), value_text(v)),
    }
}

fn value_text(v: f64) -> String {
    if v.abs() >= 1e4 { format!("{v:e}") } else { format!("{v}") }
}

fn band_text(below: Option<f64>, above: Option<f64>) -> String {
    match (below, above) {
        (Some(b), Some(a)) => format!("thesis between {a} and {b}"),
        (Some(b), None) => format!("thesis < {b}"),
        (None, Some(a)) => format!("thesis > {a}"),
        (None, None) => "no bound".into(),
    }
}

fn in_band(v: f64, below: Option<f64>, above: Option<f64>) -> bool {
    below.is_none_or(|b| v < b) && above.is_none_or(|a| v > a)
}

/// A series' nu, values, and values with their 1 % ranges.
type Series = (Vec<f64>, Vec<f64>, Vec<Iv>);

/// The series restricted to a nu range (nu, values, and the values with their 1 % ranges), or the
/// not-run result saying what is missing.
fn series_in(results: &Results, s: &SeriesRef, quantity: &Quantity, nu: NuRange) -> Result<Series, CheckResult> {
    let Some(points) = results.ranged_series(&s.scene, &s.experiment, s.value, quantity) else {
        return Err(not_run(format!("no data for {} {quantity}", label(s, results))));
    };
    let points: Vec<_> = points.into_iter().filter(|(n, _, _)| nu.contains(*n)).collect();
    if points.is_empty() {
        return Err(not_run(format!("no fit of {} {quantity} in {nu}", label(s, results))));
    }
    let x = points.iter().map(|p| p.0).collect();
    let y = points.iter().map(|p| p.1).collect();
    let iv = points.iter().map(|&(_, v, (lo, hi))| Iv { v, lo, hi }).collect();
    Ok((x, y, iv))
}

fn at_nu<T: Copy>(x: &[f64], y: &[T], nu: f64) -> Option<T> {
    x.iter().zip(y).find(|(n, _)| (**n - nu).abs() <= 1e-6).map(|p| *p.1)
}

/// A value and the interval it is known within: `lo <= v <= hi`, the fit's 1 % range for a parameter,
/// `lo == hi == v` where no uncertainty is known (errors, shares, results without ranges).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Iv {
    v: f64,
    lo: f64,
    hi: f64,
}

impl Iv {
    /// Whether no uncertainty is known: the check is decided at the value, two-way, as without ranges.
    fn exact(&self) -> bool {
        self.lo == self.hi
    }

    /// A statistic (mean, min or max: non-decreasing in every value) of the values and the interval it
    /// lies in when each value may lie anywhere in its range: the statistic of the lower and of the upper
    /// ends (interval arithmetic, no assumption about how the fits' errors are distributed).
    fn stat(values: &[Iv], f: fn(&[f64]) -> f64) -> Iv {
        let pick = |g: fn(&Iv) -> f64| f(&values.iter().map(g).collect::<Vec<_>>());
        Iv { v: pick(|x| x.v), lo: pick(|x| x.lo), hi: pick(|x| x.hi) }
    }

    fn range_text(&self) -> String {
        format!("{} in {} to {}", sig3(self.v), sig3(self.lo), sig3(self.hi))
    }
}

/// The outcome of a predicate that holds or not at the fitted values (`point`), given whether it holds
/// for every value within the ranges (`surely_holds`) and fails for every one (`surely_fails`). Exact
/// values are decided at the point, as before ranges. Otherwise the verdict stands only when every value
/// within the ranges agrees with it: a predicate that holds, or fails, at the fitted values while the
/// ranges reach across its threshold is undecided, either way (the thesis comparison must not be decided
/// by a margin smaller than the fit's own uncertainty).
fn tri(exact: bool, point: bool, surely_holds: bool, surely_fails: bool) -> Outcome {
    match (exact, point) {
        (true, true) => Outcome::Holds,
        (true, false) => Outcome::Fails,
        (false, true) if surely_holds => Outcome::Holds,
        (false, false) if surely_fails => Outcome::Fails,
        _ => Outcome::Undecided,
    }
}

/// Every one of several outcomes must hold: fails if any fails, else undecided if any is, else holds.
fn all_of(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
    let mut out = Outcome::Holds;
    for o in outcomes {
        match o {
            Outcome::Fails => return Outcome::Fails,
            Outcome::Undecided => out = Outcome::Undecided,
            _ => {}
        }
    }
    out
}

/// Whether the value is strictly inside the band, decided over its range.
fn band_outcome(x: Iv, below: Option<f64>, above: Option<f64>) -> Outcome {
    tri(
        x.exact(),
        in_band(x.v, below, above),
        in_band(x.lo, below, above) && in_band(x.hi, below, above),
        below.is_some_and(|b| x.lo >= b) || above.is_some_and(|a| x.hi <= a),
    )
}

/// `a < b` (less) or `a > b` (greater), decided over both ranges.
fn relation_outcome(a: Iv, b: Iv, relation: Relation) -> Outcome {
    let exact = a.exact() && b.exact();
    match relation {
        Relation::Less => tri(exact, a.v < b.v, a.hi < b.lo, a.lo >= b.hi),
        Relation::Greater => tri(exact, a.v > b.v, a.lo > b.hi, a.hi <= b.lo),
    }
}

/// The interval of `a / b` over both ranges (unbounded when b's range holds 0).
fn ratio_range(a: Iv, b: Iv) -> (f64, f64) {
    if b.lo > 0.0 || b.hi < 0.0 {
        let corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi];
        (corners.iter().copied().fold(f64::INFINITY, f64::min), max(&corners))
    } else {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// `a / b` in `[lo, hi]`, decided over both ranges.
fn ratio_outcome(a: Iv, b: Iv, lo: f64, hi: f64) -> Outcome {
    let r = a.v / b.v;
    let (rlo, rhi) = ratio_range(a, b);
    tri(a.exact() && b.exact(), r >= lo && r <= hi, rlo >= lo && rhi <= hi, rhi < lo || rlo > hi)
}

fn with_outcome(outcome: Outcome, measured: String) -> CheckResult {
    CheckResult { outcome, measured }
}

/// Evaluates one check.
pub fn evaluate_check(check: &Check, results: &Results) -> CheckResult {
    match eval(check, results) {
        Ok(r) | Err(r) => r,
    }
}

fn eval(check: &Check, results: &Results) -> Result<CheckResult, CheckResult> {
    Ok(match check {
        Check::At { series, quantity, nu, bound } => {
            let (x, _, iv) = series_in(results, series, quantity, NuRange::ALL)?;
            let p = at_nu(&x, &iv, *nu)
                .ok_or_else(|| not_run(format!("no fit of {} {quantity} at nu = {nu}", label(series, results))))?;
            let head = format!("{} {quantity} at nu = {nu}: {}", label(series, results), sig3(p.v));
            let (outcome, text) = match *bound {
                Bound::Near { expect, tolerance } => (
                    tri(
                        p.exact(),
                        (p.v - expect).abs() <= tolerance,
                        (p.lo - expect).abs() <= tolerance && (p.hi - expect).abs() <= tolerance,
                        p.lo - expect > tolerance || expect - p.hi > tolerance,
                    ),
                    format!("{head} (thesis {expect} +- {tolerance})"),
                ),
                Bound::Band { below, above } => {
                    (band_outcome(p, below, above), format!("{head} ({})", band_text(below, above)))
                }
            };
            if outcome == Outcome::Undecided {
                with_outcome(
                    outcome,
                    format!("{text}, undecided: its 1 % range {} to {} reaches across", sig3(p.lo), sig3(p.hi)),
                )
            } else {
                with_outcome(outcome, text)
            }
        }
        Check::Range { series, quantity, nu, below, above } => {
            let (x, y, iv) = series_in(results, series, quantity, *nu)?;
            let outside = y.iter().filter(|v| !in_band(**v, *below, *above)).count();
            let each: Vec<Outcome> = iv.iter().map(|p| band_outcome(*p, *below, *above)).collect();
            let outcome = all_of(each.iter().copied());
            let mut text = format!(
                "{} {quantity} over {nu}: {} to {} ({})",
                label(series, results),
                sig3(y.iter().copied().fold(f64::INFINITY, f64::min)),
                sig3(max(&y)),
                band_text(*below, *above)
            );
            if outside > 0 {
                text += &format!(", {outside} of {} outside", y.len());
            }
            if outcome == Outcome::Undecided {
                let across: Vec<usize> = (0..each.len()).filter(|&i| each[i] == Outcome::Undecided).collect();
                // The example shown: a value outside the band if any (what fails at the fitted values).
                let first = across.iter().copied().find(|&i| !in_band(y[i], *below, *above)).unwrap_or(across[0]);
                text += &format!(
                    ", undecided: {} of {} values' 1 % ranges reach across the bound (at nu = {}: {})",
                    across.len(),
                    y.len(),
                    x[first],
                    iv[first].range_text()
                );
            }
            with_outcome(outcome, text)
        }
        Check::Trend { series, quantity, nu, trend } => {
            let (x, y, _) = series_in(results, series, quantity, *nu)?;
            let head = format!("{} {quantity} over {nu}", label(series, results));
            match *trend {
                Trend::Monotone { direction, min_correlation } => {
                    let need = match direction {
                        Direction::Rising => format!("rising needs >= {min_correlation}"),
                        Direction::Falling => format!("falling needs <= -{min_correlation}"),
                    };
                    match spearman(&x, &y) {
                        None => {
                            result(false, format!("{head}: Spearman rho undefined (constant or one point; {need})"))
                        }
                        Some(rho) => {
                            let holds = match direction {
                                Direction::Rising => rho >= min_correlation,
                                Direction::Falling => rho <= -min_correlation,
                            };
                            result(holds, format!("{head}: Spearman rho = {} ({need})", sig3(rho)))
                        }
                    }
                }
                Trend::Flat { tolerance } => {
                    let spread = relative_spread(&y);
                    result(
                        spread <= tolerance,
                        format!(
                            "{head}: {} to {}, (max - min) / mean = {} (flat needs <= {tolerance})",
                            sig3(y.iter().copied().fold(f64::INFINITY, f64::min)),
                            sig3(max(&y)),
                            sig3(spread)
                        ),
                    )
                }
            }
        }
        Check::ValuesOrder { scene, experiment, quantity, nu, values, direction, monotone, stat } => {
            let mut stats = Vec::with_capacity(values.len());
            for &v in values {
                let s = SeriesRef { scene: scene.clone(), experiment: experiment.clone(), value: Some(v) };
                let iv = series_in(results, &s, quantity, *nu)?.2;
                stats.push(Iv::stat(
                    &iv,
                    match stat {
                        SeriesStat::Mean => mean,
                        SeriesStat::Min => min,
                        SeriesStat::Max => max,
                    },
                ));
            }
            // Each step is an ordering of two statistics, decided over their ranges.
            let step = |a: Iv, b: Iv| match direction {
                Direction::Rising => relation_outcome(a, b, Relation::Less),
                Direction::Falling => relation_outcome(a, b, Relation::Greater),
            };
            let (outcome, need) = match monotone {
                Monotone::Strict => (all_of(stats.windows(2).map(|w| step(w[0], w[1]))), "each step"),
                Monotone::Overall => (step(stats[0], stats[stats.len() - 1]), "last against first"),
            };
            let symbol = results.symbol(experiment);
            let mut text = format!(
                "{scene} {stat} {quantity} over {nu} at {symbol} = {}: {} ({direction} {need})",
                values.iter().map(|v| value_text(*v)).collect::<Vec<_>>().join(", "),
                stats.iter().map(|m| sig3(m.v)).collect::<Vec<_>>().join(", ")
            );
            if outcome == Outcome::Undecided {
                text += &format!(
                    ", undecided: the {stat}s of the 1 % ranges overlap ({})",
                    stats.iter().map(|m| format!("{} to {}", sig3(m.lo), sig3(m.hi))).collect::<Vec<_>>().join(", ")
                );
            }
            with_outcome(outcome, text)
        }
        Check::Compare { a, b, quantity_a, quantity_b, at, test } => {
            let range = match at {
                CompareAt::Range(r, _) => *r,
                CompareAt::Nu(_) => NuRange::ALL,
            };
            let (xa, _, ya) = series_in(results, a, quantity_a, range)?;
            let (xb, _, yb) = series_in(results, b, quantity_b, range)?;
            // One quantity named once ("mean error, A / B"); two named with their series.
            let (quantity, la, lb) = if quantity_a == quantity_b {
                (quantity_a.to_string(), label(a, results), label(b, results))
            } else {
                (
                    "value".to_string(),
                    format!("{} {quantity_a}", label(a, results)),
                    format!("{} {quantity_b}", label(b, results)),
                )
            };
            // Common nu: the points both series have (fits that failed in one are left out of both).
            let (mut pa, mut pb) = (Vec::new(), Vec::new());
            for (n, va) in xa.iter().zip(&ya) {
                if let Some(vb) = at_nu(&xb, &yb, *n) {
                    pa.push(*va);
                    pb.push(vb);
                }
            }
            let exact = pa.iter().chain(&pb).all(Iv::exact);
            match at {
                CompareAt::Nu(nu) => {
                    let va = at_nu(&xa, &ya, *nu)
                        .ok_or_else(|| not_run(format!("no fit of {la} {quantity} at nu = {nu}")))?;
                    let vb = at_nu(&xb, &yb, *nu)
                        .ok_or_else(|| not_run(format!("no fit of {lb} {quantity} at nu = {nu}")))?;
                    compare_values(va, vb, &format!("{quantity} at nu = {nu}, {la} / {lb}"), test)
                }
                CompareAt::Range(range, stat) => {
                    if pa.is_empty() {
                        return Err(not_run(format!("{la} and {lb} share no nu in {range}")));
                    }
                    match stat {
                        Stat::Mean | Stat::Max => {
                            let f = if *stat == Stat::Mean { mean } else { max };
                            let name = if *stat == Stat::Mean { "mean" } else { "max" };
                            compare_values(
                                Iv::stat(&pa, f),
                                Iv::stat(&pb, f),
                                &format!("{name} {quantity} over {range}, {la} / {lb}"),
                                test,
                            )
                        }
                        Stat::AtEach => {
                            let head = format!("{quantity} over {range}, {la} vs {lb}");
                            match *test {
                                CompareTest::Relation { relation, fraction } => {
                                    let each: Vec<Outcome> =
                                        pa.iter().zip(&pb).map(|(x, y)| relation_outcome(*x, *y, relation)).collect();
                                    let ok = pa
                                        .iter()
                                        .zip(&pb)
                                        .filter(|(x, y)| match relation {
                                            Relation::Less => x.v < y.v,
                                            Relation::Greater => x.v > y.v,
                                        })
                                        .count();
                                    // At least `sure` points hold whatever the values within their ranges,
                                    // at most `possible` do.
                                    let sure = each.iter().filter(|o| **o == Outcome::Holds).count();
                                    let possible = each.iter().filter(|o| **o != Outcome::Fails).count();
                                    let enough = |k: usize| k as f64 >= fraction * pa.len() as f64 - 1e-9;
                                    let word = if relation == Relation::Less { "less" } else { "greater" };
                                    let need = if fraction >= 1.0 {
                                        "at every nu".to_string()
                                    } else {
                                        format!("at >= {} % of nu", sig3(fraction * 100.0))
                                    };
                                    let mut text = format!(
                                        "{head}: {word} at {ok} of {} common nu (thesis {word} {need})",
                                        pa.len()
                                    );
                                    let outcome = tri(exact, enough(ok), enough(sure), !enough(possible));
                                    if outcome == Outcome::Undecided {
                                        text += &format!(
                                            ", undecided: {word} at {sure} to {possible} within the 1 % ranges"
                                        );
                                    }
                                    with_outcome(outcome, text)
                                }
                                CompareTest::Ratio { lo, hi } => {
                                    let ratios: Vec<f64> = pa.iter().zip(&pb).map(|(x, y)| x.v / y.v).collect();
                                    let (rmin, rmax) = (min(&ratios), max(&ratios));
                                    let each: Vec<Outcome> =
                                        pa.iter().zip(&pb).map(|(x, y)| ratio_outcome(*x, *y, lo, hi)).collect();
                                    let outcome = all_of(each.iter().copied());
                                    let mut text = format!(
                                        "{head}: ratio {} to {} over {} common nu (thesis in [{}, {}])",
                                        sig3(rmin),
                                        sig3(rmax),
                                        pa.len(),
                                        value_text(lo),
                                        value_text(hi)
                                    );
                                    if outcome == Outcome::Undecided {
                                        let across = each.iter().filter(|o| **o == Outcome::Undecided).count();
                                        text += &format!(
                                            ", undecided: at {across} of {} common nu the 1 % ranges reach across",
                                            pa.len()
                                        );
                                    }
                                    with_outcome(outcome, text)
                                }
                            }
                        }
                    }
                }
            }
        }
        Check::Oscillates { series, quantity, nu, min_changes, max_changes } => {
            let (_, y, _) = series_in(results, series, quantity, *nu)?;
            let changes = sign_changes(&y);
            let holds = min_changes.is_none_or(|m| changes >= m) && max_changes.is_none_or(|m| changes <= m);
            let need = match (min_changes, max_changes) {
                (Some(lo), Some(hi)) => format!("thesis {lo} to {hi}"),
                (Some(lo), None) => format!("oscillating needs >= {lo}"),
                (None, Some(hi)) => format!("regular needs <= {hi}"),
                (None, None) => "no bound".into(),
            };
            result(
                holds,
                format!(
                    "{} {quantity} over {nu}: {changes} sign changes in {} successive differences ({need})",
                    label(series, results),
                    y.len().saturating_sub(1)
                ),
            )
        }
        Check::Argmin { series, quantity, nu, over, within: (lo, hi) } => match over {
            ArgminOver::Nu => {
                let (x, y, _) = series_in(results, series, quantity, *nu)?;
                let i = (0..y.len()).min_by(|&i, &j| y[i].total_cmp(&y[j])).expect("non-empty");
                result(
                    x[i] >= lo - 1e-9 && x[i] <= hi + 1e-9,
                    format!(
                        "{} {quantity} smallest at nu = {} ({}) (thesis nu in [{lo}, {hi}])",
                        label(series, results),
                        x[i],
                        sig3(y[i])
                    ),
                )
            }
            ArgminOver::Values(given) => {
                let values = if given.is_empty() { results.values(&series.experiment) } else { given.clone() };
                if values.is_empty() {
                    return Err(not_run(format!("experiment {} has no values", series.experiment)));
                }
                let mut means = Vec::with_capacity(values.len());
                for &v in &values {
                    let s = SeriesRef {
                        scene: series.scene.clone(),
                        experiment: series.experiment.clone(),
                        value: Some(v),
                    };
                    means.push(mean(&series_in(results, &s, quantity, *nu)?.1));
                }
                let i = (0..means.len()).min_by(|&i, &j| means[i].total_cmp(&means[j])).expect("non-empty");
                let symbol = results.symbol(&series.experiment);
                let v = values[i];
                result(
                    (v >= *lo || same_value(v, *lo)) && (v <= *hi || same_value(v, *hi)),
                    format!(
                        "{} mean {quantity} over {nu} smallest at {symbol} = {} ({}; means {}) (thesis {symbol} in [{}, {}])",
                        series.scene,
                        value_text(values[i]),
                        sig3(means[i]),
                        means.iter().map(|m| sig3(*m)).collect::<Vec<_>>().join(", "),
                        value_text(*lo),
                        value_text(*hi)
                    ),
                )
            }
        },
        Check::Untestable { reason } => {
            CheckResult { outcome: Outcome::Untestable, measured: format!("untestable: {reason}") }
        }
    })
}

fn compare_values(a: Iv, b: Iv, head: &str, test: &CompareTest) -> CheckResult {
    match *test {
        CompareTest::Relation { relation, .. } => {
            let word = if relation == Relation::Less { "less" } else { "greater" };
            let outcome = relation_outcome(a, b, relation);
            let mut text = format!("{head}: {} vs {} (thesis {word})", sig3(a.v), sig3(b.v));
            if outcome == Outcome::Undecided {
                text += &format!(
                    ", undecided: the 1 % ranges {} to {} and {} to {} overlap",
                    sig3(a.lo),
                    sig3(a.hi),
                    sig3(b.lo),
                    sig3(b.hi)
                );
            }
            with_outcome(outcome, text)
        }
        CompareTest::Ratio { lo, hi } => {
            let outcome = ratio_outcome(a, b, lo, hi);
            let mut text = format!(
                "{head}: {} / {} = {} (thesis ratio in [{}, {}])",
                sig3(a.v),
                sig3(b.v),
                sig3(a.v / b.v),
                value_text(lo),
                value_text(hi)
            );
            if outcome == Outcome::Undecided {
                let (rlo, rhi) = ratio_range(a, b);
                text += &format!(", undecided: the 1 % ranges give a ratio of {} to {}", sig3(rlo), sig3(rhi));
            }
            with_outcome(outcome, text)
        }
    }
}

/// The verdicts as a Markdown table (columns id, figure, thesis, ours, verdict), `|` escaped.
pub fn markdown_table(verdicts: &[Verdict]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| id | figure | thesis | ours | verdict |\n|---|---|---|---|---|\n");
    for v in verdicts {
        out += &format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&v.id),
            cell(&v.figure),
            cell(&v.thesis),
            cell(&v.measured),
            v.outcome
        );
    }
    out
}

/// Verdicts of the same claims under several variants, as Markdown: a score table (variants in the
/// given order, with the claims that hold, fail, are undecided or were not run, and the claims that hold
/// of those decided: undecided claims rank no variant) and a claim x variant matrix (`holds` / `FAILS` /
/// `undecided` / `-` for not run, `?` for untestable). `variants` pairs each variant's name with its
/// verdicts, all in the same claim order.
pub fn comparison_markdown(variants: &[(String, Vec<Verdict>)]) -> String {
    let mut out = String::from(
        "| variant | holds | fails | undecided | not run | holds of decided |\n|---|---|---|---|---|---|\n",
    );
    for (name, verdicts) in variants {
        let s = Score::of(verdicts);
        out += &format!(
            "| {name} | {} | {} | {} | {} | {} / {} |\n",
            s.holds,
            s.fails,
            s.undecided,
            s.not_run,
            s.holds,
            s.decided()
        );
    }
    out += "\n| claim |";
    for (name, _) in variants {
        out += &format!(" {name} |");
    }
    out += "\n|---|";
    out += &"---|".repeat(variants.len());
    out += "\n";
    let Some((_, first)) = variants.first() else { return out };
    for (i, claim) in first.iter().enumerate() {
        out += &format!("| {} |", claim.id);
        for (_, verdicts) in variants {
            let mark = match verdicts.get(i).map(|v| v.outcome) {
                Some(Outcome::Holds) => "holds",
                Some(Outcome::Fails) => "FAILS",
                Some(Outcome::Undecided) => "undecided",
                Some(Outcome::NotRun) | None => "-",
                Some(Outcome::Untestable) => "?",
            };
            out += &format!(" {mark} |");
        }
        out += "\n";
    }
    out
}

/// The report section "Comparison with the thesis": every claim with the thesis's statement, our
/// numbers and the verdict on `ours` (the reproduction's results), and for each claim that fails, the
/// variants of `variants` under which it holds (with their numbers: the evidence) or "unexplained"
/// when it fails under all of them, or "not tested by a variant" when no variant ran its experiment.
pub fn comparison_section(ours: &[Verdict], variants: &[(String, Vec<Verdict>)]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let score = Score::of(ours);
    let mut out = format!(
        "## Comparison with the thesis\n\nEach claim of the thesis (ids as in `shared/docs/thesis-claims.md`, \
         predicates in `fits/thesis-claims.toml`) checked against these results: {score}.\n\n"
    );
    if !variants.is_empty() {
        let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
        out += &format!(
            "For a claim that fails, the explanation column lists the variants of the setup (`pbdfit compare`, \
             results in `fits/results/compare`) under which it holds, with the numbers there; \"unexplained\" \
             means it fails under every variant tried ({}).\n\n",
            names.join(", ")
        );
        out += "Scores of the variants (claims that hold of those their experiments test and decide; a claim \
                decided only within the fits' 1 % ranges is undecided and counts for no variant):\n\n";
        for (name, verdicts) in variants {
            let s = Score::of(verdicts);
            out += &format!("- `{name}`: {} of {} hold, {} undecided\n", s.holds, s.decided(), s.undecided);
        }
        out += "\n";
    }
    out += "| id | figure | thesis | ours | verdict | explanation |\n|---|---|---|---|---|---|\n";
    for (i, v) in ours.iter().enumerate() {
        let explanation = match v.outcome {
            Outcome::Holds => String::new(),
            Outcome::NotRun | Outcome::Untestable => "-".into(),
            Outcome::Undecided => {
                let holding: Vec<String> = variants
                    .iter()
                    .filter_map(|(name, vs)| {
                        vs.get(i).filter(|x| x.id == v.id && x.outcome == Outcome::Holds).map(|_| format!("`{name}`"))
                    })
                    .collect();
                let mut text = "undecided: decided only by a margin smaller than the fits' 1 % ranges".to_string();
                if !holding.is_empty() {
                    text += &format!("; holds under {}", holding.join(", "));
                }
                text
            }
            Outcome::Fails => {
                let holding: Vec<String> = variants
                    .iter()
                    .filter_map(|(name, vs)| {
                        vs.get(i)
                            .filter(|x| x.id == v.id && x.outcome == Outcome::Holds)
                            .map(|x| format!("holds under `{name}`: {}", x.measured))
                    })
                    .collect();
                let tested = variants
                    .iter()
                    .any(|(_, vs)| vs.get(i).is_some_and(|x| matches!(x.outcome, Outcome::Holds | Outcome::Fails)));
                let holds_in = |x: &Verdict| x.checks.iter().filter(|c| c.outcome == Outcome::Holds).count();
                let ours_holding = holds_in(v);
                // The variants under which most of the claim's checks hold, if more than here (all of
                // them when several tie; the numbers shown are the first's).
                let counts: Vec<(&String, &Verdict, usize)> = variants
                    .iter()
                    .filter_map(|(name, vs)| vs.get(i).filter(|x| x.id == v.id).map(|x| (name, x, holds_in(x))))
                    .filter(|(_, _, n)| *n > ours_holding)
                    .collect();
                let best = counts.iter().map(|c| c.2).max();
                let closest: Vec<&(&String, &Verdict, usize)> = counts.iter().filter(|c| Some(c.2) == best).collect();
                if !holding.is_empty() {
                    holding.join("; ")
                } else if let Some((name, x, n)) = closest.first() {
                    let names: Vec<String> = closest.iter().map(|c| format!("`{}`", c.0)).collect();
                    let (there, shown) = if closest.len() == 1 {
                        ("there".to_string(), String::new())
                    } else {
                        ("under each".to_string(), format!(", numbers under `{name}`"))
                    };
                    format!(
                        "unexplained: fails under every variant tried; closest {} ({n} of {} checks hold {there}, \
                         {ours_holding} here{shown}): {}",
                        names.join(", "),
                        x.checks.len(),
                        x.measured
                    )
                } else if tested {
                    "unexplained: fails under every variant tried, none closer".into()
                } else {
                    "unexplained: not tested by a variant (its experiment was not run under one)".into()
                }
            }
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            cell(&v.id),
            cell(&v.figure),
            cell(&v.thesis),
            cell(&v.measured),
            v.outcome,
            cell(&explanation)
        );
    }
    out
}
