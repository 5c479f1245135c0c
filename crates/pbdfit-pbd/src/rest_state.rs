//! The rest state: the displacements at which the simulation stops moving, `u* = P(u* + dt^2 g)`.
//!
//! For PBD and plain XPBD the fixed point is unique in practice (stepping and the fixed-point solver
//! agree to 1e-9). The energy-form XPBD springs (`xpbd-hookean`, `-stvk`, `-morse`) have no linear
//! stiffness, so their rest map is nearly singular in shear and can have several fixed points under
//! compression: with soft compliances, stepping from rest can settle in another one than the solver
//! reaches from the undeformed state (measured: gravity-floor N = 1, Hookean alpha_d = 1e-4, 5.73e-2 m
//! by stepping against 5.03e-2 m by the solver, both with residual below 1e-13). pbdfit reports the
//! solver's, the one nearest the undeformed state along the accelerated iteration.

use crate::anderson::{Progress, anderson_guarded};
use crate::newton_krylov::{RootControls, newton_krylov, step_radius};
use crate::system::{MapRounding, Stage};
use crate::{Dynamics, ModelRule, PbdError, PbdSystem, SimParams, Vec3};
use pbdfit_mesh::display::number;

/// The Anderson memory of the fixed point's second attempt, when the first (the configured memory) fails.
const RETRY_MEMORY: usize = 3;

/// Map evaluations after which an unconverged fixed-point solve asks whether the simulation diverges
/// (see [`PbdSystem::rest_state`]). Converging solves of the thesis grids take a median of 75 and at
/// most 957 from the undeformed state in one fit at N = 4 (gravity-floor, nu = 0.3; 2 of 511 above 500,
/// counted once with a temporary tally), far fewer when warm-started. (At N = 8 fewer would not pay: with
/// 200, cold grid points that converge after 200 to 700 evaluations each ran a probe for nothing.)
const STALL_EVALUATIONS: usize = 500;

/// Map evaluations (Newton steps' products and line searches together) after which a Newton-Krylov
/// solve ([`RootSolve`]) gives the point to the accelerated iteration.
const ROOT_EVALUATIONS: usize = 1500;

/// Map evaluations of the accelerated iteration before a slow solve goes to Newton-Krylov ([`RootSolve`]):
/// the fast points (PBD and XPBD on the bench bodies take 11 to 18) never reach it.
const ROOT_AFTER: usize = 30;

/// Krylov vectors (products) per Newton step of the root solve at most.
const ROOT_KRYLOV: usize = 150;

/// How often an engine profile's fixed-point solve may step back from an extrapolation out of the body
/// ([`anderson_guarded`]) before it falls back to stepping.
const ENGINE_RETREATS: usize = 20;

/// Simulated seconds the divergence probe steps. A unit cube falling freely passes [`PROBE_FACTOR`]
/// times its size in 0.9 s.
const PROBE_SECONDS: f64 = 3.0;

/// With [`RestOptions::collapse_verdict`] (the gradient search's), a fixed-point solve has stagnated when,
/// after at least [`COLLAPSE_EVALUATIONS`] map evaluations, its least residual has not fallen below this
/// fraction of what it was [`STAGNATION_WINDOW`] evaluations before (not halved over the last 50). Only a
/// stagnated solve asks the early probes below, so a solve that is converging, however large its
/// displacement, is not probed early: PBD on gravity-wall N = 4, kd = 0.05, kv = 0.15 rests 0.63 m down
/// after 575 evaluations, its least residual falling a decade per hundred (a factor 3.2 per 50); measured
/// against half its evaluations with a tenth instead of a half, it counted as stagnated at the 180th and the
/// collapse probe gave it up. A window rather than half the evaluations: a solve that falls fast and then
/// sits on a plateau (XPBD's liquid points below) is seen at once, not once the plateau is as long as the
/// fall (XPBD at N = 16 took 10.6 s so, 9.4 s now). A cold solve (no warm start: a search's grid points,
/// where the fine-mesh fits lost their time) that has stagnated asks both early probes. A warm one (a
/// search's trial next to a rest state) asks only the divergence probe, and only when its least residual,
/// not just its last, is still above [`STAGNANT_RESIDUAL`]: a trial whose iterate swings far can still
/// converge after its residual once came below it, and the collapse probe or a verdict on the last
/// residual gave such trials up (XPBD on gravity-wall N = 1, nit = 2, alpha_d = 0.084, alpha_v = 100: a
/// fixed point 0.85 m down after 456 evaluations, whose simulation leaves the body on its way; in the
/// compound fit at nu = 0.4, nit = 2 a trial at its 111th evaluation with residual 2.0e-3 and least
/// residual 1.6e-4, converged at its 291st), and the search answers a point without a rest state (a half
/// step back) otherwise than a high error: that fit ended 2 % higher (0.4731 against 0.4638). The failing
/// trials of `pbdfit bench fit` (XPBD, gravity-floor N = 4) sit at a least residual of 2e-3 from their
/// 40th evaluation on and are judged at their 100th instead of their 500th; the XPBD study's 3,400 fits
/// are the committed ones, parameter for parameter.
pub const STAGNATION: f64 = 0.5;

/// The evaluations over which [`STAGNATION`] measures progress (at most [`COLLAPSE_EVALUATIONS`] - 1, so
/// that the window lies within the solve).
pub const STAGNATION_WINDOW: usize = 50;
const _: () = assert!(STAGNATION_WINDOW < COLLAPSE_EVALUATIONS);

/// A stagnated fixed-point iterate whose largest displacement passes this fraction of the body's extent
/// asks the collapse probe at once, without waiting for [`STALL_EVALUATIONS`]: the point is given up when
/// the simulation stays beyond the fraction for the time the body takes to fall its own size. Measured
/// (gravity-floor N = 8, E = 1e4, dt = 0.01, nit = 10): XPBD's grid point alpha_d = 6.3 m/N with a stiff
/// alpha_v flows like a liquid; its fixed-point iterate stalls at 0.42 m (least residual 4.5e-6 from the
/// 120th to the 210th evaluation) and its simulation sloshes between 0.4 and 0.75 m for 3.1 s before it
/// leaves the body (1 m), so the probe of [`PROBE_SECONDS`] missed it and the point cost 63,130 sweeps
/// (250 converging rest states) before the stepping fallback gave it up. Converging grid points of that
/// fit move 0.7 to 7 mm.
///
/// Only a textbook model's solve asks this probe, never an engine profile's: a body that rests beyond the
/// fraction stays beyond it too, so the probe cannot tell it from a collapse, and only the solve's behaviour
/// says which it is. Newton's Jacobi passes (relaxation 0.9, no damping) contract so slowly that its rest
/// states beyond a quarter of the body look like the liquid to the solve: on gravity-wall N = 1 at
/// dt = 0.0137 s, nit = 13 the grid point k_mu = 3.2e4, k_lambda = 200 Pa rests 0.40 m down (the simulation
/// swings between 0.24 and 0.60 m about it), and its solve wanders (0.04 to 0.6 m) with a least residual
/// of 1.0e-2 from the 57th evaluation to the 107th before it converges at the 496th; at dt = 0.0035 s,
/// nit = 6 the point k_mu = k_lambda = 200 Pa (rest 0.4305 m down) sits at 0.4263 m with a residual of
/// 1.6e-6 from the 306th evaluation on, as the liquid does, and converges only by stepping (10,020 sweeps).
/// Asked, this probe gave up every grid point with a rest state of such fits: 7 of the 200 Newton fits on
/// gravity-wall in `fits/tables/mappings` (E = 145 Pa, nu = 0.21, dt = 0.0137 s, nit = 13 among them)
/// found none. No textbook fit of the committed studies and tables changes for it.
pub const COLLAPSE_FRACTION: f64 = 0.25;

/// A solve whose least residual is within this factor of its tolerance is converging, whatever its
/// progress: near the tolerance (1e-13) the residual creeps at round-off (an XPBD solve of the compound
/// gravity fit at N = 1, nit = 2, alpha_d = 0.19, alpha_v = 100 sat at 5e-13 from its 50th evaluation to
/// its 100th).
pub const CONVERGING: f64 = 1e3;

/// The fewest map evaluations before a solve can count as stagnated ([`STAGNATION`]): converging rest
/// states of the fine-mesh benchmarks take 15 to 90 from the undeformed state (gravity-floor N = 8 and 16,
/// nit = 10).
pub const COLLAPSE_EVALUATIONS: usize = 100;

/// A stagnated solve whose last relative residual is still above this runs the divergence probe then
/// instead of after [`STALL_EVALUATIONS`] (the same probe from the same start: the same verdict, sooner,
/// for a point that would not have converged by then). XPBD's grid points alpha_d = 6.3 m/N with a
/// soft alpha_v at N = 16 stay at 8e-3 from the 20th evaluation on and ran away only after the probe at
/// 500 (2.9 s each); converging solves are far below it by their 100th evaluation (5e-8 for PBD kd = kv =
/// 0.1 on gravity-floor N = 16, nit = 10; 6e-5 at worst seen, PBD kd = 0.0095, kv = 0, N = 4, dt = 0.001).
pub const STAGNANT_RESIDUAL: f64 = 1e-3;

/// How far beyond the body's extent the probe's motion must go before the point counts as diverged. An
/// undamped body released from rest overshoots its rest displacement up to about twice, so a soft point
/// whose rest state lies within the body can pass the extent on its way there (seen on gravity-wall,
/// N = 4, kd = 0.05); a mechanism keeps falling.
const PROBE_FACTOR: f64 = 4.0;

/// The comparisons of successive windows' growth over which an engine profile's run must keep growing
/// without slowing before it counts as diverged ([`Growth`]: growth in `K + 1` windows in a row). A body
/// released from rest falls faster and faster only until its springs take the load: with windows of the
/// time it takes to fall its own size `L`, one whose rest state lies `D` below accelerates for
/// `(pi / 2) sqrt(D / 2L)` windows (an undamped spring's first quarter swing), so with `K = 4` a rest state
/// within 20 body sizes is never called a divergence on its way down; a free fall (a mechanism) grows by
/// ever larger steps and is called one after five windows.
pub const GROWTH_WINDOWS: usize = 4;

