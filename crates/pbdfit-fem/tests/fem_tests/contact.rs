//! The FEM reference with unilateral contact and Coulomb friction against rigid obstacles:
//! complementarity, force balance, the roller condition, stick and slip on an incline, a
//! nonlinear law, and the refusals.

use pbdfit_fem::materials::material;
use pbdfit_fem::{ContactSolution, ContactState, FemError, GAP_TOLERANCE, ReferenceSpec, StaticProblem, YoungPoisson};
use pbdfit_mesh::obstacle::{Plane, Shape, Sphere};
use pbdfit_mesh::{Body, Friction, MassModel, Obstacle, Tet, TetMesh, Vec3, unit_cube};

fn plane(point: Vec3, normal: Vec3, mu_s: f64, mu_k: f64) -> Obstacle {
    Obstacle {
        key: "obstacle[0]".into(),
        shape: Shape::Plane(Plane { point, normal: normal.normalize() }),
        friction: Friction { static_coefficient: mu_s, kinetic_coefficient: mu_k },
        displacement: Vec3::zeros(),
    }
}

/// A unit cube of resolution `n`, density 1000 kg/m^3, lumped masses, under `gravity`, held at the
/// vertices `held` (zero displacement), touching `obstacles`.
fn cube(n: usize, gravity: Vec3, held: &[usize], obstacles: Vec<Obstacle>) -> Body {
    let mesh = unit_cube(n).unwrap();
    let nv = mesh.vertices().len();
    let masses = MassModel::Lumped.masses(&mesh, 1000.0);
    let mut flags = vec![false; nv];
    for &v in held {
        flags[v] = true;
    }
    Body {
        scene: "contact-test".into(),
        n,
        mesh,
        masses,
        mass_model: MassModel::Lumped,
        held: flags,
        prescribed: vec![Vec3::zeros(); nv],
        forces: vec![Vec3::zeros(); nv],
        gravity,
        density: 1000.0,
        obstacles,
    }
}

/// Complementarity and equilibrium of a contact solution, to the solver's tolerance:
/// - no vertex inside any obstacle by more than `GAP_TOLERANCE` times the body's size;
/// - no tensile normal force; a vertex pushed touches;
/// - stick: friction at most mu_s times the normal force; slip: exactly mu_k times it;
/// - the contact forces, the held reactions and the loads sum to zero (N), to 1e-9 of the load.
fn check_contact(body: &Body, s: &ContactSolution) {
    let size = body.size();
    let tol = GAP_TOLERANCE * size * 1.0001;
    for (v, (x, u)) in body.mesh.vertices().iter().zip(&s.displacements).enumerate() {
        for o in &body.obstacles {
            let g = o.placed().gap(&(x + u)).value;
            assert!(g >= -tol, "vertex {v} penetrates {} by {g:e} m", o.key);
        }
    }
    let loads: Vec3 = body.external_forces().iter().sum();
    let mut force_scale = loads.norm();
    for c in &s.contacts {
        force_scale += c.force().norm();
        assert!(c.normal_force >= 0.0, "tensile contact force {c:?}");
        assert!(c.tangential_force.dot(&c.normal).abs() <= 1e-12 * c.force().norm().max(1e-300), "{c:?}");
        if c.normal_force > 0.0 {
            assert!(c.gap.abs() <= tol, "pushed but not touching: {c:?}");
        }
        let mu = body.obstacles[c.obstacle].friction;
        let t = c.tangential_force.norm();
        match c.state {
            ContactState::Open => assert_eq!((c.normal_force, t), (0.0, 0.0), "{c:?}"),
            ContactState::Stick => {
                assert!(t <= mu.static_coefficient * c.normal_force * (1.0 + 1e-9), "stick beyond mu_s: {c:?}")
            }
            ContactState::Slip => {
                assert!((t - mu.kinetic_coefficient * c.normal_force).abs() <= 1e-9 * c.normal_force, "{c:?}");
                if t > 0.0 {
                    // Opposite the slip.
                    assert!(c.tangential_force.dot(&c.slip) < 0.0, "{c:?}");
                }
            }
        }
    }
    let reactions: Vec3 = s.reactions.iter().map(|(_, f)| f).sum();
    let rollers: Vec3 = s.roller_reactions.iter().map(|(_, f)| f).sum();
    let balance = s.total_contact_force() + reactions + rollers + loads;
    assert!(balance.norm() <= 1e-9 * force_scale, "force balance off by {balance} N (scale {force_scale:e} N)");
}

