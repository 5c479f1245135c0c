//! Fits to measured markers (docs/measured.md): a full field of markers is the
//! simulated reference's error, and markers made by the model itself give back its parameters.

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOptions, FitProblem, PartCache, Search, SearchBox, Settings, fit_cpu};
use pbdfit_mesh::{Marker, Markers, SceneSet, Vec3};
use pbdfit_pbd::{ModelKind, RestOptions};

fn set(scene: &str) -> SceneSet {
    SceneSet::builtin(scene).unwrap()
}

/// A marker at every vertex with the FEM reference's displacement gives the same error as the FEM
/// reference itself, at every parameter point (the held vertices, which do not move, drop out of both).
#[test]
fn a_full_field_of_markers_is_the_reference_error() {
    let scenes = set("gravity-wall");
    let settings = Settings::new(0.01, 2, 1, ModelKind::PBD);
    let cache = PartCache::new(Default::default());
    let fem = FitProblem::new(&scenes, settings, YoungPoisson::new(1e3, 0.3).unwrap(), &cache).unwrap();
    let part = &fem.parts[0];
    let rest = part.system.rest_positions();
    let markers = Markers {
        source: "field".into(),
        markers: rest
            .iter()
            .zip(part.target.field().expect("an FEM target").0)
            .map(|(&x, &u)| Marker { rest: x, displacement: u, sigma: None })
            .collect(),
    };
    let measured = FitProblem::measured(&scenes, settings, &markers, 1e-9, &cache).unwrap();
    let target = measured.parts[0].target.markers().unwrap();
    assert_eq!(target.observed.len(), part.target.field().unwrap().1.len(), "the same markers move");
    assert!(measured.reference.contains("measured field") && measured.reference.contains("relative"));
    for values in [[0.3, 0.6], [0.8, 0.2], [1.0, 1.0]] {
        let (a, b) = (fem.evaluate(&values, None).error, measured.evaluate(&values, None).error);
        assert!((a - b).abs() <= 1e-13 * a, "{values:?}: reference {a}, markers {b}");
    }
}

/// Markers interpolated from a PBD rest state at known parameters, at points inside the tetrahedra:
/// the gradient fit gives the parameters back and an error near 0, with and without sigmas.
#[test]
fn markers_made_by_the_model_give_its_parameters_back() {
    let scenes = set("gravity-wall");
    let settings = Settings::new(0.01, 2, 1, ModelKind::PBD);
    let cache = PartCache::new(Default::default());
    let system = cache.system(&scenes.scenes()[0], 2).unwrap();
    let truth = [0.43, 0.71];
    let rest = system.rest_state(&settings.at(&truth), &RestOptions::default(), None).unwrap();
    let u = &rest.displacements;
    let x = system.rest_positions();
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    // 40 markers at random barycentric points of random tetrahedra (with a sigma column, then without).
    let tets = system.tets();
    let make = |sigma: Option<f64>, next: &mut dyn FnMut() -> f64| -> Markers {
        let markers = (0..40)
            .map(|_| {
                let t = tets[(next() * tets.len() as f64) as usize % tets.len()];
                let w: Vec<f64> = (0..4).map(|_| next() + 0.05).collect();
                let s: f64 = w.iter().sum();
                let at = |f: &dyn Fn(usize) -> Vec3| (0..4).map(|k| f(t[k]) * (w[k] / s)).sum::<Vec3>();
                Marker { rest: at(&|v| x[v]), displacement: at(&|v| u[v]), sigma }
            })
            .collect();
        Markers { source: "synthetic".into(), markers }
    };
    for sigma in [None, Some(1e-5)] {
        let markers = make(sigma, &mut next);
        let problem = FitProblem::measured(&scenes, settings, &markers, 1e-9, &cache).unwrap();
        let mut options = FitOptions::new(SearchBox::default_for(ModelKind::PBD));
        options.use_search(Search::Gradient);
        let r = fit_cpu(&problem, &options).unwrap();
        let found: Vec<f64> = r.parameters.iter().map(|p| p.1).collect();
        assert!(
            (found[0] - truth[0]).abs() < 1e-5 && (found[1] - truth[1]).abs() < 1e-4,
            "{sigma:?}: {found:?} against {truth:?}"
        );
        assert!(r.error < 1e-10, "{sigma:?}: error {}", r.error);
    }
    // A compound scene is refused: its parts are separate bodies.
    let e = FitProblem::measured(&set("gravity"), settings, &make(None, &mut next), 1e-9, &cache).unwrap_err();
    assert!(e.to_string().contains("compound"), "{e}");
}

