//! Modal analysis, the yardstick for motion: the lowest natural frequencies and mode shapes of the body
//! about its undeformed state, `K0 phi = omega^2 M phi` over the free DOFs (held vertices fixed), with
//! `K0` the law's tangent at rest (every law's small-strain stiffness: the linear material's) and `M`
//! lumped (the body's vertex masses) or consistent.
//!
//! Method: subspace iteration with Rayleigh-Ritz (Bathe's), on `p = min(2 count, count + 8)` vectors
//! (at most the DOFs): `Y = K0^-1 M X` by one sparse Cholesky factor of `K0`, then the `p x p` problem
//! `(Y^T K0 Y) q = lambda (Y^T M Y) q` (with `K0 Y = M X`, no product by `K0`) solved densely, and
//! `X = Y Q`, mass-normalised. The start is deterministic (a fixed pseudo-random block), so results
//! are reproducible bit for bit. Stops when each wanted pair's residual `|K0 phi - lambda M phi| / |K0
//! phi|` is at most [`MODE_TOLERANCE`], or fails after [`MODE_ITERATIONS`] iterations naming the residual.
//! Convergence is at the rate `lambda_i / lambda_(p+1)` per iteration, so a cluster of equal frequencies
//! (a square beam's two bending directions) converges as fast as a single one.

use nalgebra::{DMatrix, Vector3};
use nalgebra_sparse::CscMatrix;

use crate::dynamic::MassMatrix;
use crate::materials::Material;
use crate::solver::{FaerCholesky, multiply};
use crate::{FemError, StaticProblem, YoungPoisson};

/// Residual at which a mode counts as converged (its frequency is then exact to about the residual's
/// square; tighter stalls at round-off on meshes of some 10^4 DOFs).
pub const MODE_TOLERANCE: f64 = 1e-6;
/// The most subspace iterations.
pub const MODE_ITERATIONS: usize = 1000;

/// The lowest modes of a body.
#[derive(Debug, Clone, PartialEq)]
pub struct Modes {
    /// Angular frequencies `omega_i` (rad/s), ascending.
    pub angular: Vec<f64>,
    /// Mode shapes per vertex (m per unit modal coordinate), mass-normalised (`phi^T M phi = 1`), zero at
    /// held vertices; the sign makes the largest component positive.
    pub shapes: Vec<Vec<Vector3<f64>>>,
    /// Each mode's residual `|K0 phi - omega^2 M phi| / |K0 phi|` at the end.
    pub residuals: Vec<f64>,
    /// Subspace iterations done.
    pub iterations: usize,
    /// The mass matrix used.
    pub mass: MassMatrix,
}

impl Modes {
    /// Frequencies `f_i = omega_i / (2 pi)` in Hz.
    pub fn frequencies(&self) -> Vec<f64> {
        self.angular.iter().map(|w| w / std::f64::consts::TAU).collect()
    }
}

/// A reproducible start block: values in [-1, 1) from a 64-bit linear congruential sequence.
fn start_block(dofs: usize, p: usize) -> DMatrix<f64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    DMatrix::from_fn(dofs, p, |_, _| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    })
}

impl StaticProblem {
    /// The `count` lowest modes of the body for `law` at `material` about the undeformed state (see the
    /// module doc). Fails without masses, on a body with obstacles (its contacts make the problem
    /// nonlinear), for `count` 0 or above the free DOFs, or when the subspace iteration does not converge.
    pub fn modes(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        mass: MassMatrix,
        count: usize,
    ) -> Result<Modes, FemError> {
        let invalid = |detail: String| FemError::Solver { solver: "modes", detail };
        if self.contact.is_some() {
            return Err(FemError::ContactUnsupported(self.obstacles().len()));
        }
        let map = self.assembler.dof_map();
        let dofs = map.dofs();
        if count == 0 || count > dofs {
            return Err(invalid(format!("{count} modes asked of a body with {dofs} free degrees of freedom")));
        }
        let m = self.mass_matrix(mass, "modes")?;
        let zero = vec![Vector3::zeros(); map.vertices()];
        let (k0, _) = self.assembler.nonlinear_system(law, material, &zero)?;
        let Subspace { x, lambdas, residuals, iterations } = subspace_iteration(&k0, &m, &self.solver.direct, count)?;
        Ok(self.finish_modes(&x, &lambdas[..count], residuals, iterations, mass))
    }

