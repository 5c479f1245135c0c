//! The release test on a sheet: a cloth model's release against the corotational shell's transient
//! (`CorotationalShell::integrate`, Newmark's average acceleration at a step that divides the model's and
//! resolves the shell's first mode with at least [`FEM_STEPS_PER_PERIOD`] steps, from the flat sheet at
//! rest with its weight switched on, with the first mode's Rayleigh damping ratio where asked), measured
//! as a solid's release is ([`Probe`], the trajectory error of [`TrajectoryTarget`]) and reported in the
//! same [`MotionReport`].
//!
//! The shell's first mode is the linear shell's (`LinearShell::modes`, the lumped mass with the plate's
//! rotary inertia); the probe projects both bodies' translations on its translations with the vertices'
//! masses. The model's vertices are the shell's; it holds a clamp's next row too (a particle has no
//! rotation: `SheetBody::particle_held`), and those vertices count in the errors as in a sheet's fit.
//!
//! The job's `fit` (the rest-state fit first) works as for a solid. Not for sheets (refused by the job,
//! naming the option): `release = unload`, `fit_motion`, `fit_damping`, and the command line's `--frames`.

use pbdfit_fem::shell::{CorotationalShell, LinearShell, MembraneLaw, ShellDynamicState, ShellLoad};
use pbdfit_mesh::{SheetBody, Vec3};
use pbdfit_pbd::{ModelKind, PbdSystem, RestOptions};

use super::measures::Probe;
use super::{FrameSink, Labels, ModelRun, MotionReport, Release, ReleaseSetup, ReleaseWindow};
use crate::{FemTarget, FitJobError, LoadedSheet, ShellReference, Spelling, TrajectoryTarget};

/// A sheet's release test set up ([`ReleaseSetup::sheet_test`]).
#[derive(Debug)]
pub struct SheetRelease {
    body: SheetBody,
    membrane: MembraneLaw,
    reference: ShellReference,
    system: PbdSystem,
    /// The model, the shell's material and first mode (its translations, mass-normalised with the rotary
    /// inertia), the window.
    window: ReleaseWindow,
}

impl ReleaseSetup {
    /// The release test on `sheet` (a loaded sheet scene: its body and the material resolved over the
    /// scene's): the model checked for sheets, the shell's law (`law`: corotational or stvk, the scene's by
    /// default), its first mode, and the window's budget before any step.
    pub fn sheet_test(&self, sheet: LoadedSheet, spelling: Spelling) -> Result<SheetRelease, FitJobError> {
        let input = FitJobError::Input;
        let LoadedSheet { scene, body, material } = sheet;
        let (kind, dt, nit, damping, fem_damping) = (self.kind, self.dt, self.nit, self.damping, self.fem_damping);
        Self::check_model(kind, dt, nit, damping, fem_damping, spelling)?;
        crate::check_cloth_model(kind, &scene.name)?;
        let options = pbdfit_mesh::ReferenceOptions { material: self.law.clone(), ..Default::default() };
        let reference = ShellReference::of_job(&options, &scene, spelling)?;
        let ShellReference::Corotational(membrane) = reference else {
            return Err(input(format!(
                "{} = linear: a sheet's release runs the corotational shell (corotational or stvk), whose \
                 rotations may grow large",
                spelling.name("material")
            )));
        };
        let held = crate::shell_constraints(&body);
        let linear =
            LinearShell::new(&body.sheet, material).map_err(|e| input(format!("scene {}: {e}", scene.name)))?;
        let modes = linear.modes(&held, 1).map_err(|e| input(format!("the first mode of {}: {e}", scene.name)))?;
        let first = (modes.angular[0], modes.shapes[0].iter().map(|d| Vec3::new(d[0], d[1], d[2])).collect());
        let labels = Labels {
            scene: body.scene.clone(),
            body: scene.summary(),
            n: body.n,
            mass_model: "lumped",
            release: Release::Gravity.name(),
            material: reference.id(),
        };
        let window = self.window(labels, "shell", material, first, spelling)?;
        Ok(SheetRelease { system: PbdSystem::sheet_body(&body), body, membrane, reference, window })
    }
}

impl SheetRelease {
    /// The model released.
    pub fn kind(&self) -> ModelKind {
        self.window.kind
    }

