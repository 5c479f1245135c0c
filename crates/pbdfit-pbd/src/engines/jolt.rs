//! `jolt`: Jolt Physics's soft bodies (Jolt 5.6.0, as bundled by crates.io `oxijolt` 1.5.0; the same
//! soft-body code as Jolt 5.3 and 5.4, which Godot 4.4 to 4.6 ship): `SoftBodyMotionProperties.cpp`
//! (`IntegratePositions`, `ApplyVolumeConstraints`, `ApplyEdgeConstraints`) and `SoftBodySharedSettings.cpp`
//! (`Optimize`, `CalculateClosestKinematic`), in f64; the parameters are the compliances Jolt's
//! `SoftBodySharedSettings::Edge` and `::Volume` take.
//!
//! One `PhysicsSystem::Update(dt)` is `mNumIterations` substeps of `h = dt / n`, each with one pass:
//!
//! ```text
//! v <- (v + g h) max(0, 1 - c h)          (c: mLinearDamping, after gravity)
//! p <- x + h v
//! per update group: its volumes, then its edges, Gauss-Seidel, XPBD with lambda = 0 (one pass)
//!   edge:   C = |x1 - x0| - l0,     corr = d (l - l0) / (l (w0 + w1 + alpha_e / h^2))
//!   volume: C = |6 V| - 6 V0, the signed 6V's gradients g_i,
//!           x_i -= w_i g_i C / (sum w |g|^2 + alpha_v / h^2)
//! v <- (p - x) / h
//! ```
//!
//! so Jolt's volume compliance is 36 times that of `C = V - V0`. The damping multiplies the gravity
//! increment too, so the rest state is the undamped one under gravity `(1 - c h) g`.
//!
//! Order (`Optimize`): vertices are grouped greedily (groups of at most 256 that share no vertex, run in
//! any order; the constraints that span groups run last; the connectivity it reads lists each vertex's
//! neighbours in creation order); inside each group volumes and edges are each sorted by the f32 distance
//! along edges from their nearest kinematic vertex (Dijkstra), then their smallest vertex index, then the
//! index they were created with. A body of at most 256 vertices is one sequence. The edges' creation order
//! is the setting `order` ([`CreationOrder`]); the volumes are created in the mesh's tetrahedron order.
//!
//! Not reproduced, and why it does not move a rest state: the velocity clamp (500 m/s), the re-centring on
//! the bounding box (a translation), sleeping (a body below 0.17 m/s for 0.5 s freezes: an engine run
//! must disable it, `allow_sleeping(false)`, to reach its rest state at all).


use super::creation::{self, CreationOrder};
use super::{EngineBody, EngineConstants, EngineRule, EngineStep, six_volume_change};
use crate::{Dynamics, Fold, ModelDef, ParameterSpec, PbdSystem, RuleSettings, SettingSpec};

/// Jolt's soft-body substep, with its constants (the compliances of Jolt's `Edge` and `Volume`, and the
/// order the edges are created in); its cache is the projection order of each creation order used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jolt {
    pub edge_compliance: f64,
    pub volume_compliance: f64,
    pub order: CreationOrder,
}

impl EngineStep for Jolt {
    type Cache = Orders;
    const PASSES: super::Passes = super::Passes::GaussSeidel;
    const TANGENT: bool = true;

    /// Every volume (`C = 6V - 6V0`, Gauss-Newton), then every edge (its geometric part in tension), each
    /// at its `alpha / h^2 + W / passes`.
    fn tangent(
        &self,
        system: &PbdSystem,
        body: &EngineBody,
        _: &Orders,
        passes: usize,
        h: f64,
        u: &[crate::Vec3],
        put: &mut dyn FnMut(&[usize], Option<&super::tangent::Blocks>),
    ) {
        use super::tangent::{edge, gauss_newton, xpbd_compliance};
        let inv_h2 = 1.0 / (h * h);
        let passes = passes as f64;
        let x = &system.rest;
        for t in &body.tets {
            let [a, b, c, e] = t.particles;
            let (e1, e2, e3) = (x[b] - x[a] + u[b] - u[a], x[c] - x[a] + u[c] - u[a], x[e] - x[a] + u[e] - u[a]);
            let g = [(e3 - e1).cross(&(e2 - e1)), e2.cross(&e3), e3.cross(&e1), e1.cross(&e2)];
            let w = (0..4).map(|k| t.w[k] * g[k].norm_squared()).sum();
            let blocks = xpbd_compliance(self.volume_compliance * inv_h2, w, passes).map(|c| gauss_newton(&g, c));
            put(&t.particles, blocks.as_ref());
        }
        for edge_constraint in &body.edges {
            let [a, b] = edge_constraint.particles;
            let w = edge_constraint.w[0] + edge_constraint.w[1];
            let blocks = xpbd_compliance(self.edge_compliance * inv_h2, w, passes)
                .and_then(|c| edge(edge_constraint.rest + u[b] - u[a], edge_constraint.length, c));
            put(&edge_constraint.particles, blocks.as_ref());
        }
    }

