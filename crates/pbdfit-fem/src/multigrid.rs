//! Conjugate gradients preconditioned by one geometric multigrid V-cycle, for the unit-cube meshes.
//!
//! The unit cube at resolution N has its vertices on the grid `(i, j, k) / N` (index
//! `i + (N+1)(j + (N+1)k)`, see [`pbdfit_mesh::unit_cube`]). For even N the grid of resolution N / 2 is
//! a subset of it, so the levels are N, N/2, N/4, ... while N is even and at least 4 (the coarsest level
//! has N >= 2, or is odd). Per level:
//!
//! - **Unknowns**: 3 per free vertex, vertex-major, as in [`DofMap`]. A coarse vertex is held if the
//!   fine vertex at the same place is held (a held plane of the fine grid gives the same plane on the
//!   coarse grid: the floor, wall and ceiling scenes and the load-case scenes all hold whole faces).
//! - **Prolongation** `P` (coarse to fine): trilinear interpolation of the coarse nodal displacements
//!   onto the fine vertices, each component separately, restricted to the free vertices of both
//!   levels (held coarse vertices contribute nothing; rows of held fine vertices are dropped). Every
//!   free coarse vertex coincides with a free fine vertex, where `P` has a single 1, so `P` has full
//!   column rank and the coarse operator is SPD whatever the held set is.
//! - **Coarse operator**: the Galerkin product `A_c = P^T A P`, computed on 3 x 3 vertex blocks.
//!   A hand-written block product instead of nalgebra-sparse's or faer's scalar sparse products: `P`
//!   acts on the three components alike, so the block product does one index lookup per 3 x 3 block
//!   (nine scalar entries) and one weight per vertex pair, and produces the block matrix the smoother
//!   needs directly. The scalar product of nalgebra-sparse on the same matrices is timed by the
//!   `solver_comparison` example (see the crate documentation).
//! - **Smoother**: symmetric block Gauss-Seidel on the 3 x 3 vertex blocks (each vertex's three
//!   displacement components solved together with its inverted diagonal block): forward sweeps
//!   before the coarse correction and as many backward sweeps after it, so that the V-cycle is a
//!   symmetric positive definite preconditioner. Damped block Jacobi is available for comparison.
//! - **Coarsest level**: factorised once per solve with [`FaerCholesky`].
//!
//! The hierarchy (the prolongations) depends only on the mesh and the held set and is built once; the
//! block matrices, Galerkin products and the coarse factor are rebuilt for every matrix solved.

use std::sync::Arc;

use nalgebra::{Matrix3, Vector3};
use nalgebra_sparse::{CooMatrix, CscMatrix};
use pbdfit_mesh::TetMesh;

use crate::FemError;
use crate::assembly::DofMap;
use crate::solver::{FaerCholesky, LinearSolver, check_shape, preconditioned_cg};

const NAME: &str = "multigrid-cg";

/// The resolution N if `mesh` has exactly the vertices of the unit cube at resolution N, scaled by its
/// edge `L` (a body given `--size`; 1 for the unit cube), in its numbering (`(i, j, k) L / N` at index
/// `i + (N+1)(j + (N+1)k)`), to 1e-12 L; `None` otherwise. The tetrahedra are not checked: the Galerkin
/// coarse operators need only the vertex grid.
pub fn unit_cube_resolution(mesh: &TetMesh) -> Option<usize> {
    let nv = mesh.vertices().len();
    let m = (nv as f64).cbrt().round() as usize;
    if m < 2 || m * m * m != nv {
        return None;
    }
    let n = m - 1;
    // The last vertex is the corner (L, L, L).
    let edge = mesh.vertices()[nv - 1].x;
    if !(edge.is_finite() && edge > 0.0) {
        return None;
    }
    let h = edge / n as f64;
    let on_grid = mesh.vertices().iter().enumerate().all(|(v, p)| {
        let (i, j, k) = (v % m, (v / m) % m, v / (m * m));
        (p - Vector3::new(i as f64 * h, j as f64 * h, k as f64 * h)).amax() <= 1e-12 * edge
    });
    on_grid.then_some(n)
}

