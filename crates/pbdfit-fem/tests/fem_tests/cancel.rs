//! Cancelling (`pbdfit_mesh::cancel`): the FEM's long loops (the time steps, the modal subspace iteration,
//! the static Newton iterations) stop at their next check with `FemError::Cancelled`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pbdfit_fem::materials::material;
use pbdfit_fem::{DynamicSettings, FemError, MassMatrix, RestRule, StaticProblem, YoungPoisson};
use pbdfit_mesh::SceneSet;
use pbdfit_mesh::cancel::{Cancelled, with_flag};

fn problem() -> StaticProblem {
    let body = SceneSet::load("gravity-floor").unwrap().scenes()[0].body(2).unwrap();
    StaticProblem::new(&body).unwrap().with_masses(body.masses.clone()).unwrap()
}

/// A flag set by the progress of step 3 of a 25-step run stops it before step 4; unset, all 25 run.
#[test]
fn a_dynamic_solve_stops_at_the_step_after_its_flag_is_set() {
    let p = problem();
    let (law, young) = (material("linear").unwrap(), YoungPoisson::new(1e3, 0.3).unwrap());
    let settings = DynamicSettings { stop: RestRule::Time(0.25), ..DynamicSettings::to_rest(0.01) };
    let flag = Arc::new(AtomicBool::new(false));
    let mut steps = 0;
    let e = with_flag(&flag, || {
        p.solve_dynamic_observed(law, young, settings, &mut |progress| {
            steps = progress.steps;
            if steps == 3 {
                flag.store(true, Ordering::SeqCst);
            }
        })
    })
    .unwrap_err();
    assert_eq!(e, FemError::Cancelled(Cancelled));
    assert_eq!(steps, 3);
    flag.store(false, Ordering::SeqCst);
    assert_eq!(with_flag(&flag, || p.solve_dynamic(law, young, settings)).unwrap().steps, 25);
}

/// The modes and a hyperelastic static solve on a set flag: cancelled; on a clear one, their results.
#[test]
fn modes_and_a_newton_static_solve_stop_on_a_set_flag() {
    let p = problem();
    let young = YoungPoisson::new(1e3, 0.3).unwrap();
    let (linear, neo) = (material("linear").unwrap(), material("neo-hookean").unwrap());
    let (set, clear) = (Arc::new(AtomicBool::new(true)), Arc::new(AtomicBool::new(false)));
    assert_eq!(with_flag(&set, || p.modes(linear, young, MassMatrix::Lumped, 2)), Err(FemError::Cancelled(Cancelled)));
    assert_eq!(with_flag(&clear, || p.modes(linear, young, MassMatrix::Lumped, 2)).unwrap().angular.len(), 2);
    assert_eq!(with_flag(&set, || p.solve_law(neo, young)).unwrap_err(), FemError::Cancelled(Cancelled));
    assert!(with_flag(&clear, || p.solve_law(neo, young)).unwrap().max_displacement() > 0.0);
}
