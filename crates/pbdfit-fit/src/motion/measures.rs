//! The measures of a release (module doc of [`crate::motion`]): frequency, amplitude, and the damping
//! estimate from the decay of the first mode's share.

use pbdfit_mesh::Vec3;
use serde::Serialize;

/// Samples within this fraction of a signal's largest excursion count as at rest: no zero crossing is
/// taken between them ([`measure`]).
pub const NOISE_FLOOR: f64 = 1e-6;

/// How far the damping ratio estimate ([`measure`]) may be from the body's own: an undamped linear FEM
/// reads at most this in absolute value, and a damping ratio set with `fem_damping` reads within it (tested
/// over the default window on the wall at N = 1 and 2). The reports print it beside every ratio.
pub const DAMPING_RATIO_TOLERANCE: f64 = 2e-3;

/// The signals of fields about a centre (module doc): the tracked vertex's excursion along the tracked
/// direction, and the first mode's share of it ([`measure`]).
pub(super) type Along<'a> = dyn Fn(&[Vec<Vec3>], &[Vec3]) -> (Vec<f64>, Vec<f64>) + 'a;

/// The measures of one release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionMeasures {
    /// Whether the signal oscillates in the window (at least three zero crossings).
    pub oscillates: bool,
    /// Frequency from the zero crossings (Hz); `None` without oscillation.
    pub frequency: Option<f64>,
    /// Logarithmic decrement per period; `None` without oscillation.
    pub decrement: Option<f64>,
    /// Damping ratio `delta / sqrt(4 pi^2 + delta^2)`; `None` without oscillation.
    pub damping_ratio: Option<f64>,
    /// Zero crossings in the window.
    pub crossings: usize,
    /// The largest excursion from the rest state along the tracked direction (m).
    pub amplitude: f64,
}

/// The zero crossings of `s` (sample index after it, interpolated time) between samples of opposite
/// sign, each beyond [`NOISE_FLOOR`] times the largest excursion (a body creeping to rest within its
/// solver's tolerance crosses nothing), linearly interpolated between the two.
fn zero_crossings(times: &[f64], s: &[f64]) -> Vec<(usize, f64)> {
    let amplitude = s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let floor = NOISE_FLOOR * amplitude;
    let mut crossings = Vec::new();
    let mut last: Option<usize> = None;
    for i in 0..s.len() {
        if s[i].abs() <= floor {
            continue;
        }
        if let Some(j) = last
            && (s[j] > 0.0) != (s[i] > 0.0)
        {
            let f = s[j] / (s[j] - s[i]);
            crossings.push((i, times[j] + f * (times[i] - times[j])));
        }
        last = Some(i);
    }
    crossings
}

/// The decay rate `sigma` (1/s) of `q`'s envelope `exp(-sigma t)`: a least-squares line through the
/// logarithm of each half cycle's peak (between consecutive crossings) against its time, each peak
/// located by a parabola through the largest sample and its neighbours (a sampled peak alone is up to
/// `1 - cos(pi / steps a period)` low, which varies from peak to peak). `None` with fewer than two peaks.
fn decay_rate(times: &[f64], q: &[f64], crossings: &[(usize, f64)]) -> Option<f64> {
    let mut points = Vec::new();
    for w in crossings.windows(2) {
        let (a, b) = (w[0].0, w[1].0);
        let Some(i) = (a..b).max_by(|&x, &y| q[x].abs().total_cmp(&q[y].abs())) else { continue };
        let (mut peak, mut time) = (q[i].abs(), times[i]);
        if i > 0 && i + 1 < q.len() {
            let (ym, y0, yp) = (q[i - 1].abs(), q[i].abs(), q[i + 1].abs());
            let curvature = ym - 2.0 * y0 + yp;
            if curvature < 0.0 {
                let p = (0.5 * (ym - yp) / curvature).clamp(-0.5, 0.5);
                peak = y0 - 0.25 * (ym - yp) * p;
                let h = if p >= 0.0 { times[i + 1] - times[i] } else { times[i] - times[i - 1] };
                time += p * h;
            }
        }
        if peak > 0.0 {
            points.push((time, peak.ln()));
        }
    }
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (mt, my) = points.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + t / n, b + y / n));
    let (sty, stt) = points.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + (t - mt) * (y - my), b + (t - mt).powi(2)));
    (stt > 0.0).then(|| -sty / stt)
}

