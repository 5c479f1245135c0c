//! The rest state of one model by the two fixed-point solves, side by side: the Anderson-accelerated
//! iteration (`RootSolve::Anderson`) and Newton-Krylov (`RootSolve::NewtonKrylov`), cold, on the bench
//! bodies of every model family. Prints per case the projection sweeps and wall time of each, and the
//! largest difference of the two rest states relative to the largest displacement (or both verdicts
//! where a point has no rest state). Printed, never asserted (the tests assert the agreement).
//!
//! Each solve stops at 100,000 sweeps (a point that has not converged by then is printed as such).
//!
//! Usage: `cargo run -p pbdfit-pbd --example rest_solvers [FILTER]`: the cases whose line contains FILTER
//! (a model or scene name).

use std::time::Instant;

use pbdfit_mesh::{SceneSet, SheetScene, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions, RootSolve, SimParams};

fn solid(scene: &str, n: usize) -> PbdSystem {
    PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap())
}

fn sheet(scene: &str, n: usize) -> PbdSystem {
    let body = SheetScene::load(scene).unwrap().body(Some(n)).unwrap();
    PbdSystem::sheet_body(&body)
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let newton = ModelKind::NEWTON_XPBD.with_setting("relaxation", 0.3).unwrap();
    // (scene, N, model, dt, nit): the engine command's setting (dt 0.01, nit 10) on the solids.
    let mut cases: Vec<(&str, usize, ModelKind, f64, usize)> = Vec::new();
    for n in [2, 4] {
        for kind in [ModelKind::PBD, ModelKind::XPBD, newton, ModelKind::JOLT, ModelKind::GENESIS_PBD] {
            cases.push(("gravity-wall", n, kind, 0.01, 10));
        }
    }
    let cloth: Vec<ModelKind> = [
        "cloth-pbd",
        "cloth-pbd-isometric",
        "cloth-xpbd",
        "cloth-xpbd-hookean",
        "cloth-xpbd-stvk",
        "cloth-xpbd-morse",
        "cloth-fem",
        "cloth-strain",
    ]
    .iter()
    .map(|name| name.parse().unwrap())
    .collect();
    for scene in ["hanging-sheet", "clamped-strip"] {
        for n in [10, 20] {
            for &kind in &cloth {
                cases.push((scene, n, kind, 0.01, 10));
            }
        }
    }
    println!(
        "{:<15} {:>3} {:<22} {:>10} {:>9} {:>10} {:>9} {:>8}  verdicts",
        "scene", "N", "model", "A sweeps", "A s", "NK sweeps", "NK s", "diff"
    );
    let mut systems: Vec<((String, usize), PbdSystem)> = Vec::new();
    for (scene, n, kind, dt, nit) in cases {
        let line = format!("{scene} {n} {}", kind.spec());
        if !line.contains(&filter) {
            continue;
        }
        let key = (scene.to_string(), n);
        if !systems.iter().any(|(k, _)| *k == key) {
            let system = if SheetScene::names_sheet(scene) { sheet(scene, n) } else { solid(scene, n) };
            systems.push((key.clone(), system));
        }
        let system = &systems.iter().find(|(k, _)| *k == key).unwrap().1;
        let params = SimParams::new(dt, nit, kind.example());
        let run = |root| {
            let options = RestOptions { root, max_sweeps: 100_000, ..RestOptions::default() };
            let start = Instant::now();
            let r = system.rest_state(&params, &options, None);
            (r, start.elapsed().as_secs_f64())
        };
        let (a, ta) = run(RootSolve::Anderson);
        let (b, tb) = run(RootSolve::NewtonKrylov);
        let sweeps = |r: &Result<pbdfit_pbd::RestState, _>| r.as_ref().map_or(0, |r| r.iterations);
        let (diff, verdict) = match (&a, &b) {
            (Ok(a), Ok(b)) => {
                let d = a.displacements.iter().zip(&b.displacements).map(|(p, q): (&Vec3, &Vec3)| (p - q).norm());
                let d = d.fold(0.0, f64::max) / a.max_displacement().max(f64::MIN_POSITIVE);
                (
                    format!("{d:.1e}"),
                    format!(
                        "both rest (max |u| {:.4e} m, converged {} {})",
                        a.max_displacement(),
                        a.converged,
                        b.converged
                    ),
                )
            }
            (a, b) => ("-".into(), format!("A: {}; NK: {}", short(a), short(b))),
        };
        println!(
            "{:<15} {:>3} {:<22} {:>10} {:>9.3} {:>10} {:>9.3} {:>8}  {verdict}",
            scene,
            n,
            kind.spec(),
            sweeps(&a),
            ta,
            sweeps(&b),
            tb,
            diff
        );
    }
}

fn short(r: &Result<pbdfit_pbd::RestState, pbdfit_pbd::PbdError>) -> String {
    match r {
        Ok(r) => format!("rest {:.4e} m", r.max_displacement()),
        Err(e) => e.to_string().chars().take(90).collect(),
    }
}
