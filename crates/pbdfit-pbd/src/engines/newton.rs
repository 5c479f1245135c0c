//! `newton-xpbd`: NVIDIA Newton's `SolverXPBD` for tetrahedra (Newton 1.8:
//! `newton/_src/solvers/xpbd/kernels.py`, `solve_tetrahedra`; `solver_xpbd.py`, `SolverXPBD.step`), in f64,
//! with the parameters Newton's `ModelBuilder.add_soft_mesh` / `add_tetrahedron` take.
//!
//! One step of `dt` (no substeps): `v += dt g`, `p = x + dt v` (`integrate_particles`); the two
//! multipliers of every tetrahedron are zeroed once; then `iterations` times: every tetrahedron computes,
//! from the same positions (Jacobi), its two constraints
//!
//! ```text
//! C_dev = tr(F^T F) - 3,  dC/dF = 2 F,     compliance 1 / (V0 k_mu)
//! C_vol = det F - 1,      dC/dF = cof F,   compliance 1 / (V0 k_lambda)
//! ```
//!
//! with `F = Ds Dm^-1`, vertex gradients `dC/dF Dm^-T` (the first the negative sum), `alpha = compliance /
//! dt^2`, and with `k_damp`'s Rayleigh term `gamma = k_damp / (k dt)`:
//!
//! ```text
//! dlambda = relaxation * -(C + alpha lambda + gamma dt grad C . v) / ((1 + gamma) sum w |grad C|^2 + alpha)
//! lambda += dlambda;  delta_i += w_i dlambda grad_i C
//! ```
//!
//! (atomic adds into one delta array); then `p += delta` and `v = (p - x) / dt` (`apply_particle_deltas`).
//! A tetrahedron with `k_mu <= 0` or `k_lambda <= 0` is skipped, as Newton's kernel returns for it.
//!
//! Versions: Newton 1.6 and `warp.sim` (Warp <= 1.9) reset no multipliers across iterations, since they
//! keep none: their `solve_tetrahedra` computes `dlambda = -C / (w + alpha)` from zero each iteration, so
//! their compliance hardens with the iteration count; this profile reproduces Newton 1.8, whose
//! multipliers persist within a step (`lambda_in`/`lambda_out`).
//!
//! Note on the constraint pair: with `F = I + H`, `C_dev = 2 tr H + |H|^2`, so at rest its gradient is
//! twice `C_vol`'s and the pair resists only volume change at small strain (no shear stiffness): a fitted
//! `k_mu` far above the material's shear modulus is what makes Newton's XPBD sag like the FEM.

use nalgebra::Matrix3;
use pbdfit_mesh::MassModel;

use super::{
    EngineBody, EngineConstants, EngineRule, EngineStep, det_gradient, det_minus_one, displacement_gradient,
    vertex_gradients, weighted_norm,
};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec, Vec3};

/// Newton 1.8's `SolverXPBD` for a body of tetrahedra, with its constants under Newton's names
/// (`relaxation`: `soft_body_relaxation`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonXpbd {
    pub relaxation: f64,
    pub k_damp: f64,
    pub k_mu: f64,
    pub k_lambda: f64,
}

impl EngineStep for NewtonXpbd {
    type Cache = ();
    const PASSES: super::Passes = super::Passes::Jacobi { relaxation: Some("relaxation") };
    const TANGENT: bool = true;

    /// Both constraints of every tetrahedron at compliance `1 / (V0 k h^2) + W / (relaxation passes)`:
    /// Gauss-Newton, plus `C_dev`'s geometric part where it is stretched (`C_dev > 0`:
    /// `hess tr(F^T F) = 2 (b_i . b_j) I`, `b_i` the vertex rows of `Dm^-1`), the only shear stiffness the
    /// pair has near zero strain.
    fn tangent(
        &self,
        _: &PbdSystem,
        body: &EngineBody,
        _: &(),
        passes: usize,
        h: f64,
        u: &[Vec3],
        put: &mut dyn FnMut(&[usize], Option<&super::tangent::Blocks>),
    ) {
        let stiffness = [self.k_mu, self.k_lambda];
        let passes = self.relaxation * passes as f64;
        for t in &body.tets {
            let hu = displacement_gradient(t, u);
            let f = Matrix3::identity() + hu;
            let c_dev = 2.0 * hu.trace() + hu.norm_squared();
            let terms = [
                (c_dev, vertex_gradients(&(f * 2.0 * t.dm_inv.transpose()))),
                (det_minus_one(&hu), det_gradient(t, &f)),
            ];
            for (term, (value, grad)) in terms.into_iter().enumerate() {
                let k = stiffness[term];
                let c = (stiffness[0] > 0.0 && stiffness[1] > 0.0)
                    .then(|| super::tangent::xpbd_compliance(1.0 / (t.volume * k) / (h * h), weighted_norm(&t.w, &grad), passes))
                    .flatten();
                let Some(c) = c else {
                    put(&t.particles, None);
                    continue;
                };
                let mut blocks = super::tangent::gauss_newton(&grad, c);
                if term == 0 && value > 0.0 {
                    let rows = [t.dm_inv.row(0).transpose(), t.dm_inv.row(1).transpose(), t.dm_inv.row(2).transpose()];
                    let b = [-(rows[0] + rows[1] + rows[2]), rows[0], rows[1], rows[2]];
                    for i in 0..4 {
                        for j in 0..4 {
                            blocks[i][j] += Matrix3::identity() * (2.0 * value * b[i].dot(&b[j]) / c);
                        }
                    }
                }
                put(&t.particles, Some(&blocks));
            }
        }
    }

