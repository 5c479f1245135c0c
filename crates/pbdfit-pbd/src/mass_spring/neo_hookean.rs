//! PyBullet's stable neo-Hookean tetrahedra (`btDeformableNeoHookeanForce`, Bullet 3.2x, after Smith,
//! de Goes and Kim 2018, "Stable Neo-Hookean Flesh Simulation"): per tetrahedron the energy density
//! (Pa), relative to the undeformed state,
//!
//! ```text
//! psi = mu/2 (Ic - 3) + lambda/2 (J - 1)^2 - 3/4 mu (J - 1) - mu/2 ln((Ic + 1) / 4)
//! P   = dpsi/dF = mu (1 - 1/(Ic + 1)) F + (lambda (J - 1) - 3/4 mu) cof F
//! ```
//!
//! with `F = I + H` (`H` the displacement gradient), `Ic = tr(F^T F)`, `J = det F`; Bullet's
//! `elasticEnergyDensity` and `firstPiola` are these up to the constant `psi(I)`. At small strain
//! `P = 2 (3/4 mu) eps + (lambda - 5/8 mu) tr(eps) I`: the law's shear modulus is three quarters of the `mu`
//! it is given (Smith et al.'s `mu' = 4/3 mu`, `lambda' = lambda + 5/6 mu` restores the Lame pair).
//!
//! `P` is evaluated without cancellation: with `F - cof F = H + H^T - tr(H) I - cof(H)` and
//! `1 - 1/(Ic + 1) = 3/4 + (Ic - 3) / (4 (Ic + 1))`,
//!
//! ```text
//! P = 3/4 mu (H + H^T - tr(H) I - cof H) + mu (Ic - 3) / (4 (Ic + 1)) F + lambda (J - 1) cof F
//! ```
//!
//! so rest states of stiff bodies keep their digits, and `P` is visibly linear in `mu` and `lambda`. The
//! nodal forces are `f_i = -V0 P Dm^-T e_i` (i = 1..3; the first vertex the negative sum), as Bullet's
//! `addScaledElasticForce`; its tangent is `dP = c1 dF + dc1 F + c2 dcof(F)[dF] + dc2 cof F`.

use nalgebra::Matrix3;

use super::{SpringBody, SpringLaw};
use crate::Vec3;

/// The cofactor matrix `cof A = det(A) A^-T`, columns `a2 x a3, a3 x a1, a1 x a2`.
fn cofactor(a: &Matrix3<f64>) -> Matrix3<f64> {
    let (a1, a2, a3) = (a.column(0).into_owned(), a.column(1).into_owned(), a.column(2).into_owned());
    Matrix3::from_columns(&[a2.cross(&a3), a3.cross(&a1), a1.cross(&a2)])
}

/// `det(I + H) - 1` without cancellation.
fn det_minus_one(h: &Matrix3<f64>) -> f64 {
    let tr = h.trace();
    tr + 0.5 * (tr * tr - (h * h).trace()) + h.determinant()
}

/// `Ic - 3 = 2 tr H + |H|^2` without cancellation.
fn first_invariant_change(h: &Matrix3<f64>) -> f64 {
    2.0 * h.trace() + h.norm_squared()
}

/// The first Piola-Kirchhoff stress (Pa) at displacement gradient `h` (see the module doc).
pub(super) fn stress(mu: f64, lambda: f64, h: &Matrix3<f64>) -> Matrix3<f64> {
    let f = Matrix3::identity() + h;
    let ic3 = first_invariant_change(h);
    let deviator = h + h.transpose() - Matrix3::identity() * h.trace() - cofactor(h);
    deviator * (0.75 * mu) + f * (mu * ic3 / (4.0 * (ic3 + 4.0))) + cofactor(&f) * (lambda * det_minus_one(h))
}

