//! `jolt_rest BODY.json`: the rest state of a tetrahedral soft body under gravity in Jolt Physics
//! (through crates.io `oxijolt`), stepped until it stops moving; prints one JSON object
//! `{"jolt_version", "oxijolt_version", "steps", "converged", "max_step_change", "displacements", ...}`.
//!
//! The body is built as a user of oxijolt builds it: one vertex per mesh vertex with inverse mass
//! `1/m` (0 for a held vertex: kinematic, never moved), one explicit `Edge` per edge and one
//! `Volume` per tetrahedron with the given compliances (Jolt's `Optimize` orders them), in a
//! single-threaded world with the given gravity. Sleeping is off (Jolt would freeze the body
//! below 0.17 m/s long before rest) and so is re-centring (`update_position(false)`), so world
//! positions are read back directly; displacements are world positions minus the initial ones.
//!
//! Rest test (default): the largest per-step vertex motion stays below `tol * max |u|` for `window`
//! consecutive steps (a window longer than the slowest oscillation period, so that a turning point is
//! not taken for rest). With a small substep f32 round-off keeps the body trembling at ~1e-4..1e-3 of
//! max |u| per step for ever; `block` then tests block means instead, and `average` averages the
//! positions over that many further steps. Other options: `origin` (where the body sits: f32 sees it),
//! `zero_velocity` (quasi-static iteration: it stalls in f32 short of the fixed point, so it is a
//! diagnostic only), `preload`, `fixed_steps` (a trajectory), `history_every`.
//!
//! Exit status: 0 at rest (or after `fixed_steps`); 1 bad input or a body oxijolt refuses, with the
//! reason; 2 divergence (a non-finite position, or a displacement beyond `diverge_factor` body sizes),
//! with a message; 3 not at rest within `max_steps` (the JSON is printed all the same).

use std::process::ExitCode;

use oxijolt::{
    PhysicsWorld, SoftBodyBendType, SoftBodyEdge, SoftBodySettings, SoftBodySharedSettings, SoftBodyVertex,
    SoftBodyVertexAttributes, SoftBodyVolume, Vec3, WorldSettings,
};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Body {
    vertices: Vec<[f64; 3]>,
    /// Positively oriented: (x2 - x1) x (x3 - x1) . (x4 - x1) > 0 (Jolt's volume constraint
    /// pushes the wrong way on a negatively oriented one).
    #[serde(default)]
    tets: Vec<[u32; 4]>,
    #[serde(default)]
    edges: Vec<[u32; 2]>,
    /// Triangles: with `create_constraints`, Jolt's `CreateConstraints` makes the edge, shear and bend
    /// constraints of them (every vertex with the attributes `edge_compliance`, `shear_compliance`,
    /// `bend_compliance`), in addition to the explicit `edges` and `tets`.
    #[serde(default)]
    faces: Vec<[u32; 3]>,
    /// `none`, `distance` or `dihedral` (Jolt's `EBendType`) to call `CreateConstraints` on the faces.
    #[serde(default)]
    create_constraints: Option<String>,
    #[serde(default)]
    shear_compliance: f64,
    #[serde(default)]
    bend_compliance: f64,
    /// Only build the body and print its constraint counts (no stepping).
    #[serde(default)]
    count_only: bool,
    held: Vec<bool>,
    masses: Vec<f64>,
    gravity: [f64; 3],
    dt: f64,
    iterations: u32,
    edge_compliance: f64,
    volume_compliance: f64,
    #[serde(default = "default_damping")]
    linear_damping: f64,
    #[serde(default = "one")]
    gravity_factor: f64,
    #[serde(default = "default_max_steps")]
    max_steps: usize,
    #[serde(default = "default_tol")]
    tol: f64,
    #[serde(default = "default_window")]
    window: usize,
    #[serde(default = "default_diverge")]
    diverge_factor: f64,
    /// Set every free vertex's velocity to 0 before each step: the quasi-static iteration
    /// `x <- step(x, v = 0)`, whose fixed point is the same rest state (a diagnostic; the default
    /// steps the dynamics as a user would).
    #[serde(default)]
    zero_velocity: bool,
    /// Where the body's origin goes (world coordinates; default the world origin): the vertices are given
    /// to Jolt relative to it and the body is placed there. Exact arithmetic does not see it; f32 does
    /// (Jolt's default re-centring keeps the local coordinates about the bounding-box centre).
    #[serde(default)]
    origin: Option<[f64; 3]>,
    /// Rest test on block means instead of single steps (0: off): the body is at rest when the mean
    /// positions over two consecutive blocks of this many steps differ by less than `tol * max |u|` at
    /// every vertex. For a body that f32 round-off keeps trembling (it never stops moving exactly when the
    /// substep is small), this finds the end of the physical transient.
    #[serde(default)]
    block: usize,
    /// First bring the body to rest under `preload` x gravity (same rest test), then under gravity: the
    /// rest state approached from the other side (diagnostic of f32 stall bias; default off).
    #[serde(default)]
    preload: Option<f64>,
    /// Average the positions over this many further steps after convergence (0: report the last step).
    #[serde(default)]
    average: usize,
    /// Run exactly this many steps and report the displacements then (a trajectory check; no convergence
    /// test, exit status 0).
    #[serde(default)]
    fixed_steps: Option<usize>,
    /// Record `[step, per-step motion, max |u|]` every this many steps (0: never) in `history`.
    #[serde(default)]
    history_every: usize,
}

