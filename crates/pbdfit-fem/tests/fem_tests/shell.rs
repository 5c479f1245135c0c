//! The linear thin shell (CST membrane + DKT bending facets): patch tests, Timoshenko's square plates,
//! the cantilever strip against the beam, rigid-body modes and frame indifference.

use nalgebra::{DMatrix, Rotation3, Vector3};
use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{LinearShell, NODE_DOFS, ShellConstraints, ShellError, ShellLoad, Support};
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh};

/// A deterministic pseudo-random number in [-0.5, 0.5) (a 64-bit LCG).
fn jitter(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// A 4 x 4 alternating unit square with its interior vertices moved by up to 0.3 of a cell: irregular
/// triangles of every shape. Returns the in-plane mesh and the boundary flags.
fn irregular_square() -> (SheetMesh, Vec<bool>) {
    let m = SheetMesh::rectangle(1.0, 1.0, 4, 4, Diagonal::Alternating).unwrap();
    let boundary = m.boundary_vertices();
    let mut state = 7;
    let v = m
        .vertices()
        .iter()
        .zip(&boundary)
        .map(
            |(p, &b)| {
                if b { *p } else { p + Vector3::new(0.075 * jitter(&mut state), 0.075 * jitter(&mut state), 0.0) }
            },
        )
        .collect();
    (SheetMesh::new(v, m.triangles().to_vec()).unwrap(), boundary)
}

fn material(nu: f64) -> YoungPoisson {
    YoungPoisson::new(2e11, nu).unwrap()
}

/// A plane tilted out of every coordinate plane, so the patch tests exercise the 3-D rotations.
fn tilt() -> Rotation3<f64> {
    Rotation3::from_euler_angles(0.4, -0.7, 1.1)
}

/// Holds every boundary DOF at `exact` (in-plane field given in the plane's own frame, rotated by
/// `tilt`), solves with no load, and returns the largest error over all DOFs relative to the largest
/// exact value.
fn patch_error(exact: impl Fn(f64, f64) -> [f64; 6]) -> f64 {
    let (plane, boundary) = irregular_square();
    let q = tilt();
    let mesh = SheetMesh::new(plane.vertices().iter().map(|p| q * p).collect(), plane.triangles().to_vec()).unwrap();
    let sheet = Sheet::new(mesh, 1e-2, 7850.0).unwrap();
    let shell = LinearShell::new(&sheet, material(0.3)).unwrap();
    let global = |p: &Vector3<f64>| {
        let d = exact(p.x, p.y);
        let (t, r) = (q * Vector3::new(d[0], d[1], d[2]), q * Vector3::new(d[3], d[4], d[5]));
        [t.x, t.y, t.z, r.x, r.y, r.z]
    };
    let mut c = ShellConstraints::new(plane.vertices().len());
    for (v, p) in plane.vertices().iter().enumerate() {
        if boundary[v] {
            let d = global(p);
            for (k, &value) in d.iter().enumerate() {
                c.prescribe(v, k, value);
            }
        }
    }
    let u = shell.solve(&c, &ShellLoad::zero(plane.vertices().len())).unwrap();
    let mut error: f64 = 0.0;
    let mut scale: f64 = 0.0;
    for (v, p) in plane.vertices().iter().enumerate() {
        let d = global(p);
        for k in 0..NODE_DOFS {
            error = error.max((u.displacements[v][k] - d[k]).abs());
            scale = scale.max(d[k].abs());
        }
    }
    error / scale
}

#[test]
fn membrane_patch_test_reproduces_constant_strain_exactly() {
    // u = u0 + G X in the plane, with the drilling rotation equal to the membrane's rotation.
    let g = [[1.3e-3, -0.4e-3], [0.9e-3, -0.7e-3]];
    let omega = 0.5 * (g[1][0] - g[0][1]);
    let error =
        patch_error(|x, y| [2e-4 + g[0][0] * x + g[0][1] * y, -1e-4 + g[1][0] * x + g[1][1] * y, 0.0, 0.0, 0.0, omega]);
    println!("membrane patch test: max error / max displacement = {error:.2e}");
    assert!(error < 1e-12, "{error:e}");
}

#[test]
fn bending_patch_test_reproduces_constant_curvature_exactly() {
    // w = a x^2 / 2 + b y^2 / 2 + c x y: theta_x = w_,y, theta_y = -w_,x.
    let (a, b, c) = (2e-3, -1.1e-3, 0.6e-3);
    let exact = |x: f64, y: f64| {
        [0.0, 0.0, a * x * x / 2.0 + b * y * y / 2.0 + c * x * y, b * y + c * x, -(a * x + c * y), 0.0]
    };
    let error = patch_error(exact);
    println!("bending patch test: max error / max DOF = {error:.2e}");
    assert!(error < 1e-12, "{error:e}");

    // The energy of the exact field is the continuum's: A/2 kappa^T D kappa with kappa = -(a, b, 2c).
    let (plane, _) = irregular_square();
    let (h, nu) = (1e-2, 0.3);
    let sheet = Sheet::new(plane.clone(), h, 7850.0).unwrap();
    let shell = LinearShell::new(&sheet, material(nu)).unwrap();
    let u: Vec<[f64; 6]> = plane.vertices().iter().map(|p| exact(p.x, p.y)).collect();
    let d = 2e11 * h.powi(3) / (12.0 * (1.0 - nu * nu));
    let continuum = 0.5 * d * (a * a + b * b + 2.0 * nu * a * b + 0.5 * (1.0 - nu) * 4.0 * c * c);
    let relative = (shell.energy(&u) / continuum - 1.0).abs();
    println!("bending patch energy: relative error {relative:.2e}");
    assert!(relative < 1e-12, "{relative:e}");
}

/// Timoshenko's simply supported square plate: the centre deflection coefficient from Navier's double
/// sine series, `16 / pi^6 sum_{m, n odd} (-1)^((m + n) / 2 - 1) / (m n (m^2 + n^2)^2)`.
fn navier_simply_supported() -> f64 {
    let mut sum = 0.0;
    for m in (1..400).step_by(2) {
        for n in (1..400).step_by(2) {
            let sign = if ((m + n) / 2 - 1) % 2 == 0 { 1.0 } else { -1.0 };
            let (mf, nf) = (m as f64, n as f64);
            sum += sign / (mf * nf * (mf * mf + nf * nf).powi(2));
        }
    }
    16.0 / std::f64::consts::PI.powi(6) * sum
}

/// The clamped square plate's centre coefficient, 0.00126532 (Taylor and Govindjee, "Solution of
/// clamped rectangular plate problems", Commun. Numer. Meth. Engng 20, 2004; Timoshenko and
/// Woinowsky-Krieger's table gives 0.00126).
const CLAMPED: f64 = 0.001_265_32;

/// The centre deflection coefficient `w D / (q a^4)` of a unit square plate on `n x n` quads under its
/// own weight, held on its boundary by `support`.
fn plate_coefficient(n: usize, diagonal: Diagonal, support: Support) -> f64 {
    let (h, nu, rho, g) = (1e-2, 0.3, 7850.0, 9.81);
    let sheet = Sheet::new(SheetMesh::rectangle(1.0, 1.0, n, n, diagonal).unwrap(), h, rho).unwrap();
    let shell = LinearShell::new(&sheet, material(nu)).unwrap();
    let mut c = ShellConstraints::new(sheet.mesh.vertices().len());
    for (v, &b) in sheet.mesh.boundary_vertices().iter().enumerate() {
        if b {
            c.support(v, support);
        }
    }
    let u = shell.solve(&c, &ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -g))).unwrap();
    let centre = (n / 2) * (n + 1) + n / 2;
    let d = 2e11 * h.powi(3) / (12.0 * (1.0 - nu * nu));
    -u.displacements[centre][2] * d / (rho * h * g)
}

