//! Load stepping: the load factor goes from 0 to 1 in increments, a failed increment is halved down to
//! a smallest one, and a converged one is followed by a longer one (or the same again).

/// How the increment after a converged one is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Growth {
    /// Twice the converged increment, at most the whole load.
    Double,
    /// The first increment again (a halved increment is not lengthened past it: friction's path).
    Repeat,
}

/// What one increment's solve gave.
pub(crate) enum Outcome<F> {
    /// Converged: the solve has taken the increment's end state as its own.
    Converged,
    /// Did not converge; `F` says how (for the error if it cannot be halved any more).
    Failed(F),
}

/// The load-stepping rule: increments of the load factor from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LoadStepping {
    /// The first increment.
    pub(crate) first: f64,
    /// The smallest increment: a failed increment whose half is shorter ends the solve.
    pub(crate) minimum: f64,
    /// An increment that reaches to within `snap` of the whole load ends at 1 exactly.
    pub(crate) snap: f64,
    /// The increment after a converged one.
    pub(crate) growth: Growth,
}

impl LoadStepping {
    /// Runs the increments: `increment(from, to)` solves from load factor `from` (the last converged
    /// one) to `to`; where it fails and its half would be shorter than [`minimum`](Self::minimum),
    /// `give_up(failure, to, step)` is the error. Returns the number of halved increments.
    pub(crate) fn run<F, E>(
        &self,
        mut increment: impl FnMut(f64, f64) -> Result<Outcome<F>, E>,
        give_up: impl FnOnce(F, f64, f64) -> E,
    ) -> Result<usize, E> {
        let mut halvings = 0;
        let mut lambda = 0.0;
        let mut length = self.first;
        while lambda < 1.0 {
            let step = length.min(1.0 - lambda);
            let target = if step >= 1.0 - lambda - self.snap { 1.0 } else { lambda + step };
            match increment(lambda, target)? {
                Outcome::Converged => {
                    lambda = target;
                    length = match self.growth {
                        Growth::Double => (2.0 * step).min(1.0),
                        Growth::Repeat => self.first,
                    };
                }
                Outcome::Failed(failure) => {
                    if step / 2.0 < self.minimum * (1.0 - 1e-12) {
                        return Err(give_up(failure, target, step));
                    }
                    halvings += 1;
                    length = step / 2.0;
                }
            }
        }
        Ok(halvings)
    }
}
