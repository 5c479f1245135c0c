//! The sparse tangents of the forces over the free DOFs (stiffness `K = df/du`, damping `D = df/dv`)
//! and the sparse factorisations (faer: Cholesky where the matrix is positive definite, else LU) that solve
//! the matrices built from them.
//!
//! One [`Pattern`] per body holds where the tangents can be nonzero: the 3 x 3 blocks that its elements
//! (springs, tetrahedra, the flex shell's triangles and hinges) couple among the free vertices, and the
//! diagonal, fixed by the mesh and the held vertices. It is built on the first tangent, with the position
//! of every element's blocks in its compressed-column arrays, so that each Newton step scatters the
//! elements' blocks into one array of values (no map), and its symbolic factorisations (Cholesky's and
//! LU's: the fill-reducing ordering and the elimination structure) are computed once and reused by every
//! numeric factorisation of the body. The matrices are symmetric (the forces are conservative, the damping
//! a symmetric form); Newton's `-K` is positive definite at a stable iterate, where Cholesky factors it;
//! where it is not (compressed springs, an inverting tetrahedron) a symmetric indefinite `L D L^T` on the
//! same symbolic structure does (no pivoting: kept only where its backward error on a probe right-hand side
//! is LU's order), and LU with partial pivoting takes what that check refuses (docs/performance.md,
//! "Force-law rest states").

use std::sync::{Arc, OnceLock};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::cholesky::{LdltRef, SymbolicCholesky, factorize_symbolic_cholesky};
use faer::sparse::linalg::solvers::{Llt, Lu, SymbolicLlt, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Side};
use nalgebra::Matrix3;

use super::{SpringBody, SpringLaw};
use crate::Vec3;

/// The kinds of element whose 3 x 3 blocks `df_i/du_j` make up the tangents; a block is named by the
/// element's kind, its index among them and the local vertices `i`, `j`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Element {
    /// A spring (`SpringBody::edges`): vertices `a`, `b`.
    Spring,
    /// A tetrahedron (volume penalty or neo-Hookean): its four vertices.
    Tetrahedron,
    /// A membrane triangle of the flex shell.
    Triangle,
    /// A bending hinge of the flex shell.
    Hinge,
}

/// The largest normwise backward error (relative) at which the indefinite `L D L^T` solve is kept in LU's
/// place: LU with partial pivoting leaves about `n eps` (1e-13 on a 20 x 20 sheet); a small pivot of the
/// unpivoted `L D L^T` leaves orders of magnitude more.
const INDEFINITE_BACKWARD_ERROR: f64 = 1e-11;

/// Where a 3 x 3 block lies among a pattern's values: entry `(r, c)` at `start + r + c stride`
/// (`start == usize::MAX`: a held vertex, the block is dropped).
#[derive(Debug, Clone, Copy)]
struct Block {
    start: usize,
    stride: usize,
}

/// The sparsity pattern of a body's tangents over its free DOFs (compressed columns, rows sorted): every
/// 3 x 3 block coupling two free vertices of one element, and the diagonal; with the block positions of
/// every element and, built on the first factorisation, its symbolic LU.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    dofs: usize,
    column_starts: Vec<usize>,
    rows: Vec<usize>,
    /// The position of each diagonal entry `(i, i)`.
    diagonal: Vec<usize>,
    /// Per [`Element`] kind: the blocks of each element, `m x m` of them row by row (`m` its vertices).
    blocks: [Vec<Block>; 4],
    /// Per [`Element`] kind: its vertices per element.
    sizes: [usize; 4],
    /// The symbolic Cholesky factorisation of the pattern's lower triangle (`None`: faer refused it).
    cholesky: OnceLock<Option<SymbolicLlt<usize>>>,
    /// The symbolic LU of the pattern (`None`: faer refused it).
    lu: OnceLock<Option<SymbolicLu<usize>>>,
    /// The symbolic structure of the indefinite `L D L^T` (the Cholesky's, held where the numeric
    /// `L D L^T` can reach it; `None`: faer refused it).
    symmetric: OnceLock<Option<Arc<SymbolicCholesky<usize>>>>,
}

/// The numeric `L D L^T` factorisation of a symmetric indefinite matrix on a pattern (faer's supernodal
/// one on the Cholesky's fill-reducing ordering, without pivoting: `D` diagonal, of either sign).
pub(super) struct Ldlt {
    symbolic: Arc<SymbolicCholesky<usize>>,
    values: Vec<f64>,
}

