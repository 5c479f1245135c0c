//! Numbers as a person reads them in messages and reports: six significant digits, no trailing zeros, no
//! exponent for 0 and for sizes from 1e-4 to 1e6 (`0.00333333` for dt = 1/300, `0` and `1` for a box's
//! bounds, `3.98107e-13` for a compliance). Results files keep every digit (shortest round-trip); this is
//! for text a user reads (`dt = 0.0033333333333333335`, `box kd in [0e0, 1e0]`).

/// `x` with six significant digits (see the module documentation); NaN and infinities as Rust writes them.
///
/// ```
/// use pbdfit_mesh::display::number;
/// assert_eq!(number(1.0 / 300.0), "0.00333333");
/// assert_eq!((number(0.0), number(1.0), number(-2.5)), ("0".into(), "1".into(), "-2.5".into()));
/// assert_eq!(number(3.981071705534969e-13), "3.98107e-13");
/// assert_eq!(number(41.880123), "41.8801");
/// assert_eq!(number(1e5), "100000");
/// assert_eq!(number(2.5e7), "2.5e7");
/// ```
pub fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".into() } else { x.to_string() };
    }
    let magnitude = x.abs().log10().floor() as i32;
    if (-4..6).contains(&magnitude) {
        let decimals = (5 - magnitude).max(0) as usize;
        let text = format!("{x:.decimals$}");
        let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
        return text.to_string();
    }
    scientific(x)
}

/// A number in exponent form with at most six significant digits, trailing zeros trimmed (`1e3`,
/// `2.5e4`, `3.33333e5`): E in figure labels, where a reader compares decades.
///
/// ```
/// use pbdfit_mesh::display::scientific;
/// assert_eq!((scientific(1e3), scientific(2.5e4), scientific(1e6 / 3.0)), ("1e3".into(), "2.5e4".into(), "3.33333e5".into()));
/// assert_eq!(scientific(0.0), "0");
/// ```
pub fn scientific(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".into() } else { x.to_string() };
    }
    let text = format!("{x:.5e}");
    let (mantissa, exponent) = text.split_once('e').expect("an exponent");
    let mantissa = if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { mantissa };
    format!("{mantissa}e{exponent}")
}

/// Every digit of `x` (the shortest text that reads back as the same number, as results files keep it),
/// in at most 24 characters: Rust's positional form where it is short (`0.5`, `100`, `0.001`), else the
/// exponent form (`1e308`, `1e-300`, `1.2345678901234567e-20`), which Rust's positional form writes with
/// up to 309 digits. For names and messages that must keep the value exactly (a model's settings in its
/// spec, `jolt[gravity_factor=0.5]`).
///
/// ```
/// use pbdfit_mesh::display::exact;
/// assert_eq!((exact(0.5), exact(100.0), exact(0.001)), ("0.5".into(), "100".into(), "0.001".into()));
/// assert_eq!((exact(1e308), exact(1e-300)), ("1e308".into(), "1e-300".into()));
/// assert_eq!(exact(0.1 + 0.2).parse::<f64>().unwrap(), 0.1 + 0.2);
/// ```
pub fn exact(x: f64) -> String {
    let text = x.to_string();
    if text.len() <= 24 { text } else { format!("{x:e}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_bounded_at_the_extremes() {
        for x in [f64::MAX, 1e308, 1e-300, f64::MIN_POSITIVE, 5e-324, -1e200, 1.0 / 3.0, 1e20, 123456789.123] {
            for text in [number(x), scientific(x), exact(x)] {
                assert!(text.len() <= 24, "{x:e}: {text}");
            }
            assert_eq!(exact(x).parse::<f64>().unwrap(), x, "exact keeps every digit");
        }
    }
}