/// Trilinear interpolation from the free vertices of a coarse grid to those of the fine grid, at
/// vertex level (the same weights act on x, y and z). Rows are fine free vertices.
#[derive(Debug, Clone)]
struct Prolongation {
    row_ptr: Vec<usize>,
    /// Coarse free vertex index of each entry.
    col: Vec<usize>,
    /// Interpolation weight of each entry (dimensionless, 1, 1/2, 1/4 or 1/8).
    weight: Vec<f64>,
    /// Number of coarse free vertices.
    coarse_vertices: usize,
}

impl Prolongation {
    /// Adds `P xc` to `x` (3 components per vertex).
    fn prolong_add(&self, xc: &[f64], x: &mut [f64]) {
        for (a, xa) in x.chunks_exact_mut(3).enumerate() {
            let mut s = [0.0; 3];
            for p in self.row_ptr[a]..self.row_ptr[a + 1] {
                let (c, w) = (self.col[p], self.weight[p]);
                s[0] += w * xc[3 * c];
                s[1] += w * xc[3 * c + 1];
                s[2] += w * xc[3 * c + 2];
            }
            xa[0] += s[0];
            xa[1] += s[1];
            xa[2] += s[2];
        }
    }

    /// `rc = P^T r`.
    fn restrict(&self, r: &[f64], rc: &mut [f64]) {
        rc.fill(0.0);
        for (a, ra) in r.chunks_exact(3).enumerate() {
            for p in self.row_ptr[a]..self.row_ptr[a + 1] {
                let (c, w) = (self.col[p], self.weight[p]);
                rc[3 * c] += w * ra[0];
                rc[3 * c + 1] += w * ra[1];
                rc[3 * c + 2] += w * ra[2];
            }
        }
    }

    /// The scalar (DOF-level) matrix `P`, for comparisons with library sparse products.
    fn to_csc(&self) -> CscMatrix<f64> {
        let rows = self.row_ptr.len() - 1;
        let mut coo = CooMatrix::new(3 * rows, 3 * self.coarse_vertices);
        for a in 0..rows {
            for p in self.row_ptr[a]..self.row_ptr[a + 1] {
                for c in 0..3 {
                    coo.push(3 * a + c, 3 * self.col[p] + c, self.weight[p]);
                }
            }
        }
        CscMatrix::from(&coo)
    }
}

/// The geometric part of the hierarchy: prolongations between consecutive levels.
#[derive(Debug)]
struct Hierarchy {
    /// Resolution N of every level, finest first.
    resolutions: Vec<usize>,
    /// Unknowns of every level, finest first.
    dofs: Vec<usize>,
    /// `transfers[l]` interpolates from level `l + 1` to level `l`.
    transfers: Vec<Prolongation>,
}

impl Hierarchy {
    fn new(n: usize, constrained: &[bool]) -> Self {
        let mut resolutions = vec![n];
        let mut held = constrained.to_vec();
        let mut dofs = vec![DofMap::new(&held).dofs()];
        let mut transfers = Vec::new();
        let mut n = n;
        while n.is_multiple_of(2) && n >= 4 {
            let nc = n / 2;
            let (m, mc) = (n + 1, nc + 1);
            let coarse_held: Vec<bool> = (0..mc * mc * mc)
                .map(|v| held[2 * (v % mc) + m * (2 * ((v / mc) % mc) + m * 2 * (v / (mc * mc)))])
                .collect();
            let fine_map = DofMap::new(&held);
            let coarse_map = DofMap::new(&coarse_held);
            if coarse_map.dofs() == 0 {
                break;
            }
            let stencil = |i: usize| -> Vec<(usize, f64)> {
                if i.is_multiple_of(2) { vec![(i / 2, 1.0)] } else { vec![(i / 2, 0.5), (i / 2 + 1, 0.5)] }
            };
            let mut row_ptr = vec![0];
            let (mut col, mut weight) = (Vec::new(), Vec::new());
            for v in 0..m * m * m {
                if fine_map.is_constrained(v) {
                    continue;
                }
                let (i, j, k) = (v % m, (v / m) % m, v / (m * m));
                for &(kc, wk) in &stencil(k) {
                    for &(jc, wj) in &stencil(j) {
                        for &(ic, wi) in &stencil(i) {
                            if let Some(d) = coarse_map.dof(ic + mc * (jc + mc * kc), 0) {
                                col.push(d / 3);
                                weight.push(wi * wj * wk);
                            }
                        }
                    }
                }
                row_ptr.push(col.len());
            }
            transfers.push(Prolongation { row_ptr, col, weight, coarse_vertices: coarse_map.dofs() / 3 });
            resolutions.push(nc);
            dofs.push(coarse_map.dofs());
            held = coarse_held;
            n = nc;
        }
        Self { resolutions, dofs, transfers }
    }
}