impl Ldlt {
    /// Overwrites `rhs` (its columns) with `A^-1 rhs`.
    fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let par = faer::get_global_parallelism();
        let factor = LdltRef::new(&self.symbolic, &self.values);
        let mut memory = MemBuffer::new(self.symbolic.solve_in_place_scratch::<f64>(rhs.ncols(), par));
        factor.solve_in_place_with_conj(Conj::No, rhs, par, MemStack::new(&mut memory));
    }
}

/// A numeric factorisation of a matrix on a body's pattern: Cholesky `L L^T` where it is symmetric
/// positive definite, else the symmetric indefinite `L D L^T`, else LU with partial pivoting.
pub(super) enum Factor {
    Cholesky(Llt<usize, f64>),
    Indefinite(Box<Ldlt>),
    Lu(Box<Lu<usize, f64>>),
}

impl Factor {
    /// Overwrites `rhs` (its columns) with `A^-1 rhs`.
    pub(super) fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        match self {
            Factor::Cholesky(f) => f.solve_in_place_with_conj(Conj::No, rhs),
            Factor::Indefinite(f) => f.solve_in_place(rhs),
            Factor::Lu(f) => f.solve_in_place_with_conj(Conj::No, rhs),
        }
    }
}

impl Pattern {
    /// The pattern of the elements `elements[kind]` (each one's vertices) over the free vertices `slot`
    /// (`usize::MAX`: held).
    fn new(slot: &[usize], free: usize, elements: [Vec<&[usize]>; 4]) -> Self {
        let mut neighbours: Vec<Vec<usize>> = (0..free).map(|i| vec![i]).collect();
        for list in &elements {
            for vertices in list {
                for &b in vertices.iter().filter(|&&b| slot[b] != usize::MAX) {
                    for &a in vertices.iter().filter(|&&a| slot[a] != usize::MAX) {
                        neighbours[slot[b]].push(slot[a]);
                    }
                }
            }
        }
        let (mut column_starts, mut rows, mut bases) = (vec![0], Vec::new(), Vec::with_capacity(free));
        for list in &mut neighbours {
            list.sort_unstable();
            list.dedup();
            bases.push(rows.len());
            for _ in 0..3 {
                rows.extend(list.iter().flat_map(|&a| [3 * a, 3 * a + 1, 3 * a + 2]));
                column_starts.push(rows.len());
            }
        }
        let block = |a: usize, b: usize| match (slot[a], slot[b]) {
            (usize::MAX, _) | (_, usize::MAX) => Block { start: usize::MAX, stride: 0 },
            (sa, sb) => {
                let k = neighbours[sb].binary_search(&sa).expect("every element's block is in the pattern");
                Block { start: bases[sb] + 3 * k, stride: 3 * neighbours[sb].len() }
            }
        };
        let sizes = std::array::from_fn(|kind| elements[kind].first().map_or(0, |v| v.len()));
        let blocks = std::array::from_fn(|kind| {
            elements[kind]
                .iter()
                .flat_map(|vertices| vertices.iter().flat_map(|&a| vertices.iter().map(move |&b| block(a, b))))
                .collect()
        });
        let diagonal = (0..3 * free)
            .map(|i| {
                let column = &rows[column_starts[i]..column_starts[i + 1]];
                column_starts[i] + column.binary_search(&i).expect("the diagonal is in the pattern")
            })
            .collect();
        Self {
            dofs: 3 * free,
            column_starts,
            rows,
            diagonal,
            blocks,
            sizes,
            cholesky: OnceLock::new(),
            lu: OnceLock::new(),
            symmetric: OnceLock::new(),
        }
    }

