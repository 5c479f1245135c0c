//! The corotational shell (large rotations, small strains): the linear shell at small load, frame
//! indifference, rigid rotations, and the heavy elastica.

use nalgebra::{Rotation3, Vector3};
use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{
    CorotationalShell, LinearShell, MembraneLaw, SHELL_NEWTON, ShellConstraints, ShellLoad, ShellState, Support,
};
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

const E: f64 = 2e11;
const RHO: f64 = 7850.0;
const H: f64 = 1e-3;

/// A deterministic pseudo-random number in [-0.5, 0.5) (a 64-bit LCG).
fn jitter(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// A steel strip 1 m long, `width` wide, 1 mm thick (nu = 0: a beam), `nx x ny` cells.
fn strip(nx: usize, ny: usize, width: f64) -> Sheet {
    let mesh = SheetMesh::rectangle(1.0, width, nx, ny, Diagonal::Alternating).unwrap();
    Sheet::new(mesh, H, RHO).unwrap()
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

/// The vertices at the free end x = 1.
fn tip(sheet: &Sheet) -> Vec<usize> {
    (0..sheet.mesh.vertices().len()).filter(|&v| sheet.mesh.vertices()[v].x == 1.0).collect()
}

#[test]
fn small_load_equals_the_linear_shell_to_first_order_in_the_load() {
    let sheet = strip(16, 2, 0.05);
    let material = YoungPoisson::new(E, 0.0).unwrap();
    let linear = LinearShell::new(&sheet, material).unwrap();
    let shell = CorotationalShell::new(&sheet, material).unwrap();
    let held = clamped(&sheet);
    // The beam's tip deflection 12 rho g L^4 / (8 E h^2) at g = 9.81 is 0.577 L.
    let beam = 12.0 * RHO * 9.81 / (8.0 * E * H * H);
    let mut differences = Vec::new();
    for tip_over_length in [1e-3, 5e-4] {
        let g = 9.81 * tip_over_length / beam;
        let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -g));
        let u = linear.solve(&held, &load).unwrap();
        let nl = shell.solve(&held, &load, &SHELL_NEWTON).unwrap();
        let scale = u.max_translation();
        let mut difference: f64 = 0.0;
        for v in 0..sheet.mesh.vertices().len() {
            difference = difference.max((nl.displacements.translation(v) - u.translation(v)).norm() / scale);
        }
        let t = tip(&sheet)[0];
        let w = (nl.displacements.translation(t).z / u.translation(t).z - 1.0).abs();
        println!(
            "tip/L {tip_over_length:.0e}: max |u_nl - u_lin| / max |u_lin| = {difference:.3e}, tip w relative \
             difference {w:.3e} ({} increments, {} iterations)",
            nl.increments, nl.iterations
        );
        assert!(difference < 2.0 * tip_over_length, "{difference:e}");
        assert!(w < 10.0 * tip_over_length * tip_over_length, "{w:e}");
        differences.push(difference);
    }
    // The difference is the horizontal shortening, of order (w / L) w: halving the load halves it.
    let ratio = differences[0] / differences[1];
    println!("difference ratio when the load halves: {ratio:.3}");
    assert!((ratio - 2.0).abs() < 0.1, "{ratio}");
}

/// A deformed state of a 4 x 4 square sheet: positions moved by up to 5 mm, rotations by up to 0.1 rad.
fn deformed(shell: &CorotationalShell) -> ShellState {
    let mut state = shell.rest_state();
    let mut seed = 11;
    for p in state.positions.iter_mut() {
        *p += Vector3::new(jitter(&mut seed), jitter(&mut seed), jitter(&mut seed)) * 1e-2;
    }
    for r in state.rotations.iter_mut() {
        *r = Rotation3::new(Vector3::new(jitter(&mut seed), jitter(&mut seed), jitter(&mut seed)) * 0.2);
    }
    state
}