    fn solve(&self, system: &PbdSystem, body: &EngineBody, orders: &Orders, passes: usize, d: &mut Dynamics, h: f64) {
        let order = orders.get_or_build(self.order, || Order::new(system, body, self.order));
        let inv_h2 = 1.0 / (h * h);
        let edge_alpha = self.edge_compliance * inv_h2;
        let volume_alpha = self.volume_compliance * inv_h2;
        let u = &mut d.predicted;
        let x = &system.rest;
        for _ in 0..passes {
            for (volumes, edges) in &order.groups {
                for &i in volumes {
                    let t = &body.tets[i];
                    let [a, b, c, e] = t.particles;
                    let rest = [x[b] - x[a], x[c] - x[a], x[e] - x[a]];
                    let du = [u[b] - u[a], u[c] - u[a], u[e] - u[a]];
                    let ds = six_volume_change(t, x, u);
                    let s0 = 6.0 * t.volume;
                    let s = s0 + ds;
                    // |S| - S0: S - S0 while the tetrahedron keeps its orientation.
                    let value = if s >= 0.0 { ds } else { -s - s0 };
                    let (e1, e2, e3) = (rest[0] + du[0], rest[1] + du[1], rest[2] + du[2]);
                    let g = [(e3 - e1).cross(&(e2 - e1)), e2.cross(&e3), e3.cross(&e1), e1.cross(&e2)];
                    let w = t.w;
                    let denominator = w[0] * g[0].norm_squared()
                        + w[1] * g[1].norm_squared()
                        + w[2] * g[2].norm_squared()
                        + w[3] * g[3].norm_squared()
                        + volume_alpha;
                    if denominator < 1e-12 {
                        continue;
                    }
                    let s = value / denominator;
                    for k in 0..4 {
                        u[t.particles[k]] -= g[k] * (s * w[k]);
                    }
                }
                for &i in edges {
                    project_edge(&body.edges[i], edge_alpha, u);
                }
            }
        }
    }
}

/// `ApplyEdgeConstraints` on one edge with compliance over h^2 `alpha` (1/kg), on the displacements `u`.
#[inline(always)]
pub(crate) fn project_edge(e: &super::EngineEdge, alpha: f64, u: &mut [crate::Vec3]) {
    let [a, b] = e.particles;
    let du = u[b] - u[a];
    let delta = e.rest + du;
    let length = delta.norm();
    let denominator = length * (e.w[0] + e.w[1] + alpha);
    if denominator < 1e-12 {
        return;
    }
    // l - l0 = (2 E.du + du.du) / (l + l0), without cancellation.
    let stretch = (2.0 * e.rest.dot(&du) + du.norm_squared()) / (length + e.length);
    let correction = delta * (stretch / denominator);
    u[a] += correction * e.w[0];
    u[b] -= correction * e.w[1];
}

/// `SoftBodyUpdateContext::cVertexConstraintBatch`.
const BATCH: usize = 256;

/// The projection orders of one body, one per creation order used (built on first use; a fit uses one,
/// its spread over orders a few).
pub type Orders = super::Memo<CreationOrder, Order>;

/// Jolt's projection order: per update group, its volumes then its edges (indices into the engine body's
/// `tets` and `edges`).
#[derive(Debug, Clone, Default)]
pub struct Order {
    pub(crate) groups: Vec<(Vec<usize>, Vec<usize>)>,
}

impl Order {
    /// `SoftBodySharedSettings::Optimize` for a body of edges (created in `creation` order) and volumes.
    pub(crate) fn new(system: &PbdSystem, body: &EngineBody, creation: CreationOrder) -> Self {
        let pairs: Vec<[usize; 2]> = body.edges.iter().map(|e| e.particles).collect();
        let tets: Vec<[usize; 4]> = body.tets.iter().map(|t| t.particles).collect();
        Self::optimize(
            &system.rest,
            &system.inverse_masses,
            &pairs,
            &creation.sequence(&pairs),
            &creation.ranks(&pairs),
            &tets,
        )
    }