    fn structure(&self) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(self.dofs, self.dofs, &self.column_starts, None, &self.rows)
    }

    /// The numeric factorisation of the matrix with `values` on this pattern (symmetric): Cholesky where
    /// it succeeds (the matrix is positive definite), else the indefinite `L D L^T` where its backward
    /// error passes ([`Self::indefinite`]), else LU; each on its symbolic factorisation, computed on the
    /// first call and reused. `None` where all fail (a singular matrix).
    fn factor(&self, values: &[f64]) -> Option<Factor> {
        let a = SparseColMatRef::new(self.structure(), values);
        let cholesky = self.cholesky.get_or_init(|| SymbolicLlt::try_new(self.structure(), Side::Lower).ok());
        if let Some(symbolic) = cholesky
            && let Ok(f) = Llt::try_new_with_symbolic(symbolic.clone(), a, Side::Lower)
        {
            return Some(Factor::Cholesky(f));
        }
        #[cfg(test)]
        let lu_only = tests::LU_ONLY.get();
        #[cfg(not(test))]
        let lu_only = false;
        if !lu_only && let Some(f) = self.indefinite(values) {
            #[cfg(test)]
            tests::INDEFINITE.set(tests::INDEFINITE.get() + 1);
            return Some(Factor::Indefinite(Box::new(f)));
        }
        self.lu_factor(values)
    }

    /// The LU with partial pivoting of the matrix with `values`, on the pattern's symbolic LU.
    fn lu_factor(&self, values: &[f64]) -> Option<Factor> {
        let a = SparseColMatRef::new(self.structure(), values);
        let lu = self.lu.get_or_init(|| SymbolicLu::try_new(self.structure()).ok()).as_ref()?;
        Lu::try_new_with_symbolic(lu.clone(), a).ok().map(|f| Factor::Lu(Box::new(f)))
    }

    /// The `L D L^T` of the symmetric matrix with `values` (no pivoting, so a small pivot and a large
    /// growth of the factor are possible; a zero pivot is refused), kept where it solves a probe
    /// `A x = A v` (`v` fixed, entries in [1, 2)) with a normwise backward error
    /// `|A x - A v|_inf / (|A|_inf |x|_inf + |A v|_inf)` of at most [`INDEFINITE_BACKWARD_ERROR`], LU's
    /// order; `None` where it does not (the caller takes LU).
    fn indefinite(&self, values: &[f64]) -> Option<Ldlt> {
        let symbolic = self
            .symmetric
            .get_or_init(|| {
                factorize_symbolic_cholesky(self.structure(), Side::Lower, Default::default(), Default::default())
                    .ok()
                    .map(Arc::new)
            })
            .clone()?;
        let n = self.dofs;
        let par = faer::get_global_parallelism();
        let mut f = Ldlt { values: vec![0.0; symbolic.len_val()], symbolic };
        let a = SparseColMatRef::new(self.structure(), values);
        let mut memory =
            MemBuffer::try_new(f.symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Default::default())).ok()?;
        f.symbolic
            .factorize_numeric_ldlt(
                &mut f.values,
                a,
                Side::Lower,
                Default::default(),
                par,
                MemStack::new(&mut memory),
                Default::default(),
            )
            .ok()?;
        let probe: Vec<f64> = (0..n).map(|i| 1.0 + (i * 7 % 11) as f64 / 11.0).collect();
        let b = self.multiply(values, &probe);
        let mut x = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        f.solve_in_place(x.as_mut());
        let x: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
        let residual = self.multiply(values, &x).iter().zip(&b).fold(0.0f64, |m, (ax, b)| m.max((ax - b).abs()));
        let norm = (0..n).fold(0.0f64, |m, c| {
            m.max((self.column_starts[c]..self.column_starts[c + 1]).map(|k| values[k].abs()).sum::<f64>())
        });
        let scale = norm * x.iter().fold(0.0f64, |m, v| m.max(v.abs())) + b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        (residual.is_finite() && residual <= INDEFINITE_BACKWARD_ERROR * scale).then_some(f)
    }

    /// `A x` for the matrix with `values` on this pattern.
    fn multiply(&self, values: &[f64], x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.dofs];
        for (c, &xc) in x.iter().enumerate() {
            for k in self.column_starts[c]..self.column_starts[c + 1] {
                y[self.rows[k]] += values[k] * xc;
            }
        }
        y
    }

    /// Adds `block` to the values at the block `(i, j)` of element `index` of `kind`.
    fn add(&self, values: &mut [f64], kind: Element, index: usize, i: usize, j: usize, block: &Matrix3<f64>) {
        let m = self.sizes[kind as usize];
        let Block { start, stride } = self.blocks[kind as usize][(index * m + i) * m + j];
        if start == usize::MAX {
            return;
        }
        for c in 0..3 {
            for r in 0..3 {
                values[start + r + c * stride] += block[(r, c)];
            }
        }
    }
}

/// A tangent over a body's free DOFs: one value per entry of the body's [`Pattern`].
#[derive(Debug, Clone)]
pub(super) struct Tangent<'a> {
    pattern: &'a Pattern,
    values: Vec<f64>,
}

