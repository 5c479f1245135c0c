//! One motion job, the release test: `pbdfit motion` and Python's `pbdfit.motion` fill a
//! [`MotionKeywords`], checked in one place ([`MotionKeywords::prepare`]) and run into a [`MotionReport`]
//! (`pbdfit motion --json`'s object; [`MotionReport::text`] is what the command prints).
//!
//! The test: the body at rest and undeformed, gravity (and any traction) switched on at `t = 0`, for a
//! window of `periods` periods of the FEM body's first mode (`StaticProblem::modes`). The reference is the
//! FEM body integrated by Newmark's average acceleration (no numerical damping) at a step that divides the
//! model's `dt` and resolves the first mode with at least [`FEM_STEPS_PER_PERIOD`] steps; the model runs
//! its own dynamics (`PbdSystem::run_dynamics`) at its `dt` and `nit`, from the same state. At the model's
//! sample times both are recorded.
//!
//! Measures, from the tracked vertex (the free vertex the FEM's rest state moves most) along its rest
//! displacement's direction, about each body's own rest state ([`measure`]): the frequency from the zero
//! crossings; the logarithmic decrement from the decay of the first mode's share of that motion (both
//! bodies projected on the FEM's first mode shape; a least-squares line through the logarithms of its half
//! cycles' peaks), the damping ratio from it, within [`DAMPING_RATIO_TOLERANCE`]; a signal with fewer than
//! three crossings in the window is reported as not oscillating (overdamped, or slower than the window),
//! never as a frequency. The step must sample the first period at least [`MIN_STEPS_PER_PERIOD`] times and
//! the window span [`MIN_PERIODS`] to [`MAX_PERIODS`] periods; a model whose rest state does not converge
//! (within the window's sweep budget) is not released. The trajectory error has the rest-state fit's form: the
//! mean over the samples and the vertices the FEM moves of `|u_model(t) - u_fem(t)|^2 / |u_fem,rest|^2`.

use std::collections::BTreeMap;

use pbdfit_fem::{
    DynamicSettings, DynamicState, MassMatrix, ReferenceOverrides, RestRule, StaticProblem, TimeIntegrator,
    YoungPoisson,
};
use pbdfit_mesh::{Body, Vec3};
use pbdfit_pbd::{CpuBackend, ModelKind, PbdSystem, RestOptions, SimParams};
use serde::Serialize;

use crate::{FitJobError, Spelling};

/// Samples within this fraction of a signal's largest excursion count as at rest: no zero crossing is
/// taken between them ([`measure`]).
pub const NOISE_FLOOR: f64 = 1e-6;

/// The window when the job does not say, in periods of the FEM's first mode.
pub const DEFAULT_PERIODS: f64 = 5.0;
/// The fewest FEM steps per period of the first mode (Newmark's period error is then below 2e-4).
pub const FEM_STEPS_PER_PERIOD: usize = 100;
/// The most model steps a window may take (refused before the run).
pub const MAX_MODEL_STEPS: usize = 200_000;
/// The most FEM steps a window may take (refused before the run).
pub const MAX_FEM_STEPS: usize = 2_000_000;
/// The fewest model steps (samples of both bodies) per period of the FEM's first mode: a coarser step
/// aliases the motion (at 1.3 samples a period the FEM's 3.72 Hz mode read 1.28 Hz) or hides it (below 2,
/// an undamped body read as overdamped). Refused before the run, naming the period and the step.
pub const MIN_STEPS_PER_PERIOD: f64 = 10.0;
/// The shortest window, in periods of the FEM's first mode: a release from rest first crosses its rest
/// state a quarter period in, so fewer than two periods may not give the three crossings a frequency needs,
/// and a trajectory error over a fraction of a period measures nothing of the motion.
pub const MIN_PERIODS: f64 = 2.0;
/// The longest window, in periods: every period takes at least [`FEM_STEPS_PER_PERIOD`] FEM steps, so a
/// longer window exceeds [`MAX_FEM_STEPS`] on any body (checked where a study file is read, before any body
/// is built).
pub const MAX_PERIODS: f64 = (MAX_FEM_STEPS / FEM_STEPS_PER_PERIOD) as f64;
/// How far the damping ratio estimate ([`measure`]) may be from the body's own: an undamped linear FEM
/// reads at most this in absolute value, and a damping ratio set with `fem_damping` reads within it (tested
/// over the default window on the wall at N = 1 and 2). The reports print it beside every ratio.
pub const DAMPING_RATIO_TOLERANCE: f64 = 2e-3;

/// Checks a window of `periods` periods of the first mode (the command line's and the study file's one
/// check): a finite number within [[`MIN_PERIODS`], [`MAX_PERIODS`]].
pub fn check_periods(periods: f64) -> Result<f64, String> {
    if !periods.is_finite() {
        return Err(format!("{periods}: must be a finite number of periods"));
    }
    if periods < MIN_PERIODS {
        return Err(format!(
            "{}: the window must be at least {MIN_PERIODS} periods of the first mode (a shorter one cannot show \
             the three zero crossings a frequency needs, and its trajectory error measures no motion)",
            pbdfit_mesh::display::number(periods)
        ));
    }
    if periods > MAX_PERIODS {
        return Err(format!(
            "{}: at most {MAX_PERIODS} periods (each period takes at least {FEM_STEPS_PER_PERIOD} FEM steps, and \
             a window at most {MAX_FEM_STEPS})",
            pbdfit_mesh::display::number(periods)
        ));
    }
    Ok(periods)
}

/// A release test, as the command line and Python ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct MotionKeywords {
    /// A built-in scene name or a scene file (one part).
    pub scene: String,
    /// Mesh resolution (default: the scene's own).
    pub n: Option<usize>,
    /// `lumped` or `uniform`.
    pub mass_model: Option<String>,
    /// Reorient an imported mesh's negatively oriented tetrahedra.
    pub fix_orientation: bool,
    /// The body's density and size over the scene's (`density`, `size`).
    #[serde(flatten)]
    pub body: crate::BodyKeywords,
    /// Young's modulus in Pa (default 1e3).
    pub young: Option<f64>,
    /// Poisson ratio (default 0.3).
    pub poisson: Option<f64>,
    /// The FEM law (default: the scene's, else linear).
    pub material: Option<String>,
    /// The model (default `pbd`).
    pub model: Option<String>,
    /// An engine profile's settings by the engine's names.
    pub settings: BTreeMap<String, f64>,
    /// The model's parameters by name (all of them, unless `fit`).
    pub params: BTreeMap<String, f64>,
    /// Fit the model's rest state to the FEM's first (`pbdfit fit`'s defaults) and release at the fitted
    /// parameters: how wrong the motion is at the stiffness that gives the right sag.
    pub fit: bool,
    /// Fit the parameters to the motion instead (the trajectory error, by pattern search in the model's
    /// default box, from the rest-state fit, or from `params`): the best motion the model can give, and what
    /// it costs in sag.
    pub fit_motion: bool,
    /// Time step in s (default 0.01).
    pub dt: Option<f64>,
    /// Solver iterations per step (default 1).
    pub nit: Option<usize>,
    /// PBD models' velocity damping per step in [0, 1) (default 0).
    pub damping: Option<f64>,
    /// The FEM body's own damping, as the damping ratio of its first mode in [0, 1) (default 0: none):
    /// mass-proportional Rayleigh damping `C = a M` with `a = 2 zeta omega_1`, the form of an engine's
    /// linear damping. With it the reference decays as the material would; without it, not at all.
    pub fem_damping: Option<f64>,
    /// Search the model's damping knob for the FEM's decay (the damping ratio of the release), at the
    /// stiffness the other options give: the engine's damping setting where it has one (Jolt's
    /// `linear_damping`, Newton's `k_damp`), else pbdfit's velocity damping per step (`damping`). Where the
    /// model's numerical damping alone exceeds the reference's, no setting can fix it and the report says so.
    pub fit_damping: bool,
    /// The window in periods of the FEM's first mode (default [`DEFAULT_PERIODS`]).
    pub periods: Option<f64>,
    /// How the body is released: `gravity` (default: undeformed at rest, the load switched on at t = 0) or
    /// `unload` (each body at its own loaded rest state, the load switched off at t = 0).
    pub release: Option<String>,
}

