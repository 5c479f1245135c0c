//! A cloth case stepped by pbdfit, printed as JSON for `benchmarks/cloth_against_library.py`, which
//! steps the same sheet in the reference library (pypbd) and compares.
//!
//! Usage: `cloth_steps CASE MODEL PARAMS STEPS [SETTINGS]` with CASE `hanging` (a 1 m x 1 m sheet of
//! 8 x 8 quads in the plane y = 0, held at the two corners of its edge z = 0) or `strip` (a 1 m x 0.2 m
//! strip of 10 x 2 quads, clamped along its edge x = 0), PARAMS the model's parameters separated by
//! commas, SETTINGS `name=value,...`; dt = 0.01 s, nit = 4, gravity (0, -9.81, 0) m/s^2. Prints the
//! sheet (vertices, triangles, masses, held flags), the constraints in list order, the positions after
//! STEPS steps from rest and the rest state's positions (the fixed point of the step map).

use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};
use pbdfit_pbd::{ModelKind, ModelRule, PbdSystem, RestOptions, SimParams, Vec3};

/// Time step (s) and sweeps per step of every case.
const DT: f64 = 0.01;
const NIT: usize = 4;

/// The case's sheet (in the plane y = 0) and held flags.
fn case(name: &str) -> (Sheet, Vec<bool>) {
    let (width, depth, nx, nz) = match name {
        "hanging" => (1.0, 1.0, 8, 8),
        "strip" => (1.0, 0.2, 10, 2),
        other => panic!("unknown case {other} (hanging, strip)"),
    };
    let flat = SheetMesh::rectangle(width, depth, nx, nz, Diagonal::Alternating).expect("rectangle");
    let vertices: Vec<Vec3> = flat.vertices().iter().map(|p| Vec3::new(p.x, 0.0, p.y)).collect();
    let mesh = SheetMesh::new(vertices.clone(), flat.triangles().to_vec()).expect("sheet");
    // A fabric: 0.5 mm thick, 400 kg/m^3 (0.2 kg/m^2).
    let sheet = Sheet::new(mesh, 5e-4, 400.0).expect("sheet");
    let held = vertices
        .iter()
        .map(|p| match name {
            "hanging" => p.z == 0.0 && (p.x == 0.0 || p.x == width),
            _ => p.x == 0.0,
        })
        .collect();
    (sheet, held)
}

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
    let constraints = list(
        body.constraint_list(&rule.terms)
            .into_iter()
            .map(|(name, p)| format!("{{\"kind\":\"{name}\",\"particles\":{}}}", list(p.iter().map(|i| i.to_string())))),
    );
    let dynamics = system.run_dynamics(&params, steps, steps, |_, _| Ok::<(), ()>(())).expect("steps");
    let stepped: Vec<Vec3> = system.rest_positions().iter().zip(&dynamics.u).map(|(x, u)| x + u).collect();
    let rest = match system.rest_state(&params, &RestOptions::default(), None) {
        Ok(rest) => format!("{{\"positions\":{},\"residual\":{:e}}}", vectors(&rest.positions), rest.residual),
        Err(e) => format!("{{\"error\":\"{e}\"}}"),
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
