//! The static equilibrium `K u = f` of a body under gravity: the FEM rest state.

use std::time::Instant;

use nalgebra::Vector3;
use pbdfit_mesh::{Body, TetMesh};

use crate::assembly::Assembler;
use crate::contact::ContactSetup;
use crate::solver::{AutoSolver, LinearSolver};
use crate::{FemError, MultigridCg, YoungPoisson};

/// The result of a static solve.
#[derive(Debug, Clone, PartialEq)]
pub struct FemSolution {
    /// Displacement of every vertex in m, in the mesh's vertex numbering; the prescribed value (zero for
    /// held vertices) at constrained vertices.
    pub displacements: Vec<Vector3<f64>>,
    /// Number of unknowns solved for (3 per free vertex).
    pub dofs: usize,
    /// Which linear solver ran.
    pub solver: &'static str,
    /// Wall time building `K` and `f`, in s (including the sparsity pattern when it was built for this
    /// solve, as in [`solve_static`]).
    pub assembly_seconds: f64,
    /// Wall time of the linear solve (factorisation and substitution), in s.
    pub solve_seconds: f64,
}

impl FemSolution {
    /// The largest vertex displacement norm, max_v |u_v|, in m.
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }
}

/// A static problem whose mesh, constraints and loads are fixed and whose material varies: the sparsity
/// pattern and element gradients are computed once, so repeated solves (a fit over many Poisson ratios)
/// only assemble values and factorise.
///
/// ```
/// use pbdfit_fem::{StaticProblem, YoungPoisson};
/// let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap();
/// let problem = StaticProblem::new(&body).unwrap();
/// for nu in [0.0, 0.25, 0.45] {
///     let u = problem.solve(YoungPoisson::new(1e3, nu).unwrap()).unwrap();
///     assert!(u.max_displacement() > 0.0);
/// }
/// ```
#[derive(Debug, Clone)]
pub struct StaticProblem {
    pub(crate) assembler: Assembler,
    pub(crate) loads: Vec<Vector3<f64>>,
    pub(crate) prescribed: Vec<Vector3<f64>>,
    /// Keeps the symbolic factorisation between solves: the pattern never changes.
    pub(crate) solver: AutoSolver,
    /// Vertex masses (kg) of the body, for dynamics; `None` for a problem built without a body.
    pub(crate) masses: Option<Vec<f64>>,
    /// Obstacles (and rollers) of a contact problem ([`contact`](crate::contact)); `None` without.
    pub(crate) contact: Option<ContactSetup>,
}

impl StaticProblem {
    /// The body's problem: held vertices fixed at their prescribed displacement (zero for a plain held
    /// vertex), load `masses * gravity + forces` on every vertex (its weight and any traction). A body
    /// with obstacles gets a contact problem ([`with_obstacles`](Self::with_obstacles)): its static
    /// solves ([`solve`](Self::solve), [`solve_law`](Self::solve_law)) model contact and friction, and it
    /// may have no held vertex.
    pub fn new(body: &Body) -> Result<Self, FemError> {
        let nv = body.mesh.vertices().len();
        if body.masses.len() != nv {
            return Err(FemError::SizeMismatch { what: "masses", expected: nv, got: body.masses.len() });
        }
        let mut problem = if body.obstacles.is_empty() {
            Self::with_dirichlet(&body.mesh, &body.held, body.prescribed.clone(), body.external_forces())?
        } else {
            Self::with_obstacles(
                &body.mesh,
                &body.held,
                body.prescribed.clone(),
                body.external_forces(),
                body.obstacles.clone(),
            )?
        };
        problem.masses = Some(body.masses.clone());
        Ok(problem)
    }

    /// The same problem with vertex masses (kg) for dynamic solves.
    pub fn with_masses(mut self, masses: Vec<f64>) -> Result<Self, FemError> {
        let nv = self.assembler.dof_map().vertices();
        if masses.len() != nv {
            return Err(FemError::SizeMismatch { what: "masses", expected: nv, got: masses.len() });
        }
        self.masses = Some(masses);
        Ok(self)
    }

