//! Shared test helpers: the adapter (or a loud skip), bodies, parameter sets, relative differences.

use pbdfit_gpu::GpuContext;
use pbdfit_pbd::{Model, ModelKind, PbdSystem, SimParams, Vec3};

/// The GPU context, or `None` after printing why the test is skipped. Every GPU test starts with it, so
/// a machine without an adapter says so instead of passing silently; where `PBDFIT_REQUIRE_GPU=1` (CI,
/// which installs Mesa's lavapipe) a missing adapter fails the test instead.
pub fn gpu_or_skip(test: &str) -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => {
            eprintln!("{test}: adapter {}", ctx.describe());
            Some(ctx)
        }
        Err(e) if gpu_required() => {
            panic!("{test}: PBDFIT_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            // Written to the stderr handle itself, not through eprintln!, which the test harness captures
            // (and hides for passing tests): a skip must show in every test run.
            let line = format!("SKIPPED: no GPU adapter (install mesa-vulkan-drivers): {test}: {e}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            None
        }
    }
}

/// Whether a missing adapter fails the GPU tests (`PBDFIT_REQUIRE_GPU=1`, set by CI) rather than skipping
/// them: a CI machine whose software driver went missing would otherwise pass every GPU test unrun.
pub fn gpu_required() -> bool {
    std::env::var("PBDFIT_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The PBD system of a built-in scene at resolution `n`.
pub fn system(scene: &str, n: usize) -> PbdSystem {
    let body = pbdfit_mesh::SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap();
    PbdSystem::new(&body)
}

/// `max_i |a_i - b_i| / max_i |b_i|`: the largest difference relative to the largest displacement
/// (stricter than relative to the rest positions, which are of size 1).
pub fn relative_difference(a: &[Vec3], b: &[Vec3]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let diff = a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max);
    if scale > 0.0 { diff / scale } else { diff }
}

/// The three basic scenes.
pub const SCENES: [&str; 3] = ["gravity-floor", "gravity-wall", "gravity-ceiling"];

/// The registered models the kernels implement: every projection model except the engine profiles,
/// whose own steps the hand-off gives to the CPU (tested in `handoffs_are_reported_to_the_caller`).
pub fn kernel_models() -> impl Iterator<Item = ModelKind> {
    ModelKind::all()
        .iter()
        .copied()
        .filter(|k| k.has_projection() && !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
}

/// Parameter points: every model with a kernel at its example parameters ([`ModelKind::example`], so a
/// new model is compared with the CPU by default), then PBD and XPBD soft and stiff, at small dt and
/// several iterations.
pub fn parameter_points() -> Vec<SimParams> {
    let mut points: Vec<SimParams> = kernel_models().map(|k| SimParams::new(0.01, 1, k.example())).collect();
    points.extend([
        SimParams::new(0.01, 1, Model::pbd(0.1, 0.65)),
        SimParams::new(0.01, 1, Model::pbd(1.0, 0.0)),
        SimParams::new(0.001, 1, Model::pbd(0.1, 0.45)),
        SimParams::new(0.01, 4, Model::pbd(0.3, 0.9)),
        SimParams::new(0.005, 2, ModelKind::PBD_LINEARISED.with(&[0.7, 0.4]).unwrap()),
        SimParams::new(0.01, 2, Model::xpbd(1e-4, 1e-6)),
        SimParams::new(0.002, 1, Model::xpbd(5e-6, 0.0)),
        SimParams::new(0.01, 2, ModelKind::XPBD_STVK.example()),
        SimParams::new(0.005, 1, ModelKind::XPBD_MORSE.example()),
    ]);
    points
}
