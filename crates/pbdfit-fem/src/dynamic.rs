//! The dynamic reference: implicit Euler in time with the study's dt until the body comes to rest (or
//! for a fixed simulated time), as the thesis let SOFA "let time pass until the rest state is achieved"
//! (docs/rest-states-and-references.md).
//!
//! Each step solves, for the displacement `u` at the end of the step,
//! `M (u - u_n - dt v_n) / dt^2 + C (u - u_n) / dt + f_int(u) = f_ext` by Newton's method, with the
//! Rayleigh damping `C = a M + b K_0` (`K_0` the tangent at rest) and `M` lumped (the body's vertex
//! masses) or consistent (linear tetrahedra with the body's mean density). Velocities are
//! `v = (u - u_n) / dt`. Rest: the largest per-step vertex displacement is at most `1e-13` of the
//! largest displacement (the relative rule of the PBD side). For a linear material run to rest the
//! result equals the static solution (a test checks it to 1e-9). Each step is the `newton` unit's system
//! `TimeStep` with [`NewtonSettings::DYNAMIC`]: Newton takes the full step (no line search: the predictor
//! is close and the mass over `dt^2` keeps the step's matrix well conditioned), and ends at a residual of
//! `1e-14`, or of `1e-9` where a step no longer halves the best residual so far (round-off).
//!
//! Implicit Euler damps the motion numerically (a mode of period `T` loses about `2 pi^2 (dt / T)` of its
//! amplitude's logarithm per period at small `dt / T`), which is right for reaching a rest state and
//! wrong for measuring motion. [`TimeIntegrator::Newmark`] is Newmark's average-acceleration rule
//! (`beta = 1/4`, `gamma = 1/2`, the trapezoidal rule), which has no numerical damping: each step solves
//!
//! ```text
//! M (4 (u - u_n - dt v_n) / dt^2 - a_n) + C (2 (u - u_n) / dt - v_n) + f_int(u) = f_ext
//! a = 4 (u - u_n - dt v_n) / dt^2 - a_n,  v = 2 (u - u_n) / dt - v_n
//! ```
//!
//! with `a_0` from `M a_0 = f_ext - f_int(u_0) - C v_0`. For a linear material without damping it keeps
//! the energy `v^T M v / 2 + u^T K u / 2 - f_ext^T u` exactly (to round-off); its only error is a period
//! elongation of about `(omega dt)^2 / 12`. [`StaticProblem::integrate`] starts from a given state and
//! reports every step's state and energies, for motion measures.

use nalgebra::Vector3;
use nalgebra_sparse::CscMatrix;

use crate::materials::Material;
use crate::newton::{Attempt, FULL_STEP, NewtonSettings, NewtonSystem, Trial, newton, norm};
use crate::solver::{CholeskyFactor, multiply};
use crate::{FemError, StaticProblem, YoungPoisson};

/// Which mass matrix the dynamics use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MassMatrix {
    /// The body's vertex masses on the diagonal (the scene's mass model).
    #[default]
    Lumped,
    /// The consistent mass of linear tetrahedra, `rho V (1 + delta_ab) / 20`, with `rho` the body's
    /// total mass over its volume.
    Consistent,
}

impl MassMatrix {
    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            MassMatrix::Lumped => "lumped",
            MassMatrix::Consistent => "consistent",
        }
    }

    /// Parses `lumped` or `consistent`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "lumped" => Some(MassMatrix::Lumped),
            "consistent" => Some(MassMatrix::Consistent),
            _ => None,
        }
    }
}

/// The time integrator of a dynamic solve (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeIntegrator {
    /// Implicit (backward) Euler: numerically damped, for running to rest.
    #[default]
    ImplicitEuler,
    /// Newmark's average acceleration (trapezoidal rule): no numerical damping, for motion.
    Newmark,
}

impl TimeIntegrator {
    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TimeIntegrator::ImplicitEuler => "implicit-euler",
            TimeIntegrator::Newmark => "newmark",
        }
    }

    /// Parses `implicit-euler` or `newmark`.
    pub fn parse(name: &str) -> Option<Self> {
        [TimeIntegrator::ImplicitEuler, TimeIntegrator::Newmark].into_iter().find(|i| i.name() == name)
    }
}

