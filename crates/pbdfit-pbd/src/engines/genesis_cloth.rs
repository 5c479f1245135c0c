//! `genesis-cloth`: Genesis 1.4.5's PBD cloth (`gs.materials.PBD.Cloth`, a `PBD2DEntity`), stepped by its
//! PBD solver (`genesis/engine/solvers/pbd_solver.py`: `_kernel_apply_external_force`,
//! `_kernel_solve_stretch`, `_kernel_solve_bending`), in f64 (Genesis's default is f32; `gs.init(precision=
//! "64")` runs it in f64), on a sheet as Genesis builds it from a surface mesh (`PBD2DEntity.sample`).
//!
//! **The body.** A particle per mesh vertex, each of mass `rho x area / n` (Genesis's cloth masses are
//! uniform, whatever the sheet's lumped masses: the step uses the sheet's total mass over its vertex count,
//! the held vertices counted); a stretch constraint on every unique edge (`get_unique_edges`); a bending
//! constraint on every interior edge (`trimesh.graph.face_adjacency`: the edge `v1 v2` and the two
//! triangles' opposite vertices `v3`, `v4`). Held vertices are Genesis's `fix_particles` (inverse mass 0
//! through the `free` flag).
//!
//! A step of `dt` is `substeps` substeps of `h = dt / substeps` (`SimOptions.substeps`), each:
//!
//! ```text
//! v += g h;  v -= air_resistance |v| v h / m   (free particles; quadratic drag, a force in N)
//! p = x + h v
//! max_stretch_solver_iterations Jacobi passes over the edges (corrections summed, then applied):
//!   n = p1 - p2,  C = |n| - l0,  dp = -stretch_relaxation C / (w1 + w2 + stretch_compliance / h^2) n/|n|
//!   dpos1 += w1 dp,  dpos2 -= w2 dp
//! max_bending_solver_iterations Jacobi passes over the interior edges (Mueller et al. 2007, appendix A):
//!   p2, p3, p4 relative to p1;  n1 = (p2 x p3)^,  n2 = (p2 x p4)^,  d = n1 . n2
//!   q3 = (p2 x n2 + (n1 x p2) d) / |p2 x p3|,  q4 = (p2 x n1 + (n2 x p2) d) / |p2 x p4|
//!   q2 = -(p3 x n2 + (n1 x p3) d) / |p2 x p3| - (p4 x n1 + (n2 x p4) d) / |p2 x p4|,  q1 = -q2 - q3 - q4
//!   C = acos(d) - acos(-1),  s = -bending_relaxation sqrt(1 - d^2) C / (sum w |q|^2 + bending_compliance / h^2)
//!   dpos_i += w_i s q_i
//! v = (p - x) / h
//! ```
//!
//! No multiplier is kept (each pass is a PBD step with a compliance term), and there is no damping but the air
//! resistance. Two consequences a user must know: the bending's rest angle is always flat (`acos(-1)`,
//! whatever the mesh's rest shape), and its compliance is added to `sum w |q|^2` without the `1 - d^2` an
//! XPBD constraint on the angle would carry: the bending acts as XPBD with compliance
//! `bending_compliance / sin^2(angle from flat)`, so its stiffness vanishes at flat (the restoring move is
//! cubic in a small fold) and a sheet sags out of plane until its folds are large enough to carry the load.
//!
//! The angle is computed here without cancellation (`1 + d = |n1 + n2|^2 / 2`, `sqrt(1 - d^2)` and `C` from
//! `|n1 + n2|`), equal to Genesis's formula in exact arithmetic. A bend with a degenerate triangle (a zero
//! cross product, where Genesis's division gives NaN) or no free vertex is skipped.
//!
//! Not reproduced: the particle self-collision pass that always runs (two particles closer than
//! `particle_size` whose rest distance exceeds it are pushed apart: inactive at rest when `particle_size`,
//! default 0.01 m, is below the sheet's folds' closest approach, and `PBDOptions(particle_size=...)` also sets
//! nothing else for a cloth whose remesh is skipped), its friction, the domain bounds (a floor at z = 0 by
//! default), and Genesis's `n.norm(gs.EPS)` (`sqrt(|n|^2 + EPS)`, EPS 1.2e-7 in f32: a relative
//! `EPS / (2 l0^2)` on each stretch correction, 4e-6 on the checks' edges).

