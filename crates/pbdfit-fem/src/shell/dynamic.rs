//! The shell's transient: the corotational shell ([`CorotationalShell`]) in time, by the solids' time
//! integrators (`dynamic.rs`'s `StepRule`: implicit Euler, or Newmark's average acceleration without
//! numerical damping) and the crate's one Newton per step.
//!
//! Each step solves, over the free DOFs, `M a(d) + C v(d) + f_int(x) = f_ext` for the configuration `x`
//! at the end of the step, where `d` is the step's increment from `x_n`: the translations' difference and
//! the rotation vector of `R R_n^T` (the spin that turns the node's rotation at the step's start into the
//! one at its end, global frame), and `a(d)`, `v(d)` the rule's rates (module doc of `dynamic.rs`).
//! Velocities are the nodes' translational velocities (m/s) and angular velocities (rad/s, global frame);
//! Newton composes its rotation steps as the static solve does (`R <- exp(delta) R`), so `d` stays exact.
//!
//! - Mass: the lumped mass the sheet's modes use ([`LinearShell::modes`]): `rho h A / 3` per node and
//!   translation and the plate's rotary inertia `rho h^3 / 12 A / 3` per node and rotation, the same on
//!   the three rotations. That inertia is isotropic, so the spatial angular velocity has no gyroscopic
//!   term and Newmark's rule on the spins is the spatial one of Simo and Vu-Quoc (second order). No
//!   consistent mass (refused).
//! - Damping: Rayleigh's `C = a M + b K_0`, `K_0` the linear shell's stiffness at rest (the tangent at
//!   rest of the linear membrane), as the solids take it.
//! - Newton's matrix is the static solve's consistent tangent plus `mass_factor M + damping_factor C`;
//!   the step is Newton's full step, halved only where a facet would collapse (the static search). A
//!   step ends at the static tolerance (`1e-10` of the load's weight, or of the start's elastic force for
//!   a release without load) or, where a full step no longer halves the residual, within the internal
//!   forces' round-off and the inertia's (`eps |X|` of the positions times `mass_factor M`).
//! - Energy ([`ShellDynamicState::energy`]): `v^T M v / 2 + U(x) - f_ext . (x - X)`, conserved without
//!   damping by the exact dynamics; Newmark's keeps it to second order in `dt` at small amplitude (the
//!   tests measure it) and implicit Euler dissipates it.
//!
//! What it cannot do: contact (the shell has none), follower loads, a consistent mass, prescribed
//! rotations other than zero; the loads are constant in time.

use nalgebra::Rotation3;
use nalgebra_sparse::CscMatrix;

use super::corotational::SEARCH;
use super::{
    CorotationalShell, NODE_DOFS, ShellConstraints, ShellError, ShellLoad, ShellSolution, ShellState,
    reduced_dead_load, rotation_vector,
};
use crate::dynamic::StepClock;
use crate::dynamic::{StepRule, combine};
use crate::newton::{Attempt, NewtonSettings, NewtonSystem, Trial, newton, norm};
use crate::solver::{FaerLu, LinearSolver, multiply};
use crate::{DynamicProgress, DynamicSettings, FemError, MassMatrix};

/// A shell transient's starting state: the configuration and each vertex's velocities
/// `[v_x, v_y, v_z, omega_x, omega_y, omega_z]` (m/s, rad/s, global frame; ignored at fixed DOFs).
#[derive(Debug, Clone, PartialEq)]
pub struct ShellStart {
    /// The configuration.
    pub state: ShellState,
    /// Velocities per vertex.
    pub velocities: Vec<[f64; NODE_DOFS]>,
}

/// The state after a step, for an observer of [`CorotationalShell::integrate`]; its energies are
/// computed when asked.
pub struct ShellDynamicState<'a> {
    /// Steps taken (0: the start).
    pub steps: usize,
    /// Simulated time (s).
    pub time: f64,
    /// The configuration.
    pub state: &'a ShellState,
    shell: &'a CorotationalShell,
    reduced: &'a [usize],
    mass: &'a CscMatrix<f64>,
    external: &'a [f64],
    v: &'a [f64],
}