/// The measures of a release (module doc): the frequency and crossings from `s`, the tracked vertex's
/// excursion about its rest level along the tracked direction, sampled at `times`; the decay from `q`, the
/// first mode's share of that excursion (the body's motion projected on the FEM's first mode shape), so
/// that higher modes, which the release also excites and which ring at other rates, do not read as decay:
/// an undamped body reads a damping ratio within [`DAMPING_RATIO_TOLERANCE`] of 0.
pub fn measure(times: &[f64], s: &[f64], q: &[f64]) -> MotionMeasures {
    let amplitude = s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let crossings = zero_crossings(times, s);
    let count = crossings.len();
    let not_oscillating = MotionMeasures {
        oscillates: false,
        frequency: None,
        decrement: None,
        damping_ratio: None,
        crossings: count,
        amplitude,
    };
    if count < 3 {
        return not_oscillating;
    }
    let span = crossings[count - 1].1 - crossings[0].1;
    let frequency = (count - 1) as f64 / (2.0 * span);
    // The decay of the first mode's share, over its own half cycles and at its own frequency.
    let modal = zero_crossings(times, q);
    let decay = (modal.len() >= 3).then(|| decay_rate(times, q, &modal)).flatten();
    let Some(sigma) = decay else {
        return not_oscillating;
    };
    let modal_frequency = (modal.len() - 1) as f64 / (2.0 * (modal[modal.len() - 1].1 - modal[0].1));
    // sigma = zeta omega_n and the damped frequency omega_d = omega_n sqrt(1 - zeta^2): the decrement per
    // period is sigma / f_d, and zeta = delta / sqrt(4 pi^2 + delta^2).
    let decrement = sigma / modal_frequency;
    let ratio = decrement / (4.0 * std::f64::consts::PI.powi(2) + decrement * decrement).sqrt();
    MotionMeasures {
        oscillates: true,
        frequency: Some(frequency),
        decrement: Some(decrement),
        damping_ratio: Some(ratio),
        crossings: count,
        amplitude,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::MIN_STEPS_PER_PERIOD;

    /// A decaying cosine gives its frequency and logarithmic decrement; a signal creeping to rest within
    /// round-off of zero, or too short, is not oscillating.
    #[test]
    fn measures_of_known_signals() {
        let (f, zeta) = (2.0, 0.03);
        let omega = std::f64::consts::TAU * f;
        let times: Vec<f64> = (0..4000).map(|i| i as f64 * 1e-3).collect();
        let s: Vec<f64> = times.iter().map(|t| (-zeta * omega * t).exp() * (omega * t).cos()).collect();
        let m = measure(&times, &s, &s);
        assert!(m.oscillates);
        // The damped frequency omega sqrt(1 - zeta^2) ~ omega here; the decrement 2 pi zeta / sqrt(1 - zeta^2).
        assert!((m.frequency.unwrap() / f - 1.0).abs() < 1e-3, "{m:?}");
        let delta = std::f64::consts::TAU * zeta / (1.0 - zeta * zeta).sqrt();
        assert!((m.decrement.unwrap() / delta - 1.0).abs() < 0.02, "{m:?}");
        assert!((m.damping_ratio.unwrap() / zeta - 1.0).abs() < 0.02, "{m:?}");
        // Overdamped: one excursion decaying to rest, then solver noise of 1e-9 of it about zero, which would
        // cross zero at every sample without the noise floor.
        let times: Vec<f64> = (0..8000).map(|i| i as f64 * 1e-3).collect();
        let creep: Vec<f64> =
            times.iter().enumerate().map(|(i, t)| (-5.0 * t).exp() + 1e-9 * (-1.0f64).powi(i as i32)).collect();
        let m = measure(&times, &creep, &creep);
        assert!(!m.oscillates && m.frequency.is_none(), "{m:?}");
    }

    /// The damping ratio comes from the first mode's share, sampled as coarsely as the release test allows
    /// ([`MIN_STEPS_PER_PERIOD`] samples a period, at a phase that puts no sample on a peak): an undamped
    /// one reads 0 and a damped one its ratio, within [`DAMPING_RATIO_TOLERANCE`], whatever a higher mode
    /// adds to the tracked vertex's own excursion (which sets the frequency and crossings only).
    #[test]
    fn the_damping_ratio_is_the_first_modes_within_the_tolerance() {
        let f = 3.72;
        let omega = std::f64::consts::TAU * f;
        let dt = 1.0 / (f * MIN_STEPS_PER_PERIOD);
        let times: Vec<f64> = (0..(5.0 * MIN_STEPS_PER_PERIOD) as usize + 1).map(|i| i as f64 * dt).collect();
        for zeta in [0.0, 0.02, 0.1] {
            let omega_d = omega * (1.0f64 - zeta * zeta).sqrt();
            let first: Vec<f64> =
                times.iter().map(|t| -(-zeta * omega * t).exp() * (omega_d * t + 0.37).cos()).collect();
            // A higher mode at 6.3 times the frequency, undamped, a tenth of the first's amplitude.
            let tracked: Vec<f64> = first.iter().zip(&times).map(|(x, t)| x + 0.1 * (6.3 * omega * t).sin()).collect();
            let m = measure(&times, &tracked, &first);
            let read = m.damping_ratio.expect("oscillates");
            println!("zeta {zeta}: read {read:e}");
            assert!((read - zeta).abs() < DAMPING_RATIO_TOLERANCE, "zeta {zeta}: read {read}");
            let alone = measure(&times, &first, &first);
            assert_eq!(alone.damping_ratio, m.damping_ratio, "the decay is the first mode's alone");
            assert!((alone.frequency.unwrap() / f - 1.0).abs() < 0.01, "{alone:?}");
        }
    }
}
