//! # pbdfit-jobs
//!
//! What a user asks pbdfit, one command at a time: each command is a [`Job`], whose keywords type is both
//! the command line's options (clap's `Args`) and Python's keywords (serde), checked in one place
//! ([`Job::prepare`]), run in one place ([`Job::run`]) and answered by one serialisable [`Report`]
//! (`pbdfit <command> --json` is it, [`Report::text`] is what the command prints, Python returns it). The
//! front ends hold no job of their own: the command line runs any job through one generic function, the
//! Python extension through one entry over [`JOBS`].
//!
//! The fit core (problem, targets, searches, Levenberg-Marquardt, lockstep, identify, masses, verdict, the
//! reference seam, the release test) is `pbdfit-fit`'s; this crate sits after it, and after `pbdfit-study`
//! and `pbdfit-table`, in the data flow. [`bench`] is `pbdfit bench fit`, `bench motion` and
//! `bench rest-solvers`, which time these jobs.

pub mod bench;
pub mod settings_sweep;
pub mod sheet;
pub mod signature;
mod study_job;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pbdfit_pbd::{PbdSystem, RestStateBackend};
use pbdfit_study::Progress;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use evaluate_job::EvaluateReport;
pub use fem_job::{ContactForce, ContactReport, FemJob, FemPart, FemPrepared, FemReport, FemSetup, PreparedFem};
pub use fit_job::{
    BOOTSTRAP_SEED, BootstrapReport, BoxAxis, EngineAnswer, FitBody, FitJob, FitOutcome, FitReport,
    IdentifiabilityReport, PastedError, PreparedFit, Starts,
};
pub use identify_job::{IdentifyJob, IdentifyReport};
pub use lookup_job::{LookupReport, PreparedLookup};
pub use mapping_job::{MAPPING_SCENE, MappingEntry, MappingReport, PreparedMapping, mapping_list_help};
pub use modes_job::{DEFAULT_MODE_COUNT, ModeReport, ModesPrepared, ModesReport, ModesSetup, PreparedModes};
pub use motion_job::PreparedMotion;
pub use pbdfit_fit::{
    BodyKeywords, Cancelled, FitJobError, MotionReport, Spelling, cancellable, keyword_names, keywords_from_json,
    mesh_notes,
};
pub use pbdfit_study::StudyKeywords;
pub use pbdfit_table::TableKeywords;
pub use settings_sweep::{PreparedSettings, SettingsKeywords, SettingsReport};
pub use simulate_job::{
    ConstraintReport, DynamicsReport, PreparedSimulate, RestReport, SimulateBody, SimulateJob, SimulateReport,
    SimulateRun, SimulateSetup,
};
pub use study_job::{StudyReport, StudyRun, TableReport};

/// One command as a job: its keywords (this type: clap's options and Python's keywords, unknown ones
/// refused), checked into [`Job::Prepared`] before any work, run into a [`Job::Report`].
pub trait Job: Serialize + DeserializeOwned + Default + Send + 'static {
    /// The command's name (`pbdfit modes`), which is Python's function's (`pbdfit.modes`).
    const NAME: &'static str;
    /// What the job answers, one paragraph: the command's help (`pbdfit --help` lists it, `pbdfit <name>
    /// --help` opens with it; no final period, as clap writes a one-paragraph help) and the first line of
    /// a Python function made from the job ([`signature`]).
    const ABOUT: &'static str;
    /// A small case of the job (a few seconds at most), as the command line's options: the test of every
    /// job runs it through both front ends and compares their reports field for field. Files the test
    /// makes are named by placeholders: `{markers}` (a marker CSV of `gravity-wall` at N = 1), `{study}`
    /// and `{table}` (a study and a table file of a few fits), `{out}` (a results folder, each front end's
    /// own).
    const EXAMPLE: &'static [&'static str];
    /// The keywords a Python function made from the job ([`signature`]) takes by position as well, after
    /// the required ones and in this order; every other keyword is keyword-only.
    const POSITIONAL: &'static [&'static str] = &[];
    /// The job checked, its problems built.
    type Prepared: Send;
    /// What the job answers.
    type Report: Report;

    /// Checks every keyword (a refusal names it in `spelling`) and builds the job's problems.
    fn prepare(&self, spelling: Spelling) -> Result<Self::Prepared, FitJobError>;

    /// Runs the prepared job; `context` is where it computes and what it tells the front end on its way.
    fn run(prepared: Self::Prepared, context: &mut Context<'_>) -> Result<Self::Report, FitJobError>;

    /// The keywords' names (Python's spelling), sorted.
    fn names() -> Vec<String> {
        keyword_names::<Self>()
    }

    /// The job from a JSON object of its keywords (Python's call), unknown keywords refused.
    fn from_json(text: &str) -> Result<Self, String> {
        keywords_from_json(text)
    }
}

