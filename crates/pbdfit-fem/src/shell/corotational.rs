//! The geometrically nonlinear shell (large rotations, small strains): the same CST + DKT facet,
//! corotational.
//!
//! ## Formulation
//!
//! The state is each node's position `x_i` and rotation `R_i` (a rotation matrix, the identity at
//! rest). Each facet carries its own frame, built from the current triangle exactly as the linear
//! facet builds it from the rest one ([`FacetFrame`]: `e1` along the edge from node 0 to node 1, `e3`
//! its normal). In that frame the facet's deformation is what is left after its rigid motion is
//! removed: the in-plane translations `u_i = x̄_i - X̄_i`, `v_i = ȳ_i - Ȳ_i` (current local coordinates
//! less the rest ones; the normal translations are zero by construction) and the rotations
//! `theta_i = log(R_e R_i R_0^T)` (the node's rotation relative to the facet's, `R_e` and `R_0` the
//! current and rest frames). The facet's energy is the linear facet's `q^T K q / 2` of those local
//! DOFs ([`local_stiffness`] of the rest triangle), so the strains stay small while the rotations do
//! not (element-independent corotation, Rankin and Nour-Omid 1988; Felippa and Haugen 2005).
//!
//! The internal forces are the exact gradient of that energy with respect to the translations and the
//! spins `delta omega_i` (`R_i <- exp(delta omega_i) R_i`): the frame's spin follows from the nodal
//! translations (its tilt is minus the triangle's slope, its in-plane turn the turn of edge 0-1), and
//! the logarithm's variation is the inverse left Jacobian of SO(3). The energy depends on the state
//! only through `R_e x` and `R_e R_i`, so it is frame indifferent exactly (to round-off) and a rigid
//! rotation of any size gives zero force.
//!
//! The tangent is the consistent one, computed per facet by central differences of those exact forces
//! (18 perturbed evaluations each way, steps `1e-6` of the facet's size and `1e-6` rad): it carries the
//! geometric stiffness and the rotations' non-commutation without deriving them, and it is not
//! symmetric away from equilibrium (the spins are not a vector space), so it is solved by the sparse LU.
//! The standard corotational tangent (`B^T K B` with a projector, dropping the variation of `B`) would
//! save the differences but lose Newton's quadratic rate at large rotations; the differences cost 36
//! force evaluations of one facet per facet and iteration, negligible beside the solve.
//!
//! The equilibrium is solved by the crate's one Newton (`newton/`) with its load stepping
//! ([`CorotationalShell::solve`], [`SHELL_NEWTON`]: four increments to start with, doubled after a
//! success, halved after a failure). The step is Newton's full step, halved only where a facet would
//! collapse: a backtracking on the residual norm stalls, because the membrane is some `(L / h)^2`
//! stiffer than the bending, so a bending step raises the membrane forces (at second order) and with
//! them the residual norm before the next step removes them. The end test is the static solve's
//! (`|r| <= 1e-10 |f|`) or, where a full step no longer halves the residual, round-off: within the
//! round-off factor of the tolerance, or within the internal forces' own round-off (the membrane's
//! `E h` times the positions' `eps |x|`, summed over the facets), which for a thin strip under its
//! own weight is above `1e-8 |f|`; it is a membrane force, so it moves the nodes by some `eps |x|`.
//!
//! ## Follower pressure
//!
//! A pressure ([`ShellLoad::follower`], Pa per facet) acts on the deformed facets: `p N / 6` to each
//! translation of a facet, `N = (x1 - x0) x (x2 - x0)` its current winding normal times twice its area,
//! the load of an inflated or wind-loaded membrane. It depends on the state, so the Newton tangent gains
//! its load stiffness `-dF/dx`, exactly: `dN/dx_j = [x_{j-1} - x_{j+1}]x` (indices mod 3), which only
//! couples translations. That block is not symmetric facet by facet (a follower pressure is conservative
//! only on a closed surface or with its boundary held), and the tangent is solved by the sparse LU in any
//! case; Newton keeps its quadratic rate. A load step scales the pressure with the dead loads.
//!
//! Measured (tests in `tests/fem_tests/shell_nonlinear.rs`): at a load whose linear tip deflection is
//! `1e-3 L` the solution differs from the linear shell's by `5.7e-4` of it (the horizontal shortening,
//! of order `(w / L) w`, halving with the load) and the tip deflections by `8e-7`; the heavy strip
//! (`q L^3 / (E I) = 4.62`, tip drop `0.47 L`) converges to the heavy elastica at order 1.7, to
//! `1.0e-4` (drop) and `1.4e-4` (shortening) at 64 x 2 cells.
//!
//! ## What it cannot do
//!
//! - Small strains: the bending is linear in the corotated rotations; the membrane is linear in the
//!   corotated strain, or ([`MembraneLaw::StVenantKirchhoff`]) StVK on the corotated Green strain, which
//!   is frame indifferent at any in-plane stretch (a uniaxial stretch's force is
//!   `E h W (1 + s)(s + s^2 / 2)`, tested); the drilling penalty stays linear.
//! - Nodal moments act on the spins, which is not conservative at large rotation.
//! - A fixed rotation DOF holds that spin component at zero: prescribed rotations other than zero are
//!   refused. Prescribed translations are stepped with the load.

