//! A linear thin-shell reference for sheets: flat triangular facets with a constant-strain (CST)
//! membrane and discrete Kirchhoff (DKT) plate bending, six DOFs per node, assembled in 3-D.
//!
//! ## Why this element
//!
//! A sheet's reference must be a Kirchhoff-Love shell (cloth, paper and plates are thin: their
//! transverse shear strain is negligible) on the triangle meshes the cloth models run on, with a proven
//! convergence and a corotational form for large rotations. The DKT triangle (Batoz, Bathe and Ho, "A
//! study of three-node triangular plate bending elements", IJNME 15, 1980) does all of that with three
//! nodes and three bending DOFs per node: its rotations are quadratic, tied to a cubic `w` along each
//! edge by Kirchhoff's condition at the corners and mid-sides, so it has no shear locking (there is no
//! shear), passes the constant-curvature patch test on any mesh, and is the standard facet of
//! corotational shell formulations, which the large-rotation reference builds on. The CST membrane is
//! the membrane of those same facets, with the nodes the cloth models have. A rotation-free element
//! (discrete shells, subdivision surfaces) needs neighbour stencils and special boundary treatment;
//! Reissner-Mindlin triangles need shear-locking remedies for thin sheets.
//!
//! ## Convergence
//!
//! Deflections and membrane displacements converge at second order in the mesh size (the tests measure
//! 1.91-2.00 for the plate centre deflections and 2.00 for the cantilever tip, on three diagonal
//! patterns); curvatures, moments and membrane stresses, which are piecewise linear (DKT) or constant
//! (CST), at first order by the theory (not measured here). The simply supported plates hold the
//! translations only ("soft" support, the nodal rotations free) and converge to Navier's solution at
//! the same order. Both parts pass their
//! patch tests exactly (constant membrane strain and constant curvature to round-off on irregular
//! meshes), which with stability makes the facet convergent (tests in `tests/fem_tests/shell.rs`).
//!
//! ## The drilling rotation
//!
//! A flat facet has no stiffness for the rotation about its normal, so at a node where all facets are
//! coplanar the global matrix would be singular. It is kept as a DOF with a small fictitious
//! stiffness, the penalty `DRILLING_FACTOR / 2 * E h A * sum_i (theta_z,i - omega)^2` per facet
//! ([`DRILLING_FACTOR`] = 1e-3), which ties each node's drilling rotation to the CST's in-plane rotation
//! `omega = (v_,x - u_,y) / 2` rather than to zero (a Hughes-Brezzi-like drilling term). Kept, not
//! eliminated, because on a curved sheet the drilling rotation of one facet is a bending rotation of
//! its neighbour, so the six DOFs per node are needed anyway and are what the corotational form
//! rotates. Tied to `omega`, the penalty is zero under every rigid motion and every constant membrane
//! strain, so the patch tests, the rigid-body modes and frame indifference hold exactly; on a flat
//! sheet it couples only to the membrane (never to deflection), and its weight is 1e-3 of the
//! membrane's `E h A`, so it adds little stiffness to a non-uniform membrane field (not measured here).
//!
//! ## What it cannot do
//!
//! - No transverse shear: thin shells only (span over thickness above about 20); a thick plate comes
//!   out too stiff.
//! - Linear: small displacements and rotations about the rest state. A sheet that hangs, drapes or
//!   sags far (its rotations are not small) needs the corotational form of the same facet,
//!   [`CorotationalShell`] (module `corotational.rs`: large rotations, small strains).
//! - Facets, not a curved surface: a curved sheet is approximated by flat triangles (the geometric
//!   error is second order too); gravity and pressure are lumped (a third of each facet's load to each
//!   node's translation, the CST's consistent load for a uniform load); nodal moments can be given
//!   directly in a [`ShellLoad`]. A follower pressure ([`ShellLoad::follower`]) is taken at the rest
//!   geometry here; the corotational shell follows the deformed facets.
//! - Isotropic linear elastic material only; no contact in the linear shell (the corotational shell's static
//!   contact is `contact.rs`, [`CorotationalShell::solve_contact`]).
//!
//! ## Modes
//!
//! [`LinearShell::modes`] gives the lowest modes about the rest state with a lumped mass (`rho h A / 3`
//! per node and translation, the rotary inertia `rho h^3 / 12 A / 3` per node and rotation) through the
//! crate's subspace iteration (the one `modes.rs` runs for solids); a simply supported square plate's
//! four lowest frequencies converge at order 2.0 to the closed form with rotary inertia.
//!
//! ## Assembly and solve
//!
//! DOF `6 v + k` is component `k` of vertex `v`: `k` = 0..2 the translation (m), 3..5 the rotation
//! vector (rad), both in the global frame. The pattern of 3-DOF [`Assembler`](crate::assembly::Assembler)
//! does not fit six DOFs per node, so facets are summed into a triplet list (nalgebra-sparse's
//! `CooMatrix`, duplicates summed when converted to CSC) with fixed DOFs eliminated and their prescribed
//! values moved to the right-hand side, and the reduced system is solved by any [`LinearSolver`]
//! (the crate's [`FaerCholesky`] by default).
//!
//! ## Example
//!
//! ```
//! use nalgebra::Vector3;
//! use pbdfit_fem::YoungPoisson;
//! use pbdfit_fem::shell::{LinearShell, ShellConstraints, ShellLoad, Support};
//! use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};
//! // A steel strip 1 m x 0.1 m x 1 mm, clamped along x = 0, under its own weight (nu = 0: a beam).
//! let mesh = SheetMesh::rectangle(1.0, 0.1, 40, 4, Diagonal::Alternating).unwrap();
//! let sheet = Sheet::new(mesh, 1e-3, 7850.0).unwrap();
//! let shell = LinearShell::new(&sheet, YoungPoisson::new(2e11, 0.0).unwrap()).unwrap();
//! let mut held = ShellConstraints::new(sheet.mesh.vertices().len());
//! for (v, p) in sheet.mesh.vertices().iter().enumerate() {
//!     if p.x == 0.0 {
//!         held.support(v, Support::Clamped);
//!     }
//! }
//! let u = shell.solve(&held, &ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -9.81))).unwrap();
//! // The beam's tip deflection q L^4 / (8 E I) = 12 rho g L^4 / (8 E h^2) (linear theory).
//! let beam = 12.0 * 7850.0 * 9.81 / (8.0 * 2e11 * 1e-6);
//! assert!((u.max_translation() / beam - 1.0).abs() < 1e-3);
//! ```