/// The parameters' option as `spelling` writes it: `--param` (repeated) on the command line, `params` in
/// Python.
fn params_option(spelling: Spelling) -> &'static str {
    match spelling {
        Spelling::Flag => "--param",
        Spelling::Keyword => "params",
    }
}

/// How a release test starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Undeformed at rest, the load switched on at `t = 0`.
    Gravity,
    /// At the loaded rest state, the load switched off at `t = 0` (held vertices keep their prescribed
    /// displacement).
    Unload,
}

impl Release {
    /// Every release, in the order messages list them.
    pub const ALL: [Release; 2] = [Release::Gravity, Release::Unload];

    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Release::Gravity => "gravity",
            Release::Unload => "unload",
        }
    }

    /// The release called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    /// `gravity or unload`, for messages.
    fn names() -> String {
        Self::ALL.map(|r| r.name()).join(" or ")
    }
}

/// A job checked: the body, both problems, the window.
#[derive(Debug)]
pub struct PreparedMotion {
    job: MotionKeywords,
    body: Body,
    /// The body's size, density and mass, for the report.
    summary: pbdfit_mesh::BodySummary,
    problem: StaticProblem,
    system: PbdSystem,
    release: Release,
    /// The body without its loads (gravity and tractions off), for an `unload` release.
    unloaded: Option<(StaticProblem, PbdSystem)>,
    kind: ModelKind,
    /// The FEM reference (its law; its rest state is the reference's own solve).
    spec: pbdfit_fem::ReferenceSpec,
    material: YoungPoisson,
    dt: f64,
    nit: usize,
    damping: f64,
    fem_damping: f64,
    omega: f64,
    /// The FEM's first mode shape (mass-normalised with the body's lumped masses, zero at held vertices):
    /// the damping estimate projects both bodies' motion on it.
    mode: Vec<Vec3>,
    model_steps: usize,
    substeps: usize,
    /// Warnings about the inputs (masses other than the engine's, with the rest-state difference they
    /// make), for the front end to print.
    pub warnings: Vec<String>,
}

/// The cost of a motion fit: the trajectory error of the model released at a point of its search box (a
/// point without a rest state or whose release leaves f64 costs infinity).
struct MotionCost<'a, F: Fn(&[Vec<Vec3>]) -> f64> {
    prepared: &'a PreparedMotion,
    search_box: &'a crate::SearchBox,
    trajectory: &'a F,
    evaluations: std::cell::Cell<usize>,
}

impl<F: Fn(&[Vec<Vec3>]) -> f64> argmin::core::CostFunction for MotionCost<'_, F> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, t: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        // Ctrl-C (`crate::cancellable`): the search stops here, not after its budget of failed releases.
        pbdfit_mesh::cancel::check()?;
        self.evaluations.set(self.evaluations.get() + 1);
        let p = self.prepared;
        let error = match p.model_release(p.kind, p.damping, &self.search_box.values(t), false) {
            Ok((_, fields)) => (self.trajectory)(&fields),
            Err(_) => f64::INFINITY,
        };
        Ok(if error.is_finite() { error } else { f64::INFINITY })
    }
}

/// Where a motion fit started and what it spent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionFit {
    /// The start: the rest-state fit's parameters (or those given).
    #[serde(serialize_with = "crate::job::ordered_map")]
    pub start: Vec<(String, f64)>,
    /// The start's rest-state error.
    pub start_rest_error: f64,
    /// The start's trajectory error.
    pub start_trajectory_error: f64,
    /// Releases the pattern search simulated.
    pub evaluations: usize,
    /// Wall-clock seconds of the motion fit alone (its pattern search and the release at its result).
    pub seconds: f64,
}

/// Where a damping search started, where it ended, and whether the FEM's decay was reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DampingFit {
    /// The knob turned: the engine's damping setting (`linear_damping`, `k_damp`) or pbdfit's velocity
    /// damping per step (`damping`).
    pub knob: String,
    /// Its unit.
    pub unit: String,
    /// The knob's value before the search.
    pub start: f64,
    /// The value found; where nothing reaches the target, the start (the release is run there).
    pub value: f64,
    /// The FEM's damping ratio: the target.
    pub target_ratio: f64,
    /// The model's damping ratio at the knob's least value (`None`: it does not oscillate there).
    pub least_ratio: Option<f64>,
    /// The model's damping ratio at the value found, or, where nothing reaches the target, at the nearest
    /// end of the knob's range (`None`: it does not oscillate).
    pub ratio: Option<f64>,
    /// Whether the value found matches the target (within 1 % of it, or 1e-4 absolute).
    pub reached: bool,
    /// The answer in words: the setting to use, or why none will do.
    pub verdict: String,
    /// Releases the search simulated.
    pub evaluations: usize,
}

/// Whether `kind` has a knob a damping search can turn: the engine's damping setting, or, for a textbook
/// model (no engine settings), pbdfit's velocity damping. An engine profile without a damping setting
/// (Genesis's PBD) has none.
pub fn has_damping_knob(kind: ModelKind) -> bool {
    kind.def().settings.is_empty() || kind.damping_setting().is_some()
}

/// The knob a damping search turns.
#[derive(Debug, Clone, Copy)]
enum DampingKnob {
    /// pbdfit's velocity damping per step, `v <- (1 - damping) v`, in [0, 1).
    Velocity,
    /// The engine's own damping setting.
    Setting(&'static pbdfit_pbd::SettingSpec),
}

impl DampingKnob {
    fn name(self) -> &'static str {
        match self {
            DampingKnob::Velocity => "damping",
            DampingKnob::Setting(s) => s.name,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            DampingKnob::Velocity => "1",
            DampingKnob::Setting(s) => s.unit,
        }
    }

    /// ` unit` for messages, nothing for a dimensionless knob.
    fn unit_suffix(self) -> String {
        if self.unit() == "1" { String::new() } else { format!(" {}", self.unit()) }
    }

    /// The least and the largest value searched.
    fn range(self) -> (f64, f64) {
        match self {
            DampingKnob::Velocity => (0.0, 0.999),
            DampingKnob::Setting(s) => (s.minimum, if s.maximum_open { s.maximum * (1.0 - 1e-9) } else { s.maximum }),
        }
    }

