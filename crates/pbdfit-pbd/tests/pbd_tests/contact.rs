//! Contact and friction against rigid obstacles: PBD, XPBD and the mass-spring model's Verlet
//! with microcollisions. The figures each test measured are in its comments.

use pbdfit_mesh::obstacle::{Friction, Plane, Shape};
use pbdfit_mesh::{Body, Obstacle, SceneSet, Vec3};
use pbdfit_pbd::{
    IntegrateOptions, Integrator, Model, ModelKind, PbdError, PbdSystem, RestMethod, RestOptions, SensitivityOptions,
    SimParams, SpringLaw,
};

const G: f64 = 9.81;

/// A unit cube of N^3 hexahedra (1 kg), nothing held, under `gravity`, standing on a floor y = 0 with
/// `friction`, and `extra` obstacle tables after it.
fn standing(n: usize, gravity: Vec3, friction: Friction, extra: &str) -> Body {
    let text = format!(
        "name = \"resting\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [{}, {}, {}]\n\
         [material]\ndensity = 1.0\nmass_model = \"lumped\"\n\
         [[obstacle]]\nshape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\n\
         static_friction = {}\nkinetic_friction = {}\n{extra}",
        gravity.x, gravity.y, gravity.z, friction.static_coefficient, friction.kinetic_coefficient
    );
    SceneSet::parse(&text, "t", None).unwrap().scenes()[0].body(n).unwrap()
}

fn resting(n: usize, gravity: Vec3, friction: Friction) -> Body {
    standing(n, gravity, friction, "")
}

/// Four frictionless walls touching the unit cube's sides.
const WALLS: &str = "[[obstacle]]\nshape = \"plane\"\npoint = [0, 0, 0]\nnormal = [1, 0, 0]\n\
                     [[obstacle]]\nshape = \"plane\"\npoint = [1, 0, 0]\nnormal = [-1, 0, 0]\n\
                     [[obstacle]]\nshape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]\n\
                     [[obstacle]]\nshape = \"plane\"\npoint = [0, 0, 1]\nnormal = [0, 0, -1]\n";

/// The projection models the tests run: PBD and XPBD at their example points, stiff enough that a
/// unit cube stands.
fn projection_models() -> [Model; 2] {
    [Model::pbd(0.5, 0.5), ModelKind::XPBD.example()]
}

fn gaps(system: &PbdSystem, positions: &[Vec3]) -> f64 {
    system
        .obstacles()
        .iter()
        .flat_map(|o| positions.iter().map(move |x| o.placed().gap(x).value))
        .fold(f64::INFINITY, f64::min)
}

fn centre(system: &PbdSystem, u: &[Vec3]) -> Vec3 {
    let w = system.inverse_masses();
    let (mut sum, mut mass) = (Vec3::zeros(), 0.0);
    for (p, x) in system.rest_positions().iter().enumerate() {
        sum += (x + u[p]) / w[p];
        mass += 1.0 / w[p];
    }
    sum / mass
}

/// A cube on a frictionless floor, kept from turning by four frictionless walls at its sides, settles
/// with no particle below the floor or beyond a wall, the floor pushing up with the body's weight and the
/// walls not at all upwards; the fixed point is the stepped rest state. Measured (N = 2, dt = 0.01,
/// nit = 4): floor force 9.81 N within 1e-15 relative, lowest gap 0, fixed point against stepping
/// 1.5e-15 m (PBD) and 2e-16 m (XPBD).
///
/// Without the walls a PBD or XPBD cube has no rest state on a frictionless floor (see
/// `on_a_frictionless_floor_alone_pbd_and_xpbd_spin_up`), which is why they are here.
#[test]
fn a_cube_rests_on_a_frictionless_floor_pushed_up_by_its_weight() {
    let body = standing(2, Vec3::new(0.0, -G, 0.0), Friction::NONE, WALLS);
    let system = PbdSystem::new(&body);
    let weight = body.total_mass() * G;
    for model in projection_models() {
        let params = SimParams::new(0.01, 4, model);
        let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        assert!(rest.converged && rest.method == RestMethod::FixedPoint, "{}: {:?}", model.name(), rest.method);
        let lowest = gaps(&system, &rest.positions);
        assert!(lowest >= -1e-12, "{}: a particle {lowest:e} m inside the floor", model.name());
        // The body sags onto the floor: its top comes down.
        assert!(rest.displacements.iter().any(|u| u.y < -1e-6), "{}", model.name());
        let mut d = system.dynamics_from(Some(&rest.displacements));
        system.step(&params, &mut d);
        let forces = system.contact_forces(params.dt, &d);
        let force = forces[0];
        println!("{}: floor force {force:?} N, weight {weight} N, lowest gap {lowest:e} m", model.name());
        println!("{}: wall forces {:?} N", model.name(), &forces[1..]);
        assert!((force - Vec3::new(0.0, weight, 0.0)).norm() < 1e-9 * weight, "{}: {force:?}", model.name());
        assert!(forces[1..].iter().all(|f| f.y.abs() < 1e-12 * weight), "{}: {forces:?}", model.name());
        let stepped = system
            .rest_state(&params, &RestOptions { method: RestMethod::Stepping, ..RestOptions::default() }, None)
            .unwrap();
        let apart =
            stepped.displacements.iter().zip(&rest.displacements).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
        println!("{}: fixed point vs stepping {apart:e} m", model.name());
        assert!(stepped.converged && apart < 1e-9 * rest.max_displacement(), "{}: {apart:e}", model.name());
    }
}