/// A symmetric matrix in block compressed sparse row form with 3 x 3 blocks (one per vertex pair),
/// block rows sorted by column, and the inverted diagonal blocks for the smoother.
#[derive(Debug, Clone)]
struct BlockMatrix {
    row_ptr: Vec<usize>,
    col: Vec<usize>,
    /// Row-major 3 x 3 blocks: `val[p][3 i + j]` is entry `(3 a + i, 3 col[p] + j)` of block row `a`.
    val: Vec<[f64; 9]>,
    /// Inverse of each diagonal block, row-major.
    inverse_diagonal: Vec<[f64; 9]>,
    /// Copies of the strictly lower and strictly upper triangles, each contiguous: the first
    /// Gauss-Seidel sweep and the residual after it read one triangle each, and reading half of every
    /// row of the full matrix costs as much memory traffic as reading all of it (measured at N = 32:
    /// 4.7 and 5.6 ms for the two halves against 2.6 ms for a whole product).
    lower: Triangle,
    upper: Triangle,
}

/// One triangle of a [`BlockMatrix`], in the same block compressed sparse row form.
#[derive(Debug, Clone)]
struct Triangle {
    row_ptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<[f64; 9]>,
}

impl Triangle {
    /// Block row `a` times `x`.
    #[inline]
    fn row_times(&self, a: usize, x: &[f64]) -> [f64; 3] {
        blocks_times(
            &self.col[self.row_ptr[a]..self.row_ptr[a + 1]],
            &self.val[self.row_ptr[a]..self.row_ptr[a + 1]],
            x,
        )
    }
}

/// The sum of `val[p] * x[col[p]]` over the blocks (3 x 3 blocks, 3-vectors).
#[inline]
fn blocks_times(col: &[usize], val: &[[f64; 9]], x: &[f64]) -> [f64; 3] {
    let mut s = [0.0; 3];
    for (&c, v) in col.iter().zip(val) {
        let c = 3 * c;
        let (x0, x1, x2) = (x[c], x[c + 1], x[c + 2]);
        s[0] += v[0] * x0 + v[1] * x1 + v[2] * x2;
        s[1] += v[3] * x0 + v[4] * x1 + v[5] * x2;
        s[2] += v[6] * x0 + v[7] * x1 + v[8] * x2;
    }
    s
}

