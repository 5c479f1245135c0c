//! Evaluating claims against results: one evaluator per check kind (with the text of our numbers), and a
//! claim's verdict from its checks' outcomes.

use crate::claims::{
    ArgminOver, Bound, Check, Claim, ClaimsFile, CompareAt, CompareTest, Direction, Monotone, NuRange, Quantity,
    Relation, SeriesRef, SeriesStat, Stat, Trend,
};
use crate::outcome::{CheckResult, Outcome, Verdict};
use crate::render::{sig3, value_text};
use crate::results::{Results, same_value};
use crate::stats::{max, mean, min, relative_spread, sign_changes, spearman};
use crate::uncertainty::{Iv, all_of, band_outcome, in_band, ratio_outcome, ratio_range, relation_outcome, tri};

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
    // even alone (the rows of F5 and W2, single checks, lacked the marker every other failing
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

/// Evaluates one check.
pub fn evaluate_check(check: &Check, results: &Results) -> CheckResult {
    match eval(check, results) {
        Ok(r) | Err(r) => r,
    }
}

/// One check, by its kind; `Err` carries a result that ends the check early (data missing).
fn eval(check: &Check, results: &Results) -> Result<CheckResult, CheckResult> {
    match check {
        Check::At { series, quantity, nu, bound } => eval_at(series, quantity, *nu, *bound, results),
        Check::Range { series, quantity, nu, below, above } => {
            eval_range(series, quantity, *nu, *below, *above, results)
        }
        Check::Trend { series, quantity, nu, trend } => eval_trend(series, quantity, *nu, *trend, results),
        Check::ValuesOrder { scene, experiment, quantity, nu, values, direction, monotone, stat } => {
            eval_values_order(scene, experiment, quantity, *nu, values, *direction, *monotone, *stat, results)
        }
        Check::Compare { a, b, quantity_a, quantity_b, at, test } => {
            eval_compare(a, b, quantity_a, quantity_b, *at, *test, results)
        }
        Check::Oscillates { series, quantity, nu, min_changes, max_changes } => {
            eval_oscillates(series, quantity, *nu, *min_changes, *max_changes, results)
        }
        Check::Argmin { series, quantity, nu, over, within } => {
            eval_argmin(series, quantity, *nu, over, *within, results)
        }
        Check::Untestable { reason } => Ok(eval_untestable(reason)),
    }
}

/// Kind `at`: the value at one nu against `expect +- tolerance` or a band, decided over its 1 % range.
fn eval_at(
    series: &SeriesRef,
    quantity: &Quantity,
    nu: f64,
    bound: Bound,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let (x, _, iv) = series_in(results, series, quantity, NuRange::ALL)?;
    let p = at_nu(&x, &iv, nu)
        .ok_or_else(|| not_run(format!("no fit of {} {quantity} at nu = {nu}", label(series, results))))?;
    let head = format!("{} {quantity} at nu = {nu}: {}", label(series, results), sig3(p.v));
    let (outcome, text) = match bound {
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
        Ok(with_outcome(
            outcome,
            format!("{text}, undecided: its 1 % range {} to {} reaches across", sig3(p.lo), sig3(p.hi)),
        ))
    } else {
        Ok(with_outcome(outcome, text))
    }
}

/// Kind `range`: every value over the nu range inside the band, each decided over its 1 % range.
fn eval_range(
    series: &SeriesRef,
    quantity: &Quantity,
    nu: NuRange,
    below: Option<f64>,
    above: Option<f64>,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let (x, y, iv) = series_in(results, series, quantity, nu)?;
    let outside = y.iter().filter(|v| !in_band(**v, below, above)).count();
    let each: Vec<Outcome> = iv.iter().map(|p| band_outcome(*p, below, above)).collect();
    let outcome = all_of(each.iter().copied());
    let mut text = format!(
        "{} {quantity} over {nu}: {} to {} ({})",
        label(series, results),
        sig3(y.iter().copied().fold(f64::INFINITY, f64::min)),
        sig3(max(&y)),
        band_text(below, above)
    );
    if outside > 0 {
        text += &format!(", {outside} of {} outside", y.len());
    }
    if outcome == Outcome::Undecided {
        let across: Vec<usize> = (0..each.len()).filter(|&i| each[i] == Outcome::Undecided).collect();
        // The example shown: a value outside the band if any (what fails at the fitted values).
        let first = across.iter().copied().find(|&i| !in_band(y[i], below, above)).unwrap_or(across[0]);
        text += &format!(
            ", undecided: {} of {} values' 1 % ranges reach across the bound (at nu = {}: {})",
            across.len(),
            y.len(),
            x[first],
            iv[first].range_text()
        );
    }
    Ok(with_outcome(outcome, text))
}