/// PBD's and XPBD's Gauss-Seidel sweeps conserve angular momentum only to first order: each projection
/// conserves `sum m x x dx` at the positions it sees, but a body held compressed by the floor every step
/// gains a small rotation about the vertical each step, which the velocity update keeps. On a frictionless
/// floor nothing resists that, and a cube that should rest spins up until it leaves its extent: no rest
/// state (measured, N = 2, dt = 0.01, nit = 4: a per-step motion growing by 2.7e-8 m per step for PBD
/// 0.5 / 0.5 and 2.3e-8 m for XPBD 1e-4 / 1e-6; PBD's corners 0.107 m round after 30 s while the top
/// centre stays put). Friction, walls or
/// a held vertex stop it; the mass-spring model's forces conserve angular momentum and rest on the floor
/// alone (`mass_spring_rests_sticks_and_slides_with_microcollisions`).
#[test]
fn on_a_frictionless_floor_alone_pbd_and_xpbd_spin_up() {
    let system = PbdSystem::new(&resting(2, Vec3::new(0.0, -G, 0.0), Friction::NONE));
    for model in projection_models() {
        let params = SimParams::new(0.01, 4, model);
        let mut d = system.dynamics();
        let steps: Vec<f64> = (0..3000).map(|_| system.step(&params, &mut d)).collect();
        println!(
            "{}: per-step motion after 1000, 2000, 3000 steps: {:e}, {:e}, {:e} m",
            model.name(),
            steps[999],
            steps[1999],
            steps[2999]
        );
        // Linear growth of the per-step motion: a constant spurious torque.
        assert!(steps[2999] > 1.45 * steps[1999] && steps[1999] > 1.9 * steps[999], "{}", model.name());
        let e = system.rest_state(&params, &RestOptions::default(), None).unwrap_err();
        assert!(matches!(e, PbdError::Diverged { .. }), "{}: {e}", model.name());
    }
}

/// An obstacle that is never touched changes no bit of a rest state (the contact pass finds every
/// particle free), and a body without obstacles takes no contact path at all.
#[test]
fn an_untouched_obstacle_changes_no_bit() {
    let body = SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(2).unwrap();
    let mut far = body.clone();
    far.obstacles.push(Obstacle {
        key: "obstacle[0]".into(),
        shape: Shape::Plane(Plane { point: Vec3::new(0.0, -5.0, 0.0), normal: Vec3::new(0.0, 1.0, 0.0) }),
        friction: Friction::NONE,
        displacement: Vec3::zeros(),
    });
    let (plain, with) = (PbdSystem::new(&body), PbdSystem::new(&far));
    for model in projection_models() {
        let params = SimParams::new(0.01, 2, model);
        let a = plain.rest_state(&params, &RestOptions::default(), None).unwrap();
        let b = with.rest_state(&params, &RestOptions::default(), None).unwrap();
        assert_eq!(a, b, "{}", model.name());
    }
}

/// Steps `steps` times from rest and returns the centre of mass's displacement along x after each.
fn slide(system: &PbdSystem, params: &SimParams, steps: usize) -> Vec<f64> {
    let mut d = system.dynamics();
    let x0 = centre(system, &d.u).x;
    (0..steps)
        .map(|_| {
            system.step(params, &mut d);
            centre(system, &d.u).x - x0
        })
        .collect()
}