use nalgebra::{Matrix3, Rotation3, SMatrix, SVector, Vector3};
use nalgebra_sparse::{CooMatrix, CscMatrix};
use pbdfit_mesh::Sheet;

use super::element::plane_stress;
use super::{
    FacetFrame, FacetStiffness, LinearShell, NODE_DOFS, ShellConstraints, ShellError, ShellLoad, ShellSolution,
    local_stiffness, membrane_b, reduced_dead_load,
};
use crate::newton::{Admissible, Attempt, Growth, NewtonSettings, NewtonSystem, Outcome, Trial, newton, norm};
use crate::solver::{FaerLu, LinearSolver};
use crate::{FemError, YoungPoisson};

type Vector18 = SVector<f64, 18>;

/// The Newton step's search: the full step, halved (up to 12 times) only where a facet would collapse.
/// Not a backtracking on the residual norm: the membrane is some `(L / h)^2` stiffer than the bending,
/// so a bending step raises the membrane forces at second order and the residual norm first, and a
/// search on it stalls at steps of `2^-11`; Newton's full steps converge, and a load increment that
/// does not is halved.
pub(super) const SEARCH: Admissible = Admissible { tries: 12 };

/// The shell's Newton settings: the static solve's, loaded in four increments to start with.
pub const SHELL_NEWTON: NewtonSettings = NewtonSettings { initial_increments: 4, ..NewtonSettings::STATIC };

/// A configuration of the sheet: node positions (m) and node rotations, global frame.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellState {
    /// Current position of each vertex.
    pub positions: Vec<Vector3<f64>>,
    /// Rotation of each vertex from its rest orientation.
    pub rotations: Vec<Rotation3<f64>>,
}

impl ShellState {
    /// Every vertex moved by the rigid rotation `q` about the origin (positions and rotations).
    pub fn rotated(&self, q: &Rotation3<f64>) -> Self {
        Self {
            positions: self.positions.iter().map(|p| q * p).collect(),
            rotations: self.rotations.iter().map(|r| q * r).collect(),
        }
    }
}

/// A solved nonlinear shell.
#[derive(Debug, Clone, PartialEq)]
pub struct CorotationalSolution {
    /// The deformed configuration.
    pub state: ShellState,
    /// Translations `x - X` and rotation vectors `log R` per vertex (m, rad).
    pub displacements: ShellSolution,
    /// Load increments that converged.
    pub increments: usize,
    /// Increments that failed and were halved.
    pub halvings: usize,
    /// Newton iterations in total.
    pub iterations: usize,
}

