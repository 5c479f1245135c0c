//! Why a fit or study could not run, by kind: the command line turns `is_input()` into exit code 2,
//! a failed write into exit code 1 with the finished fits kept.

use pbdfit_fem::{FemError, MaterialError};
use pbdfit_mesh::{MarkerError, SceneError};
use pbdfit_pbd::PbdError;
use pbdfit_results::ResultsError;

/// Why a fit job gave no report.
#[derive(Debug, thiserror::Error)]
pub enum FitJobError {
    /// An input refused before any work; the message names the option in the front end's spelling.
    #[error("{0}")]
    Input(String),
    /// The fit itself failed.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// A failure that is pbdfit's, not the input's (a defect).
    #[error("{0}")]
    Internal(String),
}

/// Why a fit or study could not run.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// A study's motion pass in which no fit row could be released: every row failed (the rows and their
    /// reasons are written).
    #[error(
        "motion: none of the {rows} fit rows could be released (the first: {first}); each reason is in the status \
         column of {}",
        path.display()
    )]
    MotionPassFailed {
        /// Rows in the pass.
        rows: usize,
        /// The pass's results file.
        path: std::path::PathBuf,
        /// The first row's status.
        first: String,
    },
    /// A scene could not be loaded or meshed.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A measured marker file could not be read, or a marker lies outside the body.
    #[error(transparent)]
    Markers(#[from] MarkerError),
    /// A measured reference gives nothing to fit: none of its markers moved.
    #[error("{source_file}: no marker moves, so there is nothing to fit (all {markers} observed displacements are 0)")]
    StillMarkers {
        /// The marker file.
        source_file: String,
        /// Markers in it.
        markers: usize,
    },
    /// A marker's sigma so far from the observed displacements that the chi-square `(r / sigma)^2`
    /// leaves f64 (every error 0 at sigma 1e300 m: the fit "converged" at an arbitrary grid point; every
    /// error infinite at 1e-300 m).
    #[error(
        "{source_file}: row {row}: sigma = {sigma:e} m is {ratio:.1e} times the largest observed displacement \
         ({largest:e} m): at that ratio the chi-square (r / sigma)^2 over- or underflows f64 and no fit can tell \
         models apart; give each sigma in m, as the displacements, within 1e-100 to 1e100 times them"
    )]
    SigmaOutOfRange {
        /// The marker file.
        source_file: String,
        /// The marker's row (1 for the first after the header).
        row: usize,
        /// Its sigma (m).
        sigma: f64,
        /// The largest observed displacement (m).
        largest: f64,
        /// `sigma / largest`.
        ratio: f64,
    },
    /// Observed displacements whose size leaves what the error can measure: their squared norms under-
    /// or overflow f64 (4e-303 m and 4e297 m were both reported as "all 0", and a relative error against
    /// 1e297 m is 1 for every model).
    #[error(
        "{source_file}: the observed displacements reach {largest:e} m on a body {size:e} m across: {what}; \
         give them in m (the body's unit), within 1e-100 to 1e3 times its size"
    )]
    MarkersOutOfRange {
        /// The marker file.
        source_file: String,
        /// The largest displacement component (m).
        largest: f64,
        /// The body's size (its bounding box's diagonal, m).
        size: f64,
        /// What is wrong.
        what: &'static str,
    },
    /// Every grid point with a rest state gives an error that is not finite: the error's squared
    /// residuals overflow f64 (markers far smaller than the model's displacements).
    #[error(
        "scene {scene}: no grid point gives a finite error: the squared residuals overflow f64 at every point \
         (are the markers' displacements and sigmas in m, and of the size the model's load gives?)"
    )]
    NoFiniteError {
        /// Scene name.
        scene: String,
    },
    /// A measured reference was given for a compound scene (whose parts are separate bodies).
    #[error("scene {scene} is a compound of {parts} bodies; a measured reference belongs to one body (fit one part)")]
    MeasuredCompound {
        /// The scene set.
        scene: String,
        /// Its parts.
        parts: usize,
    },
    /// The material is outside linear elasticity's range.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// The reference rest state could not be computed.
    #[error("scene {scene}: {reference}: {source}")]
    Reference {
        /// Scene name.
        scene: String,
        /// Which reference, e.g. `linear static FEM`.
        reference: String,
        /// Why.
        source: FemError,
    },
    /// The run was cancelled (pbdfit-study's `RunOptions::cancel`); the finished fits are
    /// written and a new run resumes from them.
    #[error("interrupted after {done} of {total} fits; the finished fits are kept and a new run resumes from them")]
    Interrupted {
        /// Fits finished in this run.
        done: usize,
        /// Fits this run had to do.
        total: usize,
    },
    /// A fit asked to stop (Ctrl-C, [`crate::cancellable`]).
    #[error(transparent)]
    Cancelled(#[from] pbdfit_mesh::cancel::Cancelled),
    /// A `compare` variant name with an atom that does not exist.
    #[error("variant `{name}`: `{atom}` is not a known variant; variants combine these with `+`:\n{known}")]
    UnknownVariant {
        /// The variant name given.
        name: String,
        /// The atom not recognised.
        atom: String,
        /// The known atoms, one per line.
        known: String,
    },
    /// A model name or parameter value is not allowed.
    #[error(transparent)]
    Model(#[from] PbdError),
    /// A search box (or search setting) is not allowed.
    #[error("{0}")]
    Search(#[from] SearchError),
    /// A study file is not valid: names the file and the entry.
    #[error("study {origin}: {entry}: {message}")]
    StudyFile {
        /// File path (or `built-in ...`).
        origin: String,
        /// The entry, e.g. `experiment[2] \`dt\``.
        entry: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// Results already on disk belong to another study setup (model, box, masses).
    #[error(
        "{path} holds results of {found}, but study {origin} asks for {expected}: choose another --out folder or remove the old results"
    )]
    ResultsMismatch {
        /// The file.
        path: String,
        /// What the file holds.
        found: String,
        /// What the study asks for.
        expected: String,
        /// The study file.
        origin: String,
    },
    /// The results folder records other fit-deciding settings (search, grid, min_step, box, reference,
    /// model, precision, masses) than the study's, in its manifest or `summary.json`.
    #[error(
        "results folder {folder} was made with {found} (as its {record} records); study {origin} has {expected}: use another --out or remove the folder"
    )]
    FolderMismatch {
        /// The folder.
        folder: String,
        /// The file that records the folder's settings (`manifest.json`, `summary.json`).
        record: String,
        /// The folder's settings that differ, e.g. `grid 5`.
        found: String,
        /// The study's values of the same settings, e.g. `grid 21`.
        expected: String,
        /// The study file.
        origin: String,
    },
    /// Another run holds the results folder's lock.
    #[error(
        "results folder {folder} is being written by another pbdfit run ({holder}; lock file {lock}): wait for it to finish or use another --out"
    )]
    FolderInUse {
        /// The folder.
        folder: String,
        /// The lock file.
        lock: String,
        /// Who holds it, as the lock file says (`pid 1234`).
        holder: String,
    },
    /// The results folder cannot be created or written (checked before any fit).
    #[error("results folder {path} cannot be written: {source} (is it a file, or not writable? give another --out)")]
    ResultsFolder {
        /// The folder.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A results file could not be read or written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// An engine profile's fitted minimum has no stable rest state as `simulate` solves it (from the
    /// undeformed body), and neither has any earlier point of the search's path.
    #[error(
        "scene {scene}: the fit's minimum {parameters} (error {error}) has no rest state as simulate solves it \
         ({reason}), nor has any earlier point of the search's path: no fit to give at these settings"
    )]
    NoStableMinimum {
        /// Scene name.
        scene: String,
        /// The minimum's parameters, formatted.
        parameters: String,
        /// Its error, formatted.
        error: String,
        /// Why simulate refuses it.
        reason: Box<PbdError>,
    },
    /// No grid point has a rest state.
    #[error("scene {scene}: no grid point has a rest state (first reason: {first})")]
    NoRestState {
        /// Scene name.
        scene: String,
        /// The first failure.
        first: PbdError,
    },
    /// The fit's time limit passed before any grid point reached its rest state: the limit's doing, not
    /// the model's.
    #[error(
        "scene {scene}: the time limit (--max-seconds, Python's max_seconds: {} s) passed before any grid point \
         reached its rest state, so there is no fit: give a longer limit (a fit of this size takes longer than it)",
        pbdfit_mesh::display::number(*seconds)
    )]
    TimeLimitBeforeRest {
        /// Scene name.
        scene: String,
        /// The limit, s.
        seconds: f64,
    },
    /// The reference gives nothing to fit: no free vertex moves, or its displacements are not finite
    /// numbers (a fit would report a "perfect" error of 0).
    #[error("scene {scene}: the {reference} reference {fault}; there is nothing to fit")]
    UnusableReference {
        /// Scene name.
        scene: String,
        /// Which reference, e.g. `linear static`.
        reference: String,
        /// What is wrong with its displacements.
        fault: ReferenceFault,
    },
    /// A fit's grid whose rest states would not fit in memory on this body
    /// ([`check_grid_memory`](crate::check_grid_memory)).
    #[error(
        "scene {scene}: a grid of {points} points ({per_axis} per axis) keeps {needed} of rest states of its \
         {vertices} vertices, but only {available} of memory is available: use a smaller grid (`--grid`, Python's \
         `grid`, a file's `[fit] grid`) or a smaller N"
    )]
    GridTooLarge {
        /// Scene name.
        scene: String,
        /// Grid points.
        points: usize,
        /// Points per axis.
        per_axis: usize,
        /// Vertices of the body.
        vertices: usize,
        /// The memory the grid needs, e.g. `3.2 GB`.
        needed: String,
        /// The memory available, e.g. `1.0 GB`.
        available: String,
    },
    /// A marker fit's noise resampling (`--bootstrap K`) with a number of replicates outside what gives an
    /// interval and ends.
    #[error(
        "{k} bootstrap replicates: give {min} to {max} (a 95 % interval needs at least {min} refits, and 40 or \
         more for its 2.5 % and 97.5 % quantiles to lie inside the refits' range; each refit is a whole fit)"
    )]
    BootstrapReplicates {
        /// The number asked for.
        k: usize,
        /// The fewest allowed.
        min: usize,
        /// The most allowed.
        max: usize,
    },
    /// A scene whose `[reference] measured` markers replace the FEM reference, given to a command that
    /// fits against the FEM (a study, a table, `evaluate`, `lookup --refine`, `settings`): fitting it to
    /// the FEM would answer another question than the scene asks (`pbdfit study` gave kd 0.1787
    /// where `fit` on the same scene gives 0.2738).
    #[error(
        "scene {scene} names measured markers as its reference (`[reference] measured = \"{markers}\"`), and this \
         command fits against an FEM reference: fit the markers with `pbdfit fit --scene {scene}` (Python: \
         `pbdfit.fit(scene)`), or remove `measured` from the scene to fit against the FEM"
    )]
    MeasuredScene {
        /// The scene.
        scene: String,
        /// The markers it names.
        markers: String,
    },
    /// `identify`: at every start (nu from 0 to 0.49) the least-squares 1/E of the linear law is not
    /// positive: the markers, taken together, move against the load (their signs or axes are wrong, they
    /// belong to another load, or their noise is larger than their signal).
    #[error(
        "no positive Young's modulus explains these markers: at every start (nu = 0 to 0.49) they move, taken together, against the scene's load; check their signs, axes and units, that they were measured under this scene's load, and that their noise (sigma) is below their displacements"
    )]
    AgainstTheLoad,
    /// A sheet's shell reference has no solution (its Newton solve failed, the mesh or material is refused).
    #[error("shell reference of {scene} at n = {n}: {source}")]
    Shell {
        /// The scene.
        scene: String,
        /// The resolution.
        n: usize,
        /// Why.
        source: pbdfit_fem::shell::ShellError,
    },
    /// Something failed that the input does not explain.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why a reference's displacements cannot be fitted ([`FitError::UnusableReference`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceFault {
    /// Every free vertex stays where it is.
    #[error(
        "moves no free vertex (the load is zero where the body is free, or every vertex is held): give the scene a \
         load that moves it"
    )]
    NoMotion,
    /// A displacement is infinite or NaN.
    #[error(
        "displaces vertex {vertex} by a non-finite amount ({value}): Young's modulus, density or load overflows \
         f64 (is E tiny, or the load huge?)"
    )]
    NotFinite {
        /// The first such vertex.
        vertex: usize,
        /// One of its non-finite components.
        value: f64,
    },
    /// The displacements are finite, but too small or too large for the error's squared norms.
    #[error(
        "moves the free vertices by up to {largest:e} m, beyond what the error metric can measure in f64 (its \
         squared norms under- or overflow): Young's modulus or the load is extreme"
    )]
    OutOfRange {
        /// The largest displacement component of a free vertex, in m.
        largest: f64,
    },
}

