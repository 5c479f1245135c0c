//! The target seam: what a fit part's rest state is compared with. Today an FEM reference's displacement
//! field ([`FemTarget`]) or measured markers ([`MarkerTarget`]); an engine's own run or a motion would be a
//! third. The error ([`FitProblem::error_from`](crate::FitProblem::error_from)), the gradient fit's
//! Gauss-Newton linearisation, its confidence intervals and the bootstrap read a part's target only through
//! [`Target`], so a new kind of target is one type implementing it (and its constructor in
//! [`FitProblem`](crate::FitProblem)), with no other path that silently fits the FEM instead.
//!
//! Which target a scene's fit has is resolved in one place, [`resolve_target`] (the command line's or
//! Python's `measured`, else the scene's `[reference] measured`, else the FEM); the commands that fit
//! against the FEM only (studies, tables, `evaluate`, `lookup --refine`, `settings`) refuse a scene whose
//! target is not the FEM through it ([`fits_against_fem`](crate::fits_against_fem)).

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use pbdfit_mesh::{SceneSet, Vec3};

use crate::{MarkerTarget, relative_error};

/// What one part's rest displacements are compared with.
pub trait Target: Debug + Send + Sync {
    /// What it is, for results and messages (`linear static`, `measured m.csv (12 markers, relative)`).
    fn describe(&self) -> String;

    /// The error of the rest displacements `u` (m, per vertex of the part's body): the mean of the squared
    /// scaled residuals over [`terms`](Self::terms).
    fn error(&self, u: &[Vec3]) -> f64;

    /// What the error's sum of squared residuals is divided by (at least 1).
    fn terms(&self) -> f64;

    /// The scaled residuals at `u` and their derivatives: `add(r_k, dr_k)` for every residual `k` in
    /// order, where `dr_k[j]` is its derivative along parameter `j`, given the rest state's sensitivity
    /// columns `sensitivity[j]` (m per unit of the search coordinate before `chain[j]`, per vertex).
    fn linearise(&self, u: &[Vec3], sensitivity: &[Vec<Vec3>], chain: &[f64], add: &mut dyn FnMut(Vec3, &[Vec3]));

    /// The markers, where the target is measured markers: the statistics that only markers have (their
    /// noise: confidence intervals, the bootstrap) read them.
    fn markers(&self) -> Option<&MarkerTarget> {
        None
    }

    /// An FEM displacement field and the vertices it moves (m), for output beside the model's field.
    fn field(&self) -> Option<(&[Vec3], &[usize])> {
        None
    }
}

/// An FEM reference's rest displacements: the error is the mean squared relative error over the
/// vertices the reference moves (methodology, section The error).
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

/// Which target a scene set's fit has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSource {
    /// The FEM reference the scene and the options describe.
    Fem,
    /// Measured markers in this file.
    Measured(PathBuf),
}

/// The target of a fit of `scenes`: the markers given (a flag, a keyword), else the ones the scene names
/// (`[reference] measured`), else the FEM. The one place this is decided.
pub fn resolve_target(scenes: &SceneSet, measured: Option<&Path>) -> TargetSource {
    match measured.or_else(|| scenes.measured()) {
        Some(path) => TargetSource::Measured(path.to_path_buf()),
        None => TargetSource::Fem,
    }
}
