//! Which masses a run's body gets, decided in one place for every command, study, table and Python call.
//!
//! In order: the user's choice (`--mass-model`, Python's `mass_model=`, a study or table file's
//! `mass_model`), else the scene file's `[material] mass_model`, else the masses of the engine an engine
//! profile reproduces ([`ModelKind::engine_masses`]: Genesis and PyBullet give every particle the same mass),
//! else lumped (the thesis's). So `pbdfit fit --model genesis-pbd` fits the body Genesis makes, and the
//! thesis's models keep their lumped masses. A choice other than the engine's is kept, with a warning that
//! says how far it moves the rest state ([`mass_model_warning`]).

use pbdfit_mesh::{MassModel, SceneSet, Vec3};
use pbdfit_pbd::{CpuBackend, ModelKind, PbdSystem, RestOptions, RestStateBackend, SimParams};

use crate::Settings;

/// The mass model of one part: `given` (the user's), else the scene file's, else `kind`'s engine's, else
/// lumped.
pub fn resolve_mass_model(given: Option<MassModel>, scene: Option<MassModel>, kind: Option<ModelKind>) -> MassModel {
    given.or(scene).or(kind.and_then(ModelKind::engine_masses)).unwrap_or(MassModel::Lumped)
}

/// The scene set with every part's masses resolved by [`resolve_mass_model`] (each part's `mass_model`
/// then `Some`). `kind` is the model the run simulates (`None`: no model, as the FEM alone).
pub fn with_resolved_masses(set: SceneSet, given: Option<MassModel>, kind: Option<ModelKind>) -> SceneSet {
    set.with_mass_models(|scene| resolve_mass_model(given, scene, kind))
}

/// Where the run's masses differ from those of the engine `settings.kind` reproduces: a warning naming both
/// and the rest state's relative L2 difference the choice makes on this body (its parts together) at the
/// settings' N, dt and nit,
/// with the model at `values` (the run's parameters) or, where `None`, at the model's example point (which
/// the warning names). `option` names where the masses were chosen (`--mass-model`, `the study file's
/// mass_model`); a part whose masses come from its scene file says so. `None` where the masses are the
/// engine's or the model has no convention.
pub fn mass_model_warning(
    set: &SceneSet,
    settings: Settings,
    values: Option<&[f64]>,
    given: Option<MassModel>,
    option: &str,
) -> Option<String> {
    let Settings { kind, n, dt, nit, .. } = settings;
    let engine = kind.engine_masses()?;
    let used = set.scenes().iter().map(|s| s.mass_model()).find(|&m| m != engine)?;
    let source = match given {
        Some(m) if option.starts_with("--") => format!("{option} {}", m.name()),
        Some(m) => format!("{option} = \"{}\"", m.name()),
        None => "the scene file's [material] mass_model".into(),
    };
    let (model, at) = match values.map(|v| kind.with(v)) {
        Some(Ok(model)) => (model, "the run's parameters".to_string()),
        _ => {
            let model = kind.example();
            let point: Vec<String> = kind
                .parameters()
                .iter()
                .zip(model.values())
                .map(|(p, v)| format!("{} = {}", p.name, pbdfit_mesh::display::number(*v)))
                .collect();
            (model, format!("the model's example point ({})", point.join(", ")))
        }
    };
    let engine_set = set.clone().with_mass_model(engine);
    let params = SimParams::new(dt, nit, model);
    let rest = |set: &SceneSet| -> Result<Vec<Vec3>, String> {
        let mut all = Vec::new();
        for scene in set.scenes() {
            let body = scene.body(n).map_err(|e| e.to_string())?;
            let system = PbdSystem::new(&body);
            let state = CpuBackend
                .rest_states(&system, std::slice::from_ref(&params), &RestOptions::default())
                .remove(0)
                .map_err(|e| e.to_string())?;
            all.extend(state.displacements);
        }
        Ok(all)
    };
    let effect = match (rest(set), rest(&engine_set)) {
        (Ok(ours), Ok(theirs)) => {
            let diff: f64 = ours.iter().zip(&theirs).map(|(a, b)| (a - b).norm_squared()).sum::<f64>().sqrt();
            let norm: f64 = theirs.iter().map(|b| b.norm_squared()).sum::<f64>().sqrt();
            format!(
                "at {at}, N = {n}, dt = {}, nit = {nit} the model's rest state differs from its rest state with the \
                 engine's masses by {:.2e} (relative L2)",
                pbdfit_mesh::display::number(dt),
                diff / norm
            )
        }
        (Err(why), _) | (_, Err(why)) => format!("its effect on the rest state could not be measured at {at}: {why}"),
    };
    Some(format!(
        "model {} reproduces an engine whose masses are {} ({}), but this run uses {} masses ({source}): {effect}; \
         the parameters are for a body the engine does not make (leave the mass model out to use the engine's)",
        kind.name(),
        engine.name(),
        match engine {
            MassModel::Uniform => "every particle the same mass",
            MassModel::Lumped => "a quarter of each tetrahedron's mass on each of its corners",
        },
        used.name(),
    ))
}

/// The relative L2 difference of two problems' FEM reference fields (their parts together); `None` where
/// either has no field (markers) or the parts differ.
pub fn field_difference(ours: &crate::FitProblem, theirs: &crate::FitProblem) -> Option<f64> {
    let (mut diff, mut norm) = (0.0, 0.0);
    if ours.parts.len() != theirs.parts.len() {
        return None;
    }
    for (a, b) in ours.parts.iter().zip(&theirs.parts) {
        let (a, b) = (a.target.field()?.0, b.target.field()?.0);
        if a.len() != b.len() {
            return None;
        }
        diff += a.iter().zip(b).map(|(x, y)| (x - y).norm_squared()).sum::<f64>();
        norm += b.iter().map(|y| y.norm_squared()).sum::<f64>();
    }
    (norm > 0.0).then(|| (diff / norm).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_given_then_scene_then_engine_then_lumped() {
        let (l, u) = (MassModel::Lumped, MassModel::Uniform);
        let genesis = Some(ModelKind::GENESIS_PBD);
        assert_eq!(resolve_mass_model(Some(l), Some(u), genesis), l);
        assert_eq!(resolve_mass_model(None, Some(l), genesis), l);
        assert_eq!(resolve_mass_model(None, None, genesis), u);
        assert_eq!(resolve_mass_model(None, None, Some(ModelKind::PYBULLET_NEOHOOKEAN)), u);
        assert_eq!(resolve_mass_model(None, None, None), l);
        // Newton's add_soft_mesh lumps; Jolt has no convention; the thesis's models are lumped.
        assert_eq!(ModelKind::NEWTON_XPBD.engine_masses(), Some(l));
        assert_eq!(ModelKind::JOLT.engine_masses(), None);
        for name in ["pbd", "xpbd", "pbd-linearised", "mass-spring", "xpbd-strain"] {
            let kind: ModelKind = name.parse().unwrap();
            assert_eq!(resolve_mass_model(None, None, Some(kind)), l, "{name}");
        }
    }
}
