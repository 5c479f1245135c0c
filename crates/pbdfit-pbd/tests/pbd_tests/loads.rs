//! PBD, XPBD and mass-spring rest states under the load cases besides gravity.

use pbdfit_mesh::{Body, SceneSet, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions, Scale, SimParams};

fn params(kind: ModelKind, values: &[f64], nit: usize) -> SimParams {
    SimParams::new(0.01, nit, kind.with(values).unwrap())
}

/// Every registered model, at the middle of its default box on a linear axis and near the stiff end of
/// a log axis (small compliance, large spring constant): the Hookean potential's correction vanishes quadratically near rest, so a
/// soft compliance makes its fixed point converge too slowly for a test (not a load-case matter).
fn models() -> Vec<(ModelKind, Vec<f64>)> {
    // The engine profiles (their own steps, some with no stable rest state at these points: Newton's Jacobi
    // passes overshoot) are checked in tests/pbd_tests/engines.rs.
    ModelKind::all()
        .iter()
        .filter(|k| !k.is_engine_profile() && k.body_kind() == pbdfit_pbd::BodyKind::Solid)
        .map(|&kind| {
            let values = kind
                .parameters()
                .iter()
                .map(|p| {
                    let (lo, hi) = p.default_box;
                    match p.scale {
                        Scale::Log10 if p.name.starts_with("alpha") => lo * 100.0,
                        Scale::Log10 => hi / 100.0,
                        _ => 0.5 * (lo + hi),
                    }
                })
                .collect();
            (kind, values)
        })
        .collect()
}

/// Kinematic particles: a prescribed rigid translation of the held face carries the whole body along
/// rigidly in every model (no constraint is violated there).
#[test]
fn a_prescribed_translation_moves_the_body_rigidly() {
    let shift = Vec3::new(0.01, -0.02, 0.005);
    let text = "name = \"shifted\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [0, 0, 0]\n\
                [[load.displacement]]\nplane = \"y = 0\"\ndisplacement = [0.01, -0.02, 0.005]\n";
    let body = SceneSet::parse(text, "t", None).unwrap().scenes()[0].body(2).unwrap();
    let system = PbdSystem::new(&body);
    assert!(!system.is_gravity_only());
    for (kind, values) in models() {
        let rest = system.rest_state(&params(kind, &values, 2), &RestOptions::default(), None).unwrap();
        assert!(rest.converged, "{kind}");
        for (v, u) in rest.displacements.iter().enumerate() {
            // The fixed point stops on its residual; the Hookean potential's slow tail leaves 3e-7 of the
            // shift there, the other models far less. A wrong kinematic particle would be off by O(1).
            assert!((u - shift).norm() < 1e-6 * shift.norm(), "{kind}, vertex {v}: {u}");
        }
    }
}

/// Tractions enter as accelerations f / m: nodal forces equal to each vertex's weight give the rest state
/// of gravity itself, in every model.
#[test]
fn forces_equal_to_the_weight_give_the_gravity_rest_state() {
    let gravity = SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap();
    let forced = Body {
        forces: gravity.masses.iter().map(|&m| gravity.gravity * m).collect(),
        gravity: Vec3::zeros(),
        ..gravity.clone()
    };
    let (a, b) = (PbdSystem::new(&gravity), PbdSystem::new(&forced));
    assert!(a.is_gravity_only() && !b.is_gravity_only());
    for (kind, values) in models() {
        let p = params(kind, &values, 3);
        let ua = a.rest_state(&p, &RestOptions::default(), None).unwrap().displacements;
        let ub = b.rest_state(&p, &RestOptions::default(), None).unwrap().displacements;
        let scale = ua.iter().map(|u| u.norm()).fold(0.0, f64::max);
        for v in 0..ua.len() {
            assert!((ua[v] - ub[v]).norm() < 1e-10 * scale, "{kind}, vertex {v}: {} vs {}", ua[v], ub[v]);
        }
    }
}

/// Under tension every model stretches the body along the traction, and the prescribed top face of the
/// torsion scene stays exactly where the load puts it.
#[test]
fn tension_stretches_and_torsion_holds_its_face() {
    let tension = PbdSystem::new(&SceneSet::builtin("tension").unwrap().scenes()[0].body(2).unwrap());
    let torsion_body = SceneSet::builtin("torsion").unwrap().scenes()[0].body(2).unwrap();
    let torsion = PbdSystem::new(&torsion_body);
    for (kind, values) in models() {
        let p = params(kind, &values, 2);
        let u = tension.rest_state(&p, &RestOptions::default(), None).unwrap().displacements;
        let top = tension.rest_positions().iter().position(|x| *x == Vec3::new(0.5, 1.0, 0.5)).unwrap();
        assert!(u[top].y > 0.0, "{kind}: the top rises under tension ({})", u[top]);
        let r = torsion.rest_state(&p, &RestOptions::default(), None).unwrap().displacements;
        for v in 0..r.len() {
            if torsion_body.held[v] {
                assert_eq!(r[v], torsion_body.prescribed[v], "{kind}, vertex {v}");
            }
        }
    }
}