/// A window's growth counts as not slowing when it is at least this fraction of the window's before: a body
/// sliding at a steady speed grows by equal steps, which round-off makes slightly unequal.
const GROWTH_KEPT: f64 = 0.99;

/// Growth below this fraction of the window's largest displacement is no growth: round-off. A body held at
/// one vertex hangs up to 3.08 m from where it started and swings about a neutral axis at the last digits;
/// counted, such noise met [`GROWTH_KEPT`] four windows in a row within a few hundred.
const GROWTH_NOISE: f64 = 1e-9;

/// How far (in body sizes) the extra fixed-point attempt of an engine profile admits its iterates, made
/// only after an attempt's iterate left the body (an iterate beyond the body is otherwise discarded: a
/// wild extrapolation). Newton's XPBD on gravity-wall at N = 4 with k_mu = k_lambda = 20 Pa (dt 0.01,
/// 20 iterations) rests 1.12 m out, which the body size made unreachable (then stepping called the body
/// diverged); the wider attempt converges in 10,860 sweeps, stepping in 405,340. Not the first attempt's
/// bound: admitted to 4 body sizes from the start, Newton's solve on the wall at N = 4 (k_mu = 696,
/// k_lambda = 7161 Pa) wandered to a repelling fixed point (radius 3.5) instead of the one its simulation
/// settles at; a repelling fixed point of the wider attempt is left to stepping, never reported.
const ENGINE_WIDE: f64 = 100.0;

/// How a rest state is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestMethod {
    /// Step the dynamics until the largest per-step displacement, relative to the largest
    /// displacement, falls below the tolerance.
    Stepping,
    /// Mass-spring models: the static equilibrium by Newton (`iterations` counts Newton iterations).
    Newton,
    /// Solve `u = P(u + dt^2 g)` with Anderson acceleration (the configured memory, then a memory of 3);
    /// fall back to stepping if both fail.
    FixedPoint,
    /// The reference library's arithmetic in f32 (positions, not displacements), stepped from the
    /// initial configuration until the motion stops (PBD models only; see the `precision` module).
    LibraryF32,
}

/// The arithmetic of a model's rest states: pbdfit's f64 (the default), or the reference library's own
/// arithmetic in f32 ([`RestMethod::LibraryF32`]), to test what single precision does to fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Precision {
    /// f64 displacements, rest state by the fixed point (exact to 1e-13).
    #[default]
    F64,
    /// The library's f32 positions, stepped until the motion stops (PBD models only).
    F32,
}

impl Precision {
    /// `f64` or `f32`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        }
    }

    /// Parses [`name`](Self::name)'s values.
    pub fn parse(text: &str) -> Option<Self> {
        [Precision::F64, Precision::F32].into_iter().find(|p| p.name() == text)
    }

    /// The rest options for this precision (the defaults, with the f32 method where asked).
    pub fn rest_options(self) -> RestOptions {
        match self {
            Precision::F64 => RestOptions::default(),
            Precision::F32 => RestOptions { method: RestMethod::LibraryF32, ..RestOptions::default() },
        }
    }
}

/// Controls of the rest-state computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestOptions {
    /// Method (default: fixed point, with stepping as the fallback).
    pub method: RestMethod,
    /// Relative tolerance: stepping stops when `max |u_{n+1} - u_n| <= tol * max |u_n|`; the fixed point
    /// when `|G(u) - u|_inf <= tol * |G(u)|_inf`. Relative, because rest deformation scales with dt^2.
    pub tolerance: f64,
    /// Largest number of projection sweeps (steps x nit, or map evaluations x nit) before giving up.
    pub max_sweeps: usize,
    /// Anderson memory (number of stored differences).
    pub anderson_memory: usize,
    /// Largest number of rest-map evaluations the fixed-point solver may spend before falling back.
    pub max_map_evaluations: usize,
    /// Whether a fixed-point solve that stalls asks a short simulation whether the point runs away (see
    /// [`PbdSystem::rest_state`]; it changes no rest state, only how soon a point without one is given up).
    pub divergence_probe: bool,
    /// Whether the probe also gives up a point whose motion, once beyond the body's extent, stays there
    /// for half of [`PROBE_SECONDS`] without coming back (the probe runs on for up to twice its time while
    /// the body is outside): a body collapsed through itself. A soft cube on the floor at N = 8, kd = 0.1
    /// passes its extent by one to three per cent and stays there, so [`PROBE_FACTOR`] is never reached,
    /// and each such point cost two full fixed-point attempts (6,000 map evaluations) before the stepping
    /// fallback gave it up at the first exit. A soft point whose undamped overshoot passes the extent on
    /// its way back to a rest state inside the body is not touched: XPBD's soft volume compliance on the
    /// compound scene at nu = 0.4 leaves the extent for less than that, and judged by its first exit
    /// alone the fit lost its minimum (e = 0.4731 instead of 0.4638). Off by default: the pattern
    /// search's rest states are pinned.
    pub collapse_verdict: bool,
    /// A wall-clock time after which the computation stops unconverged (a fit's `--max-seconds`): the
    /// fixed point and stepping check it before every map evaluation or step, so a point that would
    /// spend its whole sweep budget (a mechanism that creeps without running away) ends at the fit's
    /// limit. `None`: no limit. It never changes a rest state that converges before it.
    pub deadline: Option<std::time::Instant>,
    /// How the fixed point is solved when [`method`](Self::method) is [`RestMethod::FixedPoint`]
    /// (default: each family's own, [`RootSolve::Auto`]).
    pub root: RootSolve,
}

/// How a model's fixed point `u = G(u)` is solved ([`RestOptions::root`]). Whichever solves it, a point
/// it cannot solve, or whose fixed point repels, goes to the accelerated iteration, its stepping fallback
/// and their verdicts, so a point without a rest state gets the same verdict either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RootSolve {
    /// Newton-Krylov for the cloth models, whose sheets swing slowly to rest (a rest state in a few dozen
    /// map evaluations where the accelerated iteration took thousands; its GMRES preconditioned by the
    /// rule's static tangent where it has one, `cloth/tangent.rs`), and for `jolt-cloth` (its trials
    /// smoothed by 64 map evaluations, `EngineStep::ROOT`); the accelerated iteration for the textbook
    /// solids (their committed studies are pinned bit for bit) and the solid engine profiles (their
    /// committed motion study and benchmarks).
    #[default]
    Auto,
    /// Anderson-accelerated iteration (`anderson.rs`), then stepping.
    Anderson,
    /// Newton-Krylov on `G(u) - u` (`newton_krylov.rs`) first, for every model with a step, its GMRES
    /// preconditioned where the stage has a preconditioner (the cloth models' static tangent,
    /// `cloth/tangent.rs`; the solid engine profiles', `engines/tangent.rs`).
    NewtonKrylov,
    /// [`NewtonKrylov`](Self::NewtonKrylov) with unpreconditioned GMRES (the cloth models' root solve as
    /// it was before their static tangent; the same rest states to the tolerance).
    Unpreconditioned,
}

impl RootSolve {
    /// Whether the root solve runs first for a stage whose family default is `by_default`.
    fn newton_krylov(self, by_default: bool) -> bool {
        match self {
            RootSolve::Auto => by_default,
            RootSolve::Anderson => false,
            RootSolve::NewtonKrylov | RootSolve::Unpreconditioned => true,
        }
    }

    /// Whether the root solve's GMRES takes the stage's preconditioner.
    fn preconditioned(self) -> bool {
        self != RootSolve::Unpreconditioned
    }
}

impl Default for RestOptions {
    fn default() -> Self {
        Self {
            method: RestMethod::FixedPoint,
            tolerance: 1e-13,
            max_sweeps: 20_000_000,
            anderson_memory: 10,
            max_map_evaluations: 3000,
            divergence_probe: true,
            collapse_verdict: false,
            deadline: None,
            root: RootSolve::Auto,
        }
    }
}

/// A rest state.
#[derive(Debug, Clone, PartialEq)]
pub struct RestState {
    /// Rest positions `X + u` (m).
    pub positions: Vec<Vec3>,
    /// Rest displacements `u` from the initial configuration (m).
    pub displacements: Vec<Vec3>,
    /// Projection sweeps spent (time steps x nit for stepping, map evaluations x nit for the fixed point).
    pub iterations: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Final relative residual (see [`RestOptions::tolerance`]).
    pub residual: f64,
    /// The method that produced the state (the fixed point may have fallen back to stepping).
    pub method: RestMethod,
}

impl RestState {
    /// Largest displacement norm (m).
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }
}

/// What a root solve that gives no rest state hands on to the accelerated iteration: the sweeps it spent,
/// and its best iterate (free particles' coordinates) to start from, if it has a finite one.
struct Handed {
    spent: usize,
    x: Option<Vec<f64>>,
}