/// A dynamic solve's starting state (the undeformed body at rest unless given): displacements (m) and
/// velocities (m/s) of every vertex; held vertices keep their prescribed displacement and do not move.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicStart {
    /// Displacement per vertex (m).
    pub displacements: Vec<Vector3<f64>>,
    /// Velocity per vertex (m/s).
    pub velocities: Vec<Vector3<f64>>,
}

/// The state after a step, for an observer of [`StaticProblem::integrate`]: the step count and time, and
/// the fields and energies computed only when asked (an observer that samples every k-th step pays for
/// those steps only).
pub struct DynamicState<'a> {
    /// Steps taken (0: the start).
    pub steps: usize,
    /// Simulated time (s).
    pub time: f64,
    problem: &'a StaticProblem,
    law: &'a dyn Material,
    material: YoungPoisson,
    mass: &'a CscMatrix<f64>,
    /// Free-DOF displacements (m) and velocities (m/s).
    u: &'a [f64],
    v: &'a [f64],
}

impl DynamicState<'_> {
    /// Displacement per vertex (m; the prescribed value at held vertices).
    pub fn displacements(&self) -> Vec<Vector3<f64>> {
        self.problem.expand(self.u)
    }

    /// Velocity per vertex (m/s; zero at held vertices).
    pub fn velocities(&self) -> Vec<Vector3<f64>> {
        self.problem.expand_velocities(self.v)
    }

    /// `v^T M v / 2` (J).
    pub fn kinetic_energy(&self) -> f64 {
        let mut mv = vec![0.0; self.v.len()];
        multiply(self.mass, self.v, &mut mv);
        0.5 * self.v.iter().zip(&mv).map(|(a, b)| a * b).sum::<f64>()
    }

    /// The law's stored energy `sum_e V_e psi(F_e)` (J).
    pub fn strain_energy(&self) -> f64 {
        self.problem.assembler.strain_energy(self.law, self.material, &self.displacements())
    }

    /// The work of the (constant) loads, `f_ext^T u` over the free DOFs (J).
    pub fn load_work(&self) -> f64 {
        let zero = vec![Vector3::zeros(); self.problem.assembler.dof_map().vertices()];
        -self.problem.reduce(&zero, 1.0).iter().zip(self.u).map(|(f, x)| f * x).sum::<f64>()
    }

    /// The mechanical energy `kinetic + strain - load work` (J): constant without damping, in exact
    /// dynamics and in Newmark's for a linear material.
    pub fn energy(&self) -> f64 {
        self.kinetic_energy() + self.strain_energy() - self.load_work()
    }
}

/// The step budget of a dynamic solve ([`DynamicSettings::max_steps`] of
/// [`DynamicSettings::to_rest`]): a run to rest that takes more fails, and so does a fixed time that
/// needs more (`time / dt`), before the first step.
pub const MAX_DYNAMIC_STEPS: usize = 2_000_000;

/// When a dynamic solve stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RestRule {
    /// At rest: the largest per-step displacement at most `tolerance` times the largest displacement.
    AtRest {
        /// Relative per-step displacement (docs/method.md's 1e-13).
        tolerance: f64,
    },
    /// After a fixed simulated time in s (rounded up to whole steps).
    Time(f64),
}

/// Settings of the dynamic reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicSettings {
    /// Time step in s.
    pub dt: f64,
    /// Mass matrix.
    pub mass: MassMatrix,
    /// Rayleigh mass coefficient `a` (1/s).
    pub rayleigh_mass: f64,
    /// Rayleigh stiffness coefficient `b` (s).
    pub rayleigh_stiffness: f64,
    /// The time integrator.
    pub integrator: TimeIntegrator,
    /// When to stop.
    pub stop: RestRule,
    /// Step budget: the most steps a run to rest takes before it fails with
    /// [`FemError::NotAtRest`], and the most a fixed time may ask for ([`FemError::TooManySteps`]).
    pub max_steps: usize,
}

impl DynamicSettings {
    /// Run to rest with step `dt`, lumped mass and no Rayleigh damping (implicit Euler's own numerical
    /// damping brings the body to rest).
    pub fn to_rest(dt: f64) -> Self {
        Self {
            dt,
            mass: MassMatrix::Lumped,
            rayleigh_mass: 0.0,
            rayleigh_stiffness: 0.0,
            integrator: TimeIntegrator::ImplicitEuler,
            stop: RestRule::AtRest { tolerance: 1e-13 },
            max_steps: MAX_DYNAMIC_STEPS,
        }
    }
}

