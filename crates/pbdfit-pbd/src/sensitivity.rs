//! The rest state's sensitivity to the model's parameters, `S = du*/dp` (docs/method.md, section
//! Sensitivity of the rest state, and fits that follow the gradient).
//!
//! - Projection models (PBD, XPBD and its spring potentials): the rest state is the fixed point
//!   `F(u, p) = Phi(u, p) - u = 0` of one step from rest, so by the implicit function theorem
//!   `(I - dPhi/du) s_j = dPhi/dp_j`, one linear solve per parameter. The solve is restarted GMRES with
//!   Jacobian-vector products `dPhi/du v` taken as differences of the rest map itself, through the very
//!   sweeps the rest state used (so every projection rule, present and future, is differentiated with no
//!   code of its own); `dPhi/dp_j` is likewise a difference of the map in the parameter. By default the
//!   differences are central (a one-sided second-order difference at an edge of the allowed range),
//!   relative error about 1e-10, far below the 1e-5 of the check against differences of rest states; a
//!   fit's linearisation asks for one-sided products at half the cost ([`Differences`]).
//! - The solves of all parameters share one matrix, so each reuses the products of the ones before, and
//!   each restart the products of its own earlier cycles (GCRO with a recycled space, [`Recycled`]): the
//!   backward solve reuses its own work as DiffPD's reuses its factorisation. Cost over the cases of the
//!   tests (`cargo run --release -p pbdfit-pbd --example sensitivity_cost`): a fit's linearisation a
//!   median 0.98 cold forward rest states; the full-accuracy solve 2.14.
//! - Mass-spring models: the rest state is the equilibrium `f(u, p) = 0`, so `K s_j = -df/dp_j` with the
//!   Newton tangent `K = df/du` (one sparse LU for all parameters); the force is linear in `ks` and
//!   `kvol`, and the model's rule gives `d(ks, kvol)/dp_j`.
//!
//! GMRES is written here (about 120 lines, Givens rotations, restarts, a recycled space) because no
//! well-kept Rust crate offers a matrix-free GMRES on closures, let alone GCRO; `faer` has dense and
//! sparse factorisations only.

use crate::arnoldi::{Arnoldi, norm};
use crate::system::{MapRounding, Stage};
use crate::{Fold, PbdError, PbdSystem, RuleSettings, Scale, SimParams, SpringLaw, Vec3};

/// Controls of the sensitivity solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensitivityOptions {
    /// GMRES stops when `|(I - dPhi/du) s - dPhi/dp|_2 <= tolerance |dPhi/dp|_2`.
    pub tolerance: f64,
    /// Largest number of Jacobian-vector products per parameter.
    pub max_products: usize,
    /// Krylov vectors kept before a restart.
    pub restart: usize,
    /// How the products and `dPhi/dp` are differenced.
    pub differences: Differences,
}

impl Default for SensitivityOptions {
    fn default() -> Self {
        Self { tolerance: 1e-8, max_products: 1500, restart: 60, differences: Differences::Central }
    }
}

/// The differences of the rest map that stand for its derivatives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Differences {
    /// Central differences with a step of 1e-5 (of the largest displacement for a product; of the value
    /// or the box's width for a parameter): two map evaluations each, relative error about 1e-10.
    Central,
    /// One-sided products from the map's value at the rest state (evaluated once, not taken to be the
    /// rest state itself: its residual of up to 1e-13 would dominate) with a step of 1e-8, near the square
    /// root of the machine epsilon: one map evaluation each, relative error about 1e-8 (truncation and
    /// rounding balanced). Enough for a solve to 1e-6 (a fit's linearisation); a solve to 1e-8 needs
    /// [`Differences::Central`]. `dPhi/dp` stays central: a parameter that moves the rest map little
    /// (XPBD's volume compliance on gravity-wall at dt = 0.002) changes it by less than a one-sided step's
    /// rounding, and with one-sided parameter differences 24 fits of the XPBD study ended up to 3.5 times
    /// worse, on the bound alpha_v = 1e-14. (An earlier one-sided form also used the central step of 1e-5
    /// for the products, an error of 1e-5, and led 305 of the thesis's gradient fits astray.)
    Forward,
}

impl Differences {
    /// The relative step of a difference in the state or a parameter.
    fn step(self) -> f64 {
        match self {
            Differences::Central => 1e-5,
            Differences::Forward => 1e-8,
        }
    }
}

