//! Kernel benchmarks of the CPU PBD path (`cargo bench -p pbdfit-pbd`), the figures behind the
//! projection-throughput goal: serial projections per second on the mixed sweep (N = 8, nit = 4,
//! gravity-floor) for every projection model, distance and volume constraints on their own, and rest
//! states by the Anderson fixed point. End-to-end figures (fits, studies, threads) stay with `pbdfit bench`
//! and `pbdfit fit --json`.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::bench::{SweepFixture, SweepKind};
use pbdfit_pbd::{Model, ModelKind, PbdSystem, RestOptions, Scale, SimParams};

/// Resolution of the sweep benchmarks (6,232 constraints).
const N: usize = 8;
/// Iterations per step, as in the throughput goal.
const NIT: usize = 4;
/// Time step (s).
const DT: f64 = 0.01;

/// Each projection model at the stiff corner of its default box: stiffness 1 for the PBD variants,
/// the smallest compliance for the XPBD ones (the constraints project with full corrections).
fn stiff_models() -> Vec<(ModelKind, SimParams)> {
    ModelKind::all()
        .iter()
        .filter(|k| k.has_projection() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
        .map(|&k| {
            let values: Vec<f64> = k
                .parameters()
                .iter()
                .map(|p| match p.scale {
                    Scale::Linear => p.default_box.1,
                    Scale::Log10 => p.default_box.0,
                })
                .collect();
            (k, SimParams::new(DT, NIT, k.with(&values).expect("a corner of the default box")))
        })
        .collect()
}

/// One step (prediction, `NIT` sweeps over every constraint, velocity update) per model: the mixed sweep.
fn mixed_sweep(c: &mut Criterion) {
    let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(N).unwrap();
    let system = PbdSystem::new(&body).with_parallel_threshold(usize::MAX);
    let mut group = c.benchmark_group(format!("mixed sweep N={N} nit={NIT}"));
    group.throughput(Throughput::Elements((system.constraint_count() * NIT) as u64));
    for (kind, params) in stiff_models() {
        let mut d = system.dynamics();
        for _ in 0..20 {
            system.step(&params, &mut d);
        }
        group.bench_function(BenchmarkId::from_parameter(kind.name()), |b| {
            b.iter(|| black_box(system.step(&params, &mut d)));
        });
    }
    group.finish();
}

/// Serial sweeps over the distance constraints only, the volume constraints only, and both (PBD,
/// kd = kv = 1): which constraint type holds the mix back. Each iteration restores the state after 20
/// steps and sweeps `NIT` times (the restore, a copy of the predictions, is timed too).
fn sweeps_by_type(c: &mut Criterion) {
    let params = SimParams::new(DT, NIT, Model::pbd(1.0, 1.0));
    let mut group = c.benchmark_group(format!("pbd sweep by type N={N}"));
    for (name, kind) in [("distances", SweepKind::Distances), ("volumes", SweepKind::Volumes), ("all", SweepKind::All)]
    {
        let mut fixture = SweepFixture::new(N, &params).expect("PBD projects");
        group.throughput(Throughput::Elements((NIT * fixture.projections(kind)) as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                fixture.reset();
                for _ in 0..NIT {
                    fixture.sweep(kind);
                }
            })
        });
    }
    group.finish();
}

/// Rest states by the Anderson fixed point to 1e-13 (the fit's setting) from rest, on the three gravity
/// scenes' floor cube: the stiff corner, and the soft point a base fit ends at (kd 0.18, kv 0.52).
fn rest_states(c: &mut Criterion) {
    let mut group = c.benchmark_group("rest state pbd gravity-floor nit=1");
    group.sample_size(20);
    for n in [1, 4] {
        let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(n).unwrap();
        let system = PbdSystem::new(&body);
        for (label, kd, kv) in [("stiff", 1.0, 1.0), ("fitted", 0.18, 0.52)] {
            let params = SimParams::new(DT, 1, Model::pbd(kd, kv));
            let options = RestOptions::default();
            group.bench_function(BenchmarkId::new(label, format!("N={n}")), |b| {
                b.iter(|| black_box(system.rest_state(&params, &options, None).unwrap()));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, mixed_sweep, sweeps_by_type, rest_states);
criterion_main!(benches);
