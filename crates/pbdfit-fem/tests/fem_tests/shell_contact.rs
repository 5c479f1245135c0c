//! The corotational shell with contact: a plate resting on a plane equals the plate held there, a
//! sheet pressed onto a sphere (frictionless and with friction) stays out of it with the forces in
//! balance, frame indifference of a rotated scene, and a sheet held by nothing refused.

use nalgebra::{Rotation3, Vector3};
use pbdfit_fem::shell::{CorotationalShell, SHELL_NEWTON, ShellConstraints, ShellLoad, Support};
use pbdfit_fem::{ContactSettings, ContactState, FemError, GAP_TOLERANCE, YoungPoisson};
use pbdfit_mesh::obstacle::{Plane, Shape, Sphere};
use pbdfit_mesh::{Diagonal, Friction, Obstacle, Sheet, SheetMesh};

const G: f64 = 9.81;

/// A rubber sheet `side` square, 2 mm thick, `n x n` cells, in z = 0 (1 MPa, nu 0.45, 1100 kg/m^3).
fn rubber(side: f64, n: usize) -> (Sheet, YoungPoisson) {
    let mesh = SheetMesh::rectangle(side, side, n, n, Diagonal::Alternating).unwrap();
    (Sheet::new(mesh, 2e-3, 1100.0).unwrap(), YoungPoisson::new(1e6, 0.45).unwrap())
}

fn obstacle(shape: Shape, mu: f64, displacement: Vector3<f64>) -> Obstacle {
    Obstacle {
        key: "obstacle[0]".into(),
        shape,
        friction: Friction { static_coefficient: mu, kinetic_coefficient: mu },
        displacement,
    }
}

fn floor(mu: f64) -> Obstacle {
    let plane = Plane { point: Vector3::zeros(), normal: Vector3::z() };
    obstacle(Shape::Plane(plane), mu, Vector3::zeros())
}

/// The sheet's weight (N, downwards positive) under `load`.
fn weight(load: &ShellLoad) -> f64 {
    -load.nodal.iter().map(|f| f[2]).sum::<f64>()
}

#[test]
fn a_plate_resting_on_a_plane_equals_the_plate_held_there() {
    let (sheet, material) = rubber(0.5, 6);
    let nv = sheet.mesh.vertices().len();
    let shell = CorotationalShell::new(&sheet, material).unwrap();
    let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -G));
    let mut pinned = ShellConstraints::new(nv);
    (0..nv).for_each(|v| {
        pinned.support(v, Support::SimplySupported);
    });
    let held = shell.solve(&pinned, &load, &SHELL_NEWTON).unwrap();
    // Held by nothing but a frictional floor: every vertex sticks, nothing moves.
    let free = ShellConstraints::new(nv);
    let resting = shell.solve_contact(&free, &load, &[floor(0.5)], &ContactSettings::default()).unwrap();
    assert_eq!(resting.contacts.len(), nv);
    let weight = weight(&load);
    let up = resting.total_contact_force().z;
    println!("resting plate: contact force {up:e} N, weight {weight:e} N, {} increments", resting.solution.increments);
    assert!((up / weight - 1.0).abs() < 1e-12, "contact {up} against weight {weight}");
    assert!(resting.reactions.is_empty());
    // The held plate's reactions are the floor's forces, vertex by vertex; the configurations agree.
    let (_, forces) = shell.internal_forces(&held.state).unwrap();
    for c in &resting.contacts {
        assert_eq!(c.state, ContactState::Stick);
        let (f, l) = (forces[c.vertex], load.nodal[c.vertex]);
        let r = Vector3::new(f[0] - l[0], f[1] - l[1], f[2] - l[2]);
        assert!((c.force() - r).norm() <= 1e-10 * weight, "vertex {}: {:?} against {:?}", c.vertex, c.force(), r);
    }
    for v in 0..nv {
        let (a, b) = (resting.solution.displacements.translation(v), held.displacements.translation(v));
        assert!((a - b).norm() <= 1e-12 * 0.5, "vertex {v}: {a:?} against {b:?}");
    }
}