    /// The model kind and velocity damping with the knob at `value`.
    fn apply(self, kind: ModelKind, damping: f64, value: f64) -> Result<(ModelKind, f64), String> {
        match self {
            DampingKnob::Velocity => Ok((kind, value)),
            DampingKnob::Setting(s) => {
                kind.with_setting(s.name, value).map(|k| (k, damping)).map_err(|e| e.to_string())
            }
        }
    }
}

/// The signals of fields about a centre (module doc): the tracked vertex's excursion along the tracked
/// direction, and the first mode's share of it ([`measure`]).
type Along<'a> = dyn Fn(&[Vec<Vec3>], &[Vec3]) -> (Vec<f64>, Vec<f64>) + 'a;

/// What receives each sample of a release: its time (s), the FEM's displacement field and the model's (m).
pub type FrameSink<'a> = dyn FnMut(f64, &[Vec3], &[Vec3]) -> Result<(), String> + 'a;

/// A model's release: its loaded rest state where asked, and its displacement field at every model step.
type ModelRelease = (Option<Vec<Vec3>>, Vec<Vec<Vec3>>);

/// The measures of one release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionMeasures {
    /// Whether the signal oscillates in the window (at least three zero crossings).
    pub oscillates: bool,
    /// Frequency from the zero crossings (Hz); `None` without oscillation.
    pub frequency: Option<f64>,
    /// Logarithmic decrement per period; `None` without oscillation.
    pub decrement: Option<f64>,
    /// Damping ratio `delta / sqrt(4 pi^2 + delta^2)`; `None` without oscillation.
    pub damping_ratio: Option<f64>,
    /// Zero crossings in the window.
    pub crossings: usize,
    /// The largest excursion from the rest state along the tracked direction (m).
    pub amplitude: f64,
}

/// `pbdfit motion --json`'s object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionReport {
    /// The scene.
    pub scene: String,
    /// The body's size, density and mass.
    pub body: pbdfit_mesh::BodySummary,
    /// Its resolution.
    pub n: usize,
    /// The masses both sides use (`lumped`, `uniform`).
    pub mass_model: &'static str,
    /// The model with its settings.
    pub model: String,
    /// The model's parameters (fitted with `fit`).
    #[serde(serialize_with = "crate::job::ordered_map")]
    pub parameters: Vec<(String, f64)>,
    /// Whether the parameters are a rest-state fit's.
    pub fitted: bool,
    /// With `fit_motion`: the parameters are the motion fit's; where it started and what it spent.
    pub motion_fit: Option<MotionFit>,
    /// How the body was released (`gravity`, `unload`).
    pub release: &'static str,
    /// Young's modulus (Pa), Poisson ratio, FEM law.
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// The FEM law.
    pub material: &'static str,
    /// The model's step (s) and iterations.
    pub dt: f64,
    /// Iterations per step.
    pub nit: usize,
    /// The model's velocity damping per step.
    pub damping: f64,
    /// The FEM's damping ratio in its first mode (mass-proportional Rayleigh; 0: undamped).
    pub fem_damping: f64,
    /// How far a damping ratio measured here may be from the body's own ([`DAMPING_RATIO_TOLERANCE`]).
    pub damping_ratio_tolerance: f64,
    /// With `fit_damping`: the damping search.
    pub damping_fit: Option<DampingFit>,
    /// The FEM's first natural frequency (Hz, modal analysis, lumped mass).
    pub modal_frequency: f64,
    /// The window (s) and its steps: the model's, and the FEM's per model step.
    pub window: f64,
    /// Model steps.
    pub model_steps: usize,
    /// FEM (Newmark) steps per model step.
    pub fem_substeps: usize,
    /// The tracked vertex.
    pub tracked_vertex: usize,
    /// The tracked direction (unit): its FEM rest displacement's.
    pub tracked_direction: [f64; 3],
    /// The level each body settles at along that direction (m): FEM, model (the loaded rest states for a
    /// `gravity` release, the undeformed state for `unload`).
    pub rest_levels: [f64; 2],
    /// The FEM's measures.
    pub fem: MotionMeasures,
    /// The model's measures.
    pub model_measures: MotionMeasures,
    /// The rest-state error of the model (the fit's error: mean over the moved vertices of `|u - u_fem|^2 /
    /// |u_fem|^2`).
    pub rest_error: f64,
    /// The trajectory error over the window (module doc).
    pub trajectory_error: f64,
    /// Sample times (s).
    pub times: Vec<f64>,
    /// The tracked vertex's displacement over time, FEM.
    pub fem_track: Vec<[f64; 3]>,
    /// The tracked vertex's displacement over time, model.
    pub model_track: Vec<[f64; 3]>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// pbdfit's version.
    pub pbdfit_version: &'static str,
}

/// The zero crossings of `s` (sample index after it, interpolated time) between samples of opposite
/// sign, each beyond [`NOISE_FLOOR`] times the largest excursion (a body creeping to rest within its
/// solver's tolerance crosses nothing), linearly interpolated between the two.
fn zero_crossings(times: &[f64], s: &[f64]) -> Vec<(usize, f64)> {
    let amplitude = s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let floor = NOISE_FLOOR * amplitude;
    let mut crossings = Vec::new();
    let mut last: Option<usize> = None;
    for i in 0..s.len() {
        if s[i].abs() <= floor {
            continue;
        }
        if let Some(j) = last
            && (s[j] > 0.0) != (s[i] > 0.0)
        {
            let f = s[j] / (s[j] - s[i]);
            crossings.push((i, times[j] + f * (times[i] - times[j])));
        }
        last = Some(i);
    }
    crossings
}

/// The decay rate `sigma` (1/s) of `q`'s envelope `exp(-sigma t)`: a least-squares line through the
/// logarithm of each half cycle's peak (between consecutive crossings) against its time, each peak
/// located by a parabola through the largest sample and its neighbours (a sampled peak alone is up to
/// `1 - cos(pi / steps a period)` low, which varies from peak to peak). `None` with fewer than two peaks.
fn decay_rate(times: &[f64], q: &[f64], crossings: &[(usize, f64)]) -> Option<f64> {
    let mut points = Vec::new();
    for w in crossings.windows(2) {
        let (a, b) = (w[0].0, w[1].0);
        let Some(i) = (a..b).max_by(|&x, &y| q[x].abs().total_cmp(&q[y].abs())) else { continue };
        let (mut peak, mut time) = (q[i].abs(), times[i]);
        if i > 0 && i + 1 < q.len() {
            let (ym, y0, yp) = (q[i - 1].abs(), q[i].abs(), q[i + 1].abs());
            let curvature = ym - 2.0 * y0 + yp;
            if curvature < 0.0 {
                let p = (0.5 * (ym - yp) / curvature).clamp(-0.5, 0.5);
                peak = y0 - 0.25 * (ym - yp) * p;
                let h = if p >= 0.0 { times[i + 1] - times[i] } else { times[i] - times[i - 1] };
                time += p * h;
            }
        }
        if peak > 0.0 {
            points.push((time, peak.ln()));
        }
    }
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (mt, my) = points.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + t / n, b + y / n));
    let (sty, stt) = points.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + (t - mt) * (y - my), b + (t - mt).powi(2)));
    (stt > 0.0).then(|| -sty / stt)
}