/// One facet at rest: its nodes, rest frame and local stiffness.
#[derive(Debug, Clone)]
struct RestFacet {
    nodes: [usize; 3],
    frame: FacetFrame,
    /// The local stiffness (without its membrane part under StVK).
    stiffness: FacetStiffness,
    /// Under StVK: `C A h` (N m) for the Green strain's energy.
    stvk: Option<Matrix3<f64>>,
    /// The largest entry of the whole linear local stiffness (N/m), for the round-off estimate.
    largest: f64,
}

/// The membrane's law in the corotated frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MembraneLaw {
    /// Linear in the corotated small strain (the linear facet's membrane).
    #[default]
    Linear,
    /// Saint Venant-Kirchhoff: the plane-stress law on the Green-Lagrange strain of the in-plane
    /// corotated displacements, `E = (H + H^T + H^T H) / 2` with `H` the CST's displacement gradient.
    StVenantKirchhoff,
}

/// The corotational shell of one sheet and material.
#[derive(Debug, Clone)]
pub struct CorotationalShell {
    pub(super) linear: LinearShell,
    /// The internal forces' round-off (N): `10 eps sqrt(sum_e (max |K_e| X)^2)` with `X` the sheet's
    /// extent, the error of forces computed from positions stored to `eps X`.
    pub(super) noise: f64,
    pub(super) rest: Vec<Vector3<f64>>,
    facets: Vec<RestFacet>,
}

/// `[v]x`, the cross-product matrix.
fn skew(v: &Vector3<f64>) -> Matrix3<f64> {
    v.cross_matrix()
}

/// The rotation vector of `q`, accurate for small angles (from the skew part, not the trace alone).
pub fn rotation_vector(q: &Matrix3<f64>) -> Vector3<f64> {
    let v = 0.5 * Vector3::new(q[(2, 1)] - q[(1, 2)], q[(0, 2)] - q[(2, 0)], q[(1, 0)] - q[(0, 1)]);
    let s = v.norm();
    let c = 0.5 * (q.trace() - 1.0);
    let angle = s.atan2(c);
    if s < 1e-8 {
        return v * (1.0 + angle * angle / 6.0);
    }
    if angle > 3.0 {
        // Near pi the skew part is small: the axis from the symmetric part.
        let b = (q + q.transpose()) * 0.5 - Matrix3::identity() * c;
        let col = (0..3).max_by(|&i, &j| b[(i, i)].total_cmp(&b[(j, j)])).unwrap_or(0);
        let mut axis = b.column(col).into_owned().normalize();
        if axis.dot(&v) < 0.0 {
            axis = -axis;
        }
        return axis * angle;
    }
    v * (angle / s)
}

/// The inverse left Jacobian of SO(3) at `theta`: `log(exp(s) exp(theta)) = theta + J^-1 s + O(s^2)`.
fn inverse_left_jacobian(theta: &Vector3<f64>) -> Matrix3<f64> {
    let a = theta.norm();
    let w = skew(theta);
    let c = if a < 1e-3 { 1.0 / 12.0 + a * a / 720.0 } else { 1.0 / (a * a) - (1.0 + a.cos()) / (2.0 * a * a.sin()) };
    Matrix3::identity() - w * 0.5 + w * w * c
}