impl FitError {
    /// Whether the user's input explains the failure (exit code 2), rather than the machine or pbdfit
    /// (exit code 1): a results file that cannot be read or written is the machine's (disk full, folder
    /// removed, a folder where the file must go).
    ///
    /// Every variant is named (no wildcard), so a new one must be classified where it is added.
    pub fn is_input(&self) -> bool {
        match self {
            FitError::Scene(_)
            | FitError::MotionPassFailed { .. }
            | FitError::Markers(_)
            | FitError::StillMarkers { .. }
            | FitError::SigmaOutOfRange { .. }
            | FitError::MarkersOutOfRange { .. }
            | FitError::NoFiniteError { .. }
            | FitError::MeasuredCompound { .. }
            | FitError::Material(_)
            | FitError::Reference { .. }
            | FitError::Interrupted { .. }
            | FitError::Cancelled(_)
            | FitError::UnknownVariant { .. }
            | FitError::Model(_)
            | FitError::Search(_)
            | FitError::StudyFile { .. }
            | FitError::ResultsMismatch { .. }
            | FitError::FolderMismatch { .. }
            | FitError::FolderInUse { .. }
            | FitError::ResultsFolder { .. }
            | FitError::NoRestState { .. }
            | FitError::NoStableMinimum { .. }
            | FitError::TimeLimitBeforeRest { .. }
            | FitError::UnusableReference { .. }
            | FitError::GridTooLarge { .. }
            | FitError::BootstrapReplicates { .. }
            | FitError::AgainstTheLoad
            | FitError::MeasuredScene { .. }
            | FitError::Shell { .. } => true,
            FitError::Results(e) => match e {
                ResultsError::Io { .. } => false,
                ResultsError::Format { .. } | ResultsError::Summary { .. } => true,
            },
            FitError::Internal(_) => false,
        }
    }
}

