//! The tests of pbdfit-fit, in one test binary (one link, not one per file). Each module of `fit_tests/`
//! checks one behaviour. One module: `cargo test -p pbdfit-fit --test fit measured::`.

mod fit_tests;
