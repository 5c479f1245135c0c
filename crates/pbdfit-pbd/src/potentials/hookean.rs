//! The Hookean spring potential as a constraint, `C = (l - l0)^2 / 2`, `gamma = l - l0`.

pub(super) const NAME: &str = "Hookean";

#[inline(always)]
pub(super) fn value(stretch: f64, _numerator: f64, _length: f64, _rest_length: f64) -> (f64, f64) {
    (0.5 * stretch * stretch, stretch)
}

#[cfg(test)]
pub(super) fn direct(l: f64, l0: f64) -> f64 {
    (l - l0).powi(2) / 2.0
}

pub(super) const WGSL: &str = "
fn potential_hookean(stretch: f32, numerator: f32, length: f32, rest_length: f32) -> vec2<f32> {
    return vec2<f32>(0.5 * stretch * stretch, stretch);
}
";
