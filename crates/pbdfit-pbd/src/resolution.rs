//! Whether a time step is one the arithmetic resolves: the one check of `dt` against the body that every
//! rest state, fit, settings sweep, study and table makes (through [`PbdSystem::check_step`]).
//!
//! A rest state is the fixed point of the rest map (one step, or an engine's substep, from a state at
//! rest), found when `|G(u) - u| <= tol |G(u)|` (`tol` = 1e-13, [`crate::RestOptions::tolerance`]). From
//! rest the map moves the body by the load's motion over one step, `|a| dt^2` (an engine's `|a| h^2`
//! times its velocity and gravity factors, `h = dt / substeps`). Where the step is so small that this
//! motion vanishes against the body, two things go wrong. At `dt = 1e-300`, `|g| dt^2` underflows to 0:
//! nothing ever moves and the undeformed body passes the test after one sweep. At `dt = 1e-9` (XPBD,
//! `alpha / dt^2` about 1e15), every state of the body moves by about 1e-17 m per evaluation, so any
//! displacement above 1e-4 m meets the relative test: the solve stopped at 2.04e-3 m "converged after 3
//! sweeps" where the same body rests at 8.08e-3 m at `dt = 1e-3`. The rest map contracts towards its fixed
//! point by about `|a| dt^2 / |u*|` per evaluation, so a state that meets the test is within about
//! `tol |u*|^2 / (|a| dt^2)` of it: requiring `|a| dt^2 >= MIN_STEP_MOTION` times the body's extent
//! keeps that below 1 % of any rest displacement up to the body's size.

use crate::{ModelRule, PbdError, PbdSystem, SimParams};

/// The smallest motion the load may give the body over one step from rest, relative to the body's
/// extent (see the module doc): 1e-11, so that at the rest test's tolerance (1e-13) a rest state is
/// within 1 % of the fixed point. Under gravity on the 1 m cube it refuses steps below 1.0e-6 s (an
/// engine profile's substeps below that); the smallest step any study or table uses, 1e-3 s (substeps
/// of 1e-4 s), moves it by 9.8e-8 m.
pub const MIN_STEP_MOTION: f64 = 1e-11;

impl PbdSystem {
    /// The largest acceleration of a free particle from the body's loads (m/s^2): gravity plus traction
    /// over mass, and a sheet's pressures and wind over mass (a follower pressure's and the wind's at rest). 0 for a body held
    /// everywhere, or loaded only by prescribed displacements.
    pub fn largest_load_acceleration(&self) -> f64 {
        let mut scratch = Vec::new();
        let loads = self.loads_at(&self.prescribed, &[], &mut scratch);
        self.free.iter().map(|&p| loads[p].norm()).fold(0.0, f64::max)
    }