impl BlockMatrix {
    fn blocks(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Converts a CSC matrix whose pattern consists of full 3 x 3 vertex blocks, structurally
    /// symmetric (as [`Assembler`](crate::assembly::Assembler) produces), into block form.
    fn from_csc(k: &CscMatrix<f64>) -> Result<Self, FemError> {
        let not_blocked = |detail: String| FemError::Solver { solver: NAME, detail };
        let n = k.ncols();
        if !n.is_multiple_of(3) {
            return Err(not_blocked(format!("{n} unknowns are not 3 per vertex")));
        }
        let nb = n / 3;
        let (col_ptr, row_idx, values) = k.csc_data();
        // Block pattern of block column b from scalar column 3b; the three columns must agree and
        // every row triple must be complete.
        let mut row_ptr = Vec::with_capacity(nb + 1);
        row_ptr.push(0);
        let mut col = Vec::with_capacity(k.nnz() / 9);
        for b in 0..nb {
            let rows = &row_idx[col_ptr[3 * b]..col_ptr[3 * b + 1]];
            for c in 1..3 {
                if row_idx[col_ptr[3 * b + c]..col_ptr[3 * b + c + 1]] != *rows {
                    return Err(not_blocked(format!("columns {} and {} differ in pattern", 3 * b, 3 * b + c)));
                }
            }
            if rows.len() % 3 != 0 {
                return Err(not_blocked(format!("column {} is not made of 3 x 3 blocks", 3 * b)));
            }
            for t in rows.chunks_exact(3) {
                if t[0] % 3 != 0 || t[1] != t[0] + 1 || t[2] != t[0] + 2 {
                    return Err(not_blocked(format!("column {} is not made of 3 x 3 blocks", 3 * b)));
                }
                col.push(t[0] / 3);
            }
            row_ptr.push(col.len());
        }
        // The block pattern of column b is that of row b (structural symmetry, checked below); fill
        // the values row-wise with one cursor per block row.
        let mut val = vec![[0.0; 9]; col.len()];
        let mut cursor: Vec<usize> = row_ptr[..nb].to_vec();
        for b in 0..nb {
            for q in row_ptr[b]..row_ptr[b + 1] {
                let a = col[q];
                let p = cursor[a];
                if p >= row_ptr[a + 1] || col[p] != b {
                    return Err(not_blocked(format!("the pattern is not symmetric at blocks ({a}, {b})")));
                }
                cursor[a] += 1;
                let offset = 3 * (q - row_ptr[b]);
                for j in 0..3 {
                    let start = col_ptr[3 * b + j] + offset;
                    for i in 0..3 {
                        val[p][3 * i + j] = values[start + i];
                    }
                }
            }
        }
        Self::with_inverse_diagonal(row_ptr, col, val)
    }

    fn with_inverse_diagonal(row_ptr: Vec<usize>, col: Vec<usize>, val: Vec<[f64; 9]>) -> Result<Self, FemError> {
        let nb = row_ptr.len() - 1;
        let mut inverse_diagonal = Vec::with_capacity(nb);
        // Position of the diagonal block in each block row.
        let mut diagonal = Vec::with_capacity(nb);
        for a in 0..nb {
            let row = &col[row_ptr[a]..row_ptr[a + 1]];
            let p = row.binary_search(&a).map_err(|_| FemError::NotPositiveDefinite {
                solver: NAME,
                detail: format!("diagonal block {a} is missing"),
            })? + row_ptr[a];
            let d = Matrix3::from_row_slice(&val[p]);
            let inverse = d.cholesky().map(|c| c.inverse()).ok_or_else(|| FemError::NotPositiveDefinite {
                solver: NAME,
                detail: format!("diagonal block {a} is not positive definite: {:?}", val[p]),
            })?;
            diagonal.push(p);
            let mut flat = [0.0; 9];
            for i in 0..3 {
                for j in 0..3 {
                    flat[3 * i + j] = inverse[(i, j)];
                }
            }
            inverse_diagonal.push(flat);
        }
        let triangle = |range: &dyn Fn(usize) -> std::ops::Range<usize>| {
            let mut part = Triangle { row_ptr: vec![0], col: Vec::new(), val: Vec::new() };
            for a in 0..nb {
                part.col.extend_from_slice(&col[range(a)]);
                part.val.extend_from_slice(&val[range(a)]);
                part.row_ptr.push(part.col.len());
            }
            part
        };
        let lower = triangle(&|a| row_ptr[a]..diagonal[a]);
        let upper = triangle(&|a| diagonal[a] + 1..row_ptr[a + 1]);
        Ok(Self { row_ptr, col, val, inverse_diagonal, lower, upper })
    }

    /// `y = A x`.
    fn multiply(&self, x: &[f64], y: &mut [f64]) {
        for (a, ya) in y.chunks_exact_mut(3).enumerate() {
            let s = self.row_times(a, x);
            ya.copy_from_slice(&s);
        }
    }

    /// Block row `a` times `x`.
    #[inline]
    fn row_times(&self, a: usize, x: &[f64]) -> [f64; 3] {
        let range = self.row_ptr[a]..self.row_ptr[a + 1];
        blocks_times(&self.col[range.clone()], &self.val[range], x)
    }

    /// One block Gauss-Seidel update of vertex `a`: `x_a += D_a^-1 (b_a - (A x)_a)`. With `descending`
    /// the row is read from its end, so that a backward sweep reads the matrix in one descending
    /// stream (reading rows forwards in a backward sweep defeats the hardware prefetcher: four times
    /// slower measured at N = 32).
    #[inline]
    fn relax(&self, a: usize, b: &[f64], x: &mut [f64], descending: bool) {
        let s = if descending {
            let mut s = [0.0; 3];
            for p in (self.row_ptr[a]..self.row_ptr[a + 1]).rev() {
                let c = 3 * self.col[p];
                let (x0, x1, x2) = (x[c], x[c + 1], x[c + 2]);
                let v = &self.val[p];
                s[0] += v[0] * x0 + v[1] * x1 + v[2] * x2;
                s[1] += v[3] * x0 + v[4] * x1 + v[5] * x2;
                s[2] += v[6] * x0 + v[7] * x1 + v[8] * x2;
            }
            s
        } else {
            self.row_times(a, x)
        };
        let r = [b[3 * a] - s[0], b[3 * a + 1] - s[1], b[3 * a + 2] - s[2]];
        let d = &self.inverse_diagonal[a];
        for i in 0..3 {
            x[3 * a + i] += d[3 * i] * r[0] + d[3 * i + 1] * r[1] + d[3 * i + 2] * r[2];
        }
    }

    /// One forward block Gauss-Seidel sweep from `x = 0` (only the lower triangle is needed), then the
    /// residual `r = b - A x`, which after such a sweep is `-U x` (strictly upper triangle): the
    /// lower triangle and the diagonal cancel `b` exactly in exact arithmetic.
    fn forward_sweep_from_zero(&self, b: &[f64], x: &mut [f64], r: &mut [f64]) {
        for a in 0..self.blocks() {
            let s = self.lower.row_times(a, x);
            let ra = [b[3 * a] - s[0], b[3 * a + 1] - s[1], b[3 * a + 2] - s[2]];
            let d = &self.inverse_diagonal[a];
            for i in 0..3 {
                x[3 * a + i] = d[3 * i] * ra[0] + d[3 * i + 1] * ra[1] + d[3 * i + 2] * ra[2];
            }
        }
        for (a, ra) in r.chunks_exact_mut(3).enumerate() {
            let s = self.upper.row_times(a, x);
            ra.copy_from_slice(&[-s[0], -s[1], -s[2]]);
        }
    }

    /// `x += omega D^-1 (b - A x)` (block Jacobi), using `r` as workspace.
    fn jacobi(&self, omega: f64, b: &[f64], x: &mut [f64], r: &mut [f64]) {
        self.multiply(x, r);
        for a in 0..self.blocks() {
            let d = &self.inverse_diagonal[a];
            let ra = [b[3 * a] - r[3 * a], b[3 * a + 1] - r[3 * a + 1], b[3 * a + 2] - r[3 * a + 2]];
            for i in 0..3 {
                x[3 * a + i] += omega * (d[3 * i] * ra[0] + d[3 * i + 1] * ra[1] + d[3 * i + 2] * ra[2]);
            }
        }
    }

    /// The Galerkin product `P^T A P` for a vertex-level prolongation `P` (fine rows, coarse columns).
    fn galerkin(&self, p: &Prolongation) -> Result<Self, FemError> {
        let nc = p.coarse_vertices;
        let nf = self.blocks();
        // P^T by rows: coarse vertex -> (fine vertex, weight).
        let mut t_ptr = vec![0usize; nc + 1];
        for &c in &p.col {
            t_ptr[c + 1] += 1;
        }
        for c in 0..nc {
            t_ptr[c + 1] += t_ptr[c];
        }
        let mut t_fill = t_ptr[..nc].to_vec();
        let mut t_row = vec![0usize; p.col.len()];
        let mut t_weight = vec![0.0; p.col.len()];
        for a in 0..nf {
            for q in p.row_ptr[a]..p.row_ptr[a + 1] {
                let c = p.col[q];
                t_row[t_fill[c]] = a;
                t_weight[t_fill[c]] = p.weight[q];
                t_fill[c] += 1;
            }
        }
        const NONE: usize = usize::MAX;
        let mut marker = vec![NONE; nc];
        let mut row_ptr = Vec::with_capacity(nc + 1);
        row_ptr.push(0);
        let mut col: Vec<usize> = Vec::new();
        let mut val: Vec<[f64; 9]> = Vec::new();
        let mut row_cols: Vec<usize> = Vec::new();
        let mut row_vals: Vec<[f64; 9]> = Vec::new();
        let mut order: Vec<usize> = Vec::new();
        for ci in 0..nc {
            row_cols.clear();
            row_vals.clear();
            for t in t_ptr[ci]..t_ptr[ci + 1] {
                let (a, wa) = (t_row[t], t_weight[t]);
                for q in self.row_ptr[a]..self.row_ptr[a + 1] {
                    let b = self.col[q];
                    let v = &self.val[q];
                    for r in p.row_ptr[b]..p.row_ptr[b + 1] {
                        let cj = p.col[r];
                        let w = wa * p.weight[r];
                        let slot = if marker[cj] == NONE {
                            marker[cj] = row_cols.len();
                            row_cols.push(cj);
                            row_vals.push([0.0; 9]);
                            row_cols.len() - 1
                        } else {
                            marker[cj]
                        };
                        let acc = &mut row_vals[slot];
                        for e in 0..9 {
                            acc[e] += w * v[e];
                        }
                    }
                }
            }
            order.clear();
            order.extend(0..row_cols.len());
            order.sort_unstable_by_key(|&s| row_cols[s]);
            for &s in &order {
                col.push(row_cols[s]);
                val.push(row_vals[s]);
                marker[row_cols[s]] = NONE;
            }
            row_ptr.push(col.len());
        }
        Self::with_inverse_diagonal(row_ptr, col, val)
    }

    /// The scalar CSC form (both triangles), for the coarsest level's Cholesky factorisation.
    fn to_csc(&self) -> CscMatrix<f64> {
        let n = 3 * self.blocks();
        let mut coo = CooMatrix::new(n, n);
        for a in 0..self.blocks() {
            for p in self.row_ptr[a]..self.row_ptr[a + 1] {
                let c = self.col[p];
                for i in 0..3 {
                    for j in 0..3 {
                        coo.push(3 * a + i, 3 * c + j, self.val[p][3 * i + j]);
                    }
                }
            }
        }
        CscMatrix::from(&coo)
    }
}

/// The smoother of the V-cycle. Both variants make the V-cycle symmetric (the post-smoother is the
/// adjoint of the pre-smoother).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoother {
    /// Block Gauss-Seidel over the 3 x 3 vertex blocks: forward sweeps (vertex order) before the
    /// coarse correction, backward sweeps after it. The default.
    SymmetricGaussSeidel,
    /// Damped block Jacobi `x += omega D^-1 (b - A x)`, with the damping factor `omega` (e.g. 0.6).
    Jacobi {
        /// Damping factor, dimensionless, in (0, 1].
        omega: f64,
    },
}

