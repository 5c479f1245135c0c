//! The FEM reference: a fit against the displacement field the scene's FEM reference computes for a
//! material (docs/method.md, section The error). The kind of a fit that names no measured file.

use std::path::Path;

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{SceneSet, Vec3};

use super::{Target, TargetKind};
use crate::{FitError, FitProblem, PartCache, Settings, relative_error};

/// The FEM reference's kind of target.
#[derive(Debug, Clone, Copy)]
pub struct FemKind;

impl TargetKind for FemKind {
    fn name(&self) -> &'static str {
        "fem"
    }

    fn reads(&self, file: Option<&Path>) -> bool {
        file.is_none()
    }

    fn example_file(&self) -> Option<&'static str> {
        None
    }

    fn uses_fem(&self) -> bool {
        true
    }

    fn describe(&self, _: Option<&Path>) -> String {
        "the FEM reference".into()
    }

    fn problem(
        &self,
        _: Option<&Path>,
        scenes: &SceneSet,
        settings: Settings,
        material: YoungPoisson,
        cache: &PartCache,
    ) -> Result<FitProblem, FitError> {
        FitProblem::new(scenes, settings, material, cache)
    }
}

/// An FEM reference's rest displacements: the error is the mean squared relative error over the
/// vertices the reference moves (docs/method.md, section The error).
#[derive(Debug, Clone, PartialEq)]
pub struct FemTarget {
    /// The reference's rest displacements (m, per vertex).
    pub reference: Vec<Vec3>,
    /// The vertices it moves (not held, not still).
    pub moved: Vec<usize>,
    /// The reference's id (`linear static`).
    pub id: String,
}

impl Target for FemTarget {
    fn describe(&self) -> String {
        self.id.clone()
    }

    fn error(&self, u: &[Vec3]) -> f64 {
        relative_error(u, &self.reference, &self.moved)
    }

    fn terms(&self) -> f64 {
        self.moved.len().max(1) as f64
    }

    fn linearise(&self, u: &[Vec3], sensitivity: &[Vec<Vec3>], chain: &[f64], add: &mut dyn FnMut(Vec3, &[Vec3])) {
        let d = sensitivity.len();
        for &i in &self.moved {
            let scale = 1.0 / self.reference[i].norm();
            let r = (u[i] - self.reference[i]) * scale;
            let columns: Vec<_> = (0..d).map(|j| sensitivity[j][i] * (chain[j] * scale)).collect();
            add(r, &columns);
        }
    }

    fn field(&self) -> Option<(&[Vec3], &[usize])> {
        Some((&self.reference, &self.moved))
    }
}