/// With 1 % Gaussian noise and sigmas, a fit to markers gives each parameter a 95 % interval; over 100
/// seeds the truth lies within 4 of its standard deviations every time (the interval stretched by
/// 4 / 1.96: a correct covariance breaks that with probability 6e-5 per parameter and seed), and inside the
/// 95 % interval at 91 (kd) and 89 (kv) of 100 seeds (measured; asserted: at least 85). The Gauss-Newton
/// interval slightly undercovers kv, the parameter the rest state depends on least.
/// The tests' seeded noise: a 64-bit LCG for uniform numbers in (0, 1) and Box-Muller for standard normal
/// ones, the same sequence for a seed on every platform.
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let radius = (-2.0 * self.uniform().ln()).sqrt();
        radius * (2.0 * std::f64::consts::PI * self.uniform()).cos()
    }
}

/// Markers at `rows` (rest position, exact displacement), each displacement component with Gaussian
/// noise of standard deviation `sigma` (m), each marker with that sigma.
fn noisy_markers(rows: impl IntoIterator<Item = (Vec3, Vec3)>, sigma: f64, noise: &mut Noise) -> Markers {
    Markers {
        source: "noisy".into(),
        markers: rows
            .into_iter()
            .map(|(rest, d)| Marker {
                rest,
                displacement: d + Vec3::new(noise.normal(), noise.normal(), noise.normal()) * sigma,
                sigma: Some(sigma),
            })
            .collect(),
    }
}

#[test]
fn noisy_markers_give_confidence_intervals_of_the_right_size() {
    let scenes = set("gravity-wall");
    let settings = Settings::new(0.01, 2, 1, ModelKind::PBD);
    let cache = PartCache::new(Default::default());
    let system = cache.system(&scenes.scenes()[0], 2).unwrap();
    let truth = [0.43, 0.71];
    let rest = system.rest_state(&settings.at(&truth), &RestOptions::default(), None).unwrap();
    let (u, x, tets) = (&rest.displacements, system.rest_positions(), system.tets());
    let mut inside = [0usize; 2];
    let seeds: Vec<u64> = (1..=100).collect();
    for &seed in &seeds {
        let mut noise = Noise(seed);
        let mut rows = Vec::new();
        for _ in 0..40 {
            let t = tets[(noise.uniform() * tets.len() as f64) as usize % tets.len()];
            let w: Vec<f64> = (0..4).map(|_| noise.uniform() + 0.05).collect();
            let s: f64 = w.iter().sum();
            let at = |f: &dyn Fn(usize) -> Vec3| (0..4).map(|k| f(t[k]) * (w[k] / s)).sum::<Vec3>();
            rows.push((at(&|v| x[v]), at(&|v| u[v])));
        }
        let sigma = 0.01 * rows.iter().map(|r| r.1.norm()).fold(0.0, f64::max);
        let markers = noisy_markers(rows, sigma, &mut noise);
        let problem = FitProblem::measured(&scenes, settings, &markers, 1e-9, &cache).unwrap();
        let mut options = FitOptions::new(SearchBox::default_for(ModelKind::PBD));
        options.use_search(Search::Gradient);
        let r = fit_cpu(&problem, &options).unwrap();
        let intervals = r.confidence.expect("a gradient fit to markers has intervals");
        for ((name, value), ((lo, hi), truth)) in r.parameters.iter().zip(intervals.iter().zip(truth)) {
            // Inside its own interval; a value on a bound is the end of its interval (clipped to the box).
            assert!(lo <= value && value <= hi && lo < hi, "seed {seed}: {name} {value} outside its own interval");
            let stretch = 4.0 / 1.96;
            let (lo4, hi4) = (value - (value - lo) * stretch, value + (hi - value) * stretch);
            assert!(lo4 < truth && truth < hi4, "seed {seed}: {name} truth {truth} outside {lo4}..{hi4}");
            let _ = name;
            inside[(name == &"kv") as usize] += usize::from(*lo <= truth && truth <= *hi);
        }
    }
    eprintln!("95 % intervals holding the truth over {} seeds: kd {}, kv {}", seeds.len(), inside[0], inside[1]);
    assert!(inside[0] >= 85 && inside[1] >= 85, "coverage kd {}, kv {} of 100", inside[0], inside[1]);
}

