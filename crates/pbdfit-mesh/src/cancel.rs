//! Stopping a running computation from another thread (Ctrl-C in Python).
//!
//! A job (a fit, a simulation, a release test, a modal analysis) runs many nested loops in three crates;
//! threading a flag through every signature between the front end and the innermost step loop would
//! touch each of them. Instead the flag is the thread's: [`with_flag`] makes an `AtomicBool` the cancel
//! flag of the calling thread for the length of a closure ([`set_flag`] for the life of a worker
//! thread, from a thread pool's start handler, so the threads a job fans out to see it too), and the
//! long loops (the rest state's fixed point and stepping, the FEM's time steps, the modal subspace
//! iteration, the spring integrators, the model's release) ask [`requested`] once per step and end with
//! [`Cancelled`]. It is the crate to the left of every crate with such a loop, which is why it lives
//! here. A thread without a flag is never cancelled, so a library caller who sets none sees no change;
//! a check changes no arithmetic, so no result changes either.
//!
//! Once a flag is set, what the job returns is meaningless (a loop may stop early without an error where
//! its signature has no room for one): `pbdfit_fit::cancellable` runs a job under a flag and returns
//! [`Cancelled`] whenever the flag was set, whatever the job returned.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// The error of a computation stopped by its thread's cancel flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cancelled: the computation was asked to stop (Ctrl-C)")]
pub struct Cancelled;

/// Runs `work` with `flag` as the calling thread's cancel flag; the thread's flag before is restored after
/// (also when `work` panics).
pub fn with_flag<T>(flag: &Arc<AtomicBool>, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            FLAG.with(|f| *f.borrow_mut() = before);
        }
    }
    let _restore = Restore(FLAG.with(|f| f.borrow_mut().replace(flag.clone())));
    work()
}

/// Makes `flag` the calling thread's cancel flag for the rest of its life: for the start handler of a
/// thread pool that runs one job.
pub fn set_flag(flag: Arc<AtomicBool>) {
    FLAG.with(|f| *f.borrow_mut() = Some(flag));
}

/// Whether the calling thread's computation has been asked to stop (never, on a thread without a flag).
pub fn requested() -> bool {
    FLAG.with(|f| f.borrow().as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)))
}

/// `Err(Cancelled)` where [`requested`], for `?` at the top of a loop's step.
pub fn check() -> Result<(), Cancelled> {
    if requested() { Err(Cancelled) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_holds_on_its_thread_for_its_closure_only() {
        let set = Arc::new(AtomicBool::new(true));
        let clear = Arc::new(AtomicBool::new(false));
        assert!(!requested(), "a thread without a flag");
        with_flag(&set, || {
            assert!(requested());
            assert_eq!(check(), Err(Cancelled));
            // Nested: the inner flag, then the outer one again.
            with_flag(&clear, || assert!(!requested()));
            assert!(requested());
            // Another thread does not see this one's flag.
            assert!(!std::thread::spawn(requested).join().unwrap());
        });
        assert!(!requested(), "restored after the closure");
        let result = std::panic::catch_unwind(|| with_flag(&set, || panic!("in the closure")));
        assert!(result.is_err());
        assert!(!requested(), "restored after a panic");
        // Set later, from another thread: seen at the next check.
        with_flag(&clear, || {
            let flag = clear.clone();
            std::thread::spawn(move || flag.store(true, Ordering::SeqCst)).join().unwrap();
            assert!(requested());
        });
    }
}
