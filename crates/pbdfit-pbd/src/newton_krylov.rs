//! A fixed point `x = G(x)` solved as a root of `F(x) = G(x) - x` by Newton-Krylov: each Newton step
//! solves `(I - J_G) s = F(x)` by GMRES with products `J_G v` taken as one-sided differences of the map,
//! then a backtracking line search that accepts only a step that lowers `|F|_2`.
//!
//! Why: where the rest map contracts slowly (an eigenvalue of `J_G` near 1: Newton's Jacobi tetrahedra
//! without small-strain shear, `1 - |mu|` down to 4e-5; a hanging sheet's slow swing) a fixed-point
//! iteration, however accelerated, pays for that contraction, while a Krylov solve pays only for the
//! number of distinct slow modes. Each product costs one map evaluation, as an iteration does.
//!
//! The Arnoldi process of the last Newton step also estimates the extreme eigenvalues of `J_G` (the
//! Ritz values of its Hessenberg matrix), which the caller uses for the stability verdict: a root solve
//! converges to a repelling fixed point as readily as to an attracting one, and no simulation settles at
//! a repelling one ([`step_radius`]).

use crate::arnoldi::{Arnoldi, norm};
use nalgebra::{Complex, DMatrix};

/// A right preconditioner of the Newton steps' linear solves (`(I - J_G) s = F`): an approximation
/// `P^-1` of `(I - J_G)^-1`, prepared at each Newton step's iterate and fixed through its GMRES (so plain
/// right-preconditioned GMRES, not the flexible variant). GMRES then minimises the unpreconditioned
/// residual `|F - (I - J_G) s|_2` over `s` in `P^-1` times the Krylov space of `(I - J_G) P^-1`: the
/// Newton step, its forcing term and the line search are judged as without it, and the fixed point is the
/// map's own (the preconditioner enters only through the space searched). The cloth models' static
/// tangent (`cloth/tangent.rs`) is one.
pub(crate) trait Preconditioner {
    /// Prepares `P^-1` at the iterate `x`; false where it has none there (the step goes unpreconditioned).
    fn prepare(&mut self, x: &[f64]) -> bool;
    /// `out = P^-1 v` (after a successful [`prepare`](Self::prepare)).
    fn apply(&mut self, v: &[f64], out: &mut [f64]);
}

/// What the root solve reached.
#[cfg_attr(not(test), allow(dead_code))] // `newton_steps`, `products` and `at_round_off` are read by the tests.
pub(crate) struct RootOutcome {
    /// The last `G(x)`, the best estimate of the fixed point (as the accelerated iteration returns).
    pub x: Vec<f64>,
    /// `|G(x) - x|_inf / |G(x)|_inf` at the returned point.
    pub residual: f64,
    /// Evaluations of `G` (line search and products included).
    pub evaluations: usize,
    /// Whether the residual fell below the tolerance.
    pub converged: bool,
    /// Ritz values (estimates of eigenvalues) of `J_G` from the last Newton step's Arnoldi process.
    pub ritz: Vec<Complex<f64>>,
    /// Newton steps taken.
    pub newton_steps: usize,
    /// Products `J_G v` of the Newton steps' GMRES (map evaluations among [`evaluations`](Self::evaluations)).
    pub products: usize,
    /// Whether the solve ended at the map's own rounding ([`ROUND_OFF`]): converged, with a residual
    /// above the tolerance.
    pub at_round_off: bool,
}

/// Controls of [`newton_krylov`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RootControls<'a> {
    /// Relative residual `|G(x) - x|_inf / |G(x)|_inf` to reach.
    pub tolerance: f64,
    /// Most evaluations of `G`.
    pub max_evaluations: usize,
    /// Most Krylov vectors (products) per Newton step.
    pub krylov: usize,
    /// An iterate with `|x|_inf` beyond this is not admitted (the line search steps back).
    pub limit: f64,
    /// The smallest size (m) of a difference step's scale (the larger of `|x|_inf` and `|G(x)|_inf`).
    pub scale_floor: f64,
    /// The relative residual below which a solve that stops making progress is at the map's own rounding
    /// ([`ROUND_OFF`] for every map in displacements; the stage's `MapRounding`).
    pub round_off: f64,
    /// Where the map computes in absolute positions (the cloth models' sweeps, the reference library's
    /// arithmetic): each unknown's offset, the rest coordinate the map adds it to before it rounds (m).
    /// The map's rounding is then measured ([`rounding`]) and sets the products' difference step and the
    /// rounding verdict of a solve whose line search finds no decrease. Empty: the map computes in
    /// displacements (the solids' form, exact to their last digits), and neither is measured.
    pub origin: &'a [f64],
    /// Map evaluations applied to each line-search trial `x + lambda s` before it is judged (0: none),
    /// the trial then being their last argument. Where stiff constraints hold the fixed point on a curved
    /// manifold of slow modes (a nearly inextensible sheet bending: `1 - |mu|` down to 5e-7), a Newton step
    /// along the slow modes leaves the manifold by its square, a residual far above the one it removes, so
    /// the line search creeps; the map's own passes take the trial back to the manifold (its fast modes
    /// contract in a few), and the step is judged by what is left. Measured on `jolt-cloth`'s clamped
    /// strip (N = 4, dt 1/60 s, nit 64): with none, 59 Newton steps in 1,500 evaluations left the residual
    /// where they found it (8.9e-4); with 64, 9 steps took it to 1.8e-9.
    pub smoothing: usize,
}

