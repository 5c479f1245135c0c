//! The modules of the `fit` test binary (`tests/fit.rs`), one behaviour each.

mod fit;
mod identify;
mod measured;
mod nothing_to_fit;
mod shared_rest_states;
mod engine_rest;
