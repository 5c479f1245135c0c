//! The dynamics: the four integrators ([`Integrator`]), a run's controls and end ([`IntegrateOptions`],
//! [`Trajectory`]), and the estimated stability limit of the explicit schemes.

use std::time::Instant;

use nalgebra::{DMatrix, SymmetricEigen};

use super::{SpringBody, SpringError, SpringLaw, inf};
use crate::Vec3;

/// The most Verlet steps [`SpringBody::settle`] takes to bring a body to rest on its obstacles.
pub const SETTLE_STEPS: usize = 2_000_000;

/// Steps between two looks at the clock of a run with a deadline ([`SpringBody::settle_until`]): a
/// look costs about as much as a step of a small body, and 256 steps take well under a millisecond.
const DEADLINE_STEPS: usize = 256;

/// An integrator of the mass-spring dynamics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Integrator {
    /// `x += dt v`, `v += dt a(x, v)` (both from the old state).
    ExplicitEuler,
    /// `v += dt a(x, v)`, `x += dt v`.
    SemiImplicitEuler,
    /// Position Verlet: `x_next = x + (x - x_prev) + dt^2 a(x, v)`, `v = (x - x_prev) / dt`. The one
    /// integrator with contact: microcollisions and dry friction after each step (see
    /// [`SpringBody::integrate_from`]).
    Verlet,
    /// Backward Euler in velocity: `M (v1 - v0) = dt f(x0 + dt v1, v1)`, Newton to convergence per step.
    ImplicitEuler,
}

impl Integrator {
    /// Every integrator, in the order the command line lists them.
    pub const ALL: [Integrator; 4] =
        [Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Verlet, Integrator::ImplicitEuler];

    /// The integrator [`name`](Self::name) names; the error lists the names.
    pub fn parse(text: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|i| i.name() == text).ok_or_else(|| {
            format!("`{text}` is not an integrator; the integrators are {}", Self::ALL.map(Integrator::name).join(", "))
        })
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Integrator::ExplicitEuler => "explicit-euler",
            Integrator::SemiImplicitEuler => "semi-implicit-euler",
            Integrator::Verlet => "verlet",
            Integrator::ImplicitEuler => "implicit-euler",
        }
    }
}

/// Controls of a dynamic run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntegrateOptions {
    /// Largest number of steps.
    pub max_steps: usize,
    /// Settled when the largest per-step displacement is at most `tolerance` times the largest
    /// displacement (0: run all `max_steps`).
    pub tolerance: f64,
    /// Call the frame callback every `every` steps (and at step 0).
    pub every: usize,
}

/// Where a dynamic run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// Displacements per vertex (m).
    pub displacements: Vec<Vec3>,
    /// Velocities per vertex (m/s).
    pub velocities: Vec<Vec3>,
    /// Steps done.
    pub steps: usize,
    /// Whether the settling test was met.
    pub settled: bool,
    /// Total energy (J) at step 0 and after every step.
    pub energies: Vec<f64>,
    /// What the obstacles did (zeros without obstacles).
    pub contact: ContactTally,
}

/// What the obstacles did over a Verlet run with contact.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactTally {
    /// Work of the dry friction against the body, summed over the run (J, >= 0 while it opposes the
    /// motion): per friction event `-J . v`, with `J = m dx_f / dt` the friction impulse (`dx_f` its
    /// correction) and `v` the particle's velocity at the start of the step. (The kinetic energy an
    /// event removes, `m (|v_t|^2 - |v_t'|^2) / 2` with the step's predicted velocity, would also count
    /// the `dt a` that Verlet gives a resting particle every step and the contact then takes back: a
    /// spurious `m dt^2 a^2 / 2` per step, which made the total over a slide to rest grow as dt,
    /// 3 % at N = 8 between dt and dt / 2.)
    pub friction_work: f64,
    /// Work of the microcollisions' normal impulses against the body, likewise (J, >= 0).
    pub collision_work: f64,
    /// The force each obstacle exerted on the body in the last step (N, one per obstacle): its
    /// corrections as impulses, `sum m dx / dt^2`.
    pub forces: Vec<Vec3>,
    /// Steps in which at least one particle touched an obstacle.
    pub contact_steps: usize,
}

