//! The mass-spring cloth (`cloth-mass-spring`; its patch test is in `mass_spring/sheet_springs.rs`): rest
//! states by hand on one quad and on a 2 x 2 sheet, the clamped strip's sag (carried by the bending springs), sensitivities against differences of rest states,
//! and the solid scenes refused.

use pbdfit_mesh::{Diagonal, SceneSet, Sheet, SheetMesh, SheetScene, Vec3};
use pbdfit_pbd::{BodyKind, ModelKind, PbdError, PbdSystem, RestOptions, SensitivityOptions, SimParams, SpringGroup};

/// Gravity (m/s^2) along -y.
const G: f64 = 9.81;

/// A sheet of `nx x ny` unit quads in the plane z = 0, 1 mm thick at 1000 kg/m^3 (1 kg/m^2), every
/// boundary vertex held.
fn framed(n: usize, diagonal: Diagonal) -> (PbdSystem, Sheet) {
    let mesh = SheetMesh::rectangle(n as f64, n as f64, n, n, diagonal).unwrap();
    let sheet = Sheet::new(mesh, 1e-3, 1000.0).unwrap();
    let boundary = sheet.mesh.boundary_vertices();
    (PbdSystem::sheet("framed", &sheet, &boundary, Vec3::new(0.0, -G, 0.0)), sheet)
}

fn rest(system: &PbdSystem, values: &[f64]) -> Vec<Vec3> {
    let params = SimParams::new(0.01, 1, ModelKind::CLOTH_MASS_SPRING.with(values).unwrap());
    let r = system.rest_state(&params, &RestOptions::default(), None).unwrap();
    assert!(r.converged && r.residual <= 1e-12, "residual {:e}", r.residual);
    r.displacements
}

/// The root of an increasing `f` on `[0, hi]` by bisection to the last bit.
fn bisect(f: impl Fn(f64) -> f64, hi: f64) -> f64 {
    let (mut a, mut b) = (0.0, hi);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if f(m) < 0.0 { a = m } else { b = m }
    }
    0.5 * (a + b)
}

/// One quad with crossed diagonals, its four corners held: the centre (mass a third of the four triangles'
/// 1/4 kg, 1/3 kg) hangs on the four half diagonals, shear springs of rest length sqrt(1/2). By symmetry it
/// drops straight down by `d`, where `2 ks_shear (l_u - l0)(1/2 + d)/l_u + 2 ks_shear (l_d - l0)(d - 1/2)/l_d
/// = m g` with `l_u = |(1/2, 1/2 + d)|`, `l_d = |(1/2, d - 1/2)|`. The structural springs join held corners
/// only and carry nothing: the rest state is the same at any `ks_stretch`.
#[test]
fn the_centre_of_a_crossed_quad_hangs_on_its_shear_springs() {
    let (system, sheet) = framed(1, Diagonal::Crossed);
    let m = sheet.lumped_masses()[4];
    assert!((m - 1.0 / 3.0).abs() < 1e-15, "{m}");
    for ks_shear in [20.0, 3.0] {
        let l0 = 0.5f64.sqrt();
        let force = |d: f64| {
            let (up, down) = (0.5 + d, d - 0.5);
            let (lu, ld) = ((0.25 + up * up).sqrt(), (0.25 + down * down).sqrt());
            2.0 * ks_shear * ((lu - l0) * up / lu + (ld - l0) * down / ld) - m * G
        };
        let d = bisect(force, 10.0);
        for ks_stretch in [1.0, 1e4] {
            let u = rest(&system, &[ks_stretch, ks_shear, 7.0]);
            println!("ks_shear {ks_shear}: centre drops {:.12} m, by hand {d:.12} m", -u[4].y);
            assert!(u[4].x.abs() <= 1e-14 && u[4].z == 0.0, "{:?}", u[4]);
            assert!((u[4].y + d).abs() <= 1e-12 * d, "{} vs {d}", -u[4].y);
        }
    }
}

/// A 2 x 2 sheet with forward diagonals, its boundary held, no shear springs: the centre (mass 1 kg: six
/// triangles of 1/2 m^2) hangs on its four structural springs; the bending springs through it join held
/// vertices, the diagonals carry nothing (ks_shear 0). By symmetry it drops straight down by `d` with
/// `2 ks d + 2 ks (l - 1) d / l = m g`, `l = sqrt(1 + d^2)` (d about 0.12 m at ks = 40 N/m; at 4 N/m Newton's
/// first step carries the centre past the vertex below it, to the branch where that spring is inverted).
#[test]
fn the_centre_of_a_2x2_sheet_hangs_on_its_structural_springs() {
    let (system, sheet) = framed(2, Diagonal::Forward);
    let m = sheet.lumped_masses()[4];
    assert!((m - 1.0).abs() < 1e-15, "{m}");
    let ks = 40.0;
    let d =
        bisect(|d: f64| 2.0 * ks * d + 2.0 * ks * ((1.0 + d * d).sqrt() - 1.0) * d / (1.0 + d * d).sqrt() - m * G, 0.5);
    let u = rest(&system, &[ks, 0.0, 50.0]);
    println!("centre drops {:.12} m, by hand {d:.12} m", -u[4].y);
    assert!(u[4].x.abs() <= 1e-14 && (u[4].y + d).abs() <= 1e-12 * d, "{:?} vs {d}", u[4]);
    // Springs by hand: 12 structural, 4 diagonals, 6 two apart along rows and columns.
    let springs = system.spring_body();
    let counts = [SpringGroup::Structural, SpringGroup::Shear, SpringGroup::Bend].map(|g| springs.springs(g).len());
    assert_eq!(counts, [12, 4, 6]);
    assert!(springs.springs(SpringGroup::Bend).iter().all(|(_, l0)| (l0 - 2.0).abs() < 1e-15));
}

