//! Cloth: sheet bodies (triangle meshes) and the constraints projected on them, one file each.
//!
//! A sheet enters the model seam as a body kind ([`BodyKind::Sheet`](crate::BodyKind)): a
//! [`PbdSystem`] built by [`PbdSystem::sheet`] carries a [`ClothBody`] (its unique edges, triangles and
//! hinges with each constraint kind's rest data) beside the particles, loads and contacts every body has,
//! and the cloth models' family ([`Fold::Cloth`](crate::Fold), [`ModelRule::Cloth`](crate::ModelRule))
//! folds parameters into a [`ClothRule`]: the list of constraint kinds it projects, each with its
//! constants ([`ClothTerm`]). The rule is a [`Stage`], so the rest state (fixed point of the step map,
//! stepping fallback, divergence probes) and the sensitivity are the solids' machinery unchanged. A cloth
//! model given a solid body, or a solid model given a sheet, is refused by
//! [`PbdSystem::check_body`] with [`PbdError::BodyKind`](crate::PbdError) naming the model.
//!
//! **Adding a cloth constraint** is one file in this folder (a unit type implementing
//! [`ClothConstraint`]: the particle sets it acts on ([`Support`]), its rest data, its constants and its
//! projection) plus one line in [`cloth_constraints!`] below, which generates [`ClothTerm`] and the
//! dispatch; a model uses it by naming it in its rule.
//!
//! **Order** (the reference library's, Jan Bender's PositionBasedDynamics 2.2.2, `SimulationModel`):
//! a rule's constraints are listed kind after kind in the rule's order, each kind over its support in
//! the body's order (edges: unique edges in first-met order over the triangles, each oriented as first
//! met; triangles: the mesh's order; hinges: the interior edges in edge order, as
//! `[p1, p2, e0, e1]` with `p1`, `p2` the first vertex of the edge's first and second triangle that is
//! not on the edge, as `SimulationModel::addBendingConstraints` builds them). A constraint the library
//! refuses at its creation (a degenerate rest shape by its own thresholds) is left out. The list is
//! coloured greedily in list order ([`ColourGroups`], the library's `initConstraintGroups`) and swept in
//! colour order with Gauss-Seidel updates, `nit` times per step; XPBD multipliers reset each step.
//!
//! **Arithmetic**: positions `x = X + u` (the constraints read absolute positions, as the library's
//! do: the isometric bending energy and the FEM triangle's rest frame are not translation invariant in
//! floating point). A sheet's rest deformation is of the order of its size (it hangs), so the
//! displacement form of the solids (which keeps the digits of deformations of 1e-5 of the size) buys
//! nothing here. Each file follows the library's formula operation for operation; the library's wheel
//! fuses multiply-adds, so the two agree to its own rounding floor (`benchmarks/cloth_against_library.py`).
//!
//! Units: m, kg, s. Each constraint's file states its constants' units.

mod dihedral;
mod distance;
mod distance_xpbd;
mod edge_springs;
mod fem_triangle;
mod isometric;
mod isometric_xpbd;
mod strain_triangle;
mod tangent;
mod volume;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::system::{MapRounding, Stage, projected_rest_map, projected_step};
use crate::{ColourGroups, Dynamics, PbdSystem, SimParams, Vec3};

pub use distance_xpbd::xpbd_alpha_tilde;
pub use fem_triangle::FemMaterial;
pub use strain_triangle::StrainStiffness;
pub(crate) use volume::SETTINGS as VOLUME_SETTINGS;
pub use volume::VolumeTerm;

/// The most constraint kinds one cloth rule projects (a membrane and a bending kind).
pub const MAX_CLOTH_TERMS: usize = 2;

/// The particle sets a cloth constraint acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Support {
    /// The sheet's unique edges (2 particles).
    Edges,
    /// The sheet's triangles (3 particles).
    Triangles,
    /// The hinges: two triangles sharing an interior edge, `[p1, p2, e0, e1]` (4 particles).
    Hinges,
}

impl Support {
    /// Particles per set.
    pub fn arity(self) -> usize {
        match self {
            Support::Edges => 2,
            Support::Triangles => 3,
            Support::Hinges => 4,
        }
    }
}

/// What a constraint's rest data may depend on besides its particles' rest positions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RestContext {
    /// Whether the whole sheet lies in a plane `y = const` (the library's cloth plane: its strain
    /// triangle takes its rest coordinates as `(x, z)`).
    pub xz_plane: bool,
}