/// The result of a [`MultigridCg`] solve with its iteration count.
#[derive(Debug, Clone, PartialEq)]
pub struct MultigridSolve {
    /// The solution `u`.
    pub u: Vec<f64>,
    /// Conjugate-gradient iterations (one V-cycle each, plus one for the initial residual).
    pub iterations: usize,
    /// Final relative residual `|f - K u| / |f|` (recursively updated).
    pub residual: f64,
    /// Unknowns of every level, finest first.
    pub level_dofs: Vec<usize>,
}

/// Conjugate gradients preconditioned by one geometric multigrid V-cycle (see the [module
/// documentation](self)), starting from `u = 0`. Built for one unit-cube mesh and held set; solves any
/// matrix assembled on it (any material).
#[derive(Debug, Clone)]
pub struct MultigridCg {
    /// Stop when `|f - K u| <= relative_tolerance |f|` (recursively updated residual), as [`JacobiCg`](crate::JacobiCg).
    pub relative_tolerance: f64,
    /// Iteration cap; `None` means 1000.
    pub max_iterations: Option<usize>,
    /// The smoother.
    pub smoother: Smoother,
    /// Smoothing sweeps before and (as many) after each coarse correction.
    pub sweeps: usize,
    hierarchy: Arc<Hierarchy>,
    coarse: FaerCholesky,
}

