//! The projection models' stage: their state of the body ([`ProjectionBody`]: the constraints the sweep
//! projects, compact, in colour order, with their SIMD blocks) and the Gauss-Seidel sweep, per rule.
//!
//! Each model family has its own per-body state and stage: here the projection models', in `engines/` the
//! engine profiles' (`EngineBody`; one `EngineStep` per engine), in `mass_spring/` the force laws'
//! (`SpringBody`). The family is data of the model's definition (`Fold`), read once where its rule is made:
//! an enum (`ModelRule`), not a trait object, so that the stepped families share the rest state's code
//! through the generic `Stage` trait, statically dispatched and bit-identical, and one body serves models of
//! every family (a study fits PBD, XPBD and mass-spring on one `PbdSystem`). A new body kind or constraint
//! kind brings its state type and its stage beside these.

use std::ops::Range;

use rayon::prelude::*;

use crate::constraints::{DistanceHot, VolumeHot};
use crate::lanes::{LANES, VolumeLanes};
use crate::system::{Stage, projected_rest_map, projected_step};
use crate::{
    DistanceConstraint, Dynamics, MAX_TETRAHEDRON_TERMS, PbdSystem, ProjectionRule, SimParams, SpringPotential,
    TetrahedronTerm, Vec3, VolumeConstraint,
};

/// The projection models' state of a body, built with it.
#[derive(Debug, Clone)]
pub(crate) struct ProjectionBody {
    /// The constraints the sweep projects, in projection order, compact; constraints whose particles are
    /// all held are left out (they never move anything).
    pub(crate) hot_distances: Vec<DistanceHot>,
    pub(crate) hot_volumes: Vec<VolumeHot>,
    /// Per colour group: its ranges in `hot_distances` and `hot_volumes`.
    hot_groups: Vec<(Range<usize>, Range<usize>)>,
    /// The hot volume constraints of each colour group in blocks of `LANES` (see `lanes.rs`): group
    /// `g`'s blocks `volume_lanes[lane_groups[g]]` hold `hot_volumes[v0..v0 + LANES * blocks]` (`v0` the
    /// start of its range); the serial sweep projects them side by side and the rest one at a time.
    pub(crate) volume_lanes: Vec<VolumeLanes>,
    lane_groups: Vec<Range<usize>>,
    /// Whether the serial sweep uses `volume_lanes` (bit-identical either way; off: the scalar sweep).
    pub(crate) use_volume_lanes: bool,
    /// Groups with at least this many constraints are projected on all threads.
    pub(crate) parallel_threshold: usize,
}

impl ProjectionBody {
    /// The hot constraints of `distances` and `volumes` per colour group (`groups`: their ranges), and the
    /// volume constraints' blocks.
    pub(crate) fn new(
        distances: &[DistanceConstraint],
        volumes: &[VolumeConstraint],
        groups: &[(Range<usize>, Range<usize>)],
    ) -> Self {
        let mut hot_distances = Vec::with_capacity(distances.len());
        let mut hot_volumes = Vec::with_capacity(volumes.len());
        let mut hot_groups = Vec::with_capacity(groups.len());
        for (dr, vr) in groups {
            let (d0, v0) = (hot_distances.len(), hot_volumes.len());
            hot_distances.extend(distances[dr.clone()].iter().filter_map(DistanceHot::new));
            hot_volumes.extend(volumes[vr.clone()].iter().filter_map(VolumeHot::new));
            hot_groups.push((d0..hot_distances.len(), v0..hot_volumes.len()));
        }
        let mut volume_lanes = Vec::with_capacity(hot_volumes.len() / 4);
        let mut lane_groups = Vec::with_capacity(hot_groups.len());
        for (_, vr) in &hot_groups {
            let b0 = volume_lanes.len();
            volume_lanes.extend(
                hot_volumes[vr.clone()]
                    .chunks_exact(LANES)
                    .map(|c| VolumeLanes::new(c.try_into().expect("chunks of LANES"))),
            );
            lane_groups.push(b0..volume_lanes.len());
        }
        ProjectionBody {
            hot_distances,
            hot_volumes,
            hot_groups,
            volume_lanes,
            lane_groups,
            use_volume_lanes: true,
            parallel_threshold: 4096,
        }
    }
}

