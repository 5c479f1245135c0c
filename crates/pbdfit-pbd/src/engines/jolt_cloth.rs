//! `jolt-cloth`: Jolt 5.6's soft body on a sheet, as a user of `CreateConstraints` builds it (Godot's
//! SoftBody3D builds it with bend type `None` and uniform masses, which its paste lines say): the edge, shear and bend constraints that `SoftBodySharedSettings::CreateConstraints` makes of
//! the sheet's triangles (`engines/jolt_faces.rs`), in the order it creates them, ordered for the solve by
//! `Optimize` (`engines/jolt.rs`'s [`Order`]), and projected by Jolt's substep (`engines/jolt.rs`:
//! `mNumIterations` substeps of one Gauss-Seidel pass, XPBD with no multiplier kept, the damping scaling the
//! gravity increment; per update group its dihedral bends, then its edges).
//!
//! The setting `bend` is `CreateConstraints`' `EBendType`: `distance` (the default) makes every constraint
//! an `Edge`; `dihedral` makes a `DihedralBend` on every shared edge instead of the bend edges
//! (`ApplyDihedralBendConstraints`: `C = sign acos~(n1.n2) - mInitialAngle`, with Jolt's `ACosApproximate`
//! for the angle both at rest and in the solve, Bridson's gradients, one XPBD update; the initial angle in
//! f32 as Jolt computes it). Its bends take part in `Optimize`'s grouping and are sorted like volumes.
//!
//! Each edge takes the compliance of its kind (m/N, `C = l - l0`): a face edge `mCompliance`, a quad's
//! diagonal or the edge across it `mShearCompliance`, an edge between the opposite vertices of two faces
//! that do not form a quad `mBendCompliance` (Jolt's `VertexAttributes`, one set for every vertex; Jolt
//! takes the larger compliance of an edge's two vertices, which one set makes the same).
//!
//! `bend=none` is `EBendType::None`, Godot's: no bend constraints, so `bend_compliance` acts on nothing
//! (a fit refuses to search it, [`crate::ModelKind::inert_parameters`]).
//!
//! The masses (the setting `masses`): `lumped` (the default) gives each vertex a third of its triangles'
//! mass, `uniform` the sheet's total mass over its vertex count (Godot's `total_mass / vertex count`); the
//! step projects with those inverse masses (loads other than gravity keep the lumped masses'
//! accelerations, as in `genesis-cloth`).
//!
//! The creation order (the setting `order`, [`CreationOrder::faces`]): the order the faces are handed to
//! `CreateConstraints` (the mesh's, an imported sheet's file order, by default). It decides only which of
//! two faces sharing an edge Jolt's sort puts first, so the orientation of the shear, bend and dihedral
//! constraints across it: `CreateConstraints` creates the edges by their sorted vertex pairs whatever the
//! face order, and Jolt's projections of an edge and a dihedral bend are symmetric in its ends and opposite
//! vertices, so on a sheet of at most 256 vertices (one update group) every face order rests in the same
//! place, to the last bit with bend types `Distance` and `None`, to the rounding with `Dihedral`, whose
//! gradient sums its terms in another order when its opposite vertices swap (`face_orders_rest_alike`). Above 256 vertices `Optimize`'s greedy
//! grouping reads the connectivity in creation order, where the orientation can break its ties.
//!
//! Not reproduced: per-vertex attributes, LRA and pressure constraints.

use std::sync::Arc;

use super::creation::{self, CreationOrder};

use super::jolt::{GRAVITY_FACTOR, LINEAR_DAMPING, Order, godot_stiffness_for, project_edge};
use crate::{MASSES_SETTING, ModelKind};
use super::jolt_faces::{EdgeKind, JoltBend, create_constraints};
use super::{EngineBody, EngineConstants, EngineEdge, EngineRule, EngineStep};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec, UnitWhen, Vec3};

/// Jolt's `SoftBodySharedSettings::VertexAttributes` compliances, the bend type `CreateConstraints`
/// takes, the masses and the order the faces are handed over in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JoltCloth {
    /// `mCompliance`: the face edges (m/N).
    pub compliance: f64,
    /// `mShearCompliance`: the quads' diagonals (m/N).
    pub shear_compliance: f64,
    /// `mBendCompliance`: the `Distance` bend edges (m/N), or the `Dihedral` bends (rad/(N m)).
    pub bend_compliance: f64,
    /// `EBendType`: `Distance`, `Dihedral` or `None` (the setting `bend`).
    pub bend: JoltBend,
    /// Every vertex the sheet's total mass over the vertex count (Godot's), not the lumped masses (the
    /// setting `masses`).
    pub uniform_masses: bool,
    /// The order the faces are handed to `CreateConstraints` (the setting `order`).
    pub order: CreationOrder,
}

/// What decides the constraints and their order: the bend type, uniform masses, the faces' order.
pub type Key = (JoltBend, bool, CreationOrder);

/// The sheet's constraints as `CreateConstraints` makes them for each [`Key`] used, and `Optimize`'s order
/// of them (each built on first use).
pub type SheetEdges = super::Memo<Key, Built>;

/// One key's constraints as `CreateConstraints` makes them, and `Optimize`'s order of them.
#[derive(Debug, Default)]
pub struct Built {
    /// The edges in creation order, each with its kind.
    edges: Vec<(EngineEdge, EdgeKind)>,
    /// The dihedral bends in creation order.
    bends: Vec<DihedralBend>,
    /// Per update group, its dihedral bends then its edges (indices into `bends` and `edges`).
    groups: Vec<(Vec<usize>, Vec<usize>)>,
}