/// One cloth constraint kind: what the registry lists.
pub(crate) trait ClothConstraint {
    /// The particle sets it acts on.
    const SUPPORT: Support;
    /// What it keeps of the rest configuration.
    type Rest: Copy + std::fmt::Debug + Send + Sync;
    /// Its constants at one parameter point.
    type Constants: Copy + std::fmt::Debug + PartialEq;
    /// The rest data from its particles' rest positions (the first `SUPPORT.arity()` of `x`); `None`
    /// where the library refuses to create the constraint.
    fn rest(x: &[Vec3; 4], context: RestContext) -> Option<Self::Rest>;
    /// The corrections of its particles at the positions `x` with inverse masses `w` (the multiplier
    /// `lambda` for XPBD kinds); false where the library applies none.
    fn project(
        rest: &Self::Rest,
        k: &Self::Constants,
        x: &[Vec3; 4],
        w: &[f64; 4],
        dt: f64,
        lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool;

    /// Whether the kind gives its static stiffness ([`stiffness`](Self::stiffness)); a rule with a kind
    /// that does not has no static tangent (`tangent.rs`), and its root solve goes unpreconditioned.
    const TANGENT: bool = false;

    /// The static stiffness of one constraint at the positions `x` (inverse masses `w`, `nit` sweeps a
    /// step): 3 x 3 blocks over its particles of the Hessian of `C^2 / (2 alpha~)`, the energy whose
    /// minimisation with the inertia term `|y - x~|_M^2 / 2` its sweeps approach as `nit` grows (kg; an
    /// XPBD kind's own `alpha~`, a PBD kind's the compliance of the same fixed point, `tangent.rs`'s
    /// `pbd_compliance`). Positive semidefinite: a geometric term that would make it indefinite (an edge in
    /// compression) is left out. `None`: the constraint adds nothing here (both particles held, a degenerate
    /// shape).
    fn stiffness(
        _rest: &Self::Rest,
        _k: &Self::Constants,
        _x: &[Vec3; 4],
        _w: &[f64; 4],
        _nit: usize,
    ) -> Option<Blocks> {
        None
    }
}

/// A constraint's 3 x 3 stiffness blocks over its (up to four) particles, row particle first (kg).
pub(crate) use crate::static_tangent::Blocks;

/// The registry: each entry (its doc, then `file::Type => Constants`) declares a variant of [`ClothTerm`] carrying
/// the kind's constants, its rest data on every body and its dispatch.
macro_rules! cloth_constraints {
    ($($(#[$doc:meta])* $file:ident::$ty:ident => $k:ty),+ $(,)?) => {
        /// A cloth constraint kind with its constants at one parameter point (what a [`ClothRule`] lists).
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum ClothTerm {
            $($(#[$doc])* $ty($k),)+
        }

        /// Every kind's rest data on one body, per set of its support (`None`: not created).
        #[derive(Debug, Clone)]
        struct RestData {
            $($file: Vec<Option<<$file::$ty as ClothConstraint>::Rest>>,)+
        }

        impl RestData {
            fn new(sets: &Sets, rest: &[Vec3], context: RestContext) -> Self {
                RestData {
                    $($file: sets
                        .of(<$file::$ty as ClothConstraint>::SUPPORT)
                        .iter()
                        .map(|set| <$file::$ty as ClothConstraint>::rest(&points(rest, set), context))
                        .collect(),)+
                }
            }
        }

        impl ClothTerm {
            /// The kind's name (its file's).
            pub fn name(&self) -> &'static str {
                match self {
                    $(ClothTerm::$ty(_) => stringify!($file),)+
                }
            }

            /// The particle sets it acts on.
            pub fn support(&self) -> Support {
                match self {
                    $(ClothTerm::$ty(_) => <$file::$ty as ClothConstraint>::SUPPORT,)+
                }
            }

            /// Whether the kind gives its static stiffness ([`ClothConstraint::TANGENT`]).
            fn has_tangent(&self) -> bool {
                match self {
                    $(ClothTerm::$ty(_) => <$file::$ty as ClothConstraint>::TANGENT,)+
                }
            }

            /// The static stiffness of set `i` ([`ClothConstraint::stiffness`]).
            fn stiffness(&self, data: &RestData, i: usize, x: &[Vec3; 4], w: &[f64; 4], nit: usize) -> Option<Blocks> {
                match self {
                    $(ClothTerm::$ty(k) => data.$file[i]
                        .as_ref()
                        .and_then(|rest| <$file::$ty as ClothConstraint>::stiffness(rest, k, x, w, nit)),)+
                }
            }

            /// Whether the set `i` of its support has this constraint.
            fn present(&self, data: &RestData, i: usize) -> bool {
                match self {
                    $(ClothTerm::$ty(_) => data.$file[i].is_some(),)+
                }
            }

            /// The corrections of set `i` (scheduled only where [`Self::present`]).
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn project(
                &self,
                data: &RestData,
                i: usize,
                x: &[Vec3; 4],
                w: &[f64; 4],
                dt: f64,
                lambda: &mut f64,
                corr: &mut [Vec3; 4],
            ) -> bool {
                match self {
                    $(ClothTerm::$ty(k) => match &data.$file[i] {
                        Some(rest) => <$file::$ty as ClothConstraint>::project(rest, k, x, w, dt, lambda, corr),
                        None => false,
                    },)+
                }
            }
        }
    };
}

cloth_constraints! {
    /// PBD distance on an edge (`distance.rs`): the stiffness in [0, 1].
    distance::Distance => f64,
    /// XPBD distance on an edge (`distance_xpbd.rs`): the compliance over dt^2.
    distance_xpbd::DistanceXpbd => f64,
    /// XPBD spring potential on an edge (`edge_springs.rs`: Hookean, StVK, Morse).
    edge_springs::EdgeSpring => (crate::SpringPotential, f64),
    /// PBD dihedral-angle bending on a hinge (`dihedral.rs`, Mueller et al. 2007).
    dihedral::Dihedral => f64,
    /// PBD isometric bending on a hinge (`isometric.rs`, Bergou et al. 2006).
    isometric::Isometric => f64,
    /// XPBD isometric bending on a hinge (`isometric_xpbd.rs`).
    isometric_xpbd::IsometricXpbd => f64,
    /// The library's FEM triangle (`fem_triangle.rs`, orthotropic St. Venant-Kirchhoff energy).
    fem_triangle::FemTriangle => FemMaterial,
    /// The library's strain triangle (`strain_triangle.rs`, Mueller et al. 2014).
    strain_triangle::StrainTriangle => StrainStiffness,
}

/// The rest positions of a set (unused slots at the origin).
fn points(rest: &[Vec3], set: &[u32; 4]) -> [Vec3; 4] {
    let mut x = [Vec3::zeros(); 4];
    for (k, &p) in set.iter().enumerate() {
        if p != u32::MAX {
            x[k] = rest[p as usize];
        }
    }
    x
}

/// A sheet's particle sets: unique edges, triangles and hinges (unused slots `u32::MAX`).
#[derive(Debug, Clone)]
struct Sets {
    edges: Vec<[u32; 4]>,
    triangles: Vec<[u32; 4]>,
    hinges: Vec<[u32; 4]>,
}

impl Sets {
    fn new(triangles: &[[usize; 3]]) -> Self {
        let none = u32::MAX;
        let mut index: HashMap<[usize; 2], usize> = HashMap::new();
        let mut edges: Vec<[u32; 4]> = Vec::new();
        // The triangles of each edge, in triangle order.
        let mut faces: Vec<Vec<usize>> = Vec::new();
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let e = *index.entry([a.min(b), a.max(b)]).or_insert_with(|| {
                    edges.push([a as u32, b as u32, none, none]);
                    faces.push(Vec::new());
                    edges.len() - 1
                });
                faces[e].push(t);
            }
        }
        let off = |t: usize, e: &[u32; 4]| {
            triangles[t].iter().copied().find(|&v| v as u32 != e[0] && v as u32 != e[1]).map(|v| v as u32)
        };
        let hinges = edges
            .iter()
            .zip(&faces)
            .filter(|(_, f)| f.len() == 2)
            .filter_map(|(e, f)| Some([off(f[0], e)?, off(f[1], e)?, e[0], e[1]]))
            .collect();
        let triangles = triangles.iter().map(|t| [t[0] as u32, t[1] as u32, t[2] as u32, none]).collect();
        Sets { edges, triangles, hinges }
    }

    fn of(&self, support: Support) -> &[[u32; 4]] {
        match support {
            Support::Edges => &self.edges,
            Support::Triangles => &self.triangles,
            Support::Hinges => &self.hinges,
        }
    }
}

/// One scheduled constraint: the rule's term and the set of its support.
#[derive(Debug, Clone, Copy)]
struct Scheduled {
    term: u8,
    set: u32,
}

/// A rule's constraints in projection (colour) order, and the number of colour groups.
#[derive(Debug)]
struct Schedule {
    order: Vec<Scheduled>,
    /// The same order as indices into [`ClothBody::constraint_list`].
    list_order: Vec<usize>,
    groups: usize,
}

/// A sheet in the cloth models' terms: its particle sets, every constraint kind's rest data, and the
/// projection order of each combination of kinds a rule has asked for (built on first use).
#[derive(Debug)]
pub struct ClothBody {
    sets: Sets,
    data: RestData,
    /// The triangles (for the volume constraint) and the volume they enclose at rest (m^3; meaningful
    /// where the surface is closed).
    triangles: Vec<[usize; 3]>,
    rest_volume: f64,
    schedules: Mutex<HashMap<Vec<std::mem::Discriminant<ClothTerm>>, Arc<Schedule>>>,
}

impl Clone for ClothBody {
    fn clone(&self) -> Self {
        ClothBody {
            sets: self.sets.clone(),
            data: self.data.clone(),
            triangles: self.triangles.clone(),
            rest_volume: self.rest_volume,
            schedules: Mutex::new(self.schedules.lock().expect("schedule cache").clone()),
        }
    }
}

impl ClothBody {
    /// The sets and rest data of a sheet with these triangles and rest positions (m).
    pub(crate) fn new(triangles: &[[usize; 3]], rest: &[Vec3]) -> Self {
        let sets = Sets::new(triangles);
        let y0 = rest[0].y;
        let context = RestContext { xz_plane: rest.iter().all(|p| p.y == y0) };
        let data = RestData::new(&sets, rest, context);
        let rest_volume = pbdfit_mesh::sheet::enclosed_volume(rest, triangles);
        ClothBody { sets, data, triangles: triangles.to_vec(), rest_volume, schedules: Mutex::new(HashMap::new()) }
    }

    /// Whether the sheet's surface is closed (every edge on two triangles), as the volume constraint
    /// needs; the first open edge otherwise.
    pub fn check_closed(&self) -> Result<(), pbdfit_mesh::SheetError> {
        pbdfit_mesh::sheet::check_closed(&self.triangles)
    }

    /// The volume the sheet's triangles enclose at rest (m^3; for a closed surface wound outward).
    pub fn rest_volume(&self) -> f64 {
        self.rest_volume
    }

    /// The sheet's triangles (vertex indices), in the mesh's order.
    pub fn triangles(&self) -> Vec<[usize; 3]> {
        self.sets.triangles.iter().map(|t| [t[0] as usize, t[1] as usize, t[2] as usize]).collect()
    }

    /// Number of unique edges.
    pub fn edge_count(&self) -> usize {
        self.sets.edges.len()
    }

    /// Number of hinges (interior edges).
    pub fn hinge_count(&self) -> usize {
        self.sets.hinges.len()
    }

    /// The constraints `terms` project, in list order (the library's creation order): each as its
    /// kind's name and its particles.
    pub fn constraint_list(&self, terms: &[Option<ClothTerm>]) -> Vec<(&'static str, Vec<usize>)> {
        let mut list = Vec::new();
        for term in terms.iter().flatten() {
            let support = term.support();
            for (i, set) in self.sets.of(support).iter().enumerate() {
                if term.present(&self.data, i) {
                    list.push((term.name(), set[..support.arity()].iter().map(|&p| p as usize).collect()));
                }
            }
        }
        list
    }

    /// The projection order of `terms` (cached per combination of kinds).
    fn schedule(&self, terms: &[Option<ClothTerm>; MAX_CLOTH_TERMS], particles: usize) -> Arc<Schedule> {
        let key: Vec<_> = terms.iter().flatten().map(std::mem::discriminant).collect();
        let mut cache = self.schedules.lock().expect("schedule cache");
        cache
            .entry(key)
            .or_insert_with(|| {
                let mut list = Vec::new();
                let mut touched = Vec::new();
                for (t, term) in terms.iter().enumerate() {
                    let Some(term) = term else { continue };
                    let support = term.support();
                    for (i, set) in self.sets.of(support).iter().enumerate() {
                        if term.present(&self.data, i) {
                            list.push(Scheduled { term: t as u8, set: i as u32 });
                            touched.push(set[..support.arity()].iter().map(|&p| p as usize).collect());
                        }
                    }
                }
                let colours = ColourGroups::greedy(&touched, particles);
                let list_order = colours.solve_order();
                let order = list_order.iter().map(|&c| list[c]).collect();
                Arc::new(Schedule { order, list_order, groups: colours.groups().len() })
            })
            .clone()
    }

    /// The order `terms`' constraints are projected in, as indices into
    /// [`constraint_list`](Self::constraint_list) (colour group after colour group).
    pub fn solve_order(&self, terms: &[Option<ClothTerm>; MAX_CLOTH_TERMS], particles: usize) -> Vec<usize> {
        self.schedule(terms, particles).list_order.clone()
    }

    /// Number of colour groups of `terms`' constraints.
    pub fn group_count(&self, terms: &[Option<ClothTerm>; MAX_CLOTH_TERMS], particles: usize) -> usize {
        self.schedule(terms, particles).groups
    }
}

/// A cloth model's step at one parameter point: the constraint kinds it projects, in list order, each
/// with its constants. What [`ModelRule::Cloth`](crate::ModelRule) carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClothRule {
    /// The kinds (a membrane kind, then a bending kind; `None`: unused slot).
    pub terms: [Option<ClothTerm>; MAX_CLOTH_TERMS],
    /// The global volume constraint of a closed sheet (`volume.rs`), projected after each sweep.
    pub volume: Option<VolumeTerm>,
}

impl ClothRule {
    /// `nit` Gauss-Seidel sweeps over the rule's constraints in colour order on `d.predicted`, each
    /// followed by the contact projections; multipliers reset first.
    fn solve(&self, system: &PbdSystem, dt: f64, nit: usize, d: &mut Dynamics) {
        let body = system.cloth_body().expect("a cloth rule steps a sheet body (PbdSystem::check_body)");
        let schedule = body.schedule(&self.terms, system.rest.len());
        d.lambda_engine.clear();
        d.lambda_engine.resize(schedule.order.len(), 0.0);
        let contacts = !system.contacts.is_empty();
        if contacts {
            d.contact.clear();
        }
        let w_all = &system.inverse_masses;
        let (mut volume_lambda, mut grad) = (0.0, Vec::new());
        for _ in 0..nit {
            for (c, lambda) in schedule.order.iter().zip(d.lambda_engine.iter_mut()) {
                let Some(term) = &self.terms[c.term as usize] else { continue };
                let support = term.support();
                let set = &body.sets.of(support)[c.set as usize];
                let arity = support.arity();
                let mut x = [Vec3::zeros(); 4];
                let mut w = [0.0; 4];
                for k in 0..arity {
                    let p = set[k] as usize;
                    x[k] = system.rest[p] + d.predicted[p];
                    w[k] = w_all[p];
                }
                let mut corr = [Vec3::zeros(); 4];
                if term.project(&body.data, c.set as usize, &x, &w, dt, lambda, &mut corr) {
                    for k in 0..arity {
                        if w[k] != 0.0 {
                            d.predicted[set[k] as usize] += corr[k];
                        }
                    }
                }
            }
            if let Some(volume) = &self.volume {
                volume.project(
                    &body.triangles,
                    body.rest_volume,
                    &system.rest,
                    &mut d.predicted,
                    w_all,
                    &mut volume_lambda,
                    &mut grad,
                );
            }
            if contacts {
                system.project_contacts(d);
            }
        }
    }
}

impl Stage for ClothRule {
    /// A sheet's rest state lies about its own size away (it swings down from a held corner or edge):
    /// judged by growth, as the engine profiles' are.
    fn by_growth(&self) -> bool {
        true
    }