impl PbdSystem {
    /// One Gauss-Seidel sweep, in colour order, on the displacements `d.predicted`: over the distance
    /// constraints, the volume constraints, or both (both for a step; one part for profiling: `bench`).
    pub(crate) fn sweep_parts(&self, rules: &ProjectionRule, d: &mut Dynamics, distances: bool, volumes: bool) {
        let (body, inverse_masses) = (&self.projection, &self.inverse_masses[..]);
        if rules.is_inert() {
            return;
        }
        let s_min = rules.volume_degenerate_threshold();
        match *rules {
            ProjectionRule::Pbd { distance_k: kd, volume_k: kk, .. } => {
                body.sweep_with(d, (distances, volumes, volumes), PbdProjection { kd, kk, s_min })
            }
            ProjectionRule::Xpbd {
                distance_potential: potential,
                distance_alpha_tilde: alpha_distance,
                volume_alpha_tilde: alpha_volume,
                volume_gradient_scale: scale,
                distances: project_distances,
                volumes: project_volumes,
                tetrahedra,
            } => body.sweep_with(
                d,
                // The per-tetrahedron constraints count as volume work (`bench`'s parts).
                (distances && project_distances, volumes && project_volumes, volumes),
                XpbdProjection { inverse_masses, potential, alpha_distance, alpha_volume, scale, tetrahedra },
            ),
        }
    }
}

impl ProjectionBody {
    /// The sweep, monomorphised per rule: per colour group its distance constraints, its volume
    /// constraints, then each of its tetrahedra's own constraints (`tets`: the rule's `tetrahedra`,
    /// solved together per tetrahedron; they share its particles, so they see its volume correction, and
    /// no other constraint of the group touches them).
    #[inline(always)]
    fn sweep_with<P: Projection>(&self, d: &mut Dynamics, (distances, volumes, tets): (bool, bool, bool), rule: P) {
        let terms = if tets { rule.tetrahedra() } else { [None; MAX_TETRAHEDRON_TERMS] };
        let any_term = terms.iter().any(Option::is_some);
        let u = &mut d.predicted[..];
        for ((dr, vr), blocks) in self.hot_groups.iter().zip(&self.lane_groups) {
            let tet_range = if any_term { vr.clone() } else { 0..0 };
            let (dr, vr) = (if distances { dr.clone() } else { 0..0 }, if volumes { vr.clone() } else { 0..0 });
            if dr.len() + vr.len() + tet_range.len() >= self.parallel_threshold {
                self.project_group_parallel(
                    &rule,
                    (dr, vr),
                    (&mut d.delta_distance, &mut d.delta_volume),
                    u,
                    (&mut d.lambda_distance, &mut d.lambda_volume),
                );
                if any_term {
                    self.project_tetrahedra_parallel(
                        &terms,
                        tet_range,
                        &mut d.delta_volume,
                        u,
                        &mut d.lambda_tetrahedron,
                    );
                }
                continue;
            }
            for (c, lambda) in self.hot_distances[dr.clone()].iter().zip(&mut d.lambda_distance[dr]) {
                let [a, b] = rule.distance(c, u, lambda);
                u[c.particles[0] as usize] += a;
                u[c.particles[1] as usize] += b;
            }
            let mut vr = vr;
            if self.use_volume_lanes && volumes {
                // No two constraints of the group share a particle: a block at a time, then the rest.
                let blocks = &self.volume_lanes[blocks.clone()];
                let lambdas = &mut d.lambda_volume[vr.start..vr.start + LANES * blocks.len()];
                for (c, lambda) in blocks.iter().zip(lambdas.chunks_exact_mut(LANES)) {
                    rule.volume_lanes(c, u, lambda);
                }
                vr.start += LANES * blocks.len();
            }
            for (c, lambda) in self.hot_volumes[vr.clone()].iter().zip(&mut d.lambda_volume[vr]) {
                let [a, b, e, f] = rule.volume(c, u, lambda);
                u[c.particles[0] as usize] += a;
                u[c.particles[1] as usize] += b;
                u[c.particles[2] as usize] += e;
                u[c.particles[3] as usize] += f;
            }
            for (c, lambdas) in self.hot_volumes[tet_range.clone()].iter().zip(&mut d.lambda_tetrahedron[tet_range]) {
                let [a, b, e, f] = c.xpbd_tetrahedra(u, &terms, lambdas);
                u[c.particles[0] as usize] += a;
                u[c.particles[1] as usize] += b;
                u[c.particles[2] as usize] += e;
                u[c.particles[3] as usize] += f;
            }
        }
    }

