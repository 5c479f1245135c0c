//! Pressure on the shell: a follower pressure equals the same weight per area at small load (Timoshenko's
//! plate coefficients, the orders printed), it rotates with a rotated scene, and at large deflection it
//! differs from the dead pressure by the facets' turn.

use nalgebra::{Rotation3, Vector3};
use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{CorotationalShell, LinearShell, SHELL_NEWTON, ShellConstraints, ShellLoad, Support};
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

const E: f64 = 2e11;
const NU: f64 = 0.3;
const H: f64 = 1e-2;

/// The clamped square plate's centre coefficient (Taylor and Govindjee 2004), as the plate tests take it.
const CLAMPED: f64 = 0.001_265_32;
/// The simply supported one, Navier's series (the plate tests sum it).
const SIMPLY_SUPPORTED: f64 = 0.004_062_35;

fn plate(n: usize, q: &Rotation3<f64>) -> Sheet {
    let m = SheetMesh::rectangle(1.0, 1.0, n, n, Diagonal::Alternating).unwrap();
    let m = SheetMesh::new(m.vertices().iter().map(|p| q * p).collect(), m.triangles().to_vec()).unwrap();
    Sheet::new(m, H, 7850.0).unwrap()
}

fn held(sheet: &Sheet, support: Support) -> ShellConstraints {
    let mut c = ShellConstraints::new(sheet.mesh.vertices().len());
    for (v, &b) in sheet.mesh.boundary_vertices().iter().enumerate() {
        if b {
            c.support(v, support);
        }
    }
    c
}

fn plate_d() -> f64 {
    E * H.powi(3) / (12.0 * (1.0 - NU * NU))
}

/// The centre deflection coefficient `w D / (q a^4)` of the unit plate on `n x n` quads under a downward
/// pressure `q` (Pa): the corotational shell with a follower pressure `-q`, and the linear shell under a
/// weight per area `q`.
fn coefficients(n: usize, support: Support, q: f64) -> (f64, f64) {
    let sheet = plate(n, &Rotation3::identity());
    let c = held(&sheet, support);
    let centre = (n / 2) * (n + 1) + n / 2;
    let shell = CorotationalShell::new(&sheet, YoungPoisson::new(E, NU).unwrap()).unwrap();
    let follower = shell.solve(&c, &ShellLoad::follower_pressure(&sheet, -q), &SHELL_NEWTON).unwrap();
    let rho_g = q / H / sheet.density() * sheet.density();
    let weight = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -rho_g / sheet.density()));
    let linear = LinearShell::new(&sheet, YoungPoisson::new(E, NU).unwrap()).unwrap().solve(&c, &weight).unwrap();
    let coefficient = |w: f64| -w * plate_d() / q;
    (coefficient(follower.displacements.displacements[centre][2]), coefficient(linear.displacements[centre][2]))
}

/// At a small load (the simply supported plate deflects 1e-3 of its thickness) the corotational shell
/// under a follower pressure deflects as the linear shell under the same weight per area, to 1e-5, and
/// converges to Timoshenko's coefficients at second order (the orders printed).
#[test]
fn a_small_follower_pressure_deflects_plates_as_their_weight_at_timoshenko_s_coefficients() {
    for (support, reference) in [(Support::Clamped, CLAMPED), (Support::SimplySupported, SIMPLY_SUPPORTED)] {
        let q = 1e-3 * H * plate_d() / SIMPLY_SUPPORTED;
        let mut errors = Vec::new();
        for n in [4, 8, 16] {
            let (follower, weight) = coefficients(n, support, q);
            let error = follower / reference - 1.0;
            let order = errors.last().map_or(f64::NAN, |e: &f64| (e / error).abs().log2());
            println!(
                "{support:?} plate, N = {n:2}: follower pressure alpha = {follower:.8}, weight {weight:.8} (ratio - 1 = \
                 {:+.2e}), Timoshenko error {:+.4} %, order {order:.2}",
                follower / weight - 1.0,
                100.0 * error
            );
            assert!((follower / weight - 1.0).abs() < 1e-5, "{support:?} N {n}: {follower} against {weight}");
            errors.push(error);
        }
        let order = (errors[1] / errors[2]).abs().log2();
        assert!((order - 2.0).abs() < 0.4, "{support:?}: order {order}");
        assert!(errors[2].abs() < 1e-2, "{support:?}: {:e}", errors[2]);
    }
}

