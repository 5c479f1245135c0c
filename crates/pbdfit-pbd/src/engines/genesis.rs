//! `genesis-pbd`: Genesis's PBD elastic solver (Genesis 1.4.5: `genesis/engine/solvers/pbd_solver.py`,
//! `_kernel_solve_stretch`, `_kernel_solve_volume`; `gs.materials.PBD.Elastic`, `gs.options.PBDOptions`),
//! in f64 (Genesis's default is f32; `gs.init(precision="64")` runs it in f64), with the compliances of
//! `gs.materials.PBD.Elastic`.
//!
//! A step of `dt` is `substeps` substeps of `h = dt / substeps` (`SimOptions.substeps`), each:
//!
//! ```text
//! v += g h (free particles);  p = x + h v
//! max_stretch_solver_iterations times (Jacobi: every edge reads the same positions, corrections summed):
//!   C = |xa - xb| - l0,  dp = -relax_s C / (wa + wb + alpha_s / h^2) n,  dpos_a += wa dp, dpos_b -= wb dp
//!   p += dpos
//! max_volume_solver_iterations times (Jacobi):
//!   g_i = dV/dp_i,  W_i = w_i |g_i|^2,  C = V - V0,  s = -relax_v C / (sum W + alpha_v / h^2)
//!   dpos_i += s W_i g_i          (note W_i, not w_i: the correction carries an extra |g_i|^2)
//!   p += dpos
//! v = (p - x) / h
//! ```
//!
//! No multiplier is kept (each correction is a PBD step with a compliance term), and there is no damping.
//! The extra `|g_i|^2` (about `(l^2 / 6)^2` for a tetrahedron of edge `l`) makes the volume constraint
//! nearly inert on bodies of metre size and below. Masses are uniform: every particle gets the body's
//! total mass over the particle count (`rho` times the morph's volume, shared equally), whatever the
//! scene's mass model; held particles (`fix_particles`) have inverse mass 0.
//!
//! Not reproduced: Genesis's particle self-collision, which is always on inside a body and pushes apart
//! any two particles whose rest distance exceeds `particle_size` when they come closer than it; a
//! `particle_size` below the shortest edge, as the checks use, leaves it inactive at rest. The domain's
//! bounds (a floor at z = 0 by default) are outside the body in the checks.

use pbdfit_mesh::MassModel;

use super::{EngineBody, EngineConstants, EngineEdge, EngineRule, EngineStep, six_volume_change};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec, Vec3};

/// Genesis's PBD elastic substep, with its constants under Genesis's names (`stretch_iterations`,
/// `volume_iterations`: the `max_*_solver_iterations` of `PBDOptions`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenesisPbd {
    pub stretch_compliance: f64,
    pub volume_compliance: f64,
    pub stretch_relaxation: f64,
    pub volume_relaxation: f64,
    pub stretch_iterations: usize,
    pub volume_iterations: usize,
}

impl EngineStep for GenesisPbd {
    type Cache = ();
    const PASSES: super::Passes = super::Passes::Jacobi { relaxation: Some("stretch_relaxation") };
    const TANGENT: bool = true;

    /// Genesis's uniform masses ([`uniform_inverse_mass`]).
    fn inverse_mass(&self, system: &PbdSystem, p: usize) -> f64 {
        if system.inverse_masses[p] > 0.0 { uniform_inverse_mass(system) } else { 0.0 }
    }

    /// Every edge (its geometric part in tension) at the compliance of its multiplier-free passes
    /// (`pbd_compliance`, a pass removing `stretch_relaxation W / (W + alpha / h^2)` of a violation). The
    /// volumes are left out: their extra `|g_i|^2` leaves them nearly inert (the module doc).
    fn tangent(
        &self,
        system: &PbdSystem,
        body: &EngineBody,
        _: &(),
        passes: usize,
        h: f64,
        u: &[Vec3],
        put: &mut dyn FnMut(&[usize], Option<&super::tangent::Blocks>),
    ) {
        let alpha = self.stretch_compliance / (h * h);
        let w_free = uniform_inverse_mass(system);
        let w = |p: usize| if system.inverse_masses[p] > 0.0 { w_free } else { 0.0 };
        for e in &body.edges {
            let [a, b] = e.particles;
            let weight = w(a) + w(b);
            let k = self.stretch_relaxation * weight / (weight + alpha);
            let blocks = super::tangent::pbd_compliance(k, self.stretch_iterations * passes, weight)
                .and_then(|c| super::tangent::edge(e.rest + u[b] - u[a], e.length, c));
            put(&e.particles, blocks.as_ref());
        }
    }

