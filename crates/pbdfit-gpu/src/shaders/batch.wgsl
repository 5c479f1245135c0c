// Many simulations of one small mesh, each with its own parameters (methodology, section GPU: the second
// axis of parallelism). Prepended by constraints.wgsl and a header of mesh constants (batch.rs):
// NP particles, NF free particles, ND distances, NV volumes, NC = ND + NV, NL multipliers per simulation
// (NC, plus 2 NV when the batch has per-tetrahedron constraints), NG colour groups, TPS threads
// per simulation, SPW simulations per workgroup, WG = TPS * SPW, MAXOWN = ceil(NF / TPS), SPW_NP = SPW * NP,
// SPW_NC = SPW * NL, and offsets into mesh_u32 / geo.
//
// A workgroup holds SPW simulations; the two-float displacements of each (hi: at the start of the step,
// lo: the predicted change, see constraints.wgsl) live in workgroup memory, velocities and window
// snapshots in the registers of the lanes that own the particles. The groups are projected
// in creation order with a workgroup barrier after each, so inside a group the lanes of a simulation
// share no particle, exactly as the CPU's colouring guarantees. After each step a simulation checks
// itself for divergence, and every WINDOW steps for rest (window_test); a dispatch runs up to
// control.chunk_steps steps and stops early when every simulation of the workgroup is done, so the host
// reads back only a status per simulation per chunk.

struct Control {
    batch_size: u32,
    chunk_steps: u32,
    max_nit: u32,
    extent: f32,
}

// state: 0 running, 1 at rest, 2 diverged, 3 step cap reached.
struct Status {
    state: u32,
    steps: u32,
    residual: f32,
    largest: f32,
    // The last three windows' relative spreads, newest first (0: none yet).
    previous: vec3<f32>,
    // Largest relative per-step displacement of the current window.
    window_step: f32,
    // The current window's spread so far (absolute, m): kept across dispatches, so that a chunk that ends
    // inside a window does not restart the window's spread (the rest verdict then depended on where the
    // chunks ended, which follows the wall clock).
    window_delta: f32,
}

@group(0) @binding(0) var<uniform> control: Control;
@group(0) @binding(1) var<storage, read> sims: array<Sim>;
// Per simulation, per free particle, 5 vectors: hi and lo of u, v, hi and lo of the window snapshot.
@group(0) @binding(2) var<storage, read_write> state: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> status: array<Status>;
// free particle list, inverse masses (bits), group ranges, distance particles, volume particles.
@group(0) @binding(4) var<storage, read> mesh_u32: array<u32>;
// distance (rest edge, rest length), then volume (E1, E2, E3, E3 x E1, E1 x E2).
@group(0) @binding(5) var<storage, read> geo: array<f32>;

var<workgroup> hi: array<vec4<f32>, SPW_NP>;
var<workgroup> lo: array<vec4<f32>, SPW_NP>;
var<workgroup> lambdas: array<f32, SPW_NC>;
var<workgroup> slot_state: array<u32, SPW>;
var<workgroup> slot_steps: array<u32, SPW>;
var<workgroup> slot_residual: array<f32, SPW>;
var<workgroup> slot_previous: array<vec3<f32>, SPW>;
var<workgroup> slot_window_step: array<f32, SPW>;
var<workgroup> slot_largest: array<f32, SPW>;
var<workgroup> step_bits: array<atomic<u32>, SPW>;
var<workgroup> largest_bits: array<atomic<u32>, SPW>;
var<workgroup> delta_bits: array<atomic<u32>, SPW>;
var<workgroup> any_running: u32;

fn geo3(o: u32) -> vec3<f32> {
    return vec3<f32>(geo[o], geo[o + 1u], geo[o + 2u]);
}

fn project_distance(c: u32, pbase: u32, lbase: u32, rule: Rule) {
    let a = pbase + mesh_u32[OFF_DIST + 2u * c];
    let b = pbase + mesh_u32[OFF_DIST + 2u * c + 1u];
    let g = 4u * c;
    let la = lo[a];
    let lb = lo[b];
    let du = two_float_difference(hi[a].xyz, la.xyz, hi[b].xyz, lb.xyz);
    var lambda = lambdas[lbase + c];
    let r = distance_delta(geo3(g), geo[g + 3u], du, la.w, lb.w, rule, &lambda);
    if r.ok {
        lo[a] = vec4<f32>(la.xyz + r.d0, la.w);
        lo[b] = vec4<f32>(lb.xyz + r.d1, lb.w);
        lambdas[lbase + c] = lambda;
    }
}