/// The rest state's derivatives with respect to the model's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    /// Per parameter (in the model's order), `du*/dp` per vertex: m per unit of the parameter (zero at
    /// held vertices).
    pub columns: Vec<Vec<Vec3>>,
    /// Rest-map evaluations spent (projection models; 0 for mass-spring models, which spend one sparse
    /// factorisation).
    pub map_evaluations: usize,
    /// Largest relative residual of the linear solves.
    pub residual: f64,
}

impl PbdSystem {
    /// The sensitivity of the rest state at `params` (its displacements `rest`, m, converged) to the
    /// model's parameters.
    /// Errors when the linear solve does not converge within the options' budget (a rest state at the
    /// edge of stability: `I - dPhi/du` is nearly singular there) or the tangent is singular, and for a
    /// body with obstacles ([`PbdError::Contact`]: contact makes the rest map non-smooth).
    pub fn sensitivity(
        &self,
        params: &SimParams,
        rest: &[Vec3],
        options: &SensitivityOptions,
    ) -> Result<Sensitivity, PbdError> {
        params.validate()?;
        self.check_body(params.model.kind())?;
        if !self.obstacles.is_empty() {
            return Err(PbdError::Contact {
                scene: self.scene.clone(),
                obstacles: self.obstacles.len(),
                what: "the rest state's sensitivity is not solved with contact (the active set and friction make \
                       the rest map non-smooth, and friction makes the rest state path dependent); a fit's gradient \
                       search takes differences of rest states instead, so `pbdfit fit` works as it is",
            });
        }
        // The model's family is its definition's: the rule at every point of a difference is of it.
        match params.model.kind().def().rule {
            Fold::Projection(fold) => self.stepped_sensitivity(params, rule_at(fold), rest, options),
            Fold::Engine(fold) | Fold::SheetEngine(fold) => {
                self.stepped_sensitivity(params, rule_at(fold), rest, options)
            }
            Fold::Cloth(fold) => self.stepped_sensitivity(params, rule_at(fold), rest, options),
            Fold::Springs(fold) | Fold::SheetSprings(fold) => self.spring_sensitivity(params, rule_at(fold), rest),
        }
    }

    /// The parameter points of a difference in parameter `j`: `(values, weight)` pairs whose weighted sum
    /// of map values, divided by the step, is `dPhi/dp_j` (central, or one-sided second order at an edge of
    /// the allowed range), with the step of [`Differences::Central`].
    fn parameter_stencil(params: &SimParams, j: usize) -> (Vec<(SimParams, f64)>, f64) {
        let spec = params.model.kind().parameters()[j];
        let value = params.model.values()[j];
        let maximum = if params.allow_unbounded { spec.maximum_unbounded } else { spec.maximum };
        let h = Differences::Central.step()
            * match spec.scale {
                // A fraction of the value (a log-scale parameter spans decades; at 0, of its box's low end).
                Scale::Log10 if value > 0.0 => value,
                Scale::Log10 => spec.default_box.0,
                // A fraction of the box's width (kd, kv: absolute 1e-5).
                Scale::Linear => value.abs().max(spec.default_box.1 - spec.default_box.0),
            };
        let at = |v: f64| {
            let mut values = params.model.values().to_vec();
            values[j] = v;
            SimParams { model: params.model.kind().with(&values).expect("the model's own count"), ..*params }
        };
        let stencil = if value - h >= spec.minimum && value + h <= maximum {
            vec![(at(value + h), 0.5), (at(value - h), -0.5)]
        } else if value - h < spec.minimum {
            vec![(at(value), -1.5), (at(value + h), 2.0), (at(value + 2.0 * h), -0.5)]
        } else {
            vec![(at(value), 1.5), (at(value - h), -2.0), (at(value - 2.0 * h), 0.5)]
        };
        (stencil, h)
    }