fn default_damping() -> f64 {
    0.1
}
fn one() -> f64 {
    1.0
}
fn default_max_steps() -> usize {
    200_000
}
fn default_tol() -> f64 {
    1e-5
}
fn default_window() -> usize {
    120
}
fn default_diverge() -> f64 {
    10.0
}

#[derive(Serialize)]
struct Report {
    jolt_version: &'static str,
    oxijolt_version: &'static str,
    steps: usize,
    converged: bool,
    max_step_change: f64,
    /// With `block`: the last change between consecutive block means (m).
    #[serde(skip_serializing_if = "Option::is_none")]
    block_change: Option<f64>,
    max_displacement: f64,
    edge_constraints: usize,
    volume_constraints: usize,
    dihedral_constraints: usize,
    seconds: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    history: Vec<[f64; 3]>,
    displacements: Vec<[f64; 3]>,
}

fn fail(message: String) -> ExitCode {
    eprintln!("jolt_rest: {message}");
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        return fail("usage: jolt_rest BODY.json".into());
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", args[1])),
    };
    let body: Body = match serde_json::from_str(&text) {
        Ok(b) => b,
        Err(e) => return fail(format!("bad body JSON in {}: {e}", args[1])),
    };
    let n = body.vertices.len();
    if body.held.len() != n || body.masses.len() != n {
        return fail(format!("{n} vertices but {} held flags and {} masses", body.held.len(), body.masses.len()));
    }
    let v3 = |p: [f64; 3]| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
    let origin = body.origin.unwrap_or([0.0; 3]);
    let local = |p: [f64; 3]| v3([p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]]);
    let vertices: Vec<SoftBodyVertex> = body
        .vertices
        .iter()
        .zip(&body.held)
        .zip(&body.masses)
        .map(|((&p, &held), &m)| {
            if held {
                SoftBodyVertex::kinematic(local(p))
            } else {
                SoftBodyVertex { position: local(p), velocity: Vec3::ZERO, inverse_mass: (1.0 / m) as f32 }
            }
        })
        .collect();
    let mut builder = SoftBodySharedSettings::builder(vertices, body.faces.clone());
    if let Some(bend) = &body.create_constraints {
        let bend = match bend.as_str() {
            "none" => SoftBodyBendType::None,
            "distance" => SoftBodyBendType::Distance,
            "dihedral" => SoftBodyBendType::Dihedral,
            other => return fail(format!("create_constraints: `{other}` is none of none, distance, dihedral")),
        };
        let attributes = SoftBodyVertexAttributes::default()
            .compliance(body.edge_compliance as f32)
            .shear_compliance(body.shear_compliance as f32)
            .bend_compliance((bend != SoftBodyBendType::None).then_some(body.bend_compliance as f32));
        builder = builder.create_constraints(bend, attributes);
    }
    for &[a, b] in &body.edges {
        builder = builder.edge(SoftBodyEdge { vertices: [a, b], compliance: body.edge_compliance as f32 });
    }
    for &t in &body.tets {
        builder = builder.volume(SoftBodyVolume { vertices: t, compliance: body.volume_compliance as f32 });
    }
    let shared = match builder.build() {
        Ok(s) => s,
        Err(e) => return fail(format!("oxijolt refused the body: {e:?}")),
    };
    if body.count_only {
        let counts = serde_json::json!({
            "jolt_version": env!("JOLT_VERSION"),
            "edge_constraints": shared.edge_constraint_count(),
            "dihedral_constraints": shared.dihedral_bend_constraint_count(),
            "volume_constraints": shared.volume_constraint_count(),
        });
        println!("{counts}");
        return ExitCode::SUCCESS;
    }
    let world_settings = WorldSettings::default().gravity(v3(body.gravity)).single_threaded();
    let mut world = match PhysicsWorld::new(world_settings) {
        Ok(w) => w,
        Err(e) => return fail(format!("cannot create the world: {e:?}")),
    };
    let settings = SoftBodySettings::default()
        .num_iterations(body.iterations)
        .linear_damping(body.linear_damping as f32)
        .gravity_factor(body.gravity_factor as f32)
        .position(oxijolt::RVec3::new(origin[0] as _, origin[1] as _, origin[2] as _))
        .allow_sleeping(false)
        .update_position(false);
    let id = match world.create_soft_body(&shared, &settings) {
        Ok(id) => id,
        Err(e) => return fail(format!("oxijolt refused the soft body: {e:?}")),
    };

    // The body's size, for the divergence test.
    let mut size = 0.0f64;
    for k in 0..3 {
        let lo = body.vertices.iter().map(|p| p[k]).fold(f64::MAX, f64::min);
        let hi = body.vertices.iter().map(|p| p[k]).fold(f64::MIN, f64::max);
        size = size.max(hi - lo);
    }
    let read = |world: &PhysicsWorld| -> Vec<[f64; 3]> {
        world
            .soft_body(id)
            .expect("the soft body exists")
            .vertices()
            .iter()
            .map(|v| [v.position.x as f64, v.position.y as f64, v.position.z as f64])
            .collect()
    };
    // One PhysicsSystem::Update(dt) (after zeroing the free vertices' velocities in the quasi-static mode).
    let step = |world: &mut PhysicsWorld| -> Result<(), String> {
        if body.zero_velocity {
            let mut soft = world.soft_body_mut(id).map_err(|e| format!("{e:?}"))?;
            for (i, &held) in body.held.iter().enumerate() {
                if !held {
                    soft.set_vertex_velocity(i as u32, Vec3::ZERO).map_err(|e| format!("{e:?}"))?;
                }
            }
        }
        world.step(body.dt as f32).map(|_| ()).map_err(|e| format!("{e:?}"))
    };
    let start = std::time::Instant::now();
    let initial = read(&world);
    let mut previous = initial.clone();
    let (mut steps, mut quiet, mut converged) = (0usize, 0usize, false);
    let (mut max_change, mut max_u) = (f64::INFINITY, 0.0f64);
    let mut history = Vec::new();
    if let Some(factor) = body.preload {
        let g = body.gravity.map(|c| c * factor);
        world.set_gravity(v3(g)).expect("a valid gravity");
        let (mut last, mut quiet_pre, mut pre_steps) = (initial.clone(), 0usize, 0usize);
        while quiet_pre < body.window.max(1) && pre_steps < body.max_steps {
            if let Err(e) = step(&mut world) {
                return fail(format!("preload step {pre_steps} failed: {e}"));
            }
            pre_steps += 1;
            let now = read(&world);
            let (mut change, mut u) = (0.0f64, 0.0f64);
            for ((x, p), x0) in now.iter().zip(&last).zip(&initial) {
                change = change.max(((x[0] - p[0]).powi(2) + (x[1] - p[1]).powi(2) + (x[2] - p[2]).powi(2)).sqrt());
                u = u.max(((x[0] - x0[0]).powi(2) + (x[1] - x0[1]).powi(2) + (x[2] - x0[2]).powi(2)).sqrt());
            }
            quiet_pre = if change < body.tol * u { quiet_pre + 1 } else { 0 };
            last = now;
        }
        world.set_gravity(v3(body.gravity)).expect("a valid gravity");
        previous = last;
    }
    let max_steps = body.fixed_steps.unwrap_or(body.max_steps);
    let (mut block_sum, mut last_block_mean): (Vec<[f64; 3]>, Option<Vec<[f64; 3]>>) = (vec![[0.0; 3]; n], None);
    let mut block_change = f64::INFINITY;
    while steps < max_steps {
        if let Err(e) = step(&mut world) {
            return fail(format!("step {steps} failed: {e}"));
        }
        steps += 1;
        let now = read(&world);
        let (mut change, mut u) = (0.0f64, 0.0f64);
        for ((x, p), x0) in now.iter().zip(&previous).zip(&initial) {
            let d = [x[0] - p[0], x[1] - p[1], x[2] - p[2]];
            change = change.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
            let d = [x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]];
            u = u.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
        }
        if !change.is_finite() || !u.is_finite() || u > body.diverge_factor * size {
            eprintln!(
                "jolt_rest: diverged at step {steps}: max displacement {u:e} m (body size {size} m), \
                 per-step motion {change:e} m"
            );
            return ExitCode::from(2);
        }
        (max_change, max_u) = (change, u);
        if body.history_every > 0 && steps % body.history_every == 0 {
            history.push([steps as f64, change, u]);
        }
        previous = now;
        if body.fixed_steps.is_some() {
            continue;
        }
        if body.block > 0 {
            for (s, x) in block_sum.iter_mut().zip(&previous) {
                for k in 0..3 {
                    s[k] += x[k];
                }
            }
            if steps % body.block == 0 {
                let mean: Vec<[f64; 3]> = block_sum.iter().map(|s| s.map(|c| c / body.block as f64)).collect();
                if let Some(last) = &last_block_mean {
                    block_change = mean
                        .iter()
                        .zip(last)
                        .map(|(a, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt())
                        .fold(0.0, f64::max);
                    if block_change < body.tol * u {
                        converged = true;
                        previous = mean;
                        break;
                    }
                }
                last_block_mean = Some(mean);
                block_sum = vec![[0.0; 3]; n];
            }
            continue;
        }
        if change < body.tol * u {
            quiet += 1;
            if quiet >= body.window {
                converged = true;
                break;
            }
        } else {
            quiet = 0;
        }
    }
    let mut finals = previous.clone();
    if converged && body.average > 0 {
        let mut sum = vec![[0.0f64; 3]; n];
        for _ in 0..body.average {
            if let Err(e) = step(&mut world) {
                return fail(format!("step {steps} failed: {e}"));
            }
            steps += 1;
            for (s, x) in sum.iter_mut().zip(read(&world)) {
                for k in 0..3 {
                    s[k] += x[k];
                }
            }
        }
        finals = sum.iter().map(|s| s.map(|c| c / body.average as f64)).collect();
    }
    let displacements: Vec<[f64; 3]> =
        finals.iter().zip(&initial).map(|(x, x0)| [x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]]).collect();
    let report = Report {
        jolt_version: env!("JOLT_VERSION"),
        oxijolt_version: env!("OXIJOLT_VERSION"),
        steps,
        converged,
        max_step_change: max_change,
        block_change: (body.block > 0).then_some(block_change),
        max_displacement: max_u,
        edge_constraints: shared.edge_constraint_count(),
        volume_constraints: shared.volume_constraint_count(),
        dihedral_constraints: shared.dihedral_bend_constraint_count(),
        seconds: start.elapsed().as_secs_f64(),
        history,
        displacements,
    };
    println!("{}", serde_json::to_string(&report).expect("the report serialises"));
    if converged || body.fixed_steps.is_some() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "jolt_rest: not converged after {steps} steps (per-step motion {max_change:e} m, max |u| {max_u:e} m)"
        );
        ExitCode::from(3)
    }
}
