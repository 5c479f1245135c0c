//! Cancelling (`pbdfit_mesh::cancel`): a rest state asked to stop ends with `PbdError::Cancelled`, for a
//! projection model (the fixed point and stepping) and a mass-spring model (Newton) alike, and a thread
//! without a set flag gets the same rest state as ever.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pbdfit_mesh::SceneSet;
use pbdfit_mesh::cancel::{Cancelled, with_flag};
use pbdfit_pbd::{Model, ModelKind, PbdError, PbdSystem, RestMethod, RestOptions, SimParams};

#[test]
fn a_rest_state_stops_with_cancelled_on_a_set_flag() {
    let system = PbdSystem::new(&SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap());
    let springs: ModelKind = "mass-spring".parse().unwrap();
    let models = [Model::pbd(0.5, 0.5), Model::xpbd(1e-3, 1e-3), springs.with(&[100.0]).unwrap()];
    let (set, clear) = (Arc::new(AtomicBool::new(true)), Arc::new(AtomicBool::new(false)));
    for model in models {
        for method in [RestMethod::FixedPoint, RestMethod::Stepping] {
            let params = SimParams::new(0.01, 4, model);
            let options = RestOptions { method, ..RestOptions::default() };
            let plain = system.rest_state(&params, &options, None).unwrap();
            assert!(plain.converged, "{model:?} {method:?}");
            assert_eq!(with_flag(&clear, || system.rest_state(&params, &options, None)), Ok(plain));
            let e = with_flag(&set, || system.rest_state(&params, &options, None)).unwrap_err();
            assert_eq!(e, PbdError::Cancelled(Cancelled), "{model:?} {method:?}");
            assert!(e.to_string().contains("Ctrl-C"), "{e}");
        }
    }
}