/// Kind `trend`: Spearman's rho against nu (rising, falling) or the relative spread (flat).
fn eval_trend(
    series: &SeriesRef,
    quantity: &Quantity,
    nu: NuRange,
    trend: Trend,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let (x, y, _) = series_in(results, series, quantity, nu)?;
    let head = format!("{} {quantity} over {nu}", label(series, results));
    Ok(match trend {
        Trend::Monotone { direction, min_correlation } => {
            let need = match direction {
                Direction::Rising => format!("rising needs >= {min_correlation}"),
                Direction::Falling => format!("falling needs <= -{min_correlation}"),
            };
            match spearman(&x, &y) {
                None => result(false, format!("{head}: Spearman rho undefined (constant or one point; {need})")),
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
    })
}

/// Kind `values_order`: a statistic of each value's series, in the order of the values, moving in the
/// direction at each step or overall, each step decided over the statistics' ranges.
fn eval_values_order(
    scene: &str,
    experiment: &str,
    quantity: &Quantity,
    nu: NuRange,
    values: &[f64],
    direction: Direction,
    monotone: Monotone,
    stat: SeriesStat,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let mut stats = Vec::with_capacity(values.len());
    for &v in values {
        let s = SeriesRef { scene: scene.to_string(), experiment: experiment.to_string(), value: Some(v) };
        let iv = series_in(results, &s, quantity, nu)?.2;
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
    Ok(with_outcome(outcome, text))
}

/// Kind `compare`: two series over the nu both have, by a statistic or at one nu ([`compare_values`]) or
/// at each common nu ([`compare_at_each`]).
fn eval_compare(
    a: &SeriesRef,
    b: &SeriesRef,
    quantity_a: &Quantity,
    quantity_b: &Quantity,
    at: CompareAt,
    test: CompareTest,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let range = match at {
        CompareAt::Range(r, _) => r,
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
    Ok(match at {
        CompareAt::Nu(nu) => {
            let va = at_nu(&xa, &ya, nu).ok_or_else(|| not_run(format!("no fit of {la} {quantity} at nu = {nu}")))?;
            let vb = at_nu(&xb, &yb, nu).ok_or_else(|| not_run(format!("no fit of {lb} {quantity} at nu = {nu}")))?;
            compare_values(va, vb, &format!("{quantity} at nu = {nu}, {la} / {lb}"), &test)
        }
        CompareAt::Range(range, stat) => {
            if pa.is_empty() {
                return Err(not_run(format!("{la} and {lb} share no nu in {range}")));
            }
            match stat {
                Stat::Mean | Stat::Max => {
                    let f = if stat == Stat::Mean { mean } else { max };
                    let name = if stat == Stat::Mean { "mean" } else { "max" };
                    compare_values(
                        Iv::stat(&pa, f),
                        Iv::stat(&pb, f),
                        &format!("{name} {quantity} over {range}, {la} / {lb}"),
                        &test,
                    )
                }
                Stat::AtEach => compare_at_each(&pa, &pb, &format!("{quantity} over {range}, {la} vs {lb}"), test),
            }
        }
    })
}

/// `compare` at each common nu: the pointwise relation at (at least `fraction` of) the points, or every
/// pointwise ratio in `[lo, hi]`, each point decided over both ranges.
fn compare_at_each(pa: &[Iv], pb: &[Iv], head: &str, test: CompareTest) -> CheckResult {
    let exact = pa.iter().chain(pb).all(Iv::exact);
    match test {
        CompareTest::Relation { relation, fraction } => {
            let each: Vec<Outcome> = pa.iter().zip(pb).map(|(x, y)| relation_outcome(*x, *y, relation)).collect();
            let ok = pa
                .iter()
                .zip(pb)
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
            let mut text = format!("{head}: {word} at {ok} of {} common nu (thesis {word} {need})", pa.len());
            let outcome = tri(exact, enough(ok), enough(sure), !enough(possible));
            if outcome == Outcome::Undecided {
                text += &format!(", undecided: {word} at {sure} to {possible} within the 1 % ranges");
            }
            with_outcome(outcome, text)
        }
        CompareTest::Ratio { lo, hi } => {
            let ratios: Vec<f64> = pa.iter().zip(pb).map(|(x, y)| x.v / y.v).collect();
            let (rmin, rmax) = (min(&ratios), max(&ratios));
            let each: Vec<Outcome> = pa.iter().zip(pb).map(|(x, y)| ratio_outcome(*x, *y, lo, hi)).collect();
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
                text += &format!(", undecided: at {across} of {} common nu the 1 % ranges reach across", pa.len());
            }
            with_outcome(outcome, text)
        }
    }
}

/// Kind `oscillates`: the sign changes of successive differences within the bounds.
fn eval_oscillates(
    series: &SeriesRef,
    quantity: &Quantity,
    nu: NuRange,
    min_changes: Option<usize>,
    max_changes: Option<usize>,
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let (_, y, _) = series_in(results, series, quantity, nu)?;
    let changes = sign_changes(&y);
    let holds = min_changes.is_none_or(|m| changes >= m) && max_changes.is_none_or(|m| changes <= m);
    let need = match (min_changes, max_changes) {
        (Some(lo), Some(hi)) => format!("thesis {lo} to {hi}"),
        (Some(lo), None) => format!("oscillating needs >= {lo}"),
        (None, Some(hi)) => format!("regular needs <= {hi}"),
        (None, None) => "no bound".into(),
    };
    Ok(result(
        holds,
        format!(
            "{} {quantity} over {nu}: {changes} sign changes in {} successive differences ({need})",
            label(series, results),
            y.len().saturating_sub(1)
        ),
    ))
}

/// Kind `argmin`: where the smallest value lies, over nu or over the experiment's values (by their means).
fn eval_argmin(
    series: &SeriesRef,
    quantity: &Quantity,
    nu: NuRange,
    over: &ArgminOver,
    within: (f64, f64),
    results: &Results,
) -> Result<CheckResult, CheckResult> {
    let (lo, hi) = within;
    Ok(match over {
        ArgminOver::Nu => {
            let (x, y, _) = series_in(results, series, quantity, nu)?;
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
                let s =
                    SeriesRef { scene: series.scene.clone(), experiment: series.experiment.clone(), value: Some(v) };
                means.push(mean(&series_in(results, &s, quantity, nu)?.1));
            }
            let i = (0..means.len()).min_by(|&i, &j| means[i].total_cmp(&means[j])).expect("non-empty");
            let symbol = results.symbol(&series.experiment);
            let v = values[i];
            result(
                (v >= lo || same_value(v, lo)) && (v <= hi || same_value(v, hi)),
                format!(
                    "{} mean {quantity} over {nu} smallest at {symbol} = {} ({}; means {}) (thesis {symbol} in [{}, {}])",
                    series.scene,
                    value_text(values[i]),
                    sig3(means[i]),
                    means.iter().map(|m| sig3(*m)).collect::<Vec<_>>().join(", "),
                    value_text(lo),
                    value_text(hi)
                ),
            )
        }
    })
}

/// Kind `untestable`: never decided.
fn eval_untestable(reason: &str) -> CheckResult {
    CheckResult { outcome: Outcome::Untestable, measured: format!("untestable: {reason}") }
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

fn result(holds: bool, measured: String) -> CheckResult {
    CheckResult { outcome: if holds { Outcome::Holds } else { Outcome::Fails }, measured }
}

fn not_run(measured: String) -> CheckResult {
    CheckResult { outcome: Outcome::NotRun, measured }
}

fn with_outcome(outcome: Outcome, measured: String) -> CheckResult {
    CheckResult { outcome, measured }
}

/// `gravity-floor base`, `gravity-floor dt = 0.005`, `gravity N = 4`.
fn label(s: &SeriesRef, results: &Results) -> String {
    match s.value {
        None => format!("{} {}", s.scene, s.experiment),
        Some(v) => format!("{} {} = {}", s.scene, results.symbol(&s.experiment), value_text(v)),
    }
}

fn band_text(below: Option<f64>, above: Option<f64>) -> String {
    match (below, above) {
        (Some(b), Some(a)) => format!("thesis between {a} and {b}"),
        (Some(b), None) => format!("thesis < {b}"),
        (None, Some(a)) => format!("thesis > {a}"),
        (None, None) => "no bound".into(),
    }
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