/// A block on an incline (gravity tilted by theta about z; mu_s = 0.5, mu_k = 0.3): it sticks for
/// tan(theta) = 0.3 < mu_s, and its rest state is found by stepping; for tan(theta) = 0.7 > mu_s it slides
/// with the kinetic acceleration g (sin - mu_k cos) and has no rest state. Measured (N = 2, dt = 0.01,
/// nit = 4): sticking drift 4e-15 m (PBD) and 0 (XPBD) over the last 5 s of 10 s; sliding distance after
/// 2 s 0.9 % (PBD) and 0.6 % (XPBD) short of a t^2 / 2 (the body's first sag and its elastic rocking);
/// floor force at rest equal to minus the weight within 1e-9.
#[test]
fn a_block_on_an_incline_sticks_below_mu_s_and_slides_above() {
    let friction = Friction { static_coefficient: 0.5, kinetic_coefficient: 0.3 };
    for model in projection_models() {
        let params = SimParams::new(0.01, 4, model);
        // Sticks.
        let theta = 0.3f64.atan();
        let body = resting(2, Vec3::new(G * theta.sin(), -G * theta.cos(), 0.0), friction);
        let system = PbdSystem::new(&body);
        let x = slide(&system, &params, 1000);
        let drift = (x[999] - x[499]).abs();
        println!("{}: sticking drift {drift:e} m (total {:e} m)", model.name(), x[999]);
        assert!(drift < 1e-12, "{}: drift {drift:e} m", model.name());
        let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        assert!(rest.converged && rest.method == RestMethod::Stepping, "{}", model.name());
        assert!(gaps(&system, &rest.positions) >= -1e-12);
        // At rest the floor carries the whole weight, normal and tangential (friction) parts alike.
        let mut d = system.dynamics_from(Some(&rest.displacements));
        system.step(&params, &mut d);
        let force = system.contact_forces(params.dt, &d)[0];
        let weight = body.gravity * body.total_mass();
        assert!((force + weight).norm() < 1e-9 * weight.norm(), "{}: {force:?} vs {weight:?}", model.name());
        // Slides.
        let theta = 0.7f64.atan();
        let body = resting(2, Vec3::new(G * theta.sin(), -G * theta.cos(), 0.0), friction);
        let system = PbdSystem::new(&body);
        let x = slide(&system, &params, 200);
        let a = G * (theta.sin() - 0.3 * theta.cos());
        let t = 200.0 * params.dt;
        let expected = 0.5 * a * t * t;
        println!("{}: slid {:.6} m in {t} s, a t^2 / 2 = {expected:.6} m", model.name(), x[199]);
        assert!((x[199] / expected - 1.0).abs() < 0.02, "{}: {} vs {expected}", model.name(), x[199]);
        let e = system.rest_state(&params, &RestOptions::default(), None).unwrap_err();
        assert!(matches!(e, PbdError::Diverged { .. }), "{}: {e}", model.name());
    }
}

/// A cube dropped into a spherical bowl (inside = true, mu_s = 0.5: a frictionless bowl lets PBD spin
/// about the vertical as a frictionless floor does) stays inside it and settles on it; the bowl carries
/// its weight. Measured (N = 2, dt = 0.01, nit = 4): fell 0.112 m (PBD) and 0.111 m (XPBD), lowest gap
/// 0, bowl force equal to the weight within 1e-12.
#[test]
fn a_cube_in_a_bowl_stays_inside() {
    let text = "name = \"bowl\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [0, -9.81, 0]\n\
                [[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 1.1, 0.5]\nradius = 1.4\ninside = true\n\
                static_friction = 0.5\n";
    let body = SceneSet::parse(text, "t", None).unwrap().scenes()[0].body(2).unwrap();
    let system = PbdSystem::new(&body);
    let weight = body.total_mass() * G;
    for model in projection_models() {
        let params = SimParams::new(0.01, 4, model);
        let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        assert!(rest.converged, "{}", model.name());
        let lowest = gaps(&system, &rest.positions);
        // It fell about 0.12 m, until its bottom corners met the bowl.
        let zeros = vec![Vec3::zeros(); system.particle_count()];
        let fell = centre(&system, &zeros).y - centre(&system, &rest.displacements).y;
        println!("{}: fell {fell:.4} m, lowest gap {lowest:e} m", model.name());
        assert!(lowest >= -1e-12 && fell > 0.1, "{}: {lowest:e}, {fell}", model.name());
        let mut d = system.dynamics_from(Some(&rest.displacements));
        system.step(&params, &mut d);
        let force = system.contact_forces(params.dt, &d)[0];
        println!("{}: bowl force {force:?} N", model.name());
        assert!((force - Vec3::new(0.0, weight, 0.0)).norm() < 1e-9 * weight, "{}: {force:?}", model.name());
    }
}

