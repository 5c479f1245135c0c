//! # pbdfit-gpu
//!
//! TODO crate doc

mod batch;
mod choose;
mod context;
mod error;
mod layout;
mod rest;
mod single;

pub use batch::GpuBackend;
pub use choose::{BackendChoice, WorkSize, choose_backend};
pub use context::GpuContext;
pub use error::GpuError;
pub use single::{GpuSimulation, StepStats};

use pbdfit_pbd::RestOptions;

/// The tightest relative per-step tolerance the f32 kernels are asked for.
pub const F32_TOLERANCE_FLOOR: f64 = 1e-7;

/// The most time steps one GPU rest state may take, whatever `RestOptions::max_sweeps` allows.
pub const MAX_DEVICE_STEPS: u32 = 1_000_000;

pub(crate) fn device_tolerance(options: &RestOptions) -> f64 {
    options.tolerance.max(F32_TOLERANCE_FLOOR)
}

pub(crate) fn device_max_steps(options: &RestOptions, nit: usize) -> u32 {
    (options.max_sweeps / nit.max(1)).clamp(1, MAX_DEVICE_STEPS as usize) as u32
}
