//! `newton-cloth`: NVIDIA Newton 1.8's XPBD cloth, a sheet as `ModelBuilder.add_cloth_mesh(...,
//! add_springs=True, spring_ke, spring_kd, edge_ke, edge_kd)` (or `add_cloth_grid`) builds it, stepped by
//! `SolverXPBD` (`newton/_src/solvers/xpbd/solver_xpbd.py`, `SolverXPBD.step`; kernels `solve_springs` and
//! `bending_constraint` in `kernels.py`), in f64.
//!
//! **Which of Newton's cloth paths this is.** `add_cloth_mesh` makes one FEM triangle per face (`tri_ke`,
//! `tri_ka`, `tri_kd`) and one bending edge per mesh edge (`edge_ke`, `edge_kd`), and with `add_springs=True`
//! one distance spring per unique pair of the edges' four vertices (`spring_ke`, `spring_kd`). `SolverXPBD`
//! never reads the triangles (they act only in the semi-implicit, VBD and Style3D solvers): its cloth is the
//! springs and the bending edges, so a sheet built without `add_springs` has no membrane in XPBD at all.
//! Newton's own XPBD cloth example (`examples/cloth/example_cloth_hanging.py --solver xpbd`) builds it so
//! (`add_springs=True, spring_ke=1e3, spring_kd=1`, `edge_ke=10`, `SolverXPBD(iterations=10)`), which is the
//! path reproduced here. The springs are the sheet's unique edges and, for each interior edge, the pair of
//! its two triangles' opposite vertices (across a quad: the other diagonal; across two quads: a bending
//! spring); each spring's rest length is its rest distance (Newton rounds it to f32).
//!
//! One step of `dt` (no substeps): `v += dt g`, `p = x + dt v` for every particle with mass
//! (`integrate_particles`); the multipliers of every spring and bending edge are zeroed once; then
//! `iterations` times, from the same positions (Jacobi: every correction summed into one delta array by
//! atomic adds, no relaxation factor, `soft_body_relaxation` being the tetrahedra's only):
//!
//! ```text
//! spring  C = |x_i - x_j| - l0,               grad_i C = n = (x_i - x_j) / |x_i - x_j|,  grad_j C = -n
//! bend    C = atan2((n1^ x n2^) . e^, n1^ . n2^) - theta0,  n1 = (x3 - x1) x (x4 - x1),  n2 = (x4 - x2) x (x3 - x2),
//!         e = x4 - x3 (x1, x2 the opposite vertices, x3 x4 the edge), gradients
//!         g1 = -n1^ |e|,  g2 = -n2^ |e|,  g3 = -n1^ (x1 - x4).e^ - n2^ (x2 - x4).e^,  g4 = -n1^ (x3 - x1).e^ - n2^ (x3 - x2).e^
//! alpha = 1 / (ke dt^2),  gamma = kd / (ke dt)
//! dlambda = -(C + alpha lambda + gamma dt grad C . v) / ((1 + gamma) sum w |grad C|^2 + alpha)
//! lambda += dlambda;  delta_i += w_i dlambda grad_i C
//! ```
//!
//! then `p += delta`, `v = (p - x) / dt` (`apply_particle_deltas`). A spring or bend with `ke <= 0`, `kd < 0`,
//! no free vertex, or a degenerate shape (a zero length; a normal or the edge shorter than 1e-6 m) is
//! skipped, as Newton's kernels return. The bending gradients are the angle's times each face's `|n|` (twice
//! its area): not normalised, so `edge_ke` is not an energy's stiffness and its effect scales with the
//! triangles' areas. The multipliers persist across the iterations of a step (`lambda_in`/`lambda_out`,
//! reset per step), as for the tetrahedra in `newton-xpbd`.
//!
//! Not reproduced: the particle-particle contacts `SolverXPBD` runs inside its iterations whenever a
//! particle radius is above 0 (Newton's default radius 0.1 m pushes apart any two particles closer than
//! 0.2 m, neighbours on a fine sheet included: build with `particle_radius=0` for this body), the velocity
//! limit `particle_max_velocity` (1e5 m/s), shapes and ground contacts, per-element stiffnesses.