impl PbdSystem {
    /// The rest state for `params`, optionally starting from the displacements `warm` (for example the
    /// rest state of nearby parameters). Errors for invalid parameters, divergence, inverted
    /// tetrahedra; a state that did not meet the tolerance within `max_sweeps` comes back with
    /// `converged: false`.
    ///
    /// The rest state is where the simulation settles (docs/method.md, section The rest state), so a point
    /// whose simulation runs away has none. The fixed point is solved first; when it has not converged
    /// after [`STALL_EVALUATIONS`] map evaluations, a probe steps the simulation from the same start for
    /// [`PROBE_SECONDS`]. If the motion goes [`PROBE_FACTOR`] times beyond the body's extent (or stays beyond it, with
    /// [`RestOptions::collapse_verdict`]), the point is
    /// reported as diverged where it first left the body. With the collapse verdict (the gradient search's)
    /// two probes come sooner, after [`COLLAPSE_EVALUATIONS`]: the same probe when the residual is still
    /// above [`STAGNANT_RESIDUAL`] (for a warm start, its least residual too), and, without a warm start, a
    /// collapse probe when the iterate has moved beyond
    /// [`COLLAPSE_FRACTION`] of the body, which gives the point up when the simulation stays that far out
    /// for the time the body takes to fall its own size. Diverged: the step and displacement the stepping
    /// fallback would report after both fixed-point attempts had failed, with their sweeps not spent.
    /// A solve that goes on is not touched, so every rest state is the one it was without the probe.
    ///
    /// Contact (the body's obstacles, `contact.rs`): the obstacles sit at their placed (full load) position
    /// from the first step. Without friction the rest state is still the fixed point of the rest map,
    /// contact projections included (a test checks it against stepping). With friction it is path
    /// dependent (any tangential position of a sticking particle is a fixed point), so it is always
    /// computed by stepping from the initial configuration, whatever the method and with `warm` ignored
    /// (a warm start would be another path, and a fit's rest states must not depend on its lineage);
    /// `method` is then [`RestMethod::Stepping`]. A body that keeps sliding has no rest state: it
    /// leaves its extent and is reported as diverged. A cloth model's stepped sheet on obstacles comes to
    /// rest only to its rest map's rounding (its sweeps compute in positions): it is converged where its
    /// step and rest map are within ten times that rounding, measured ([`Self::contact_rounding_at`]). Mass-spring models integrate to rest instead of
    /// Newton (see `SpringBody::settle`). The f32 library arithmetic refuses obstacles
    /// ([`PbdError::Contact`]).
    pub fn rest_state(
        &self,
        params: &SimParams,
        options: &RestOptions,
        warm: Option<&[Vec3]>,
    ) -> Result<RestState, PbdError> {
        self.check_step(params)?;
        pbdfit_mesh::cancel::check()?;
        match params.rule() {
            ModelRule::Projection(rule) => self.stepped_rest_state(params, &rule, options, warm),
            ModelRule::Engine(rule) => self.stepped_rest_state(params, &rule, options, warm),
            ModelRule::Cloth(rule) => self.stepped_rest_state(params, &rule, options, warm),
            ModelRule::Springs(law) => self.spring_rest_state(params, &law, warm, options.deadline),
        }
    }

    /// [`Self::rest_state`] of a model with a step: a projection model's sweep or an engine profile's.
    fn stepped_rest_state<S: Stage>(
        &self,
        params: &SimParams,
        rules: &S,
        options: &RestOptions,
        warm: Option<&[Vec3]>,
    ) -> Result<RestState, PbdError> {
        if options.method == RestMethod::LibraryF32 {
            if !self.obstacles.is_empty() {
                return Err(PbdError::Contact {
                    scene: self.scene.clone(),
                    obstacles: self.obstacles.len(),
                    what: "the f32 library arithmetic has no contact; use the f64 rest state (--precision f64)",
                });
            }
            return self.rest_in_f32(params, options);
        }
        if self.has_friction() {
            // Path dependent: every tangential position of a sticking particle is a fixed point of the
            // rest map, so only stepping from the initial configuration gives where the simulation settles.
            return self.rest_by_stepping(
                params,
                rules,
                options,
                Verdicts::new(rules, options),
                None,
                0,
                f64::INFINITY,
            );
        }
        // An engine profile's divergence is judged by growth ([`Growth`]), never by the body's size: its
        // rest state may lie beyond it. The textbook models keep the size rule (their studies are pinned).
        let verdicts = Verdicts::new(rules, options);
        let mut spent = 0;
        // The iterate a failed root solve hands on: the accelerated attempts start there instead of
        // solving the point again from `warm`.
        let mut handed: Option<Vec<f64>> = None;
        if options.method == RestMethod::FixedPoint
            && self.contacts.is_empty()
            && options.root.newton_krylov(rules.root_by_default())
        {
            match self.root_rest_state(params, rules, options, verdicts, warm)? {
                Ok(state) => return Ok(state),
                Err(Handed { spent: root_spent, x }) => {
                    spent = root_spent;
                    handed = x;
                }
            }
        }
        // The last finite residual of an accelerated attempt: what a failure reports when those attempts
        // spent the whole budget and stepping has no sweep left.
        let mut last_residual = f64::INFINITY;
        // Whether the divergence probe has run (once at most, whichever attempt stalls first).
        let mut probed = false;
        // Whether the early collapse probe has run (once at most).
        let mut collapse_probed = false;
        if options.method == RestMethod::FixedPoint {
            // A short memory second: the normal equations of a long one can turn too ill-conditioned
            // to make progress (seen with the energy-form XPBD springs, whose rest map is strongly
            // nonlinear), and stepping stops at the turning points of slow undamped oscillations.
            let short = RETRY_MEMORY.min(options.anderson_memory);
            let mut attempts: Vec<(usize, f64)> =
                [Some(options.anderson_memory), (short < options.anderson_memory).then_some(short)]
                    .into_iter()
                    .flatten()
                    .map(|m| (m, self.extent))
                    .collect();
            // Whether an engine's wider attempt has been added (once, see [`ENGINE_WIDE`]).
            let mut widened = false;
            let mut attempt = 0;
            while attempt < attempts.len() {
                let (memory, limit) = attempts[attempt];
                attempt += 1;
                let wide = limit > self.extent;
                let mut d = self.dynamics();
                let x0: Vec<f64> = match (&handed, warm) {
                    (Some(x), _) => x.clone(),
                    (None, Some(w)) => self.free.iter().flat_map(|&p| [w[p].x, w[p].y, w[p].z]).collect(),
                    (None, None) => vec![0.0; 3 * self.free.len()],
                };
                let mut left_body = None;
                // The least residual after each evaluation.
                let mut best: Vec<f64> = Vec::new();
                let out = anderson_guarded(
                    x0,
                    |x, out| rules.rest_map(self, params, &mut d, x, out),
                    memory,
                    options.tolerance,
                    options.max_map_evaluations.min(options.max_sweeps.saturating_sub(spent) / params.nit.max(1)),
                    // Not a verdict: an iterate beyond it is discarded (an engine's steps back, see
                    // [`ENGINE_RETREATS`]); an engine's rest state beyond the body is found by the wider
                    // attempt ([`ENGINE_WIDE`]) or by stepping, judged by [`Growth`].
                    limit,
                    // An engine's step maps a wild extrapolation far out; the textbook models' solves are
                    // kept iterate for iterate (the thesis study's rest states are pinned).
                    if verdicts.growth { ENGINE_RETREATS } else { 0 },
                    |Progress { evaluations, scale, residual }| {
                        if past(options.deadline) || pbdfit_mesh::cancel::requested() {
                            return false;
                        }
                        best.push(best.last().map_or(residual, |b: &f64| b.min(residual)));
                        let budget = options.max_sweeps.saturating_sub(spent + evaluations * params.nit);
                        // Less than a decade of progress over the second half of the evaluations so far, far
                        // from the tolerance (see [`STAGNATION`]).
                        let stagnant = verdicts.stagnation
                            && evaluations >= COLLAPSE_EVALUATIONS
                            && best[evaluations - 1] > STAGNATION * best[evaluations - STAGNATION_WINDOW - 1]
                            && best[evaluations - 1] > CONVERGING * options.tolerance;
                        if stagnant
                            && warm.is_none()
                            && !collapse_probed
                            && scale > COLLAPSE_FRACTION * self.extent
                            && verdicts.partial_collapse
                        {
                            collapse_probed = true;
                            let verdict = Verdict::PartialCollapse;
                            left_body = self.runs_away(rules, params, warm, options, verdict, budget);
                            if left_body.is_some() {
                                return false;
                            }
                        }
                        // A warm solve (a search's trial) is judged by its least residual: one that has come
                        // below [`STAGNANT_RESIDUAL`] may still converge, however far its iterate swings.
                        let stalled = evaluations >= STALL_EVALUATIONS
                            || (stagnant
                                && residual > STAGNANT_RESIDUAL
                                && (warm.is_none() || best[evaluations - 1] > STAGNANT_RESIDUAL));
                        let Some(verdict) = verdicts.probe.filter(|_| stalled && !probed) else {
                            return true;
                        };
                        probed = true;
                        left_body = self.runs_away(rules, params, warm, options, verdict, budget);
                        left_body.is_none()
                    },
                );
                spent += out.evaluations * params.nit;
                if out.residual.is_finite() {
                    last_residual = out.residual;
                }
                pbdfit_mesh::cancel::check()?;
                if let Some(left) = left_body {
                    return Err(left.error(&self.scene, params, spent, self.extent));
                }
                if verdicts.widen && !widened && !out.converged && out.residual.is_infinite() {
                    // The iterate left the body: an engine's rest state may lie out there.
                    widened = true;
                    attempts.push((options.anderson_memory, ENGINE_WIDE * self.extent));
                }
                if out.converged {
                    // An engine's Jacobi passes can make the fixed point repel: the engine never settles
                    // there, so it is no rest state (Newton's tetrahedra in compression).
                    match self.check_stable(rules, params, &out.x, &mut spent) {
                        // A repelling fixed point out there says nothing of a stable one elsewhere: the
                        // simulation decides (stepping).
                        Err(PbdError::Unstable { .. }) if wide => break,
                        verdict => verdict?,
                    }
                    let mut u = self.prescribed.clone();
                    for (i, &p) in self.free.iter().enumerate() {
                        u[p] = Vec3::new(out.x[3 * i], out.x[3 * i + 1], out.x[3 * i + 2]);
                    }
                    return self.accept(params, u, spent, true, out.residual, RestMethod::FixedPoint);
                }
            }
        }
        self.rest_by_stepping(params, rules, options, verdicts, warm, spent, last_residual)
    }