/// Frictionless contact of the cube's bottom face with the floor y = 0 is the roller condition
/// (u_y = 0 there, tangential motion free). The roller is solved independently with the existing
/// Dirichlet solver by symmetry: the cube mirrored at y = 0 under mirrored gravity has u_y = 0 and no
/// shear on its mid-plane. Three bottom corners are held in both problems (against sliding and spinning
/// on the floor, and because the Dirichlet solver asks for three held vertices off one line). Gravity is tilted so that the tangential freedom matters. Tolerance: both are direct
/// solves of the same equations, 1e-10 of the largest displacement.
#[test]
fn frictionless_face_on_a_plane_is_the_roller_condition() {
    let n = 3;
    let gravity = Vec3::new(2.0, -9.81, 1.0);
    let floor = plane(Vec3::zeros(), Vec3::y(), 0.0, 0.0);
    let probe = unit_cube(n).unwrap();
    let at = |p: Vec3| probe.vertices().iter().position(|x| (x - p).norm() < 1e-12).unwrap();
    let held = [at(Vec3::zeros()), at(Vec3::new(1.0, 0.0, 0.0)), at(Vec3::new(0.0, 0.0, 1.0))];
    let mut body = cube(n, gravity, &held, vec![floor]);
    // A heavy lid (nodal forces on the top face, ten times the weight) keeps the whole bottom face pressed,
    // so that the unilateral contact is closed everywhere, as the roller's is by definition.
    let top = body.mesh.vertices().iter().filter(|p| p.y == 1.0).count() as f64;
    for (v, p) in body.mesh.vertices().iter().enumerate() {
        if p.y == 1.0 {
            body.forces[v] = Vec3::new(0.0, -10.0 * 9.81 * body.total_mass() / top, 0.0);
        }
    }
    let m = YoungPoisson::new(1e6, 0.3).unwrap();
    let contact = StaticProblem::new(&body).unwrap().solve_contact(material("linear").unwrap(), m).unwrap();
    check_contact(&body, &contact);
    // Every free bottom vertex is pressed (frictionless contact reports Slip with zero friction).
    assert_eq!(contact.contacts.iter().filter(|c| c.state == ContactState::Slip && c.normal_force > 0.0).count(), 13);

    // The mirrored body: vertex v of the cube and its mirror image (shared on y = 0).
    let verts = body.mesh.vertices();
    let mut vertices = verts.to_vec();
    let mut mirror = vec![0; verts.len()];
    for (v, x) in verts.iter().enumerate() {
        mirror[v] = if x.y == 0.0 {
            v
        } else {
            vertices.push(Vec3::new(x.x, -x.y, x.z));
            vertices.len() - 1
        };
    }
    let mut tets: Vec<Tet> = body.mesh.tets().to_vec();
    for t in body.mesh.tets() {
        let mut image = t.map(|v| mirror[v]);
        image.swap(2, 3);
        tets.push(image);
    }
    let doubled = TetMesh::new(vertices, tets).unwrap();
    let mut loads = vec![Vec3::zeros(); doubled.vertices().len()];
    for (v, f) in body.external_forces().iter().enumerate() {
        loads[v] += f;
        loads[mirror[v]] += Vec3::new(f.x, -f.y, f.z);
    }
    let mut constrained = vec![false; doubled.vertices().len()];
    for &v in &held {
        constrained[v] = true;
    }
    let roller = StaticProblem::with_dirichlet(&doubled, &constrained, vec![Vec3::zeros(); loads.len()], loads)
        .unwrap()
        .solve(m)
        .unwrap();
    let largest = contact.max_displacement();
    for v in 0..verts.len() {
        let d = (contact.displacements[v] - roller.displacements[v]).norm();
        assert!(
            d <= 1e-10 * largest,
            "vertex {v}: contact {} vs roller {}",
            contact.displacements[v],
            roller.displacements[v]
        );
    }
}

