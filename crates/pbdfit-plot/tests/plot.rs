//! The tests of pbdfit-plot, in one test binary like every crate's (modules in `plot_tests/`). One module:
//! `cargo test -p pbdfit-plot --test plot integration::`.

mod plot_tests;
