//! Closed-form mappings from (E, nu) to PBD / XPBD parameters: the formulas engines and papers apply
//! today, with no error given. They are baselines: `pbdfit baseline --mapping NAME`
//! prints their parameters, and `fits/tables/mappings.py` simulates them beside the table lookup and a
//! direct fit.
//!
//! Every mapping is one file in `mapping/` with one line in `mappings!` (which makes [`MAPPINGS`]): a
//! name, the model it gives parameters for, a description, its source, the units of its values (its
//! model's, checked), and a function of the material (E, nu), the setting (dt, nit) and the body's
//! [`Geometry`] (rest volumes, edge lengths, masses of the scene's mesh at N). pbdfit's models have **one**
//! `alpha_d` (or `kd`) for all edges and one `alpha_v` (or `kv`) for all tetrahedra, so a per-edge or
//! per-tetrahedron formula is reduced to one value by a mean over the body, stated per mapping.
//!
//! `xpbd-strain-lame` is the exception: the `xpbd-strain` model's constraints are per tetrahedron and
//! carry the rest volume themselves, so its compliances are the moduli's inverses, with no mean over the
//! body (see its function).
//!
//! Units and conventions of the constraints these mappings feed (crate `pbdfit-pbd`, `models/xpbd.rs`):
//! the distance constraint is `C = l - l0` (m) and the volume constraint `C = V - V0` (m^3); the XPBD
//! energy of a constraint is `C^2 / (2 alpha)`, so `alpha_d` is in m/N and `alpha_v` in m^6/J.
//!
//! **Energy matching of the volume term.** A uniform volume change `dV` of a tetrahedron of rest volume
//! `V0` in a linear material of bulk modulus `K` stores `(K / 2) (dV / V0)^2 V0 = K (V - V0)^2 / (2 V0)`.
//! The constraint stores `(V - V0)^2 / (2 alpha_v)`; equal for every `V` when `alpha_v = V0 / K`. The same
//! matching of an energy `(lambda / 2) (J - 1)^2 V0` with `J = det F = V / V0` (Macklin and Mueller's
//! hydrostatic term) gives `alpha_v = V0 / lambda`: with `J - 1 = (V - V0) / V0` their per-tetrahedron
//! compliance `1 / (lambda V0)` of `C_H = J - 1` becomes `V0^2 / (lambda V0) = V0 / lambda` for
//! `C = V - V0`.
//!
//! **PBD from XPBD.** For one constraint alone, with summed inverse mass `s = sum_i w_i |grad_i C|^2`,
//! XPBD's first iteration in a step moves the constraint by the fraction `F = s / (s + alpha / dt^2)` of
//! its violation (`d_lambda = -C / (s + alpha~)`, `dC = s d_lambda`), and later iterations of the step
//! leave it there (the multiplier already satisfies `C + alpha~ lambda = 0`). PBD with stiffness `k`
//! removes `k` of the violation per iteration, `1 - (1 - k)^nit` after `nit` iterations. Equal when
//! `k = 1 - (1 - F)^(1 / nit)`: the iteration-count correction of Mueller et al. 2007 ("Position based
//! dynamics", J. Vis. Commun. Image R. 18, section 3.3: `k' = 1 - (1 - k)^(1 / n_s)`) applied to XPBD's
//! per-step fraction. This ignores the coupling between constraints (each is treated alone), which is
//! exactly the approximation a user makes. `s` is the body's mean over its constraints with the free
//! body's inverse masses (held vertices not zeroed: a user computes it from the mesh's masses, and the
//! parts of a compound scene, which hold different faces, then get the same values).
//!
//! **Sheets.** The sheet mappings (`cloth-*`, `jolt-cloth-*` and the engines' `newton-cloth-usd`,
//! `mujoco-flex-young`, `genesis-cloth-defaults`) read a sheet's body instead ([`map_sheet`],
//! [`Geometry::of_sheet`], its [`SheetMeasures`]: the thickness `h`, the triangles' areas around each edge
//! and hinge, the inverse masses); a solid's mapping refuses a sheet and a sheet's mapping a solid,
//! naming both ([`MappingError::WrongBody`]). From `(E, nu, h)` they use the plate's bending stiffness
//! `D = E h^3 / (12 (1 - nu^2))` (J, [`MappingQuery::bending_stiffness`]) and the membrane's `E h` (N/m).
//!
//! One caveat of the `pbd` model (the reference library's, `models/pbd.rs`): its volume projection uses
//! the gradient `6 dV/dp`, so one projection with stiffness `kv` removes `kv / 6` of a tetrahedron's volume
//! error, not `kv`. The PBD mappings below set `kv = k` anyway, as a user of that library does (its
//! stiffness is documented as the fraction removed); they are therefore six times softer in volume than
//! the XPBD mapping they come from. This is a property of the baseline, measured as such.

use std::collections::BTreeMap;

use pbdfit_mesh::{Body, SceneError, SceneSet, SheetBody, SheetScene, Vec3};
use pbdfit_pbd::{BodyKind, ModelKind};
use serde::Serialize;