mod contact;
mod corotational;
mod dynamic;
mod element;

pub use corotational::{
    CorotationalShell, CorotationalSolution, MembraneLaw, SHELL_NEWTON, ShellState, rotation_vector,
};

pub use contact::ShellContactSolution;

pub use dynamic::{ShellDynamicSolution, ShellDynamicState, ShellStart};

pub use element::{
    DRILLING_FACTOR, FacetFrame, FacetStiffness, dkt_b, facet_rotation, facet_stiffness, local_stiffness, membrane_b,
};

use nalgebra::Vector3;
use nalgebra_sparse::{CooMatrix, CscMatrix};
use pbdfit_mesh::Sheet;

use crate::{FaerCholesky, FemError, LinearSolver, YoungPoisson};

/// Degrees of freedom per node: three translations and three rotations.
pub const NODE_DOFS: usize = 6;

/// Why a shell solve failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShellError {
    /// Obstacles given to the linear shell, which has no contact (the corotational shell's
    /// [`CorotationalShell::solve_contact`] has).
    #[error("the linear shell has no contact: a sheet with obstacles needs the corotational shell")]
    LinearContact,
    /// A follower pressure given to the contact solve, whose Newton tangent has no load stiffness for it
    /// (a dead pressure, fixed in direction, is taken).
    #[error(
        "the shell's contact solve takes no follower pressure (its tangent has no load stiffness for one): give \
         the pressure `follower = false` on a sheet with obstacles"
    )]
    FollowerContact,
    /// A wind on the sheet: its drag depends on the velocities, which neither the shell's static solves
    /// nor its implicit Newmark step (whose Newton would need the drag's velocity tangent) take.
    #[error(
        "the shell reference takes no wind ([[load.wind]]): its drag depends on the sheet's velocity, which the \
         shell's static solves and its implicit dynamics do not take; the cloth models simulate a sheet in wind \
         (pbdfit simulate), a fit or a release test against the shell needs a sheet without one"
    )]
    Wind,
    /// A facet has no area (only for facets not taken from a validated [`Sheet`]).
    #[error("shell facet {triangle} is degenerate (area {area:e} m^2)")]
    DegenerateFacet {
        /// Triangle index.
        triangle: usize,
        /// Its area in m^2.
        area: f64,
    },
    /// A per-vertex list has the wrong length.
    #[error("{what}: expected {expected} entries (one per vertex), got {got}")]
    SizeMismatch {
        /// What was given.
        what: &'static str,
        /// Vertex count.
        expected: usize,
        /// Given count.
        got: usize,
    },
    /// The fixed DOFs leave rigid motions of the sheet free, so it has no unique equilibrium.
    #[error(
        "the sheet is not held: {free} rigid motion(s) of six stay free with the fixed DOFs given (hold the \
         translations of three vertices not on one line, or clamp one vertex)"
    )]
    NotHeld {
        /// Rigid motions (of six) that move no fixed DOF.
        free: usize,
    },
    /// A vertex belongs to no triangle and is not fully held, so its DOFs have no stiffness.
    #[error("vertex {0} belongs to no triangle and is not held in all six DOFs: it has no stiffness")]
    OrphanVertex(usize),
    /// A fixed rotation DOF is given a value other than zero (the corotational shell holds rotations at
    /// zero only).
    #[error("vertex {0}: the nonlinear shell holds rotations at zero only, not at a prescribed value")]
    PrescribedRotation(usize),
    /// The linear solve failed (a sheet not held against every rigid motion is not positive definite).
    #[error("shell solve: {0}")]
    Fem(#[from] FemError),
}