/// `SoftBodySharedSettings::DihedralBend`: the shared edge `x0 x1` and the opposite vertices `x2`, `x3`.
#[derive(Debug, Clone)]
struct DihedralBend {
    particles: [usize; 4],
    /// Inverse masses (1/kg).
    w: [f64; 4],
    /// `mInitialAngle` (rad), as `CalculateBendConstraintConstants` computes it: in f32 with `ACosApproximate`.
    initial_angle: f64,
}

impl SheetEdges {
    fn built(&self, system: &PbdSystem, key: Key) -> Arc<Built> {
        self.get_or_build(key, || build(system, key))
    }

    /// The number of constraints of each kind with bend type `bend`: (face edges, shear, bend edges,
    /// dihedral bends).
    pub fn counts(&self, system: &PbdSystem, bend: JoltBend) -> (usize, usize, usize, usize) {
        let built = self.built(system, (bend, false, CreationOrder::Profile));
        let count = |k: EdgeKind| built.edges.iter().filter(|(_, kind)| *kind == k).count();
        (count(EdgeKind::Edge), count(EdgeKind::Shear), count(EdgeKind::Bend), built.bends.len())
    }
}

/// The inverse masses (1/kg) the step projects with: the system's (lumped), or with `uniform` the sheet's
/// total mass over its vertex count on every movable vertex (held ones keep 0).
fn inverse_masses(system: &PbdSystem, uniform: bool) -> Vec<f64> {
    let w = super::genesis::uniform_inverse_mass(system);
    system.inverse_masses.iter().map(|&v| if uniform && v > 0.0 { w } else { v }).collect()
}

/// `CreateConstraints` on the sheet's triangles handed over in the key's order (none on a solid),
/// `CalculateBendConstraintConstants`, then `Optimize`.
fn build(system: &PbdSystem, (bend, uniform, order): Key) -> Built {
    let Some(cloth) = system.cloth_body() else { return Built::default() };
    let w = inverse_masses(system, uniform);
    let movable: Vec<bool> = w.iter().map(|&w| w > 0.0).collect();
    let made = create_constraints(&order.faces(&cloth.triangles()), &system.rest, &movable, bend);
    let pairs: Vec<[usize; 2]> = made.edges.iter().map(|(p, _)| *p).collect();
    let created: Vec<usize> = (0..pairs.len()).collect();
    let optimized = Order::optimize(&system.rest, &system.inverse_masses, &pairs, &created, &created, &made.dihedral);
    let edges = made
        .edges
        .iter()
        .map(|&(p, kind)| (EngineEdge { w: p.map(|v| w[v]), ..EngineEdge::of(system, p) }, kind))
        .collect();
    let bends = made
        .dihedral
        .iter()
        .map(|&q| DihedralBend {
            particles: q,
            w: q.map(|v| w[v]),
            initial_angle: initial_angle(q.map(|v| system.rest[v])) as f64,
        })
        .collect();
    Built { edges, bends, groups: optimized.groups }
}

/// Jolt's `ACosApproximate` (`Jolt/Math/Trigonometry.h`, largest error 4.3e-3 rad), which its dihedral
/// bends take for the angle both at rest and in the solve.
fn acos_approximate(x: f64) -> f64 {
    let abs_x = x.abs().min(1.0);
    let value = (1.0 - abs_x).sqrt() * (std::f64::consts::FRAC_PI_2 - 0.175394 * abs_x);
    if x < 0.0 { std::f64::consts::PI - value } else { value }
}

/// `CalculateBendConstraintConstants`: the signed dihedral angle (rad) at rest, in f32 as Jolt computes it
/// (on a flat sheet f32's rounding of the normals' cosine can leave a few 1e-4 rad, which Jolt keeps).
fn initial_angle(x: [Vec3; 4]) -> f32 {
    let p = x.map(|v| [v.x as f32, v.y as f32, v.z as f32]);
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross =
        |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let (e0, e1, e2) = (sub(p[1], p[0]), sub(p[2], p[0]), sub(p[3], p[0]));
    let (n1, n2) = (cross(e0, e1), cross(e2, e0));
    let denominator = (dot(n1, n1) * dot(n2, n2)).sqrt();
    if denominator < 1e-12 {
        return 0.0;
    }
    let sign = if dot(cross(n2, n1), e0) < 0.0 { -1.0 } else { 1.0 };
    let x = dot(n1, n2) / denominator;
    // ACosApproximate in f32.
    let abs_x = x.abs().min(1.0);
    let value = (1.0 - abs_x).sqrt() * (std::f32::consts::FRAC_PI_2 - 0.175394 * abs_x);
    sign * if x < 0.0 { std::f32::consts::PI - value } else { value }
}

/// How far below 1 (8 f64 ulp) a dihedral's cosine is rounding, taken as 1 (an angle under 6e-8 rad).
const FLAT: f64 = 8.0 * f64::EPSILON;