    /// The sensitivity of a model with a step (a projection model's sweep or an engine profile's), whose
    /// rule at a parameter point `rule_at` gives.
    fn stepped_sensitivity<S: Stage>(
        &self,
        params: &SimParams,
        rule_at: impl Fn(&SimParams) -> S,
        displacements: &[Vec3],
        options: &SensitivityOptions,
    ) -> Result<Sensitivity, PbdError> {
        let rules = rule_at(params);
        let x: Vec<f64> =
            self.free.iter().flat_map(|&p| displacements[p].iter().copied().collect::<Vec<_>>()).collect();
        let n = x.len();
        let mut d = self.dynamics();
        let mut evaluations = 0usize;
        let mut map = |rules: &S, params: &SimParams, at: &[f64], out: &mut [f64]| {
            evaluations += 1;
            rules.rest_map(self, params, &mut d, at, out);
        };
        let scale = inf(&x).max(1e-9 * self.extent);
        let differences = options.differences;
        // One-sided products start from the map's value at the rest state.
        let base = (differences == Differences::Forward).then(|| {
            let mut out = vec![0.0; n];
            map(&rules, params, &x, &mut out);
            out
        });
        // A map in absolute positions (the cloth models') rounds far above the machine epsilon, at its
        // positions' last places amplified by the projections: one-sided products take the step where
        // truncation and that measured rounding balance, `sqrt(rounding / scale)` relative, instead of the
        // fixed 1e-8, whose products on the hanging sheet at N = 20 were rounding alone (GMRES stalled at
        // 1e-2 to 6e-5 after 1,500 products, so no descent had a model). Every other map keeps the fixed
        // step. Central products' step (1e-5) is left as it is.
        let step = match &base {
            Some(base) if rules.rounding() == MapRounding::Measured => {
                let origin: Vec<f64> = self.free.iter().flat_map(|&p| self.rest[p].iter().copied()).collect();
                let (mut scratch, mut image) = (vec![0.0; n], vec![0.0; n]);
                let mut probes = 0;
                let noise = crate::newton_krylov::rounding(
                    &mut |at: &[f64], out: &mut [f64]| map(&rules, params, at, out),
                    &x,
                    base,
                    &origin,
                    &mut scratch,
                    &mut image,
                    &mut probes,
                );
                differences.step().max((noise / scale).sqrt())
            }
            _ => differences.step(),
        };
        // Products exact to about their step reach a relative residual near it, no further: a solve in
        // positions asks for no less than [`STEP_RESIDUALS`] times the step (with the fixed step it is
        // `options.tolerance`, as before). Measured on the hanging sheet at N = 20: solves with steps of
        // 8e-7 to 2e-5 stalled at relative residuals of 4e-6 to 7e-6 for 1,500 products.
        let tolerance =
            if step > differences.step() { options.tolerance.max(STEP_RESIDUALS * step) } else { options.tolerance };
        let mut columns = Vec::new();
        let mut worst: f64 = 0.0;
        // Every parameter's system has the same matrix: each solve starts from the products of the ones
        // before (see [`Recycled`]).
        let mut recycled = Recycled::default();
        for j in 0..params.model.values().len() {
            // dPhi/dp_j, central in every form (see `Differences::Forward`).
            let (stencil, h) = Self::parameter_stencil(params, j);
            let mut b = vec![0.0; n];
            let mut out = vec![0.0; n];
            for (at, weight) in &stencil {
                map(&rule_at(at), at, &x, &mut out);
                for (bi, oi) in b.iter_mut().zip(&out) {
                    *bi += weight * oi;
                }
            }
            b.iter_mut().for_each(|v| *v /= h);
            // (I - dPhi/du) s = b, with dPhi/du v by differences of the map.
            let mut plus = vec![0.0; n];
            let mut minus = vec![0.0; n];
            let mut trial = vec![0.0; n];
            let apply = |v: &[f64], av: &mut [f64]| {
                let size = inf(v);
                if size == 0.0 {
                    av.fill(0.0);
                    return;
                }
                let eps = step * scale / size;
                for ((t, xi), vi) in trial.iter_mut().zip(&x).zip(v) {
                    *t = xi + eps * vi;
                }
                map(&rules, params, &trial, &mut plus);
                match &base {
                    Some(base) => {
                        for (((a, vi), p), m) in av.iter_mut().zip(v).zip(&plus).zip(base) {
                            *a = vi - (p - m) / eps;
                        }
                    }
                    None => {
                        for ((t, xi), vi) in trial.iter_mut().zip(&x).zip(v) {
                            *t = xi - eps * vi;
                        }
                        map(&rules, params, &trial, &mut minus);
                        for (((a, vi), p), m) in av.iter_mut().zip(v).zip(&plus).zip(&minus) {
                            *a = vi - (p - m) / (2.0 * eps);
                        }
                    }
                }
            };
            let solved = gmres(apply, &b, tolerance, options.restart, options.max_products, &mut recycled);
            if !solved.converged {
                return Err(PbdError::SensitivityNotConverged {
                    scene: self.scene.clone(),
                    params: params.describe(),
                    parameter: params.model.kind().parameters()[j].name,
                    products: solved.products,
                    residual: solved.residual,
                });
            }
            worst = worst.max(solved.residual);
            columns.push(self.expand_free(&solved.x));
        }
        Ok(Sensitivity { columns, map_evaluations: evaluations, residual: worst })
    }