#[test]
fn internal_forces_are_frame_indifferent() {
    let mesh = SheetMesh::rectangle(1.0, 1.0, 4, 4, Diagonal::Alternating).unwrap();
    let sheet = Sheet::new(mesh, 1e-2, RHO).unwrap();
    let shell = CorotationalShell::new(&sheet, YoungPoisson::new(E, 0.3).unwrap()).unwrap();
    let state = deformed(&shell);
    let (energy, forces) = shell.internal_forces(&state).unwrap();
    let largest = forces.iter().flatten().fold(0.0f64, |a, f| a.max(f.abs()));
    for q in [Rotation3::from_euler_angles(0.4, -0.7, 1.1), Rotation3::from_euler_angles(2.9, 1.2, -2.5)] {
        let (rotated_energy, rotated) = shell.internal_forces(&state.rotated(&q)).unwrap();
        let energy_error = (rotated_energy / energy - 1.0).abs();
        let mut force_error: f64 = 0.0;
        for (f, g) in forces.iter().zip(&rotated) {
            let (force, moment) = (q * Vector3::new(f[0], f[1], f[2]), q * Vector3::new(f[3], f[4], f[5]));
            force_error = force_error.max((force - Vector3::new(g[0], g[1], g[2])).abs().max());
            force_error = force_error.max((moment - Vector3::new(g[3], g[4], g[5])).abs().max());
        }
        force_error /= largest;
        println!(
            "rotation {:.3} rad: energy {energy:.6e} J, relative energy change {energy_error:.2e}, max force error \
             / max force {force_error:.2e}",
            q.angle()
        );
        assert!(energy_error < 1e-12, "{energy_error:e}");
        assert!(force_error < 1e-10, "{force_error:e}");
    }
}

#[test]
fn a_rigid_rotation_by_ninety_degrees_gives_no_internal_force() {
    let mesh = SheetMesh::rectangle(1.0, 0.5, 6, 3, Diagonal::Alternating).unwrap();
    let sheet = Sheet::new(mesh, 1e-2, RHO).unwrap();
    let shell = CorotationalShell::new(&sheet, YoungPoisson::new(E, 0.3).unwrap()).unwrap();
    // The scale: the forces of the deformed state.
    let (_, reference) = shell.internal_forces(&deformed(&shell)).unwrap();
    let scale = reference.iter().flatten().fold(0.0f64, |a, f| a.max(f.abs()));
    for axis in [Vector3::x(), Vector3::new(1.0, 1.0, 0.0).normalize(), Vector3::new(0.3, -0.5, 0.8).normalize()] {
        let q = Rotation3::new(axis * std::f64::consts::FRAC_PI_2);
        let mut state = shell.rest_state().rotated(&q);
        state.positions.iter_mut().for_each(|p| *p += Vector3::new(0.3, -2.0, 5.0));
        let (energy, forces) = shell.internal_forces(&state).unwrap();
        let largest = forces.iter().flatten().fold(0.0f64, |a, f| a.max(f.abs())) / scale;
        println!("90 degrees about {axis:?}: energy {energy:.2e} J, max force / deformed max force {largest:.2e}");
        assert!(energy.abs() < 1e-20, "{energy:e}");
        assert!(largest < 1e-12, "{largest:e}");
    }
}

