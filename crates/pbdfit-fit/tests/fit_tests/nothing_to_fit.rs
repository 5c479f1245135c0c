//! Nothing to fit was fitted "perfectly". A scene whose load moves no free vertex
//! (zero gravity, every vertex held) or a reference that under- or overflows (E = 1e300, 1e-300) gave
//! kd = kv = 0, error 0 and exit 0. Now `FitProblem::new` refuses such a reference, naming the scene and
//! the cause.

use pbdfit_fem::{FemError, YoungPoisson};
use pbdfit_fit::{FitError, FitProblem, PartCache, ReferenceFault, Settings};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::ModelKind;
use proptest::prelude::*;

fn problem(set: &SceneSet, young: f64) -> Result<FitProblem, FitError> {
    let settings = Settings::new(0.01, 1, 1, ModelKind::PBD);
    FitProblem::new(set, settings, YoungPoisson::new(young, 0.3).unwrap(), &PartCache::default())
}

fn fault(set: &SceneSet, young: f64) -> ReferenceFault {
    match problem(set, young) {
        Err(FitError::UnusableReference { scene, fault, .. }) => {
            assert_eq!(scene, set.scenes()[0].name);
            fault
        }
        other => panic!(
            "expected an unusable reference, got {:?}",
            other.map(|p| p.parts[0].target.field().map_or(0, |f| f.1.len()))
        ),
    }
}

const CUBE: &str = "name = \"still\"\n[body]\nshape = \"unit-cube\"\n";

#[test]
fn a_reference_that_moves_nothing_or_overflows_is_an_error_naming_the_scene() {
    let zero = SceneSet::parse(&format!("{CUBE}[[held]]\nplane = \"y = 0\"\n[load]\ngravity = [0, 0, 0]\n"), "z", None);
    assert_eq!(fault(&zero.unwrap(), 1e3), ReferenceFault::NoMotion);
    let all = format!("{CUBE}[[held]]\nbox = {{ min = [0, 0, 0], max = [1, 1, 1] }}\n");
    assert_eq!(fault(&SceneSet::parse(&all, "a", None).unwrap(), 1e3), ReferenceFault::NoMotion);
    let floor = SceneSet::load("gravity-floor").unwrap();
    assert!(matches!(fault(&floor, 1e300), ReferenceFault::OutOfRange { .. }));
    // Overflow is the FEM's to report (item 6): its solution is not finite.
    let e = problem(&floor, 1e-300).unwrap_err();
    assert!(matches!(e, FitError::Reference { source: FemError::NotFinite { .. }, .. }), "{e}");
    let message = problem(&floor, 1e300).unwrap_err().to_string();
    assert!(message.contains("gravity-floor") && message.contains("nothing to fit"), "{message}");
    // A compound names the part.
    let e = problem(&SceneSet::load("gravity").unwrap(), 1e300).unwrap_err().to_string();
    assert!(e.contains("scene gravity-floor"), "{e}");
    assert!(problem(&floor, 1e3).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any Young's modulus over f64's range: a problem whose every part moves free vertices by finite
    /// amounts, or an unusable reference; never a problem with nothing to measure.
    #[test]
    fn any_modulus_gives_a_measurable_reference_or_an_error(exponent in -320.0f64..308.0) {
        let young = 10f64.powf(exponent);
        prop_assume!(young > 0.0 && young.is_finite());
        match problem(&SceneSet::load("gravity-wall").unwrap(), young) {
            Ok(p) => {
                for part in &p.parts {
                    let (reference, moved) = part.target.field().expect("an FEM target");
                    prop_assert!(!moved.is_empty());
                    prop_assert!(reference.iter().all(|u| u.iter().all(|x| x.is_finite())));
                }
            }
            Err(FitError::UnusableReference { .. }) => {}
            Err(FitError::Reference { source: FemError::NotFinite { .. }, .. }) => {}
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}