/// How a held vertex is supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// All six DOFs held (a clamped edge).
    Clamped,
    /// The three translations held, the rotations free (a simply supported edge, "soft" support).
    SimplySupported,
}

/// Which DOFs are fixed, and their prescribed values (zero unless set).
#[derive(Debug, Clone, PartialEq)]
pub struct ShellConstraints {
    fixed: Vec<[bool; NODE_DOFS]>,
    values: Vec<[f64; NODE_DOFS]>,
}

impl ShellConstraints {
    /// No DOF fixed, for `vertices` vertices.
    pub fn new(vertices: usize) -> Self {
        Self { fixed: vec![[false; NODE_DOFS]; vertices], values: vec![[0.0; NODE_DOFS]; vertices] }
    }

    /// Holds `vertex` by `support` at zero displacement.
    pub fn support(&mut self, vertex: usize, support: Support) -> &mut Self {
        let held = match support {
            Support::Clamped => NODE_DOFS,
            Support::SimplySupported => 3,
        };
        for k in 0..held {
            self.fixed[vertex][k] = true;
        }
        self
    }

    /// Fixes DOF `dof` (0..5) of `vertex` at `value` (m or rad).
    pub fn prescribe(&mut self, vertex: usize, dof: usize, value: f64) -> &mut Self {
        self.fixed[vertex][dof] = true;
        self.values[vertex][dof] = value;
        self
    }

    /// The prescribed value of DOF `dof` of `vertex` (m or rad; zero unless set).
    pub fn value(&self, vertex: usize, dof: usize) -> f64 {
        self.values[vertex][dof]
    }

    /// Whether DOF `dof` of `vertex` is fixed.
    pub fn is_fixed(&self, vertex: usize, dof: usize) -> bool {
        self.fixed[vertex][dof]
    }
}

/// Nodal loads: forces (N) on the translations and moments (N m) on the rotations, global frame, and a
/// follower pressure per facet.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellLoad {
    /// Per vertex `[f_x, f_y, f_z, m_x, m_y, m_z]`: dead loads.
    pub nodal: Vec<[f64; NODE_DOFS]>,
    /// Per facet, a follower pressure (Pa) along the facet's current winding normal
    /// `(x1 - x0) x (x2 - x0)`: `p A n / 3` to each node at the deformed positions (a positive `p` pushes
    /// along the normal). Empty: none. The linear shell takes it at the rest geometry (its linear
    /// theory); the corotational shell at the current one, with its load stiffness in the tangent.
    pub follower: Vec<f64>,
}

impl ShellLoad {
    /// No load on `vertices` vertices.
    pub fn zero(vertices: usize) -> Self {
        Self { nodal: vec![[0.0; NODE_DOFS]; vertices], follower: Vec::new() }
    }

