//! Measured references (docs/measured.md): markers in the undeformed body with
//! observed displacements, located in a part's mesh, and the error of a model's rest state at them.
//!
//! The model's displacement at a marker is the barycentric interpolation of its tetrahedron's vertex
//! displacements. Without standard deviations the error is the mean squared relative error over the
//! markers that moved (`|u_obs| > 1e-12 max |u_obs|`, as for a simulated reference's vertices):
//! `(1/M) sum (|u_m - u_obs| / |u_obs|)^2`. With them it is the chi-square per degree of freedom of the
//! data, `(1/(3M)) sum_m sum_k ((u_m - u_obs)_k / sigma_m)^2` over every marker and component: about 1 where
//! the model matches the markers to their noise, more where the model itself misses them.

use pbdfit_mesh::{Markers, TetMesh, Vec3};

use crate::FitError;

/// Markers within this distance (m) of the body's surface count as on it.
pub const MARKER_TOLERANCE: f64 = 1e-9;

/// How the markers' residuals are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerWeighting {
    /// Relative to each marker's observed displacement (no sigmas given).
    Relative,
    /// By each marker's standard deviation (`(|r| / sigma)^2`).
    ChiSquare,
}

impl MarkerWeighting {
    /// The name in results, JSON and Python: `relative` or `chi-square`.
    pub fn name(self) -> &'static str {
        match self {
            MarkerWeighting::Relative => "relative",
            MarkerWeighting::ChiSquare => "chi-square",
        }
    }
}

/// The largest observed displacement component a marker may have, relative to the body's size: a body
/// displaced a thousand times its size has no rest state worth fitting (and 1e297 m gave a relative
/// error of 1 for every model).
const MARKERS_MAX: f64 = 1e3;
/// The smallest (a non-zero largest component below it underflows the squared norms).
const MARKERS_MIN: f64 = 1e-100;

/// The smallest and largest sigma, relative to the largest observed displacement, that a chi-square error
/// takes: `(r / sigma)^2` for residuals `r` from 1e-10 to 10 times the displacements stays inside f64
/// (1e-308 to 1e308) with a margin.
const SIGMA_RATIO_MIN: f64 = 1e-100;
/// See [`SIGMA_RATIO_MIN`].
const SIGMA_RATIO_MAX: f64 = 1e100;

/// The markers of one part, located in its mesh: what its error is computed against.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerTarget {
    /// The file they came from.
    pub source: String,
    /// The four vertices whose displacements make each marker's.
    pub vertices: Vec<[usize; 4]>,
    /// Their barycentric weights.
    pub weights: Vec<[f64; 4]>,
    /// The observed displacements (m).
    pub observed: Vec<Vec3>,
    /// Each residual's factor: `1 / |u_obs|` or `1 / sigma` (1/m).
    pub scale: Vec<f64>,
    /// Which of the two.
    pub weighting: MarkerWeighting,
    /// Markers in the file (those left out for not moving included).
    pub read: usize,
    /// The markers as read (the bootstrap resamples their noise).
    pub markers: Markers,
}

