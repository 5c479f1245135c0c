//! The body's density and size (`--density`, `--size`, Python's `density=`, `size=`): the physics of
//! scaling, the mass every report states, and the refusals.
//!
//! A linear static FEM under gravity balances `K u = M g`: the stiffness of a body scaled by `L` is `L`
//! times its own (`E` times a length), its weight `rho L^3` times, so the rest displacement scales as
//! `rho g L^2 / E`: doubling the density doubles every vertex's displacement, doubling the size multiplies
//! it by 4, and dividing E by 10 multiplies it by 10.

use pbdfit_jobs::{BodyKeywords, FemKeywords, FitJob, FitJobError, IdentifyKeywords, SimulateKeywords, Spelling};
use pbdfit_mesh::Vec3;
use pbdfit_pbd::{CpuBackend, ModelKind};

/// The linear static FEM rest displacements of gravity-wall at N = 2, E = `young`, with the body given.
fn fem(young: f64, density: Option<f64>, size: Option<f64>) -> Vec<Vec3> {
    let scale = BodyKeywords { density, size, thickness: None };
    let body = pbdfit_fit::Body { scene: "gravity-wall".into(), n: Some(2), scale, ..Default::default() };
    let elastic = pbdfit_fit::Material { young: Some(young), poisson: None };
    let job = FemKeywords { body, elastic, ..Default::default() };
    let pbdfit_jobs::FemPrepared::Solid(prepared) = pbdfit_jobs::Job::prepare(&job, Spelling::Keyword).unwrap() else {
        panic!("gravity-wall is a solid")
    };
    let (material, dt) = (prepared.material, prepared.dt);
    let mut parts = prepared.parts;
    assert_eq!(parts.len(), 1);
    let part = parts.remove(0).solve(material, dt, &mut |_| {}).unwrap();
    assert_eq!(part.spec.id(), "linear static", "the default reference is the linear static FEM");
    part.displacements
}

/// Each vertex's `u` is `factor` times `base`'s, to round-off (relative to the largest displacement).
fn scaled_by(u: &[Vec3], base: &[Vec3], factor: f64) -> f64 {
    let largest = base.iter().map(|v| v.norm()).fold(0.0, f64::max) * factor;
    u.iter().zip(base).map(|(a, b)| (a - b * factor).norm()).fold(0.0, f64::max) / largest
}

#[test]
fn the_linear_fem_rest_displacement_scales_as_density_times_size_squared_over_young() {
    let base = fem(1e3, None, None);
    assert!(base.iter().any(|u| u.norm() > 1e-4), "the body sags");
    // Doubling the density doubles the load: twice the displacement.
    let heavy = fem(1e3, Some(2.0), None);
    assert!(scaled_by(&heavy, &base, 2.0) < 1e-12, "{}", scaled_by(&heavy, &base, 2.0));
    // Doubling the size: 8 times the weight on twice the stiffness, 4 times the displacement.
    let large = fem(1e3, None, Some(2.0));
    assert!(scaled_by(&large, &base, 4.0) < 1e-12, "{}", scaled_by(&large, &base, 4.0));
    // A 10 cm rubber cube (1,100 kg/m^3, E = 1e6 Pa): 1100 * 0.1^2 / 1e3 = 0.011 of the thesis body's at
    // 1 kg/m^3 and E = 1e3 Pa.
    let rubber = fem(1e6, Some(1100.0), Some(0.1));
    let factor = 1100.0 * 0.1 * 0.1 / 1e3;
    assert!(scaled_by(&rubber, &base, factor) < 1e-12, "{}", scaled_by(&rubber, &base, factor));
}