    /// A sheet body's load: its weight in the gravity field `g` (m/s^2), its dead pressures (at the rest
    /// normals and areas) and its follower pressures (per facet, Pa; `pressure`'s empty vectors: none).
    pub fn of_sheet(sheet: &Sheet, g: Vector3<f64>, pressure: &pbdfit_mesh::TrianglePressure) -> Self {
        let mut load = Self::gravity(sheet, g);
        let dead =
            pbdfit_mesh::TrianglePressure::nodal_forces(sheet.mesh.triangles(), &pressure.dead, sheet.mesh.vertices());
        for (nodal, f) in load.nodal.iter_mut().zip(&dead) {
            for k in 0..3 {
                nodal[k] += f[k];
            }
        }
        load.follower = pressure.follower.clone();
        load
    }

    /// A follower pressure `p` (Pa) on every facet of `sheet` (see [`Self::follower`]), no other load.
    pub fn follower_pressure(sheet: &Sheet, p: f64) -> Self {
        Self { follower: vec![p; sheet.mesh.triangles().len()], ..Self::zero(sheet.mesh.vertices().len()) }
    }

    /// The sheet's own weight in the gravity field `g` (m/s^2): `rho h A g / 3` to each node of every
    /// triangle.
    pub fn gravity(sheet: &Sheet, g: Vector3<f64>) -> Self {
        Self::per_facet(sheet, |p| g * (sheet.areal_mass() * pbdfit_mesh::sheet::triangle_area(p)))
    }

    /// A dead pressure `p` (Pa) along each facet's rest normal `(p1 - p0) x (p2 - p0)` (a positive `p`
    /// pushes along the winding's normal): `p A n / 3` to each node, fixed.
    pub fn pressure(sheet: &Sheet, p: f64) -> Self {
        Self::per_facet(sheet, |q| (q[1] - q[0]).cross(&(q[2] - q[0])) * (0.5 * p))
    }

    /// `force(points)` (N, the facet's total) split into thirds over its nodes.
    fn per_facet(sheet: &Sheet, force: impl Fn([Vector3<f64>; 3]) -> Vector3<f64>) -> Self {
        let mesh = &sheet.mesh;
        let mut load = Self::zero(mesh.vertices().len());
        for (t, tri) in mesh.triangles().iter().enumerate() {
            let f = force(mesh.triangle_points(t)) / 3.0;
            for &v in tri {
                for k in 0..3 {
                    load.nodal[v][k] += f[k];
                }
            }
        }
        load
    }
}

/// A solved shell: nodal translations (m) and rotations (rad), global frame.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellSolution {
    /// Per vertex `[u_x, u_y, u_z, theta_x, theta_y, theta_z]`.
    pub displacements: Vec<[f64; NODE_DOFS]>,
}

impl ShellSolution {
    /// The translation of `vertex` in m.
    pub fn translation(&self, vertex: usize) -> Vector3<f64> {
        let d = &self.displacements[vertex];
        Vector3::new(d[0], d[1], d[2])
    }

    /// The largest translation over the vertices, in m.
    pub fn max_translation(&self) -> f64 {
        (0..self.displacements.len()).map(|v| self.translation(v).norm()).fold(0.0, f64::max)
    }
}

/// The linear shell of one sheet and material: facet stiffnesses computed once, solved for any
/// constraints and loads.
#[derive(Debug, Clone)]
pub struct LinearShell {
    triangles: Vec<[usize; 3]>,
    vertices: usize,
    positions: Vec<Vector3<f64>>,
    facets: Vec<FacetStiffness>,
    /// The lumped mass per DOF: `rho h A / 3` (kg) on each translation and `rho h^3 / 12 A / 3` (kg m^2)
    /// on each rotation, summed over the vertex's triangles.
    lumped_mass: Vec<[f64; NODE_DOFS]>,
}

/// The lowest modes of a sheet about its rest state.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellModes {
    /// Angular frequencies `omega_i` (rad/s), ascending.
    pub angular: Vec<f64>,
    /// Mode shapes per vertex `[u_x, u_y, u_z, theta_x, theta_y, theta_z]`, mass-normalised, zero at
    /// fixed DOFs.
    pub shapes: Vec<Vec<[f64; NODE_DOFS]>>,
    /// Each mode's residual `|K phi - omega^2 M phi| / |K phi|`.
    pub residuals: Vec<f64>,
    /// Subspace iterations done.
    pub iterations: usize,
}