/// Why a mapping could not be evaluated. Every case but [`WrongCount`](Self::WrongCount) (a registered
/// mapping's own defect) is the user's input: [`is_input`](Self::is_input), exit code 2 on the command line.
#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    /// No mapping has this name.
    #[error("unknown mapping `{name}`; the mappings are: {known}")]
    Unknown {
        /// The name given.
        name: String,
        /// The registered names, comma-separated.
        known: String,
    },
    /// A material or setting is outside what the mappings accept.
    #[error("--{parameter} {value}: {message}")]
    Query {
        /// The parameter (`young`, `poisson`, `dt`, `nit`, `n`).
        parameter: &'static str,
        /// Its value as given.
        value: String,
        /// What is allowed.
        message: String,
    },
    /// The mapping's formula has no finite, non-negative value for this material.
    #[error("mapping {mapping}: {message}")]
    Undefined {
        /// The mapping.
        mapping: &'static str,
        /// Why, and what would be defined.
        message: String,
    },
    /// The formula gives no finite number for these inputs: an intermediate over- or underflows f64 (a
    /// compliance `1 / E` at E = 5e-324 Pa, `alpha / dt^2` at dt = 1e-300 s).
    #[error(
        "mapping {mapping}: {parameter} = {value} is not a finite number at E = {young:e} Pa, nu = {poisson}, \
         dt = {dt:e} s, nit = {nit}: the formula over- or underflows f64 here ({cause}); give E and dt within \
         a physical range"
    )]
    NotFinite {
        /// The mapping.
        mapping: &'static str,
        /// The parameter whose value is not finite.
        parameter: &'static str,
        /// Its value (NaN or infinite).
        value: f64,
        /// Young's modulus asked for, Pa.
        young: f64,
        /// Poisson ratio asked for.
        poisson: f64,
        /// Time step asked for, s.
        dt: f64,
        /// Iterations asked for.
        nit: usize,
        /// Which input is extreme.
        cause: &'static str,
    },
    /// The scene could not be built at this N.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The mapping's model simulates another kind of body than the scene's: a solid's mapping given a
    /// sheet, or a sheet's given a solid.
    #[error(
        "mapping {mapping} gives model {model}'s parameters, and {model} simulates {model_body}, while scene {scene} is \
         {scene_body}: choose a mapping whose model takes this scene's body (`pbdfit mapping --mapping list` names \
         each mapping's model)"
    )]
    WrongBody {
        /// The mapping.
        mapping: &'static str,
        /// Its model.
        model: String,
        /// What its model simulates.
        model_body: BodyKind,
        /// The scene given.
        scene: String,
        /// What the scene is.
        scene_body: BodyKind,
    },
    /// A registered mapping gave another number of values than its model has parameters (a defect of the
    /// mapping, not of the input: pairing them would drop or invent parameters silently).
    #[error("mapping {mapping} gave {got} values for model {model}'s {expected} parameters (a defect of the mapping)")]
    WrongCount {
        /// The mapping.
        mapping: &'static str,
        /// Its model.
        model: String,
        /// Values it gave.
        got: usize,
        /// The model's parameters.
        expected: usize,
    },
    /// A registered mapping declares other units than its model's parameters have (a defect of the
    /// mapping).
    #[error(
        "mapping {mapping} gives values in {declared} where model {model}'s parameters are in {expected} (a defect of the mapping)"
    )]
    WrongUnits {
        /// The mapping.
        mapping: &'static str,
        /// Its model.
        model: String,
        /// The units it declares.
        declared: String,
        /// The model's.
        expected: String,
    },
}

impl MappingError {
    /// Whether the user's input explains the failure. Every variant is named (no wildcard), so a new one
    /// must be classified where it is added.
    pub fn is_input(&self) -> bool {
        match self {
            MappingError::Unknown { .. }
            | MappingError::Query { .. }
            | MappingError::Undefined { .. }
            | MappingError::NotFinite { .. }
            | MappingError::Scene(_)
            | MappingError::WrongBody { .. } => true,
            MappingError::WrongCount { .. } | MappingError::WrongUnits { .. } => false,
        }
    }
}

/// The material and setting a mapping is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MappingQuery {
    /// Young's modulus in Pa (finite, > 0).
    pub young: f64,
    /// Poisson ratio, -1 < nu <= 0.5 (0.5 is allowed here: the bulk modulus is infinite and the volume
    /// compliance 0).
    pub poisson: f64,
    /// Time step in s (finite, > 0); only the PBD mappings use it.
    pub dt: f64,
    /// Solver iterations per step (>= 1); only the PBD mappings use it.
    pub nit: usize,
    /// Mesh resolution N (>= 1).
    pub n: usize,
}

impl MappingQuery {
    /// Checks the material and setting; `Err` names the parameter and what is allowed.
    pub fn check(&self) -> Result<(), MappingError> {
        let bad = |parameter, value: String, message: &str| {
            Err(MappingError::Query { parameter, value, message: message.to_string() })
        };
        if !(self.young.is_finite() && self.young > 0.0) {
            return bad("young", self.young.to_string(), "Young's modulus must be a finite number > 0 (Pa)");
        }
        if !(self.poisson > -1.0 && self.poisson <= 0.5) {
            return bad("poisson", self.poisson.to_string(), "the Poisson ratio must lie in (-1, 0.5]");
        }
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return bad("dt", self.dt.to_string(), "the time step must be a finite number > 0 (s)");
        }
        if self.nit == 0 {
            return bad("nit", "0".into(), "at least one solver iteration per step");
        }
        if self.n == 0 {
            return bad("n", "0".into(), "the mesh resolution must be >= 1");
        }
        Ok(())
    }

    /// Bulk modulus `K = E / (3 (1 - 2 nu))` in Pa; infinite at nu = 0.5.
    pub fn bulk_modulus(&self) -> f64 {
        let d = 3.0 * (1.0 - 2.0 * self.poisson);
        if d == 0.0 { f64::INFINITY } else { self.young / d }
    }

    /// First Lame parameter `lambda = E nu / ((1 + nu) (1 - 2 nu))` in Pa; infinite at nu = 0.5, zero at
    /// nu = 0, negative below.
    pub fn lame_lambda(&self) -> f64 {
        let d = (1.0 + self.poisson) * (1.0 - 2.0 * self.poisson);
        if d == 0.0 { f64::INFINITY } else { self.young * self.poisson / d }
    }

    /// Shear modulus `mu = E / (2 (1 + nu))` in Pa.
    pub fn shear_modulus(&self) -> f64 {
        self.young / (2.0 * (1.0 + self.poisson))
    }

    /// A plate's bending stiffness `D = E h^3 / (12 (1 - nu^2))` in J (N m) for thickness `h` in m
    /// (Timoshenko and Woinowsky-Krieger, "Theory of plates and shells", 1959, eq. 3): the moment per
    /// unit width (N m / m) per unit curvature (1/m).
    pub fn bending_stiffness(&self, thickness: f64) -> f64 {
        self.young * thickness.powi(3) / (12.0 * (1.0 - self.poisson * self.poisson))
    }
}