/// The relative difference step of a product `J_G v`, near the square root of the machine epsilon:
/// truncation and rounding balanced (relative error about 1e-8), as the sensitivity's one-sided products.
const PRODUCT_STEP: f64 = 1e-8;

/// Armijo's sufficient decrease: a step of length `lambda` must lower `|F|_2` by at least this fraction
/// of `lambda` times the linear model's decrease.
const SUFFICIENT: f64 = 1e-4;

/// The shortest line-search step tried before the solve gives up (`2^-10`).
const SHORTEST: f64 = 1.0 / 1024.0;

/// The forcing term's bounds (Eisenstat & Walker 1996, choice 2: `eta = 0.9 (|F_k| / |F_{k-1}|)^2`):
/// at most 0.1 (far from the root a rough step does), at least 1e-6 (below that the differenced products'
/// own error, about 1e-8 times the conditioning, decides).
const ETA_MAX: f64 = 0.1;
const ETA_MIN: f64 = 1e-6;

/// A relative residual below this at which Newton no longer makes progress is the rest map's own rounding:
/// the solve ends converged there ([`RootOutcome::at_round_off`]). Progress stops when [`STALLS`] Newton
/// steps in a row, each solving its linear model to its forcing term, fail to halve `|F|_2` (or the line
/// search finds no decrease at all). A smooth map's Newton step near its root lowers the residual by far
/// more: measured on the hanging sheet (N = 10, dt = 0.01 s, nit = 10), the isometric-bending cloth models
/// fall from 1e-3 to 1e-11 in four or five Newton steps (a factor 30 to 500 each), then sit between
/// 3e-12 and 3e-11 whatever the step, for Newton and the accelerated iteration alike (the accelerated one
/// spent its 100,000 sweeps there): their bending constraints' arithmetic rounds at that level, so no
/// solve reaches the tolerance of 1e-13.
pub(crate) const ROUND_OFF: f64 = 1e-10;

/// Newton steps in a row without halving the residual below [`ROUND_OFF`] that end the solve there.
const STALLS: usize = 3;

/// A solve in absolute positions ([`RootControls::origin`]) ends converged at the map's rounding when
/// `|G(x) - x|_inf` is at most this many times the rounding measured at `x` ([`rounding`]): at once, before
/// a Newton step from `x` (whose products and line search would see rounding alone) where its relative
/// residual is below the map's floor too ([`RootControls::round_off`]), or when its line search finds no
/// decrease. Ending at once halved the Newton steps of the hanging sheet's rest states at
/// N = 20 (6 to 3, 125 to 80 map evaluations each; the fit's minimum the same to every printed digit).
/// Measured on the cloth fits of the hanging sheet (N = 4) and the clamped strip
/// (N = 10, both dt 0.01 / 0.002 s, nit 10): every solve that stalled so had `|F|_inf` between 0.1 and 4
/// times the rounding (its relative residual 1e-12 to 6e-10, where the accelerated iteration and stepping
/// stalled too, each of those points spending the search's 200,000 sweeps); a solve far from its root
/// stopped at 1e8 to 1e12 times it.
pub(crate) const ROUNDING: f64 = 10.0;

/// Perturbed evaluations per measurement of the map's rounding ([`rounding`]).
const ROUNDING_PROBES: u64 = 2;

