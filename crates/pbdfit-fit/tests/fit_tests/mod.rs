//! The modules of the `fit` test binary (`tests/fit.rs`), one behaviour each.

mod engine_rest;
mod fit;
mod identify;
mod measured;
mod nothing_to_fit;
mod shared_rest_states;