    /// The rest state by Newton-Krylov ([`newton_krylov`]), or what it hands on ([`Handed`]: the sweeps
    /// it spent and its best iterate) when it cannot give one: its solve did not converge within
    /// [`ROOT_EVALUATIONS`] or stalled, or the fixed point it found repels
    /// (an engine's Jacobi step by the power iteration the accelerated solve's points get, every other
    /// model's step by the Ritz values of the last Newton step's Arnoldi process, [`step_radius`]). The
    /// caller's accelerated iteration then goes on from the handed iterate (a repelling point hands on
    /// the accelerated iterate, not itself), and its verdicts (divergence, an unstable fixed point, a
    /// state beyond reach) stand. A solve that ends at the rest map's own rounding, below
    /// [`ROUND_OFF`](crate::newton_krylov::ROUND_OFF) but above the tolerance (the isometric-bending cloth
    /// models round at about 1e-11), is converged with its residual.
    fn root_rest_state<S: Stage>(
        &self,
        params: &SimParams,
        rules: &S,
        options: &RestOptions,
        verdicts: Verdicts,
        warm: Option<&[Vec3]>,
    ) -> Result<Result<RestState, Handed>, PbdError> {
        let mut d = self.dynamics();
        let x0: Vec<f64> = match warm {
            Some(w) => self.free.iter().flat_map(|&p| [w[p].x, w[p].y, w[p].z]).collect(),
            None => vec![0.0; 3 * self.free.len()],
        };
        let nit = params.nit.max(1);
        // The accelerated iteration first, as the first attempt of [`Self::stepped_rest_state`] runs it: a
        // fast point converges in it to the very rest state that attempt gives; a slow one hands its
        // iterate, near the fixed point, to Newton (whose step from far away, where the rest map is
        // strongly nonlinear, is short: Newton's tetrahedra have no shear stiffness at zero strain).
        let first = anderson_guarded(
            x0,
            |x, out| rules.rest_map(self, params, &mut d, x, out),
            options.anderson_memory,
            options.tolerance,
            ROOT_AFTER.min(options.max_map_evaluations).min(options.max_sweeps / nit),
            self.extent,
            if verdicts.growth { ENGINE_RETREATS } else { 0 },
            |_| !(past(options.deadline) || pbdfit_mesh::cancel::requested()),
        );
        pbdfit_mesh::cancel::check()?;
        let mut spent = first.evaluations * params.nit;
        let (x, residual) = if first.converged {
            // The first attempt's own rest state, with its own verdict.
            self.check_stable(rules, params, &first.x, &mut spent)?;
            (first.x, first.residual)
        } else {
            if !first.residual.is_finite() || past(options.deadline) {
                return Ok(Err(Handed { spent, x: None }));
            }
            // A map in positions (the cloth models' sweeps) rounds at their last places, which the root
            // solve measures; one in displacements is exact to its own, and gives no origin.
            let rounding = rules.rounding();
            let origin: Vec<f64> = match rounding {
                MapRounding::Measured => self.free.iter().flat_map(|&p| self.rest[p].iter().copied()).collect(),
                MapRounding::Relative(_) => Vec::new(),
            };
            let controls = RootControls {
                tolerance: options.tolerance,
                max_evaluations: ROOT_EVALUATIONS
                    .min(options.max_map_evaluations)
                    .min((options.max_sweeps.saturating_sub(spent)) / nit),
                krylov: ROOT_KRYLOV,
                limit: if verdicts.growth { PROBE_FACTOR * self.extent } else { self.extent },
                scale_floor: 1e-9 * self.extent,
                round_off: rounding.floor(),
                origin: &origin,
                smoothing: rules.root_smoothing(),
            };
            // The gradient search's verdict on a point whose simulation stays beyond the body (the stepping
            // fallback's [`PbdError::OutOfReach`]), asked as soon as the solve looks beyond the body instead
            // of after it and the accelerated attempts have failed ([`Self::reach_probe`]).
            let mut probed = false;
            let mut verdict = None;
            let mut preconditioner =
                if options.root.preconditioned() { rules.preconditioner(self, params) } else { None };
            let out = newton_krylov(
                first.x.clone(),
                |x, out| rules.rest_map(self, params, &mut d, x, out),
                controls,
                preconditioner.as_deref_mut(),
                |furthest| {
                    if past(options.deadline) || pbdfit_mesh::cancel::requested() {
                        return false;
                    }
                    if verdicts.reach && !probed && furthest > self.extent {
                        probed = true;
                        verdict = self.reach_probe(rules, params, warm, options, verdicts, spent);
                    }
                    verdict.is_none()
                },
            );
            pbdfit_mesh::cancel::check()?;
            if let Some(e) = verdict {
                return Err(e);
            }
            spent += out.evaluations * params.nit;
            if !out.converged {
                // Its best image (a residual never above the accelerated iterate's), or that iterate
                // where Newton's first image was inadmissible.
                let x = if out.residual.is_finite() { out.x } else { first.x };
                return Ok(Err(Handed { spent, x: Some(x) }));
            }
            // A root solve reaches a repelling fixed point as readily as an attracting one: such a point
            // goes to the accelerated iteration, whose verdict stands.
            let keep = (1.0 - params.damping) * rules.engine().map_or(1.0, |e| e.velocity_factor);
            let repels = if rules.engine().is_some() {
                // An engine whose root solve is its default (Gauss-Seidel, so no power iteration) is judged
                // by the Ritz values too, with the velocity its substep keeps (`step_radius`'s `c`): the root
                // solve reaches a fixed point the engine's step repels from as readily as one it settles at.
                (rules.root_smoothing() > 0 && step_radius(&out.ritz, keep) > UNSTABLE_RADIUS)
                    || match self.check_stable(rules, params, &out.x, &mut spent) {
                        Err(PbdError::Unstable { .. }) => true,
                        verdict => verdict.map(|()| false)?,
                    }
            } else {
                step_radius(&out.ritz, 1.0 - params.damping) > UNSTABLE_RADIUS
            };
            if repels {
                // Not the repelling point: the accelerated iteration goes on from its own iterate, which
                // may reach an attracting fixed point elsewhere.
                return Ok(Err(Handed { spent, x: Some(first.x) }));
            }
            (out.x, out.residual)
        };
        let mut u = self.prescribed.clone();
        for (i, &p) in self.free.iter().enumerate() {
            u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
        self.accept(params, u, spent, true, residual, RestMethod::FixedPoint).map(Ok)
    }

    /// The gradient search's early verdict on a point whose root solve looks beyond the body: for an engine
    /// profile the stepping fallback's own run ([`Self::rest_by_stepping`] from `warm`, its
    /// [`PbdError::OutOfReach`] and [`Growth`] verdicts), for a textbook or cloth model the divergence
    /// probe ([`Self::runs_away`], a run beyond [`PROBE_FACTOR`] times the body), for at most [`PROBE_SECONDS`]. The error where that run gives one (the point has
    /// no rest state the search takes: the verdict the fallback gives after the root solve and the
    /// accelerated attempts have failed, sooner); `None` where it settles, stays within reach or the time
    /// runs out (the solve goes on untouched). `spent`: the sweeps before it.
    fn reach_probe<S: Stage>(
        &self,
        rules: &S,
        params: &SimParams,
        warm: Option<&[Vec3]>,
        options: &RestOptions,
        verdicts: Verdicts,
        spent: usize,
    ) -> Option<PbdError> {
        let probe = ((PROBE_SECONDS / params.dt).ceil() as usize).saturating_mul(params.nit);
        if rules.engine().is_none() {
            // A textbook or cloth model's release swings past the body on its way to a rest state near its
            // size (a clamped strip that droops), which the stepping fallback's window (beyond the body for
            // the time it takes to fall its size) calls out of reach: asked by every trial, it left the
            // stiff strip of reports/sheets at N = 20 (cloth-pbd, dt = 0.002 s, nit = 10) without a fit,
            // where the root solve finds the rest state of its minimum (kd = kb = 1, error 4.318). So only
            // the divergence probe's verdict here: a run beyond PROBE_FACTOR times the body.
            let budget = options.max_sweeps.saturating_sub(spent).min(probe);
            return self
                .runs_away(rules, params, warm, options, Verdict::RunsAway, budget)
                .map(|left| left.error(&self.scene, params, spent, self.extent));
        }
        let bounded = RestOptions { max_sweeps: options.max_sweeps.min(spent.saturating_add(probe)), ..*options };
        match self.rest_by_stepping(params, rules, &bounded, verdicts, warm, spent, f64::INFINITY) {
            Err(e @ (PbdError::OutOfReach { .. } | PbdError::Diverged { .. })) => Some(e),
            _ => None,
        }
    }

    /// The stability verdict at the fixed point `x` of an engine whose passes are Jacobi (every other
    /// model's step is stable where its rest map converges): [`PbdError::Unstable`] when the spectral
    /// radius of its step there is above [`UNSTABLE_RADIUS`]. A short power iteration clears most
    /// points; the step is strongly non-normal near the edge (transient growth), so a point it doubts,
    /// and does not clearly condemn ([`CLEARLY_UNSTABLE_RADIUS`]), gets a long one. The sweeps spent are
    /// added to `spent`.
    fn check_stable<S: Stage>(
        &self,
        rules: &S,
        params: &SimParams,
        x: &[f64],
        spent: &mut usize,
    ) -> Result<(), PbdError> {
        let Some(crate::engines::Passes::Jacobi { relaxation }) = rules.engine().map(|e| e.constants.passes()) else {
            return Ok(());
        };
        let doubted = |radius: f64| radius > UNSTABLE_RADIUS && radius <= CLEARLY_UNSTABLE_RADIUS;
        let (radius, steps) = self.step_map_radius(rules, params, x, doubted);
        *spent += steps * params.nit;
        if radius > UNSTABLE_RADIUS {
            return Err(PbdError::Unstable {
                scene: self.scene.clone(),
                params: params.describe(),
                radius,
                relaxation,
            });
        }
        Ok(())
    }

    /// [`accept_rest_state`] of this body.
    pub(crate) fn accept(
        &self,
        params: &SimParams,
        u: Vec<Vec3>,
        iterations: usize,
        converged: bool,
        residual: f64,
        method: RestMethod,
    ) -> Result<RestState, PbdError> {
        accept_rest_state(&self.scene, &self.rest, &self.tets, params, u, iterations, converged, residual, method)
    }

    /// The static equilibrium of a mass-spring model (Newton; docs/models.md, section Equations).
    fn spring_rest_state(
        &self,
        params: &SimParams,
        law: &crate::SpringLaw,
        warm: Option<&[Vec3]>,
        deadline: Option<std::time::Instant>,
    ) -> Result<RestState, PbdError> {
        let fail = |error| PbdError::MassSpring {
            scene: self.scene.clone(),
            params: params.describe_springs(),
            error: Box::new(error),
        };
        if self.follower.is_some() {
            return Err(PbdError::Unsupported {
                model: params.describe_springs(),
                what: "a follower pressure: the mass-spring rest state's Newton has no load stiffness (a dead \
                       pressure, follower = false, works)",
            });
        }
        if self.wind.is_some() {
            return Err(PbdError::Unsupported {
                model: params.describe_springs(),
                what: "a wind: the mass-spring rest state's Newton has no load stiffness for its drag",
            });
        }
        if !self.obstacles.is_empty() {
            // Contact: where Verlet with microcollisions and dry friction settles (`SpringBody::settle`).
            // The fit's time limit reaches the settling run: a hopeless point may take 2,000,000 steps.
            let run = self.spring_body().settle_until(law, deadline).map_err(fail)?;
            // A bound, not the last value: `settle` stops once the relative step is at most 1e-12.
            return self.accept(params, run.displacements, run.steps, true, 1e-12, RestMethod::Stepping);
        }
        let eq = self.spring_body().equilibrium(law, warm).map_err(fail)?;
        self.accept(params, eq.displacements, eq.iterations, true, eq.residual, RestMethod::Newton)
    }

    fn rest_by_stepping<S: Stage>(
        &self,
        params: &SimParams,
        rules: &S,
        options: &RestOptions,
        verdicts: Verdicts,
        warm: Option<&[Vec3]>,
        mut spent: usize,
        // The residual the attempts before reached (infinite when none did): reported where the budget
        // leaves stepping no sweep.
        before: f64,
    ) -> Result<RestState, PbdError> {
        let mut d = self.dynamics_from(warm);
        let mut residual = before;
        let mut converged = false;
        // An engine profile's run is judged by its growth, a textbook model's by the body's size.
        let mut growth = verdicts.growth.then(|| self.growth(params));
        // The gradient search leaves out an engine's point whose body stays beyond its size for the time it
        // takes to fall it ([`PbdError::OutOfReach`]: no fit's minimum; 17 such points of the README's Jolt
        // fit each stepped to the search's budget of 200,000 sweeps, 16 times the fit's time).
        let reach = verdicts.reach.then(|| self.growth(params).steps);
        // A map in positions (the cloth models') rounds at their last places: its floor, measured where the
        // run starts and again wherever the run's motion comes below it ([`Self::contact_rounding_at`]), is the
        // growth's floor, and a run whose step and rest map are both within it is at rest to its rounding
        // (the root solve's criterion, [`RoundingAt::at_rest`]).
        let mut rounding = self.contact_rounding_at(rules, params, &d.u);
        if let Some(r) = &rounding {
            spent += r.evaluations * params.nit;
            if let Some(g) = &mut growth {
                g.floor = r.floor;
            }
        }
        // The step of the last check against the rounding, made where the motion comes below the floor
        // and at the end of every window of the growth judge (the rounding, hence the floor, is larger
        // where the sheet is deformed than where it started).
        let mut checked: Option<usize> = None;
        let window = self.growth(params).steps;
        let (mut steps, mut last_inside) = (0usize, 0usize);
        while spent + params.nit <= options.max_sweeps.max(params.nit) {
            pbdfit_mesh::cancel::check()?;
            let step = self.measured_step(rules, params, &mut d);
            spent += params.nit;
            steps += 1;
            if step.largest <= self.extent {
                last_inside = steps;
            } else if let Some(window) = reach
                && steps - last_inside >= window
            {
                return Err(PbdError::OutOfReach {
                    scene: self.scene.clone(),
                    params: params.describe(),
                    sweeps: spent,
                    largest: step.largest,
                    extent: self.extent,
                    seconds: (steps - last_inside) as f64 * params.dt,
                });
            }
            // A run given up because its body turns about its hold says so ([`PbdError::Turns`]).
            if let Some(g) = &mut growth {
                if g.diverges(step.largest) {
                    return Err(self
                        .turns(params, spent, steps, &d.u)
                        .unwrap_or_else(|| g.error(&self.scene, params, spent)));
                }
            } else if step.outside {
                return Err(self
                    .turns(params, spent, steps, &d.u)
                    .unwrap_or_else(|| diverged(&self.scene, params, spent, step.largest, self.extent)));
            }
            residual = step.residual;
            converged = step.settled(options.tolerance);
            if !converged
                && let Some(floor) = rounding.map(|r| r.floor)
                && ((step.motion <= floor && checked.is_none_or(|c| steps >= c + ROUNDING_CHECK_STEPS))
                    || steps.is_multiple_of(window))
                && let Some(here) = self.contact_rounding_at(rules, params, &d.u)
            {
                checked = Some(steps);
                spent += here.evaluations * params.nit;
                if let Some(g) = &mut growth {
                    g.floor = here.floor;
                }
                rounding = Some(here);
                if step.motion <= here.floor && here.at_rest(self.extent) {
                    converged = true;
                    residual = if here.scale > 0.0 { here.residual / here.scale } else { here.residual };
                }
            }
            if converged || spent >= options.max_sweeps || past(options.deadline) {
                break;
            }
        }
        self.accept(params, d.u, spent, converged, residual, RestMethod::Stepping)
    }
}

/// A stepped run given up (diverged) whose free part has turned by at least this many degrees about its held
/// particles, its motion mostly that rotation ([`TURN_RESIDUAL`]), is reported as turning
/// ([`PbdError::Turns`]), not as diverged. Measured: `draped-sheet` at N = 4, `cloth-xpbd` (alpha_b 1e-2),
/// dt 0.01 s, 10 iterations, turns 60.6 degrees in 24.4 s about its single held particle before the growth
/// judge gives it up, rigidly (the rotation makes 0.990 of its motion).
pub(crate) const TURN_DEGREES: f64 = 10.0;

/// The most of the free part's mass-weighted squared displacement that the fitted rotation about the hold
/// may leave for the run to count as turning ([`TURN_DEGREES`]): the rotation's residual at most half the
/// motion's root mean square.
pub(crate) const TURN_RESIDUAL: f64 = 0.25;

/// The least `|cos|` of the angle between a turn's axis and gravity for the turn to count ([`TURN_DEGREES`]):
/// within 30 degrees of the vertical through the hold, about which gravity exerts no torque, so a turn
/// there is the sweeps'. A body drooping about a horizontal axis through its hold is gravity's doing and
/// stays a divergence: PBD's gravity-wall cube at kd = 0.05, kv = 0.15, N = 4, stepped at dt 0.01 s, one
/// iteration, swings 42 degrees down about the wall (rigid share 0.91) as it leaves its size.
pub(crate) const TURN_AXIS: f64 = 0.866;

impl PbdSystem {
    /// The free part's rigid rotation about the held particles at displacements `u` (m): the rotation `R`
    /// that takes the free particles' rest positions about the held particles' rest centre nearest (mass
    /// weighted, Kabsch's fit by the SVD) to their positions about the held particles' current centre, as
    /// (its angle in degrees, the share of the free part's mass-weighted squared displacement it makes,
    /// `1 - sum m |R a - b|^2 / sum m |b - a|^2`, and its unit axis, zero at no turn). `None` without a held
    /// particle, without motion, or for a state that is not finite.
    pub fn turn_about_hold(&self, u: &[Vec3]) -> Option<(f64, f64, Vec3)> {
        let held = self.held_mask();
        let hold: Vec<usize> = (0..self.rest.len()).filter(|&p| held[p]).collect();
        if hold.is_empty() || self.free.is_empty() || !u.iter().all(|x| x.iter().all(|c| c.is_finite())) {
            return None;
        }
        let count = hold.len() as f64;
        let c0 = hold.iter().map(|&p| self.rest[p]).sum::<Vec3>() / count;
        let c = hold.iter().map(|&p| self.rest[p] + u[p]).sum::<Vec3>() / count;
        let arms: Vec<(f64, Vec3, Vec3)> = self
            .free
            .iter()
            .map(|&p| (1.0 / self.inverse_masses[p], self.rest[p] - c0, self.rest[p] + u[p] - c))
            .collect();
        let h = arms.iter().fold(nalgebra::Matrix3::zeros(), |h, (m, a, b)| h + *m * b * a.transpose());
        let motion: f64 = arms.iter().map(|(m, a, b)| m * (b - a).norm_squared()).sum();
        if motion <= 0.0 {
            return None;
        }
        let svd = h.svd(true, true);
        let (uu, vt) = (svd.u?, svd.v_t?);
        let sign = (uu * vt).determinant().signum();
        let r = uu * nalgebra::Matrix3::from_diagonal(&Vec3::new(1.0, 1.0, sign)) * vt;
        let left: f64 = arms.iter().map(|(m, a, b)| m * (r * a - b).norm_squared()).sum();
        let degrees = ((r.trace() - 1.0) / 2.0).clamp(-1.0, 1.0).acos().to_degrees();
        let axis = Vec3::new(r[(2, 1)] - r[(1, 2)], r[(0, 2)] - r[(2, 0)], r[(1, 0)] - r[(0, 1)]);
        let axis = if axis.norm() > 0.0 { axis.normalize() } else { axis };
        Some((degrees, 1.0 - left / motion, axis))
    }

