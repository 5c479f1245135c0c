//! Numbers as a person reads them in messages and reports: six significant digits, no trailing zeros, no
//! exponent for 0 and for sizes from 1e-4 to 1e6 (`0.00333333` for dt = 1/300, `0` and `1` for a box's
//! bounds, `3.98107e-13` for a compliance). Results files keep every digit (shortest round-trip); this is
//! for text a user reads (issue 38: `dt = 0.0033333333333333335`, `box kd in [0e0, 1e0]`).

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