    fn solve(&self, system: &PbdSystem, body: &EngineBody, _: &(), passes: usize, d: &mut Dynamics, h: f64) {
        let inv_h2 = 1.0 / (h * h);
        let w_free = uniform_inverse_mass(system);
        let w = |p: usize| if system.inverse_masses[p] > 0.0 { w_free } else { 0.0 };
        let x = &system.rest;
        let delta = &mut d.delta_engine;
        delta.clear();
        delta.resize(x.len(), Vec3::zeros());
        for _ in 0..passes {
            for _ in 0..self.stretch_iterations {
                let alpha = self.stretch_compliance * inv_h2;
                stretch_pass(&body.edges, &d.predicted, &w, alpha, self.stretch_relaxation, delta);
                apply_passes(&system.free, &mut d.predicted, delta);
            }
            for _ in 0..self.volume_iterations {
                let u = &d.predicted;
                for t in &body.tets {
                    let [a, b, cc, dd] = t.particles;
                    let p = [x[a] + u[a], x[b] + u[b], x[cc] + u[cc], x[dd] + u[dd]];
                    let g = [
                        (p[3] - p[1]).cross(&(p[2] - p[1])) / 6.0,
                        (p[2] - p[0]).cross(&(p[3] - p[0])) / 6.0,
                        (p[3] - p[0]).cross(&(p[1] - p[0])) / 6.0,
                        (p[1] - p[0]).cross(&(p[2] - p[0])) / 6.0,
                    ];
                    let weights = [
                        w(a) * g[0].norm_squared(),
                        w(b) * g[1].norm_squared(),
                        w(cc) * g[2].norm_squared(),
                        w(dd) * g[3].norm_squared(),
                    ];
                    let sum: f64 = weights.iter().sum();
                    if sum <= 0.0 {
                        continue;
                    }
                    let s = -self.volume_relaxation * six_volume_change(t, x, u)
                        / 6.0
                        / (sum + self.volume_compliance * inv_h2);
                    for k in 0..4 {
                        delta[t.particles[k]] += g[k] * (s * weights[k]);
                    }
                }
                apply_passes(&system.free, &mut d.predicted, delta);
            }
        }
    }
}

/// The uniform inverse mass of a free particle: the particle count over the body's total mass (Genesis's
/// bodies; Godot's sheet under `jolt-cloth`).
pub(super) fn uniform_inverse_mass(system: &PbdSystem) -> f64 {
    system.rest.len() as f64 / system.total_mass
}

/// `stretch_compliance` (m/N) and `volume_compliance` of `gs.materials.PBD.Elastic` (Genesis's default for
/// both is 0, which the log box leaves out: give it with `--param`).
pub(super) const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10("stretch_compliance", "m/N", "PBD.Elastic's stretch_compliance (C = l - l0)", (1e-10, 1e2)),
    ParameterSpec::log10(
        "volume_compliance",
        "m^6/J",
        "PBD.Elastic's volume_compliance (C = V - V0; its correction carries an extra |grad C|^2)",
        (1e-14, 1e2),
    ),
];