/// The bootstrap (refits of resampled noise) checks the Gauss-Newton intervals: on 1 % noise its 95 %
/// interval of kd is within a factor 2 of the covariance's in width, and it is deterministic.
#[test]
fn the_bootstrap_agrees_with_the_covariance_intervals() {
    let scenes = set("gravity-wall");
    let settings = Settings::new(0.01, 2, 1, ModelKind::PBD);
    let cache = PartCache::new(Default::default());
    let system = cache.system(&scenes.scenes()[0], 2).unwrap();
    let rest = system.rest_state(&settings.at(&[0.43, 0.71]), &RestOptions::default(), None).unwrap();
    let (u, x) = (&rest.displacements, system.rest_positions());
    // Markers at every free vertex that moves, with 1 % noise of the largest displacement.
    let largest = u.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let sigma = 0.01 * largest;
    let moving = x.iter().zip(u).filter(|(_, d)| d.norm() > 0.0).map(|(&rest, &d)| (rest, d));
    let markers = noisy_markers(moving, sigma, &mut Noise(5));
    let problem = FitProblem::measured(&scenes, settings, &markers, 1e-9, &cache).unwrap();
    let mut options = FitOptions::new(SearchBox::default_for(ModelKind::PBD));
    options.use_search(Search::Gradient);
    let r = fit_cpu(&problem, &options).unwrap();
    let covariance = r.confidence.clone().unwrap();
    let run = || pbdfit_fit::bootstrap(&scenes, settings, &markers, 1e-9, &cache, &options, &r.rest_states[0], 40, 7);
    let b = run().unwrap();
    assert_eq!(b, run().unwrap(), "deterministic");
    assert_eq!((b.replicates, b.failed, b.noise), (40, 0, sigma));
    let width = |i: &(f64, f64)| i.1 - i.0;
    let intervals = b.intervals.as_ref().expect("40 refits give intervals");
    let ratio = width(&intervals[0]) / width(&covariance[0]);
    eprintln!("kd: bootstrap {:?}, covariance {:?}, width ratio {ratio:.3}", intervals[0], covariance[0]);
    assert!((0.5..2.0).contains(&ratio), "kd: bootstrap {:?} against {:?}", intervals[0], covariance[0]);
    assert!(!b.rough() && b.stopped.is_none());

    // Fewer than 2 replicates is no interval (`--bootstrap 1` printed a "95 %" interval of
    // zero width; 0 was ignored); no bound on K (1e9 ran on). All refused before any refit.
    for k in [0, 1, pbdfit_fit::MAX_BOOTSTRAP + 1, 1_000_000_000] {
        let e = pbdfit_fit::bootstrap(&scenes, settings, &markers, 1e-9, &cache, &options, &r.rest_states[0], k, 7)
            .unwrap_err();
        assert!(matches!(e, pbdfit_fit::FitError::BootstrapReplicates { .. }) && e.is_input(), "{e}");
        assert!(e.to_string().contains("give 2 to 10000"), "{e}");
    }
    // The time limit bounds the refits. At a limit already passed no refit starts: no
    // interval, and the result says why (deterministic: the deadline is the bootstrap's own start).
    let limited = FitOptions { max_seconds: Some(0.0), ..options.clone() };
    let b = pbdfit_fit::bootstrap(&scenes, settings, &markers, 1e-9, &cache, &limited, &r.rest_states[0], 10_000, 7)
        .unwrap();
    assert_eq!((b.asked, b.replicates, b.failed, b.intervals.as_ref()), (10_000, 0, 0, None));
    assert!(b.stopped.as_deref().is_some_and(|s| s.contains("time limit") && s.contains("after 0 of 10000")));
    // A limit beyond what an Instant holds is no limit (the clock's conversion): 2 refits, an interval.
    let unlimited = FitOptions { max_seconds: Some(1e19), ..options.clone() };
    let b =
        pbdfit_fit::bootstrap(&scenes, settings, &markers, 1e-9, &cache, &unlimited, &r.rest_states[0], 2, 7).unwrap();
    assert!(b.intervals.is_some() && b.rough() && b.stopped.is_none(), "{b:?}");
}