/// The measures of a release (module doc): the frequency and crossings from `s`, the tracked vertex's
/// excursion about its rest level along the tracked direction, sampled at `times`; the decay from `q`, the
/// first mode's share of that excursion (the body's motion projected on the FEM's first mode shape), so
/// that higher modes, which the release also excites and which ring at other rates, do not read as decay:
/// an undamped body reads a damping ratio within [`DAMPING_RATIO_TOLERANCE`] of 0.
pub fn measure(times: &[f64], s: &[f64], q: &[f64]) -> MotionMeasures {
    let amplitude = s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let crossings = zero_crossings(times, s);
    let count = crossings.len();
    let not_oscillating = MotionMeasures {
        oscillates: false,
        frequency: None,
        decrement: None,
        damping_ratio: None,
        crossings: count,
        amplitude,
    };
    if count < 3 {
        return not_oscillating;
    }
    let span = crossings[count - 1].1 - crossings[0].1;
    let frequency = (count - 1) as f64 / (2.0 * span);
    // The decay of the first mode's share, over its own half cycles and at its own frequency.
    let modal = zero_crossings(times, q);
    let decay = (modal.len() >= 3).then(|| decay_rate(times, q, &modal)).flatten();
    let Some(sigma) = decay else {
        return not_oscillating;
    };
    let modal_frequency = (modal.len() - 1) as f64 / (2.0 * (modal[modal.len() - 1].1 - modal[0].1));
    // sigma = zeta omega_n and the damped frequency omega_d = omega_n sqrt(1 - zeta^2): the decrement per
    // period is sigma / f_d, and zeta = delta / sqrt(4 pi^2 + delta^2).
    let decrement = sigma / modal_frequency;
    let ratio = decrement / (4.0 * std::f64::consts::PI.powi(2) + decrement * decrement).sqrt();
    MotionMeasures {
        oscillates: true,
        frequency: Some(frequency),
        decrement: Some(decrement),
        damping_ratio: Some(ratio),
        crossings: count,
        amplitude,
    }
}

impl MotionKeywords {
    /// The keywords' names (Python's spelling).
    pub fn names() -> Vec<String> {
        crate::keyword_names::<MotionKeywords>()
    }

    /// The job from a JSON object of its keywords (Python's call), unknown keywords refused.
    pub fn from_json(text: &str) -> Result<Self, String> {
        crate::keywords_from_json(text)
    }

    /// Checks the job (naming a refused option in `spelling`): the model, the window's budget (before any
    /// step), and builds both problems.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedMotion, FitJobError> {
        let input = FitJobError::Input;
        let material = YoungPoisson::new(self.young.unwrap_or(1e3), self.poisson.unwrap_or(0.3))
            .map_err(|e| input(e.to_string()))?;
        let kind: ModelKind = self
            .model
            .as_deref()
            .unwrap_or("pbd")
            .parse()
            .map_err(|e| input(format!("{}: {e}", spelling.name("model"))))?;
        let settings: Vec<(String, f64)> = self.settings.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let kind = kind.with_settings(&settings).map_err(|e| input(format!("{}: {e}", spelling.name("settings"))))?;
        if !kind.has_projection() {
            return Err(input(format!(
                "model {kind}: its rest state is a Newton solve; the release test runs the projection models and \
                 engine profiles"
            )));
        }
        let dt = self.dt.unwrap_or(0.01);
        if !(dt.is_finite() && dt > 0.0) {
            return Err(input(format!("{} = {dt}: must be a finite number > 0", spelling.name("dt"))));
        }
        let nit = self.nit.unwrap_or(1);
        if nit == 0 {
            return Err(input(format!("{} must be at least 1", spelling.name("nit"))));
        }
        let damping = self.damping.unwrap_or(0.0);
        if !(0.0..1.0).contains(&damping) {
            return Err(input(format!("{} = {damping}: must be in [0, 1)", spelling.name("damping"))));
        }
        let fem_damping = self.fem_damping.unwrap_or(0.0);
        if !(0.0..1.0).contains(&fem_damping) {
            return Err(input(format!(
                "{} = {fem_damping}: the FEM's damping ratio must be in [0, 1)",
                spelling.name("fem_damping")
            )));
        }
        if self.fit_damping {
            if fem_damping == 0.0 {
                return Err(input(format!(
                    "{}: the FEM reference does not damp (give {} as its first mode's damping ratio, e.g. 0.02); \
                     the release report already says how much the model damps without a target",
                    spelling.name("fit_damping"),
                    spelling.name("fem_damping")
                )));
            }
            if !has_damping_knob(kind) {
                return Err(input(format!(
                    "{}: model {kind} has no damping setting (the engine damps only numerically)",
                    spelling.name("fit_damping")
                )));
            }
        }
        let release = match self.release.as_deref() {
            None => Release::Gravity,
            Some(name) => Release::parse(name).ok_or_else(|| {
                input(format!("{} = {name}: expected {}", spelling.name("release"), Release::names()))
            })?,
        };
        let periods = check_periods(self.periods.unwrap_or(DEFAULT_PERIODS))
            .map_err(|e| input(format!("{} = {e}", spelling.name("periods"))))?;
        let (set, _) = crate::keywords::load_scene(
            &self.scene,
            self.fix_orientation,
            self.mass_model.as_deref(),
            self.body,
            Some(kind),
            spelling,
        )?;
        if set.is_compound() {
            return Err(input(format!("scene {}: the release test takes one part at a time", set.name())));
        }
        let n = set.resolution(self.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
        let reference = crate::ReferenceKeywords { material: self.material.clone(), ..Default::default() };
        let overrides = ReferenceOverrides::from_table(&reference.table())
            .map_err(|e| input(format!("the reference options: {e}")))?;
        let scene = &set.scenes()[0];
        let spec = crate::reference_spec(scene, &overrides).map_err(|e| input(e.to_string()))?;
        let body = scene.body(n).map_err(|e| input(e.to_string()))?;
        if !body.obstacles.is_empty() {
            return Err(input(format!("scene {} has obstacles: the release test has no contact yet", scene.name)));
        }
        let problem = StaticProblem::new(&body)
            .and_then(|p| p.with_masses(body.masses.clone()))
            .map_err(|e| input(format!("FEM problem of {} at N = {n}: {e}", scene.name)))?;
        let modes = problem
            .modes(spec.material, material, MassMatrix::Lumped, 1)
            .map_err(|e| input(format!("the first mode of {}: {e}", scene.name)))?;
        let omega = modes.angular[0];
        let mode = modes.shapes.into_iter().next().unwrap_or_default();
        let period = std::f64::consts::TAU / omega;
        if period / dt < MIN_STEPS_PER_PERIOD {
            return Err(input(format!(
                "{} = {dt} s is too coarse for the release test: the FEM's first mode has a period of {period:.4e} s \
                 ({:.4e} Hz), which a step of {dt} s samples {:.3} times; the test needs at least \
                 {MIN_STEPS_PER_PERIOD} steps a period (dt <= {:.4e} s), since a coarser sampling aliases the motion",
                spelling.name("dt"),
                1.0 / period,
                period / dt,
                period / MIN_STEPS_PER_PERIOD
            )));
        }
        let window = periods * period;
        let model_steps = (window / dt).ceil();
        let substeps = (dt / (period / FEM_STEPS_PER_PERIOD as f64)).ceil().max(1.0);
        if model_steps > MAX_MODEL_STEPS as f64 || model_steps * substeps > MAX_FEM_STEPS as f64 {
            return Err(input(format!(
                "{} = {periods}: a window of {window:.3e} s takes {model_steps:.0} model steps of {dt} s and \
                 {:.0} FEM steps (at most {MAX_MODEL_STEPS} and {MAX_FEM_STEPS}); the first period is {period:.3e} s",
                spelling.name("periods"),
                model_steps * substeps
            )));
        }
        let given = self.mass_model.as_deref().and_then(|m| m.parse().ok());
        let option = spelling.name("mass_model");
        let warnings = crate::mass_model_warning(&set, crate::Settings::new(dt, n, nit, kind), None, given, &option)
            .into_iter()
            .collect();
        let system = PbdSystem::new(&body);
        let unloaded = match release {
            Release::Gravity => None,
            Release::Unload => {
                let free =
                    Body { gravity: Vec3::zeros(), forces: vec![Vec3::zeros(); body.forces.len()], ..body.clone() };
                let problem = StaticProblem::new(&free)
                    .and_then(|p| p.with_masses(free.masses.clone()))
                    .map_err(|e| input(format!("FEM problem of {} unloaded: {e}", scene.name)))?;
                Some((problem, PbdSystem::new(&free)))
            }
        };
        Ok(PreparedMotion {
            job: self.clone(),
            body,
            summary: scene.summary(),
            problem,
            system,
            release,
            unloaded,
            kind,
            spec,
            material,
            dt,
            nit,
            damping,
            fem_damping,
            omega,
            mode,
            model_steps: model_steps as usize,
            substeps: substeps as usize,
            warnings,
        })
    }
}