    /// [`PbdError::Turns`] for a stepped run given up after `steps` steps (`sweeps` sweeps in all) at
    /// displacements `u` (m), where its free part has turned about its hold ([`TURN_DEGREES`],
    /// [`TURN_RESIDUAL`]) about an axis near gravity's ([`TURN_AXIS`]); `None` otherwise (the run diverged).
    fn turns(&self, params: &SimParams, sweeps: usize, steps: usize, u: &[Vec3]) -> Option<PbdError> {
        let (degrees, rigid, axis) = self.turn_about_hold(u)?;
        let g = self.gravity.norm();
        let about_gravity = g == 0.0 || axis.dot(&self.gravity).abs() >= TURN_AXIS * g;
        (degrees >= TURN_DEGREES && rigid >= 1.0 - TURN_RESIDUAL && about_gravity).then(|| PbdError::Turns {
            scene: self.scene.clone(),
            params: params.describe(),
            sweeps,
            degrees,
            seconds: steps as f64 * params.dt,
            rigid,
        })
    }
}

/// Steps between two checks of a stepped run's motion against the rest map's rounding
/// ([`PbdSystem::contact_rounding_at`]), each three map evaluations: a run below the floor is checked at once, and
/// again only this many steps on if the rest map there was not at rest (a swing's turning point).
const ROUNDING_CHECK_STEPS: usize = 10;

/// The rest map's rounding at a state ([`PbdSystem::contact_rounding_at`]).
#[derive(Debug, Clone, Copy)]
struct RoundingAt {
    /// [`ROUNDING`](crate::newton_krylov::ROUNDING) times the map's rounding measured there (m): the
    /// root solve's bound for a map at rest to its rounding, which a stepped run and its growth take too.
    floor: f64,
    /// `|G(u) - u|_inf` there (m).
    residual: f64,
    /// `|G(u)|_inf` there (m).
    scale: f64,
    /// Map evaluations spent.
    evaluations: usize,
}

impl RoundingAt {
    /// Whether the rest map is at rest there to its rounding, for a body of `extent` (m): within the floor,
    /// and, as the root solve asks too, below [`ROUND_OFF`](crate::newton_krylov::ROUND_OFF) relative to
    /// `|G(u)|_inf` or, for a sheet that barely moves (lying on a plane: 3e-17 m), to the body's size. A
    /// map that is not smooth measures a rounding far above its last places (the dihedral cloth models at
    /// a flat hinge: 1.4e-9 m on the clamped strip, whose stepped rest state goes on to 1e-11).
    fn at_rest(&self, extent: f64) -> bool {
        let round_off = crate::newton_krylov::ROUND_OFF;
        self.residual <= self.floor && (self.residual <= round_off * self.scale || self.residual <= round_off * extent)
    }
}

impl PbdSystem {
    /// For a stage whose rest map rounds at the positions' last places ([`MapRounding::Measured`]: the
    /// cloth models), the rounding of its rest map at the free particles' displacements `u` (m), measured
    /// as the root solve measures it ([`rounding`](crate::newton_krylov::rounding)), with the rest map's
    /// residual there; `None` for a map in displacements (the solids, the engine profiles: their stepped
    /// rest states are untouched). A stepped run of a sheet on an obstacle with friction creeps there by
    /// rounding (the fabric on a frictional plane rests to 6e-11 m, then moves by 1e-17 m a window), which
    /// no relative tolerance on its motion and no growth relative to its size tells from a motion. Only
    /// for a body with obstacles: without them a sheet's rest state is the root solve's, whose stepping
    /// fallback is left as it was (`None`).
    fn contact_rounding_at<S: Stage>(&self, rules: &S, params: &SimParams, u: &[Vec3]) -> Option<RoundingAt> {
        if rules.rounding() != MapRounding::Measured || self.contacts.is_empty() {
            return None;
        }
        let mut d = self.dynamics();
        let x: Vec<f64> = self.free.iter().flat_map(|&p| [u[p].x, u[p].y, u[p].z]).collect();
        let origin: Vec<f64> = self.free.iter().flat_map(|&p| self.rest[p].iter().copied()).collect();
        let n = x.len();
        let (mut gx, mut scratch, mut image) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        rules.rest_map(self, params, &mut d, &x, &mut gx);
        let mut evaluations = 1;
        let rounding = crate::newton_krylov::rounding(
            &mut |x: &[f64], out: &mut [f64]| rules.rest_map(self, params, &mut d, x, out),
            &x,
            &gx,
            &origin,
            &mut scratch,
            &mut image,
            &mut evaluations,
        );
        let inf = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0f64, |m, a| m.max(a.abs()));
        Some(RoundingAt {
            floor: crate::newton_krylov::ROUNDING * rounding,
            residual: inf(&mut gx.iter().zip(&x).map(|(g, x)| g - x)),
            scale: inf(&mut gx.iter().copied()),
            evaluations,
        })
    }
}

