//! Distance and volume constraints with precomputed rest data, and their projections in displacement
//! form (docs/method.md, section The model's step).

use crate::lanes::{Lane, V3};
use crate::{MAX_TETRAHEDRON_TERMS, SpringPotential, TetGeometry, TetrahedronTerm, Vec3};

/// How a constraint's correction is scaled: the reference library's PBD stiffness, or XPBD.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// `dp_i = -k C w_i g_i / sum_j w_j |g_j|^2`.
    Pbd { k: f64 },
    /// `d_lambda = (-C - alpha~ lambda) / (sum_j w_j |g_j|^2 + alpha~)`, `dp_i = w_i g_i d_lambda`.
    Xpbd { alpha_tilde: f64 },
}

#[cfg(test)]
impl Rule {
    /// The factor `f` with `dp_i = f w_i g_i`, given the constraint value `c` and `s = sum w |g|^2`;
    /// updates the XPBD multiplier. `None` when the constraint cannot move (all particles held or a
    /// degenerate gradient).
    #[inline(always)]
    fn factor(self, c: f64, s: f64, lambda: &mut f64) -> Option<f64> {
        match self {
            Rule::Pbd { k } => (s > 1e-300).then(|| -k * c / s),
            Rule::Xpbd { alpha_tilde } => {
                let denominator = s + alpha_tilde;
                if denominator <= 1e-300 {
                    return None;
                }
                let d_lambda = (-c - alpha_tilde * *lambda) / denominator;
                *lambda += d_lambda;
                Some(d_lambda)
            }
        }
    }
}

/// `C = |p2 - p1| - l0` on one tetrahedron edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceConstraint {
    /// The two particles, in edge order.
    pub particles: [usize; 2],
    /// Inverse masses of the two particles (1/kg; 0 for held ones).
    pub inverse_masses: [f64; 2],
    /// Rest edge vector `X2 - X1` (m).
    pub rest_edge: Vec3,
    /// Rest length `|X2 - X1|` (m).
    pub rest_length: f64,
}

impl DistanceConstraint {
    /// Builds the constraint from rest positions.
    pub fn new(particles: [usize; 2], rest: &[Vec3], inverse_masses: &[f64]) -> Self {
        let rest_edge = rest[particles[1]] - rest[particles[0]];
        Self {
            particles,
            inverse_masses: particles.map(|p| inverse_masses[p]),
            rest_edge,
            rest_length: rest_edge.norm(),
        }
    }

    /// Reference projection (the hot loop uses [`DistanceHot`]): the position changes `(dp1, dp2)`
    /// given the displacements. `C` is evaluated as `(2 e.du + du.du) / (|d| + l0)` with `du = u2 - u1`,
    /// free of cancellation.
    #[cfg(test)]
    pub(crate) fn correction(&self, u: &[Vec3], rule: Rule, lambda: &mut f64) -> Option<[Vec3; 2]> {
        let [w1, w2] = self.inverse_masses;
        let du = u[self.particles[1]] - u[self.particles[0]];
        let d = self.rest_edge + du;
        let length = d.norm();
        if length < 1e-300 {
            return None;
        }
        let c = (2.0 * self.rest_edge.dot(&du) + du.norm_squared()) / (length + self.rest_length);
        let n = d / length; // gradient of C with respect to p2; -n for p1
        let f = rule.factor(c, w1 + w2, lambda)?;
        Some([-(f * w1) * n, (f * w2) * n])
    }
}

/// `C = V(p0..p3) - V0` on one tetrahedron, `V = (1/6) ((p1 - p0) x (p2 - p0)) . (p3 - p0)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeConstraint {
    /// The four particles, in tetrahedron order.
    pub particles: [usize; 4],
    /// Inverse masses (1/kg; 0 for held ones).
    pub inverse_masses: [f64; 4],
    /// Rest edge vectors `E_k = X_k - X_0`, k = 1..3 (m).
    pub rest_edges: [Vec3; 3],
    /// `E2 x E3`, `E3 x E1`, `E1 x E2`: the linear terms of `6 (V - V0)` in the displacements.
    pub rest_cross: [Vec3; 3],
    /// Rest volume `V0` (m^3, positive).
    pub rest_volume: f64,
}

