//! The force law of a mass-spring model ([`SpringLaw`] and its validation) and why a mass-spring
//! computation has no result ([`SpringError`]).

/// The force law of a mass-spring model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringLaw {
    /// Spring constant of every edge (N/m), >= 0.
    pub ks: f64,
    /// Volume penalty of every tetrahedron (Pa), >= 0 (0: none).
    pub kvol: f64,
    /// Spring damping `c` (N s/m), >= 0: force `c ((v2 - v1) . n) n` on the first particle.
    pub damping: f64,
}

impl SpringLaw {
    /// Checks that every constant is finite and >= 0.
    pub fn validate(&self) -> Result<(), SpringError> {
        for (name, value) in [("ks", self.ks), ("kvol", self.kvol), ("damping", self.damping)] {
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
    #[error("{name} = {value} must be a finite number >= 0")]
    InvalidParameter {
        /// Name (`ks`, `kvol`, `damping`, `dt`).
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
}