/// The rounding of the map `g` at `x` (image `gx`), in metres: the largest change of its image when every
/// unknown moves by one unit in the last place of the absolute position it is added to (`origin + x`),
/// with signs from a fixed pattern, over [`ROUNDING_PROBES`] patterns. Such a move is below what the map
/// resolves, so the change is its rounding (amplified by the projections it passes through: 2e2 to 5e4
/// units in the last place on the cloth models' stiff points), plus the linear response to the move
/// itself, which is of its size. `scratch` and `image` are work space. Adds the evaluations to
/// `evaluations`.
pub(crate) fn rounding(
    g: &mut impl FnMut(&[f64], &mut [f64]),
    x: &[f64],
    gx: &[f64],
    origin: &[f64],
    scratch: &mut [f64],
    image: &mut [f64],
    evaluations: &mut usize,
) -> f64 {
    let ulp = |v: f64| {
        let a = v.abs();
        f64::from_bits(a.to_bits() + 1) - a
    };
    let mut largest: f64 = 0.0;
    for probe in 0..ROUNDING_PROBES {
        for (i, ((t, &xi), &o)) in scratch.iter_mut().zip(x).zip(origin).enumerate() {
            // A fixed pseudo-random sign per unknown and probe (Knuth's multiplicative hash).
            let sign = if ((i as u64).wrapping_mul(2_654_435_761) >> (7 + probe)) & 1 == 0 { 1.0 } else { -1.0 };
            *t = xi + sign * ulp(o + xi);
        }
        g(scratch, image);
        *evaluations += 1;
        largest = largest.max(inf_difference(image, gx));
    }
    largest
}

fn inf_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()))
}

fn inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, a| m.max(a.abs()))
}

