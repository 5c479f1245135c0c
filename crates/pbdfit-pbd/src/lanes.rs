//! Volume constraints projected several at a time by the serial sweep.
//!
//! Why lanes: the volume projection is the most expensive step of the serial sweep (about 285
//! instructions, a third of the distance projection's rate). Inside one colour group no two constraints
//! share a particle, so constraint `i + 1` never reads what constraint `i` wrote: the corrections of
//! [`LANES`] consecutive volume constraints of a group can be computed side by side from the same
//! displacements and written back, and every particle ends up exactly as the one-at-a-time sweep leaves
//! it. [`VolumeLanes`] holds such a block with its rest data lane-major, so the arithmetic runs on SIMD
//! registers; the rest of a group (fewer than [`LANES`]) goes through the scalar [`VolumeHot`].
//!
//! Why two lanes, not four: the build targets baseline x86-64 (SSE2, 16 registers of two `f64`). With
//! `f64x4` (two SSE2 registers each) the projection's live values do not fit and spill: 219
//! instructions per projection (callgrind, N = 8) against 193 with `f64x2` and 285 scalar. `LANES` and
//! `W` are the only things to change for four lanes on a target with AVX.
//!
//! Why bit-identical: every lane performs the floating-point operations of [`VolumeHot::pbd`] and
//! [`VolumeHot::xpbd`] in the same order, as nalgebra 0.35 evaluates them for `Vector3<f64>`: `a.dot(b)`
//! is `(a.x b.x + a.y b.y) + a.z b.z` (`blas.rs`, `dotx`, the 3-vector case); `norm_squared` is
//! `0 + a.dot(a)`, and `0 + x` is `x` for the `+0`, positive, infinite or NaN sums of squares; `cross` is
//! `(a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x)`; `f * v` multiplies each component by `f`
//! (`v.x * f`); vector sums and differences are per component; negation flips the sign bit. Nothing is
//! fused (no `mul_add`; Rust does not contract on its own) and IEEE-754 addition, multiplication and
//! division are correctly rounded per lane, so each lane's result is the scalar result. The scalar early
//! returns (degenerate gradients in PBD, a denominator `<= 1e-300` in XPBD) become masks: a skipped
//! lane's correction is bitwise `+0.0` (the scalar `Vec3::zeros()`, which `u += 0` then applies, turning
//! a `-0.0` into `+0.0` as the scalar sweep does) and its multiplier keeps its old bits.

use wide::f64x2;

/// Constraints per block.
pub(crate) const LANES: usize = 2;
/// One `f64` per lane.
type W = f64x2;

use crate::Vec3;
use crate::constraints::VolumeHot;

/// [`LANES`] 3-vectors, one per lane, component-major.
#[derive(Debug, Clone, Copy)]
struct Lanes3 {
    x: W,
    y: W,
    z: W,
}

