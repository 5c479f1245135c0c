//! Anderson acceleration (type II, Walker & Ni 2011) of a fixed-point iteration `x = G(x)`.

/// What the accelerated iteration reached.
pub(crate) struct AndersonOutcome {
    /// The last `G(x)`, the best estimate of the fixed point.
    pub x: Vec<f64>,
    /// `|G(x) - x|_inf / |G(x)|_inf` at the returned point.
    pub residual: f64,
    /// Evaluations of `G`.
    pub evaluations: usize,
    /// Whether the residual fell below the tolerance. Leaving the admissible region (`|x|_inf > limit`,
    /// or NaN) ends the iteration unconverged; the caller's fallback decides whether that is divergence.
    pub converged: bool,
}

/// How far an accelerated iteration has come, as [`anderson_guarded`] tells its `go_on`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Progress {
    /// Evaluations of `G` so far.
    pub evaluations: usize,
    /// The largest component of the last admissible image, `|G(x)|_inf`.
    pub scale: f64,
    /// Its residual `|G(x) - x|_inf / |G(x)|_inf`.
    pub residual: f64,
}

/// Iterates `x <- G(x) - dG gamma` with `gamma` minimising `|f - dF gamma|` over the last `memory`
/// differences of `f = G(x) - x`. The small least-squares problem is solved through its normal
/// equations, with a restart when it turns ill-conditioned or the residual jumps.
///
/// The Gram matrix `dF^T dF` is kept from one iteration to the next: a new difference adds one row of
/// dot products and the oldest one drops out, so an iteration costs `O(memory n)` instead of
/// `O(memory^2 n)`, and the difference vectors live in a ring of reused buffers (no allocation per
/// iteration). Every entry is the same dot product of the same vectors as when it was recomputed each
/// iteration, so the iterates are bit-identical to that form (tested against it below).
///
/// `go_on(progress)` is asked before every evaluation after the first, with the evaluations so far and
/// the last image's size and residual ([`Progress`]); `false` ends the iteration unconverged (the caller's
/// way to stop a solve it has found hopeless, without touching the iterates of one that goes on).
#[cfg(test)]
pub(crate) fn anderson(
    x0: Vec<f64>,
    g: impl FnMut(&[f64], &mut [f64]),
    memory: usize,
    tolerance: f64,
    max_evaluations: usize,
    limit: f64,
    go_on: impl FnMut(Progress) -> bool,
) -> AndersonOutcome {
    anderson_guarded(x0, g, memory, tolerance, max_evaluations, limit, 0, go_on)
}

