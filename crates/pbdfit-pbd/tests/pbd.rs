//! The tests of pbdfit-pbd, in one test binary (one link, not one per file). Each module of `pbd_tests/`
//! checks one behaviour; `points/` holds the sensitivity tests' parameter point (the `sensitivity_cost`
//! example includes it by its path). One module: `cargo test -p pbdfit-pbd --test pbd engines::`.

mod pbd_tests;
mod points;
