//! The modules of the `plot` test binary (`tests/plot.rs`), one behaviour each.

mod integration;