impl VolumeConstraint {
    /// Builds the constraint from rest positions.
    pub fn new(particles: [usize; 4], rest: &[Vec3], inverse_masses: &[f64]) -> Self {
        let x0 = rest[particles[0]];
        let e = [rest[particles[1]] - x0, rest[particles[2]] - x0, rest[particles[3]] - x0];
        let rest_cross = [e[1].cross(&e[2]), e[2].cross(&e[0]), e[0].cross(&e[1])];
        Self {
            particles,
            inverse_masses: particles.map(|p| inverse_masses[p]),
            rest_edges: e,
            rest_cross,
            rest_volume: e[0].dot(&rest_cross[0]) / 6.0,
        }
    }

    /// Reference projection (the hot loop uses [`VolumeHot`]). `gradient_scale` is 1 for the library's
    /// `6 dV/dp` gradients and 1/6 for the true gradients. `6 (V - V0)` is expanded in powers of the
    /// relative displacements `W_k = u_k - u_0`, so no digit is lost to cancellation.
    #[cfg(test)]
    pub(crate) fn correction(
        &self,
        u: &[Vec3],
        rule: Rule,
        gradient_scale: f64,
        lambda: &mut f64,
    ) -> Option<[Vec3; 4]> {
        let [e1, e2, e3] = self.rest_edges;
        let u0 = u[self.particles[0]];
        let w = [u[self.particles[1]] - u0, u[self.particles[2]] - u0, u[self.particles[3]] - u0];
        let six_dv = w[0].dot(&self.rest_cross[0])
            + w[1].dot(&self.rest_cross[1])
            + w[2].dot(&self.rest_cross[2])
            + e3.dot(&w[0].cross(&w[1]))
            + e2.dot(&w[2].cross(&w[0]))
            + e1.dot(&w[1].cross(&w[2]))
            + w[0].dot(&w[1].cross(&w[2]));
        let d = [e1 + w[0], e2 + w[1], e3 + w[2]];
        let g1 = d[1].cross(&d[2]) * gradient_scale;
        let g2 = d[2].cross(&d[0]) * gradient_scale;
        let g3 = d[0].cross(&d[1]) * gradient_scale;
        let g0 = -(g1 + g2 + g3);
        let [w0, w1, w2, w3] = self.inverse_masses;
        let s = w0 * g0.norm_squared() + w1 * g1.norm_squared() + w2 * g2.norm_squared() + w3 * g3.norm_squared();
        let f = rule.factor(six_dv / 6.0, s, lambda)?;
        Some([(f * w0) * g0, (f * w1) * g1, (f * w2) * g2, (f * w3) * g3])
    }
}

/// A distance constraint as the sweep reads it: rest data in the order used, `u32` particle indices,
/// and the precomputed mass shares `w_i / (w1 + w2)` (56 bytes).
///
/// With `g = k (2 e.du + du.du) / ((|d| + l0) |d|)` the reference library's projection is
/// `dp1 = (g r1) d`, `dp2 = -(g r2) d` (`d = e + du`): one square root and one division.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DistanceHot {
    /// Rest edge vector `X2 - X1` (m).
    pub rest_edge: Vec3,
    /// Rest length `|X2 - X1|` (m).
    pub rest_length: f64,
    /// `w1 / (w1 + w2)` and `w2 / (w1 + w2)`.
    pub share: [f64; 2],
    /// The two particles.
    pub particles: [u32; 2],
}

impl DistanceHot {
    /// The hot form of `c`; `None` when both particles are held (the constraint never moves anything).
    pub(crate) fn new(c: &DistanceConstraint) -> Option<Self> {
        let [w1, w2] = c.inverse_masses;
        let s = w1 + w2;
        (s > 1e-300).then(|| Self {
            rest_edge: c.rest_edge,
            rest_length: c.rest_length,
            share: [w1 / s, w2 / s],
            particles: c.particles.map(|p| u32::try_from(p).expect("particle index fits in u32")),
        })
    }

    /// `(du, d, 2 e.du + du.du, |d|)` at the displacements `u`.
    #[inline(always)]
    fn geometry(&self, u: &[Vec3]) -> (Vec3, f64, f64) {
        let du = u[self.particles[1] as usize] - u[self.particles[0] as usize];
        let d = self.rest_edge + du;
        let numerator = 2.0 * self.rest_edge.dot(&du) + du.norm_squared();
        (d, numerator, d.norm())
    }