/// How far a dynamic solve has come, after each step (for a progress bar: a run to rest over 2,000,000
/// steps takes hours).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicProgress {
    /// Steps taken.
    pub steps: usize,
    /// Steps a fixed-time run takes in all; `None` for a run to rest (it ends when the body stops).
    pub total: Option<usize>,
    /// Simulated time (s).
    pub time: f64,
    /// The last step's largest vertex displacement over the largest displacement (a run to rest ends
    /// when it falls to the tolerance).
    pub ratio: f64,
}

/// A time loop's count of steps and its stop ([`RestRule`]), the solid's and the shell's: the steps a
/// simulated time takes (counted in f64 and bounded by `max_steps` before the loop: `--time 1e300 --dt
/// 0.01` ran until killed), the budget of a run to rest, the last step's ratio, the progress report after
/// each step and the at-rest test.
pub(crate) struct StepClock {
    /// Steps taken.
    pub(crate) steps: usize,
    /// The last step's largest vertex displacement over the largest displacement (infinite before the
    /// first step).
    pub(crate) ratio: f64,
    dt: f64,
    stop: RestRule,
    max_steps: usize,
    /// The steps a fixed-time run takes; `None` for a run to rest.
    total: Option<usize>,
}

impl StepClock {
    /// The clock of `settings` (its step, stop and budget), its step, Rayleigh coefficients and time
    /// checked: a bad one refused naming `solver`, a time over the budget as too many steps.
    pub(crate) fn new(settings: &DynamicSettings, solver: &'static str) -> Result<Self, FemError> {
        let dt = settings.dt;
        let invalid = |detail: String| FemError::Solver { solver, detail };
        if !(dt.is_finite() && dt > 0.0) {
            return Err(invalid(format!("time step dt = {dt} s must be a finite number > 0")));
        }
        if !(1.0 / (dt * dt)).is_finite() {
            // The step's matrix M / dt^2 + ... would overflow, which the linear solver reported as "the
            // matrix is singular".
            return Err(invalid(format!("time step dt = {dt:e} s is too small for f64: 1/dt^2 overflows")));
        }
        for (name, c) in [("a", settings.rayleigh_mass), ("b", settings.rayleigh_stiffness)] {
            if !(c.is_finite() && c >= 0.0) {
                return Err(invalid(format!("Rayleigh damping {name} = {c} must be a finite number >= 0")));
            }
        }
        let total = match settings.stop {
            RestRule::Time(t) => {
                if !(t.is_finite() && t >= 0.0) {
                    return Err(invalid(format!("simulated time {t} s must be a finite number >= 0")));
                }
                let steps = (t / dt - 1e-9).ceil().max(0.0);
                if steps > settings.max_steps as f64 {
                    return Err(FemError::TooManySteps { steps, limit: settings.max_steps, dt, time: t });
                }
                Some(steps as usize)
            }
            RestRule::AtRest { .. } => None,
        };
        Ok(Self { steps: 0, ratio: f64::INFINITY, dt, stop: settings.stop, max_steps: settings.max_steps, total })
    }

    /// Whether another step is due: not once a fixed time is reached; a run to rest past its budget is
    /// refused ([`FemError::NotAtRest`]).
    pub(crate) fn go_on(&self) -> Result<bool, FemError> {
        match (self.total, self.stop) {
            (Some(n), _) => Ok(self.steps < n),
            (None, RestRule::AtRest { tolerance }) if self.steps >= self.max_steps => Err(FemError::NotAtRest {
                steps: self.steps,
                dt: self.dt,
                time: self.time(),
                ratio: self.ratio,
                tolerance,
            }),
            (None, _) => Ok(true),
        }
    }

    /// Counts a step whose largest vertex displacement was `largest_step` and largest displacement
    /// `largest` (m), and tells `progress`; the steps taken.
    pub(crate) fn stepped(
        &mut self,
        largest_step: f64,
        largest: f64,
        progress: &mut dyn FnMut(&DynamicProgress),
    ) -> usize {
        self.steps += 1;
        self.ratio = if largest > 0.0 { largest_step / largest } else { 0.0 };
        progress(&DynamicProgress { steps: self.steps, total: self.total, time: self.time(), ratio: self.ratio });
        self.steps
    }

