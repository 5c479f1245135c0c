//! The sentences the report writes under each figure, derived from the data: where the error is lowest
//! and highest along ν, how k_d and k_v move with the varied parameter, whether fits sit on the bounds 0
//! or 1, and how many fits failed.

use crate::scene_picture::ScenePicture;
use crate::study::{ExperimentData, Point, Scene, Variant, shares};

/// A fitted stiffness closer than this to 0 or 1 counts as on the bound: the pattern search stops once its
/// step falls below its tolerance, so a fit pushed against a bound ends within about that step of it.
pub const BOUND_TOLERANCE: f64 = 1e-4;

/// An error value with three significant digits: `0.156`, `12.3`, or `1.87e-3` outside [0.01, 1000).
fn e(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if (0.01..1000.0).contains(&v.abs()) {
        let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.2e}")
    }
}

/// A stiffness as `0.412`.
fn k(v: f64) -> String {
    format!("{v:.3}")
}

/// ν as `0.27`.
fn nu(v: f64) -> String {
    format!("{v:.2}")
}

/// A fit and the variant it belongs to.
type Found<'a> = (&'a Point, &'a Variant);

/// Where `f` is lowest and highest over all successful fits: (point, variant) for each.
fn extremes(data: &ExperimentData, f: impl Fn(&Point) -> f64) -> Option<(Found<'_>, Found<'_>)> {
    let all: Vec<(&Point, &Variant)> = data.variants.iter().flat_map(|v| v.points().map(move |p| (p, v))).collect();
    let lo = all.iter().copied().min_by(|a, b| f(a.0).total_cmp(&f(b.0)))?;
    let hi = all.iter().copied().max_by(|a, b| f(a.0).total_cmp(&f(b.0)))?;
    Some((lo, hi))
}

/// Mean of `f` over a variant's successful fits.
fn mean(v: &Variant, f: impl Fn(&Point) -> f64) -> Option<f64> {
    let values: Vec<f64> = v.points().map(f).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// "1 fit failed (dt = 0.001 at ν = 0.49)." / "All 200 fits succeeded."
fn failures(data: &ExperimentData) -> String {
    let total = data.fits();
    let failed: Vec<String> = data
        .variants
        .iter()
        .flat_map(|v| {
            let label = v.label.clone();
            let base = data.variants.len() == 1 && v.value.is_none();
            v.failed_nus()
                .into_iter()
                .map(move |n| if base { format!("ν = {}", nu(n)) } else { format!("{label} at ν = {}", nu(n)) })
        })
        .collect();
    match failed.len() {
        0 => format!("All {total} fits succeeded."),
        n => {
            let mut listed = failed.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
            if n > 4 {
                listed.push_str(&format!(" and {} more", n - 4));
            }
            let verb = if n == 1 { "fit" } else { "fits" };
            format!("{n} of {total} {verb} failed and are left out of the curves ({listed}).")
        }
    }
}

/// Fits on the bounds, e.g. "k_d is at the bound 1 in 12 fits; k_v never reaches a bound."
fn bounds(data: &ExperimentData) -> String {
    let count = |f: &dyn Fn(&Point) -> f64, target: f64| -> usize {
        data.variants.iter().flat_map(|v| v.points()).filter(|p| (f(p) - target).abs() <= BOUND_TOLERANCE).count()
    };
    let describe = |name: &str, f: &dyn Fn(&Point) -> f64| -> Option<String> {
        let (zero, one) = (count(f, 0.0), count(f, 1.0));
        let plural = |n: usize| if n == 1 { "fit" } else { "fits" };
        match (zero, one) {
            (0, 0) => None,
            (0, o) => Some(format!("{name} is at the bound 1 in {o} {}", plural(o))),
            (z, 0) => Some(format!("{name} is at the bound 0 in {z} {}", plural(z))),
            (z, o) => Some(format!("{name} is at the bound 0 in {z} {} and at 1 in {o}", plural(z))),
        }
    };
    let parts: Vec<String> =
        [describe("k_d", &|p: &Point| p.kd), describe("k_v", &|p: &Point| p.kv)].into_iter().flatten().collect();
    if parts.is_empty() { "No fit reached the bounds 0 or 1.".into() } else { format!("{}.", parts.join("; ")) }
}

/// Sentences for an error figure.
pub(crate) fn error_sentences(data: &ExperimentData) -> Vec<String> {
    let mut out = Vec::new();
    let Some(((lo, lo_v), (hi, hi_v))) = extremes(data, |p| p.error) else {
        return vec!["No fit succeeded, so there is nothing to draw.".into(), failures(data)];
    };
    let single = data.variants.len() == 1;
    let with = |v: &Variant| if single { String::new() } else { format!(", {}", v.label) };
    out.push(format!(
        "The error is lowest at ν = {} ({}{}) and highest at ν = {} ({}{}).",
        nu(lo.nu),
        e(lo.error),
        with(lo_v),
        nu(hi.nu),
        e(hi.error),
        with(hi_v)
    ));
    if !single {
        let means: Vec<(String, f64)> =
            data.variants.iter().filter_map(|v| mean(v, |p| p.error).map(|m| (v.label.clone(), m))).collect();
        if let (Some(first), Some(last)) = (means.first(), means.last()) {
            out.push(format!(
                "Averaged over ν the error goes from {} at {} to {} at {}{}.",
                e(first.1),
                first.0,
                e(last.1),
                last.0,
                trend_note(&means.iter().map(|m| m.1).collect::<Vec<_>>())
            ));
        }
    }
    if data.scene.is_compound() {
        if let Some(s) = dominant_part(data) {
            out.push(s);
        }
    }
    out.push(failures(data));
    out
}

/// ", rising steadily" / ", falling steadily" / "" for a mixed sequence.
fn trend_note(values: &[f64]) -> &'static str {
    if values.len() < 3 {
        ""
    } else if values.windows(2).all(|w| w[1] >= w[0]) {
        ", rising with every step"
    } else if values.windows(2).all(|w| w[1] <= w[0]) {
        ", falling with every step"
    } else {
        ", not monotonically"
    }
}

