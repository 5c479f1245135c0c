//! Fits in lockstep: many fits, each on its own thread, hand the rest states of their search turns
//! (every live descent's trial, warm-started) to one [`Lockstep`], which runs them as one batch on a
//! [`RestStateBackend`] once every fit still running is waiting for its share. On a GPU that turns the
//! trials of a study's group, a few per fit, into one dispatch of hundreds; on the CPU it changes
//! nothing but the schedule.
//!
//! A fit's result does not depend on the batches: each job's rest state is the one it has alone
//! ([`RestStateBackend::warm_rest_states`]), so a study run in lockstep writes the rows of the run
//! without it, bit for bit (`a_study_in_lockstep_writes_the_rows_of_one_without`). The batches' sizes,
//! which do depend on the threads' timing, are only counted ([`LockstepCounts`]).
//!
//! The rendezvous: a fit joins before its first rest state ([`Lockstep::join`], a guard that leaves
//! when dropped, also on a panic, so no fit is waited for after it has gone). [`Lockstep::rest_states`]
//! queues the caller's jobs and blocks; the thread whose arrival (or departure) leaves no member
//! running runs the whole queue on the backend and wakes the others with their results. A member that
//! computes something else (a linearisation, its FEM reference) is running: the batch waits for it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use pbdfit_pbd::{PbdError, RestJob, RestState, RestStateBackend};

use crate::RestSource;

/// One rest-state result of a batch.
type JobResult = Result<RestState, PbdError>;

/// The rendezvous of fits in lockstep (see the module doc).
pub struct Lockstep<'a> {
    backend: &'a dyn RestStateBackend,
    /// The threads the batches and the members' own parallel steps run on: as many as the creating
    /// thread's pool has (a study's `--jobs`), since the members are threads of their own.
    pool: rayon::ThreadPool,
    state: Mutex<State>,
    /// Results filed, or a batch failed.
    woken: Condvar,
    /// A member queued a request (for tests that must order a departure after it).
    queued: Condvar,
}

/// What the members are doing, under the lock.
#[derive(Default)]
struct State {
    /// Members that have joined and not left.
    members: usize,
    /// Members blocked in [`Lockstep::rest_states`] without their results.
    waiting: usize,
    /// Whether a member is running a batch now.
    running: bool,
    /// Whether a batch panicked (its members cannot get their results).
    failed: bool,
    /// Queued requests: ticket and jobs.
    queue: Vec<(u64, Vec<RestJob>)>,
    /// Results of finished batches not yet taken, by ticket.
    done: HashMap<u64, Vec<JobResult>>,
    next_ticket: u64,
    counts: LockstepCounts,
}

/// What a lockstep run batched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LockstepCounts {
    /// Batches run.
    pub batches: usize,
    /// Rest states in them.
    pub rest_states: usize,
    /// The largest batch.
    pub largest: usize,
}

impl LockstepCounts {
    /// Rest states per batch on average (0 without batches).
    pub fn mean(&self) -> f64 {
        if self.batches == 0 { 0.0 } else { self.rest_states as f64 / self.batches as f64 }
    }
}

/// A member's place in a [`Lockstep`]: leaves when dropped.
pub struct Member<'l, 'a> {
    lockstep: &'l Lockstep<'a>,
}

impl Drop for Member<'_, '_> {
    fn drop(&mut self) {
        let mut state = self.lockstep.lock();
        state.members -= 1;
        // The last running member has gone: the waiting ones may be all there is.
        self.lockstep.run_if_all_wait(state);
    }
}

impl<'a> Lockstep<'a> {
    /// A rendezvous running its batches on `backend`, on as many threads as the calling thread's rayon
    /// pool has.
    pub fn new(backend: &'a dyn RestStateBackend) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("pbdfit-lockstep-{i}"))
            .build()
            .expect("a rayon pool (its threads could not be started)");
        Self { backend, pool, state: Mutex::new(State::default()), woken: Condvar::new(), queued: Condvar::new() }
    }

