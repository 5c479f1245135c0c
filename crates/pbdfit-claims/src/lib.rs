//! # pbdfit-claims
//!
//! The thesis's claims (F1-F12, W1-W12, C1-C11, G1-G9, K1, K2) as
//! machine-checkable predicates in a TOML file (`fits/thesis-claims.toml`), evaluated against a study's
//! results folder (`fits/results/thesis`), so that "which claims does our reproduction match" is a
//! number that any change of method can recompute, not a reading of plots.
//!
//! It sits beside the plots, after the results (… -> study -> **results** -> plot / claims) and knows
//! only what [`pbdfit_results`] knows: fit records and the study layout.
//!
//! ## The predicate language
//!
//! ```toml
//! [[claim]]
//! id = "F1"                 # unique
//! figure = "4.2"
//! thesis = "Error starts at 0.14 at nu = 0, ..."
//! note = "how the words were turned into numbers"   # optional
//!
//! [[claim.check]]           # one or more; every check must hold for the claim to hold
//! kind = "at"
//! scene = "gravity-floor"
//! experiment = "base"
//! value = 0.01              # the experiment's value (dt, N, nit or E); omit for base
//! quantity = "error"        # "error", a parameter ("kd", "kv"), or "share:<part>"
//! nu = 0.0
//! expect = 0.14             # |ours - expect| <= tolerance (absolute) ...
//! tolerance = 0.04          # ... or below = x and/or above = y (strict)
//! ```
//!
//! A *series* is a quantity against nu for one scene, experiment and value, from the successful fits.
//! `share:<part>` is a compound record's part error squared over the compound error squared (the
//! compound error is the norm of the parts' errors, so the shares add up to 1). `nu = [from, to]`
//! restricts a check to a closed nu range (default: all nu).
//!
//! | kind | fields | holds when |
//! |---|---|---|
//! | `at` | series, `nu` (number), `expect` + `tolerance` or `below` / `above` | the value at the data's nu within 1e-6 of `nu` is in the band |
//! | `range` | series, `nu`?, `below`? `above`? | every value over the range is `< below` and `> above` |
//! | `trend` | series, `nu`?, `direction` = rising / falling / flat, `min_correlation`? (0.5), `tolerance`? (0.2) | Spearman rho vs nu `>= min_correlation` (rising), `<= -min_correlation` (falling); flat: `(max - min) / mean(abs) <= tolerance` |
//! | `values_order` | `scene`, `experiment`, `quantity`, `nu`?, `values = [...]`, `direction` = rising / falling, `monotone`? = strict / overall, `stat`? = mean / min / max | the statistic (default mean) over the range at each value, in the order of `values`, moves in `direction` at each step (strictly), or last vs first with `overall` |
//! | `compare` | `a = {scene, experiment, value?, quantity?}`, `b = {...}`, `quantity` (unless both sides give theirs), `nu`? (range or number), `stat`? = mean / max / at_each, `relation` = less / greater or `ratio = [lo, hi]`, `fraction`? | over the nu both series have: stat(A) `relation` stat(B), or stat(A) / stat(B) in `[lo, hi]`; `at_each`: at every common nu (at least `fraction` of them, default 1), every pointwise ratio in `[lo, hi]`; a number `nu`: the values there |
//! | `oscillates` | series, `nu`?, `min_changes`? `max_changes`? | sign changes of successive differences (zero differences skipped) `>= min_changes` and `<= max_changes` |
//! | `argmin` | series, `nu`?, `within = [lo, hi]`, `over`? = nu / values, `values`? | the nu of the smallest value lies in `[lo, hi]`; `over = "values"`: the experiment value whose mean over the range is smallest (over `values`, default the study's) |
//! | `untestable` | `reason` | never: the claim is reported untestable |
//!
//! ## Undecided: within the fits' own uncertainty
//!
//! Each fitted parameter value comes with its 1 % range (column `ranges`: the interval within which
//! the fit's error rises by at most 1 %). A check on a parameter is decided only when every value
//! within the ranges gives the same answer as the fitted values; otherwise it is **undecided**, in
//! both directions: a value that fails a bound while its range reaches across it, and one that holds
//! while its range reaches across it (the comparison must not be decided by a margin smaller than the
//! fit's own uncertainty). This applies to `at` and `range` (the value's range against the band or
//! `expect +- tolerance`), `compare` (two values' ranges overlapping in the direction that would flip
//! the relation, or a ratio whose range `[lo_a / hi_b, hi_a / lo_b]` reaches across `[lo, hi]`; pointwise
//! for `at_each`, where a `fraction` is undecided when the points sure to hold are too few and those
//! that may hold enough) and `values_order` (each step an ordering of two statistics). A statistic
//! (mean, min, max) of several values lies between the statistic of their lower ends and of their
//! upper ends (interval arithmetic: no distribution of the fits' errors is assumed). Errors and shares
//! have no range column, nor do results written without identifiability (`pbdfit compare`'s
//! variants): their checks stay two-way. `trend` (a rank correlation), `oscillates` and `argmin` stay
//! two-way too: no range of those statistics follows from the parameters' ranges without assuming
//! how the values move together.
//!
//! A claim **fails** if any check fails, else is **undecided** if any check is, else is **not run** if
//! any check lacks data (an experiment not in the results folder, a nu without a successful fit), else
//! is **untestable** if any check is, else **holds**. Parsing refuses unknown kinds and fields, fields a kind does not use, missing
//! fields, empty or reversed ranges and duplicate ids, naming the claim and the field
//! ([`ClaimsError::Claim`]).
//!
//! ## Use
//!
//! ```no_run
//! use std::path::Path;
//! use pbdfit_claims::{ClaimsFile, Results, Score, evaluate, markdown_table};
//! let claims = ClaimsFile::from_path(Path::new("fits/thesis-claims.toml"))?;
//! let results = Results::open(Path::new("fits/results/thesis"))?;
//! let verdicts = evaluate(&claims, &results);
//! println!("{}\n{}", markdown_table(&verdicts), Score::of(&verdicts));
//! # Ok::<(), pbdfit_claims::ClaimsError>(())
//! ```
//!
//! Dependencies: `pbdfit-results` (reading the fit records and `summary.json`), `serde` + `toml` (the
//! claims file), `thiserror` (typed errors naming the file, claim and field).

mod claims;
mod error;
mod evaluate;
mod outcome;
mod parse;
mod render;
mod results;
mod stats;
mod uncertainty;

pub use claims::{
    ArgminOver, Bound, Check, Claim, ClaimsFile, CompareAt, CompareTest, Direction, Monotone, NuRange, Quantity,
    Relation, SeriesRef, SeriesStat, Stat, Trend,
};
pub use error::ClaimsError;
pub use evaluate::{evaluate, evaluate_check, evaluate_claim};
pub use outcome::{CheckResult, Outcome, Score, Verdict};
pub use render::{comparison_markdown, comparison_section, markdown_table, sig3};
pub use results::{RangedPoint, Results};
pub use stats::{relative_spread, sign_changes, spearman};