    /// PBD correction `(dp1, dp2)` with stiffness `k`; zero when the edge has collapsed.
    #[inline(always)]
    pub(crate) fn pbd(&self, u: &[Vec3], k: f64) -> [Vec3; 2] {
        let (d, numerator, length) = self.geometry(u);
        if length < 1e-300 {
            return [Vec3::zeros(); 2];
        }
        let g = k * numerator / ((length + self.rest_length) * length);
        [(g * self.share[0]) * d, -(g * self.share[1]) * d]
    }

    /// XPBD correction with `alpha~ = alpha / dt^2`; updates the multiplier. `w` are the inverse masses.
    #[inline(always)]
    pub(crate) fn xpbd(&self, u: &[Vec3], w: &[f64], alpha_tilde: f64, lambda: &mut f64) -> [Vec3; 2] {
        let (d, numerator, length) = self.geometry(u);
        let (w1, w2) = (w[self.particles[0] as usize], w[self.particles[1] as usize]);
        let denominator = w1 + w2 + alpha_tilde;
        if length < 1e-300 || denominator <= 1e-300 {
            return [Vec3::zeros(); 2];
        }
        let c = numerator / (length + self.rest_length);
        let n = d / length;
        let d_lambda = (-c - alpha_tilde * *lambda) / denominator;
        *lambda += d_lambda;
        [-(d_lambda * w1) * n, (d_lambda * w2) * n]
    }

    /// XPBD correction with an energy-form distance constraint function `potential` (for `Stretch` use
    /// [`Self::xpbd`], the plain stretching constraint's own arithmetic): `C` and the gradient `gamma n`
    /// with respect to `p2` (docs/models.md, section Equations), evaluated without
    /// cancellation from `l - l0 = (2 e.du + du.du) / (|d| + l0)`, `l^2 - l0^2 = 2 e.du + du.du` and
    /// `exp(l - l0) - 1 = expm1(l - l0)`. Skipped (zero correction) when the denominator
    /// `(w1 + w2) gamma^2 + alpha~` is 0 or the edge has collapsed.
    #[inline(always)]
    pub(crate) fn xpbd_potential(
        &self,
        u: &[Vec3],
        w: &[f64],
        potential: SpringPotential,
        alpha_tilde: f64,
        lambda: &mut f64,
    ) -> [Vec3; 2] {
        let (d, numerator, length) = self.geometry(u);
        let (w1, w2) = (w[self.particles[0] as usize], w[self.particles[1] as usize]);
        if length < 1e-300 {
            return [Vec3::zeros(); 2];
        }
        let stretch = numerator / (length + self.rest_length);
        let (c, gamma) = potential.value(stretch, numerator, length, self.rest_length);
        let denominator = (w1 + w2) * gamma * gamma + alpha_tilde;
        if denominator <= 1e-300 {
            return [Vec3::zeros(); 2];
        }
        let n = d * (gamma / length);
        let d_lambda = (-c - alpha_tilde * *lambda) / denominator;
        *lambda += d_lambda;
        [-(d_lambda * w1) * n, (d_lambda * w2) * n]
    }
}

/// A volume constraint as the sweep reads it (168 bytes): rest edges `E_k = X_k - X_0`, the two cross
/// products the value needs, inverse masses, `u32` particle indices.
///
/// With `W_k = u_k - u_0`, `d_k = E_k + W_k`, the library's gradients `g1 = d2 x d3`, `g2 = d3 x d1`,
/// `g3 = d1 x d2`, `g0 = -(g1 + g2 + g3)`, and
/// `6 (V - V0) = W1.g1 + W2.(E3 x E1) + W3.(E1 x E2) + E1.(W2 x W3)` (exact, free of cancellation: every
/// term is of first or higher order in the displacements; it reuses `g1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VolumeHot {
    /// `E1, E2, E3` (m).
    pub rest_edges: [Vec3; 3],
    /// `E3 x E1`, `E1 x E2` (m^2).
    pub rest_cross: [Vec3; 2],
    /// Inverse masses (1/kg; 0 for held ones).
    pub inverse_masses: [f64; 4],
    /// The four particles.
    pub particles: [u32; 4],
}

