//! The release test's report: `pbdfit motion --json`'s object and the summary the command prints.

use pbdfit_mesh::Vec3;
use pbdfit_pbd::ModelKind;
use serde::Serialize;

use super::measures::Probe;
use super::{DAMPING_RATIO_TOLERANCE, DampingFit, FrameSink, MotionMeasures, ReleaseWindow};
use crate::{FitJobError, Target, TrajectoryTarget};

/// What a report says of the body, the release and the reference, set with the test.
#[derive(Debug, Clone)]
pub(crate) struct Labels {
    pub(crate) scene: String,
    pub(crate) body: pbdfit_mesh::BodySummary,
    pub(crate) n: usize,
    pub(crate) mass_model: &'static str,
    pub(crate) release: &'static str,
    /// The reference's law.
    pub(crate) material: &'static str,
}

/// The model's final release and what found it.
pub(super) struct ModelRun {
    /// The model (a damping fit's setting where one ran) and its velocity damping.
    pub(super) kind: ModelKind,
    pub(super) damping: f64,
    /// The parameters' values, in the test's model's order.
    pub(super) values: Vec<f64>,
    /// Whether they are a rest-state fit's.
    pub(super) fitted: bool,
    pub(super) motion_fit: Option<MotionFit>,
    pub(super) damping_fit: Option<DampingFit>,
    /// The model's rest state and its displacement field at every model step (m).
    pub(super) rest: Vec<Vec3>,
    pub(super) fields: Vec<Vec<Vec3>>,
}

/// Where a motion fit started and what it spent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionFit {
    /// The start: the rest-state fit's parameters (or those given).
    #[serde(serialize_with = "crate::ordered_map")]
    pub start: Vec<(String, f64)>,
    /// The start's rest-state error.
    pub start_rest_error: f64,
    /// The start's trajectory error.
    pub start_trajectory_error: f64,
    /// Releases the pattern search simulated.
    pub evaluations: usize,
    /// Wall-clock seconds of the motion fit alone (its pattern search and the release at its result).
    pub seconds: f64,
}

/// `pbdfit motion --json`'s object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionReport {
    /// The scene.
    pub scene: String,
    /// The body's size, density and mass.
    pub body: pbdfit_mesh::BodySummary,
    /// Its resolution.
    pub n: usize,
    /// The masses both sides use (`lumped`, `uniform`).
    pub mass_model: &'static str,
    /// The model with its settings.
    pub model: String,
    /// The model's parameters (fitted with `fit`).
    #[serde(serialize_with = "crate::ordered_map")]
    pub parameters: Vec<(String, f64)>,
    /// Whether the parameters are a rest-state fit's.
    pub fitted: bool,
    /// With `fit_motion`: the parameters are the motion fit's; where it started and what it spent.
    pub motion_fit: Option<MotionFit>,
    /// How the body was released (`gravity`, `unload`).
    pub release: &'static str,
    /// Young's modulus (Pa), Poisson ratio, FEM law.
    pub young: f64,
    /// Poisson ratio.
    pub poisson: f64,
    /// The FEM law.
    pub material: &'static str,
    /// The model's step (s) and iterations.
    pub dt: f64,
    /// Iterations per step.
    pub nit: usize,
    /// The model's velocity damping per step.
    pub damping: f64,
    /// The FEM's damping ratio in its first mode (mass-proportional Rayleigh; 0: undamped).
    pub fem_damping: f64,
    /// How far a damping ratio measured here may be from the body's own ([`DAMPING_RATIO_TOLERANCE`]).
    pub damping_ratio_tolerance: f64,
    /// With `fit_damping`: the damping search.
    pub damping_fit: Option<DampingFit>,
    /// The FEM's first natural frequency (Hz, modal analysis, lumped mass).
    pub modal_frequency: f64,
    /// The window (s) and its steps: the model's, and the FEM's per model step.
    pub window: f64,
    /// Model steps.
    pub model_steps: usize,
    /// FEM (Newmark) steps per model step.
    pub fem_substeps: usize,
    /// The tracked vertex.
    pub tracked_vertex: usize,
    /// The tracked direction (unit): its FEM rest displacement's.
    pub tracked_direction: [f64; 3],
    /// The level each body settles at along that direction (m): FEM, model (the loaded rest states for a
    /// `gravity` release, the undeformed state for `unload`).
    pub rest_levels: [f64; 2],
    /// The FEM's measures.
    pub fem: MotionMeasures,
    /// The model's measures.
    pub model_measures: MotionMeasures,
    /// The rest-state error of the model (the fit's error: mean over the moved vertices of `|u - u_fem|^2 /
    /// |u_fem|^2`).
    pub rest_error: f64,
    /// The trajectory error over the window (module doc).
    pub trajectory_error: f64,
    /// Sample times (s).
    pub times: Vec<f64>,
    /// The tracked vertex's displacement over time, FEM.
    pub fem_track: Vec<[f64; 3]>,
    /// The tracked vertex's displacement over time, model.
    pub model_track: Vec<[f64; 3]>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// pbdfit's version.
    pub pbdfit_version: &'static str,
}

