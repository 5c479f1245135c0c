//! A cloth case stepped by pbdfit, printed as JSON for `benchmarks/cloth_against_library.py`, which
//! steps the same sheet in the reference library (pypbd) and compares.
//!
//! Usage: `cloth_steps CASE MODEL PARAMS STEPS [SETTINGS]` with CASE `hanging` or `strip`
//! (`tests/pbd_tests/cloth_cases.rs`), PARAMS the model's parameters separated by
//! commas, SETTINGS `name=value,...`; dt = 0.01 s, nit = 4, gravity (0, -9.81, 0) m/s^2. Prints the
//! sheet (vertices, triangles, masses, held flags), the constraints in list order, the positions after
//! STEPS steps from rest and, for the strip, the rest state's positions (the fixed point of the step map).

use pbdfit_pbd::{ModelKind, ModelRule, PbdSystem, RestOptions, SimParams, Vec3};

#[path = "../tests/pbd_tests/cloth_cases.rs"]
#[allow(dead_code)]
mod cloth_cases;
use cloth_cases::{DT, NIT, case};

fn list(values: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", values.into_iter().collect::<Vec<_>>().join(","))
}

fn vectors(v: &[Vec3]) -> String {
    list(v.iter().map(|p| format!("[{:e},{:e},{:e}]", p.x, p.y, p.z)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(args.len() >= 5, "usage: cloth_steps CASE MODEL PARAMS STEPS [SETTINGS]");
    let (sheet, held) = case(&args[1]);
    let mut kind: ModelKind = args[2].parse().expect("model");
    if let Some(settings) = args.get(5) {
        for item in settings.split(',').filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').expect("name=value");
            kind = kind.with_setting(name, value.parse().expect("value")).expect("setting");
        }
    }
    let values: Vec<f64> = args[3].split(',').map(|v| v.parse().expect("parameter")).collect();
    let steps: usize = args[4].parse().expect("steps");
    let system = PbdSystem::sheet(&args[1], &sheet, &held, Vec3::new(0.0, -9.81, 0.0));
    let params = SimParams::new(DT, NIT, kind.with(&values).expect("parameters"));
    let ModelRule::Cloth(rule) = params.rule() else { panic!("{} is no cloth model", kind) };
    let body = system.cloth_body().expect("a sheet");
    let constraints =
        list(body.constraint_list(&rule.terms).into_iter().map(|(name, p)| {
            format!("{{\"kind\":\"{name}\",\"particles\":{}}}", list(p.iter().map(|i| i.to_string())))
        }));
    let dynamics = system.run_dynamics(&params, steps, steps, |_, _| Ok::<(), ()>(())).expect("steps");
    let stepped: Vec<Vec3> = system.rest_positions().iter().zip(&dynamics.u).map(|(x, u)| x + u).collect();
    // The strip's rest state only: the hanging sheet swings undamped and its fixed point is slow to find.
    let options = RestOptions { max_sweeps: 400_000, ..RestOptions::default() };
    let rest = match (args[1] == "strip").then(|| system.rest_state(&params, &options, None)) {
        None => "{\"skipped\":true}".to_string(),
        Some(Ok(rest)) if !rest.converged => format!("{{\"error\":\"not converged, residual {:e}\"}}", rest.residual),
        Some(Ok(rest)) => format!("{{\"positions\":{},\"residual\":{:e}}}", vectors(&rest.positions), rest.residual),
        Some(Err(e)) => format!("{{\"error\":\"{e}\"}}"),
    };
    println!(
        "{{\"vertices\":{},\"triangles\":{},\"masses\":{},\"held\":{},\"dt\":{DT},\"nit\":{NIT},\"constraints\":{},\
         \"stepped\":{},\"rest\":{}}}",
        vectors(sheet.mesh.vertices()),
        list(sheet.mesh.triangles().iter().map(|t| format!("[{},{},{}]", t[0], t[1], t[2]))),
        list(sheet.lumped_masses().iter().map(|m| format!("{m:e}"))),
        list(held.iter().map(|h| h.to_string())),
        constraints,
        vectors(&stepped),
        rest,
    );
}
