//! The GPU backend's hand-off policy: which batches of rest states it gives to the CPU, and why, reported
//! to the caller (who decides whether and how to tell the user) instead of printed by the library.

use std::sync::Arc;

use pbdfit_pbd::{PbdSystem, SimParams};

/// Why a batch of rest states was computed on the CPU by the GPU backend.
#[derive(Debug, Clone, PartialEq)]
pub enum Handoff {
    /// The model has no GPU kernel: its rest state is a Newton solve (mass-spring), or it is an engine
    /// profile with its own step. Not a fallback.
    NoKernel {
        /// The model's name.
        model: &'static str,
        /// Why, in a few words (`its rest state is a Newton solve`).
        why: &'static str,
    },
    /// The scene has tractions or prescribed displacements, which the kernels do not take (they take
    /// gravity as one vector and hold particles in place). Not a fallback.
    Loads {
        /// The scene's name.
        scene: String,
    },
    /// The scene has rigid obstacles: the kernels have no contact projection. Not a fallback.
    Contact {
        /// The scene's name.
        scene: String,
    },
    /// Warm-started rest states of fits in lockstep (their search trials): the kernels start every
    /// simulation from the undeformed body, and a trial computed in f32 by stepping would move the fit's
    /// descent away from the f64 one the same fit takes alone. Not a fallback.
    WarmStarts,
    /// The device failed on this batch; the CPU computed it.
    Failed {
        /// What failed, in one line.
        error: String,
        /// The batch's number of rest states.
        rest_states: usize,
    },
}

impl Handoff {
    /// Whether a caller that reports each reason once should report this one again: a failure is worth
    /// hearing each time, a model or a scene the kernels never take only once.
    pub fn repeats(&self) -> bool {
        matches!(self, Handoff::Failed { .. })
    }
}

impl std::fmt::Display for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Handoff::NoKernel { model, why } => {
                write!(f, "model {model} has no GPU kernel ({why}); computing its rest states on the CPU")
            }
            Handoff::Loads { scene } => write!(
                f,
                "scene {scene} has tractions or prescribed displacements, which the GPU kernels do not take \
                 (gravity only); computing its rest states on the CPU"
            ),
            Handoff::Contact { scene } => write!(
                f,
                "scene {scene} has obstacles, and the GPU kernels have no contact or friction; computing its rest \
                 states on the CPU"
            ),
            Handoff::WarmStarts => write!(
                f,
                "the GPU kernels start every rest state from the undeformed body, so the warm-started trials of fits \
                 in lockstep run on the CPU (in f64, as each fit's alone); the grids' rest states stay on the GPU"
            ),
            Handoff::Failed { error, rest_states } => {
                write!(f, "{error}; computing these {rest_states} rest states on the CPU")
            }
        }
    }
}

/// What the backend calls with each hand-off (from any thread).
pub type HandoffObserver = Arc<dyn Fn(&Handoff) + Send + Sync>;

/// The policy before any device work: the reason this batch goes to the CPU, or `None` when the kernels
/// take it.
pub fn handoff_before(system: &PbdSystem, params: &[SimParams]) -> Option<Handoff> {
    if let Some(p) = params.iter().find(|p| !p.model.kind().has_projection()) {
        return Some(Handoff::NoKernel { model: p.model.name(), why: "its rest state is a Newton solve" });
    }
    if let Some(p) = params.iter().find(|p| p.model.kind().body_kind() == pbdfit_pbd::BodyKind::Sheet) {
        return Some(Handoff::NoKernel {
            model: p.model.name(),
            why: "a sheet's cloth constraints, which the kernels do not implement",
        });
    }
    if let Some(p) = params.iter().find(|p| p.model.kind().is_engine_profile()) {
        return Some(Handoff::NoKernel {
            model: p.model.name(),
            why: "an engine profile's own step, which the kernels do not implement",
        });
    }
    if !system.obstacles().is_empty() {
        return Some(Handoff::Contact { scene: system.scene().to_string() });
    }
    if !system.is_gravity_only() {
        return Some(Handoff::Loads { scene: system.scene().to_string() });
    }
    None
}

#[cfg(test)]
mod tests {
    use pbdfit_pbd::{Model, ModelKind};

    use super::*;

    fn system(scene: &str) -> PbdSystem {
        PbdSystem::new(&pbdfit_mesh::SceneSet::builtin(scene).unwrap().scenes()[0].body(1).unwrap())
    }

    #[test]
    fn the_policy_names_the_model_or_the_scene() {
        let pbd = SimParams::new(0.01, 1, Model::pbd(0.5, 0.5));
        let springs = SimParams::new(0.01, 1, ModelKind::MASS_SPRING.example());
        assert_eq!(handoff_before(&system("gravity-wall"), &[pbd]), None);
        let h = handoff_before(&system("gravity-wall"), &[pbd, springs]).unwrap();
        assert_eq!(h, Handoff::NoKernel { model: "mass-spring", why: "its rest state is a Newton solve" });
        assert!(h.to_string().contains("Newton") && !h.repeats());
        let h = handoff_before(&system("tension"), &[pbd]).unwrap();
        assert_eq!(h, Handoff::Loads { scene: "tension".into() });
        let resting = "name = \"resting\"\n[body]\nshape = \"unit-cube\"\n[[obstacle]]\nshape = \"plane\"\n\
                       point = [0, 0, 0]\nnormal = [0, 1, 0]\n";
        let body = pbdfit_mesh::SceneSet::parse(resting, "t", None).unwrap().scenes()[0].body(1).unwrap();
        let h = handoff_before(&PbdSystem::new(&body), &[pbd]).unwrap();
        assert_eq!(h, Handoff::Contact { scene: "resting".into() });
        assert!(h.to_string().contains("obstacles") && h.to_string().contains("contact") && !h.repeats());
        assert!(Handoff::WarmStarts.to_string().contains("lockstep run on the CPU") && !Handoff::WarmStarts.repeats());
        let failed = Handoff::Failed { error: "device lost".into(), rest_states: 3 };
        assert!(failed.repeats() && failed.to_string() == "device lost; computing these 3 rest states on the CPU");
    }
}
