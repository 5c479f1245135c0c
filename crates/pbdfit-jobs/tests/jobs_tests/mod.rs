//! The modules of the `jobs` test binary (`tests/jobs.rs`), one behaviour each.

mod body;
mod cancel;
mod masses;
mod python;
mod sheets;
