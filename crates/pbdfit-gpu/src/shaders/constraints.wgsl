// Constraint projections in displacement form, f32: a port of pbdfit-pbd's sweep (constraints.rs,
// DistanceHot and VolumeHot; methodology, section PBD model), the same formulas, guards and order of
// operations, with f32 thresholds.
//
// Data layout (written by layout.rs):
//   distance c: particles (2 u32), geometry (rest edge X2 - X1, rest length)
//   volume c:   particles (4 u32), geometry E1, E2, E3, E3 x E1, E1 x E2 (15 f32, computed in f64)
// Displacements are two-float numbers (see two_sum below); the inverse mass travels in the w component
// of the low part, so it costs no extra read.

// Smallest |d| and sum w |g|^2 treated as non-degenerate. The f64 path uses 1e-300; f32's smallest
// normal number is 1.2e-38.
const TINY: f32 = 1e-30;

// A projection rule for one constraint type (layout.rs, sim_words): for PBD `k` is kd for distances and
// kk = kv / (6 scale) for volumes; for XPBD it is alpha / dt^2. `xpbd` is 0 for PBD, else XPBD with the
// distance constraint function whose code (SpringPotential::code, 1 = POTENTIAL_STRETCH) it holds.
struct Rule {
    xpbd: u32,
    k: f32,
}

struct DistanceDelta {
    ok: bool,
    d0: vec3<f32>,
    d1: vec3<f32>,
}

