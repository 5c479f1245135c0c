//! Benchmark of one base fit (`cargo bench -p pbdfit-fit`): the thesis's setting (gravity-floor, N = 1,
//! E = 1e3 Pa, nu = 0.3, dt = 0.01, nit = 1, PBD, 21 x 21 grid and compass search to step 1e-4, with
//! the identifiability measurement) on the CPU with rayon's threads, FEM reference solved once outside
//! the timing, as in a study. `pbdfit fit --json` prints the same fit's own `seconds`.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOptions, FitProblem, PartCache, SearchBox, Settings, fit_cpu};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::ModelKind;

fn base_fit(c: &mut Criterion) {
    let set = SceneSet::builtin("gravity-floor").unwrap();
    let settings = Settings::new(0.01, 1, 1, ModelKind::PBD);
    let problem = FitProblem::new(&set, settings, YoungPoisson::new(1e3, 0.3).unwrap(), &PartCache::default()).unwrap();
    let options = FitOptions::new(SearchBox::default_for(ModelKind::PBD));
    let mut group = c.benchmark_group("fit");
    group.sample_size(20);
    group.bench_function("base N=1 gravity-floor", |b| b.iter(|| black_box(fit_cpu(&problem, &options).unwrap())));
    group.finish();
}

criterion_group!(benches, base_fit);
criterion_main!(benches);