    /// A general problem: `constrained[v]` vertices have the displacement `prescribed[v]` (m; ignored at
    /// free vertices), and `loads[v]` (N) act on every vertex. The constrained vertices must stop every
    /// rigid motion: at least three of them, not on one line.
    pub fn with_dirichlet(
        mesh: &TetMesh,
        constrained: &[bool],
        prescribed: Vec<Vector3<f64>>,
        loads: Vec<Vector3<f64>>,
    ) -> Result<Self, FemError> {
        let nv = mesh.vertices().len();
        for (what, len) in
            [("constrained flags", constrained.len()), ("prescribed", prescribed.len()), ("loads", loads.len())]
        {
            if len != nv {
                return Err(FemError::SizeMismatch { what, expected: nv, got: len });
            }
        }
        check_rigid_motion_is_stopped(mesh, constrained)?;
        let assembler = Assembler::new(mesh, constrained)?;
        let mut solver = AutoSolver::default();
        // The multigrid hierarchy only where AutoSolver would use it (the study's meshes never do).
        if assembler.dof_map().dofs() >= solver.multigrid_from_dofs {
            solver.multigrid = MultigridCg::for_mesh(mesh, constrained);
        }
        Ok(Self { assembler, loads, prescribed, solver, masses: None, contact: None })
    }

    /// A contact problem: as [`with_dirichlet`](Self::with_dirichlet), and every free vertex must stay
    /// out of every obstacle ([`contact`](crate::contact)). The held vertices need not stop rigid motion
    /// (a body may rest on an obstacle with none held): the contact solve checks that the held vertices
    /// and the contacts together do. Without obstacles this is `with_dirichlet`.
    pub fn with_obstacles(
        mesh: &TetMesh,
        constrained: &[bool],
        prescribed: Vec<Vector3<f64>>,
        loads: Vec<Vector3<f64>>,
        obstacles: Vec<pbdfit_mesh::Obstacle>,
    ) -> Result<Self, FemError> {
        if obstacles.is_empty() {
            return Self::with_dirichlet(mesh, constrained, prescribed, loads);
        }
        let nv = mesh.vertices().len();
        for (what, len) in
            [("constrained flags", constrained.len()), ("prescribed", prescribed.len()), ("loads", loads.len())]
        {
            if len != nv {
                return Err(FemError::SizeMismatch { what, expected: nv, got: len });
            }
        }
        let assembler = Assembler::new(mesh, constrained)?;
        let contact = Some(ContactSetup::new(mesh.vertices(), obstacles));
        Ok(Self { assembler, loads, prescribed, solver: AutoSolver::default(), masses: None, contact })
    }

    /// Number of unknowns.
    pub fn dofs(&self) -> usize {
        self.assembler.dof_map().dofs()
    }

    /// The assembler (for access to the reduced matrix, e.g. to compare solvers).
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// Nodal loads in N.
    pub fn loads(&self) -> &[Vector3<f64>] {
        &self.loads
    }

    /// Solves with the given linear solver. Refuses a contact problem ([`FemError::ContactUnsupported`]): use
    /// [`solve`](Self::solve) or [`solve_contact`](Self::solve_contact).
    pub fn solve_with(&self, material: YoungPoisson, solver: &dyn LinearSolver) -> Result<FemSolution, FemError> {
        if self.contact.is_some() {
            return Err(FemError::ContactUnsupported(self.obstacles().len()));
        }
        let start = Instant::now();
        let (k, f) = self.assembler.assemble(material, &self.loads, &self.prescribed)?;
        let assembled = Instant::now();
        let u = solver.solve(&k, &f)?;
        let solved = Instant::now();
        let map = self.assembler.dof_map();
        let displacements = (0..map.vertices())
            .map(|v| match map.dof(v, 0) {
                Some(d) => Vector3::new(u[d], u[d + 1], u[d + 2]),
                None => self.prescribed[v],
            })
            .collect();
        Ok(FemSolution {
            displacements,
            dofs: map.dofs(),
            solver: solver.name(),
            assembly_seconds: (assembled - start).as_secs_f64(),
            solve_seconds: (solved - assembled).as_secs_f64(),
        })
    }

