//! The sentences the report writes under each figure, derived from the data: where the error is lowest
//! and highest along ν, how the model's parameters move with the varied setting, whether fits sit on the
//! edges of the search box, and how many fits failed.

use pbdfit_results::{ParameterLayout, Scale, SceneLayout, format_number};

use crate::scene_picture::ScenePicture;
use crate::study::{ExperimentData, Point, Variant, and_list, share_percent};

/// A fitted parameter closer than this fraction of its box's width (in search coordinates: log10 for a
/// Log10 parameter) to an edge counts as on the bound, even where the row's `at_bound` does not say so
/// (older results): the pattern search stops once its step falls below its tolerance, so a fit pushed
/// against a bound ends within about that step of it.
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

/// Whether parameter `i` of a fit lies on an edge of its search box: named in the row's `at_bound`, or
/// within [`BOUND_TOLERANCE`] of the box's width (in log10 for a Log10 parameter) of an edge. The edge
/// (lower or upper), if so.
fn bound_of(p: &ParameterLayout, point: &Point, i: usize) -> Option<f64> {
    let v = point.values[i];
    let search = |x: f64| if p.scale == Scale::Log10 { x.log10() } else { x };
    let (lo, hi, x) = (search(p.lower), search(p.upper), search(v));
    let width = hi - lo;
    let near = |b: f64| width.is_finite() && width > 0.0 && (x - b).abs() <= BOUND_TOLERANCE * width;
    let nearer = if (x - lo).abs() <= (x - hi).abs() { p.lower } else { p.upper };
    if point.at_bound.contains(&p.name) {
        return Some(nearer);
    }
    if near(lo) {
        Some(p.lower)
    } else if near(hi) {
        Some(p.upper)
    } else {
        None
    }
}