impl MarkerTarget {
    /// Locates `markers` in `mesh` (surface tolerance `tolerance`, m) and keeps those that enter the
    /// error. Refuses markers outside the body, and a file of which no marker moved (nothing to fit).
    pub fn new(markers: &Markers, mesh: &TetMesh, tolerance: f64) -> Result<Self, FitError> {
        let located = markers.locate(mesh, tolerance)?;
        // The size check before any norm: a squared norm of 4e-303 m underflows to 0 and one of 4e297 m
        // overflows, and both read as "no marker moves".
        let peak = markers.markers.iter().flat_map(|m| m.displacement.iter().map(|c| c.abs())).fold(0.0, f64::max);
        let size = {
            let (lo, hi) = mesh
                .vertices()
                .iter()
                .fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(lo, hi), x| {
                    (lo.inf(x), hi.sup(x))
                });
            (hi - lo).norm()
        };
        let out_of_range =
            |what| FitError::MarkersOutOfRange { source_file: markers.source.clone(), largest: peak, size, what };
        if peak > MARKERS_MAX * size {
            return Err(out_of_range("more than 1000 times the body's size, which no rest state of it reaches"));
        }
        if peak > 0.0 && peak < MARKERS_MIN * size {
            return Err(out_of_range("so small that their squared norms underflow f64"));
        }
        let sigmas = markers.markers.iter().all(|m| m.sigma.is_some());
        let largest = markers.markers.iter().map(|m| m.displacement.norm()).fold(0.0, f64::max);
        if sigmas && largest > 0.0 {
            for (i, m) in markers.markers.iter().enumerate() {
                let sigma = m.sigma.unwrap_or(largest);
                let ratio = sigma / largest;
                if !(SIGMA_RATIO_MIN..=SIGMA_RATIO_MAX).contains(&ratio) {
                    return Err(FitError::SigmaOutOfRange {
                        source_file: markers.source.clone(),
                        row: i + 1,
                        sigma,
                        largest,
                        ratio,
                    });
                }
            }
        }
        let mut target = MarkerTarget {
            source: markers.source.clone(),
            vertices: Vec::new(),
            weights: Vec::new(),
            observed: Vec::new(),
            scale: Vec::new(),
            weighting: if sigmas { MarkerWeighting::ChiSquare } else { MarkerWeighting::Relative },
            read: markers.markers.len(),
            markers: markers.clone(),
        };
        for (m, l) in markers.markers.iter().zip(located) {
            let norm = m.displacement.norm();
            let scale = match m.sigma {
                Some(sigma) if sigmas => 1.0 / sigma,
                _ if norm > 1e-12 * largest && norm > 0.0 => 1.0 / norm,
                _ => continue,
            };
            target.vertices.push(mesh.tets()[l.tet]);
            target.weights.push(l.weights);
            target.observed.push(m.displacement);
            target.scale.push(scale);
        }
        if target.observed.is_empty() {
            return Err(FitError::StillMarkers { source_file: markers.source.clone(), markers: target.read });
        }
        Ok(target)
    }

    /// The model's displacement at marker `m` from vertex displacements `u`.
    #[inline]
    pub fn at(&self, m: usize, u: &[Vec3]) -> Vec3 {
        let (v, w) = (self.vertices[m], self.weights[m]);
        u[v[0]] * w[0] + u[v[1]] * w[1] + u[v[2]] * w[2] + u[v[3]] * w[3]
    }

    /// The error of vertex displacements `u` (see the module documentation).
    pub fn error(&self, u: &[Vec3]) -> f64 {
        let sum: f64 =
            (0..self.observed.len()).map(|m| ((self.at(m, u) - self.observed[m]).norm() * self.scale[m]).powi(2)).sum();
        sum / self.terms()
    }

    /// What the error's sum is divided by: the markers `M` (relative), or their `3M` displacement
    /// components (chi-square per degree of freedom).
    pub fn terms(&self) -> f64 {
        let m = self.observed.len() as f64;
        match self.weighting {
            MarkerWeighting::Relative => m,
            MarkerWeighting::ChiSquare => 3.0 * m,
        }
    }

    /// What the reference is, for results: `measured <file> (<n> markers, relative|chi-square)`.
    pub fn describe(&self) -> String {
        format!("measured {} ({} markers, {})", self.source, self.observed.len(), self.weighting.name())
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::Marker;

    use super::*;

    fn markers(rows: &[(Vec3, Vec3, Option<f64>)]) -> Markers {
        Markers {
            source: "m.csv".into(),
            markers: rows.iter().map(|&(rest, displacement, sigma)| Marker { rest, displacement, sigma }).collect(),
        }
    }

    #[test]
    fn relative_and_chi_square_errors() {
        let mesh = pbdfit_mesh::unit_cube(1).unwrap();
        // A uniform field: every interpolation is the field itself.
        let u = vec![Vec3::new(0.0, -2e-3, 0.0); mesh.vertices().len()];
        let rows = [
            (Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, -1e-3, 0.0), None),
            (Vec3::new(0.2, 0.9, 0.1), Vec3::new(0.0, -2e-3, 0.0), None),
            (Vec3::new(0.9, 0.9, 0.9), Vec3::zeros(), None),
        ];
        let t = MarkerTarget::new(&markers(&rows), &mesh, 1e-9).unwrap();
        // The still marker is left out; the first is off by its own size (1), the second exact.
        assert_eq!((t.observed.len(), t.read), (2, 3));
        assert_eq!(t.error(&u), 0.5);
        assert!(t.describe().contains("2 markers, relative"));
        let sigma = [
            (Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, -1e-3, 0.0), Some(1e-4)),
            (Vec3::new(0.9, 0.9, 0.9), Vec3::zeros(), Some(1e-3)),
        ];
        let t = MarkerTarget::new(&markers(&sigma), &mesh, 1e-9).unwrap();
        // (1e-3 / 1e-4)^2 and (2e-3 / 1e-3)^2 over the 6 components of 2 markers: (100 + 4) / 6.
        assert!((t.error(&u) - 104.0 / 6.0).abs() < 1e-12, "{}", t.error(&u));
        assert_eq!(t.weighting, MarkerWeighting::ChiSquare);
        let still = [(Vec3::new(0.5, 0.5, 0.5), Vec3::zeros(), None)];
        let e = MarkerTarget::new(&markers(&still), &mesh, 1e-9).unwrap_err().to_string();
        assert!(e.contains("m.csv") && e.contains("nothing to fit"), "{e}");
    }

    /// A sibling of the sigma range check: observed displacements of 4e-303 m and 4e297 m squared to 0 and infinity
    /// and were reported as "all observed displacements are 0"; refused naming their size and the body's.
    #[test]
    fn displacements_whose_squares_leave_f64_are_refused() {
        let mesh = pbdfit_mesh::unit_cube(1).unwrap();
        for (u, what) in [(4e-303, "underflow"), (4e297, "1000 times the body's size"), (2e3, "1000 times")] {
            let rows = [(Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, -u, 0.0), None)];
            let e = MarkerTarget::new(&markers(&rows), &mesh, 1e-9).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, FitError::MarkersOutOfRange { .. }) && text.contains(what), "{text}");
            assert!(text.contains("m.csv") && text.contains("in m"), "{text}");
        }
        let rows = [(Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, -1.0, 0.0), None)];
        assert!(MarkerTarget::new(&markers(&rows), &mesh, 1e-9).is_ok());
    }

    /// A sigma of 1e300 m made every error 0 (the fit "converged" at
    /// an arbitrary grid point), one of 1e-300 m every error infinite (an internal error). A sigma whose
    /// ratio to the largest observed displacement leaves [1e-100, 1e100] is refused naming the file, the
    /// row and the ratio; sigmas inside it give finite, non-zero errors.
    #[test]
    fn sigmas_that_leave_f64_are_refused() {
        let mesh = pbdfit_mesh::unit_cube(1).unwrap();
        let u = vec![Vec3::new(0.0, -2e-3, 0.0); mesh.vertices().len()];
        let at = |sigma: f64| {
            [
                (Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, -1e-3, 0.0), Some(1e-4)),
                (Vec3::new(0.2, 0.9, 0.1), Vec3::new(0.0, -1e-3, 0.0), Some(sigma)),
            ]
        };
        for sigma in [1e300, 1e-300, 1e-104, 1e98] {
            let e = MarkerTarget::new(&markers(&at(sigma)), &mesh, 1e-9).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, FitError::SigmaOutOfRange { row: 2, .. }) && e.is_input(), "{text}");
            assert!(text.contains("m.csv: row 2") && text.contains(&format!("sigma = {sigma:e} m")), "{text}");
        }
        for sigma in [1e-102, 1e96] {
            let error = MarkerTarget::new(&markers(&at(sigma)), &mesh, 1e-9).unwrap().error(&u);
            assert!(error.is_finite() && error > 0.0, "sigma {sigma}: {error}");
        }
    }
}