impl LinearShell {
    /// The facets of `sheet` (its thickness) with the isotropic `material`.
    pub fn new(sheet: &Sheet, material: YoungPoisson) -> Result<Self, ShellError> {
        let mesh = &sheet.mesh;
        let facets = (0..mesh.triangles().len())
            .map(|t| {
                facet_stiffness(mesh.triangle_points(t), material, sheet.thickness()).map_err(|e| match e {
                    ShellError::DegenerateFacet { area, .. } => ShellError::DegenerateFacet { triangle: t, area },
                    other => other,
                })
            })
            .collect::<Result<_, _>>()?;
        let mut lumped_mass = vec![[0.0; NODE_DOFS]; mesh.vertices().len()];
        let h = sheet.thickness();
        for (t, tri) in mesh.triangles().iter().enumerate() {
            let m = sheet.areal_mass() * pbdfit_mesh::sheet::triangle_area(mesh.triangle_points(t)) / 3.0;
            for &v in tri {
                for k in 0..NODE_DOFS {
                    lumped_mass[v][k] += if k < 3 { m } else { m * h * h / 12.0 };
                }
            }
        }
        Ok(Self {
            lumped_mass,
            triangles: mesh.triangles().to_vec(),
            vertices: mesh.vertices().len(),
            positions: mesh.vertices().to_vec(),
            facets,
        })
    }

    /// Number of DOFs (six per vertex).
    pub fn dofs(&self) -> usize {
        NODE_DOFS * self.vertices
    }

