//! The tests of pbdfit-fem, in one test binary (one link, not one per file). Each module of `fem_tests/`
//! checks one behaviour. One module: `cargo test -p pbdfit-fem --test fem contact::`.

mod fem_tests;
