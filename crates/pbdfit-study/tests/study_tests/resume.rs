//! A study stopped by its observer resumes to the results of one that was not.

use std::sync::Arc;

use pbdfit_fit::PartCache;

/// A run cancelled by its observer after the k-th fit stops starting fits, keeps the k written, returns
/// `Interrupted`, and a new run resumes from them to the same results as an uninterrupted run.
#[test]
fn a_cancelled_study_keeps_its_fits_and_resumes() {
    use pbdfit_fit::FitError;
    use pbdfit_pbd::CpuBackend;
    use pbdfit_study::{RunOptions, Study, run_study};
    use std::sync::atomic::{AtomicBool, Ordering};
    let study = Study::parse(
        "name = \"c\"\nscenes = [\"gravity-floor\"]\n[base]\ndt = 0.01\nn = 1\nnit = 1\nyoung = 1e3\n\
         [poisson]\nfrom = 0.0\nto = 0.4\nstep = 0.1\n[fit]\ngrid = 6\n[[experiment]]\nname = \"base\"\n",
        "c.toml",
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("pbdfit-cancel-{}", std::process::id()));
    let full = dir.join("full");
    let cut = dir.join("cut");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let cache = PartCache::default();
    pool.install(|| run_study(&study, &full, &RunOptions::default(), &CpuBackend, &cache, &|_| {})).unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let options = RunOptions { cancel: Some(cancel.clone()), ..RunOptions::default() };
    let observer = |p: &pbdfit_study::Progress| {
        if p.done == 2 {
            cancel.store(true, Ordering::SeqCst);
        }
    };
    let e = pool.install(|| run_study(&study, &cut, &options, &CpuBackend, &cache, &observer)).unwrap_err();
    assert!(matches!(e, FitError::Interrupted { done: 2, total: 5 }), "{e}");
    let rows = |d: &std::path::Path| pbdfit_fit::read_records(&d.join("gravity-floor-base.csv")).unwrap();
    assert_eq!(rows(&cut).len(), 2);
    let summary =
        pool.install(|| run_study(&study, &cut, &RunOptions::default(), &CpuBackend, &cache, &|_| {})).unwrap();
    assert_eq!((summary.run.resumed, summary.run.computed), (2, 3));
    let strip = |mut r: Vec<pbdfit_fit::FitRecord>| {
        r.iter_mut().for_each(|x| x.seconds = 0.0);
        r
    };
    assert_eq!(strip(rows(&cut)), strip(rows(&full)));
    std::fs::remove_dir_all(&dir).ok();
}