    fn spring_sensitivity(
        &self,
        params: &SimParams,
        law_at: impl Fn(&SimParams) -> SpringLaw,
        displacements: &[Vec3],
    ) -> Result<Sensitivity, PbdError> {
        let law = law_at(params);
        let body = self.spring_body();
        // d(ks, kvol, mu, lambda, ks_shear, ks_bend)/dp_j from the model's rule (exact for the registered models, which pass
        // them through).
        let mut rates = Vec::new();
        for j in 0..params.model.values().len() {
            let (stencil, h) = Self::parameter_stencil(params, j);
            let mut rate = [0.0; SpringLaw::ELASTIC];
            for (at, weight) in &stencil {
                for (r, c) in rate.iter_mut().zip(law_at(at).elastic_constants()) {
                    *r += weight * c;
                }
            }
            rates.push(rate.map(|r| r / h));
        }
        let columns = body.parameter_sensitivities(&law, displacements, &rates).ok_or_else(|| {
            PbdError::SensitivityNotConverged {
                scene: self.scene.clone(),
                params: params.describe_springs(),
                parameter: params.model.kind().parameters()[0].name,
                products: 0,
                residual: f64::INFINITY,
            }
        })?;
        Ok(Sensitivity { columns, map_evaluations: 0, residual: 0.0 })
    }

    /// Free-DOF values as per-vertex vectors, zero at held vertices.
    fn expand_free(&self, x: &[f64]) -> Vec<Vec3> {
        let mut out = vec![Vec3::zeros(); self.rest.len()];
        for (i, &p) in self.free.iter().enumerate() {
            out[p] = Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        }
        out
    }
}

/// A family's rule at a parameter point, from its fold.
fn rule_at<R>(fold: fn(&[f64], RuleSettings) -> R) -> impl Fn(&SimParams) -> R {
    move |at| fold(at.model.values(), RuleSettings::new(at.dt, at.nit, at.model.kind()))
}

fn inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, a| m.max(a.abs()))
}

/// What [`gmres`] found.
struct Solved {
    x: Vec<f64>,
    products: usize,
    residual: f64,
    converged: bool,
}

/// Products of the matrix kept from earlier solves with the same matrix: pairs `(u, c = A u)` with the
/// `c` orthonormal (the `u` transformed alike, so `A u = c` stays true).
///
/// Why: the sensitivity solves one system per parameter with one matrix `I - dPhi/du`. The first solve's
/// Krylov vectors and their products span the slow modes of the rest map, which every right-hand side
/// needs; a later solve that minimises over them before and during its own Arnoldi process (GCRO with a
/// fixed recycled space, de Sturler 1999; Parks et al. 2006 recycle it across a sequence of systems)
/// spends products only on what they do not already hold. Measured at `kd = 0.35, kv = 0.6, nit = 2`
/// (README, Benchmarks): the second parameter's solve on gravity-floor at N = 2 took 22 products alone,
/// 15 after the first.
#[derive(Default)]
struct Recycled {
    u: Vec<Vec<f64>>,
    c: Vec<Vec<f64>>,
}

/// The relative residual, in difference steps, that a sensitivity solve in positions is asked for at
/// least: its products, differenced with the step where truncation and the map's rounding balance, are
/// exact to about that step.
const STEP_RESIDUALS: f64 = 10.0;

/// The most pairs a [`Recycled`] space keeps (each costs two vectors and an inner product per Arnoldi step).
const RECYCLED_MAX: usize = 120;