impl RestFacet {
    /// The energy (J) and the internal forces (18: force and moment per node, global frame) at the
    /// current positions `p` and rotations `r`; [`ShellError::DegenerateFacet`] where it collapsed.
    fn forces(&self, p: [Vector3<f64>; 3], r: [&Matrix3<f64>; 3]) -> Result<(f64, Vector18), ShellError> {
        let current = FacetFrame::new(p)?;
        let (re, r0) = (current.rotation, self.frame.rotation);
        let mut q = Vector18::zeros();
        let mut jinv = [Matrix3::identity(); 3];
        for i in 0..3 {
            q[6 * i] = current.x[i] - self.frame.x[i];
            q[6 * i + 1] = current.y[i] - self.frame.y[i];
            let theta = rotation_vector(&(re * r[i] * r0.transpose()));
            q.fixed_rows_mut::<3>(6 * i + 3).copy_from(&theta);
            jinv[i] = inverse_left_jacobian(&theta);
        }
        let mut f_local = self.stiffness * q;
        let mut energy = 0.5 * q.dot(&f_local);
        if let Some(cah) = &self.stvk {
            let (b, c) = self.frame.gradients();
            let (mut ux, mut uy, mut vx, mut vy) = (0.0, 0.0, 0.0, 0.0);
            for i in 0..3 {
                (ux, uy) = (ux + b[i] * q[6 * i], uy + c[i] * q[6 * i]);
                (vx, vy) = (vx + b[i] * q[6 * i + 1], vy + c[i] * q[6 * i + 1]);
            }
            let green = Vector3::new(
                ux + 0.5 * (ux * ux + vx * vx),
                vy + 0.5 * (uy * uy + vy * vy),
                uy + vx + ux * uy + vx * vy,
            );
            let stress = cah * green;
            energy += 0.5 * green.dot(&stress);
            for i in 0..3 {
                let du = Vector3::new((1.0 + ux) * b[i], uy * c[i], (1.0 + ux) * c[i] + uy * b[i]);
                let dv = Vector3::new(vx * b[i], (1.0 + vy) * c[i], (1.0 + vy) * b[i] + vx * c[i]);
                f_local[6 * i] += du.dot(&stress);
                f_local[6 * i + 1] += dv.dot(&stress);
            }
        }
        // The frame's spin (local components) over the local components of the global variations.
        let (b, c) = current.gradients();
        let mut phi = SMatrix::<f64, 3, 18>::zeros();
        for i in 0..3 {
            phi[(0, 6 * i + 2)] = c[i];
            phi[(1, 6 * i + 2)] = -b[i];
        }
        phi[(2, 7)] += 1.0 / current.x[1];
        phi[(2, 1)] -= 1.0 / current.x[1];
        // dq = B dg over the variations g = (R_e dx_i, R_e d omega_i).
        let mut bq = SMatrix::<f64, 18, 18>::zeros();
        for i in 0..3 {
            bq[(6 * i, 6 * i)] += 1.0;
            bq[(6 * i, 0)] -= 1.0;
            bq[(6 * i + 1, 6 * i + 1)] += 1.0;
            bq[(6 * i + 1, 1)] -= 1.0;
            for col in 0..18 {
                bq[(6 * i, col)] += phi[(2, col)] * current.y[i];
                bq[(6 * i + 1, col)] -= phi[(2, col)] * current.x[i];
            }
            let mut spin = -phi;
            for k in 0..3 {
                spin[(k, 6 * i + 3 + k)] += 1.0;
            }
            bq.fixed_view_mut::<3, 18>(6 * i + 3, 0).copy_from(&(jinv[i] * spin));
        }
        let g = bq.transpose() * f_local;
        let mut f = Vector18::zeros();
        for block in 0..6 {
            let local = g.fixed_rows::<3>(3 * block).into_owned();
            f.fixed_rows_mut::<3>(3 * block).copy_from(&(re.transpose() * local));
        }
        Ok((energy, f))
    }
}

impl CorotationalShell {
    /// The facets of `sheet` (its thickness) with the isotropic `material` and the linear membrane.
    pub fn new(sheet: &Sheet, material: YoungPoisson) -> Result<Self, ShellError> {
        Self::with_membrane(sheet, material, MembraneLaw::Linear)
    }