/// A sphere pressed into a block held at its bottom (linear and two nonlinear laws): complementarity,
/// equilibrium, and a contact patch that grows with the indentation.
#[test]
fn a_pressed_sphere_satisfies_complementarity_and_balance() {
    let n = 8;
    let sphere = Obstacle {
        key: "obstacle[0]".into(),
        shape: Shape::Sphere(Sphere { center: Vec3::new(0.5, 1.5, 0.5), radius: 0.5, inside: false }),
        friction: Friction::NONE,
        displacement: Vec3::new(0.0, -0.05, 0.0),
    };
    let probe = unit_cube(n).unwrap();
    let bottom: Vec<usize> = (0..probe.vertices().len()).filter(|&v| probe.vertices()[v].y == 0.0).collect();
    let body = cube(n, Vec3::zeros(), &bottom, vec![sphere]);
    let problem = StaticProblem::new(&body).unwrap();
    let m = YoungPoisson::new(1e3, 0.3).unwrap();
    let mut forces = Vec::new();
    for law in ["linear", "stvk", "neo-hookean", "corotational"] {
        let s = problem.solve_contact(material(law).unwrap(), m).unwrap();
        check_contact(&body, &s);
        let pushed = s.contacts.iter().filter(|c| c.normal_force > 0.0).count();
        let force = s.total_contact_force();
        eprintln!(
            "{law}: {pushed} vertices pushed, force {:.6e} N, {} increments, {} iterations, residual {:.1e}",
            -force.y, s.increments, s.iterations, s.residual
        );
        assert!(pushed >= 5, "{law}: {pushed}");
        assert!(force.y < 0.0 && force.x.abs() < 1e-9 * force.norm() && force.z.abs() < 1e-9 * force.norm());
        assert!(s.residual <= 1e-10);
        forces.push(-force.y);
    }
    // The laws agree at this indentation (5 % of the block) to within 20 % (St. Venant-Kirchhoff softens
    // in compression: 14 % below the linear force here).
    for f in &forces[1..] {
        assert!((f / forces[0] - 1.0).abs() < 0.2, "{forces:?}");
    }
    // Through the reference path: the linear static reference is this contact solve.
    let u = ReferenceSpec::default().displacements(&problem, m, 0.01).unwrap();
    let direct = problem.solve_contact(material("linear").unwrap(), m).unwrap();
    assert_eq!(u, direct.displacements);
    let t = pbdfit_mesh::ReferenceOptions { material: Some("neo-hookean".into()), ..Default::default() };
    let u = ReferenceSpec::from_options(&t).unwrap().displacements(&problem, m, 0.01).unwrap();
    let direct = problem.solve_contact(material("neo-hookean").unwrap(), m).unwrap();
    assert_eq!(u, direct.displacements);
}