/// The heavy elastica: `theta'' = -alpha (1 - s) cos theta` over `s` in [0, 1] with `theta(0) = 0`,
/// `theta'(1) = 0` (`theta` the slope angle downwards, `alpha = q L^3 / (E I)`), solved by shooting on
/// `theta'(0)` with RK4 on `steps` steps. Returns the tip's drop and the end's horizontal shortening
/// as fractions of `L`.
fn heavy_elastica(alpha: f64, steps: usize) -> (f64, f64) {
    // State: theta, theta', x, z.
    let shoot = |kappa: f64| {
        let f = |s: f64, y: [f64; 4]| [y[1], -alpha * (1.0 - s) * y[0].cos(), y[0].cos(), y[0].sin()];
        let ds = 1.0 / steps as f64;
        let mut y = [0.0, kappa, 0.0, 0.0];
        for i in 0..steps {
            let s = i as f64 * ds;
            let add = |y: [f64; 4], k: [f64; 4], c: f64| [0, 1, 2, 3].map(|j| y[j] + c * k[j]);
            let k1 = f(s, y);
            let k2 = f(s + ds / 2.0, add(y, k1, ds / 2.0));
            let k3 = f(s + ds / 2.0, add(y, k2, ds / 2.0));
            let k4 = f(s + ds, add(y, k3, ds));
            y = [0, 1, 2, 3].map(|j| y[j] + ds / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]));
        }
        y
    };
    // Secant on theta'(1) = 0 from the linear beam's root curvature alpha / 2.
    let (mut a, mut b) = (alpha / 2.0, 0.9 * alpha / 2.0);
    let (mut fa, mut fb) = (shoot(a)[1], shoot(b)[1]);
    for _ in 0..100 {
        if fb.abs() < 1e-14 || fb == fa {
            break;
        }
        let c = b - fb * (b - a) / (fb - fa);
        (a, fa) = (b, fb);
        b = c;
        fb = shoot(b)[1];
    }
    assert!(fb.abs() < 1e-12, "shooting did not converge: theta'(1) = {fb:e}");
    let y = shoot(b);
    (y[3], 1.0 - y[2])
}

#[test]
fn heavy_strip_converges_to_the_heavy_elastica() {
    // alpha = q L^3 / (E I) = 12 rho g L^3 / (E h^2) = 4.62: the linear beam's tip 0.577 L.
    let alpha = 12.0 * RHO * 9.81 / (E * H * H);
    let (drop, shortening) = heavy_elastica(alpha, 4000);
    let (drop2, shortening2) = heavy_elastica(alpha, 8000);
    println!(
        "heavy elastica alpha = {alpha:.4}: tip drop {drop:.8} L, shortening {shortening:.8} L (RK4 on 4000 vs 8000 \
         steps: {:.1e}, {:.1e})",
        (drop - drop2).abs(),
        (shortening - shortening2).abs()
    );
    assert!((0.3..0.6).contains(&drop), "{drop}");
    let material = YoungPoisson::new(E, 0.0).unwrap();
    let mut errors = Vec::new();
    for nx in [8, 16, 32, 64] {
        let sheet = strip(nx, 2, 0.05);
        let shell = CorotationalShell::new(&sheet, material).unwrap();
        let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -9.81));
        let solution = shell.solve(&clamped(&sheet), &load, &SHELL_NEWTON).unwrap();
        let ends = tip(&sheet);
        let mean =
            |k: usize| ends.iter().map(|&v| solution.displacements.translation(v)[k]).sum::<f64>() / ends.len() as f64;
        let (w, u) = (-mean(2), -mean(0));
        let (ew, eu) = (w / drop - 1.0, u / shortening - 1.0);
        println!(
            "nx = {nx:2}: drop {w:.6} L (error {ew:+.3e}), shortening {u:.6} L (error {eu:+.3e}); {} increments, {} \
             halvings, {} iterations",
            solution.increments, solution.halvings, solution.iterations
        );
        errors.push((ew.abs(), eu.abs()));
        if nx == 16 {
            // The membrane strain is some 1e-8: StVK's membrane gives the same sag.
            let stvk = CorotationalShell::with_membrane(&sheet, material, MembraneLaw::StVenantKirchhoff).unwrap();
            let other = stvk.solve(&clamped(&sheet), &load, &SHELL_NEWTON).unwrap();
            let difference = ends
                .iter()
                .map(|&v| (other.displacements.translation(v) - solution.displacements.translation(v)).norm())
                .fold(0.0, f64::max);
            println!("nx = 16, StVK membrane: tip moves by {difference:.2e} m from the linear membrane's");
            assert!(difference < 1e-6, "{difference:e}");
        }
    }
    for pair in errors.windows(2) {
        println!(
            "observed order: drop {:.2}, shortening {:.2}",
            (pair[0].0 / pair[1].0).log2(),
            (pair[0].1 / pair[1].1).log2()
        );
    }
    let (ew, eu) = errors[errors.len() - 1];
    assert!(ew < 5e-3 && eu < 5e-3, "{ew:e} {eu:e}");
    assert!(errors[1].0 < errors[0].0 && errors[2].0 < errors[1].0 && errors[3].0 < errors[2].0);
}