/// The stress's differential `dP = (dP/dF) dF` at displacement gradient `h`.
pub(super) fn stress_differential(mu: f64, lambda: f64, h: &Matrix3<f64>, df: &Matrix3<f64>) -> Matrix3<f64> {
    let f = Matrix3::identity() + h;
    let ic1 = first_invariant_change(h) + 4.0;
    let cof = cofactor(&f);
    let c1 = mu * (1.0 - 1.0 / ic1);
    let c2 = lambda * det_minus_one(h) - 0.75 * mu;
    let dc1 = 2.0 * mu * f.dot(df) / (ic1 * ic1);
    let dc2 = lambda * cof.dot(df);
    let (f1, f2, f3) = (f.column(0).into_owned(), f.column(1).into_owned(), f.column(2).into_owned());
    let (d1, d2, d3) = (df.column(0).into_owned(), df.column(1).into_owned(), df.column(2).into_owned());
    let dcof = Matrix3::from_columns(&[
        d2.cross(&f3) + f2.cross(&d3),
        d3.cross(&f1) + f3.cross(&d1),
        d1.cross(&f2) + f1.cross(&d2),
    ]);
    df * c1 + f * dc1 + dcof * c2 + cof * dc2
}

/// The energy density (Pa) relative to the undeformed state at displacement gradient `h`.
pub(super) fn energy_density(mu: f64, lambda: f64, h: &Matrix3<f64>) -> f64 {
    let (ic3, j1) = (first_invariant_change(h), det_minus_one(h));
    0.5 * mu * ic3 + 0.5 * lambda * j1 * j1 - 0.75 * mu * j1 - 0.5 * mu * (ic3 / 4.0).ln_1p()
}

impl SpringBody {
    /// The displacement gradient `H = [u1 - u0, u2 - u0, u3 - u0] Dm^-1` of tetrahedron `k`.
    pub(super) fn displacement_gradient(&self, u: &[f64], k: usize) -> Matrix3<f64> {
        let t = self.tets[k].0;
        let u0 = self.vertex(u, t[0]);
        Matrix3::from_columns(&[self.vertex(u, t[1]) - u0, self.vertex(u, t[2]) - u0, self.vertex(u, t[3]) - u0])
            * self.dm_inv[k]
    }

    /// The four nodal forces `-V0 G` of a tetrahedron whose stress-like matrix is `p` (`G = p Dm^-T`,
    /// columns 1 to 3, the first vertex their negative sum).
    pub(super) fn nodal_forces(&self, k: usize, p: &Matrix3<f64>) -> [Vec3; 4] {
        let g = p * self.dm_inv[k].transpose() * -self.tets[k].2;
        let (g1, g2, g3) = (g.column(0).into_owned(), g.column(1).into_owned(), g.column(2).into_owned());
        [-(g1 + g2 + g3), g1, g2, g3]
    }

    /// Adds the neo-Hookean tetrahedra's forces (N) at displacements `u` to `out`.
    pub(super) fn add_neo_hookean_forces(&self, law: &SpringLaw, u: &[f64], out: &mut [f64]) {
        for k in 0..self.tets.len() {
            let p = stress(law.mu, law.lambda, &self.displacement_gradient(u, k));
            for (f, &v) in self.nodal_forces(k, &p).iter().zip(&self.tets[k].0) {
                self.add(out, v, *f);
            }
        }
    }

    /// The tangent blocks `df_i/du_j` (3 x 3, i and j the tetrahedron's vertices) of tetrahedron `k`.
    pub(super) fn neo_hookean_tangent(&self, law: &SpringLaw, u: &[f64], k: usize) -> [[Matrix3<f64>; 4]; 4] {
        let h = self.displacement_gradient(u, k);
        let mut blocks = [[Matrix3::zeros(); 4]; 4];
        for j in 0..4 {
            for c in 0..3 {
                // dDs for a unit move of vertex j along axis c: column j - 1, or minus every column for j = 0.
                let mut dds = Matrix3::zeros();
                for col in 0..3 {
                    if j == 0 {
                        dds[(c, col)] = -1.0;
                    } else if col == j - 1 {
                        dds[(c, col)] = 1.0;
                    }
                }
                let dp = stress_differential(law.mu, law.lambda, &h, &(dds * self.dm_inv[k]));
                for (i, df) in self.nodal_forces(k, &dp).iter().enumerate() {
                    blocks[i][j].set_column(c, df);
                }
            }
        }
        blocks
    }