impl PreparedMotion {
    /// The body both sides release.
    pub fn body(&self) -> &Body {
        &self.body
    }

    /// The model's parameters: fitted (`fit`) or as given (every one named).
    fn parameters(&self, spelling: Spelling) -> Result<(Vec<f64>, bool), FitJobError> {
        let names: Vec<&str> = self.kind.parameters().iter().map(|p| p.name).collect();
        if self.job.fit {
            // The rest-state fit sets every parameter: a value given beside it would be ignored.
            if let Some((name, value)) = self.job.params.iter().next() {
                return Err(FitJobError::Input(format!(
                    "{} {name}={value} with {}: the rest-state fit sets every parameter of model {}, so a given \
                     value would be ignored; give the parameters without {} to release at them (with {} to fit \
                     the motion from them)",
                    params_option(spelling),
                    spelling.name("fit"),
                    self.kind,
                    spelling.name("fit"),
                    spelling.name("fit_motion")
                )));
            }
            let fit = crate::FitKeywords {
                scene: self.job.scene.clone(),
                n: Some(self.body.n),
                mass_model: self.job.mass_model.clone(),
                fix_orientation: self.job.fix_orientation,
                body: self.job.body,
                young: Some(self.material.young()),
                poisson: Some(self.material.poisson()),
                dt: Some(self.dt),
                nit: Some(self.nit),
                model: self.job.model.clone(),
                settings: self.job.settings.clone(),
                reference: crate::ReferenceKeywords { material: self.job.material.clone(), ..Default::default() },
                ..Default::default()
            };
            let outcome = fit.job()?.prepare(spelling)?.run(&CpuBackend)?;
            return Ok((outcome.report.parameters.iter().map(|(_, v)| *v).collect(), true));
        }
        for given in self.job.params.keys() {
            if !names.contains(&given.as_str()) {
                return Err(FitJobError::Input(format!(
                    "{}: model {} has no parameter {given} (its parameters: {})",
                    params_option(spelling),
                    self.kind,
                    names.join(", ")
                )));
            }
        }
        let missing: Vec<&str> = names.iter().copied().filter(|n| !self.job.params.contains_key(*n)).collect();
        if !missing.is_empty() {
            return Err(FitJobError::Input(format!(
                "{}: give every parameter of model {} ({}), or {} to fit them",
                params_option(spelling),
                self.kind,
                missing.join(", "),
                spelling.name("fit")
            )));
        }
        Ok((names.iter().map(|n| self.job.params[*n]).collect(), false))
    }

    /// The model's release at `values`: its displacement field at every model step (the start included)
    /// and, where `with_rest` is set or the release starts from it (`unload`), its own loaded rest state. A
    /// motion fit's gravity releases need no rest state: the search does not solve one per point.
    fn model_release(
        &self,
        kind: ModelKind,
        damping: f64,
        values: &[f64],
        with_rest: bool,
    ) -> Result<ModelRelease, String> {
        let model = kind.with(values).map_err(|e| e.to_string())?;
        let params = SimParams { damping, ..SimParams::new(self.dt, self.nit, model) };
        let rest = if with_rest || self.unloaded.is_some() {
            // Within the window's own budget: as many projection sweeps as the longest window's steps take.
            let options = RestOptions { max_sweeps: MAX_MODEL_STEPS * self.nit, ..RestOptions::default() };
            let state =
                self.system.rest_state(&params, &options, None).map_err(|e| format!("the model's rest state: {e}"))?;
            if !state.converged {
                return Err(format!(
                    "the model's rest state did not converge within {} projection sweeps ({MAX_MODEL_STEPS} steps of \
                     {} iterations; relative residual {:.3e}, needed {:e}): the release would start from, or settle \
                     about, a state that is not at rest, and its measures would mean nothing; a larger dt or more \
                     iterations let the model reach rest",
                    state.iterations, self.nit, state.residual, options.tolerance
                ));
            }
            Some(state.displacements)
        } else {
            None
        };
        let (system, start) = match (&self.unloaded, &rest) {
            (Some((_, system)), Some(rest)) => (system, Some(rest.as_slice())),
            _ => (&self.system, None),
        };
        let mut fields = Vec::with_capacity(self.model_steps + 1);
        system
            .run_dynamics_from(&params, start, self.model_steps, 1, |_, d| {
                // Ctrl-C (`crate::cancellable`): the release stops at this step.
                pbdfit_mesh::cancel::check()?;
                fields.push(d.u.clone());
                Ok(())
            })
            .map_err(|e: pbdfit_mesh::cancel::Cancelled| format!("the model's release: {e}"))?;
        Ok((rest, fields))
    }