    /// Whether a run to rest ends after the last step (of largest vertex displacement `largest_step`, m, on
    /// elements of size `element_size`, m): its ratio at the tolerance, or the step below what a step can
    /// resolve: a stiff material's displacements are differences of strains resolved to about
    /// `f64::EPSILON` (glass on the wall's cube sags 3e-11 m, and its steps stall at some 1e-17 m, a ratio
    /// of 2e-7).
    pub(crate) fn at_rest(&self, largest_step: f64, element_size: f64) -> bool {
        matches!(self.stop, RestRule::AtRest { tolerance }
            if self.ratio <= tolerance || largest_step <= f64::EPSILON * element_size)
    }

    /// The simulated time (s).
    pub(crate) fn time(&self) -> f64 {
        self.steps as f64 * self.dt
    }
}

/// The end state of a dynamic solve.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicSolution {
    /// Displacement of every vertex (m).
    pub displacements: Vec<Vector3<f64>>,
    /// Steps taken.
    pub steps: usize,
    /// Simulated time (s).
    pub time: f64,
    /// The last step's largest vertex displacement over the largest displacement.
    pub last_step_ratio: f64,
    /// Newton iterations over all steps.
    pub newton_iterations: usize,
}

impl DynamicSolution {
    /// The largest vertex displacement norm (m).
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }
}

/// One time step's rule, the integrator written once for every body (the solids' [`StaticProblem::integrate`]
/// and the sheets' `CorotationalShell::integrate`): the coefficients the step's residual puts on `M` and
/// `C`, the rates a trial increment `d = x - u_n` gives (Newmark's acceleration and velocity in the
/// module doc; implicit Euler's `(d - dt v_n) / dt^2` and `d / dt`), and the velocity and acceleration the
/// converged increment leaves for the next step. Per degree of freedom, so a body whose state is not a
/// vector (a sheet's rotations) applies it to its increments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepRule {
    /// Newmark's average acceleration (else implicit Euler).
    pub newmark: bool,
    /// The time step (s).
    pub dt: f64,
    /// The residual's coefficient on `M`: `4 / dt^2` (Newmark) or `1 / dt^2`, and the Newton matrix's.
    pub mass_factor: f64,
    /// The residual's coefficient on `C`: `2 / dt` (Newmark) or `1 / dt`.
    pub damping_factor: f64,
}

impl StepRule {
    /// The rule of `integrator` at step `dt` (s).
    pub(crate) fn new(integrator: TimeIntegrator, dt: f64) -> Self {
        let newmark = integrator == TimeIntegrator::Newmark;
        let (mass_factor, damping_factor) =
            if newmark { (4.0 / (dt * dt), 2.0 / dt) } else { (1.0 / (dt * dt), 1.0 / dt) };
        Self { newmark, dt, mass_factor, damping_factor }
    }

    /// The acceleration and velocity of one DOF at the trial increment `d` from a step that began with
    /// velocity `v` and (Newmark) acceleration `a`: what `M` and `C` multiply in the step's residual.
    #[inline]
    pub(crate) fn rates(&self, d: f64, v: f64, a: f64) -> (f64, f64) {
        if self.newmark {
            (self.mass_factor * (d - self.dt * v) - a, self.damping_factor * d - v)
        } else {
            ((d - self.dt * v) * self.mass_factor, d * self.damping_factor)
        }
    }

    /// After a converged step of increment `d`: the DOF's velocity and (Newmark) acceleration for the next.
    #[inline]
    pub(crate) fn advance(&self, d: f64, v: &mut f64, a: &mut f64) {
        if self.newmark {
            let next = self.mass_factor * (d - self.dt * *v) - *a;
            *v = self.damping_factor * d - *v;
            *a = next;
        } else {
            *v = d / self.dt;
        }
    }
}

pub(crate) fn combine(parts: &[(&CscMatrix<f64>, f64)]) -> CscMatrix<f64> {
    let first = parts[0].0;
    let mut values = vec![0.0; first.nnz()];
    for (m, c) in parts {
        for (v, x) in values.iter_mut().zip(m.values()) {
            *v += c * x;
        }
    }
    CscMatrix::try_from_pattern_and_values(first.pattern().clone(), values).expect("same pattern")
}