/// Refits of resampled noise (`fit --bootstrap K`): a check of a marker fit's Gauss-Newton intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    /// Replicates asked for (`K`).
    pub asked: usize,
    /// Replicates fitted (those that fit; a replicate without a fit is counted in `failed`).
    pub replicates: usize,
    /// Replicates whose fit failed.
    pub failed: usize,
    /// Per parameter, the 2.5 % and 97.5 % quantiles of the refitted values; `None` when fewer than
    /// [`MIN_BOOTSTRAP`] replicates were fitted (one value has no spread: it is no interval).
    pub intervals: Option<Vec<(f64, f64)>>,
    /// The noise added per component (m): the markers' sigma, or the residual's `sqrt(RSS / (3M - d))`.
    pub noise: f64,
    /// Why the resampling stopped before `asked` replicates (the time limit), if it did.
    pub stopped: Option<String>,
}

impl Bootstrap {
    /// Whether the intervals come from fewer than [`BOOTSTRAP_QUANTILES`] refits: the 2.5 % and 97.5 %
    /// quantiles are then interpolated between the smallest and the largest refits, a rough interval.
    pub fn rough(&self) -> bool {
        self.intervals.is_some() && self.replicates < BOOTSTRAP_QUANTILES
    }
}

/// The fewest replicates a bootstrap takes: the 2.5 % and 97.5 % quantiles of one value are that value,
/// a "95 %" interval of zero width (`--bootstrap 1` printed one that excluded the fitted value).
pub const MIN_BOOTSTRAP: usize = 2;
/// The most replicates a bootstrap takes: each is a whole fit (seconds to minutes), and the quantiles of a
/// 95 % interval settle within a few hundred; `--bootstrap 1000000000` ran on without end.
pub const MAX_BOOTSTRAP: usize = 10_000;
/// Replicates from which the 2.5 % and 97.5 % quantiles lie between refits rather than at the extremes
/// (1 / 0.025).
pub const BOOTSTRAP_QUANTILES: usize = 40;

