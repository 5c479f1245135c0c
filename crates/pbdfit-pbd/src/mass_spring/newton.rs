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

/// Whether Newton has reached the force's round-off instead of 1e-12: the relative residual is below
/// [`ROUND_OFF_RESIDUAL`] and neither of the last two iterations halved it. The residual is relative to
/// the largest nodal load, and where the internal forces are much larger than a node's weight (a beam's
/// clamp carries the whole body's bending) the sum of element forces cannot cancel below about 1e-16 of
/// them: a stiff cantilever stalls at 1.9e-12, in quadratic convergence's place.
fn at_round_off(residuals: &[f64]) -> bool {
    let [.., a, b, last] = residuals else { return false };
    *last <= ROUND_OFF_RESIDUAL && *b > 0.5 * a && *last > 0.5 * b
}

/// The largest relative residual [`at_round_off`] accepts (a displacement error of about this relative
/// size, far below any fit's resolution).
const ROUND_OFF_RESIDUAL: f64 = 1e-9;

impl SpringBody {
    /// The static equilibrium by Newton's method from `warm` (or the undeformed body): relative residual
    /// `|f|_inf / |f_0|_inf <= 1e-12` (or stalled at round-off below 1e-9, [`at_round_off`]) over the free vertices (`f_0`: the force on the undeformed free
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
            if residual <= 1e-12 || at_round_off(&residuals) {
                return Ok(Equilibrium { displacements: self.expand(&u), iterations: iteration, residual, residuals });
            }
            pbdfit_mesh::cancel::check()?;
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
        if residual <= 1e-12 || at_round_off(&residuals) {
            return Ok(Equilibrium { displacements: self.expand(&u), iterations: 100, residual, residuals });
        }
        Err(SpringError::NewtonFailed { iterations: 100, residual })
    }

    /// The sensitivities `du*/dp_j` of the equilibrium `u` (m per unit of `p_j`) for parameters that change
    /// the law's elastic constants (`ks`, `kvol`, `mu`, `lambda`) at the rates `rates[j]`: `K s_j = -df/dp_j`
    /// with the tangent `K = df/du` at `u`, factored once. The force is linear in every constant, so
    /// `df/dks` is the force at unit `ks` and the others zero, less the load (likewise for the others).
    /// `None` when the tangent is singular.
    pub(crate) fn parameter_sensitivities(
        &self,
        law: &SpringLaw,
        u: &[Vec3],
        rates: &[[f64; 4]],
    ) -> Option<Vec<Vec<Vec3>>> {
        let statics = SpringLaw { damping: 0.0, ..*law };
        let x = self.flatten(u);
        let (k, _) = self.tangents(&statics, &x);
        let weight = self.forces(&SpringLaw::NONE, &x, None);
        let per_constant: Vec<Vec<f64>> = (0..4)
            .map(|c| {
                let mut unit = [0.0; 4];
                unit[c] = 1.0;
                let f = self.forces(&SpringLaw::with_elastic_constants(unit), &x, None);
                f.iter().zip(&weight).map(|(a, b)| a - b).collect()
            })
            .collect();
        let lu = self.factor(&[(&k, 1.0)], None)?;
        let n = self.dofs();
        let mut rhs =
            Mat::<f64>::from_fn(n, rates.len(), |i, j| -(0..4).map(|c| rates[j][c] * per_constant[c][i]).sum::<f64>());
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

    /// A stiff neo-Hookean cantilever (PyBullet's law, mu 2e4, lambda 1e5 Pa on the imported beam): its
    /// clamp carries the beam's bending, forces far above a node's weight, and Newton's residual stalls at
    /// about 2e-12 of the weight after quadratic convergence (uniform masses); that is the force's
    /// round-off, accepted, where it used to end in "no static equilibrium after 100 iterations". A
    /// residual that still halves, or one above 1e-9, is not round-off.
    #[test]
    fn newton_accepts_a_residual_stalled_at_round_off() {
        let set =
            pbdfit_mesh::SceneSet::builtin("cantilever").unwrap().with_mass_model(pbdfit_mesh::MassModel::Uniform);
        let b = SpringBody::new(&crate::PbdSystem::new(&set.scenes()[0].body(1).unwrap()));
        let law = SpringLaw { mu: 2e4, lambda: 1e5, ..SpringLaw::NONE };
        let e = b.equilibrium(&law, None).unwrap();
        println!("residuals {:?}", e.residuals);
        assert!(e.residual > 1e-12, "this body stalls above 1e-12: {:?}", e.residuals);
        assert!(e.residual <= ROUND_OFF_RESIDUAL && e.iterations < 20, "{:?}", e.residuals);
        assert!(at_round_off(&[1e-3, 1e-7, 2e-12, 1.9e-12, 1.8e-12]));
        assert!(!at_round_off(&[1e-3, 1e-7, 8e-12, 3e-12, 2.9e-12]), "the iteration before halved it");
        assert!(!at_round_off(&[1e-3, 2e-9, 2e-9, 2e-9]), "above 1e-9");
        assert!(!at_round_off(&[2e-12, 2e-12]), "too few iterations to tell");
    }

    /// Newton converges quadratically to a state where the forces balance gravity, and the volume
    /// penalty stiffens the body.
    #[test]
    fn newton_converges_quadratically_to_force_balance() {
        let b = body("gravity-floor", 2);
        let springs = b.equilibrium(&SpringLaw { ks: 250.0, ..SpringLaw::NONE }, None).unwrap();
        let r = &springs.residuals;
        println!("residuals {r:?}");
        assert!(springs.residual <= 1e-12 && springs.iterations <= 8, "{r:?}");
        // Quadratic: each residual below C r^2 once in the basin (C ~ 1 for these scales).
        for w in r.windows(2).skip(1) {
            if w[0] < 1e-3 {
                assert!(w[1] <= 10.0 * w[0] * w[0] + 1e-14, "not quadratic: {r:?}");
            }
        }
        let f = b.forces(&SpringLaw { ks: 250.0, ..SpringLaw::NONE }, &b.flatten(&springs.displacements), None);
        let weight: f64 = b.free.iter().map(|&p| b.masses[p] * 9.81).sum();
        assert!(inf(&f) <= 1e-12 * weight);
        let stiffer = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, ..SpringLaw::NONE }, None).unwrap();
        let size = |e: &Equilibrium| e.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        assert!(size(&stiffer) < 0.99 * size(&springs), "{} vs {}", size(&stiffer), size(&springs));
        // Twice the same computation gives the same bits.
        let again = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, ..SpringLaw::NONE }, None).unwrap();
        assert_eq!(again, stiffer);
    }
}