/// The clamped strip (steel ruler, `--n 10`) sags out of its plane, where only the bending springs' second
/// order lengthening holds it up: Newton converges from the flat strip (its plain step is singular
/// there), the tip sags less with stiffer bending springs, and without bending springs too.
#[test]
fn the_clamped_strip_sags_on_its_bending_springs() {
    let scene = SheetScene::load("clamped-strip").unwrap();
    let body = scene.body(Some(10)).unwrap();
    let system = PbdSystem::sheet_body(&body);
    let mut last = f64::INFINITY;
    for ks_bend in [1e4, 1e6, 1e8] {
        let params = SimParams::new(0.01, 1, ModelKind::CLOTH_MASS_SPRING.with(&[2e8, 1e8, ks_bend]).unwrap());
        let r = system.rest_state(&params, &RestOptions::default(), None).unwrap();
        let tip = r.displacements.iter().map(|u| -u.z).fold(0.0, f64::max);
        println!(
            "ks_bend {ks_bend:e}: tip sags {tip:.6e} m, {} Newton iterations, residual {:e}",
            r.iterations, r.residual
        );
        assert!(r.converged && tip > 0.0 && tip < last, "ks_bend {ks_bend:e}: tip {tip:e} after {last:e}");
        last = tip;
    }
}

/// The sensitivities of the hanging sheet's rest state (`--n 4`) to each spring constant against central
/// differences of rest states (relative step 1e-4).
#[test]
fn mass_spring_cloth_sensitivities_match_differences() {
    let scene = SheetScene::load("hanging-sheet").unwrap();
    let system = PbdSystem::sheet_body(&scene.body(Some(4)).unwrap());
    let values = [1e3, 3e2, 1e2];
    let at = |v: &[f64]| {
        let p = SimParams::new(0.01, 1, ModelKind::CLOTH_MASS_SPRING.with(v).unwrap());
        system.rest_state(&p, &RestOptions::default(), None).unwrap().displacements
    };
    let base = at(&values);
    let params = SimParams::new(0.01, 1, ModelKind::CLOTH_MASS_SPRING.with(&values).unwrap());
    let s = system.sensitivity(&params, &base, &SensitivityOptions::default()).unwrap();
    for j in 0..3 {
        let h = 1e-4 * values[j];
        let shifted = |sign: f64| {
            let mut v = values;
            v[j] += sign * h;
            at(&v)
        };
        let (plus, minus) = (shifted(1.0), shifted(-1.0));
        let (mut largest, mut worst) = (0.0f64, 0.0f64);
        for v in 0..plus.len() {
            let fd = (plus[v] - minus[v]) / (2.0 * h);
            largest = largest.max(fd.norm());
            worst = worst.max((fd - s.columns[j][v]).norm());
        }
        println!("parameter {j}: |du/dp| {largest:.3e}, sensitivity - differences {:.2e} relative", worst / largest);
        assert!(largest > 0.0 && worst <= 1e-5 * largest, "parameter {j}: {worst:e} of {largest:e}");
    }
}

/// The mass-spring cloth is a sheet model: refused on a solid, and the solid mass-spring refused on a
/// sheet, each naming the model.
#[test]
fn mass_spring_cloth_and_solid_mass_spring_refuse_each_others_bodies() {
    assert_eq!(ModelKind::CLOTH_MASS_SPRING.body_kind(), BodyKind::Sheet);
    assert!(!ModelKind::CLOTH_MASS_SPRING.has_projection());
    let solid = PbdSystem::new(&SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(1).unwrap());
    let (sheet, _) = framed(1, Diagonal::Forward);
    for (system, kind) in [(&solid, ModelKind::CLOTH_MASS_SPRING), (&sheet, ModelKind::MASS_SPRING)] {
        let params = SimParams::new(0.01, 1, kind.example());
        let e = system.rest_state(&params, &RestOptions::default(), None).unwrap_err();
        assert!(matches!(e, PbdError::BodyKind { model, .. } if model == kind.name()), "{e}");
    }
}