impl SpringBody {
    /// `2 / omega_max` (s), with `omega_max^2` the largest eigenvalue of `M^-1 K` at displacements `u`
    /// (`K = -df/du`, symmetric; computed as the eigenvalues of `M^-1/2 K M^-1/2`, dense).
    pub fn stability_limit(&self, law: &SpringLaw, u: &[Vec3]) -> f64 {
        let (k, _) = self.tangents(&SpringLaw { damping: 0.0, ..*law }, &self.flatten(u));
        let n = self.dofs();
        let inv_sqrt_m: Vec<f64> = (0..n).map(|i| 1.0 / self.masses[self.free[i / 3]].sqrt()).collect();
        let mut a = DMatrix::<f64>::zeros(n, n);
        for (r, c, v) in k.entries() {
            a[(r, c)] = -v * inv_sqrt_m[r] * inv_sqrt_m[c];
        }
        let largest = SymmetricEigen::new(a).eigenvalues.iter().fold(0.0f64, |m, &e| m.max(e));
        if largest > 0.0 { 2.0 / largest.sqrt() } else { f64::INFINITY }
    }

    /// Runs the dynamics from the undeformed body at rest with `integrator` and step `dt` (s) until it
    /// settles (see [`IntegrateOptions`]) or `max_steps`; `frame(step, u)` is called every `every` steps.
    /// A displacement larger than the body or not finite is divergence, reported with the estimated
    /// stability limit.
    pub fn integrate(
        &self,
        law: &SpringLaw,
        integrator: Integrator,
        dt: f64,
        options: &IntegrateOptions,
        frame: impl FnMut(usize, &[Vec3]),
    ) -> Result<Trajectory, SpringError> {
        let zeros = vec![Vec3::zeros(); self.rest.len()];
        self.integrate_from(law, integrator, dt, options, (&zeros, &zeros), frame)
    }

    /// [`integrate`](Self::integrate) from displacements `u0` (m) and velocities `v0` (m/s) per vertex
    /// (held vertices keep theirs: prescribed, at rest).
    ///
    /// With obstacles (the body's, at their placed position from the first step) only
    /// [`Integrator::Verlet`] runs ([`SpringError::ContactIntegrator`] otherwise), with the seed's
    /// microcollisions and dry friction after each step: a free particle that the step takes into an
    /// obstacle is put back on its surface along the normal, `x += d n` with `d = -g(x) > 0`; since
    /// Verlet's velocity is `(x - x_prev) / dt`, this is an impulse that removes the normal velocity into
    /// the obstacle (restitution 0). Its size per unit mass is `d / dt`, so Coulomb's dry friction
    /// limits the tangential velocity change to `mu d / dt`: the step's tangential displacement `dx_t`
    /// is cancelled when `|dx_t| <= mu_s d` (sticking), else shortened by `mu_k d` (sliding). That is the
    /// projection models' positional friction with one iteration (`contact.rs`), on the same
    /// obstacles in scene order. Verlet's `x_prev` is the position before the step, so the corrected
    /// position carries the corrected velocity into the next step.
    pub fn integrate_from(
        &self,
        law: &SpringLaw,
        integrator: Integrator,
        dt: f64,
        options: &IntegrateOptions,
        start: (&[Vec3], &[Vec3]),
        frame: impl FnMut(usize, &[Vec3]),
    ) -> Result<Trajectory, SpringError> {
        self.integrate_until(law, integrator, dt, options, start, frame, None)
    }