    /// `v_i^T M v_j` for fields `v` over the vertices (their free DOFs): with mode shapes, the identity
    /// (mass-orthonormality); with a mode and a displacement, its modal coordinate.
    pub fn mass_products(&self, fields: &[Vec<Vector3<f64>>], mass: MassMatrix) -> Result<DMatrix<f64>, FemError> {
        let m = self.mass_matrix(mass, "modes")?;
        let map = self.assembler.dof_map();
        let free = |field: &[Vector3<f64>]| {
            let mut x = vec![0.0; map.dofs()];
            for (v, u) in field.iter().enumerate() {
                if let Some(d) = map.dof(v, 0) {
                    x[d..d + 3].copy_from_slice(u.as_slice());
                }
            }
            x
        };
        let vectors: Vec<Vec<f64>> = fields.iter().map(|f| free(f)).collect();
        let mut mv = vec![0.0; map.dofs()];
        let mut out = DMatrix::zeros(fields.len(), fields.len());
        for (j, b) in vectors.iter().enumerate() {
            multiply(&m, b, &mut mv);
            for (i, a) in vectors.iter().enumerate() {
                out[(i, j)] = a.iter().zip(&mv).map(|(x, y)| x * y).sum();
            }
        }
        Ok(out)
    }

    fn finish_modes(
        &self,
        x: &DMatrix<f64>,
        lambdas: &[f64],
        residuals: Vec<f64>,
        iterations: usize,
        mass: MassMatrix,
    ) -> Modes {
        let map = self.assembler.dof_map();
        let shapes = (0..lambdas.len())
            .map(|i| {
                let phi = x.column(i);
                // Sign: the component of largest magnitude positive (x is mass-normalised by Rayleigh-Ritz).
                let largest = phi.iter().copied().fold(0.0f64, |a, b| if b.abs() > a.abs() { b } else { a });
                let sign = if largest < 0.0 { -1.0 } else { 1.0 };
                (0..map.vertices())
                    .map(|v| match map.dof(v, 0) {
                        Some(d) => Vector3::new(phi[d], phi[d + 1], phi[d + 2]) * sign,
                        None => Vector3::zeros(),
                    })
                    .collect()
            })
            .collect();
        Modes { angular: lambdas.iter().map(|l| l.max(0.0).sqrt()).collect(), shapes, residuals, iterations, mass }
    }
}

/// A converged subspace iteration: the block, its eigenvalues, the wanted pairs' residuals, the
/// iterations.
pub(crate) struct Subspace {
    /// The last block `X` (mass-normalised columns, ascending eigenvalues).
    pub(crate) x: DMatrix<f64>,
    /// Its `p` eigenvalues `omega^2`, ascending.
    pub(crate) lambdas: Vec<f64>,
    /// The `count` wanted pairs' residuals.
    pub(crate) residuals: Vec<f64>,
    /// Iterations done.
    pub(crate) iterations: usize,
}

