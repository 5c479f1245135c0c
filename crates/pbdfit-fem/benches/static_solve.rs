//! Kernel benchmarks of the linear static FEM reference (`cargo bench -p pbdfit-fem`): assembly plus
//! solve of a [`StaticProblem`] that already holds its pattern (and, after the first solve, its symbolic
//! factorisation), as a study re-solves it for every (E, nu), on the gravity-floor cube. Larger meshes
//! and the solvers side by side: `cargo run --release -p pbdfit-fem --example solver_comparison`.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pbdfit_fem::{StaticProblem, YoungPoisson};
use pbdfit_mesh::SceneSet;

fn linear_static(c: &mut Criterion) {
    let scene = SceneSet::builtin("gravity-floor").unwrap();
    let mut group = c.benchmark_group("linear static gravity-floor");
    group.sample_size(10);
    for n in [4, 8, 16] {
        let body = scene.scenes()[0].body(n).unwrap();
        let problem = StaticProblem::new(&body).unwrap();
        group.throughput(Throughput::Elements(problem.dofs() as u64));
        for nu in [0.3, 0.49] {
            let material = YoungPoisson::new(1e3, nu).unwrap();
            problem.solve(material).unwrap();
            group.bench_function(BenchmarkId::new(format!("nu={nu}"), format!("N={n}")), |b| {
                b.iter(|| black_box(problem.solve(material).unwrap()));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, linear_static);
criterion_main!(benches);
