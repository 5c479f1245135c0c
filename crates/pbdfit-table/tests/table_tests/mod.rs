//! The modules of the `table` test binary (`tests/table.rs`), one behaviour each.

mod loading;