use std::collections::{BTreeSet, HashMap};

use pbdfit_mesh::MassModel;

use super::{EngineBody, EngineConstants, EngineRule, EngineStep};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec, Vec3};

/// Newton 1.8's XPBD cloth constants, under Newton's names: the springs' and the bending edges' stiffness
/// and damping (`add_cloth_mesh`'s `spring_ke`, `spring_kd`, `edge_ke`, `edge_kd`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonCloth {
    /// `spring_ke` (N/m).
    pub spring_ke: f64,
    /// `spring_kd` (N s/m).
    pub spring_kd: f64,
    /// `edge_ke` (N/(m rad): the force on a vertex at equilibrium is `edge_ke C grad C`, with Newton's
    /// gradient in m).
    pub edge_ke: f64,
    /// `edge_kd` (N s/(m rad)).
    pub edge_kd: f64,
}

/// A spring as `add_spring` makes it.
#[derive(Debug, Clone)]
struct Spring {
    particles: [usize; 2],
    /// Rest length (m).
    length: f64,
    /// Inverse masses (1/kg).
    w: [f64; 2],
}

/// A bending edge as `add_edges` makes it: `[o0, o1, v0, v1]` (the opposite vertices, then the edge), the
/// triangles `(o0, v0, v1)` and `(o1, v1, v0)` in the mesh's winding.
#[derive(Debug, Clone)]
struct Bend {
    particles: [usize; 4],
    /// Inverse masses (1/kg).
    w: [f64; 4],
    /// Rest angle (rad), `atan2` of the rest normals as `add_edges` computes it.
    angle: f64,
}

/// The sheet's springs and bending edges as `add_cloth_mesh(add_springs=True)` makes them.
#[derive(Debug, Clone, Default)]
pub struct ClothElements {
    springs: Vec<Spring>,
    bends: Vec<Bend>,
}

impl ClothElements {
    /// The numbers of springs and bending edges (interior edges: Newton's boundary edges, with an opposite
    /// vertex -1, act on nothing).
    pub fn counts(&self) -> (usize, usize) {
        (self.springs.len(), self.bends.len())
    }

    /// `MeshAdjacency` and `add_cloth_mesh` on the sheet's triangles (none on a solid).
    fn build(system: &PbdSystem) -> Self {
        let Some(cloth) = system.cloth_body() else { return Self::default() };
        let x = &system.rest;
        let w = &system.inverse_masses;
        // Each undirected edge with the triangles' opposite vertices, the first triangle's winding kept.
        let mut edges: Vec<([usize; 2], Vec<usize>)> = Vec::new();
        let mut index: HashMap<[usize; 2], usize> = HashMap::new();
        for t in cloth.triangles() {
            for k in 0..3 {
                let (a, b, o) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                let key = [a.min(b), a.max(b)];
                let slot = *index.entry(key).or_insert_with(|| {
                    edges.push(([a, b], Vec::new()));
                    edges.len() - 1
                });
                edges[slot].1.push(o);
            }
        }
        let mut pairs = BTreeSet::new();
        let mut bends = Vec::new();
        for ([a, b], opposite) in &edges {
            pairs.insert((*a.min(b), *a.max(b)));
            if let [o0, o1] = opposite[..] {
                pairs.insert((o0.min(o1), o0.max(o1)));
                // The first triangle is (a, b, o0): (o0, a, b) in its winding, so v0 = a, v1 = b.
                let particles = [o0, o1, *a, *b];
                bends.push(Bend { particles, w: particles.map(|p| w[p]), angle: rest_angle(particles.map(|p| x[p])) });
            }
        }
        let springs = pairs
            .into_iter()
            .map(|(i, j)| Spring { particles: [i, j], length: (x[i] - x[j]).norm(), w: [w[i], w[j]] })
            .collect();
        ClothElements { springs, bends }
    }
}