/// [`anderson`] that survives up to `retreats` extrapolations out of the admissible region: the image of
/// such a point is discarded, the history cleared, and the iteration goes on from the last admissible
/// image `G(x_prev)` with `2 memory` plain steps `x <- G(x)` before it extrapolates again. With
/// `retreats = 0` it is [`anderson`], iterate for iterate. For the engine profiles, whose Jacobi step
/// maps an extrapolated state with compressed tetrahedra far out (Newton's `C_dev`): their fixed point was
/// given up after four evaluations and stepped to rest instead, 40 times slower.
#[allow(clippy::too_many_arguments)]
pub(crate) fn anderson_guarded(
    x0: Vec<f64>,
    mut g: impl FnMut(&[f64], &mut [f64]),
    memory: usize,
    tolerance: f64,
    max_evaluations: usize,
    limit: f64,
    mut retreats: usize,
    mut go_on: impl FnMut(Progress) -> bool,
) -> AndersonOutcome {
    let n = x0.len();
    // Plain steps are taken until this many evaluations (after a retreat).
    let mut plain_until = 0;
    let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    let mut x = x0;
    let mut gx = vec![0.0; n];
    let mut f = vec![0.0; n];
    let mut prev_g = vec![0.0; n];
    let mut prev_f = vec![0.0; n];
    let mut history = History::new(memory, n);
    let mut normal = NormalEquations::default();
    let mut best = f64::INFINITY;
    let mut evaluations = 0;
    let mut residual = f64::INFINITY;
    // The largest component of the last admissible image.
    let mut last_scale = 0.0;
    while evaluations < max_evaluations {
        if evaluations > 0 && !go_on(Progress { evaluations, scale: last_scale, residual }) {
            break;
        }
        g(&x, &mut gx);
        evaluations += 1;
        let scale = inf(&gx);
        if !scale.is_finite() || scale > limit {
            if retreats > 0 && evaluations > 1 && history.len() > 0 {
                retreats -= 1;
                history.clear();
                x.copy_from_slice(&prev_g);
                plain_until = evaluations + 2 * memory;
                continue;
            }
            return AndersonOutcome { x: gx, residual: f64::INFINITY, evaluations, converged: false };
        }
        last_scale = scale;
        for i in 0..n {
            f[i] = gx[i] - x[i];
        }
        let fn_inf = inf(&f);
        residual = if scale > 0.0 { fn_inf / scale } else { fn_inf };
        if residual <= tolerance || fn_inf == 0.0 {
            return AndersonOutcome { x: gx, residual, evaluations, converged: true };
        }
        if evaluations > 1 {
            if residual > 1e4 * best {
                history.clear();
            } else {
                history.push(&f, &prev_f, &gx, &prev_g);
            }
        }
        best = best.min(residual);
        prev_f.copy_from_slice(&f);
        prev_g.copy_from_slice(&gx);
        x.copy_from_slice(&gx);
        let m = history.len();
        if m > 0 && evaluations >= plain_until {
            let (gram, gamma) = (&mut normal.gram, &mut normal.rhs);
            gram.clear();
            gram.resize(m * m, 0.0);
            gamma.clear();
            gamma.resize(m, 0.0);
            history.dots(&f, gamma);
            for a in 0..m {
                for b in 0..=a {
                    let v = history.gram(a, b);
                    gram[b * m + a] = v;
                    gram[a * m + b] = v;
                }
            }
            let trace: f64 = (0..m).map(|a| gram[a * m + a]).sum();
            for a in 0..m {
                gram[a * m + a] += 1e-13 * trace;
            }
            if cholesky_solve(gram, m, gamma) {
                history.subtract_dg(gamma, &mut x);
            } else {
                history.clear();
            }
        }
    }
    AndersonOutcome { x: gx, residual, evaluations, converged: false }
}

/// The last `memory` differences `dF`, `dG` in a ring of slots, with their Gram matrix `dF_a . dF_b`.
///
/// Layout: element `i` of `dF` in slot `s` sits at `i * stride + s` (component-major), so the dot
/// products of one vector with every slot run as `memory` independent sums side by side, `acc[s] +=
/// v[i] dF[i, s]` for `i = 0, 1, ...`: each sum adds the same products in the same order as `dot` (from
/// `-0.0`, as `Iterator::sum` of `f64` does), so every entry is bit-identical to the one-vector-at-a-time
/// form, but the loop over slots is a vector loop instead of a chain of dependent additions (N = 1: `n` =
/// 12 and a memory of 10, where the chains cost more than the projections). `dG` is slot-major: the
/// update subtracts one whole slot at a time, in logical order.
struct History {
    memory: usize,
    n: usize,
    /// Live differences.
    len: usize,
    /// The slot of the oldest live difference (logical index `a` is slot `(start + a) % memory`).
    start: usize,
    /// Slots per component in `df`: [`PACKED`] for a memory up to it (the slots beyond the memory stay
    /// zero and are never read), else the memory.
    stride: usize,
    /// `dF`, component-major by slot.
    df: Vec<f64>,
    /// `dG`, slot-major (slot `s` is `dg[s * n..(s + 1) * n]`): the update subtracts whole slots.
    dg: Vec<f64>,
    /// `gram[s * memory + t] = dF_s . dF_t` for live slots (symmetric).
    gram: Vec<f64>,
    /// One accumulator per slot.
    acc: Vec<f64>,
    /// The slot of each logical index, oldest first (`len` entries).
    order: Vec<usize>,
}