impl Tangent<'_> {
    /// The entries `(row, column, value)`, column by column (rows ascending), explicit zeros included.
    pub(super) fn entries(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        let p = self.pattern;
        (0..p.dofs).flat_map(move |c| {
            (p.column_starts[c]..p.column_starts[c + 1]).map(move |k| (p.rows[k], c, self.values[k]))
        })
    }

    /// The largest diagonal entry in absolute value.
    pub(super) fn largest_diagonal(&self) -> f64 {
        self.pattern.diagonal.iter().fold(0.0f64, |m, &k| m.max(self.values[k].abs()))
    }

    /// The tangent as a dense matrix (tests).
    #[cfg(test)]
    pub(super) fn dense(&self) -> nalgebra::DMatrix<f64> {
        let mut a = nalgebra::DMatrix::zeros(self.pattern.dofs, self.pattern.dofs);
        for (r, c, v) in self.entries() {
            a[(r, c)] = v;
        }
        a
    }
}

/// Which tangent a block belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The stiffness `K = df/du`.
    Stiffness,
    /// The damping `D = df/dv`.
    Damping,
}

/// `[a]_x`, the cross-product matrix: `[a]_x b = a x b`.
fn cross_matrix(a: Vec3) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

impl SpringBody {
    /// The body's tangent pattern, built on first use.
    fn pattern(&self) -> &Pattern {
        self.pattern.get_or_init(|| {
            let mut elements: [Vec<&[usize]>; 4] = Default::default();
            elements[Element::Spring as usize] = self.edges.iter().map(|e| &e.0[..]).collect();
            elements[Element::Tetrahedron as usize] = self.tets.iter().map(|t| &t.0[..]).collect();
            if let Some(shell) = &self.flex {
                elements[Element::Triangle as usize] = shell.triangle_vertices().collect();
                elements[Element::Hinge as usize] = shell.hinge_vertices().collect();
            }
            Pattern::new(&self.slot, self.free.len(), elements)
        })
    }

    /// The vertices of element `index` of `kind`.
    #[cfg(test)]
    fn element_vertices(&self, kind: Element, index: usize) -> Vec<usize> {
        let shell = || self.flex.as_ref().expect("a flex element on a sheet");
        match kind {
            Element::Spring => self.edges[index].0.to_vec(),
            Element::Tetrahedron => self.tets[index].0.to_vec(),
            Element::Triangle => shell().triangle_vertices().nth(index).unwrap().to_vec(),
            Element::Hinge => shell().hinge_vertices().nth(index).unwrap().to_vec(),
        }
    }

    /// The tangents `K = df/du` and (for damping) `D = df/dv` on the body's pattern.
    pub(super) fn tangents(&self, law: &SpringLaw, u: &[f64]) -> (Tangent<'_>, Tangent<'_>) {
        let pattern = self.pattern();
        let mut k = vec![0.0; pattern.rows.len()];
        let mut d = vec![0.0; pattern.rows.len()];
        self.assemble(law, u, |part, kind, index, i, j, block| {
            let values = if part == Part::Stiffness { &mut k } else { &mut d };
            pattern.add(values, kind, index, i, j, block);
        });
        (Tangent { pattern, values: k }, Tangent { pattern, values: d })
    }

