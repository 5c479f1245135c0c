//! The St. Venant-Kirchhoff spring potential as a constraint: `C = l0 eps^2 / 2` with the Green strain
//! `eps = (l^2 - l0^2) / (2 l0^2)`, `gamma = eps l / l0`. `l^2 - l0^2` arrives as `numerator`, free of
//! cancellation.

pub(super) const NAME: &str = "St. Venant-Kirchhoff";

#[inline(always)]
pub(super) fn value(_stretch: f64, numerator: f64, length: f64, rest_length: f64) -> (f64, f64) {
    let eps = numerator / (2.0 * rest_length * rest_length);
    (0.5 * rest_length * eps * eps, eps * length / rest_length)
}

#[cfg(test)]
pub(super) fn direct(l: f64, l0: f64) -> f64 {
    l0 * ((l * l - l0 * l0) / (2.0 * l0 * l0)).powi(2) / 2.0
}

pub(super) const WGSL: &str = "
fn potential_stvk(stretch: f32, numerator: f32, length: f32, rest_length: f32) -> vec2<f32> {
    let eps = numerator / (2.0 * rest_length * rest_length);
    return vec2<f32>(0.5 * rest_length * eps * eps, eps * length / rest_length);
}
";
