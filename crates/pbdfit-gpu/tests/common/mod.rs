//! Shared test helpers: the adapter (or a loud skip), bodies, and relative differences.

#![allow(dead_code)]

use pbdfit_gpu::GpuContext;
use pbdfit_pbd::{PbdSystem, Vec3};

/// The GPU context, or `None` after printing why the test is skipped. Every GPU test starts with it, so
/// a machine without an adapter says so instead of passing silently.
pub fn gpu_or_skip(test: &str) -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => {
            eprintln!("{test}: adapter {}", ctx.describe());
            Some(ctx)
        }
        Err(e) => {
            println!("SKIPPED: no GPU adapter (install mesa-vulkan-drivers): {test}: {e}");
            eprintln!("SKIPPED: no GPU adapter (install mesa-vulkan-drivers): {test}: {e}");
            None
        }
    }
}

/// The PBD system of a built-in scene at resolution `n`.
pub fn system(scene: &str, n: usize) -> PbdSystem {
    let body = pbdfit_mesh::SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap();
    PbdSystem::new(&body)
}

/// `max_i |a_i - b_i| / max_i |b_i|`: the largest difference relative to the largest displacement.
pub fn relative_difference(a: &[Vec3], b: &[Vec3]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let diff = a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max);
    if scale > 0.0 { diff / scale } else { diff }
}

/// The three basic scenes.
pub const SCENES: [&str; 3] = ["gravity-floor", "gravity-wall", "gravity-ceiling"];