/// One time step of a rest-state search, measured ([`PbdSystem::measured_step`]).
struct MeasuredStep {
    /// Largest displacement norm of a free particle after the step (m).
    largest: f64,
    /// Whether that displacement left the body's extent or is not finite.
    outside: bool,
    /// The step's largest particle motion relative to `largest` (absolute when `largest` is 0).
    residual: f64,
    /// The step's largest particle motion (m).
    motion: f64,
    /// Whether nothing moved at all.
    still: bool,
}

impl MeasuredStep {
    /// Whether the motion has stopped to `tolerance` (the stepping criterion of [`RestOptions::tolerance`]).
    fn settled(&self, tolerance: f64) -> bool {
        self.residual <= tolerance || self.still
    }
}

impl PbdSystem {
    /// The dynamics at rest (zero velocity), with the free particles displaced by `warm` (m) where given:
    /// for example a rest state, to step it once and read its [`contact_forces`](Self::contact_forces).
    pub fn dynamics_from(&self, warm: Option<&[Vec3]>) -> Dynamics {
        let mut d = self.dynamics();
        if let Some(w) = warm {
            for &p in &self.free {
                d.u[p] = w[p];
            }
        }
        d
    }

    /// One time step of `d`, with what the stepping fallback and the divergence probe judge it by.
    fn measured_step<S: Stage>(&self, rules: &S, params: &SimParams, d: &mut Dynamics) -> MeasuredStep {
        let step = rules.step(self, params, d);
        let largest = self.free.iter().map(|&p| d.u[p].norm()).fold(0.0, f64::max);
        MeasuredStep {
            largest,
            outside: !largest.is_finite() || largest > self.extent,
            residual: if largest > 0.0 { step / largest } else { step },
            motion: step,
            still: step == 0.0,
        }
    }

    /// The divergence probe of [`PbdSystem::rest_state`]: steps from `warm` for [`PROBE_SECONDS`] (at most
    /// `budget` sweeps) and, if the largest displacement passes [`PROBE_FACTOR`] times the extent or turns
    /// non-finite, or the `verdict` is a collapse and the displacement stays beyond its bound for its
    /// window (the probe then runs on while the body is beyond it, up to twice its time), says where the
    /// body first went beyond. `None` when the motion settles to `tolerance`, stays within the factor, or
    /// the time runs out.
    fn runs_away<S: Stage>(
        &self,
        rules: &S,
        params: &SimParams,
        warm: Option<&[Vec3]>,
        options: &RestOptions,
        verdict: Verdict,
        budget: usize,
    ) -> Option<LeftBody> {
        // Float-to-integer casts saturate, so a tiny dt gives a huge count, capped by the budget.
        let probe = ((PROBE_SECONDS / params.dt).ceil() as usize).saturating_mul(params.nit);
        let (beyond, window) = match verdict {
            Verdict::Grows => return self.grows_away(rules, params, warm, options, budget.min(probe)),
            Verdict::RunsAway => (self.extent, None),
            Verdict::Collapse => (self.extent, Some(probe / 2)),
            Verdict::PartialCollapse => {
                let seconds = self.fall_seconds().unwrap_or(0.5 * PROBE_SECONDS);
                let window = ((seconds / params.dt).ceil() as usize).saturating_mul(params.nit).max(params.nit);
                (COLLAPSE_FRACTION * self.extent, Some(window))
            }
        };
        let limit = budget.min(if window.is_some() { probe.saturating_mul(2) } else { probe });
        let mut d = self.dynamics_from(warm);
        let mut sweeps = 0;
        let mut left: Option<LeftBody> = None;
        // Sweeps up to the last step that ended within the bound.
        let mut last_inside = 0;
        while sweeps + params.nit <= limit {
            if pbdfit_mesh::cancel::requested() {
                // No verdict: the caller stops with the cancellation.
                return None;
            }
            let step = self.measured_step(rules, params, &mut d);
            sweeps += params.nit;
            let outside = !step.largest.is_finite() || step.largest > beyond;
            if outside && left.is_none() {
                left = Some(LeftBody { sweeps, largest: step.largest, bound: None, growth: None });
            }
            if !outside {
                last_inside = sweeps;
            }
            if !step.largest.is_finite() || step.largest > PROBE_FACTOR * self.extent {
                return left;
            }
            if step.settled(options.tolerance) {
                return None;
            }
            if let Some(window) = window
                && left.is_some()
                && sweeps - last_inside >= window
            {
                return left.map(|l| LeftBody {
                    bound: matches!(verdict, Verdict::PartialCollapse)
                        .then_some((beyond, (sweeps - last_inside) as f64 * params.dt / params.nit as f64)),
                    ..l
                });
            }
            if sweeps >= probe && !outside {
                break;
            }
        }
        None
    }

    /// The probe of [`Self::runs_away`] for [`Verdict::Grows`]: steps from `warm` for at most `limit`
    /// sweeps and says where the motion was judged to grow without bound ([`Growth`]); `None` when it
    /// settles to `tolerance` or the time runs out.
    fn grows_away<S: Stage>(
        &self,
        rules: &S,
        params: &SimParams,
        warm: Option<&[Vec3]>,
        options: &RestOptions,
        limit: usize,
    ) -> Option<LeftBody> {
        let mut d = self.dynamics_from(warm);
        let mut growth = self.growth(params);
        if let Some(r) = self.contact_rounding_at(rules, params, &d.u) {
            growth.floor = r.floor;
        }
        let mut sweeps = 0;
        while sweeps + params.nit <= limit {
            let step = self.measured_step(rules, params, &mut d);
            sweeps += params.nit;
            if growth.diverges(step.largest) {
                return Some(LeftBody { sweeps, largest: step.largest, bound: None, growth: Some(growth) });
            }
            if step.settled(options.tolerance) {
                return None;
            }
        }
        None
    }