fn describe(m: &MotionMeasures) -> String {
    match (m.frequency, m.decrement, m.damping_ratio) {
        (Some(f), Some(d), Some(z)) => {
            format!(
                "frequency {f:.6e} Hz, logarithmic decrement {d:.4e} (damping ratio {z:.4e} +- {:e}), {} zero crossings",
                DAMPING_RATIO_TOLERANCE, m.crossings
            )
        }
        _ => format!(
            "no oscillation in the window ({} zero crossings: overdamped, or slower than the window)",
            m.crossings
        ),
    }
}

impl MotionReport {
    /// The summary `pbdfit motion` prints.
    pub fn text(&self) -> String {
        let parameters: Vec<String> =
            self.parameters.iter().map(|(k, v)| format!("{k} = {}", pbdfit_mesh::display::number(*v))).collect();
        let mut out = pbdfit_mesh::BodySummary::line(std::slice::from_ref(&self.body)) + "\n";
        out.push_str(&format!(
            "scene {} (N = {}, {} masses): {} release over {:.4e} s ({} model steps of {} s, {} Newmark steps each \
             for the FEM)\n",
            self.scene,
            self.n,
            self.mass_model,
            self.release,
            self.window,
            self.model_steps,
            self.dt,
            self.fem_substeps
        ));
        out.push_str(&format!(
            "  FEM {} law, E = {} Pa, nu = {}{}: first mode {:.6e} Hz; release: {}\n",
            self.material,
            pbdfit_mesh::display::number(self.young),
            pbdfit_mesh::display::number(self.poisson),
            if self.fem_damping > 0.0 { format!(", damping ratio {}", self.fem_damping) } else { String::new() },
            self.modal_frequency,
            describe(&self.fem)
        ));
        // pbdfit's velocity damping acts on the textbook models only; an engine profile damps by its own
        // setting (Jolt's `linear_damping`, Newton's `k_damp`), which the model's spec names.
        let damping = match self.model.parse::<pbdfit_pbd::ModelKind>() {
            Ok(kind) if kind.is_engine_profile() => match kind.damping_setting() {
                // A dimensionless setting's unit is written `1` in its spec: no unit printed.
                Some((spec, value)) => match spec.unit {
                    "" | "1" => format!("{} {}", spec.name, pbdfit_mesh::display::number(value)),
                    unit => format!("{} {} {unit}", spec.name, pbdfit_mesh::display::number(value)),
                },
                None => "no damping setting".to_string(),
            },
            _ => format!("velocity damping {}", pbdfit_mesh::display::number(self.damping)),
        };
        out.push_str(&format!(
            "  model {} ({}{}), nit = {}, {damping}: release: {}\n",
            self.model,
            parameters.join(", "),
            match (&self.motion_fit, self.fitted) {
                (Some(_), _) => ", fitted to the motion",
                (None, true) => ", fitted to the rest state",
                (None, false) => "",
            },
            self.nit,
            describe(&self.model_measures)
        ));
        if let (Some(f), Some(g)) = (self.model_measures.frequency, self.fem.frequency) {
            out.push_str(&format!("  frequency ratio model / FEM {:.4}\n", f / g));
        }
        out.push_str(&format!(
            "  rest-state error {:.4e}, trajectory error {:.4e} (vertex {} tracked)\n",
            self.rest_error, self.trajectory_error, self.tracked_vertex
        ));
        if let Some(d) = &self.damping_fit {
            out.push_str(&format!(
                "  damping fit ({} releases, {} from {}): FEM damping ratio {:.4e}; {}\n",
                d.evaluations,
                d.knob,
                pbdfit_mesh::display::number(d.start),
                d.target_ratio,
                d.verdict
            ));
        }
        if let Some(m) = &self.motion_fit {
            let start: Vec<String> =
                m.start.iter().map(|(k, v)| format!("{k} = {}", pbdfit_mesh::display::number(*v))).collect();
            out.push_str(&format!(
                "  motion fit ({} releases) from {}: trajectory error {:.4e} -> {:.4e}, rest-state error {:.4e} -> {:.4e}\n",
                m.evaluations,
                start.join(", "),
                m.start_trajectory_error,
                self.trajectory_error,
                m.start_rest_error,
                self.rest_error
            ));
        }
        out
    }
}