/// What the mappings read from the body: its mesh and masses (not the held set, not the load).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Geometry {
    /// Number of tetrahedra.
    pub tets: usize,
    /// Number of unique edges (the distance constraints).
    pub edges: usize,
    /// Mean rest tetrahedron volume in m^3.
    pub mean_tet_volume: f64,
    /// Mean rest edge length in m.
    pub mean_edge_length: f64,
    /// Van Gelder's per-edge compliance times E, `|e|^2 / sum_{t ∋ e} V_t` in 1/m, averaged over the
    /// edges: `alpha_d = van_gelder_compliance_times_young / E`.
    pub van_gelder_compliance_times_young: f64,
    /// Mean over the edges of `w1 + w2` (the distance constraint's `sum w |grad C|^2`, |grad C| = 1), in
    /// 1/kg, with the free body's inverse masses.
    pub mean_distance_inverse_mass: f64,
    /// Mean over the tetrahedra of `sum_i w_i |grad_i V|^2` in m^4/kg (the volume constraint `C = V - V0`),
    /// with the free body's inverse masses.
    pub mean_volume_inverse_mass: f64,
    /// A sheet's measures ([`Geometry::of_sheet`]); absent for a solid. For a sheet the tetrahedra's
    /// fields above are 0 (it has none) and `edges`, `mean_edge_length` and `mean_distance_inverse_mass`
    /// are the sheet's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<SheetMeasures>,
}

/// What the sheet mappings read from a sheet's body: its thickness and the triangles around each edge
/// and hinge (a hinge: two triangles sharing an interior edge).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SheetMeasures {
    /// The sheet's thickness `h` in m.
    pub thickness: f64,
    /// Number of triangles.
    pub triangles: usize,
    /// Number of hinges (interior edges).
    pub hinges: usize,
    /// Mean triangle area in m^2.
    pub mean_triangle_area: f64,
    /// Van Gelder's membrane spring compliance times `E h`: the mean over the edges of
    /// `|e|^2 / sum_{t ∋ e} A_t` (dimensionless), so the mean edge compliance is this over `E h` (m/N).
    pub membrane_compliance_times_young_thickness: f64,
    /// The discrete-shells hinge compliance times `D`: the mean over the hinges of `(A0 + A1) / (3 |e|^2)`
    /// (dimensionless), so the mean dihedral-angle compliance is this over `D` (1/J per rad^2).
    pub hinge_compliance_times_bending_stiffness: f64,
    /// Mean over the hinges of `sum_i w_i |grad_i theta|^2` at the flat rest shape in 1/(kg m^2) (the
    /// dihedral angle `theta`: `|grad theta|` is `1 / height` at a wing tip), with the free sheet's inverse
    /// masses.
    pub mean_dihedral_inverse_mass: f64,
}

impl Geometry {
    /// Reads a body's mesh and masses.
    pub fn of(body: &Body) -> Self {
        let mesh = &body.mesh;
        let x = mesh.vertices();
        let w: Vec<f64> = body.masses.iter().map(|m| 1.0 / m).collect();
        let volumes: Vec<f64> = (0..mesh.tets().len()).map(|t| mesh.tet_volume(t)).collect();
        // Sum of the volumes of the tetrahedra sharing each edge (sorted vertex pair), for Van Gelder.
        let mut around: BTreeMap<[usize; 2], f64> = BTreeMap::new();
        let mut volume_inverse_mass = 0.0;
        for (t, tet) in mesh.tets().iter().enumerate() {
            for (i, j) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
                let key = [tet[i].min(tet[j]), tet[i].max(tet[j])];
                *around.entry(key).or_insert(0.0) += volumes[t];
            }
            let [p0, p1, p2, p3] = mesh.tet_points(t);
            // dV/dp for V = (1/6) ((p1 - p0) x (p2 - p0)) . (p3 - p0); the p0 gradient closes the sum.
            let g1: Vec3 = (p2 - p0).cross(&(p3 - p0)) / 6.0;
            let g2: Vec3 = (p3 - p0).cross(&(p1 - p0)) / 6.0;
            let g3: Vec3 = (p1 - p0).cross(&(p2 - p0)) / 6.0;
            let g0 = -(g1 + g2 + g3);
            volume_inverse_mass += [g0, g1, g2, g3].iter().zip(tet).map(|(g, &v)| w[v] * g.norm_squared()).sum::<f64>();
        }
        let edges = mesh.edges();
        let (mut length, mut vg, mut distance_inverse_mass) = (0.0, 0.0, 0.0);
        for &[a, b] in &edges {
            let l2 = (x[b] - x[a]).norm_squared();
            length += l2.sqrt();
            vg += l2 / around[&[a.min(b), a.max(b)]];
            distance_inverse_mass += w[a] + w[b];
        }
        let (ne, nt) = (edges.len() as f64, volumes.len() as f64);
        Geometry {
            tets: volumes.len(),
            edges: edges.len(),
            mean_tet_volume: volumes.iter().sum::<f64>() / nt,
            mean_edge_length: length / ne,
            van_gelder_compliance_times_young: vg / ne,
            mean_distance_inverse_mass: distance_inverse_mass / ne,
            mean_volume_inverse_mass: volume_inverse_mass / nt,
            sheet: None,
        }
    }

    /// Reads a sheet's mesh, thickness and lumped masses (held vertices not zeroed, as for solids).
    pub fn of_sheet(body: &SheetBody) -> Self {
        let mesh = &body.sheet.mesh;
        let x = mesh.vertices();
        let w: Vec<f64> = body.sheet.lumped_masses().iter().map(|m| 1.0 / m).collect();
        let areas: Vec<f64> =
            (0..mesh.triangles().len()).map(|t| pbdfit_mesh::sheet::triangle_area(mesh.triangle_points(t))).collect();
        // Each unique edge (sorted vertex pair) with the triangles around it, in first-met order.
        let mut faces: BTreeMap<[usize; 2], Vec<usize>> = BTreeMap::new();
        let mut order: Vec<[usize; 2]> = Vec::new();
        for (t, tri) in mesh.triangles().iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let key = [a.min(b), a.max(b)];
                let around = faces.entry(key).or_default();
                if around.is_empty() {
                    order.push(key);
                }
                around.push(t);
            }
        }
        let (mut length, mut membrane, mut distance_inverse_mass) = (0.0, 0.0, 0.0);
        let (mut hinges, mut hinge, mut dihedral_inverse_mass) = (0usize, 0.0, 0.0);
        for key in &order {
            let [a, b] = *key;
            let e = x[b] - x[a];
            let l2 = e.norm_squared();
            let around = &faces[key];
            length += l2.sqrt();
            membrane += l2 / around.iter().map(|&t| areas[t]).sum::<f64>();
            distance_inverse_mass += w[a] + w[b];
            if let [t0, t1] = around[..] {
                let wing = |t: usize| mesh.triangles()[t].iter().copied().find(|&v| v != a && v != b);
                let (Some(p), Some(q)) = (wing(t0), wing(t1)) else { continue };
                hinges += 1;
                hinge += (areas[t0] + areas[t1]) / (3.0 * l2);
                // The dihedral angle's gradients at the flat hinge (Bridson et al. 2003): `|e| / (2 A)`
                // along the normal at each wing tip; at the edge's ends the tips' weighted by where their
                // feet fall on the edge. Their squares, in-plane, are those magnitudes' squares.
                let len = l2.sqrt();
                let height = |t: usize| 2.0 * areas[t] / len;
                let (hp, hq) = (height(t0), height(t1));
                let foot = |v: usize| (x[v] - x[a]).dot(&e) / l2;
                let (sp, sq) = (foot(p), foot(q));
                let ga = (1.0 - sp) / hp + (1.0 - sq) / hq;
                let gb = sp / hp + sq / hq;
                dihedral_inverse_mass += w[p] / (hp * hp) + w[q] / (hq * hq) + w[a] * ga * ga + w[b] * gb * gb;
            }
        }
        let ne = order.len() as f64;
        let nh = hinges.max(1) as f64;
        Geometry {
            tets: 0,
            edges: order.len(),
            mean_tet_volume: 0.0,
            mean_edge_length: length / ne,
            van_gelder_compliance_times_young: 0.0,
            mean_distance_inverse_mass: distance_inverse_mass / ne,
            mean_volume_inverse_mass: 0.0,
            sheet: Some(SheetMeasures {
                thickness: body.sheet.thickness(),
                triangles: areas.len(),
                hinges,
                mean_triangle_area: areas.iter().sum::<f64>() / areas.len() as f64,
                membrane_compliance_times_young_thickness: membrane / ne,
                hinge_compliance_times_bending_stiffness: hinge / nh,
                mean_dihedral_inverse_mass: dihedral_inverse_mass / nh,
            }),
        }
    }

    /// The sheet's measures, or why a sheet mapping cannot read them (a solid's geometry: [`map`] refuses
    /// that before a formula runs).
    pub fn sheet(&self) -> Result<&SheetMeasures, String> {
        self.sheet.as_ref().ok_or_else(|| "this mapping reads a sheet's thickness and triangles".to_string())
    }
}

