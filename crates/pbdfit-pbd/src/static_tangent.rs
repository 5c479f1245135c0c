//! The one home of the static tangents that precondition the root solve (`newton_krylov.rs`'s
//! [`Preconditioner`]): the cloth models' (`cloth/tangent.rs`, whose module doc derives the method) and the
//! solid engine profiles' (`engines/tangent.rs`). Each gives its constraints' blocks; this module holds what
//! they share: the compliances a rule's passes rest at, the edge and Gauss-Newton blocks, and the sparse
//! assembly, Cholesky factorisation (faer, symbolic once per body) and application `I + K~^-1 M`.

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMat, SparseColMatRef, Triplet};
use faer::{Conj, MatMut, Side};
use nalgebra::Matrix3;

use crate::Vec3;

/// One constraint's blocks over its (up to four) particles: `[a][b]` couples particle `a` to `b`.
pub(crate) type Blocks = [[Matrix3<f64>; 4]; 4];

/// The stiffest a constraint counts in the tangent: its compliance at least this fraction of its `W`
/// (`sum_i w_i |grad_i C|^2`, kg^-1). A hard constraint (PBD's `k = 1`, XPBD's `alpha = 0`) converges in
/// its own passes, so its modes need nothing of the preconditioner; the floor keeps the factorisation's
/// stiffness ratios near 1e6 instead of unbounded.
const STIFFEST: f64 = 1e-6;

/// The shift `SHIFT M` added to `K~` before it is factorised (the modes with no stiffness at all then
/// get `1 / SHIFT` of the mass matrix's weight: slow, as the map is there).
const SHIFT: f64 = 1e-8;

/// A constraint with a multiplier (XPBD's, Jolt's `lambda = 0` pass): its `alpha~` (kg^-1) floored at
/// [`STIFFEST`] `W`, plus `W / passes`, the compliance of that many Gauss-Seidel (or relaxed) passes on
/// smooth modes (`cloth/tangent.rs`); `None` where that is not positive and finite.
pub(crate) fn xpbd_compliance(alpha: f64, weight: f64, passes: f64) -> Option<f64> {
    let c = alpha.max(STIFFEST * weight) + weight / passes.max(1e-12);
    (c > 0.0 && c.is_finite()).then_some(c)
}

/// A constraint without a multiplier whose pass removes the fraction `k` of its violation, `n` passes a
/// step: `W r / (1 - r)`, `r = (1 - k)^n`, whose XPBD constraint rests where it does (floored at
/// [`STIFFEST`] `W`), plus `W / (k n)` for the passes' smooth modes; `None` for `k <= 0` (no constraint)
/// or `W = 0` (no gradient).
pub(crate) fn pbd_compliance(k: f64, n: usize, weight: f64) -> Option<f64> {
    if k <= 0.0 || weight <= 0.0 || !weight.is_finite() {
        return None;
    }
    let k = k.min(1.0);
    let r = (1.0 - k).powi(n.clamp(1, i32::MAX as usize) as i32);
    Some(weight * ((r / (1.0 - r)).max(STIFFEST) + 1.0 / (k * n.max(1) as f64)))
}

/// An edge `x0 - x1 = e` (m) of rest length `rest`, `C = |e| - rest`, at compliance `c`:
/// `n n^T + max(C, 0) / d (I - n n^T)` over `c` on the diagonal, its negative off it (the geometric part
/// only in tension); `None` for a degenerate edge.
pub(crate) fn edge(e: Vec3, rest: f64, c: f64) -> Option<Blocks> {
    let d = e.norm();
    if d <= 1e-12 {
        return None;
    }
    let n = e / d;
    let nn = n * n.transpose();
    let h = (nn + (Matrix3::identity() - nn) * ((d - rest).max(0.0) / d)) / c;
    let mut b = [[Matrix3::zeros(); 4]; 4];
    b[0][0] = h;
    b[1][1] = h;
    b[0][1] = -h;
    b[1][0] = -h;
    Some(b)
}

/// The Gauss-Newton blocks `g_i g_j^T / c` of gradients `g` (in the particles' order).
pub(crate) fn gauss_newton(g: &[Vec3; 4], c: f64) -> Blocks {
    let mut b = [[Matrix3::zeros(); 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            b[i][j] = g[i] * g[j].transpose() / c;
        }
    }
    b
}