/// A box and a sphere, each displaced 0.05 m into a block held at its bottom, push the particles they
/// overlap out in the first steps (they sit at their placed position from the start) and hold them on
/// their surface at rest: the top centre vertex ends 0.05 m down, no particle inside, and the obstacle
/// pushes down.
#[test]
fn a_box_and_a_sphere_pressed_into_a_block_hold_it_down() {
    for obstacle in [
        "shape = \"box\"\ncenter = [0.5, 1.5, 0.5]\nhalf_extents = [0.3, 0.5, 0.3]",
        "shape = \"sphere\"\ncenter = [0.5, 1.25, 0.5]\nradius = 0.25",
    ] {
        let text = format!(
            "name = \"pressed\"\n[body]\nshape = \"unit-cube\"\n[load]\ngravity = [0, -9.81, 0]\n[[held]]\n\
             plane = \"y = 0\"\n[[obstacle]]\n{obstacle}\ndisplacement = [0, -0.05, 0]\n"
        );
        let body = SceneSet::parse(&text, "t", None).unwrap().scenes()[0].body(2).unwrap();
        let system = PbdSystem::new(&body);
        let top = system.rest_positions().iter().position(|x| *x == Vec3::new(0.5, 1.0, 0.5)).unwrap();
        for model in projection_models() {
            let params = SimParams::new(0.01, 4, model);
            let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
            assert!(rest.converged, "{}", model.name());
            let lowest = gaps(&system, &rest.positions);
            println!("{obstacle:.20} {}: top {:?}, lowest gap {lowest:e}", model.name(), rest.displacements[top]);
            assert!(lowest >= -1e-12, "{}: {lowest:e}", model.name());
            // The top centre vertex sits on the obstacle's surface, 0.05 m down (a little less on the
            // sphere, which it meets off its lowest point after sliding sideways by about 2e-3 m).
            let on = system.obstacles()[0].placed().gap(&rest.positions[top]).value;
            assert!(on.abs() < 1e-12 && (rest.displacements[top].y + 0.05).abs() < 1e-4, "{}: {on:e}", model.name());
            let mut d = system.dynamics_from(Some(&rest.displacements));
            system.step(&params, &mut d);
            let force = system.contact_forces(params.dt, &d)[0];
            assert!(force.y < -0.1, "{}: {force:?}", model.name());
        }
    }
}

/// With contact there is no sensitivity (typed error), and the f32 library arithmetic refuses.
#[test]
fn sensitivity_and_f32_refuse_contact() {
    let system = PbdSystem::new(&resting(1, Vec3::new(0.0, -G, 0.0), Friction::NONE));
    let params = SimParams::new(0.01, 2, Model::pbd(0.5, 0.5));
    let rest = vec![Vec3::zeros(); system.particle_count()];
    let e = system.sensitivity(&params, &rest, &SensitivityOptions::default()).unwrap_err();
    assert!(matches!(e, PbdError::Contact { .. }) && e.to_string().contains("`pbdfit fit` works as it is"), "{e}");
    let f32 = RestOptions { method: RestMethod::LibraryF32, ..RestOptions::default() };
    let e = system.rest_state(&params, &f32, None).unwrap_err();
    assert!(matches!(e, PbdError::Contact { .. }), "{e}");
}

