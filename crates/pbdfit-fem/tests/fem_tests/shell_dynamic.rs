//! The shell's transient (`CorotationalShell::integrate`): energy kept by Newmark without damping, the
//! first mode's period against `modes` within Newmark's period error, frame indifference of the
//! trajectory, and the damped heavy strip settling onto the static solve's rest state.

use nalgebra::{Rotation3, Vector3};
use pbdfit_fem::shell::{
    CorotationalShell, LinearShell, NODE_DOFS, SHELL_NEWTON, ShellConstraints, ShellDynamicState, ShellLoad,
    ShellStart, Support, rotation_vector,
};
use pbdfit_fem::{DynamicSettings, MassMatrix, RestRule, TimeIntegrator, YoungPoisson};
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

const E: f64 = 2e11;
const RHO: f64 = 7850.0;
const H: f64 = 1e-3;
const G: f64 = 9.81;

/// A steel strip 1 m x 5 cm x 1 mm (nu = 0), 16 x 2 cells.
fn strip() -> Sheet {
    let mesh = SheetMesh::rectangle(1.0, 0.05, 16, 2, Diagonal::Alternating).unwrap();
    Sheet::new(mesh, H, RHO).unwrap()
}

fn steel() -> YoungPoisson {
    YoungPoisson::new(E, 0.0).unwrap()
}

/// The strip clamped along x = 0.
fn clamped(sheet: &Sheet) -> ShellConstraints {
    let mut c = ShellConstraints::new(sheet.mesh.vertices().len());
    for (v, p) in sheet.mesh.vertices().iter().enumerate() {
        if p.x == 0.0 {
            c.support(v, Support::Clamped);
        }
    }
    c
}

fn newmark(dt: f64, time: f64) -> DynamicSettings {
    DynamicSettings { integrator: TimeIntegrator::Newmark, stop: RestRule::Time(time), ..DynamicSettings::to_rest(dt) }
}

/// The first mode's angular frequency (rad/s) and shape, from the linear shell's modes.
fn first_mode(sheet: &Sheet) -> (f64, Vec<[f64; NODE_DOFS]>) {
    let modes = LinearShell::new(sheet, steel()).unwrap().modes(&clamped(sheet), 1).unwrap();
    (modes.angular[0], modes.shapes[0].clone())
}

/// The strip at rest under `scale` times its weight (corotational static solve), at rest.
fn static_start(shell: &CorotationalShell, sheet: &Sheet, scale: f64) -> ShellStart {
    let load = ShellLoad::gravity(sheet, Vector3::new(0.0, 0.0, -G * scale));
    let solved = shell.solve(&clamped(sheet), &load, &SHELL_NEWTON).unwrap();
    ShellStart { state: solved.state, velocities: vec![[0.0; NODE_DOFS]; sheet.mesh.vertices().len()] }
}

/// Released without load from its static deflection under `scale` times its weight: the largest relative
/// change of the energy over `periods` first periods at `steps` steps a period, and the first modal
/// coordinate's samples.
fn release(sheet: &Sheet, scale: f64, steps: usize, periods: f64) -> (f64, Vec<(f64, f64)>, f64) {
    let shell = CorotationalShell::new(sheet, steel()).unwrap();
    let (omega, shape) = first_mode(sheet);
    let dt = std::f64::consts::TAU / omega / steps as f64;
    let start = static_start(&shell, sheet, scale);
    let masses = sheet.lumped_masses();
    let zero = ShellLoad::zero(masses.len());
    let (mut e0, mut worst, mut samples) = (f64::NAN, 0.0f64, Vec::new());
    let mut observe = |s: &ShellDynamicState| {
        let energy = s.energy();
        if s.steps == 0 {
            e0 = energy;
        }
        worst = worst.max((energy / e0 - 1.0).abs());
        // q1 = phi^T M u: the first mode's coordinate (M-orthogonal to the others in linear dynamics).
        let d = s.displacements();
        let q: f64 = (0..masses.len())
            .map(|v| {
                let (m, r) = (masses[v], masses[v] * H * H / 12.0);
                (0..3).map(|k| m * shape[v][k] * d.displacements[v][k]).sum::<f64>()
                    + (3..6).map(|k| r * shape[v][k] * d.displacements[v][k]).sum::<f64>()
            })
            .sum();
        samples.push((s.time, q));
    };
    shell
        .integrate(
            &clamped(sheet),
            &zero,
            &newmark(dt, periods * steps as f64 * dt),
            Some(&start),
            &mut |_| {},
            Some(&mut observe),
        )
        .unwrap();
    (worst, samples, omega)
}

/// The mean period (s) between the first and the last upward zero crossing of `samples`, linearly
/// interpolated.
fn period(samples: &[(f64, f64)]) -> f64 {
    let crossings: Vec<f64> = samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * w[0].1 / (w[0].1 - w[1].1))
        .collect();
    assert!(crossings.len() >= 2, "{} crossings", crossings.len());
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

#[test]
fn newmark_keeps_the_energy_of_a_small_free_vibration() {
    let sheet = strip();
    // A hundred-thousandth of its weight: tip deflection ~6e-6 m, rotations ~1e-5 rad, so the
    // corotational shell is linear to ~1e-10 and Newmark keeps the energy to round-off; at a thousand
    // times that amplitude the geometric nonlinearity enters and the energy error falls at second
    // order in dt.
    let (small, _, _) = release(&sheet, 1e-5, 20, 2.0);
    println!("amplitude 6e-6 m, 20 steps a period: energy kept to {small:.2e}");
    assert!(small < 1e-8, "{small:e}");
    let (coarse, _, _) = release(&sheet, 1e-2, 20, 2.0);
    let (fine, _, _) = release(&sheet, 1e-2, 40, 2.0);
    let order = (coarse / fine).log2();
    println!("amplitude 6e-3 m: energy error {coarse:.3e} (20 steps a period), {fine:.3e} (40), order {order:.2}");
    assert!(coarse < 1e-4 && order > 1.8, "{coarse:e} {fine:e}");
}

