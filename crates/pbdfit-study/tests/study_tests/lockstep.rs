//! Fits in lockstep (`pbdfit study --lockstep K`): the gradient searches of many fits hand their turns'
//! trial rest states to shared batches, and every fit ends where it ends alone, bit for bit.

use std::sync::{Arc, Mutex};

use pbdfit_fit::{FitRecord, PartCache, RestSource, read_records, run_in_lockstep};
use pbdfit_pbd::{CpuBackend, PbdError, RestJob, RestState, RestStateBackend, SimParams};
use pbdfit_study::{Progress, RunOptions, Study, run_study};

/// A gradient study of XPBD on the compound scene (three parts, so three rest states a trial) over ten
/// materials: soft ones whose searches meet points without a rest state, stiff ones that end on a bound.
const STUDY: &str = "name = \"l\"\nscenes = [\"gravity\"]\nmodel = \"xpbd\"\n[base]\ndt = 0.01\nn = 1\nnit = 2\n\
                     young = 1e3\n[poisson]\nfrom = 0.0\nto = 0.45\nstep = 0.05\n[fit]\nsearch = \"gradient\"\n\
                     [[experiment]]\nname = \"base\"\n[[experiment]]\nname = \"young\"\nparameter = \"young\"\nvalues = [1e2, 1e5]\n";

/// The CPU backend, counting the jobs of every mixed batch it is handed.
#[derive(Default)]
struct Counting {
    batches: Mutex<Vec<usize>>,
}

impl RestStateBackend for Counting {
    fn name(&self) -> String {
        "counting cpu".into()
    }

    fn rest_states(
        &self,
        system: &pbdfit_pbd::PbdSystem,
        params: &[SimParams],
        options: &pbdfit_pbd::RestOptions,
    ) -> Vec<Result<RestState, PbdError>> {
        CpuBackend.rest_states(system, params, options)
    }

    fn warm_rest_states(&self, jobs: &[RestJob]) -> Vec<Result<RestState, PbdError>> {
        self.batches.lock().unwrap().push(jobs.len());
        CpuBackend.warm_rest_states(jobs)
    }
}

fn rows(dir: &std::path::Path) -> Vec<FitRecord> {
    let mut all = Vec::new();
    for name in ["gravity-base.csv", "gravity-young.csv"] {
        let mut r = read_records(&dir.join(name)).unwrap();
        r.iter_mut().for_each(|x| x.seconds = 0.0);
        all.extend(r);
    }
    all
}

/// The study in lockstep, four fits at a time, writes the rows of the study without it (every column but
/// the time), its trials reach the backend as mixed batches (more rest states a batch than one fit's
/// turn holds, at best), and the run reports what it batched.
#[test]
fn a_study_in_lockstep_writes_the_rows_of_one_without() {
    let study = Study::parse(STUDY, "l.toml").unwrap();
    let dir = std::env::temp_dir().join(format!("pbdfit-lockstep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = PartCache::default();
    run_study(&study, &dir.join("alone"), &RunOptions::default(), &CpuBackend, &cache, &|_| {}).unwrap();
    let counting = Counting::default();
    let lines = Mutex::new(Vec::new());
    let observer = |p: &Progress| lines.lock().unwrap().push(p.message.clone());
    let options = RunOptions { lockstep: Some(4), ..RunOptions::default() };
    run_study(&study, &dir.join("lockstep"), &options, &counting, &cache, &observer).unwrap();
    let (alone, together) = (rows(&dir.join("alone")), rows(&dir.join("lockstep")));
    assert_eq!(alone.len(), 30, "10 materials, 3 experiment rows each");
    assert_eq!(together, alone);
    let batches = counting.batches.lock().unwrap().clone();
    assert!(!batches.is_empty());
    // A fit's turn asks at most three descents' trials of three parts each.
    assert!(batches.iter().any(|&b| b > 9), "no batch mixed fits: {batches:?}");
    let total: usize = batches.iter().sum();
    let lines = lines.into_inner().unwrap();
    let summary = lines.iter().filter(|l| l.starts_with("lockstep (")).collect::<Vec<_>>();
    assert_eq!(summary.len(), 1, "one line per (dt, N, nit) group: {lines:?}");
    assert!(
        summary[0].contains(&format!("{total} trial rest states in {} batches", batches.len())),
        "{} against {total} in {}",
        summary[0],
        batches.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A fit that panics in lockstep leaves (its place is given up as it unwinds), so the others finish, and
/// the panic reaches the caller instead of a hang.
#[test]
#[should_panic(expected = "the third task")]
fn a_panicking_fit_in_lockstep_reaches_the_caller() {
    let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(1).unwrap();
    let system = Arc::new(pbdfit_pbd::PbdSystem::new(&body));
    let job = |kd: f64| RestJob {
        system: Arc::clone(&system),
        params: SimParams::new(0.01, 2, pbdfit_pbd::Model::pbd(kd, 0.5)),
        warm: None,
        options: pbdfit_pbd::RestOptions::default(),
    };
    let tasks = [0.2, 0.4, -1.0, 0.6];
    run_in_lockstep(&tasks, 4, &CpuBackend, |&kd, rest| {
        let RestSource::Lockstep(batch) = rest else { unreachable!("run_in_lockstep hands out its batch") };
        if kd < 0.0 {
            panic!("the third task");
        }
        batch.rest_states(vec![job(kd), job(kd / 2.0)]).len()
    });
}
