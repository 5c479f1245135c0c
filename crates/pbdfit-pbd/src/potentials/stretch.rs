//! The plain XPBD stretching constraint, `C = l - l0`, `gamma = 1`. The sweeps project it with the
//! distance constraint's own arithmetic (`DistanceHot::xpbd`, and its twin in constraints.wgsl), which
//! needs no gamma; `value` and `WGSL` are its entry in the table all potentials share.

pub(super) const NAME: &str = "stretching";

#[inline(always)]
pub(super) fn value(stretch: f64, _numerator: f64, _length: f64, _rest_length: f64) -> (f64, f64) {
    (stretch, 1.0)
}

#[cfg(test)]
pub(super) fn direct(l: f64, l0: f64) -> f64 {
    l - l0
}

pub(super) const WGSL: &str = "
fn potential_stretch(stretch: f32, numerator: f32, length: f32, rest_length: f32) -> vec2<f32> {
    return vec2<f32>(stretch, 1.0);
}
";
