//! # pbdfit-fem
//!
//! The physical reference of pbdfit: small-strain isotropic linear elasticity on linear (4-node)
//! tetrahedra, solved for the static equilibrium of a body under gravity (methodology, section FEM
//! reference). The rest state of a damped FEM simulation is exactly this static solution, so the
//! reference is one sparse symmetric positive definite solve, not a time loop.
//!
//! This crate owns:
//! - [`YoungPoisson`] / [`LameParameters`]: validated material parameters (E > 0, -1 < nu < 0.5) and the
//!   volumetric-locking warning above nu = 0.499 ([`material`]);
//! - the element: shape-function gradients, `B`, `D` and `Ke = V B^T D B` ([`element`]);
//! - assembly of the reduced global stiffness with held DOFs eliminated, and the gravity load
//!   ([`assembly`]);
//! - the [`LinearSolver`] trait with a sparse Cholesky default and a conjugate-gradient fallback for large
//!   systems ([`solver`]), and conjugate gradients preconditioned by a geometric multigrid V-cycle for
//!   the unit-cube meshes ([`multigrid`]);
//! - [`solve_static`], [`StaticProblem`] and [`FemSolution`]: displacements and reactions.
//!
//! ## Units and conventions
//!
//! SI throughout: lengths and displacements in m, forces in N, E and stresses in Pa, masses in kg,
//! gravity in m/s^2. Displacements are `u = x - X` (current minus rest position), indexed like the mesh
//! vertices (the methodology's numbering). Strains use Voigt order `[xx, yy, zz, yz, xz, xy]` with
//! engineering shear (`gamma = 2 eps`), so the shear diagonal of `D` is `mu = E / (2 (1 + nu))`.
//! The load is `masses * gravity` per vertex (with lumped masses this is the consistent load of linear
//! tetrahedra, a quarter of each tetrahedron's weight per node; with the uniform mass model it is that
//! model's weight). Reactions are `K u - f` at held vertices: the force the support exerts on the body,
//! so they sum to minus the body's weight vector (upwards for gravity along -y).
//!
//! ## Dependencies, and why
//!
//! - `pbdfit-mesh`: the [`Body`](pbdfit_mesh::Body) (mesh, masses, held set, gravity) this crate
//!   consumes; the crate to its left in the data flow.
//! - `nalgebra`: fixed-size element algebra (`SMatrix<f64, 12, 12>`), as elsewhere in the workspace.
//! - `nalgebra-sparse`: the global matrix type (CSC, both triangles stored), shared with any solver.
//!   Its sparse products are not used for the multigrid's Galerkin operators `P^T K P`: a block
//!   product written for the 3 x 3 vertex blocks (the prolongation acts on x, y and z alike) builds
//!   every level's operator, converts the fine matrix to blocks and factorises the coarsest level in
//!   0.09-0.12 s at N = 32 (with one V-cycle), where nalgebra-sparse's scalar `P^T (K P)` takes
//!   0.14-0.15 s for the finest product alone and yields a scalar matrix the block smoother cannot use
//!   (`solver_comparison -- 32 --galerkin-product`). faer's sparse product works on the same scalar
//!   structure and was not tried.
//! - `faer` (`sparse-linalg`): the sparse Cholesky with AMD fill-reducing ordering. nalgebra-sparse's
//!   own `CscCholesky` has no ordering and is far slower (figures below). It also factorises the
//!   multigrid's coarsest level.
//! - `thiserror`: error types with messages that name the bad value and the allowed range.
//!
//! ## Solver choice: measured
//!
//! GravityFloor cube, N = 18: 6,859 vertices, 29,160 tetrahedra, 19,494 unknowns, 704,844 stored entries
//! of `K` (both triangles). Release build, single-threaded, on a 2-core machine shared with other builds
//! (load average about 2.5-3, so the figures vary by some 30 % between runs; two runs shown). Time for
//! one complete solve (symbolic analysis, numeric factorisation, substitution), from
//! `cargo run --release -p pbdfit-fem --example solver_comparison -- 18 [nu]`:
//!
//! | solver | nu = 0.3 | nu = 0.49 | max difference to faer |
//! | --- | --- | --- | --- |
//! | faer sparse Cholesky, AMD ([`FaerCholesky`]) | 0.27 s / 0.41 s | 0.28 s | - |
//! | nalgebra-sparse `CscCholesky`, no ordering ([`NalgebraCholesky`]) | 16.4 s / 20.7 s | not run | 1.9e-13 relative |
//! | Jacobi-preconditioned CG, rtol 1e-12 ([`JacobiCg`]) | 0.11 s / 0.18 s | 0.65 s | 4.8e-14 (nu = 0.3), 2.8e-13 (0.49) |
//!
//! faer is 51-62 times faster than nalgebra-sparse's Cholesky (whose factor of the vertex-ordered matrix
//! fills the whole band), and the two agree to round-off, so faer is the default. Conjugate gradients
//! are competitive at this size for a well-conditioned material but slow down as nu approaches 0.5 (the
//! condition number grows with lambda / mu), while the direct solver's cost does not depend on nu; CG
//! takes over only above [`CG_THRESHOLD_DOFS`] = 2e5 unknowns, where the memory of a direct factor
//! grows faster than the matrix. Assembly of this mesh takes 0.04-0.07 s. For the N = 1..4 meshes of the
//! study a whole [`solve_static`] takes from about 0.01 ms (N = 1, 12 unknowns) to about 1 ms (N = 4,
//! 300 unknowns).
//!
//! ## Example
//!
//! ```
//! use pbdfit_fem::{YoungPoisson, solve_static};
//! let set = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap();
//! let body = set.scenes()[0].body(4).unwrap();
//! let u = solve_static(&body, YoungPoisson::new(1e3, 0.3).unwrap()).unwrap();
//! assert!((u.max_displacement() / 2.6792241782e-2 - 1.0).abs() < 1e-9);
//! ```

pub mod assembly;
mod dynamic;
pub mod element;
mod error;
pub mod material;
pub mod materials;
pub mod multigrid;
mod nonlinear;
mod reference_spec;
pub mod solver;
mod static_solve;

pub use dynamic::{DynamicSettings, DynamicSolution, MassMatrix, RestRule};
pub use element::element_stiffness;
pub use error::{FemError, MaterialError};
pub use material::{LameParameters, YoungPoisson};
pub use multigrid::{MultigridCg, MultigridSolve, Smoother};
pub use nonlinear::{NewtonSettings, NonlinearSolution};
pub use reference_spec::{ReferenceSpec, Solve};
pub use solver::{
    AutoSolver, CG_THRESHOLD_DOFS, FaerCholesky, FaerLu, JacobiCg, LinearSolver, MULTIGRID_THRESHOLD_DOFS,
    NalgebraCholesky,
};
pub use static_solve::{FemSolution, StaticProblem, reactions, solve_static};