    /// Runs `op` on the lockstep's threads (a member's parallel step, which must not ask for rest states:
    /// its threads never wait at the rendezvous).
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.pool.install(op)
    }

    /// Joins as a member (a fit about to run); the batches wait for members that are running.
    pub fn join(&self) -> Member<'_, 'a> {
        self.lock().members += 1;
        Member { lockstep: self }
    }

    /// What was batched so far.
    pub fn counts(&self) -> LockstepCounts {
        self.lock().counts
    }

    /// The rest states of `jobs`, in order, from a batch shared with the other members: blocks until
    /// every member is waiting (or has left), then one of them runs the queue. The caller must be a member
    /// ([`join`](Self::join)).
    pub fn rest_states(&self, jobs: Vec<RestJob>) -> Vec<JobResult> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let mut state = self.lock();
        assert!(state.waiting < state.members, "Lockstep::rest_states called by a thread that has not joined");
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push((ticket, jobs));
        state.waiting += 1;
        self.queued.notify_all();
        loop {
            if let Some(results) = state.done.remove(&ticket) {
                return results;
            }
            if state.failed {
                panic!("a lockstep batch of rest states panicked on another fit's thread");
            }
            if !state.running && state.waiting == state.members {
                state = self.run(state);
                continue;
            }
            state = self.woken.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A member that panicked while holding the lock left the counts as they were: go on with them.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs the queue if every member waits (a departing member's last act).
    fn run_if_all_wait(&self, state: MutexGuard<'_, State>) {
        if !state.running && state.waiting > 0 && state.waiting == state.members {
            drop(self.run(state));
        }
    }

    /// Runs the whole queue as one batch outside the lock, files the results by ticket and wakes every
    /// member.
    fn run<'g>(&'g self, mut state: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        state.running = true;
        let queue = std::mem::take(&mut state.queue);
        drop(state);
        let sizes: Vec<(u64, usize)> = queue.iter().map(|(t, jobs)| (*t, jobs.len())).collect();
        let jobs: Vec<RestJob> = queue.into_iter().flat_map(|(_, jobs)| jobs).collect();
        // Should the backend panic, the members waiting for this batch are told (they panic in turn)
        // instead of waiting for ever.
        let guard = PanicGuard { lockstep: self };
        let mut results = self.pool.install(|| self.backend.warm_rest_states(&jobs)).into_iter();
        std::mem::forget(guard);
        let mut state = self.lock();
        for (ticket, n) in sizes.iter().copied() {
            state.done.insert(ticket, results.by_ref().take(n).collect());
        }
        state.waiting -= sizes.len();
        state.counts.batches += 1;
        state.counts.rest_states += jobs.len();
        state.counts.largest = state.counts.largest.max(jobs.len());
        state.running = false;
        self.woken.notify_all();
        state
    }
}