    /// The facets of `sheet` with the isotropic `material` and the membrane law `membrane`.
    pub fn with_membrane(sheet: &Sheet, material: YoungPoisson, membrane: MembraneLaw) -> Result<Self, ShellError> {
        let linear = LinearShell::new(sheet, material)?;
        let mesh = &sheet.mesh;
        let facets: Vec<RestFacet> = mesh
            .triangles()
            .iter()
            .enumerate()
            .map(|(t, &nodes)| {
                let frame = FacetFrame::new(mesh.triangle_points(t)).map_err(|e| match e {
                    ShellError::DegenerateFacet { area, .. } => ShellError::DegenerateFacet { triangle: t, area },
                    other => other,
                })?;
                let mut stiffness = local_stiffness(&frame, material, sheet.thickness());
                let largest = stiffness.abs().max();
                let stvk = match membrane {
                    MembraneLaw::Linear => None,
                    MembraneLaw::StVenantKirchhoff => {
                        // The linear membrane `A h B^T C B` on (u, v) leaves the stiffness.
                        let cah = plane_stress(material) * (frame.area * sheet.thickness());
                        let bm = membrane_b(&frame);
                        let km = bm.transpose() * cah * bm;
                        for a in 0..3 {
                            for b in 0..3 {
                                for (r, s) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                                    stiffness[(6 * a + r, 6 * b + s)] -= km[(2 * a + r, 2 * b + s)];
                                }
                            }
                        }
                        Some(cah)
                    }
                };
                Ok(RestFacet { nodes, frame, stiffness, stvk, largest })
            })
            .collect::<Result<_, ShellError>>()?;
        let extent = mesh.vertices().iter().map(|p| p.norm()).fold(0.0, f64::max);
        let noise =
            10.0 * f64::EPSILON * facets.iter().map(|f: &RestFacet| (f.largest * extent).powi(2)).sum::<f64>().sqrt();
        Ok(Self { linear, noise, rest: mesh.vertices().to_vec(), facets })
    }

    /// The linear shell of the same sheet (the tangent at rest).
    pub fn linear(&self) -> &LinearShell {
        &self.linear
    }

    /// The facets' typical size (m): the root of their mean area.
    pub(super) fn element_size(&self) -> f64 {
        (self.facets.iter().map(|f| f.frame.area).sum::<f64>() / self.facets.len().max(1) as f64).sqrt()
    }

    /// The undeformed configuration.
    pub fn rest_state(&self) -> ShellState {
        ShellState { positions: self.rest.clone(), rotations: vec![Rotation3::identity(); self.rest.len()] }
    }

    fn facet_forces(&self, facet: &RestFacet, state: &ShellState) -> Result<(f64, Vector18), ShellError> {
        let p = facet.nodes.map(|v| state.positions[v]);
        let r = facet.nodes.map(|v| state.rotations[v].matrix());
        facet.forces(p, [r[0], r[1], r[2]]).map_err(|e| match e {
            ShellError::DegenerateFacet { area, .. } => ShellError::DegenerateFacet {
                triangle: self.facets.iter().position(|f| std::ptr::eq(f, facet)).unwrap_or(0),
                area,
            },
            other => other,
        })
    }

    /// The strain energy (J) and the internal forces per vertex `[f_x, f_y, f_z, m_x, m_y, m_z]` (N, N m;
    /// the moments conjugate to the spins), global frame, at `state`.
    pub fn internal_forces(&self, state: &ShellState) -> Result<(f64, Vec<[f64; NODE_DOFS]>), ShellError> {
        let mut forces = vec![[0.0; NODE_DOFS]; self.rest.len()];
        let mut energy = 0.0;
        for facet in &self.facets {
            let (e, f) = self.facet_forces(facet, state)?;
            energy += e;
            for (a, &v) in facet.nodes.iter().enumerate() {
                for k in 0..NODE_DOFS {
                    forces[v][k] += f[NODE_DOFS * a + k];
                }
            }
        }
        Ok((energy, forces))
    }

    /// The follower pressures `pressure` (Pa per facet, empty: none) as nodal forces (N, per vertex, the
    /// translations') at `state`: `p (x1 - x0) x (x2 - x0) / 6` to each node of a facet.
    pub fn follower_forces(&self, state: &ShellState, pressure: &[f64]) -> Vec<Vector3<f64>> {
        let triangles: Vec<[usize; 3]> = self.facets.iter().map(|f| f.nodes).collect();
        pbdfit_mesh::TrianglePressure::nodal_forces(&triangles, pressure, &state.positions)
    }

    /// The consistent tangent over the reduced DOFs, by central differences of each facet's forces, with
    /// the load stiffness of the follower pressures `pressure` (Pa per facet, at their current load level;
    /// empty: none), `-dF/dx` exactly.
    pub(super) fn tangent(
        &self,
        state: &ShellState,
        reduced: &[usize],
        free: usize,
        pressure: &[f64],
    ) -> Result<CscMatrix<f64>, ShellError> {
        let mut coo = CooMatrix::new(free, free);
        for (facet, &p) in self.facets.iter().zip(pressure) {
            if p == 0.0 {
                continue;
            }
            let x = facet.nodes.map(|v| state.positions[v]);
            for j in 0..3 {
                // dF_i/dx_j = p / 6 [x_{j-1} - x_{j+1}]x for each node i; the residual carries -F.
                let block = skew(&(x[(j + 2) % 3] - x[(j + 1) % 3])) * (-p / 6.0);
                for i in 0..3 {
                    for a in 0..3 {
                        let ri = reduced[NODE_DOFS * facet.nodes[i] + a];
                        if ri == usize::MAX {
                            continue;
                        }
                        for b in 0..3 {
                            let rj = reduced[NODE_DOFS * facet.nodes[j] + b];
                            if rj != usize::MAX {
                                coo.push(ri, rj, block[(a, b)]);
                            }
                        }
                    }
                }
            }
        }
        for facet in &self.facets {
            let size = facet.frame.area.sqrt();
            let dofs: Vec<usize> =
                facet.nodes.iter().flat_map(|&v| (0..NODE_DOFS).map(move |k| NODE_DOFS * v + k)).collect();
            let p = facet.nodes.map(|v| state.positions[v]);
            let r = facet.nodes.map(|v| *state.rotations[v].matrix());
            for (b, &j) in dofs.iter().enumerate() {
                let rj = reduced[j];
                if rj == usize::MAX {
                    continue;
                }
                let (node, k) = (b / NODE_DOFS, b % NODE_DOFS);
                let h = if k < 3 { 1e-6 * size } else { 1e-6 };
                let mut column = Vector18::zeros();
                for sign in [1.0, -1.0] {
                    let (mut pp, mut rr) = (p, r);
                    if k < 3 {
                        pp[node][k] += sign * h;
                    } else {
                        let spin = Vector3::ith(k - 3, sign * h);
                        rr[node] = *Rotation3::new(spin).matrix() * rr[node];
                    }
                    let (_, f) = facet.forces(pp, [&rr[0], &rr[1], &rr[2]])?;
                    column += f * (sign / (2.0 * h));
                }
                for (a, &i) in dofs.iter().enumerate() {
                    if reduced[i] != usize::MAX {
                        coo.push(reduced[i], rj, column[a]);
                    }
                }
            }
        }
        Ok(CscMatrix::from(&coo))
    }

    /// `state` moved by `alpha step` over the free DOFs (translations added, spins composed).
    pub(super) fn update(&self, state: &ShellState, reduced: &[usize], step: &[f64], alpha: f64) -> ShellState {
        let mut next = state.clone();
        for v in 0..self.rest.len() {
            let d = |k: usize| match reduced[NODE_DOFS * v + k] {
                usize::MAX => 0.0,
                r => alpha * step[r],
            };
            next.positions[v] += Vector3::new(d(0), d(1), d(2));
            let spin = Vector3::new(d(3), d(4), d(5));
            if spin != Vector3::zeros() {
                next.rotations[v] = Rotation3::new(spin) * next.rotations[v];
                next.rotations[v].renormalize();
            }
        }
        next
    }

    /// The displacements (translations and rotation vectors) of `state`.
    pub fn displacements(&self, state: &ShellState) -> ShellSolution {
        let displacements = (0..self.rest.len())
            .map(|v| {
                let (t, r) = (state.positions[v] - self.rest[v], rotation_vector(state.rotations[v].matrix()));
                [t.x, t.y, t.z, r.x, r.y, r.z]
            })
            .collect();
        ShellSolution { displacements }
    }

    /// The equilibrium under `load` with `constraints`, by Newton's method with load stepping under
    /// `settings` (for example [`SHELL_NEWTON`]).
    pub fn solve(
        &self,
        constraints: &ShellConstraints,
        load: &ShellLoad,
        settings: &NewtonSettings,
    ) -> Result<CorotationalSolution, ShellError> {
        self.linear.check(constraints, load)?;
        let (reduced, free, external) = reduced_dead_load(constraints, load)?;
        // The whole load's scale: the dead loads and the follower pressures at rest.
        let at_rest = self.follower_forces(&self.rest_state(), &load.follower);
        let whole: Vec<f64> = (0..NODE_DOFS * self.rest.len())
            .filter(|&i| reduced[i] != usize::MAX)
            .map(|i| {
                let (v, k) = (i / NODE_DOFS, i % NODE_DOFS);
                load.nodal[v][k] + if k < 3 { at_rest[v][k] } else { 0.0 }
            })
            .collect();
        let scale = norm(&whole);
        let mut solution = CorotationalSolution {
            state: self.rest_state(),
            displacements: ShellSolution { displacements: Vec::new() },
            increments: 0,
            halvings: 0,
            iterations: 0,
        };
        let stepping = settings.load_stepping(1.0 / settings.initial_increments.max(1) as f64, 0.0, Growth::Double);
        let halvings = stepping.run(
            |_, target| {
                let mut start = solution.state.clone();
                for (v, p) in start.positions.iter_mut().enumerate() {
                    for k in 0..3 {
                        if constraints.fixed[v][k] {
                            p[k] = self.rest[v][k] + target * constraints.values[v][k];
                        }
                    }
                }
                let mut system = Increment {
                    shell: self,
                    reduced: &reduced,
                    free,
                    external: external.iter().map(|f| target * f).collect(),
                    follower: load.follower.iter().map(|p| target * p).collect(),
                    scale,
                    previous: f64::INFINITY,
                };
                Ok(match newton(&mut system, &SEARCH, settings, start)? {
                    Ok((iterations, next, _)) => {
                        solution.iterations += iterations;
                        solution.increments += 1;
                        solution.state = next;
                        Outcome::Converged
                    }
                    Err(failed) => {
                        solution.iterations += failed.1;
                        Outcome::Failed(failed)
                    }
                })
            },
            |(residual, iterations), target, step| {
                ShellError::Fem(FemError::NewtonFailed {
                    material: "corotational shell",
                    load: target,
                    increment: step,
                    residual,
                    iterations,
                    tolerance: settings.relative_tolerance,
                })
            },
        )?;
        solution.halvings = halvings;
        solution.displacements = self.displacements(&solution.state);
        Ok(solution)
    }
}