/// Relative errors and observed orders `log2(e_n / e_2n)` over `ns` (doubling).
fn convergence(name: &str, ns: &[usize], reference: f64, coefficient: impl Fn(usize) -> f64) -> (f64, f64) {
    let errors: Vec<f64> = ns.iter().map(|&n| coefficient(n) / reference - 1.0).collect();
    let mut last_order = f64::NAN;
    for (i, (&n, e)) in ns.iter().zip(&errors).enumerate() {
        let order = if i > 0 { (errors[i - 1] / e).abs().log2() } else { f64::NAN };
        println!(
            "{name}: N = {n:3}: alpha = {:.7}, error {:+.4} %, observed order {order:.2}",
            reference * (1.0 + e),
            100.0 * e
        );
        last_order = order;
    }
    // Richardson's extrapolation of the last two meshes at order 2: the limit the element converges to.
    let (coarse, fine) = (errors[errors.len() - 2], errors[errors.len() - 1]);
    let limit = fine + (fine - coarse) / 3.0;
    println!("{name}: extrapolated (order 2) error {:+.4} %", 100.0 * limit);
    assert!(limit.abs() < 5e-4, "{name}: the extrapolated limit is off by {limit:e}");
    (fine, last_order)
}

#[test]
fn square_plates_converge_to_timoshenko_at_second_order() {
    let ss = navier_simply_supported();
    println!("Navier series: simply supported alpha = {ss:.8} (Timoshenko: 0.00406)");
    assert!((ss - 0.00406).abs() < 5e-6);
    let ns = [4, 8, 16, 32];
    for diagonal in [Diagonal::Alternating, Diagonal::Crossed, Diagonal::Forward] {
        for (support, reference) in [(Support::SimplySupported, ss), (Support::Clamped, CLAMPED)] {
            let name = format!("{support:?} plate, {} diagonals", diagonal.name());
            let (error, order) = convergence(&name, &ns, reference, |n| plate_coefficient(n, diagonal, support));
            assert!(error.abs() < 5e-3, "{name}: {error:e}");
            assert!((order - 2.0).abs() < 0.4, "{name}: order {order}");
        }
    }
}