/// `add_edges`' rest angle: `atan2((n1^ x n2^) . e^, clip(n1^ . n2^, -1, 1))` of the rest positions.
fn rest_angle([x1, x2, x3, x4]: [Vec3; 4]) -> f64 {
    let n1 = (x3 - x1).cross(&(x4 - x1)).normalize();
    let n2 = (x4 - x2).cross(&(x3 - x2)).normalize();
    let e = (x4 - x3).normalize();
    n1.cross(&n2).dot(&e).atan2(n1.dot(&n2).clamp(-1.0, 1.0))
}

impl EngineStep for NewtonCloth {
    type Cache = ClothElements;
    /// Jacobi passes with no relaxation factor of their own: nothing to lower but dt or the stiffnesses.
    const PASSES: super::Passes = super::Passes::Jacobi { relaxation: None };

    fn cache(system: &PbdSystem, _: &EngineBody) -> ClothElements {
        ClothElements::build(system)
    }

    fn solve(
        &self,
        system: &PbdSystem,
        _: &EngineBody,
        cache: &ClothElements,
        passes: usize,
        d: &mut Dynamics,
        dt: f64,
    ) {
        let (springs, bends) = (&cache.springs, &cache.bends);
        let lambda = &mut d.lambda_engine;
        lambda.clear();
        lambda.resize(springs.len() + bends.len(), 0.0);
        let (lambda_springs, lambda_bends) = lambda.split_at_mut(springs.len());
        let delta = &mut d.delta_engine;
        delta.clear();
        delta.resize(system.rest.len(), Vec3::zeros());
        let dt2 = dt * dt;
        let x = &system.rest;
        for _ in 0..passes {
            delta.fill(Vec3::zeros());
            let (p, u) = (&d.predicted, &d.u);
            // dt v = p - x_start: Newton's particle velocity during the iterations, times dt.
            let moved = |i: usize| p[i] - u[i];
            let (ke, kd) = (self.spring_ke, self.spring_kd);
            if ke > 0.0 && kd >= 0.0 {
                let (alpha, gamma) = (1.0 / (ke * dt2), kd / (ke * dt));
                for (s, lambda) in springs.iter().zip(lambda_springs.iter_mut()) {
                    let [i, j] = s.particles;
                    let denominator = s.w[0] + s.w[1];
                    let xij = x[i] - x[j] + p[i] - p[j];
                    let l = xij.norm();
                    if l == 0.0 || denominator <= 0.0 {
                        continue;
                    }
                    let n = xij / l;
                    let c = l - s.length;
                    let grad_dot_v = n.dot(&(moved(i) - moved(j)));
                    let dlambda = -(c + alpha * *lambda + gamma * grad_dot_v) / ((1.0 + gamma) * denominator + alpha);
                    *lambda += dlambda;
                    delta[i] += n * (s.w[0] * dlambda);
                    delta[j] -= n * (s.w[1] * dlambda);
                }
            }
            let (ke, kd) = (self.edge_ke, self.edge_kd);
            if ke > 0.0 && kd >= 0.0 {
                let (alpha, gamma) = (1.0 / (ke * dt2), kd / (ke * dt));
                for (b, lambda) in bends.iter().zip(lambda_bends.iter_mut()) {
                    let [x1, x2, x3, x4] = b.particles.map(|i| x[i] + p[i]);
                    let n1 = (x3 - x1).cross(&(x4 - x1));
                    let n2 = (x4 - x2).cross(&(x3 - x2));
                    let e = x4 - x3;
                    let (n1_length, n2_length, e_length) = (n1.norm(), n2.norm(), e.norm());
                    const EPS: f64 = 1e-6;
                    if n1_length < EPS || n2_length < EPS || e_length < EPS {
                        continue;
                    }
                    let (n1, n2, e_hat) = (n1 / n1_length, n2 / n2_length, e / e_length);
                    let theta = n1.cross(&n2).dot(&e_hat).atan2(n1.dot(&n2));
                    let c = theta - b.angle;
                    let grad = [
                        -n1 * e_length,
                        -n2 * e_length,
                        -n1 * (x1 - x4).dot(&e_hat) - n2 * (x2 - x4).dot(&e_hat),
                        -n1 * (x3 - x1).dot(&e_hat) - n2 * (x3 - x2).dot(&e_hat),
                    ];
                    let denominator: f64 = (0..4).map(|k| b.w[k] * grad[k].norm_squared()).sum();
                    if denominator <= 0.0 {
                        continue;
                    }
                    let grad_dot_v: f64 = (0..4).map(|k| grad[k].dot(&moved(b.particles[k]))).sum();
                    let dlambda = -(c + alpha * *lambda + gamma * grad_dot_v) / ((1.0 + gamma) * denominator + alpha);
                    *lambda += dlambda;
                    for k in 0..4 {
                        delta[b.particles[k]] += grad[k] * (b.w[k] * dlambda);
                    }
                }
            }
            for &i in &system.free {
                d.predicted[i] += delta[i];
            }
        }
    }
}