    /// The damping search: the knob's value whose release decays as the FEM's does (damping ratio within
    /// 1 %), by bisection on a log scale between the knob's least value and its largest (the ratio grows
    /// with the knob; a release that no longer oscillates counts as over-damped). Where the least value
    /// already damps more than the FEM, or the largest less, the search says so instead of a value.
    fn damping_search(
        &self,
        knob: DampingKnob,
        values: &[f64],
        fem: &MotionMeasures,
        centre: &dyn Fn(&[Vec3]) -> Vec<Vec3>,
        along: &Along<'_>,
        times: &[f64],
    ) -> Result<DampingFit, FitJobError> {
        let input = FitJobError::Input;
        let Some(target) = fem.damping_ratio else {
            return Err(input(
                "the FEM's release does not oscillate in the window: no damping ratio to fit (a longer window, or \
                 less FEM damping)"
                    .to_string(),
            ));
        };
        let start = match knob {
            DampingKnob::Velocity => self.damping,
            DampingKnob::Setting(spec) => self.kind.damping_setting().map_or(spec.default, |(_, v)| v),
        };
        let evaluations = std::cell::Cell::new(0usize);
        // The model's damping ratio with the knob at `value` (infinity: it does not oscillate).
        let ratio = |value: f64| -> Result<f64, FitJobError> {
            evaluations.set(evaluations.get() + 1);
            let (kind, damping) = knob.apply(self.kind, self.damping, value).map_err(input)?;
            let (rest, fields) = self.model_release(kind, damping, values, true).map_err(input)?;
            let (s, q) = along(&fields, &centre(&rest.expect("asked for")));
            let m = measure(times, &s, &q);
            Ok(m.damping_ratio.unwrap_or(f64::INFINITY))
        };
        let close = |r: f64| (r - target).abs() <= (0.01 * target).max(1e-4);
        let (least, largest) = knob.range();
        let name = knob.name();
        let least_ratio = ratio(least)?;
        let finite = |r: f64| r.is_finite().then_some(r);
        let fit = |value: f64, r: f64, reached: bool, verdict: String| DampingFit {
            knob: name.to_string(),
            unit: knob.unit().to_string(),
            start,
            value,
            target_ratio: target,
            least_ratio: finite(least_ratio),
            ratio: finite(r),
            reached,
            verdict,
            evaluations: evaluations.get(),
        };
        if close(least_ratio) {
            return Ok(fit(least, least_ratio, true, format!("{name} = {least}: the model's own damping matches")));
        }
        if least_ratio > target {
            return Ok(fit(
                start,
                least_ratio,
                false,
                format!(
                    "no {name} fixes it: at {name} = {least} the model already damps a damping ratio of {}, above the \
                     FEM's {target:.4e}; its numerical damping alone is too much (a smaller dt or more iterations \
                     lower it)",
                    finite(least_ratio).map_or("(no oscillation)".to_string(), |r| format!("{r:.4e}"))
                ),
            ));
        }
        let largest_ratio = ratio(largest)?;
        if largest_ratio < target && !close(largest_ratio) {
            return Ok(fit(
                start,
                largest_ratio,
                false,
                format!("no {name} in its range damps enough: {name} = {largest} gives {largest_ratio:.4e}"),
            ));
        }
        // Bisection on a log scale from a value too small to matter (the least value may be 0).
        let (mut hi, mut hi_ratio) = (largest, largest_ratio);
        let mut lo = (largest * 1e-9).max(least);
        let mut lo_ratio = ratio(lo)?;
        if lo_ratio >= target {
            // The answer lies below that small value: bisect [least, it].
            (hi, hi_ratio) = (lo, lo_ratio);
            (lo, lo_ratio) = (least, least_ratio);
        }
        let mid = |lo: f64, hi: f64| if lo > 0.0 { (lo * hi).sqrt() } else { 0.5 * (lo + hi) };
        for _ in 0..80 {
            if close(lo_ratio) || close(hi_ratio) || hi - lo <= 1e-12 * hi {
                break;
            }
            let m = mid(lo, hi);
            let r = ratio(m)?;
            if r < target {
                (lo, lo_ratio) = (m, r);
            } else {
                (hi, hi_ratio) = (m, r);
            }
        }
        let (value, r) =
            if (lo_ratio - target).abs() <= (hi_ratio - target).abs() { (lo, lo_ratio) } else { (hi, hi_ratio) };
        let reached = close(r);
        let verdict = if reached {
            format!("{name} = {value:.6e}{}: the model decays as the FEM does", knob.unit_suffix())
        } else {
            format!(
                "{name} = {value:.6e}{} comes closest (damping ratio {}, the FEM's {target:.4e}): the ratio jumps there",
                knob.unit_suffix(),
                finite(r).map_or("(no oscillation)".to_string(), |r| format!("{r:.4e}"))
            )
        };
        Ok(fit(value, r, reached, verdict))
    }

    /// Runs the release test (and, with `fit_motion` or `fit_damping`, the fits first).
    pub fn run(self, spelling: Spelling) -> Result<MotionReport, FitJobError> {
        self.run_with_frames(spelling, &mut |_, _, _| Ok(()))
    }

