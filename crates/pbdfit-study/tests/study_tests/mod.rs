//! The modules of the `study` test binary (`tests/study.rs`), one behaviour each.

mod lockstep;
mod resume;
mod study_limits;