    /// `Optimize` for edges `pairs` created in the order `sequence` (indices into `pairs`; `rank[i]` the
    /// creation index of edge `i`) and four-vertex constraints `quads` (created in their order): a solid's
    /// volumes, or a sheet's dihedral bends, which `Optimize` connects, groups and sorts alike (a body has
    /// one kind or the other here), of a body at rest positions `rest` (m) with inverse masses
    /// `inverse_masses` (1/kg; 0 for a kinematic vertex).
    pub(crate) fn optimize(
        rest: &[crate::Vec3],
        inverse_masses: &[f64],
        pairs: &[[usize; 2]],
        sequence: &[usize],
        rank: &[usize],
        quads: &[[usize; 4]],
    ) -> Self {
        let n = rest.len();
        let p: Vec<[f32; 3]> = rest.iter().map(|x| [x.x as f32, x.y as f32, x.z as f32]).collect();
        // (a) Connectivity: neighbours in first-seen order with a count, from edges then volumes.
        let mut connectivity: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        let mut link = |a: usize, b: usize| {
            for (u, v) in [(a, b), (b, a)] {
                match connectivity[u].iter_mut().find(|(w, _)| *w == v) {
                    Some((_, count)) => *count += 1,
                    None => connectivity[u].push((v, 1)),
                }
            }
        };
        for &i in sequence {
            link(pairs[i][0], pairs[i][1]);
        }
        for &q in quads {
            for (i, j) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
                link(q[i], q[j]);
            }
        }
        // (b) Greedy vertex grouping.
        let mut group = vec![usize::MAX; n];
        let mut current = 0;
        let mut members: Vec<usize> = Vec::new();
        let distance2 = |a: usize, b: usize| {
            let d = [p[a][0] - p[b][0], p[a][1] - p[b][1], p[a][2] - p[b][2]];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        };
        loop {
            let free: Vec<usize> = (0..n).filter(|&v| group[v] == usize::MAX).collect();
            if free.is_empty() {
                break;
            }
            let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
            for &v in &free {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[v][k]);
                    hi[k] = hi[k].max(p[v][k]);
                }
            }
            let s = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
            let max_axis = if s[0] > s[1] {
                if s[2] > s[0] { 2 } else { 0 }
            } else if s[2] > s[1] {
                2
            } else {
                1
            };
            let mut min_axis = if s[0] < s[1] {
                if s[2] < s[0] { 2 } else { 0 }
            } else if s[2] < s[1] {
                2
            } else {
                1
            };
            if min_axis == max_axis {
                min_axis = (min_axis + 1) % 3;
            }
            let mid_axis = 3 - min_axis - max_axis;
            let key = |v: usize| [p[v][max_axis], p[v][mid_axis], p[v][min_axis]];
            let mut start = free[0];
            for &v in &free[1..] {
                let (a, b) = (key(v), key(start));
                if a.partial_cmp(&b) == Some(std::cmp::Ordering::Less) {
                    start = v;
                }
            }
            members.push(start);
            group[start] = current;
            loop {
                let mut best: Option<usize> = None;
                let (mut best_n, mut best_d) = (0u32, f32::MAX);
                for &u in &members {
                    for &(v, _) in &connectivity[u] {
                        if group[v] != usize::MAX {
                            continue;
                        }
                        let count: u32 =
                            connectivity[v].iter().filter(|(w, _)| group[*w] == current).map(|(_, c)| c).sum();
                        let d = distance2(v, members[0]);
                        if best.is_none() || count > best_n || (count == best_n && d < best_d) {
                            (best, best_n, best_d) = (Some(v), count, d);
                        }
                    }
                }
                if let Some(v) = best {
                    members.push(v);
                    group[v] = current;
                }
                if members.len() >= BATCH || (members.len() > BATCH / 2 && best.is_none()) {
                    members.clear();
                    current += 1;
                    break;
                }
                if best.is_none() {
                    break;
                }
            }
        }
        let last = current;
        // (e) Distance along edges to the nearest kinematic vertex, in f32 (Dijkstra).
        let mut distance = vec![f32::MAX; n];
        let mut edge_neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &i in sequence {
            edge_neighbours[pairs[i][0]].push(pairs[i][1]);
            edge_neighbours[pairs[i][1]].push(pairs[i][0]);
        }
        let mut heap = std::collections::BinaryHeap::new();
        for v in 0..n {
            if inverse_masses[v] == 0.0 {
                distance[v] = 0.0;
                heap.push(std::cmp::Reverse((OrderedF32(0.0), v)));
            }
        }
        while let Some(std::cmp::Reverse((OrderedF32(d), u))) = heap.pop() {
            if d > distance[u] {
                continue;
            }
            for &v in &edge_neighbours[u] {
                let nd = d + distance2(u, v).sqrt();
                if nd < distance[v] {
                    distance[v] = nd;
                    heap.push(std::cmp::Reverse((OrderedF32(nd), v)));
                }
            }
        }
        // (c) Constraints to the group of their vertices, else the last; (f) sorted inside each group.
        let group_of = |q: &[usize]| {
            let g = group[q[0]];
            if q.iter().all(|&v| group[v] == g) { g } else { last }
        };
        let mut groups: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); last + 1];
        for (i, q) in quads.iter().enumerate() {
            groups[group_of(q)].0.push(i);
        }
        for &i in sequence {
            groups[group_of(&pairs[i])].1.push(i);
        }
        let sort_key = |q: &[usize], created: usize| {
            let d = q.iter().map(|&v| distance[v]).fold(f32::MAX, f32::min);
            (OrderedF32(d), *q.iter().min().expect("a constraint has vertices"), created)
        };
        for (volumes, edges) in &mut groups {
            volumes.sort_by_key(|&i| sort_key(&quads[i], i));
            edges.sort_by_key(|&i| sort_key(&pairs[i], rank[i]));
        }
        // (d) The parallel groups by size, largest first (they share no vertex: their order does not matter).
        let non_parallel = groups.pop().expect("at least one group");
        groups.sort_by_key(|(v, e)| std::cmp::Reverse(v.len() + e.len()));
        groups.push(non_parallel);
        groups.retain(|(v, e)| !v.is_empty() || !e.is_empty());
        Order { groups }
    }
}