/// `ApplyDihedralBendConstraints` on one bend with compliance over h^2 `alpha`, on the displacements `u`
/// from the rest positions `x` (m): `C = sign acos~(n1.n2) - angle0` wrapped to [-pi, pi], Bridson's
/// gradients, one XPBD update with no multiplier kept.
fn project_dihedral(b: &DihedralBend, alpha: f64, x: &[Vec3], u: &mut [Vec3]) {
    let [i0, i1, i2, i3] = b.particles;
    let [x0, x1, x2, x3] = b.particles.map(|v| x[v] + u[v]);
    let e = x1 - x0;
    let e_len = e.norm();
    if e_len < 1e-6 {
        return;
    }
    let (x1x2, x1x3) = (x2 - x1, x3 - x1);
    let n1 = (x2 - x0).cross(&x1x2);
    let n2 = x1x3.cross(&(x3 - x0));
    let (n1_sq, n2_sq) = (n1.norm_squared(), n2.norm_squared());
    let product = n1_sq * n2_sq;
    if product < 1e-24 {
        return;
    }
    let sign = if n2.cross(&n1).dot(&e) < 0.0 { -1.0 } else { 1.0 };
    let cosine = n1.dot(&n2) / product.sqrt();
    // ACosApproximate's square root turns a rounding error e of the cosine into an angle sqrt(2 e): at a
    // flat pair f64's few ulp become 3e-8 rad (f32's, in Jolt, 3e-4 rad), which keeps a flat sheet from
    // resting. Within FLAT of 1 the cosine is taken as 1.
    let cosine = if 1.0 - cosine.abs() < FLAT { cosine.signum() } else { cosine };
    let mut c = sign * acos_approximate(cosine) - b.initial_angle;
    if c > std::f64::consts::PI {
        c -= 2.0 * std::f64::consts::PI;
    } else if c < -std::f64::consts::PI {
        c += 2.0 * std::f64::consts::PI;
    }
    let (n1, n2) = (n1 / n1_sq, n2 / n2_sq);
    let d0 = (n1 * x1x2.dot(&e) + n2 * x1x3.dot(&e)) / e_len;
    let (d2, d3) = (n1 * e_len, n2 * e_len);
    let d1 = -d0 - d2 - d3;
    let w = b.w;
    let denominator = w[0] * d0.norm_squared()
        + w[1] * d1.norm_squared()
        + w[2] * d2.norm_squared()
        + w[3] * d3.norm_squared()
        + alpha;
    if denominator < 1e-12 {
        return;
    }
    let minus_lambda = c / denominator;
    u[i0] -= d0 * (minus_lambda * w[0]);
    u[i1] -= d1 * (minus_lambda * w[1]);
    u[i2] -= d2 * (minus_lambda * w[2]);
    u[i3] -= d3 * (minus_lambda * w[3]);
}

impl EngineStep for JoltCloth {
    type Cache = SheetEdges;
    const PASSES: super::Passes = super::Passes::GaussSeidel;
    /// A strip's stiff edges hold its rest state on a curved manifold whose slow modes the accelerated
    /// iteration pays for: the clamped strip (N = 4, dt 1/60 s, nit 64, compliances 3.2e-9, 3.2e-9,
    /// 5.6e-9) took 1,066,752 sweeps (by stepping, after the accelerated attempts), the root solve with
    /// smoothed trials 100,992, to the same rest state (relative L2 1.4e-11).
    const ROOT: bool = true;

    /// Empty: each bend type's constraints are made on first use.
    fn cache(_: &PbdSystem, _: &EngineBody) -> SheetEdges {
        SheetEdges::default()
    }

    fn solve(&self, system: &PbdSystem, _: &EngineBody, cache: &SheetEdges, passes: usize, d: &mut Dynamics, h: f64) {
        let built = cache.built(system, (self.bend, self.uniform_masses, self.order));
        let inv_h2 = 1.0 / (h * h);
        let alphas = [self.compliance * inv_h2, self.shear_compliance * inv_h2, self.bend_compliance * inv_h2];
        let slot = |kind: EdgeKind| match kind {
            EdgeKind::Edge => 0,
            EdgeKind::Shear => 1,
            EdgeKind::Bend => 2,
        };
        let u = &mut d.predicted;
        for _ in 0..passes {
            // ProcessGroup: per group its dihedral bends, then its edges.
            for (bends, edges) in &built.groups {
                for &i in bends {
                    project_dihedral(&built.bends[i], alphas[2], &system.rest, u);
                }
                for &i in edges {
                    let (edge, kind) = &built.edges[i];
                    project_edge(edge, alphas[slot(*kind)], u);
                }
            }
        }
    }
}

/// `VertexAttributes::mCompliance`, `mShearCompliance` and `mBendCompliance` (m/N, each of an edge
/// constraint `C = l - l0`; `mBendCompliance` of a `DihedralBend`, `C` an angle, in rad/(N m) with
/// `bend=dihedral`).
const PARAMETERS: [ParameterSpec; 3] = [
    ParameterSpec::log10("compliance", "m/N", "Jolt's VertexAttributes::mCompliance: the face edges", (1e-10, 1e2)),
    ParameterSpec::log10(
        "shear_compliance",
        "m/N",
        "Jolt's VertexAttributes::mShearCompliance: the quads' diagonals",
        (1e-10, 1e2),
    ),
    ParameterSpec::log10(
        "bend_compliance",
        "m/N",
        "Jolt's VertexAttributes::mBendCompliance: the Distance bend edges across non-quad face pairs (m/N), or with \
         bend=dihedral the DihedralBend constraints on every shared edge (rad/(N m))",
        (1e-10, 1e4),
    )
    .with_units_when(&[UnitWhen { setting: BEND, value: DIHEDRAL, unit: "rad/(N m)" }])
    .inert_when(BEND, NONE),
];

/// The setting naming `CreateConstraints`' bend type.
const BEND: &str = "bend";

/// The setting `bend`'s value for `Dihedral`.
const DIHEDRAL: f64 = 1.0;

