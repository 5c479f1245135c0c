//! Material identification from measured markers (docs/measured.md): the E and
//! nu of an FEM law whose rest state best matches the markers, with confidence intervals from the
//! Gauss-Newton covariance.
//!
//! The unknowns are `(ln E, nu)`. The residuals are the markers' scaled displacement differences (see
//! [`MarkerTarget`]: relative to each observed displacement, or divided by its sigma), and
//! Levenberg-Marquardt minimises their sum of squares with a Jacobian by central differences (two FEM
//! solves per unknown and step; the law's rest state is a black box here, whatever the law). The step,
//! its damping (Marquardt's `(1 + lambda)` on the diagonal, factors of 10) and the clamp of nu into
//! `[NU_MIN, NU_MAX]` are the crate's one projected Levenberg-Marquardt
//! ([`crate::levenberg_marquardt`] with [`LmSettings::identify`]; its table says how it differs from the
//! gradient fit's); this module forms `J^T J` and `J^T r`, allows 20 trials per Jacobian and 100
//! Jacobians, and ends when a Jacobian's 20 trials bring no decrease. The start is
//! the best of a few `nu` values, each with the closed-form `E` of the linear law (whose displacement
//! scales as `1/E` at fixed `nu`: `1/E = sum a.b / sum a.a` over the scaled residual terms at `E = 1`,
//! docs/method.md), so a linear law starts at the answer's `E` for the best start `nu`. The unit-E field is
//! always the linear law's (with the reference's solve), because a nonlinear law at `E = 1` Pa is far
//! beyond what its Newton solve can carry (the cantilever's neo-Hookean rest state failed at 0.1 % of its
//! load); the start's error is then the law's own. A trial or a start whose FEM solve fails (a nonlinear
//! law past its limit) is a rejected trial, as a worse one is, not the end of the identification.
//!
//! Intervals: with sigmas, the covariance is `(J^T J)^-1` of the residuals divided by sigma; without,
//! `s^2 (J^T J)^-1` with `s^2 = RSS / (3M - 2)` (the noise estimated from the residual). The 95 %
//! interval is `+-1.96` standard deviations in `ln E` (so multiplicative in E) and in nu. With nu on a
//! bound of the searched range the Jacobian is one-sided there and nu's interval runs from the fit's
//! side to the bound. A parameter the markers do not determine (a singular `J^T J`, E beyond a factor
//! [`YOUNG_FACTOR`] either way, nu's interval covering all of (-1, 0.5)) has no interval and is named
//! in [`Identification::undetermined`].

use pbdfit_fem::{ReferenceSpec, YoungPoisson};
use pbdfit_mesh::{Markers, Scene, Vec3};

use crate::levenberg_marquardt::{LevenbergMarquardt, LmSettings, Proposal, Verdict};
use crate::{FemReference, FitError, MarkerTarget, MarkerWeighting, Reference};

/// One of the two material parameters identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialParameter {
    /// Young's modulus E.
    Young,
    /// Poisson's ratio nu.
    Poisson,
}

/// As its [`name`](MaterialParameter::name), the reports' spelling.
impl serde::Serialize for MaterialParameter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl MaterialParameter {
    /// `E` or `nu`.
    pub fn symbol(self) -> &'static str {
        match self {
            MaterialParameter::Young => "E",
            MaterialParameter::Poisson => "nu",
        }
    }

    /// `young` or `poisson` (JSON and Python keys).
    pub fn name(self) -> &'static str {
        match self {
            MaterialParameter::Young => "young",
            MaterialParameter::Poisson => "poisson",
        }
    }
}