#[test]
fn stvk_membrane_gives_the_uniaxial_stretch_force_and_stays_frame_indifferent() {
    // A 1 x 0.5 m sheet (nu = 0) stretched uniformly by s along x: StVK's force on the edge x = 1 is
    // E h W (1 + s)(s + s^2 / 2) exactly (the Green strain of the corotated triangle is that of the
    // stretch, whatever its frame; the drilling penalty adds some 1e-5 s); the corotated linear membrane's is E h W s only to O(s) (a facet whose
    // frame edge is a diagonal turns with the stretch). Interior nodes carry only the drilling penalty's
    // force (the diagonal facets' in-plane turn against the nodes' unturned drilling rotation, some
    // DRILLING_FACTOR s of the edge force).
    let mesh = SheetMesh::rectangle(1.0, 0.5, 4, 2, Diagonal::Alternating).unwrap();
    let sheet = Sheet::new(mesh, 1e-2, RHO).unwrap();
    let material = YoungPoisson::new(E, 0.0).unwrap();
    let stvk = CorotationalShell::with_membrane(&sheet, material, MembraneLaw::StVenantKirchhoff).unwrap();
    let linear = CorotationalShell::new(&sheet, material).unwrap();
    let edge = tip(&sheet);
    for s in [1e-3, 0.1, 0.3] {
        let mut state = stvk.rest_state();
        state.positions.iter_mut().for_each(|p| p.x *= 1.0 + s);
        let force = |shell: &CorotationalShell| {
            let (_, f) = shell.internal_forces(&state).unwrap();
            let interior = (0..f.len())
                .filter(|&v| sheet.mesh.vertices()[v].x > 0.0 && sheet.mesh.vertices()[v].x < 1.0)
                .map(|v| f[v].iter().fold(0.0f64, |a, x| a.max(x.abs())))
                .fold(0.0, f64::max);
            (edge.iter().map(|&v| f[v][0]).sum::<f64>(), interior)
        };
        let (fs, interior) = force(&stvk);
        let (fl, _) = force(&linear);
        let w = E * 1e-2 * 0.5;
        let (es, el) = (fs / (w * (1.0 + s) * (s + s * s / 2.0)) - 1.0, fl / (w * s) - 1.0);
        println!(
            "stretch {s}: StVK edge force / closed form - 1 = {es:.2e}, linear {el:.2e}, StVK / linear {:.4}, \
             interior max |f| / edge force {:.1e}",
            fs / fl,
            interior / fs
        );
        assert!(es.abs() < 1e-4 * s && el.abs() < s, "{es:e} {el:e}");
        assert!(interior < 1e-3 * s * fs, "{interior:e}");
        // Frame indifference of the stretched, rotated sheet.
        let q = Rotation3::from_euler_angles(0.4, -0.7, 1.1);
        let (e0, f0) = stvk.internal_forces(&state).unwrap();
        let (e1, f1) = stvk.internal_forces(&state.rotated(&q)).unwrap();
        let error = f0
            .iter()
            .zip(&f1)
            .map(|(a, b)| (q * Vector3::new(a[0], a[1], a[2]) - Vector3::new(b[0], b[1], b[2])).norm())
            .fold(0.0, f64::max)
            / fs;
        assert!((e1 / e0 - 1.0).abs() < 1e-12 && error < 1e-12, "{e0} {e1} {error:e}");
    }
}
