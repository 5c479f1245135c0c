//! The core both GMRES drivers share (the sensitivity's restarted, recycled solve in `sensitivity.rs`
//! and the Newton-Krylov step's single cycle in `newton_krylov.rs`): the Arnoldi process by modified
//! Gram-Schmidt (twice, for stability), its Hessenberg columns rotated into upper triangular form by
//! Givens rotations as they come, and the back substitution for the Krylov coefficients.
//!
//! The operations, and their order, are the ones each driver did on its own before: the gradient fits'
//! committed results depend on the sensitivity's rounding, bit for bit.

/// `|v|_2`, summed in index order.
pub(crate) fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// One Arnoldi process from a start vector `r / beta`, with its Hessenberg matrix both as computed (for
/// Ritz values) and rotated (for the least-squares residual `|beta e_1 - H y|_2`).
pub(crate) struct Arnoldi {
    /// The orthonormal Krylov vectors `v_0, v_1, ...`.
    pub basis: Vec<Vec<f64>>,
    /// Hessenberg column `j` as computed (length `j + 2`), unrotated.
    pub hessenberg: Vec<Vec<f64>>,
    /// The same columns after the Givens rotations (upper triangular).
    rotated: Vec<Vec<f64>>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    /// The rotated right-hand side `Q^T beta e_1`; its last entry is the residual estimate.
    g: Vec<f64>,
}

impl Arnoldi {
    /// The process started at `r / beta` (`beta = |r|_2 > 0`).
    pub(crate) fn new(r: &[f64], beta: f64) -> Self {
        Self {
            basis: vec![r.iter().map(|v| v / beta).collect()],
            hessenberg: Vec::new(),
            rotated: Vec::new(),
            cs: Vec::new(),
            sn: Vec::new(),
            g: vec![beta],
        }
    }

    /// Columns taken so far.
    pub(crate) fn columns(&self) -> usize {
        self.rotated.len()
    }

    /// Takes `w = A v_k` for the last basis vector `v_k`, orthogonalises it against the basis in place,
    /// and appends its Hessenberg column (rotated by the earlier rotations and a new one that zeroes its
    /// subdiagonal). Returns `|w|_2` after orthogonalisation, the subdiagonal entry.
    pub(crate) fn orthogonalise(&mut self, w: &mut [f64]) -> f64 {
        let k = self.rotated.len();
        let mut column = vec![0.0; k + 2];
        for _ in 0..2 {
            for (i, v) in self.basis.iter().enumerate() {
                let c: f64 = w.iter().zip(v).map(|(a, b)| a * b).sum();
                column[i] += c;
                w.iter_mut().zip(v).for_each(|(a, b)| *a -= c * b);
            }
        }
        let next = norm(w);
        column[k + 1] = next;
        self.hessenberg.push(column.clone());
        for i in 0..k {
            let (a, b) = (column[i], column[i + 1]);
            column[i] = self.cs[i] * a + self.sn[i] * b;
            column[i + 1] = -self.sn[i] * a + self.cs[i] * b;
        }
        let (a, b) = (column[k], column[k + 1]);
        let rho = a.hypot(b);
        let (c, s) = if rho == 0.0 { (1.0, 0.0) } else { (a / rho, b / rho) };
        self.cs.push(c);
        self.sn.push(s);
        column[k] = rho;
        column[k + 1] = 0.0;
        self.g.push(-s * self.g[k]);
        self.g[k] *= c;
        self.rotated.push(column);
        next
    }

    /// `|beta e_1 - H y|_2` at the least-squares `y` over the columns so far (GMRES's residual estimate).
    pub(crate) fn residual(&self) -> f64 {
        self.g[self.rotated.len()].abs()
    }

    /// Appends `w / next` (the orthogonalised product and its norm from [`orthogonalise`](Self::orthogonalise))
    /// as the next basis vector.
    pub(crate) fn extend(&mut self, w: &[f64], next: f64) {
        self.basis.push(w.iter().map(|v| v / next).collect());
    }

    /// The Krylov coefficients `y` minimising `|beta e_1 - H y|_2`, by back substitution (a zero
    /// diagonal entry gives a zero coefficient).
    pub(crate) fn coefficients(&self) -> Vec<f64> {
        let (h, g) = (&self.rotated, &self.g);
        let k = h.len();
        let mut y = vec![0.0; k];
        for i in (0..k).rev() {
            let mut s = g[i];
            for j in i + 1..k {
                s -= h[j][i] * y[j];
            }
            y[i] = if h[i][i] != 0.0 { s / h[i][i] } else { 0.0 };
        }
        y
    }

    /// `x += V y`, one basis vector after the other.
    pub(crate) fn add_combination(&self, y: &[f64], x: &mut [f64]) {
        for (yi, v) in y.iter().zip(&self.basis) {
            x.iter_mut().zip(v).for_each(|(a, b)| *a += yi * b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full process on a 4 x 4 non-symmetric matrix solves `A y = b` exactly (the residual estimate
    /// falls to rounding), and the unrotated Hessenberg columns satisfy `A V_k = V_{k+1} H_k`.
    #[test]
    fn a_full_process_solves_the_system_and_keeps_the_arnoldi_relation() {
        let a = [[4.0, 1.0, 0.0, 0.5], [0.0, 3.0, 1.0, 0.0], [1.0, 0.0, 2.0, 1.0], [0.0, 0.5, 0.0, 1.0]];
        let apply = |v: &[f64], out: &mut [f64]| {
            for i in 0..4 {
                out[i] = (0..4).map(|j| a[i][j] * v[j]).sum();
            }
        };
        let b = [1.0, 2.0, -1.0, 0.5];
        let mut arnoldi = Arnoldi::new(&b, norm(&b));
        let mut w = vec![0.0; 4];
        for k in 0..4 {
            apply(&arnoldi.basis[k], &mut w);
            let next = arnoldi.orthogonalise(&mut w);
            if k < 3 {
                arnoldi.extend(&w, next);
            }
        }
        assert_eq!(arnoldi.columns(), 4);
        assert!(arnoldi.residual() < 1e-12, "{}", arnoldi.residual());
        let mut x = vec![0.0; 4];
        arnoldi.add_combination(&arnoldi.coefficients(), &mut x);
        let mut ax = vec![0.0; 4];
        apply(&x, &mut ax);
        for i in 0..4 {
            assert!((ax[i] - b[i]).abs() < 1e-12, "{i}: {} vs {}", ax[i], b[i]);
        }
        for j in 0..3 {
            apply(&arnoldi.basis[j], &mut w);
            for i in 0..4 {
                let vh: f64 = (0..=j + 1).map(|l| arnoldi.basis[l][i] * arnoldi.hessenberg[j][l]).sum();
                assert!((w[i] - vh).abs() < 1e-12, "column {j}, row {i}");
            }
        }
    }
}