    /// A [`Growth`] judge for a run of this body at `params`: windows of the time its free fall takes to
    /// cross its extent ([`Self::fall_seconds`]; half a second without gravity), at least one step.
    fn growth(&self, params: &SimParams) -> Growth {
        Growth::new(self.extent, self.gravity.norm(), params.dt)
    }

    /// The time (s) a free fall under the body's gravity takes to cross its extent, `sqrt(2 L / g)`;
    /// `None` without gravity.
    fn fall_seconds(&self) -> Option<f64> {
        fall_seconds(self.extent, self.gravity.norm())
    }
}

/// The time (s) a free fall at `g` (m/s^2) takes to cross `extent` (m), `sqrt(2 L / g)`; `None` without
/// gravity.
fn fall_seconds(extent: f64, g: f64) -> Option<f64> {
    (g > 0.0).then(|| (2.0 * extent / g).sqrt())
}

impl Growth {
    /// The judge of a run of a body of `extent` (m) under the acceleration `g` (m/s^2) stepped at `dt`
    /// (s): windows of the time its free fall takes to cross its extent (half a second without gravity),
    /// at least one step.
    pub(crate) fn new(extent: f64, g: f64, dt: f64) -> Self {
        let seconds = fall_seconds(extent, g).unwrap_or(0.5);
        let steps = ((seconds / dt).ceil() as usize).max(1);
        Growth { steps, seconds: steps as f64 * dt, taken: 0, current: 0.0, maxima: vec![0.0], floor: 0.0 }
    }
}

/// The divergence verdict of an engine profile's run (and of the mass-spring integrators'), from its dynamics: the largest displacement is taken
/// over successive windows (each the time the body takes to fall its own size), and the run diverges when
/// it is not a finite number, or when it grew in each of [`GROWTH_WINDOWS`] + 1 windows in a row, each
/// window by at least [`GROWTH_KEPT`] of the growth before (the motion does not slow: a free fall, a steady
/// slide, an instability) and by more than round-off ([`GROWTH_NOISE`]). A run that approaches a rest state, however far from the undeformed body, slows down:
/// the body's size decides nothing.
#[derive(Debug, Clone)]
pub(crate) struct Growth {
    /// Steps per window.
    steps: usize,
    /// Seconds per window.
    seconds: f64,
    /// Steps taken in the current window.
    taken: usize,
    /// The largest displacement in the current window (m).
    current: f64,
    /// Each finished window's largest displacement (m), after the undeformed start's 0.
    maxima: Vec<f64>,
    /// Growth (m) at or below which a window did not grow, whatever [`GROWTH_NOISE`] says: the map's own
    /// rounding where it is measured ([`RoundingAt::floor`]; a map in positions rounds at their last
    /// places, not at the displacements'), 0 where it is not.
    floor: f64,
}

impl Growth {
    /// Takes one step's largest displacement (m); whether the run has diverged.
    pub(crate) fn diverges(&mut self, largest: f64) -> bool {
        if !largest.is_finite() {
            self.current = largest;
            return true;
        }
        self.current = self.current.max(largest);
        self.taken += 1;
        if self.taken < self.steps {
            return false;
        }
        self.maxima.push(self.current);
        self.taken = 0;
        self.current = 0.0;
        let m = &self.maxima;
        if m.len() < GROWTH_WINDOWS + 2 {
            return false;
        }
        let growth: Vec<f64> = m.windows(2).map(|w| w[1] - w[0]).collect();
        let last = &growth[growth.len() - GROWTH_WINDOWS - 1..];
        let noise = (GROWTH_NOISE * m[m.len() - 1]).max(self.floor);
        last.windows(2).all(|g| g[0] > noise && g[1] >= GROWTH_KEPT * g[0])
    }

    /// The divergence error after `sweeps` sweeps.
    fn error(&self, scene: &str, params: &SimParams, sweeps: usize) -> PbdError {
        let reason = if !self.current.is_finite() {
            "NaN or infinite displacement".to_string()
        } else {
            let shown = &self.maxima[self.maxima.len() - GROWTH_WINDOWS - 2..];
            // Enough digits to show the growth (a slow one hides in the sixth digit).
            let least = shown.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
            let digits = (shown[shown.len() - 1] / least).log10().ceil().clamp(5.0, 16.0) as usize;
            let last: Vec<String> = shown.iter().map(|m| format!("{m:.digits$e} m")).collect();
            format!(
                "the motion grows without slowing: the largest displacement over successive windows of {} s \
                 was {}",
                number(self.seconds),
                last.join(", ")
            )
        };
        PbdError::Diverged { scene: scene.to_string(), params: params.describe(), sweeps, reason }
    }
}

/// The verdicts a rest-state computation may give on a point without a rest state, decided once from the
/// options ([`RestOptions::divergence_probe`], [`RestOptions::collapse_verdict`]) and the stage (judged by
/// growth or by the body's size, [`Stage::by_growth`]), and read wherever a solve or a run is judged.
#[derive(Debug, Clone, Copy)]
struct Verdicts {
    /// Divergence judged by the motion's growth ([`Growth`]; engine profiles and cloth), not by the body's
    /// size: an iterate beyond the body is stepped back from ([`ENGINE_RETREATS`]) rather than a verdict.
    growth: bool,
    /// What a stalled fixed-point solve's probe judges by; `None`: no probe.
    probe: Option<Verdict>,
    /// The gradient search's: a solve is judged stagnant ([`STAGNATION`]) and probed early.
    stagnation: bool,
    /// A stagnated cold solve beyond [`COLLAPSE_FRACTION`] of the body asks the collapse probe
    /// ([`Verdict::PartialCollapse`]; textbook models with the gradient search's verdict).
    partial_collapse: bool,
    /// A run that stays beyond the body for the time it takes to fall it is [`PbdError::OutOfReach`] (a
    /// stage judged by growth, with the gradient search's verdict); the root solve asks it as soon as it
    /// looks beyond the body ([`PbdSystem::reach_probe`]).
    reach: bool,
    /// An engine's accelerated attempt whose iterate left the body is followed by a wider one
    /// ([`ENGINE_WIDE`]); never with the gradient search's verdict, whose points beyond the body are out
    /// of reach.
    widen: bool,
}

impl Verdicts {
    fn new<S: Stage>(rules: &S, options: &RestOptions) -> Self {
        let growth = rules.by_growth();
        let search = options.collapse_verdict;
        let probe = options.divergence_probe.then_some(if growth {
            Verdict::Grows
        } else if search {
            Verdict::Collapse
        } else {
            Verdict::RunsAway
        });
        Verdicts {
            growth,
            probe,
            stagnation: search,
            partial_collapse: search && !growth,
            reach: search && growth,
            widen: growth && !search,
        }
    }
}

/// What the divergence probe judges a point by.
#[derive(Debug, Clone, Copy)]
enum Verdict {
    /// An engine profile's: the motion grows without slowing ([`Growth`]); the body's size decides nothing.
    Grows,
    /// Only a run away beyond [`PROBE_FACTOR`] times the body's extent (or a non-finite state).
    RunsAway,
    /// Also a body that stays beyond its extent for half the probe ([`RestOptions::collapse_verdict`]).
    Collapse,
    /// Also a body that stays beyond [`COLLAPSE_FRACTION`] of its extent for the time it takes to fall its
    /// own size (the early probe of a stagnated cold solve).
    PartialCollapse,
}

/// Where the probe's body first went beyond its bound (or, for [`Verdict::Grows`], was judged to grow
/// without bound).
#[derive(Debug, Clone)]
struct LeftBody {
    /// Probe sweeps up to that step.
    sweeps: usize,
    /// Largest displacement (m) after it.
    largest: f64,
    /// For a partial collapse: the bound (m) and how long (s) the body stayed beyond it.
    bound: Option<(f64, f64)>,
    /// For [`Verdict::Grows`]: the judge, which words the error.
    growth: Option<Growth>,
}

impl LeftBody {
    /// The error: divergence, at `spent` sweeps before the probe plus the probe's own.
    fn error(&self, scene: &str, params: &SimParams, spent: usize, extent: f64) -> PbdError {
        if let Some(growth) = &self.growth {
            return growth.error(scene, params, spent + self.sweeps);
        }
        match self.bound {
            None => diverged(scene, params, spent + self.sweeps, self.largest, extent),
            Some((bound, seconds)) => PbdError::Diverged {
                scene: scene.to_string(),
                params: params.describe(),
                sweeps: spent + self.sweeps,
                reason: format!(
                    "the body collapsed: its largest displacement passed {} m ({COLLAPSE_FRACTION} of the body size {} m) and stayed beyond it for {} s",
                    number(bound),
                    number(extent),
                    number(seconds),
                ),
            },
        }
    }
}

/// Whether the wall-clock `deadline` (if any) has passed.
/// Above this estimated spectral radius of the step map at a fixed point, the fixed point repels: no
/// simulation settles there. Stable engine fixed points measured contract by 0.996 per substep at most
/// (Newton's XPBD, N = 1, 10 iterations); the margin keeps the estimate's own error (a power iteration of
/// [`RADIUS_ITERATIONS`] products) from calling a slowly contracting point unstable.
pub const UNSTABLE_RADIUS: f64 = 1.001;

/// Power iterations of the step map's Jacobian for [`UNSTABLE_RADIUS`]: the first quarter settles the
/// direction, the rest measure the growth. A point above the bound after these is measured on, to eight
/// times as many in all: Genesis's wall at N = 4 (2 substeps, stretch compliance 3e-3) estimates 1.0139
/// after 80 and 0.985 to 0.997 after 160 to 1,280, its true radius 0.9952, and Genesis settles there.
const RADIUS_ITERATIONS: usize = 80;

