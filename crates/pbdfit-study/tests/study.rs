//! The tests of pbdfit-study, in one test binary (one link, not one per file). Each module of
//! `study_tests/` checks one behaviour. One module: `cargo test -p pbdfit-study --test study lockstep::`.

mod study_tests;