/// `gs.materials.PBD.Elastic`'s relaxations and `gs.options.PBDOptions`'s iteration counts.
pub(super) const SETTINGS: [SettingSpec; 4] = [
    SettingSpec::fraction(
        "stretch_relaxation",
        "PBD.Elastic's stretch_relaxation: the factor on every edge correction",
        0.1,
    ),
    SettingSpec::fraction(
        "volume_relaxation",
        "PBD.Elastic's volume_relaxation: the factor on every volume correction",
        0.1,
    ),
    SettingSpec::count(
        "max_stretch_solver_iterations",
        "PBDOptions.max_stretch_solver_iterations: Jacobi passes over the edges per substep",
        4.0,
        1.0,
    ),
    SettingSpec::count(
        "max_volume_solver_iterations",
        "PBDOptions.max_volume_solver_iterations: Jacobi passes over the tetrahedra per substep",
        1.0,
        0.0,
    ),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let constants = EngineConstants::GenesisPbd(GenesisPbd::of(p, s));
    EngineRule { substeps: s.nit.max(1), passes: 1, velocity_factor: 1.0, gravity_factor: 1.0, constants }
}

impl GenesisPbd {
    /// The constants of the parameters `p` and the settings in `s`.
    pub(crate) fn of(p: &[f64], s: RuleSettings) -> Self {
        GenesisPbd {
            stretch_compliance: p[0],
            volume_compliance: p[1],
            stretch_relaxation: s.settings[0],
            volume_relaxation: s.settings[1],
            stretch_iterations: s.settings[2] as usize,
            volume_iterations: s.settings[3] as usize,
        }
    }
}

pub(super) fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "gs.materials.PBD.Elastic(stretch_compliance={:.6e}, volume_compliance={:.6e}, stretch_relaxation={}, \
             volume_relaxation={})",
            p[0], p[1], s.settings[0], s.settings[1]
        ),
        format!(
            "gs.options.PBDOptions(max_stretch_solver_iterations={}, max_volume_solver_iterations={})",
            s.settings[2], s.settings[3]
        ),
        format!("gs.options.SimOptions(dt={}, substeps={})", s.dt, s.nit),
    ]
}

/// Genesis's PBD elastic solver.
pub(crate) static GENESIS_PBD: ModelDef = ModelDef {
    name: "genesis-pbd",
    description: "Genesis 1.4.5 PBD elastic: stretch_compliance (m/N), volume_compliance; Jacobi, relaxation 0.1, uniform masses",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Genesis's substeps (SimOptions.substeps) per step of dt",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e-4, 1e-6],
    // Genesis gives every particle the same mass: rho x the morph's volume over the particle count.
    masses: Some(MassModel::Uniform),
};

/// The end of a Jacobi pass of Genesis's: the summed corrections `delta` (m) added to the free particles'
/// displacements `u`, then cleared for the next pass.
pub(super) fn apply_passes(free: &[usize], u: &mut [Vec3], delta: &mut [Vec3]) {
    for &p in free {
        u[p] += delta[p];
    }
    delta.fill(Vec3::zeros());
}

/// One Jacobi pass of Genesis's stretch kernel (`_kernel_solve_stretch`, shared by its elastic and cloth
/// PBD entities) over `edges` at the displacements `u` (m): each edge's `C = |x_a - x_b| - l0` (without
/// cancellation) projected with inverse masses `w` and compliance `alpha` (already over the substep's
/// `h^2`), scaled by `relaxation`, and added to `delta` (the caller applies it). An edge of zero length
/// or between two held particles is skipped.
pub(super) fn stretch_pass(
    edges: &[EngineEdge],
    u: &[Vec3],
    w: &impl Fn(usize) -> f64,
    alpha: f64,
    relaxation: f64,
    delta: &mut [Vec3],
) {
    for e in edges {
        let [a, b] = e.particles;
        let (wa, wb) = (w(a), w(b));
        let denominator = wa + wb + alpha;
        if denominator <= 0.0 {
            continue;
        }
        let du = u[a] - u[b];
        let n = -e.rest + du;
        let length = n.norm();
        if length == 0.0 {
            continue;
        }
        let stretch = (-2.0 * e.rest.dot(&du) + du.norm_squared()) / (length + e.length);
        let dp = n * (-relaxation * stretch / denominator / length);
        delta[a] += dp * wa;
        delta[b] -= dp * wb;
    }
}