/// A job's answer: `pbdfit <command> --json`'s object, Python's return value, and its text.
pub trait Report: Serialize + Send {
    /// The report as the command prints it, ending in a newline.
    fn text(&self) -> String;
}

/// What a job is given to run. Cancelling is the thread's flag ([`cancellable`]), which every loop the
/// job reaches checks; a study or a table also stops on [`Context::cancel`].
pub struct Context<'a> {
    /// Where rest states are computed.
    pub backend: &'a dyn RestStateBackend,
    /// Where a study or a table computes its rest states: the backend for a body and a batch of that many
    /// rest states (the command line's `--backend`, said on stderr; the CPU for Python).
    pub choose: &'a dyn Fn(&PbdSystem, usize) -> Box<dyn RestStateBackend>,
    /// A dynamic FEM solve's steps, as they are taken (a progress display).
    pub progress: &'a mut dyn FnMut(&pbdfit_fem::DynamicProgress),
    /// The release test's samples, as they are made: the time (s), the FEM's displacements and the
    /// model's (m); an error stops the job with it.
    pub frames: &'a mut pbdfit_fit::FrameSink<'a>,
    /// A long job's progress, a line per finished piece (a settings sweep's fits), as it comes: the
    /// command line prints it to stderr; Python and the tests drop it.
    pub lines: &'a mut dyn FnMut(&str),
    /// A study's or table's fits as they are written (the command line's progress bar, Python's
    /// `progress=`), called on the worker threads.
    pub fits: &'a (dyn Fn(&Progress) + Sync),
    /// A study's or table's stop: once set, no further fit starts, those in flight are written and a later
    /// run resumes (Python's Ctrl-C).
    pub cancel: Option<Arc<AtomicBool>>,
}

/// The CPU backend for any body ([`Context::choose`] where the front end offers no choice).
pub fn cpu(_: &PbdSystem, _: usize) -> Box<dyn RestStateBackend> {
    Box::new(pbdfit_pbd::CpuBackend)
}

impl Context<'_> {
    /// Runs `job` on `backend` with no progress display, no frames and no progress lines.
    pub fn run<J: Job>(prepared: J::Prepared, backend: &dyn RestStateBackend) -> Result<J::Report, FitJobError> {
        let (frames, progress) = (&mut |_: f64, _: &[_], _: &[_]| Ok(()), &mut |_: &_| {});
        let lines = &mut |_: &str| {};
        J::run(prepared, &mut Context { backend, choose: &cpu, progress, frames, lines, fits: &|_| {}, cancel: None })
    }

    /// Runs `job` on the CPU with no progress display (Python's and the tests' way).
    pub fn quiet<J: Job>(job: &J, spelling: Spelling) -> Result<J::Report, FitJobError> {
        Context::run::<J>(job.prepare(spelling)?, &pbdfit_pbd::CpuBackend)
    }
}

/// The reports of a scene's parts: one object for a basic scene, an array of them for a compound (the
/// command line's `--json`), their texts one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts<R> {
    /// Whether the scene is a compound.
    pub compound: bool,
    /// One report per part, in the scene's order.
    pub parts: Vec<R>,
}

impl<R: Serialize> Serialize for Parts<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.compound, self.parts.first()) {
            (false, Some(one)) => one.serialize(serializer),
            _ => self.parts.serialize(serializer),
        }
    }
}

impl<R: Report> Report for Parts<R> {
    fn text(&self) -> String {
        self.parts.iter().map(Report::text).collect()
    }
}

