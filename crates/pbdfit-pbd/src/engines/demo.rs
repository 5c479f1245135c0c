//! `demo-pbd`: a profile that exists only in this crate's tests (its `engines!` line is `#[cfg(test)]`), to
//! show and check what adding a profile costs: this file and one line. Its step is Genesis's PBD elastic
//! solve under another name ([`DemoPbd`] wraps [`GenesisPbd`]) and its model reuses Genesis's parameters
//! and settings, so its rest state must be `genesis-pbd`'s bit for bit.

use pbdfit_mesh::MassModel;

use super::genesis::{self, GenesisPbd};
use super::{EngineBody, EngineConstants, EngineRule, EngineStep};
use crate::{Dynamics, Fold, ModelDef, PbdSystem, RuleSettings};

/// Genesis's constants, stepped by Genesis's solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DemoPbd(GenesisPbd);

impl EngineStep for DemoPbd {
    type Cache = ();
    const PASSES: super::Passes = GenesisPbd::PASSES;

    fn solve(&self, system: &PbdSystem, body: &EngineBody, _: &(), passes: usize, d: &mut Dynamics, h: f64) {
        self.0.solve(system, body, &(), passes, d, h)
    }
}

fn rule(p: &[f64], s: RuleSettings) -> EngineRule {
    let constants = EngineConstants::DemoPbd(DemoPbd(GenesisPbd::of(p, s)));
    EngineRule { substeps: s.nit.max(1), passes: 1, velocity_factor: 1.0, gravity_factor: 1.0, constants }
}

pub(crate) static DEMO_PBD: ModelDef = ModelDef {
    name: "demo-pbd",
    description: "a test's profile: Genesis's PBD elastic step under another name",
    parameters: &genesis::PARAMETERS,
    settings: &genesis::SETTINGS,
    nit_means: "Genesis's substeps per step of dt",
    usage: genesis::usage,
    rule: Fold::Engine(rule),
    example: &[1e-4, 1e-6],
    masses: Some(MassModel::Uniform),
};

#[cfg(test)]
mod tests {
    use pbdfit_mesh::SceneSet;

    use crate::{ModelKind, PbdSystem, RestOptions, SimParams};

    /// The profile declared by this file and its `engines!` line is a model like the others: listed, parsed
    /// by name, with settings, and its rest state is the one of the step it reuses, bit for bit.
    #[test]
    fn a_profile_is_its_file_and_one_line() {
        let demo: ModelKind = "demo-pbd".parse().unwrap();
        assert_eq!(demo, ModelKind::DEMO_PBD);
        assert!(ModelKind::all().contains(&demo));
        let relaxed = "demo-pbd[stretch_relaxation=0.2]".parse::<ModelKind>().unwrap();
        assert_eq!(relaxed.spec(), "demo-pbd[stretch_relaxation=0.2]");
        let body = SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap();
        let system = PbdSystem::new(&body);
        let rest = |kind: ModelKind| {
            let params = SimParams::new(0.01, 4, kind.with(&[1e-3, 1e-6]).unwrap());
            let u = system.rest_state(&params, &RestOptions::default(), None).unwrap().displacements;
            u.iter().flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        let genesis = rest(ModelKind::GENESIS_PBD);
        assert!(genesis.iter().any(|&b| f64::from_bits(b).abs() > 1e-3), "the wall sags");
        assert_eq!(rest(demo), genesis);
        let with = |kind: ModelKind| rest(kind.with_setting("stretch_relaxation", 0.2).unwrap());
        assert_eq!(with(demo), with(ModelKind::GENESIS_PBD));
    }
}
