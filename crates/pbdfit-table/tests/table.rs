//! The tests of pbdfit-table, in one test binary like every crate's (modules in `table_tests/`). One module:
//! `cargo test -p pbdfit-table --test table loading::`.

mod table_tests;
