//! Wind on the cloth models (`[[load.wind]]`, `pbdfit_mesh::TriangleWind`): a free sheet in a uniform wind
//! normal to it gains the wind's drag as momentum, along the wind, and speeds up towards the wind's speed
//! as the drag of the relative velocity says; a flag held on one edge streams downwind and stays finite.

use pbdfit_mesh::{Diagonal, Sheet, SheetMesh, SheetScene, TriangleWind, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, SimParams};

/// A uniform wind `w` on every triangle of `sheet` (air 1.2 kg/m^3, `C_d` 1, no tangential drag).
fn uniform(sheet: &Sheet, w: Vec3) -> TriangleWind {
    let n = sheet.mesh.triangles().len();
    TriangleWind { velocity: vec![w; n], normal: vec![0.5 * 1.2; n], tangential: vec![0.0; n] }
}

/// A free 1 m x 1 m fabric (0.5 mm, 300 kg/m^3: 0.15 kg) in z = 0, no gravity, in a 10 m/s wind along +z.
/// One step from rest gives it the momentum `F dt` with `F = 1/2 rho C_d A w^2 = 60 N`, along +z, to
/// 1e-12 (the constraints' corrections are internal, and a flat sheet moving as one violates none); then
/// it speeds up as `m dv/dt = F (1 - v/w)^2`, whose solution `v = w - 1/(1/w + c t)`, `c = 1/2 rho C_d A / m
/// = 4 /m`, it follows within 1 % at 2 s (the drag is taken explicitly at each step's start: first order in
/// dt, 0.01 s here), staying below the wind's speed.
#[test]
fn a_free_sheet_in_uniform_wind_accelerates_along_the_wind() {
    let sheet = Sheet::new(SheetMesh::rectangle(1.0, 1.0, 4, 4, Diagonal::Alternating).unwrap(), 5e-4, 300.0).unwrap();
    let held = vec![false; sheet.mesh.vertices().len()];
    let w = Vec3::new(0.0, 0.0, 10.0);
    let masses = sheet.lumped_masses();
    let mass: f64 = masses.iter().sum();
    for name in ["cloth-xpbd", "cloth-xpbd-morse", "newton-cloth"] {
        let kind: ModelKind = name.parse().unwrap();
        let system = PbdSystem::sheet("free", &sheet, &held, Vec3::zeros()).with_wind(&uniform(&sheet, w));
        assert!(system.has_wind() && !system.is_gravity_only());
        let params = SimParams::new(0.01, 10, kind.example());
        let mut d = system.dynamics();
        system.step(&params, &mut d);
        let momentum: Vec3 = d.v.iter().zip(&masses).map(|(v, m)| v * *m).sum();
        let expected = 0.5 * 1.2 * 1.0 * 100.0 * params.dt;
        println!("{name}: momentum after one step {:?}, expected {expected} N s along +z", momentum.as_slice());
        assert!((momentum.z - expected).abs() < 1e-12 * expected, "{name}: {momentum:?}");
        assert!(momentum.x.abs() < 1e-12 * expected && momentum.y.abs() < 1e-12 * expected, "{name}: {momentum:?}");
        let mut last = momentum.z / mass;
        for step in 2..=200 {
            system.step(&params, &mut d);
            let v = d.v.iter().zip(&masses).map(|(v, m)| v.z * m).sum::<f64>() / mass;
            assert!(v > last && v < w.z, "{name}: step {step}: {v} after {last}");
            last = v;
        }
        let c = 0.5 * 1.2 * 1.0 / mass;
        let exact = w.z - 1.0 / (1.0 / w.z + c * 2.0);
        println!("{name}: mean speed at 2 s {last:.5} m/s, the drag law's {exact:.5} m/s");
        assert!((last - exact).abs() < 0.01 * exact, "{name}: {last} against {exact}");
    }
}

/// A flag of 8 x 8 cells (the Morse flag's fabric, morse-flag.toml's set-up at N 8), held along its left
/// edge x = 0, gravity along -y, in a 5 m/s wind along +x at 15 degrees out of its plane, after 5 s (120
/// steps of 1/24 s, 100 iterations, damping 0.3/s): every position is finite and the flag streams
/// downwind, its free edge's mean out of the plane along the wind (z > 0) and, seen from above (x-z),
/// within 45 degrees of the wind's direction from the pole (the flag points where the wind blows, not back
/// at the pole). Without the wind it stays in its plane (z = 0 to round-off: nothing pushes it out).
#[test]
fn a_flag_streams_downwind_and_stays_finite() {
    let text = |wind: &str| {
        format!(
            "name = \"flag\"\n[sheet]\nwidth = 1.0\nheight = 1.0\nn = 8\ndiagonal = \"alternating\"\nthickness = 5e-4\n\
             [[held]]\nplane = \"x = 0\"\nsupport = \"pinned\"\n[load]\ngravity = [0.0, -9.81, 0.0]\n{wind}\
             [material]\ndensity = 300.0\nyoung = 2e6\npoisson = 0.3\n"
        )
    };
    let a = 15f64.to_radians();
    let along = Vec3::new(a.cos(), 0.0, a.sin());
    let windy = format!("[[load.wind]]\nplane = \"z = 0\"\nwind = [{}, 0.0, {}]\n", 5.0 * a.cos(), 5.0 * a.sin());
    let edge = |wind: &str| {
        let body = SheetScene::parse(&text(wind), "flag", None).unwrap().body(None).unwrap();
        let system = PbdSystem::sheet_body(&body);
        assert_eq!(system.has_wind(), !wind.is_empty());
        let kind: ModelKind = "cloth-xpbd".parse().unwrap();
        let mut params = SimParams::new(1.0 / 24.0, 100, kind.with(&[1e-7, 1e4]).unwrap());
        params.damping = 0.3 / 24.0;
        let mut d = system.dynamics();
        for _ in 0..120 {
            system.step(&params, &mut d);
        }
        let rest = body.sheet.mesh.vertices();
        let x: Vec<Vec3> = rest.iter().zip(&d.u).map(|(p, u)| p + u).collect();
        assert!(x.iter().all(|p| p.iter().all(|c| c.is_finite())), "{x:?}");
        let free: Vec<Vec3> = rest.iter().zip(&x).filter(|(p, _)| p.x == 1.0).map(|(_, x)| *x).collect();
        free.iter().sum::<Vec3>() / free.len() as f64
    };
    let (windy, still) = (edge(&windy), edge(""));
    let seen = Vec3::new(windy.x, 0.0, windy.z);
    let angle = (seen.dot(&along) / seen.norm()).acos().to_degrees();
    println!(
        "free edge after 5 s: in wind {:?} ({angle:.1} degrees from the wind seen from above), without {:?}",
        windy.as_slice(),
        still.as_slice()
    );
    assert!(windy.z > 0.0 && angle < 45.0, "{windy:?}: {angle} degrees");
    assert!(still.z.abs() < 1e-12, "{still:?}");
}