impl ReleaseWindow {
    /// The report of a release: the model's `run` against `target` (the reference's rest state and
    /// fields, measured `fem` by `probe`), its errors and measures, every common sample handed to `frames`;
    /// the wall-clock time counts from `start`.
    pub(super) fn report(
        &self,
        start: std::time::Instant,
        probe: &Probe,
        target: &TrajectoryTarget,
        fem: MotionMeasures,
        run: ModelRun,
        frames: &mut FrameSink,
    ) -> Result<MotionReport, FitJobError> {
        let (fem_rest, fem_fields) = (&target.rest.reference, &target.fields);
        let (model_rest, model_fields) = (&run.rest, &run.fields);
        let rest_error = target.rest.error(model_rest);
        let trajectory_error = target.error(&model_fields.concat());
        let samples = fem_fields.len().min(model_fields.len());
        let times = probe.times[..samples].to_vec();
        let model_measures = probe.measure(model_fields, model_rest);
        for j in 0..samples {
            frames(times[j], &fem_fields[j], &model_fields[j]).map_err(FitJobError::Input)?;
        }
        let (tracked, direction) = (probe.tracked, probe.direction);
        let xyz = |u: &Vec3| [u.x, u.y, u.z];
        let names = self.kind.parameters().into_iter().map(|p| p.name.to_string());
        let labels = self.labels.clone();
        Ok(MotionReport {
            scene: labels.scene,
            body: labels.body,
            n: labels.n,
            mass_model: labels.mass_model,
            model: run.kind.spec(),
            parameters: names.zip(run.values).collect(),
            fitted: run.fitted,
            motion_fit: run.motion_fit,
            release: labels.release,
            young: self.material.young(),
            poisson: self.material.poisson(),
            material: labels.material,
            dt: self.dt,
            nit: self.nit,
            damping: run.damping,
            fem_damping: self.fem_damping,
            damping_ratio_tolerance: DAMPING_RATIO_TOLERANCE,
            damping_fit: run.damping_fit,
            modal_frequency: self.omega / std::f64::consts::TAU,
            window: self.model_steps as f64 * self.dt,
            model_steps: self.model_steps,
            fem_substeps: self.substeps,
            tracked_vertex: tracked,
            tracked_direction: xyz(&direction),
            rest_levels: [fem_rest, model_rest].map(|rest| probe.centre(rest)[tracked].dot(&direction)),
            fem,
            model_measures,
            rest_error,
            trajectory_error,
            times,
            fem_track: fem_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            model_track: model_fields[..samples].iter().map(|u| xyz(&u[tracked])).collect(),
            seconds: start.elapsed().as_secs_f64(),
            pbdfit_version: env!("CARGO_PKG_VERSION"),
        })
    }
}
