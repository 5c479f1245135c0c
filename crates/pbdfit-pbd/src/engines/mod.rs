//! Engine profiles: the soft-body steps of the engines people ship (NVIDIA Newton's `SolverXPBD`, Jolt's
//! soft bodies, Genesis's PBD elastic solver), reproduced in f64 so that a fitted parameter is the one to
//! type into that engine.
//!
//! The textbook models share one step (semi-implicit Euler, `nit` Gauss-Seidel sweeps in pbdfit's colour
//! order). The engines differ in ways that change the answer by factors: Jacobi accumulation with a
//! relaxation factor, multipliers kept across iterations, substeps with one pass each, their own constraint
//! functions and order, damping that enters the rest state. So a profile is one file here and one line in
//! [`engines!`]: the file holds the engine's step, a type implementing [`EngineStep`] (its typed constants,
//! its per-body cache and its solve), beside its model, a `static` [`ModelDef`] (parameters, settings,
//! what `nit` means, the paste lines, the engine's masses, an example point) whose fold turns the fitted
//! parameters and the engine's settings into an [`EngineRule`] (`ModelRule::Engine`) carrying the engine's
//! [`EngineConstants`]; the line registers both. PyBullet's profile (`pybullet.rs`) and MuJoCo's flex shell
//! (`mujoco_flex.rs`) are models only: their rest states are the static equilibria of force laws
//! (`mass_spring/neo_hookean.rs`, `mass_spring/mujoco_flex.rs`).
//!
//! What every profile shares, and what stays pbdfit's: the state is the displacement from the rest
//! configuration (the engines store positions in f32; in f64 the displacement form loses nothing), a step
//! of `dt` is `substeps` substeps of `h = dt / substeps`, and each substep is
//!
//! ```text
//! v <- velocity_factor (v + h f a)    (a: gravity plus load over mass, f: the engine's gravity factor;
//!                                      Jolt's damping is the velocity factor)
//! p <- u + h v
//! solve(p)                            (the engine's passes over its constraints)
//! v <- (p - u) / h ; u <- p
//! ```
//!
//! At rest `v = 0` at the start of every substep, so the rest state is the fixed point of one substep from
//! zero velocity, `u* = solve(u* + velocity_factor f h^2 a)`: the Anderson solve, the stepping fallback and
//! the sensitivity of [`PbdSystem::rest_state`] work on it unchanged.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use nalgebra::Matrix3;

use crate::{Dynamics, ModelDef, ModelKind, PbdSystem, SimParams, Vec3};

pub mod creation;
pub mod jolt_faces;
pub(crate) mod tangent;
pub use creation::CreationOrder;

/// What a step builds once per body and key and reuses (a creation order's projection order, a sheet's
/// constraints for one bend type): each value is built on first use and shared by every clone made
/// after it. A handful of keys per body (a fit uses one, its spread over orders a few), so a list.
#[derive(Debug)]
pub struct Memo<K, V>(Mutex<Vec<(K, Arc<V>)>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::new(Vec::new()))
    }
}

impl<K: Clone, V> Clone for Memo<K, V> {
    fn clone(&self) -> Self {
        Memo(Mutex::new(self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()))
    }
}

impl<K: PartialEq + Clone, V> Memo<K, V> {
    /// A memo holding `value` for `key` alone.
    pub fn holding(key: K, value: V) -> Self {
        Memo(Mutex::new(vec![(key, Arc::new(value))]))
    }

    /// The value for `key`, built by `build` the first time.
    pub fn get_or_build(&self, key: K, build: impl FnOnce() -> V) -> Arc<V> {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, value)) = all.iter().find(|(k, _)| *k == key) {
            return Arc::clone(value);
        }
        let value = Arc::new(build());
        all.push((key, Arc::clone(&value)));
        value
    }
}

/// Rest-map evaluations (substeps) that smooth each line-search trial of an engine's default root solve
/// ([`EngineStep::ROOT`]). Measured on `jolt-cloth`'s clamped strip (N = 4, dt 1/60 s, nit 64, the steel
/// point): 64 converged in 1,670 evaluations, 16 and 32 stalled, 128 took 6,304. A fixed count, not the
/// step's `nit`: two settings with the same substep `dt / nit` have the same rest map, so they solve it
/// alike and rest alike.
pub(crate) const ROOT_SMOOTHING: usize = 64;