/// Fits on the bounds, e.g. "kd is at the bound 1 in 12 fits; kv never reaches a bound."
fn bounds(data: &ExperimentData) -> String {
    let plural = |n: usize| if n == 1 { "fit" } else { "fits" };
    let mut parts = Vec::new();
    for (i, p) in data.parameters.iter().enumerate() {
        let (mut lower, mut upper) = (0, 0);
        for point in data.variants.iter().flat_map(|v| v.points()) {
            match bound_of(p, point, i) {
                Some(b) if b == p.lower => lower += 1,
                Some(_) => upper += 1,
                None => {}
            }
        }
        let (l, u) = (format_number(p.lower), format_number(p.upper));
        match (lower, upper) {
            (0, 0) => {}
            (0, o) => parts.push(format!("{} is at the bound {u} in {o} {}", p.name, plural(o))),
            (z, 0) => parts.push(format!("{} is at the bound {l} in {z} {}", p.name, plural(z))),
            (z, o) => parts.push(format!("{} is at the bound {l} in {z} {} and at {u} in {o}", p.name, plural(z))),
        }
    }
    if parts.is_empty() {
        "No fit reached the edges of the search box.".into()
    } else {
        format!("{}.", parts.join("; "))
    }
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
    if data.scene.is_compound()
        && let Some(s) = dominant_part(data)
    {
        out.push(s);
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

/// Which part scene carries most of the compound error, on average over the successful fits: over all of
/// them for a single variant, per variant otherwise (pooling E = 1e3 to 1e6 Pa said "GravityWall
/// 41 %" where the wall goes from 10 % at 1e3 to 65 % at 1e6).
fn dominant_part(data: &ExperimentData) -> Option<String> {
    let shares = |points: &mut dyn Iterator<Item = &Point>| -> Option<Vec<(String, f64)>> {
        let mut sums: Vec<(String, f64)> = Vec::new();
        let mut total = 0.0;
        for p in points {
            if p.error <= 0.0 {
                continue;
            }
            for (scene, pct) in share_percent(&data.scene, p) {
                match sums.iter_mut().find(|(s, _)| *s == scene) {
                    Some(entry) => entry.1 += pct,
                    None => sums.push((scene, pct)),
                }
            }
            total += 1.0;
        }
        (total > 0.0).then(|| sums.into_iter().map(|(scene, sum)| (scene, sum / total)).collect())
    };
    if data.variants.len() == 1 {
        return shares(&mut data.variants[0].points()).map(share_sentence);
    }
    let per: Vec<String> = data
        .variants
        .iter()
        .filter_map(|v| shares(&mut v.points()).map(|s| format!("At {}, {}", v.label, share_sentence(s))))
        .collect();
    (!per.is_empty()).then(|| per.join(" "))
}

/// The sentence on the parts' shares (percent of e², averaged): the largest share, or the shares tied
/// with it within one percentage point (a tie is not presented as a ranking), then the others.
fn share_sentence(mut shares: Vec<(String, f64)>) -> String {
    shares.sort_by(|a, b| b.1.total_cmp(&a.1));
    let title = |s: &str| SceneLayout { name: s.to_string(), parts: vec![] }.title();
    let top = shares.first().map_or(0.0, |s| s.1);
    let (tied, rest): (Vec<_>, Vec<_>) = shares.iter().partition(|(_, pct)| top - pct < 1.0);
    let others = if rest.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = rest.iter().map(|(s, pct)| format!("{} {pct:.0}%", title(s))).collect();
        format!(" ({})", list.join(", "))
    };
    if tied.len() == 1 {
        format!(
            "{} carries the largest share of the compound error: {:.0}% of e² on average{others}.",
            title(&tied[0].0),
            tied[0].1
        )
    } else {
        let names: Vec<String> = tied.iter().map(|(s, _)| title(s)).collect();
        let values: Vec<String> = tied.iter().map(|(_, pct)| format!("{pct:.0}%")).collect();
        format!(
            "{} carry equal shares of the compound error (within one percentage point): {} of e² on average{others}.",
            and_list(&names),
            and_list(&values)
        )
    }
}

/// A parameter's value as text: `0.412` on a linear scale, `1.23e-7` on a log scale.
fn pv(p: &ParameterLayout, v: f64) -> String {
    match p.scale {
        Scale::Linear => format!("{v:.3}"),
        Scale::Log10 => format!("{v:.2e}"),
    }
}

/// The mean of parameter `i` over a variant's fits: arithmetic on a linear scale, geometric on a log
/// scale (the mean of log10).
fn parameter_mean(p: &ParameterLayout, v: &Variant, i: usize) -> Option<f64> {
    match p.scale {
        Scale::Linear => mean(v, |pt| pt.values[i]),
        Scale::Log10 => mean(v, |pt| pt.values[i].log10()).map(|m| 10f64.powf(m)),
    }
}

/// How parameter `i` moves from the first to the last variant, e.g.
/// "kd goes from 0.310 (dt = 0.01) to 0.850 (dt = 0.001)".
fn movement(data: &ExperimentData, i: usize) -> Option<String> {
    let p = &data.parameters[i];
    let means: Vec<(String, f64)> =
        data.variants.iter().filter_map(|v| parameter_mean(p, v, i).map(|m| (v.label.clone(), m))).collect();
    let (first, last) = (means.first()?, means.last()?);
    let values: Vec<f64> = means.iter().map(|m| m.1).collect();
    Some(format!(
        "{} goes from {} ({}) to {} ({}){}",
        p.name,
        pv(p, first.1),
        first.0,
        pv(p, last.1),
        last.0,
        trend_note(&values)
    ))
}

/// Sentences for a parameter figure.
pub(crate) fn parameter_sentences(data: &ExperimentData) -> Vec<String> {
    if !data.has_points() {
        return vec!["No fit succeeded, so there is nothing to draw.".into(), failures(data)];
    }
    let mut out = Vec::new();
    let moves: Vec<String> = (0..data.parameters.len()).filter_map(|i| movement(data, i)).collect();
    if !moves.is_empty() {
        let mean = if data.parameters.iter().any(|p| p.scale == Scale::Log10) { "(geometric) " } else { "" };
        out.push(format!("Averaged {mean}over ν, {}.", moves.join("; ")));
    }
    out.push(along_nu(data));
    let mut last = bounds(data);
    if data.failed() > 0 {
        last = format!("{last} {}", failures(data));
    }
    out.push(last);
    out
}

/// How the parameters move along ν for the first variant (the base value of the setting).
fn along_nu(data: &ExperimentData) -> String {
    let Some(v) = data.variants.iter().find(|v| v.points().next().is_some()) else { return String::new() };
    let pts: Vec<&Point> = v.points().collect();
    let (a, b) = (pts[0], pts[pts.len() - 1]);
    let which = if data.variants.len() == 1 { "From".to_string() } else { format!("For {}, from", v.label) };
    let items: Vec<String> = data
        .parameters
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let verb = if i == 0 { " goes" } else { "" };
            format!("{}{verb} from {} to {}", p.name, pv(p, a.values[i]), pv(p, b.values[i]))
        })
        .collect();
    format!("{which} ν = {} to ν = {}, {}.", nu(a.nu), nu(b.nu), and_list(&items))
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

    #[test]
    fn shares_within_a_point_are_a_tie_not_a_ranking() {
        let tie = share_sentence(vec![
            ("gravity-floor".into(), 45.2),
            ("gravity-wall".into(), 9.6),
            ("gravity-ceiling".into(), 45.2 - 0.3),
        ]);
        assert_eq!(
            tie,
            "GravityFloor and GravityCeiling carry equal shares of the compound error (within one percentage \
             point): 45% and 45% of e² on average (GravityWall 10%)."
        );
        let one = share_sentence(vec![("gravity-wall".into(), 41.0), ("gravity-floor".into(), 30.0)]);
        assert_eq!(
            one,
            "GravityWall carries the largest share of the compound error: 41% of e² on average (GravityFloor 30%)."
        );
    }
}