/// The setting `bend`'s value for `None` (Godot's).
const NONE: f64 = 2.0;

/// The bend types the setting `bend` takes, by name.
const BENDS: &[(&str, f64)] = &[("distance", 0.0), ("dihedral", DIHEDRAL), ("none", NONE)];

/// The setting `masses`' value for uniform masses (Godot's).
const UNIFORM: f64 = 1.0;

/// The masses the setting `masses` takes, by name.
const MASSES: &[(&str, f64)] = &[("lumped", 0.0), ("uniform", UNIFORM)];

/// `SoftBodyCreationSettings::mLinearDamping` and `mGravityFactor`, `CreateConstraints`' `EBendType`, the
/// vertices' masses and the order the faces are handed over in.
const SETTINGS: [SettingSpec; 5] = [
    LINEAR_DAMPING,
    GRAVITY_FACTOR,
    SettingSpec::new(
        BEND,
        "1",
        "CreateConstraints' EBendType: 0 (distance) an Edge between the opposite vertices of two faces that do not \
         form a quad; 1 (dihedral) a DihedralBend on every shared edge (ACosApproximate angle, mInitialAngle at \
         rest); 2 (none) no bend constraints (Godot's; bend_compliance then acts on nothing)",
        0.0,
    )
    .within(0.0, NONE)
    .whole()
    .with_words(BENDS),
    SettingSpec::new(
        MASSES_SETTING,
        "1",
        "the vertices' masses (SoftBodySharedSettings::Vertex::mInvMass): 0 (lumped) a third of each triangle's \
         mass on its corners; 1 (uniform) the sheet's total mass over its vertex count (Godot's SoftBody3D)",
        0.0,
    )
    .within(0.0, UNIFORM)
    .whole()
    .with_words(MASSES),
    SettingSpec::new(
        creation::SETTING,
        "1",
        "the order the faces are handed to CreateConstraints: 0 (profile) the mesh's (an imported mesh's file \
         order); -1 (sorted) each face turned to its smallest vertex, the faces sorted; a seed >= 1 a shuffle of \
         the faces and their corners' turns (at most 256 vertices: every order rests alike, see the docs)",
        0.0,
    )
    .within(-1.0, creation::MAX_SEED)
    .whole()
    .with_words(creation::WORDS),
];

/// The bend type of the setting's value.
fn bend_of(value: f64) -> JoltBend {
    if value == DIHEDRAL {
        JoltBend::Dihedral
    } else if value == NONE {
        JoltBend::None
    } else {
        JoltBend::Distance
    }
}

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let h = s.dt / s.nit.max(1) as f64;
    EngineRule {
        substeps: s.nit.max(1),
        passes: 1,
        velocity_factor: (1.0 - s.settings[0] * h).max(0.0),
        gravity_factor: s.settings[1],
        constants: EngineConstants::JoltCloth(JoltCloth {
            compliance: p[0],
            shear_compliance: p[1],
            bend_compliance: p[2],
            bend: bend_of(s.settings[2]),
            uniform_masses: s.settings[3] == UNIFORM,
            order: CreationOrder::from_setting(s.settings[4]),
        }),
    }
}

/// Godot's body of fitted parameters `p` under `kind` ([`godot_lines`]): `jolt-cloth` with bend type
/// `None`, uniform masses and the mesh's face order, the edges' and the shear diagonals' compliance both
/// the printed `linear_stiffness`'s (six decimals, clamped to [0, 1] where no k gives the fitted
/// compliance: `jolt::godot_body`), and `bend_compliance` kept (it acts on nothing).
pub(crate) fn godot_body(kind: ModelKind, p: &[f64]) -> (&'static str, ModelKind, Vec<f64>) {
    let compliance = super::jolt::godot_body(p)[0];
    let godot = [(BEND, NONE), (MASSES_SETTING, UNIFORM), (creation::SETTING, 0.0)]
        .into_iter()
        .try_fold(kind, |k, (name, value)| k.with_setting(name, value))
        .expect("Godot's settings are values of jolt-cloth's");
    ("Godot SoftBody3D", godot, vec![compliance, compliance, p[2]])
}

