//! The modules of the `cli` test binary (`tests/cli.rs`), one behaviour each.

mod baseline;
mod body;
mod bounds;
mod compare;
mod contact;
mod docs;
mod engines;
mod fem;
mod hostile_input;
mod jobs;
mod loads;
mod measured;
mod modes;
mod motion;
mod neighbour_starts;
mod pbd;
mod reference;
mod refusals;
mod resume;
mod sheets;
mod table;