/// How an engine's constraint passes apply their corrections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passes {
    /// Each correction applied at once from the positions the last one left (Gauss-Seidel): no overshoot.
    GaussSeidel,
    /// Corrections summed from the same positions (Jacobi), which can overshoot; `relaxation` names the
    /// setting that scales them, which an unstable point's message suggests lowering (`None` where the
    /// engine has none, as Newton's cloth springs).
    Jacobi {
        /// The relaxation setting's name (`relaxation`, `stretch_relaxation`).
        relaxation: Option<&'static str>,
    },
}

/// One engine's constraint solve, implemented by the struct of its constants (compliances, relaxations,
/// pass counts, under the engine's names) that its model, beside it, folds the parameters and settings into:
/// one in each file under `engines/`, registered with the model by one line in [`engines!`].
pub trait EngineStep: fmt::Debug + Clone + Copy + PartialEq {
    /// What the engine derives from the body once and reuses in every solve (Jolt's projection order;
    /// `()` for none), built on first use.
    type Cache: fmt::Debug + Clone + Default + Send + Sync;
    /// How its passes apply their corrections ([`Passes`]): a fixed point of Jacobi passes, which can
    /// overshoot, is accepted as a rest state only where the engine's step does not repel from it
    /// (`PbdSystem::rest_state`).
    const PASSES: Passes;
    /// Whether the rest state's fixed point is solved by Newton-Krylov first by default
    /// ([`crate::RootSolve::Auto`]), each line-search trial smoothed by [`ROOT_SMOOTHING`] evaluations of the rest
    /// map (`newton_krylov.rs`'s `RootControls::smoothing`). `false` (the default): the accelerated iteration,
    /// then stepping, as the solid profiles' committed results were computed.
    const ROOT: bool = false;
    /// Whether the engine gives its constraints' static tangent ([`Self::tangent`]), which
    /// preconditions its root solve (`tangent.rs`). `false` (the default): the root solve's GMRES goes
    /// unpreconditioned.
    const TANGENT: bool = false;
    /// The cache of this body (the default: nothing to derive).
    fn cache(_: &PbdSystem, _: &EngineBody) -> Self::Cache {
        Self::Cache::default()
    }
    /// The inverse mass the engine's step gives particle `p` (the default: the scene's).
    fn inverse_mass(&self, system: &PbdSystem, p: usize) -> f64 {
        system.inverse_masses[p]
    }
    /// Each constraint's blocks of the static tangent (`tangent.rs`) at the displacements `u`, one call
    /// of `put(particles, blocks)` per constraint in a fixed order (`None`: none there, zeros), with
    /// `passes` passes a substep of `h` s. Only where [`Self::TANGENT`].
    #[allow(clippy::too_many_arguments)]
    fn tangent(
        &self,
        _system: &PbdSystem,
        _body: &EngineBody,
        _cache: &Self::Cache,
        _passes: usize,
        _h: f64,
        _u: &[Vec3],
        _put: &mut dyn FnMut(&[usize], Option<&tangent::Blocks>),
    ) {
    }
    /// Solves one substep's constraints on `d.predicted` (`passes` passes), `d.u` holding the substep's
    /// start; it resets whatever multipliers it keeps. `h` is the substep in s.
    fn solve(
        &self,
        system: &PbdSystem,
        body: &EngineBody,
        cache: &Self::Cache,
        passes: usize,
        d: &mut Dynamics,
        h: f64,
    );
}

