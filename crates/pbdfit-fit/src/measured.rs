//! Measured references (methodology, section Measured references): markers in the undeformed body with
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
}

impl MarkerTarget {
    /// Locates `markers` in `mesh` (surface tolerance `tolerance`, m) and keeps those that enter the
    /// error. Refuses markers outside the body, and a file of which no marker moved (nothing to fit).
    pub fn new(markers: &Markers, mesh: &TetMesh, tolerance: f64) -> Result<Self, FitError> {
        let located = markers.locate(mesh, tolerance)?;
        let sigmas = markers.markers.iter().all(|m| m.sigma.is_some());
        let largest = markers.markers.iter().map(|m| m.displacement.norm()).fold(0.0, f64::max);
        let mut target = MarkerTarget {
            source: markers.source.clone(),
            vertices: Vec::new(),
            weights: Vec::new(),
            observed: Vec::new(),
            scale: Vec::new(),
            weighting: if sigmas { MarkerWeighting::ChiSquare } else { MarkerWeighting::Relative },
            read: markers.markers.len(),
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
}

/// Refits of resampled noise (`fit --bootstrap K`): a check of a marker fit's Gauss-Newton intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    /// Replicates fitted (those that fit; a replicate without a fit is counted in `failed`).
    pub replicates: usize,
    /// Replicates whose fit failed.
    pub failed: usize,
    /// Per parameter, the 2.5 % and 97.5 % quantiles of the refitted values.
    pub intervals: Vec<(f64, f64)>,
    /// The noise added per component (m): the markers' sigma, or the residual's `sqrt(RSS / (3M - d))`.
    pub noise: f64,
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
/// displacements per vertex.
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
    let quiet = crate::FitOptions { identifiability: false, ..options.clone() };
    for i in 0..k {
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
        let fit = crate::FitProblem::measured(scenes, settings, &replicate, tolerance, cache)
            .and_then(|p| crate::fit_cpu(&p, &quiet));
        match fit {
            Ok(r) if r.error.is_finite() => {
                for (j, (_, v)) in r.parameters.iter().enumerate() {
                    values[j].push(*v);
                }
            }
            _ => failed += 1,
        }
    }
    let quantile = |v: &[f64], q: f64| {
        let x = (v.len() - 1) as f64 * q;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
    };
    let intervals = values
        .iter_mut()
        .map(|v| {
            v.sort_by(f64::total_cmp);
            if v.is_empty() { (f64::NAN, f64::NAN) } else { (quantile(v, 0.025), quantile(v, 0.975)) }
        })
        .collect();
    let noise = markers.markers.first().and_then(|m| m.sigma).unwrap_or(noise);
    Ok(Bootstrap { replicates: k - failed, failed, intervals, noise })
}