/// The subspace iteration of the module doc on an assembled stiffness `k0` (symmetric positive definite,
/// over the free DOFs) and mass `m`: the last block `X` (mass-normalised, ascending), its `p` eigenvalues
/// `omega^2`, the `count` wanted residuals and the iterations. For any body whose matrices are assembled
/// (a solid's [`StaticProblem::modes`], a sheet's shell).
pub(crate) fn subspace_iteration(
    k0: &CscMatrix<f64>,
    m: &CscMatrix<f64>,
    direct: &FaerCholesky,
    count: usize,
) -> Result<Subspace, FemError> {
    let invalid = |detail: String| FemError::Solver { solver: "modes", detail };
    let dofs = k0.nrows();
    let mut factor = direct.factor(k0)?;
    let p = (2 * count).min(count + 8).min(dofs);
    let mut x = start_block(dofs, p);
    let (mut mx, mut column) = (vec![0.0; dofs], vec![0.0; dofs]);
    let mut residuals = vec![f64::INFINITY; count];
    let mut lambdas = vec![0.0; p];
    for iteration in 1..=MODE_ITERATIONS {
        pbdfit_mesh::cancel::check()?;
        // Y = K0^-1 M X, keeping M X (= K0 Y) for the projected stiffness.
        let mut y = DMatrix::zeros(dofs, p);
        let mut kx = DMatrix::zeros(dofs, p);
        for j in 0..p {
            column.copy_from_slice(x.column(j).as_slice());
            multiply(m, &column, &mut mx);
            kx.column_mut(j).copy_from_slice(&mx);
            factor.solve_in_place(&mut mx);
            y.column_mut(j).copy_from_slice(&mx);
        }
        let mut my = DMatrix::zeros(dofs, p);
        for j in 0..p {
            column.copy_from_slice(y.column(j).as_slice());
            multiply(m, &column, &mut mx);
            my.column_mut(j).copy_from_slice(&mx);
        }
        // Each column scaled to a unit mass norm (with M X, its K0 Y, alike): Y spans the same subspace,
        // and the projected matrices stay of order one and lambda whatever the stiffness's scale
        // (at E = 1e100 Pa, Y's entries are some 1e-100 and its mass products 1e-200).
        for j in 0..p {
            let size = y.column(j).dot(&my.column(j)).sqrt();
            if size.is_finite() && size > 0.0 {
                y.column_mut(j).unscale_mut(size);
                my.column_mut(j).unscale_mut(size);
                kx.column_mut(j).unscale_mut(size);
            }
        }
        let kr = y.transpose() * &kx;
        let mr = y.transpose() * &my;
        let kr = (&kr + kr.transpose()) * 0.5;
        let mr = (&mr + mr.transpose()) * 0.5;
        // (Kr) q = lambda (Mr) q with Mr = L L^T: the symmetric C = L^-1 Kr L^-T, q = L^-T z.
        let chol = mr.cholesky().ok_or_else(|| invalid("the projected mass matrix is singular".into()))?;
        let l = chol.l();
        let linv = l.clone().try_inverse().ok_or_else(|| invalid("the projected mass factor is singular".into()))?;
        let c = &linv * kr * linv.transpose();
        let c = (&c + c.transpose()) * 0.5;
        let eigen = c.symmetric_eigen();
        let mut order: Vec<usize> = (0..p).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
        let q = linv.transpose() * &eigen.eigenvectors;
        let mut next = DMatrix::zeros(dofs, p);
        for (slot, &i) in order.iter().enumerate() {
            lambdas[slot] = eigen.eigenvalues[i];
            next.set_column(slot, &(&y * q.column(i)));
        }
        x = next;
        // Residuals of the wanted pairs: K0 phi - lambda M phi, with K0 phi from the assembled matrix.
        let mut kphi = vec![0.0; dofs];
        for (i, r) in residuals.iter_mut().enumerate() {
            column.copy_from_slice(x.column(i).as_slice());
            multiply(k0, &column, &mut kphi);
            multiply(m, &column, &mut mx);
            let top: f64 = kphi.iter().zip(&mx).map(|(k, m)| (k - lambdas[i] * m).powi(2)).sum::<f64>().sqrt();
            let bottom: f64 = kphi.iter().map(|k| k * k).sum::<f64>().sqrt();
            *r = if bottom > 0.0 { top / bottom } else { f64::INFINITY };
        }
        if residuals.iter().all(|&r| r <= MODE_TOLERANCE) {
            return Ok(Subspace { x, lambdas, residuals, iterations: iteration });
        }
    }
    let worst = residuals.iter().copied().fold(0.0, f64::max);
    Err(invalid(format!(
        "the subspace iteration did not converge in {MODE_ITERATIONS} iterations (largest residual {worst:.3e}, \
         needed {MODE_TOLERANCE:e})"
    )))
}
