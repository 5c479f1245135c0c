//! The force law of a mass-spring model ([`SpringLaw`] and its validation) and why a mass-spring
//! computation has no result ([`SpringError`]).

/// The force law of a body solved by Newton on its vertices: springs on the edges, a volume penalty and
/// PyBullet's stable neo-Hookean per tetrahedron (`neo_hookean.rs`) and MuJoCo's flex shell on a sheet
/// (`mujoco_flex.rs`), each switched off by a zero. Every
/// constant enters the elastic force linearly, which the parameter sensitivities use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringLaw {
    /// Spring constant (N/m), >= 0, of every edge of a solid and of a sheet's structural springs
    /// ([`SpringGroup::Structural`](super::SpringGroup)).
    pub ks: f64,
    /// Spring constant of a sheet's shear springs (N/m), >= 0 (a solid has none).
    pub ks_shear: f64,
    /// Spring constant of a sheet's bending springs (N/m), >= 0 (a solid has none).
    pub ks_bend: f64,
    /// Volume penalty of every tetrahedron (Pa), >= 0 (0: none).
    pub kvol: f64,
    /// Spring damping `c` (N s/m), >= 0: force `c ((v2 - v1) . n) n` on the first particle.
    pub damping: f64,
    /// PyBullet's stable neo-Hookean per tetrahedron (`btDeformableNeoHookeanForce`): the `mu` it is
    /// given (Pa), >= 0 (0 with `lambda` 0: none).
    pub mu: f64,
    /// The same law's `lambda` (Pa), >= 0.
    pub lambda: f64,
    /// MuJoCo's flex shell on a sheet: its membrane's `mu h` (N/m; the shear modulus `E / (2 (1 + nu))`
    /// times the thickness), >= 0 (0 with `membrane_lambda` 0: no membrane).
    pub membrane_mu: f64,
    /// The flex membrane's `lambda h` (N/m; plane stress's `E nu / (1 - nu^2)` times the thickness),
    /// >= 0.
    pub membrane_lambda: f64,
    /// The flex shell's bending modulus `D = E h^3 / (12 (1 - nu^2))` (N m; its stiffness per hinge is
    /// `D / (A_1 + A_2)`), >= 0 (0: none).
    pub bending: f64,
}

impl SpringLaw {
    /// No force at all: the base for a law that names only its own constants (`..SpringLaw::NONE`).
    pub const NONE: SpringLaw = SpringLaw {
        ks: 0.0,
        ks_shear: 0.0,
        ks_bend: 0.0,
        kvol: 0.0,
        damping: 0.0,
        mu: 0.0,
        lambda: 0.0,
        membrane_mu: 0.0,
        membrane_lambda: 0.0,
        bending: 0.0,
    };

    /// How many constants the elastic force is linear in ([`Self::elastic_constants`]).
    pub(crate) const ELASTIC: usize = 9;

    /// The constants the elastic force is linear in, in this order (the parameter sensitivities' rates).
    pub(crate) fn elastic_constants(&self) -> [f64; Self::ELASTIC] {
        [
            self.ks,
            self.kvol,
            self.mu,
            self.lambda,
            self.ks_shear,
            self.ks_bend,
            self.membrane_mu,
            self.membrane_lambda,
            self.bending,
        ]
    }

    /// The law with these elastic constants (`elastic_constants`' order) and no damping.
    pub(crate) fn with_elastic_constants(c: [f64; Self::ELASTIC]) -> SpringLaw {
        SpringLaw {
            ks: c[0],
            kvol: c[1],
            mu: c[2],
            lambda: c[3],
            ks_shear: c[4],
            ks_bend: c[5],
            membrane_mu: c[6],
            membrane_lambda: c[7],
            bending: c[8],
            damping: 0.0,
        }
    }

    /// The spring constant of a spring of `group` (N/m).
    pub(crate) fn spring_constant(&self, group: super::SpringGroup) -> f64 {
        match group {
            super::SpringGroup::Structural => self.ks,
            super::SpringGroup::Shear => self.ks_shear,
            super::SpringGroup::Bend => self.ks_bend,
        }
    }