use pbdfit_mesh::MassModel;
use pbdfit_mesh::display::number;

use super::{EngineBody, EngineConstants, EngineEdge, EngineRule, EngineStep};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec, Vec3};

/// Genesis's PBD cloth substep constants, under Genesis's names (`PBD.Cloth`'s compliances, relaxations and
/// air resistance; `PBDOptions`' `max_stretch_solver_iterations` and `max_bending_solver_iterations`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenesisCloth {
    /// `stretch_compliance` (m/N).
    pub stretch_compliance: f64,
    /// `bending_compliance` (rad/(N m): `bending_compliance / h^2` is added to `sum w |q|^2`, in 1/(kg m^2)).
    pub bending_compliance: f64,
    /// `stretch_relaxation` (1).
    pub stretch_relaxation: f64,
    /// `bending_relaxation` (1).
    pub bending_relaxation: f64,
    /// `air_resistance` (kg/m: the drag force is `air_resistance |v| v`).
    pub air_resistance: f64,
    /// `max_stretch_solver_iterations`: Jacobi passes over the edges per substep.
    pub stretch_iterations: usize,
    /// `max_bending_solver_iterations`: Jacobi passes over the interior edges per substep.
    pub bending_iterations: usize,
}

/// The sheet's constraints as `PBD2DEntity.sample` makes them.
#[derive(Debug, Clone, Default)]
pub struct ClothConstraints {
    /// Every unique edge (first-met order; a Jacobi pass sums in any order).
    edges: Vec<EngineEdge>,
    /// Every interior edge `[v1, v2, v3, v4]`: the edge, then the two triangles' opposite vertices.
    bends: Vec<[usize; 4]>,
}

impl ClothConstraints {
    /// The numbers of stretch and bending constraints.
    pub fn counts(&self) -> (usize, usize) {
        (self.edges.len(), self.bends.len())
    }

    fn build(system: &PbdSystem) -> Self {
        let Some(cloth) = system.cloth_body() else { return Self::default() };
        let mut edges: Vec<([usize; 2], Vec<usize>)> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for t in cloth.triangles() {
            for k in 0..3 {
                let (a, b, o) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                let slot = *index.entry([a.min(b), a.max(b)]).or_insert_with(|| {
                    edges.push(([a, b], Vec::new()));
                    edges.len() - 1
                });
                edges[slot].1.push(o);
            }
        }
        let bends = edges
            .iter()
            .filter_map(|([a, b], opposite)| match opposite[..] {
                [o0, o1] => Some([*a, *b, o0, o1]),
                _ => None,
            })
            .collect();
        let edges = edges.iter().map(|(p, _)| EngineEdge::of(system, *p)).collect();
        ClothConstraints { edges, bends }
    }
}

