//! A body prepared for PBD: constraints with rest data, the colour order, and the step.

use std::ops::Range;

use pbdfit_mesh::Body;
use rayon::prelude::*;

use crate::constraints::{DistanceHot, VolumeHot};
use crate::contact::{Contact, ContactRecord};
use crate::engines::EngineRule;
use crate::lanes::{LANES, VolumeLanes};
use crate::{
    ColourGroups, ConstraintRef, DistanceConstraint, MAX_TETRAHEDRON_TERMS, ModelRule, ProjectionRule, SimParams,
    SpringPotential, TetrahedronTerm, Vec3, VolumeConstraint,
};

/// A body ready for PBD: particles, constraints stored in projection order, and the colour groups.
/// Built once per body; any number of simulations with different parameters run on it (it is `Sync`).
#[derive(Debug, Clone)]
pub struct PbdSystem {
    pub(crate) scene: String,
    /// The scene's rigid obstacles (empty: none), at their starting places.
    pub(crate) obstacles: Vec<pbdfit_mesh::Obstacle>,
    /// The obstacles where the models meet them (placed at the full load) with their friction: the
    /// contact constraints projected after every sweep (`contact.rs`). Empty: no contact work at all.
    pub(crate) contacts: Vec<Contact>,
    pub(crate) rest: Vec<Vec3>,
    pub(crate) inverse_masses: Vec<f64>,
    pub(crate) free: Vec<usize>,
    pub(crate) gravity: Vec3,
    /// Acceleration of each particle from its loads (m/s^2): gravity plus its traction force over its
    /// mass (docs/meshes-and-loads.md); gravity alone at held particles.
    pub(crate) accelerations: Vec<Vec3>,
    /// Displacement of each particle that the body prescribes (m): non-zero only at held particles that
    /// a load moves (kinematic particles at `X + u`).
    pub(crate) prescribed: Vec<Vec3>,
    /// Whether gravity is the only load and held particles stay in place (see [`Self::is_gravity_only`]).
    gravity_only: bool,
    /// The body's total mass (kg), held particles included (Genesis's uniform masses share it).
    pub(crate) total_mass: f64,
    /// Largest extent of the body (m): a displacement beyond it counts as divergence.
    pub(crate) extent: f64,
    pub(crate) tets: Vec<[usize; 4]>,
    /// Distance constraints in projection order.
    pub(crate) distances: Vec<DistanceConstraint>,
    /// Volume constraints in projection order.
    pub(crate) volumes: Vec<VolumeConstraint>,
    /// Per colour group: its range in `distances` and its range in `volumes`.
    pub(crate) groups: Vec<(Range<usize>, Range<usize>)>,
    /// The constraints the sweep projects, in projection order, compact; constraints whose particles are
    /// all held are left out (they never move anything).
    hot_distances: Vec<DistanceHot>,
    hot_volumes: Vec<VolumeHot>,
    /// Per colour group: its ranges in `hot_distances` and `hot_volumes`.
    hot_groups: Vec<(Range<usize>, Range<usize>)>,
    /// The hot volume constraints of each colour group in blocks of `LANES` (see `lanes.rs`): group
    /// `g`'s blocks `volume_lanes[lane_groups[g]]` hold `hot_volumes[v0..v0 + LANES * blocks]` (`v0` the
    /// start of its range); the serial sweep projects them side by side and the rest one at a time.
    pub(crate) volume_lanes: Vec<VolumeLanes>,
    lane_groups: Vec<Range<usize>>,
    /// Whether the serial sweep uses `volume_lanes` (bit-identical either way; off: the scalar sweep).
    use_volume_lanes: bool,
    /// List index of each constraint, in projection order (distances 0..nd, then volumes nd..).
    solve_order: Vec<usize>,
    /// Groups with at least this many constraints are projected on all threads.
    parallel_threshold: usize,
    /// The body as springs for the mass-spring models, built on first use (once per body, like the
    /// constraints: not once per rest state).
    springs: std::sync::OnceLock<crate::SpringBody>,
    /// The body in the engine profiles' terms, built on first use (`engines/`).
    pub(crate) engine: std::sync::OnceLock<crate::engines::EngineBody>,
}