/// The identified material.
#[derive(Debug, Clone, PartialEq)]
pub struct Identification {
    /// Young's modulus (Pa).
    pub young: f64,
    /// Poisson's ratio.
    pub poisson: f64,
    /// The markers' error at the optimum (mean over the markers, as a fit's).
    pub error: f64,
    /// Covariance of `(ln E, nu)`; `None` where the Gauss-Newton matrix is singular (the markers do not
    /// separate E from nu).
    pub covariance: Option<[[f64; 2]; 2]>,
    /// 95 % intervals of E (Pa) and nu; `None` for a parameter the markers do not determine
    /// ([`undetermined`](Self::undetermined)). nu's is cut to the searched range; with nu on a bound
    /// ([`poisson_bound`](Self::poisson_bound)) it is one-sided, from the fit's side to the bound.
    pub intervals: [Option<(f64, f64)>; 2],
    /// The bound of the searched nu range ([`NU_MIN`], [`NU_MAX`]) the identified nu lies on, if any:
    /// the markers may want nu beyond it (0.4995 is past the searched 0.499; the FEM refuses 0.5).
    pub poisson_bound: Option<f64>,
    /// The parameters the markers do not determine: the Gauss-Newton matrix is singular, E's 95 %
    /// interval reaches beyond a factor [`YOUNG_FACTOR`] either way, or nu's covers the whole
    /// admissible range (-1, 0.5). Their intervals are `None`.
    pub undetermined: Vec<MaterialParameter>,
    /// FEM solves spent.
    pub evaluations: usize,
    /// Markers in the error, and how they are weighted.
    pub markers: usize,
    /// How the residuals are weighted.
    pub weighting: MarkerWeighting,
    /// The law and solve, as a reference id (`linear static`).
    pub reference: String,
}

/// The largest nu searched (the FEM refuses 0.5).
pub const NU_MAX: f64 = 0.499;
/// The smallest.
pub const NU_MIN: f64 = -0.99;
/// E counts as determined when its 95 % interval lies within this factor of the identified E either
/// way (three decades each side: markers whose noise is as large as their signal gave "0 to inf").
pub const YOUNG_FACTOR: f64 = 1e3;
/// A Gauss-Newton matrix counts as singular when its determinant is below this fraction of its
/// diagonal's product (the Jacobian's columns parallel to within about 1e-6 rad).
const SINGULAR: f64 = 1e-12;

struct Problem<'a> {
    reference: FemReference,
    target: &'a MarkerTarget,
    evaluations: usize,
}

impl Problem<'_> {
    /// The scaled residuals (3 per marker) at `(ln E, nu)`.
    fn residuals(&mut self, x: [f64; 2]) -> Result<Vec<f64>, FitError> {
        let material = YoungPoisson::new(x[0].exp(), x[1])?;
        let u = self.reference.displacements(material)?;
        self.evaluations += 1;
        Ok(self.terms(&u))
    }

    /// `(u_m - u_obs) * scale` per component for a vertex field `u`.
    fn terms(&self, u: &[Vec3]) -> Vec<f64> {
        let t = self.target;
        (0..t.observed.len())
            .flat_map(|m| {
                let r = (t.at(m, u) - t.observed[m]) * t.scale[m];
                [r.x, r.y, r.z]
            })
            .collect()
    }
}

fn sum_of_squares(r: &[f64]) -> f64 {
    r.iter().map(|x| x * x).sum()
}

