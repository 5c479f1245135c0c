//! The FEM under the load cases besides gravity: tractions, prescribed displacements, rotations.

use pbdfit_fem::{StaticProblem, YoungPoisson, reactions, solve_static};
use pbdfit_mesh::{Body, SceneSet, Vec3};

fn body(scene: &str, n: usize) -> Body {
    SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap()
}

/// Uniaxial tension with nu = 0: the clamped bottom face does not restrain a lateral contraction that
/// does not happen, so the exact solution is the linear field u = (0, t y / E, 0), which linear
/// tetrahedra reproduce exactly at every resolution (a patch test under a traction load).
#[test]
fn tension_with_nu_zero_is_the_exact_uniaxial_field() {
    for n in 1..=3 {
        let b = body("tension", n);
        let u = solve_static(&b, YoungPoisson::new(1e3, 0.0).unwrap()).unwrap();
        for (v, x) in b.mesh.vertices().iter().enumerate() {
            let exact = Vec3::new(0.0, 10.0 * x.y / 1e3, 0.0);
            assert!((u.displacements[v] - exact).norm() < 1e-12, "N = {n}, vertex {v}: {}", u.displacements[v]);
        }
        // Compression is its mirror.
        let c = solve_static(&body("compression", n), YoungPoisson::new(1e3, 0.0).unwrap()).unwrap();
        for v in 0..b.mesh.vertices().len() {
            assert!((c.displacements[v] + u.displacements[v]).norm() < 1e-12);
        }
    }
}

/// Equilibrium: the support's reactions balance the applied traction, for every traction scene and nu.
#[test]
fn reactions_balance_the_traction() {
    for scene in ["tension", "compression", "shear"] {
        let b = body(scene, 3);
        let applied: Vec3 = b.forces.iter().sum();
        for nu in [0.0, 0.3, 0.45] {
            let material = YoungPoisson::new(1e3, nu).unwrap();
            let u = solve_static(&b, material).unwrap();
            let total: Vec3 = reactions(&b, material, &u).unwrap().iter().map(|(_, f)| f).sum();
            assert!((total + applied).norm() < 1e-10 * applied.norm(), "{scene}, nu = {nu}: {total} vs {applied}");
        }
    }
}

/// A prescribed rigid motion of the held face moves the whole body rigidly (no strain, no stress), and a
/// rotation's prescribed values are exactly the rotation's.
#[test]
fn a_prescribed_rigid_motion_moves_the_body_rigidly() {
    let text = "name = \"shifted\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [0, 0, 0]\n\
                [[load.displacement]]\nplane = \"y = 0\"\ndisplacement = [0.01, -0.02, 0.005]\n";
    let b = SceneSet::parse(text, "t", None).unwrap().scenes()[0].body(3).unwrap();
    let u = solve_static(&b, YoungPoisson::new(1e3, 0.3).unwrap()).unwrap();
    for d in &u.displacements {
        assert!((d - Vec3::new(0.01, -0.02, 0.005)).norm() < 1e-14, "{d}");
    }
    // Torsion: the top face sits at the prescribed rotation, and the FEM does not depend on E (a pure
    // displacement load): E = 1e3 and 1e6 give the same field.
    let t = body("torsion", 2);
    let soft = StaticProblem::new(&t).unwrap().solve(YoungPoisson::new(1e3, 0.3).unwrap()).unwrap();
    let stiff = StaticProblem::new(&t).unwrap().solve(YoungPoisson::new(1e6, 0.3).unwrap()).unwrap();
    for v in 0..t.mesh.vertices().len() {
        if t.held[v] {
            assert_eq!(soft.displacements[v], t.prescribed[v]);
        }
        assert!((soft.displacements[v] - stiff.displacements[v]).norm() < 1e-12);
    }
}
