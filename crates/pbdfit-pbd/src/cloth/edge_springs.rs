//! XPBD spring potentials on a sheet's edges (Hookean, St. Venant-Kirchhoff, modified Morse: the
//! solids' `potentials/`, the same `(C, gamma)` per potential): `d_lambda = (-C - alpha~ lambda) /
//! ((w1 + w2) gamma^2 + alpha~)`, the gradient `gamma n` on the edge's second particle, as the solids'
//! `xpbd-hookean`, `-stvk`, `-morse` project them (`constraints.rs`). Not in the reference library.

use super::{ClothConstraint, RestContext, Support};
use crate::{SpringPotential, Vec3};

/// An XPBD spring on an edge.
pub(crate) struct EdgeSpring;

impl ClothConstraint for EdgeSpring {
    const SUPPORT: Support = Support::Edges;
    /// The rest length (m).
    type Rest = f64;
    /// The potential and `alpha~ = alpha / dt^2` (units per potential: `C^2 / (2 alpha)` in J).
    type Constants = (SpringPotential, f64);

    fn rest(x: &[Vec3; 4], _: RestContext) -> Option<f64> {
        Some((x[1] - x[0]).norm())
    }

    #[inline(always)]
    fn project(
        rest: &f64,
        &(potential, alpha): &(SpringPotential, f64),
        x: &[Vec3; 4],
        w: &[f64; 4],
        _dt: f64,
        lambda: &mut f64,
        corr: &mut [Vec3; 4],
    ) -> bool {
        let d = x[1] - x[0];
        let length = d.norm();
        if length < 1e-300 {
            return false;
        }
        let stretch = length - rest;
        let numerator = stretch * (length + rest);
        let (c, gamma) = potential.value(stretch, numerator, length, *rest);
        let denominator = (w[0] + w[1]) * gamma * gamma + alpha;
        if denominator <= 1e-300 {
            return false;
        }
        let n = d * (gamma / length);
        let d_lambda = (-c - alpha * *lambda) / denominator;
        *lambda += d_lambda;
        corr[0] = n * -(d_lambda * w[0]);
        corr[1] = n * (d_lambda * w[1]);
        true
    }
}