impl VolumeHot {
    /// The hot form of `c`; `None` when all four particles are held.
    pub(crate) fn new(c: &VolumeConstraint) -> Option<Self> {
        c.inverse_masses.iter().any(|&w| w > 0.0).then(|| Self {
            rest_edges: c.rest_edges,
            rest_cross: [c.rest_cross[1], c.rest_cross[2]],
            inverse_masses: c.inverse_masses,
            particles: c.particles.map(|p| u32::try_from(p).expect("particle index fits in u32")),
        })
    }

    /// The rest data as the generic projection reads it.
    #[inline(always)]
    fn rest(&self) -> VolumeRest<f64> {
        VolumeRest {
            rest_edges: self.rest_edges.map(V3::from),
            rest_cross: self.rest_cross.map(V3::from),
            inverse_masses: self.inverse_masses,
        }
    }

    /// The displacements of the four vertices.
    #[inline(always)]
    fn gather(&self, u: &[Vec3]) -> [V3<f64>; 4] {
        let [p0, p1, p2, p3] = self.particles.map(|p| p as usize);
        [u[p0].into(), u[p1].into(), u[p2].into(), u[p3].into()]
    }

    /// [`VolumeRest::pbd`] on this constraint.
    #[inline(always)]
    pub(crate) fn pbd(&self, u: &[Vec3], kk: f64, s_min: f64) -> [Vec3; 4] {
        self.rest().pbd(&self.gather(u), kk, s_min).map(Vec3::from)
    }

    /// [`VolumeRest::xpbd`] on this constraint; updates the multiplier.
    #[inline(always)]
    pub(crate) fn xpbd(&self, u: &[Vec3], scale: f64, alpha_tilde: f64, lambda: &mut f64) -> [Vec3; 4] {
        self.rest().xpbd(&self.gather(u), scale, alpha_tilde, lambda).map(Vec3::from)
    }

    /// The tetrahedron as a per-tetrahedron constraint reads it, at the displacements `u`.
    #[inline(always)]
    pub(crate) fn geometry_at(&self, u: &[Vec3]) -> TetGeometry {
        let [p0, p1, p2, p3] = self.particles.map(|p| p as usize);
        let u0 = u[p0];
        TetGeometry {
            rest_edges: self.rest_edges,
            rest_cross: self.rest_cross,
            displacements: [u[p1] - u0, u[p2] - u0, u[p3] - u0],
        }
    }