impl MultigridCg {
    /// The solver for the unit-cube mesh `mesh` with held (constrained) vertices `constrained`, or
    /// `None` if the mesh is not the unit cube's vertex grid (see [`unit_cube_resolution`]), its
    /// resolution is odd or below 4, or `constrained` has the wrong length: no hierarchy exists then.
    pub fn for_mesh(mesh: &TetMesh, constrained: &[bool]) -> Option<Self> {
        if constrained.len() != mesh.vertices().len() {
            return None;
        }
        let n = unit_cube_resolution(mesh)?;
        let hierarchy = Hierarchy::new(n, constrained);
        (!hierarchy.transfers.is_empty()).then(|| Self {
            relative_tolerance: 1e-12,
            max_iterations: None,
            smoother: Smoother::SymmetricGaussSeidel,
            sweeps: 1,
            hierarchy: Arc::new(hierarchy),
            coarse: FaerCholesky::new(),
        })
    }

    /// Resolution N of every level, finest first.
    pub fn resolutions(&self) -> &[usize] {
        &self.hierarchy.resolutions
    }

    /// Unknowns of every level, finest first.
    pub fn level_dofs(&self) -> &[usize] {
        &self.hierarchy.dofs
    }

    /// The DOF-level prolongation matrices, finest first (`P_l` maps level `l + 1` to level `l`), for
    /// comparisons with library sparse products.
    pub fn prolongations(&self) -> Vec<CscMatrix<f64>> {
        self.hierarchy.transfers.iter().map(Prolongation::to_csc).collect()
    }