    /// The elements' blocks of the tangents, in a fixed order, each passed to
    /// `put(part, kind, index, i, j, block)`.
    fn assemble(
        &self,
        law: &SpringLaw,
        u: &[f64],
        mut put: impl FnMut(Part, Element, usize, usize, usize, &Matrix3<f64>),
    ) {
        use Element::{Spring, Tetrahedron};
        use Part::{Damping, Stiffness};
        for (index, (spring, &group)) in self.edges.iter().zip(&self.groups).enumerate() {
            let (l, stretch, n) = self.spring(u, spring);
            let nn = n * n.transpose();
            let ke = (nn + (Matrix3::identity() - nn) * (stretch / l)) * law.spring_constant(group);
            put(Stiffness, Spring, index, 0, 0, &-ke);
            put(Stiffness, Spring, index, 1, 1, &-ke);
            put(Stiffness, Spring, index, 0, 1, &ke);
            put(Stiffness, Spring, index, 1, 0, &ke);
            if law.damping > 0.0 {
                let de = nn * law.damping;
                put(Damping, Spring, index, 0, 0, &-de);
                put(Damping, Spring, index, 1, 1, &-de);
                put(Damping, Spring, index, 0, 1, &de);
                put(Damping, Spring, index, 1, 0, &de);
            }
        }
        if law.kvol > 0.0 {
            for (index, tet) in self.tets.iter().enumerate() {
                let (dv, grad, dd) = self.volume(u, tet);
                // Hessian of V in the edge vectors d1, d2, d3 (d_k = x_k - x_0), then in the vertices.
                let mut h = [[Matrix3::zeros(); 4]; 4];
                let x = |a: Vec3| cross_matrix(a) / 6.0;
                let inner = [
                    [Matrix3::zeros(), -x(dd[2]), x(dd[1])],
                    [x(dd[2]), Matrix3::zeros(), -x(dd[0])],
                    [-x(dd[1]), x(dd[0]), Matrix3::zeros()],
                ];
                for i in 0..3 {
                    for j in 0..3 {
                        h[i + 1][j + 1] = inner[i][j];
                        h[0][j + 1] -= inner[i][j];
                        h[i + 1][0] -= inner[i][j];
                        h[0][0] += inner[i][j];
                    }
                }
                let s = law.kvol / tet.2;
                for i in 0..4 {
                    for j in 0..4 {
                        let block = -(grad[i] * grad[j].transpose() + h[i][j] * dv) * s;
                        put(Stiffness, Tetrahedron, index, i, j, &block);
                    }
                }
            }
        }
        if law.has_neo_hookean() {
            for index in 0..self.tets.len() {
                let blocks = self.neo_hookean_tangent(law, u, index);
                for i in 0..4 {
                    for j in 0..4 {
                        put(Stiffness, Tetrahedron, index, i, j, &blocks[i][j]);
                    }
                }
            }
        }
        self.flex_tangent(law.flex_constants(), u, |kind, index, i, j, block| put(Stiffness, kind, index, i, j, block));
    }

    /// The factorisation of `A = sum of scaled tangents + diag` (symmetric: the tangents are), on the
    /// body's pattern: Cholesky where `A` is positive definite, else LU ([`Pattern::factor`]).
    pub(super) fn factor(&self, parts: &[(&Tangent, f64)], diagonal: Option<&[f64]>) -> Option<Factor> {
        let pattern = self.pattern();
        let mut values = vec![0.0; pattern.rows.len()];
        for (m, s) in parts {
            for (a, v) in values.iter_mut().zip(&m.values) {
                *a += s * v;
            }
        }
        if let Some(diag) = diagonal {
            for (&k, &v) in pattern.diagonal.iter().zip(diag) {
                values[k] += v;
            }
        }
        pattern.factor(&values)
    }

