//! The static solves' entry points, above the solves without and with contact: a problem with
//! obstacles or rollers goes to the contact solve ([`contact`](crate::contact)), any other to the linear
//! solve ([`solve_with`](StaticProblem::solve_with)) or to Newton's load stepping (`nonlinear.rs`). The
//! contact solve uses the solve without contact, never the other way round.

use std::time::Instant;

use crate::contact::ContactSettings;
use crate::materials::Material;
use crate::{FemError, FemSolution, NewtonSettings, NonlinearSolution, StaticProblem, YoungPoisson};

impl StaticProblem {
    /// Solves with [`AutoSolver`](crate::AutoSolver): sparse Cholesky; multigrid-preconditioned conjugate
    /// gradients from [`MULTIGRID_THRESHOLD_DOFS`](crate::MULTIGRID_THRESHOLD_DOFS) = 1e4 unknowns on for
    /// unit-cube meshes of even N; Jacobi-preconditioned conjugate gradients above 2e5 unknowns for other
    /// meshes. Repeated solves reuse the symbolic factorisation (and the multigrid hierarchy).
    ///
    /// A contact problem is solved by [`solve_contact`](Self::solve_contact) with the linear law (the
    /// solver is reported as `contact-active-set`).
    pub fn solve(&self, material: YoungPoisson) -> Result<FemSolution, FemError> {
        if self.contact.is_some() {
            let start = Instant::now();
            let law = crate::materials::material("linear").expect("the linear law is registered");
            let solution = self.solve_contact(law, material)?;
            return Ok(FemSolution {
                displacements: solution.displacements,
                dofs: self.dofs(),
                solver: "contact-active-set",
                assembly_seconds: 0.0,
                solve_seconds: start.elapsed().as_secs_f64(),
            });
        }
        self.solve_with(material, self.solver.pick(self.dofs()))
    }

    /// Static equilibrium for the constitutive law `law` with the default [`NewtonSettings`].
    ///
    /// ```
    /// use pbdfit_fem::{StaticProblem, YoungPoisson, materials::material};
    /// let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(1).unwrap();
    /// let problem = StaticProblem::new(&body).unwrap();
    /// let m = YoungPoisson::new(1e3, 0.3).unwrap();
    /// let stvk = problem.solve_law(material("stvk").unwrap(), m).unwrap();
    /// let linear = problem.solve(m).unwrap();
    /// // A small load: the nonlinear law is within a few per cent of the linear solution.
    /// let ratio = stvk.max_displacement() / linear.max_displacement();
    /// assert!((ratio - 1.0).abs() < 0.05, "{ratio}");
    /// // Newton converged quadratically to the tolerance.
    /// assert!(*stvk.residuals.last().unwrap() <= 1e-10);
    /// ```
    pub fn solve_law(&self, law: &dyn Material, material: YoungPoisson) -> Result<NonlinearSolution, FemError> {
        self.solve_law_with(law, material, NewtonSettings::default())
    }

    /// Static equilibrium for `law` with the given settings. A contact problem is solved by
    /// [`solve_contact_with`](Self::solve_contact_with) (friction in its default equal increments).
    pub fn solve_law_with(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: NewtonSettings,
    ) -> Result<NonlinearSolution, FemError> {
        if self.contact.is_some() {
            // Contact problems: the active-set Newton method with these settings.
            let contact = ContactSettings {
                newton: NewtonSettings {
                    max_iterations: settings.max_iterations.max(NewtonSettings::CONTACT.max_iterations),
                    ..settings
                },
                ..Default::default()
            };
            let s = self.solve_contact_with(law, material, contact)?;
            return Ok(NonlinearSolution {
                displacements: s.displacements,
                increments: s.increments,
                halvings: s.halvings,
                iterations: s.iterations,
                residuals: vec![s.residual],
                solvers: s.solvers,
            });
        }
        self.solve_law_free(law, material, settings)
    }
}