/// A total order on the finite f32 distances (and `f32::MAX`) of the sort.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrderedF32(f32);

impl Eq for OrderedF32 {}

impl PartialOrd for OrderedF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Jolt's `Edge::mCompliance` (m/N, `C = l - l0`) and `Volume::mCompliance` (`C = |6V| - 6V0`: 36 times
/// the compliance of `C = V - V0`, in m^6/J).
const PARAMETERS: [ParameterSpec; 2] = [
    ParameterSpec::log10("edge_compliance", "m/N", "Jolt's Edge::mCompliance (C = l - l0)", (1e-10, 1e2)),
    ParameterSpec::log10(
        "volume_compliance",
        "m^6/J",
        "Jolt's Volume::mCompliance (C = |6V| - 6V0: 36 x the compliance of C = V - V0)",
        (1e-12, 1e4),
    ),
];

/// `SoftBodyCreationSettings::mLinearDamping` and `mGravityFactor`, and the order the edges are created in
/// (`engines/creation.rs`: Jolt's `Optimize` reads it).
/// `SoftBodyCreationSettings::mLinearDamping`, a setting of Jolt's soft body on solids and on sheets.
pub(super) const LINEAR_DAMPING: SettingSpec = SettingSpec::new(
    "linear_damping",
    "1/s",
    "SoftBodyCreationSettings::mLinearDamping: v <- (v + g h) max(0, 1 - c h) each substep, so it scales the \
     gravity the rest state feels",
    0.1,
)
.within(0.0, 1e6)
.damping();

/// `SoftBodyCreationSettings::mGravityFactor`, a setting of Jolt's soft body on solids and on sheets.
pub(super) const GRAVITY_FACTOR: SettingSpec =
    SettingSpec::new("gravity_factor", "1", "SoftBodyCreationSettings::mGravityFactor: the factor on gravity", 1.0)
        .within(0.0, 1e3);

const SETTINGS: [SettingSpec; 3] = [
    LINEAR_DAMPING,
    GRAVITY_FACTOR,
    SettingSpec::new(
        creation::SETTING,
        "1",
        "the order the Edge constraints are created in, which Optimize sorts by after the distance to a kinematic \
         vertex and the lowest vertex index: 0 (profile) pbdfit's, each edge first met walking the tetrahedra; -1 \
         (sorted) the (min, max) pairs sorted; a seed >= 1 a shuffle of pbdfit's (simulate --json lists it)",
        0.0,
    )
    .within(-1.0, creation::MAX_SEED)
    .whole()
    .with_words(creation::WORDS),
];

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let h = s.dt / s.nit.max(1) as f64;
    EngineRule {
        substeps: s.nit.max(1),
        passes: 1,
        velocity_factor: (1.0 - s.settings[0] * h).max(0.0),
        gravity_factor: s.settings[1],
        constants: EngineConstants::Jolt(Jolt {
            edge_compliance: p[0],
            volume_compliance: p[1],
            order: CreationOrder::from_setting(s.settings[2]),
        }),
    }
}

