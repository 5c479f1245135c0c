//! The sheets of the cloth comparison with the reference library (`benchmarks/cloth_against_library.py`,
//! the example `cloth_steps` and the test `cloth.rs` share them): `hanging`, a 1 m x 1 m sheet of 8 x 8
//! quads (alternating diagonals) in the plane y = 0, held at the two corners of its edge z = 0; `strip`,
//! a 1 m x 0.2 m strip of 10 x 2 quads clamped along its edge x = 0. A fabric: 0.5 mm thick, 400 kg/m^3
//! (0.2 kg/m^2), lumped masses. Gravity (0, -9.81, 0) m/s^2, dt = 0.01 s, nit = 4.

use pbdfit_mesh::{Diagonal, Sheet, SheetMesh, Vec3};
use pbdfit_pbd::PbdSystem;

/// Time step (s) and sweeps per step of every case.
pub const DT: f64 = 0.01;
/// Sweeps per step.
pub const NIT: usize = 4;

/// The case's sheet (in the plane y = 0) and held flags.
pub fn case(name: &str) -> (Sheet, Vec<bool>) {
    let (width, depth, nx, nz) = match name {
        "hanging" => (1.0, 1.0, 8, 8),
        "strip" => (1.0, 0.2, 10, 2),
        other => panic!("unknown case {other} (hanging, strip)"),
    };
    let flat = SheetMesh::rectangle(width, depth, nx, nz, Diagonal::Alternating).expect("rectangle");
    let vertices: Vec<Vec3> = flat.vertices().iter().map(|p| Vec3::new(p.x, 0.0, p.y)).collect();
    let mesh = SheetMesh::new(vertices.clone(), flat.triangles().to_vec()).expect("sheet");
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

/// The case's PBD system.
pub fn system(name: &str) -> (PbdSystem, Sheet, Vec<bool>) {
    let (sheet, held) = case(name);
    (PbdSystem::sheet(name, &sheet, &held, Vec3::new(0.0, -9.81, 0.0)), sheet, held)
}