/// The tip deflection of a strip `L x L/10`, clamped along its short edge at x = 0, on `n x n/10`
/// quads under its own weight, over the beam's `q L^4 / (8 E I)` (nu = 0, so the plate strip's
/// `D b = E b h^3 / 12` is the beam's `E I` and the long edges carry no anticlastic moment).
fn cantilever_ratio(n: usize) -> f64 {
    let (length, h, rho, g, e) = (1.0, 1e-3, 7850.0, 9.81, 2e11);
    let width = length / 10.0;
    let sheet =
        Sheet::new(SheetMesh::rectangle(length, width, n, (n / 10).max(1), Diagonal::Alternating).unwrap(), h, rho)
            .unwrap();
    let shell = LinearShell::new(&sheet, YoungPoisson::new(e, 0.0).unwrap()).unwrap();
    let mut c = ShellConstraints::new(sheet.mesh.vertices().len());
    let mut tip = Vec::new();
    for (v, p) in sheet.mesh.vertices().iter().enumerate() {
        if p.x == 0.0 {
            c.support(v, Support::Clamped);
        }
        if p.x == length {
            tip.push(v);
        }
    }
    let u = shell.solve(&c, &ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -g))).unwrap();
    let w_tip = -tip.iter().map(|&v| u.displacements[v][2]).sum::<f64>() / tip.len() as f64;
    let q = rho * h * g * width;
    let ei = e * width * h.powi(3) / 12.0;
    w_tip / (q * length.powi(4) / (8.0 * ei))
}

#[test]
fn cantilever_strip_converges_to_the_beam() {
    let (error, order) =
        convergence("cantilever strip tip / (q L^4 / 8 E I)", &[10, 20, 40, 80], 1.0, cantilever_ratio);
    assert!(error.abs() < 5e-3, "{error:e}");
    assert!((order - 2.0).abs() < 0.4, "order {order}");
}

/// A curved, irregular sheet: a crossed 3 x 3 rectangle bent into a saddle and jittered off it.
fn curved_sheet() -> Sheet {
    let m = SheetMesh::rectangle(1.0, 0.8, 3, 3, Diagonal::Crossed).unwrap();
    let mut state = 11;
    let v = m
        .vertices()
        .iter()
        .map(|p| Vector3::new(p.x, p.y, 0.3 * p.x * p.x - 0.2 * p.y * p.y + 0.02 * jitter(&mut state)))
        .collect();
    Sheet::new(SheetMesh::new(v, m.triangles().to_vec()).unwrap(), 1e-2, 1000.0).unwrap()
}

fn dense(shell: &LinearShell) -> DMatrix<f64> {
    let k = shell.stiffness();
    let mut d = DMatrix::zeros(k.nrows(), k.ncols());
    for (i, j, v) in k.triplet_iter() {
        d[(i, j)] = *v;
    }
    d
}