    /// XPBD correction of a rule's per-tetrahedron constraints (`tetrahedra/`), solved together: with
    /// `C_j`, gradients `g_ji` (particle i) and `alpha~_j = alpha_j / dt^2`, the multipliers' change
    /// solves `sum_k (sum_i w_i g_ji . g_ki + alpha~_j delta_jk) d_lambda_k = -C_j - alpha~_j lambda_j`
    /// (one constraint: `d_lambda = (-C - alpha~ lambda) / (sum_i w_i |g_i|^2 + alpha~)`; two: the 2 x 2
    /// system by Cramer's rule), and `dp_i = w_i sum_j d_lambda_j g_ji`. Macklin and Mueller (2021)
    /// solve their neo-Hookean pair this way: at the rest shape its two gradients are parallel and their
    /// values large and opposite, so one after the other they barely converge, together they balance.
    /// Updates the multipliers; skipped (zero correction) when the system is singular or not a number.
    #[inline(always)]
    pub(crate) fn xpbd_tetrahedra(
        &self,
        u: &[Vec3],
        terms: &[Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS],
        lambda: &mut [f64; MAX_TETRAHEDRON_TERMS],
    ) -> [Vec3; 4] {
        let geometry = self.geometry_at(u);
        let [m0, m1, m2, m3] = self.inverse_masses;
        let weighted = |a: &[Vec3; 4], b: &[Vec3; 4]| {
            m0 * a[0].dot(&b[0]) + m1 * a[1].dot(&b[1]) + m2 * a[2].dot(&b[2]) + m3 * a[3].dot(&b[3])
        };
        let value = |term: &TetrahedronTerm| {
            let (c, [g1, g2, g3]) = term.constraint.value(&geometry, term.constant);
            (c, [-(g1 + g2 + g3), g1, g2, g3])
        };
        let zero = [Vec3::zeros(); 4];
        let (d_lambda, g) = match terms {
            [Some(t), None] | [None, Some(t)] => {
                let j = usize::from(terms[0].is_none());
                let (c, g) = value(t);
                let denominator = weighted(&g, &g) + t.alpha_tilde;
                if denominator.is_nan() || denominator <= 1e-300 {
                    return zero;
                }
                let d = (-c - t.alpha_tilde * lambda[j]) / denominator;
                let mut d_lambda = [0.0; MAX_TETRAHEDRON_TERMS];
                d_lambda[j] = d;
                let mut gs = [zero; MAX_TETRAHEDRON_TERMS];
                gs[j] = g;
                (d_lambda, gs)
            }
            [Some(t0), Some(t1)] => {
                let ((c0, g0), (c1, g1)) = (value(t0), value(t1));
                let (s00, s01, s11) = (weighted(&g0, &g0), weighted(&g0, &g1), weighted(&g1, &g1));
                // det = (s00 s11 - s01^2) + alpha~0 s11 + alpha~1 s00 + alpha~0 alpha~1: the first term is
                // >= 0 (Cauchy-Schwarz) and cancels when the gradients are parallel, so clamp its rounding.
                let det = (s00 * s11 - s01 * s01).max(0.0)
                    + t0.alpha_tilde * s11
                    + t1.alpha_tilde * s00
                    + t0.alpha_tilde * t1.alpha_tilde;
                if det.is_nan() || det <= 1e-300 {
                    return zero;
                }
                let b0 = -c0 - t0.alpha_tilde * lambda[0];
                let b1 = -c1 - t1.alpha_tilde * lambda[1];
                let d0 = ((s11 + t1.alpha_tilde) * b0 - s01 * b1) / det;
                let d1 = ((s00 + t0.alpha_tilde) * b1 - s01 * b0) / det;
                ([d0, d1], [g0, g1])
            }
            [None, None] => return zero,
        };
        for (l, d) in lambda.iter_mut().zip(d_lambda) {
            *l += d;
        }
        let [d0, d1] = d_lambda;
        let [g0, g1] = &g;
        [
            (d0 * m0) * g0[0] + (d1 * m0) * g1[0],
            (d0 * m1) * g0[1] + (d1 * m1) * g1[1],
            (d0 * m2) * g0[2] + (d1 * m2) * g1[2],
            (d0 * m3) * g0[3] + (d1 * m3) * g1[3],
        ]
    }
}

/// The volume projection's rule, written once for one constraint (`L = f64`, [`VolumeHot`]) and for
/// one constraint per SIMD lane (`L = f64x2`, `lanes.rs`), so the lanes are bit-identical to the scalar
/// sweep by construction: [`VolumeHot`]'s rest data over a lane type, and the projection from the four
/// vertices' displacements `uk` to their corrections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VolumeRest<L> {
    /// `E1, E2, E3` (m).
    pub rest_edges: [V3<L>; 3],
    /// `E3 x E1`, `E1 x E2` (m^2).
    pub rest_cross: [V3<L>; 2],
    /// Inverse masses of vertex 0..3 (1/kg).
    pub inverse_masses: [L; 4],
}

impl<L: Lane> VolumeRest<L> {
    /// `(6 (V - V0), [g1, g2, g3], g1 + g2 + g3, sum_i w_i |g_i|^2)` for the unscaled (6 dV/dp) gradients.
    #[inline(always)]
    fn geometry(&self, uk: &[V3<L>; 4]) -> (L, [V3<L>; 3], V3<L>, L) {
        let [e1, e2, e3] = self.rest_edges;
        let u0 = uk[0];
        let (w1, w2, w3) = (uk[1].sub(u0), uk[2].sub(u0), uk[3].sub(u0));
        let (d1, d2, d3) = (e1.add(w1), e2.add(w2), e3.add(w3));
        let g1 = d2.cross(d3);
        let g2 = d3.cross(d1);
        let g3 = d1.cross(d2);
        let six_dv = w1.dot(g1) + w2.dot(self.rest_cross[0]) + w3.dot(self.rest_cross[1]) + e1.dot(w2.cross(w3));
        let g0 = g1.add(g2).add(g3);
        let [m0, m1, m2, m3] = self.inverse_masses;
        let s = m0 * g0.norm_squared() + m1 * g1.norm_squared() + m2 * g2.norm_squared() + m3 * g3.norm_squared();
        (six_dv, [g1, g2, g3], g0, s)
    }