/// A mapping's function: the model's parameter values (in the model's order) for a query and geometry,
/// or why the formula is undefined there.
pub type MapFn = fn(&MappingQuery, &Geometry) -> Result<Vec<f64>, String>;

/// One closed-form mapping (a registry entry).
pub struct Mapping {
    /// Name on the command line (`--mapping`) and in the results.
    pub name: &'static str,
    /// The model whose parameters it gives.
    pub model: ModelKind,
    /// One line: what it computes.
    pub description: &'static str,
    /// Where the formula comes from (short citation; the doc comment of its function has the detail).
    pub source: &'static str,
    /// The units of the values it gives, in the model's order: they must be the model's parameters'
    /// units ([`map`] refuses a mapping whose are not, and a test checks every entry).
    pub units: &'static [&'static str],
    /// Whether the result depends on Young's modulus at all (the fixed-constant baselines do not).
    pub uses_young: bool,
    /// Whether it depends on the time step and iteration count (the PBD mappings): the others need no
    /// `--dt` and `--nit`.
    pub uses_step: bool,
    /// Whether it reads the body's mesh (its resolution N): the others need no `--n`.
    pub uses_mesh: bool,
    /// The formula.
    pub map: MapFn,
}

impl Mapping {
    /// The query from what a user gave: E and nu always; dt and nit where the formula reads them
    /// ([`uses_step`](Self::uses_step)), N where it reads the mesh ([`uses_mesh`](Self::uses_mesh)). An
    /// input the formula ignores may be left out (it is recorded as dt 0.01 s, nit 1, N 1) or given (it
    /// is checked and recorded). `Err` names the first input missing (`young`, `poisson`, `dt`, `nit`,
    /// `n`).
    pub fn query(
        &self,
        young: Option<f64>,
        poisson: Option<f64>,
        dt: Option<f64>,
        nit: Option<usize>,
        n: Option<usize>,
    ) -> Result<MappingQuery, &'static str> {
        let need = |value: Option<f64>, key| value.ok_or(key);
        Ok(MappingQuery {
            young: need(young, "young")?,
            poisson: need(poisson, "poisson")?,
            dt: if self.uses_step { dt.ok_or("dt")? } else { dt.unwrap_or(pbdfit_fit::DT) },
            nit: if self.uses_step { nit.ok_or("nit")? } else { nit.unwrap_or(pbdfit_fit::NIT) },
            n: if self.uses_mesh { n.ok_or("n")? } else { n.unwrap_or(1) },
        })
    }
}

impl Mapping {
    /// [`MappingError::WrongUnits`] where the units the mapping declares are not its model's parameters'
    /// (a defect of the entry: the values would be read in another unit).
    pub fn check_units(&self) -> Result<(), MappingError> {
        let model: Vec<&str> = self.model.parameters().iter().map(|p| p.unit).collect();
        if model != self.units {
            return Err(MappingError::WrongUnits {
                mapping: self.name,
                model: self.model.name().into(),
                declared: self.units.join(", "),
                expected: model.join(", "),
            });
        }
        Ok(())
    }
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping").field("name", &self.name).field("model", &self.model.name()).finish()
    }
}

/// Godot's `SoftBody3D.linear_stiffness` default (0 to 1), the value a user who does not touch it passes.
pub const GODOT_DEFAULT_STIFFNESS: f64 = 0.5;

/// Godot-Jolt's factor from Godot's 0-1 stiffness to Jolt's edge stiffness (N/m), and its floor.
pub const GODOT_JOLT_FACTOR: f64 = 1e5;

/// The volume compliance standing for "no volume constraint" (m^6/J): the upper edge of the xpbd model's
/// default search box. At the unit cube's mean `sum w |grad V|^2` (2.24 m^4/kg at N = 1, smaller at larger
/// N) and dt >= 1e-3 s, `alpha_v / dt^2 >= 1e8` leaves a volume projection a fraction below 3e-8 of the
/// violation per step.
pub const NO_VOLUME_COMPLIANCE: f64 = 1e2;