/// A steel plate 1 m square, 3 mm thick, `8 x 8` cells, in z = 0 (200 GPa, nu 0.3, 7850 kg/m^3).
fn steel() -> (Sheet, YoungPoisson) {
    let mesh = SheetMesh::rectangle(1.0, 1.0, 8, 8, Diagonal::Alternating).unwrap();
    (Sheet::new(mesh, 3e-3, 7850.0).unwrap(), YoungPoisson::new(2e11, 0.3).unwrap())
}

/// A steel plate pinned on its four edges in z = 0 (its own weight sags it 1.9 mm at the centre), a
/// sphere of radius 0.4 m under its centre that starts touching it and rises by `rise` pressing into it,
/// friction `mu`; the scene turned by `turn`.
fn pressed(drop: f64, mu: f64, turn: Rotation3<f64>) -> (CorotationalShell, ShellLoad, ShellConstraints, Obstacle) {
    let (flat, material) = steel();
    let vertices: Vec<_> = flat.mesh.vertices().iter().map(|p| turn * p).collect();
    let mesh = SheetMesh::new(vertices, flat.mesh.triangles().to_vec()).unwrap();
    let sheet = Sheet::new(mesh, flat.thickness(), 7850.0).unwrap();
    let shell = CorotationalShell::new(&sheet, material).unwrap();
    let mut constraints = ShellConstraints::new(flat.mesh.vertices().len());
    for (v, p) in flat.mesh.vertices().iter().enumerate() {
        if p.x == 0.0 || p.y == 0.0 || p.x == 1.0 || p.y == 1.0 {
            constraints.support(v, Support::SimplySupported);
        }
    }
    let load = ShellLoad::gravity(&sheet, turn * Vector3::new(0.0, 0.0, -20.0 * G));
    let sphere = Sphere { center: turn * Vector3::new(0.5, 0.5, -20.0 - drop), radius: 20.0, inside: false };
    (shell, load, constraints, obstacle(Shape::Sphere(sphere), mu, Vector3::zeros()))
}

#[test]
fn a_sheet_pressed_onto_a_sphere_stays_out_of_it_with_its_forces_in_balance() {
    for mu in [0.0, 0.3] {
        let (shell, load, constraints, sphere) = pressed(0.0, mu, Rotation3::identity());
        let s = shell
            .solve_contact(&constraints, &load, std::slice::from_ref(&sphere), &ContactSettings::default())
            .unwrap();
        let weight = weight(&load);
        let touching: Vec<_> = s.contacts.iter().filter(|c| c.normal_force > 0.0).collect();
        let (contact, reaction) = (s.total_contact_force(), s.total_reaction());
        println!(
            "mu {mu}: {} pairs pushing, contact {:.6e} N up, supports {:.6e} N up, weight {weight:.6e} N, \
             centre rises {:.5} m, {} increments, {} iterations",
            touching.len(),
            contact.z,
            reaction.z,
            s.solution.displacements.translation(40).z,
            s.solution.increments,
            s.solution.iterations
        );
        assert!(touching.len() > 1, "the sphere presses more than the apex");
        assert!(s.contacts.iter().all(|c| c.normal_force >= 0.0 && c.gap >= -GAP_TOLERANCE * 1.5));
        // No vertex inside the sphere, including those that never touched it.
        let shape = sphere.placed();
        let deepest = s.solution.state.positions.iter().map(|x| shape.gap(x).value).fold(f64::INFINITY, f64::min);
        assert!(deepest >= -GAP_TOLERANCE * 1.5, "deepest gap {deepest:e}");
        // Contact forces, supports and the weight balance (in all three directions).
        let total = contact + reaction + Vector3::new(0.0, 0.0, -weight);
        assert!(total.norm() <= 1e-8 * (contact.norm() + weight), "unbalanced by {total:?}");
        assert!(contact.z > 0.0 && reaction.z > 0.0, "the sphere and the supports carry the sheet");
        if mu > 0.0 {
            assert!(s.contacts.iter().all(|c| c.tangential_force.norm() <= mu * c.normal_force * (1.0 + 1e-9) + 1e-12));
        }
    }
}