/// Gravity tilted by theta on a floor with mu_s = 0.5, mu_k = 0.4 and no held vertex (nu = 0, so that
/// the block's weight does not spread its base sideways: with nu > 0 the bonded corners slip outwards
/// even on a level floor, as `a_cube_rests_on_a_frictional_floor` shows).
///
/// - tan theta = 0.05, 0.1: every contact sticks and the bottom face does not move along the floor; the
///   displacement is elastic only.
/// - tan theta = 0.2, 0.3 (below mu_k): the block holds, but the friction force concentrates at the
///   trailing edge, where the tipping moment unloads the floor: some of the 16 contacts slip there
///   (partial slip, of the size of the elastic displacement), the rest stick. How many (2 and 7 now) is
///   not unique: with mu_k < mu_s a contact that slipped need not stick again, and the stick/slip split
///   depends on the iteration's path; every state satisfies Coulomb's law, balance and complementarity.
/// - tan theta = 0.45 (between mu_k and mu_s): the trailing edge slips first, its friction drops to
///   mu_k, the rest cannot carry the difference and the slip spreads to every contact: the elastic block
///   slides (`FemError::Sliding`) where a rigid one would stick.
/// - tan theta = 0.55, 1 (above mu_s): the block slides.
#[test]
fn a_block_on_an_incline_sticks_below_the_friction_angle_and_slides_above() {
    let n = 3;
    let (mu_s, mu_k) = (0.5, 0.4);
    let floor = plane(Vec3::zeros(), Vec3::y(), mu_s, mu_k);
    let m = YoungPoisson::new(1e6, 0.0).unwrap();
    let tilted = |tan: f64| {
        let theta = f64::atan(tan);
        cube(n, Vec3::new(theta.sin(), -theta.cos(), 0.0) * 9.81, &[], vec![floor.clone()])
    };
    for (tan, slipping) in [(0.05, 0..=0), (0.1, 0..=0), (0.2, 1..=8), (0.3, 1..=8)] {
        let body = tilted(tan);
        let s = StaticProblem::new(&body).unwrap().solve_contact(material("linear").unwrap(), m).unwrap();
        check_contact(&body, &s);
        let count = |state| s.contacts.iter().filter(|c| c.state == state).count();
        let (stick, slip) = (count(ContactState::Stick), count(ContactState::Slip));
        let ratio = s
            .contacts
            .iter()
            .filter(|c| c.normal_force > 0.0)
            .map(|c| c.tangential_force.norm() / c.normal_force)
            .fold(0.0, f64::max);
        let along = |u: &Vec3| Vec3::new(u.x, 0.0, u.z).norm();
        let bottom = body.mesh.vertices().iter().zip(&s.displacements).filter(|(x, _)| x.y == 0.0);
        let sliding = bottom.map(|(_, u)| along(u)).fold(0.0, f64::max);
        eprintln!(
            "tan theta = {tan}: {stick} stick, {slip} slip, max |t|/lambda = {ratio:.4}, bottom face moved \
             {sliding:.2e} m along the floor, max |u| = {:.3e} m, {} increments, {} iterations",
            s.max_displacement(),
            s.increments,
            s.iterations
        );
        assert!(slipping.contains(&slip) && stick + slip == 16, "tan theta = {tan}: {stick} stick, {slip} slip");
        if slip == 0 {
            assert_eq!(sliding, 0.0, "tan theta = {tan}");
        } else {
            // Partial slip of the trailing edge, a fraction of the elastic displacement.
            assert!(sliding < 0.2 * s.max_displacement(), "tan theta = {tan}: {sliding}");
        }
        // Elastic only: rho g L^2 / E = 1e-2 m.
        assert!(s.max_displacement() < 1.2e-2, "{}", s.max_displacement());
        // The friction forces carry the tangential weight.
        let weight: Vec3 = body.external_forces().iter().sum();
        let friction: Vec3 = s.contacts.iter().map(|c| c.tangential_force).sum();
        assert!((friction.x + weight.x).abs() <= 1e-9 * weight.norm(), "{friction} vs {weight}");
    }
    for tan in [0.45, 0.55, 1.0] {
        let e = StaticProblem::new(&tilted(tan)).unwrap().solve_contact(material("linear").unwrap(), m).unwrap_err();
        eprintln!("tan theta = {tan}: {e}");
        assert!(matches!(e, FemError::Sliding { .. }), "tan theta = {tan}: {e}");
    }
}

