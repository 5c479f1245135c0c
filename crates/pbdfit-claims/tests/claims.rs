//! The tests of pbdfit-claims, in one test binary (one link, not one per file). Each module of
//! `claims_tests/` checks one behaviour. One module: `cargo test -p pbdfit-claims --test claims findings::`.

mod claims_tests;
