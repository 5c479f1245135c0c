//! The damping fit: the model's damping knob searched for the FEM's damping ratio.

use pbdfit_pbd::{ModelKind, SettingSpec};
use serde::Serialize;

use super::{MotionMeasures, Probe, ReleaseTest};
use crate::FitJobError;

/// Where a damping search started, where it ended, and whether the FEM's decay was reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DampingFit {
    /// The knob turned: the engine's damping setting (`linear_damping`, `k_damp`) or pbdfit's velocity
    /// damping per step (`damping`).
    pub knob: String,
    /// Its unit.
    pub unit: String,
    /// The knob's value before the search.
    pub start: f64,
    /// The value found; where nothing reaches the target, the start (the release is run there).
    pub value: f64,
    /// The FEM's damping ratio: the target.
    pub target_ratio: f64,
    /// The model's damping ratio at the knob's least value (`None`: it does not oscillate there).
    pub least_ratio: Option<f64>,
    /// The model's damping ratio at the value found, or, where nothing reaches the target, at the nearest
    /// end of the knob's range (`None`: it does not oscillate).
    pub ratio: Option<f64>,
    /// Whether the value found matches the target (within 1 % of it, or 1e-4 absolute).
    pub reached: bool,
    /// The answer in words: the setting to use, or why none will do.
    pub verdict: String,
    /// Releases the search simulated.
    pub evaluations: usize,
}

/// Whether `kind` has a knob a damping search can turn: the engine's damping setting, or, for a textbook
/// model (settings or not, as the cloth's `volume`), pbdfit's velocity damping. An engine profile without
/// a damping setting (Genesis's PBD) has none.
pub fn has_damping_knob(kind: ModelKind) -> bool {
    !kind.is_engine_profile() || kind.damping_setting().is_some()
}

/// pbdfit's velocity damping per step, `v <- (1 - damping) v`, as a knob: a model without an engine
/// damping setting turns it, searched in [0, 0.999].
static VELOCITY: SettingSpec = SettingSpec {
    name: "damping",
    unit: "1",
    description: "pbdfit's velocity damping per step",
    default: 0.0,
    minimum: 0.0,
    maximum: 0.999,
    maximum_open: false,
    integer: false,
    damps: true,
    words: &[],
};

impl ReleaseTest {
    /// The damping search: the knob's value whose release decays as the FEM's does (damping ratio within
    /// 1 %), by bisection on a log scale between the knob's least value and its largest (the ratio grows
    /// with the knob; a release that no longer oscillates counts as over-damped). Where the least value
    /// already damps more than the FEM, or the largest less, the search says so instead of a value.
    pub(super) fn damping_search(
        &self,
        values: &[f64],
        fem: &MotionMeasures,
        probe: &Probe,
    ) -> Result<(DampingFit, ModelKind, f64), FitJobError> {
        let input = FitJobError::Input;
        // The knob and its value: the engine's damping setting, else pbdfit's velocity damping.
        let (kind, damping) = (self.window.kind, self.window.damping);
        let setting = kind.damping_setting();
        let (knob, start) = setting.unwrap_or((&VELOCITY, damping));
        // The model kind and velocity damping with the knob at `value`.
        let apply = |value: f64| match setting {
            None => Ok((kind, value)),
            Some((s, _)) => kind.with_setting(s.name, value).map(|k| (k, damping)).map_err(|e| input(e.to_string())),
        };
        let Some(target) = fem.damping_ratio else {
            return Err(input(
                "the FEM's release does not oscillate in the window: no damping ratio to fit (a longer window, or \
                 less FEM damping)"
                    .to_string(),
            ));
        };
        let evaluations = std::cell::Cell::new(0usize);
        // The model's damping ratio with the knob at `value` (infinity: it does not oscillate).
        let ratio = |value: f64| -> Result<f64, FitJobError> {
            evaluations.set(evaluations.get() + 1);
            let (kind, damping) = apply(value)?;
            let (rest, fields) = self.released(kind, damping, values)?;
            Ok(probe.measure(&fields, &rest).damping_ratio.unwrap_or(f64::INFINITY))
        };
        let close = |r: f64| (r - target).abs() <= (0.01 * target).max(1e-4);
        let largest = if knob.maximum_open { knob.maximum * (1.0 - 1e-9) } else { knob.maximum };
        let (least, name) = (knob.minimum, knob.name);
        let unit = if knob.unit == "1" { String::new() } else { format!(" {}", knob.unit) };
        let least_ratio = ratio(least)?;
        let finite = |r: f64| r.is_finite().then_some(r);
        // The search's answer, with the model kind and velocity damping at the value found.
        let fit = |value: f64, r: f64, reached: bool, verdict: String| {
            let (kind, damping) = apply(value)?;
            Ok((
                DampingFit {
                    knob: name.to_string(),
                    unit: knob.unit.to_string(),
                    start,
                    value,
                    target_ratio: target,
                    least_ratio: finite(least_ratio),
                    ratio: finite(r),
                    reached,
                    verdict,
                    evaluations: evaluations.get(),
                },
                kind,
                damping,
            ))
        };
        if close(least_ratio) {
            return fit(least, least_ratio, true, format!("{name} = {least}: the model's own damping matches"));
        }
        if least_ratio > target {
            return fit(
                start,
                least_ratio,
                false,
                format!(
                    "no {name} fixes it: at {name} = {least} the model already damps a damping ratio of {}, above the \
                     FEM's {target:.4e}; its numerical damping alone is too much (a smaller dt or more iterations \
                     lower it)",
                    finite(least_ratio).map_or("(no oscillation)".to_string(), |r| format!("{r:.4e}"))
                ),
            );
        }
        let largest_ratio = ratio(largest)?;
        if largest_ratio < target && !close(largest_ratio) {
            return fit(
                start,
                largest_ratio,
                false,
                format!("no {name} in its range damps enough: {name} = {largest} gives {largest_ratio:.4e}"),
            );
        }
        // Bisection on a log scale from a value too small to matter (the least value may be 0).
        let (mut hi, mut hi_ratio) = (largest, largest_ratio);
        let mut lo = (largest * 1e-9).max(least);
        let mut lo_ratio = ratio(lo)?;
        if lo_ratio >= target {
            // The answer lies below that small value: bisect [least, it].
            (hi, hi_ratio) = (lo, lo_ratio);
            (lo, lo_ratio) = (least, least_ratio);
        }
        let mid = |lo: f64, hi: f64| if lo > 0.0 { (lo * hi).sqrt() } else { 0.5 * (lo + hi) };
        for _ in 0..80 {
            if close(lo_ratio) || close(hi_ratio) || hi - lo <= 1e-12 * hi {
                break;
            }
            let m = mid(lo, hi);
            let r = ratio(m)?;
            if r < target {
                (lo, lo_ratio) = (m, r);
            } else {
                (hi, hi_ratio) = (m, r);
            }
        }
        let (value, r) =
            if (lo_ratio - target).abs() <= (hi_ratio - target).abs() { (lo, lo_ratio) } else { (hi, hi_ratio) };
        let reached = close(r);
        let verdict = if reached {
            format!("{name} = {value:.6e}{unit}: the model decays as the FEM does")
        } else {
            format!(
                "{name} = {value:.6e}{unit} comes closest (damping ratio {}, the FEM's {target:.4e}): the ratio jumps there",
                finite(r).map_or("(no oscillation)".to_string(), |r| format!("{r:.4e}"))
            )
        };
        fit(value, r, reached, verdict)
    }
}