    /// Solves `A x = b` for `A = sum of scaled tangents + diag` ([`Self::factor`]).
    pub(super) fn solve(&self, parts: &[(&Tangent, f64)], diagonal: Option<&[f64]>, b: &[f64]) -> Option<Vec<f64>> {
        let n = self.dofs();
        let factor = self.factor(parts, diagonal)?;
        let mut x = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        factor.solve_in_place(x.as_mut());
        let out: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
        out.iter().all(|v| v.is_finite()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::collections::BTreeMap;

    use super::*;
    use crate::mass_spring::tests::body;

    thread_local! {
        /// Test switch: factor every matrix that is not positive definite by LU, as before the indefinite
        /// `L D L^T` (the reference the tests below compare with).
        pub(super) static LU_ONLY: Cell<bool> = const { Cell::new(false) };
        /// How many matrices this thread factored by the indefinite `L D L^T`.
        pub(super) static INDEFINITE: Cell<usize> = const { Cell::new(0) };
    }

    /// MuJoCo's flex shell (membrane `mu h`, `lambda h` in N/m, bending modulus in N m) soft in bending, so
    /// the sheet's compressed parts buckle: Newton's `-K` there is indefinite.
    const SOFT_FLEX: SpringLaw =
        SpringLaw { membrane_mu: 500.0, membrane_lambda: 300.0, bending: 1e-5, ..SpringLaw::NONE };

    /// Displacements that shrink the sheet `b` by `shrink` in its plane (towards the origin, a corner of
    /// the held row) and ripple it out of it by up to 3 cm: a compressed, buckled membrane.
    fn compressed(b: &SpringBody, shrink: f64) -> Vec<Vec3> {
        let held = |i: usize| b.slot[i] == usize::MAX;
        (b.rest.iter().enumerate())
            .map(|(i, x)| match held(i) {
                true => Vec3::zeros(),
                false => Vec3::new(-shrink * x.x, -shrink * x.y, 0.01 * ((i * 5 % 7) as f64 - 3.0)),
            })
            .collect()
    }

    /// Where Cholesky refuses `-K` (the 4 x 4 sheet shrunk to 80 % in its plane and rippled out of it: a
    /// compressed membrane), the indefinite `L D L^T` factors it and solves as LU does, to 1e-10 of the
    /// solution's largest entry.
    #[test]
    fn the_indefinite_factor_solves_as_lu() {
        let b = sheet(4);
        let x = b.flatten(&compressed(&b, 0.2));
        let (k, _) = b.tangents(&SOFT_FLEX, &x);
        let f = b.forces(&SOFT_FLEX, &x, None);
        let factor = b.factor(&[(&k, -1.0)], None).unwrap();
        assert!(matches!(factor, Factor::Indefinite(_)), "-K of the compressed sheet is factored by L D L^T");
        let solve = |factor: &Factor| {
            let mut y = Mat::<f64>::from_fn(f.len(), 1, |i, _| f[i]);
            factor.solve_in_place(y.as_mut());
            (0..f.len()).map(|i| y[(i, 0)]).collect::<Vec<_>>()
        };
        let lblt = solve(&factor);
        let mut values = k.values.clone();
        values.iter_mut().for_each(|v| *v = -*v);
        let lu = solve(&b.pattern().lu_factor(&values).unwrap());
        let size = lu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let gap = lblt.iter().zip(&lu).fold(0.0f64, |m, (a, r)| m.max((a - r).abs())) / size;
        println!("{} DOFs: L D L^T against LU {gap:e} of the largest entry ({size:e})", f.len());
        assert!(gap <= 1e-10, "{gap:e}");
    }

    /// Newton's rest state of the 4 x 4 sheet under [`SOFT_FLEX`], whose iterates' tangents are indefinite
    /// (factored by `L D L^T`), is the rest state of Newton with LU in its place (as before), to 1e-10 of
    /// the largest displacement, in as many iterations: the sheet lying flat and drooping under its weight
    /// from rest (1 indefinite tangent, 32 iterations) and from a compressed, buckled start (4 indefinite,
    /// 37 iterations), and hanging in its plane from that start (6 indefinite, 24 iterations); 1e-16 apart.
    #[test]
    fn the_indefinite_newton_rests_where_the_lu_newton_does() {
        for (g, law, shrink) in [
            (Vec3::new(0.0, 0.0, -9.81), SOFT_FLEX, 0.0),
            (Vec3::new(0.0, 9.81, 0.0), SOFT_FLEX, 0.2),
            (Vec3::new(0.0, 0.0, -9.81), SOFT_FLEX, 0.2),
        ] {
            let b = sheet_under(4, g);
            let warm = (shrink > 0.0).then(|| compressed(&b, shrink));
            INDEFINITE.set(0);
            let fast = b.equilibrium(&law, warm.as_deref()).unwrap();
            let indefinite = INDEFINITE.get();
            LU_ONLY.set(true);
            let reference = b.equilibrium(&law, warm.as_deref()).unwrap();
            LU_ONLY.set(false);
            let (x, r) = (b.flatten(&fast.displacements), b.flatten(&reference.displacements));
            let size = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let gap = x.iter().zip(&r).fold(0.0f64, |m, (a, r)| m.max((a - r).abs())) / size;
            println!(
                "{indefinite} indefinite factorisations; {} and {} iterations; rest states {gap:e} apart (largest \
             displacement {size:e} m)",
                fast.iterations, reference.iterations
            );
            assert!(indefinite > 0, "the sheet's Newton meets indefinite tangents");
            assert!(gap <= 1e-10, "{gap:e}");
            assert_eq!(fast.iterations, reference.iterations);
        }
    }

    /// The tangents equal central differences of the forces: `K` of the elastic forces (springs, volume
    /// penalty, neo-Hookean tetrahedra), `D` of the damping forces in the velocities, at a deformed state with compressed and
    /// stretched springs. (The damping force's dependence on positions, through `n`, is left out of the
    /// implicit-Euler Jacobian: it slows Newton down near large velocities, never changes its solution.)
    #[test]
    fn tangents_are_the_derivatives_of_the_forces() {
        let b = body("gravity-wall", 2);
        let law = SpringLaw { ks: 700.0, kvol: 2500.0, damping: 3.0, mu: 900.0, lambda: 1500.0, ..SpringLaw::NONE };
        let n = b.dofs();
        let u: Vec<f64> = (0..n).map(|i| 0.03 * ((i * 7 % 11) as f64 / 11.0 - 0.5)).collect();
        let v: Vec<f64> = (0..n).map(|i| 0.2 * ((i * 5 % 13) as f64 / 13.0 - 0.5)).collect();
        let (k, d) = b.tangents(&law, &u);
        let (k, d) = (k.dense(), d.dense());
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for j in 0..n {
            let shifted = |x: &[f64], s: f64| {
                let mut y = x.to_vec();
                y[j] += s;
                y
            };
            let elastic = SpringLaw { damping: 0.0, ..law };
            let fk_plus = b.forces(&elastic, &shifted(&u, h), None);
            let fk_minus = b.forces(&elastic, &shifted(&u, -h), None);
            let fd_plus = b.forces(&law, &u, Some(&shifted(&v, h)));
            let fd_minus = b.forces(&law, &u, Some(&shifted(&v, -h)));
            for i in 0..n {
                let dk = (fk_plus[i] - fk_minus[i]) / (2.0 * h);
                let dd = (fd_plus[i] - fd_minus[i]) / (2.0 * h);
                worst = worst.max((k[(i, j)] - dk).abs() / k.abs().max()).max((d[(i, j)] - dd).abs() / d.abs().max());
            }
        }
        assert!(worst < 1e-6, "tangent vs finite differences: {worst:e}");
        assert!((k.clone() - k.transpose()).abs().max() < 1e-9 * k.abs().max(), "K is symmetric");
    }

    /// The tangents as the summed entries of a map, `(row, column) -> value`, each block added where its
    /// element's vertices are free: how they were assembled before the pattern, kept as the reference.
    fn by_map(b: &SpringBody, law: &SpringLaw, u: &[f64]) -> [BTreeMap<(usize, usize), f64>; 2] {
        let mut maps = [BTreeMap::new(), BTreeMap::new()];
        b.assemble(law, u, |part, kind, index, i, j, block| {
            let vertices = b.element_vertices(kind, index);
            let (sa, sb) = (b.slot[vertices[i]], b.slot[vertices[j]]);
            if sa == usize::MAX || sb == usize::MAX {
                return;
            }
            for r in 0..3 {
                for c in 0..3 {
                    *maps[part as usize].entry((3 * sa + r, 3 * sb + c)).or_insert(0.0) += block[(r, c)];
                }
            }
        });
        maps
    }

    /// A 0.8 m x 0.5 m sheet of `n x n` cells (1 mm, 1000 kg/m^3) held along its first row, under gravity.
    fn sheet(n: usize) -> SpringBody {
        sheet_under(n, Vec3::new(0.0, 0.0, -9.81))
    }

    /// [`sheet`] under the acceleration `g` (m/s^2).
    fn sheet_under(n: usize, g: Vec3) -> SpringBody {
        let mesh = pbdfit_mesh::SheetMesh::rectangle(0.8, 0.5, n, n, pbdfit_mesh::Diagonal::Alternating).unwrap();
        let sheet = pbdfit_mesh::Sheet::new(mesh, 1e-3, 1000.0).unwrap();
        let mut held = vec![false; sheet.mesh.vertices().len()];
        held[..=n].fill(true);
        SpringBody::new(&crate::PbdSystem::sheet("sheet", &sheet, &held, g))
    }

    /// The old sparse LU solve: `A` from the map's entries (its own pattern), factored from scratch.
    fn solve_by_map(n: usize, k: &BTreeMap<(usize, usize), f64>, b: &[f64]) -> Vec<f64> {
        let triplets: Vec<_> = k.iter().map(|(&(r, c), &v)| faer::sparse::Triplet::new(r, c, -v)).collect();
        let lu =
            faer::sparse::SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).unwrap().sp_lu().unwrap();
        let mut x = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        lu.solve_in_place_with_conj(Conj::No, x.as_mut());
        (0..n).map(|i| x[(i, 0)]).collect()
    }

    /// The pattern-based tangents equal the map-assembled ones entry by entry (to 1e-12 of the largest;
    /// the pattern holds no entry the map lacks beyond explicit zeros), and the LU on the pattern's reused
    /// symbolic factorisation solves as the map's own LU (to 1e-10), on a sheet under MuJoCo's flex shell, a
    /// solid under PyBullet's neo-Hookean law with a volume penalty and damping, and a mass-spring sheet.
    #[test]
    fn the_pattern_tangent_is_the_map_assembled_one() {
        let flex = SpringLaw { membrane_mu: 70.0, membrane_lambda: 40.0, bending: 3e-3, ..SpringLaw::NONE };
        let solid = SpringLaw { ks: 50.0, kvol: 300.0, damping: 2.0, mu: 500.0, lambda: 900.0, ..SpringLaw::NONE };
        let cloth = SpringLaw { ks: 400.0, ks_shear: 90.0, ks_bend: 5.0, ..SpringLaw::NONE };
        for (scene, n, law) in [("sheet", 4, flex), ("gravity-wall", 2, solid), ("sheet", 3, cloth)] {
            let b = if scene == "sheet" { sheet(n) } else { body(scene, n) };
            let dofs = b.dofs();
            let u: Vec<f64> = (0..dofs).map(|i| 0.02 * ((i * 7 % 11) as f64 / 11.0 - 0.5)).collect();
            let (k, d) = b.tangents(&law, &u);
            let [mk, md] = by_map(&b, &law, &u);
            let mut worst: f64 = 0.0;
            for (pattern, map) in [(&k, &mk), (&d, &md)] {
                let dense = pattern.dense();
                let scale = dense.abs().max().max(f64::MIN_POSITIVE);
                let mut listed = 0;
                for (r, c, v) in pattern.entries() {
                    match map.get(&(r, c)) {
                        Some(&m) => {
                            worst = worst.max((v - m).abs() / scale);
                            listed += 1;
                        }
                        None => assert_eq!(v, 0.0, "{scene}: ({r}, {c}) outside the map's entries"),
                    }
                }
                assert_eq!(listed, map.len(), "{scene}: every entry of the map is in the pattern");
            }
            let f = b.forces(&SpringLaw { damping: 0.0, ..law }, &u, None);
            let x = b.solve(&[(&k, -1.0)], None, &f).unwrap();
            let reference = solve_by_map(dofs, &mk, &f);
            let size = reference.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let gap = x.iter().zip(&reference).fold(0.0f64, |m, (a, r)| m.max((a - r).abs())) / size;
            println!("{scene} N = {n}: {} entries, tangent gap {worst:e}, solve gap {gap:e}", k.values.len());
            assert!(worst <= 1e-12 && gap <= 1e-10, "{scene}: tangent {worst:e}, solve {gap:e}");
        }
    }

    /// Newton on the pattern's tangent reaches the rest state of Newton on the map-assembled tangent with
    /// a fresh LU each step (the same iteration as [`SpringBody::equilibrium`]'s, written out here) to 1e-10
    /// of the largest displacement, on a neo-Hookean solid (PyBullet's law).
    #[test]
    fn the_pattern_newton_reaches_the_map_newtons_rest_state() {
        let b = body("gravity-wall", 2);
        let law = SpringLaw { mu: 400.0, lambda: 800.0, ..SpringLaw::NONE };
        let e = b.equilibrium(&law, None).unwrap();
        let (dofs, mut u) = (b.dofs(), vec![0.0; b.dofs()]);
        let norm = |f: &[f64]| f.iter().map(|x| x * x).sum::<f64>().sqrt();
        for _ in 0..50 {
            let f = b.forces(&law, &u, None);
            if norm(&f) <= 1e-13 {
                break;
            }
            let [k, _] = by_map(&b, &law, &u);
            let du = solve_by_map(dofs, &k, &f);
            let mut step = 1.0;
            while norm(&b.forces(&law, &u.iter().zip(&du).map(|(a, d)| a + step * d).collect::<Vec<_>>(), None))
                >= (1.0 - 1e-4 * step) * norm(&f)
                && step > 1e-9
            {
                step *= 0.5;
            }
            u.iter_mut().zip(&du).for_each(|(a, d)| *a += step * d);
        }
        let x = b.flatten(&e.displacements);
        let size = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let gap = x.iter().zip(&u).fold(0.0f64, |m, (a, r)| m.max((a - r).abs())) / size;
        println!("rest state gap {gap:e} (largest displacement {size:e} m, {} iterations)", e.iterations);
        assert!(gap <= 1e-10, "{gap:e}");
    }
}