/// One bending correction of Genesis's `_kernel_solve_bending` on the positions `x` (m) with inverse masses
/// `w` (1/kg) and `alpha = bending_compliance / h^2`: the four moves before the relaxation and `w`, i.e.
/// `s q_i` with `s = -sqrt(1 - d^2) C / (sum w |q|^2 + alpha)`; `None` where a triangle is degenerate or the
/// denominator is 0 (a flat hinge with `alpha` 0, where Genesis's `0 / 0` is NaN).
fn bend_correction(x: [Vec3; 4], w: [f64; 4], alpha: f64) -> Option<[Vec3; 4]> {
    let (p2, p3, p4) = (x[1] - x[0], x[2] - x[0], x[3] - x[0]);
    let (c23, c24) = (p2.cross(&p3), p2.cross(&p4));
    let (l23, l24) = (c23.norm(), c24.norm());
    if l23 == 0.0 || l24 == 0.0 {
        return None;
    }
    let (n1, n2) = (c23 / l23, c24 / l24);
    // n1 + n2 is small near flat (d = -1): 1 + d = |n1 + n2|^2 / 2 without cancellation.
    let sum = n1 + n2;
    let half = 0.5 * sum.norm_squared();
    // n2 - d n1 and n1 - d n2 (d = half - 1), the parts of each normal across the other.
    let (m2, m1) = (sum - n1 * half, sum - n2 * half);
    let q3 = p2.cross(&m2) / l23;
    let q4 = p2.cross(&m1) / l24;
    let q2 = -p3.cross(&m2) / l23 - p4.cross(&m1) / l24;
    let q1 = -q2 - q3 - q4;
    let q = [q1, q2, q3, q4];
    let weighted: f64 = (0..4).map(|k| w[k] * q[k].norm_squared()).sum();
    // |n1 + n2| = 2 sin(phi / 2) for phi = pi - acos(d), the angle from flat: C = acos(d) - pi = -phi and
    // sqrt(1 - d^2) = sin(phi).
    let chord = sum.norm().min(2.0);
    let phi = 2.0 * (0.5 * chord).asin();
    let sine = chord * (1.0 - 0.25 * chord * chord).max(0.0).sqrt();
    if weighted + alpha <= 0.0 {
        // A flat hinge with bending_compliance 0: Genesis divides 0 by 0 (NaN); nothing to correct.
        return None;
    }
    let s = sine * phi / (weighted + alpha);
    Some(q.map(|qk| qk * s))
}

impl EngineStep for GenesisCloth {
    type Cache = ClothConstraints;
    const PASSES: super::Passes = super::Passes::Jacobi { relaxation: Some("stretch_relaxation") };

    fn cache(system: &PbdSystem, _: &EngineBody) -> ClothConstraints {
        ClothConstraints::build(system)
    }

    fn solve(&self, system: &PbdSystem, _: &EngineBody, cache: &ClothConstraints, passes: usize, d: &mut Dynamics, h: f64) {
        let n = system.rest.len() as f64;
        let mass = system.total_mass / n;
        let w_free = 1.0 / mass;
        let w = |p: usize| if system.inverse_masses[p] > 0.0 { w_free } else { 0.0 };
        if self.air_resistance > 0.0 {
            // Genesis's drag acts on the substep's velocity after gravity: v -= a |v| v h / m.
            for &p in &system.free {
                let v = (d.predicted[p] - d.u[p]) / h;
                let v = v - v * (self.air_resistance * v.norm() * h / mass);
                d.predicted[p] = d.u[p] + v * h;
            }
        }
        let x = &system.rest;
        let delta = &mut d.delta_engine;
        delta.clear();
        delta.resize(x.len(), Vec3::zeros());
        let (alpha_s, alpha_b) = (self.stretch_compliance / (h * h), self.bending_compliance / (h * h));
        for _ in 0..passes {
            for _ in 0..self.stretch_iterations {
                super::genesis::stretch_pass(&cache.edges, &d.predicted, &w, alpha_s, self.stretch_relaxation, delta);
                super::genesis::apply_passes(&system.free, &mut d.predicted, delta);
            }
            for _ in 0..self.bending_iterations {
                let u = &d.predicted;
                for bend in &cache.bends {
                    let wb = bend.map(w);
                    if wb.iter().sum::<f64>() <= 0.0 {
                        continue;
                    }
                    let Some(moves) = bend_correction(bend.map(|p| x[p] + u[p]), wb, alpha_b) else { continue };
                    for k in 0..4 {
                        delta[bend[k]] += moves[k] * (wb[k] * self.bending_relaxation);
                    }
                }
                super::genesis::apply_passes(&system.free, &mut d.predicted, delta);
            }
        }
    }
}