/// Van Gelder's edge compliance made uniform: the mean over the body's edges of `1 / k_e` with
/// `k_e = E sum_{t ∋ e} V_t / |e|^2` (N/m).
///
/// Source: A. Van Gelder, "Approximate simulation of elastic membranes by triangulated spring meshes",
/// Journal of Graphics Tools 3(2), 1998: the spring of edge `e` gets the stiffness `E` times the summed
/// area (2D) or volume (3D) of the elements around `e` over `|e|^2`; the 3D form is as the issue and
/// later papers (Baudet et al. 2007, LIRIS research report "Integrating tensile parameters in 3D
/// mass-spring system") state it. It has no Poisson ratio. Not checked against the paper's text here.
/// The mean is taken of the compliance (not of `k_e`) because the parameter the model takes is a
/// compliance and every edge then gets the mean of what the formula would give it; on a uniform mesh the
/// two differ by how unequal the edges are (the unit cube's axis edges and face diagonals).
pub fn van_gelder_alpha_d(q: &MappingQuery, g: &Geometry) -> f64 {
    g.van_gelder_compliance_times_young / q.young
}

/// Godot's edge compliance for its 0-1 `linear_stiffness` `k` today (Godot 4.4 to 4.6, `JoltSoftBody3D`,
/// from godot-jolt PR #830): Jolt's edge stiffness is `max(k^3 1e5, 1e-6)` N/m, the compliance its
/// inverse. With Godot's default `k = 0.5` ([`GODOT_DEFAULT_STIFFNESS`]) that is `8e-5` m/N.
pub fn godot_edge_compliance(k: f64) -> f64 {
    1.0 / (k * k * k * GODOT_JOLT_FACTOR).max(1e-6)
}

/// Jolt's volume compliance standing for "no volume constraint": the `jolt` profile's box top.
pub const JOLT_NO_VOLUME_COMPLIANCE: f64 = 1e4;

/// The PBD stiffness equivalent to an XPBD compliance `alpha` on a constraint with `s = sum w |grad
/// C|^2`: `1 - (alpha~ / (s + alpha~))^(1 / nit)` with `alpha~ = alpha / dt^2` (module docs, "PBD from
/// XPBD"); 1 for `alpha = 0`.
pub fn pbd_stiffness(alpha: f64, s: f64, dt: f64, nit: usize) -> f64 {
    let alpha_tilde = alpha / (dt * dt);
    1.0 - (alpha_tilde / (s + alpha_tilde)).powf(1.0 / nit as f64)
}

/// `(kd, kv)` from an XPBD mapping's `(alpha_d, alpha_v)` through [`pbd_stiffness`] with the body's mean
/// `sum w |grad C|^2` of each constraint type.
fn pbd_from(xpbd: MapFn, q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    let a = xpbd(q, g)?;
    Ok(vec![
        pbd_stiffness(a[0], g.mean_distance_inverse_mass, q.dt, q.nit),
        pbd_stiffness(a[1], g.mean_volume_inverse_mass, q.dt, q.nit),
    ])
}

/// Every mapping, XPBD first: one file each under `mapping/` (its function and its [`Mapping`] entry,
/// `MAPPING`) and one line here. A test iterates them (values finite, as many as the model has
/// parameters, in the units the mapping declares, which are the model's).
macro_rules! mappings {
    ($($file:ident),* $(,)?) => {
        $(mod $file;)*
        /// Every mapping, in the order `pbdfit mapping --mapping list` lists them.
        pub static MAPPINGS: &[Mapping] = &[$($file::MAPPING),*];
    };
}

mappings!(
    xpbd_van_gelder_bulk,
    xpbd_macklin_lame,
    xpbd_godot_jolt,
    xpbd_godot_jolt_pr765,
    jolt_godot,
    newton_lame,
    pybullet_lame,
    pybullet_smith,
    xpbd_strain_lame,
    pbd_van_gelder_bulk,
    pbd_macklin_lame,
    pbd_fixed,
    cloth_xpbd_van_gelder_bergou,
    cloth_pbd_van_gelder_shells,
    jolt_cloth_godot,
    newton_cloth_usd,
    mujoco_flex_young,
    genesis_cloth_defaults,
);

/// The mapping called `name`, or [`MappingError::Unknown`] naming them all.
pub fn mapping(name: &str) -> Result<&'static Mapping, MappingError> {
    MAPPINGS.iter().find(|m| m.name == name).ok_or_else(|| MappingError::Unknown {
        name: name.to_string(),
        known: MAPPINGS.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
    })
}

/// One mapped parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappedParameter {
    /// Name (the model's).
    pub name: String,
    /// Unit (`1` for dimensionless).
    pub unit: String,
    /// Value.
    pub value: f64,
    /// Whether the model accepts the value (its allowed range, without the unbounded flag); a mapping
    /// that leaves it says so rather than being clipped.
    pub in_range: bool,
}

/// Moduli derived from (E, nu), in Pa; `None` where infinite (nu = 0.5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moduli {
    /// Bulk modulus `K`.
    pub bulk: Option<f64>,
    /// First Lame parameter `lambda`.
    pub lambda: Option<f64>,
    /// Shear modulus `mu`.
    pub shear: f64,
}

/// A mapping's answer: what `pbdfit baseline --json` prints and Python's `pbdfit.mapping` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mapped {
    /// The mapping's name.
    pub mapping: String,
    /// The model the parameters are for.
    pub model: String,
    /// The mapping's description.
    pub description: String,
    /// Its source.
    pub source: String,
    /// Whether the values depend on E.
    pub uses_young: bool,
    /// Whether they depend on dt and nit.
    pub uses_step: bool,
    /// Whether they depend on the mesh (N).
    pub uses_mesh: bool,
    /// The scene whose body gave the geometry.
    pub scene: String,
    /// The query.
    pub query: MappingQuery,
    /// The parameters, in the model's order.
    pub parameters: Vec<MappedParameter>,
    /// The names of the parameters outside the model's allowed range (empty when all are in it).
    pub outside_range: Vec<String>,
    /// The moduli the formulas used.
    pub moduli: Moduli,
    /// The body's geometry the formulas used.
    pub geometry: Geometry,
}