/// Identifies E and nu of the law `spec` on `scene` at resolution `n` (and `dt` for a dynamic solve)
/// from `markers` (located within `tolerance` m of the surface).
pub fn identify(
    scene: &Scene,
    n: usize,
    spec: ReferenceSpec,
    dt: f64,
    markers: &Markers,
    tolerance: f64,
) -> Result<Identification, FitError> {
    if !(dt.is_finite() && dt > 0.0) {
        // Refused whether or not the reference is dynamic (`identify --dt -1` ran).
        return Err(FitError::Model(pbdfit_pbd::PbdError::InvalidParameter {
            name: "dt",
            value: dt,
            allowed: "the time step must be a finite number > 0 s".into(),
        }));
    }
    let body = scene.body_split(n, spec.split)?;
    let target = MarkerTarget::new(markers, &body.mesh, tolerance)?;
    let mut p = Problem { reference: FemReference::new(scene, n, spec, dt)?, target: &target, evaluations: 0 };
    let linear =
        FemReference::new(scene, n, ReferenceSpec { material: ReferenceSpec::default().material, ..spec }, dt)?;
    // Starts: for each nu, E from the linear law's scaling at E = 1 (exact for the linear law).
    let mut best: Option<([f64; 2], f64)> = None;
    // The first failure of a start's solve, reported if no start has a rest state.
    let mut failed: Option<FitError> = None;
    for nu in [0.0, 0.2, 0.35, 0.45, 0.49] {
        let material = YoungPoisson::new(1.0, nu)?;
        let u1 = linear.displacements(material)?;
        p.evaluations += 1;
        // r(s) = s a - b per term with s = 1/E: a = the unit-E field at the markers (scaled), b = the
        // observed displacements (scaled), i.e. minus the terms of a zero field.
        let b: Vec<f64> = p.terms(&vec![Vec3::zeros(); u1.len()]).iter().map(|x| -x).collect();
        let a: Vec<f64> = p.terms(&u1).iter().zip(&b).map(|(x, b)| x + b).collect();
        let aa: f64 = a.iter().map(|x| x * x).sum();
        if aa.is_nan() || aa <= 0.0 {
            continue;
        }
        let s: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() / aa;
        if s.is_nan() || s <= 0.0 {
            continue;
        }
        let x = [(1.0 / s).ln(), nu];
        let cost = match p.residuals(x) {
            Ok(r) => sum_of_squares(&r),
            Err(e) => {
                failed.get_or_insert(e);
                continue;
            }
        };
        if best.is_none_or(|(_, c)| cost < c) {
            best = Some((x, cost));
        }
    }
    let Some((mut x, mut cost)) = best else {
        return Err(failed.unwrap_or(FitError::AgainstTheLoad));
    };
    // Levenberg-Marquardt on (ln E, nu), nu within the searched range.
    let mut lm =
        LevenbergMarquardt::new(LmSettings::identify(), vec![(f64::NEG_INFINITY, f64::INFINITY), (NU_MIN, NU_MAX)]);
    // Central differences of step 1e-6; in nu, cut at the search's bounds, so that at a bound the
    // difference is one-sided into the box (the step never shrinks to 0: at nu = NU_MAX it did, and the
    // covariance became NaN and the intervals zero-width).
    let jacobian = |p: &mut Problem, x: [f64; 2]| -> Result<Vec<[f64; 2]>, FitError> {
        let mut columns = [Vec::new(), Vec::new()];
        for k in 0..2 {
            let (mut plus, mut minus) = (x, x);
            plus[k] += 1e-6;
            minus[k] -= 1e-6;
            if k == 1 {
                (plus[1], minus[1]) = (plus[1].min(NU_MAX), minus[1].max(NU_MIN));
            }
            let h = plus[k] - minus[k];
            let (rp, rm) = (p.residuals(plus)?, p.residuals(minus)?);
            columns[k] = rp.iter().zip(&rm).map(|(a, b)| (a - b) / h).collect();
        }
        Ok((0..columns[0].len()).map(|i| [columns[0][i], columns[1][i]]).collect())
    };
    let mut r = p.residuals(x)?;
    for _ in 0..100 {
        let j = jacobian(&mut p, x)?;
        let (mut jtj, mut jtr) = ([[0.0; 2]; 2], [0.0; 2]);
        for (row, ri) in j.iter().zip(&r) {
            for a in 0..2 {
                jtr[a] += row[a] * ri;
                for b in 0..2 {
                    jtj[a][b] += row[a] * row[b];
                }
            }
        }
        let h = [jtj[0][0], jtj[0][1], jtj[1][0], jtj[1][1]];
        let mut improved = false;
        for _ in 0..20 {
            let trial = match lm.propose(&x, &jtr, &h) {
                Proposal::Trial(trial) => trial,
                Proposal::Singular => continue,
                Proposal::Stop => break,
            };
            let point = [trial.point[0], trial.point[1]];
            // A trial without a rest state is rejected as a worse one is.
            let Ok(rt) = p.residuals(point) else {
                lm.judge(&x, &trial, cost, f64::INFINITY, true);
                continue;
            };
            let ct = sum_of_squares(&rt);
            if let Verdict::Accepted { converged } = lm.judge(&x, &trial, cost, ct, false) {
                (x, r, cost) = (point, rt, ct);
                improved = true;
                if converged {
                    let j = jacobian(&mut p, x)?;
                    return finish(&mut p, x, &r, j, &target, spec);
                }
                break;
            }
        }
        if !improved {
            break;
        }
    }
    let j = jacobian(&mut p, x)?;
    finish(&mut p, x, &r, j, &target, spec)
}