/// `spring_ke` (N/m) and `edge_ke` (N/(m rad)): `add_cloth_mesh`'s stiffnesses that `SolverXPBD` reads. The
/// default boxes keep to where Newton's step has a rest state on pbdfit's sheets at dt 1/600 s (Newton's cloth
/// example's substep): softer springs let a sheet fall past its own size or wrinkle (a flat sheet whose edge is
/// compressed has no stable flat rest state with weak bending), stiffer ones make the Jacobi passes overshoot
/// (`spring_ke dt^2 w` of order 1); on the hanging sheet at N = 2 the box (1e-2, 1e9) x (1e-8, 1e6) left 23 of
/// 39 points without a rest state (no answer), this one 13 of 52 (one from 1 N/m: 66 of 107, no answer).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10(
        "spring_ke",
        "N/m",
        "Newton's spring_ke: stiffness of every spring C = |x_i - x_j| - l0 (compliance 1/(spring_ke dt^2))",
        (3.0, 1e4),
    ),
    ParameterSpec::log10(
        "edge_ke",
        "N/(m rad)",
        "Newton's edge_ke: stiffness of every bending edge C = dihedral angle - rest angle (compliance 1/(edge_ke \
         dt^2), gradients of length |e| in m, not the angle's)",
        (1e-2, 1e3),
    ),
];

/// `add_cloth_mesh`'s `spring_kd` and `edge_kd`: Rayleigh damping. At rest it acts on the gravity move of
/// the first iteration only (`gamma grad C . g dt^2`), so it moves the rest state slightly: `spring_kd` 0.1 N s/m
/// by 8.9e-7 relative L2 on the hanging sheet (N = 4, spring_ke 10 N/m, dt 1/600 s), `edge_kd` 0.03 by 1.3e-7 on
/// the clamped strip.
const SETTINGS: [SettingSpec; 2] = [
    SettingSpec::new(
        "spring_kd",
        "N s/m",
        "add_cloth_mesh's spring_kd (the springs' damping, gamma = spring_kd/(spring_ke dt); it moves the rest state, \
         slightly)",
        0.0,
    )
    .within(0.0, 1e6)
    .damping(),
    SettingSpec::new(
        "edge_kd",
        "N s/(m rad)",
        "add_cloth_mesh's edge_kd (the bending edges' damping, gamma = edge_kd/(edge_ke dt); it moves the rest state, \
         slightly)",
        0.0,
    )
    .within(0.0, 1e6),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    EngineRule {
        substeps: 1,
        passes: s.nit,
        velocity_factor: 1.0,
        gravity_factor: 1.0,
        constants: EngineConstants::NewtonCloth(NewtonCloth {
            spring_ke: p[0],
            spring_kd: s.settings[0],
            edge_ke: p[1],
            edge_kd: s.settings[1],
        }),
    }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "builder.add_cloth_mesh(..., vertices=the sheet's vertices, indices=its triangles, density=its mass per \
             area (kg/m^2), add_springs=True, spring_ke={:.6e}, spring_kd={}, edge_ke={:.6e}, edge_kd={}, \
             particle_radius=0.0); builder.particle_mass[i] = 0.0 for every held vertex",
            p[0], s.settings[0], p[1], s.settings[1]
        ),
        format!("solver = newton.solvers.SolverXPBD(model, iterations={})", s.nit),
        format!("solver.step(state_in, state_out, control, None, dt={})", pbdfit_mesh::display::number(s.dt)),
        "tri_ke, tri_ka and tri_kd do nothing in SolverXPBD (its membrane is the springs); a particle_radius above 0 \
         turns on particle-particle contacts between neighbours, which this body does not have"
            .into(),
    ]
}