impl Lanes3 {
    /// `self + b` per component (nalgebra's vector addition).
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Self { x: self.x + b.x, y: self.y + b.y, z: self.z + b.z }
    }

    /// `self - b` per component.
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Self { x: self.x - b.x, y: self.y - b.y, z: self.z - b.z }
    }

    /// `f * self` as nalgebra computes it: each component times `f`.
    #[inline(always)]
    fn scale(self, f: W) -> Self {
        Self { x: self.x * f, y: self.y * f, z: self.z * f }
    }

    /// nalgebra's `Vector3::dot`: `(a.x b.x + a.y b.y) + a.z b.z`.
    #[inline(always)]
    fn dot(self, b: Self) -> W {
        self.x * b.x + self.y * b.y + self.z * b.z
    }

    /// nalgebra's `Vector3::cross`.
    #[inline(always)]
    fn cross(self, b: Self) -> Self {
        Self { x: self.y * b.z - self.z * b.y, y: self.z * b.x - self.x * b.z, z: self.x * b.y - self.y * b.x }
    }

    /// nalgebra's `norm_squared`, `0 + self.dot(self)`; the `0 +` is left out: a sum of squares is never
    /// `-0.0`, and `0 + x == x` bitwise for every other `x`.
    #[inline(always)]
    fn norm_squared(self) -> W {
        self.dot(self)
    }

    /// Each component bitwise AND `mask`: unchanged where the lane's mask is all ones, `+0.0` where it
    /// is zero.
    #[inline(always)]
    fn keep(self, mask: W) -> Self {
        Self { x: self.x & mask, y: self.y & mask, z: self.z & mask }
    }

    /// One constant 3-vector per lane.
    fn from_vectors(v: [Vec3; LANES]) -> Self {
        Self { x: W::new(v.map(|v| v.x)), y: W::new(v.map(|v| v.y)), z: W::new(v.map(|v| v.z)) }
    }

    /// `u` at one particle per lane.
    #[inline(always)]
    fn gather(u: &[Vec3], p: [usize; LANES]) -> Self {
        let v: [Vec3; LANES] = std::array::from_fn(|l| u[p[l]]);
        Self {
            x: W::new(std::array::from_fn(|l| v[l].x)),
            y: W::new(std::array::from_fn(|l| v[l].y)),
            z: W::new(std::array::from_fn(|l| v[l].z)),
        }
    }

    /// Writes lane `l` to `u[p[l]]`.
    #[inline(always)]
    fn scatter(self, u: &mut [Vec3], p: [usize; LANES]) {
        let (x, y, z) = (self.x.to_array(), self.y.to_array(), self.z.to_array());
        for l in 0..LANES {
            u[p[l]] = Vec3::new(x[l], y[l], z[l]);
        }
    }
}

/// [`LANES`] consecutive volume constraints of one colour group (no particle shared), lane `l` holding
/// the `l`-th: [`VolumeHot`]'s data, lane-major (336 bytes for two, as two `VolumeHot`s).
#[derive(Debug, Clone, Copy)]
pub(crate) struct VolumeLanes {
    /// `E1, E2, E3` (m).
    rest_edges: [Lanes3; 3],
    /// `E3 x E1`, `E1 x E2` (m^2).
    rest_cross: [Lanes3; 2],
    /// Inverse masses of vertex 0..3 (1/kg).
    inverse_masses: [W; 4],
    /// `particles[k][l]`: vertex `k` of lane `l`'s tetrahedron.
    particles: [[u32; LANES]; 4],
}

impl VolumeLanes {
    /// The constraints `c` side by side; they must share no particle (one colour group).
    pub(crate) fn new(c: &[VolumeHot; LANES]) -> Self {
        let lanes = |f: &dyn Fn(&VolumeHot) -> Vec3| Lanes3::from_vectors(c.each_ref().map(f));
        Self {
            rest_edges: [lanes(&|h| h.rest_edges[0]), lanes(&|h| h.rest_edges[1]), lanes(&|h| h.rest_edges[2])],
            rest_cross: [lanes(&|h| h.rest_cross[0]), lanes(&|h| h.rest_cross[1])],
            inverse_masses: [0, 1, 2, 3].map(|k| W::new(c.each_ref().map(|h| h.inverse_masses[k]))),
            particles: [0, 1, 2, 3].map(|k| c.each_ref().map(|h| h.particles[k])),
        }
    }

    /// The particles of vertex `k` in the lanes.
    #[inline(always)]
    fn vertex(&self, k: usize) -> [usize; LANES] {
        let p = self.particles[k];
        std::array::from_fn(|l| p[l] as usize)
    }

    /// [`VolumeHot::geometry`] per lane, plus the gathered displacements of the four vertices:
    /// `(u_k, 6 (V - V0), [g1, g2, g3], g1 + g2 + g3, sum_i w_i |g_i|^2)`.
    #[inline(always)]
    fn geometry(&self, u: &[Vec3]) -> ([Lanes3; 4], W, [Lanes3; 3], Lanes3, W) {
        let [e1, e2, e3] = self.rest_edges;
        // Written out: `array::map` with these closures is not always inlined.
        let uk = [
            Lanes3::gather(u, self.vertex(0)),
            Lanes3::gather(u, self.vertex(1)),
            Lanes3::gather(u, self.vertex(2)),
            Lanes3::gather(u, self.vertex(3)),
        ];
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
        (uk, six_dv, [g1, g2, g3], g0, s)
    }