/// Runs `run` on every task with `fits` threads (at most one per task), each a member of one
/// [`Lockstep`] on `backend`, taking the tasks in order as they come free; returns the results in the
/// tasks' order and what was batched. Every thread joins before any runs, so the first batch waits for
/// all of them. A panic on a thread is raised here once the others have finished.
pub fn run_in_lockstep<T: Sync, R: Send>(
    tasks: &[T],
    fits: usize,
    backend: &dyn RestStateBackend,
    run: impl Fn(&T, RestSource) -> R + Sync,
) -> (Vec<R>, LockstepCounts) {
    let lockstep = Lockstep::new(backend);
    let next = AtomicUsize::new(0);
    let threads = fits.clamp(1, tasks.len().max(1));
    let mut results: Vec<Option<R>> = (0..tasks.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let members: Vec<Member> = (0..threads).map(|_| lockstep.join()).collect();
        let handles: Vec<_> = members
            .into_iter()
            .map(|member| {
                let (lockstep, next, run) = (&lockstep, &next, &run);
                scope.spawn(move || {
                    let _member = member;
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(task) = tasks.get(i) else { break };
                        out.push((i, run(task, RestSource::Lockstep(lockstep))));
                    }
                    out
                })
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(out) => out.into_iter().for_each(|(i, r)| results[i] = Some(r)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    let results = results.into_iter().map(|r| r.expect("every task was run")).collect();
    (results, lockstep.counts())
}

/// Marks the lockstep failed when dropped, which only happens while a batch unwinds.
struct PanicGuard<'l, 'a> {
    lockstep: &'l Lockstep<'a>,
}

impl Drop for PanicGuard<'_, '_> {
    fn drop(&mut self) {
        let mut state = self.lockstep.lock();
        state.failed = true;
        state.running = false;
        self.lockstep.woken.notify_all();
    }
}

#[cfg(test)]
impl Lockstep<'_> {
    /// Blocks until `n` members wait for results (a condition variable, no polling).
    fn wait_until_waiting(&self, n: usize) {
        let mut state = self.lock();
        while state.waiting < n {
            state = self.queued.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbdfit_mesh::SceneSet;
    use pbdfit_pbd::{CpuBackend, Model, PbdSystem, RestOptions, SimParams};
    use std::sync::Arc;

    fn job(system: &Arc<PbdSystem>, kd: f64) -> RestJob {
        RestJob {
            system: Arc::clone(system),
            params: SimParams::new(0.01, 2, Model::pbd(kd, 0.5)),
            warm: None,
            options: RestOptions::default(),
        }
    }

    /// Members that ask in turns get the rest states each job has alone, bit for bit, and the batches
    /// wait for every member: with three members asking `rounds` times each, no batch runs before all
    /// three have asked, so there are exactly `rounds` batches of three requests.
    #[test]
    fn members_get_their_own_rest_states_from_shared_batches() {
        let body = SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(1).unwrap();
        let system = Arc::new(PbdSystem::new(&body));
        let lockstep = Lockstep::new(&CpuBackend);
        let rounds = 4;
        let kds = [[0.2, 0.3], [0.4, 0.5], [0.6, 0.7]];
        // Every member joins before any asks, so that the first batch waits for all three.
        let members: Vec<Member> = kds.iter().map(|_| lockstep.join()).collect();
        let got: Vec<Vec<Vec<u64>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = members
                .into_iter()
                .zip(kds)
                .map(|(member, kd)| {
                    let (lockstep, system) = (&lockstep, &system);
                    scope.spawn(move || {
                        let _member = member;
                        (0..rounds)
                            .flat_map(|_| lockstep.rest_states(kd.iter().map(|&k| job(system, k)).collect()))
                            .map(|r| {
                                r.unwrap()
                                    .displacements
                                    .iter()
                                    .flat_map(|u| [u.x, u.y, u.z])
                                    .map(f64::to_bits)
                                    .collect()
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (kd, results) in kds.iter().zip(&got) {
            for (i, bits) in results.iter().enumerate() {
                let alone = job(&system, kd[i % 2]).solve().unwrap();
                let expected: Vec<u64> =
                    alone.displacements.iter().flat_map(|u| [u.x, u.y, u.z]).map(f64::to_bits).collect();
                assert_eq!(bits, &expected, "kd = {}", kd[i % 2]);
            }
        }
        assert_eq!(lockstep.counts(), LockstepCounts { batches: rounds, rest_states: 6 * rounds, largest: 6 });
    }

    /// The batches and the members' parallel steps run on as many threads as the pool that made the
    /// lockstep has (a study's `--jobs`), not on rayon's global pool, which the members' own threads would
    /// otherwise reach.
    #[test]
    fn the_lockstep_runs_on_its_creators_thread_count() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let threads = pool.install(|| Lockstep::new(&CpuBackend).install(rayon::current_num_threads));
        assert_eq!(threads, 3);
    }

    /// A member that leaves while the others wait runs their batch (nobody is left to wait for): one
    /// member asks, and once it waits, the other leaves without asking.
    #[test]
    fn a_departing_member_releases_the_waiting_ones() {
        let body = SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(1).unwrap();
        let system = Arc::new(PbdSystem::new(&body));
        let lockstep = Lockstep::new(&CpuBackend);
        let (asking, leaving) = (lockstep.join(), lockstep.join());
        let results = std::thread::scope(|scope| {
            let waiter = scope.spawn(|| {
                let _member = asking;
                lockstep.rest_states(vec![job(&system, 0.5)])
            });
            lockstep.wait_until_waiting(1);
            assert_eq!(lockstep.counts().batches, 0, "the batch waits for the other member");
            drop(leaving);
            waiter.join().unwrap()
        });
        assert_eq!(results.len(), 1);
        assert!(results[0].as_ref().unwrap().converged);
        assert_eq!(lockstep.counts(), LockstepCounts { batches: 1, rest_states: 1, largest: 1 });
    }
}