    /// `dp_k = f_k g_k` with `f_0 = -(f m0)` on `g_0 = g1 + g2 + g3` and `f_k = f m_k`, `+0.0` where not
    /// `keep`.
    #[inline(always)]
    fn corrections(&self, [g1, g2, g3]: [V3<L>; 3], g0: V3<L>, f: L, keep: L::Mask) -> [V3<L>; 4] {
        let [m0, m1, m2, m3] = self.inverse_masses;
        [
            g0.scale(-(f * m0)).keep(keep),
            g1.scale(f * m1).keep(keep),
            g2.scale(f * m2).keep(keep),
            g3.scale(f * m3).keep(keep),
        ]
    }

    /// PBD correction `dp_i = -kk 6(V - V0) w_i g_i / sum_j w_j |g_j|^2`, with `kk = k / (6 scale)` for
    /// gradients `scale * 6 dV/dp`; zero when `scale^2 sum_j w_j |g_j|^2 <= 1e-300` or not a number
    /// (degenerate, as the reference: `s_min = 1e-300 / scale^2`).
    #[inline(always)]
    pub(crate) fn pbd(&self, uk: &[V3<L>; 4], kk: f64, s_min: f64) -> [V3<L>; 4] {
        let (six_dv, g, g0, s) = self.geometry(uk);
        let keep = !(s.is_nan() | s.le(L::splat(s_min)));
        let q = L::splat(-kk) * six_dv / s;
        self.corrections(g, g0, q, keep)
    }

    /// XPBD correction with gradients `scale * 6 dV/dp` and `alpha~ = alpha / dt^2`; updates the
    /// multiplier. Zero, the multiplier unchanged, when the denominator is `<= 1e-300` (a NaN goes on).
    #[inline(always)]
    pub(crate) fn xpbd(&self, uk: &[V3<L>; 4], scale: f64, alpha_tilde: f64, lambda: &mut L) -> [V3<L>; 4] {
        let (six_dv, g, g0, s) = self.geometry(uk);
        let alpha = L::splat(alpha_tilde);
        let denominator = L::splat(scale * scale) * s + alpha;
        let keep = !denominator.le(L::splat(1e-300));
        let old = *lambda;
        let d_lambda = (-(six_dv / L::splat(6.0)) - alpha * old) / denominator;
        *lambda = L::select(keep, old + d_lambda, old);
        self.corrections(g, g0, d_lambda * L::splat(scale), keep)
    }
}