/// Evaluates mapping `name` for `query` on `scene`'s body at N (the first part of a compound scene:
/// the mappings read the mesh and masses only, which its parts share).
///
/// ```
/// use pbdfit_table::mapping::{MappingQuery, map};
/// let scene = pbdfit_mesh::SceneSet::load("gravity").unwrap();
/// let q = MappingQuery { young: 1e4, poisson: 0.25, dt: 0.01, nit: 4, n: 1 };
/// let m = map("xpbd-van-gelder-bulk", &q, &scene).unwrap();
/// // The unit cube at N = 1 is five tetrahedra of mean volume 1/5 m^3; K = E / (3 (1 - 2 nu)) = 2e4 / 3 Pa.
/// assert!((m.parameters[1].value - 0.2 / (2e4 / 3.0)).abs() < 1e-18);
/// ```
pub fn map(name: &str, query: &MappingQuery, scene: &SceneSet) -> Result<Mapped, MappingError> {
    let m = mapping(name)?;
    m.check_units()?;
    m.check_body(BodyKind::Solid, scene.name())?;
    query.check()?;
    let part = scene.scenes().first().expect("a scene set has at least one scene");
    let body = part.body(query.n)?;
    evaluate(m, query, Geometry::of(&body), scene.name())
}

/// Evaluates sheet mapping `name` for `query` on `scene`'s sheet at N (its thickness, size and density
/// as the scene gives them, after `SheetScene::with_body`).
///
/// ```
/// use pbdfit_table::mapping::{MappingQuery, map_sheet};
/// let scene = pbdfit_mesh::SheetScene::load("hanging-sheet").unwrap();
/// let q = MappingQuery { young: 2e6, poisson: 0.3, dt: 0.01, nit: 10, n: 4 };
/// let m = map_sheet("cloth-xpbd-van-gelder-bergou", &q, &scene).unwrap();
/// // Bergou's bending: alpha_b = 1 / D with D = E h^3 / (12 (1 - nu^2)) at h = 0.5 mm.
/// let d = 2e6 * 5e-4f64.powi(3) / (12.0 * (1.0 - 0.09));
/// assert!((m.parameters[1].value * d - 1.0).abs() < 1e-12);
/// ```
pub fn map_sheet(name: &str, query: &MappingQuery, scene: &SheetScene) -> Result<Mapped, MappingError> {
    let m = mapping(name)?;
    m.check_units()?;
    m.check_body(BodyKind::Sheet, &scene.name)?;
    query.check()?;
    let body = scene.body(Some(query.n))?;
    evaluate(m, query, Geometry::of_sheet(&body), &scene.name)
}

impl Mapping {
    /// [`MappingError::WrongBody`] where the mapping's model simulates another kind of body than the
    /// scene's (`scene_body`).
    pub fn check_body(&self, scene_body: BodyKind, scene: &str) -> Result<(), MappingError> {
        let model_body = self.model.body_kind();
        if model_body != scene_body {
            return Err(MappingError::WrongBody {
                mapping: self.name,
                model: self.model.name().into(),
                model_body,
                scene: scene.into(),
                scene_body,
            });
        }
        Ok(())
    }
}

