/// Why the GPU path is not available or failed. Callers print the message (one line) and take the CPU
/// path; nothing in this crate panics on a missing or failing device.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// No adapter (no GPU, and no software Vulkan driver such as Mesa's lavapipe).
    #[error("no GPU adapter found ({reason}); install a Vulkan driver (Debian: mesa-vulkan-drivers libvulkan1)")]
    NoAdapter {
        /// What wgpu said.
        reason: String,
    },
    /// The adapter exists but would not open a device.
    #[error("GPU adapter {adapter} refused a device: {reason}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// The body or the batch does not fit the device's limits.
    #[error("{what} does not fit the GPU ({adapter}): {reason}")]
    TooLarge {
        /// What was too large (e.g. `mesh with 274625 particles`).
        what: String,
        /// Adapter name.
        adapter: String,
        /// Which limit.
        reason: String,
    },
    /// A shader, buffer or command failed validation, or the device was lost.
    #[error("GPU error on {adapter} while {during}: {reason}")]
    Failed {
        /// Adapter name.
        adapter: String,
        /// What was being done.
        during: String,
        /// What wgpu said.
        reason: String,
    },
    /// Invalid simulation parameters (the same check as the CPU path).
    #[error("{0}")]
    Parameters(#[from] pbdfit_pbd::PbdError),
}
