//! The parameter point of the sensitivity tests, shared with the `sensitivity_cost` example (the benchmark
//! runs the tests' cases).

use pbdfit_pbd::{ModelKind, Scale};

/// A point inside every model's box where the rest state depends on every parameter: linear axes at
/// 0.35 and 0.6 (kd, kv), compliances of about a 1 kPa material (`alpha_d ~ l0 / (E h^2)`, `alpha_v ~
/// V0 / K`; the energy-form springs, whose energy is quartic in the stretch, a million times stiffer in
/// alpha_d), spring constants of the same material (`ks ~ E h`, `kvol ~ K`); any other parameter at its
/// model's example point ([`ModelKind::example`]: `xpbd-strain`'s compliances `1 / (2 mu)`, `1 / K` of a
/// 1 kPa material), so a new model is tested without an edit here.
pub fn point(kind: ModelKind) -> Vec<f64> {
    kind.parameters()
        .iter()
        .enumerate()
        .map(|(i, p)| match (p.scale, p.name) {
            (Scale::Linear, _) => [0.35, 0.6][i % 2],
            (_, "alpha_d") if p.unit == "m/N" && kind.name() == "xpbd" => 1e-4,
            (_, "alpha_d") => 1e-9,
            (_, "alpha_v") => 1e-6,
            (_, "ks" | "kvol") => 1e3,
            _ => kind.def().example[i],
        })
        .collect()
}