/// Which part scene carries most of the compound error, on average over all successful fits.
fn dominant_part(data: &ExperimentData) -> Option<String> {
    let mut sums: Vec<(Scene, f64)> = Vec::new();
    let mut total = 0.0;
    for p in data.variants.iter().flat_map(|v| v.points()) {
        if p.error <= 0.0 {
            continue;
        }
        for (scene, share) in shares(p) {
            let Some(scene) = scene else { continue };
            match sums.iter_mut().find(|(s, _)| *s == scene) {
                Some(entry) => entry.1 += share / p.error,
                None => sums.push((scene, share / p.error)),
            }
        }
        total += 1.0;
    }
    if total == 0.0 {
        return None;
    }
    let (scene, sum) = sums.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(format!(
        "{} carries the largest share of the compound error: {:.0}% of the total on average.",
        scene.title(),
        100.0 * sum / total
    ))
}

/// How a quantity moves from the first to the last variant, e.g.
/// "k_d goes from 0.31 (dt = 0.01) to 0.85 (dt = 0.001)".
fn movement(data: &ExperimentData, name: &str, f: impl Fn(&Point) -> f64 + Copy) -> Option<String> {
    let means: Vec<(String, f64)> =
        data.variants.iter().filter_map(|v| mean(v, f).map(|m| (v.label.clone(), m))).collect();
    let (first, last) = (means.first()?, means.last()?);
    let values: Vec<f64> = means.iter().map(|m| m.1).collect();
    Some(format!("{name} goes from {} ({}) to {} ({}){}", k(first.1), first.0, k(last.1), last.0, trend_note(&values)))
}

/// Sentences for a k_d / k_v figure.
pub(crate) fn stiffness_sentences(data: &ExperimentData) -> Vec<String> {
    if !data.has_points() {
        return vec!["No fit succeeded, so there is nothing to draw.".into(), failures(data)];
    }
    let mut out = Vec::new();
    if let (Some(kd), Some(kv)) = (movement(data, "k_d", |p| p.kd), movement(data, "k_v", |p| p.kv)) {
        out.push(format!("Averaged over ν, {kd}, and {kv}."));
    }
    out.push(along_nu(data));
    let mut last = bounds(data);
    if data.failed() > 0 {
        last = format!("{last} {}", failures(data));
    }
    out.push(last);
    out
}

/// How k_d and k_v move along ν for the first variant (the base value of the parameter).
fn along_nu(data: &ExperimentData) -> String {
    let Some(v) = data.variants.iter().find(|v| v.points().next().is_some()) else { return String::new() };
    let pts: Vec<&Point> = v.points().collect();
    let (a, b) = (pts[0], pts[pts.len() - 1]);
    let which = if data.variants.len() == 1 { "From".to_string() } else { format!("For {}, from", v.label) };
    format!(
        "{which} ν = {} to ν = {}, k_d goes from {} to {} and k_v from {} to {}.",
        nu(a.nu),
        nu(b.nu),
        k(a.kd),
        k(b.kd),
        k(a.kv),
        k(b.kv)
    )
}

/// Sentences for a base-case figure.
pub(crate) fn base_sentences(data: &ExperimentData) -> Vec<String> {
    if !data.has_points() {
        return vec!["No fit succeeded, so there is nothing to draw.".into(), failures(data)];
    }
    let mut out = error_sentences(data);
    out.pop(); // failures, said below
    out.push(along_nu(data));
    let mut last = bounds(data);
    last = format!("{last} {}", failures(data));
    out.push(last);
    out
}

/// Sentences for a scene picture.
pub(crate) fn picture_sentences(p: &ScenePicture) -> Vec<String> {
    let u = p.displacements();
    let (imax, max_u) = u.iter().enumerate().fold((0, 0.0f64), |b, (i, v)| if *v > b.1 { (i, *v) } else { b });
    let held = p.held.iter().filter(|h| **h).count();
    let corner = p.initial[imax];
    let mut out = vec![format!(
        "{} of {} vertices are held{}; gravity pulls along -y.",
        held,
        p.initial.len(),
        held_face(p).map(|f| format!(" (the face {f})")).unwrap_or_default()
    )];
    out.push(format!(
        "The largest rest displacement is {:.3e} m, at the vertex initially at ({}, {}, {}); the picture \
         magnifies displacements {} times.",
        max_u,
        crate::canvas::tick(corner[0]),
        crate::canvas::tick(corner[1]),
        crate::canvas::tick(corner[2]),
        crate::canvas::tick(p.scale)
    ));
    out
}

/// `y = 0` when every held vertex shares that coordinate.
fn held_face(p: &ScenePicture) -> Option<String> {
    let held: Vec<[f64; 3]> = p.initial.iter().zip(&p.held).filter(|(_, h)| **h).map(|(x, _)| *x).collect();
    let first = held.first()?;
    (0..3)
        .find(|&a| held.iter().all(|x| x[a] == first[a]))
        .map(|a| format!("{} = {}", ["x", "y", "z"][a], crate::canvas::tick(first[a])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_plain_numbers_where_they_can() {
        assert_eq!(e(0.1561), "0.156");
        assert_eq!(e(12.34), "12.3");
        assert_eq!(e(0.0187), "0.0187");
        assert_eq!(e(1.87e-3), "1.87e-3");
        assert_eq!(e(5.49e4), "5.49e4");
    }
}
