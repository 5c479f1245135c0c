//! One job that another thread can stop: the front ends' Ctrl-C (Python's `KeyboardInterrupt`) for a fit,
//! a simulation, a release test or a modal analysis. The flag is the threads' (`pbdfit_mesh::cancel`):
//! [`cancellable`] makes it the cancel flag of the job's threads, and the long loops it reaches (rest
//! states, FEM steps and Newton iterations, the modal iteration, the spring integrators, the model's
//! release) stop at their next check. A study is stopped between fits instead (pbdfit-study's `RunOptions`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use pbdfit_mesh::cancel::Cancelled;

/// Runs `work` as a job `flag` can stop: on a thread pool as large as the current one whose threads, like
/// the thread `work` starts on, carry `flag` as their cancel flag, so the work's parallel parts see it too.
/// Where `flag` is set by the end, `Err(Cancelled)` whatever `work` returned (a loop it stopped may
/// have ended early without an error); else what `work` returned. Without a flag set, the work runs as
/// it would anywhere else: the checks change no arithmetic.
pub fn cancellable<T: Send>(flag: &Arc<AtomicBool>, work: impl FnOnce() -> T + Send) -> Result<T, Cancelled> {
    let handler_flag = flag.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("pbdfit-job-{i}"))
        .start_handler(move |_| pbdfit_mesh::cancel::set_flag(handler_flag.clone()))
        .build();
    let out = match pool {
        Ok(pool) => pool.install(|| pbdfit_mesh::cancel::with_flag(flag, work)),
        // No threads to be had: the work on this thread, its parallel parts on the global pool (which do
        // not see the flag; the loops around them do).
        Err(_) => pbdfit_mesh::cancel::with_flag(flag, work),
    };
    if flag.load(Ordering::SeqCst) { Err(Cancelled) } else { Ok(out) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbdfit_mesh::cancel::requested;
    use rayon::prelude::*;

    #[test]
    fn the_jobs_threads_see_its_flag_and_a_set_flag_is_the_result() {
        let flag = Arc::new(AtomicBool::new(false));
        // Every thread of the job's pool sees the flag; the result of a job never cancelled is its own.
        let seen = cancellable(&flag, || {
            flag.store(true, Ordering::SeqCst);
            let seen: Vec<bool> = (0..64).into_par_iter().map(|_| requested()).collect();
            flag.store(false, Ordering::SeqCst);
            seen
        });
        assert_eq!(seen, Ok(vec![true; 64]));
        // Set during the work: cancelled, whatever the work returned.
        assert_eq!(
            cancellable(&flag, || {
                flag.store(true, Ordering::SeqCst);
                7
            }),
            Err(Cancelled)
        );
        // The calling thread carries no flag after the job.
        assert!(!requested());
    }
}