impl ShellDynamicState<'_> {
    /// Translations and rotation vectors per vertex (m, rad).
    pub fn displacements(&self) -> ShellSolution {
        self.shell.displacements(self.state)
    }

    /// Velocities per vertex (m/s, rad/s; zero at fixed DOFs).
    pub fn velocities(&self) -> Vec<[f64; NODE_DOFS]> {
        let mut out = vec![[0.0; NODE_DOFS]; self.reduced.len() / NODE_DOFS];
        for (i, &r) in self.reduced.iter().enumerate() {
            if r != usize::MAX {
                out[i / NODE_DOFS][i % NODE_DOFS] = self.v[r];
            }
        }
        out
    }

    /// `v^T M v / 2` (J), the rotary inertia's share included.
    pub fn kinetic_energy(&self) -> f64 {
        let mut mv = vec![0.0; self.v.len()];
        multiply(self.mass, self.v, &mut mv);
        0.5 * self.v.iter().zip(&mv).map(|(a, b)| a * b).sum::<f64>()
    }

    /// The facets' stored energy (J).
    pub fn strain_energy(&self) -> f64 {
        self.shell.internal_forces(self.state).map_or(f64::NAN, |(e, _)| e)
    }

    /// The constant loads' work `f_ext . (x - X)` over the free DOFs (J; a nodal moment's work taken on the
    /// rotation vector, exact for the dead forces of gravity). A follower pressure, which has no potential
    /// on an open sheet, is not counted.
    pub fn load_work(&self) -> f64 {
        let d = self.displacements();
        self.reduced
            .iter()
            .enumerate()
            .filter(|(_, r)| **r != usize::MAX)
            .map(|(i, &r)| self.external[r] * d.displacements[i / NODE_DOFS][i % NODE_DOFS])
            .sum()
    }

    /// The mechanical energy `kinetic + strain - load work` (J).
    pub fn energy(&self) -> f64 {
        self.kinetic_energy() + self.strain_energy() - self.load_work()
    }
}

/// The end state of a shell transient.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellDynamicSolution {
    /// The configuration at the end.
    pub state: ShellState,
    /// Its translations and rotation vectors.
    pub displacements: ShellSolution,
    /// Steps taken.
    pub steps: usize,
    /// Simulated time (s).
    pub time: f64,
    /// The last step's largest vertex translation over the largest translation from rest.
    pub last_step_ratio: f64,
    /// Newton iterations over all steps.
    pub newton_iterations: usize,
}

/// The shell's Newton settings in a time step: the static tolerance (`1e-10` of the load), 40 iterations.
const SHELL_STEP: NewtonSettings = NewtonSettings::STATIC;

fn invalid(detail: String) -> ShellError {
    ShellError::Fem(FemError::Solver { solver: "shell dynamics", detail })
}