/// Mass-spring with Verlet and microcollisions: a cube settles on a frictionless floor with no particle
/// inside it and the floor pushing up with its weight, as its rest state; on an incline it sticks below
/// mu_k (from an undeformed start, which slips a little as it sags) and slides at the kinetic
/// acceleration above mu_s. Measured (N = 2): floor force 9.80999999 N of 9.81 N after 1990 settling
/// steps, lowest gap 0; sticking drift 1.8e-10 m over the last second; sliding 6.4267 m in 2 s against
/// a t^2 / 2 = 6.4293 m (0.04 %).
#[test]
fn mass_spring_rests_sticks_and_slides_with_microcollisions() {
    let law = SpringLaw { ks: 100.0, ..SpringLaw::NONE };
    let body = resting(2, Vec3::new(0.0, -G, 0.0), Friction::NONE);
    let system = PbdSystem::new(&body);
    let weight = body.total_mass() * G;
    let run = system.spring_body().settle(&law).unwrap();
    let positions: Vec<Vec3> = system.rest_positions().iter().zip(&run.displacements).map(|(x, u)| x + u).collect();
    let lowest = gaps(&system, &positions);
    let force = run.contact.forces[0];
    println!("mass-spring: {} steps, floor force {force:?} N of {weight} N, lowest gap {lowest:e} m", run.steps);
    assert!(run.settled && lowest >= -1e-12);
    assert!((force - Vec3::new(0.0, weight, 0.0)).norm() < 1e-6 * weight, "{force:?}");
    let params = SimParams::new(0.01, 1, ModelKind::MASS_SPRING.with(&[100.0]).unwrap());
    let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
    assert_eq!(rest.displacements, run.displacements);
    assert_eq!(rest.method, RestMethod::Stepping);
    // Only Verlet has contact.
    let options = IntegrateOptions { max_steps: 10, tolerance: 0.0, every: 1 };
    let e = system.spring_body().integrate(&law, Integrator::ImplicitEuler, 1e-3, &options, |_, _| {}).unwrap_err();
    assert!(e.to_string().contains("verlet"), "{e}");

    let friction = Friction { static_coefficient: 0.5, kinetic_coefficient: 0.3 };
    // Stiffer springs for the incline: the soft body's first sag (0.1 m at ks = 100) throws its bottom
    // into sliding, and between mu_k and mu_s a slide goes on (at tan = mu_k, at constant speed).
    let damped = SpringLaw { ks: 1000.0, damping: 5.0, ..SpringLaw::NONE };
    for (tangent, sticks) in [(0.25f64, true), (0.7, false)] {
        let theta = tangent.atan();
        let body = resting(2, Vec3::new(G * theta.sin(), -G * theta.cos(), 0.0), friction);
        let system = PbdSystem::new(&body);
        let springs = system.spring_body();
        let dt = 1e-3;
        let mut xs = Vec::new();
        let options = IntegrateOptions { max_steps: 3000, tolerance: 0.0, every: 1 };
        springs
            .integrate(&damped, Integrator::Verlet, dt, &options, |_, u| xs.push(centre(&system, u).x - 0.5))
            .unwrap();
        let t = 2000.0 * dt;
        if sticks {
            let drift = (xs[3000] - xs[2000]).abs();
            println!("mass-spring sticking: drift {drift:e} m over the last second (total {:e} m)", xs[3000]);
            assert!(drift < 1e-9, "{drift:e}");
        } else {
            let a = G * (theta.sin() - 0.3 * theta.cos());
            let expected = 0.5 * a * t * t;
            println!("mass-spring sliding: {:.6} m in {t} s, a t^2 / 2 = {expected:.6} m", xs[2000]);
            assert!((xs[2000] / expected - 1.0).abs() < 0.02, "{} vs {expected}", xs[2000]);
        }
    }
}

/// A mass-spring rest state on obstacles settles by up to 2,000,000
/// Verlet steps (14 s for a hopeless 8-vertex point on `indentation`) and never looked at the fit's
/// deadline, so `fit --max-seconds 20` took 59 s. With a deadline already passed the settling run stops
/// at once with a typed error naming the time limit (deterministic: no step is taken after it); without
/// one the same rest state as before comes back.
#[test]
fn mass_spring_settling_stops_at_the_deadline() {
    let body = resting(1, Vec3::new(0.0, -G, 0.0), Friction::NONE);
    let system = PbdSystem::new(&body);
    let params = SimParams::new(0.01, 1, ModelKind::MASS_SPRING.with(&[100.0]).unwrap());
    let past = RestOptions { deadline: Some(std::time::Instant::now()), ..RestOptions::default() };
    let e = system.rest_state(&params, &past, None).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, PbdError::MassSpring { .. }) && text.contains("--max-seconds"), "{text}");
    assert!(text.contains("after 0 Verlet steps"), "{text}");
    let law = SpringLaw { ks: 100.0, ..SpringLaw::NONE };
    let e = system.spring_body().settle_until(&law, Some(std::time::Instant::now())).unwrap_err();
    assert!(matches!(e, pbdfit_pbd::SpringError::TimeLimit { steps: 0, .. }), "{e}");
    // No deadline, or one far away: the rest state of `settle`.
    let far = std::time::Instant::now().checked_add(std::time::Duration::from_secs(3600));
    let rest = system.rest_state(&params, &RestOptions { deadline: far, ..RestOptions::default() }, None).unwrap();
    assert_eq!(rest.displacements, system.spring_body().settle(&law).unwrap().displacements);
}

