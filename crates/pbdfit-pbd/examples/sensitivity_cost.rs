//! The sensitivity benchmark: what the backward solve costs
//! against one forward rest state of the same setting, in rest-map evaluations (each one step of `nit`
//! sweeps, the unit both solves spend; counts, so the figures do not depend on the machine).
//!
//! `cargo run --release -p pbdfit-pbd --example sensitivity_cost` runs the cases of the sensitivity
//! tests (`tests/pbd_tests/sensitivity.rs`: every registered projection model at its test point on gravity-floor
//! and gravity-wall at N = 2 and 4, dt = 0.01, nit = 2; tension and torsion at N = 2, nit = 1) and prints,
//! per case, the cold forward rest state's map evaluations and the sensitivity's (all parameters) in two
//! forms: a fit's linearisation (GMRES to 1e-6 with one-sided products, `Differences::Forward`) and the
//! full-accuracy default (GMRES to 1e-8 with central products, what `simulate --sensitivity` prints),
//! then the median ratio of each. Mass-spring models are left out: their sensitivity is one sparse
//! factorisation, no map evaluation.
#[path = "../tests/points/mod.rs"]
mod points;

use pbdfit_mesh::SceneSet;
use pbdfit_pbd::{Differences, ModelKind, PbdSystem, RestOptions, SensitivityOptions, SimParams};
use points::point;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

fn main() {
    let fit =
        SensitivityOptions { tolerance: 1e-6, differences: Differences::Forward, ..SensitivityOptions::default() };
    let full = SensitivityOptions::default();
    let mut cases = Vec::new();
    for scene in ["gravity-floor", "gravity-wall"] {
        for n in [2, 4] {
            cases.push((scene, n, 2));
        }
    }
    cases.push(("tension", 2, 1));
    cases.push(("torsion", 2, 1));
    println!(
        "{:>20} {:>14} {:>2} {:>8} {:>10} {:>6} {:>10} {:>6}",
        "model", "scene", "N", "forward", "fit", "ratio", "full", "ratio"
    );
    let (mut fit_ratios, mut full_ratios) = (Vec::new(), Vec::new());
    for &kind in ModelKind::all() {
        let params_at = |nit| SimParams::new(0.01, nit, kind.with(&point(kind)).expect("the model's own count"));
        if !kind.has_projection() || kind.body_kind() == pbdfit_pbd::BodyKind::Sheet {
            continue;
        }
        for &(scene, n, nit) in &cases {
            let system = PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap());
            let params = params_at(nit);
            let rest = system.rest_state(&params, &RestOptions::default(), None).unwrap();
            let forward = rest.iterations / nit;
            let cost = |options: &SensitivityOptions| {
                system.sensitivity(&params, &rest.displacements, options).unwrap().map_evaluations
            };
            let (a, b) = (cost(&fit), cost(&full));
            let (ra, rb) = (a as f64 / forward as f64, b as f64 / forward as f64);
            println!("{:>20} {scene:>14} {n:>2} {forward:>8} {a:>10} {ra:>6.2} {b:>10} {rb:>6.2}", kind.name());
            fit_ratios.push(ra);
            full_ratios.push(rb);
        }
    }
    println!(
        "median over {} cases: linearisation (1e-6, one-sided) {:.2} forward solves; full accuracy (1e-8, central) {:.2}",
        fit_ratios.len(),
        median(fit_ratios),
        median(full_ratios)
    );
}
