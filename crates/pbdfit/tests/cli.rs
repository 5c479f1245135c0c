//! End-to-end tests of the `pbdfit` command line, in one test binary (one link, not one per file). Each
//! module of `cli_tests/` checks one behaviour; `common/` holds their helpers. One module:
//! `cargo test -p pbdfit --test cli refusals::`.

mod cli_tests;
mod common;