fn finish(
    p: &mut Problem,
    x: [f64; 2],
    r: &[f64],
    j: Vec<[f64; 2]>,
    target: &MarkerTarget,
    spec: ReferenceSpec,
) -> Result<Identification, FitError> {
    let mut jtj = [[0.0; 2]; 2];
    for row in &j {
        for a in 0..2 {
            for b in 0..2 {
                jtj[a][b] += row[a] * row[b];
            }
        }
    }
    let rss = sum_of_squares(r);
    let variance = match target.weighting {
        MarkerWeighting::ChiSquare => 1.0,
        MarkerWeighting::Relative => rss / (r.len() as f64 - 2.0).max(1.0),
    };
    let det = jtj[0][0] * jtj[1][1] - jtj[0][1] * jtj[1][0];
    // A Gauss-Newton matrix whose determinant is lost in rounding next to its diagonal's product (the
    // two columns of the Jacobian parallel: E and nu move the markers alike) has no inverse that means
    // anything: the markers do not separate E from nu.
    let scale = jtj[0][0] * jtj[1][1];
    let covariance = (det.is_finite() && scale.is_finite() && det > SINGULAR * scale).then(|| {
        let inverse = [[jtj[1][1] / det, -jtj[0][1] / det], [-jtj[1][0] / det, jtj[0][0] / det]];
        inverse.map(|row| row.map(|c| c * variance))
    });
    let bound = [NU_MIN, NU_MAX].into_iter().find(|b| (x[1] - b).abs() <= 1e-9);
    let mut undetermined = Vec::new();
    let mut intervals = [None, None];
    match covariance {
        None => undetermined.extend([MaterialParameter::Young, MaterialParameter::Poisson]),
        Some(c) => {
            let (sd_e, sd_nu) = (c[0][0].max(0.0).sqrt(), c[1][1].max(0.0).sqrt());
            let young = ((x[0] - 1.96 * sd_e).exp(), (x[0] + 1.96 * sd_e).exp());
            // E is determined when its 95 % interval lies within a factor YOUNG_FACTOR either way.
            if 1.96 * sd_e <= YOUNG_FACTOR.ln() && young.0 > 0.0 && young.1.is_finite() {
                intervals[0] = Some(young);
            } else {
                undetermined.push(MaterialParameter::Young);
            }
            let (lo, hi) = (x[1] - 1.96 * sd_nu, x[1] + 1.96 * sd_nu);
            // nu is determined when its interval leaves out part of the admissible range (-1, 0.5); it is
            // then cut to the searched range, and at a bound it runs from the fit to that bound alone
            // (one-sided: the markers may want nu beyond it).
            if lo > -1.0 || hi < 0.5 {
                intervals[1] = Some(match bound {
                    Some(b) if b == NU_MAX => (lo.max(NU_MIN), NU_MAX),
                    Some(_) => (NU_MIN, hi.min(NU_MAX)),
                    None => (lo.max(NU_MIN), hi.min(NU_MAX)),
                });
            } else {
                undetermined.push(MaterialParameter::Poisson);
            }
        }
    }
    Ok(Identification {
        young: x[0].exp(),
        poisson: x[1],
        error: rss / target.terms(),
        covariance,
        intervals,
        poisson_bound: bound,
        undetermined,
        evaluations: p.evaluations,
        markers: target.observed.len(),
        weighting: target.weighting,
        reference: spec.id(),
    })
}