    /// Reactions `K u - f` (N) at the constrained vertices, as `(vertex, force)` in vertex order: the force
    /// each support exerts on the body. In equilibrium they balance the loads, so for a body under
    /// gravity they sum to minus its weight vector.
    pub fn reactions(&self, material: YoungPoisson, displacements: &[Vector3<f64>]) -> Vec<(usize, Vector3<f64>)> {
        let internal = self.assembler.internal_forces(material, displacements);
        let map = self.assembler.dof_map();
        (0..map.vertices()).filter(|&v| map.is_constrained(v)).map(|v| (v, internal[v] - self.loads[v])).collect()
    }
}

/// Rejects constraint sets that leave a rigid motion free: none, or all constrained vertices on one line
/// (a rotation about it would be free). Collinearity is judged relative to the mesh size.
fn check_rigid_motion_is_stopped(mesh: &TetMesh, constrained: &[bool]) -> Result<(), FemError> {
    let points: Vec<Vector3<f64>> =
        mesh.vertices().iter().zip(constrained).filter(|(_, c)| **c).map(|(p, _)| *p).collect();
    let Some(&p0) = points.first() else {
        return Err(FemError::NotHeld("no vertex is held, so the body could move freely".into()));
    };
    let scale = mesh
        .vertices()
        .iter()
        .fold((Vector3::repeat(f64::INFINITY), Vector3::repeat(f64::NEG_INFINITY)), |(lo, hi), p| {
            (lo.inf(p), hi.sup(p))
        });
    // In units of the body's largest side, so that the squares below neither underflow (a mesh scaled
    // to 1e-100 m was "on one line") nor overflow.
    let side = (scale.1 - scale.0).max();
    let unit = |p: &Vector3<f64>| (p - p0) / side;
    let far = points.iter().map(unit).max_by(|a, b| a.norm().total_cmp(&b.norm())).unwrap_or_else(Vector3::zeros);
    let size = ((scale.1 - scale.0) / side).norm();
    let off_line = points.iter().map(|p| unit(p).cross(&far).norm()).fold(0.0, f64::max);
    if off_line.is_nan() || off_line <= 1e-9 * size * size {
        return Err(FemError::NotHeld(format!(
            "the {} held vertices lie on one line, so the body could rotate about it",
            points.len()
        )));
    }
    Ok(())
}

/// The FEM rest state of a body under gravity: solves `K u = f` with held vertices fixed, `f = masses *
/// gravity`, with the solver [`StaticProblem::solve`] picks (sparse Cholesky for the study's meshes).
///
/// ```
/// use pbdfit_fem::{YoungPoisson, solve_static};
/// let body = pbdfit_mesh::SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(1).unwrap();
/// let u = solve_static(&body, YoungPoisson::new(1e3, 0.3).unwrap()).unwrap();
/// // Methodology reference value (scikit-fem), 1e-9 relative.
/// assert!((u.max_displacement() / 4.6201726251e-3 - 1.0).abs() < 1e-9);
/// assert_eq!(u.dofs, 12);
/// ```
pub fn solve_static(body: &Body, material: YoungPoisson) -> Result<FemSolution, FemError> {
    let start = Instant::now();
    let problem = StaticProblem::new(body)?;
    let setup = start.elapsed().as_secs_f64();
    let mut solution = problem.solve(material)?;
    solution.assembly_seconds += setup;
    Ok(solution)
}

/// Reactions at the held vertices of `body` for a solution of [`solve_static`]: `(vertex, force in N)`,
/// `K u - f` at the held DOFs. They sum to `-(total mass) * gravity`.
pub fn reactions(
    body: &Body,
    material: YoungPoisson,
    solution: &FemSolution,
) -> Result<Vec<(usize, Vector3<f64>)>, FemError> {
    Ok(StaticProblem::new(body)?.reactions(material, &solution.displacements))
}