/// A frictionless resting body with no held vertex can slide and spin on the floor: a typed error,
/// not a NaN. The dynamic reference refuses obstacles.
#[test]
fn singular_and_unsupported_contact_problems_are_refused() {
    let floor = plane(Vec3::zeros(), Vec3::y(), 0.0, 0.0);
    let body = cube(2, Vec3::new(0.0, -9.81, 0.0), &[], vec![floor]);
    let problem = StaticProblem::new(&body).unwrap();
    let m = YoungPoisson::new(1e3, 0.3).unwrap();
    let e = problem.solve(m).unwrap_err();
    assert!(matches!(e, FemError::FreeRigidMotion { free: 3, frictional: false, .. }), "{e}");
    assert!(e.to_string().contains("give the obstacle friction"), "{e}");
    // A body hanging above a floor it does not touch falls; it has friction, which is not the remedy
    // (the message advised friction to an obstacle with mu_s = 0.5).
    let below = plane(Vec3::new(0.0, -0.5, 0.0), Vec3::y(), 0.6, 0.6);
    let e = StaticProblem::new(&cube(2, Vec3::new(0.0, -9.81, 0.0), &[], vec![below])).unwrap().solve(m).unwrap_err();
    assert!(matches!(e, FemError::FreeRigidMotion { free: 6, contacts: 0, .. }), "{e}");
    assert!(e.to_string().contains("touches no obstacle") && !e.to_string().contains("friction ("), "{e}");
    // Dynamic: refused with the obstacle count.
    let t = pbdfit_mesh::ReferenceOptions { dynamic: true, ..Default::default() };
    let e = ReferenceSpec::from_options(&t).unwrap().displacements(&problem, m, 0.01).unwrap_err();
    assert!(matches!(e, FemError::ContactUnsupported(1)), "{e}");
}

/// A resting cube on a frictional floor (no held vertex, the `resting` scene) under plain
/// gravity: every contact sticks with no friction force to speak of, and the weight is carried.
#[test]
fn a_cube_rests_on_a_frictional_floor() {
    let floor = plane(Vec3::zeros(), Vec3::y(), 0.5, 0.5);
    let body = cube(3, Vec3::new(0.0, -9.81, 0.0), &[], vec![floor]);
    let m = YoungPoisson::new(1e5, 0.3).unwrap();
    for law in ["linear", "neo-hookean"] {
        let s = StaticProblem::new(&body).unwrap().solve_contact(material(law).unwrap(), m).unwrap();
        check_contact(&body, &s);
        assert_eq!(s.contacts.len(), 16);
        let normal: f64 = s.contacts.iter().map(|c| c.normal_force).sum();
        assert!((normal / (body.total_mass() * 9.81) - 1.0).abs() < 1e-9, "{law}: {normal}");
    }
}

/// The `resting` cube at Poisson ratios up to 0.49: the weight spreads the base, every bottom corner of
/// the N = 1 cube slips outwards, and the slipping corners' kinetic friction pulls against each other.
/// No contact sticks, yet the body has a static equilibrium: the friction directions cross, which stops
/// the sideways and turning motions, and the load does not drive them. This was once refused as
/// `Sliding` (the rigid-motion check counted only sticking contacts). The net friction force is zero to
/// round-off, Coulomb's law and balance hold, and the symmetric cube stays symmetric.
#[test]
fn a_resting_cube_whose_corners_all_slip_outwards_is_in_equilibrium() {
    let floor = plane(Vec3::zeros(), Vec3::y(), 0.5, 0.4);
    for (n, nu) in [(1, 0.4), (1, 0.49), (2, 0.45)] {
        let body = cube(n, Vec3::new(0.0, -9.81, 0.0), &[], vec![floor.clone()]);
        // rho g L / E = 5e-3: the strain of the `resting` scene.
        let m = YoungPoisson::new(2e6, nu).unwrap();
        let s = StaticProblem::new(&body).unwrap().solve_contact(material("linear").unwrap(), m).unwrap();
        check_contact(&body, &s);
        let slip = s.contacts.iter().filter(|c| c.state == ContactState::Slip).count();
        let friction: Vec3 = s.contacts.iter().map(|c| c.tangential_force).sum();
        let weight = body.total_mass() * 9.81;
        eprintln!("N = {n}, nu = {nu}: {slip} of {} contacts slip, net friction {friction} N", s.contacts.len());
        if n == 1 {
            assert_eq!(slip, 4, "N = 1, nu = {nu}");
        }
        assert!(slip > 0);
        assert!(friction.norm() <= 1e-9 * weight, "net friction {friction} N");
        // Slipping corners move outwards from the axis through the centre.
        for c in s.contacts.iter().filter(|c| c.state == ContactState::Slip) {
            let x = body.mesh.vertices()[c.vertex];
            let out = Vec3::new(x.x - 0.5, 0.0, x.z - 0.5);
            assert!(c.slip.dot(&out) > 0.0, "{c:?} at {x}");
        }
        // Symmetry about the cube's vertical axis: the centre of the base does not move sideways.
        let base: Vec3 = body
            .mesh
            .vertices()
            .iter()
            .zip(&s.displacements)
            .filter(|(x, _)| x.y == 0.0)
            .map(|(_, u)| Vec3::new(u.x, 0.0, u.z))
            .sum();
        assert!(base.norm() <= 1e-9 * s.max_displacement(), "base drifts {base}");
    }
}

