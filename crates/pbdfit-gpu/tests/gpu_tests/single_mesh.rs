//! The single-mesh kernels (one dispatch per colour group) against `PbdSystem::step` and the CPU rest
//! state.

use crate::common::{SCENES, gpu_or_skip, kernel_models, parameter_points, relative_difference, system};
use pbdfit_gpu::GpuSimulation;
use pbdfit_pbd::{Model, ModelKind, RestOptions, SimParams};

#[test]
fn steps_follow_the_cpu_step() {
    let Some(ctx) = gpu_or_skip("steps_follow_the_cpu_step") else { return };
    let mut worst: f64 = 0.0;
    for scene in SCENES {
        for n in [1, 2, 3] {
            let sys = system(scene, n);
            let mut cases = vec![
                SimParams::new(0.01, 1, Model::pbd(0.5, 0.5)),
                SimParams {
                    damping: 0.1,
                    ..SimParams::new(0.005, 4, ModelKind::PBD_TEXTBOOK_VOLUME.with(&[0.9, 0.3]).unwrap())
                },
                SimParams::new(0.01, 2, Model::xpbd(1e-4, 1e-6)),
            ];
            // Every registered model with a kernel, on the smallest mesh.
            if n == 1 {
                cases.extend(kernel_models().map(|k| SimParams::new(0.01, 1, k.example())));
            }
            for params in cases {
                let mut gpu = GpuSimulation::new(&ctx, &sys, &params).unwrap();
                let mut cpu = sys.dynamics();
                let mut cpu_step = 0.0;
                for _ in 0..50 {
                    cpu_step = sys.step(&params, &mut cpu);
                }
                gpu.step(50).unwrap();
                let d = relative_difference(&gpu.displacements().unwrap(), &cpu.u);
                // Velocities as the step they make (v dt), relative to the displacement: near rest the
                // step is a small difference of displacements, so its own relative error is larger.
                let scale = cpu.u.iter().map(|u| u.norm()).fold(0.0, f64::max);
                let dv = gpu
                    .velocities()
                    .unwrap()
                    .iter()
                    .zip(&cpu.v)
                    .map(|(a, b)| (a - b).norm() * params.dt / scale)
                    .fold(0.0, f64::max);
                let last = gpu.last_step().unwrap();
                eprintln!("{scene} N={n} {}: u {d:.2e}, v dt {dv:.2e}", params.describe());
                // f32 kernels: 50 steps of the dynamics keep ~1e-7 of the displacement (measured).
                assert!(d < 1e-5, "{scene} N={n} {}: displacements differ by {d:e}", params.describe());
                assert!(dv < 1e-5, "{scene} N={n} {}: velocities differ by {dv:e}", params.describe());
                assert!((last.step - cpu_step).abs() <= 1e-5 * scale, "{} vs {cpu_step}", last.step);
                worst = worst.max(d);
            }
        }
    }
    eprintln!("steps: worst relative difference {worst:.3e}");
}

#[test]
fn single_mesh_rest_states_match_the_cpu() {
    let Some(ctx) = gpu_or_skip("single_mesh_rest_states_match_the_cpu") else { return };
    let mut worst: f64 = 0.0;
    for (scene, n) in [("gravity-floor", 1), ("gravity-wall", 1), ("gravity-ceiling", 1), ("gravity-wall", 2)] {
        let sys = system(scene, n);
        let points = parameter_points();
        let mut gpu = GpuSimulation::new(&ctx, &sys, &points[0]).unwrap();
        for params in points {
            let cpu = sys.rest_state(&params, &RestOptions::default(), None).unwrap();
            gpu.set_params(&params).unwrap();
            let rest = gpu.rest_state(&RestOptions::default()).unwrap().unwrap();
            let d = relative_difference(&rest.displacements, &cpu.displacements);
            eprintln!(
                "{scene} N={n} {}: {d:.2e} after {} sweeps (estimate {:.1e})",
                params.describe(),
                rest.iterations,
                rest.residual
            );
            assert!(rest.converged, "{scene} N={n} {}", params.describe());
            // f32 kernels with two-float displacements: ~1e-7 measured; 1e-5 of the displacement.
            assert!(d < 1e-5, "{scene} N={n} {}: {d:e}", params.describe());
            worst = worst.max(d);
        }
    }
    eprintln!("single-mesh rest states: worst relative difference {worst:.3e}");
}
