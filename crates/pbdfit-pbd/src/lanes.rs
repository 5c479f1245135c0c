//! The lane type the volume projection is written for once: one `f64` (the scalar sweep) or [`LANES`]
//! of them side by side (the serial sweep's SIMD blocks), as rapier writes its constraints once for
//! scalar and SIMD.
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
//! Why bit-identical, by construction: the projection rule is one generic function,
//! [`VolumeRest::pbd`] and [`VolumeRest::xpbd`] (`constraints.rs`), instantiated with `L = f64` by
//! [`VolumeHot`] and with `L = W` by [`VolumeLanes`], so both perform the same operations in the same
//! order: IEEE-754 addition, subtraction, multiplication, division and negation are correctly rounded
//! per lane, and nothing is fused (no `mul_add` in [`Lane`]; Rust does not contract on its own). The
//! scalar early returns (degenerate gradients in PBD, a denominator `<= 1e-300` in XPBD) are masks for
//! both: a skipped constraint's correction is `+0.0` ([`Lane::keep`]), which `u += 0` then applies
//! (turning a `-0.0` into `+0.0`), and its multiplier keeps its old bits ([`Lane::select`]). The 3-vector
//! arithmetic ([`V3`]) is written as nalgebra 0.35 evaluates it for `Vector3<f64>`, which the sweep's other
//! projections use: `a.dot(b)` is `(a.x b.x + a.y b.y) + a.z b.z` (`blas.rs`, `dotx`, the 3-vector
//! case); `norm_squared` is `0 + a.dot(a)`, and `0 + x` is `x` for the `+0`, positive, infinite or NaN
//! sums of squares; `cross` is `(a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x)`; `f * v`
//! multiplies each component by `f` (`v.x * f`); vector sums and differences are per component.

use std::ops::{Add, BitOr, Div, Mul, Neg, Not, Sub};

use wide::f64x2;

use crate::Vec3;
use crate::constraints::{VolumeHot, VolumeRest};

/// Constraints per block.
pub(crate) const LANES: usize = 2;
/// One `f64` per lane.
type W = f64x2;

/// The arithmetic a projection rule uses, on one `f64` or on one `f64` per lane. Every operation is
/// the correctly rounded IEEE-754 one, per lane; there is deliberately no fused multiply-add.
pub(crate) trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    /// A truth value per lane (`bool` for `f64`).
    type Mask: Copy + Not<Output = Self::Mask> + BitOr<Output = Self::Mask>;

    /// `x` in every lane.
    fn splat(x: f64) -> Self;

    /// `self <= b` per lane (false where either is NaN).
    fn le(self, b: Self) -> Self::Mask;

    /// Whether each lane is NaN.
    fn is_nan(self) -> Self::Mask;

    /// `self` where `keep` holds, `+0.0` elsewhere.
    fn keep(self, keep: Self::Mask) -> Self;

    /// `a` where `m` holds, `b` elsewhere (bit for bit).
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

impl Lane for f64 {
    type Mask = bool;

    #[inline(always)]
    fn splat(x: f64) -> Self {
        x
    }

    #[inline(always)]
    fn le(self, b: Self) -> bool {
        self <= b
    }

    #[inline(always)]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }

    #[inline(always)]
    fn keep(self, keep: bool) -> Self {
        if keep { self } else { 0.0 }
    }

    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
}

/// Masks are all-ones or all-zeros lanes (wide's comparisons).
impl Lane for W {
    type Mask = W;

    #[inline(always)]
    fn splat(x: f64) -> Self {
        W::splat(x)
    }

    #[inline(always)]
    fn le(self, b: Self) -> W {
        self.simd_le(b)
    }

    #[inline(always)]
    fn is_nan(self) -> W {
        W::is_nan(self)
    }

    /// Bitwise AND: unchanged where the mask is all ones, `+0.0` where it is zero.
    #[inline(always)]
    fn keep(self, keep: W) -> Self {
        self & keep
    }

    #[inline(always)]
    fn select(m: W, a: Self, b: Self) -> Self {
        m.bitselect(a, b)
    }
}

/// A 3-vector of lanes, component-major (for `f64`: one vector).
#[derive(Debug, Clone, Copy)]
pub(crate) struct V3<L> {
    pub x: L,
    pub y: L,
    pub z: L,
}

impl<L: Lane> V3<L> {
    /// `self + b` per component (nalgebra's vector addition).
    #[inline(always)]
    pub fn add(self, b: Self) -> Self {
        Self { x: self.x + b.x, y: self.y + b.y, z: self.z + b.z }
    }

    /// `self - b` per component.
    #[inline(always)]
    pub fn sub(self, b: Self) -> Self {
        Self { x: self.x - b.x, y: self.y - b.y, z: self.z - b.z }
    }

    /// `f * self` as nalgebra computes it: each component times `f`.
    #[inline(always)]
    pub fn scale(self, f: L) -> Self {
        Self { x: self.x * f, y: self.y * f, z: self.z * f }
    }

