//! The target seam: what a fit part's response is compared with. An FEM reference's displacement field
//! ([`FemTarget`]) or measured markers ([`MarkerTarget`]) for a rest state; the FEM's release
//! ([`TrajectoryTarget`], `trajectory.rs`, which the release test makes) for the motion fit's releases. The error ([`FitProblem::error_from`](crate::FitProblem::error_from)), the gradient fit's
//! Gauss-Newton linearisation, its confidence intervals and the bootstrap read a part's target only through
//! [`Target`], with no other path that silently fits the FEM instead.
//!
//! Kinds of target are a registry: one file in `target/` with a type implementing [`TargetKind`] (which
//! files it reads, whether the FEM reference's options apply to it, how a fit problem's parts are built
//! against it, and its [`Target`] type) and one line in `target_kinds!`, which makes [`TARGET_KINDS`].
//! Which kind a scene's fit has is resolved in one place, [`resolve_target`]: the file the command line
//! or Python gives (`measured`), else the one the scene names (`[reference] measured`), else none; the
//! first kind in the registry that reads it takes it (the FEM, last, takes "no file"). The commands that fit
//! against the FEM only (studies, tables, `evaluate`, `lookup --refine`, `settings`) refuse a scene whose
//! target is not the FEM through it ([`fits_against_fem`](crate::fits_against_fem)).

use std::fmt::Debug;
use std::path::Path;

use pbdfit_fem::YoungPoisson;
use pbdfit_mesh::{SceneSet, Vec3};

use crate::{FitError, FitProblem, MarkerTarget, PartCache, Settings};

/// What one part's response (its rest displacements, or its release) is compared with.
pub trait Target: Debug + Send + Sync {
    /// What it is, for results and messages (`linear static`, `measured m.csv (12 markers, relative)`).
    fn describe(&self) -> String;

    /// The error of the response `u` (m, per vertex of the part's body; a release's fields one after another):
    /// the mean of the squared scaled residuals over [`terms`](Self::terms).
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

/// A kind of fit target (a registry entry): which files it reads and how a fit problem is built against
/// it. The kinds are asked in the registry's order; the FEM, last, reads "no file".
pub trait TargetKind: Sync {
    /// Its name (`markers`, `fem`).
    fn name(&self) -> &'static str;

    /// Whether this kind is the target of a fit given `file` (the front end's `measured`, else the
    /// scene's `[reference] measured`; `None`: neither names one).
    fn reads(&self, file: Option<&Path>) -> bool;

    /// Whether the FEM reference's options (`young`, `poisson`, `material`, the dynamic reference, the
    /// split) mean anything for it: where not, a job that sets them is refused, and the commands that fit
    /// against the FEM only refuse the scene.
    fn uses_fem(&self) -> bool;

    /// A file this kind reads (`None`: it reads "no file"), for the registry's test: resolving it must
    /// give this kind.
    fn example_file(&self) -> Option<&'static str>;

    /// Whether a bootstrap can resample its noise (measured data).
    fn resamples(&self) -> bool {
        false
    }

    /// What the target is, for messages (`the measured markers in m.csv`).
    fn describe(&self, file: Option<&Path>) -> String;

    /// The fit problem of `scenes` against this target: each part's PBD system and [`Target`] (from
    /// `cache`, the FEM solved for `material` where the kind uses it).
    fn problem(
        &self,
        file: Option<&Path>,
        scenes: &SceneSet,
        settings: Settings,
        material: YoungPoisson,
        cache: &PartCache,
    ) -> Result<FitProblem, FitError>;
}

/// Registers the kinds of target: `file::Kind` for each (the module `target/file.rs` and its
/// [`TargetKind`]), in the order they are asked.
macro_rules! target_kinds {
    ($($file:ident::$kind:ident),* $(,)?) => {
        $(mod $file; pub use $file::*;)*
        /// Every kind of target, in the order [`resolve_target`] asks them.
        pub static TARGET_KINDS: &[&dyn TargetKind] = &[$(&$file::$kind),*];
    };
}

target_kinds!(markers::MarkersKind, fem::FemKind);
mod trajectory;
pub use trajectory::TrajectoryTarget;

/// The target of a scene set's fit: its kind and the file it reads.
#[derive(Clone, Copy)]
pub struct ResolvedTarget<'a> {
    /// The kind.
    pub kind: &'static dyn TargetKind,
    /// The file (`None` for the FEM).
    pub file: Option<&'a Path>,
}

impl std::fmt::Debug for ResolvedTarget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedTarget").field("kind", &self.kind.name()).field("file", &self.file).finish()
    }
}

impl ResolvedTarget<'_> {
    /// What the target is, for messages.
    pub fn describe(&self) -> String {
        self.kind.describe(self.file)
    }

    /// The fit problem of `scenes` against it ([`TargetKind::problem`]).
    pub fn problem(
        &self,
        scenes: &SceneSet,
        settings: Settings,
        material: YoungPoisson,
        cache: &PartCache,
    ) -> Result<FitProblem, FitError> {
        self.kind.problem(self.file, scenes, settings, material, cache)
    }
}

/// The target of a fit of `scenes`: the file given (a flag, a keyword), else the one the scene names
/// (`[reference] measured`), else none, taken by the first kind of [`TARGET_KINDS`] that reads it. The
/// one place this is decided.
pub fn resolve_target<'a>(scenes: &'a SceneSet, measured: Option<&'a Path>) -> Result<ResolvedTarget<'a>, FitError> {
    let file = measured.or_else(|| scenes.measured());
    let kind = TARGET_KINDS.iter().find(|k| k.reads(file)).ok_or_else(|| {
        FitError::Internal(format!(
            "no kind of target reads {}",
            file.map_or("no file".into(), |f| f.display().to_string())
        ))
    })?;
    Ok(ResolvedTarget { kind: *kind, file })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry: names unique, and each kind is the one its example file resolves to (a kind listed
    /// after another that reads its files could never be chosen); no file is the FEM.
    #[test]
    fn each_kind_is_what_its_example_resolves_to() {
        let scenes = SceneSet::load("gravity-wall").unwrap();
        let mut names = std::collections::BTreeSet::new();
        for kind in TARGET_KINDS {
            assert!(names.insert(kind.name()), "two kinds named {}", kind.name());
            let file = kind.example_file().map(Path::new);
            let resolved = resolve_target(&scenes, file).unwrap();
            assert_eq!(resolved.kind.name(), kind.name());
        }
        let fem = resolve_target(&scenes, None).unwrap();
        assert!(fem.kind.uses_fem() && !fem.kind.resamples(), "{fem:?}");
        let markers = resolve_target(&scenes, Some(Path::new("m.csv"))).unwrap();
        assert!(!markers.kind.uses_fem() && markers.kind.resamples(), "{markers:?}");
        assert_eq!(markers.describe(), "the measured markers in m.csv");
    }
}