// Tetrahedron c's four particles, their low parts (inverse masses in w) and the two-float displacements of
// p1, p2, p3 relative to p0 (two_float_difference): what every per-tetrahedron projection reads.
struct TetState {
    p: vec4<u32>,
    l0: vec4<f32>,
    l1: vec4<f32>,
    l2: vec4<f32>,
    l3: vec4<f32>,
    wa: vec3<f32>,
    wb: vec3<f32>,
    wc: vec3<f32>,
}

fn tet_state(c: u32, pbase: u32) -> TetState {
    let i = OFF_VOL + 4u * c;
    let p = vec4<u32>(pbase + mesh_u32[i], pbase + mesh_u32[i + 1u], pbase + mesh_u32[i + 2u], pbase + mesh_u32[i + 3u]);
    let h0 = hi[p.x].xyz;
    let l0 = lo[p.x];
    let l1 = lo[p.y];
    let l2 = lo[p.z];
    let l3 = lo[p.w];
    let wa = two_float_difference(h0, l0.xyz, hi[p.y].xyz, l1.xyz);
    let wb = two_float_difference(h0, l0.xyz, hi[p.z].xyz, l2.xyz);
    let wc = two_float_difference(h0, l0.xyz, hi[p.w].xyz, l3.xyz);
    return TetState(p, l0, l1, l2, l3, wa, wb, wc);
}

fn tet_masses(t: TetState) -> vec4<f32> {
    return vec4<f32>(t.l0.w, t.l1.w, t.l2.w, t.l3.w);
}

// Adds a projection's corrections to the tetrahedron's low parts.
fn apply_tet(t: TetState, r: VolumeDelta) {
    lo[t.p.x] = vec4<f32>(t.l0.xyz + r.d0, t.l0.w);
    lo[t.p.y] = vec4<f32>(t.l1.xyz + r.d1, t.l1.w);
    lo[t.p.z] = vec4<f32>(t.l2.xyz + r.d2, t.l2.w);
    lo[t.p.w] = vec4<f32>(t.l3.xyz + r.d3, t.l3.w);
}

fn project_volume(c: u32, pbase: u32, lbase: u32, rule: Rule, gradient_scale: f32) {
    let t = tet_state(c, pbase);
    let g = GEO_VOL + 15u * c;
    var lambda = lambdas[lbase + ND + c];
    let r = volume_delta(geo3(g), geo3(g + 3u), geo3(g + 6u), geo3(g + 9u), geo3(g + 12u),
                         t.wa, t.wb, t.wc, tet_masses(t), rule, gradient_scale, &lambda);
    if r.ok {
        apply_tet(t, r);
        lambdas[lbase + ND + c] = lambda;
    }
}