/// A constraint by its index in the list order (distance constraints first, then volume constraints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstraintRef {
    /// Index into the distance constraints (edge order).
    Distance(usize),
    /// Index into the volume constraints (tetrahedron order).
    Volume(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tet() -> (Vec<Vec3>, Vec<f64>) {
        let rest = vec![Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)];
        (rest, vec![2.0, 1.0, 0.5, 3.0])
    }

    #[test]
    fn distance_with_k1_is_satisfied_after_one_projection() {
        let (rest, w) = tet();
        let c = DistanceConstraint::new([1, 2], &rest, &w);
        let mut u = vec![Vec3::zeros(); 4];
        u[1] = Vec3::new(0.3, -0.1, 0.2);
        u[2] = Vec3::new(-0.05, 0.4, 0.1);
        let [a, b] = c.correction(&u, Rule::Pbd { k: 1.0 }, &mut 0.0).unwrap();
        u[1] += a;
        u[2] += b;
        let length = (rest[2] + u[2] - rest[1] - u[1]).norm();
        assert!((length - c.rest_length).abs() < 1e-15, "{length} vs {}", c.rest_length);
        // k = 0.5 removes half of the violation along the constraint direction.
        let mut v = vec![Vec3::zeros(); 4];
        v[2] = Vec3::new(0.0, 0.5, 0.0);
        let [a, b] = c.correction(&v, Rule::Pbd { k: 0.5 }, &mut 0.0).unwrap();
        assert!(((a - b).norm() - 0.5 * ((rest[2] + v[2] - rest[1]).norm() - c.rest_length)).abs() < 1e-15);
    }

    #[test]
    fn volume_with_k1_and_true_gradient_is_satisfied_to_first_order() {
        // One Newton-like step on a cubic constraint: a small violation shrinks quadratically.
        let (rest, w) = tet();
        let c = VolumeConstraint::new([0, 1, 2, 3], &rest, &w);
        let mut u = vec![Vec3::zeros(); 4];
        u[3] = Vec3::new(0.0, 0.0, 1e-4);
        let volume = |u: &[Vec3]| pbdfit_mesh::signed_volume([0, 1, 2, 3].map(|p| rest[p] + u[p]));
        let before = volume(&u) - c.rest_volume;
        let delta = c.correction(&u, Rule::Pbd { k: 1.0 }, 1.0 / 6.0, &mut 0.0).unwrap();
        for p in 0..4 {
            u[p] += delta[p];
        }
        let after = volume(&u) - c.rest_volume;
        // Quadratic convergence: |after| ~ |before|^2 / V0 (here 1.7e-5 -> 3.5e-10).
        assert!(after.abs() < 2.0 * before * before / c.rest_volume, "before {before:e}, after {after:e}");
        // The library's 6x gradient takes one sixth of that step.
        let mut u6 = vec![Vec3::zeros(); 4];
        u6[3] = Vec3::new(0.0, 0.0, 1e-4);
        let d6 = c.correction(&u6, Rule::Pbd { k: 1.0 }, 1.0, &mut 0.0).unwrap();
        for p in 0..4 {
            assert!((d6[p] * 6.0 - delta[p]).norm() < 1e-18);
        }
        // Expanded V - V0 agrees with the direct formula.
        let mut lambda = 0.0;
        let d1 = c.correction(&u6, Rule::Xpbd { alpha_tilde: 0.0 }, 1.0 / 6.0, &mut lambda).unwrap();
        assert!((d1[3] - delta[3]).norm() < 1e-18, "XPBD with zero compliance is PBD with k = 1");
    }

    /// The sweep's compact projections agree with the reference projections up to rounding, for PBD
    /// (both volume gradient scales) and XPBD, with free and held particles.
    #[test]
    fn hot_projections_match_the_reference() {
        let (rest, mut w) = tet();
        let u: Vec<Vec3> = (0..4)
            .map(|p| Vec3::new(0.01 * p as f64 - 0.013, 0.007 * (p * p) as f64, -0.004 * (p + 1) as f64))
            .collect();
        let close = |a: Vec3, b: Vec3| (a - b).norm() <= 1e-15 * b.norm().max(1e-12);
        for held in [None, Some(0), Some(2)] {
            if let Some(p) = held {
                w[p] = 0.0;
            }
            for pair in [[0, 1], [1, 3], [2, 0]] {
                let c = DistanceConstraint::new(pair, &rest, &w);
                let Some(hot) = DistanceHot::new(&c) else {
                    assert!(c.correction(&u, Rule::Pbd { k: 0.7 }, &mut 0.0).is_none(), "both held: no move");
                    continue;
                };
                let reference = c.correction(&u, Rule::Pbd { k: 0.7 }, &mut 0.0).unwrap();
                let fast = hot.pbd(&u, 0.7);
                assert!(close(fast[0], reference[0]) && close(fast[1], reference[1]), "{fast:?} vs {reference:?}");
                let (mut l1, mut l2) = (0.3, 0.3);
                let reference = c.correction(&u, Rule::Xpbd { alpha_tilde: 2.0 }, &mut l1).unwrap();
                let fast = hot.xpbd(&u, &w, 2.0, &mut l2);
                assert!(close(fast[0], reference[0]) && close(fast[1], reference[1]));
                assert!((l1 - l2).abs() <= 1e-15 * l1.abs());
            }
            let c = VolumeConstraint::new([0, 1, 2, 3], &rest, &w);
            let hot = VolumeHot::new(&c).unwrap();
            for scale in [1.0, 1.0 / 6.0] {
                let k = 0.6;
                let reference = c.correction(&u, Rule::Pbd { k }, scale, &mut 0.0).unwrap();
                let fast = hot.pbd(&u, k / (6.0 * scale), 1e-300 / (scale * scale));
                for p in 0..4 {
                    assert!(close(fast[p], reference[p]), "{scale}: {:?} vs {:?}", fast[p], reference[p]);
                }
                let (mut l1, mut l2) = (0.1, 0.1);
                let reference = c.correction(&u, Rule::Xpbd { alpha_tilde: 0.5 }, scale, &mut l1).unwrap();
                let fast = hot.xpbd(&u, scale, 0.5, &mut l2);
                for p in 0..4 {
                    assert!(close(fast[p], reference[p]));
                }
                assert!((l1 - l2).abs() <= 1e-15 * l1.abs());
            }
        }
        // Constraints whose particles are all held are left out of the sweep.
        let none = DistanceConstraint::new([0, 2], &rest, &[0.0; 4]);
        assert!(DistanceHot::new(&none).is_none());
        assert!(VolumeHot::new(&VolumeConstraint::new([0, 1, 2, 3], &rest, &[0.0; 4])).is_none());
    }

    /// The spring potentials: `C` as docs/method.md's table writes it (from positions, directly),
    /// `gamma = dC/dl` (central differences), a projection with `alpha~ = 0` that moves the edge by the
    /// Newton step `-C / gamma` along it, conserves momentum, and updates the multiplier.
    #[test]
    fn spring_potentials_follow_their_definitions() {
        let rest = vec![Vec3::new(0.1, 0.2, 0.0), Vec3::new(0.5, -0.1, 0.6)];
        let w = [2.0, 0.5];
        let c = DistanceConstraint::new([0, 1], &rest, &w);
        let hot = DistanceHot::new(&c).unwrap();
        let l0 = c.rest_length;
        let direct = |potential: SpringPotential, l: f64| potential.direct(l, l0);
        let potentials = SpringPotential::ALL.iter().copied();
        for stretch in [0.02, -0.03, 0.15] {
            // Move particle 1 along the edge by `stretch` and sideways a little.
            let n0 = c.rest_edge / l0;
            let u = vec![Vec3::new(0.0, 0.0, 0.01), n0 * stretch + Vec3::new(0.0, 0.0, 0.01)];
            let l = (rest[1] + u[1] - rest[0] - u[0]).norm();
            for potential in potentials.clone() {
                let numerator = 2.0 * c.rest_edge.dot(&(u[1] - u[0])) + (u[1] - u[0]).norm_squared();
                let (value, gamma) = potential.value(numerator / (l + l0), numerator, l, l0);
                let expected = direct(potential, l);
                assert!(
                    (value - expected).abs() <= 1e-14 * expected.abs().max(1e-3),
                    "{potential:?}: C {value} vs {expected}"
                );
                let h = 1e-6;
                let derivative = (direct(potential, l + h) - direct(potential, l - h)) / (2.0 * h);
                assert!(
                    (gamma - derivative).abs() <= 1e-8 * derivative.abs().max(1e-3),
                    "{potential:?}: {gamma} vs {derivative}"
                );
                if potential == SpringPotential::Stretch {
                    continue;
                }
                let mut lambda = 0.25;
                let [a, b] = hot.xpbd_potential(&u, &w, potential, 0.0, &mut lambda);
                // Momentum: m1 dp1 + m2 dp2 = 0.
                assert!((a / w[0] + b / w[1]).norm() <= 1e-15 * (a / w[0]).norm());
                let n = (rest[1] + u[1] - rest[0] - u[0]) / l;
                let dl = (b - a).dot(&n);
                assert!(
                    (dl + value / gamma).abs() <= 1e-12 * (value / gamma).abs(),
                    "{potential:?}: {dl} vs {}",
                    -value / gamma
                );
                assert!(((b - a) - n * dl).norm() <= 1e-15, "along the edge");
                assert!((lambda - 0.25 + value / ((w[0] + w[1]) * gamma * gamma)).abs() <= 1e-12 * lambda.abs());
            }
        }
        // At rest with zero compliance the energy forms have a zero denominator: skipped, no NaN.
        let u = vec![Vec3::zeros(); 2];
        for potential in SpringPotential::ALL.iter().copied().filter(|p| *p != SpringPotential::Stretch) {
            let mut lambda = 0.0;
            assert_eq!(hot.xpbd_potential(&u, &w, potential, 0.0, &mut lambda), [Vec3::zeros(); 2]);
            assert_eq!(lambda, 0.0);
        }
    }
}