impl CorotationalShell {
    /// The transient under the constant `load` with `constraints` from `start` (the flat sheet at rest
    /// where `None`), by `settings`' integrator, step, Rayleigh damping and stop (to rest or for a time),
    /// telling `progress` after every step how far it has come and `states`, where given, the state after
    /// every step and at the start. The mass must be [`MassMatrix::Lumped`]. Neither observer changes the
    /// solution.
    pub fn integrate(
        &self,
        constraints: &ShellConstraints,
        load: &ShellLoad,
        settings: &DynamicSettings,
        start: Option<&ShellStart>,
        progress: &mut dyn FnMut(&DynamicProgress),
        mut states: Option<&mut dyn FnMut(&ShellDynamicState)>,
    ) -> Result<ShellDynamicSolution, ShellError> {
        let linear = self.linear();
        linear.check(constraints, load)?;
        let vertices = load.nodal.len();
        let (reduced, free, external) = reduced_dead_load(constraints, load)?;
        let dt = settings.dt;
        let mut clock = StepClock::new(settings, "shell dynamics").map_err(ShellError::Fem)?;
        if settings.mass != MassMatrix::Lumped {
            return Err(invalid(format!(
                "mass {}: a sheet's mass is lumped (the translations' and the plate's rotary inertia, as its modes)",
                settings.mass.name()
            )));
        }
        let m = linear.reduced_lumped_mass(&reduced, free);
        let k0 = linear.reduced_stiffness(&reduced, free);
        let damping = combine(&[(&m, settings.rayleigh_mass), (&k0, settings.rayleigh_stiffness)]);
        let mut state = self.rest_state();
        let mut v = vec![0.0; free];
        if let Some(start) = start {
            for (what, got) in [
                ("start positions", start.state.positions.len()),
                ("start rotations", start.state.rotations.len()),
                ("start velocities", start.velocities.len()),
            ] {
                if got != vertices {
                    return Err(ShellError::SizeMismatch { what, expected: vertices, got });
                }
            }
            state = start.state.clone();
            for (i, &r) in reduced.iter().enumerate() {
                if r != usize::MAX {
                    v[r] = start.velocities[i / NODE_DOFS][i % NODE_DOFS];
                }
            }
        }
        // The held translations at their prescribed values, the held rotations at rest.
        let rest = self.rest_state();
        for vertex in 0..vertices {
            for k in 0..3 {
                if constraints.is_fixed(vertex, k) {
                    state.positions[vertex][k] = rest.positions[vertex][k] + constraints.value(vertex, k);
                }
            }
            if (3..NODE_DOFS).all(|k| constraints.is_fixed(vertex, k)) {
                state.rotations[vertex] = Rotation3::identity();
            }
        }
        // The internal forces less the follower pressures' (both state-dependent).
        let internal = |s: &ShellState| -> Result<Vec<f64>, ShellError> {
            let (_, forces) = self.internal_forces(s)?;
            let pressure = self.follower_forces(s, &load.follower);
            let mut out = vec![0.0; free];
            for (i, &r) in reduced.iter().enumerate() {
                if r != usize::MAX {
                    let (v, k) = (i / NODE_DOFS, i % NODE_DOFS);
                    out[r] = forces[v][k] - if k < 3 { pressure[v][k] } else { 0.0 };
                }
            }
            Ok(out)
        };
        let mut scale = norm(&external);
        if !load.follower.is_empty() {
            // The follower pressures' forces at rest belong to the load's scale.
            scale = scale.max(norm(&internal(&self.rest_state())?));
        }
        let start_forces = internal(&state)?;
        let out_of_balance: Vec<f64> = start_forces.iter().zip(&external).map(|(f, l)| f - l).collect();
        if start.is_some() {
            // A release without load: the residual's scale is the start's elastic force.
            scale = scale.max(norm(&start_forces));
        }
        let scale = scale.max(f64::MIN_POSITIVE);
        let rule = StepRule::new(settings.integrator, dt);
        // Newmark's acceleration at the start, M a_0 = f_ext - f_int(x_0) - C v_0 (M diagonal).
        let mut a = vec![0.0; free];
        if rule.newmark {
            let mut cv = vec![0.0; free];
            multiply(&damping, &v, &mut cv);
            let mut diagonal = vec![0.0; free];
            for (i, j, mass) in m.triplet_iter() {
                if i == j {
                    diagonal[i] += mass;
                }
            }
            for r in 0..free {
                a[r] = -(out_of_balance[r] + cv[r]) / diagonal[r];
            }
        }
        let extent = rest.positions.iter().map(|p| p.norm()).fold(0.0, f64::max);
        let inertia_noise = 10.0 * f64::EPSILON * rule.mass_factor * extent * norm(m.values());
        let element_size = self.element_size();
        let observe =
            |steps: usize, state: &ShellState, v: &[f64], states: &mut Option<&mut dyn FnMut(&ShellDynamicState)>| {
                if let Some(observer) = states {
                    observer(&ShellDynamicState {
                        steps,
                        time: steps as f64 * dt,
                        state,
                        shell: self,
                        reduced: &reduced,
                        mass: &m,
                        external: &external,
                        v,
                    });
                }
            };
        observe(0, &state, &v, &mut states);
        let mut step = ShellStep {
            shell: self,
            reduced: &reduced,
            free,
            external: &external,
            follower: &load.follower,
            m: &m,
            damping: &damping,
            rule,
            start: state,
            v,
            a,
            scale,
            floor: (self.noise + inertia_noise) / scale,
            previous: f64::INFINITY,
            iterations: 0,
        };
        while clock.go_on()? {
            pbdfit_mesh::cancel::check().map_err(FemError::from)?;
            // Newton from the predictor x_n + dt v_n (translations added, spins composed).
            let predictor = self.update(&step.start, &reduced, &step.v, dt);
            step.previous = f64::INFINITY;
            let next = match newton(&mut step, &SEARCH, &SHELL_STEP, predictor)? {
                Ok((_, next, _)) => next,
                Err((residual, iterations)) => {
                    return Err(ShellError::Fem(FemError::NewtonFailed {
                        material: "corotational shell",
                        load: 1.0,
                        increment: dt,
                        residual,
                        iterations,
                        tolerance: SHELL_STEP.round_off_tolerance(),
                    }));
                }
            };
            let d = step.increment(&next);
            for r in 0..free {
                let (v, a) = (&mut step.v[r], &mut step.a[r]);
                rule.advance(d[r], v, a);
            }
            let mut largest_step: f64 = 0.0;
            let mut largest: f64 = 0.0;
            for vertex in 0..vertices {
                largest_step = largest_step.max((next.positions[vertex] - step.start.positions[vertex]).norm());
                largest = largest.max((next.positions[vertex] - rest.positions[vertex]).norm());
            }
            step.start = next;
            let steps = clock.stepped(largest_step, largest, progress);
            observe(steps, &step.start, &step.v, &mut states);
            if clock.at_rest(largest_step, element_size) {
                break;
            }
        }
        Ok(ShellDynamicSolution {
            displacements: self.displacements(&step.start),
            state: step.start,
            steps: clock.steps,
            time: clock.time(),
            last_step_ratio: clock.ratio,
            newton_iterations: step.iterations,
        })
    }
}