/// Scratch state of one simulation: displacements, velocities, predictions, XPBD multipliers.
#[derive(Debug, Clone)]
pub struct Dynamics {
    /// Displacement from the rest configuration, per particle (m).
    pub u: Vec<Vec3>,
    /// Velocity per particle (m/s).
    pub v: Vec<Vec3>,
    pub(crate) predicted: Vec<Vec3>,
    pub(crate) lambda_distance: Vec<f64>,
    pub(crate) lambda_volume: Vec<f64>,
    /// Multipliers of the per-tetrahedron constraints (`ProjectionRule::Xpbd`'s `tetrahedra`), one set
    /// per hot volume constraint.
    pub(crate) lambda_tetrahedron: Vec<[f64; MAX_TETRAHEDRON_TERMS]>,
    pub(crate) delta_distance: Vec<[Vec3; 2]>,
    pub(crate) delta_volume: Vec<[Vec3; 4]>,
    /// An engine profile's multipliers and per-particle corrections (`engines/`; sized by the profile).
    pub(crate) lambda_engine: Vec<f64>,
    pub(crate) delta_engine: Vec<Vec3>,
    /// What the contacts did in the current step (empty without obstacles).
    pub(crate) contact: ContactRecord,
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

impl PbdSystem {
    /// Builds the constraints (one distance constraint per unique edge in first-met order, one volume
    /// constraint per tetrahedron), colours them greedily in list order and stores them in projection
    /// order.
    pub fn new(body: &Body) -> Self {
        let rest = body.mesh.vertices().to_vec();
        let inverse_masses = body.inverse_masses();
        let edges = body.mesh.edges();
        let tets = body.mesh.tets().to_vec();
        let nd = edges.len();
        let mut touched: Vec<Vec<usize>> = edges.iter().map(|e| e.to_vec()).collect();
        touched.extend(tets.iter().map(|t| t.to_vec()));
        let colours = ColourGroups::greedy(&touched, rest.len());
        let mut distances = Vec::with_capacity(nd);
        let mut volumes = Vec::with_capacity(tets.len());
        let mut groups = Vec::with_capacity(colours.groups().len());
        for group in colours.groups() {
            let (d0, v0) = (distances.len(), volumes.len());
            for &c in group {
                if c < nd {
                    distances.push(DistanceConstraint::new(edges[c], &rest, &inverse_masses));
                } else {
                    volumes.push(VolumeConstraint::new(tets[c - nd], &rest, &inverse_masses));
                }
            }
            groups.push((d0..distances.len(), v0..volumes.len()));
        }
        let mut hot_distances = Vec::with_capacity(distances.len());
        let mut hot_volumes = Vec::with_capacity(volumes.len());
        let mut hot_groups = Vec::with_capacity(groups.len());
        for (dr, vr) in &groups {
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
        let free = (0..rest.len()).filter(|&p| !body.held[p]).collect();
        let (mut lo, mut hi) = (rest[0], rest[0]);
        for p in &rest {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        let extent = (hi - lo).max();
        let accelerations = (0..rest.len())
            .map(|p| if body.held[p] { body.gravity } else { body.gravity + body.forces[p] * inverse_masses[p] })
            .collect();
        let prescribed =
            (0..rest.len()).map(|p| if body.held[p] { body.prescribed[p] } else { Vec3::zeros() }).collect();
        Self {
            scene: body.scene.clone(),
            obstacles: body.obstacles.clone(),
            contacts: Contact::placed(&body.obstacles),
            rest,
            inverse_masses,
            free,
            gravity: body.gravity,
            accelerations,
            prescribed,
            gravity_only: body.is_gravity_only(),
            total_mass: body.masses.iter().sum(),
            extent,
            tets,
            distances,
            volumes,
            groups,
            hot_distances,
            hot_volumes,
            hot_groups,
            volume_lanes,
            lane_groups,
            use_volume_lanes: true,
            solve_order: colours.solve_order(),
            parallel_threshold: 4096,
            springs: std::sync::OnceLock::new(),
            engine: std::sync::OnceLock::new(),
        }
    }

    /// The body as springs (edges with rest lengths, tetrahedra with rest volumes), built on first use
    /// and kept: every mass-spring rest state and sensitivity of this body shares it.
    pub fn spring_body(&self) -> &crate::SpringBody {
        self.springs.get_or_init(|| crate::SpringBody::new(self))
    }

    /// Sets the group size from which a colour group is projected on all threads (default 4096; the
    /// result is bit-identical either way). `usize::MAX` keeps everything on one thread.
    pub fn with_parallel_threshold(mut self, threshold: usize) -> Self {
        self.parallel_threshold = threshold;
        self
    }

    /// Whether the serial sweep projects the volume constraints of a colour group two at a time in SIMD
    /// lanes (default on; about 1.5 times the volume projections per second). The result is
    /// bit-identical either way (see the tests in `lanes.rs`); off, every constraint is projected one at
    /// a time, the reference the lanes are checked against.
    pub fn with_volume_lanes(mut self, on: bool) -> Self {
        self.use_volume_lanes = on;
        self
    }

    /// Name of the scene the body came from.
    pub fn scene(&self) -> &str {
        &self.scene
    }

    /// Rest positions (m).
    pub fn rest_positions(&self) -> &[Vec3] {
        &self.rest
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.rest.len()
    }

    /// Number of constraints (distance + volume).
    pub fn constraint_count(&self) -> usize {
        self.distances.len() + self.volumes.len()
    }

    /// Constraint list indices in projection order: distances are `0..nd` (edge order), volumes
    /// `nd..nd + nt` (tetrahedron order).
    pub fn solve_order(&self) -> &[usize] {
        &self.solve_order
    }

    /// The constraints in list order, with the particles each touches.
    pub fn constraints_in_list_order(&self) -> Vec<(ConstraintRef, Vec<usize>)> {
        let nd = self.distances.len();
        let mut list = vec![(ConstraintRef::Distance(0), Vec::new()); self.constraint_count()];
        let mut d = self.distances.iter();
        let mut v = self.volumes.iter();
        for &c in &self.solve_order {
            list[c] = if c < nd {
                (ConstraintRef::Distance(c), d.next().expect("distance count").particles.to_vec())
            } else {
                (ConstraintRef::Volume(c - nd), v.next().expect("volume count").particles.to_vec())
            };
        }
        list
    }

    /// Colour groups as ranges of (distances, volumes) in projection order.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Distance constraints in projection order (for other backends, e.g. the GPU).
    pub fn distance_constraints(&self) -> &[DistanceConstraint] {
        &self.distances
    }

    /// Volume constraints in projection order.
    pub fn volume_constraints(&self) -> &[VolumeConstraint] {
        &self.volumes
    }

    /// Per colour group, its ranges in [`Self::distance_constraints`] and [`Self::volume_constraints`].
    pub fn group_ranges(&self) -> &[(Range<usize>, Range<usize>)] {
        &self.groups
    }

    /// Indices of the free (not held) particles.
    pub fn free_particles(&self) -> &[usize] {
        &self.free
    }

    /// `held[p]`: particle p is held (fixed in place or at a prescribed displacement).
    pub fn held_mask(&self) -> Vec<bool> {
        let mut held = vec![true; self.rest.len()];
        for &p in &self.free {
            held[p] = false;
        }
        held
    }

    /// Inverse masses (1/kg), 0 for held particles.
    pub fn inverse_masses(&self) -> &[f64] {
        &self.inverse_masses
    }

    /// Gravity (m/s^2).
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// Whether gravity is the only load and every held particle stays at its rest position: no traction
    /// and no prescribed displacement. Backends that take gravity as one vector (the GPU, the f32
    /// library arithmetic) need this.
    pub fn is_gravity_only(&self) -> bool {
        self.gravity_only
    }

    /// Acceleration of each particle from its loads (m/s^2): gravity plus traction force over mass.
    pub fn accelerations(&self) -> &[Vec3] {
        &self.accelerations
    }

    /// Prescribed displacement of each particle (m): non-zero only at held particles that a load moves.
    pub fn prescribed(&self) -> &[Vec3] {
        &self.prescribed
    }

    /// Tetrahedra of the body.
    pub fn tets(&self) -> &[[usize; 4]] {
        &self.tets
    }

    /// A body at rest in its initial configuration: zero displacement and velocity, held particles at
    /// their prescribed displacement.
    pub fn dynamics(&self) -> Dynamics {
        let n = self.rest.len();
        Dynamics {
            u: self.prescribed.clone(),
            v: vec![Vec3::zeros(); n],
            predicted: self.prescribed.clone(),
            lambda_distance: vec![0.0; self.hot_distances.len()],
            lambda_volume: vec![0.0; self.hot_volumes.len()],
            lambda_tetrahedron: vec![[0.0; MAX_TETRAHEDRON_TERMS]; self.hot_volumes.len()],
            delta_distance: Vec::new(),
            delta_volume: Vec::new(),
            lambda_engine: Vec::new(),
            delta_engine: Vec::new(),
            contact: if self.contacts.is_empty() {
                ContactRecord::default()
            } else {
                ContactRecord::new(self.contacts.len(), n)
            },
        }
    }

    /// The body's rigid obstacles at their starting places (empty: none).
    pub fn obstacles(&self) -> &[pbdfit_mesh::Obstacle] {
        &self.obstacles
    }

    /// Whether any obstacle has friction (then the rest state is path dependent: see
    /// [`PbdSystem::rest_state`]).
    pub fn has_friction(&self) -> bool {
        crate::contact::any_friction(&self.contacts)
    }

    /// Projects every free particle out of every obstacle (placed), then applies friction (`contact.rs`):
    /// obstacles in scene order, particles in index order, each seeing the corrections before it. The
    /// step's start is `d.u`; what each contact did is added to `d.contact`.
    fn project_contacts(&self, d: &mut Dynamics) {
        let n = self.rest.len();
        for (k, c) in self.contacts.iter().enumerate() {
            for &p in &self.free {
                let slot = k * n + p;
                let x = self.rest[p] + d.predicted[p];
                let moved = d.predicted[p] - d.u[p];
                if let Some(r) = c.resolve(&x, &moved, d.contact.depth[slot], &d.contact.friction[slot]) {
                    d.predicted[p] += r.correction;
                    d.contact.depth[slot] += r.depth;
                    d.contact.push[slot] += r.correction;
                    d.contact.friction[slot] += r.friction;
                }
            }
        }
    }

    /// The force each obstacle exerted on the body during the last step of `d` (N, one per obstacle in
    /// scene order): the contact corrections as impulses over the step, `sum_p m_p dx_p / dt^2` (an
    /// impulse `m dx / dt` per step of `dt`). At rest on a floor it is minus the body's weight.
    ///
    /// ```
    /// use pbdfit_mesh::SceneSet;
    /// use pbdfit_pbd::{Model, PbdSystem, RestOptions, SimParams};
    /// // A 1 kg cube standing on a floor with friction, nothing held.
    /// let scene = "name = \"resting\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [0, -9.81, 0]\n\
    ///              [[obstacle]]\nshape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nstatic_friction = 0.5\n";
    /// let body = SceneSet::parse(scene, "doc", None).unwrap().scenes()[0].body(1).unwrap();
    /// let system = PbdSystem::new(&body);
    /// let params = SimParams::new(0.01, 2, Model::pbd(0.5, 0.5));
    /// let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
    /// let mut d = system.dynamics_from(Some(&rest.displacements));
    /// system.step(&params, &mut d);
    /// let push = system.contact_forces(params.dt, &d)[0];
    /// assert!((push.y - 9.81).abs() < 1e-9 && push.x.abs() < 1e-9);
    /// ```
    pub fn contact_forces(&self, dt: f64, d: &Dynamics) -> Vec<Vec3> {
        let n = self.rest.len();
        (0..self.contacts.len())
            .map(|k| {
                self.free
                    .iter()
                    .fold(Vec3::zeros(), |sum, &p| sum + d.contact.push[k * n + p] / (self.inverse_masses[p] * dt * dt))
            })
            .collect()
    }

    /// One Gauss-Seidel sweep over all constraints, in colour order, on the displacements `u`.
    pub(crate) fn sweep(&self, rules: &ProjectionRule, d: &mut Dynamics) {
        self.sweep_parts(rules, d, true, true);
    }

    /// A sweep over the distance constraints, the volume constraints, or both (profiling: `bench`).
    pub(crate) fn sweep_parts(&self, rules: &ProjectionRule, d: &mut Dynamics, distances: bool, volumes: bool) {
        if rules.is_inert() {
            return;
        }
        let s_min = rules.volume_degenerate_threshold();
        match *rules {
            ProjectionRule::Pbd { distance_k: kd, volume_k: kk, .. } => {
                self.sweep_with(d, (distances, volumes, volumes), PbdProjection { kd, kk, s_min })
            }
            ProjectionRule::Xpbd {
                distance_potential: potential,
                distance_alpha_tilde: alpha_distance,
                volume_alpha_tilde: alpha_volume,
                volume_gradient_scale: scale,
                distances: project_distances,
                volumes: project_volumes,
                tetrahedra,
            } => self.sweep_with(
                d,
                // The per-tetrahedron constraints count as volume work (`bench`'s parts).
                (distances && project_distances, volumes && project_volumes, volumes),
                XpbdProjection {
                    inverse_masses: &self.inverse_masses,
                    potential,
                    alpha_distance,
                    alpha_volume,
                    scale,
                    tetrahedra,
                },
            ),
        }
    }

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

    /// One time step (docs/method.md, section The model's step): for free particles `v <- (1 - damping) v + dt a`
    /// (`a`: gravity plus traction over mass),
    /// `p <- u + dt v`; `nit` sweeps; `v <- (p - u) / dt`, `u <- p`. XPBD multipliers are reset each step.
    /// With obstacles, each sweep is followed by the contact projection of every free particle against
    /// every obstacle at its placed position, friction included (`contact.rs`; obstacles in scene order,
    /// particles in index order), so every iteration ends with no particle inside an obstacle; a rigid
    /// obstacle takes the full correction, and XPBD's contact has zero compliance (the same correction).
    /// Returns the largest per-particle displacement of the step (m).
    ///
    /// An engine profile takes its own step (`engines/`).
    ///
    /// # Panics
    /// For a mass-spring model, which has no step (check [`ModelKind::has_projection`](crate::ModelKind)
    /// first; its dynamics are [`SpringBody::integrate`](crate::SpringBody)'s).
    pub fn step(&self, params: &SimParams, d: &mut Dynamics) -> f64 {
        match params.rule() {
            ModelRule::Projection(rule) => rule.step(self, params, d),
            ModelRule::Engine(rule) => rule.step(self, params, d),
            ModelRule::Springs(_) => panic!("PbdSystem::step needs a projection model or an engine profile"),
        }
    }

    /// The dynamics from rest for `steps` steps, shown to `frame(step, state)` at step 0, every `every`
    /// steps (at least 1) and at the last; the first error `frame` returns stops the run. Returns the
    /// final state. What `simulate --frames` writes.
    pub fn run_dynamics<E>(
        &self,
        params: &SimParams,
        steps: usize,
        every: usize,
        frame: impl FnMut(usize, &Dynamics) -> Result<(), E>,
    ) -> Result<Dynamics, E> {
        self.run_dynamics_from(params, None, steps, every, frame)
    }

    /// [`run_dynamics`](Self::run_dynamics) from the free particles displaced by `start` (m) at rest
    /// (zero velocity) where given ([`dynamics_from`](Self::dynamics_from)): a release from a deformed state.
    pub fn run_dynamics_from<E>(
        &self,
        params: &SimParams,
        start: Option<&[Vec3]>,
        steps: usize,
        every: usize,
        mut frame: impl FnMut(usize, &Dynamics) -> Result<(), E>,
    ) -> Result<Dynamics, E> {
        let every = every.max(1);
        let mut d = self.dynamics_from(start);
        for step in 0..=steps {
            if step > 0 {
                self.step(params, &mut d);
            }
            if step % every == 0 || step == steps {
                frame(step, &d)?;
            }
        }
        Ok(d)
    }
}

/// A stage that steps a body, chosen once per model by its family: the projection models' colour-order
/// sweep ([`ProjectionRule`], here) or an engine profile's own solve ([`EngineRule`], `engines/`). The
/// rest state, its probes and the sensitivity are generic over it, so neither family's code rules the
/// other out at run time; the mass-spring models have no step (their rest state is `SpringBody`'s).
pub(crate) trait Stage: Copy {
    /// The engine profile's rule (its divergence judged by growth, its Jacobi fixed points checked);
    /// `None` for the textbook sweep.
    fn engine(&self) -> Option<&EngineRule> {
        None
    }

    /// One time step (see [`PbdSystem::step`]); the largest per-particle displacement of the step (m).
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64;

    /// The rest-state map: one step from the free particles' displacements `x` at zero velocity, whose
    /// fixed points are the rest states. `x` and `out` hold 3 numbers per free particle.
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]);
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
            system.sweep(self, d);
            if contacts {
                system.project_contacts(d);
            }
        }
    }
}