/// The cloth models' rest states on obstacles with friction, stepped (path dependent), end at the rest
/// map's rounding: the draped sheet (`draped-sheet`, N = 4: a film held at its centre particle on a
/// sphere's apex, friction 0.3) and a fabric on a plane inclined by 25 degrees (friction 0.3, below
/// `tan 25 = 0.47`) held at a corner. Stepping's relative tolerance (1e-13 of the displacement) can be
/// below what their sweeps in positions resolve (a sheet lying still), and their growth judge took a creep
/// by rounding for a motion; `RestState::converged` now also comes where the step and the rest map are both
/// within ten times the map's measured rounding, as the root solve's (the draped sheet: residual 1.3e-12 and
/// 1.3e-11, where the tolerance took 1,088 and 44,860 sweeps). On the sphere each rests touching
/// it, the sphere pushing up (measured for `cloth-xpbd`,
/// `alpha_b` 1e-2 and 1e-4, `cloth-pbd` kd = kb = 1: 1.69 to 1.74 N, above the free particles' 1.41 N, so
/// the held centre particle pulls the sheet down by about 0.3 N; its sideways part up to 7 % of the weight, a
/// friction locked in along the path; the shell's sphere carries 0.35 N of 1.47 N), no particle inside; on
/// the incline the plane's normal force is the free particles' weight times cos 25 degrees to 2 % (measured:
/// 0.3 to 1.0 % below it), the friction and the held corner take the downhill part. A fabric
/// lying on a level plane rests where it lies (max |u| below 1e-12 m; refused as diverged before the
/// floor). dt = 0.01 s, nit = 1.
#[test]
fn cloth_on_a_sphere_and_an_incline_rests_at_its_rounding() {
    let draped = pbdfit_mesh::SheetScene::load("draped-sheet").unwrap().body(Some(4)).unwrap();
    let incline = pbdfit_mesh::SheetScene::parse(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/draped-sheet.toml"))
            .unwrap()
            .replace("name = \"draped-sheet\"", "name = \"incline\"")
            .replace(
                "[[held]]\nbox = { min = [0.5, 0.5, 0.0], max = [0.5, 0.5, 0.0] }",
                "[[held]]\nbox = { min = [0.0, 0.0, 0.0], max = [0.0, 0.0, 0.0] }",
            )
            .replace(
                "shape = \"sphere\"\ncenter = [0.5, 0.5, -1.0]\nradius = 1.0",
                "shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]",
            )
            .replace(
                "gravity = [0.0, 0.0, -9.81]",
                &format!("gravity = [{}, 0.0, {}]", G * 0.4226182617, -G * 0.9063077870),
            )
            .replace("young = 2e9", "young = 2e6"),
        "incline",
        None,
    )
    .unwrap()
    .body(Some(4))
    .unwrap();
    // The same fabric lying on a level plane: at rest where it lies, to rounding (the growth judge without
    // the floor gave it up as diverged, its largest displacement 3.5e-15 m growing window after window).
    let lying = pbdfit_mesh::SheetScene::parse(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/draped-sheet.toml"))
            .unwrap()
            .replace("name = \"draped-sheet\"", "name = \"lying\"")
            .replace(
                "[[held]]\nbox = { min = [0.5, 0.5, 0.0], max = [0.5, 0.5, 0.0] }",
                "[[held]]\nbox = { min = [0.0, 0.0, 0.0], max = [0.0, 0.0, 0.0] }",
            )
            .replace(
                "shape = \"sphere\"\ncenter = [0.5, 0.5, -1.0]\nradius = 1.0",
                "shape = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]",
            )
            .replace("young = 2e9", "young = 2e6"),
        "lying",
        None,
    )
    .unwrap()
    .body(Some(4))
    .unwrap();
    let system = PbdSystem::sheet_body(&lying);
    for model in [ModelKind::CLOTH_XPBD.with(&[0.0, 1e-2]).unwrap(), ModelKind::CLOTH_PBD.with(&[1.0, 1.0]).unwrap()] {
        let rest = system.rest_state(&SimParams::new(0.01, 1, model), &RestOptions::default(), None).unwrap();
        println!(
            "{} lying on a plane: max |u| {:.1e} m after {} sweeps",
            model.name(),
            rest.max_displacement(),
            rest.iterations
        );
        assert!(rest.converged && rest.max_displacement() < 1e-12, "{rest:?}");
    }
    let models = [
        ModelKind::CLOTH_XPBD.with(&[0.0, 1e-2]).unwrap(),
        ModelKind::CLOTH_XPBD.with(&[0.0, 1e-4]).unwrap(),
        ModelKind::CLOTH_PBD.with(&[1.0, 1.0]).unwrap(),
    ];
    for (body, sphere) in [(&draped, true), (&incline, false)] {
        let system = PbdSystem::sheet_body(body);
        let free_weight: f64 =
            body.sheet.lumped_masses().iter().zip(system.held_mask()).filter(|(_, h)| !h).map(|(m, _)| m * G).sum();
        for &model in &models {
            let params = SimParams::new(0.01, 1, model);
            let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
            assert!(rest.converged && rest.method == RestMethod::Stepping, "{}: {rest:?}", model.name());
            let gap = gaps(&system, &rest.positions);
            let mut d = system.dynamics_from(Some(&rest.displacements));
            system.step(&params, &mut d);
            let push = system.contact_forces(params.dt, &d)[0];
            println!(
                "{} on {}: max |u| {:.4e} m, residual {:.1e}, least gap {gap:.1e} m, push {:.4e} {:.4e} {:.4e} N of {free_weight:.4e} N",
                model.name(),
                body.scene,
                rest.max_displacement(),
                rest.residual,
                push.x,
                push.y,
                push.z
            );
            assert!(rest.residual < 1e-10, "{}", rest.residual);
            assert!((-1e-12..1e-9).contains(&gap), "touches, not inside: {gap:e}");
            if sphere {
                let across = push.x.hypot(push.y);
                assert!(push.z > 0.3 * free_weight && across < 0.1 * free_weight, "{push:?}");
            } else {
                let share = push.z / (free_weight * 0.9063077870);
                println!("  the plane's normal force: {share:.5} of the free weight's normal part");
                assert!((share - 1.0).abs() < 0.02, "{push:?}");
            }
        }
    }
}