impl Recycled {
    /// Adds the pair `(u, A u)`, orthonormalising `A u` against the kept ones (twice, modified
    /// Gram-Schmidt) and dropping it when nothing new is left of it.
    fn push(&mut self, mut u: Vec<f64>, mut c: Vec<f64>) {
        if self.c.len() >= RECYCLED_MAX {
            return;
        }
        let size = norm(&c);
        for _ in 0..2 {
            for (ui, ci) in self.u.iter().zip(&self.c) {
                let a: f64 = c.iter().zip(ci).map(|(x, y)| x * y).sum();
                c.iter_mut().zip(ci).for_each(|(x, y)| *x -= a * y);
                u.iter_mut().zip(ui).for_each(|(x, y)| *x -= a * y);
            }
        }
        let left = norm(&c);
        if left.is_nan() || left <= 1e-10 * size || !left.is_finite() {
            return;
        }
        c.iter_mut().for_each(|x| *x /= left);
        u.iter_mut().for_each(|x| *x /= left);
        self.u.push(u);
        self.c.push(c);
    }

    /// Removes from `w` its components along the kept `c` (twice), returning the coefficients `C^T w`.
    fn deflate(&self, w: &mut [f64]) -> Vec<f64> {
        let mut coefficients = vec![0.0; self.c.len()];
        for _ in 0..2 {
            for (k, ci) in self.c.iter().enumerate() {
                let a: f64 = w.iter().zip(ci).map(|(x, y)| x * y).sum();
                coefficients[k] += a;
                w.iter_mut().zip(ci).for_each(|(x, y)| *x -= a * y);
            }
        }
        coefficients
    }
}

