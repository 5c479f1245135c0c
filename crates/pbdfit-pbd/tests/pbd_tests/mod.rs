//! The modules of the `pbd` test binary (`tests/pbd.rs`), one behaviour each.

mod cancel;
mod cloth;
mod cloth_cases;
mod cloth_mass_spring;
mod contact;
mod engines;
mod invariants;
mod loads;
mod pressure;
mod rest_state;
mod root_solve;
mod sensitivity;
mod wind;