    /// [`Self::run`], handing every sample of the final release to `frames`: its time (s), the FEM's
    /// displacement field and the model's (m), in order; an error from `frames` stops the job with it.
    pub fn run_with_frames(self, spelling: Spelling, frames: &mut FrameSink) -> Result<MotionReport, FitJobError> {
        let start = std::time::Instant::now();
        let input = FitJobError::Input;
        let (start_values, fitted) = self.parameters(spelling)?;
        let scene = self.body.scene.clone();
        // The FEM's rest state (static).
        let fem_rest = self
            .spec
            .displacements(&self.problem, self.material, self.dt)
            .map_err(|e| input(format!("FEM rest state of {scene}: {e}")))?;
        let moved = crate::moved_vertices(&fem_rest, &self.body.held);
        // The free vertex the load moves most (a held vertex's prescribed motion is no response).
        let Some(&tracked) = moved.iter().max_by(|&&a, &&b| fem_rest[a].norm().total_cmp(&fem_rest[b].norm())) else {
            return Err(input(format!("scene {scene}: the load moves no free vertex, so nothing is released")));
        };
        let direction = fem_rest[tracked].normalize();
        // The FEM release: Newmark at dt / substeps, sampled every model step. Gravity: from undeformed rest,
        // loaded, about the loaded rest state. Unload: from the loaded rest state, unloaded, about the
        // undeformed state (held vertices at their prescribed displacement).
        let fem_dt = self.dt / self.substeps as f64;
        let settings = DynamicSettings {
            integrator: TimeIntegrator::Newmark,
            rayleigh_mass: 2.0 * self.fem_damping * self.omega,
            stop: RestRule::Time((self.model_steps * self.substeps) as f64 * fem_dt),
            ..DynamicSettings::to_rest(fem_dt)
        };
        let (fem_problem, fem_start) = match &self.unloaded {
            None => (&self.problem, None),
            Some((problem, _)) => (
                problem,
                Some(pbdfit_fem::DynamicStart {
                    displacements: fem_rest.clone(),
                    velocities: vec![Vec3::zeros(); fem_rest.len()],
                }),
            ),
        };
        let mut fem_fields: Vec<Vec<Vec3>> = Vec::with_capacity(self.model_steps + 1);
        let (substeps, samples) = (self.substeps, self.model_steps + 1);
        fem_problem
            .integrate(
                self.spec.material,
                self.material,
                settings,
                fem_start.as_ref(),
                &mut |_| {},
                Some(&mut |s: &DynamicState| {
                    if s.steps.is_multiple_of(substeps) && fem_fields.len() < samples {
                        fem_fields.push(s.displacements());
                    }
                }),
            )
            .map_err(|e| input(format!("the FEM release of {scene}: {e}")))?;
        let trajectory = |model_fields: &[Vec<Vec3>]| -> f64 {
            let samples = fem_fields.len().min(model_fields.len());
            let mut sum = 0.0;
            for j in 1..samples {
                sum += moved
                    .iter()
                    .map(|&v| (model_fields[j][v] - fem_fields[j][v]).norm_squared() / fem_rest[v].norm_squared())
                    .sum::<f64>()
                    / moved.len().max(1) as f64;
            }
            sum / (samples - 1).max(1) as f64
        };
        // The release at the start's parameters; with `fit_motion`, the pattern search on the trajectory
        // error from there.
        let (start_rest, start_fields) =
            self.model_release(self.kind, self.damping, &start_values, true).map_err(input)?;
        let start_rest = start_rest.expect("asked for");
        let start_trajectory = trajectory(&start_fields);
        let start_rest_error = crate::relative_error(&start_rest, &fem_rest, &moved);
        let motion_start = std::time::Instant::now();
        let (values, model_rest, model_fields, motion_evaluations) = if self.job.fit_motion {
            let search_box = crate::SearchBox::default_for(self.kind);
            let cost = MotionCost {
                prepared: &self,
                search_box: &search_box,
                trajectory: &trajectory,
                evaluations: std::cell::Cell::new(0),
            };
            let dimensions = search_box.dimensions();
            let solver = crate::PatternSearch::new(vec![0.0; dimensions], vec![1.0; dimensions], 0.05, 1e-3)
                .map_err(|e| FitJobError::Internal(format!("motion fit: {e}")))?;
            let t0 = search_box.unit(&start_values);
            let result = argmin::core::Executor::new(cost, solver)
                .configure(|s| s.param(t0.clone()).max_iters(500))
                .timer(false)
                .run()
                .map_err(|e| FitJobError::Internal(format!("motion fit: {e}")))?;
            let t = argmin::core::State::get_best_param(&result.state).cloned().unwrap_or(t0);
            let evaluations = result.problem.problem.as_ref().map_or(0, |c| c.evaluations.get());
            let values = search_box.values(&t);
            let (rest, fields) = self.model_release(self.kind, self.damping, &values, true).map_err(input)?;
            (values, rest.expect("asked for"), fields, Some(evaluations))
        } else {
            (start_values.clone(), start_rest, start_fields, None)
        };
        let motion_seconds = motion_start.elapsed().as_secs_f64();
        let fem_centre = match self.release {
            Release::Gravity => fem_rest.clone(),
            Release::Unload => self.body.prescribed.clone(),
        };
        let model_centre = |rest: &[Vec3]| match self.release {
            Release::Gravity => rest.to_vec(),
            Release::Unload => self.body.prescribed.clone(),
        };
        let times: Vec<f64> = (0..fem_fields.len()).map(|j| j as f64 * self.dt).collect();
        // The first mode's share of the tracked vertex's excursion: the modal coordinate `phi^T M (u - c)`
        // times the mode's own excursion there (m).
        let masses = &self.body.masses;
        let share = self.mode.get(tracked).map_or(0.0, |p| p.dot(&direction));
        let along = |fields: &[Vec<Vec3>], rest: &[Vec3]| -> (Vec<f64>, Vec<f64>) {
            let samples = fields.len().min(times.len());
            let s = fields[..samples].iter().map(|u| (u[tracked] - rest[tracked]).dot(&direction)).collect();
            let q = fields[..samples]
                .iter()
                .map(|u| {
                    let coordinate: f64 =
                        self.mode.iter().enumerate().map(|(v, p)| masses[v] * p.dot(&(u[v] - rest[v]))).sum();
                    coordinate * share
                })
                .collect();
            (s, q)
        };
        let (s, q) = along(&fem_fields, &fem_centre);
        let fem = measure(&times, &s, &q);
        // With `fit_damping`: the damping knob searched for the FEM's damping ratio, at these parameters.
        let (kind, damping, model_rest, model_fields, damping_fit) = if self.job.fit_damping {
            let knob = match self.kind.damping_setting() {
                Some((spec, _)) => DampingKnob::Setting(spec),
                None => DampingKnob::Velocity,
            };
            let found = self.damping_search(knob, &values, &fem, &model_centre, &along, &times)?;
            let (kind, damping) = knob.apply(self.kind, self.damping, found.value).map_err(input)?;
            let (rest, fields) = self.model_release(kind, damping, &values, true).map_err(input)?;
            (kind, damping, rest.expect("asked for"), fields, Some(found))
        } else {
            (self.kind, self.damping, model_rest, model_fields, None)
        };
        let rest_error = crate::relative_error(&model_rest, &fem_rest, &moved);
        let trajectory_error = trajectory(&model_fields);
        let samples = fem_fields.len().min(model_fields.len());
        let times = times[..samples].to_vec();
        let model_centre = model_centre(&model_rest);
        let (s, q) = along(&model_fields[..samples], &model_centre);
        let model_measures = measure(&times, &s, &q);
        for j in 0..samples {
            frames(times[j], &fem_fields[j], &model_fields[j]).map_err(input)?;
        }
        let xyz = |u: &Vec3| [u.x, u.y, u.z];
        let names = || self.kind.parameters().iter().map(|p| p.name.to_string());
        Ok(MotionReport {
            scene,
            body: self.summary.clone(),
            n: self.body.n,
            mass_model: self.body.mass_model.name(),
            model: kind.spec(),
            parameters: names().zip(values).collect(),
            fitted,
            motion_fit: motion_evaluations.map(|evaluations| MotionFit {
                start: names().zip(start_values).collect(),
                start_rest_error,
                start_trajectory_error: start_trajectory,
                evaluations,
                seconds: motion_seconds,
            }),
            release: self.release.name(),
            young: self.material.young(),
            poisson: self.material.poisson(),
            material: self.spec.material.name(),
            dt: self.dt,
            nit: self.nit,
            damping,
            fem_damping: self.fem_damping,
            damping_ratio_tolerance: DAMPING_RATIO_TOLERANCE,
            damping_fit,
            modal_frequency: self.omega / std::f64::consts::TAU,
            window: self.model_steps as f64 * self.dt,
            model_steps: self.model_steps,
            fem_substeps: self.substeps,
            tracked_vertex: tracked,
            tracked_direction: xyz(&direction),
            rest_levels: [fem_centre[tracked].dot(&direction), model_centre[tracked].dot(&direction)],
            fem,
            model_measures,
            rest_error,
            trajectory_error,
            times,
            fem_track: fem_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            model_track: model_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            seconds: start.elapsed().as_secs_f64(),
            pbdfit_version: env!("CARGO_PKG_VERSION"),
        })
    }
}

fn describe(m: &MotionMeasures) -> String {
    match (m.frequency, m.decrement, m.damping_ratio) {
        (Some(f), Some(d), Some(z)) => {
            format!(
                "frequency {f:.6e} Hz, logarithmic decrement {d:.4e} (damping ratio {z:.4e} +- {:e}), {} zero crossings",
                DAMPING_RATIO_TOLERANCE, m.crossings
            )
        }
        _ => format!(
            "no oscillation in the window ({} zero crossings: overdamped, or slower than the window)",
            m.crossings
        ),
    }
}