/// The registry of jobs: [`JOBS`], [`keywords_of`] and [`run_json`] over every job listed. A new job is
/// one entry here: `<Keywords> in <file>` declares the job's file `<file>.rs` as a module and exports its
/// keywords type (its other public types get a `pub use` of their own where another crate names them); a
/// job whose keywords live in another crate or a public module is its keywords type alone.
macro_rules! jobs {
    ($($job:ident $(in $module:ident)?),* $(,)?) => {
        $($(mod $module; pub use $module::$job;)?)*

        /// Every job's name (its command's and Python function's).
        pub const JOBS: &[&str] = &[$(<$job as Job>::NAME),*];

        /// The keywords of the job `name` (Python's spelling), sorted; `None` for no such job.
        pub fn keywords_of(name: &str) -> Option<Vec<String>> {
            $(if name == <$job as Job>::NAME { return Some(<$job as Job>::names()); })*
            None
        }

        /// The job `name` as a Python function takes it (its keywords in the function's order, each
        /// with its kind and help, and its docstring); `None` for no such job.
        pub fn signature_of(name: &str) -> Option<signature::Signature> {
            $(if name == <$job as Job>::NAME { return Some(signature::Signature::of::<$job>()); })*
            None
        }

        /// The job `name`'s [`Job::EXAMPLE`]; `None` for no such job.
        pub fn example_of(name: &str) -> Option<&'static [&'static str]> {
            $(if name == <$job as Job>::NAME { return Some(<$job as Job>::EXAMPLE); })*
            None
        }

        /// The keywords of the job `name` read from its command line's options `args` (without the
        /// command's name), as the JSON object Python's call sends ([`run_json`] takes it): what the
        /// command line parses is what Python's keywords say. `None` for no such job.
        pub fn keywords_from_args(name: &str, args: &[&str]) -> Option<Result<String, String>> {
            $(if name == <$job as Job>::NAME { return Some(signature::keywords_from_args::<$job>(args)); })*
            None
        }

        /// Runs the job `name` from a JSON object of its keywords on the CPU, its report as JSON (the command's
        /// `--json` output): the Python extension's one entry. A study's or table's fits go to `fits` and stop
        /// on `cancel`.
        pub fn run_json_with(
            name: &str,
            keywords: &str,
            fits: &(dyn Fn(&Progress) + Sync),
            cancel: Option<Arc<AtomicBool>>,
        ) -> Result<String, FitJobError> {
            $(if name == <$job as Job>::NAME { return run_one::<$job>(keywords, fits, cancel); })*
            Err(FitJobError::Input(format!("no job named {name}: the jobs are {}", JOBS.join(", "))))
        }
    };
}

jobs!(
    EvaluateKeywords in evaluate_job,
    FemKeywords in fem_job,
    FitKeywords in fit_job,
    IdentifyKeywords in identify_job,
    LookupKeywords in lookup_job,
    MappingKeywords in mapping_job,
    ModesKeywords in modes_job,
    MotionKeywords in motion_job,
    SettingsKeywords,
    SimulateKeywords in simulate_job,
    StudyKeywords,
    TableKeywords
);

/// The jobs that write their fits as they go and resume (a Ctrl-C waits for the fits in flight).
pub const RESUMABLE: &[&str] = &[StudyKeywords::NAME, TableKeywords::NAME];

/// [`run_json_with`] without a study's progress or stop.
pub fn run_json(name: &str, keywords: &str) -> Result<String, FitJobError> {
    run_json_with(name, keywords, &|_| {}, None)
}

fn run_one<J: Job>(
    keywords: &str,
    fits: &(dyn Fn(&Progress) + Sync),
    cancel: Option<Arc<AtomicBool>>,
) -> Result<String, FitJobError> {
    let job = J::from_json(keywords).map_err(|e| FitJobError::Input(format!("pbdfit.{}: {e}", J::NAME)))?;
    let prepared = job.prepare(Spelling::Keyword)?;
    let (frames, progress) = (&mut |_: f64, _: &[_], _: &[_]| Ok(()), &mut |_: &_| {});
    let backend = &pbdfit_pbd::CpuBackend;
    let context = &mut Context { backend, choose: &cpu, progress, frames, lines: &mut |_| {}, fits, cancel };
    let report = J::run(prepared, context)?;
    serde_json::to_string(&report).map_err(|e| FitJobError::Internal(format!("JSON output: {e}")))
}
