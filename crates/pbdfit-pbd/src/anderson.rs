//! Anderson acceleration (type II, Walker & Ni 2011) of a fixed-point iteration `x = G(x)`.

use nalgebra::{DMatrix, DVector};

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

/// Iterates `x <- G(x) - dG gamma` with `gamma` minimising `|f - dF gamma|` over the last `memory`
/// differences of `f = G(x) - x`. The small least-squares problem is solved through its normal
/// equations (Gram matrix kept up to date one column at a time), with a restart when it turns
/// ill-conditioned or the residual jumps.
pub(crate) fn anderson(
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

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        );
        assert!(out.converged, "residual {}", out.residual);
        assert!(out.evaluations < 300, "{} evaluations", out.evaluations);
        for i in 0..n {
            assert!((out.x[i] - exact[i]).abs() < 1e-9 * exact[i], "{i}: {} vs {}", out.x[i], exact[i]);
        }
    }
}