/// Scatters one constraint's `blocks` over `particles` into the lower triangle of the free unknowns
/// (`slot[p]`: particle `p`'s index among the free ones, `usize::MAX` where held), to `put(row, column, value)`.
pub(crate) fn scatter(slot: &[usize], particles: &[usize], blocks: &Blocks, put: &mut dyn FnMut(usize, usize, f64)) {
    for (a, &pa) in particles.iter().enumerate() {
        let sa = slot[pa];
        if sa == usize::MAX {
            continue;
        }
        for (b, &pb) in particles.iter().enumerate() {
            let sb = slot[pb];
            if sb == usize::MAX {
                continue;
            }
            for r in 0..3 {
                for c in 0..3 {
                    let (row, col) = (3 * sa + r, 3 * sb + c);
                    if row >= col {
                        put(row, col, blocks[a][b][(r, c)]);
                    }
                }
            }
        }
    }
}

/// A tangent's entries: every constraint's lower-triangle entries, in a fixed order, to `put(row, column,
/// value)`.
pub(crate) type Entries<'a> = dyn Fn(&mut dyn FnMut(usize, usize, f64)) + 'a;

/// `K~ + SHIFT M` over the free unknowns, factorised: the pattern and its symbolic factorisation from the
/// first [`prepare`](Self::prepare), the numbers at each.
pub(crate) struct FactoredTangent {
    /// The mass of each free unknown (kg).
    mass: Vec<f64>,
    pattern: Option<Pattern>,
    factor: Option<Llt<usize, f64>>,
}

/// The lower triangle's pattern over the free unknowns (column-major, values unused), for each entry the
/// constraints add, in the order their `entries` makes them, its place in the values, and the symbolic
/// factorisation.
struct Pattern {
    matrix: SparseColMat<usize, f64>,
    places: Vec<usize>,
    symbolic: SymbolicLlt<usize>,
}

impl FactoredTangent {
    /// A tangent over unknowns of these masses (kg), not yet factorised.
    pub(crate) fn new(mass: Vec<f64>) -> Self {
        Self { mass, pattern: None, factor: None }
    }

    /// Assembles `entries` (every constraint's lower-triangle entries, in a fixed order: the same entries at
    /// every call, a constraint without a stiffness giving zeros) plus `SHIFT M` and factorises it; whether
    /// that succeeded.
    pub(crate) fn prepare(&mut self, entries: &Entries) -> bool {
        let all = |put: &mut dyn FnMut(usize, usize, f64)| {
            entries(put);
            for (i, m) in self.mass.iter().enumerate() {
                put(i, i, SHIFT * m);
            }
        };
        if self.pattern.is_none() {
            let mut triplets = Vec::new();
            all(&mut |r, c, _| triplets.push(Triplet::new(r, c, 0.0)));
            let n = self.mass.len();
            let Ok(matrix) = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets) else {
                return false;
            };
            let symbolic = matrix.symbolic();
            let place = |r: usize, c: usize| {
                let rows = &symbolic.row_idx()[symbolic.col_ptr()[c]..symbolic.col_ptr()[c + 1]];
                symbolic.col_ptr()[c] + rows.binary_search(&r).expect("an entry of the pattern")
            };
            let places = triplets.iter().map(|t| place(t.row, t.col)).collect();
            let Ok(llt) = SymbolicLlt::try_new(symbolic, Side::Lower) else {
                return false;
            };
            self.pattern = Some(Pattern { matrix, places, symbolic: llt });
        }
        let pattern = self.pattern.take().expect("the pattern");
        let mut values = vec![0.0; pattern.matrix.val().len()];
        let mut k = 0;
        all(&mut |_, _, v| {
            values[pattern.places[k]] += v;
            k += 1;
        });
        self.factor = if values.iter().all(|v| v.is_finite()) {
            let a = SparseColMatRef::new(pattern.matrix.symbolic(), &values);
            Llt::try_new_with_symbolic(pattern.symbolic.clone(), a, Side::Lower).ok()
        } else {
            None
        };
        self.pattern = Some(pattern);
        self.factor.is_some()
    }

    /// `out = (I + K~^-1 M) v`, the preconditioner's product, with the last factorisation.
    pub(crate) fn apply(&self, v: &[f64], out: &mut [f64]) {
        let factor = self.factor.as_ref().expect("a prepared tangent");
        for ((o, vi), m) in out.iter_mut().zip(v).zip(&self.mass) {
            *o = vi * m;
        }
        let n = out.len();
        factor.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(out, n, 1));
        out.iter_mut().zip(v).for_each(|(o, vi)| *o += vi);
    }
}