/// `m` cell edges on `[0, length]`: the first `m / 2` uniform over `[0, fine]`, then growing
/// geometrically to `length` (the ratio found by bisection).
fn graded(m: usize, fine: f64, length: f64) -> Vec<f64> {
    let k = m / 2;
    let h = fine / k as f64;
    let rest = m - k;
    let covered = |r: f64| h * (1..=rest).map(|i| r.powi(i as i32)).sum::<f64>();
    let (mut lo, mut hi) = (1.0, 10.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if covered(mid) < length - fine { lo = mid } else { hi = mid }
    }
    let r = 0.5 * (lo + hi);
    let mut s: Vec<f64> = (0..=k).map(|i| i as f64 * h).collect();
    let mut x = fine;
    let mut step = h;
    for _ in 0..rest {
        step *= r;
        x += step;
        s.push(x);
    }
    *s.last_mut().unwrap() = length;
    s
}

/// Hertz: a rigid sphere of radius R = 1 m pressed d = 6.25e-4 m into a linear block (E = 1e3 Pa,
/// nu = 0.3) of side L = 1 m, forty times the contact radius a = sqrt(R d) = 0.025 m, held at its
/// bottom: a quarter of it with rollers on the two symmetry planes, meshed on a grid graded towards
/// the contact point (half the cells of each axis uniform over 2a, the rest growing geometrically), six
/// tetrahedra per cell. The total force approaches F = (4/3) E / (1 - nu^2) sqrt(R) d^(3/2) as the mesh
/// is refined; the finite block is stiffer than a half-space by about (4/3) a (3 - 2 nu) / (2 pi L
/// (1 - nu)) = 1.8 % (Boussinesq's settlement at depth L, which the held bottom removes), the floor of
/// the error here. The contact radius (between the last pushed vertex and the next one out) brackets a.
///
/// Measured (dev profile, 2-core machine under load): m = 6, 10, 14, 18 cells per axis (882, 3,630,
/// 9,450, 19,494 unknowns) give +30.1, +14.9, +8.9, +6.9 % (the error times m is 181, 149, 124, 124:
/// first order in the cell size at the contact, h = 4a/m) and contact radii in [0.0236, 0.0333],
/// [0.0224, 0.0300], [0.0226, 0.0286], [0.0248, 0.0278] m around a = 0.025 m, in 3, 3, 5, 5 active-set
/// Newton iterations (4, 4, 6, 6 before the sphere's curvature entered the Newton matrix); m = 18 takes
/// 5-10 s.
#[test]
fn hertz_indentation_converges_to_the_analytic_force() {
    let (r, d, length, e, nu) = (1.0_f64, 6.25e-4_f64, 1.0_f64, 1e3_f64, 0.3_f64);
    let a = (r * d).sqrt();
    let analytic = 4.0 / 3.0 * e / (1.0 - nu * nu) * r.sqrt() * d.powf(1.5);
    let mut errors = Vec::new();
    for m in [6, 10, 14, 18] {
        let s = graded(m, 2.0 * a, length);
        let cube = pbdfit_mesh::unit_cube_split(m, pbdfit_mesh::CubeSplit::Six).unwrap();
        let index = |c: f64| (c * m as f64).round() as usize;
        let vertices: Vec<Vec3> =
            cube.vertices().iter().map(|p| Vec3::new(s[index(p.x)], -s[m - index(p.y)], s[index(p.z)])).collect();
        let mesh = TetMesh::new(vertices, cube.tets().to_vec()).unwrap();
        let nv = mesh.vertices().len();
        let held: Vec<bool> = mesh.vertices().iter().map(|p| p.y == -length).collect();
        let sphere = Obstacle {
            key: "obstacle[0]".into(),
            shape: Shape::Sphere(Sphere { center: Vec3::new(0.0, r, 0.0), radius: r, inside: false }),
            friction: Friction::NONE,
            displacement: Vec3::new(0.0, -d, 0.0),
        };
        let mut rollers = Vec::new();
        for (v, p) in mesh.vertices().iter().enumerate() {
            if held[v] {
                continue;
            }
            if p.x == 0.0 {
                rollers.push((v, Vec3::x()));
            }
            if p.z == 0.0 {
                rollers.push((v, Vec3::z()));
            }
        }
        let problem =
            StaticProblem::with_obstacles(&mesh, &held, vec![Vec3::zeros(); nv], vec![Vec3::zeros(); nv], vec![sphere])
                .unwrap()
                .with_rollers(mesh.vertices(), rollers);
        let start = std::time::Instant::now();
        let solution = problem.solve_contact(material("linear").unwrap(), YoungPoisson::new(e, nu).unwrap()).unwrap();
        let force = -4.0 * solution.total_contact_force().y;
        let pushed: Vec<f64> = solution
            .contacts
            .iter()
            .filter(|c| c.normal_force > 0.0)
            .map(|c| {
                let p = mesh.vertices()[c.vertex];
                (p.x * p.x + p.z * p.z).sqrt()
            })
            .collect();
        let inner = pushed.iter().cloned().fold(0.0, f64::max);
        let outer = s.iter().cloned().find(|&x| x > inner * (1.0 + 1e-12)).unwrap();
        let error = force / analytic - 1.0;
        eprintln!(
            "Hertz m = {m}: {nv} vertices, {} unknowns, force {force:.5e} N vs {analytic:.5e} N ({:+.2} %), contact \
             radius in [{inner:.4}, {outer:.4}] m vs a = {a:.4} m, {} pushed vertices, {} iterations, {:.1} s",
            problem.dofs(),
            100.0 * error,
            pushed.len(),
            solution.iterations,
            start.elapsed().as_secs_f64()
        );
        assert!(inner <= a && a <= outer, "m = {m}: [{inner}, {outer}] vs {a}");
        errors.push(error.abs());
    }
    assert!(errors.windows(2).all(|w| w[1] < w[0]), "{errors:?}");
    assert!(*errors.last().unwrap() < 0.1, "{errors:?}");
}

