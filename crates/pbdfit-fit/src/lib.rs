//! # pbdfit-fit
//!
//! From a material (Young's modulus E, Poisson ratio nu) and simulation settings (dt, N, nit) to the PBD
//! stiffness (kd, kv) whose rest state best matches the FEM rest state, and whole study matrices of such
//! fits. This crate sits after the models in pbdfit's data flow (scene -> mesh -> models -> error -> fit
//! -> study -> plot) and owns:
//!
//! - [`FitRecord`]: one fitted result, the row format of the study CSVs that `pbdfit-plot` reads.
//!
//! Dependencies: `serde` + `csv` for the results files (quoting, headers and round-trips are theirs).

mod record;

pub use record::{FitRecord, FitStatus, read_records, write_records};
