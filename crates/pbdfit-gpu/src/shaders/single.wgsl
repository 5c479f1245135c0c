// One large mesh: one thread per particle or constraint, one dispatch per colour group
// (methodology, section GPU). Prepended by constraints.wgsl.
//
// Per step the host records: predict, nit x (project for every group, in creation order), velocity, and
// for rest-state runs check. Every kernel returns at once when stats.status is not 0 (running), so the
// host can record many steps ahead and the device stops by itself at rest.

struct Mesh {
    particle_count: u32,
    free_count: u32,
    distance_count: u32,
    volume_count: u32,
    // Largest extent of the body (m): a displacement beyond it counts as divergence.
    extent: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct GroupRange {
    distance_start: u32,
    distance_count: u32,
    volume_start: u32,
    volume_count: u32,
}

// status: 0 running, 1 at rest, 2 diverged, 3 step cap reached.
struct Stats {
    step_bits: atomic<u32>,
    largest_bits: atomic<u32>,
    delta_bits: atomic<u32>,
    status: u32,
    steps: u32,
    // Estimated relative distance to rest (window_test).
    residual: f32,
    largest: f32,
    // Largest relative per-step displacement of the current window.
    window_step: f32,
    // The last three windows' relative spreads, newest first (0: none yet).
    previous: vec3<f32>,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<uniform> mesh: Mesh;
// Blocks of np vectors: [0] hi part of u, [1] lo part of u (w: inverse mass), [2] v, [3] lo part of the
// predicted u (w: inverse mass; its hi part is [0]), [4] hi and [5] lo of u at the last window's end.
@group(0) @binding(2) var<storage, read_write> state: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> free_particles: array<u32>;
@group(0) @binding(4) var<storage, read> dist_idx: array<u32>;
@group(0) @binding(5) var<storage, read> dist_geo: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> vol_idx: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read> vol_geo: array<f32>;
// XPBD multipliers: distances, then volumes, then two per tetrahedron for its own constraints.
@group(0) @binding(8) var<storage, read_write> lambdas: array<f32>;
@group(0) @binding(9) var<storage, read_write> stats: Stats;
@group(1) @binding(0) var<uniform> group_range: GroupRange;

// v <- keep v + dt g, p <- u + dt v for free particles; XPBD multipliers reset; step statistics reset.
@compute @workgroup_size(64)
fn predict(@builtin(global_invocation_id) gid: vec3<u32>) {
    if stats.status != 0u {
        return;
    }
    let i = gid.x;
    let np = mesh.particle_count;
    if i < mesh.free_count {
        let p = free_particles[i];
        let lo = state[np + p];
        let v = state[2u * np + p].xyz * sim.keep + sim.dv.xyz;
        state[2u * np + p] = vec4<f32>(v, 0.0);
        state[3u * np + p] = vec4<f32>(lo.xyz + v * sim.dv.w, lo.w);
    }
    if i < mesh.distance_count + mesh.volume_count {
        lambdas[i] = 0.0;
    }
    if i < mesh.volume_count {
        let t = mesh.distance_count + mesh.volume_count + 2u * i;
        lambdas[t] = 0.0;
        lambdas[t + 1u] = 0.0;
    }
    if i == 0u {
        atomicStore(&stats.step_bits, 0u);
        atomicStore(&stats.largest_bits, 0u);
    }
}

// One colour group: threads [0, distance_count) project distances, the next volume_count threads volumes
// and then their tetrahedra's own constraints (sim.families and the tetrahedron terms say which).
@compute @workgroup_size(64)
fn project(@builtin(global_invocation_id) gid: vec3<u32>) {
    if stats.status != 0u {
        return;
    }
    let t = gid.x;
    let o = 3u * mesh.particle_count;
    if t < group_range.distance_count {
        if (sim.families & 1u) == 0u {
            return;
        }
        let c = group_range.distance_start + t;
        let a = dist_idx[2u * c];
        let b = dist_idx[2u * c + 1u];
        let geo = dist_geo[c];
        let la = state[o + a];
        let lb = state[o + b];
        let du = two_float_difference(state[a].xyz, la.xyz, state[b].xyz, lb.xyz);
        var lambda = lambdas[c];
        let r = distance_delta(geo.xyz, geo.w, du, la.w, lb.w, Rule(sim.xpbd, sim.distance_k), &lambda);
        if r.ok {
            state[o + a] = vec4<f32>(la.xyz + r.d0, la.w);
            state[o + b] = vec4<f32>(lb.xyz + r.d1, lb.w);
            lambdas[c] = lambda;
        }
    } else if t < group_range.distance_count + group_range.volume_count {
        let c = group_range.volume_start + (t - group_range.distance_count);
        let p = vol_idx[c];
        let g = 15u * c;
        let e1 = vec3<f32>(vol_geo[g], vol_geo[g + 1u], vol_geo[g + 2u]);
        let e2 = vec3<f32>(vol_geo[g + 3u], vol_geo[g + 4u], vol_geo[g + 5u]);
        let e3 = vec3<f32>(vol_geo[g + 6u], vol_geo[g + 7u], vol_geo[g + 8u]);
        let c31 = vec3<f32>(vol_geo[g + 9u], vol_geo[g + 10u], vol_geo[g + 11u]);
        let c12 = vec3<f32>(vol_geo[g + 12u], vol_geo[g + 13u], vol_geo[g + 14u]);
        if (sim.families & 2u) != 0u {
            project_volume(c, p, o, e1, e2, e3, c31, c12);
        }
        let t0 = tet_term(sim, 0u);
        let t1 = tet_term(sim, 1u);
        if t0.code != 0u || t1.code != 0u {
            let h0 = state[p.x].xyz;
            let l0 = state[o + p.x];
            let l1 = state[o + p.y];
            let l2 = state[o + p.z];
            let l3 = state[o + p.w];
            let wa = two_float_difference(h0, l0.xyz, state[p.y].xyz, l1.xyz);
            let wb = two_float_difference(h0, l0.xyz, state[p.z].xyz, l2.xyz);
            let wc = two_float_difference(h0, l0.xyz, state[p.w].xyz, l3.xyz);
            let li = mesh.distance_count + mesh.volume_count + 2u * c;
            var lambda = vec2<f32>(lambdas[li], lambdas[li + 1u]);
            let r = tetrahedra_delta(e1, e2, e3, c31, c12, wa, wb, wc, vec4<f32>(l0.w, l1.w, l2.w, l3.w), t0, t1,
                                     &lambda);
            if r.ok {
                state[o + p.x] = vec4<f32>(l0.xyz + r.d0, l0.w);
                state[o + p.y] = vec4<f32>(l1.xyz + r.d1, l1.w);
                state[o + p.z] = vec4<f32>(l2.xyz + r.d2, l2.w);
                state[o + p.w] = vec4<f32>(l3.xyz + r.d3, l3.w);
                lambdas[li] = lambda.x;
                lambdas[li + 1u] = lambda.y;
            }
        }
    }
}

// Volume constraint c (particles p, lo parts at state[o + p]).
fn project_volume(c: u32, p: vec4<u32>, o: u32, e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>,
                  c12: vec3<f32>) {
    let h0 = state[p.x].xyz;
    let l0 = state[o + p.x];
    let l1 = state[o + p.y];
    let l2 = state[o + p.z];
    let l3 = state[o + p.w];
    let wa = two_float_difference(h0, l0.xyz, state[p.y].xyz, l1.xyz);
    let wb = two_float_difference(h0, l0.xyz, state[p.z].xyz, l2.xyz);
    let wc = two_float_difference(h0, l0.xyz, state[p.w].xyz, l3.xyz);
    let li = mesh.distance_count + c;
    var lambda = lambdas[li];
    let r = volume_delta(e1, e2, e3, c31, c12, wa, wb, wc, vec4<f32>(l0.w, l1.w, l2.w, l3.w),
                         Rule(sim.xpbd, sim.volume_k), sim.gradient_scale, &lambda);
    if r.ok {
        state[o + p.x] = vec4<f32>(l0.xyz + r.d0, l0.w);
        state[o + p.y] = vec4<f32>(l1.xyz + r.d1, l1.w);
        state[o + p.z] = vec4<f32>(l2.xyz + r.d2, l2.w);
        state[o + p.w] = vec4<f32>(l3.xyz + r.d3, l3.w);
        lambdas[li] = lambda;
    }
}

// v <- (p - u) / dt, u <- p (renormalised: hi + lo with |lo| <= half an ulp of hi); the largest step and
// displacement norms go to stats as u32 bit patterns (for non-negative floats the integer order is the
// float order, and NaN sorts above infinity).
@compute @workgroup_size(64)
fn velocity(@builtin(global_invocation_id) gid: vec3<u32>) {
    if stats.status != 0u {
        return;
    }
    let i = gid.x;
    let np = mesh.particle_count;
    if i < mesh.free_count {
        let p = free_particles[i];
        let predicted = state[3u * np + p];
        let step = predicted.xyz - state[np + p].xyz;
        state[2u * np + p] = vec4<f32>(step / sim.dv.w, 0.0);
        let hi = state[p];
        let u = two_sum(hi.xyz, predicted.xyz);
        state[p] = vec4<f32>(u.hi, hi.w);
        state[np + p] = vec4<f32>(u.lo, predicted.w);
        atomicMax(&stats.step_bits, bitcast<u32>(length(step)));
        atomicMax(&stats.largest_bits, bitcast<u32>(length(u.hi)));
        let change = two_float_difference(state[4u * np + p].xyz, state[5u * np + p].xyz, u.hi, u.lo);
        atomicMax(&stats.delta_bits, bitcast<u32>(length(change)));
        if (stats.steps + 1u) % WINDOW == 0u {
            state[4u * np + p] = vec4<f32>(u.hi, 0.0);
            state[5u * np + p] = vec4<f32>(u.lo, 0.0);
        }
    }
}

// After each step: divergence (every step) and the window rest test (every WINDOW steps), on the device.
@compute @workgroup_size(1)
fn check() {
    if stats.status != 0u {
        return;
    }
    let step_bits = atomicLoad(&stats.step_bits);
    let largest_bits = atomicLoad(&stats.largest_bits);
    let largest = bitcast<f32>(largest_bits);
    stats.steps = stats.steps + 1u;
    stats.largest = largest;
    // NaN, infinite, or beyond the body: integer comparison, immune to fast-math NaN assumptions.
    if largest_bits > bitcast<u32>(mesh.extent) || step_bits > 0x7f800000u {
        stats.status = 2u;
        return;
    }
    var step = bitcast<f32>(step_bits);
    if largest > 0.0 {
        step = step / largest;
    }
    stats.window_step = max(stats.window_step, step);
    if stats.steps % WINDOW == 0u {
        var delta = bitcast<f32>(atomicLoad(&stats.delta_bits));
        atomicStore(&stats.delta_bits, 0u);
        if largest > 0.0 {
            delta = delta / largest;
        }
        let test = window_test(delta, stats.previous, stats.window_step, sim.tolerance);
        stats.previous = test.previous;
        stats.window_step = 0.0;
        stats.residual = test.estimate;
        if test.at_rest {
            stats.status = 1u;
            return;
        }
    }
    if stats.steps >= sim.max_steps {
        stats.status = 3u;
    }
}