    /// Whether it has PyBullet's neo-Hookean tetrahedra.
    pub(crate) fn has_neo_hookean(&self) -> bool {
        self.mu > 0.0 || self.lambda > 0.0
    }

    /// The flex shell's constants `(mu h, lambda h, D)`.
    pub(crate) fn flex_constants(&self) -> (f64, f64, f64) {
        (self.membrane_mu, self.membrane_lambda, self.bending)
    }

    /// Checks that every constant is finite and >= 0.
    pub fn validate(&self) -> Result<(), SpringError> {
        for (name, value) in [
            ("ks", self.ks),
            ("ks_shear", self.ks_shear),
            ("ks_bend", self.ks_bend),
            ("kvol", self.kvol),
            ("damping", self.damping),
            ("mu", self.mu),
            ("lambda", self.lambda),
            ("membrane_mu", self.membrane_mu),
            ("membrane_lambda", self.membrane_lambda),
            ("bending", self.bending),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(SpringError::InvalidParameter { name, value });
            }
        }
        Ok(())
    }
}

/// Why a mass-spring computation has no result. Complete sentences; the caller adds model and scene.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpringError {
    /// A constant is negative or not finite.
    #[error("{name} = {} must be a finite number >= 0", pbdfit_mesh::display::exact(*.value))]
    InvalidParameter {
        /// Name (`ks`, `ks_shear`, `ks_bend`, `kvol`, `damping`, `mu`, `lambda`, `membrane_mu`,
        /// `membrane_lambda`, `bending`, `dt`).
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// Newton found no equilibrium.
    #[error(
        "Newton's method found no static equilibrium after {iterations} iterations (relative residual \
         {residual:.3e}, needed 1e-12); try a smaller load, stiffer springs or a different model"
    )]
    NewtonFailed {
        /// Iterations done.
        iterations: usize,
        /// Relative residual reached.
        residual: f64,
    },
    /// An integrator without contact was asked to run a body with obstacles.
    #[error(
        "{integrator} has no contact model: a body with obstacles runs with verlet (microcollisions and dry \
         friction)"
    )]
    ContactIntegrator {
        /// Integrator name.
        integrator: &'static str,
    },
    /// A run with contact did not come to rest.
    #[error(
        "the body did not come to rest on its obstacles within {steps} Verlet steps of {dt:.3e} s; it may be \
         sliding off them"
    )]
    NotSettled {
        /// Steps done.
        steps: usize,
        /// The step in s.
        dt: f64,
    },
    /// A run with contact reached the caller's wall-clock limit (a fit's `--max-seconds`) before it came
    /// to rest.
    #[error(
        "the fit's time limit (--max-seconds) passed after {steps} Verlet steps of {dt:.3e} s, before the body \
         came to rest on its obstacles; a longer limit lets it settle (up to {max_steps} steps)"
    )]
    TimeLimit {
        /// Steps done.
        steps: usize,
        /// The step in s.
        dt: f64,
        /// The steps a settling run may take.
        max_steps: usize,
    },
    /// An explicit run blew up.
    #[error(
        "{integrator} diverged at step {step} with dt = {dt} s: the estimated stability limit is about \
         2 / omega_max = {limit:.3e} s (omega_max^2 the largest eigenvalue of M^-1 K){note}; {remedy}"
    )]
    Diverged {
        /// Integrator name.
        integrator: &'static str,
        /// The step in s.
        dt: f64,
        /// Step at which it was detected.
        step: usize,
        /// Estimated limit `2 / omega_max` in s.
        limit: f64,
        /// What else limits this integrator (empty when nothing).
        note: &'static str,
        /// What to change: the integrators there are for this body.
        remedy: &'static str,
    },
    /// The run was asked to stop ([`pbdfit_mesh::cancel`]).
    #[error(transparent)]
    Cancelled(#[from] pbdfit_mesh::cancel::Cancelled),
}