/// A search box or search setting that is not allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// `--box` names a parameter the model lacks.
    #[error("model {model} has no parameter `{name}`: its parameters are {allowed}")]
    UnknownParameter {
        /// Model name.
        model: String,
        /// The name given.
        name: String,
        /// The model's parameters.
        allowed: String,
    },
    /// A box whose lower bound is not below its upper bound, or not finite.
    #[error("box for {name}: lower bound {lower} must be below the upper bound {upper} (both finite)")]
    EmptyBox {
        /// Parameter.
        name: String,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// A search name that does not exist.
    #[error("unknown search `{name}`: the searches are {allowed}")]
    UnknownSearch {
        /// The name given.
        name: String,
        /// The searches there are ([`Search::ALL`](crate::Search::ALL)).
        allowed: String,
    },
    /// A log-scale parameter with a bound <= 0.
    #[error("box for {name}: {name} is searched on a log10 scale, so both bounds must be > 0 (got {lower}:{upper})")]
    NonPositiveLogBound {
        /// Parameter.
        name: String,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// A box reaching outside the values the model allows.
    #[error("box for {name}: {lower}:{upper} leaves the allowed range [{minimum}, {maximum}]{hint}")]
    OutsideAllowed {
        /// Parameter.
        name: String,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
        /// Smallest allowed value.
        minimum: f64,
        /// Largest allowed value.
        maximum: f64,
        /// What would allow it.
        hint: &'static str,
    },
    /// `--box` text that is not `NAME=LOWER:UPPER`.
    #[error("--box `{0}`: expected NAME=LOWER:UPPER, e.g. kd=0:0.5 or alpha_d=1e-12:1e2")]
    Syntax(String),
    /// A search with no or too many dimensions.
    #[error("the search works in 1 to 4 dimensions, not {0}")]
    Dimensions(usize),
    /// A non-positive or non-finite step.
    #[error("{name} = {} must be a finite number > 0", pbdfit_mesh::display::exact(*.value))]
    Step {
        /// `step` or `min_step`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A grid with fewer than 2 points per axis.
    #[error("the grid needs at least 2 points per axis, not {0}")]
    Grid(usize),
}
