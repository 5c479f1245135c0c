//! The shell's own motion in the Morse study's hanging-cloth release (reports/morse/README.md): the
//! corotational shell's transient (`CorotationalShell::integrate`, Newmark's average acceleration, no
//! damping) of a sheet scene from the flat sheet at rest with its weight switched on, measured as
//! `reproduce.py` measures the cloths: the vertical displacement of the bottom edge's middle about the
//! shell's static rest state, the period twice the mean time between crossings of that height, the
//! deepest point the lowest displacement.
//!
//! Usage: `cargo run -p pbdfit-fit --example morse_shell_motion -- SCENE N DT TIME` (the scene file, the
//! resolution, the shell's step in s, the simulated time in s); prints the track every `1/24` s (the
//! study's frame) and the measures.

use pbdfit_fem::shell::{CorotationalShell, ShellDynamicState, ShellLoad};
use pbdfit_fem::{DynamicSettings, RestRule, TimeIntegrator};
use pbdfit_fit::{Body, BodyKeywords, Material, ShellReference, Spelling, load_sheet, shell_constraints, solve_shell};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [scene, n, dt, time] = &args[..] else {
        panic!("usage: morse_shell_motion SCENE N DT TIME");
    };
    let (n, dt, time): (usize, f64, f64) = (n.parse().unwrap(), dt.parse().unwrap(), time.parse().unwrap());
    let body = Body { scene: scene.clone(), n: Some(n), scale: BodyKeywords::default(), ..Body::default() };
    let (_, sheet, material) = load_sheet(&body, Material::default(), Spelling::Flag).unwrap();
    let vertices = sheet.sheet.mesh.vertices();
    let nearest = |x: f64, y: f64| {
        (0..vertices.len())
            .min_by(|&a, &b| {
                let d = |v: usize| (vertices[v].x - x).hypot(vertices[v].y - y);
                d(a).total_cmp(&d(b))
            })
            .unwrap()
    };
    let bottom = nearest(0.5, 0.0);
    let started = std::time::Instant::now();
    let (rest, _) = solve_shell(&sheet, material, ShellReference::Corotational(Default::default())).unwrap();
    let level = rest.translation(bottom).y;
    let shell = CorotationalShell::new(&sheet.sheet, material).unwrap();
    let settings = DynamicSettings {
        integrator: TimeIntegrator::Newmark,
        stop: RestRule::Time(time),
        ..DynamicSettings::to_rest(dt)
    };
    let frame = (1.0 / 24.0 / dt).round().max(1.0) as usize;
    let mut track: Vec<(f64, f64)> = Vec::new();
    let mut observe = |s: &ShellDynamicState| {
        let y = s.displacements().translation(bottom).y;
        track.push((s.time, y));
        if s.steps.is_multiple_of(frame) {
            println!("{:.6} {y:.6e}", s.time);
        }
    };
    let load = ShellLoad::gravity(&sheet.sheet, sheet.gravity);
    let end =
        shell.integrate(&shell_constraints(&sheet), &load, &settings, None, &mut |_| {}, Some(&mut observe)).unwrap();
    let crossings: Vec<f64> = track
        .windows(2)
        .filter(|w| (w[0].1 - level) * (w[1].1 - level) < 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (w[0].1 - level) / (w[0].1 - w[1].1))
        .collect();
    let period = if crossings.len() >= 2 {
        2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
    } else {
        f64::NAN
    };
    let deepest = track.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
    println!(
        "scene {scene} N {n}: shell rest sag of the bottom middle {level:.6e} m; Newmark dt {dt} s over {time} s \
         ({} steps, {} Newton iterations, {:.1} s): period {period:.4} s ({} crossings), deepest point {deepest:.6e} m",
        end.steps,
        end.newton_iterations,
        started.elapsed().as_secs_f64(),
        crossings.len()
    );
}
