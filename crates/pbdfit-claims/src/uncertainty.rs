//! Deciding within the fits' own uncertainty: a value with the interval it is known within ([`Iv`]: a
//! parameter's 1 % range), and predicates decided over such intervals (holds, fails, or undecided when
//! the intervals reach across the threshold).

use crate::claims::Relation;
use crate::outcome::Outcome;
use crate::render::sig3;
use crate::stats::max;

pub(crate) fn in_band(v: f64, below: Option<f64>, above: Option<f64>) -> bool {
    below.is_none_or(|b| v < b) && above.is_none_or(|a| v > a)
}

/// A value and the interval it is known within: `lo <= v <= hi`, the fit's 1 % range for a parameter,
/// `lo == hi == v` where no uncertainty is known (errors, shares, results without ranges).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Iv {
    pub(crate) v: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

impl Iv {
    /// Whether no uncertainty is known: the check is decided at the value, two-way, as without ranges.
    pub(crate) fn exact(&self) -> bool {
        self.lo == self.hi
    }

    /// A statistic (mean, min or max: non-decreasing in every value) of the values and the interval it
    /// lies in when each value may lie anywhere in its range: the statistic of the lower and of the upper
    /// ends (interval arithmetic, no assumption about how the fits' errors are distributed).
    pub(crate) fn stat(values: &[Iv], f: fn(&[f64]) -> f64) -> Iv {
        let pick = |g: fn(&Iv) -> f64| f(&values.iter().map(g).collect::<Vec<_>>());
        Iv { v: pick(|x| x.v), lo: pick(|x| x.lo), hi: pick(|x| x.hi) }
    }

    pub(crate) fn range_text(&self) -> String {
        format!("{} in {} to {}", sig3(self.v), sig3(self.lo), sig3(self.hi))
    }
}

/// The outcome of a predicate that holds or not at the fitted values (`point`), given whether it holds
/// for every value within the ranges (`surely_holds`) and fails for every one (`surely_fails`). Exact
/// values are decided at the point, as before ranges. Otherwise the verdict stands only when every value
/// within the ranges agrees with it: a predicate that holds, or fails, at the fitted values while the
/// ranges reach across its threshold is undecided, either way (the thesis comparison must not be decided
/// by a margin smaller than the fit's own uncertainty).
pub(crate) fn tri(exact: bool, point: bool, surely_holds: bool, surely_fails: bool) -> Outcome {
    match (exact, point) {
        (true, true) => Outcome::Holds,
        (true, false) => Outcome::Fails,
        (false, true) if surely_holds => Outcome::Holds,
        (false, false) if surely_fails => Outcome::Fails,
        _ => Outcome::Undecided,
    }
}

/// Every one of several outcomes must hold: fails if any fails, else undecided if any is, else holds.
pub(crate) fn all_of(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
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
pub(crate) fn band_outcome(x: Iv, below: Option<f64>, above: Option<f64>) -> Outcome {
    tri(
        x.exact(),
        in_band(x.v, below, above),
        in_band(x.lo, below, above) && in_band(x.hi, below, above),
        below.is_some_and(|b| x.lo >= b) || above.is_some_and(|a| x.hi <= a),
    )
}

/// `a < b` (less) or `a > b` (greater), decided over both ranges.
pub(crate) fn relation_outcome(a: Iv, b: Iv, relation: Relation) -> Outcome {
    let exact = a.exact() && b.exact();
    match relation {
        Relation::Less => tri(exact, a.v < b.v, a.hi < b.lo, a.lo >= b.hi),
        Relation::Greater => tri(exact, a.v > b.v, a.lo > b.hi, a.hi <= b.lo),
    }
}

/// The interval of `a / b` over both ranges (unbounded when b's range holds 0).
pub(crate) fn ratio_range(a: Iv, b: Iv) -> (f64, f64) {
    if b.lo > 0.0 || b.hi < 0.0 {
        let corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi];
        (corners.iter().copied().fold(f64::INFINITY, f64::min), max(&corners))
    } else {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// `a / b` in `[lo, hi]`, decided over both ranges.
pub(crate) fn ratio_outcome(a: Iv, b: Iv, lo: f64, hi: f64) -> Outcome {
    let r = a.v / b.v;
    let (rlo, rhi) = ratio_range(a, b);
    tri(a.exact() && b.exact(), r >= lo && r <= hi, rlo >= lo && rhi <= hi, rhi < lo || rlo > hi)
}