impl History {
    fn new(memory: usize, n: usize) -> Self {
        let stride = if memory <= PACKED { PACKED } else { memory };
        Self {
            memory,
            n,
            len: 0,
            start: 0,
            stride,
            df: vec![0.0; n * stride],
            dg: vec![0.0; n * memory],
            gram: vec![0.0; memory * memory],
            acc: vec![0.0; stride],
            order: Vec::with_capacity(memory),
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// The slot of logical index `a` (0 = oldest), counted from `start` (`a` up to `len`).
    fn slot(&self, a: usize) -> usize {
        let s = self.start + a;
        if s >= self.memory { s - self.memory } else { s }
    }

    /// `dF_a . dF_b` for logical indices.
    fn gram(&self, a: usize, b: usize) -> f64 {
        self.gram[self.order[a] * self.memory + self.order[b]]
    }

    fn clear(&mut self) {
        self.len = 0;
        self.start = 0;
        self.order.clear();
    }

    /// `acc[s] = sum_i dF[i, s] x(row_i, i)` for every slot (`row_i` is component `i` of every slot),
    /// each summed in component order from `-0.0` like `dot`. With the packed stride the accumulators
    /// are a fixed-size array the compiler keeps in registers across the components.
    #[inline(always)]
    fn slot_dots(&mut self, x: impl Fn(&[f64], usize) -> f64) {
        if self.stride == PACKED {
            let mut acc = [-0.0f64; PACKED];
            for (i, row) in self.df.chunks_exact(PACKED).enumerate() {
                let xi = x(row, i);
                for (a, &d) in acc.iter_mut().zip(row) {
                    *a += d * xi;
                }
            }
            self.acc.copy_from_slice(&acc);
        } else {
            self.acc.fill(-0.0);
            for (i, row) in self.df.chunks_exact(self.stride).enumerate() {
                let xi = x(row, i);
                for (a, &d) in self.acc.iter_mut().zip(row) {
                    *a += d * xi;
                }
            }
        }
    }

    /// `dF_a . v` for logical `a = 0..len` into `out[..len]`.
    fn dots(&mut self, v: &[f64], out: &mut [f64]) {
        self.slot_dots(|_, i| v[i]);
        for (o, &s) in out[..self.len].iter_mut().zip(&self.order) {
            *o = self.acc[s];
        }
    }

    /// `x -= sum_a c[a] dG_a`, the terms subtracted in logical order for each component.
    fn subtract_dg(&self, c: &[f64], x: &mut [f64]) {
        let n = self.n;
        for (&ca, &s) in c[..self.len].iter().zip(&self.order) {
            for (xi, &d) in x.iter_mut().zip(&self.dg[s * n..(s + 1) * n]) {
                *xi -= ca * d;
            }
        }
    }

    fn push(&mut self, f: &[f64], prev_f: &[f64], g: &[f64], prev_g: &[f64]) {
        let m = self.memory;
        if m == 0 {
            return;
        }
        if self.len == m {
            // Drop the oldest: its slot becomes the newest.
            self.start = self.slot(1);
            self.len -= 1;
        }
        let s = self.slot(self.len);
        for i in 0..self.n {
            self.df[i * self.stride + s] = f[i] - prev_f[i];
        }
        for (d, (a, b)) in self.dg[s * self.n..(s + 1) * self.n].iter_mut().zip(g.iter().zip(prev_g)) {
            *d = a - b;
        }
        self.len += 1;
        // The new difference against every slot (itself included): `dF_new . dF_t` adds `dF_new[i]
        // dF_t[i]`, the same products as `dot(dF_new, dF_t)` (multiplication commutes exactly).
        self.slot_dots(|row, _| row[s]);
        self.order.clear();
        for a in 0..self.len {
            let t = self.slot(a);
            self.order.push(t);
            self.gram[s * m + t] = self.acc[t];
            self.gram[t * m + s] = self.acc[t];
        }
    }
}

/// Slots of the packed `dF` layout: memories up to this (the default 10 and the retry's 3) get
/// accumulators of this fixed size.
const PACKED: usize = 12;

/// Buffers of the small normal equations, reused across iterations.
#[derive(Default)]
struct NormalEquations {
    /// The regularised Gram matrix, column-major, `m x m`.
    gram: Vec<f64>,
    /// The right-hand side `dF^T f`, then the solution `gamma`.
    rhs: Vec<f64>,
}

/// Solves `a gamma = rhs` in place for a symmetric `m x m` matrix `a` (column-major, both triangles
/// stored; overwritten by its Cholesky factor) by `L L^T`; `false` when `a` is not positive definite.
///
/// The operations, and their order, are those of nalgebra 0.35's `Cholesky::new` and `Cholesky::solve`
/// for a dynamically sized matrix (column updates `y <- (-l) x + y`, division of the column below the
/// diagonal, forward substitution by columns, back substitution by dot products summed in eight
/// accumulators), so the results are bit-identical to them (tested below) without their allocations
/// and generic views, which cost more than the projections at N = 1.
///
/// Each size up to 12 gets its own copy of the loops with `m` a constant (the `match`): the loops are
/// then of known length, which removes most of the loop and bounds-check overhead that dominated a
/// 10 x 10 solve. The arithmetic is the same in every copy.
fn cholesky_solve(a: &mut [f64], m: usize, rhs: &mut [f64]) -> bool {
    match m {
        1 => cholesky_solve_sized(a, 1, rhs),
        2 => cholesky_solve_sized(a, 2, rhs),
        3 => cholesky_solve_sized(a, 3, rhs),
        4 => cholesky_solve_sized(a, 4, rhs),
        5 => cholesky_solve_sized(a, 5, rhs),
        6 => cholesky_solve_sized(a, 6, rhs),
        7 => cholesky_solve_sized(a, 7, rhs),
        8 => cholesky_solve_sized(a, 8, rhs),
        9 => cholesky_solve_sized(a, 9, rhs),
        10 => cholesky_solve_sized(a, 10, rhs),
        11 => cholesky_solve_sized(a, 11, rhs),
        12 => cholesky_solve_sized(a, 12, rhs),
        _ => cholesky_solve_sized(a, m, rhs),
    }
}

/// [`cholesky_solve`]'s loops, inlined into each of its size cases.
#[inline(always)]
fn cholesky_solve_sized(a: &mut [f64], m: usize, rhs: &mut [f64]) -> bool {
    let (a, rhs) = (&mut a[..m * m], &mut rhs[..m]);
    for j in 0..m {
        let (done, rest) = a.split_at_mut(j * m);
        let col_j = &mut rest[j..m];
        for col_k in done.chunks_exact(m) {
            let factor = -col_k[j];
            for (y, &x) in col_j.iter_mut().zip(&col_k[j..]) {
                *y += factor * x;
            }
        }
        let diag = col_j[0];
        // nalgebra: zero, or a square root that cannot be taken (negative or NaN), fails.
        if diag.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return false;
        }
        let denom = diag.sqrt();
        col_j[0] = denom;
        for y in &mut col_j[1..] {
            *y /= denom;
        }
    }
    for (i, col) in a.chunks_exact(m).enumerate() {
        let coeff = rhs[i] / col[i];
        rhs[i] = coeff;
        for (y, &l) in rhs[i + 1..].iter_mut().zip(&col[i + 1..]) {
            *y += -coeff * l;
        }
    }
    for (i, col) in a.chunks_exact(m).enumerate().rev() {
        let dot = unrolled_dot(&col[i + 1..], &rhs[i + 1..]);
        rhs[i] = (rhs[i] - dot) / col[i];
    }
    true
}

/// nalgebra 0.35's dot product of dynamically sized vectors: blocks of eight terms in eight
/// accumulators, combined pairwise, then the remaining terms one by one.
#[inline(always)]
fn unrolled_dot(x: &[f64], y: &[f64]) -> f64 {
    let y = &y[..x.len()];
    let mut res = 0.0;
    let mut acc = [0.0f64; 8];
    let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
    let (x_tail, y_tail) = (xs.remainder(), ys.remainder());
    for (xb, yb) in xs.zip(ys) {
        for k in 0..8 {
            acc[k] += xb[k] * yb[k];
        }
    }
    res += acc[0] + acc[4];
    res += acc[1] + acc[5];
    res += acc[2] + acc[6];
    res += acc[3] + acc[7];
    for (a, b) in x_tail.iter().zip(y_tail) {
        res += a * b;
    }
    res
}

#[cfg(test)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// The former form, which rebuilt the Gram matrix from all differences each iteration and allocated
    /// its vectors anew: the cached form must reproduce it bit for bit.
    fn anderson_recomputed(
        x0: Vec<f64>,
        mut g: impl FnMut(&[f64], &mut [f64]),
        memory: usize,
        tolerance: f64,
        max_evaluations: usize,
        limit: f64,
    ) -> AndersonOutcome {
        let n = x0.len();
        let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        let mut x = x0;
        let mut gx = vec![0.0; n];
        let mut f = vec![0.0; n];
        let mut prev_g = vec![0.0; n];
        let mut prev_f = vec![0.0; n];
        let mut df: Vec<Vec<f64>> = Vec::new();
        let mut dg: Vec<Vec<f64>> = Vec::new();
        let mut best = f64::INFINITY;
        let mut evaluations = 0;
        let mut residual = f64::INFINITY;
        while evaluations < max_evaluations {
            g(&x, &mut gx);
            evaluations += 1;
            let scale = inf(&gx);
            if !scale.is_finite() || scale > limit {
                return AndersonOutcome { x: gx, residual: f64::INFINITY, evaluations, converged: false };
            }
            for i in 0..n {
                f[i] = gx[i] - x[i];
            }
            let fn_inf = inf(&f);
            residual = if scale > 0.0 { fn_inf / scale } else { fn_inf };
            if residual <= tolerance || fn_inf == 0.0 {
                return AndersonOutcome { x: gx, residual, evaluations, converged: true };
            }
            if evaluations > 1 {
                if residual > 1e4 * best {
                    df.clear();
                    dg.clear();
                } else {
                    if df.len() == memory {
                        df.remove(0);
                        dg.remove(0);
                    }
                    df.push(f.iter().zip(&prev_f).map(|(a, b)| a - b).collect());
                    dg.push(gx.iter().zip(&prev_g).map(|(a, b)| a - b).collect());
                }
            }
            best = best.min(residual);
            prev_f.copy_from_slice(&f);
            prev_g.copy_from_slice(&gx);
            let m = df.len();
            let mut next = gx.clone();
            if m > 0 {
                let mut gram = DMatrix::<f64>::zeros(m, m);
                let mut rhs = DVector::<f64>::zeros(m);
                for a in 0..m {
                    rhs[a] = dot(&df[a], &f);
                    for b in 0..=a {
                        let v = dot(&df[a], &df[b]);
                        gram[(a, b)] = v;
                        gram[(b, a)] = v;
                    }
                }
                let trace: f64 = (0..m).map(|a| gram[(a, a)]).sum();
                for a in 0..m {
                    gram[(a, a)] += 1e-13 * trace;
                }
                match gram.cholesky() {
                    Some(ch) => {
                        let gamma = ch.solve(&rhs);
                        for (a, col) in dg.iter().enumerate() {
                            let c = gamma[a];
                            for i in 0..n {
                                next[i] -= c * col[i];
                            }
                        }
                    }
                    None => {
                        df.clear();
                        dg.clear();
                    }
                }
            }
            x = next;
        }
        AndersonOutcome { x: gx, residual, evaluations, converged: false }
    }