    /// Builds the level operators for `k` (Galerkin products, coarse factor).
    fn setup(&self, k: &CscMatrix<f64>) -> Result<(Vec<BlockMatrix>, Work), FemError> {
        if k.nrows() != self.hierarchy.dofs[0] {
            return Err(FemError::Solver {
                solver: NAME,
                detail: format!(
                    "the matrix has {} unknowns but the multigrid hierarchy was built for {}",
                    k.nrows(),
                    self.hierarchy.dofs[0]
                ),
            });
        }
        let mut matrices = vec![BlockMatrix::from_csc(k)?];
        for p in &self.hierarchy.transfers {
            let coarse = matrices.last().expect("finest level").galerkin(p)?;
            matrices.push(coarse);
        }
        let coarsest = matrices.pop().expect("coarsest level");
        let factor = self.coarse.factor(&coarsest.to_csc()).map_err(|e| match e {
            FemError::NotPositiveDefinite { detail, .. } => {
                FemError::NotPositiveDefinite { solver: NAME, detail: format!("coarsest level: {detail}") }
            }
            other => other,
        })?;
        let work = self.hierarchy.dofs.iter().map(|&n| [vec![0.0; n], vec![0.0; n], vec![0.0; n]]).collect();
        Ok((matrices, Work { factor, vectors: work }))
    }