    /// nalgebra's `Vector3::dot`: `(a.x b.x + a.y b.y) + a.z b.z`.
    #[inline(always)]
    pub fn dot(self, b: Self) -> L {
        self.x * b.x + self.y * b.y + self.z * b.z
    }

    /// nalgebra's `Vector3::cross`.
    #[inline(always)]
    pub fn cross(self, b: Self) -> Self {
        Self { x: self.y * b.z - self.z * b.y, y: self.z * b.x - self.x * b.z, z: self.x * b.y - self.y * b.x }
    }

    /// nalgebra's `norm_squared`, `0 + self.dot(self)`; the `0 +` is left out: a sum of squares is never
    /// `-0.0`, and `0 + x == x` bitwise for every other `x`.
    #[inline(always)]
    pub fn norm_squared(self) -> L {
        self.dot(self)
    }

    /// Each component where `keep` holds, `+0.0` elsewhere.
    #[inline(always)]
    pub fn keep(self, keep: L::Mask) -> Self {
        Self { x: self.x.keep(keep), y: self.y.keep(keep), z: self.z.keep(keep) }
    }
}

impl From<Vec3> for V3<f64> {
    #[inline(always)]
    fn from(v: Vec3) -> Self {
        Self { x: v.x, y: v.y, z: v.z }
    }
}

impl From<V3<f64>> for Vec3 {
    #[inline(always)]
    fn from(v: V3<f64>) -> Self {
        Vec3::new(v.x, v.y, v.z)
    }
}

impl V3<W> {
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
    /// Rest edges, rest cross products and inverse masses, one constraint per lane.
    rest: VolumeRest<W>,
    /// `particles[k][l]`: vertex `k` of lane `l`'s tetrahedron.
    particles: [[u32; LANES]; 4],
}

impl VolumeLanes {
    /// The constraints `c` side by side; they must share no particle (one colour group).
    pub(crate) fn new(c: &[VolumeHot; LANES]) -> Self {
        let lanes = |f: &dyn Fn(&VolumeHot) -> Vec3| V3::from_vectors(c.each_ref().map(f));
        Self {
            rest: VolumeRest {
                rest_edges: [lanes(&|h| h.rest_edges[0]), lanes(&|h| h.rest_edges[1]), lanes(&|h| h.rest_edges[2])],
                rest_cross: [lanes(&|h| h.rest_cross[0]), lanes(&|h| h.rest_cross[1])],
                inverse_masses: [0, 1, 2, 3].map(|k| W::new(c.each_ref().map(|h| h.inverse_masses[k]))),
            },
            particles: [0, 1, 2, 3].map(|k| c.each_ref().map(|h| h.particles[k])),
        }
    }

    /// The particles of vertex `k` in the lanes.
    #[inline(always)]
    fn vertex(&self, k: usize) -> [usize; LANES] {
        let p = self.particles[k];
        std::array::from_fn(|l| p[l] as usize)
    }

    /// The displacements of the four vertices, one tetrahedron per lane.
    #[inline(always)]
    fn gather(&self, u: &[Vec3]) -> [V3<W>; 4] {
        // Written out: `array::map` with these closures is not always inlined.
        [
            V3::gather(u, self.vertex(0)),
            V3::gather(u, self.vertex(1)),
            V3::gather(u, self.vertex(2)),
            V3::gather(u, self.vertex(3)),
        ]
    }

    /// Writes `u_k + dp_k` back, as the scalar sweep's `u[p] += dp`.
    #[inline(always)]
    fn apply(&self, u: &mut [Vec3], uk: [V3<W>; 4], dp: [V3<W>; 4]) {
        for k in 0..4 {
            uk[k].add(dp[k]).scatter(u, self.vertex(k));
        }
    }

    /// [`VolumeRest::pbd`] on every lane, applied to `u`.
    #[inline(always)]
    pub(crate) fn pbd(&self, u: &mut [Vec3], kk: f64, s_min: f64) {
        let uk = self.gather(u);
        let dp = self.rest.pbd(&uk, kk, s_min);
        self.apply(u, uk, dp);
    }

    /// [`VolumeRest::xpbd`] on every lane, applied to `u`; `lambda` holds the lanes' multipliers.
    #[inline(always)]
    pub(crate) fn xpbd(&self, u: &mut [Vec3], scale: f64, alpha_tilde: f64, lambda: &mut [f64]) {
        let uk = self.gather(u);
        let mut l = W::new(std::array::from_fn(|i| lambda[i]));
        let dp = self.rest.xpbd(&uk, scale, alpha_tilde, &mut l);
        lambda.copy_from_slice(&l.to_array());
        self.apply(u, uk, dp);
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
        let kinds: Vec<ModelKind> = ModelKind::all()
            .iter()
            .copied()
            .filter(|k| k.has_projection() && k.body_kind() == crate::BodyKind::Solid)
            .collect();
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
                assert!(!lanes.projection.volume_lanes.is_empty(), "{scene} N = {n}: no lane block");
                lane_blocks += lanes.projection.volume_lanes.len();
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
