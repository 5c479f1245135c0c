//! Engine profiles fit the body their engine makes: `genesis-pbd` and `pybullet-neohookean` give every
//! particle the same mass (Genesis shares the body's mass equally, PyBullet's `loadSoftBody(mass=...)`
//! spreads it evenly over the nodes), so a run without a mass model is the run with `uniform`, bit for
//! bit; the thesis's models keep their lumped masses; and masses other than the engine's are warned
//! about with the rest-state difference they make.

use pbdfit_jobs::{FitJob, FitKeywords, FitReport, Job, SimulateKeywords, SimulateReport, Spelling};
use pbdfit_mesh::{MassModel, SceneSet, Vec3};
use pbdfit_pbd::{CpuBackend, ModelKind, PbdSystem, RestOptions, RestStateBackend, SimParams};
use pbdfit_study::Study;

/// A short gradient fit on the wall at N = 2 (nit 4, Genesis's usual substeps; E 1e3 for Genesis, whose
/// stiffest stretch compliance is the box's edge at 1e4 on this dt and nit, 1e4 for PyBullet).
fn wall_fit(kind: ModelKind, mass_model: Option<MassModel>) -> FitReport {
    let young = if kind == ModelKind::GENESIS_PBD { 1e3 } else { 1e4 };
    let mut job = FitJob { n: Some(2), young: Some(young), mass_model, nit: 4, ..FitJob::new("gravity-wall", kind) };
    job.request.max_evaluations = Some(20);
    job.prepare(Spelling::Flag).expect("a job").run(&CpuBackend).expect("a fit").report
}

/// The report without its wall-clock time.
fn timeless(report: &FitReport) -> FitReport {
    FitReport { seconds: 0.0, ..report.clone() }
}

#[test]
fn genesis_and_pybullet_fits_without_a_mass_model_are_their_uniform_fits_bit_for_bit() {
    for kind in [ModelKind::PYBULLET_NEOHOOKEAN, ModelKind::GENESIS_PBD] {
        let default = wall_fit(kind, None);
        let uniform = wall_fit(kind, Some(MassModel::Uniform));
        assert_eq!(default.mass_model, "uniform", "{kind}");
        assert_eq!(timeless(&default), timeless(&uniform), "{kind}");
        let bits = |r: &FitReport| r.parameters.iter().map(|(_, v)| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&default), bits(&uniform), "{kind}");
        assert_eq!(default.error.to_bits(), uniform.error.to_bits(), "{kind}");
        assert!(default.warnings.is_empty(), "{kind}: {:?}", default.warnings);
        // The thesis's lumped masses are another body: another answer, and a warning.
        let lumped = wall_fit(kind, Some(MassModel::Lumped));
        assert_eq!(lumped.mass_model, "lumped");
        assert_ne!(bits(&lumped), bits(&default), "{kind}: lumped masses gave the uniform fit");
        assert!(lumped.warnings.iter().any(|w| w.contains("--mass-model lumped")), "{kind}: {:?}", lumped.warnings);
        assert!(default.text().contains("; uniform masses"), "{}", default.text());
    }
}