/// The internal forces' relative round-off per unit strain ([`StaticProblem::strain_floor`]): 64 times
/// `f64::EPSILON`, room for the sums over each vertex's elements (steel on the wall at N = 2 stalls at a
/// hundredth of `eps | |K0| h |`).
const STRAIN_ROUND_OFF: f64 = 64.0 * f64::EPSILON;

impl StaticProblem {
    /// Implicit Euler from rest at `u = 0` under the problem's loads, for `law`.
    ///
    /// Fails if the problem has no masses (build it with [`StaticProblem::new`] or
    /// [`with_masses`](Self::with_masses)), if `dt` is not positive, if a step's Newton solve does not
    /// converge, or if the body does not come to rest within `max_steps`.
    pub fn solve_dynamic(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: DynamicSettings,
    ) -> Result<DynamicSolution, FemError> {
        self.solve_dynamic_observed(law, material, settings, &mut |_| {})
    }

    /// [`solve_dynamic`](Self::solve_dynamic), telling `progress` after every step how far it has come
    /// (the solution does not depend on it).
    pub fn solve_dynamic_observed(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: DynamicSettings,
        progress: &mut dyn FnMut(&DynamicProgress),
    ) -> Result<DynamicSolution, FemError> {
        self.integrate(law, material, settings, None, progress, None)
    }