/// What a Godot SoftBody3D on the sheet's mesh would be for fitted parameters `p` at `s`: Godot 4.4 to 4.7's
/// `JoltSoftBody3D` (modules/jolt_physics/objects/jolt_soft_body_3d.cpp) sets `mCompliance =
/// mShearCompliance = 1 / max(k^3 1e5, 1e-6)` from its `linear_stiffness` k in [0, 1], calls
/// `CreateConstraints` with `EBendType::None`, gives every vertex `total_mass / vertex count`, and passes
/// `damping_coefficient` as `mLinearDamping`, `simulation_precision` as `mNumIterations` and
/// `pressure_coefficient` as `mPressure`. The first line sets what maps; the second says what the fitted body
/// has that Godot's cannot (a shear compliance other than the edges', any bend constraint, lumped masses,
/// another face order), or that Godot makes it; the fit evaluates Godot's body ([`godot_body`]).
fn godot_lines(p: &[f64], s: RuleSettings) -> [String; 2] {
    let ticks = pbdfit_mesh::display::number(1.0 / s.dt);
    let set = match godot_stiffness_for(p[0]) {
        Some(k) => format!(
            "Godot SoftBody3D (Godot 4.4 to 4.7 with Jolt): linear_stiffness = {k:.6} (mCompliance = mShearCompliance = \
             1/max(k^3 1e5, 1e-6)), simulation_precision = {}, damping_coefficient = {}, pressure_coefficient = 0, \
             total_mass = the sheet's mass, physics ticks per second = {ticks}",
            s.nit, s.settings[0]
        ),
        None => format!(
            "Godot SoftBody3D (Godot 4.4 to 4.7 with Jolt): no linear_stiffness in [0, 1] gives compliance {:.3e} m/N \
             (k = 1 gives 1e-5, the stiffest; k -> 0 the softest, 1e6); simulation_precision = {}, \
             damping_coefficient = {}, pressure_coefficient = 0, physics ticks per second = {ticks}",
            p[0], s.nit, s.settings[0]
        ),
    };
    let mut lacks = Vec::new();
    if format!("{:.6e}", p[0]) != format!("{:.6e}", p[1]) {
        lacks.push(format!(
            "its shear diagonals take the edges' compliance, not the fitted shear_compliance {:.6e} m/N ({:.3} times \
             compliance)",
            p[1],
            p[1] / p[0]
        ));
    }
    let (bend, unit) = match bend_of(s.settings[2]) {
        JoltBend::Dihedral => ("Dihedral", "rad/(N m)"),
        JoltBend::Distance => ("Distance", "m/N"),
        JoltBend::None => ("", ""),
    };
    if !bend.is_empty() {
        lacks.push(format!(
            "it makes no bend constraints (EBendType::None), so its sheet lacks the fitted {bend} bends \
             (bend_compliance {:.6e} {unit})",
            p[2]
        ));
    }
    if s.settings[3] != UNIFORM {
        lacks.push(
            "it spreads total_mass evenly over the vertices, where the fitted sheet's masses are lumped (a third of \
             each triangle's on its corners)"
                .into(),
        );
    }
    if s.settings[4] != 0.0 {
        lacks.push(format!(
            "it hands CreateConstraints the mesh's faces in their own order, not the fitted {} order",
            CreationOrder::from_setting(s.settings[4]).name()
        ));
    }
    let cannot = if lacks.is_empty() {
        "Godot SoftBody3D makes this body (bend=none, masses=uniform, the mesh's face order)".to_string()
    } else {
        format!(
            "Godot SoftBody3D cannot express this body: {}; the fit report evaluates Godot's own body (bend=none, \
             masses=uniform) at the linear_stiffness above",
            lacks.join("; ")
        )
    };
    [set, cannot]
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    let bend = match bend_of(s.settings[2]) {
        JoltBend::Dihedral => "Dihedral",
        JoltBend::Distance => "Distance",
        JoltBend::None => "None",
    };
    let masses = if s.settings[3] == UNIFORM {
        "every vertex mInvMass = vertex count / the sheet's mass (uniform)"
    } else {
        "each vertex mInvMass = 1 / (a third of its triangles' mass) (lumped)"
    };
    let order = CreationOrder::from_setting(s.settings[4]);
    let [godot, cannot] = godot_lines(p, s);
    vec![
        format!(
            "SoftBodySharedSettings::VertexAttributes(/* mCompliance */ {:.6e}, /* mShearCompliance */ {:.6e}, \
             /* mBendCompliance */ {:.6e}); CreateConstraints(&attributes, 1, EBendType::{bend}) on the sheet's \
             triangles, handed over in the {} order (--setting {}={}): {}; then Optimize(); {masses}",
            p[0],
            p[1],
            p[2],
            order.name(),
            creation::SETTING,
            order.setting(),
            order.how_faces()
        ),
        format!(
            "SoftBodyCreationSettings: mNumIterations = {}, mLinearDamping = {}, mGravityFactor = {}; \
             PhysicsSystem::Update(dt = {}, 1)",
            s.nit,
            s.settings[0],
            s.settings[1],
            pbdfit_mesh::display::number(s.dt)
        ),
        godot,
        cannot,
    ]
}

