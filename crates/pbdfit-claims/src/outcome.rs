//! What evaluation gives: how a check or a claim came out ([`Outcome`]), a check's result, a claim's
//! [`Verdict`], and the [`Score`] that counts verdicts.

use std::fmt;

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