    /// The dynamic solve from `start` (the undeformed body at rest when `None`), telling `progress` after
    /// every step how far it has come and, where given, `states` the state after every step (and at the
    /// start, step 0), whose fields and energies it computes on demand. Neither observer changes the
    /// solution.
    pub fn integrate(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        settings: DynamicSettings,
        start: Option<&DynamicStart>,
        progress: &mut dyn FnMut(&DynamicProgress),
        mut states: Option<&mut dyn FnMut(&DynamicState)>,
    ) -> Result<DynamicSolution, FemError> {
        if self.contact.is_some() {
            // Dynamic contact (impacts, sliding) is not modelled: refuse rather than ignore the obstacles.
            return Err(FemError::ContactUnsupported(self.obstacles().len()));
        }
        let dt = settings.dt;
        let mut clock = StepClock::new(&settings, "implicit Euler")?;
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        let m = self.mass_matrix(settings.mass, "implicit Euler")?;
        let zero = vec![Vector3::zeros(); nv];
        let (k0, _) = self.assembler.nonlinear_system(law, material, &zero)?;
        let damping = combine(&[(&m, settings.rayleigh_mass), (&k0, settings.rayleigh_stiffness)]);
        let mut scale = norm(&self.reduce(&zero, 1.0)).max(f64::MIN_POSITIVE);
        let dofs = map.dofs();
        let mut u = vec![0.0; dofs];
        let mut v = vec![0.0; dofs];
        if let Some(start) = start {
            for (field, out, what) in
                [(&start.displacements, &mut u, "start displacements"), (&start.velocities, &mut v, "start velocities")]
            {
                if field.len() != nv {
                    return Err(FemError::SizeMismatch { what, expected: nv, got: field.len() });
                }
                for (vertex, x) in field.iter().enumerate() {
                    if let Some(d) = map.dof(vertex, 0) {
                        out[d..d + 3].copy_from_slice(x.as_slice());
                    }
                }
            }
        }
        if start.is_some() {
            // A start away from rest moves the body without any load (a free vibration): the residual's
            // scale is then the start's elastic force, which the load's weight would otherwise set.
            let forces = self.assembler.nonlinear_forces(law, material, &self.expand(&u))?;
            let elastic: Vec<f64> =
                self.reduce(&forces, 1.0).iter().zip(self.reduce(&zero, 1.0)).map(|(f, l)| f - l).collect();
            scale = scale.max(norm(&elastic));
        }
        let rule = StepRule::new(settings.integrator, dt);
        let newmark = rule.newmark;
        let strain_floor = self.strain_floor(&k0);
        let element_size = self.assembler.element_size();
        // Newmark's acceleration, from M a_0 = f_ext - f_int(u_0) - C v_0.
        let mut a = vec![0.0; dofs];
        if newmark {
            let forces = self.assembler.nonlinear_forces(law, material, &self.expand(&u))?;
            let mut rhs = self.reduce(&forces, 1.0);
            let mut cv0 = vec![0.0; dofs];
            multiply(&damping, &v, &mut cv0);
            for i in 0..dofs {
                rhs[i] = -(rhs[i] + cv0[i]);
            }
            a = self.linear_solve(&m, &rhs)?.0;
        }
        let observe = |steps: usize, u: &[f64], v: &[f64], states: &mut Option<&mut dyn FnMut(&DynamicState)>| {
            if let Some(observer) = states {
                observer(&DynamicState {
                    steps,
                    time: steps as f64 * dt,
                    problem: self,
                    law,
                    material,
                    mass: &m,
                    u,
                    v,
                });
            }
        };
        observe(0, &u, &v, &mut states);
        // The step's coefficients on M and C: implicit Euler's 1 / dt^2 and 1 / dt, Newmark's 4 / dt^2 and
        // 2 / dt.
        let (mass_factor, damping_factor) = (rule.mass_factor, rule.damping_factor);
        // A linear law's tangent is `k0` at every state, bit for bit, so the Newton matrix is factored
        // once (what each iteration's Cholesky would compute again), and the iterations assemble only
        // forces. Where Cholesky fails, every iteration takes the general path (LU).
        let constant = if law.is_linear() {
            let jacobian = combine(&[(&m, mass_factor), (&damping, damping_factor), (&k0, 1.0)]);
            self.solver.direct.factor(&jacobian).ok()
        } else {
            None
        };
        let mut ts = TimeStep {
            problem: self,
            law,
            material,
            m: &m,
            damping: &damping,
            k0: &k0,
            constant,
            rule,
            newmark,
            dt,
            mass_factor,
            damping_factor,
            scale,
            strain_floor,
            u,
            v,
            a,
            best: f64::INFINITY,
            iterations: 0,
        };
        while clock.go_on()? {
            pbdfit_mesh::cancel::check()?;
            // Newton on g(x) from the predictor x = u + dt v.
            let predictor: Vec<f64> = ts.u.iter().zip(&ts.v).map(|(u, v)| u + dt * v).collect();
            ts.best = f64::INFINITY;
            let x = newton(&mut ts, &FULL_STEP, &NewtonSettings::DYNAMIC, predictor)??.1;
            let (u, v, a) = (&mut ts.u, &mut ts.v, &mut ts.a);
            let mut largest_step: f64 = 0.0;
            let mut largest: f64 = 0.0;
            for p in (0..dofs).step_by(3) {
                let step = Vector3::new(x[p] - u[p], x[p + 1] - u[p + 1], x[p + 2] - u[p + 2]).norm();
                let size = Vector3::new(x[p], x[p + 1], x[p + 2]).norm();
                largest_step = largest_step.max(step);
                largest = largest.max(size);
            }
            for i in 0..dofs {
                rule.advance(x[i] - u[i], &mut v[i], &mut a[i]);
            }
            *u = x;
            let steps = clock.stepped(largest_step, largest, progress);
            observe(steps, &ts.u, &ts.v, &mut states);
            if clock.at_rest(largest_step, element_size) {
                break;
            }
        }
        Ok(DynamicSolution {
            displacements: self.expand(&ts.u),
            steps: clock.steps,
            time: clock.time(),
            last_step_ratio: clock.ratio,
            newton_iterations: ts.iterations,
        })
    }

    /// The mass matrix of `mass` kind over the free DOFs (kg): the body's vertex masses, or the consistent
    /// mass with the body's mean density. The one home of that choice for the dynamics and the modes;
    /// `solver` names the caller in the error of a problem built without masses.
    pub(crate) fn mass_matrix(&self, mass: MassMatrix, solver: &'static str) -> Result<CscMatrix<f64>, FemError> {
        let masses = self
            .masses
            .as_ref()
            .ok_or_else(|| FemError::Solver { solver, detail: "the problem has no masses".into() })?;
        match mass {
            MassMatrix::Lumped => self.assembler.lumped_mass(masses),
            MassMatrix::Consistent => {
                self.assembler.consistent_mass(masses.iter().sum::<f64>() / self.assembler.volume())
            }
        }
    }

