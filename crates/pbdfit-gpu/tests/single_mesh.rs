//! The single-mesh kernels against `PbdSystem::step` and the CPU rest state.

mod common;

use common::{SCENES, gpu_or_skip, relative_difference, system};
use pbdfit_gpu::GpuSimulation;
use pbdfit_pbd::{Model, RestOptions, SimParams};

#[test]
fn steps_follow_the_cpu_step() {
    let Some(ctx) = gpu_or_skip("steps_follow_the_cpu_step") else { return };
    for scene in SCENES {
        for n in [1, 2, 3] {
            let sys = system(scene, n);
            for params in [
                SimParams::new(0.01, 1, Model::Pbd { kd: 0.5, kv: 0.5 }),
                SimParams::new(0.005, 4, Model::PbdTextbookVolume { kd: 0.9, kv: 0.3 }),
                SimParams::new(0.01, 2, Model::Xpbd { compliance_distance: 1e-4, compliance_volume: 1e-6 }),
            ] {
                let mut gpu = GpuSimulation::new(&ctx, &sys, &params).unwrap();
                let mut cpu = sys.dynamics();
                let steps = 50;
                for _ in 0..steps {
                    sys.step(&params, &mut cpu);
                }
                gpu.step(steps).unwrap();
                let d = relative_difference(&gpu.displacements().unwrap(), &cpu.u);
                eprintln!("{scene} N={n} {}: {d:e}", params.describe());
                // f32 kernels: each step rounds at ~6e-8 relative; 50 steps stay well inside 1e-5.
                assert!(d < 1e-5, "{scene} N={n} {}: {d:e}", params.describe());
            }
        }
    }
}

#[test]
fn rest_states_match_the_cpu() {
    let Some(ctx) = gpu_or_skip("rest_states_match_the_cpu") else { return };
    let mut worst: f64 = 0.0;
    for scene in SCENES {
        for n in [1, 2] {
            let sys = system(scene, n);
            for params in [
                SimParams::new(0.01, 1, Model::Pbd { kd: 0.5, kv: 0.5 }),
                SimParams::new(0.01, 1, Model::Pbd { kd: 0.05, kv: 0.05 }),
                SimParams::new(0.001, 1, Model::Pbd { kd: 1.0, kv: 0.2 }),
                SimParams::new(0.01, 4, Model::Pbd { kd: 0.3, kv: 0.9 }),
                SimParams::new(0.01, 2, Model::Xpbd { compliance_distance: 1e-4, compliance_volume: 1e-6 }),
            ] {
                let cpu = sys.rest_state(&params, &RestOptions::default(), None).unwrap();
                let mut gpu = GpuSimulation::new(&ctx, &sys, &params).unwrap();
                let rest = gpu.rest_state(&RestOptions::default()).unwrap().unwrap();
                let d = relative_difference(&rest.displacements, &cpu.displacements);
                eprintln!(
                    "{scene} N={n} {}: {d:e} steps {} conv {} res {:e}",
                    params.describe(),
                    rest.iterations,
                    rest.converged,
                    rest.residual
                );
                worst = worst.max(d);
            }
        }
    }
    eprintln!("worst {worst:e}");
    assert!(worst < 1e-5);
}