/// A stepped rest state given up because the body turns about its hold says so (`PbdError::Turns`), not
/// "diverged". The draped film (`draped-sheet`, N = 4, held at its single centre particle on a sphere,
/// friction 0.3) with `cloth-xpbd` (alpha_b 1e-2) at dt = 0.01 s rests at one iteration per step, but at
/// ten the sweeps' false torque turns it about its held particle until the growth judge gives the run up:
/// measured, 60.6 degrees after 24.4 s, the rotation making 0.990 of the free part's motion. The
/// measure itself (`PbdSystem::turn_about_hold`): a rigid rotation of the film by 30 degrees about its held
/// particle is 30 degrees about the vertical and all of the motion; a uniform stretch about it is no
/// rotation. A body drooping about a horizontal axis through its hold is gravity's doing and stays "diverged"
/// (`rest_state::the_divergence_probe_changes_no_rest_state`: PBD's gravity-wall cube swings 42 degrees).
#[test]
fn a_sheet_turning_about_its_hold_is_refused_as_turning() {
    let draped = pbdfit_mesh::SheetScene::load("draped-sheet").unwrap().body(Some(4)).unwrap();
    let system = PbdSystem::sheet_body(&draped);
    let rest = system.rest_positions();
    let centre = Vec3::new(0.5, 0.5, 0.0);
    let turn = nalgebra::Rotation3::from_axis_angle(&Vec3::z_axis(), 30f64.to_radians());
    let rotated: Vec<Vec3> = rest.iter().map(|x| turn * (x - centre) + centre - x).collect();
    let (degrees, rigid, axis) = system.turn_about_hold(&rotated).unwrap();
    println!("rotated by 30 degrees: {degrees:.12} degrees, rigid share {rigid:.15}, axis {axis:?}");
    assert!((degrees - 30.0).abs() < 1e-9 && (rigid - 1.0).abs() < 1e-12, "{degrees} {rigid}");
    assert!((axis - Vec3::z()).norm() < 1e-12, "{axis:?}");
    let stretched: Vec<Vec3> = rest.iter().map(|x| 0.2 * (x - centre)).collect();
    let (degrees, rigid, _) = system.turn_about_hold(&stretched).unwrap();
    println!("stretched by 20 %: {degrees:.3e} degrees, rigid share {rigid:.3e}");
    assert!(degrees < 1e-9 && rigid.abs() < 0.05, "{degrees} {rigid}");

    let model = ModelKind::CLOTH_XPBD.with(&[0.0, 1e-2]).unwrap();
    let e = system.rest_state(&SimParams::new(0.01, 10, model), &RestOptions::default(), None).unwrap_err();
    let text = e.to_string();
    println!("{text}");
    let PbdError::Turns { degrees, seconds, rigid, .. } = e else { panic!("not a turn: {text}") };
    assert!(text.contains("turns about its hold") && !text.contains("diverged"), "{text}");
    assert!(degrees > 30.0 && rigid > 0.95 && seconds > 10.0, "{degrees} {rigid} {seconds}");
}