// C = |p2 - p1| - l0 = (2 e.du + du.du) / (|d| + l0), free of cancellation; du = u2 - u1
// (two_float_difference), w0, w1 the inverse masses. PBD: g = k C / (|d| (w0 + w1)), dp1 = g w0 d,
// dp2 = -g w1 d (one square root, one division, as DistanceHot::pbd).
fn distance_delta(e: vec3<f32>, rest_length: f32, du: vec3<f32>, w0: f32, w1: f32, rule: Rule,
                  lambda: ptr<function, f32>) -> DistanceDelta {
    let d = e + du;
    let numerator = 2.0 * dot(e, du) + dot(du, du);
    let length = sqrt(dot(d, d));
    let w = w0 + w1;
    if rule.xpbd == 0u {
        if length < TINY || w <= TINY {
            return DistanceDelta(false, vec3<f32>(0.0), vec3<f32>(0.0));
        }
        let g = rule.k * numerator / ((length + rest_length) * length * w);
        return DistanceDelta(true, (g * w0) * d, -(g * w1) * d);
    }
    if rule.xpbd != POTENTIAL_STRETCH {
        return potential_delta(d, numerator, length, rest_length, w0, w1, rule, lambda);
    }
    let denominator = w + rule.k;
    if length < TINY || denominator <= TINY {
        return DistanceDelta(false, vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let c = numerator / (length + rest_length);
    let n = d / length;
    let d_lambda = (-c - rule.k * *lambda) / denominator;
    *lambda = *lambda + d_lambda;
    return DistanceDelta(true, -(d_lambda * w0) * n, (d_lambda * w1) * n);
}

// XPBD with an energy-form distance constraint (rule.xpbd: the potential's code; DistanceHot::xpbd_potential):
// C and the gradient gamma n with respect to p2, from stretch = l - l0 and numerator = l^2 - l0^2, by
// potential_value, which the host generates from pbdfit-pbd's potentials/ (one file per potential, the
// CPU's value beside its WGSL) and puts before this file. Skipped when the denominator
// (w0 + w1) gamma^2 + alpha~ is 0 (at rest with alpha = 0) or the edge has collapsed.
fn potential_delta(d: vec3<f32>, numerator: f32, length: f32, rest_length: f32, w0: f32, w1: f32, rule: Rule,
                   lambda: ptr<function, f32>) -> DistanceDelta {
    if length < TINY {
        return DistanceDelta(false, vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let stretch = numerator / (length + rest_length);
    let value = potential_value(rule.xpbd, stretch, numerator, length, rest_length);
    let c = value.x;
    let gamma = value.y;
    let denominator = (w0 + w1) * gamma * gamma + rule.k;
    if denominator <= TINY {
        return DistanceDelta(false, vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let n = d * (gamma / length);
    let d_lambda = (-c - rule.k * *lambda) / denominator;
    *lambda = *lambda + d_lambda;
    return DistanceDelta(true, -(d_lambda * w0) * n, (d_lambda * w1) * n);
}

struct VolumeDelta {
    ok: bool,
    d0: vec3<f32>,
    d1: vec3<f32>,
    d2: vec3<f32>,
    d3: vec3<f32>,
}

// C = V - V0 with W_k = u_k - u_0, d_k = E_k + W_k, the library's gradients g1 = d2 x d3, g2 = d3 x d1,
// g3 = d1 x d2, g0 = -(g1 + g2 + g3), and 6 (V - V0) = W1.g1 + W2.(E3 x E1) + W3.(E1 x E2) + E1.(W2 x W3)
// (exact; every term is of first or higher order in the displacements). m: the four inverse masses;
// scale: 1 for the library's 6 dV/dp gradients, 1/6 for dV/dp (VolumeHot::pbd and ::xpbd).
fn volume_delta(e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>, c12: vec3<f32>,
                wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, m: vec4<f32>, rule: Rule, scale: f32,
                lambda: ptr<function, f32>) -> VolumeDelta {
    let da = e1 + wa;
    let db = e2 + wb;
    let dc = e3 + wc;
    let g1 = cross(db, dc);
    let g2 = cross(dc, da);
    let g3 = cross(da, db);
    let six_dv = dot(wa, g1) + dot(wb, c31) + dot(wc, c12) + dot(e1, cross(wb, wc));
    let g0 = g1 + g2 + g3;
    let s = m.x * dot(g0, g0) + m.y * dot(g1, g1) + m.z * dot(g2, g2) + m.w * dot(g3, g3);
    var f: f32;
    if rule.xpbd == 0u {
        if !(s > TINY / (scale * scale)) {
            return VolumeDelta(false, vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        }
        f = -rule.k * six_dv / s;
    } else {
        let denominator = scale * scale * s + rule.k;
        if denominator <= TINY {
            return VolumeDelta(false, vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        }
        let d_lambda = (-(six_dv / 6.0) - rule.k * *lambda) / denominator;
        *lambda = *lambda + d_lambda;
        f = d_lambda * scale;
    }
    return VolumeDelta(true, -(f * m.x) * g0, (f * m.y) * g1, (f * m.z) * g2, (f * m.w) * g3);
}

// XPBD projection of a simulation's per-tetrahedron constraints, solved together per tetrahedron
// (VolumeHot::xpbd_tetrahedra): C_j and the gradients of particles 1 to 3 from tetrahedron_value, which the
// host generates from pbdfit-pbd's tetrahedra/ (one file per constraint, the CPU's value beside its WGSL)
// and puts before this file; particle 0's gradient is -(g1 + g2 + g3). One constraint:
// d_lambda = (-C - alpha~ lambda) / (sum w |g|^2 + alpha~); two: the 2 x 2 system
// sum_k (sum_i w_i g_ji . g_ki + alpha~_j delta_jk) d_lambda_k = -C_j - alpha~_j lambda_j by Cramer's rule,
// with the Cauchy-Schwarz part of the determinant clamped at 0. Skipped when singular; a NaN C (an
// unknown code) passes through to the divergence test.
struct Gradients {
    g0: vec3<f32>,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
}

fn weighted(a: Gradients, b: Gradients, m: vec4<f32>) -> f32 {
    return m.x * dot(a.g0, b.g0) + m.y * dot(a.g1, b.g1) + m.z * dot(a.g2, b.g2) + m.w * dot(a.g3, b.g3);
}

fn tetrahedra_delta(e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>, c12: vec3<f32>,
                    wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, m: vec4<f32>, t0: TetTerm, t1: TetTerm,
                    lambda: ptr<function, vec2<f32>>) -> VolumeDelta {
    var c = vec2<f32>(0.0);
    var ga = Gradients(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    var gb = ga;
    if t0.code != 0u {
        let v = tetrahedron_value(t0.code, e1, e2, e3, c31, c12, wa, wb, wc, t0.constant);
        c.x = v.c;
        ga = Gradients(-(v.g1 + v.g2 + v.g3), v.g1, v.g2, v.g3);
    }
    if t1.code != 0u {
        let v = tetrahedron_value(t1.code, e1, e2, e3, c31, c12, wa, wb, wc, t1.constant);
        c.y = v.c;
        gb = Gradients(-(v.g1 + v.g2 + v.g3), v.g1, v.g2, v.g3);
    }
    let b = -c - vec2<f32>(t0.k, t1.k) * *lambda;
    var d = vec2<f32>(0.0);
    let none = VolumeDelta(false, vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    if t0.code != 0u && t1.code != 0u {
        let s00 = weighted(ga, ga, m);
        let s01 = weighted(ga, gb, m);
        let s11 = weighted(gb, gb, m);
        let det = max(s00 * s11 - s01 * s01, 0.0) + t0.k * s11 + t1.k * s00 + t0.k * t1.k;
        if !(det > TINY) && b.x == b.x && b.y == b.y {
            return none;
        }
        d = vec2<f32>(((s11 + t1.k) * b.x - s01 * b.y) / det, ((s00 + t0.k) * b.y - s01 * b.x) / det);
    } else if t0.code != 0u {
        let denominator = weighted(ga, ga, m) + t0.k;
        if !(denominator > TINY) && b.x == b.x {
            return none;
        }
        d.x = b.x / denominator;
    } else {
        let denominator = weighted(gb, gb, m) + t1.k;
        if !(denominator > TINY) && b.y == b.y {
            return none;
        }
        d.y = b.y / denominator;
    }
    *lambda = *lambda + d;
    return VolumeDelta(true, (d.x * m.x) * ga.g0 + (d.y * m.x) * gb.g0, (d.x * m.y) * ga.g1 + (d.y * m.y) * gb.g1,
                       (d.x * m.z) * ga.g2 + (d.y * m.z) * gb.g2, (d.x * m.w) * ga.g3 + (d.y * m.w) * gb.g3);
}

// Two-float displacements. A displacement is hi + lo, two f32 numbers: hi is the displacement at the
// start of the step (rounded), lo what the step has added since. Projections add their corrections to
// lo, so the rounding of each addition is relative to the step's own motion, not to the displacement
// (which near rest is orders of magnitude larger): the f32 state then carries the displacement to
// about 1e-14 relative, and only the constraint arithmetic itself is f32 (relative 1e-7 of each
// correction). Without this the rest state of soft parameters drifts by ~1e-5 relative (measured).

// u2 - u1 for two-float displacements.
fn two_float_difference(hi1: vec3<f32>, lo1: vec3<f32>, hi2: vec3<f32>, lo2: vec3<f32>) -> vec3<f32> {
    return (hi2 - hi1) + (lo2 - lo1);
}

struct TwoFloat {
    hi: vec3<f32>,
    lo: vec3<f32>,
}

// Knuth's TwoSum: hi = fl(a + b), lo = the exact rounding error, so hi + lo == a + b exactly.
fn two_sum(a: vec3<f32>, b: vec3<f32>) -> TwoFloat {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    return TwoFloat(s, err);
}

// Per-simulation parameters: `struct Sim`, generated before this file from layout.rs's SIM_FIELDS.

// A per-tetrahedron term of the simulation: (code, alpha~, constant) of term j (0 or 1).
struct TetTerm {
    code: u32,
    k: f32,
    constant: f32,
}

fn tet_term(s: Sim, j: u32) -> TetTerm {
    if j == 0u {
        return TetTerm(s.tet_code0, s.tet_k0, s.tet_constant0);
    }
    return TetTerm(s.tet_code1, s.tet_k1, s.tet_constant1);
}

// The rest test, shared by both kernels, on windows of WINDOW steps. Per window: its spread
// delta = max over the window's steps of max_i |u_i - u_i(window start)| / max_i |u_i|, and its largest
// per-step displacement step_max (relative likewise). A per-step test alone (pbdfit-pbd's stepping test)
// stops at turning points of oscillations, where the velocity passes through zero far from rest; a
// window's end-to-end change alone vanishes when the window spans a period of an oscillation
// (measured: both stopped points at 1e-4 relative error). The spread cannot vanish while anything
// still moves. If the last windows' spreads shrink geometrically with ratios at most q < 1, the
// distance to rest is at most about delta q / (1 - q) (the geometric tail): at rest when that estimate
// is within the tolerance and no step of the window moved more than max(tolerance, NOISE_FLOOR).
// Taking the largest of the last three ratios keeps the first windows, where fast transients make the
// ratio look small, from stopping a slow mode early. When the spreads no longer shrink and all stay
// below NOISE_FLOOR, the state wanders at f32 resolution: it is as close to rest as f32 constraint
// arithmetic allows (measured: ~1e-7 relative), and is reported at rest too.
const WINDOW: u32 = 61u;
const NOISE_FLOOR: f32 = 1e-6;

struct WindowTest {
    at_rest: bool,
    // Estimated relative distance to rest (or the largest recent spread at the noise floor).
    estimate: f32,
    // The last three windows' spreads, newest first (0: none yet), for the next test.
    previous: vec3<f32>,
}

// delta: this window's relative spread; previous: the last three windows' spreads, newest first;
// step_max: the window's largest relative per-step displacement.
fn window_test(delta: f32, previous: vec3<f32>, step_max: f32, tolerance: f32) -> WindowTest {
    let shifted = vec3<f32>(delta, previous.x, previous.y);
    if delta == 0.0 {
        return WindowTest(true, 0.0, shifted);
    }
    if previous.z <= 0.0 || step_max > max(tolerance, NOISE_FLOOR) {
        return WindowTest(false, delta, shifted);
    }
    let q = max(delta / previous.x, max(previous.x / previous.y, previous.y / previous.z));
    if q < 1.0 {
        let estimate = delta * q / (1.0 - q);
        return WindowTest(estimate <= tolerance, estimate, shifted);
    }
    let recent = max(delta, max(previous.x, previous.y));
    return WindowTest(recent <= NOISE_FLOOR, recent, shifted);
}