/// The linear shell takes a follower pressure at its rest geometry: the same solution as a dead pressure
/// and as the weight per area, to round-off.
#[test]
fn the_linear_shell_takes_a_follower_pressure_at_rest() {
    let sheet = plate(6, &Rotation3::identity());
    let c = held(&sheet, Support::Clamped);
    let shell = LinearShell::new(&sheet, YoungPoisson::new(E, NU).unwrap()).unwrap();
    let follower = shell.solve(&c, &ShellLoad::follower_pressure(&sheet, -100.0)).unwrap();
    let dead = shell.solve(&c, &ShellLoad::pressure(&sheet, -100.0)).unwrap();
    let weight = shell.solve(&c, &ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -100.0 / (7850.0 * H)))).unwrap();
    let scale = weight.max_translation();
    for v in 0..sheet.mesh.vertices().len() {
        assert!((follower.translation(v) - dead.translation(v)).norm() < 1e-12 * scale, "{v}");
        assert!((follower.translation(v) - weight.translation(v)).norm() < 1e-12 * scale, "{v}");
    }
    let bad = ShellLoad { follower: vec![1.0; 3], ..ShellLoad::zero(sheet.mesh.vertices().len()) };
    let e = shell.solve(&c, &bad).unwrap_err().to_string();
    assert!(e.contains("follower pressure") && e.contains("expected 72"), "{e}");
}

/// A follower pressure needs nothing rotated with the scene: the clamped plate turned by a rotation `q`
/// under the same pressure deflects by `q` times the unturned deflection (to 1e-9), at a load where it
/// deflects several thicknesses, and there the dead pressure (the rest normals) gives a different answer:
/// the follower pushes along the turned facets, outwards from the centre.
#[test]
fn a_follower_pressure_turns_with_the_scene_and_differs_from_a_dead_one_at_large_deflection() {
    let q = Rotation3::from_euler_angles(0.4, -0.7, 1.1);
    let p = -1e6;
    let material = YoungPoisson::new(E, NU).unwrap();
    let solve = |sheet: &Sheet, load: &ShellLoad| {
        let shell = CorotationalShell::new(sheet, material).unwrap();
        shell.solve(&held(sheet, Support::Clamped), load, &SHELL_NEWTON).unwrap()
    };
    let flat = plate(8, &Rotation3::identity());
    let turned = plate(8, &q);
    let a = solve(&flat, &ShellLoad::follower_pressure(&flat, p));
    let b = solve(&turned, &ShellLoad::follower_pressure(&turned, p));
    let scale = a.displacements.max_translation();
    let centre = 4 * 9 + 4;
    let w = -a.displacements.translation(centre).z;
    println!("clamped plate under a follower pressure {p} Pa: centre deflection {w:.4e} m = {:.2} h", w / H);
    assert!(w > 2.0 * H, "{w}");
    let mut worst = 0.0_f64;
    for v in 0..flat.mesh.vertices().len() {
        worst = worst.max((q * a.displacements.translation(v) - b.displacements.translation(v)).norm() / scale);
    }
    println!("turned scene: largest difference {worst:.2e} of the largest translation");
    assert!(worst < 1e-9, "{worst:e}");
    let dead = solve(&flat, &ShellLoad::pressure(&flat, p));
    let (wf, wd) = (w, -dead.displacements.translation(centre).z);
    // In-plane: the follower pushes the sloped facets outwards, the dead one does not push in the plane.
    let quarter = 2 * 9 + 2;
    let (rf, rd) = (a.displacements.translation(quarter), dead.displacements.translation(quarter));
    println!(
        "centre: follower {wf:.6e} m, dead {wd:.6e} m ({:+.2e}); quarter point in-plane: follower ({:.3e}, {:.3e}), \
         dead ({:.3e}, {:.3e})",
        wf / wd - 1.0,
        rf.x,
        rf.y,
        rd.x,
        rd.y
    );
    assert!((wf / wd - 1.0).abs() > 1e-4 && (wf / wd - 1.0).abs() < 0.1, "{wf} {wd}");
    assert!(rf.x < rd.x && rf.y < rd.y, "the follower pushes the quarter point further out: {rf} {rd}");
}

/// Hencky's pressurised circular membrane (radius `a`, edge held, Föppl-von Kármán membrane, lateral
/// pressure `q`): the centre deflection, by shooting on the centre's membrane force `N0`. With `S = r N_r`
/// (so `N_theta = S'`), compatibility and the vertical balance `N_r w' = -q r / 2` give
/// `r S'' + S' - S / r = -E h q^2 r^4 / (8 S^2)`, from `S ~ N0 r` at the centre, and the held edge
/// (`u(a) = 0`, so the hoop strain vanishes there) asks `S'(a) - nu S(a) / a = 0`; then
/// `w(0) = int_0^a q r^2 / (2 S) dr`.
fn hencky_centre(a: f64, eh: f64, nu: f64, q: f64) -> f64 {
    let shoot = |n0: f64| {
        let c = -eh * q * q / (64.0 * n0 * n0);
        let r0 = 1e-4 * a;
        // State: S, S', w accumulated from the centre.
        let mut y = [n0 * r0 + c * r0.powi(3), n0 + 3.0 * c * r0 * r0, q * r0 * r0 / (4.0 * n0)];
        let f = |r: f64, y: &[f64; 3]| {
            let (s, ds) = (y[0], y[1]);
            [ds, (-ds + s / r - eh * q * q * r.powi(4) / (8.0 * s * s)) / r, q * r * r / (2.0 * s)]
        };
        let steps = 20_000;
        let h = (a - r0) / steps as f64;
        let mut r = r0;
        for _ in 0..steps {
            let add = |y: &[f64; 3], k: &[f64; 3], t: f64| [y[0] + t * k[0], y[1] + t * k[1], y[2] + t * k[2]];
            let k1 = f(r, &y);
            let k2 = f(r + h / 2.0, &add(&y, &k1, h / 2.0));
            let k3 = f(r + h / 2.0, &add(&y, &k2, h / 2.0));
            let k4 = f(r + h, &add(&y, &k3, h));
            for i in 0..3 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            r += h;
        }
        (y[1] - nu * y[0] / a, y[2])
    };
    // The hoop strain at the edge grows with N0: bisect on log N0 around the membrane's scale.
    let scale = (eh * q * q * a * a).cbrt();
    let (mut lo, mut hi) = ((1e-3 * scale).ln(), (1e3 * scale).ln());
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if shoot(mid.exp()).0 > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    shoot((0.5 * (lo + hi)).exp()).1
}