#[test]
fn rigid_motions_have_zero_energy_and_the_stiffness_is_frame_indifferent() {
    let sheet = curved_sheet();
    let shell = LinearShell::new(&sheet, material(0.3)).unwrap();
    let k = dense(&shell);
    let scale = k.abs().max();
    // Six rigid motions (and a mix): translations t and small rotations theta, u = t + theta x X.
    let motions = [
        (Vector3::x(), Vector3::zeros()),
        (Vector3::y(), Vector3::zeros()),
        (Vector3::z(), Vector3::zeros()),
        (Vector3::zeros(), Vector3::x()),
        (Vector3::zeros(), Vector3::y()),
        (Vector3::zeros(), Vector3::z()),
        (Vector3::new(0.3, -0.2, 0.5), Vector3::new(-0.4, 0.7, 0.2)),
    ];
    for (t, theta) in motions {
        let u: Vec<[f64; 6]> = sheet
            .mesh
            .vertices()
            .iter()
            .map(|p| {
                let d = t + theta.cross(p);
                [d.x, d.y, d.z, theta.x, theta.y, theta.z]
            })
            .collect();
        let flat = nalgebra::DVector::from_iterator(u.len() * 6, u.iter().flatten().copied());
        let relative = (&k * &flat).amax() / (scale * flat.amax());
        println!("rigid motion t = {t:?}, theta = {theta:?}: |K u| / (|K| |u|) = {relative:.1e}");
        assert!(relative < 1e-13, "{relative:e}");
        assert!(shell.energy(&u).abs() < 1e-13 * scale * flat.norm_squared());
    }

    // Rotating the mesh by Q rotates the stiffness: K(Q X) = P K(X) P^T with P = diag(Q, ..., Q).
    let q = Rotation3::from_euler_angles(0.9, 0.3, -1.7);
    let rotated =
        SheetMesh::new(sheet.mesh.vertices().iter().map(|p| q * p).collect(), sheet.mesh.triangles().to_vec()).unwrap();
    let k_rotated = dense(&LinearShell::new(&Sheet::new(rotated, 1e-2, 1000.0).unwrap(), material(0.3)).unwrap());
    let n = k.nrows();
    let mut p = DMatrix::zeros(n, n);
    for b in 0..n / 3 {
        p.view_mut((3 * b, 3 * b), (3, 3)).copy_from(q.matrix());
    }
    let difference = (&k_rotated - &p * &k * p.transpose()).abs().max() / scale;
    println!("frame indifference: max |K(QX) - P K P^T| / max |K| = {difference:.1e}");
    assert!(difference < 1e-13, "{difference:e}");
}

#[test]
fn a_sheet_not_held_or_badly_given_is_refused() {
    let sheet = Sheet::new(SheetMesh::rectangle(1.0, 0.5, 4, 2, Diagonal::Crossed).unwrap(), 1e-3, 1000.0).unwrap();
    let shell = LinearShell::new(&sheet, material(0.3)).unwrap();
    let n = sheet.mesh.vertices().len();
    let load = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -9.81));
    let along_edge = |support| {
        let mut c = ShellConstraints::new(n);
        for (v, p) in sheet.mesh.vertices().iter().enumerate() {
            if p.x == 0.0 {
                c.support(v, support);
            }
        }
        c
    };
    // Free: all six rigid motions; translations held along one line: the rotation about it.
    assert_eq!(shell.solve(&ShellConstraints::new(n), &load), Err(ShellError::NotHeld { free: 6 }));
    assert_eq!(shell.solve(&along_edge(Support::SimplySupported), &load), Err(ShellError::NotHeld { free: 1 }));
    assert!(shell.solve(&along_edge(Support::Clamped), &load).is_ok());
    // One clamped vertex holds the sheet; so do the translations of three vertices not on one line.
    let mut one = ShellConstraints::new(n);
    one.support(0, Support::Clamped);
    assert_eq!(shell.free_rigid_motions(&one), 0);
    let mut three = ShellConstraints::new(n);
    for v in [0, 4, 12] {
        three.support(v, Support::SimplySupported);
    }
    assert_eq!(shell.free_rigid_motions(&three), 0);
    assert!(shell.solve(&three, &load).is_ok());
    // A vertex on no triangle has no stiffness unless all six of its DOFs are held.
    let mut vertices = sheet.mesh.vertices().to_vec();
    vertices.push(Vector3::new(2.0, 2.0, 2.0));
    let orphan = Sheet::new(SheetMesh::new(vertices, sheet.mesh.triangles().to_vec()).unwrap(), 1e-3, 1000.0).unwrap();
    let orphan_shell = LinearShell::new(&orphan, material(0.3)).unwrap();
    let mut c = ShellConstraints::new(n + 1);
    c.support(0, Support::Clamped);
    let orphan_load = ShellLoad::zero(n + 1);
    assert_eq!(orphan_shell.solve(&c, &orphan_load), Err(ShellError::OrphanVertex(n)));
    c.support(n, Support::Clamped);
    assert!(orphan_shell.solve(&c, &orphan_load).is_ok());
    // Lists of the wrong length.
    assert!(matches!(
        shell.solve(&ShellConstraints::new(n + 1), &load),
        Err(ShellError::SizeMismatch { what: "shell constraints", .. })
    ));
    assert!(matches!(
        shell.solve(&along_edge(Support::Clamped), &ShellLoad::zero(3)),
        Err(ShellError::SizeMismatch { what: "shell load", .. })
    ));
}