    /// A group's per-tetrahedron constraints on all threads, after its volume constraints were applied:
    /// every tetrahedron's correction from the current displacements (no other tetrahedron of the group
    /// shares its particles, so this is what a serial pass sees), then applied in list order.
    /// Bit-identical to serial.
    fn project_tetrahedra_parallel(
        &self,
        terms: &[Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS],
        range: Range<usize>,
        delta: &mut Vec<[Vec3; 4]>,
        u: &mut [Vec3],
        lambda: &mut [[f64; MAX_TETRAHEDRON_TERMS]],
    ) {
        delta.resize(range.len(), [Vec3::zeros(); 4]);
        {
            let u: &[Vec3] = u;
            self.hot_volumes[range.clone()]
                .par_iter()
                .zip(&mut lambda[range.clone()])
                .zip(&mut delta[..])
                .for_each(|((c, lambdas), out)| *out = c.xpbd_tetrahedra(u, terms, lambdas));
        }
        for (c, dp) in self.hot_volumes[range].iter().zip(delta.iter()) {
            for (&p, dp) in c.particles.iter().zip(dp) {
                u[p as usize] += dp;
            }
        }
    }

    /// Projects one colour group on all threads: every constraint computes its correction from the
    /// current displacements (no other constraint of the group touches its particles, so this is what a
    /// serial pass would see), then the corrections are applied in list order. Bit-identical to serial.
    fn project_group_parallel<P: Projection>(
        &self,
        rule: &P,
        (dr, vr): (Range<usize>, Range<usize>),
        (delta_distance, delta_volume): (&mut Vec<[Vec3; 2]>, &mut Vec<[Vec3; 4]>),
        u: &mut [Vec3],
        (lambda_distance, lambda_volume): (&mut [f64], &mut [f64]),
    ) {
        delta_distance.resize(dr.len(), [Vec3::zeros(); 2]);
        delta_volume.resize(vr.len(), [Vec3::zeros(); 4]);
        {
            let u: &[Vec3] = u;
            self.hot_distances[dr.clone()]
                .par_iter()
                .zip(&mut lambda_distance[dr.clone()])
                .zip(&mut delta_distance[..])
                .for_each(|((c, lambda), out)| *out = rule.distance(c, u, lambda));
            self.hot_volumes[vr.clone()]
                .par_iter()
                .zip(&mut lambda_volume[vr.clone()])
                .zip(&mut delta_volume[..])
                .for_each(|((c, lambda), out)| *out = rule.volume(c, u, lambda));
        }
        for (c, [a, b]) in self.hot_distances[dr].iter().zip(delta_distance.iter()) {
            u[c.particles[0] as usize] += a;
            u[c.particles[1] as usize] += b;
        }
        for (c, delta) in self.hot_volumes[vr].iter().zip(delta_volume.iter()) {
            for (&p, dp) in c.particles.iter().zip(delta) {
                u[p as usize] += dp;
            }
        }
    }
}

impl Dynamics {
    /// Zeroes the XPBD multipliers at the start of a step. PBD projections never read or write them
    /// (they stay at the zeros they were created with), so for PBD this is skipped (it was about 4 % of
    /// the instructions of an N = 4 rest state).
    #[inline]
    fn reset_multipliers(&mut self, rules: &ProjectionRule) {
        if let ProjectionRule::Xpbd { tetrahedra, .. } = rules {
            self.lambda_distance.fill(0.0);
            self.lambda_volume.fill(0.0);
            if tetrahedra.iter().any(Option::is_some) {
                self.lambda_tetrahedron.fill([0.0; MAX_TETRAHEDRON_TERMS]);
            }
        }
    }
}