#[test]
fn the_released_strip_oscillates_at_the_first_frequency_of_modes() {
    let sheet = strip();
    for steps in [20, 40] {
        let (_, samples, omega) = release(&sheet, 1e-5, steps, 4.25);
        let measured = period(&samples);
        let exact = std::f64::consts::TAU / omega;
        // Newmark's average acceleration turns omega dt into 2 atan(omega dt / 2): the period lengthens by
        // x / atan(x) with x = omega dt / 2, about (omega dt)^2 / 12.
        let x = omega * exact / steps as f64 / 2.0;
        let elongation = x / x.atan() - 1.0;
        let error = measured / exact - 1.0;
        println!(
            "{steps} steps a period: modes' period {exact:.6} s, measured {measured:.6} s, error {error:.4e}, \
             Newmark's period error {elongation:.4e}, difference {:.2e}",
            error - elongation
        );
        assert!((error - elongation).abs() < 1e-4, "{error:e} against {elongation:e}");
    }
}

#[test]
fn the_transient_is_frame_indifferent() {
    let sheet = strip();
    let q = Rotation3::from_euler_angles(0.4, -0.7, 1.1);
    let rotated_mesh =
        SheetMesh::new(sheet.mesh.vertices().iter().map(|p| q * p).collect(), sheet.mesh.triangles().to_vec()).unwrap();
    let rotated = Sheet::new(rotated_mesh, H, RHO).unwrap();
    let g = Vector3::new(0.0, 0.0, -G);
    let settings = newmark(0.02, 0.4);
    let run = |sheet: &Sheet, g: Vector3<f64>| {
        let shell = CorotationalShell::new(sheet, steel()).unwrap();
        let mut track = Vec::new();
        let mut observe = |s: &ShellDynamicState| track.push(s.state.clone());
        let load = ShellLoad::gravity(sheet, g);
        shell.integrate(&clamped(sheet), &load, &settings, None, &mut |_| {}, Some(&mut observe)).unwrap();
        track
    };
    // The rotated sheet's clamp: the same vertices (x = 0 before the rotation).
    let plain = run(&sheet, g);
    let shell = CorotationalShell::new(&rotated, steel()).unwrap();
    let mut track = Vec::new();
    let mut observe = |s: &ShellDynamicState| track.push(s.state.clone());
    shell
        .integrate(
            &clamped(&sheet),
            &ShellLoad::gravity(&rotated, q * g),
            &settings,
            None,
            &mut |_| {},
            Some(&mut observe),
        )
        .unwrap();
    let largest = plain
        .last()
        .unwrap()
        .positions
        .iter()
        .zip(sheet.mesh.vertices())
        .map(|(x, p)| (x - p).norm())
        .fold(0.0, f64::max);
    let (mut worst, mut worst_turn): (f64, f64) = (0.0, 0.0);
    for (a, b) in plain.iter().zip(&track) {
        for (x, y) in a.positions.iter().zip(&b.positions) {
            worst = worst.max((q * x - y).norm());
        }
        // A node's rotation from its rest orientation, seen in the rotated frame: q R q^T.
        let turn = a.rotations.iter().zip(&b.rotations).map(|(r, s)| (q * r * q.inverse()).inverse() * s);
        worst_turn = turn.fold(worst_turn, |w, t| w.max(rotation_vector(t.matrix()).norm()));
    }
    println!(
        "tip moved {largest:.3e} m in 0.4 s; the rotated trajectory differs by {:.2e} of it, its rotations by \
         {worst_turn:.2e} rad",
        worst / largest
    );
    assert!(largest > 0.1, "{largest}");
    assert!(worst / largest < 1e-8, "{:e}", worst / largest);
    assert!(worst_turn < 1e-8, "{worst_turn:e}");
}

#[test]
fn the_damped_heavy_strip_settles_on_the_static_rest_state() {
    let sheet = strip();
    let shell = CorotationalShell::new(&sheet, steel()).unwrap();
    let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -G));
    let held = clamped(&sheet);
    let statics = shell.solve(&held, &load, &SHELL_NEWTON).unwrap();
    let (omega, _) = first_mode(&sheet);
    // Implicit Euler (as the solids' run to rest: Newmark's trapezoidal rule is not L-stable, so the
    // membrane's stiff modes, excited by the large rotations, never decay under it) with mass-proportional
    // Rayleigh damping at twice the first angular frequency.
    let settings = DynamicSettings {
        integrator: TimeIntegrator::ImplicitEuler,
        mass: MassMatrix::Lumped,
        rayleigh_mass: 2.0 * omega,
        stop: RestRule::AtRest { tolerance: 1e-11 },
        ..DynamicSettings::to_rest(0.02)
    };
    let dynamic = shell.integrate(&held, &load, &settings, None, &mut |_| {}, None).unwrap_or_else(|e| panic!("{e}"));
    let drop = statics.displacements.max_translation();
    let difference = (0..sheet.mesh.vertices().len())
        .map(|v| (dynamic.displacements.translation(v) - statics.displacements.translation(v)).norm())
        .fold(0.0, f64::max);
    println!(
        "static tip displacement {drop:.6} m; dynamic at rest after {} steps ({:.2} s, {} Newton iterations) \
         differs by {:.2e} of it",
        dynamic.steps,
        dynamic.time,
        dynamic.newton_iterations,
        difference / drop
    );
    assert!(drop > 0.3, "{drop}");
    assert!(difference / drop < 1e-8, "{:e}", difference / drop);
}