    /// The round-off of the internal forces: [`STRAIN_ROUND_OFF`] times `| |K0| h |`, the forces a strain of
    /// one would give each element edge (`h` the elements' typical edge on every DOF). The deformation
    /// gradient `I + grad u` resolves a strain to about `f64::EPSILON` whatever the displacement, so a stiff
    /// material's forces (E = 2e11 Pa) carry noise of `E eps h^2` per element however small `u` is.
    fn strain_floor(&self, k0: &CscMatrix<f64>) -> f64 {
        let abs =
            CscMatrix::try_from_pattern_and_values(k0.pattern().clone(), k0.values().iter().map(|v| v.abs()).collect())
                .expect("same pattern");
        let h = vec![self.assembler.element_size(); k0.ncols()];
        let mut out = vec![0.0; h.len()];
        multiply(&abs, &h, &mut out);
        STRAIN_ROUND_OFF * norm(&out)
    }

    /// `| |K0| |x| + c |M| |x| |`: the size of the terms the step's forces are sums of, whose round-off
    /// bounds how small the residual can get.
    fn cancelling_scale(&self, k0: &CscMatrix<f64>, m: &CscMatrix<f64>, mass_factor: f64, x: &[f64]) -> f64 {
        let abs = |a: &CscMatrix<f64>| {
            CscMatrix::try_from_pattern_and_values(a.pattern().clone(), a.values().iter().map(|v| v.abs()).collect())
                .expect("same pattern")
        };
        let ax: Vec<f64> = x.iter().map(|v| v.abs()).collect();
        let (mut kx, mut mx) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        multiply(&abs(k0), &ax, &mut kx);
        multiply(&abs(m), &ax, &mut mx);
        norm(&kx.iter().zip(&mx).map(|(k, m)| k + mass_factor * m).collect::<Vec<_>>())
    }

    /// Free-DOF velocities placed into a full vertex array, zero at constrained vertices.
    fn expand_velocities(&self, x: &[f64]) -> Vec<Vector3<f64>> {
        let map = self.assembler.dof_map();
        (0..map.vertices())
            .map(|v| match map.dof(v, 0) {
                Some(d) => Vector3::new(x[d], x[d + 1], x[d + 2]),
                None => Vector3::zeros(),
            })
            .collect()
    }

    /// Free-DOF values placed into a full vertex array, constrained vertices at their prescribed
    /// displacement.
    fn expand(&self, x: &[f64]) -> Vec<Vector3<f64>> {
        let map = self.assembler.dof_map();
        (0..map.vertices())
            .map(|v| match map.dof(v, 0) {
                Some(d) => Vector3::new(x[d], x[d + 1], x[d + 2]),
                None => self.prescribed[v],
            })
            .collect()
    }
}

/// A time step from `(u, v, a)` as a Newton system: `g(x) = M (x - u - dt v) / dt^2 + C (x - u) / dt +
/// f_int(x) - f_ext` (implicit Euler; Newmark's in the module doc), with the step's coefficients on `M` and
/// `C`, the Newton matrix factored once for a linear law (`constant`), the best relative residual of the
/// step so far and the Newton steps of all steps.
struct TimeStep<'a> {
    problem: &'a StaticProblem,
    law: &'a dyn Material,
    material: YoungPoisson,
    m: &'a CscMatrix<f64>,
    damping: &'a CscMatrix<f64>,
    k0: &'a CscMatrix<f64>,
    constant: Option<CholeskyFactor>,
    rule: StepRule,
    newmark: bool,
    dt: f64,
    mass_factor: f64,
    damping_factor: f64,
    scale: f64,
    strain_floor: f64,
    u: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    best: f64,
    iterations: usize,
}

/// The residual `g`, the tangent where it was assembled (no constant factor), `|g|` and `|g|` relative to
/// the scale.
type Evaluated = (Vec<f64>, Option<CscMatrix<f64>>, f64, f64);

/// A residual stalled where the forces cancel is converged within this fraction of the cancelling terms.
const CANCELLATION: f64 = 1e-9;