    /// The shell's transient (translations at every model step, the start included) and its static rest
    /// state's translations.
    fn shell_release(&self) -> Result<(Vec<Vec3>, Vec<Vec<Vec3>>), String> {
        let w = &self.window;
        let shell =
            CorotationalShell::with_membrane(&self.body.sheet, w.material, self.membrane).map_err(|e| e.to_string())?;
        let held = crate::shell_constraints(&self.body);
        let load = ShellLoad::of_sheet(&self.body.sheet, self.body.gravity, &self.body.pressure);
        let (rest, _) = crate::solve_shell(&self.body, w.material, self.reference).map_err(|e| e.to_string())?;
        let vertices = self.body.held.len();
        let rest = (0..vertices).map(|v| rest.translation(v)).collect();
        let settings = w.reference_settings();
        let mut fields: Vec<Vec<Vec3>> = Vec::with_capacity(w.model_steps + 1);
        let mut observe = |s: &ShellDynamicState| {
            if w.is_sample(s.steps, fields.len()) {
                let d = s.displacements();
                fields.push((0..vertices).map(|v| d.translation(v)).collect());
            }
        };
        shell.integrate(&held, &load, &settings, None, &mut |_| {}, Some(&mut observe)).map_err(|e| e.to_string())?;
        Ok((rest, fields))
    }

    /// The model's rest state (warm-started at `guess`, the shell's: a cold start of a cloth sheet at a
    /// fine step creeps) and its release from the flat sheet at rest, at `values`.
    fn model_release(&self, values: &[f64], guess: &[Vec3]) -> Result<(Vec<Vec3>, Vec<Vec<Vec3>>), String> {
        let w = &self.window;
        let params = w.params(w.kind, w.damping, values)?;
        // The rest-state fit's options (a cloth model's root solve, which accepts the measured rounding of
        // its sweeps in absolute positions).
        let options = RestOptions::default();
        let state = self
            .system
            .rest_state(&params, &options, Some(guess))
            .map_err(|e| format!("the model's rest state: {e}"))?;
        if !state.converged {
            return Err(format!(
                "the model's rest state did not converge within {} projection sweeps (relative residual {:.3e}): its \
                 release would settle about a state that is not at rest",
                state.iterations, state.residual
            ));
        }
        let fields = w.model_fields(&self.system, &params, None)?;
        Ok((state.displacements, fields))
    }

    /// Releases both at the model's `values`, handing every sample to `frames`; the report's wall-clock
    /// time counts from `start`.
    pub fn run(
        &self,
        start: std::time::Instant,
        values: Vec<f64>,
        fitted: bool,
        frames: &mut FrameSink,
    ) -> Result<MotionReport, FitJobError> {
        let input = FitJobError::Input;
        let scene = self.body.scene.clone();
        let (fem_rest, fem_fields) =
            self.shell_release().map_err(|e| input(format!("the shell release of {scene}: {e}")))?;
        // The shell's supports, not the particles' (which hold a clamp's next row too), as a sheet's fit.
        let held: Vec<bool> = self.body.held.iter().map(Option::is_some).collect();
        let moved = crate::moved_vertices(&fem_rest, &held);
        let Some(&tracked) = moved.iter().max_by(|&&a, &&b| fem_rest[a].norm().total_cmp(&fem_rest[b].norm())) else {
            return Err(input(format!("scene {scene}: the load moves no free vertex, so nothing is released")));
        };
        let direction = fem_rest[tracked].normalize();
        let id = format!("{} dynamic", self.reference.id());
        let target = TrajectoryTarget { rest: FemTarget { reference: fem_rest, moved, id }, fields: fem_fields };
        let (fem_rest, fem_fields) = (&target.rest.reference, &target.fields);
        let (rest, fields) = self.model_release(&values, fem_rest).map_err(input)?;
        let masses = self.body.sheet.lumped_masses();
        let times = (0..fem_fields.len()).map(|j| j as f64 * self.window.dt).collect();
        let probe = Probe { times, tracked, direction, mode: &self.window.mode, masses: &masses, unloaded: None };
        let fem = probe.measure(fem_fields, fem_rest);
        let (kind, damping) = (self.window.kind, self.window.damping);
        let (motion_fit, damping_fit) = (None, None);
        let run = ModelRun { kind, damping, values, fitted, motion_fit, damping_fit, rest, fields };
        self.window.report(start, &probe, &target, fem, run, frames)
    }
}