/// One time step from `start` (velocities `v`, Newmark's accelerations `a`) as a Newton system over the
/// configuration at its end.
struct ShellStep<'a> {
    shell: &'a CorotationalShell,
    reduced: &'a [usize],
    free: usize,
    external: &'a [f64],
    /// The follower pressures (Pa per facet; empty: none), acting on the current facets.
    follower: &'a [f64],
    m: &'a CscMatrix<f64>,
    damping: &'a CscMatrix<f64>,
    rule: StepRule,
    start: ShellState,
    v: Vec<f64>,
    a: Vec<f64>,
    scale: f64,
    /// The round-off of the residual relative to the scale.
    floor: f64,
    /// The relative residual of the previous iterate.
    previous: f64,
    iterations: usize,
}

/// The residual and its relative norm.
type Evaluated = (Vec<f64>, f64);

impl ShellStep<'_> {
    /// The step's increment to `state` over the free DOFs: translations, and the rotation vector of
    /// `R R_n^T`.
    fn increment(&self, state: &ShellState) -> Vec<f64> {
        let mut d = vec![0.0; self.free];
        for (i, &r) in self.reduced.iter().enumerate() {
            if r == usize::MAX {
                continue;
            }
            let (vertex, k) = (i / NODE_DOFS, i % NODE_DOFS);
            d[r] = if k < 3 {
                state.positions[vertex][k] - self.start.positions[vertex][k]
            } else {
                let turn = state.rotations[vertex] * self.start.rotations[vertex].inverse();
                rotation_vector(turn.matrix())[k - 3]
            };
        }
        d
    }

    fn at(&self, state: &ShellState) -> Result<Option<Evaluated>, FemError> {
        let forces = match self.shell.internal_forces(state) {
            Ok((_, forces)) => forces,
            Err(ShellError::DegenerateFacet { .. }) => return Ok(None),
            Err(ShellError::Fem(e)) => return Err(e),
            Err(other) => return Err(FemError::Solver { solver: "shell dynamics", detail: other.to_string() }),
        };
        let d = self.increment(state);
        let rates: Vec<(f64, f64)> = (0..self.free).map(|r| self.rule.rates(d[r], self.v[r], self.a[r])).collect();
        let acceleration: Vec<f64> = rates.iter().map(|r| r.0).collect();
        let velocity: Vec<f64> = rates.iter().map(|r| r.1).collect();
        let (mut ma, mut cv) = (vec![0.0; self.free], vec![0.0; self.free]);
        multiply(self.m, &acceleration, &mut ma);
        multiply(self.damping, &velocity, &mut cv);
        let mut g: Vec<f64> = (0..self.free).map(|r| ma[r] + cv[r] - self.external[r]).collect();
        let pressure = self.shell.follower_forces(state, self.follower);
        for (i, &r) in self.reduced.iter().enumerate() {
            if r != usize::MAX {
                let (v, k) = (i / NODE_DOFS, i % NODE_DOFS);
                g[r] += forces[v][k] - if k < 3 { pressure[v][k] } else { 0.0 };
            }
        }
        let n = norm(&g) / self.scale;
        Ok(Some((g, n)))
    }
}