/// The Morse study's cloth falling onto a sphere (`reports/morse/morse-sphere.toml`, claim M6: a fabric
/// 1 m x 1 m, 0.15 kg, held by nothing, 0.2 m above a sphere of radius 0.3 m, friction 0.3) at the study's
/// settings (dt 1/24 s, 200 iterations, damping 0.3 per second as `d = c dt`, stretching at
/// `alpha_d = 1e-7`), at N = 8 instead of 40, for 5 s: the cloth lands on the sphere's apex and drapes over
/// it, its centre 0.2 m down and not sliding off (measured 0.2000 m, 2.3e-16 m sideways), no vertex inside
/// the sphere at any step (least gap -1.1e-16 m, rounding), and at the end the sphere carries the cloth's
/// weight (1.4715 N) to 0.1 % (measured 1.4715 N, sideways 9.6e-5 N); its corner hangs 0.54 m below the
/// centre (N 40: 0.56 m, `reports/morse/sphere-results.md`). 1.3 s in the dev build.
#[test]
fn the_morse_cloth_falls_onto_the_sphere_and_rests_on_it() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../reports/morse/morse-sphere.toml");
    let scene = pbdfit_mesh::SheetScene::parse(&std::fs::read_to_string(path).unwrap(), "morse-sphere", None).unwrap();
    let body = scene.body(Some(8)).unwrap();
    let system = PbdSystem::sheet_body(&body);
    let dt = 1.0 / 24.0;
    let params =
        SimParams { damping: 0.3 * dt, ..SimParams::new(dt, 200, ModelKind::CLOTH_XPBD.with(&[1e-7, 1e4]).unwrap()) };
    let rest = system.rest_positions().to_vec();
    let centre = (0..rest.len()).min_by(|&a, &b| {
        let d = |p: usize| (rest[p] - Vec3::new(0.5, 0.5, 0.0)).norm();
        d(a).total_cmp(&d(b))
    });
    let (centre, corner) = (centre.unwrap(), 0);
    assert_eq!(rest[corner], Vec3::zeros());
    let mut least = f64::INFINITY;
    let d = system
        .run_dynamics(&params, 120, 1, |_, d| {
            let positions: Vec<Vec3> = rest.iter().zip(&d.u).map(|(x, u)| x + u).collect();
            least = least.min(gaps(&system, &positions));
            Ok::<(), ()>(())
        })
        .unwrap();
    let weight: f64 = body.sheet.lumped_masses().iter().sum::<f64>() * G;
    let push = system.contact_forces(dt, &d)[0];
    let (uc, uk) = (d.u[centre], d.u[corner]);
    println!(
        "centre {:.4} m down, {:.1e} m sideways; corner {:.4} m below it; least gap {least:.1e} m; sphere's force \
         {:.4e} {:.4e} {:.4e} N of the weight {weight:.4} N",
        -uc.z,
        uc.x.hypot(uc.y),
        uc.z - uk.z,
        push.x,
        push.y,
        push.z
    );
    assert!((uc.z + 0.2).abs() < 1e-3 && uc.x.hypot(uc.y) < 1e-3, "{uc:?}");
    assert!(least > -1e-12, "a vertex inside the sphere: {least:e}");
    assert!((push.z / weight - 1.0).abs() < 1e-3 && push.x.hypot(push.y) < 1e-3 * weight, "{push:?}");
    assert!(uc.z - uk.z > 0.3, "the corner hangs below the centre: {uk:?}");
}
