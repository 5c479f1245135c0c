//! A body prepared for PBD: constraints with rest data, the colour order, and the step.

use std::ops::Range;

use pbdfit_mesh::Body;

use crate::cloth::ClothBody;
use crate::contact::{Contact, ContactRecord};
use crate::engines::EngineRule;
use crate::projection::ProjectionBody;
use crate::{
    BodyKind, ColourGroups, ConstraintRef, DistanceConstraint, MAX_TETRAHEDRON_TERMS, ModelKind, ModelRule, PbdError,
    SimParams, Vec3, VolumeConstraint,
};
use pbdfit_mesh::{Sheet, SheetBody};

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
    /// List index of each constraint, in projection order (distances 0..nd, then volumes nd..).
    solve_order: Vec<usize>,
    /// The projection models' state of the body: the constraints the sweep projects (`projection.rs`).
    pub(crate) projection: ProjectionBody,
    /// The body as springs for the mass-spring models, built on first use (once per body, like the
    /// constraints: not once per rest state).
    springs: std::sync::OnceLock<crate::SpringBody>,
    /// The body in the engine profiles' terms, built on first use (`engines/`).
    pub(crate) engine: std::sync::OnceLock<crate::engines::EngineBody>,
    /// A sheet's edges, triangles, hinges and cloth constraints (`cloth/`); `None` for a solid.
    cloth: Option<Box<ClothBody>>,
    /// A sheet's follower pressures (`None`: none), a load of the current positions added to
    /// [`Self::accelerations`] in every step and rest map ([`Self::loads_at`]).
    pub(crate) follower: Option<Box<FollowerPressure>>,
    /// A sheet's wind (`None`: none), a load of the current positions and velocities added to
    /// [`Self::accelerations`] at every step's start and in every rest map, at zero velocity there
    /// ([`Self::loads_at`]).
    pub(crate) wind: Option<Box<WindLoad>>,
}

/// The wind on a sheet's triangles ([`pbdfit_mesh::TriangleWind`]: the quadratic drag of the air's
/// velocity relative to each triangle), with the triangles it acts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WindLoad {
    triangles: Vec<[usize; 3]>,
    wind: pbdfit_mesh::TriangleWind,
}