/// The engine registry: each entry `file::MODEL(Step)` declares the file's module, lists its model (the
/// file's `static MODEL: ModelDef`) in the model list, names it as the [`ModelKind`] constant `MODEL`, and
/// registers its [`EngineStep`]: its variant of [`EngineConstants`] (named after the step), its slot in the
/// body's caches, and the dispatch; attributes before an entry (`#[cfg(test)]`) apply to all of these. The
/// entries after the `;` have no step: profiles whose rest state is another family's (PyBullet's and
/// MuJoCo's flex shell: force laws of `SpringBody`, `mass_spring/neo_hookean.rs` and `mujoco_flex.rs`).
macro_rules! engines {
    (
        $($(#[$cfg:meta])* $file:ident::$def:ident($step:ident)),+ ;
        $($other:ident::$other_def:ident),* $(,)?
    ) => {
        $($(#[$cfg])* pub(crate) mod $file;)+
        $(pub(crate) mod $other;)*

        /// Every engine profile's model, in registration order (`models/mod.rs` places them in the list).
        pub(crate) static MODELS: &[&ModelDef] = &[$($(#[$cfg])* &$file::$def,)+ $(&$other::$other_def,)*];

        impl ModelKind {
            $(#[doc = concat!("The engine profile of `engines/", stringify!($file), ".rs`.")]
            $(#[$cfg])* pub const $def: ModelKind = ModelKind::of(&$file::$def);)+
            $(#[doc = concat!("The engine profile of `engines/", stringify!($other), ".rs`.")]
            pub const $other_def: ModelKind = ModelKind::of(&$other::$other_def);)*
        }

        /// An engine profile's constants, typed per registered engine (the variant names its step).
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum EngineConstants {
            $(#[doc = concat!("The constants of `engines/", stringify!($file), ".rs`.")]
            $(#[$cfg])* $step($file::$step),)+
        }

        /// Each registered engine's per-body cache, built on first use.
        #[derive(Debug, Clone, Default)]
        pub struct EngineCaches {
            $($(#[$cfg])* $file: OnceLock<<$file::$step as EngineStep>::Cache>,)+
        }

        impl EngineConstants {
            /// How the engine's passes apply their corrections ([`EngineStep::PASSES`]).
            pub fn passes(&self) -> Passes {
                match self { $($(#[$cfg])* Self::$step(_) => <$file::$step as EngineStep>::PASSES,)+ }
            }

            /// Whether the engine's fixed point is solved as a root by default ([`EngineStep::ROOT`]).
            pub fn root(&self) -> bool {
                match self { $($(#[$cfg])* Self::$step(_) => <$file::$step as EngineStep>::ROOT,)+ }
            }

            /// Whether the engine gives a static tangent ([`EngineStep::TANGENT`]).
            pub(crate) fn has_tangent(&self) -> bool {
                match self { $($(#[$cfg])* Self::$step(_) => <$file::$step as EngineStep>::TANGENT,)+ }
            }

            /// The inverse mass the engine gives particle `p` ([`EngineStep::inverse_mass`]).
            pub(crate) fn inverse_mass(&self, system: &PbdSystem, p: usize) -> f64 {
                match self { $($(#[$cfg])* Self::$step(constants) => constants.inverse_mass(system, p),)+ }
            }

            /// The engine's static tangent blocks at `u` ([`EngineStep::tangent`]).
            pub(crate) fn tangent(
                &self,
                system: &PbdSystem,
                passes: usize,
                h: f64,
                u: &[Vec3],
                put: &mut dyn FnMut(&[usize], Option<&tangent::Blocks>),
            ) {
                let body = system.engine_body();
                match self {
                    $($(#[$cfg])* Self::$step(constants) => {
                        let cache = body.caches.$file.get_or_init(|| $file::$step::cache(system, body));
                        constants.tangent(system, body, cache, passes, h, u, put)
                    })+
                }
            }

            /// One substep's solve by the engine's step, with its cache of this body.
            fn solve(&self, system: &PbdSystem, passes: usize, d: &mut Dynamics, h: f64) {
                let body = system.engine_body();
                match self {
                    $($(#[$cfg])* Self::$step(constants) => {
                        let cache = body.caches.$file.get_or_init(|| $file::$step::cache(system, body));
                        constants.solve(system, body, cache, passes, d, h)
                    })+
                }
            }
        }
    };
}

engines! {
    newton::NEWTON_XPBD(NewtonXpbd),
    jolt::JOLT(Jolt),
    genesis::GENESIS_PBD(GenesisPbd),
    jolt_cloth::JOLT_CLOTH(JoltCloth),
    newton_cloth::NEWTON_CLOTH(NewtonCloth),
    genesis_cloth::GENESIS_CLOTH(GenesisCloth),
    // A profile the crate's own tests declare (`engines/demo.rs`: Genesis's step under another name), the
    // proof that a profile is its file and this one line.
    #[cfg(test)]
    demo::DEMO_PBD(DemoPbd);
    pybullet::PYBULLET_NEOHOOKEAN,
    mujoco_flex::MUJOCO_FLEX,
}

/// An engine profile's step at one parameter point: what [`ModelRule::Engine`](crate::ModelRule) carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineRule {
    /// Substeps per time step (>= 1): `h = dt / substeps`.
    pub substeps: usize,
    /// Solver passes per substep (>= 1).
    pub passes: usize,
    /// The factor on the velocity after the load's acceleration each substep (1: none; Jolt's linear
    /// damping `max(0, 1 - c h)`). At rest it scales the load, so it moves the rest state.
    pub velocity_factor: f64,
    /// The factor on the load's acceleration (Jolt's `mGravityFactor`; 1: none).
    pub gravity_factor: f64,
    /// The engine and its own constants (compliances, relaxation, ...), as its file documents.
    pub constants: EngineConstants,
}

/// A tetrahedron as the engines see it: particles, the inverse rest shape matrix `Dm^-1` with
/// `Dm = [X1 - X0, X2 - X0, X3 - X0]`, the rest volume and the inverse masses.
#[derive(Debug, Clone)]
pub(crate) struct EngineTet {
    pub particles: [usize; 4],
    pub dm_inv: Matrix3<f64>,
    /// Rest volume (m^3, > 0: tetrahedra are stored positively oriented).
    pub volume: f64,
    pub w: [f64; 4],
}

/// An edge as the engines see it (pbdfit's unique edges in first-met order).
#[derive(Debug, Clone)]
pub(crate) struct EngineEdge {
    pub particles: [usize; 2],
    /// Rest edge vector `X1 - X0` (m).
    pub rest: Vec3,
    /// Rest length (m).
    pub length: f64,
    pub w: [f64; 2],
}

/// The engine profiles' state of a body: its constraints in the engines' terms, built once per body on
/// first use, and each engine's own cache. Constraints whose particles are all held are kept (an engine
/// projects them too, and they move nothing).
#[derive(Debug, Clone, Default)]
pub struct EngineBody {
    pub(crate) tets: Vec<EngineTet>,
    pub(crate) edges: Vec<EngineEdge>,
    caches: EngineCaches,
}

impl EngineEdge {
    /// The edge `[a, b]` of `system` at its rest positions.
    pub(crate) fn of(system: &PbdSystem, p: [usize; 2]) -> Self {
        let rest = system.rest[p[1]] - system.rest[p[0]];
        EngineEdge { particles: p, rest, length: rest.norm(), w: p.map(|i| system.inverse_masses[i]) }
    }
}

impl EngineBody {
    pub(crate) fn new(system: &PbdSystem) -> Self {
        let w = &system.inverse_masses;
        let x = &system.rest;
        let tets = system
            .tets
            .iter()
            .map(|&t| {
                let dm = Matrix3::from_columns(&[x[t[1]] - x[t[0]], x[t[2]] - x[t[0]], x[t[3]] - x[t[0]]]);
                EngineTet {
                    particles: t,
                    dm_inv: dm.try_inverse().expect("a validated mesh has no degenerate tetrahedron"),
                    volume: dm.determinant() / 6.0,
                    w: t.map(|p| w[p]),
                }
            })
            .collect();
        // `constraints_in_list_order` lists the distances first, in edge (first-met) order.
        let edges = system
            .constraints_in_list_order()
            .into_iter()
            .filter_map(|(c, p)| matches!(c, crate::ConstraintRef::Distance(_)).then(|| [p[0], p[1]]))
            .map(|p| {
                let rest = x[p[1]] - x[p[0]];
                EngineEdge { particles: p, rest, length: rest.norm(), w: p.map(|i| w[i]) }
            })
            .collect();
        EngineBody { tets, edges, caches: EngineCaches::default() }
    }
}

/// `S - S0` for the triple product `S = (e1 x e2) . e3` of a tetrahedron's edges from its first vertex
/// (`6 V`), expanded in powers of the displacement differences so that no digit cancels. The one home of
/// the volume change for Jolt's `|6V| - 6V0` and Genesis's `V - V0`.
#[inline]
pub(crate) fn six_volume_change(t: &EngineTet, x: &[Vec3], u: &[Vec3]) -> f64 {
    let [a, b, c, d] = t.particles;
    let e = [x[b] - x[a], x[c] - x[a], x[d] - x[a]];
    let du = [u[b] - u[a], u[c] - u[a], u[d] - u[a]];
    let triple = |p: &Vec3, q: &Vec3, r: &Vec3| p.cross(q).dot(r);
    triple(&du[0], &e[1], &e[2])
        + triple(&e[0], &du[1], &e[2])
        + triple(&e[0], &e[1], &du[2])
        + triple(&du[0], &du[1], &e[2])
        + triple(&du[0], &e[1], &du[2])
        + triple(&e[0], &du[1], &du[2])
        + triple(&du[0], &du[1], &du[2])
}

/// The displacement gradient `H = F - I = [u1 - u0, u2 - u0, u3 - u0] Dm^-1` of a tetrahedron.
#[inline]
pub(crate) fn displacement_gradient(t: &EngineTet, u: &[Vec3]) -> Matrix3<f64> {
    let [a, b, c, d] = t.particles;
    Matrix3::from_columns(&[u[b] - u[a], u[c] - u[a], u[d] - u[a]]) * t.dm_inv
}

/// `det(I + H) - 1` without cancellation: `tr H + ((tr H)^2 - tr(H^2)) / 2 + det H`.
#[inline]
pub(crate) fn det_minus_one(h: &Matrix3<f64>) -> f64 {
    let tr = h.trace();
    tr + 0.5 * (tr * tr - (h * h).trace()) + h.determinant()
}

/// `det F`'s gradient with respect to the four vertices for `F = I + H`: `cof(F) Dm^-T`, columns 1 to 3
/// and their negative sum first. `6 V0` times the signed volume's gradient.
#[inline]
pub(crate) fn det_gradient(t: &EngineTet, f: &Matrix3<f64>) -> [Vec3; 4] {
    let (f1, f2, f3) = (f.column(0).into_owned(), f.column(1).into_owned(), f.column(2).into_owned());
    let cof = Matrix3::from_columns(&[f2.cross(&f3), f3.cross(&f1), f1.cross(&f2)]);
    vertex_gradients(&(cof * t.dm_inv.transpose()))
}

/// The four vertex gradients of a constraint with `dC/dx_i = dP` column `i` (i = 1..3), the first the
/// negative sum.
#[inline]
pub(crate) fn vertex_gradients(dp: &Matrix3<f64>) -> [Vec3; 4] {
    let (g1, g2, g3) = (dp.column(0).into_owned(), dp.column(1).into_owned(), dp.column(2).into_owned());
    [-(g1 + g2 + g3), g1, g2, g3]
}

/// `sum_i w_i |g_i|^2`.
#[inline]
pub(crate) fn weighted_norm(w: &[f64; 4], g: &[Vec3; 4]) -> f64 {
    w[0] * g[0].norm_squared() + w[1] * g[1].norm_squared() + w[2] * g[2].norm_squared() + w[3] * g[3].norm_squared()
}

impl PbdSystem {
    /// The body in the engines' terms (built on first use, then shared by every rest state).
    pub(crate) fn engine_body(&self) -> &EngineBody {
        self.engine.get_or_init(|| EngineBody::new(self))
    }
}

impl crate::system::Stage for EngineRule {
    fn engine(&self) -> Option<&EngineRule> {
        Some(self)
    }

    /// [`EngineStep::ROOT`].
    fn root_by_default(&self) -> bool {
        self.constants.root()
    }

    /// [`ROOT_SMOOTHING`] where the root solve is the engine's default ([`EngineStep::ROOT`]).
    fn root_smoothing(&self) -> usize {
        if self.constants.root() { ROOT_SMOOTHING } else { 0 }
    }

    /// The engine's static tangent (`tangent.rs`) where it gives one.
    fn preconditioner<'a>(
        &'a self,
        system: &'a PbdSystem,
        params: &SimParams,
    ) -> Option<Box<dyn crate::newton_krylov::Preconditioner + 'a>> {
        tangent::EngineTangent::new(self, system, params).map(|t| Box::new(t) as _)
    }

    /// One time step of an engine profile (see the module doc); returns the largest displacement of a
    /// particle over the step (m).
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64 {
        let h = params.dt / self.substeps as f64;
        let keep = 1.0 - params.damping;
        let start: Vec<Vec3> = system.free.iter().map(|&p| d.u[p]).collect();
        for _ in 0..self.substeps {
            let mut scratch = std::mem::take(&mut d.loads);
            let loads = system.loads_at(&d.u, &d.v, &mut scratch);
            for &p in &system.free {
                d.v[p] = (d.v[p] * keep + loads[p] * (h * self.gravity_factor)) * self.velocity_factor;
                d.predicted[p] = d.u[p] + d.v[p] * h;
            }
            d.loads = scratch;
            self.constants.solve(system, self.passes, d, h);
            for &p in &system.free {
                d.v[p] = (d.predicted[p] - d.u[p]) / h;
                d.u[p] = d.predicted[p];
            }
        }
        system.free.iter().zip(&start).map(|(&p, s)| (d.u[p] - s).norm()).fold(0.0, f64::max)
    }

    /// The rest map of an engine profile: one substep from `x` at zero velocity (see the module doc).
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]) {
        let h = params.dt / self.substeps as f64;
        let h2 = h * h * self.velocity_factor * self.gravity_factor;
        let mut scratch = std::mem::take(&mut d.loads);
        let loads = if system.state_dependent_loads() {
            system.loads_at(&system.displacements_of(x), &[], &mut scratch)
        } else {
            &system.accelerations
        };
        for (i, &p) in system.free.iter().enumerate() {
            let u = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
            d.u[p] = u;
            d.predicted[p] = u + loads[p] * h2;
        }
        d.loads = scratch;
        self.constants.solve(system, self.passes, d, h);
        for (i, &p) in system.free.iter().enumerate() {
            out[3 * i..3 * i + 3].copy_from_slice(d.predicted[p].as_slice());
        }
    }
}