#[test]
fn a_rotated_scene_gives_the_rotated_equilibrium() {
    let turn = Rotation3::from_euler_angles(0.3, -0.7, 1.1);
    let settings = ContactSettings::default();
    let (shell, load, constraints, sphere) = pressed(0.0, 0.3, Rotation3::identity());
    let a = shell.solve_contact(&constraints, &load, &[sphere], &settings).unwrap();
    let (shell, load, constraints, sphere) = pressed(0.0, 0.3, turn);
    let b = shell.solve_contact(&constraints, &load, &[sphere], &settings).unwrap();
    let mut worst: f64 = 0.0;
    for (p, q) in a.solution.state.positions.iter().zip(&b.solution.state.positions) {
        worst = worst.max((turn * p - q).norm());
    }
    let rise = a.solution.displacements.max_translation();
    println!("rotated scene: positions differ by {worst:e} m ({:e} of the largest move)", worst / rise);
    assert!(worst <= 1e-7 * rise, "{worst:e}");
    let (fa, fb) = (a.total_contact_force(), b.total_contact_force());
    assert!((turn * fa - fb).norm() <= 1e-7 * fa.norm());
}

#[test]
fn a_sheet_on_a_frictionless_plane_is_refused_for_its_free_rigid_motion() {
    let (sheet, material) = rubber(0.5, 2);
    let nv = sheet.mesh.vertices().len();
    let shell = CorotationalShell::new(&sheet, material).unwrap();
    let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -G));
    let e = shell.solve_contact(&ShellConstraints::new(nv), &load, &[floor(0.0)], &ContactSettings::default());
    match e {
        Err(pbdfit_fem::shell::ShellError::Fem(FemError::FreeRigidMotion { free, .. })) => assert_eq!(free, 3),
        other => panic!("expected a free rigid motion, got {other:?}"),
    }
}

/// A follower pressure is refused by the contact solve (its tangent has no load stiffness for one); the same
/// pressure taken dead is solved, and presses the plate onto the floor with the pressure's force.
#[test]
fn a_follower_pressure_with_contact_is_refused_and_a_dead_one_solved() {
    let (sheet, material) = rubber(0.5, 2);
    let nv = sheet.mesh.vertices().len();
    let shell = CorotationalShell::new(&sheet, material).unwrap();
    let gravity = Vector3::new(0.0, 0.0, -G);
    let triangles = sheet.mesh.triangles().len();
    let follower = pbdfit_mesh::TrianglePressure { follower: vec![-100.0; triangles], dead: vec![0.0; triangles] };
    let load = ShellLoad::of_sheet(&sheet, gravity, &follower);
    let e = shell.solve_contact(&ShellConstraints::new(nv), &load, &[floor(0.5)], &ContactSettings::default());
    assert!(matches!(e, Err(pbdfit_fem::shell::ShellError::FollowerContact)), "{e:?}");
    let text = e.unwrap_err().to_string();
    assert!(text.contains("follower = false"), "{text}");
    let dead = pbdfit_mesh::TrianglePressure { follower: vec![0.0; triangles], dead: vec![-100.0; triangles] };
    let load = ShellLoad::of_sheet(&sheet, gravity, &dead);
    let resting = shell.solve_contact(&ShellConstraints::new(nv), &load, &[floor(0.5)], &ContactSettings::default());
    let up = resting.unwrap().total_contact_force().z;
    let expected = weight(&ShellLoad::gravity(&sheet, gravity)) + 100.0 * 0.25;
    assert!((up / expected - 1.0).abs() < 1e-12, "contact {up} against {expected}");
}