    /// The neo-Hookean tetrahedra's elastic energy (J) at displacements `u`.
    pub(super) fn neo_hookean_energy(&self, law: &SpringLaw, u: &[f64]) -> f64 {
        (0..self.tets.len())
            .map(|k| self.tets[k].2 * energy_density(law.mu, law.lambda, &self.displacement_gradient(u, k)))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Matrix3<f64> {
        Matrix3::new(0.03, -0.02, 0.05, 0.01, -0.04, 0.02, -0.03, 0.06, 0.02)
    }

    /// Bullet's own form, `mu (1 - 1/(Ic + 1)) F + (lambda (J - 1) - 3/4 mu) cof F`, equals the
    /// cancellation-free one at a finite strain, and `P` is the energy density's derivative.
    #[test]
    fn the_stress_is_bullets_and_the_energys_derivative() {
        let (mu, lambda) = (3e3, 7e3);
        let h = sample();
        let f = Matrix3::identity() + h;
        let ic = (f.transpose() * f).trace();
        let bullet =
            f * (mu * (1.0 - 1.0 / (ic + 1.0))) + cofactor(&f) * (lambda * (f.determinant() - 1.0) - 0.75 * mu);
        let p = stress(mu, lambda, &h);
        assert!((p - bullet).abs().max() <= 1e-12 * mu, "{p} vs {bullet}");
        let eps = 1e-6;
        for r in 0..3 {
            for c in 0..3 {
                let mut e = Matrix3::zeros();
                e[(r, c)] = eps;
                let d = (energy_density(mu, lambda, &(h + e)) - energy_density(mu, lambda, &(h - e))) / (2.0 * eps);
                assert!((d - p[(r, c)]).abs() <= 1e-6 * mu, "dpsi/dF[{r},{c}] {d} vs P {}", p[(r, c)]);
            }
        }
        assert_eq!(stress(mu, lambda, &Matrix3::zeros()), Matrix3::zeros(), "the undeformed state is stress-free");
        assert_eq!(energy_density(mu, lambda, &Matrix3::zeros()), 0.0);
    }

    /// At small strain the law is linear elasticity with shear modulus 3/4 mu and first Lame parameter
    /// lambda - 5/8 mu (the 4/3 and 5/6 of Smith et al.'s correction).
    #[test]
    fn small_strain_moduli_are_three_quarters_of_mu_and_lambda_less_five_eighths_mu() {
        let (mu, lambda) = (2e3, 9e3);
        let h = sample() * 1e-7;
        let eps = (h + h.transpose()) * 0.5;
        let linear = eps * (2.0 * 0.75 * mu) + Matrix3::identity() * ((lambda - 0.625 * mu) * eps.trace());
        let p = stress(mu, lambda, &h);
        assert!((p - linear).abs().max() <= 1e-6 * linear.abs().max(), "{p} vs {linear}");
    }

    /// The differential is the stress's directional derivative.
    #[test]
    fn the_differential_is_the_stress_derivative() {
        let (mu, lambda) = (3e3, 7e3);
        let h = sample();
        let df = Matrix3::new(0.2, -0.1, 0.4, 0.3, 0.1, -0.5, 0.0, 0.7, -0.2);
        let t = 1e-6;
        let numeric = (stress(mu, lambda, &(h + df * t)) - stress(mu, lambda, &(h - df * t))) / (2.0 * t);
        let exact = stress_differential(mu, lambda, &h, &df);
        assert!((numeric - exact).abs().max() <= 1e-6 * exact.abs().max(), "{numeric} vs {exact}");
    }
}