    /// Refuses a time step the rest state cannot resolve (see the module doc): where the load's motion
    /// over one step (or an engine's substep) from rest, `|a| dt^2`, is below [`MIN_STEP_MOTION`] times
    /// the body's extent ([`PbdError::UnresolvedStep`], naming dt and the smallest step resolved); and an
    /// engine setting that removes gravity (a gravity factor of 0: [`PbdError::NoLoad`]). An engine's
    /// gravity and damping factors scale the load, and with it the rest displacement, but not how fast the
    /// rest map contracts, so they do not enter the bound; a damping that stops the body every substep
    /// (Jolt's `linear_damping` of at least nit/dt) leaves it undeformed, which a fit reports as no answer
    /// (`pbdfit_fit::verdict`). A mass-spring model's rest state does not depend on dt; a body without a
    /// force load (prescribed displacements only) has no load motion to judge; both pass. The parameters
    /// are checked first ([`SimParams::validate`]).
    pub fn check_step(&self, params: &SimParams) -> Result<(), PbdError> {
        params.validate()?;
        self.check_body(params.model.kind())?;
        let acceleration = self.largest_load_acceleration();
        let (substeps, gravity) = match params.rule() {
            ModelRule::Springs(_) => return Ok(()),
            ModelRule::Engine(engine) => (engine.substeps as f64, engine.gravity_factor),
            ModelRule::Projection(_) | ModelRule::Cloth(_) => (1.0, 1.0),
        };
        if acceleration == 0.0 || !self.extent.is_finite() || self.extent <= 0.0 {
            return Ok(());
        }
        let model = params.model.kind();
        if gravity == 0.0 {
            let cause = match model.settings().iter().find(|(name, _)| name.contains("gravity")) {
                Some((name, _)) => format!("{name} = 0 removes gravity"),
                None => "the engine's gravity factor is 0".to_string(),
            };
            return Err(PbdError::NoLoad { scene: self.scene.clone(), model: model.name(), cause });
        }
        let h = params.dt / substeps;
        let motion = acceleration * h * h;
        let needed = MIN_STEP_MOTION * self.extent;
        if motion >= needed {
            return Ok(());
        }
        Err(PbdError::UnresolvedStep {
            scene: self.scene.clone(),
            dt: params.dt,
            motion,
            extent: self.extent,
            smallest: substeps * (needed / acceleration).sqrt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::SceneSet;

    use super::*;
    use crate::{Model, ModelKind};

    fn wall(n: usize) -> PbdSystem {
        PbdSystem::new(&SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(n).unwrap())
    }

    #[test]
    fn a_step_whose_load_motion_vanishes_is_refused_naming_the_smallest_step() {
        let s = wall(1);
        for dt in [1e-300, 1e-9] {
            let e = s.check_step(&SimParams::new(dt, 1, Model::xpbd(1e-3, 1e-3))).unwrap_err();
            let PbdError::UnresolvedStep { smallest, .. } = &e else { panic!("{e}") };
            // |g| dt^2 = 1e-11 m on the 1 m cube.
            assert!((smallest - (1e-11f64 / 9.81).sqrt()).abs() < 1e-9, "{smallest:e}");
            let text = e.to_string();
            assert!(text.contains(&format!("dt = {dt:e} s")) && text.contains("1.010e-6 s"), "{text}");
        }
        // PBD at dt 1e-300 (g dt^2 underflows): refused alike, and the rest state with it.
        let pbd = SimParams::new(1e-300, 1, Model::pbd(0.5, 0.5));
        let e = s.rest_state(&pbd, &Default::default(), None).unwrap_err();
        assert!(matches!(e, PbdError::UnresolvedStep { .. }), "{e}");
        // The thesis study's smallest step, and a step just above the bound, pass.
        for dt in [1e-3, 1e-4, 1.02e-6] {
            assert!(s.check_step(&SimParams::new(dt, 1, Model::xpbd(1e-3, 1e-3))).is_ok(), "dt {dt}");
        }
    }

    #[test]
    fn an_engine_judges_its_substep_and_its_load_factors() {
        let s = wall(1);
        let jolt = |nit: usize, settings: &[(&str, f64)], dt: f64| {
            let mut kind = ModelKind::JOLT;
            for (name, v) in settings {
                kind = kind.with_setting(name, *v).unwrap();
            }
            s.check_step(&SimParams::new(dt, nit, kind.with(&[1e-3, 1e-3]).unwrap()))
        };
        assert!(jolt(10, &[], 1e-3).is_ok());
        // Ten substeps of 1e-6 s: the substep is what the rest map moves by.
        let e = jolt(10, &[], 1e-5).unwrap_err();
        let PbdError::UnresolvedStep { smallest, .. } = e else { panic!("{e}") };
        assert!((smallest - 10.0 * (1e-11f64 / 9.81).sqrt()).abs() < 1e-12, "{smallest:e}");
        // A gravity factor of 0 removes the load.
        let e = jolt(1, &[("gravity_factor", 0.0)], 0.01).unwrap_err();
        assert!(matches!(e, PbdError::NoLoad { .. }) && e.to_string().contains("gravity_factor = 0 removes gravity"));
        // The load factors scale the rest state, not the rest map's contraction: a small gravity factor
        // and a damping that stops every substep (nit/dt = 100 1/s) are no refusal (a fit of the latter
        // is no answer, as its verdict says).
        assert!(jolt(1, &[("gravity_factor", 1e-9)], 0.01).is_ok());
        assert!(jolt(1, &[("linear_damping", 1e4)], 0.01).is_ok());
    }

    #[test]
    fn mass_springs_and_bodies_without_a_force_load_pass() {
        let s = wall(1);
        let springs = SimParams::new(1e-300, 1, ModelKind::MASS_SPRING.example());
        assert!(s.check_step(&springs).is_ok());
        assert!(s.largest_load_acceleration() > 9.8 && s.largest_load_acceleration() < 9.82);
    }
}
