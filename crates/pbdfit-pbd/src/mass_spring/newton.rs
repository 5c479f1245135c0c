//! The static equilibrium by Newton's method on the sparse tangent with a backtracking line search
//! ([`Equilibrium`]), and the equilibrium's sensitivities to the spring constants.

use faer::Mat;

use super::tangent::Tangent;
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

/// Whether Newton has reached the force's round-off instead of 1e-12: neither of the last two iterations
/// halved the relative residual, and it is at most `floor`, the relative residual that round-off alone
/// leaves ([`SpringBody::round_off`] over the force scale). The residual is relative to the largest nodal
/// load, and where the internal forces are much larger than a node's weight (a beam's clamp carries the
/// whole body's bending; a volume penalty far stiffer than the springs) the sum of element forces cannot
/// cancel below about 1e-16 of them: a stiff cantilever stalls at 1.9e-12, in quadratic convergence's
/// place, 0.11 of its floor. A stall above the floor is not round-off: the solve failed.
fn at_round_off(residuals: &[f64], floor: f64) -> bool {
    let [.., a, b, last] = residuals else { return false };
    *last <= floor && *b > 0.5 * a && *last > 0.5 * b
}

/// What a step policy of [`SpringBody::newton`] found from an iterate.
enum Step {
    /// The next iterate and its forces.
    Taken { u: Vec<f64>, f: Vec<f64> },
    /// No step lowers the residual (or the energy): an equilibrium where the residual is within the
    /// force's round-off, else a failure.
    NoDecrease,
    /// A failure (a singular tangent, a line search that found nothing), after `iterations`.
    Failed { iterations: usize },
}

/// The Euclidean norm.
fn norm(f: &[f64]) -> f64 {
    f.iter().map(|x| x * x).sum::<f64>().sqrt()
}

impl SpringBody {
    /// The round-off of the force `f(u)` on the free DOFs (N, the largest over them):
    /// `eps max_i (sum_j |K_ij| |u_j| + |m_i a_i|)`, the force error that storing the displacements `u` to
    /// the last bit leaves (each entry of the tangent `K` at `u` in absolute value, times `|u_j|`), plus the
    /// load's own. It grows with the stiffness: a volume penalty `kvol` of 1e10 Pa on the unit cube at N = 1
    /// (springs of 270 N/m) puts it near 1e-8 of a node's weight, springs alone near 1e-14.
    fn round_off(&self, k: &Tangent, u: &[f64]) -> f64 {
        let mut scale = vec![0.0; self.dofs()];
        for (i, &p) in self.free.iter().enumerate() {
            let load = self.accelerations[p] * self.masses[p];
            for c in 0..3 {
                scale[3 * i + c] = load[c].abs();
            }
        }
        for (r, c, v) in k.entries() {
            scale[r] += v.abs() * u[c].abs();
        }
        f64::EPSILON * inf(&scale)
    }