    #[test]
    fn ring_dots_match_one_vector_dots_bit_for_bit() {
        // Signed zeros included: `Iterator::sum` starts from -0.0, so a sum of -0.0 products is -0.0.
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match state % 5 {
                0 => -0.0,
                1 => 0.0,
                _ => (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5,
            }
        };
        // All products -0.0: the sum's starting value decides the sign.
        let mut h = History::new(2, 3);
        h.push(&[1.0, 2.0, 3.0], &[0.0; 3], &[0.0; 3], &[0.0; 3]);
        let mut out = [0.0; 2];
        h.dots(&[-0.0; 3], &mut out);
        assert_eq!(out[0].to_bits(), dot(&[1.0, 2.0, 3.0], &[-0.0; 3]).to_bits());
        for (memory, n) in [(1, 3), (3, 12), (10, 12), (10, 31), (12, 7), (14, 20)] {
            let mut h = History::new(memory, n);
            let mut kept: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
            let zero = vec![0.0; n];
            for push in 0..3 * memory + 2 {
                let (f, g): (Vec<f64>, Vec<f64>) = ((0..n).map(|_| next()).collect(), (0..n).map(|_| next()).collect());
                if push == 2 * memory {
                    h.clear();
                    kept.clear();
                }
                h.push(&f, &zero, &g, &zero);
                // What `push` stores: the differences `f - 0`, `g - 0`.
                let df: Vec<f64> = f.iter().map(|a| a - 0.0).collect();
                let dg: Vec<f64> = g.iter().map(|a| a - 0.0).collect();
                if kept.len() == memory {
                    kept.remove(0);
                }
                kept.push((df, dg));
                assert_eq!(h.len(), kept.len());
                for a in 0..kept.len() {
                    for b in 0..kept.len() {
                        assert_eq!(h.gram(a, b).to_bits(), dot(&kept[b].0, &kept[a].0).to_bits(), "{memory} {a} {b}");
                    }
                }
                // Every third time a vector of -0.0, whose products with `dF` are all signed zeros.
                let v: Vec<f64> = (0..n).map(|_| if push % 3 == 0 { -0.0 } else { next() }).collect();
                let mut out = vec![0.0; memory];
                h.dots(&v, &mut out);
                let c: Vec<f64> = (0..kept.len()).map(|_| next()).collect();
                let mut x: Vec<f64> = (0..n).map(|_| next()).collect();
                let mut y = x.clone();
                h.subtract_dg(&c, &mut x);
                for (a, (df, dg)) in kept.iter().enumerate() {
                    assert_eq!(out[a].to_bits(), dot(df, &v).to_bits(), "{memory} {a}");
                    for i in 0..n {
                        y[i] -= c[a] * dg[i];
                    }
                }
                assert!(x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()));
            }
        }
    }

    #[test]
    fn small_cholesky_matches_nalgebra_bit_for_bit() {
        // Deterministic pseudo-random matrices B; A = B B^T + shift I is SPD for shift > 0 and
        // indefinite for a negative shift: both solvers must agree on every bit, and on failure.
        let mut state = 0x2545f4914f6cdd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for m in 1..=14 {
            for shift in [1e-9, 1e-3, 1.0, -0.5] {
                let b = DMatrix::<f64>::from_fn(m, m, |_, _| next());
                let a = &b * b.transpose() + DMatrix::<f64>::identity(m, m) * shift;
                let rhs = DVector::<f64>::from_fn(m, |_, _| next());
                let expected = a.clone().cholesky().map(|ch| ch.solve(&rhs));
                let mut packed: Vec<f64> = a.as_slice().to_vec();
                let mut got: Vec<f64> = rhs.as_slice().to_vec();
                let ok = cholesky_solve(&mut packed, m, &mut got);
                assert_eq!(ok, expected.is_some(), "m {m} shift {shift}");
                if let Some(e) = expected {
                    assert!(got.iter().zip(e.iter()).all(|(p, q)| p.to_bits() == q.to_bits()), "m {m} shift {shift}");
                }
            }
        }
    }

    /// A nonlinear contraction of `n` unknowns coupling neighbours, slow enough that a memory of 10 fills
    /// and evicts.
    fn coupled_contraction(n: usize) -> impl Fn(&[f64], &mut [f64]) + Copy {
        move |x: &[f64], out: &mut [f64]| {
            for i in 0..n {
                let next = x[(i + 1) % n];
                out[i] =
                    0.97 * x[i] - 0.2 * next.sin() + 0.01 * (i as f64 + 1.0) + 0.05 * x[i] * next / (1.0 + x[i] * x[i]);
            }
        }
    }

    #[test]
    fn cached_gram_matches_the_recomputed_form_bit_for_bit() {
        // A nonlinear contraction coupling neighbours, slow enough that the memory fills and its oldest
        // differences drop out, for several memories (1 evicts every iteration); and a map whose
        // residual jumps (restarts) part of the way.
        let n = 15;
        let map = coupled_contraction(n);
        let mut calls = 0usize;
        let jumpy = move |x: &[f64], out: &mut [f64]| {
            calls += 1;
            for i in 0..n {
                out[i] = 0.9 * x[i] + 1.0 + if calls == 7 { 1e6 } else { 0.0 };
            }
        };
        for memory in [1, 3, 10] {
            for tolerance in [1e-13, 0.0] {
                let a = anderson(vec![0.0; n], map, memory, tolerance, 300, 1e12, |_| true);
                let b = anderson_recomputed(vec![0.0; n], map, memory, tolerance, 300, 1e12);
                assert_eq!(a.evaluations, b.evaluations, "memory {memory}");
                assert_eq!(a.converged, b.converged);
                assert_eq!(a.residual.to_bits(), b.residual.to_bits(), "memory {memory}");
                assert!(a.x.iter().zip(&b.x).all(|(p, q)| p.to_bits() == q.to_bits()), "memory {memory}");
            }
            let a = anderson(vec![0.0; n], jumpy, memory, 1e-13, 200, 1e12, |_| true);
            let b = anderson_recomputed(vec![0.0; n], jumpy, memory, 1e-13, 200, 1e12);
            assert_eq!((a.evaluations, a.converged), (b.evaluations, b.converged), "memory {memory}");
            assert!(a.x.iter().zip(&b.x).all(|(p, q)| p.to_bits() == q.to_bits()), "memory {memory}");
        }
    }

    #[test]
    fn stopping_early_leaves_the_iterates_of_a_shorter_budget() {
        // `go_on` refusing evaluation k + 1 gives the very outcome of a budget of k evaluations, and a
        // `go_on` that never refuses changes nothing.
        let n = 12;
        let map = coupled_contraction(n);
        let full = anderson(vec![0.0; n], map, 10, 0.0, 60, 1e12, |_| true);
        assert_eq!(full.evaluations, 60);
        for k in [1, 2, 7, 23, 59] {
            let short = anderson(vec![0.0; n], map, 10, 0.0, k, 1e12, |_| true);
            let mut asked = Vec::new();
            let mut last_scale = f64::NAN;
            let stopped = anderson(vec![0.0; n], map, 10, 0.0, 60, 1e12, |p| {
                asked.push(p.evaluations);
                last_scale = p.scale;
                p.evaluations < k
            });
            assert_eq!(stopped.evaluations, k);
            // The scale it is told is that of the image it returns: the last one.
            assert_eq!(last_scale.to_bits(), stopped.x.iter().fold(0.0f64, |m, a| m.max(a.abs())).to_bits());
            assert_eq!(asked, (1..=k).collect::<Vec<_>>(), "asked before each evaluation after the first");
            assert!(!stopped.converged);
            assert_eq!(stopped.residual.to_bits(), short.residual.to_bits(), "k = {k}");
            assert!(stopped.x.iter().zip(&short.x).all(|(p, q)| p.to_bits() == q.to_bits()), "k = {k}");
        }
    }

    #[test]
    fn solves_a_slow_linear_contraction_fast() {
        // x = A x + b with spectral radius 0.999: plain iteration needs ~30,000 steps for 1e-13; twenty
        // distinct eigenvalues and a memory of 8 take Anderson about 150.
        let n = 20;
        let diag: Vec<f64> = (0..n).map(|i| 0.999 - 0.04 * i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let exact: Vec<f64> = (0..n).map(|i| b[i] / (1.0 - diag[i])).collect();
        let out = anderson(
            vec![0.0; n],
            |x, out| {
                for i in 0..n {
                    out[i] = diag[i] * x[i] + b[i];
                }
            },
            8,
            1e-14,
            500,
            1e12,
            |_| true,
        );
        assert!(out.converged, "residual {}", out.residual);
        assert!(out.evaluations < 300, "{} evaluations", out.evaluations);
        for i in 0..n {
            assert!((out.x[i] - exact[i]).abs() < 1e-9 * exact[i], "{i}: {} vs {}", out.x[i], exact[i]);
        }
    }
}
