//! `choose_backend`: which backend each request gets, and the one line saying so, with and without an
//! adapter. The no-adapter case runs this test binary again with `WGPU_BACKEND` naming a backend this
//! platform lacks, so it is exercised on every machine.

use crate::common;

use pbdfit_gpu::{BackendChoice, GpuContext, WorkSize, choose_backend};

const CHILD: &str = "PBDFIT_GPU_TEST_NO_ADAPTER";

#[test]
fn cpu_is_chosen_without_probing() {
    let (backend, message) = choose_backend(BackendChoice::Cpu, WorkSize { particles: 125, rest_states: 441 }, None);
    assert!(backend.name().starts_with("cpu"));
    assert!(message.starts_with("backend: cpu") && !message.contains('\n'), "{message}");
}

#[test]
fn auto_and_gpu_on_this_machine() {
    let big = WorkSize { particles: 125, rest_states: 441 };
    let small = WorkSize { particles: 8, rest_states: 4 };
    let (auto_big, message_big) = choose_backend(BackendChoice::Auto, big, None);
    let (auto_small, message_small) = choose_backend(BackendChoice::Auto, small, None);
    let (gpu, message_gpu) = choose_backend(BackendChoice::Gpu, small, None);
    eprintln!("{message_big}\n{message_small}\n{message_gpu}");
    for m in [&message_big, &message_small, &message_gpu] {
        assert!(m.starts_with("backend: ") && !m.contains('\n'), "{m}");
    }
    // Too little work stays on the CPU whatever the adapter.
    assert!(auto_small.name().starts_with("cpu"), "{message_small}");
    match GpuContext::new() {
        Err(e) if common::gpu_required() => {
            panic!("PBDFIT_REQUIRE_GPU=1 (CI) but no GPU adapter: {e}")
        }
        Err(e) => {
            let line =
                format!("SKIPPED: no GPU adapter (install mesa-vulkan-drivers): auto_and_gpu, adapter half: {e}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            assert!(auto_big.name().starts_with("cpu") && gpu.name().starts_with("cpu"));
        }
        Ok(ctx) if ctx.is_software() => {
            // lavapipe: auto keeps the CPU; an explicit request gets the (software) GPU.
            assert!(auto_big.name().starts_with("cpu"), "{message_big}");
            assert!(message_big.contains("software"), "{message_big}");
            assert!(gpu.name().starts_with("gpu"), "{message_gpu}");
        }
        Ok(_) => {
            assert!(auto_big.name().starts_with("gpu"), "{message_big}");
            assert!(gpu.name().starts_with("gpu"), "{message_gpu}");
        }
    }
}

#[test]
fn no_adapter_means_the_cpu_and_one_line() {
    if std::env::var_os(CHILD).is_some() {
        // The child: wgpu sees no backend it can use.
        let e = GpuContext::new().expect_err("no adapter with WGPU_BACKEND naming a missing backend");
        assert!(!e.to_string().contains('\n'));
        for choice in [BackendChoice::Gpu, BackendChoice::Auto] {
            let (backend, message) = choose_backend(choice, WorkSize { particles: 125, rest_states: 441 }, None);
            assert!(backend.name().starts_with("cpu"), "{message}");
            assert!(message.contains("no GPU adapter") && !message.contains('\n'), "{message}");
            println!("child: {message}");
        }
        return;
    }
    // A backend this platform has no driver for.
    let missing = if cfg!(target_os = "macos") { "vulkan" } else { "metal" };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "gpu_tests::backend_choice::no_adapter_means_the_cpu_and_one_line",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("WGPU_BACKEND", missing)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the child failed");
    assert!(stdout.contains("child: backend: cpu"), "the child did not run its checks");
}