/// A disc of radius `a` meshed by the square `n x n` (alternating diagonals, each corner cell's diagonal
/// through the corner) mapped onto it, `(x, y) -> (x sqrt(1 - y^2 / 2), y sqrt(1 - x^2 / 2))`.
fn disc(a: f64, n: usize, h: f64) -> Sheet {
    let square = SheetMesh::rectangle(2.0, 2.0, n, n, Diagonal::Alternating).unwrap();
    let vertices = square
        .vertices()
        .iter()
        .map(|p| {
            let (x, y) = (p.x - 1.0, p.y - 1.0);
            Vector3::new(a * x * (1.0 - y * y / 2.0).sqrt(), a * y * (1.0 - x * x / 2.0).sqrt(), 0.0)
        })
        .collect();
    Sheet::new(SheetMesh::new(vertices, square.triangles().to_vec()).unwrap(), h, 1000.0).unwrap()
}

/// A thin circular membrane (radius 1 m, 1 mm, E = 1e7 Pa, nu = 0.3) held on its edge under a pressure
/// that lifts its centre some 30 thicknesses (3 % of the radius): the corotational shell under a dead
/// pressure converges to Hencky's centre deflection (measured: +1.06 % at 8 x 8 cells, +0.30 % at 16 x 16,
/// order 1.81), and the follower pressure, which also pushes the sloped membrane outwards, lifts it 2.0e-4
/// more (relative, at 8 x 8; +0.32 % against Hencky at 16 x 16, measured once). The shooting reproduces Hencky's coefficient 0.653 for nu = 0.3 (0.6534).
#[test]
fn a_pressurised_membrane_lifts_as_hencky_s() {
    let (a, h, e, nu) = (1.0, 1e-3, 1e7, 0.3);
    let q = 1.0;
    let exact = hencky_centre(a, e * h, nu, q);
    let coefficient = exact / a / (q * a / (e * h)).cbrt();
    println!("Hencky: centre {exact:.6e} m, w0 / a / (q a / E h)^(1/3) = {coefficient:.4} (0.653 by Hencky's series)");
    assert!((coefficient - 0.653).abs() < 2e-3, "{coefficient}");
    let mut errors: Vec<f64> = Vec::new();
    for n in [8, 16] {
        let sheet = disc(a, n, h);
        let shell = CorotationalShell::new(&sheet, YoungPoisson::new(e, nu).unwrap()).unwrap();
        let held = held(&sheet, Support::SimplySupported);
        let centre = (n / 2) * (n + 1) + n / 2;
        let dead = shell.solve(&held, &ShellLoad::pressure(&sheet, q), &SHELL_NEWTON).unwrap();
        let w = dead.displacements.translation(centre).z;
        let error = w / exact - 1.0;
        let order = errors.last().map_or(f64::NAN, |e| (e / error).abs().log2());
        println!(
            "N = {n:2}: dead {w:.6e} m ({:+.3} %, order {order:.2}, {} iterations)",
            100.0 * error,
            dead.iterations
        );
        if n == 8 {
            // The follower pressure at the coarse mesh only (each 16 x 16 membrane solve costs CI tens of
            // seconds): it lifts the membrane a little more than the dead one.
            let follower = shell.solve(&held, &ShellLoad::follower_pressure(&sheet, q), &SHELL_NEWTON).unwrap();
            let wf = follower.displacements.translation(centre).z;
            println!(
                "N = {n:2}: follower {wf:.6e} m ({:+.3} %, {:+.2e} over the dead)",
                100.0 * (wf / exact - 1.0),
                wf / w - 1.0
            );
            assert!(wf > w && wf / w - 1.0 < 1e-3, "{wf} {w}");
        }
        errors.push(error);
    }
    assert!(errors[1].abs() < 1e-2, "{errors:?}");
    assert!(errors[1].abs() < errors[0].abs(), "{errors:?}");
}
