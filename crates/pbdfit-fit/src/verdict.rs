//! Whether a fit is an answer: a fit always ends at its best point, but a best point that does no better
//! than a body that does not deform at all, or one found among mostly failed points, is no answer. The
//! report then leads with "this model cannot reproduce this material at these settings", carries
//! `verdict = "cannot_reproduce"`, and gives no lines to paste into an engine.
//!
//! The exit status stays 0: the fit ran and its answer ("cannot") is honest, as `pbdfit settings`
//! exits 0 when no setting reaches its target; refusals of the input exit 2.

use serde::Serialize;

/// The largest share of a fit's evaluations that may lack a rest state for its best point to be an
/// answer: beyond one half, the error surface the search saw is mostly holes.
pub const MAX_FAILED_SHARE: f64 = 0.5;

/// What a fit's best point is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The fitted parameters are an answer.
    Answer,
    /// The model cannot reproduce the material at these settings (see [`judge`]).
    CannotReproduce,
}

impl Verdict {
    /// `answer` or `cannot_reproduce`, as the JSON report writes it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Answer => "answer",
            Verdict::CannotReproduce => "cannot_reproduce",
        }
    }
}

/// The error of a body that does not deform: each moved vertex is off by its whole displacement (a
/// relative error of 1), so 1 per scene, and the norm of ones, `sqrt(parts)`, for a compound.
pub fn undeformed_error(parts: usize) -> f64 {
    (parts.max(1) as f64).sqrt()
}

/// The verdict on a fit whose best error is `error` over `parts` scenes, with `failed` of its
/// `evaluations` without a rest state, and the reason when it is no answer: an error that is not finite,
/// one at least [`undeformed_error`] (what a body that does not move scores), or more than
/// [`MAX_FAILED_SHARE`] of the evaluations failed.
pub fn judge(error: f64, parts: usize, evaluations: usize, failed: usize) -> (Verdict, Option<String>) {
    let undeformed = undeformed_error(parts);
    let reason = if !error.is_finite() {
        Some("no point of the box has a rest state".to_string())
    } else if error >= undeformed {
        Some(format!(
            "its best error, {}, is no better than the {} of a body that does not deform at all",
            pbdfit_mesh::display::number(error),
            pbdfit_mesh::display::number(undeformed)
        ))
    } else if evaluations > 0 && failed as f64 > MAX_FAILED_SHARE * evaluations as f64 {
        Some(format!("{failed} of its {evaluations} points have no rest state"))
    } else {
        None
    };
    match reason {
        Some(r) => (Verdict::CannotReproduce, Some(r)),
        None => (Verdict::Answer, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_no_better_than_an_undeformed_body_or_mostly_failed_is_no_answer() {
        // The Newton fit: error 6.4e5, 76 of 85 points failed.
        let (v, why) = judge(6.4e5, 1, 85, 76);
        assert_eq!(v, Verdict::CannotReproduce);
        assert_eq!(
            why.as_deref(),
            Some("its best error, 640000, is no better than the 1 of a body that does not deform at all")
        );
        // A load that never moves the body scores exactly 1.
        assert_eq!(judge(1.0, 1, 85, 0).0, Verdict::CannotReproduce);
        assert_eq!(judge(0.999, 1, 85, 0).0, Verdict::Answer);
        // Mostly failed, with a low error at the few points that rest.
        let (v, why) = judge(0.01, 1, 85, 43);
        assert_eq!((v, why.as_deref()), (Verdict::CannotReproduce, Some("43 of its 85 points have no rest state")));
        assert_eq!(judge(0.01, 1, 85, 42).0, Verdict::Answer);
        // A compound of four scenes: undeformed, each part scores 1 and the norm 2.
        assert_eq!(judge(1.9, 4, 85, 0).0, Verdict::Answer);
        assert_eq!(judge(2.0, 4, 85, 0).0, Verdict::CannotReproduce);
        assert_eq!(judge(f64::INFINITY, 1, 85, 85).0, Verdict::CannotReproduce);
        assert_eq!(Verdict::CannotReproduce.name(), "cannot_reproduce");
    }
}