/// A plate (the plane y = 1, facing down) pressed 0.02 m onto the top of a block held at its bottom
/// and dragged 0.01 m along x over the same load increments: friction acts on the slip relative to the
/// moving plate. With mu = 5 every top vertex sticks and follows the plate exactly; with mu = 0.1 they
/// slip, each friction force mu_k lambda against its slip, together dragging the block along +x; without
/// friction the plate pushes straight down only.
#[test]
fn a_dragged_plate_sticks_or_slips_relative_to_its_motion() {
    let n = 3;
    let (press, drag) = (0.02, 0.01);
    let probe = unit_cube(n).unwrap();
    let bottom: Vec<usize> = (0..probe.vertices().len()).filter(|&v| probe.vertices()[v].y == 0.0).collect();
    let m = YoungPoisson::new(1e4, 0.3).unwrap();
    for mu in [5.0, 0.1, 0.0] {
        let mut plate = plane(Vec3::new(0.0, 1.0, 0.0), -Vec3::y(), mu, mu);
        plate.displacement = Vec3::new(drag, -press, 0.0);
        let body = cube(n, Vec3::zeros(), &bottom, vec![plate]);
        let s = StaticProblem::new(&body).unwrap().solve_contact(material("linear").unwrap(), m).unwrap();
        check_contact(&body, &s);
        let count = |state| s.contacts.iter().filter(|c| c.state == state).count();
        let (stick, slip) = (count(ContactState::Stick), count(ContactState::Slip));
        let friction: Vec3 = s.contacts.iter().map(|c| c.tangential_force).sum();
        let normal: f64 = s.contacts.iter().map(|c| c.normal_force).sum();
        eprintln!(
            "mu = {mu}: {stick} stick, {slip} slip, friction {:.4e} N along x, normal {normal:.4e} N, {} iterations",
            friction.x, s.iterations
        );
        assert_eq!(stick + slip, 16, "mu = {mu}");
        if mu == 5.0 {
            assert_eq!(stick, 16);
            for c in &s.contacts {
                let u = s.displacements[c.vertex];
                assert!((u - Vec3::new(drag, -press, 0.0)).norm() < 1e-12, "{u}");
            }
        } else if mu == 0.1 {
            assert_eq!(slip, 16);
            assert!(friction.x > 0.0);
            // Each at its kinetic limit (their directions differ: the pressed top also spreads sideways).
            let limit: f64 = s.contacts.iter().map(|c| 0.1 * c.normal_force).sum();
            let total: f64 = s.contacts.iter().map(|c| c.tangential_force.norm()).sum();
            assert!((total - limit).abs() < 1e-9 * limit, "{total} vs {limit}");
            assert!(friction.x > 0.8 * limit, "{friction} vs {limit}");
        } else {
            assert_eq!(friction, Vec3::zeros());
        }
    }
}