impl NewtonSystem for ShellStep<'_> {
    type State = ShellState;
    type Evaluation = Evaluated;
    /// The relative residual and the iterations.
    type Failure = (f64, usize);

    fn evaluate(&mut self, iteration: usize, state: &ShellState) -> Attempt<Evaluated, (f64, usize)> {
        Ok(self.at(state)?.ok_or((f64::INFINITY, iteration)))
    }

    /// Converged at the tolerance, or stalled at round-off: within the round-off factor of the
    /// tolerance, or within the forces' and the inertia's round-off, where a full step no longer halves
    /// the residual.
    fn converged(&mut self, iteration: usize, _: &ShellState, at: &Evaluated, s: &NewtonSettings) -> bool {
        super::corotational::settled(s, iteration, 1, at.1, &mut self.previous, self.floor)
    }

    fn step(&mut self, iteration: usize, state: &ShellState, at: &Evaluated) -> Attempt<Vec<f64>, (f64, usize)> {
        self.iterations += 1;
        let k = match self.shell.tangent(state, self.reduced, self.free, self.follower) {
            Ok(k) => k,
            Err(_) => return Ok(Err((at.1, iteration))),
        };
        let jacobian = combine(&[(self.m, self.rule.mass_factor), (self.damping, self.rule.damping_factor)]);
        let jacobian = &k + &jacobian;
        let minus_g: Vec<f64> = at.0.iter().map(|x| -x).collect();
        Ok(FaerLu.solve(&jacobian, &minus_g).map_err(|_| (at.1, iteration)))
    }

    fn trial(&mut self, state: &ShellState, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        let next = self.shell.update(state, self.reduced, step, alpha);
        Ok(self.at(&next)?.map(|at| {
            let n = at.1;
            ((next, Some(at)), n)
        }))
    }

    fn failure(&mut self, iterations: usize, at: &Evaluated) -> (f64, usize) {
        (at.1, iterations)
    }

    fn stalled(&mut self, iteration: usize, at: &Evaluated, settings: &NewtonSettings) -> Result<(), (f64, usize)> {
        if at.1 <= settings.round_off_tolerance().max(self.floor) { Ok(()) } else { Err((at.1, iteration + 1)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    #[test]
    fn the_increment_of_a_turned_rotation_is_its_spin() {
        let r = Rotation3::new(Vector3::new(0.3, -0.2, 0.1));
        let omega = Vector3::new(0.5, 0.25, -1.0);
        let next = Rotation3::new(omega * 0.1) * r;
        let d = rotation_vector((next * r.inverse()).matrix());
        assert!((d - omega * 0.1).norm() < 1e-15, "{d}");
    }
}