    /// [`integrate_from`](Self::integrate_from) that also stops when the wall clock passes `deadline`
    /// (checked every [`DEADLINE_STEPS`] steps), as [`SpringError::TimeLimit`].
    #[allow(clippy::too_many_arguments)]
    fn integrate_until(
        &self,
        law: &SpringLaw,
        integrator: Integrator,
        dt: f64,
        options: &IntegrateOptions,
        (u0, v0): (&[Vec3], &[Vec3]),
        mut frame: impl FnMut(usize, &[Vec3]),
        deadline: Option<Instant>,
    ) -> Result<Trajectory, SpringError> {
        law.validate()?;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SpringError::InvalidParameter { name: "dt", value: dt });
        }
        if !self.contacts.is_empty() && integrator != Integrator::Verlet {
            return Err(SpringError::ContactIntegrator { integrator: integrator.name() });
        }
        let n = self.dofs();
        let mass: Vec<f64> = (0..n).map(|i| self.masses[self.free[i / 3]]).collect();
        let (mut u, mut v) = (self.flatten(u0), self.flatten(v0));
        let mut previous: Vec<f64> = u.iter().zip(&v).map(|(x, v)| x - dt * v).collect();
        let mut tally = ContactTally { forces: vec![Vec3::zeros(); self.contacts.len()], ..ContactTally::default() };
        if !self.contacts.is_empty() {
            // Vertices that start inside an obstacle (one moved into the body by its `displacement`: the
            // indentation scene's sphere ends 0.1 m deep) are put on its surface before the first step, as
            // a change of position only. Left to the first step's microcollisions, the whole depth became
            // one step's velocity (0.1 m / dt), and the body flew apart at any dt or damping.
            let inside = u.clone();
            let mut unrecorded = tally.clone();
            self.microcollisions(dt, &mut u, (&inside, &v), &mut unrecorded);
            for i in 0..n {
                previous[i] += u[i] - inside[i];
            }
        }
        let every = options.every.max(1);
        let mut energies = vec![self.energy(law, &self.expand(&u), &self.expand_velocities(&v))];
        frame(0, &self.expand(&u));
        let mut settled = false;
        let mut steps = 0;
        // Divergence is growth without slowing ([`crate::rest_state::Growth`]), never the body's size: a
        // soft body may rest beyond it. Windows of the time the body falls its own size under its largest
        // load acceleration.
        let g = self.free.iter().map(|&p| self.accelerations[p].norm()).fold(0.0, f64::max);
        let mut growth = crate::rest_state::Growth::new(self.extent, g, dt);
        while steps < options.max_steps {
            pbdfit_mesh::cancel::check()?;
            if steps % DEADLINE_STEPS == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(SpringError::TimeLimit { steps, dt, max_steps: options.max_steps });
            }
            let before = u.clone();
            match integrator {
                Integrator::ExplicitEuler => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        u[i] += dt * v[i];
                        v[i] += dt * f[i] / mass[i];
                    }
                }
                Integrator::SemiImplicitEuler => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        v[i] += dt * f[i] / mass[i];
                        u[i] += dt * v[i];
                    }
                }
                Integrator::Verlet => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        let next = u[i] + (u[i] - previous[i]) + dt * dt * f[i] / mass[i];
                        previous[i] = u[i];
                        u[i] = next;
                    }
                    if !self.contacts.is_empty() {
                        // `v` still holds the velocity at the start of the step.
                        self.microcollisions(dt, &mut u, (&previous, &v), &mut tally);
                    }
                    for i in 0..n {
                        v[i] = (u[i] - previous[i]) / dt;
                    }
                }
                Integrator::ImplicitEuler => {
                    let v0 = v.clone();
                    let mut v1 = v.clone();
                    for _ in 0..50 {
                        let x1: Vec<f64> = u.iter().zip(&v1).map(|(a, b)| a + dt * b).collect();
                        let f = self.forces(law, &x1, Some(&v1));
                        let r: Vec<f64> = (0..n).map(|i| dt * f[i] - mass[i] * (v1[i] - v0[i])).collect();
                        let size = (0..n).map(|i| mass[i] * v1[i].abs() + dt * f[i].abs()).fold(0.0, f64::max);
                        if inf(&r) <= 1e-13 * size.max(f64::MIN_POSITIVE) {
                            break;
                        }
                        let (k, d) = self.tangents(law, &x1);
                        // (M - dt^2 K - dt D) dv = r
                        let Some(dv) = self.solve(&[(&k, -dt * dt), (&d, -dt)], Some(&mass), &r) else { break };
                        for i in 0..n {
                            v1[i] += dv[i];
                        }
                    }
                    v = v1;
                    for i in 0..n {
                        u[i] += dt * v[i];
                    }
                }
            }
            steps += 1;
            let largest = self
                .free
                .iter()
                .enumerate()
                .map(|(i, _)| Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]).norm())
                .fold(0.0, f64::max);
            // With obstacles a body may slide any distance: what is judged is its deformation
            // (displacements relative to their mean), not a displacement.
            let deformation = if self.contacts.is_empty() { largest } else { self.spread(&u) };
            if growth.diverges(if largest.is_finite() { deformation } else { largest }) {
                let limit = self.stability_limit(law, &vec![Vec3::zeros(); self.rest.len()]);
                let remedy = if self.contacts.is_empty() {
                    "use a smaller dt, more damping or implicit-euler"
                } else {
                    "use a smaller dt or more damping (a body with obstacles runs with verlet only)"
                };
                let note = if integrator == Integrator::ExplicitEuler {
                    "; explicit Euler also amplifies every undamped oscillation at any dt: with spring damping c \
                     it needs dt below about c / ks as well"
                } else {
                    ""
                };
                return Err(SpringError::Diverged {
                    integrator: integrator.name(),
                    dt,
                    step: steps,
                    limit,
                    note,
                    remedy,
                });
            }
            energies.push(self.energy(law, &self.expand(&u), &self.expand_velocities(&v)));
            if steps % every == 0 {
                frame(steps, &self.expand(&u));
            }
            let moved = (0..self.free.len())
                .map(|i| {
                    Vec3::new(
                        u[3 * i] - before[3 * i],
                        u[3 * i + 1] - before[3 * i + 1],
                        u[3 * i + 2] - before[3 * i + 2],
                    )
                    .norm()
                })
                .fold(0.0, f64::max);
            if options.tolerance > 0.0 && moved <= options.tolerance * largest && steps > 1 {
                settled = true;
                break;
            }
        }
        Ok(Trajectory {
            displacements: self.expand(&u),
            velocities: self.expand_velocities(&v),
            steps,
            settled,
            energies,
            contact: tally,
        })
    }

    /// The rest state on the obstacles: where Verlet with microcollisions and dry friction (see
    /// [`integrate_from`](Self::integrate_from)) settles from the undeformed body at rest. Friction makes it
    /// path dependent, so the path is fixed here: `dt = 0.2 T` and spring damping
    /// `c = max(ks, kvol l_mean, (mu + lambda) l_mean) T / 2` (`T = 2 / omega_max` of the undeformed body, [`stability_limit`](
    /// Self::stability_limit); `l_mean` the mean rest edge length), which damps the elastic modes that the
    /// contact leaves undamped, until the largest per-step motion is at most 1e-12 of the largest
    /// displacement ([`SETTLE_STEPS`] steps at most). Frictionless, the state is the static equilibrium
    /// with the contacts (damping changes the path only). `law.damping` is replaced.
    pub fn settle(&self, law: &SpringLaw) -> Result<Trajectory, SpringError> {
        self.settle_until(law, None)
    }

    /// [`settle`](Self::settle) that gives up when the wall clock passes `deadline` (a fit's
    /// `--max-seconds`, [`RestOptions::deadline`](crate::RestOptions)) with [`SpringError::TimeLimit`]: a
    /// hopeless point spends up to [`SETTLE_STEPS`] steps (14 s for an 8-vertex body on the indentation
    /// scene), which no fit's time limit reached. A run that settles before the deadline is unchanged.
    pub fn settle_until(&self, law: &SpringLaw, deadline: Option<Instant>) -> Result<Trajectory, SpringError> {
        law.validate()?;
        let elastic = SpringLaw { damping: 0.0, ..*law };
        let limit = self.stability_limit(&elastic, &vec![Vec3::zeros(); self.rest.len()]);
        if !limit.is_finite() {
            // No stiffness at all: nothing holds the body's shape.
            return Err(SpringError::NewtonFailed { iterations: 0, residual: f64::INFINITY });
        }
        let mean_length = self.edges.iter().map(|e| e.2).sum::<f64>() / self.edges.len().max(1) as f64;
        let damping = law
            .ks
            .max(law.ks_shear)
            .max(law.ks_bend)
            .max(law.kvol * mean_length)
            .max((law.mu + law.lambda) * mean_length)
            * limit
            / 2.0;
        let dt = 0.2 * limit;
        let options = IntegrateOptions { max_steps: SETTLE_STEPS, tolerance: 1e-12, every: usize::MAX };
        let zeros = vec![Vec3::zeros(); self.rest.len()];
        let law = SpringLaw { damping, ..elastic };
        let run =
            self.integrate_until(&law, Integrator::Verlet, dt, &options, (&zeros, &zeros), |_, _| {}, deadline)?;
        if !run.settled {
            return Err(SpringError::NotSettled { steps: run.steps, dt });
        }
        Ok(run)
    }

    /// The largest distance (m) of a free vertex's displacement from the free vertices' mean displacement.
    fn spread(&self, u: &[f64]) -> f64 {
        let at = |i: usize| Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
        let count = self.free.len().max(1) as f64;
        let mean = (0..self.free.len()).fold(Vec3::zeros(), |s, i| s + at(i)) / count;
        (0..self.free.len()).map(|i| (at(i) - mean).norm()).fold(0.0, f64::max)
    }

    /// Verlet's microcollisions and dry friction on the free DOFs `u` after a step from `previous` (see
    /// [`integrate_from`](Self::integrate_from)), added to `tally` (its forces replaced by this step's).
    fn microcollisions(&self, dt: f64, u: &mut [f64], (previous, v): (&[f64], &[f64]), tally: &mut ContactTally) {
        let mut touched = false;
        for (k, c) in self.contacts.iter().enumerate() {
            let mut force = Vec3::zeros();
            for (i, &p) in self.free.iter().enumerate() {
                let at = Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
                let moved = at - Vec3::new(previous[3 * i], previous[3 * i + 1], previous[3 * i + 2]);
                let Some(r) = c.resolve(&(self.rest[p] + at), &moved, 0.0, &Vec3::zeros()) else { continue };
                touched = true;
                let m = self.masses[p];
                let normal = r.correction - r.friction;
                let dt2 = dt * dt;
                let start = Vec3::new(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
                tally.collision_work -= m * normal.dot(&start) / dt;
                tally.friction_work -= m * r.friction.dot(&start) / dt;
                force += r.correction * (m / dt2);
                for (a, dx) in u[3 * i..3 * i + 3].iter_mut().zip(r.correction.iter()) {
                    *a += dx;
                }
            }
            tally.forces[k] = force;
        }
        if touched {
            tally.contact_steps += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mass_spring::tests::body;

    /// With damping, every integrator at a stable step settles to the Newton equilibrium (1e-9).
    #[test]
    fn damped_integrators_settle_to_the_equilibrium() {
        let b = body("gravity-wall", 1);
        let elastic = SpringLaw { ks: 400.0, kvol: 1e3, ..SpringLaw::NONE };
        let limit = b.stability_limit(&elastic, &[Vec3::zeros(); 8]);
        // Spring damping c = ks / omega_max: explicit Euler's underdamped modes need dt < c / ks and its
        // overdamped ones dt < 2 ks / (c omega_max^2): both are limit / 2.
        let law = SpringLaw { damping: elastic.ks * limit / 2.0, ..elastic };
        let eq = b.equilibrium(&law, None).unwrap();
        let scale = eq.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        for integrator in
            [Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Verlet, Integrator::ImplicitEuler]
        {
            let dt = if integrator == Integrator::ImplicitEuler { 0.01 } else { 0.2 * limit };
            let options = IntegrateOptions { max_steps: 2_000_000, tolerance: 1e-14, every: 1 };
            let t = b.integrate(&law, integrator, dt, &options, |_, _| {}).unwrap();
            let diff = t.displacements.iter().zip(&eq.displacements).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
            println!("{integrator:?} dt = {dt:.2e}: {} steps, settled {}, {:.1e}", t.steps, t.settled, diff / scale);
            assert!(t.settled && diff <= 1e-9 * scale, "{integrator:?}: {:e}", diff / scale);
        }
    }

    /// The estimated limit 2 / omega_max separates stable from unstable undamped semi-implicit Euler,
    /// and explicit Euler above it reports divergence with the limit in the message.
    #[test]
    fn the_stability_limit_is_where_explicit_schemes_diverge() {
        let b = body("gravity-ceiling", 1);
        let law = SpringLaw { ks: 1e3, ..SpringLaw::NONE };
        let limit = b.stability_limit(&law, &[Vec3::zeros(); 8]);
        let options = IntegrateOptions { max_steps: 20_000, tolerance: 0.0, every: 1000 };
        assert!(b.integrate(&law, Integrator::SemiImplicitEuler, 0.95 * limit, &options, |_, _| {}).is_ok());
        let e = b.integrate(&law, Integrator::SemiImplicitEuler, 1.05 * limit, &options, |_, _| {}).unwrap_err();
        assert!(matches!(e, SpringError::Diverged { .. }), "{e}");
        let e = b.integrate(&law, Integrator::ExplicitEuler, 2.0 * limit, &options, |_, _| {}).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("explicit-euler") && text.contains(&format!("{limit:.3e}")), "{text}");
    }

    /// A soft body that rests beyond its own size is a rest state, not a divergence: the cube hung from the
    /// ceiling on springs of 0.8 N/m (N = 1) rests 1.057 m down (Newton), and damped implicit Euler
    /// (dt 0.02 s, damping 0.5) settles there, where the size rule called it "diverged at step 61" with
    /// a stability limit that implicit Euler does not have. Divergence is growth without slowing.
    #[test]
    fn a_soft_body_resting_beyond_its_size_settles() {
        let b = body("gravity-ceiling", 1);
        let law = SpringLaw { ks: 0.8, damping: 0.5, ..SpringLaw::NONE };
        let eq = b.equilibrium(&law, None).unwrap();
        let scale = eq.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        assert!(scale > 1.05, "rests {scale} m down, beyond the 1 m body");
        let options = IntegrateOptions { max_steps: 20_000, tolerance: 1e-12, every: 100 };
        let t = b.integrate(&law, Integrator::ImplicitEuler, 0.02, &options, |_, _| {}).unwrap();
        let diff = t.displacements.iter().zip(&eq.displacements).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
        assert!(t.settled && diff <= 1e-8 * scale, "{} steps, settled {}, {:e}", t.steps, t.settled, diff / scale);
    }

    /// Undamped Verlet conserves energy up to a bounded oscillation (no drift) over 20,000 steps.
    #[test]
    fn undamped_verlet_keeps_its_energy() {
        let b = body("gravity-wall", 1);
        let law = SpringLaw { ks: 500.0, kvol: 800.0, ..SpringLaw::NONE };
        let limit = b.stability_limit(&law, &[Vec3::zeros(); 8]);
        let options = IntegrateOptions { max_steps: 20_000, tolerance: 0.0, every: 1 };
        let t = b.integrate(&law, Integrator::Verlet, 0.1 * limit, &options, |_, _| {}).unwrap();
        let e0 = t.energies[0];
        let swing = t.energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
        let eq = b.equilibrium(&law, None).unwrap();
        let depth = (b.energy(&law, &eq.displacements, &[Vec3::zeros(); 8]) - e0).abs();
        let (first, last) = (&t.energies[1..10_000], &t.energies[10_000..]);
        let spread = |s: &[f64]| {
            s.iter().fold(f64::NEG_INFINITY, |m: f64, e| m.max(*e))
                - s.iter().fold(f64::INFINITY, |m: f64, e| m.min(*e))
        };
        println!(
            "energy swing {:.2e} J of a well {depth:.2e} J; spreads {:.2e}, {:.2e}",
            swing,
            spread(first),
            spread(last)
        );
        assert!(swing < 0.05 * depth, "{swing:e} vs {depth:e}");
        assert!(spread(last) < 1.5 * spread(first), "no secular growth");
    }
}
