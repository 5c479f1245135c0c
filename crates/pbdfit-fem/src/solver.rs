//! Linear solvers for the symmetric positive definite system `K u = f`, behind one small trait.
//!
//! - [`FaerCholesky`] (default): faer's sparse Cholesky `L L^T` with an approximate minimum degree (AMD)
//!   fill-reducing ordering; faer picks simplicial or supernodal factorisation by the expected flop
//!   count. Runs sequentially (no threads), so many small solves can run side by side.
//! - [`JacobiCg`]: conjugate gradients preconditioned with the diagonal of `K`; memory linear in the
//!   matrix size, used by [`AutoSolver`] above [`CG_THRESHOLD_DOFS`] unknowns where fill-in makes a
//!   direct factor too large.
//! - [`MultigridCg`]: conjugate gradients preconditioned by a geometric multigrid V-cycle, for the
//!   unit-cube meshes of even N ([`multigrid`](crate::multigrid)); [`AutoSolver`] uses it from
//!   [`MULTIGRID_THRESHOLD_DOFS`] unknowns on.
//! - [`NalgebraCholesky`]: nalgebra-sparse's `CscCholesky`, which has no fill-reducing ordering. Kept
//!   for the comparison in the crate documentation, not for use.

use faer::Par;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use std::sync::{Arc, OnceLock};

use faer::sparse::linalg::cholesky::{LltRef, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use nalgebra_sparse::CscMatrix;

use crate::{FemError, MultigridCg};

/// Above this many unknowns, [`AutoSolver`] switches from the direct [`FaerCholesky`] to [`JacobiCg`]
/// (where no multigrid hierarchy exists).
pub const CG_THRESHOLD_DOFS: usize = 200_000;

/// From this many unknowns on, [`AutoSolver`] uses [`MultigridCg`] where the mesh has a multigrid
/// hierarchy (the unit cube at even N >= 4). Chosen by measurement (crate documentation): multigrid is
/// never slower than faer's Cholesky from N = 12 (6,084 unknowns) on and 1.5-4 times faster at N = 14
/// (9,450) and 16 (13,872); the threshold lies above every mesh the project's committed results and
/// tests solve (N <= 10, at most 3,630 unknowns), so that none of them changes.
pub const MULTIGRID_THRESHOLD_DOFS: usize = 10_000;

/// Solves `K u = f` for a symmetric positive definite `K` stored with both triangles.
pub trait LinearSolver {
    /// A short name for reports (e.g. `faer-cholesky`).
    fn name(&self) -> &'static str;

    /// Solves `k u = f` and returns `u`. `k` must be square with `f.len()` rows.
    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError>;
}

pub(crate) fn check_shape(name: &'static str, k: &CscMatrix<f64>, f: &[f64]) -> Result<(), FemError> {
    if k.nrows() != k.ncols() || k.nrows() != f.len() {
        return Err(FemError::Solver {
            solver: name,
            detail: format!("matrix is {} x {} but the right-hand side has {} rows", k.nrows(), k.ncols(), f.len()),
        });
    }
    Ok(())
}

/// Direct sparse Cholesky (faer, AMD ordering, sequential). The default solver.
///
/// The symbolic analysis (ordering and elimination tree, about half the cost for small meshes) of the
/// first matrix solved is kept and reused for later matrices with the identical sparsity pattern, as in
/// repeated solves of one [`StaticProblem`](crate::StaticProblem) with different materials. A matrix
/// with another pattern is analysed afresh and does not replace the kept analysis.
#[derive(Debug, Clone, Default)]
pub struct FaerCholesky {
    symbolic: OnceLock<Arc<CachedSymbolic>>,
}

/// A symbolic factorisation and the pattern it belongs to.
#[derive(Debug)]
struct CachedSymbolic {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    symbolic: SymbolicCholesky<usize>,
}

impl FaerCholesky {
    /// A solver with an empty symbolic cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn symbolic_for(&self, k: &CscMatrix<f64>) -> Result<Arc<CachedSymbolic>, FemError> {
        let (col_ptr, row_idx, _) = k.csc_data();
        if let Some(cached) = self.symbolic.get()
            && cached.col_ptr == col_ptr
            && cached.row_idx == row_idx
        {
            return Ok(cached.clone());
        }
        let n = k.nrows();
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
        let symbolic =
            factorize_symbolic_cholesky(pattern, faer::Side::Lower, SymmetricOrdering::Amd, Default::default())
                .map_err(|e| FemError::Solver {
                    solver: "faer-cholesky",
                    detail: format!("symbolic factorisation: {e:?}"),
                })?;
        let fresh = Arc::new(CachedSymbolic { col_ptr: col_ptr.to_vec(), row_idx: row_idx.to_vec(), symbolic });
        // Keeps the first pattern analysed; a set cache is left as it is.
        let _ = self.symbolic.set(fresh.clone());
        Ok(fresh)
    }
}

