//! # pbdfit-pbd
//!
//! The PBD side of every fit: particles, distance and volume constraints, the greedy colouring that fixes
//! the projection order, one time step, and the rest state the simulation settles in. It sits next to
//! `pbdfit-fem` in the data flow (scene -> mesh -> (FEM, PBD) -> error -> fit) and depends only on
//! `pbdfit-mesh`.
//!
//! The default model reproduces Jan Bender's PositionBasedDynamics library as docs/method.md
//! (docs/method.md, section The model's step) describes it: distance constraints per unique edge in
//! first-met order, then volume constraints per tetrahedron; greedy colouring in that order; Gauss-Seidel
//! sweeps over the groups in creation order; the library's volume gradient `6 dV/dp`; stiffness multiplying
//! the correction; semi-implicit Euler with one sub-step; no damping. Variants ([`Model`]): the linearised
//! stiffness `1 - (1 - k)^(1/nit)`, the textbook volume gradient, and XPBD with compliances. Each model
//! kind is one file under `src/models/` plus one line in its registry ([`ModelKind`], [`ModelDef`]); an
//! engine profile is one file under `src/engines/` (its step and its model) plus one line in `engines!`.
//!
//! Numerics: the state is the displacement `u = x - X` from the rest configuration `X`, not the position,
//! and constraint values are evaluated without cancellation (`|d| - l0 = (2 e.du + du.du) / (|d| + l0)`,
//! `V - V0` expanded in powers of `du`). Rest displacements at `dt = 0.001` are about `1e-5` m, so this
//! keeps every digit of `u` that the position form would lose.
//!
//! Contact (`contact.rs`): a body's rigid obstacles (planes, spheres, boxes with Coulomb friction, from
//! the scene's `[[obstacle]]` tables) are unilateral constraints `gap(x) >= 0` projected on every free
//! particle after every sweep, with positional static and kinetic friction; the mass-spring models meet
//! them in Verlet's microcollisions. [`PbdSystem::rest_state`] says how a rest state with contact is
//! found, [`PbdSystem::contact_forces`] what the obstacles push with.
//!
//! Sheets (`cloth/`): triangle-mesh bodies ([`PbdSystem::sheet`]) for the cloth models, whose
//! constraints (distance, dihedral and isometric bending, the FEM and strain triangles, the spring
//! potentials on edges) follow Jan Bender's library; a model of the other kind of body is refused
//! ([`PbdSystem::check_body`]).
//!
//! Units: m, s, kg. Stiffness is dimensionless; XPBD compliance is in m/N for distance and m^3/... per
//! the constraint's units (`alpha = 1 / stiffness` of the constraint energy `C^2 / (2 alpha)`).
//!
//! Dependencies: `nalgebra` (small vectors, the Anderson least-squares solve, the mass-spring stability
//! estimate), `faer` (the sparse tangent solves of the mass-spring Newton method, and the sparse Cholesky of the cloth models' static tangent, `cloth/tangent.rs`), `rayon` (colour groups
//! projected in parallel on large meshes), `thiserror` (error types), `clap` (only for [`ModelKind`]'s
//! `ValueEnum`, so every command line lists the registered models without a copy of their names), `wide`
//! (portable SIMD: the serial sweep projects the volume constraints of a colour group two at a time,
//! bit-identical to one at a time; `wide` picks SSE2, AVX or NEON at compile time with no target flags and
//! no `unsafe` here, and nalgebra already pulls it in through `simba`).
//!
//! ```
//! use pbdfit_mesh::SceneSet;
//! use pbdfit_pbd::{Model, PbdSystem, RestOptions, SimParams};
//! let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(1).unwrap();
//! let system = PbdSystem::new(&body);
//! let params = SimParams::new(0.01, 1, Model::pbd(0.5, 0.5));
//! let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
//! assert!((rest.max_displacement() - 9.9399075845e-04).abs() < 1e-12);
//! ```

mod anderson;
mod arnoldi;
mod backend;
pub mod bench;
pub mod cloth;
mod colouring;
mod constraints;
mod contact;
pub mod engines;
mod error;
mod lanes;
mod mass_spring;
mod model;
mod models;
mod newton_krylov;
mod potentials;
mod precision;
mod projection;
mod resolution;
mod rest_state;
mod sensitivity;
mod static_tangent;
mod system;
mod tetrahedra;

pub use backend::{CpuBackend, RestJob, RestStateBackend};
pub use colouring::ColourGroups;
pub use constraints::{ConstraintRef, DistanceConstraint, VolumeConstraint};
pub use engines::CreationOrder;
pub use error::PbdError;
pub use mass_spring::{
    ContactTally, Equilibrium, IntegrateOptions, Integrator, SpringBody, SpringError, SpringGroup, SpringLaw,
    Trajectory,
};
pub use model::{
    BodyKind, Fold, MASSES_SETTING, MAX_PARAMETERS, MAX_SETTINGS, Model, ModelDef, ModelKind, ModelRule, ParameterSpec,
    ProjectionRule, RuleSettings, Scale, SettingSpec, SimParams, UnitWhen,
};
pub use potentials::SpringPotential;
pub use resolution::MIN_STEP_MOTION;
pub use rest_state::{Precision, RestMethod, RestOptions, RestState, RootSolve, accept_rest_state, diverged};
pub use sensitivity::{Differences, Sensitivity, SensitivityOptions};
pub use system::{Dynamics, PbdSystem};
pub use tetrahedra::{MAX_TETRAHEDRON_TERMS, TetGeometry, TetrahedronConstraint, TetrahedronTerm};

/// A 3-vector in m (positions, displacements) or m/s (velocities).
pub type Vec3 = nalgebra::Vector3<f64>;