    fn solve(&self, system: &PbdSystem, body: &EngineBody, _: &(), passes: usize, d: &mut Dynamics, dt: f64) {
        let (relaxation, k_damp) = (self.relaxation, self.k_damp);
        let stiffness = [self.k_mu, self.k_lambda];
        if stiffness[0] <= 0.0 || stiffness[1] <= 0.0 {
            return;
        }
        let lambda = &mut d.lambda_engine;
        lambda.clear();
        lambda.resize(2 * body.tets.len(), 0.0);
        let delta = &mut d.delta_engine;
        delta.clear();
        delta.resize(system.rest.len(), Vec3::zeros());
        let dt2 = dt * dt;
        for _ in 0..passes {
            delta.fill(Vec3::zeros());
            let p = &d.predicted;
            for (t, lambda) in body.tets.iter().zip(lambda.chunks_exact_mut(2)) {
                let h = displacement_gradient(t, p);
                let f = Matrix3::identity() + h;
                // 2 tr H + |H|^2 = tr(F^T F) - 3 without cancellation.
                let c_dev = 2.0 * h.trace() + h.norm_squared();
                let terms = [
                    (c_dev, vertex_gradients(&(f * 2.0 * t.dm_inv.transpose()))),
                    (det_minus_one(&h), det_gradient(t, &f)),
                ];
                for (term, (value, grad)) in terms.into_iter().enumerate() {
                    let w = weighted_norm(&t.w, &grad);
                    if w <= 0.0 {
                        continue;
                    }
                    let k = stiffness[term];
                    let alpha = 1.0 / (t.volume * k) / dt2;
                    let (gamma, grad_dot_v) = if k_damp > 0.0 {
                        // dt grad C . v with v = (p - x) / dt, Newton's particle velocity during the iterations.
                        let moved = |i: usize| grad[i].dot(&(p[t.particles[i]] - d.u[t.particles[i]]));
                        (k_damp / (k * dt), moved(0) + moved(1) + moved(2) + moved(3))
                    } else {
                        (0.0, 0.0)
                    };
                    let dlambda =
                        relaxation * -(value + alpha * lambda[term] + gamma * grad_dot_v) / ((1.0 + gamma) * w + alpha);
                    lambda[term] += dlambda;
                    for i in 0..4 {
                        delta[t.particles[i]] += grad[i] * (t.w[i] * dlambda);
                    }
                }
            }
            for &i in &system.free {
                d.predicted[i] += delta[i];
            }
        }
    }
}

/// `k_mu`, `k_lambda` in Pa: Newton's tetrahedron material (`tet_materials[:, 0..2]`).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10(
        "k_mu",
        "Pa",
        "Newton's k_mu: stiffness of C_dev = tr(F^T F) - 3 (compliance 1/(V0 k_mu))",
        (1e-1, 1e10),
    ),
    ParameterSpec::log10(
        "k_lambda",
        "Pa",
        "Newton's k_lambda: stiffness of C_vol = det F - 1 (compliance 1/(V0 k_lambda))",
        (1e-1, 1e10),
    ),
];

/// `SolverXPBD(soft_body_relaxation=...)` and the tetrahedra's `k_damp`.
const SETTINGS: [SettingSpec; 2] = [
    SettingSpec::new(
        "relaxation",
        "1",
        "SolverXPBD's soft_body_relaxation: the factor on every tetrahedron's dlambda",
        0.9,
    )
    .within(0.01, 1.0),
    SettingSpec::new(
        "k_damp",
        "1",
        "add_soft_mesh's k_damp (Rayleigh damping of the tetrahedra; it moves the rest state)",
        0.0,
    )
    .within(0.0, 1e3)
    .damping(),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let (relaxation, k_damp) = (s.settings[0], s.settings[1]);
    EngineRule {
        substeps: 1,
        passes: s.nit,
        velocity_factor: 1.0,
        gravity_factor: 1.0,
        constants: EngineConstants::NewtonXpbd(NewtonXpbd { relaxation, k_damp, k_mu: p[0], k_lambda: p[1] }),
    }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!("builder.add_soft_mesh(..., k_mu={:.6e}, k_lambda={:.6e}, k_damp={})", p[0], p[1], s.settings[1]),
        format!(
            "solver = newton.solvers.SolverXPBD(model, iterations={}, soft_body_relaxation={})",
            s.nit, s.settings[0]
        ),
        format!("solver.step(state_in, state_out, control, contacts, dt={})", s.dt),
    ]
}

/// Newton 1.8's XPBD on tetrahedra.
pub(crate) static NEWTON_XPBD: ModelDef = ModelDef {
    name: "newton-xpbd",
    description: "NVIDIA Newton 1.8 SolverXPBD on tetrahedra: k_mu, k_lambda (Pa), Jacobi, relaxation 0.9",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "SolverXPBD's iterations per step (Jacobi passes over every tetrahedron)",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e4, 1e4],
    // add_soft_mesh gives each corner a quarter of its tetrahedron's density x volume.
    masses: Some(MassModel::Lumped),
};