/// Newton 1.8's XPBD cloth.
pub(crate) static NEWTON_CLOTH: ModelDef = ModelDef {
    name: "newton-cloth",
    description: "sheets: NVIDIA Newton 1.8 SolverXPBD cloth from add_cloth_mesh(add_springs=True): spring_ke (N/m), \
                  edge_ke (N/(m rad)), Jacobi",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "SolverXPBD's iterations per step (Jacobi passes over every spring and bending edge)",
    usage,
    rule: Fold::SheetEngine(rule),
    // Soft enough for the cloth tests' fabric strip at dt 0.01 s, 4 iterations (0.2 kg/m^2: 10 N/m diverges).
    example: &[3.0, 1e-2],
    // add_cloth_mesh gives each corner a third of its triangle's density x area: the sheet's lumped masses.
    masses: Some(MassModel::Lumped),
};

#[cfg(test)]
mod tests {
    use super::*;
    use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

    fn sheet(diagonal: Diagonal) -> PbdSystem {
        let mesh = SheetMesh::rectangle(1.0, 1.0, 2, 2, diagonal).unwrap();
        let held: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 1.0).collect();
        let sheet = Sheet::new(mesh, 5e-4, 300.0).unwrap();
        PbdSystem::sheet("sheet", &sheet, &held, Vec3::new(0.0, 0.0, -9.81))
    }

    /// `add_cloth_mesh(add_springs=True)` on a 2 x 2 grid with one diagonal per quad: 16 unique edges, 8
    /// interior ones (one bend each), each adding the pair across it (4 diagonals across the quads, 4
    /// springs across two quads): 24 springs; with crossed diagonals (a centre vertex per quad) the pairs
    /// across the spokes are the quads' diagonals and those across the inner sides join two centres. A flat
    /// sheet's rest angles are 0.
    #[test]
    fn springs_and_bends_are_newtons() {
        let system = sheet(Diagonal::Alternating);
        let elements = ClothElements::build(&system);
        assert_eq!(elements.counts(), (24, 8));
        assert!(elements.bends.iter().all(|b| b.angle == 0.0));
        let crossed = ClothElements::build(&sheet(Diagonal::Crossed));
        // 4 quads x 4 spokes + 12 sides = 28 edges, of which 16 spokes and 4 inner sides are interior; 8
        // diagonals and 4 centre pairs across them.
        assert_eq!(crossed.counts(), (28 + 8 + 4, 20));
    }

    /// A bend's correction turns the pair of triangles back toward its rest angle: a fold of 0.2 rad out
    /// of plane shrinks under rigid projections (compliance 0 in the limit of a huge `edge_ke`).
    #[test]
    fn a_bend_returns_toward_its_rest_angle() {
        let rest = [Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0), Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0)];
        assert_eq!(rest_angle(rest), 0.0);
        let folded = [Vec3::new(0.5, 1.0, 0.2), rest[1], rest[2], rest[3]];
        let angle = rest_angle(folded);
        assert!((angle.abs() - 0.2f64.atan()).abs() < 1e-12, "{angle}");
    }
}