// Tetrahedron c's own constraints (after its volume constraint); their multipliers at NC + 2 c + j.
fn project_tetrahedra(c: u32, pbase: u32, lbase: u32, t0: TetTerm, t1: TetTerm) {
    let t = tet_state(c, pbase);
    let g = GEO_VOL + 15u * c;
    let li = lbase + NC + 2u * c;
    var lambda = vec2<f32>(lambdas[li], lambdas[li + 1u]);
    let r = tetrahedra_delta(geo3(g), geo3(g + 3u), geo3(g + 6u), geo3(g + 9u), geo3(g + 12u), t.wa, t.wb, t.wc,
                             tet_masses(t), t0, t1, &lambda);
    if r.ok {
        apply_tet(t, r);
        lambdas[li] = lambda.x;
        lambdas[li + 1u] = lambda.y;
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let slot = lid / TPS;
    let lane = lid % TPS;
    let s = wid.x * SPW + slot;
    let in_batch = s < control.batch_size;
    let si = min(s, control.batch_size - 1u);
    let sim = sims[si];
    let pbase = slot * NP;
    let lbase = slot * NL;
    let distance_rule = Rule(sim.xpbd, sim.distance_k);
    let volume_rule = Rule(sim.xpbd, sim.volume_k);
    let dt = sim.dv.w;

    // Held particles stay at u = 0 with inverse mass 0; free ones are loaded by their owners.
    for (var i = lane; i < NP; i += TPS) {
        hi[pbase + i] = vec4<f32>(0.0);
        lo[pbase + i] = vec4<f32>(0.0, 0.0, 0.0, bitcast<f32>(mesh_u32[OFF_MASS + i]));
    }
    workgroupBarrier();
    var own_lo: array<vec3<f32>, MAXOWN>;
    var own_v: array<vec3<f32>, MAXOWN>;
    var snap_hi: array<vec3<f32>, MAXOWN>;
    var snap_lo: array<vec3<f32>, MAXOWN>;
    for (var k = 0u; k < MAXOWN; k++) {
        let j = lane + k * TPS;
        if j < NF {
            let o = 5u * (si * NF + j);
            let p = pbase + mesh_u32[OFF_FREE + j];
            hi[p] = state[o];
            own_lo[k] = state[o + 1u].xyz;
            own_v[k] = state[o + 2u].xyz;
            snap_hi[k] = state[o + 3u].xyz;
            snap_lo[k] = state[o + 4u].xyz;
            lo[p] = vec4<f32>(own_lo[k], lo[p].w);
        }
    }
    if lane == 0u {
        var st = 4u;
        if in_batch {
            st = status[si].state;
        }
        slot_state[slot] = st;
        slot_steps[slot] = status[si].steps;
        slot_residual[slot] = status[si].residual;
        slot_previous[slot] = status[si].previous;
        slot_window_step[slot] = status[si].window_step;
        slot_largest[slot] = status[si].largest;
        atomicStore(&step_bits[slot], 0u);
        atomicStore(&largest_bits[slot], 0u);
        atomicStore(&delta_bits[slot], bitcast<u32>(status[si].window_delta));
    }
    workgroupBarrier();

    for (var n = 0u; n < control.chunk_steps; n++) {
        if lid == 0u {
            var any = 0u;
            for (var k = 0u; k < SPW; k++) {
                if slot_state[k] == 0u {
                    any = 1u;
                }
            }
            any_running = any;
        }
        if workgroupUniformLoad(&any_running) == 0u {
            break;
        }
        let run = slot_state[slot] == 0u;
        let window_end = (slot_steps[slot] + 1u) % WINDOW == 0u;
        // Prediction: v <- keep v + dt g, p <- u + dt v (into the lo part).
        if run {
            for (var k = 0u; k < MAXOWN; k++) {
                let j = lane + k * TPS;
                if j < NF {
                    let p = pbase + mesh_u32[OFF_FREE + j];
                    own_v[k] = own_v[k] * sim.keep + sim.dv.xyz;
                    lo[p] = vec4<f32>(own_lo[k] + own_v[k] * dt, lo[p].w);
                }
            }
            if sim.xpbd != 0u {
                for (var c = lane; c < NL; c += TPS) {
                    lambdas[lbase + c] = 0.0;
                }
            }
        }
        workgroupBarrier();
        for (var it = 0u; it < control.max_nit; it++) {
            let sweep = run && it < sim.nit;
            for (var g = 0u; g < NG; g++) {
                if sweep {
                    let r = OFF_GROUPS + 4u * g;
                    let d0 = mesh_u32[r];
                    let dn = mesh_u32[r + 1u];
                    let v0 = mesh_u32[r + 2u];
                    let vn = mesh_u32[r + 3u];
                    for (var t = lane; t < dn + vn; t += TPS) {
                        if t < dn {
                            if (sim.families & 1u) != 0u {
                                project_distance(d0 + t, pbase, lbase, distance_rule);
                            }
                        } else {
                            if (sim.families & 2u) != 0u {
                                project_volume(v0 + t - dn, pbase, lbase, volume_rule, sim.gradient_scale);
                            }
                            let t0 = tet_term(sim, 0u);
                            let t1 = tet_term(sim, 1u);
                            if t0.code != 0u || t1.code != 0u {
                                project_tetrahedra(v0 + t - dn, pbase, lbase, t0, t1);
                            }
                        }
                    }
                }
                workgroupBarrier();
            }
        }
        // Velocity update: v <- (p - u) / dt, u <- p renormalised to hi + lo.
        if run {
            var step_max = 0u;
            var largest_max = 0u;
            var delta_max = 0u;
            for (var k = 0u; k < MAXOWN; k++) {
                let j = lane + k * TPS;
                if j < NF {
                    let p = pbase + mesh_u32[OFF_FREE + j];
                    let predicted = lo[p];
                    let step = predicted.xyz - own_lo[k];
                    own_v[k] = step / dt;
                    let u = two_sum(hi[p].xyz, predicted.xyz);
                    hi[p] = vec4<f32>(u.hi, 0.0);
                    own_lo[k] = u.lo;
                    lo[p] = vec4<f32>(u.lo, predicted.w);
                    step_max = max(step_max, bitcast<u32>(length(step)));
                    largest_max = max(largest_max, bitcast<u32>(length(u.hi)));
                    let change = two_float_difference(snap_hi[k], snap_lo[k], u.hi, u.lo);
                    delta_max = max(delta_max, bitcast<u32>(length(change)));
                    if window_end {
                        snap_hi[k] = u.hi;
                        snap_lo[k] = u.lo;
                    }
                }
            }
            atomicMax(&step_bits[slot], step_max);
            atomicMax(&largest_bits[slot], largest_max);
            atomicMax(&delta_bits[slot], delta_max);
        }
        workgroupBarrier();
        // Divergence every step, the window rest test every WINDOW steps (integer comparisons of the
        // bit patterns catch NaN and infinity whatever the compiler assumes about floats).
        if run && lane == 0u {
            let sb = atomicLoad(&step_bits[slot]);
            let lb = atomicLoad(&largest_bits[slot]);
            var delta = bitcast<f32>(atomicLoad(&delta_bits[slot]));
            atomicStore(&step_bits[slot], 0u);
            atomicStore(&largest_bits[slot], 0u);
            if window_end {
                atomicStore(&delta_bits[slot], 0u);
            }
            let largest = bitcast<f32>(lb);
            let steps = slot_steps[slot] + 1u;
            slot_steps[slot] = steps;
            slot_largest[slot] = largest;
            if lb > bitcast<u32>(control.extent) || sb > 0x7f800000u {
                slot_state[slot] = 2u;
            } else {
                var step = bitcast<f32>(sb);
                if largest > 0.0 {
                    step = step / largest;
                }
                slot_window_step[slot] = max(slot_window_step[slot], step);
                if window_end {
                    if largest > 0.0 {
                        delta = delta / largest;
                    }
                    let test = window_test(delta, slot_previous[slot], slot_window_step[slot], sim.tolerance);
                    slot_previous[slot] = test.previous;
                    slot_window_step[slot] = 0.0;
                    slot_residual[slot] = test.estimate;
                    if test.at_rest {
                        slot_state[slot] = 1u;
                    }
                }
                if slot_state[slot] == 0u && steps >= sim.max_steps {
                    slot_state[slot] = 3u;
                }
            }
        }
        workgroupBarrier();
    }

    if in_batch {
        for (var k = 0u; k < MAXOWN; k++) {
            let j = lane + k * TPS;
            if j < NF {
                let o = 5u * (si * NF + j);
                let p = pbase + mesh_u32[OFF_FREE + j];
                state[o] = vec4<f32>(hi[p].xyz, 0.0);
                state[o + 1u] = vec4<f32>(own_lo[k], 0.0);
                state[o + 2u] = vec4<f32>(own_v[k], 0.0);
                state[o + 3u] = vec4<f32>(snap_hi[k], 0.0);
                state[o + 4u] = vec4<f32>(snap_lo[k], 0.0);
            }
        }
        if lane == 0u {
            status[si] = Status(slot_state[slot], slot_steps[slot], slot_residual[slot], slot_largest[slot],
                                slot_previous[slot], slot_window_step[slot],
                                bitcast<f32>(atomicLoad(&delta_bits[slot])));
        }
    }
}
