//! The modified Morse spring potential as a constraint: `C = (1 - exp(l - l0))^2`,
//! `gamma = 2 exp(l - l0) (exp(l - l0) - 1)`, with `exp(l - l0) - 1` from `expm1` (no cancellation; rest
//! stretches are 1e-7 to 1e-2 m).

pub(super) const NAME: &str = "modified Morse";

#[inline(always)]
pub(super) fn value(stretch: f64, _numerator: f64, _length: f64, _rest_length: f64) -> (f64, f64) {
    let m = stretch.exp_m1();
    (m * m, 2.0 * (1.0 + m) * m)
}

#[cfg(test)]
pub(super) fn direct(l: f64, l0: f64) -> f64 {
    (1.0 - (l - l0).exp()).powi(2)
}

/// WGSL has no `expm1`, and `exp(x) - 1` in f32 keeps only `1.2e-7 / |x|` of its relative precision.
/// Below `|x| = 1e-2` the Taylor series to `x^5` is exact to f32 rounding (the next term is
/// `x^6 / 720 < 1.4e-15 |x|`).
pub(super) const WGSL: &str = "
fn expm1_f32(x: f32) -> f32 {
    if abs(x) < 1e-2 {
        return x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))));
    }
    return exp(x) - 1.0;
}
fn potential_morse(stretch: f32, numerator: f32, length: f32, rest_length: f32) -> vec2<f32> {
    let m = expm1_f32(stretch);
    return vec2<f32>(m * m, 2.0 * (1.0 + m) * m);
}
";
