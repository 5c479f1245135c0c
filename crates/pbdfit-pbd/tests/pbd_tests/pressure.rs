//! Pressure on the cloth models: a dead pressure `rho h g` along the sheet's normal rests the strip where
//! its weight does (the same accelerations, `p A / 3` over the lumped `rho h A / 3`), a follower pressure
//! turns with a turned scene and, where the strip turns, pushes it elsewhere than the dead one; the
//! mass-spring cloth, whose Newton has no load stiffness, refuses a follower pressure by name.

use super::cloth_cases::{DT, NIT, case};
use nalgebra::Rotation3;
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh, TrianglePressure, Vec3};
use pbdfit_pbd::{ModelKind, PbdError, PbdSystem, RestOptions, SimParams};

/// The strip's weight per area as a pressure (Pa): the cases' normal `(x1 - x0) x (x2 - x0)` is `-y`
/// (the rectangle's `+z` turned into the plane y = 0), so a positive pressure pushes along gravity.
fn weight_per_area(sheet: &Sheet) -> f64 {
    sheet.areal_mass() * 9.81
}

fn pressure(sheet: &Sheet, p: f64, follower: bool) -> TrianglePressure {
    let n = sheet.mesh.triangles().len();
    let (f, d) = if follower { (vec![p; n], vec![0.0; n]) } else { (vec![0.0; n], vec![p; n]) };
    TrianglePressure { follower: f, dead: d }
}

fn rest(system: &PbdSystem, kind: ModelKind) -> Result<Vec<Vec3>, PbdError> {
    let params = SimParams::new(DT, NIT, kind.example());
    let options = RestOptions { max_sweeps: 400_000, ..RestOptions::default() };
    system.rest_state(&params, &options, None).map(|r| {
        println!(
            "  {kind}: converged {} residual {:e} iterations {} max |u| {:e}",
            r.converged,
            r.residual,
            r.iterations,
            r.max_displacement()
        );
        r.displacements
    })
}

fn largest_difference(a: &[Vec3], b: &[Vec3]) -> f64 {
    let scale = a.iter().map(|u| u.norm()).fold(0.0, f64::max);
    a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max) / scale
}

/// A dead pressure of the strip's weight per area, without gravity, gives the rest state of its weight, to
/// 1e-9 of the largest displacement, for a stretch-and-bend cloth model, a FEM-triangle one, Newton's XPBD
/// cloth and the mass-spring cloth. (`jolt-cloth` is left out: on this strip, which hangs nearly
/// vertical, two of its converged rest states from loads equal to round-off lie 1.6e-3 apart, the
/// conditioning of its hanging branch, not the load.)
#[test]
fn a_dead_pressure_of_the_weight_per_area_rests_the_strip_as_its_weight() {
    let (sheet, held) = case("strip");
    let weighed = PbdSystem::sheet("strip", &sheet, &held, Vec3::new(0.0, -9.81, 0.0));
    let pressed = PbdSystem::sheet("strip", &sheet, &held, Vec3::zeros()).with_pressure(&pressure(
        &sheet,
        weight_per_area(&sheet),
        false,
    ));
    assert!(!pressed.is_gravity_only() && !pressed.has_follower_pressure());
    for name in ["cloth-xpbd", "cloth-fem", "newton-cloth", "cloth-mass-spring"] {
        let kind: ModelKind = name.parse().unwrap();
        let (a, b) = (rest(&weighed, kind).unwrap(), rest(&pressed, kind).unwrap());
        let difference = largest_difference(&a, &b);
        println!("{name}: dead pressure against weight: {difference:.2e} of the largest displacement");
        assert!(difference < 1e-9, "{name}: {difference:e}");
    }
}

/// A 1 m x 1 m fabric (the cases' 0.5 mm, 400 kg/m^3) of 8 x 8 quads in the plane y = 0, held on its
/// whole boundary: a drum, which a pressure inflates (a follower pressure on a cantilevered strip is
/// Beck's column, with no rest state to speak of).
fn drum(q: &Rotation3<f64>) -> (Sheet, Vec<bool>) {
    let flat = SheetMesh::rectangle(1.0, 1.0, 8, 8, Diagonal::Alternating).unwrap();
    let held = flat.boundary_vertices();
    let vertices = flat.vertices().iter().map(|p| q * Vec3::new(p.x, 0.0, p.y)).collect();
    let sheet = Sheet::new(SheetMesh::new(vertices, flat.triangles().to_vec()).unwrap(), 5e-4, 400.0).unwrap();
    (sheet, held)
}

/// Without gravity, a follower pressure on the drum turned by a rotation `q` rests it at `q` times the
/// unturned rest state (nothing but the scene turns); the dead pressure ends elsewhere (the facets turn, and
/// the follower turns with them), and the mass-spring cloth refuses the follower, naming what works.
#[test]
fn a_follower_pressure_turns_with_the_scene_and_differs_from_a_dead_one() {
    let q = Rotation3::from_euler_angles(0.4, -0.7, 1.1);
    let ((sheet, held), (turned, _)) = (drum(&Rotation3::identity()), drum(&q));
    let p = 100.0 * weight_per_area(&sheet);
    let build = |s: &Sheet, follower: bool| {
        PbdSystem::sheet("drum", s, &held, Vec3::zeros()).with_pressure(&pressure(s, p, follower))
    };
    let kind: ModelKind = "cloth-xpbd".parse().unwrap();
    let follower = rest(&build(&sheet, true), kind).unwrap();
    let rotated = rest(&build(&turned, true), kind).unwrap();
    let back: Vec<Vec3> = rotated.iter().map(|u| q.inverse() * u).collect();
    let difference = largest_difference(&follower, &back);
    println!("cloth-xpbd, follower pressure on the turned drum: {difference:.2e} of the largest displacement");
    assert!(difference < 1e-8, "{difference:e}");
    let dead = rest(&build(&sheet, false), kind).unwrap();
    let apart = largest_difference(&dead, &follower);
    let centre = |u: &[Vec3]| u.iter().map(|u| u.y).fold(f64::INFINITY, f64::min);
    println!("centre: follower {:.5} m, dead {:.5} m; rest states {apart:.2e} apart", centre(&follower), centre(&dead));
    assert!(apart > 1e-3, "{apart:e}");
    let springs: ModelKind = "cloth-mass-spring".parse().unwrap();
    let e = rest(&build(&sheet, true), springs).unwrap_err().to_string();
    assert!(e.contains("follower pressure") && e.contains("follower = false"), "{e}");
}
