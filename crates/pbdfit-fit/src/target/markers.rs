//! Measured markers: a fit against the displacements a marker CSV or a full-field `.vtu` records (see
//! [`MarkerTarget`] in `measured.rs` for the error and its weighting). The kind of a fit that names a
//! measured file.

use std::path::Path;

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{Markers, SceneSet, Vec3};

use super::{Target, TargetKind};
use crate::{FitError, FitProblem, MARKER_TOLERANCE, MarkerTarget, PartCache, Settings};

/// The measured markers' kind of target.
#[derive(Debug, Clone, Copy)]
pub struct MarkersKind;

impl TargetKind for MarkersKind {
    fn name(&self) -> &'static str {
        "markers"
    }

    fn reads(&self, file: Option<&Path>) -> bool {
        file.is_some()
    }

    fn example_file(&self) -> Option<&'static str> {
        Some("markers.csv")
    }

    fn uses_fem(&self) -> bool {
        false
    }

    fn resamples(&self) -> bool {
        true
    }

    fn describe(&self, file: Option<&Path>) -> String {
        format!("the measured markers in {}", file.map_or(String::new(), |f| f.display().to_string()))
    }

    fn problem(
        &self,
        file: Option<&Path>,
        scenes: &SceneSet,
        settings: Settings,
        _: YoungPoisson,
        cache: &PartCache,
    ) -> Result<FitProblem, FitError> {
        let file = file.ok_or_else(|| FitError::Internal("markers without a file".into()))?;
        let markers = Markers::read(file)?;
        FitProblem::measured(scenes, settings, &markers, MARKER_TOLERANCE, cache)
    }
}

impl Target for MarkerTarget {
    fn describe(&self) -> String {
        MarkerTarget::describe(self)
    }

    fn error(&self, u: &[Vec3]) -> f64 {
        MarkerTarget::error(self, u)
    }

    fn terms(&self) -> f64 {
        MarkerTarget::terms(self).max(1.0)
    }

    /// Residuals at the markers, whose sensitivities interpolate the vertices'.
    fn linearise(&self, u: &[Vec3], sensitivity: &[Vec<Vec3>], chain: &[f64], add: &mut dyn FnMut(Vec3, &[Vec3])) {
        let d = sensitivity.len();
        for (k, observed) in self.observed.iter().enumerate() {
            let scale = self.scale[k];
            let r = (self.at(k, u) - observed) * scale;
            let columns: Vec<_> = (0..d).map(|j| self.at(k, &sensitivity[j]) * (chain[j] * scale)).collect();
            add(r, &columns);
        }
    }

    fn markers(&self) -> Option<&MarkerTarget> {
        Some(self)
    }
}
