//! Host-side packing: constraint data in projection order and per-simulation parameters, as the f32 and
//! u32 words the kernels read (the layouts are documented in `shaders/constraints.wgsl`).

use pbdfit_pbd::{Model, PbdSystem, SimParams};

/// Constraint and particle data of one body, in the CPU's projection order.
#[derive(Debug, Clone)]
pub(crate) struct MeshData {
    pub particle_count: usize,
    /// Free (not held) particles, ascending.
    pub free: Vec<u32>,
    /// Inverse masses (1/kg), 0 for held particles.
    pub inverse_masses: Vec<f32>,
    /// Per colour group: distance start, distance count, volume start, volume count.
    pub groups: Vec<[u32; 4]>,
    /// Two particles per distance constraint.
    pub dist_idx: Vec<u32>,
    /// Rest edge (3) and rest length (1) per distance constraint.
    pub dist_geo: Vec<f32>,
    /// Four particles per volume constraint.
    pub vol_idx: Vec<u32>,
    /// E1, E2, E3, E3 x E1, E1 x E2 per volume constraint (rounded from f64).
    pub vol_geo: Vec<f32>,
    /// Largest extent of the body (m), the divergence threshold of the CPU path.
    pub extent: f32,
    /// Largest number of constraints in one colour group.
    pub max_group: usize,
}

impl MeshData {
    pub fn new(system: &PbdSystem) -> Self {
        let rest = system.rest_positions();
        let (mut lo, mut hi) = (rest[0], rest[0]);
        for p in rest {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        let extent = (hi - lo).max() as f32;
        let mut dist_idx = Vec::new();
        let mut dist_geo = Vec::new();
        for c in system.distance_constraints() {
            dist_idx.extend(c.particles.map(|p| p as u32));
            dist_geo.extend([c.rest_edge.x, c.rest_edge.y, c.rest_edge.z, c.rest_length].map(|x| x as f32));
        }
        let mut vol_idx = Vec::new();
        let mut vol_geo = Vec::new();
        for c in system.volume_constraints() {
            vol_idx.extend(c.particles.map(|p| p as u32));
            for v in c.rest_edges.iter().chain(&c.rest_cross[1..]) {
                vol_geo.extend([v.x as f32, v.y as f32, v.z as f32]);
            }
        }
        let groups: Vec<[u32; 4]> = system
            .group_ranges()
            .iter()
            .map(|(d, v)| [d.start as u32, d.len() as u32, v.start as u32, v.len() as u32])
            .collect();
        let max_group = groups.iter().map(|g| (g[1] + g[3]) as usize).max().unwrap_or(0);
        Self {
            particle_count: rest.len(),
            free: system.free_particles().iter().map(|&p| p as u32).collect(),
            inverse_masses: system.inverse_masses().iter().map(|&w| w as f32).collect(),
            groups,
            dist_idx,
            dist_geo,
            vol_idx,
            vol_geo,
            extent,
            max_group,
        }
    }

    pub fn distance_count(&self) -> usize {
        self.dist_idx.len() / 2
    }

    pub fn volume_count(&self) -> usize {
        self.vol_idx.len() / 4
    }
}

/// One simulation's parameters as the kernels read them (`struct Sim` in constraints.wgsl, 12 words).
///
/// The rules are those of pbdfit-pbd's `Rules::new`, evaluated in f64 and rounded once: PBD stiffness
/// (linearised `1 - (1 - k)^(1/nit)` for the linearised model; for volumes `kv / (6 scale)`), XPBD
/// `alpha / dt^2`; volume gradients `6 dV/dp` (scale 1) for the library's PBD, `dV/dp` (scale 1/6) for
/// the textbook form and XPBD.
pub(crate) fn sim_words(params: &SimParams, gravity: [f64; 3], tolerance: f64, max_steps: u32) -> [u32; 12] {
    let dt = params.dt;
    let linearise = |k: f64| 1.0 - (1.0 - k).powf(1.0 / params.nit as f64);
    // PBD volumes take kk = kv / (6 scale) with the unscaled gradients (pbdfit-pbd's Rules::Pbd).
    let pbd = |kd: f64, kv: f64, scale: f64| (kd, kv / (6.0 * scale), 0, scale);
    let (distance_k, volume_k, xpbd, gradient_scale) = match params.model {
        Model::Pbd { kd, kv } => pbd(kd, kv, 1.0),
        Model::PbdLinearised { kd, kv } => pbd(linearise(kd), linearise(kv), 1.0),
        Model::PbdTextbookVolume { kd, kv } => pbd(kd, kv, 1.0 / 6.0),
        Model::Xpbd { compliance_distance, compliance_volume } => {
            (compliance_distance / (dt * dt), compliance_volume / (dt * dt), 1, 1.0 / 6.0)
        }
    };
    let f = |x: f64| (x as f32).to_bits();
    [
        f(gravity[0] * dt),
        f(gravity[1] * dt),
        f(gravity[2] * dt),
        f(dt),
        f(distance_k),
        f(volume_k),
        xpbd,
        f(gradient_scale),
        f(1.0 - params.damping),
        params.nit as u32,
        f(tolerance),
        max_steps,
    ]
}

/// f32 bit patterns of a float slice.
pub(crate) fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|x| x.to_bits()).collect()
}