/// Refuses a number of bootstrap replicates outside [`MIN_BOOTSTRAP`]..=[`MAX_BOOTSTRAP`]: what the
/// front ends call before the fit, so that a bad `K` is refused before any work.
pub fn check_bootstrap(k: usize) -> Result<(), FitError> {
    if (MIN_BOOTSTRAP..=MAX_BOOTSTRAP).contains(&k) {
        Ok(())
    } else {
        Err(FitError::BootstrapReplicates { k, min: MIN_BOOTSTRAP, max: MAX_BOOTSTRAP })
    }
}

/// A seeded normal generator (SplitMix64 and Box-Muller): deterministic replicates from `seed`, with no
/// dependency for ten lines.
struct Normal(u64);

impl Normal {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn sample(&mut self) -> f64 {
        let (a, b) = (self.uniform(), self.uniform());
        (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }
}

/// A parametric bootstrap of a fit to `markers`: `k` replicates whose observed displacements are the
/// fitted model's at each marker plus Gaussian noise (each marker's sigma, or without sigmas the
/// residual's standard deviation per component), each refitted with `options` (replicate `i` seeded
/// from `seed` and `i`, so the result does not depend on thread counts). `fitted`: the fit's rest
/// displacements per vertex. `k` must pass [`check_bootstrap`]. `options.max_seconds` bounds the whole
/// resampling: no replicate starts after it, each refit gets what is left, and a refit that the limit
/// stops is not counted (its point is the search's best so far, not a refit); [`Bootstrap::stopped`]
/// then says so.
#[allow(clippy::too_many_arguments)]
pub fn bootstrap(
    scenes: &pbdfit_mesh::SceneSet,
    settings: crate::Settings,
    markers: &Markers,
    tolerance: f64,
    cache: &crate::PartCache,
    options: &crate::FitOptions,
    fitted: &[Vec3],
    k: usize,
    seed: u64,
) -> Result<Bootstrap, FitError> {
    check_bootstrap(k)?;
    let start = std::time::Instant::now();
    let deadline = options.max_seconds.map(|s| crate::deadline_after(start, s));
    let [scene] = scenes.scenes() else {
        return Err(FitError::MeasuredCompound { scene: scenes.name().into(), parts: scenes.scenes().len() });
    };
    let mesh = scene.body(settings.n)?.mesh;
    let located = markers.locate(&mesh, tolerance)?;
    let model: Vec<Vec3> = located.iter().map(|l| l.interpolate(&mesh, fitted)).collect();
    let d = options.search_box.dimensions();
    let residual: f64 = model.iter().zip(&markers.markers).map(|(u, m)| (u - m.displacement).norm_squared()).sum();
    let noise = (residual / (3.0 * markers.markers.len() as f64 - d as f64).max(1.0)).sqrt();
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); d];
    let mut failed = 0;
    let mut stopped = None;
    let quiet = crate::FitOptions { identifiability: false, ..options.clone() };
    for i in 0..k {
        // `Some(None)`: a limit beyond what an `Instant` holds, i.e. none.
        let left = match deadline {
            Some(Some(d)) => {
                let left = d.saturating_duration_since(std::time::Instant::now()).as_secs_f64();
                if left <= 0.0 {
                    stopped = Some(format!("stopped at its time limit (--max-seconds) after {i} of {k} refits"));
                    break;
                }
                Some(left)
            }
            _ => options.max_seconds,
        };
        let mut normal = Normal(seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let replicate = Markers {
            source: markers.source.clone(),
            markers: markers
                .markers
                .iter()
                .zip(&model)
                .map(|(m, u)| {
                    let s = m.sigma.unwrap_or(noise);
                    pbdfit_mesh::Marker {
                        displacement: u + Vec3::new(normal.sample(), normal.sample(), normal.sample()) * s,
                        ..*m
                    }
                })
                .collect(),
        };
        let options = crate::FitOptions { max_seconds: left, ..quiet.clone() };
        let fit = crate::FitProblem::measured(scenes, settings, &replicate, tolerance, cache)
            .and_then(|p| crate::fit_cpu(&p, &options));
        // A refit the time limit cut short (stopped, or failed for want of time) is not a refit.
        let timed_out = || matches!(deadline, Some(Some(d)) if std::time::Instant::now() >= d);
        match fit {
            Ok(r)
                if !(r.stopped.is_some() && timed_out())
                    && r.error.is_finite()
                    && r.parameters.iter().all(|(_, v)| v.is_finite()) =>
            {
                for (j, (_, v)) in r.parameters.iter().enumerate() {
                    values[j].push(*v);
                }
            }
            _ if timed_out() => {
                stopped = Some(format!("stopped at its time limit (--max-seconds) after {i} of {k} refits"));
                break;
            }
            _ => failed += 1,
        }
    }
    let quantile = |v: &[f64], q: f64| {
        let x = (v.len() - 1) as f64 * q;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
    };
    let fitted = values.first().map_or(0, Vec::len);
    let intervals = (fitted >= MIN_BOOTSTRAP).then(|| {
        values
            .iter_mut()
            .map(|v| {
                v.sort_by(f64::total_cmp);
                (quantile(v, 0.025), quantile(v, 0.975))
            })
            .collect()
    });
    let noise = markers.markers.first().and_then(|m| m.sigma).unwrap_or(noise);
    Ok(Bootstrap { asked: k, replicates: fitted, failed, intervals, noise, stopped })
}
