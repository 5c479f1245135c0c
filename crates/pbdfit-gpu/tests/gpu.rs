//! The tests of pbdfit-gpu, in one test binary (one link, not one per file). Each module of `gpu_tests/`
//! checks one behaviour; `common/` holds their helpers. One module:
//! `cargo test -p pbdfit-gpu --test gpu batched::`.

mod common;
mod gpu_tests;