    /// Global DOF indices of triangle `t`'s 18 DOFs.
    fn facet_dofs(&self, t: usize) -> impl Iterator<Item = usize> + '_ {
        self.triangles[t].iter().flat_map(|&v| (0..NODE_DOFS).map(move |k| NODE_DOFS * v + k))
    }

    /// The whole stiffness matrix (no DOF eliminated), `dofs x dofs`, both triangles stored.
    pub fn stiffness(&self) -> CscMatrix<f64> {
        let n = self.dofs();
        let mut coo = CooMatrix::new(n, n);
        for (t, k) in self.facets.iter().enumerate() {
            let dofs: Vec<usize> = self.facet_dofs(t).collect();
            for (a, &i) in dofs.iter().enumerate() {
                for (b, &j) in dofs.iter().enumerate() {
                    coo.push(i, j, k[(a, b)]);
                }
            }
        }
        CscMatrix::from(&coo)
    }

    /// The strain energy `u^T K u / 2` (J) of nodal displacements `u`.
    pub fn energy(&self, u: &[[f64; NODE_DOFS]]) -> f64 {
        let mut e = 0.0;
        for (t, k) in self.facets.iter().enumerate() {
            let q = nalgebra::SVector::<f64, 18>::from_iterator(
                self.triangles[t].iter().flat_map(|&v| u[v].iter().copied()),
            );
            e += 0.5 * q.dot(&(k * q));
        }
        e
    }

    /// How many of the six rigid motions (three translations, three rotations about the centroid) move
    /// no fixed DOF: the rank deficiency of their values at the fixed DOFs, lengths measured in the
    /// sheet's size so that translations and rotations weigh alike.
    pub fn free_rigid_motions(&self, constraints: &ShellConstraints) -> usize {
        let n = self.positions.len() as f64;
        let centroid = self.positions.iter().sum::<Vector3<f64>>() / n;
        let size = self.positions.iter().map(|p| (p - centroid).norm()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let mut gram = nalgebra::Matrix6::<f64>::zeros();
        for (v, fixed) in constraints.fixed.iter().enumerate() {
            let x = (self.positions[v] - centroid) / size;
            for (k, _) in fixed.iter().enumerate().filter(|(_, f)| **f) {
                // Row: DOF k of vertex v under each rigid motion (translation e_j, rotation e_j x x).
                let mut row = nalgebra::Vector6::<f64>::zeros();
                for j in 0..3 {
                    let e = Vector3::ith(j, 1.0);
                    if k < 3 {
                        row[j] = e[k];
                        row[3 + j] = e.cross(&x)[k];
                    } else {
                        row[3 + j] = e[k - 3];
                    }
                }
                gram += row * row.transpose();
            }
        }
        let eigen = gram.symmetric_eigenvalues();
        let largest = eigen.max();
        eigen.iter().filter(|&&e| e <= 1e-10 * largest || largest == 0.0).count()
    }

    /// Refuses lists of the wrong length, a vertex in no triangle that is not fully held, and fixed DOFs
    /// that leave a rigid motion free.
    pub(crate) fn check(&self, constraints: &ShellConstraints, load: &ShellLoad) -> Result<(), ShellError> {
        self.check_lists(constraints, load)?;
        let free_rigid = self.free_rigid_motions(constraints);
        if free_rigid > 0 {
            return Err(ShellError::NotHeld { free: free_rigid });
        }
        Ok(())
    }

    /// Refuses lists of the wrong length and a vertex in no triangle that is not fully held (the
    /// contact solve's check: its obstacles may hold what the fixed DOFs leave free).
    pub(crate) fn check_lists(&self, constraints: &ShellConstraints, load: &ShellLoad) -> Result<(), ShellError> {
        for (what, got) in [("shell constraints", constraints.fixed.len()), ("shell load", load.nodal.len())] {
            if got != self.vertices {
                return Err(ShellError::SizeMismatch { what, expected: self.vertices, got });
            }
        }
        if !load.follower.is_empty() && load.follower.len() != self.triangles.len() {
            return Err(ShellError::SizeMismatch {
                what: "follower pressure (one per facet)",
                expected: self.triangles.len(),
                got: load.follower.len(),
            });
        }
        let mut used = vec![false; self.vertices];
        self.triangles.iter().flatten().for_each(|&v| used[v] = true);
        if let Some(v) = (0..self.vertices).find(|&v| !used[v] && constraints.fixed[v].iter().any(|f| !f)) {
            return Err(ShellError::OrphanVertex(v));
        }
        Ok(())
    }

    /// The `count` lowest modes `K phi = omega^2 M phi` over the free DOFs of `constraints`, with the
    /// lumped mass (`rho h A / 3` per node and translation; the plate's rotary inertia
    /// `rho h^3 / 12 A / 3` per node and rotation, which keeps `M` positive definite and lowers a bending
    /// frequency by a relative `O((h / wavelength)^2)` only), by the crate's subspace iteration
    /// (`modes.rs`).
    pub fn modes(&self, constraints: &ShellConstraints, count: usize) -> Result<ShellModes, ShellError> {
        self.check(constraints, &ShellLoad::zero(self.vertices))?;
        let (reduced, free) = reduced_numbering(constraints);
        if count == 0 || count > free {
            return Err(ShellError::Fem(FemError::Solver {
                solver: "modes",
                detail: format!("{count} modes asked of a sheet with {free} free degrees of freedom"),
            }));
        }
        let (k, m) = (self.reduced_stiffness(&reduced, free), self.reduced_lumped_mass(&reduced, free));
        let crate::modes::Subspace { x, lambdas, residuals, iterations } =
            crate::modes::subspace_iteration(&k, &m, &FaerCholesky::new(), count)?;
        let shapes = (0..count)
            .map(|i| {
                let mut shape = vec![[0.0; NODE_DOFS]; self.vertices];
                for (d, &r) in reduced.iter().enumerate() {
                    if r != usize::MAX {
                        shape[d / NODE_DOFS][d % NODE_DOFS] = x[(r, i)];
                    }
                }
                shape
            })
            .collect();
        Ok(ShellModes {
            angular: lambdas[..count].iter().map(|l| l.max(0.0).sqrt()).collect(),
            shapes,
            residuals,
            iterations,
        })
    }

    /// The stiffness over the free DOFs `reduced` (of [`reduced_numbering`]), `free x free`.
    pub(crate) fn reduced_stiffness(&self, reduced: &[usize], free: usize) -> CscMatrix<f64> {
        let mut k = CooMatrix::new(free, free);
        for (t, ke) in self.facets.iter().enumerate() {
            let dofs: Vec<usize> = self.facet_dofs(t).collect();
            for (a, &i) in dofs.iter().enumerate() {
                for (b, &j) in dofs.iter().enumerate() {
                    if reduced[i] != usize::MAX && reduced[j] != usize::MAX {
                        k.push(reduced[i], reduced[j], ke[(a, b)]);
                    }
                }
            }
        }
        CscMatrix::from(&k)
    }

    /// The lumped mass (translations kg, rotations kg m^2; see [`Self::modes`]) over the free DOFs
    /// `reduced`, a diagonal `free x free`: the one mass of the sheet's modes and dynamics.
    pub(crate) fn reduced_lumped_mass(&self, reduced: &[usize], free: usize) -> CscMatrix<f64> {
        let mut m = CooMatrix::new(free, free);
        for (i, &r) in reduced.iter().enumerate() {
            if r != usize::MAX {
                m.push(r, r, self.lumped_mass[i / NODE_DOFS][i % NODE_DOFS]);
            }
        }
        CscMatrix::from(&m)
    }

    /// [`solve_with`](Self::solve_with) with the crate's sparse Cholesky.
    pub fn solve(&self, constraints: &ShellConstraints, load: &ShellLoad) -> Result<ShellSolution, ShellError> {
        self.solve_with(constraints, load, &FaerCholesky::new())
    }

    /// Solves `K u = f` for the free DOFs, with the fixed DOFs at their prescribed values.
    pub fn solve_with(
        &self,
        constraints: &ShellConstraints,
        load: &ShellLoad,
        solver: &dyn LinearSolver,
    ) -> Result<ShellSolution, ShellError> {
        self.check(constraints, load)?;
        // Reduced numbering of the free DOFs.
        let (reduced, free) = reduced_numbering(constraints);
        let value = |i: usize| constraints.values[i / NODE_DOFS][i % NODE_DOFS];
        // A follower pressure at the rest geometry: the linear theory's load.
        let follower = pbdfit_mesh::TrianglePressure::nodal_forces(&self.triangles, &load.follower, &self.positions);
        let mut f: Vec<f64> = (0..self.dofs())
            .filter(|&i| reduced[i] != usize::MAX)
            .map(|i| {
                let (v, k) = (i / NODE_DOFS, i % NODE_DOFS);
                load.nodal[v][k] + if k < 3 { follower[v][k] } else { 0.0 }
            })
            .collect();
        let mut coo = CooMatrix::new(free, free);
        for (t, k) in self.facets.iter().enumerate() {
            let dofs: Vec<usize> = self.facet_dofs(t).collect();
            for (a, &i) in dofs.iter().enumerate() {
                let ri = reduced[i];
                if ri == usize::MAX {
                    continue;
                }
                for (b, &j) in dofs.iter().enumerate() {
                    match reduced[j] {
                        usize::MAX => f[ri] -= k[(a, b)] * value(j),
                        rj => coo.push(ri, rj, k[(a, b)]),
                    }
                }
            }
        }
        let u_free = solver.solve(&CscMatrix::from(&coo), &f)?;
        let mut displacements = constraints.values.clone();
        for (i, &r) in reduced.iter().enumerate() {
            if r != usize::MAX {
                displacements[i / NODE_DOFS][i % NODE_DOFS] = u_free[r];
            }
        }
        Ok(ShellSolution { displacements })
    }
}