#[test]
fn python_keywords_with_mass_model_none_give_the_engines_masses() {
    let masses = |json: &str| {
        let job = FitKeywords::from_json(json).expect("keywords").job(Spelling::Keyword).expect("a job");
        let prepared = job.prepare(Spelling::Keyword).expect("prepared");
        prepared.body.solid().unwrap().scenes().iter().map(|s| s.body(prepared.n).unwrap().masses).collect::<Vec<_>>()
    };
    for model in ["genesis-pbd", "pybullet-neohookean"] {
        let none = masses(&format!(r#"{{"scene": "gravity", "n": 2, "model": "{model}", "mass_model": null}}"#));
        let uniform =
            masses(&format!(r#"{{"scene": "gravity", "n": 2, "model": "{model}", "mass_model": "uniform"}}"#));
        let lumped = masses(&format!(r#"{{"scene": "gravity", "n": 2, "model": "{model}", "mass_model": "lumped"}}"#));
        assert_eq!(none, uniform, "{model}");
        assert_ne!(none, lumped, "{model}");
    }
    // A textbook model's are the thesis's lumped ones.
    let pbd = masses(r#"{"scene": "gravity", "n": 2, "model": "pbd", "mass_model": null}"#);
    assert_eq!(pbd, masses(r#"{"scene": "gravity", "n": 2, "model": "pbd", "mass_model": "lumped"}"#));
}

#[test]
fn simulate_without_a_mass_model_is_the_engines_rest_state_bit_for_bit() {
    let rest = |mass_model: Option<&str>| {
        let mass_model = mass_model.map(str::to_string);
        let body = pbdfit_fit::Body { scene: "gravity-wall".into(), n: Some(2), mass_model, ..Default::default() };
        let job = SimulateKeywords {
            body,
            model: pbdfit_fit::Model { model: "pybullet-neohookean".into(), ..Default::default() },
            params: [("mu".to_string(), 3e3), ("lambda".to_string(), 5e3)].into(),
            ..Default::default()
        };
        let prepared = job.prepare(Spelling::Keyword).expect("a job");
        let SimulateReport::Rest(rest) =
            prepared.run_part(&prepared.parts[0], &CpuBackend, 1, &mut |_, _| {}).expect("a rest state")
        else {
            panic!("a rest state expected");
        };
        (rest.mass_model, rest.displacements, prepared.warnings)
    };
    let (default, uniform, lumped) = (rest(None), rest(Some("uniform")), rest(Some("lumped")));
    assert_eq!(default.0, "uniform");
    let bits = |u: &[[f64; 3]]| u.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&default.1), bits(&uniform.1));
    assert_ne!(bits(&default.1), bits(&lumped.1));
    assert!(default.2.is_empty() && uniform.2.is_empty());
    // The warning names the size of what the choice does, at the run's parameters: the same relative L2
    // difference as the two rest states here.
    let diff: f64 =
        lumped.1.iter().zip(&default.1).map(|(a, b)| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>()).sum();
    let norm: f64 = default.1.iter().map(|b| b.iter().map(|x| x * x).sum::<f64>()).sum();
    let relative = (diff / norm).sqrt();
    assert!(relative > 1e-3, "lumped and uniform masses rest {relative:e} apart");
    let warning = &lumped.2[0];
    assert!(warning.contains(&format!("{relative:.2e} (relative L2)")), "{warning}");
    assert!(warning.contains("the run's parameters") && warning.contains("mass_model = \"lumped\""), "{warning}");
}

/// The rest state of `kind` at its example point on `set`'s first part with the given masses.
fn example_rest(set: &SceneSet, kind: ModelKind, masses: MassModel, n: usize, dt: f64, nit: usize) -> Vec<Vec3> {
    let body = set.clone().with_mass_model(masses).scenes()[0].body(n).unwrap();
    let params = SimParams::new(dt, nit, kind.example());
    CpuBackend.rest_states(&PbdSystem::new(&body), &[params], &RestOptions::default()).remove(0).unwrap().displacements
}

fn relative_l2(ours: &[Vec3], theirs: &[Vec3]) -> f64 {
    let diff = ours.iter().zip(theirs).map(|(a, b)| (a - b).norm_squared()).sum::<f64>().sqrt();
    diff / theirs.iter().map(|b| b.norm_squared()).sum::<f64>().sqrt()
}

#[test]
fn a_fit_with_other_masses_than_the_engines_warns_with_the_rest_state_difference() {
    let set = SceneSet::load("gravity-wall").unwrap();
    for kind in [ModelKind::PYBULLET_NEOHOOKEAN, ModelKind::GENESIS_PBD] {
        let job =
            FitJob { n: Some(2), mass_model: Some(MassModel::Lumped), nit: 4, ..FitJob::new("gravity-wall", kind) };
        let prepared = job.prepare(Spelling::Flag).expect("a job");
        let warning = prepared.warnings.iter().find(|w| w.contains("masses")).expect("a warning");
        // The model's rest state at its example point, lumped against uniform.
        let ours = example_rest(&set, kind, MassModel::Lumped, 2, 0.01, 4);
        let theirs = example_rest(&set, kind, MassModel::Uniform, 2, 0.01, 4);
        let model = relative_l2(&ours, &theirs);
        assert!(warning.contains(&format!("by {model:.2e} (relative L2)")), "{kind}: {warning}");
        assert!(warning.contains("at the model's example point ("), "{warning}");
        // The FEM reference's (E 1e3, nu 0.3), whose loads follow the masses.
        let reference = |masses| {
            let settings = pbdfit_fit::Settings::new(0.01, 2, 4, kind);
            let material = pbdfit_fem::YoungPoisson::new(1e3, 0.3).unwrap();
            let set = set.clone().with_mass_model(masses);
            let problem = pbdfit_fit::FitProblem::new(&set, settings, material, &pbdfit_fit::PartCache::default());
            problem.unwrap().parts[0].target.field().unwrap().0.to_vec()
        };
        let fem = relative_l2(&reference(MassModel::Lumped), &reference(MassModel::Uniform));
        assert!(fem > 1e-2, "{kind}: lumped and uniform FEM loads rest {fem:e} apart");
        assert!(warning.contains(&format!("the FEM reference's by {fem:.2e}")), "{kind}: {warning}");
        if kind == ModelKind::PYBULLET_NEOHOOKEAN {
            // PyBullet's body carries its masses' weight: lumped ones bend it otherwise.
            assert!(model > 1e-2, "{model:e}");
        }
    }
    // The engine's own masses, and a model without a convention, warn of nothing.
    for (kind, masses) in [(ModelKind::GENESIS_PBD, MassModel::Uniform), (ModelKind::PBD, MassModel::Uniform)] {
        let job = FitJob { n: Some(1), mass_model: Some(masses), ..FitJob::new("gravity-wall", kind) };
        let warnings = job.prepare(Spelling::Flag).expect("a job").warnings;
        assert!(warnings.iter().all(|w| !w.contains("masses")), "{kind}: {warnings:?}");
    }
}

#[test]
fn a_scene_files_mass_model_beats_the_engines_and_the_override_beats_both() {
    let file = std::env::temp_dir().join(format!("pbdfit-masses-{}.toml", std::process::id()));
    std::fs::write(
        &file,
        "name = \"wall-lumped\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"x = 0\"\n[material]\nmass_model = \"lumped\"\n",
    )
    .unwrap();
    let scene = file.display().to_string();
    let prepare = |mass_model| {
        FitJob { n: Some(1), mass_model, ..FitJob::new(&scene, ModelKind::PYBULLET_NEOHOOKEAN) }
            .prepare(Spelling::Flag)
            .expect("a job")
    };
    let given = prepare(None);
    assert_eq!(given.body.solid().unwrap().scenes()[0].mass_model(), MassModel::Lumped);
    assert!(
        given.warnings.iter().any(|w| w.contains("the scene file's [material] mass_model")),
        "{:?}",
        given.warnings
    );
    assert_eq!(prepare(Some(MassModel::Uniform)).body.solid().unwrap().scenes()[0].mass_model(), MassModel::Uniform);
    std::fs::remove_file(&file).ok();
}

#[test]
fn studies_give_engine_profiles_their_engines_masses_and_the_thesis_models_lumped_ones() {
    let text = |models: &str, mass: &str| {
        format!(
            "name = \"m\"\nscenes = [\"gravity\"]\nmodels = [{models}]\n{mass}[base]\ndt = 0.01\nn = 1\nnit = 4\nyoung = 1e3\n\
             [poisson]\nfrom = 0.3\nto = 0.3\nstep = 0.1\n[[experiment]]\nname = \"base\"\n"
        )
    };
    let masses = |study: &Study| -> Vec<MassModel> {
        study.scenes.iter().flat_map(|set| set.scenes().iter().map(|s| s.mass_model())).collect()
    };
    let studies =
        Study::parse_all(&text("\"genesis-pbd\", \"pybullet-neohookean\", \"pbd\", \"jolt\"", ""), "t").unwrap();
    let expected = [MassModel::Uniform, MassModel::Uniform, MassModel::Lumped, MassModel::Lumped];
    for (study, expected) in studies.iter().zip(expected) {
        assert!(masses(study).iter().all(|&m| m == expected), "{}: {:?}", study.kind, masses(study));
        assert!(study.mass_warning().is_none(), "{}", study.kind);
    }
    // The file's mass_model is the user's choice: kept, and warned about where it is not the engine's.
    let lumped = Study::parse_all(&text("\"genesis-pbd\"", "mass_model = \"lumped\"\n"), "t").unwrap();
    assert!(masses(&lumped[0]).iter().all(|&m| m == MassModel::Lumped));
    let warning = lumped[0].mass_warning().expect("a warning");
    assert!(warning.contains("the file's mass_model = \"lumped\"") && warning.contains("relative L2"), "{warning}");
    // The thesis study: every model's scenes lumped, as its pinned results were made.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fits/thesis.toml");
    for study in Study::all_from_file(&root).unwrap() {
        assert!(masses(&study).iter().all(|&m| m == MassModel::Lumped), "{}", study.kind);
    }
}