/// A short estimate ([`RADIUS_ITERATIONS`] products) above this is final: it means a growth of
/// `1.1^60`, about 300, over the 60 measuring products, where the largest transient overshoot seen at a
/// stable point is about 3 (Genesis's wall above: `(1.0139 / 0.9952)^60`). On Newton's wall at N = 4
/// (relaxation 0.3, 10 iterations) 43 of 46 unstable points of one fit estimate 1.105 to 175 after 80
/// products, and the long estimate put each of them above 1.11 as well (within 3 % of the short one); the
/// long one took two thirds of that fit's time.
const CLEARLY_UNSTABLE_RADIUS: f64 = 1.1;

impl PbdSystem {
    /// The spectral radius of the time step's Jacobian at the rest state `x` (free particles'
    /// coordinates, zero velocity): the step carries the velocity, so this is the map whose fixed point a
    /// simulation settles at, not the rest map (the step from zero velocity, whose Jacobian `J` can contract
    /// where the step does not: an eigenvalue `mu < -1/3` of `J`, a Jacobi overshoot, gives the step an
    /// eigenvalue `mu - sqrt(mu^2 - mu)` below -1). Estimated by power iteration on the state
    /// `(u, dt v)` with products by one-sided differences from a fixed start (reproducible), with the map
    /// evaluations (steps) spent: [`RADIUS_ITERATIONS`] products, whose growth over the last three
    /// quarters is the short estimate; where `doubted` says so of it, the same iteration goes on to eight
    /// times as many, and the growth over their last three quarters is the long estimate. (The long
    /// estimate's products begin with the short one's, so going on from them gives the estimate a second
    /// iteration from the same start would, without repeating the short one's steps.)
    fn step_map_radius<S: Stage>(
        &self,
        rules: &S,
        params: &SimParams,
        x: &[f64],
        doubted: impl Fn(f64) -> bool,
    ) -> (f64, usize) {
        let params = SimParams { damping: 0.0, ..*params };
        let f = self.free.len();
        // One scratch state for every product: each step sets every free particle's state first.
        let mut d = self.dynamics();
        let mut step = |state: &[f64], out: &mut [f64]| {
            for (i, &p) in self.free.iter().enumerate() {
                d.u[p] = Vec3::new(state[3 * i], state[3 * i + 1], state[3 * i + 2]);
                d.v[p] =
                    Vec3::new(state[3 * f + 3 * i], state[3 * f + 3 * i + 1], state[3 * f + 3 * i + 2]) / params.dt;
            }
            rules.step(self, &params, &mut d);
            for (i, &p) in self.free.iter().enumerate() {
                out[3 * i..3 * i + 3].copy_from_slice(d.u[p].as_slice());
                out[3 * f + 3 * i..3 * f + 3 * i + 3].copy_from_slice((d.v[p] * params.dt).as_slice());
            }
        };
        let mut rest = vec![0.0; 6 * f];
        rest[..3 * f].copy_from_slice(x);
        let mut base = vec![0.0; 6 * f];
        step(&rest, &mut base);
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-12 * self.extent);
        let eps = 1e-7 * scale;
        // A fixed, non-symmetric start: every mode present.
        let mut v: Vec<f64> = (0..6 * f).map(|i| 1.0 + ((i * 7919) % 97) as f64 / 97.0).collect();
        let normalise = |v: &mut Vec<f64>| {
            let n = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            if n > 0.0 {
                v.iter_mut().for_each(|a| *a /= n);
            }
            n
        };
        normalise(&mut v);
        let (mut xp, mut gp) = (vec![0.0; 6 * f], vec![0.0; 6 * f]);
        // The logarithm of each product's growth, and the mean over the last three quarters of the
        // first `iterations`, summed in order from the quarter on.
        let mut logs = Vec::with_capacity(8 * RADIUS_ITERATIONS);
        let estimate = |logs: &[f64], iterations: usize| {
            let settle = iterations / 4;
            (logs[settle..iterations].iter().fold(0.0, |sum, l| sum + l) / (iterations - settle) as f64).exp()
        };
        let mut iterations = RADIUS_ITERATIONS;
        let mut k = 0;
        while k < iterations {
            for i in 0..6 * f {
                xp[i] = rest[i] + eps * v[i];
            }
            step(&xp, &mut gp);
            for i in 0..6 * f {
                v[i] = (gp[i] - base[i]) / eps;
            }
            let n = normalise(&mut v);
            if !(n.is_finite() && n > 0.0) {
                return (if n == 0.0 { 0.0 } else { f64::INFINITY }, k + 2);
            }
            logs.push(n.ln());
            k += 1;
            if k == RADIUS_ITERATIONS && doubted(estimate(&logs, k)) {
                iterations = 8 * RADIUS_ITERATIONS;
            }
        }
        (estimate(&logs, iterations), iterations + 1)
    }
}

fn past(deadline: Option<std::time::Instant>) -> bool {
    deadline.is_some_and(|d| std::time::Instant::now() >= d)
}

/// The error for a run whose largest displacement (m) left the body's extent (m) or is not finite.
/// Shared by every backend, so all report divergence alike.
pub fn diverged(scene: &str, params: &SimParams, sweeps: usize, largest: f64, extent: f64) -> PbdError {
    PbdError::Diverged {
        scene: scene.to_string(),
        params: params.describe(),
        sweeps,
        reason: if largest.is_finite() {
            format!("displacement {largest:.3e} m exceeds the body size {extent:.3e} m")
        } else {
            "NaN or infinite displacement".into()
        },
    }
}

/// Packages candidate rest displacements (m) of a body (scene name, rest positions, tetrahedra), from
/// any backend, as a [`RestState`], rejecting a state with an inverted or degenerate tetrahedron.
pub fn accept_rest_state(
    scene: &str,
    rest: &[Vec3],
    tets: &[[usize; 4]],
    params: &SimParams,
    displacements: Vec<Vec3>,
    iterations: usize,
    converged: bool,
    residual: f64,
    method: RestMethod,
) -> Result<RestState, PbdError> {
    // A state that is not a number is divergence, not an inverted tetrahedron (NaN states were
    // reported as "tetrahedron 0 inverted (volume NaN)").
    if let Some(v) = displacements.iter().position(|u| !u.iter().all(|c| c.is_finite())) {
        return Err(PbdError::Diverged {
            scene: scene.to_string(),
            params: params.describe(),
            sweeps: iterations,
            reason: format!("the displacement of vertex {v} is not a finite number"),
        });
    }
    let positions: Vec<Vec3> = rest.iter().zip(&displacements).map(|(x, u)| x + u).collect();
    for (t, tet) in tets.iter().enumerate() {
        let volume = pbdfit_mesh::signed_volume(tet.map(|v| positions[v]));
        if volume.is_nan() || volume <= 0.0 {
            return Err(PbdError::InvertedTet { scene: scene.to_string(), params: params.describe(), tet: t, volume });
        }
    }
    Ok(RestState { positions, displacements, iterations, converged, residual, method })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A judge with windows of 0.45 s at dt = 0.01 s (45 steps), as for a unit cube under 9.81 m/s^2.
    fn judge() -> Growth {
        Growth { steps: 45, seconds: 0.45, taken: 0, current: 0.0, maxima: vec![0.0], floor: 0.0 }
    }

    /// The first step (0-based) at which the judge calls `u(t)` (m) a divergence, over `seconds`.
    fn verdict(u: impl Fn(f64) -> f64, seconds: f64) -> Option<usize> {
        let mut g = judge();
        (0..(seconds / 0.01) as usize).find(|&k| g.diverges(u((k + 1) as f64 * 0.01)))
    }

    /// A free fall (a mechanism) and a steady slide diverge within six windows; an undamped spring that
    /// rests five body sizes below (it swings to ten) never does, nor does a body that sits at 3.08 m with
    /// round-off in its last digits, nor a slow creep to rest: the verdict comes from the motion's growth,
    /// never from how far the body is from where it started. A NaN is a divergence at once.
    #[test]
    fn growth_not_size_decides_a_divergence() {
        let fall = verdict(|t| 0.5 * 9.81 * t * t, 100.0).expect("a free fall diverges");
        assert!(fall < 6 * 45, "after {fall} steps");
        let slide = verdict(|t| 0.3 * t, 100.0).expect("a steady slide diverges");
        assert!(slide < 6 * 45, "after {slide} steps");
        // Rest 5 m down, period 4.5 s (10 windows): its first quarter swing accelerates for 2.5 windows.
        let omega = 2.0 * std::f64::consts::PI / 4.5;
        assert_eq!(verdict(|t| 5.0 * (1.0 - (omega * t).cos()), 100.0), None);
        assert_eq!(verdict(|t| 3.08 + 1e-15 * ((t * 1e4).sin()), 100.0), None);
        assert_eq!(verdict(|t| 2.0 * (1.0 - (-t / 30.0).exp()), 100.0), None);
        // A creep by rounding: a sheet at rest to 6e-11 m moving 1e-17 m a window grows by more than
        // GROWTH_NOISE of its size, so only the map's rounding (the floor) tells it from a motion.
        let creep = |g: &mut Growth| (1..2000).find(|&k| g.diverges(6e-11 + 1e-17 * (k / 45) as f64));
        assert!(creep(&mut judge()).is_some(), "without a floor the creep is a divergence");
        assert_eq!(creep(&mut Growth { floor: 1e-15, ..judge() }), None);
        let mut g = judge();
        assert!(g.diverges(f64::NAN));
        let e = g.error("s", &SimParams::new(0.01, 1, crate::ModelKind::JOLT.example()), 7).to_string();
        assert!(e.contains("NaN or infinite") && !e.contains("body size"), "{e}");
        let mut g = judge();
        let stepped = (1..1000).find(|&k| g.diverges(0.5 * 9.81 * (k as f64 * 0.01).powi(2))).unwrap();
        let e = g.error("s", &SimParams::new(0.01, 1, crate::ModelKind::JOLT.example()), stepped).to_string();
        assert!(e.contains("grows without slowing") && e.contains("windows of 0.45 s"), "{e}");
    }
}
