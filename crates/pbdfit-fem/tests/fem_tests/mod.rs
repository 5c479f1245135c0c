//! The modules of the `fem` test binary (`tests/fem.rs`), one behaviour each.

mod cancel;
mod contact;
mod extreme_inputs;
mod loads;
mod materials;
mod modes;
mod multigrid;
mod reference;
mod shell;
mod shell_contact;
mod shell_dynamic;
mod shell_nonlinear;
mod shell_pressure;
