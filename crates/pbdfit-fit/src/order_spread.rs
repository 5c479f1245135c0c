//! How far the order a program creates an engine body's constraints in moves a fitted answer: for a
//! profile whose engine reads that order (Jolt's `order` setting, `pbdfit_pbd::engines::creation`), the
//! rest states and errors at the fitted parameters with the edges created in other orders (the profile's,
//! sorted pairs, and [`SEEDS`] seeded shuffles). Their spread is the answer's honest error bar: a user whose
//! program creates the edges in another order gets another body than the one fitted.

use serde::Serialize;

use pbdfit_pbd::CreationOrder;

use crate::{FitProblem, RISE};

/// The seeds of the shuffled orders tried.
pub const SEEDS: [u64; 4] = [1, 2, 3, 4];

/// One other creation order at the fitted point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderPoint {
    /// `profile`, `sorted`, `shuffled (seed 3)`.
    pub order: String,
    /// Its value of the `order` setting.
    pub setting: f64,
    /// The error at the fitted parameters with the edges created in this order; `None` where it has no
    /// rest state.
    pub error: Option<f64>,
    /// How far its rest state is from the fitted order's: `||u - u_fit|| / ||u_fit||` over every
    /// displacement component of every part.
    pub moved: Option<f64>,
    /// Why it has no rest state, where it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// The spread over creation orders at a fitted point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderSpread {
    /// What the order is of: `edges` (a solid's, the program's own loop) or `faces` (a sheet's, handed to
    /// Jolt's `CreateConstraints`).
    pub of: &'static str,
    /// The order the fit ran with.
    pub order: String,
    /// The other orders tried.
    pub others: Vec<OrderPoint>,
    /// The largest rest-state change over them (relative L2).
    pub largest_move: f64,
    /// The largest relative rise of the error over them, `error / fitted - 1` (negative where every other
    /// order gives a lower error).
    pub largest_rise: f64,
    /// Whether some order changes the error by more than the fit's own 1 % range ([`RISE`]): the order
    /// then decides the answer more than the fit can resolve it.
    pub beyond_fit_range: bool,
}

/// The spread at `values` (the fitted parameters, with `fitted` the fit's error there) over the other
/// creation orders, for a model whose engine reads one; `None` for every other model. Deterministic: the
/// same orders (fixed seeds) every time.
pub fn order_spread(problem: &FitProblem, values: &[f64], fitted: f64) -> Option<OrderSpread> {
    let kind = problem.settings.kind;
    let order = kind.creation_order()?;
    let base = problem.evaluate(values, None);
    if base.failure.is_some() {
        return None;
    }
    let mut orders = vec![CreationOrder::Profile, CreationOrder::Sorted];
    orders.extend(SEEDS.map(CreationOrder::Shuffled));
    orders.retain(|o| *o != order);
    let others: Vec<OrderPoint> = orders
        .into_iter()
        .map(|other| {
            let mut problem = problem.clone();
            problem.settings.kind = kind
                .with_setting(pbdfit_pbd::engines::creation::SETTING, other.setting())
                .expect("every creation order is a value of the setting");
            let e = problem.evaluate(values, None);
            let moved = e.failure.is_none().then(|| {
                let (mut num, mut den) = (0.0, 0.0);
                for (u, v) in e.rest.iter().zip(&base.rest) {
                    for (a, b) in u.iter().zip(v.iter()) {
                        num += (a - b).norm_squared();
                        den += b.norm_squared();
                    }
                }
                (num / den).sqrt()
            });
            OrderPoint {
                order: other.name(),
                setting: other.setting(),
                error: e.failure.is_none().then_some(e.error),
                moved,
                failure: e.failure.map(|f| f.to_string()),
            }
        })
        .collect();
    let largest_move = others.iter().filter_map(|o| o.moved).fold(0.0, f64::max);
    let largest_rise =
        others.iter().filter_map(|o| o.error).map(|e| e / fitted - 1.0).fold(f64::NEG_INFINITY, f64::max);
    let beyond = others.iter().any(|o| o.error.is_none_or(|e| (e / fitted - 1.0).abs() > RISE));
    let of = if kind.body_kind() == pbdfit_pbd::BodyKind::Sheet { "faces" } else { "edges" };
    Some(OrderSpread { of, order: order.name(), others, largest_move, largest_rise, beyond_fit_range: beyond })
}

impl OrderSpread {
    /// The report's line: the order used, how far the others move the rest state and the error.
    pub fn line(&self, fitted: f64) -> String {
        let errors: Vec<f64> = self.others.iter().filter_map(|o| o.error).collect();
        let (lo, hi) = errors.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), e| (l.min(*e), h.max(*e)));
        let failed = self.others.iter().filter(|o| o.error.is_none()).count();
        let failed = if failed > 0 { format!(", {failed} with no rest state") } else { String::new() };
        let verdict = if self.beyond_fit_range {
            format!(
                "more than the fit's own 1 % range: create the {} in the order fitted, or fit in the order your \
                 program uses (--setting order=...)",
                self.of
            )
        } else {
            "within the fit's own 1 % range".to_string()
        };
        let names: Vec<&str> = self.others.iter().map(|o| o.order.as_str()).collect();
        format!(
            "{} created in the {} order; the other orders ({}) move the rest state by up to {:.2e} (relative L2) \
             and give errors {:.6e} to {:.6e} (the fit's {:.6e}){failed}: {verdict}",
            self.of,
            self.order,
            names.join(", "),
            self.largest_move,
            lo,
            hi,
            fitted
        )
    }
}
