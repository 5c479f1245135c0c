//! The static equilibrium by Newton's method on the sparse tangent with a backtracking line search
//! ([`Equilibrium`]), and the equilibrium's sensitivities to the spring constants.

use faer::linalg::solvers::SolveCore;
use faer::{Conj, Mat};

use super::{SpringBody, SpringError, SpringLaw, inf};
use crate::Vec3;

/// A static equilibrium.
#[derive(Debug, Clone, PartialEq)]
pub struct Equilibrium {
    /// Displacements per vertex (m; 0 for held vertices).
    pub displacements: Vec<Vec3>,
    /// Newton iterations.
    pub iterations: usize,
    /// Final relative residual `|f|_inf / |m g|_inf` over the free vertices.
    pub residual: f64,
    /// The relative residual before each iteration and after the last (to show quadratic convergence).
    pub residuals: Vec<f64>,
}

impl SpringBody {
    /// The static equilibrium by Newton's method from `warm` (or the undeformed body): relative residual
    /// `|f|_inf / |f_0|_inf <= 1e-12` over the free vertices (`f_0`: the force on the undeformed free
    /// vertices, their weight and tractions plus what a prescribed displacement pulls), at most 100 iterations, backtracking line
    /// search on the residual norm.
    pub fn equilibrium(&self, law: &SpringLaw, warm: Option<&[Vec3]>) -> Result<Equilibrium, SpringError> {
        law.validate()?;
        let statics = SpringLaw { damping: 0.0, ..*law };
        // The force scale: the load on the undeformed free vertices, i.e. their weight and tractions plus
        // the springs a prescribed displacement stretches (for gravity alone, exactly the weight).
        let load = inf(&self.forces(&statics, &vec![0.0; self.dofs()], None));
        let scale = if load > 0.0 { load } else { 1.0 };
        let mut u = warm.map(|w| self.flatten(w)).unwrap_or_else(|| vec![0.0; self.dofs()]);
        let mut f = self.forces(&statics, &u, None);
        let mut residual = inf(&f) / scale;
        let mut residuals = vec![residual];
        let norm = |f: &[f64]| f.iter().map(|x| x * x).sum::<f64>().sqrt();
        for iteration in 0..100 {
            if residual <= 1e-12 {
                return Ok(Equilibrium { displacements: self.expand(&u), iterations: iteration, residual, residuals });
            }
            let (k, _) = self.tangents(&statics, &u);
            // -K du = f
            let Some(du) = self.solve(&[(&k, -1.0)], None, &f) else {
                return Err(SpringError::NewtonFailed { iterations: iteration, residual });
            };
            let (mut step, start) = (1.0, norm(&f));
            loop {
                let trial: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + step * b).collect();
                let ft = self.forces(&statics, &trial, None);
                if norm(&ft) < (1.0 - 1e-4 * step) * start || (step < 1e-9 && norm(&ft) <= start) {
                    u = trial;
                    f = ft;
                    break;
                }
                step *= 0.5;
                if step < 1e-12 {
                    return Err(SpringError::NewtonFailed { iterations: iteration + 1, residual });
                }
            }
            residual = inf(&f) / scale;
            residuals.push(residual);
        }
        if residual <= 1e-12 {
            return Ok(Equilibrium { displacements: self.expand(&u), iterations: 100, residual, residuals });
        }
        Err(SpringError::NewtonFailed { iterations: 100, residual })
    }

    /// The sensitivities `du*/dp_j` of the equilibrium `u` (m per unit of `p_j`) for parameters that change
    /// `(ks, kvol)` at the rates `rates[j] = (d ks/dp_j, d kvol/dp_j)`: `K s_j = -df/dp_j` with the tangent
    /// `K = df/du` at `u`, factored once. The force is linear in both constants, so `df/dks` is the spring
    /// force at unit `ks` (and likewise for `kvol`). `None` when the tangent is singular.
    pub(crate) fn parameter_sensitivities(
        &self,
        law: &SpringLaw,
        u: &[Vec3],
        rates: &[(f64, f64)],
    ) -> Option<Vec<Vec<Vec3>>> {
        let statics = SpringLaw { damping: 0.0, ..*law };
        let x = self.flatten(u);
        let (k, _) = self.tangents(&statics, &x);
        let weight = self.forces(&SpringLaw { ks: 0.0, kvol: 0.0, damping: 0.0 }, &x, None);
        let unit = |ks, kvol| -> Vec<f64> {
            let f = self.forces(&SpringLaw { ks, kvol, damping: 0.0 }, &x, None);
            f.iter().zip(&weight).map(|(a, b)| a - b).collect()
        };
        let (per_ks, per_kvol) = (unit(1.0, 0.0), unit(0.0, 1.0));
        let lu = self.factor(&[(&k, 1.0)], None)?;
        let n = self.dofs();
        let mut rhs = Mat::<f64>::from_fn(n, rates.len(), |i, j| -(rates[j].0 * per_ks[i] + rates[j].1 * per_kvol[i]));
        lu.solve_in_place_with_conj(Conj::No, rhs.as_mut());
        let columns: Vec<Vec<Vec3>> = (0..rates.len())
            .map(|j| self.expand(&(0..n).map(|i| rhs[(i, j)]).collect::<Vec<_>>()))
            .map(|c| c.iter().zip(&self.prescribed).map(|(a, p)| a - p).collect())
            .collect();
        columns.iter().flatten().all(|v| v.iter().all(|c| c.is_finite())).then_some(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mass_spring::tests::body;

    /// Newton converges quadratically to a state where the forces balance gravity, and the volume
    /// penalty stiffens the body.
    #[test]
    fn newton_converges_quadratically_to_force_balance() {
        let b = body("gravity-floor", 2);
        let springs = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 0.0, damping: 0.0 }, None).unwrap();
        let r = &springs.residuals;
        println!("residuals {r:?}");
        assert!(springs.residual <= 1e-12 && springs.iterations <= 8, "{r:?}");
        // Quadratic: each residual below C r^2 once in the basin (C ~ 1 for these scales).
        for w in r.windows(2).skip(1) {
            if w[0] < 1e-3 {
                assert!(w[1] <= 10.0 * w[0] * w[0] + 1e-14, "not quadratic: {r:?}");
            }
        }
        let f = b.forces(&SpringLaw { ks: 250.0, kvol: 0.0, damping: 0.0 }, &b.flatten(&springs.displacements), None);
        let weight: f64 = b.free.iter().map(|&p| b.masses[p] * 9.81).sum();
        assert!(inf(&f) <= 1e-12 * weight);
        let stiffer = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, damping: 0.0 }, None).unwrap();
        let size = |e: &Equilibrium| e.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        assert!(size(&stiffer) < 0.99 * size(&springs), "{} vs {}", size(&stiffer), size(&springs));
        // Twice the same computation gives the same bits.
        let again = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, damping: 0.0 }, None).unwrap();
        assert_eq!(again, stiffer);
    }
}