/// A constraint's correction from the current displacements (updating its multiplier), per rule.
trait Projection: Sync {
    fn distance(&self, c: &DistanceHot, u: &[Vec3], lambda: &mut f64) -> [Vec3; 2];
    fn volume(&self, c: &VolumeHot, u: &[Vec3], lambda: &mut f64) -> [Vec3; 4];
    /// A block of volume constraints of one group at once, applied to `u`; `lambda` holds their multipliers.
    fn volume_lanes(&self, c: &VolumeLanes, u: &mut [Vec3], lambda: &mut [f64]);
    /// The per-tetrahedron constraints projected after each group's volume constraints (none: `[None; _]`).
    fn tetrahedra(&self) -> [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS];
}

struct PbdProjection {
    kd: f64,
    kk: f64,
    s_min: f64,
}

impl Projection for PbdProjection {
    #[inline(always)]
    fn distance(&self, c: &DistanceHot, u: &[Vec3], _: &mut f64) -> [Vec3; 2] {
        c.pbd(u, self.kd)
    }

    #[inline(always)]
    fn volume(&self, c: &VolumeHot, u: &[Vec3], _: &mut f64) -> [Vec3; 4] {
        c.pbd(u, self.kk, self.s_min)
    }

    #[inline(always)]
    fn volume_lanes(&self, c: &VolumeLanes, u: &mut [Vec3], _: &mut [f64]) {
        c.pbd(u, self.kk, self.s_min)
    }

    #[inline(always)]
    fn tetrahedra(&self) -> [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS] {
        [None; MAX_TETRAHEDRON_TERMS]
    }
}

struct XpbdProjection<'a> {
    inverse_masses: &'a [f64],
    potential: SpringPotential,
    alpha_distance: f64,
    alpha_volume: f64,
    scale: f64,
    tetrahedra: [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS],
}

impl Projection for XpbdProjection<'_> {
    #[inline(always)]
    fn distance(&self, c: &DistanceHot, u: &[Vec3], lambda: &mut f64) -> [Vec3; 2] {
        match self.potential {
            SpringPotential::Stretch => c.xpbd(u, self.inverse_masses, self.alpha_distance, lambda),
            potential => c.xpbd_potential(u, self.inverse_masses, potential, self.alpha_distance, lambda),
        }
    }

    #[inline(always)]
    fn volume(&self, c: &VolumeHot, u: &[Vec3], lambda: &mut f64) -> [Vec3; 4] {
        c.xpbd(u, self.scale, self.alpha_volume, lambda)
    }

    #[inline(always)]
    fn volume_lanes(&self, c: &VolumeLanes, u: &mut [Vec3], lambda: &mut [f64]) {
        c.xpbd(u, self.scale, self.alpha_volume, lambda)
    }

    #[inline(always)]
    fn tetrahedra(&self) -> [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS] {
        self.tetrahedra
    }
}

impl ProjectionRule {
    /// A step's solve on `d.predicted`: the multipliers reset, then `nit` sweeps, each followed by the
    /// contact projections (with obstacles; `d.u` holds the step's start).
    fn solve(&self, system: &PbdSystem, nit: usize, d: &mut Dynamics) {
        d.reset_multipliers(self);
        let contacts = !system.contacts.is_empty();
        if contacts {
            d.contact.clear();
        }
        for _ in 0..nit {
            system.sweep_parts(self, d, true, true);
            if contacts {
                system.project_contacts(d);
            }
        }
    }
}

impl Stage for ProjectionRule {
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64 {
        projected_step(system, params, d, |d| self.solve(system, params.nit, d))
    }

    /// The rest-state map `G(u) = P(u + dt^2 a)` ([`projected_rest_map`]).
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]) {
        projected_rest_map(system, params, d, x, out, |d| self.solve(system, params.nit, d))
    }
}
