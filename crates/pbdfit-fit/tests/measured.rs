//! Fits to measured markers (methodology, section Measured references): a full field of markers is the
//! simulated reference's error, and markers made by the model itself give back its parameters.

use pbdfit_fem::YoungPoisson;
use pbdfit_fit::{FitOptions, FitProblem, PartCache, ReferenceOverrides, Search, SearchBox, Settings, fit_cpu};
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
    let cache = PartCache::new(ReferenceOverrides::none());
    let fem = FitProblem::new(&scenes, settings, YoungPoisson::new(1e3, 0.3).unwrap(), &cache).unwrap();
    let part = &fem.parts[0];
    let rest = part.system.rest_positions();
    let markers = Markers {
        source: "field".into(),
        markers: rest
            .iter()
            .zip(&part.reference)
            .map(|(&x, &u)| Marker { rest: x, displacement: u, sigma: None })
            .collect(),
    };
    let measured = FitProblem::measured(&scenes, settings, &markers, 1e-9, &cache).unwrap();
    let target = measured.parts[0].markers.as_ref().unwrap();
    assert_eq!(target.observed.len(), part.moved.len(), "the same markers move");
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
    let cache = PartCache::new(ReferenceOverrides::none());
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