/// Mapping `m`'s values on `geometry`, checked (as many as its model's parameters, finite) and reported.
fn evaluate(
    m: &'static Mapping,
    query: &MappingQuery,
    geometry: Geometry,
    scene: &str,
) -> Result<Mapped, MappingError> {
    let values = (m.map)(query, &geometry).map_err(|message| MappingError::Undefined { mapping: m.name, message })?;
    if values.len() != m.model.parameters().len() {
        return Err(MappingError::WrongCount {
            mapping: m.name,
            model: m.model.name().into(),
            got: values.len(),
            expected: m.model.parameters().len(),
        });
    }
    let mut parameters = Vec::with_capacity(values.len());
    let mut outside_range = Vec::new();
    for (spec, &value) in m.model.parameters().iter().zip(&values) {
        if !value.is_finite() {
            // The mapping's inputs passed `check`; only their extremes make a formula leave f64.
            let cause = if query.dt * query.dt == 0.0 || query.dt * query.dt == f64::INFINITY {
                "dt^2 leaves f64's range"
            } else if (1.0 / query.young).is_infinite() || query.young.is_infinite() || query.young < 1e-300 {
                "Young's modulus is so small that the compliance 1 / E overflows"
            } else {
                "E, nu or dt is extreme for this formula"
            };
            return Err(MappingError::NotFinite {
                mapping: m.name,
                parameter: spec.name,
                value,
                young: query.young,
                poisson: query.poisson,
                dt: query.dt,
                nit: query.nit,
                cause,
            });
        }
        let in_range = spec.check(value, false).is_ok();
        if !in_range {
            outside_range.push(spec.name.to_string());
        }
        parameters.push(MappedParameter { name: spec.name.into(), unit: spec.unit.into(), value, in_range });
    }
    let finite = |v: f64| v.is_finite().then_some(v);
    Ok(Mapped {
        mapping: m.name.into(),
        model: m.model.name().into(),
        description: m.description.into(),
        source: m.source.into(),
        uses_young: m.uses_young,
        uses_step: m.uses_step,
        uses_mesh: m.uses_mesh,
        scene: scene.into(),
        query: *query,
        parameters,
        outside_range,
        moduli: Moduli {
            bulk: finite(query.bulk_modulus()),
            lambda: finite(query.lame_lambda()),
            shear: query.shear_modulus(),
        },
        geometry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry: names unique, every entry's units its model's, and its values as many as the model
    /// has parameters; an entry with the wrong units is refused by `check_units`.
    #[test]
    fn every_mapping_gives_its_models_parameters_in_their_units() {
        let body = SceneSet::load("gravity").unwrap().scenes()[0].body(2).unwrap();
        let solid = Geometry::of(&body);
        let sheet = Geometry::of_sheet(&SheetScene::load("hanging-sheet").unwrap().body(Some(2)).unwrap());
        let query = MappingQuery { young: 1e4, poisson: 0.3, dt: 0.01, nit: 2, n: 2 };
        let mut names = std::collections::BTreeSet::new();
        for m in MAPPINGS {
            assert!(names.insert(m.name), "two mappings named {}", m.name);
            m.check_units().unwrap();
            let geometry = if m.model.body_kind() == BodyKind::Sheet { &sheet } else { &solid };
            let values = (m.map)(&query, geometry).unwrap();
            assert_eq!(values.len(), m.model.parameters().len(), "{}", m.name);
        }
        let wrong = Mapping { units: &["m/N", "m^3/J"], ..MAPPINGS[0] };
        let e = wrong.check_units().unwrap_err();
        assert!(!e.is_input());
        assert_eq!(
            e.to_string(),
            "mapping xpbd-van-gelder-bulk gives values in m/N, m^3/J where model xpbd's parameters are in m/N, \
             m^6/J (a defect of the mapping)"
        );
    }

    /// PyBullet's stable neo-Hookean given Smith et al.'s `4/3 mu`, `lambda + 5/6 mu` is the linear FEM at
    /// small strain (E 1e5 on the wall at N = 2: a sag of 2e-4 of the cube), and given the Lame pair it is
    /// softer by about the 4/3 of its shear modulus (37 % more sag where shear dominates).
    #[test]
    fn pybullet_smith_gives_the_linear_fem_and_pybullet_lame_sags_more() {
        use pbdfit_fem::YoungPoisson;
        use pbdfit_fit::{FitProblem, PartCache, Settings};
        let scene = SceneSet::load("gravity-wall").unwrap();
        let query = MappingQuery { young: 1e5, poisson: 0.3, dt: 0.01, nit: 1, n: 2 };
        let settings = Settings::new(query.dt, query.n, query.nit, ModelKind::PYBULLET_NEOHOOKEAN);
        let material = YoungPoisson::new(query.young, query.poisson).unwrap();
        let problem = FitProblem::new(&scene, settings, material, &PartCache::default()).unwrap();
        let sag = |name: &str| {
            let values: Vec<f64> = map(name, &query, &scene).unwrap().parameters.iter().map(|p| p.value).collect();
            let e = problem.evaluate(&values, None);
            let largest = e.rest[0].iter().map(|u| u.norm()).fold(0.0, f64::max);
            (e.error, largest)
        };
        let (smith, smith_sag) = sag("pybullet-smith");
        let (lame, lame_sag) = sag("pybullet-lame");
        println!("smith error {smith:.3e}; lame error {lame:.3e}, sag over Smith's {}", lame_sag / smith_sag);
        // The error is the mean squared relative displacement error: 1e-8 is 1e-4 of each vertex's motion.
        assert!(smith < 1e-8, "Smith's correction: error {smith:e}");
        assert!((1.3..1.45).contains(&(lame_sag / smith_sag)), "{lame_sag} vs {smith_sag}");
        assert!(lame > 0.05, "the Lame pair: error {lame:e}");
    }

    /// Mapping `name` for `q` on a scene of its model's body: the unit cube `gravity` for a solid's, the
    /// hanging sheet for a sheet's.
    fn on_its_body(name: &str, q: &MappingQuery) -> Result<Mapped, MappingError> {
        match mapping(name)?.model.body_kind() {
            BodyKind::Solid => map(name, q, &SceneSet::load("gravity").unwrap()),
            BodyKind::Sheet => map_sheet(name, q, &SheetScene::load("hanging-sheet").unwrap()),
        }
    }

    /// Each mapping's `uses_young`, `uses_step` and `uses_mesh` say the truth: the values change with E,
    /// with dt and nit, with N exactly where they say so (`baseline` asked for dt, nit and N
    /// that the formula ignores).
    #[test]
    fn a_mapping_depends_on_what_it_says_it_uses() {
        let base = MappingQuery { young: 1e3, poisson: 0.3, dt: 0.01, nit: 2, n: 2 };
        let values = |q: MappingQuery, name: &str| -> Vec<f64> {
            on_its_body(name, &q).unwrap().parameters.iter().map(|p| p.value).collect()
        };
        for m in MAPPINGS {
            let at = values(base, m.name);
            let young = values(MappingQuery { young: 2e3, ..base }, m.name) != at;
            let step = values(MappingQuery { dt: 0.005, ..base }, m.name) != at
                || values(MappingQuery { nit: 5, ..base }, m.name) != at;
            let mesh = values(MappingQuery { n: 3, ..base }, m.name) != at;
            assert_eq!((young, step, mesh), (m.uses_young, m.uses_step, m.uses_mesh), "{}", m.name);
        }
    }

    /// `baseline --mapping pbd-van-gelder-bulk --dt 1e-300` printed
    /// kd = kv = NaN and `xpbd-strain-lame --young 5e-324` printed inf, both with exit 0. Every mapping at
    /// the extremes of what `check` accepts gives finite values or a typed error naming the parameter and
    /// the extreme input; never a non-finite value.
    #[test]
    fn no_mapping_returns_a_non_finite_value() {
        let scene = SceneSet::load("gravity").unwrap();
        let q = |young: f64, dt: f64, nit: usize| MappingQuery { young, poisson: 0.3, dt, nit, n: 1 };
        let e = map("pbd-van-gelder-bulk", &q(1e3, 1e-300, 4), &scene).unwrap_err();
        assert!(matches!(e, MappingError::NotFinite { parameter: "kd", .. }), "{e}");
        assert!(e.to_string().contains("dt^2"), "{e}");
        let e = map("xpbd-strain-lame", &q(5e-324, 0.01, 4), &scene).unwrap_err();
        assert!(matches!(e, MappingError::NotFinite { .. }), "{e}");
        assert!(e.to_string().contains("1 / E overflows"), "{e}");
        let extremes = [5e-324, 1e-300, 1e-30, 1.0, 1e30, 1e300, f64::MAX];
        let steps = [1e-300, 1e-160, 1e-3, 1.0, 1e150, 1e300];
        for m in MAPPINGS {
            for &young in &extremes {
                for &dt in &steps {
                    for nit in [1, 1000, usize::MAX] {
                        for poisson in [-0.99, 0.0, 0.3, 0.4999, 0.5] {
                            let query = MappingQuery { poisson, ..q(young, dt, nit) };
                            match on_its_body(m.name, &query) {
                                Ok(r) => assert!(
                                    r.parameters.iter().all(|p| p.value.is_finite()),
                                    "{} at {query:?}: {:?}",
                                    m.name,
                                    r.parameters
                                ),
                                Err(MappingError::NotFinite { .. } | MappingError::Undefined { .. }) => {}
                                Err(e) => panic!("{} at {query:?}: {e}", m.name),
                            }
                        }
                    }
                }
            }
        }
    }

    /// The sheet mappings on the hanging sheet at N = 1 (one crossed quad: four triangles of 0.25 m^2
    /// around a centre vertex, 0.5 mm, 300 kg/m^3), against the formulas by hand: Van Gelder's mean
    /// `|e|^2 / sum A_t` is `(4 x 1 / 0.25 + 4 x 0.5 / 0.5) / 8 = 2.5`; each of the four hinges (the
    /// half-diagonals) has `(A0 + A1) / (3 |e|^2) = 1/3` and, with corners of 0.025 kg and a centre of
    /// 0.05 kg (wing tips at height sqrt(0.5) whose feet are the centre), `sum w |grad theta|^2 =
    /// (40 + 40 + 4 x 20) / 0.5 = 320` 1/(kg m^2). Every value is finite and in its model's range.
    #[test]
    fn sheet_mappings_follow_their_formulas() {
        let scene = SheetScene::load("hanging-sheet").unwrap();
        let q = MappingQuery { young: 2e6, poisson: 0.3, dt: 0.01, nit: 10, n: 1 };
        let m = map_sheet("cloth-xpbd-van-gelder-bergou", &q, &scene).unwrap();
        let sheet = m.geometry.sheet.as_ref().expect("a sheet's measures");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert_eq!((sheet.triangles, sheet.hinges, m.geometry.edges), (4, 4, 8));
        assert!(close(sheet.membrane_compliance_times_young_thickness, 2.5), "{sheet:?}");
        assert!(close(sheet.hinge_compliance_times_bending_stiffness, 1.0 / 3.0), "{sheet:?}");
        assert!(close(sheet.mean_dihedral_inverse_mass, 320.0), "{sheet:?}");
        let (e, h) = (2e6, 5e-4);
        let d = e * h * h * h / (12.0 * (1.0 - 0.09));
        assert!(close(m.parameters[0].value, 2.5 / (e * h)) && close(m.parameters[1].value, 1.0 / d));
        let pbd = map_sheet("cloth-pbd-van-gelder-shells", &q, &scene).unwrap();
        let kb = pbd_stiffness(1.0 / (3.0 * d), 320.0, q.dt, q.nit);
        assert!(close(pbd.parameters[1].value, kb), "{:?} vs {kb}", pbd.parameters);
        let jolt = map_sheet("jolt-cloth-godot", &q, &scene).unwrap();
        assert_eq!(jolt.parameters.iter().map(|p| p.value).collect::<Vec<_>>(), vec![8e-5, 8e-5, 1e4]);
        for n in [4, 10] {
            for name in ["cloth-xpbd-van-gelder-bergou", "cloth-pbd-van-gelder-shells", "jolt-cloth-godot"] {
                let r = map_sheet(name, &MappingQuery { n, ..q }, &scene).unwrap();
                assert!(r.outside_range.is_empty() && r.parameters.iter().all(|p| p.value.is_finite()), "{r:?}");
            }
        }
    }

    /// The engines' sheet mappings against their engines' rules by hand, for E 2e6 Pa, nu 0.3 on the
    /// hanging sheet (h 0.5 mm): Newton's USD import, no springs and `edge_ke = D = 2e6 x 1.25e-10 / (12 x
    /// 0.91) = 2.289377e-5`; MuJoCo's `young = E`; Genesis's `PBD.Cloth` defaults, the same at another E.
    /// Every value in its model's range (`spring_ke = 0` is the parameter's minimum, which the profile's step,
    /// as Newton's kernel, skips).
    #[test]
    fn engine_sheet_mappings_are_their_engines_rules() {
        let scene = SheetScene::load("hanging-sheet").unwrap();
        let q = MappingQuery { young: 2e6, poisson: 0.3, dt: 0.01, nit: 10, n: 2 };
        let values = |name: &str, q: &MappingQuery| {
            let m = map_sheet(name, q, &scene).unwrap();
            assert!(m.outside_range.is_empty(), "{name}: {:?}", m.outside_range);
            m.parameters.iter().map(|p| p.value).collect::<Vec<_>>()
        };
        let usd = values("newton-cloth-usd", &q);
        assert_eq!(usd[0], 0.0);
        assert!((usd[1] - 2.289377289377e-5).abs() < 1e-15, "{usd:?}");
        assert_eq!(values("mujoco-flex-young", &q), vec![2e6]);
        assert_eq!(values("genesis-cloth-defaults", &q), vec![1e-7, 1e-5]);
        assert_eq!(values("genesis-cloth-defaults", &MappingQuery { young: 3e9, poisson: 0.1, ..q }), vec![1e-7, 1e-5]);
        for name in ["newton-cloth-usd", "mujoco-flex-young", "genesis-cloth-defaults"] {
            let e = map(name, &q, &SceneSet::load("gravity").unwrap()).unwrap_err();
            assert!(matches!(e, MappingError::WrongBody { .. }) && e.is_input(), "{e}");
        }
    }

    /// A solid's mapping refuses a sheet and a sheet's mapping a solid, naming the mapping, its model and
    /// the scene, as the user's input.
    #[test]
    fn a_mapping_refuses_the_other_kind_of_body() {
        let q = MappingQuery { young: 2e6, poisson: 0.3, dt: 0.01, nit: 10, n: 2 };
        let e = map_sheet("xpbd-van-gelder-bulk", &q, &SheetScene::load("hanging-sheet").unwrap()).unwrap_err();
        assert!(e.is_input());
        let text = e.to_string();
        assert!(
            text.starts_with("mapping xpbd-van-gelder-bulk gives model xpbd's parameters, and xpbd simulates a solid")
        );
        assert!(text.contains("scene hanging-sheet is a sheet"), "{text}");
        let e = map("cloth-xpbd-van-gelder-bergou", &q, &SceneSet::load("gravity").unwrap()).unwrap_err();
        assert!(matches!(e, MappingError::WrongBody { .. }) && e.is_input(), "{e}");
        assert!(
            e.to_string().contains("cloth-xpbd simulates a sheet")
                && e.to_string().contains("scene gravity is a solid")
        );
    }
}