    /// The V-cycle `z = M r` on level `l` (`b` in `work[l][0]`, result in `work[l][1]`).
    fn vcycle(&self, matrices: &[BlockMatrix], work: &mut Work, l: usize) {
        if l == matrices.len() {
            let [b, x, _] = &mut work.vectors[l];
            x.copy_from_slice(b);
            work.factor.solve_in_place(x);
            return;
        }
        {
            let a = &matrices[l];
            let [b, x, r] = &mut work.vectors[l];
            x.fill(0.0);
            match self.smoother {
                Smoother::SymmetricGaussSeidel => {
                    a.forward_sweep_from_zero(b, x, r);
                    for _ in 1..self.sweeps {
                        (0..a.blocks()).for_each(|v| a.relax(v, b, x, false));
                    }
                }
                Smoother::Jacobi { omega } => (0..self.sweeps).for_each(|_| a.jacobi(omega, b, x, r)),
            }
            if self.sweeps != 1 || self.smoother != Smoother::SymmetricGaussSeidel {
                a.multiply(x, r);
                r.iter_mut().zip(b.iter()).for_each(|(r, b)| *r = b - *r);
            }
        }
        let (fine, coarse) = work.vectors.split_at_mut(l + 1);
        self.hierarchy.transfers[l].restrict(&fine[l][2], &mut coarse[0][0]);
        self.vcycle(matrices, work, l + 1);
        let (fine, coarse) = work.vectors.split_at_mut(l + 1);
        self.hierarchy.transfers[l].prolong_add(&coarse[0][1], &mut fine[l][1]);
        let a = &matrices[l];
        let [b, x, r] = &mut work.vectors[l];
        for _ in 0..self.sweeps {
            match self.smoother {
                Smoother::SymmetricGaussSeidel => (0..a.blocks()).rev().for_each(|v| a.relax(v, b, x, true)),
                Smoother::Jacobi { omega } => a.jacobi(omega, b, x, r),
            }
        }
    }

    /// Applies the V-cycle preconditioner once: `M r` for the matrix `k` (for tests of its symmetry).
    pub fn precondition(&self, k: &CscMatrix<f64>, r: &[f64]) -> Result<Vec<f64>, FemError> {
        check_shape(NAME, k, r)?;
        let (matrices, mut work) = self.setup(k)?;
        work.vectors[0][0].copy_from_slice(r);
        self.vcycle(&matrices, &mut work, 0);
        Ok(work.vectors[0][1].clone())
    }

    /// Solves `k u = f` and reports the iteration count.
    pub fn solve_counted(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<MultigridSolve, FemError> {
        check_shape(NAME, k, f)?;
        let (matrices, mut work) = self.setup(k)?;
        let cg = preconditioned_cg(
            NAME,
            f,
            self.relative_tolerance,
            self.max_iterations.unwrap_or(1000),
            |p, q| matrices[0].multiply(p, q),
            |r, z| {
                work.vectors[0][0].copy_from_slice(r);
                self.vcycle(&matrices, &mut work, 0);
                z.copy_from_slice(&work.vectors[0][1]);
            },
        )?;
        Ok(MultigridSolve {
            u: cg.u,
            iterations: cg.iterations,
            residual: cg.residual,
            level_dofs: self.hierarchy.dofs.clone(),
        })
    }
}

/// The mutable per-solve state: the coarsest level's factor and three work vectors per level
/// (right-hand side, solution, residual).
struct Work {
    factor: crate::solver::CholeskyFactor,
    vectors: Vec<[Vec<f64>; 3]>,
}

impl LinearSolver for MultigridCg {
    fn name(&self) -> &'static str {
        NAME
    }

    fn solve(&self, k: &CscMatrix<f64>, f: &[f64]) -> Result<Vec<f64>, FemError> {
        self.solve_counted(k, f).map(|s| s.u)
    }
}