/// Godot's `SoftBody3D.linear_stiffness` k in [0, 1] maps to the stiffness `max(k^3 1e5, 1e-6)` N/m
/// (godot-jolt #830, Godot 4.4 to 4.6: `JoltSoftBody3D`), so to the edge compliance `1 / max(k^3 1e5, 1e-6)`.
/// The k that gives `compliance`, or `None` where no k in [0, 1] does.
pub fn godot_stiffness_for(compliance: f64) -> Option<f64> {
    let k = (1.0 / (compliance * 1e5)).cbrt();
    (compliance > 0.0 && k.is_finite() && (0.0..=1.0).contains(&k)).then_some(k)
}

/// Godot makes no volume constraints: its body is Jolt's with a volume compliance so large that the volume
/// constraint moves nothing (its correction is about `C h^2 / compliance`, 1e-34 of `C` at h = 0.01 s).
pub(crate) const GODOT_NO_VOLUME: f64 = 1e30;

/// The parameters of the body Godot's line makes of fitted parameters `p`: the `linear_stiffness` as the
/// line prints it (six decimals), or clamped to [0, 1] where no value gives the fitted edge compliance
/// (1 below a compliance of 1e-5, 0 above), mapped back to an edge compliance, and no volume constraint.
pub(crate) fn godot_body(p: &[f64]) -> Vec<f64> {
    let k = match godot_stiffness_for(p[0]) {
        Some(k) => format!("{k:.6}").parse::<f64>().unwrap_or(k),
        None if p[0] < 1e-5 => 1.0,
        None => 0.0,
    };
    vec![1.0 / (k.powi(3) * 1e5).max(1e-6), GODOT_NO_VOLUME]
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    let godot = match godot_stiffness_for(p[0]) {
        Some(k) => format!(
            "Godot SoftBody3D: linear_stiffness = {k:.6} (compliance 1/max(k^3 1e5, 1e-6)), simulation_precision = {}, \
             damping_coefficient = {}; Godot makes no volume constraints, so its body lacks the fitted volume term",
            s.nit, s.settings[0]
        ),
        None => format!(
            "Godot SoftBody3D: no linear_stiffness in [0, 1] gives edge compliance {:.3e} m/N (k = 1 gives 1e-5, the \
             stiffest; k -> 0 the softest, 1e6)",
            p[0]
        ),
    };
    let order = CreationOrder::from_setting(s.settings[2]);
    vec![
        format!(
            "SoftBodySharedSettings::Edge(v0, v1, /* compliance */ {:.6e})  // every tetrahedron edge, created in the \
             {} order (--setting {}={}): {}",
            p[0],
            order.name(),
            creation::SETTING,
            order.setting(),
            order.how()
        ),
        format!(
            "SoftBodySharedSettings::Volume(v0, v1, v2, v3, /* compliance */ {:.6e})  // every tetrahedron, in mesh order",
            p[1]
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
    ]
}

/// Jolt's soft body.
pub(crate) static JOLT: ModelDef = ModelDef {
    name: "jolt",
    description: "Jolt 5.6 soft body (Godot's SoftBody3D): edge_compliance (m/N), volume_compliance (Jolt's C = |6V| - 6V0)",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "Jolt's mNumIterations: substeps of dt/nit, one Gauss-Seidel pass each",
    usage,
    rule: Fold::Engine(rule),
    example: &[1e-4, 1e-4],
    // Jolt takes each vertex's inverse mass as given (SoftBodySharedSettings::Vertex::mInvMass): no convention.
    masses: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Godot's line makes another body than the fit's: its stiffness printed to six decimals (or clamped at
    /// 1 where the fitted edge compliance is stiffer than any k gives) and no volume constraint.
    #[test]
    fn godots_body_is_the_printed_stiffness_without_volume() {
        let body = godot_body(&[1.262783e-5, 8.574221e-5]);
        let k: f64 = 0.925175;
        assert_eq!(body, vec![1.0 / (k.powi(3) * 1e5), GODOT_NO_VOLUME]);
        assert!((body[0] / 1.262783e-5 - 1.0).abs() < 1e-5);
        assert_eq!(godot_body(&[1e-8, 1e-3]), vec![1e-5, GODOT_NO_VOLUME]);
        assert_eq!(godot_body(&[1e7, 1e-3]), vec![1e6, GODOT_NO_VOLUME]);
    }
}