impl Stage for ProjectionRule {
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64 {
        let dt = params.dt;
        let keep = 1.0 - params.damping;
        for &p in &system.free {
            d.v[p] = d.v[p] * keep + system.accelerations[p] * dt;
            d.predicted[p] = d.u[p] + d.v[p] * dt;
        }
        self.solve(system, params.nit, d);
        let mut largest: f64 = 0.0;
        for &p in &system.free {
            let step = d.predicted[p] - d.u[p];
            largest = largest.max(step.norm());
            d.v[p] = step / dt;
            d.u[p] = d.predicted[p];
        }
        largest
    }

    /// The rest-state map `G(u) = P(u + dt^2 a)` (`a`: gravity plus traction over mass): one step from `u` with zero velocity. Its fixed points
    /// are the rest states. `u` and the result hold the free particles' displacements, 3 numbers each.
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]) {
        let dt2 = params.dt * params.dt;
        for (i, &p) in system.free.iter().enumerate() {
            d.predicted[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]) + system.accelerations[p] * dt2;
        }
        if !system.contacts.is_empty() {
            // The step starts at `x` (the friction's tangential displacement is measured from it).
            for (i, &p) in system.free.iter().enumerate() {
                d.u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
            }
        }
        self.solve(system, params.nit, d);
        for (i, &p) in system.free.iter().enumerate() {
            out[3 * i..3 * i + 3].copy_from_slice(d.predicted[p].as_slice());
        }
    }
}