/// Jolt's soft body on a sheet.
pub(crate) static JOLT_CLOTH: ModelDef = ModelDef {
    name: "jolt-cloth",
    description: "sheets: Jolt 5.6 soft body from CreateConstraints (bend type Distance, Dihedral or None): compliance, \
                  shear_compliance, bend_compliance (m/N; bend_compliance rad/(N m) with bend=dihedral)",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Jolt's mNumIterations: substeps of dt/nit, one Gauss-Seidel pass each",
    usage,
    rule: Fold::SheetEngine(rule),
    example: &[1e-4, 1e-4, 1e-2],
    // Jolt takes each vertex's inverse mass as given (SoftBodySharedSettings::Vertex::mInvMass): no convention.
    masses: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ModelKind, RestOptions, SimParams, Vec3};
    use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

    /// A 1 m x 1 m sheet of 4 x 4 quads (alternating diagonals) in the plane z = 0, 0.15 kg/m^2 (10 g and
    /// more per free vertex), held at its top corners, gravity along -y.
    fn hanging() -> PbdSystem {
        let mesh = SheetMesh::rectangle(1.0, 1.0, 4, 4, Diagonal::Alternating).unwrap();
        let held: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 1.0 && (p.x == 0.0 || p.x == 1.0)).collect();
        let sheet = Sheet::new(mesh, 5e-4, 300.0).unwrap();
        PbdSystem::sheet("hanging", &sheet, &held, Vec3::new(0.0, -9.81, 0.0))
    }

    /// The fixed point of one substep from zero velocity with the edges projected in `edges`' groups.
    fn fixed_point(system: &PbdSystem, step: &JoltCloth, edges: &SheetEdges, h: f64, velocity_factor: f64) -> Vec<Vec3> {
        let mut d = system.dynamics_from(None);
        let body = system.engine_body();
        for _ in 0..200_000 {
            for &p in &system.free {
                d.predicted[p] = d.u[p] + system.accelerations[p] * (h * h * velocity_factor);
            }
            step.solve(system, body, edges, 1, &mut d, h);
            let moved = system.free.iter().map(|&p| (d.predicted[p] - d.u[p]).norm()).fold(0.0, f64::max);
            for &p in &system.free {
                d.u[p] = d.predicted[p];
            }
            if moved < 1e-15 {
                return d.u;
            }
        }
        panic!("no fixed point in 200000 substeps");
    }

    /// The projection order is part of the body: the rest state with `Optimize`'s order equals the rest
    /// state pbdfit's solver finds, and projecting the same edges in their creation order instead moves it by
    /// far more than the 1.2e-5 at which the profile equals Jolt (`benchmarks/engines/results/jolt_cloth.txt`),
    /// so that check tells the orders apart (measured: 6e-13 and 0.47 relative L2).
    #[test]
    fn optimizes_order_moves_the_rest_state() {
        let system = hanging();
        let (dt, nit, damping) = (1.0 / 30.0, 2, 0.1);
        let values = [1e-3, 1e-3, 1e-2];
        let step = JoltCloth {
            compliance: values[0],
            shear_compliance: values[1],
            bend_compliance: values[2],
            bend: JoltBend::Distance,
            uniform_masses: false,
            order: CreationOrder::Profile,
        };
        let optimized = JoltCloth::cache(&system, system.engine_body());
        println!("edges (face, shear, bend, dihedral): {:?}", optimized.counts(&system, JoltBend::Distance));
        let key = (JoltBend::Distance, false, CreationOrder::Profile);
        let edges = optimized.built(&system, key).edges.clone();
        let n = edges.len();
        let built = Built { edges, bends: Vec::new(), groups: vec![(Vec::new(), (0..n).collect())] };
        let created = SheetEdges::holding(key, built);
        let h = dt / nit as f64;
        let a = fixed_point(&system, &step, &optimized, h, 1.0 - damping * h);
        let b = fixed_point(&system, &step, &created, h, 1.0 - damping * h);
        let kind = ModelKind::JOLT_CLOTH.with_setting("linear_damping", damping).unwrap();
        let params = SimParams::new(dt, nit, kind.with(&values).unwrap());
        let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        let l2 = |x: &[Vec3], y: &[Vec3]| {
            let d: f64 = x.iter().zip(y).map(|(p, q)| (p - q).norm_squared()).sum();
            (d / y.iter().map(|q| q.norm_squared()).sum::<f64>()).sqrt()
        };
        let (same, other) = (l2(&rest.displacements, &a), l2(&b, &a));
        println!("solver against the fixed point {same:.2e}; creation order against Optimize's {other:.2e}");
        assert!(same < 1e-8, "{same:e}");
        assert!(other > 1e-3, "{other:e}");
    }

    /// The hanging sheet with gravity out of its plane (along -z), so it sags and its bends act.
    fn sagging() -> PbdSystem {
        let mesh = SheetMesh::rectangle(1.0, 1.0, 4, 4, Diagonal::Alternating).unwrap();
        let held: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 1.0).collect();
        let sheet = Sheet::new(mesh, 5e-4, 300.0).unwrap();
        PbdSystem::sheet("sagging", &sheet, &held, Vec3::new(0.0, 0.0, -9.81))
    }

    /// The rest displacements of `system` in `kind` at `values` (dt 1/30 s, nit 2).
    fn rest_of(system: &PbdSystem, kind: ModelKind, values: &[f64]) -> Vec<Vec3> {
        let params = SimParams::new(1.0 / 30.0, 2, kind.with(values).unwrap());
        let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        assert!(rest.converged);
        rest.displacements
    }

    fn l2(x: &[Vec3], y: &[Vec3]) -> f64 {
        let d: f64 = x.iter().zip(y).map(|(p, q)| (p - q).norm_squared()).sum();
        (d / y.iter().map(|q| q.norm_squared()).sum::<f64>()).sqrt()
    }

    /// `bend=none` makes `bend=distance`'s constraints less its bend edges (on the 4 x 4 sheet: 24 face
    /// edges, 54 shear edges and 12 bend edges, then none), and rests like a body built by hand without bends
    /// (`bend=distance` with a bend compliance of 1e30 m/N, whose bend edges move nothing: measured 0
    /// relative L2 on the sagging sheet), where the bends at 1e-2 m/N hold it 1.2e-2 (relative L2) elsewhere;
    /// `bend_compliance` is inert under it.
    #[test]
    fn bend_none_rests_like_a_body_without_bends() {
        let system = sagging();
        let edges = SheetEdges::default();
        let (face, shear, bends, _) = edges.counts(&system, JoltBend::Distance);
        assert_eq!(edges.counts(&system, JoltBend::None), (face, shear, 0, 0));
        println!("distance: {face} face, {shear} shear, {bends} bend edges");
        assert!(bends > 0);
        let none = ModelKind::JOLT_CLOTH.with_setting("bend", NONE).unwrap();
        assert_eq!(none.inert_parameters(), vec![("bend_compliance", "bend=none".to_string())]);
        assert!(ModelKind::JOLT_CLOTH.inert_parameters().is_empty());
        let without = rest_of(&system, none, &[1e-3, 1e-3, 1e-2]);
        assert_eq!(without, rest_of(&system, none, &[1e-3, 1e-3, 7.0]), "bend_compliance acts on nothing");
        let by_hand = rest_of(&system, ModelKind::JOLT_CLOTH, &[1e-3, 1e-3, 1e30]);
        let with = rest_of(&system, ModelKind::JOLT_CLOTH, &[1e-3, 1e-3, 1e-2]);
        let (same, other) = (l2(&without, &by_hand), l2(&with, &by_hand));
        println!("bend=none against no bends by hand {same:.2e}; the bends at 1e-2 m/N {other:.2e}");
        assert!(same < 1e-12, "{same:e}");
        assert!(other > 1e-3, "{other:e}");
    }

    /// `masses=uniform` gives every movable vertex the sheet's total mass over its vertex count (Godot's
    /// `total_mass / vertex count`; 0.15 kg over 25 vertices, 6 g), held ones none, and the kind's sheet
    /// masses say uniform; the rest state differs from the lumped one (measured 7.3e-3 relative L2 on the
    /// sagging sheet).
    #[test]
    fn uniform_masses_are_the_total_over_the_vertex_count() {
        let system = sagging();
        let n = system.rest.len() as f64;
        assert!((system.total_mass - 0.15).abs() < 1e-12, "{}", system.total_mass);
        let w = inverse_masses(&system, true);
        for (v, (&uniform, &lumped)) in w.iter().zip(&system.inverse_masses).enumerate() {
            if lumped == 0.0 {
                assert_eq!(uniform, 0.0, "vertex {v} is held");
            } else {
                assert!((1.0 / uniform - system.total_mass / n).abs() < 1e-15, "vertex {v}: {}", 1.0 / uniform);
            }
        }
        assert_eq!(inverse_masses(&system, false), system.inverse_masses);
        let uniform = ModelKind::JOLT_CLOTH.with_setting(MASSES_SETTING, UNIFORM).unwrap();
        assert_eq!(uniform.sheet_masses(), pbdfit_mesh::MassModel::Uniform);
        assert_eq!(ModelKind::JOLT_CLOTH.sheet_masses(), pbdfit_mesh::MassModel::Lumped);
        let values = [1e-3, 1e-3, 1e-2];
        let moved = l2(&rest_of(&system, uniform, &values), &rest_of(&system, ModelKind::JOLT_CLOTH, &values));
        println!("uniform against lumped masses: {moved:.2e}");
        assert!(moved > 1e-3, "{moved:e}");
    }

    /// The faces' creation order: a seed gives one order (turned faces, every face once), another seed
    /// another; and every order (the mesh's, sorted, four shuffles) rests in the same place, to the last bit
    /// with bend types `Distance` and `None`, with `Dihedral` to the rounding (measured 3.8e-11 to 5.6e-10
    /// relative L2; at bend compliance 1 rad/(N m) the seed 2 order's rest solve was judged diverging after
    /// 10.7 million sweeps, a creep of 1e-9 m per window, so the test bends at 1e-2) (`CreateConstraints` creates
    /// the edges by their sorted vertex pairs; the order only orients the constraints across shared edges,
    /// which Jolt's projections treat alike up to the order of a sum).
    #[test]
    fn face_orders_rest_alike() {
        let system = sagging();
        let faces = system.cloth_body().unwrap().triangles();
        let a = CreationOrder::Shuffled(3).faces(&faces);
        assert_eq!(a, CreationOrder::Shuffled(3).faces(&faces));
        assert_ne!(a, CreationOrder::Shuffled(4).faces(&faces));
        assert_ne!(a, faces);
        let canonical = |f: &[[usize; 3]]| {
            let mut c: Vec<[usize; 3]> = f.iter().map(|&t| CreationOrder::Sorted.faces(&[t])[0]).collect();
            c.sort();
            c
        };
        assert_eq!(canonical(&a), canonical(&faces), "the same faces with the same windings");
        let turned = a.iter().zip(&faces).filter(|(x, y)| x != y).count();
        println!("seed 3 moved or turned {turned} of {} faces", faces.len());
        for bend in [0.0, DIHEDRAL, NONE] {
            let kind = ModelKind::JOLT_CLOTH.with_setting("bend", bend).unwrap();
            let values = [1e-3, 1e-3, 1e-2];
            let profile = rest_of(&system, kind, &values);
            for order in [-1.0, 1.0, 2.0, 3.0, 4.0] {
                let other = rest_of(&system, kind.with_setting("order", order).unwrap(), &values);
                if bend == DIHEDRAL {
                    // A dihedral bend's gradient sums its four vertices' terms in another order when its
                    // opposite vertices swap: the rounding, within the rest solve's tolerance.
                    let moved = l2(&other, &profile);
                    println!("dihedral, order {order}: moved {moved:.1e}");
                    assert!(moved < 1e-8, "order {order}: {moved:e}");
                } else {
                    assert_eq!(other, profile, "bend {bend}, order {order}");
                }
            }
        }
    }

    /// Godot's lines: the `linear_stiffness` whose `1/max(k^3 1e5, 1e-6)` is the fitted compliance (Godot's
    /// default k = 0.5 for 8e-5 m/N), the iterations and damping under Godot's names, and what Godot's body
    /// cannot have: a shear compliance of its own (said only where it differs), bend constraints of either type
    /// (with the bend compliance in the type's unit), lumped masses; no k for a compliance below 1e-5 m/N.
    #[test]
    fn godot_s_lines_set_what_maps_and_name_what_cannot() {
        let settings = |bend: f64| RuleSettings { dt: 1.0 / 60.0, nit: 5, settings: [0.1, 1.0, bend, 0.0, 0.0] };
        let [set, cannot] = godot_lines(&[8e-5, 8e-5, 1e-2], settings(0.0));
        assert!(set.contains("linear_stiffness = 0.500000 ") && set.contains("simulation_precision = 5"), "{set}");
        assert!(set.contains("damping_coefficient = 0.1") && set.contains("physics ticks per second = 60"), "{set}");
        assert!(!cannot.contains("shear"), "{cannot}");
        assert!(cannot.contains("no bend constraints") && cannot.contains("Distance bends (bend_compliance 1.000000e-2 m/N)"));
        assert!(cannot.contains("lumped"), "{cannot}");
        let [_, cannot] = godot_lines(&[8e-5, 2.4e-4, 3.0], settings(1.0));
        assert!(cannot.contains("shear_compliance 2.400000e-4 m/N (3.000 times compliance)"), "{cannot}");
        assert!(cannot.contains("Dihedral bends (bend_compliance 3.000000e0 rad/(N m))"), "{cannot}");
        let [set, _] = godot_lines(&[1e-6, 1e-6, 1.0], settings(0.0));
        assert!(set.contains("no linear_stiffness in [0, 1] gives compliance 1.000e-6 m/N"), "{set}");
        let model = ModelKind::JOLT_CLOTH.with(&[8e-5, 8e-5, 1e-2]).unwrap();
        assert_eq!(model.usage(1.0 / 60.0, 5)[2..], godot_lines(&[8e-5, 8e-5, 1e-2], settings(0.0)));
        // Godot's body, which the fit evaluates: bend=none, uniform masses, the mesh's face order, the edges'
        // compliance on the shear diagonals too.
        let fitted = ModelKind::JOLT_CLOTH.with_setting("order", 3.0).unwrap();
        let (line, godot, values) = godot_body(fitted, &[8e-5, 2.4e-4, 1e-2]);
        assert_eq!(line, "Godot SoftBody3D");
        assert_eq!(godot.settings()[2..], [("bend", NONE), (MASSES_SETTING, UNIFORM), ("order", 0.0)]);
        assert!((values[0] / 8e-5 - 1.0).abs() < 1e-12 && values[1] == values[0] && values[2] == 1e-2, "{values:?}");
        let godots = RuleSettings { dt: 1.0 / 60.0, nit: 5, settings: [0.1, 1.0, NONE, UNIFORM, 0.0] };
        let [_, makes] = godot_lines(&[8e-5, 8e-5, 1e-2], godots);
        assert_eq!(makes, "Godot SoftBody3D makes this body (bend=none, masses=uniform, the mesh's face order)");
    }

    /// `ACosApproximate` is within 4.3e-3 rad of acos over [-1, 1] (measured 4.26e-3; Jolt's comment says
    /// 4.2e-3), exact at -1, 0 and 1.
    #[test]
    fn acos_approximate_is_within_jolts_bound() {
        let worst = (0..=2000).map(|k| -1.0 + k as f64 / 1000.0).map(|x| (acos_approximate(x) - x.acos()).abs());
        let worst = worst.fold(0.0, f64::max);
        assert!(worst < 4.3e-3 && worst > 4.2e-3, "{worst:e}");
        assert_eq!(acos_approximate(1.0), 0.0);
        assert!((acos_approximate(0.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert!((acos_approximate(-1.0) - std::f64::consts::PI).abs() < 1e-15);
    }

    /// Two unit right triangles on the edge x0 = 0, x1 = e_x, folded along it: the initial angle is the
    /// fold's signed dihedral angle as `ACosApproximate` sees it (flat: 0; folded by 60 degrees: within
    /// 4.3e-3 rad of +-pi/3, the sign flipping with the fold), and rigid projections with compliance 0
    /// take a pair folded away from it back to it while keeping its centre of mass.
    #[test]
    fn a_dihedral_bend_returns_to_its_initial_angle() {
        let pair = |fold: f64| {
            [
                Vec3::zeros(),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.5, 1.0, 0.0),
                Vec3::new(0.5, -fold.cos(), fold.sin()),
            ]
        };
        assert_eq!(initial_angle(pair(0.0)), 0.0);
        let third = std::f64::consts::FRAC_PI_3;
        let (up, down) = (initial_angle(pair(third)) as f64, initial_angle(pair(-third)) as f64);
        assert!((up.abs() - third).abs() < 4.3e-3 && (up + down).abs() < 1e-6, "{up} {down}");
        let rest = pair(third);
        let bend = DihedralBend { particles: [0, 1, 2, 3], w: [1.0; 4], initial_angle: up };
        let folded = pair(third + 0.3);
        let mut u: Vec<Vec3> = folded.iter().zip(&rest).map(|(a, b)| a - b).collect();
        let centre = |u: &[Vec3]| u.iter().sum::<Vec3>() / 4.0;
        let before = centre(&u);
        for _ in 0..50 {
            project_dihedral(&bend, 0.0, &rest, &mut u);
        }
        let x: Vec<Vec3> = rest.iter().zip(&u).map(|(a, b)| a + b).collect();
        let angle = initial_angle([x[0], x[1], x[2], x[3]]) as f64;
        assert!((angle - up).abs() < 1e-5, "{angle} against {up}");
        assert!((centre(&u) - before).norm() < 1e-12);
    }
}