/// `PBD.Cloth`'s `stretch_compliance` (m/N; Genesis's default 1e-7) and `bending_compliance` (Genesis's
/// default 1e-5, in its docstring rad/N; here rad/(N m), the unit that makes `bending_compliance / h^2` add to
/// `sum w |q|^2`).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10(
        "stretch_compliance",
        "m/N",
        "PBD.Cloth's stretch_compliance: every edge C = |x1 - x2| - l0, compliance stretch_compliance / h^2 (Genesis's \
         default 1e-7)",
        (1e-10, 1e2),
    ),
    ParameterSpec::log10(
        "bending_compliance",
        "rad/(N m)",
        "PBD.Cloth's bending_compliance: every interior edge's dihedral angle toward flat (Mueller's bending; \
         Genesis's default 1e-5)",
        (1e-10, 1e4),
    ),
];

/// `PBD.Cloth`'s relaxations and air resistance, `PBDOptions`' iteration counts.
const SETTINGS: [SettingSpec; 5] = [
    SettingSpec::fraction(
        "stretch_relaxation",
        "PBD.Cloth's stretch_relaxation: the factor on every edge correction",
        0.3,
    ),
    SettingSpec::fraction(
        "bending_relaxation",
        "PBD.Cloth's bending_relaxation: the factor on every bending correction",
        0.1,
    ),
    SettingSpec::new(
        "air_resistance",
        "kg/m",
        "PBD.Cloth's air_resistance: the drag force air_resistance |v| v on every free particle (it moves the rest \
         state, slightly: it scales gravity's velocity each substep by 1 - air_resistance g h^2 / m)",
        1e-3,
    )
    .within(0.0, 1e3),
    SettingSpec::count(
        "max_stretch_solver_iterations",
        "PBDOptions.max_stretch_solver_iterations: Jacobi passes over the edges per substep",
        4.0,
        1.0,
    ),
    SettingSpec::count(
        "max_bending_solver_iterations",
        "PBDOptions.max_bending_solver_iterations: Jacobi passes over the interior edges per substep",
        1.0,
        1.0,
    ),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let constants = EngineConstants::GenesisCloth(GenesisCloth {
        stretch_compliance: p[0],
        bending_compliance: p[1],
        stretch_relaxation: s.settings[0],
        bending_relaxation: s.settings[1],
        air_resistance: s.settings[2],
        stretch_iterations: s.settings[3] as usize,
        bending_iterations: s.settings[4] as usize,
    });
    EngineRule { substeps: s.nit.max(1), passes: 1, velocity_factor: 1.0, gravity_factor: 1.0, constants }
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    vec![
        format!(
            "gs.materials.PBD.Cloth(rho=the sheet's mass per area (kg/m^2), stretch_compliance={:.6e}, \
             bending_compliance={:.6e}, stretch_relaxation={}, bending_relaxation={}, air_resistance={})",
            p[0], p[1], s.settings[0], s.settings[1], s.settings[2]
        ),
        format!(
            "gs.options.PBDOptions(max_stretch_solver_iterations={}, max_bending_solver_iterations={})",
            s.settings[3], s.settings[4]
        ),
        format!("gs.options.SimOptions(dt={}, substeps={})", number(s.dt), s.nit),
        "entity.fix_particles(the held vertices) after scene.build(); Genesis gives every particle rho x area / n \
         (uniform masses) and remeshes the morph to particle_size unless the mesh is its own"
            .into(),
    ]
}