    /// The static equilibrium by Newton's method from `warm` (or the undeformed body): relative residual
    /// `|f|_inf / |f_0|_inf <= 1e-12` (or stalled at the force's round-off, [`at_round_off`]) over the free vertices (`f_0`: the force on the undeformed free
    /// vertices, their weight and tractions plus what a prescribed displacement pulls), at most 100 iterations, backtracking line
    /// search on the residual norm ([`Self::newton`] with that step).
    pub fn equilibrium(&self, law: &SpringLaw, warm: Option<&[Vec3]>) -> Result<Equilibrium, SpringError> {
        law.validate()?;
        if self.sheet {
            return self.sheet_equilibrium(law, warm);
        }
        self.newton(law, warm, 100, |statics, k, u, f, iteration| {
            // -K du = f
            let Some(du) = self.solve(&[(k, -1.0)], None, f) else {
                return Step::Failed { iterations: iteration };
            };
            let (mut step, start) = (1.0, norm(f));
            loop {
                let trial: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + step * b).collect();
                let ft = self.forces(statics, &trial, None);
                if norm(&ft) < (1.0 - 1e-4 * step) * start || (step < 1e-9 && norm(&ft) <= start) {
                    return Step::Taken { u: trial, f: ft };
                }
                step *= 0.5;
                if step < 1e-12 {
                    return Step::Failed { iterations: iteration + 1 };
                }
            }
        })
    }

    /// Newton's iteration on the static forces of `law` (its damping dropped) from `warm` (or the
    /// undeformed body), at most `iterations`, each step from the iterate `u` (its forces `f`, tangent `k`)
    /// chosen by `step` (the solids' backtracking on the residual's norm, the sheets' Levenberg-Marquardt):
    /// converged at a relative residual `|f|_inf / |f_0|_inf <= 1e-12` (`f_0`: the force on the undeformed
    /// free vertices), or stalled at the force's round-off ([`at_round_off`]), or where `step` finds no
    /// step and the residual is within that round-off.
    fn newton(
        &self,
        law: &SpringLaw,
        warm: Option<&[Vec3]>,
        iterations: usize,
        mut step: impl FnMut(&SpringLaw, &Tangent, &[f64], &[f64], usize) -> Step,
    ) -> Result<Equilibrium, SpringError> {
        let statics = SpringLaw { damping: 0.0, ..*law };
        // The force scale: the load on the undeformed free vertices, i.e. their weight and tractions plus
        // the springs a prescribed displacement stretches (for gravity alone, exactly the weight).
        let load = inf(&self.forces(&statics, &vec![0.0; self.dofs()], None));
        let scale = if load > 0.0 { load } else { 1.0 };
        let mut u = warm.map(|w| self.flatten(w)).unwrap_or_else(|| vec![0.0; self.dofs()]);
        let mut f = self.forces(&statics, &u, None);
        let mut residual = inf(&f) / scale;
        let mut residuals = vec![residual];
        for iteration in 0..iterations {
            if residual <= 1e-12 {
                return Ok(Equilibrium { displacements: self.expand(&u), iterations: iteration, residual, residuals });
            }
            let (k, _) = self.tangents(&statics, &u);
            if at_round_off(&residuals, self.round_off(&k, &u) / scale) {
                return Ok(Equilibrium { displacements: self.expand(&u), iterations: iteration, residual, residuals });
            }
            pbdfit_mesh::cancel::check()?;
            match step(&statics, &k, &u, &f, iteration) {
                Step::Taken { u: next, f: forces } => {
                    u = next;
                    f = forces;
                }
                // No step lowers the residual or the energy: at the force's round-off, an equilibrium.
                Step::NoDecrease if residual <= self.round_off(&k, &u) / scale => {
                    return Ok(Equilibrium {
                        displacements: self.expand(&u),
                        iterations: iteration,
                        residual,
                        residuals,
                    });
                }
                Step::NoDecrease => return Err(SpringError::NewtonFailed { iterations: iteration, residual }),
                Step::Failed { iterations } => return Err(SpringError::NewtonFailed { iterations, residual }),
            }
            residual = inf(&f) / scale;
            residuals.push(residual);
        }
        if residual <= 1e-12 || at_round_off(&residuals, self.round_off(&self.tangents(&statics, &u).0, &u) / scale) {
            return Ok(Equilibrium { displacements: self.expand(&u), iterations, residual, residuals });
        }
        Err(SpringError::NewtonFailed { iterations, residual })
    }

    /// [`Self::equilibrium`] of a sheet. A flat sheet whose springs are at their rest lengths has no
    /// stiffness out of its plane (each spring's tangent is `ks (n n^T + (l - l0) / l (I - n n^T))`), so
    /// the plain Newton step is singular where Newton starts, and a load out of the plane (the clamped strip's
    /// weight) moves it by a quartic energy at first (a bending spring lengthens to second order in the
    /// fold). Each iteration tries the Newton step, then Levenberg-Marquardt steps `(-K + mu I) du = f` with
    /// `mu` from `1e-8` of the tangent's largest diagonal entry up by 100 each time; a step is accepted when
    /// it lowers the residual's norm or the energy (Armijo, on the energy's slope `-f . du`: the forces are
    /// conservative, `f = -grad E`); `mu` falls by 100 after an accepted step. Converged as the solids'
    /// (relative residual 1e-12, or stalled at round-off), or where no step lowers either and the residual
    /// is within the force's round-off; at most 200 iterations.
    ///
    /// Where that fails from `warm`, the same from the flat sheet; where that fails too (a stiff sheet that
    /// must rotate far: each step along the flat sheet's tangent stretches its stiff springs to second
    /// order, so the steps stay tiny), by continuation in the stiffest springs from the flat sheet: their
    /// constants capped at `c`, `c` from the smallest constant up by 10 each stage to the law's own, each
    /// stage from the last one's equilibrium. The iterations reported are the last solve's, the stages'
    /// included.
    fn sheet_equilibrium(&self, law: &SpringLaw, warm: Option<&[Vec3]>) -> Result<Equilibrium, SpringError> {
        let direct = self.sheet_newton(law, warm);
        if !matches!(direct, Err(SpringError::NewtonFailed { .. })) {
            return direct;
        }
        if warm.is_some()
            && let Ok(cold) = self.sheet_newton(law, None)
        {
            return Ok(cold);
        }
        let constants = [law.ks, law.ks_shear, law.ks_bend, law.membrane_mu, law.membrane_lambda];
        let largest = constants.iter().fold(0.0f64, |m, &c| m.max(c));
        let mut cap = constants.iter().filter(|&&c| c > 0.0).fold(largest, |m, &c| m.min(c));
        let (mut u, mut iterations): (Option<Vec<Vec3>>, usize) = (None, 0);
        while cap < largest {
            let capped = SpringLaw {
                ks: law.ks.min(cap),
                ks_shear: law.ks_shear.min(cap),
                ks_bend: law.ks_bend.min(cap),
                membrane_mu: law.membrane_mu.min(cap),
                membrane_lambda: law.membrane_lambda.min(cap),
                ..*law
            };
            let Ok(stage) = self.sheet_newton(&capped, u.as_deref()) else { return direct };
            iterations += stage.iterations;
            u = Some(stage.displacements);
            cap *= 10.0;
        }
        let Ok(mut last) = self.sheet_newton(law, u.as_deref()) else { return direct };
        last.iterations += iterations;
        Ok(last)
    }

    /// The Newton and Levenberg-Marquardt iteration of [`Self::sheet_equilibrium`] from `warm`
    /// ([`Self::newton`] with that step).
    fn sheet_newton(&self, law: &SpringLaw, warm: Option<&[Vec3]>) -> Result<Equilibrium, SpringError> {
        let zeros = vec![Vec3::zeros(); self.rest.len()];
        let mut mu = 0.0;
        self.newton(law, warm, 200, |statics, k, u, f, _| {
            let energy = |x: &[f64]| self.energy(statics, &self.expand(x), &zeros);
            let largest = k.largest_diagonal();
            let (start, e0) = (norm(f), energy(u));
            let mut trial_mu = mu;
            while trial_mu <= 1e8 * largest {
                let diagonal = (trial_mu > 0.0).then(|| vec![trial_mu; self.dofs()]);
                if let Some(du) = self.solve(&[(k, -1.0)], diagonal.as_deref(), f) {
                    let slope = f.iter().zip(&du).map(|(a, b)| a * b).sum::<f64>();
                    let mut step = 1.0;
                    while step >= 1e-3 {
                        let trial: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + step * b).collect();
                        let ft = self.forces(statics, &trial, None);
                        if norm(&ft) < (1.0 - 1e-4 * step) * start
                            || (slope > 0.0 && energy(&trial) < e0 - 1e-4 * step * slope)
                        {
                            mu = if trial_mu <= 1e-8 * largest { 0.0 } else { trial_mu / 100.0 };
                            return Step::Taken { u: trial, f: ft };
                        }
                        step *= 0.5;
                    }
                }
                trial_mu = if trial_mu == 0.0 { 1e-8 * largest } else { 100.0 * trial_mu };
                if trial_mu == 0.0 {
                    break;
                }
            }
            Step::NoDecrease
        })
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
        rates: &[[f64; SpringLaw::ELASTIC]],
    ) -> Option<Vec<Vec<Vec3>>> {
        let statics = SpringLaw { damping: 0.0, ..*law };
        let x = self.flatten(u);
        let (k, _) = self.tangents(&statics, &x);
        let weight = self.forces(&SpringLaw::NONE, &x, None);
        let per_constant: Vec<Vec<f64>> = (0..SpringLaw::ELASTIC)
            .map(|c| {
                let mut unit = [0.0; SpringLaw::ELASTIC];
                unit[c] = 1.0;
                let f = self.forces(&SpringLaw::with_elastic_constants(unit), &x, None);
                f.iter().zip(&weight).map(|(a, b)| a - b).collect()
            })
            .collect();
        // (-K) s_j = df/dp_j: `-K` is positive definite at a stable equilibrium (Cholesky's, `tangent.rs`).
        let factor = self.factor(&[(&k, -1.0)], None)?;
        let n = self.dofs();
        let mut rhs = Mat::<f64>::from_fn(n, rates.len(), |i, j| {
            (0..SpringLaw::ELASTIC).map(|c| rates[j][c] * per_constant[c][i]).sum::<f64>()
        });
        factor.solve_in_place(rhs.as_mut());
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

    /// The relative residual round-off leaves at `u` under `law` ([`SpringBody::round_off`] over the
    /// largest nodal load, as [`SpringBody::equilibrium`] judges it).
    fn floor(b: &SpringBody, law: &SpringLaw, u: &[Vec3]) -> f64 {
        let load = inf(&b.forces(law, &vec![0.0; b.dofs()], None));
        let x = b.flatten(u);
        b.round_off(&b.tangents(law, &x).0, &x) / load
    }

    /// A stiff neo-Hookean cantilever (PyBullet's law, mu 2e4, lambda 1e5 Pa on the imported beam): its
    /// clamp carries the beam's bending, forces far above a node's weight, and Newton's residual stalls at
    /// about 2e-12 of the weight after quadratic convergence (uniform masses), a tenth of the round-off
    /// that storing its displacements leaves; that is the force's round-off, accepted, where it used to end
    /// in "no static equilibrium after 100 iterations". A residual that still halves is not round-off.
    #[test]
    fn newton_accepts_a_residual_stalled_at_round_off() {
        let set =
            pbdfit_mesh::SceneSet::builtin("cantilever").unwrap().with_mass_model(pbdfit_mesh::MassModel::Uniform);
        let b = SpringBody::new(&crate::PbdSystem::new(&set.scenes()[0].body(1).unwrap()));
        let law = SpringLaw { mu: 2e4, lambda: 1e5, ..SpringLaw::NONE };
        let e = b.equilibrium(&law, None).unwrap();
        let floor = floor(&b, &law, &e.displacements);
        println!("residuals {:?}, round-off {floor:e}", e.residuals);
        assert!(e.residual > 1e-12, "this body stalls above 1e-12: {:?}", e.residuals);
        assert!(e.residual <= 0.2 * floor && e.iterations < 20, "{:?}, round-off {floor:e}", e.residuals);
        assert!(at_round_off(&[1e-3, 1e-7, 2e-12, 1.9e-12, 1.8e-12], 1e-11));
        assert!(!at_round_off(&[1e-3, 1e-7, 8e-12, 3e-12, 2.9e-12], 1e-11), "the iteration before halved it");
        assert!(!at_round_off(&[2e-12, 2e-12], 1e-11), "too few iterations to tell");
    }

    /// A stall is round-off only at the level round-off explains, and that level is the problem's: on the
    /// unit cube held at the wall (N = 1, springs of 273.6 N/m) round-off leaves about 1e-14 of a node's
    /// weight, so a residual stalled at 5e-10 there is a failed solve, refused; with a volume penalty of
    /// 1e10 Pa (about 1e7 times the springs' stiffness) storing the displacements to the last bit leaves
    /// about 1e-8, and Newton, led there by continuation in the penalty, stalls below it: an equilibrium
    /// to round-off, accepted (from the undeformed body Newton does not reach it).
    #[test]
    fn a_stall_is_round_off_only_below_the_round_off_of_the_forces() {
        let b = body("gravity-wall", 1);
        let springs = SpringLaw { ks: 273.6, ..SpringLaw::NONE };
        let soft = b.equilibrium(&springs, None).unwrap();
        let soft_floor = floor(&b, &springs, &soft.displacements);
        let stall = [1e-3, 5e-10, 5e-10, 5e-10];
        assert!(soft_floor < 1e-13, "round-off of the springs alone: {soft_floor:e}");
        assert!(!at_round_off(&stall, soft_floor), "a stall at 5e-10 is not the springs' round-off");
        let mut u = soft.displacements;
        let mut last = None;
        for kvol in [1e2, 1e4, 1e6, 1e8, 1e10] {
            let law = SpringLaw { kvol, ..springs };
            let e = b.equilibrium(&law, Some(&u)).unwrap();
            u = e.displacements.clone();
            last = Some((law, e));
        }
        let (law, stiff) = last.unwrap();
        let stiff_floor = floor(&b, &law, &stiff.displacements);
        println!("soft {soft_floor:e}; kvol 1e10: residuals {:?}, round-off {stiff_floor:e}", stiff.residuals);
        assert!(stiff_floor > 1e-9 && stiff.residual <= stiff_floor, "{:?} vs {stiff_floor:e}", stiff.residuals);
        assert!(at_round_off(&stall, stiff_floor), "a stall at 5e-10 is this body's round-off");
        assert!(b.equilibrium(&law, None).is_err(), "cold Newton reaches it now: the test says otherwise");
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
