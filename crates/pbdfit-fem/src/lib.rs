//! # pbdfit-fem
//!
//! The physical reference of pbdfit: small-strain isotropic linear elasticity on linear (4-node)
//! tetrahedra, solved for the static equilibrium of a body under gravity (docs/rest-states-and-references.md
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
//! - [`solve_static`], [`StaticProblem`] and [`FemSolution`]: displacements and reactions;
//! - unilateral contact and Coulomb friction against rigid obstacles for every law
//!   ([`contact`]: a primal-dual active set inside Newton's load stepping; [`ContactSolution`]).
//!
//! ## Units and conventions
//!
//! SI throughout: lengths and displacements in m, forces in N, E and stresses in Pa, masses in kg,
//! gravity in m/s^2. Displacements are `u = x - X` (current minus rest position), indexed like the mesh
//! vertices (docs/method.md's numbering). Strains use Voigt order `[xx, yy, zz, yz, xz, xy]` with
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
//!   Its sparse products are not used for the multigrid's Galerkin operators `P^T K P`: a product
//!   written for the 3 x 3 vertex blocks (the prolongation acts on x, y and z alike, so one weight and
//!   one index serve nine entries) gives the block matrices the smoother needs directly. At N = 32 all
//!   of the multigrid's per-matrix setup (fine matrix to blocks, every level's product, the coarsest
//!   factor, one V-cycle) takes 0.17-0.22 s, about what nalgebra-sparse's scalar `P^T (K P)` takes
//!   for the finest product alone (0.18-0.21 s, `solver_comparison -- 32 --galerkin-product`), whose
//!   result would still have to be converted to blocks. faer's sparse product is scalar too and was
//!   not tried.
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
//! ## Multigrid for the unit cube: measured
//!
//! For the unit cube at even N, [`MultigridCg`] (conjugate gradients preconditioned by one geometric
//! multigrid V-cycle: trilinear prolongation, Galerkin coarse operators, one symmetric block
//! Gauss-Seidel sweep before and after each coarse correction, coarsest level N = 2 or odd by faer's
//! Cholesky; [`multigrid`]) needs about the same number of iterations at every N, where Jacobi CG's
//! count doubles when N doubles. GravityFloor cube, E = 1e3 Pa, release build, same machine and load
//! (load average 3-3.7 on 2 cores while measuring, so a quiet machine is faster; faer and Jacobi CG
//! took 10.5 s and 1.9 s at N = 32, nu = 0.3, on a quieter one), from
//! `cargo run --release -p pbdfit-fem --example solver_comparison -- N nu --skip-nalgebra`. Solve time
//! given the assembled `K` and `f`: faer best of 3 (symbolic analysis included), Jacobi CG one run,
//! multigrid best of 3 (its per-matrix setup included; the hierarchy from the mesh, 0.005 s at N = 32,
//! is built once per [`StaticProblem`]):
//!
//! | N (unknowns) | nu | faer Cholesky | Jacobi CG | multigrid CG (iterations) | multigrid vs faer |
//! | --- | --- | --- | --- | --- | --- |
//! | 16 (13,872) | 0.3 | 0.136 s | 0.084 s | 0.031 s (17) | 9.0e-14 |
//! | 16 (13,872) | 0.49 | 0.143 s | 0.409 s | 0.127 s (69) | 2.9e-13 |
//! | 24 (45,000) | 0.3 | 2.13 s | 0.573 s | 0.136 s (18) | 7.6e-14 |
//! | 24 (45,000) | 0.49 | 2.02 s | 2.11 s | 0.418 s (70) | 5.0e-13 |
//! | 32 (104,544) | 0.3 | 11.9 s | 1.96 s | 0.475 s (18) | 9.7e-14 |
//! | 32 (104,544) | 0.49 | 14.1 s | 7.33 s | 1.11 s (71) | 1.3e-12 |
//!
//! (last column: max difference to faer relative to the largest displacement). Two more runs of the
//! same build at N = 32 under the same load gave 0.37 and 0.55 s (nu = 0.3), 0.92 and 1.46 s
//! (nu = 0.49), so the N = 32 solve stays within 2 s at both ratios. Iterations at nu = 0.3 are 17 from N = 8 to N = 20 and 18 at
//! N = 24 and 32; at nu = 0.49, 64-71 (the point smoother and the coarse grids of linear tetrahedra
//! resolve nearly incompressible modes poorly, so the count is higher, but it still does not grow
//! with N).
//!
//! Smoother, by measurement at N = 32 (iterations at nu = 0.3 / 0.49): one symmetric block
//! Gauss-Seidel sweep 18 / 71, two sweeps 11 / 43, three sweeps - / 33; damped block Jacobi with
//! omega = 0.6, one sweep 27 / 89, three sweeps - / 52; with omega = 0.7 the V-cycle is not positive
//! definite at nu = 0.49 (CG stops with [`FemError::NotPositiveDefinite`]). Wall times of one and two
//! Gauss-Seidel sweeps and of Jacobi with one were within the load's noise of each other (1.5-1.8 s at
//! nu = 0.49, measured before the lower and upper triangles got their own copies, which made the
//! first sweep three times faster). More sweeps on the coarse levels only (two or four times the
//! fine level's) saved 2-4 of the 71 iterations at nu = 0.49 and cost more time than they saved
//! (1.18 and 1.35 s against 1.04 s), so the fine level's smoothing, not the coarse solve, limits
//! convergence there. One Gauss-Seidel sweep is the default: it needs no damping factor (it is a convergent
//! smoother for any SPD matrix) and reads the fine matrix the fewest times per iteration (the first
//! sweep starts from zero and reads only the lower triangle, the residual after it only the upper).
//!
//! [`AutoSolver`] uses multigrid from [`MULTIGRID_THRESHOLD_DOFS`] = 1e4 unknowns on, where the mesh has
//! a hierarchy. Below N = 16 the two are close (multigrid vs faer, nu = 0.3 / 0.49): N = 10 (3,630
//! unknowns) 0.008 / 0.013 s vs 0.014 / 0.010 s; N = 12 (6,084) 0.009 / 0.022 s vs 0.024 / 0.024 s;
//! N = 14 (9,450) 0.017 / 0.041 s vs 0.060 / 0.063 s. From N = 12 on multigrid is never slower;
//! the threshold is set higher, above every mesh of the project's committed results and tests
//! (N <= 10) with a margin, so that none of them changes, and where the gain is a factor of 1.1 or
//! more. Solutions above it differ from the direct solver's at the 1e-13 to 1e-12 level (the table's
//! last column). Odd N and imported meshes keep faer (and Jacobi CG above [`CG_THRESHOLD_DOFS`]); the
//! other tetrahedral splits of the cube ([`pbdfit_mesh::CubeSplit`]) share its vertex grid and use
//! multigrid too.
//!
//! ## Contact: measured
//!
//! A body with obstacles ([`pbdfit_mesh::Obstacle`]) gets a contact problem from [`StaticProblem::new`];
//! its static solves (and so [`ReferenceSpec::displacements`]) run the active-set Newton method of
//! [`contact`] for every law, the dynamic solve refuses it ([`FemError::ContactUnsupported`]). From
//! `tests/fem_tests/contact.rs` (dev profile, 2-core machine under load):
//!
//! - Hertz (rigid sphere R = 1 m, d = 6.25e-4 m into a linear block forty contact radii wide, quarter
//!   model with rollers, graded grid): force error +30.1, +14.9, +8.9, +6.9 % at 882, 3,630, 9,450 and
//!   19,494 unknowns (first order in the cell size at the contact; the finite block's own stiffening,
//!   about 1.8 %, is the floor), 3-5 iterations, 5-10 s for the finest.
//! - Frictionless contact of a face equals the roller condition solved by symmetry with the Dirichlet
//!   solver to 1e-10 of the largest displacement.
//! - A block on an incline (mu_s = 0.5, mu_k = 0.4, nu = 0, no held vertex): all 16 contacts stick at
//!   tan theta = 0.05 and 0.1; the trailing edge slips partially at 0.2 (2 contacts) and 0.3 (7; the split
//!   depends on the iteration's path where mu_k < mu_s); it slides ([`FemError::Sliding`]) at 0.45, 0.55
//!   and 1.
//! - A resting cube whose bottom corners all slip outwards (nu 0.4 to 0.49) rests: the slipping
//!   friction forces cancel (net 0 to round-off), Coulomb's law and balance hold.
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
pub mod contact;
mod dynamic;
pub mod element;
mod error;
pub mod material;
pub mod materials;
mod modes;
pub mod multigrid;
mod newton;
mod nonlinear;
mod reference_spec;
pub mod shell;
pub mod solver;
mod static_equilibrium;
mod static_solve;

pub use contact::{ContactForce, ContactSettings, ContactSolution, ContactState, GAP_TOLERANCE};
pub use dynamic::{
    DynamicProgress, DynamicSettings, DynamicSolution, DynamicStart, DynamicState, MAX_DYNAMIC_STEPS, MassMatrix,
    RestRule, TimeIntegrator,
};
pub use element::element_stiffness;
pub use error::{FemError, MaterialError};
pub use material::{LameParameters, YoungPoisson};
pub use modes::{MODE_ITERATIONS, MODE_TOLERANCE, Modes};
pub use multigrid::{MultigridCg, MultigridSolve, Smoother};
pub use newton::NewtonSettings;
pub use nonlinear::NonlinearSolution;
pub use reference_spec::{DAMPING, ReferenceSpec, Solve};
pub use solver::{
    AutoSolver, CG_THRESHOLD_DOFS, FaerCholesky, FaerLu, JacobiCg, LinearSolver, MULTIGRID_THRESHOLD_DOFS,
    NalgebraCholesky,
};
pub use static_solve::{FemSolution, StaticProblem, reactions, solve_static};
