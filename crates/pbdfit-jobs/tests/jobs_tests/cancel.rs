//! Cancelling a job (`pbdfit_fit::cancellable`, the front ends' Ctrl-C): each of simulate, modes, motion
//! and fit stops with the cancellation from inside its own loops, not only through the wrapper, and a job
//! never cancelled gives its result.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pbdfit_jobs::{
    Cancelled, FitKeywords, Job, ModesKeywords, MotionKeywords, SimulateKeywords, Spelling, cancellable,
};
use pbdfit_mesh::cancel::with_flag;
use pbdfit_pbd::CpuBackend;

const CANCELLED: &str = "cancelled: the computation was asked to stop";

fn set() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(true))
}

/// XPBD at dt = 1e-5 s (minutes of rest-state steps uncancelled): the job's own error is the cancellation.
#[test]
fn a_cancelled_simulation_stops_in_its_rest_state() {
    let job = SimulateKeywords::from_json(
        r#"{"scene": "gravity-wall", "n": 2, "model": "xpbd", "nit": 10, "dt": 1e-5,
            "params": {"alpha_d": 0.01, "alpha_v": 0.01}}"#,
    )
    .unwrap();
    let prepared = job.prepare(Spelling::Keyword).unwrap();
    let part = &prepared.parts[0];
    let e = with_flag(&set(), || prepared.run_part(part, &CpuBackend, 1, &mut |_, _| {})).unwrap_err();
    assert!(e.to_string().contains(CANCELLED), "{e}");
    assert_eq!(cancellable(&set(), || prepared.run_part(part, &CpuBackend, 1, &mut |_, _| {})).err(), Some(Cancelled));
}

/// A mass-spring model's Verlet dynamics, the flag set at frame 3: no frame after it, the cancellation as
/// the error; never set, the run settles.
#[test]
fn a_simulation_s_dynamics_stop_at_the_step_after_the_flag() {
    let job = SimulateKeywords::from_json(
        r#"{"scene": "gravity-wall", "n": 1, "model": "mass-spring", "ks": 100, "damping": 1,
            "integrator": "verlet", "dt": 0.001}"#,
    )
    .unwrap();
    let prepared = job.prepare(Spelling::Keyword).unwrap();
    let part = &prepared.parts[0];
    let flag = Arc::new(AtomicBool::new(false));
    let mut frames = Vec::new();
    let e = with_flag(&flag, || {
        prepared.run_part(part, &CpuBackend, 1, &mut |step, _| {
            frames.push(step);
            if step == 3 {
                flag.store(true, Ordering::SeqCst);
            }
        })
    })
    .unwrap_err();
    assert!(e.to_string().contains(CANCELLED), "{e}");
    assert_eq!(frames, [0, 1, 2, 3]);
    flag.store(false, Ordering::SeqCst);
    assert!(cancellable(&flag, || prepared.run_part(part, &CpuBackend, 1000, &mut |_, _| {})).unwrap().is_ok());
}

/// The modes (the subspace iteration) and the release test (the FEM's Newmark steps) on a set flag.
#[test]
fn cancelled_modes_and_motion_stop_in_their_fem_loops() {
    let modes = ModesKeywords::from_json(r#"{"scene": "gravity-wall", "n": 2, "count": 2}"#).unwrap();
    let pbdfit_jobs::ModesPrepared::Solid(prepared) = pbdfit_jobs::Job::prepare(&modes, Spelling::Keyword).unwrap()
    else {
        panic!("gravity-wall is a solid")
    };
    let (material, count) = (prepared.material, prepared.count);
    let part = prepared.parts.into_iter().next().unwrap();
    let e = with_flag(&set(), || part.run(material, count)).unwrap_err();
    assert!(e.to_string().contains(CANCELLED), "{e}");

    let motion = MotionKeywords::from_json(
        r#"{"scene": "gravity-wall", "n": 1, "model": "xpbd", "nit": 4, "params": {"alpha_d": 0.01, "alpha_v": 0.01}}"#,
    )
    .unwrap();
    let prepared = motion.prepare(Spelling::Keyword).unwrap();
    let e = with_flag(&set(), || prepared.run()).unwrap_err();
    assert!(e.to_string().contains(CANCELLED), "{e}");
}

/// A fit on a set flag: every rest state it asks for is cancelled, so it gives up at once; the wrapper
/// says so.
#[test]
fn a_cancelled_fit_stops() {
    let job = FitKeywords::from_json(r#"{"scene": "gravity-wall", "n": 2, "model": "xpbd", "nit": 4}"#).unwrap();
    let prepared = job.job(Spelling::Keyword).unwrap().prepare(Spelling::Keyword).unwrap();
    let Err(e) = with_flag(&set(), || prepared.run(&CpuBackend)) else { panic!("no fit without rest states") };
    assert!(e.to_string().contains(CANCELLED), "{e}");
}
