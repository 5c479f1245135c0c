//! The modules of the `claims` test binary (`tests/claims.rs`), one behaviour each.

mod findings;
mod integration;
mod unit;