/// The body at the top of the fit's report (text and JSON) and of the simulate report: its size, density
/// and total mass, density times volume; the defaults are the thesis's 1 m cube of 1 kg/m^3.
#[test]
fn reports_state_the_body_size_density_and_mass() {
    let fit = |body: BodyKeywords| {
        // The README's first example: Jolt at 60 Hz, 8 iterations, E = 1e5 Pa, nu = 0.45.
        let mut job = FitJob::new("gravity-wall", ModelKind::JOLT);
        (job.n, job.young, job.poisson, job.dt, job.nit) = (Some(2), Some(1e5), Some(0.45), 1.0 / 60.0, 8);
        job.body = body;
        job.prepare(Spelling::Flag).unwrap().run(&CpuBackend).unwrap().report
    };
    let plain = fit(BodyKeywords::default());
    assert_eq!((plain.body[0].size_m, plain.body[0].density_kg_per_m3, plain.body[0].mass_kg), (1.0, 1.0, 1.0));
    let report = fit(BodyKeywords { density: Some(1100.0), size: Some(0.1), thickness: None });
    let body = &report.body[0];
    assert_eq!((body.scene.as_str(), body.size_m, body.density_kg_per_m3), ("gravity-wall", 0.1, 1100.0));
    assert!((body.mass_kg - 1100.0 * 0.1f64.powi(3)).abs() < 1e-12, "{}", body.mass_kg);
    let first = report.text().lines().next().unwrap().to_string();
    assert_eq!(first, "body: 0.1 m (largest extent), density 1100 kg/m^3, mass 1.1 kg", "{first}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["body"][0]["density_kg_per_m3"], 1100.0);
    // 1100 * 0.1^2 = 11 times the thesis body's sag at the same E: another answer, a far more compliant
    // edge (4.2e-4 m/N against 1.3e-5 with lumped masses).
    let edge = |r: &pbdfit_jobs::FitReport| r.parameters[0].1;
    assert!(edge(&report) > 10.0 * edge(&plain), "{:?} against {:?}", report.parameters, plain.parameters);
    // Simulate: the same summary, and the total of the vertex masses is the mass stated.
    let scale = BodyKeywords { density: Some(1000.0), size: Some(0.2), thickness: None };
    let body = pbdfit_fit::Body { scene: "gravity".into(), n: Some(2), scale, ..Default::default() };
    let simulate = SimulateKeywords { body, ..Default::default() };
    let prepared = simulate.prepare(Spelling::Keyword).unwrap();
    for part in &prepared.parts {
        let report = prepared.run_part(part, &CpuBackend, 1, &mut |_, _| {}).unwrap();
        let pbdfit_jobs::SimulateReport::Rest(rest) = &report else { panic!("a rest state") };
        let total: f64 = rest.masses.iter().sum();
        assert!((rest.body.mass_kg - 8.0).abs() < 1e-12 && (total - 8.0).abs() < 1e-12, "{total}");
        assert!(report.text().starts_with("body: 0.2 m (largest extent), density 1000 kg/m^3, mass 8 kg\n"));
    }
}

/// Bad values are refused naming the option in the front end's spelling, its unit and the value; a size
/// is refused where the reference is measured markers (they fix the body's scale), for `fit` and for
/// `identify`, while a density is taken.
#[test]
fn bad_bodies_and_sizes_with_markers_are_refused_by_name() {
    let message = |e: FitJobError| match e {
        FitJobError::Input(m) => m,
        other => panic!("an input error, got {other:?}"),
    };
    for (spelling, density, size) in [(Spelling::Flag, "--density", "--size"), (Spelling::Keyword, "density", "size")] {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut job = FitJob::new("gravity-wall", ModelKind::PBD);
            job.body = BodyKeywords { density: Some(bad), size: None, thickness: None };
            let e = message(job.prepare(spelling).unwrap_err());
            assert!(e.starts_with(&format!("{density} must be a finite number > 0 kg/m^3, got {bad}")), "{e}");
            job.body = BodyKeywords { density: None, size: Some(bad), thickness: None };
            let e = message(job.prepare(spelling).unwrap_err());
            assert!(e.starts_with(&format!("{size} must be a finite number > 0 m, got {bad}")), "{e}");
        }
    }
    let markers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../reports/measured/example/markers.csv");
    let mut job = FitJob::new("cantilever", ModelKind::PBD);
    job.measured = Some(markers.clone());
    job.body = BodyKeywords { density: None, size: Some(0.1), thickness: None };
    let e = message(job.prepare(Spelling::Flag).unwrap_err());
    assert!(e.contains("--size scales the body") && e.contains("markers"), "{e}");
    let scale = BodyKeywords { density: None, size: Some(0.1), thickness: None };
    let body = pbdfit_fit::Body { scene: "cantilever".into(), scale, ..Default::default() };
    let identify = IdentifyKeywords { body, measured: Some(markers), ..Default::default() };
    let e = message(identify.run(Spelling::Keyword).unwrap_err());
    assert!(e.starts_with("size: identify compares the FEM with measured markers"), "{e}");
}