/// Follower pressures on a sheet's triangles: `p (x1 - x0) x (x2 - x0) / 6` (N) to each vertex of a
/// triangle at its current positions, `p` in Pa along the winding normal where positive.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FollowerPressure {
    triangles: Vec<[usize; 3]>,
    /// Pa per triangle.
    pressure: Vec<f64>,
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
    /// The loads' accelerations at the step's start where a follower pressure acts (m/s^2 per particle;
    /// empty otherwise, when the step reads [`PbdSystem::accelerations`]).
    pub(crate) loads: Vec<Vec3>,
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
        let projection = ProjectionBody::new(&distances, &volumes, &groups);
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
            projection,
            groups,
            solve_order: colours.solve_order(),
            springs: std::sync::OnceLock::new(),
            engine: std::sync::OnceLock::new(),
            cloth: None,
            follower: None,
            wind: None,
        }
    }

    /// A sheet scene's body for the cloth models: [`Self::sheet`] with the vertices a particle model holds
    /// ([`SheetBody::particle_held`]: every supported vertex, and each clamped edge's first cell, since a
    /// particle carries no rotation), so a cloth model built from a sheet body through the library holds its
    /// clamps as a fit's does; and the sheet's obstacles, which every free particle meets after each sweep
    /// as a solid's do (`contact.rs`: the unilateral constraint and positional friction).
    pub fn sheet_body(body: &SheetBody) -> Self {
        let mut system = Self::sheet(&body.scene, &body.sheet, &body.particle_held(), body.gravity);
        system.contacts = Contact::placed(&body.obstacles);
        system.obstacles = body.obstacles.clone();
        system.with_pressure(&body.pressure).with_wind(&body.wind)
    }

    /// A sheet in a wind ([`pbdfit_mesh::TriangleWind`]): its force at the current positions and
    /// velocities joins the loads at every step's start (explicitly, as the cloth models and the engine
    /// profiles take every load), and at the positions and zero velocity in a rest map. No wind: nothing
    /// changes. For a solid, or a wind of the wrong length, the body is returned as it is.
    pub fn with_wind(mut self, wind: &pbdfit_mesh::TriangleWind) -> Self {
        let Some(cloth) = self.cloth.as_deref() else { return self };
        let triangles: Vec<[usize; 3]> = cloth.triangles();
        if wind.is_none() || wind.normal.len() != triangles.len() {
            return self;
        }
        self.gravity_only = false;
        self.wind = Some(Box::new(WindLoad { triangles, wind: wind.clone() }));
        self
    }

    /// Whether a wind acts (its forces depend on the positions and velocities).
    pub fn has_wind(&self) -> bool {
        self.wind.is_some()
    }

    /// Whether a load depends on the state (a follower pressure or a wind), so a step or rest map
    /// evaluates the loads at its state ([`Self::loads_at`]) rather than reading [`Self::accelerations`].
    pub(crate) fn state_dependent_loads(&self) -> bool {
        self.follower.is_some() || self.wind.is_some()
    }

    /// A sheet with pressure loads (Pa per triangle, [`pbdfit_mesh::TrianglePressure`]): the dead part's
    /// nodal forces at the rest normals over each free particle's mass join its acceleration; the follower
    /// part is evaluated at the current positions in every step and rest map (the cloth models and the
    /// engine profiles; the mass-spring rest state, whose Newton has no load stiffness, refuses it). A
    /// pressure that is zero everywhere changes nothing. For a solid, or a pressure of the wrong length,
    /// the body is returned as it is.
    pub fn with_pressure(mut self, pressure: &pbdfit_mesh::TrianglePressure) -> Self {
        let Some(cloth) = self.cloth.as_deref() else { return self };
        let triangles: Vec<[usize; 3]> = cloth.triangles();
        if pressure.is_none() {
            return self;
        }
        let dead = pbdfit_mesh::TrianglePressure::nodal_forces(&triangles, &pressure.dead, &self.rest);
        for &p in &self.free {
            self.accelerations[p] += dead[p] * self.inverse_masses[p];
        }
        self.gravity_only = false;
        if pressure.follower.len() == triangles.len() && pressure.follower.iter().any(|&p| p != 0.0) {
            self.follower = Some(Box::new(FollowerPressure { triangles, pressure: pressure.follower.clone() }));
        }
        self
    }

    /// Every particle's displacement from the free particles' `x` (3 numbers each), the held ones at their
    /// prescribed displacements.
    pub(crate) fn displacements_of(&self, x: &[f64]) -> Vec<Vec3> {
        let mut u = self.prescribed.clone();
        for (i, &p) in self.free.iter().enumerate() {
            u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
        u
    }

    /// Whether a follower pressure acts (its forces depend on the positions).
    pub fn has_follower_pressure(&self) -> bool {
        self.follower.is_some()
    }

    /// The loads' accelerations (m/s^2 per particle) at displacements `u` (every particle's) and velocities
    /// `v` (every particle's; empty: at rest): with a follower pressure or a wind, [`Self::accelerations`]
    /// plus their nodal forces at `X + u` (and `v`) over each free particle's mass, written to `out`;
    /// without one, [`Self::accelerations`] itself.
    pub(crate) fn loads_at<'a>(&'a self, u: &[Vec3], v: &[Vec3], out: &'a mut Vec<Vec3>) -> &'a [Vec3] {
        if !self.state_dependent_loads() {
            return &self.accelerations;
        }
        let x: Vec<Vec3> = self.rest.iter().zip(u).map(|(x, u)| x + u).collect();
        out.clear();
        out.extend_from_slice(&self.accelerations);
        let mut add = |forces: Vec<Vec3>| {
            for ((a, f), w) in out.iter_mut().zip(&forces).zip(&self.inverse_masses) {
                *a += f * *w;
            }
        };
        if let Some(follower) = self.follower.as_deref() {
            add(pbdfit_mesh::TrianglePressure::nodal_forces(&follower.triangles, &follower.pressure, &x));
        }
        if let Some(wind) = self.wind.as_deref() {
            add(wind.wind.nodal_forces(&wind.triangles, &x, v));
        }
        out
    }

    /// A sheet body for the cloth models (`cloth/`): the sheet's vertices as particles with its lumped
    /// masses ([`Sheet::lumped_masses`]), `held[v]` vertices fixed in place (inverse mass 0), gravity
    /// (m/s^2) the only load; the unique edges, triangles and hinges with every cloth constraint's rest
    /// data. No distance or volume constraint of the solids: a solid model is refused on it
    /// ([`Self::check_body`]). `scene` names it in messages.
    ///
    /// # Panics
    /// When `held` does not have one flag per vertex.
    pub fn sheet(scene: &str, sheet: &Sheet, held: &[bool], gravity: Vec3) -> Self {
        let rest = sheet.mesh.vertices().to_vec();
        assert_eq!(held.len(), rest.len(), "one held flag per vertex");
        let masses = sheet.lumped_masses();
        let inverse_masses: Vec<f64> =
            masses.iter().zip(held).map(|(&m, &h)| if h || m <= 0.0 { 0.0 } else { 1.0 / m }).collect();
        let free: Vec<usize> = (0..rest.len()).filter(|&p| !held[p]).collect();
        let (mut lo, mut hi) = (rest[0], rest[0]);
        for p in &rest {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        let cloth = ClothBody::new(sheet.mesh.triangles(), &rest);
        let n = rest.len();
        Self {
            scene: scene.to_string(),
            obstacles: Vec::new(),
            contacts: Vec::new(),
            inverse_masses,
            free,
            gravity,
            accelerations: vec![gravity; n],
            prescribed: vec![Vec3::zeros(); n],
            gravity_only: true,
            total_mass: masses.iter().sum(),
            extent: (hi - lo).max(),
            rest,
            tets: Vec::new(),
            distances: Vec::new(),
            volumes: Vec::new(),
            groups: Vec::new(),
            solve_order: Vec::new(),
            projection: ProjectionBody::new(&[], &[], &[]),
            springs: std::sync::OnceLock::new(),
            engine: std::sync::OnceLock::new(),
            cloth: Some(Box::new(cloth)),
            follower: None,
            wind: None,
        }
    }

    /// The kind of body: a solid (tetrahedra) or a sheet (triangles, [`Self::sheet`]).
    pub fn body_kind(&self) -> BodyKind {
        if self.cloth.is_some() { BodyKind::Sheet } else { BodyKind::Solid }
    }

    /// A sheet's cloth constraints (`None` for a solid).
    pub fn cloth_body(&self) -> Option<&ClothBody> {
        self.cloth.as_deref()
    }

    /// Whether `model` simulates this kind of body: a cloth model needs a sheet, every other model a
    /// solid; the refusal names the model and both kinds.
    pub fn check_body(&self, model: ModelKind) -> Result<(), PbdError> {
        let body = self.body_kind();
        if model.body_kind() == body {
            if let Some(cloth) = self.cloth_body()
                && model.settings().iter().any(|&(name, v)| name == "volume" && v != 0.0)
            {
                cloth.check_closed().map_err(|source| PbdError::OpenSurface {
                    scene: self.scene.clone(),
                    model: model.name(),
                    source: Box::new(source),
                })?;
            }
            return Ok(());
        }
        Err(PbdError::BodyKind { scene: self.scene.clone(), model: model.name(), model_body: model.body_kind(), body })
    }

    /// The body as springs (edges with rest lengths, tetrahedra with rest volumes), built on first use
    /// and kept: every mass-spring rest state and sensitivity of this body shares it.
    pub fn spring_body(&self) -> &crate::SpringBody {
        self.springs.get_or_init(|| crate::SpringBody::new(self))
    }

    /// Sets the group size from which a colour group is projected on all threads (default 4096; the
    /// result is bit-identical either way). `usize::MAX` keeps everything on one thread.
    pub fn with_parallel_threshold(mut self, threshold: usize) -> Self {
        self.projection.parallel_threshold = threshold;
        self
    }

    /// Whether the serial sweep projects the volume constraints of a colour group two at a time in SIMD
    /// lanes (default on; about 1.5 times the volume projections per second). The result is
    /// bit-identical either way (see the tests in `lanes.rs`); off, every constraint is projected one at
    /// a time, the reference the lanes are checked against.
    pub fn with_volume_lanes(mut self, on: bool) -> Self {
        self.projection.use_volume_lanes = on;
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
            lambda_distance: vec![0.0; self.projection.hot_distances.len()],
            lambda_volume: vec![0.0; self.projection.hot_volumes.len()],
            lambda_tetrahedron: vec![[0.0; MAX_TETRAHEDRON_TERMS]; self.projection.hot_volumes.len()],
            delta_distance: Vec::new(),
            delta_volume: Vec::new(),
            lambda_engine: Vec::new(),
            delta_engine: Vec::new(),
            contact: if self.contacts.is_empty() {
                ContactRecord::default()
            } else {
                ContactRecord::new(self.contacts.len(), n)
            },
            loads: Vec::new(),
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
    pub(crate) fn project_contacts(&self, d: &mut Dynamics) {
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
            .map(|k| self.free.iter().fold(Vec3::zeros(), |sum, &p| sum + self.contact_push(dt, d, k * n + p)))
            .collect()
    }

    /// The force the obstacles together exerted on each particle during the last step of `d` (N, one per
    /// particle; zero at held particles and without obstacles), as [`Self::contact_forces`] takes it: what
    /// `simulate --frames` writes as `contact_force` for a body with obstacles.
    pub fn particle_contact_forces(&self, dt: f64, d: &Dynamics) -> Vec<Vec3> {
        let n = self.rest.len();
        let mut forces = vec![Vec3::zeros(); n];
        for k in 0..self.contacts.len() {
            for &p in &self.free {
                forces[p] += self.contact_push(dt, d, k * n + p);
            }
        }
        forces
    }

    /// One contact slot's correction over the last step as a force, `m dx / dt^2` (N).
    fn contact_push(&self, dt: f64, d: &Dynamics, slot: usize) -> Vec3 {
        let p = slot % self.rest.len();
        d.contact.push[slot] / (self.inverse_masses[p] * dt * dt)
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
    /// For a model of another kind of body ([`Self::check_body`]), and for a mass-spring model, which has no step (check [`ModelKind::has_projection`](crate::ModelKind)
    /// first; its dynamics are [`SpringBody::integrate`](crate::SpringBody)'s).
    pub fn step(&self, params: &SimParams, d: &mut Dynamics) -> f64 {
        if let Err(e) = self.check_body(params.model.kind()) {
            panic!("{e}");
        }
        match params.rule() {
            ModelRule::Projection(rule) => rule.step(self, params, d),
            ModelRule::Engine(rule) => rule.step(self, params, d),
            ModelRule::Cloth(rule) => rule.step(self, params, d),
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
/// sweep ([`ProjectionRule`](crate::ProjectionRule), `projection.rs`) or an engine profile's own solve ([`EngineRule`], `engines/`). The
/// rest state, its probes and the sensitivity are generic over it, so neither family's code rules the
/// other out at run time; the mass-spring models have no step (their rest state is `SpringBody`'s).
/// How a stage's rest map rounds ([`Stage::rounding`]): every map has a rounding, below which no solve
/// makes progress; what differs is whether it is known in advance or measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum MapRounding {
    /// The map computes in displacements (`u = x - X`, ARCHITECTURE.md), which keep their full relative
    /// precision: a root solve whose Newton steps stop making progress below this relative residual ends
    /// converged there (`newton_krylov.rs`'s `RootControls::round_off`), and the products' difference step
    /// is fixed (the square root of the machine epsilon).
    Relative(f64),
    /// The map computes in absolute positions (`rest + u`, as the reference library's cloth does), so it
    /// rounds at the positions' last places, amplified by its projections (2e2 to 5e4 units in the last
    /// place on the cloth models' stiff points): the rounding is measured at each Newton step's iterate
    /// (`newton_krylov::rounding`), sets the products' difference step, and a solve within
    /// `newton_krylov.rs`'s `ROUNDING` times it ends converged there; the relative floor
    /// [`ROUND_OFF`](crate::newton_krylov::ROUND_OFF) applies as well.
    Measured,
}

impl MapRounding {
    /// The relative residual below which a stalled root solve is at the map's rounding.
    pub(crate) fn floor(self) -> f64 {
        match self {
            MapRounding::Relative(floor) => floor,
            MapRounding::Measured => crate::newton_krylov::ROUND_OFF,
        }
    }
}

pub(crate) trait Stage: Copy {
    /// The engine profile's rule (its divergence judged by growth, its Jacobi fixed points checked);
    /// `None` for the textbook sweep.
    fn engine(&self) -> Option<&EngineRule> {
        None
    }

    /// Whether a run's divergence is judged by its growth ([`crate::rest_state`]'s `Growth`) rather than
    /// by the body's size, and the fixed point may look beyond the body: engine profiles, and cloth (a
    /// sheet held at a corner or an edge swings down by about its own size to rest).
    fn by_growth(&self) -> bool {
        self.engine().is_some()
    }

    /// Whether the fixed point is solved by Newton-Krylov first by default ([`crate::RootSolve::Auto`]).
    fn root_by_default(&self) -> bool {
        false
    }

    /// Map evaluations that smooth each line-search trial of the root solve (`newton_krylov.rs`'s
    /// `RootControls::smoothing`); 0: none.
    fn root_smoothing(&self) -> usize {
        0
    }

    /// How the rest map rounds, which the root solve takes for the map's own floor and the one-sided
    /// products (the root solve's and the sensitivity's) take their difference step from. The textbook
    /// solids and the engine profiles compute in displacements: [`MapRounding::Relative`] at
    /// [`ROUND_OFF`](crate::newton_krylov::ROUND_OFF).
    fn rounding(&self) -> MapRounding {
        MapRounding::Relative(crate::newton_krylov::ROUND_OFF)
    }

    /// The root solve's preconditioner at `params` (`newton_krylov.rs`'s
    /// [`Preconditioner`](crate::newton_krylov::Preconditioner)); `None`: its GMRES goes unpreconditioned
    /// (the textbook solids, and the engine profiles without a static tangent, `engines/tangent.rs`).
    fn preconditioner<'a>(
        &'a self,
        _system: &'a PbdSystem,
        _params: &SimParams,
    ) -> Option<Box<dyn crate::newton_krylov::Preconditioner + 'a>> {
        None
    }

    /// One time step (see [`PbdSystem::step`]); the largest per-particle displacement of the step (m).
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64;

    /// The rest-state map: one step from the free particles' displacements `x` at zero velocity, whose
    /// fixed points are the rest states. `x` and `out` hold 3 numbers per free particle.
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]);
}

/// One semi-implicit Euler step around a projection stage's sweeps (`solve`, which moves `d.predicted`):
/// `v = keep v + dt a`, `p = u + dt v`, the sweeps, `v = (p - u) / dt`, `u = p`; the largest per-particle
/// displacement of the step (m). The textbook projection and the cloth stages share it.
#[inline(always)]
pub(crate) fn projected_step(
    system: &PbdSystem,
    params: &SimParams,
    d: &mut Dynamics,
    solve: impl FnOnce(&mut Dynamics),
) -> f64 {
    let dt = params.dt;
    let keep = 1.0 - params.damping;
    let mut scratch = std::mem::take(&mut d.loads);
    let loads = system.loads_at(&d.u, &d.v, &mut scratch);
    for &p in &system.free {
        d.v[p] = d.v[p] * keep + loads[p] * dt;
        d.predicted[p] = d.u[p] + d.v[p] * dt;
    }
    d.loads = scratch;
    solve(d);
    let mut largest: f64 = 0.0;
    for &p in &system.free {
        let step = d.predicted[p] - d.u[p];
        largest = largest.max(step.norm());
        d.v[p] = step / dt;
        d.u[p] = d.predicted[p];
    }
    largest
}

/// The rest-state map of a projection stage, `G(u) = P(u + dt^2 a)` (`a`: gravity plus traction over
/// mass): one step from `x` at zero velocity, `solve` the sweeps. Its fixed points are the rest states;
/// `x` and `out` hold the free particles' displacements, 3 numbers each.
#[inline(always)]
pub(crate) fn projected_rest_map(
    system: &PbdSystem,
    params: &SimParams,
    d: &mut Dynamics,
    x: &[f64],
    out: &mut [f64],
    solve: impl FnOnce(&mut Dynamics),
) {
    let dt2 = params.dt * params.dt;
    let mut scratch = std::mem::take(&mut d.loads);
    let loads = if system.state_dependent_loads() {
        system.loads_at(&system.displacements_of(x), &[], &mut scratch)
    } else {
        &system.accelerations
    };
    for (i, &p) in system.free.iter().enumerate() {
        d.predicted[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]) + loads[p] * dt2;
    }
    d.loads = scratch;
    if !system.contacts.is_empty() {
        // The step starts at `x` (the friction's tangential displacement is measured from it).
        for (i, &p) in system.free.iter().enumerate() {
            d.u[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
    }
    solve(d);
    for (i, &p) in system.free.iter().enumerate() {
        out[3 * i..3 * i + 3].copy_from_slice(d.predicted[p].as_slice());
    }
}