/// Restarted GMRES for `A x = b` from `x = 0`, with `A` given as products `apply(v, A v)`: stops when
/// the true residual `|b - A x|_2 <= tolerance |b|_2` (checked at every restart and at the end), or after
/// `max_products` products.
///
/// With a non-empty `recycled` space (products of `A` from earlier solves) it is GCRO: the start
/// minimises the residual over the recycled space, and every Arnoldi vector is kept orthogonal to its
/// products, so the Krylov vectors only add what the space lacks. This solve's own Krylov vectors and
/// products join `recycled` for the next solve. Every cycle ends on the true residual, so a space whose
/// products are inexact (central differences: about 1e-10) costs a cycle at worst, never accuracy.
fn gmres(
    mut apply: impl FnMut(&[f64], &mut [f64]),
    b: &[f64],
    tolerance: f64,
    restart: usize,
    max_products: usize,
    recycled: &mut Recycled,
) -> Solved {
    let n = b.len();
    let b_norm = norm(b);
    let mut x = vec![0.0; n];
    if b_norm == 0.0 {
        return Solved { x, products: 0, residual: 0.0, converged: true };
    }
    let mut products = 0;
    let mut r = b.to_vec();
    let mut ax = vec![0.0; n];
    loop {
        // Each cycle starts from the best combination of the recycled space (`c` orthonormal, so its
        // coefficients are `C^T r`; `A u = c` makes the new residual `r - C C^T r` at no product).
        let start = recycled.deflate(&mut r);
        for (a, u) in start.iter().zip(&recycled.u) {
            x.iter_mut().zip(u).for_each(|(x, u)| *x += a * u);
        }
        let beta = norm(&r);
        let relative = beta / b_norm;
        if relative <= tolerance || products >= max_products {
            return Solved { x, products, residual: relative, converged: relative <= tolerance };
        }
        let m = restart.min(max_products - products).max(1);
        // The Arnoldi process (its Hessenberg columns rotated as they come); the coefficients of each
        // product along the recycled space.
        let mut arnoldi = Arnoldi::new(&r, beta);
        let mut along: Vec<Vec<f64>> = Vec::new();
        let mut w = vec![0.0; n];
        // This cycle's Krylov vectors and their products, recycled from the next cycle on (the space
        // stays fixed during a cycle: `along` is taken against it).
        let mut new_pairs: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        for k in 0..m {
            apply(&arnoldi.basis[k], &mut w);
            products += 1;
            new_pairs.push((arnoldi.basis[k].clone(), w.clone()));
            along.push(recycled.deflate(&mut w));
            let next = arnoldi.orthogonalise(&mut w);
            let estimate = arnoldi.residual() / b_norm;
            if next == 0.0 || estimate <= 0.5 * tolerance || k + 1 == m {
                break;
            }
            arnoldi.extend(&w, next);
        }
        // The Krylov coefficients, then the update `x += V y - U (B y)`.
        let y = arnoldi.coefficients();
        arnoldi.add_combination(&y, &mut x);
        for (q, u) in recycled.u.iter().enumerate() {
            let by: f64 = along.iter().zip(&y).map(|(column, yi)| column[q] * yi).sum();
            x.iter_mut().zip(u).for_each(|(a, b)| *a -= by * b);
        }
        // The next cycle starts from this one's products.
        for (u, c) in new_pairs {
            recycled.push(u, c);
        }
        // The true residual (the Krylov estimate drifts with the differenced products).
        apply(&x, &mut ax);
        products += 1;
        r.iter_mut().zip(b).zip(&ax).for_each(|((r, b), a)| *r = b - a);
        if !r.iter().all(|v| v.is_finite()) {
            return Solved { x, products, residual: f64::INFINITY, converged: false };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GMRES solves a non-symmetric system to its tolerance, with restarts.
    #[test]
    fn gmres_solves_a_nonsymmetric_system() {
        let n = 40;
        let a = |i: usize, j: usize| {
            if i == j {
                3.0 + i as f64 * 0.1
            } else if j == i + 1 {
                -1.0
            } else if i == j + 2 {
                0.7
            } else {
                0.0
            }
        };
        let apply = |v: &[f64], out: &mut [f64]| {
            for i in 0..n {
                out[i] = (0..n).map(|j| a(i, j) * v[j]).sum();
            }
        };
        let truth: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut b = vec![0.0; n];
        apply(&truth, &mut b);
        let solved = gmres(apply, &b, 1e-12, 7, 500, &mut Recycled::default());
        assert!(solved.converged, "residual {}", solved.residual);
        let error = truth.iter().zip(&solved.x).map(|(t, x)| (t - x).abs()).fold(0.0, f64::max);
        assert!(error < 1e-10, "error {error}");
    }

    /// A second right-hand side of the same matrix, solved with the first solve's products recycled
    /// (GCRO), reaches the same accuracy with fewer products than on its own; a space whose products
    /// are slightly wrong (as differenced products are) costs products, never accuracy.
    #[test]
    fn recycled_products_shorten_the_next_solve() {
        let n = 60;
        let a = |i: usize, j: usize| {
            if i == j {
                1.0 + 0.02 * i as f64
            } else if j == i + 1 {
                -0.45
            } else if i == j + 3 {
                0.3
            } else {
                0.0
            }
        };
        let apply = |v: &[f64], out: &mut [f64]| {
            for i in 0..n {
                out[i] = (0..n).map(|j| a(i, j) * v[j]).sum();
            }
        };
        let rhs = |k: f64| (0..n).map(|i| (k * i as f64).cos()).collect::<Vec<_>>();
        let (b1, b2) = (rhs(0.3), rhs(1.1));
        let mut recycled = Recycled::default();
        let first = gmres(apply, &b1, 1e-10, 80, 500, &mut recycled);
        assert!(first.converged && !recycled.c.is_empty());
        let alone = gmres(apply, &b2, 1e-10, 80, 500, &mut Recycled::default());
        let mut kept = Recycled { u: recycled.u.clone(), c: recycled.c.clone() };
        let second = gmres(apply, &b2, 1e-10, 80, 500, &mut kept);
        assert!(alone.converged && second.converged);
        println!("{} products recycled, {} alone, first {}", second.products, alone.products, first.products);
        assert!(second.products < alone.products, "{} products recycled, {} alone", second.products, alone.products);
        let gap = alone.x.iter().zip(&second.x).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        assert!(gap < 1e-8, "the two solutions differ by {gap}");
        // Perturbed products (relative 1e-6) in the recycled space: still the solution.
        let mut wrong = Recycled { u: recycled.u.clone(), c: recycled.c.clone() };
        for (k, c) in wrong.c.iter_mut().enumerate() {
            c.iter_mut().enumerate().for_each(|(i, x)| *x *= 1.0 + 1e-6 * ((i * 7 + k) as f64).sin());
        }
        let perturbed = gmres(apply, &b2, 1e-10, 80, 500, &mut wrong);
        assert!(perturbed.converged);
        let gap = alone.x.iter().zip(&perturbed.x).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        assert!(gap < 1e-8, "the perturbed space's solution differs by {gap}");
    }
}