impl FaerCholesky {
    /// Factorises `k = L L^T` (symbolic analysis from the cache where the pattern matches), for
    /// repeated solves with one matrix (the coarsest level of [`MultigridCg`](crate::MultigridCg)).
    pub(crate) fn factor(&self, k: &CscMatrix<f64>) -> Result<CholeskyFactor, FemError> {
        let name = "faer-cholesky";
        let n = k.nrows();
        let generic = |detail: String| FemError::Solver { solver: name, detail };
        let (col_ptr, row_idx, values) = k.csc_data();
        // nalgebra-sparse keeps rows sorted and unique within each column, as faer requires.
        let a = SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx), values);
        let par = Par::Seq;
        let side = faer::Side::Lower;
        let cached = self.symbolic_for(k)?;
        let factor_symbolic = &cached.symbolic;
        let mut l_values = vec![0.0; factor_symbolic.len_val()];
        let scratch = factor_symbolic
            .factorize_numeric_llt_scratch::<f64>(par, Default::default())
            .or(factor_symbolic.solve_in_place_scratch::<f64>(1, par));
        let mut buffer = MemBuffer::try_new(scratch).map_err(|e| generic(format!("workspace: {e:?}")))?;
        let stack = MemStack::new(&mut buffer);
        factor_symbolic
            .factorize_numeric_llt::<f64>(
                &mut l_values,
                a,
                side,
                LltRegularization::default(),
                par,
                stack,
                Default::default(),
            )
            .map_err(|e| FemError::NotPositiveDefinite { solver: name, detail: format!("{e:?}") })?;
        Ok(CholeskyFactor { cached, l_values, buffer })
    }
}

/// A numeric Cholesky factor with its symbolic analysis and a workspace for substitutions.
pub(crate) struct CholeskyFactor {
    cached: Arc<CachedSymbolic>,
    l_values: Vec<f64>,
    buffer: MemBuffer,
}

impl CholeskyFactor {
    /// Overwrites `x` (the right-hand side) with the solution of `L L^T x = b`.
    pub(crate) fn solve_in_place(&mut self, x: &mut [f64]) {
        let n = x.len();
        let stack = MemStack::new(&mut self.buffer);
        LltRef::<usize, f64>::new(&self.cached.symbolic, &self.l_values).solve_in_place_with_conj(
            faer::Conj::No,
            faer::MatMut::from_column_major_slice_mut(x, n, 1),
            Par::Seq,
            stack,
        );
    }
}

impl LinearSolver for FaerCholesky {
    fn name(&self) -> &'static str {
        "faer-cholesky"
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        check_shape(self.name(), k, f)?;
        if f.is_empty() {
            return Ok(Vec::new());
        }
        let mut factor = self.factor(k)?;
        let mut u = f.to_vec();
        factor.solve_in_place(&mut u);
        Ok(u)
    }
}

/// faer's sparse LU with partial pivoting, for tangents that are not positive definite (a nonlinear
/// material under strong compression, the corotational tangent far from rest). Not symmetric-aware,
/// so about twice the work of [`FaerCholesky`]; the Newton solver uses it only when Cholesky fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct FaerLu;