/// Solves `x = G(x)` from `x0` by Newton-Krylov (see the module doc), each Newton step's GMRES right
/// preconditioned by `preconditioner` where given ([`Preconditioner`]). `go_on(furthest)` is asked before
/// every evaluation after the first, with the largest `|G(.)|_inf` of the evaluations so far (m, finite
/// images only: how far out the solve has looked, which tells a caller when to ask whether the point has
/// a rest state at all); `false` ends the solve unconverged. A non-finite image or one beyond `limit`
/// counts as a failed trial of the line search (or ends a product unconverged).
pub(crate) fn newton_krylov(
    x0: Vec<f64>,
    mut g0: impl FnMut(&[f64], &mut [f64]),
    controls: RootControls,
    mut preconditioner: Option<&mut (dyn Preconditioner + '_)>,
    mut go_on: impl FnMut(f64) -> bool,
) -> RootOutcome {
    let furthest = std::cell::Cell::new(0.0f64);
    let mut g = |x: &[f64], out: &mut [f64]| {
        g0(x, out);
        let size = inf(out);
        if size.is_finite() && size > furthest.get() {
            furthest.set(size);
        }
    };
    let mut go_on = || go_on(furthest.get());
    let n = x0.len();
    let mut evaluations = 0usize;
    let mut x = x0;
    let mut gx = vec![0.0; n];
    g(&x, &mut gx);
    evaluations += 1;
    let admissible = |v: &[f64]| {
        let s = inf(v);
        s.is_finite() && s <= controls.limit
    };
    let fail = |gx: Vec<f64>, evaluations, newton_steps, ritz| RootOutcome {
        x: gx,
        residual: f64::INFINITY,
        evaluations,
        converged: false,
        ritz,
        newton_steps,
        products: 0,
        at_round_off: false,
    };
    if !admissible(&gx) {
        return fail(gx, evaluations, 0, Vec::new());
    }
    let mut f: Vec<f64> = gx.iter().zip(&x).map(|(a, b)| a - b).collect();
    let relative = |gx: &[f64], f: &[f64]| {
        let (s, r) = (inf(gx), inf(f));
        if s > 0.0 { r / s } else { r }
    };
    let mut residual = relative(&gx, &f);
    let mut f_norm = norm(&f);
    let mut previous_norm = f64::NAN;
    let mut newton_steps = 0;
    let mut products = 0;
    let mut stalls = 0;
    let mut ritz = Vec::new();
    let mut trial = vec![0.0; n];
    let mut g_trial = vec![0.0; n];
    let positions = !controls.origin.is_empty();
    debug_assert!(!positions || controls.origin.len() == n);
    loop {
        if residual <= controls.tolerance || f_norm == 0.0 {
            return RootOutcome {
                x: gx,
                residual,
                evaluations,
                converged: true,
                ritz,
                newton_steps,
                products,
                at_round_off: false,
            };
        }
        if evaluations >= controls.max_evaluations {
            break;
        }
        let eta = if previous_norm.is_finite() {
            (0.9 * (f_norm / previous_norm).powi(2)).clamp(ETA_MIN, ETA_MAX)
        } else {
            ETA_MAX
        };
        // (I - J_G) s = F by GMRES, J_G v by a one-sided difference from G(x).
        let scale = inf(&x).max(inf(&gx)).max(controls.scale_floor);
        // A map in positions rounds far above the machine epsilon: its measured rounding `noise` sets the
        // difference step where truncation and rounding balance, `sqrt(noise / scale)` relative (about
        // 1e-5 on the clamped strip's stiff points, where the fixed 1e-8 made products of rounding alone
        // and Newton's first step went uphill). A map in displacements keeps the fixed step.
        let noise = if positions {
            rounding(&mut g, &x, &gx, controls.origin, &mut trial, &mut g_trial, &mut evaluations)
        } else {
            0.0
        };
        if positions && residual <= controls.round_off && inf(&f) <= ROUNDING * noise {
            // Already at the map's rounding, and below its relative floor: a Newton step from here would be
            // judged on rounding alone (its products and a line search that finds no decrease, the end
            // below, one step later). Above the floor the step is taken: `cloth-fem` on the clamped strip
            // (N = 10) sat within the measured rounding at a relative residual of 2e-10, where one step of
            // the simulation still moved it by 1.9e-10 of its displacement.
            return RootOutcome {
                x: gx,
                residual,
                evaluations,
                converged: true,
                ritz,
                newton_steps,
                products,
                at_round_off: true,
            };
        }
        let product_step = PRODUCT_STEP.max((noise / scale).sqrt());
        let mut stopped = false;
        let budget = controls.krylov.min(controls.max_evaluations.saturating_sub(evaluations));
        let before = evaluations;
        let prepared = preconditioner.as_deref_mut().is_some_and(|p| p.prepare(&x));
        let precondition = if prepared { preconditioner.as_deref_mut() } else { None };
        let solved = gmres(
            |v, out| {
                if stopped || !go_on() {
                    stopped = true;
                    out.fill(f64::NAN);
                    return;
                }
                let eps = product_step * scale / inf(v).max(f64::MIN_POSITIVE);
                for ((t, xi), vi) in trial.iter_mut().zip(&x).zip(v) {
                    *t = xi + eps * vi;
                }
                g(&trial, &mut g_trial);
                evaluations += 1;
                for ((o, vi), (p, b)) in out.iter_mut().zip(v).zip(g_trial.iter().zip(&gx)) {
                    *o = vi - (p - b) / eps;
                }
            },
            &f,
            eta,
            budget.max(1),
            precondition,
        );
        products += evaluations - before;
        if stopped || !solved.step.iter().all(|v| v.is_finite()) {
            break;
        }
        ritz = solved.ritz;
        newton_steps += 1;
        // Backtracking on |F|_2: only a step that lowers it enough is taken (never a worse residual).
        let predicted = f_norm - solved.residual_norm;
        let mut lambda = 1.0;
        let mut taken = false;
        // Whether the line search was cut short (its budget, or `go_on`) rather than finding no decrease.
        let mut cut = false;
        while lambda >= SHORTEST {
            if evaluations >= controls.max_evaluations || !go_on() {
                cut = true;
                break;
            }
            for ((t, xi), si) in trial.iter_mut().zip(&x).zip(&solved.step) {
                *t = xi + lambda * si;
            }
            g(&trial, &mut g_trial);
            evaluations += 1;
            // A smoothed trial: the map applied `smoothing` more times before the step is judged.
            for _ in 0..controls.smoothing {
                trial.copy_from_slice(&g_trial);
                g(&trial, &mut g_trial);
                evaluations += 1;
            }
            if admissible(&trial) && admissible(&g_trial) {
                let f_trial: Vec<f64> = g_trial.iter().zip(&trial).map(|(a, b)| a - b).collect();
                let trial_norm = norm(&f_trial);
                if trial_norm <= f_norm - SUFFICIENT * lambda * predicted.max(0.0) && trial_norm < f_norm {
                    stalls = if residual <= controls.round_off && trial_norm > 0.5 * f_norm { stalls + 1 } else { 0 };
                    x.copy_from_slice(&trial);
                    gx.copy_from_slice(&g_trial);
                    residual = relative(&gx, &f_trial);
                    f = f_trial;
                    previous_norm = f_norm;
                    f_norm = trial_norm;
                    taken = true;
                    break;
                }
            }
            lambda *= 0.5;
        }
        // No decrease along the step at all: the residual may be the map's own rounding, which no step
        // lowers. In positions that is measured (`noise`, at this `x`); otherwise a stall below
        // the map's relative floor (`round_off`) after more than one step is taken for it.
        let stalled = if taken {
            stalls >= STALLS
        } else {
            (residual <= controls.round_off && newton_steps > 1) || (positions && !cut && inf(&f) <= ROUNDING * noise)
        };
        if stalled {
            return RootOutcome {
                x: gx,
                residual,
                evaluations,
                converged: true,
                ritz,
                newton_steps,
                products,
                at_round_off: true,
            };
        }
        if !taken {
            break;
        }
    }
    let converged = residual <= controls.tolerance;
    RootOutcome { x: gx, residual, evaluations, converged, ritz, newton_steps, products, at_round_off: false }
}

/// What [`gmres`] found.
struct KrylovStep {
    /// The step `s` minimising `|b - A s|_2` over the (preconditioned) Krylov space.
    step: Vec<f64>,
    /// Its residual `|b - A s|_2` (GMRES's estimate).
    residual_norm: f64,
    /// Ritz values of `J_G = I - A`: `1 - theta` for the Ritz values `theta` of `A` on the space searched.
    ritz: Vec<Complex<f64>>,
}

/// GMRES for `A s = b` from `s = 0`, one cycle of at most `m` products, stopping when the residual
/// estimate is at most `eta |b|_2`; right preconditioned by `precondition` where given (`s = P^-1 V y`,
/// `A P^-1 V_k = V_{k+1} H`). The Hessenberg matrix is kept unrotated for the Ritz values: without a
/// preconditioner its square part's eigenvalues (the Ritz values of `A` on the Krylov space); with one, the
/// Rayleigh-Ritz values of `A` on the space the step lies in, `Z = P^-1 V_k` (`Q^T A Q` with `Z = Q R`,
/// `A Z = V_{k+1} H`), so the stability verdict reads eigenvalues of `J_G` either way.
fn gmres(
    mut apply: impl FnMut(&[f64], &mut [f64]),
    b: &[f64],
    eta: f64,
    m: usize,
    mut precondition: Option<&mut (dyn Preconditioner + '_)>,
) -> KrylovStep {
    let n = b.len();
    let beta = norm(b);
    let mut arnoldi = Arnoldi::new(b, beta);
    let mut w = vec![0.0; n];
    // The preconditioned directions `z_k = P^-1 v_k`.
    let mut z: Vec<Vec<f64>> = Vec::new();
    // The last orthogonalised product, normalised (`v_{k+1}`), for the Rayleigh-Ritz values.
    let mut last = None;
    for k in 0..m {
        match precondition.as_deref_mut() {
            Some(p) => {
                let mut zk = vec![0.0; n];
                p.apply(&arnoldi.basis[k], &mut zk);
                apply(&zk, &mut w);
                z.push(zk);
            }
            None => apply(&arnoldi.basis[k], &mut w),
        }
        if !w.iter().all(|v| v.is_finite()) {
            return KrylovStep { step: vec![f64::NAN; n], residual_norm: f64::INFINITY, ritz: Vec::new() };
        }
        let next = arnoldi.orthogonalise(&mut w);
        if next == 0.0 || arnoldi.residual() <= eta * beta {
            if next != 0.0 {
                last = Some(w.iter().map(|v| v / next).collect::<Vec<f64>>());
            }
            break;
        }
        arnoldi.extend(&w, next);
    }
    let k = arnoldi.columns();
    let mut step = vec![0.0; n];
    let y = arnoldi.coefficients();
    if z.is_empty() {
        arnoldi.add_combination(&y, &mut step);
    } else {
        for (yi, zi) in y.iter().zip(&z) {
            step.iter_mut().zip(zi).for_each(|(a, b)| *a += yi * b);
        }
    }
    let hessenberg = &arnoldi.hessenberg;
    let square = if z.is_empty() {
        DMatrix::from_fn(k, k, |i, j| if i <= j + 1 { hessenberg[j][i] } else { 0.0 })
    } else {
        // `Q^T A Q = (Q^T V_{k+1}) H R^-1` with `Z = Q R`.
        let zm = DMatrix::from_fn(n, k, |i, j| z[j][i]);
        let qr = zm.qr();
        let (q, r) = (qr.q(), qr.r());
        let vectors = arnoldi.basis.len() + usize::from(last.is_some());
        let vk = |l: usize| if l < arnoldi.basis.len() { &arnoldi.basis[l] } else { last.as_ref().expect("v_{k+1}") };
        let h = DMatrix::from_fn(vectors, k, |i, j| if i < hessenberg[j].len() { hessenberg[j][i] } else { 0.0 });
        let qv: DMatrix<f64> =
            DMatrix::from_fn(k, vectors, |i, l| vk(l).iter().enumerate().map(|(t, v)| q[(t, i)] * v).sum::<f64>());
        match r.clone().try_inverse() {
            Some(r_inverse) => qv * h * r_inverse,
            None => DMatrix::zeros(0, 0),
        }
    };
    let ritz = square.complex_eigenvalues().iter().map(|theta| Complex::new(1.0 - theta.re, -theta.im)).collect();
    KrylovStep { step, residual_norm: arnoldi.residual(), ritz }
}

/// The largest modulus of the eigenvalues of a projection step's linearisation at a fixed point whose rest
/// map has the eigenvalues `mu` (`ritz`): the step `u_{n+1} = P(u_n + c (u_n - u_{n-1}) + dt^2 a)` with
/// `c = 1 - damping` has, per eigenvalue `mu` of `J_P`, the two roots of `lambda^2 - (1 + c) mu lambda +
/// c mu = 0`. Above 1 the fixed point repels: an eigenvalue `mu > 1`, or a Jacobi overshoot `mu < -1/3`
/// (undamped).
pub(crate) fn step_radius(ritz: &[Complex<f64>], keep: f64) -> f64 {
    ritz.iter()
        .map(|&mu| {
            let p = mu * (1.0 + keep);
            let disc = (p * p - mu * (4.0 * keep)).sqrt();
            ((p + disc) * 0.5).norm().max(((p - disc) * 0.5).norm())
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controls() -> RootControls<'static> {
        RootControls {
            smoothing: 0,
            round_off: ROUND_OFF,
            tolerance: 1e-13,
            max_evaluations: 2000,
            krylov: 60,
            limit: 1e12,
            scale_floor: 1e-9,
            origin: &[],
        }
    }

    /// Positions of about 1 m, displacements of about 1e-6 m: a map that forms the position `1 + x` (as
    /// the cloth sweeps do) resolves `x` only to the position's last place, 2.2e-16 m.
    const ORIGIN: [f64; 10] = [1.0; 10];

    /// The displacement a map in positions sees: `x` rounded to the last place of the position `o + x`.
    fn seen(o: f64, x: f64) -> f64 {
        (o + x) - o
    }

    /// The rounding a map in positions makes of a displacement `u` it projects: a position formed and taken
    /// apart again, about a tenth of a position's last place for any `u` but 0.
    fn rounding_of(o: f64, u: f64) -> f64 {
        ((7.3 * u + o) - o) / 7.3 - u
    }

    /// A slow contraction (eigenvalues 0.999 down to 0.549) computed in positions whose rounding the
    /// projections amplify a thousandfold (as the cloth models' stiff points amplify theirs 2e2 to 5e4
    /// times): its relative residual cannot fall below about 1e-7, far above the tolerance and
    /// [`ROUND_OFF`]. Told the positions, the solve measures that rounding and ends converged at it, near
    /// the fixed point; told none (a map in displacements), it ends unconverged, as before.
    #[test]
    fn a_slow_solve_in_positions_ends_at_its_measured_rounding() {
        let n = ORIGIN.len();
        let target = 1e-6;
        let map = |x: &[f64], out: &mut [f64]| {
            for i in 0..n {
                let u = seen(ORIGIN[i], x[i]);
                let mu = 0.999 - 0.05 * i as f64;
                out[i] = mu * u + (1.0 - mu) * target + 1e3 * rounding_of(ORIGIN[i], u);
            }
        };
        let positions =
            newton_krylov(vec![0.0; n], map, RootControls { origin: &ORIGIN, ..controls() }, None, |_| true);
        assert!(positions.converged && positions.at_round_off, "residual {:e}", positions.residual);
        assert!(positions.residual > 1e-10, "{:e}", positions.residual);
        assert!(positions.x.iter().all(|x| (x - target).abs() < 1e-8), "{:?}", positions.x);
        println!("in positions: residual {:.1e} after {} evaluations", positions.residual, positions.evaluations);
        let displacements = newton_krylov(vec![0.0; n], map, controls(), None, |_| true);
        assert!(!displacements.converged, "residual {:e}", displacements.residual);
    }

    /// A map in positions with no fixed point (`G(x) = x + 1e-3 (2 + sin(10 x))`, `|G(x) - x|` at least
    /// 1e-3 everywhere) is never taken for one at its rounding, however its line search stalls: the
    /// rounding it measures is some 1e-16 m, the residual 1e-3 m.
    #[test]
    fn a_map_without_a_fixed_point_is_not_converged_at_its_rounding() {
        let n = ORIGIN.len();
        let map = |x: &[f64], out: &mut [f64]| {
            for i in 0..n {
                let u = seen(ORIGIN[i], x[i]);
                out[i] = u + 1e-3 * (2.0 + (10.0 * u).sin());
            }
        };
        let out = newton_krylov(vec![0.0; n], map, RootControls { origin: &ORIGIN, ..controls() }, None, |_| true);
        assert!(!out.converged && !out.at_round_off, "residual {:e}", out.residual);
    }

    /// A slow linear contraction (spectral radius 1 - 4e-5, as Newton's profile) with twenty distinct
    /// eigenvalues: a few Newton steps, whose GMRES needs about one product per eigenvalue, reach the
    /// tolerance where plain iteration needs about 700,000 steps. The Ritz values are the eigenvalues.
    #[test]
    fn solves_an_ill_conditioned_contraction_in_few_evaluations() {
        let n = 20;
        let diag: Vec<f64> = (0..n).map(|i| 1.0 - 4e-5 - 0.045 * i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| 1e-3 * (1.0 + i as f64)).collect();
        let out = newton_krylov(
            vec![0.0; n],
            |x, out| {
                for i in 0..n {
                    out[i] = diag[i] * x[i] + b[i];
                }
            },
            controls(),
            None,
            |_| true,
        );
        assert!(out.converged, "residual {}", out.residual);
        assert!(out.evaluations < 100, "{} evaluations", out.evaluations);
        for i in 0..n {
            let exact = b[i] / (1.0 - diag[i]);
            // The residual 1e-13 times the condition 1 / 4e-5.
            assert!((out.x[i] - exact).abs() < 1e-8 * exact, "{i}: {} vs {exact}", out.x[i]);
        }
        let largest = out.ritz.iter().map(|m| m.re).fold(f64::MIN, f64::max);
        assert!((largest - diag[0]).abs() < 1e-6, "largest Ritz value {largest}");
        assert!(step_radius(&out.ritz, 1.0) < 1.0);
    }

    /// `P^-1 = (I - J)^-1` of the linear part with its slowest half misjudged by 30 %: a fixed
    /// preconditioner of the kind the cloth models' static tangent is.
    struct Misjudged(Vec<f64>);

    impl Preconditioner for Misjudged {
        fn prepare(&mut self, _x: &[f64]) -> bool {
            true
        }
        fn apply(&mut self, v: &[f64], out: &mut [f64]) {
            for (i, ((o, vi), d)) in out.iter_mut().zip(v).zip(&self.0).enumerate() {
                *o = vi / (1.0 - d) * if i < self.0.len() / 2 { 1.3 } else { 1.0 };
            }
        }
    }

    /// The contraction above (eigenvalues 1 - 4e-5 down to 0.145) with a preconditioner near
    /// `(I - J_G)^-1`: the same fixed point, in a fraction of the products (each GMRES needs about one per
    /// distinct eigenvalue of `(I - J_G) P^-1`, here two: 1 and 1.3), and the Ritz values, now the
    /// Rayleigh-Ritz values on the preconditioned space, still give a stable step.
    #[test]
    fn a_preconditioned_solve_reaches_the_same_fixed_point_in_fewer_products() {
        let n = 20;
        let diag: Vec<f64> = (0..n).map(|i| 1.0 - 4e-5 - 0.045 * i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| 1e-3 * (1.0 + i as f64)).collect();
        let map = |x: &[f64], out: &mut [f64]| {
            for i in 0..n {
                out[i] = diag[i] * x[i] + b[i];
            }
        };
        let plain = newton_krylov(vec![0.0; n], map, controls(), None, |_| true);
        let mut p = Misjudged(diag.clone());
        let pre = newton_krylov(vec![0.0; n], map, controls(), Some(&mut p), |_| true);
        assert!(plain.converged && pre.converged, "{} {}", plain.residual, pre.residual);
        println!("products: {} plain, {} preconditioned", plain.products, pre.products);
        assert!(pre.products <= 6 && plain.products >= 15, "{} {}", pre.products, plain.products);
        for i in 0..n {
            let exact = b[i] / (1.0 - diag[i]);
            assert!((pre.x[i] - exact).abs() < 1e-8 * exact, "{i}: {} vs {exact}", pre.x[i]);
        }
        assert!(!pre.ritz.is_empty() && step_radius(&pre.ritz, 1.0) < 1.0, "{:?}", pre.ritz);
    }

    /// A nonlinear map with an attracting fixed point: Newton converges quadratically from the start.
    #[test]
    fn solves_a_nonlinear_contraction() {
        let n = 12;
        let map = move |x: &[f64], out: &mut [f64]| {
            for i in 0..n {
                let next = x[(i + 1) % n];
                out[i] =
                    0.97 * x[i] - 0.2 * next.sin() + 0.01 * (i as f64 + 1.0) + 0.05 * x[i] * next / (1.0 + x[i] * x[i]);
            }
        };
        let out = newton_krylov(vec![0.0; n], map, controls(), None, |_| true);
        assert!(out.converged && out.residual <= 1e-13, "{}", out.residual);
        let mut image = vec![0.0; n];
        map(&out.x, &mut image);
        assert!(out.x.iter().zip(&image).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    /// `x = 2 x - 1` has its fixed point at 1, which repels (eigenvalue 2): the root solve finds it, and
    /// its Ritz value gives the step a radius above 1, so the caller does not accept it as a rest state.
    /// An eigenvalue -0.5 of a Jacobi pass repels the undamped step too (`mu < -1/3`); -0.2 does not.
    #[test]
    fn a_repelling_fixed_point_is_recognised() {
        let out = newton_krylov(
            vec![0.0; 3],
            |x, out| x.iter().zip(out).for_each(|(a, o)| *o = 2.0 * a - 1.0),
            controls(),
            None,
            |_| true,
        );
        assert!(out.converged);
        assert!((out.x[0] - 1.0).abs() < 1e-12);
        assert!(step_radius(&out.ritz, 1.0) > 1.5, "{:?}", out.ritz);
        assert!(step_radius(&[Complex::new(-0.5, 0.0)], 1.0) > 1.0);
        assert!(step_radius(&[Complex::new(-0.2, 0.0)], 1.0) < 1.0);
        // A slow real mode is stable; a complex one next to it can make the step (with its velocity) grow
        // although the rest map contracts (|mu| = 0.99905).
        assert!(step_radius(&[Complex::new(0.999, 0.0)], 1.0) < 1.0);
        assert!(step_radius(&[Complex::new(0.999, 0.01)], 1.0) > 1.0);
    }

    /// A map whose evaluation carries noise of 1e-12 (relative) around a slow contraction: Newton reaches
    /// the noise, cannot go below the tolerance of 1e-13, and ends converged at the map's rounding with
    /// its residual, near the fixed point; a noise of 1e-8 (above [`ROUND_OFF`]) is never accepted.
    #[test]
    fn a_solve_at_the_maps_rounding_ends_there() {
        let n = 10;
        for (noise, accepted) in [(1e-12, true), (1e-8, false)] {
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let out = newton_krylov(
                vec![0.0; n],
                |x, out| {
                    for i in 0..n {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        let wobble = noise * ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
                        // Every fixed-point component is 1.
                        let mu = 0.999 - 0.05 * i as f64;
                        out[i] = mu * x[i] + (1.0 - mu) + wobble;
                    }
                },
                controls(),
                None,
                |_| true,
            );
            assert_eq!(
                out.converged, accepted,
                "noise {noise}: residual {:e} after {} evaluations, {} steps",
                out.residual, out.evaluations, out.newton_steps
            );
            assert_eq!(out.at_round_off, accepted, "noise {noise}: residual {:e}", out.residual);
            if accepted {
                assert!(out.residual > 1e-13 && out.residual <= ROUND_OFF, "{:e}", out.residual);
                assert!((out.x[0] - 1.0).abs() < 1e-7, "{}", out.x[0]);
            }
        }
    }

    /// Far from the root a full Newton step overshoots (`F(x) = -atan(x - 3)` from -20: the full step
    /// lands near 6,000, where the residual is larger); the line search takes only steps that lower the
    /// residual, and the solve converges.
    #[test]
    fn the_line_search_carries_a_solve_from_far() {
        let out = newton_krylov(vec![-20.0], |x, out| out[0] = x[0] - (x[0] - 3.0).atan(), controls(), None, |_| true);
        assert!(out.converged, "{}", out.residual);
        assert!((out.x[0] - 3.0).abs() < 1e-12);
        assert!(out.newton_steps > 1);
    }
}
