//! A stretch-and-bend fit of a cloth model to the thin-shell reference: a clamped strip sagging under
//! its own weight, the corotational shell (`pbdfit_fem::shell::CorotationalShell`, large rotations,
//! linear membrane) against a cloth model's rest state (`PbdSystem::sheet`), fitted by a log10 grid and a
//! compass search on the relative displacement error `|u_model - u_shell| / |u_shell|` over all vertices.
//!
//! The strip: 0.2 m x 0.04 m, 10 x 2 quads (alternating diagonals) in the plane y = 0, 2 mm thick,
//! E = 1e8 Pa, nu = 0.3, 1100 kg/m^3, gravity (0, -9.81, 0) m/s^2; the first two columns of vertices
//! (x <= 2 cm) held (the shell's clamp, whose rotation the cloth cannot hold with one column). The model
//! steps at `DT` s (default 0.002) with `NIT` sweeps (default 10). Usage: `DT=0.002 NIT=10 cargo run -p
//! pbdfit-fit --example cloth_shell_fit [MODEL...]` (default `cloth-xpbd cloth-pbd-isometric`); prints each fit's parameters, error and time.

use std::time::Instant;

use nalgebra::Vector3;
use pbdfit_fem::YoungPoisson;
use pbdfit_fem::shell::{CorotationalShell, SHELL_NEWTON, ShellConstraints, ShellLoad, Support};
use pbdfit_mesh::{Diagonal, Sheet, SheetMesh, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions, Scale, SimParams};

const LENGTH: f64 = 0.2;
const WIDTH: f64 = 0.04;
const NX: usize = 10;
const NZ: usize = 2;

fn main() {
    let flat = SheetMesh::rectangle(LENGTH, WIDTH, NX, NZ, Diagonal::Alternating).unwrap();
    let vertices: Vec<Vec3> = flat.vertices().iter().map(|p| Vec3::new(p.x, 0.0, p.y)).collect();
    let sheet = Sheet::new(SheetMesh::new(vertices.clone(), flat.triangles().to_vec()).unwrap(), 2e-3, 1100.0).unwrap();
    let held: Vec<bool> = vertices.iter().map(|p| p.x <= LENGTH / NX as f64 + 1e-12).collect();
    let gravity = Vector3::new(0.0, -9.81, 0.0);

    let start = Instant::now();
    let shell = CorotationalShell::new(&sheet, YoungPoisson::new(1e8, 0.3).unwrap()).unwrap();
    let mut clamp = ShellConstraints::new(vertices.len());
    for (v, _) in held.iter().enumerate().filter(|(_, h)| **h) {
        clamp.support(v, Support::Clamped);
    }
    let reference = shell.solve(&clamp, &ShellLoad::gravity(&sheet, gravity), &SHELL_NEWTON).unwrap();
    let target: Vec<Vec3> = (0..vertices.len()).map(|v| reference.displacements.translation(v)).collect();
    let norm = target.iter().map(|u| u.norm_squared()).sum::<f64>().sqrt();
    let tip = target.iter().map(|u| -u.y).fold(0.0, f64::max);
    println!(
        "shell: tip deflection {tip:.5} m ({:.3} of the length), {} Newton iterations, {:.2} s",
        tip / LENGTH,
        reference.iterations,
        start.elapsed().as_secs_f64()
    );

    let system = PbdSystem::sheet("strip", &sheet, &held, gravity);
    let models: Vec<String> = std::env::args().skip(1).collect();
    let models = if models.is_empty() { vec!["cloth-xpbd".into(), "cloth-pbd-isometric".into()] } else { models };
    for name in models {
        let kind: ModelKind = name.parse().unwrap();
        fit(&system, kind, &target, norm);
    }
}

/// The relative error at unit coordinates `s` (each parameter's default box, log10 where it is).
fn error(
    system: &PbdSystem,
    kind: ModelKind,
    s: &[f64],
    target: &[Vec3],
    norm: f64,
    warm: &mut Option<Vec<Vec3>>,
) -> f64 {
    let values: Vec<f64> = kind
        .parameters()
        .iter()
        .zip(s)
        .map(|(p, &t)| match p.scale {
            Scale::Linear => p.default_box.0 + t * (p.default_box.1 - p.default_box.0),
            Scale::Log10 => 10f64.powf(p.default_box.0.log10() + t * (p.default_box.1 / p.default_box.0).log10()),
        })
        .collect();
    let dt = std::env::var("DT").ok().and_then(|v| v.parse().ok()).unwrap_or(0.002);
    let nit = std::env::var("NIT").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    let params = SimParams::new(dt, nit, kind.with(&values).unwrap());
    let options = RestOptions { max_sweeps: 50_000, ..RestOptions::default() };
    match system.rest_state(&params, &options, warm.as_deref()) {
        Ok(rest) if rest.residual <= 1e-8 => {
            let e = rest.displacements.iter().zip(target).map(|(a, b)| (a - b).norm_squared()).sum::<f64>().sqrt();
            *warm = Some(rest.displacements);
            e / norm
        }
        _ => f64::INFINITY,
    }
}

/// A 5 x 5 grid of cell centres, then a compass search from its best point, halving the step to 1e-3.
fn fit(system: &PbdSystem, kind: ModelKind, target: &[Vec3], norm: f64) {
    let start = Instant::now();
    let d = kind.parameters().len();
    assert_eq!(d, 2, "two parameters: stretch and bend");
    let mut evaluations = 0;
    let mut best = (f64::INFINITY, vec![0.5; d]);
    let mut warm = None;
    for i in 0..5 {
        for j in 0..5 {
            let s = vec![(i as f64 + 0.5) / 5.0, (j as f64 + 0.5) / 5.0];
            let e = error(system, kind, &s, target, norm, &mut None);
            evaluations += 1;
            if e < best.0 {
                best = (e, s);
            }
        }
    }
    let mut step = 1.0 / 10.0;
    while step > 1e-3 {
        let mut moved = false;
        for k in 0..d {
            for sign in [1.0, -1.0] {
                let mut s = best.1.clone();
                s[k] = (s[k] + sign * step).clamp(0.0, 1.0);
                let mut w = warm.clone();
                let e = error(system, kind, &s, target, norm, &mut w);
                evaluations += 1;
                if e < best.0 {
                    best = (e, s);
                    warm = w;
                    moved = true;
                }
            }
        }
        if !moved {
            step /= 2.0;
        }
    }
    let values: Vec<String> = kind
        .parameters()
        .iter()
        .zip(&best.1)
        .map(|(p, &t)| {
            let v = match p.scale {
                Scale::Linear => p.default_box.0 + t * (p.default_box.1 - p.default_box.0),
                Scale::Log10 => 10f64.powf(p.default_box.0.log10() + t * (p.default_box.1 / p.default_box.0).log10()),
            };
            format!("{} = {v:.4e} {}", p.name, p.unit)
        })
        .collect();
    println!(
        "{kind}: {}; relative error {:.4e}; {evaluations} rest states in {:.2} s",
        values.join(", "),
        best.0,
        start.elapsed().as_secs_f64()
    );
}