impl LinearSolver for FaerLu {
    fn name(&self) -> &'static str {
        "faer-lu"
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        use faer::linalg::solvers::SolveCore;
        check_shape(self.name(), k, f)?;
        let n = f.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let generic = |detail: String| FemError::Solver { solver: "faer-lu", detail };
        let (col_ptr, row_idx, values) = k.csc_data();
        let symbolic = faer::sparse::SymbolicSparseColMat::new_checked(n, n, col_ptr.to_vec(), None, row_idx.to_vec());
        let a = faer::sparse::SparseColMat::new(symbolic, values.to_vec());
        let lu = a.sp_lu().map_err(|e| generic(format!("{e:?}")))?;
        let mut x = faer::Mat::<f64>::from_fn(n, 1, |i, _| f[i]);
        lu.solve_in_place_with_conj(faer::Conj::No, x.as_mut());
        let u: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
        if u.iter().all(|v| v.is_finite()) {
            Ok(u)
        } else {
            Err(generic("the matrix is singular (the solution is not finite)".into()))
        }
    }
}

/// nalgebra-sparse's `CscCholesky` (no fill-reducing ordering). For comparison only: on a 20k-DOF
/// cube it is orders of magnitude slower than [`FaerCholesky`] (see the crate documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct NalgebraCholesky;

impl LinearSolver for NalgebraCholesky {
    fn name(&self) -> &'static str {
        "nalgebra-sparse-cholesky"
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        check_shape(self.name(), k, f)?;
        if f.is_empty() {
            return Ok(Vec::new());
        }
        let factor = nalgebra_sparse::factorization::CscCholesky::factor(k)
            .map_err(|e| FemError::NotPositiveDefinite { solver: self.name(), detail: format!("{e:?}") })?;
        let mut u = nalgebra::DMatrix::from_column_slice(f.len(), 1, f);
        factor.solve_mut(&mut u);
        Ok(u.as_slice().to_vec())
    }
}

/// Conjugate gradients with a Jacobi (diagonal) preconditioner, starting from `u = 0`.
#[derive(Debug, Clone, Copy)]
pub struct JacobiCg {
    /// Stop when `|f - K u| <= relative_tolerance |f|` (recursively updated residual).
    pub relative_tolerance: f64,
    /// Iteration cap; `None` means `2 n + 100` for `n` unknowns.
    pub max_iterations: Option<usize>,
}

impl Default for JacobiCg {
    fn default() -> Self {
        Self { relative_tolerance: 1e-12, max_iterations: None }
    }
}

/// `y = K x` for a CSC matrix stored with both triangles.
pub(crate) fn multiply(k: &CscMatrix<f64>, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    let (col_ptr, row_idx, values) = k.csc_data();
    for (j, &xj) in x.iter().enumerate() {
        for p in col_ptr[j]..col_ptr[j + 1] {
            y[row_idx[p]] += values[p] * xj;
        }
    }
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl LinearSolver for JacobiCg {
    fn name(&self) -> &'static str {
        "jacobi-cg"
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        let name = self.name();
        check_shape(name, k, f)?;
        let n = f.len();
        let mut inverse_diagonal = vec![0.0; n];
        let (col_ptr, row_idx, values) = k.csc_data();
        for j in 0..n {
            let d = (col_ptr[j]..col_ptr[j + 1]).find(|&p| row_idx[p] == j).map_or(0.0, |p| values[p]);
            if d.is_nan() || d <= 0.0 {
                return Err(FemError::NotPositiveDefinite {
                    solver: name,
                    detail: format!("diagonal entry {j} is {d}"),
                });
            }
            inverse_diagonal[j] = 1.0 / d;
        }
        let max_iterations = self.max_iterations.unwrap_or(2 * n + 100);
        let cg = preconditioned_cg(
            name,
            f,
            self.relative_tolerance,
            max_iterations,
            |p, q| multiply(k, p, q),
            |r, z| z.iter_mut().zip(r.iter().zip(&inverse_diagonal)).for_each(|(z, (r, d))| *z = r * d),
        )?;
        Ok(cg.u)
    }
}