    /// Writes `u_k + f_k g_k & keep` (`g_0 = g1 + g2 + g3`, `f_0 = -(f m0)`, `f_k = f m_k`) back, as the
    /// scalar sweep's `u[p] += dp` with `dp = (f m_k) g_k` or zero.
    #[inline(always)]
    fn apply(&self, u: &mut [Vec3], uk: [Lanes3; 4], g: [Lanes3; 3], g0: Lanes3, f: W, keep: W) {
        let [m0, m1, m2, m3] = self.inverse_masses;
        let dp = [g0.scale(-(f * m0)), g[0].scale(f * m1), g[1].scale(f * m2), g[2].scale(f * m3)];
        for k in 0..4 {
            uk[k].add(dp[k].keep(keep)).scatter(u, self.vertex(k));
        }
    }

    /// [`VolumeHot::pbd`] on every lane, applied to `u`.
    #[inline(always)]
    pub(crate) fn pbd(&self, u: &mut [Vec3], kk: f64, s_min: f64) {
        let (uk, six_dv, g, g0, s) = self.geometry(u);
        // The scalar `s.is_nan() || s <= s_min` returns zero: keep the other lanes.
        let keep = !(s.is_nan() | s.simd_le(W::splat(s_min)));
        let q = W::splat(-kk) * six_dv / s;
        self.apply(u, uk, g, g0, q, keep);
    }