/// Any obstacle switched off the nonlinear FEM's refusals. A
/// neo-Hookean block at E = 1e-3 Pa under its weight, held at its base, is refused alone (an element
/// inverts at 0.2 % of the load); with a sphere far above that never touches it, the active-set Newton
/// halved its inverting steps and returned a 532 m sag through the held base with exit 0. An obstacle
/// that carries nothing now changes no refusal; one that touches still gives the contact solution.
#[test]
fn an_obstacle_that_carries_nothing_changes_no_refusal() {
    let scene = |obstacle: &str| {
        let text = format!(
            "name = \"ind\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n[load]\n\
             gravity = [0.0, -9.81, 0.0]\n[material]\ndensity = 1.0\nmass_model = \"lumped\"\n{obstacle}"
        );
        pbdfit_mesh::SceneSet::parse(&text, "t", None).unwrap().scenes()[0].body(2).unwrap()
    };
    let far = "[[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 50.02, 0.5]\nradius = 4.0\n\
               displacement = [0.0, -0.12, 0.0]\n";
    let soft = YoungPoisson::new(1e-3, 0.3).unwrap();
    let law = material("neo-hookean").unwrap();
    let alone = StaticProblem::new(&scene("")).unwrap().solve_law(law, soft).unwrap_err();
    assert!(matches!(alone, FemError::InvertedElement { .. }), "{alone}");
    let with_sphere = StaticProblem::new(&scene(far)).unwrap();
    let e = with_sphere.solve_law(law, soft).unwrap_err();
    assert_eq!(e.to_string(), alone.to_string());
    assert!(with_sphere.solve_contact(law, soft).is_err());
    // The built-in indentation (a sphere that presses the block) still solves with the nonlinear law.
    let indentation = pbdfit_mesh::SceneSet::builtin("indentation").unwrap().scenes()[0].body(2).unwrap();
    let s = StaticProblem::new(&indentation).unwrap().solve_contact(law, YoungPoisson::new(1e3, 0.3).unwrap());
    assert!(s.is_ok_and(|s| s.contacts.iter().any(|c| c.normal_force > 0.0)));
    // And at a stiffness where nothing inverts, a far sphere gives the solution without it.
    let stiff = YoungPoisson::new(1e4, 0.3).unwrap();
    let u = with_sphere.solve_law(law, stiff).unwrap().displacements;
    let free = StaticProblem::new(&scene("")).unwrap().solve_law(law, stiff).unwrap().displacements;
    let scale = free.iter().map(|d| d.norm()).fold(0.0, f64::max);
    let diff = u.iter().zip(&free).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    assert!(diff <= 1e-8 * scale, "{diff:e} of {scale:e}");
}
