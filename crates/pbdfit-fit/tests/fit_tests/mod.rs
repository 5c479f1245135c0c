//! The modules of the `fit` test binary (`tests/fit.rs`), one behaviour each.

mod body;
mod cancel;
mod fit;
mod identify;
mod lockstep;
mod masses;
mod measured;
mod nothing_to_fit;
mod shared_rest_states;
mod study_limits;
