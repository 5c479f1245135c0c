//! The rest state: the displacements at which the simulation stops moving, `u* = P(u* + dt^2 g)`.

use crate::anderson::anderson;
use crate::{PbdError, PbdSystem, ProjectionRule, SimParams, Vec3};

/// How a rest state is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestMethod {
    /// Step the dynamics until the largest per-step displacement, relative to the largest
    /// displacement, falls below the tolerance.
    Stepping,
    /// Solve `u = P(u + dt^2 g)` with Anderson acceleration; fall back to stepping if that fails.
    FixedPoint,
}

/// Controls of the rest-state computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestOptions {
    /// Method (default: fixed point, with stepping as the fallback).
    pub method: RestMethod,
    /// Relative tolerance: stepping stops when `max |u_{n+1} - u_n| <= tol * max |u_n|`; the fixed point
    /// when `|G(u) - u|_inf <= tol * |G(u)|_inf`. Relative, because rest deformation scales with dt^2.
    pub tolerance: f64,
    /// Largest number of projection sweeps (steps x nit, or map evaluations x nit) before giving up.
    pub max_sweeps: usize,
    /// Anderson memory (number of stored differences).
    pub anderson_memory: usize,
    /// Largest number of rest-map evaluations the fixed-point solver may spend before falling back.
    pub max_map_evaluations: usize,
}

impl Default for RestOptions {
    fn default() -> Self {
        Self {
            method: RestMethod::FixedPoint,
            tolerance: 1e-13,
            max_sweeps: 20_000_000,
            anderson_memory: 10,
            max_map_evaluations: 3000,
        }
    }
}

/// A rest state.
#[derive(Debug, Clone, PartialEq)]
pub struct RestState {
    /// Rest positions `X + u` (m).
    pub positions: Vec<Vec3>,
    /// Rest displacements `u` from the initial configuration (m).
    pub displacements: Vec<Vec3>,
    /// Projection sweeps spent (time steps x nit for stepping, map evaluations x nit for the fixed point).
    pub iterations: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Final relative residual (see [`RestOptions::tolerance`]).
    pub residual: f64,
    /// The method that produced the state (the fixed point may have fallen back to stepping).
    pub method: RestMethod,
}

impl RestState {
    /// Largest displacement norm (m).
    pub fn max_displacement(&self) -> f64 {
        self.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max)
    }
}

impl PbdSystem {
    /// The rest state for `params`, optionally starting from the displacements `warm` (for example the
    /// rest state of nearby parameters). Errors for invalid parameters, divergence, inverted
    /// tetrahedra; a state that did not meet the tolerance within `max_sweeps` comes back with
    /// `converged: false`.
    pub fn rest_state(
        &self,
        params: &SimParams,
        options: &RestOptions,
        warm: Option<&[Vec3]>,
    ) -> Result<RestState, PbdError> {
        params.validate()?;
        let rules = params.rule();
        let mut spent = 0;
        if options.method == RestMethod::FixedPoint {
            let mut d = self.dynamics();
            let x0: Vec<f64> = match warm {
                Some(w) => self.free.iter().flat_map(|&p| [w[p].x, w[p].y, w[p].z]).collect(),
                None => vec![0.0; 3 * self.free.len()],
            };
            let out = anderson(
                x0,
                |x, out| self.rest_map(&rules, params, &mut d, x, out),
                options.anderson_memory,
                options.tolerance,
                options.max_map_evaluations.min(options.max_sweeps / params.nit.max(1)),
                self.extent,
            );
            spent = out.evaluations * params.nit;
            if out.converged {
                let mut u = vec![Vec3::zeros(); self.rest.len()];
                for (i, &p) in self.free.iter().enumerate() {
                    u[p] = Vec3::new(out.x[3 * i], out.x[3 * i + 1], out.x[3 * i + 2]);
                }
                return accept_rest_state(
                    &self.scene,
                    &self.rest,
                    &self.tets,
                    params,
                    u,
                    spent,
                    true,
                    out.residual,
                    RestMethod::FixedPoint,
                );
            }
        }
        self.rest_by_stepping(params, &rules, options, warm, spent)
    }

    fn rest_by_stepping(
        &self,
        params: &SimParams,
        rules: &ProjectionRule,
        options: &RestOptions,
        warm: Option<&[Vec3]>,
        mut spent: usize,
    ) -> Result<RestState, PbdError> {
        let mut d = self.dynamics();
        if let Some(w) = warm {
            for &p in &self.free {
                d.u[p] = w[p];
            }
        }
        let mut residual = f64::INFINITY;
        let mut converged = false;
        while spent + params.nit <= options.max_sweeps.max(params.nit) {
            let step = self.step_with(rules, params, &mut d);
            spent += params.nit;
            let largest = self.free.iter().map(|&p| d.u[p].norm()).fold(0.0, f64::max);
            if !largest.is_finite() || largest > self.extent {
                return Err(diverged(&self.scene, params, spent, largest, self.extent));
            }
            residual = if largest > 0.0 { step / largest } else { step };
            converged = residual <= options.tolerance || step == 0.0;
            if converged || spent >= options.max_sweeps {
                break;
            }
        }
        accept_rest_state(
            &self.scene,
            &self.rest,
            &self.tets,
            params,
            d.u,
            spent,
            converged,
            residual,
            RestMethod::Stepping,
        )
    }
}

/// The error for a run whose largest displacement (m) left the body's extent (m) or is not finite.
/// Shared by every backend, so all report divergence alike.
pub fn diverged(scene: &str, params: &SimParams, sweeps: usize, largest: f64, extent: f64) -> PbdError {
    PbdError::Diverged {
        scene: scene.to_string(),
        params: params.describe(),
        sweeps,
        reason: if largest.is_finite() {
            format!("displacement {largest:.3e} m exceeds the body size {extent:.3e} m")
        } else {
            "NaN or infinite displacement".into()
        },
    }
}

/// Packages candidate rest displacements (m) of a body (scene name, rest positions, tetrahedra), from
/// any backend, as a [`RestState`], rejecting a state with an inverted or degenerate tetrahedron.
pub fn accept_rest_state(
    scene: &str,
    rest: &[Vec3],
    tets: &[[usize; 4]],
    params: &SimParams,
    displacements: Vec<Vec3>,
    iterations: usize,
    converged: bool,
    residual: f64,
    method: RestMethod,
) -> Result<RestState, PbdError> {
    let positions: Vec<Vec3> = rest.iter().zip(&displacements).map(|(x, u)| x + u).collect();
    for (t, tet) in tets.iter().enumerate() {
        let volume = pbdfit_mesh::signed_volume(tet.map(|v| positions[v]));
        if volume.is_nan() || volume <= 0.0 {
            return Err(PbdError::InvertedTet { scene: scene.to_string(), params: params.describe(), tet: t, volume });
        }
    }
    Ok(RestState { positions, displacements, iterations, converged, residual, method })
}
