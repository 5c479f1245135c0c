//! A sheet scene's rest state in the `jolt-cloth` profile, printed as JSON with the sheet for
//! `benchmarks/engines/jolt_cloth.py`, which runs the same sheet in Jolt itself and compares.
//!
//! Usage: `jolt_cloth_rest SCENE N DT NIT COMPLIANCE,SHEAR,BEND [SETTINGS [DENSITY [REST]]]` with SETTINGS
//! `name=value,...` (`linear_damping`, `gravity_factor`, `bend=distance|dihedral|none`, `masses=lumped|uniform`,
//! `order=profile|sorted|SEED`) and DENSITY (kg/m^3) replacing the scene's (Jolt refuses a vertex lighter than 1 g:
//! oxijolt's `MAX_VERTEX_INVERSE_MASS`) and REST `fixed-point` (the default rest solve, `RestMethod::FixedPoint`) or
//! `stepping` (`RestMethod::Stepping`: the dynamics stepped from the flat sheet, as Jolt is; where a sheet has two
//! rest states, as the imported plate has, the one Jolt reaches). Prints the sheet (vertices, triangles in the order the setting `order`
//! hands them to `CreateConstraints`, the masses of the setting `masses`, held flags,
//! gravity; the held vertices are those a fit holds, `SheetBody::particle_held`: the supports and a clamped
//! edge's first cell), the numbers of edge and dihedral constraints `CreateConstraints` makes, and the rest
//! displacements (m).

use pbdfit_mesh::SheetScene;
use pbdfit_pbd::engines::jolt_faces::{JoltBend, create_constraints};
use pbdfit_pbd::{ModelKind, PbdSystem, RestMethod, RestOptions, SimParams, Vec3};

fn list(values: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", values.into_iter().collect::<Vec<_>>().join(","))
}

fn vectors(v: &[Vec3]) -> String {
    list(v.iter().map(|p| format!("[{:e},{:e},{:e}]", p.x, p.y, p.z)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(args.len() >= 6, "usage: jolt_cloth_rest SCENE N DT NIT COMPLIANCE,SHEAR,BEND [SETTINGS [DENSITY [REST]]]");
    let density = args.get(7).map(|d| d.parse().expect("density"));
    let scene = SheetScene::load(&args[1]).expect("sheet scene").with_body(density, None, None).expect("density");
    let body = scene.body(Some(args[2].parse().expect("N"))).expect("body");
    let dt: f64 = args[3].parse().expect("dt");
    let nit: usize = args[4].parse().expect("nit");
    let values: Vec<f64> = args[5].split(',').map(|v| v.parse().expect("parameter")).collect();
    let mut kind: ModelKind = "jolt-cloth".parse().expect("model");
    for item in args.get(6).map(String::as_str).unwrap_or("").split(',').filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').expect("name=value");
        kind = kind.with_setting(name, kind.setting_value(name, value).expect("value")).expect("setting");
    }
    // The vertices a fit holds: the supports, and a clamped edge's first cell (`SheetBody::particle_held`).
    let held = body.particle_held();
    let system = PbdSystem::sheet_body(&body);
    let params = SimParams::new(dt, nit, kind.with(&values).expect("parameters"));
    let method = match args.get(8).map(String::as_str) {
        None | Some("fixed-point") => RestMethod::FixedPoint,
        Some("stepping") => RestMethod::Stepping,
        Some(other) => panic!("REST: `{other}` is neither fixed-point nor stepping"),
    };
    let options = RestOptions { max_sweeps: 400_000, method, ..RestOptions::default() };
    let rest = match system.rest_state(&params, &options, None) {
        Ok(rest) if rest.converged => {
            format!("{{\"displacements\":{},\"residual\":{:e}}}", vectors(&rest.displacements), rest.residual)
        }
        Ok(rest) => format!("{{\"error\":\"not converged, residual {:e}\"}}", rest.residual),
        Err(e) => format!("{{\"error\":\"{e}\"}}"),
    };
    // The constraints CreateConstraints makes with the bend type asked for, as the profile makes them.
    let setting = |wanted: &str| kind.settings().into_iter().find(|(name, _)| *name == wanted).map_or(0.0, |(_, v)| v);
    let bend = [JoltBend::Distance, JoltBend::Dihedral, JoltBend::None][setting("bend") as usize];
    let order = kind.creation_order().unwrap_or_default();
    let triangles = order.faces(&system.cloth_body().expect("a sheet").triangles());
    let movable: Vec<bool> = system.inverse_masses().iter().map(|&w| w > 0.0).collect();
    let made = create_constraints(&triangles, system.rest_positions(), &movable, bend);
    let g = body.gravity;
    println!(
        "{{\"vertices\":{},\"triangles\":{},\"masses\":{},\"held\":{},\"gravity\":[{:e},{:e},{:e}],\"dt\":{dt:e},\
         \"nit\":{nit},\"constraints\":{{\"edges\":{},\"dihedral\":{}}},\"rest\":{}}}",
        vectors(body.sheet.mesh.vertices()),
        list(triangles.iter().map(|t| format!("[{},{},{}]", t[0], t[1], t[2]))),
        list(body.sheet.masses(kind.sheet_masses()).iter().map(|m| format!("{m:e}"))),
        list(held.iter().map(|h| h.to_string())),
        g.x,
        g.y,
        g.z,
        made.edges.len(),
        made.dihedral.len(),
        rest,
    );
}
