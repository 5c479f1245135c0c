//! Fits that share the search's rest states with other fits on the same grid give the results they give
//! alone, bit for bit (`SharedRestStates`).

use std::sync::atomic::{AtomicUsize, Ordering};

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{
    FitOptions, FitProblem, FitResult, GridRestStates, PartCache, SearchBox, Settings, SharedRestStates, fit_with_grid,
};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{CpuBackend, ModelKind, PbdError, RestOptions};
use rayon::prelude::*;

/// Everything but the wall-clock time.
fn without_time(mut r: FitResult) -> FitResult {
    r.seconds = 0.0;
    r
}

fn bits(r: &FitResult) -> Vec<u64> {
    let mut v: Vec<u64> = r.parameters.iter().map(|p| p.1.to_bits()).collect();
    v.push(r.error.to_bits());
    v.extend(r.part_errors.iter().map(|p| p.1.to_bits()));
    if let Some(id) = &r.identifiability {
        v.push(id.condition.to_bits());
        v.extend(id.hessian.iter().map(|h| h.to_bits()));
    }
    v
}

#[test]
fn fits_sharing_rest_states_equal_fits_alone() {
    // The compound scene: three parts, each with its own grid and store, as in a study group.
    let kind = ModelKind::PBD;
    let options = FitOptions::new(SearchBox::default_for(kind));
    let set = SceneSet::builtin("gravity").unwrap();
    let settings = Settings::new(0.01, 1, 1, kind);
    let cache = PartCache::default();
    let problems: Vec<FitProblem> = (0..8)
        .map(|i| FitProblem::new(&set, settings, YoungPoisson::new(1e3, 0.06 * i as f64).unwrap(), &cache).unwrap())
        .collect();
    let grids: Vec<GridRestStates> = problems[0]
        .parts
        .iter()
        .map(|p| {
            GridRestStates::compute(
                &p.system,
                &settings,
                &options.search_box,
                options.resolution(),
                &CpuBackend,
                &RestOptions::default(),
            )
        })
        .collect();
    let alone: Vec<FitResult> = problems
        .iter()
        .map(|p| {
            let own: Vec<GridRestStates> = grids.iter().map(|g| g.unshared()).collect();
            let refs: Vec<&GridRestStates> = own.iter().collect();
            let r = without_time(fit_with_grid(p, &refs, &options).unwrap());
            assert!(own.iter().all(|g| g.shared.hits() == 0), "a fit alone met its own points again");
            r
        })
        .collect();
    let refs: Vec<&GridRestStates> = grids.iter().collect();
    // In parallel (whichever fit computes a shared state first), then again in reverse order, when
    // every state the search needs is in the store.
    let shared: Vec<FitResult> =
        problems.par_iter().map(|p| without_time(fit_with_grid(p, &refs, &options).unwrap())).collect();
    let hits_first = grids.iter().map(|g| g.shared.hits()).sum::<usize>();
    let again: Vec<FitResult> =
        problems.iter().rev().map(|p| without_time(fit_with_grid(p, &refs, &options).unwrap())).collect();
    let hits_again = grids.iter().map(|g| g.shared.hits()).sum::<usize>() - hits_first;
    assert!(hits_first > 0, "neighbouring Poisson ratios shared no rest state");
    let grid_points = options.resolution().pow(2);
    let searched: usize = alone.iter().map(|r| r.evaluations - grid_points).sum();
    assert!(hits_again >= searched, "second pass: {hits_again} hits for {searched} searched points");
    for (i, a) in alone.iter().enumerate() {
        assert_eq!(*a, shared[i], "fit {i}, shared in parallel");
        assert_eq!(*a, again[alone.len() - 1 - i], "fit {i}, shared from the store");
        assert_eq!(bits(a), bits(&shared[i]), "fit {i}");
    }
}

#[test]
fn the_store_returns_what_was_computed_and_respects_its_bound() {
    let store = SharedRestStates::new(4);
    let calls = AtomicUsize::new(0);
    let compute = |v: f64| {
        calls.fetch_add(1, Ordering::Relaxed);
        Ok(std::sync::Arc::new(vec![pbdfit_mesh::Vec3::new(v, 0.0, 0.0); 8]))
    };
    let (a, ra) = store.get_or_compute(&[0.25, 0.5], 3, || compute(1.0));
    assert!(a >= 4, "searched lineages follow the grid's 0..4");
    let (b, rb) = store.get_or_compute(&[0.25, 0.5], 3, || compute(2.0));
    assert_eq!((a, calls.load(Ordering::Relaxed), store.hits()), (b, 1, 1));
    assert_eq!(ra.unwrap()[0].x.to_bits(), rb.unwrap()[0].x.to_bits());
    // Another warm start, or a point one ulp away, is another computation.
    let (c, _) = store.get_or_compute(&[0.25, 0.5], 2, || compute(3.0));
    let (d, _) = store.get_or_compute(&[0.25, f64::from_bits(0.5f64.to_bits() + 1)], 3, || compute(4.0));
    assert!(c != a && d != a && c != d);
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    // Failures are stored like states.
    let fail = || Err(PbdError::InvalidParameter { name: "kd", value: -1.0, allowed: "0 to 1".into() });
    let (e, _) = store.get_or_compute(&[0.0, 0.0], 0, fail);
    let (f, r) = store.get_or_compute(&[0.0, 0.0], 0, || compute(5.0));
    assert!(e == f && r.is_err());
    // Beyond the memory bound nothing is stored: the same key computes again, with a new lineage.
    let big = SharedRestStates::new(0);
    let huge = || Ok(std::sync::Arc::new(vec![pbdfit_mesh::Vec3::zeros(); SharedRestStates::MAX_BYTES / 24 + 1]));
    let before = calls.load(Ordering::Relaxed);
    let (g, _) = big.get_or_compute(&[0.5], 0, || {
        calls.fetch_add(1, Ordering::Relaxed);
        huge()
    });
    let (h, _) = big.get_or_compute(&[0.5], 0, || {
        calls.fetch_add(1, Ordering::Relaxed);
        huge()
    });
    assert!(g != h && calls.load(Ordering::Relaxed) == before + 2 && big.hits() == 0);
}