/// What [`preconditioned_cg`] reached.
pub(crate) struct CgOutcome {
    /// The solution.
    pub u: Vec<f64>,
    /// Iterations done (0 for `f = 0`).
    pub iterations: usize,
    /// `|r| / |f|` at the end (recursively updated residual).
    pub residual: f64,
}

/// Conjugate gradients from `u = 0` for `K u = f`, with `multiply(p, q)` setting `q = K p` and
/// `precondition(r, z)` setting `z = M r` for a symmetric positive definite `M`; stops when
/// `|r| <= relative_tolerance |f|`. The one CG loop of [`JacobiCg`] and
/// [`MultigridCg`](crate::MultigridCg). Errors name `solver`: [`FemError::NotPositiveDefinite`] when
/// `p^T K p <= 0` or `r^T M r <= 0`, [`FemError::NotConverged`] after `max_iterations`.
pub(crate) fn preconditioned_cg(
    solver: &'static str,
    f: &[f64],
    relative_tolerance: f64,
    max_iterations: usize,
    mut multiply: impl FnMut(&[f64], &mut [f64]),
    mut precondition: impl FnMut(&[f64], &mut [f64]),
) -> Result<CgOutcome, FemError> {
    let n = f.len();
    let f_norm = dot(f, f).sqrt();
    let mut u = vec![0.0; n];
    if f_norm == 0.0 {
        return Ok(CgOutcome { u, iterations: 0, residual: 0.0 });
    }
    let mut r = f.to_vec();
    let mut z = vec![0.0; n];
    precondition(&r, &mut z);
    let mut p = z.clone();
    let mut q = vec![0.0; n];
    let mut rz = dot(&r, &z);
    let mut residual = 1.0;
    for iteration in 1..=max_iterations {
        multiply(&p, &mut q);
        let pq = dot(&p, &q);
        if pq.is_nan() || pq <= 0.0 {
            return Err(FemError::NotPositiveDefinite {
                solver,
                detail: format!("p^T K p = {pq:e} at iteration {iteration}"),
            });
        }
        let alpha = rz / pq;
        for i in 0..n {
            u[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        residual = dot(&r, &r).sqrt() / f_norm;
        if residual <= relative_tolerance {
            return Ok(CgOutcome { u, iterations: iteration, residual });
        }
        precondition(&r, &mut z);
        let rz_next = dot(&r, &z);
        if rz_next.is_nan() || rz_next <= 0.0 {
            return Err(FemError::NotPositiveDefinite {
                solver,
                detail: format!("r^T M r = {rz_next:e} at iteration {iteration}: the preconditioner is not SPD"),
            });
        }
        let beta = rz_next / rz;
        rz = rz_next;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    Err(FemError::NotConverged { solver, iterations: max_iterations, residual, tolerance: relative_tolerance })
}

/// [`MultigridCg`] from `multigrid_from_dofs` unknowns on where a hierarchy exists; otherwise
/// [`FaerCholesky`] up to `cg_above_dofs` unknowns and [`JacobiCg`] above.
#[derive(Debug, Clone)]
pub struct AutoSolver {
    /// Unknown count above which conjugate gradients take over (without a multigrid hierarchy).
    pub cg_above_dofs: usize,
    /// The iterative solver's settings.
    pub cg: JacobiCg,
    /// The direct solver (with its symbolic cache).
    pub direct: FaerCholesky,
    /// Unknown count from which [`MultigridCg`] takes over, where `multigrid` is set.
    pub multigrid_from_dofs: usize,
    /// The multigrid solver of the problem's mesh, if it has a hierarchy ([`StaticProblem`](crate::StaticProblem)
    /// sets it for unit-cube meshes of even N >= 4); used only for matrices of its own size.
    pub multigrid: Option<MultigridCg>,
}

impl Default for AutoSolver {
    fn default() -> Self {
        Self {
            cg_above_dofs: CG_THRESHOLD_DOFS,
            cg: JacobiCg::default(),
            direct: FaerCholesky::new(),
            multigrid_from_dofs: MULTIGRID_THRESHOLD_DOFS,
            multigrid: None,
        }
    }
}

impl AutoSolver {
    /// The solver this picks for `dofs` unknowns.
    pub fn pick(&self, dofs: usize) -> &dyn LinearSolver {
        match &self.multigrid {
            Some(mg) if dofs >= self.multigrid_from_dofs && mg.level_dofs()[0] == dofs => mg,
            _ if dofs > self.cg_above_dofs => &self.cg,
            _ => &self.direct,
        }
    }
}

impl LinearSolver for AutoSolver {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        self.pick(f.len()).solve(k, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra_sparse::CooMatrix;

    /// The 1D Laplacian with a spring to ground at both ends: SPD, tridiagonal.
    fn laplacian(n: usize) -> CscMatrix<f64> {
        let mut coo = CooMatrix::new(n, n);
        for i in 0..n {
            coo.push(i, i, 2.0);
            if i + 1 < n {
                coo.push(i, i + 1, -1.0);
                coo.push(i + 1, i, -1.0);
            }
        }
        CscMatrix::from(&coo)
    }

    #[test]
    fn all_solvers_agree_on_a_small_spd_system() {
        let k = laplacian(50);
        let f: Vec<f64> = (0..50).map(|i| (i as f64 * 0.37).sin()).collect();
        let solvers: [&dyn LinearSolver; 4] =
            [&FaerCholesky::new(), &NalgebraCholesky, &JacobiCg::default(), &AutoSolver::default()];
        let mut residuals = Vec::new();
        for s in solvers {
            let u = s.solve(&k, &f).unwrap();
            let mut ku = vec![0.0; 50];
            multiply(&k, &u, &mut ku);
            let r = ku.iter().zip(&f).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            residuals.push((s.name(), r));
        }
        // Condition number ~1e3: a backward-stable solve leaves residuals near 1e-13.
        assert!(residuals.iter().all(|&(_, r)| r < 1e-11), "{residuals:?}");
    }

    #[test]
    fn indefinite_matrix_is_reported() {
        let mut coo = CooMatrix::new(2, 2);
        coo.push(0, 0, 1.0);
        coo.push(1, 1, -1.0);
        let k = CscMatrix::from(&coo);
        for s in [&FaerCholesky::new() as &dyn LinearSolver, &NalgebraCholesky, &JacobiCg::default()] {
            assert!(matches!(s.solve(&k, &[1.0, 1.0]), Err(FemError::NotPositiveDefinite { .. })), "{}", s.name());
        }
    }

    #[test]
    fn symbolic_cache_is_reused_only_for_the_same_pattern() {
        let solver = FaerCholesky::new();
        let k = laplacian(20);
        let f = vec![1.0; 20];
        let first = solver.solve(&k, &f).unwrap();
        let scaled = k.clone() * 2.0;
        let second = solver.solve(&scaled, &f).unwrap();
        assert!(first.iter().zip(&second).all(|(a, b)| (a - 2.0 * b).abs() < 1e-12 * a.abs().max(1.0)));
        // A different pattern (and size) is analysed afresh.
        let other = laplacian(7);
        let u = solver.solve(&other, &[1.0; 7]).unwrap();
        assert!((u[0] - 3.5).abs() < 1e-12, "{u:?}");
        assert_eq!(solver.symbolic.get().unwrap().col_ptr.len(), 21);
    }

    #[test]
    fn shape_mismatch_is_an_error() {
        assert!(FaerCholesky::new().solve(&laplacian(3), &[1.0; 4]).is_err());
    }

    #[test]
    fn auto_switches_to_cg_above_the_threshold() {
        let auto = AutoSolver { cg_above_dofs: 10, ..Default::default() };
        assert_eq!(auto.pick(10).name(), "faer-cholesky");
        assert_eq!(auto.pick(11).name(), "jacobi-cg");
    }
}