/// A nonlinear shell solve's start: a rotation held at a value other than zero refused (the corotational
/// shell holds rotations at zero only), then the free DOFs' reduced numbers, their count and the dead load on
/// them (N, N m).
pub(crate) fn reduced_dead_load(
    constraints: &ShellConstraints,
    load: &ShellLoad,
) -> Result<(Vec<usize>, usize, Vec<f64>), ShellError> {
    if let Some(v) = (0..constraints.fixed.len())
        .find(|&v| (3..NODE_DOFS).any(|k| constraints.fixed[v][k] && constraints.values[v][k] != 0.0))
    {
        return Err(ShellError::PrescribedRotation(v));
    }
    let (reduced, free) = reduced_numbering(constraints);
    let external = (0..reduced.len())
        .filter(|&i| reduced[i] != usize::MAX)
        .map(|i| load.nodal[i / NODE_DOFS][i % NODE_DOFS])
        .collect();
    Ok((reduced, free, external))
}

/// The free DOFs' reduced numbers (`usize::MAX` at a fixed DOF) and their count.
pub(crate) fn reduced_numbering(constraints: &ShellConstraints) -> (Vec<usize>, usize) {
    let mut reduced = vec![usize::MAX; NODE_DOFS * constraints.fixed.len()];
    let mut free = 0;
    for (i, r) in reduced.iter_mut().enumerate() {
        if !constraints.fixed[i / NODE_DOFS][i % NODE_DOFS] {
            *r = free;
            free += 1;
        }
    }
    (reduced, free)
}