#[test]
fn pressure_equals_the_same_weight_per_area() {
    // On a flat sheet with normal +z, a pressure -rho h g pushes like the sheet's weight.
    let sheet = Sheet::new(SheetMesh::rectangle(1.0, 1.0, 6, 6, Diagonal::Alternating).unwrap(), 1e-2, 2000.0).unwrap();
    let weight = ShellLoad::gravity(&sheet, Vector3::new(0.0, 0.0, -9.81));
    let pressure = ShellLoad::pressure(&sheet, -2000.0 * 1e-2 * 9.81);
    let total: f64 = pressure.nodal.iter().map(|f| f[2]).sum();
    assert!((total + 2000.0 * 1e-2 * 9.81).abs() < 1e-12);
    for (a, b) in weight.nodal.iter().zip(&pressure.nodal) {
        assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-13), "{a:?} {b:?}");
    }
}

#[test]
fn simply_supported_plate_modes_converge_to_the_closed_form() {
    // omega_mn = pi^2 (m^2 + n^2) / a^2 sqrt(D / (rho h)): the four lowest are (1,1), (1,2), (2,1), (2,2).
    // The shell's mass carries the rotary inertia rho h^3 / 12 on the rotations, so the yardstick is the
    // same closed form with it (Rayleigh's plate): omega^2 = D k^4 / (rho h (1 + h^2 k^2 / 12)),
    // k^2 = pi^2 (m^2 + n^2) / a^2, some 1e-4 below Kirchhoff's for these modes.
    let (a, h, rho, nu): (f64, f64, f64, f64) = (1.0, 1e-2, 7850.0, 0.3);
    let d = 2e11 * h * h * h / (12.0 * (1.0 - nu * nu));
    let base = std::f64::consts::PI.powi(2) / (a * a) * (d / (rho * h)).sqrt();
    let exact = [2.0, 5.0, 5.0, 8.0].map(|k| {
        let k2 = k * std::f64::consts::PI.powi(2) / (a * a);
        k * base / (1.0 + h * h * k2 / 12.0).sqrt()
    });
    println!(
        "rotary inertia: Rayleigh / Kirchhoff - 1 = {:.2e} (1,1), {:.2e} (2,2)",
        exact[0] / (2.0 * base) - 1.0,
        exact[3] / (8.0 * base) - 1.0
    );
    let mut errors: Vec<[f64; 4]> = Vec::new();
    for n in [8, 16, 32] {
        let mesh = SheetMesh::rectangle(a, a, n, n, Diagonal::Alternating).unwrap();
        let boundary = mesh.boundary_vertices();
        let sheet = Sheet::new(mesh, h, rho).unwrap();
        let shell = LinearShell::new(&sheet, material(nu)).unwrap();
        let mut c = ShellConstraints::new(boundary.len());
        for (v, _) in boundary.iter().enumerate().filter(|(_, b)| **b) {
            c.support(v, Support::SimplySupported);
        }
        let modes = shell.modes(&c, 4).unwrap();
        let e: [f64; 4] = std::array::from_fn(|i| modes.angular[i] / exact[i] - 1.0);
        println!(
            "N = {n:2}: omega / closed form - 1 = {:+.3e} (1,1), {:+.3e} {:+.3e} (1,2), {:+.3e} (2,2); {} iterations, \
             residuals <= {:.1e}",
            e[0],
            e[1],
            e[2],
            e[3],
            modes.iterations,
            modes.residuals.iter().copied().fold(0.0, f64::max)
        );
        errors.push(e);
    }
    for pair in errors.windows(2) {
        let order: Vec<String> = (0..4).map(|i| format!("{:.2}", (pair[0][i] / pair[1][i]).abs().log2())).collect();
        println!("observed orders: {}", order.join(", "));
    }
    let finest = errors[errors.len() - 1];
    assert!(finest.iter().all(|e| e.abs() < 5e-3), "{finest:?}");
    for i in 0..4 {
        assert!(errors[2][i].abs() < errors[1][i].abs() && errors[1][i].abs() < errors[0][i].abs(), "{errors:?}");
    }
}