    /// A sheet swings slowly to rest: Newton-Krylov solves its fixed point in a few dozen map evaluations.
    fn root_by_default(&self) -> bool {
        true
    }

    /// The sweeps project positions `rest + predicted`, as the reference library does ([`Self::solve`]):
    /// their rounding is measured.
    fn rounding(&self) -> MapRounding {
        MapRounding::Measured
    }

    /// The static tangent of the rule's constraints (`tangent.rs`), where each of its kinds has one.
    fn preconditioner<'a>(
        &'a self,
        system: &'a PbdSystem,
        params: &SimParams,
    ) -> Option<Box<dyn crate::newton_krylov::Preconditioner + 'a>> {
        if self.volume.is_some() {
            return None;
        }
        tangent::StaticTangent::new(self, system, params.nit).map(|t| Box::new(t) as _)
    }

    /// Semi-implicit Euler (`v += dt a`, `p = u + dt v`), the sweeps, `v = (p - u) / dt`: the library's
    /// `TimeStepController::step` with one substep.
    fn step(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics) -> f64 {
        projected_step(system, params, d, |d| self.solve(system, params.dt, params.nit, d))
    }

    /// One step from `x` at zero velocity (the solids' rest map, `G(u) = P(u + dt^2 a)`).
    fn rest_map(&self, system: &PbdSystem, params: &SimParams, d: &mut Dynamics, x: &[f64], out: &mut [f64]) {
        projected_rest_map(system, params, d, x, out, |d| self.solve(system, params.dt, params.nit, d))
    }
}
