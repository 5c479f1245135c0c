//! The tests of pbdfit-jobs, in one test binary. One module: `cargo test -p pbdfit-jobs --test jobs body::`.

mod jobs_tests;