impl NewtonSystem for TimeStep<'_> {
    type State = Vec<f64>;
    type Evaluation = Evaluated;
    type Failure = FemError;

    fn evaluate(&mut self, _: usize, x: &Vec<f64>) -> Attempt<Evaluated, FemError> {
        let (d, u, v, dt, dofs) = (&*self, &self.u, &self.v, self.dt, x.len());
        let (mut mv, mut cv) = (vec![0.0; dofs], vec![0.0; dofs]);
        let xs = d.problem.expand(x);
        let (k, forces) = match d.constant {
            Some(_) => (None, d.problem.assembler.nonlinear_forces(d.law, d.material, &xs)?),
            None => {
                let (k, forces) = d.problem.assembler.nonlinear_system(d.law, d.material, &xs)?;
                (Some(k), forces)
            }
        };
        let mut g = d.problem.reduce(&forces, 1.0);
        if d.newmark {
            // M a(x) + C v(x) with Newmark's a(x) = 4 (x - u - dt v) / dt^2 - a_n, v(x) = 2 (x - u) / dt - v_n.
            let rates: Vec<(f64, f64)> = (0..dofs).map(|i| d.rule.rates(x[i] - u[i], v[i], d.a[i])).collect();
            let acceleration: Vec<f64> = rates.iter().map(|r| r.0).collect();
            let velocity: Vec<f64> = rates.iter().map(|r| r.1).collect();
            multiply(d.m, &acceleration, &mut mv);
            multiply(d.damping, &velocity, &mut cv);
            for i in 0..dofs {
                g[i] += mv[i] + cv[i];
            }
        } else {
            let inertia: Vec<f64> = x.iter().zip(u).zip(v).map(|((x, u), v)| x - u - dt * v).collect();
            let velocity: Vec<f64> = x.iter().zip(u).map(|(x, u)| x - u).collect();
            multiply(d.m, &inertia, &mut mv);
            multiply(d.damping, &velocity, &mut cv);
            for i in 0..dofs {
                g[i] += mv[i] / (dt * dt) + cv[i] / dt;
            }
        }
        let size = norm(&g);
        Ok(Ok((g, k, size, size / d.scale)))
    }

    fn converged(&mut self, _: usize, x: &Vec<f64>, at: &Evaluated, settings: &NewtonSettings) -> bool {
        let (d, size, residual) = (&*self, at.2, at.3);
        if residual <= settings.relative_tolerance
            || (residual <= settings.round_off_tolerance() && residual >= 0.5 * self.best)
        {
            return true;
        }
        if residual >= 0.5 * self.best
            && (size <= d.strain_floor
                || size <= CANCELLATION * d.problem.cancelling_scale(d.k0, d.m, d.mass_factor, x))
        {
            // Stalled at round-off: where the forces cancel (a slender body's elastic forces, and a
            // small step's inertia terms, are sums of terms far larger than their result), or at the
            // round-off of the elastic forces themselves (a stiff material's strains are differences
            // of order one, resolved to some 1e-16 each: steel's internal forces on the wall's
            // cube are noise below some 1e-5 N, 2e-6 of its weight, which no Newton step lowers).
            return true;
        }
        self.best = self.best.min(residual);
        false
    }

    fn step(&mut self, _: usize, _: &Vec<f64>, at: &Evaluated) -> Attempt<Vec<f64>, FemError> {
        self.iterations += 1;
        let d = &mut *self;
        let minus_g: Vec<f64> = at.0.iter().map(|x| -x).collect();
        Ok(Ok(match (&mut d.constant, &at.1) {
            (Some(factor), _) => {
                let mut step = minus_g;
                factor.solve_in_place(&mut step);
                step
            }
            (None, Some(k)) => {
                let jacobian = combine(&[(d.m, d.mass_factor), (d.damping, d.damping_factor), (k, 1.0)]);
                d.problem.linear_solve(&jacobian, &minus_g)?.0
            }
            (None, None) => unreachable!("the tangent is assembled whenever there is no factor"),
        }))
    }

    fn trial(&mut self, x: &Vec<f64>, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        Ok(Some(((x.iter().zip(step).map(|(x, s)| x + alpha * s).collect(), None), f64::NAN)))
    }

    fn failure(&mut self, iterations: usize, _: &Evaluated) -> FemError {
        FemError::NewtonFailed {
            material: self.law.name(),
            load: 1.0,
            increment: self.dt,
            residual: self.best,
            iterations,
            tolerance: NewtonSettings::DYNAMIC.round_off_tolerance(),
        }
    }
}
