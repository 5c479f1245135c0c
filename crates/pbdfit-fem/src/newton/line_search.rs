//! Line searches along a Newton step: which step lengths `alpha` are tried, and which trial is taken.

/// A line search along a Newton step `du` from `u`.
///
/// `current` is the merit value at `u` (a relative residual norm), and `trial(alpha)` evaluates the point
/// `u + alpha du`: `Ok(Some((point, merit)))` where it can be evaluated, `Ok(None)` where it cannot (an
/// element would invert), `Err` for an error that ends the solve. The search returns the accepted trial's
/// point, or `None` where no step length it tries is accepted.
pub(crate) trait LineSearch {
    fn search<T, E>(&self, current: f64, trial: impl FnMut(f64) -> Result<Option<(T, f64)>, E>)
    -> Result<Option<T>, E>;
}

/// Halving backtracking with a sufficient-decrease test: `alpha = 1, 1/2, ..., 2^-(tries - 1)`, and the
/// first trial whose merit is finite and below `(1 - sufficient_decrease alpha) current` is taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Backtracking {
    /// Step lengths tried (the first is the full step).
    pub(crate) tries: usize,
    /// The fraction of the full step's predicted decrease a trial must achieve, per unit `alpha`.
    pub(crate) sufficient_decrease: f64,
}

impl LineSearch for Backtracking {
    fn search<T, E>(
        &self,
        current: f64,
        mut trial: impl FnMut(f64) -> Result<Option<(T, f64)>, E>,
    ) -> Result<Option<T>, E> {
        let mut alpha = 1.0;
        for _ in 0..self.tries {
            if let Some((point, merit)) = trial(alpha)?
                && merit.is_finite()
                && merit < (1.0 - self.sufficient_decrease * alpha) * current
            {
                return Ok(Some(point));
            }
            alpha *= 0.5;
        }
        Ok(None)
    }
}

/// Halving until the trial can be evaluated at all: `alpha = 1, 1/2, ..., 2^-(tries - 1)`, and the first
/// trial that is not `None` is taken whatever its merit (the merit is not read).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Admissible {
    /// Step lengths tried (the first is the full step).
    pub(crate) tries: usize,
}

impl LineSearch for Admissible {
    fn search<T, E>(
        &self,
        _current: f64,
        mut trial: impl FnMut(f64) -> Result<Option<(T, f64)>, E>,
    ) -> Result<Option<T>, E> {
        let mut alpha = 1.0;
        for _ in 0..self.tries {
            if let Some((point, _)) = trial(alpha)? {
                return Ok(Some(point));
            }
            alpha *= 0.5;
        }
        Ok(None)
    }
}

/// The full Newton step, `alpha = 1`, taken whatever its merit: for a solve whose step needs no search.
pub(crate) const FULL_STEP: Admissible = Admissible { tries: 1 };