    /// [`VolumeHot::xpbd`] on every lane, applied to `u`; `lambda` holds the lanes' multipliers.
    #[inline(always)]
    pub(crate) fn xpbd(&self, u: &mut [Vec3], scale: f64, alpha_tilde: f64, lambda: &mut [f64]) {
        let (uk, six_dv, g, g0, s) = self.geometry(u);
        let alpha = W::splat(alpha_tilde);
        let denominator = W::splat(scale * scale) * s + alpha;
        // The scalar `denominator <= 1e-300` returns zero and leaves the multiplier (a NaN goes on).
        let keep = !denominator.simd_le(W::splat(1e-300));
        let old = W::new(std::array::from_fn(|l| lambda[l]));
        let d_lambda = (-(six_dv / W::splat(6.0)) - alpha * old) / denominator;
        lambda.copy_from_slice(&keep.bitselect(old + d_lambda, old).to_array());
        self.apply(u, uk, g, g0, d_lambda * W::splat(scale), keep);
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::SceneSet;

    use super::*;
    use crate::{Dynamics, ModelKind, PbdSystem, RestOptions, Scale, SimParams};

    /// Bits of every coordinate, for exact comparison (`-0.0 != 0.0`, NaN compared by payload).
    fn bits(v: &[Vec3]) -> Vec<[u64; 3]> {
        v.iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect()
    }

    fn bits_of(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The kernel against [`VolumeHot`] on hand-made lanes: a regular tetrahedron, a collapsed one
    /// (zero gradients: PBD's degenerate branch, XPBD's zero denominator at `alpha~ = 0`), one with a NaN
    /// displacement, one with a held vertex; displacements with `-0.0` coordinates, which the scalar
    /// `u += 0` turns into `+0.0`.
    #[test]
    fn lanes_match_the_scalar_projection_bit_for_bit_including_degenerate_lanes() {
        let edges = [
            [Vec3::new(0.3, 0.01, -0.02), Vec3::new(0.05, 0.25, 0.0), Vec3::new(-0.01, 0.02, 0.2)],
            [Vec3::new(0.1, 0.0, 0.0), Vec3::new(0.0, 0.1, 0.0), Vec3::new(0.0, 0.0, 0.1)],
            [Vec3::new(0.2, 0.0, 0.1), Vec3::new(0.0, 0.3, 0.0), Vec3::new(0.1, 0.0, 0.2)],
            [Vec3::new(0.25, -0.03, 0.0), Vec3::new(0.0, 0.2, 0.04), Vec3::new(0.02, 0.0, 0.3)],
        ];
        let hot: [VolumeHot; 4] = std::array::from_fn(|l| {
            let [e1, e2, e3] = edges[l];
            VolumeHot {
                rest_edges: edges[l],
                rest_cross: [e3.cross(&e1), e1.cross(&e2)],
                inverse_masses: if l == 3 { [0.0, 2.0, 1.5, 3.0] } else { [1.0, 2.0, 0.5, 4.0] },
                // Lane l owns particles 4 l .. 4 l + 3, listed in a scrambled order.
                particles: [0, 1, 2, 3].map(|k| (4 * l + (k + l) % 4) as u32),
            }
        });
        let mut u: Vec<Vec3> =
            (0..16).map(|p| Vec3::new(1e-3 * p as f64 - 4e-3, -0.0, 2e-4 * (p * p % 7) as f64 - 5e-4)).collect();
        // Lane 1 collapsed: every vertex at vertex 0's position.
        let p = hot[1].particles.map(|p| p as usize);
        u[p[0]] = Vec3::new(-0.0, 0.0, -0.0);
        for k in 1..4 {
            u[p[k]] = u[p[0]] - edges[1][k - 1];
        }
        // Lane 2: a NaN coordinate.
        u[hot[2].particles[2] as usize].y = f64::NAN;
        // Lane 3: its held vertex 0 at -0.0.
        u[hot[3].particles[0] as usize] = Vec3::new(-0.0, -0.0, -0.0);
        let lanes: Vec<VolumeLanes> =
            hot.chunks_exact(LANES).map(|c| VolumeLanes::new(c.try_into().unwrap())).collect();
        let scalar_apply = |u: &mut Vec<Vec3>, f: &mut dyn FnMut(usize, &[Vec3]) -> [Vec3; 4]| {
            for l in 0..4 {
                let dp = f(l, u);
                for k in 0..4 {
                    u[hot[l].particles[k] as usize] += dp[k];
                }
            }
        };
        for (kk, s_min) in [(0.6 / 6.0, 1e-300), (0.6, 36e-300), (0.0, 1e-300)] {
            let mut scalar = u.clone();
            scalar_apply(&mut scalar, &mut |l, u| hot[l].pbd(u, kk, s_min));
            let mut wide = u.clone();
            for block in &lanes {
                block.pbd(&mut wide, kk, s_min);
            }
            assert_eq!(bits(&wide), bits(&scalar), "PBD kk = {kk}");
            // Lanes 1 (degenerate) and 3 (held vertex at -0.0) did turn -0.0 into +0.0.
            assert_eq!(scalar[hot[1].particles[0] as usize].x.to_bits(), 0.0f64.to_bits());
        }
        for (scale, alpha_tilde) in [(1.0 / 6.0, 0.0), (1.0 / 6.0, 2.5), (1.0, 1e-3)] {
            let start = [0.25, -0.0, 1e-3, -2.0];
            let mut scalar = u.clone();
            let mut scalar_lambda = start;
            scalar_apply(&mut scalar, &mut |l, u| hot[l].xpbd(u, scale, alpha_tilde, &mut scalar_lambda[l]));
            let mut wide = u.clone();
            let mut wide_lambda = start;
            for (block, lambda) in lanes.iter().zip(wide_lambda.chunks_exact_mut(LANES)) {
                block.xpbd(&mut wide, scale, alpha_tilde, lambda);
            }
            assert_eq!(bits(&wide), bits(&scalar), "XPBD alpha~ = {alpha_tilde}");
            assert_eq!(bits_of(&wide_lambda), bits_of(&scalar_lambda), "XPBD alpha~ = {alpha_tilde}");
            if alpha_tilde == 0.0 {
                assert_eq!(wide_lambda[1].to_bits(), (-0.0f64).to_bits(), "skipped lane keeps its multiplier");
            }
        }
    }

    /// Parameter points of a projection model: the stiff corner of its default box (stiffness 1,
    /// smallest compliance) and a soft point (stiffness 0.3, compliance at the box's log-midpoint).
    fn parameter_points(kind: ModelKind) -> [Vec<f64>; 2] {
        let point = |stiff: bool| {
            kind.parameters()
                .iter()
                .map(|p| match (p.scale, stiff) {
                    (Scale::Linear, true) => p.default_box.1,
                    (Scale::Linear, false) => 0.3 * p.default_box.1,
                    (Scale::Log10, true) => p.default_box.0,
                    (Scale::Log10, false) => (p.default_box.0 * p.default_box.1).sqrt(),
                })
                .collect()
        };
        [point(true), point(false)]
    }

    fn assert_same_dynamics(a: &Dynamics, b: &Dynamics, what: &str) {
        assert_eq!(bits(&a.u), bits(&b.u), "{what}: u");
        assert_eq!(bits(&a.v), bits(&b.v), "{what}: v");
        assert_eq!(bits_of(&a.lambda_distance), bits_of(&b.lambda_distance), "{what}: distance multipliers");
        assert_eq!(bits_of(&a.lambda_volume), bits_of(&b.lambda_volume), "{what}: volume multipliers");
    }

    /// Every projection model at stiff and soft parameters, nit 1 and 4, dt 0.01 and 0.001, on the three
    /// gravity scenes at N = 2 and 4: 50 steps (displacements, velocities, the last step's multipliers)
    /// and the fixed-point rest state are bit-identical with and without the volume lanes.
    #[test]
    fn sweeps_with_volume_lanes_are_bit_identical_to_the_scalar_sweep() {
        let kinds: Vec<ModelKind> = ModelKind::all().iter().copied().filter(|k| k.has_projection()).collect();
        // Every registered projection model, whatever the registry holds (a new model is tested here
        // without an edit); the two families are there.
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        assert!(names.contains(&"pbd") && names.contains(&"xpbd"), "{names:?}");
        // Capped so that the soft points' slow rest states stay cheap; the comparison is exact either way.
        let options = RestOptions { max_sweeps: 4000, max_map_evaluations: 1000, ..RestOptions::default() };
        let (mut cases, mut converged, mut lane_blocks) = (0, 0, 0);
        for scene in ["gravity-floor", "gravity-wall", "gravity-ceiling"] {
            for n in [2, 4] {
                let body = SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap();
                let scalar = PbdSystem::new(&body).with_volume_lanes(false);
                let lanes = PbdSystem::new(&body);
                // Lanes and the scalar remainder both run (N = 2: 34 of the 40 volume
                // constraints in 17 blocks; N = 4: 300 of 320 in 150).
                assert!(!lanes.volume_lanes.is_empty(), "{scene} N = {n}: no lane block");
                lane_blocks += lanes.volume_lanes.len();
                for &kind in &kinds {
                    for values in parameter_points(kind) {
                        for nit in [1, 4] {
                            for dt in [0.01, 0.001] {
                                let params = SimParams::new(dt, nit, kind.with(&values).unwrap());
                                let what = format!("{scene} N = {n}: {}, dt = {dt}, nit = {nit}", params.describe());
                                let (mut a, mut b) = (scalar.dynamics(), lanes.dynamics());
                                for step in 0..50 {
                                    let (sa, sb) = (scalar.step(&params, &mut a), lanes.step(&params, &mut b));
                                    assert_eq!(sa.to_bits(), sb.to_bits(), "{what}: step {step}");
                                }
                                assert_same_dynamics(&a, &b, &what);
                                let ra = scalar.rest_state(&params, &options, None);
                                let rb = lanes.rest_state(&params, &options, None);
                                match (ra, rb) {
                                    (Ok(ra), Ok(rb)) => {
                                        assert_eq!(bits(&ra.displacements), bits(&rb.displacements), "{what}: rest");
                                        assert_eq!(ra.iterations, rb.iterations, "{what}: rest sweeps");
                                        assert_eq!(ra.residual.to_bits(), rb.residual.to_bits(), "{what}");
                                        converged += ra.converged as usize;
                                    }
                                    (ra, rb) => assert_eq!(
                                        ra.map(|r| r.iterations).map_err(|e| e.to_string()),
                                        rb.map(|r| r.iterations).map_err(|e| e.to_string()),
                                        "{what}: rest"
                                    ),
                                }
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
        let points: usize = kinds.iter().map(|k| parameter_points(*k).len()).sum();
        assert_eq!(cases, 3 * 2 * points * 2 * 2);
        eprintln!("{cases} cases, {converged} converged rest states, {lane_blocks} lane blocks");
    }
}