/// Genesis's PBD cloth.
pub(crate) static GENESIS_CLOTH: ModelDef = ModelDef {
    name: "genesis-cloth",
    description: "sheets: Genesis 1.4.5 PBD.Cloth: stretch_compliance (m/N), bending_compliance (rad/(N m)); Jacobi, \
                  relaxations 0.3 and 0.1, Mueller's bending toward flat, uniform masses",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Genesis's substeps (SimOptions.substeps) per step of dt",
    usage,
    rule: Fold::SheetEngine(rule),
    example: &[1e-4, 1e-2],
    // The step gives every particle the sheet's mass over its vertex count itself (Genesis's rho x area / n):
    // declared so the reports say so (`ModelKind::sheet_masses`).
    masses: Some(MassModel::Uniform),
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The bending correction turns a fold back toward flat, is zero at flat, conserves momentum
    /// (`sum m_i dx_i = 0`, equal masses), and equals Genesis's own formula (`acos`, `sqrt(1 - d^2)`) at a
    /// large fold where that formula loses nothing.
    #[test]
    fn a_fold_returns_toward_flat_as_genesis_computes_it() {
        let flat = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.3, 1.0, 0.0), Vec3::new(0.6, -1.0, 0.0)];
        let w = [1.0; 4];
        let at_flat = bend_correction(flat, w, 0.5).unwrap();
        assert!(at_flat.iter().all(|m| m.norm() == 0.0), "{at_flat:?}");
        assert!(bend_correction(flat, w, 0.0).is_none());
        let mut folded = flat;
        folded[3].z = 0.4;
        let moves = bend_correction(folded, w, 0.5).unwrap();
        assert!(moves[3].z < 0.0, "{moves:?}");
        let fold = |x: [Vec3; 4]| {
            let n1 = (x[1] - x[0]).cross(&(x[2] - x[0])).normalize();
            let n2 = (x[1] - x[0]).cross(&(x[3] - x[0])).normalize();
            std::f64::consts::PI - n1.dot(&n2).clamp(-1.0, 1.0).acos()
        };
        let moved: Vec<Vec3> = folded.iter().zip(&moves).map(|(x, m)| x + m).collect();
        assert!(fold([moved[0], moved[1], moved[2], moved[3]]) < fold(folded));
        let total: Vec3 = moves.iter().sum();
        assert!(total.norm() < 1e-15, "{total:?}");
        // Genesis's formula, literally.
        let (p2, p3, p4) = (folded[1] - folded[0], folded[2] - folded[0], folded[3] - folded[0]);
        let (l23, l24) = (p2.cross(&p3).norm(), p2.cross(&p4).norm());
        let (n1, n2) = (p2.cross(&p3) / l23, p2.cross(&p4) / l24);
        let d = n1.dot(&n2).clamp(-1.0, 1.0);
        let q3 = (p2.cross(&n2) + n1.cross(&p2) * d) / l23;
        let q4 = (p2.cross(&n1) + n2.cross(&p2) * d) / l24;
        let q2 = -(p3.cross(&n2) + n1.cross(&p3) * d) / l23 - (p4.cross(&n1) + n2.cross(&p4) * d) / l24;
        let q1 = -q2 - q3 - q4;
        let sum: f64 = [q1, q2, q3, q4].iter().map(|q| q.norm_squared()).sum();
        let c = d.acos() - (-1.0f64).acos();
        let s = -(1.0 - d * d).sqrt() * c / (sum + 0.5);
        for (m, q) in moves.iter().zip([q1, q2, q3, q4]) {
            assert!((m - q * s).norm() < 1e-14, "{m:?} against {:?}", q * s);
        }
    }

    /// Genesis's cloth on a 2 x 2 grid with one diagonal per quad: 16 unique edges, 8 interior ones.
    #[test]
    fn edges_and_bends_are_genesis() {
        use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};
        let mesh = SheetMesh::rectangle(1.0, 1.0, 2, 2, Diagonal::Alternating).unwrap();
        let held: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 1.0).collect();
        let sheet = Sheet::new(mesh, 5e-4, 300.0).unwrap();
        let system = PbdSystem::sheet("sheet", &sheet, &held, Vec3::new(0.0, 0.0, -9.81));
        assert_eq!(ClothConstraints::build(&system).counts(), (16, 8));
    }
}