/// One load increment's equilibrium: residual `f_int - lambda f_ext` over the free DOFs, relative to
/// the whole load's norm (to the first residual where there is no load).
struct Increment<'a> {
    shell: &'a CorotationalShell,
    reduced: &'a [usize],
    free: usize,
    external: Vec<f64>,
    /// The follower pressures at this increment's load level (Pa per facet; empty: none).
    follower: Vec<f64>,
    scale: f64,
    /// The relative residual of the previous iterate.
    previous: f64,
}

/// The residual and its relative norm.
type Evaluated = (Vec<f64>, f64);

impl Increment<'_> {
    fn at(&mut self, state: &ShellState) -> Result<Option<Evaluated>, FemError> {
        let forces = match self.shell.internal_forces(state) {
            Ok((_, forces)) => forces,
            Err(ShellError::DegenerateFacet { .. }) => return Ok(None),
            Err(ShellError::Fem(e)) => return Err(e),
            Err(other) => return Err(FemError::Solver { solver: "corotational shell", detail: other.to_string() }),
        };
        let mut r = self.external.iter().map(|f| -f).collect::<Vec<f64>>();
        let pressure = self.shell.follower_forces(state, &self.follower);
        for (i, &ri) in self.reduced.iter().enumerate() {
            if ri != usize::MAX {
                let (v, k) = (i / NODE_DOFS, i % NODE_DOFS);
                r[ri] += forces[v][k] - if k < 3 { pressure[v][k] } else { 0.0 };
            }
        }
        if self.scale == 0.0 {
            self.scale = norm(&r);
        }
        let n = if self.scale > 0.0 { norm(&r) / self.scale } else { 0.0 };
        Ok(Some((r, n)))
    }
}