impl MotionReport {
    /// The summary `pbdfit motion` prints.
    pub fn text(&self) -> String {
        let parameters: Vec<String> =
            self.parameters.iter().map(|(k, v)| format!("{k} = {}", pbdfit_mesh::display::number(*v))).collect();
        let mut out = pbdfit_mesh::BodySummary::line(std::slice::from_ref(&self.body)) + "\n";
        out.push_str(&format!(
            "scene {} (N = {}, {} masses): {} release over {:.4e} s ({} model steps of {} s, {} Newmark steps each \
             for the FEM)\n",
            self.scene,
            self.n,
            self.mass_model,
            self.release,
            self.window,
            self.model_steps,
            self.dt,
            self.fem_substeps
        ));
        out.push_str(&format!(
            "  FEM {} law, E = {} Pa, nu = {}{}: first mode {:.6e} Hz; release: {}\n",
            self.material,
            pbdfit_mesh::display::number(self.young),
            pbdfit_mesh::display::number(self.poisson),
            if self.fem_damping > 0.0 { format!(", damping ratio {}", self.fem_damping) } else { String::new() },
            self.modal_frequency,
            describe(&self.fem)
        ));
        // pbdfit's velocity damping acts on the textbook models only; an engine profile damps by its own
        // setting (Jolt's `linear_damping`, Newton's `k_damp`), which the model's spec names.
        let damping = match self.model.parse::<pbdfit_pbd::ModelKind>() {
            Ok(kind) if kind.is_engine_profile() => match kind.damping_setting() {
                // A dimensionless setting's unit is written `1` in its spec: no unit printed.
                Some((spec, value)) => match spec.unit {
                    "" | "1" => format!("{} {}", spec.name, pbdfit_mesh::display::number(value)),
                    unit => format!("{} {} {unit}", spec.name, pbdfit_mesh::display::number(value)),
                },
                None => "no damping setting".to_string(),
            },
            _ => format!("velocity damping {}", pbdfit_mesh::display::number(self.damping)),
        };
        out.push_str(&format!(
            "  model {} ({}{}), nit = {}, {damping}: release: {}\n",
            self.model,
            parameters.join(", "),
            match (&self.motion_fit, self.fitted) {
                (Some(_), _) => ", fitted to the motion",
                (None, true) => ", fitted to the rest state",
                (None, false) => "",
            },
            self.nit,
            describe(&self.model_measures)
        ));
        if let (Some(f), Some(g)) = (self.model_measures.frequency, self.fem.frequency) {
            out.push_str(&format!("  frequency ratio model / FEM {:.4}\n", f / g));
        }
        out.push_str(&format!(
            "  rest-state error {:.4e}, trajectory error {:.4e} (vertex {} tracked)\n",
            self.rest_error, self.trajectory_error, self.tracked_vertex
        ));
        if let Some(d) = &self.damping_fit {
            out.push_str(&format!(
                "  damping fit ({} releases, {} from {}): FEM damping ratio {:.4e}; {}\n",
                d.evaluations,
                d.knob,
                pbdfit_mesh::display::number(d.start),
                d.target_ratio,
                d.verdict
            ));
        }
        if let Some(m) = &self.motion_fit {
            let start: Vec<String> =
                m.start.iter().map(|(k, v)| format!("{k} = {}", pbdfit_mesh::display::number(*v))).collect();
            out.push_str(&format!(
                "  motion fit ({} releases) from {}: trajectory error {:.4e} -> {:.4e}, rest-state error {:.4e} -> {:.4e}\n",
                m.evaluations,
                start.join(", "),
                m.start_trajectory_error,
                self.trajectory_error,
                m.start_rest_error,
                self.rest_error
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decaying cosine gives its frequency and logarithmic decrement; a signal creeping to rest within
    /// round-off of zero, or too short, is not oscillating.
    #[test]
    fn measures_of_known_signals() {
        let (f, zeta) = (2.0, 0.03);
        let omega = std::f64::consts::TAU * f;
        let times: Vec<f64> = (0..4000).map(|i| i as f64 * 1e-3).collect();
        let s: Vec<f64> = times.iter().map(|t| (-zeta * omega * t).exp() * (omega * t).cos()).collect();
        let m = measure(&times, &s, &s);
        assert!(m.oscillates);
        // The damped frequency omega sqrt(1 - zeta^2) ~ omega here; the decrement 2 pi zeta / sqrt(1 - zeta^2).
        assert!((m.frequency.unwrap() / f - 1.0).abs() < 1e-3, "{m:?}");
        let delta = std::f64::consts::TAU * zeta / (1.0 - zeta * zeta).sqrt();
        assert!((m.decrement.unwrap() / delta - 1.0).abs() < 0.02, "{m:?}");
        assert!((m.damping_ratio.unwrap() / zeta - 1.0).abs() < 0.02, "{m:?}");
        // Overdamped: one excursion decaying to rest, then solver noise of 1e-9 of it about zero, which would
        // cross zero at every sample without the noise floor.
        let times: Vec<f64> = (0..8000).map(|i| i as f64 * 1e-3).collect();
        let creep: Vec<f64> =
            times.iter().enumerate().map(|(i, t)| (-5.0 * t).exp() + 1e-9 * (-1.0f64).powi(i as i32)).collect();
        let m = measure(&times, &creep, &creep);
        assert!(!m.oscillates && m.frequency.is_none(), "{m:?}");
    }

    /// The damping ratio comes from the first mode's share, sampled as coarsely as the release test allows
    /// ([`MIN_STEPS_PER_PERIOD`] samples a period, at a phase that puts no sample on a peak): an undamped
    /// one reads 0 and a damped one its ratio, within [`DAMPING_RATIO_TOLERANCE`], whatever a higher mode
    /// adds to the tracked vertex's own excursion (which sets the frequency and crossings only).
    #[test]
    fn the_damping_ratio_is_the_first_modes_within_the_tolerance() {
        let f = 3.72;
        let omega = std::f64::consts::TAU * f;
        let dt = 1.0 / (f * MIN_STEPS_PER_PERIOD);
        let times: Vec<f64> = (0..(5.0 * MIN_STEPS_PER_PERIOD) as usize + 1).map(|i| i as f64 * dt).collect();
        for zeta in [0.0, 0.02, 0.1] {
            let omega_d = omega * (1.0f64 - zeta * zeta).sqrt();
            let first: Vec<f64> =
                times.iter().map(|t| -(-zeta * omega * t).exp() * (omega_d * t + 0.37).cos()).collect();
            // A higher mode at 6.3 times the frequency, undamped, a tenth of the first's amplitude.
            let tracked: Vec<f64> = first.iter().zip(&times).map(|(x, t)| x + 0.1 * (6.3 * omega * t).sin()).collect();
            let m = measure(&times, &tracked, &first);
            let read = m.damping_ratio.expect("oscillates");
            println!("zeta {zeta}: read {read:e}");
            assert!((read - zeta).abs() < DAMPING_RATIO_TOLERANCE, "zeta {zeta}: read {read}");
            let alone = measure(&times, &first, &first);
            assert_eq!(alone.damping_ratio, m.damping_ratio, "the decay is the first mode's alone");
            assert!((alone.frequency.unwrap() / f - 1.0).abs() < 0.01, "{alone:?}");
        }
    }

    /// The window's bounds are one check for the command line and study files: under two periods, beyond
    /// the FEM's step budget on any body, or not finite, refused naming the bound.
    #[test]
    fn windows_outside_the_bounds_are_refused() {
        assert_eq!(check_periods(5.0), Ok(5.0));
        assert_eq!(check_periods(MIN_PERIODS), Ok(MIN_PERIODS));
        for (periods, said) in [(1e-300, "at least 2 periods"), (1.5, "at least 2"), (1e9, "at most 20000 periods")] {
            let e = check_periods(periods).unwrap_err();
            assert!(e.contains(said), "{periods}: {e}");
        }
        assert!(check_periods(f64::NAN).unwrap_err().contains("finite"));
        assert!(check_periods(f64::INFINITY).unwrap_err().contains("finite"));
    }
}