impl NewtonSystem for Increment<'_> {
    type State = ShellState;
    type Evaluation = Evaluated;
    /// The relative residual and the iterations.
    type Failure = (f64, usize);

    fn evaluate(&mut self, iteration: usize, state: &ShellState) -> Attempt<Evaluated, (f64, usize)> {
        Ok(self.at(state)?.ok_or((f64::INFINITY, iteration)))
    }

    /// Converged at the tolerance, or stalled at round-off: within the round-off factor of the
    /// tolerance (or within the internal forces' round-off) where a full step no longer halves the
    /// residual.
    fn converged(&mut self, iteration: usize, _: &ShellState, at: &Evaluated, s: &NewtonSettings) -> bool {
        let floor = self.shell.noise / self.scale;
        settled(s, iteration, 2, at.1, &mut self.previous, floor)
    }

    fn step(&mut self, iteration: usize, state: &ShellState, at: &Evaluated) -> Attempt<Vec<f64>, (f64, usize)> {
        let k = match self.shell.tangent(state, self.reduced, self.free, &self.follower) {
            Ok(k) => k,
            Err(_) => return Ok(Err((at.1, iteration))),
        };
        let minus_r: Vec<f64> = at.0.iter().map(|x| -x).collect();
        Ok(FaerLu.solve(&k, &minus_r).map_err(|_| (at.1, iteration)))
    }

    fn trial(&mut self, state: &ShellState, step: &[f64], alpha: f64) -> Result<Trial<Self>, FemError> {
        let next = self.shell.update(state, self.reduced, step, alpha);
        Ok(self.at(&next)?.map(|at| {
            let n = at.1;
            ((next, Some(at)), n)
        }))
    }

    fn failure(&mut self, iterations: usize, at: &Evaluated) -> (f64, usize) {
        (at.1, iterations)
    }

    fn stalled(&mut self, iteration: usize, at: &Evaluated, settings: &NewtonSettings) -> Result<(), (f64, usize)> {
        if at.1 <= settings.round_off_tolerance() { Ok(()) } else { Err((at.1, iteration + 1)) }
    }
}

/// Whether a shell's Newton iterate `iteration` is done at relative residual `residual`: converged at the
/// settings' tolerance, or, from iteration `from` on, stalled at round-off: within the settings' round-off
/// factor of the tolerance or within `floor` (the forces' round-off over the residual's scale), where a
/// full step no longer halves the previous iterate's residual, `previous` (updated to `residual`). The
/// static increments' test and the time steps'.
pub(super) fn settled(
    s: &NewtonSettings,
    iteration: usize,
    from: usize,
    residual: f64,
    previous: &mut f64,
    floor: f64,
) -> bool {
    let floor = s.round_off_tolerance().max(floor);
    let stalled = iteration >= from && residual <= floor && residual > 0.5 * *previous;
    *previous = residual;
    residual <= s.relative_tolerance || stalled
}
