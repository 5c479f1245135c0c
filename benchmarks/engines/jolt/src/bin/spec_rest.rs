//! `spec_rest BODY.json PRECISION`: an independent re-implementation of Jolt 5.6's soft-body step for
//! edges and volumes (SoftBodyMotionProperties.cpp: IntegratePositions, ApplyVolumeConstraints,
//! ApplyEdgeConstraints, ApplyCollisionConstraintsAndUpdateVelocities; SoftBodySharedSettings.cpp:
//! CalculateClosestKinematic and Optimize's order for a body of at most 256 vertices), written straight
//! from the Jolt source, in `f32` (plain IEEE arithmetic, no FMA: Jolt's own f32 rounding in
//! distribution, not bit for bit) or `f64`. It reads the same body JSON as `jolt_rest` (including
//! `origin`, `zero_velocity`, `fixed_steps`, `tol`, `window`, `max_steps`) and prints the same report,
//! so that Jolt's f32 rest state can be told apart from the f32-free one of the same algorithm: the
//! diagnostic of benchmarks/engines/jolt_check.py.

use std::ops::{Add, Div, Mul, Sub};
use std::process::ExitCode;

use serde::Deserialize;

trait Real: Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> {
    fn of(x: f64) -> Self;
    fn to(self) -> f64;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
}
impl Real for f32 {
    fn of(x: f64) -> Self {
        x as f32
    }
    fn to(self) -> f64 {
        self as f64
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn abs(self) -> Self {
        f32::abs(self)
    }
}
impl Real for f64 {
    fn of(x: f64) -> Self {
        x
    }
    fn to(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

#[derive(Clone, Copy)]
struct V<T>([T; 3]);
impl<T: Real> V<T> {
    fn sub(self, o: Self) -> Self {
        V([self.0[0] - o.0[0], self.0[1] - o.0[1], self.0[2] - o.0[2]])
    }
    fn add(self, o: Self) -> Self {
        V([self.0[0] + o.0[0], self.0[1] + o.0[1], self.0[2] + o.0[2]])
    }
    fn scale(self, s: T) -> Self {
        V([self.0[0] * s, self.0[1] * s, self.0[2] * s])
    }
    fn dot(self, o: Self) -> T {
        self.0[0] * o.0[0] + self.0[1] * o.0[1] + self.0[2] * o.0[2]
    }
    fn cross(self, o: Self) -> Self {
        let (a, b) = (self.0, o.0);
        V([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
    }
}

#[derive(Deserialize)]
struct Body {
    vertices: Vec<[f64; 3]>,
    tets: Vec<[usize; 4]>,
    edges: Vec<[usize; 2]>,
    held: Vec<bool>,
    masses: Vec<f64>,
    gravity: [f64; 3],
    dt: f64,
    iterations: u32,
    edge_compliance: f64,
    volume_compliance: f64,
    #[serde(default)]
    linear_damping: f64,
    #[serde(default = "one")]
    gravity_factor: f64,
    #[serde(default = "max_steps")]
    max_steps: usize,
    #[serde(default = "tol")]
    tol: f64,
    #[serde(default = "window")]
    window: usize,
    #[serde(default)]
    zero_velocity: bool,
    #[serde(default)]
    origin: Option<[f64; 3]>,
    #[serde(default)]
    fixed_steps: Option<usize>,
    #[serde(default)]
    block: usize,
    #[serde(default)]
    average: usize,
}
fn one() -> f64 {
    1.0
}
fn max_steps() -> usize {
    200_000
}
fn tol() -> f64 {
    1e-5
}
fn window() -> usize {
    20
}

/// Optimize's order for a body of at most 256 connected vertices: one sequence, volumes then edges, each
/// sorted by (distance along edges to the nearest kinematic vertex in f32, smallest vertex, index).
fn order(body: &Body, local: &[[f32; 3]]) -> (Vec<usize>, Vec<usize>) {
    let n = local.len();
    let mut neighbours = vec![Vec::new(); n];
    for e in &body.edges {
        neighbours[e[0]].push(e[1]);
        neighbours[e[1]].push(e[0]);
    }
    let mut distance = vec![f32::MAX; n];
    let mut open: Vec<(f32, usize)> = Vec::new();
    for v in 0..n {
        if body.held[v] {
            distance[v] = 0.0;
            open.push((0.0, v));
        }
    }
    // Jolt's loop: pop the smallest, relax its neighbours (no visited set).
    while !open.is_empty() {
        let (k, _) =
            open.iter().enumerate().fold((0, f32::MAX), |best, (k, &(d, _))| if d < best.1 { (k, d) } else { best });
        let (d, u) = open.swap_remove(k);
        for &v in &neighbours[u] {
            let delta = [local[v][0] - local[u][0], local[v][1] - local[u][1], local[v][2] - local[u][2]];
            let nd = d + (delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]).sqrt();
            if nd < distance[v] {
                distance[v] = nd;
                open.push((nd, v));
            }
        }
    }
    let key = |q: &[usize], i: usize| {
        let d = q.iter().map(|&v| distance[v]).fold(f32::MAX, f32::min);
        (d, *q.iter().min().unwrap(), i)
    };
    let cmp = |a: &(f32, usize, usize), b: &(f32, usize, usize)| {
        a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    };
    let mut volumes: Vec<usize> = (0..body.tets.len()).collect();
    volumes.sort_by(|&a, &b| cmp(&key(&body.tets[a], a), &key(&body.tets[b], b)));
    let mut edges: Vec<usize> = (0..body.edges.len()).collect();
    edges.sort_by(|&a, &b| cmp(&key(&body.edges[a], a), &key(&body.edges[b], b)));
    (volumes, edges)
}

fn run<T: Real>(body: &Body) -> Result<(usize, bool, f64, Vec<[f64; 3]>), String> {
    let n = body.vertices.len();
    if n > 256 {
        return Err(format!("{n} vertices: only bodies of at most 256 (one update group) are reproduced"));
    }
    let origin = body.origin.unwrap_or([0.0; 3]);
    // Jolt stores the vertices as f32 Float3 whatever the arithmetic.
    let local: Vec<[f32; 3]> = body.vertices.iter().map(|p| [0, 1, 2].map(|k| (p[k] - origin[k]) as f32)).collect();
    let (volumes, edges) = order(body, &local);
    let mut x: Vec<V<T>> = local.iter().map(|p| V(p.map(|c| T::of(c as f64)))).collect();
    let w: Vec<T> =
        (0..n).map(|i| if body.held[i] { T::of(0.0) } else { T::of((1.0 / body.masses[i]) as f32 as f64) }).collect();
    let rest_len: Vec<T> = body.edges.iter().map(|e| x[e[1]].sub(x[e[0]]).dot(x[e[1]].sub(x[e[0]])).sqrt()).collect();
    let six_rest: Vec<T> = body
        .tets
        .iter()
        .map(|t| x[t[1]].sub(x[t[0]]).cross(x[t[2]].sub(x[t[0]])).dot(x[t[3]].sub(x[t[0]])).abs())
        .collect();
    let zero = T::of(0.0);
    let mut v: Vec<V<T>> = vec![V([zero; 3]); n];
    let mut prev = x.clone();
    // f32 constants as Jolt forms them (dt and the settings are f32 there).
    let dt = T::of(body.dt as f32 as f64);
    let hs = dt / T::of(body.iterations as f64);
    let inv_dt_sq = T::of(1.0) / (hs * hs);
    let damp = {
        let d = T::of(1.0) - T::of(body.linear_damping as f32 as f64) * hs;
        if d > zero {
            d
        } else {
            zero
        }
    };
    let g = V(body.gravity.map(|c| T::of((c as f32 * body.gravity_factor as f32) as f64)));
    let sub_g = g.scale(hs);
    let ec = T::of(body.edge_compliance as f32 as f64);
    let vc = T::of(body.volume_compliance as f32 as f64);
    let world =
        |x: &[V<T>]| -> Vec<[f64; 3]> { x.iter().map(|p| [0, 1, 2].map(|k| p.0[k].to() + origin[k])).collect() };
    let initial = world(&x);
    let mut last = initial.clone();
    let (mut steps, mut quiet, mut converged) = (0usize, 0usize, false);
    let max = body.fixed_steps.unwrap_or(body.max_steps);
    let (mut block_sum, mut last_mean): (Vec<[f64; 3]>, Option<Vec<[f64; 3]>>) = (vec![[0.0; 3]; n], None);
    let (mut averaging, mut avg_sum, mut avg_count) = (false, vec![[0.0f64; 3]; n], 0usize);
    while steps < max {
        if body.zero_velocity {
            for (i, vi) in v.iter_mut().enumerate() {
                if !body.held[i] {
                    *vi = V([zero; 3]);
                }
            }
        }
        for _ in 0..body.iterations {
            for i in 0..n {
                if w[i] > zero {
                    v[i] = v[i].add(sub_g).scale(damp);
                }
                prev[i] = x[i];
                x[i] = x[i].add(v[i].scale(hs));
            }
            for &t in &volumes {
                let q = body.tets[t];
                let (x1, x2, x3, x4) = (x[q[0]], x[q[1]], x[q[2]], x[q[3]]);
                let (x1x2, x1x3, x1x4) = (x2.sub(x1), x3.sub(x1), x4.sub(x1));
                let c = x1x2.cross(x1x3).dot(x1x4).abs() - six_rest[t];
                let d = [x4.sub(x2).cross(x3.sub(x2)), x1x3.cross(x1x4), x1x4.cross(x1x2), x1x2.cross(x1x3)];
                let ww = q.map(|k| w[k]);
                let denom = ww[0] * d[0].dot(d[0])
                    + ww[1] * d[1].dot(d[1])
                    + ww[2] * d[2].dot(d[2])
                    + ww[3] * d[3].dot(d[3])
                    + vc * inv_dt_sq;
                if denom < T::of(1e-12) {
                    continue;
                }
                let minus_lambda = c / denom;
                let xs = [x1, x2, x3, x4];
                for k in 0..4 {
                    x[q[k]] = xs[k].sub(d[k].scale(minus_lambda * ww[k]));
                }
            }
            for &ei in &edges {
                let [a, b] = body.edges[ei];
                let (x0, x1) = (x[a], x[b]);
                let delta = x1.sub(x0);
                let length = delta.dot(delta).sqrt();
                let denom = length * (w[a] + w[b] + ec * inv_dt_sq);
                if denom < T::of(1e-12) {
                    continue;
                }
                let correction = delta.scale((length - rest_len[ei]) / denom);
                x[a] = x0.add(correction.scale(w[a]));
                x[b] = x1.sub(correction.scale(w[b]));
            }
            for i in 0..n {
                if w[i] > zero {
                    v[i] = x[i].sub(prev[i]).scale(T::of(1.0) / hs);
                }
            }
        }
        steps += 1;
        let now = world(&x);
        let (mut change, mut u) = (0.0f64, 0.0f64);
        for ((p, q), p0) in now.iter().zip(&last).zip(&initial) {
            change = change.max(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt());
            u = u.max(((p[0] - p0[0]).powi(2) + (p[1] - p0[1]).powi(2) + (p[2] - p0[2]).powi(2)).sqrt());
        }
        if !u.is_finite() || u > 10.0 {
            return Err(format!("diverged at step {steps}"));
        }
        last = now;
        if averaging {
            for (s, p) in avg_sum.iter_mut().zip(&last) {
                for k in 0..3 {
                    s[k] += p[k];
                }
            }
            avg_count += 1;
            if avg_count == body.average {
                last = avg_sum.iter().map(|s| s.map(|c| c / avg_count as f64)).collect();
                break;
            }
            continue;
        }
        if body.fixed_steps.is_none() {
            if body.block > 0 {
                for (s, p) in block_sum.iter_mut().zip(&last) {
                    for k in 0..3 {
                        s[k] += p[k];
                    }
                }
                if steps % body.block == 0 {
                    let mean: Vec<[f64; 3]> = block_sum.iter().map(|s| s.map(|c| c / body.block as f64)).collect();
                    if let Some(lm) = &last_mean {
                        let bc = mean
                            .iter()
                            .zip(lm)
                            .map(|(a, b)| {
                                ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
                            })
                            .fold(0.0, f64::max);
                        if bc < body.tol * u {
                            converged = true;
                        }
                    }
                    last_mean = Some(mean);
                    block_sum = vec![[0.0; 3]; n];
                }
            } else {
                quiet = if change < body.tol * u { quiet + 1 } else { 0 };
                if quiet >= body.window {
                    converged = true;
                }
            }
            if converged {
                if body.average > 0 {
                    averaging = true;
                    continue;
                }
                if let (true, Some(lm)) = (body.block > 0, &last_mean) {
                    last = lm.clone();
                }
                break;
            }
        }
    }
    let disp = last.iter().zip(&initial).map(|(p, p0)| [p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]]).collect();
    Ok((steps, converged || body.fixed_steps.is_some(), 0.0, disp))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 || !(args[2] == "f32" || args[2] == "f64") {
        eprintln!("usage: spec_rest BODY.json f32|f64");
        return ExitCode::from(1);
    }
    let body: Body = match std::fs::read_to_string(&args[1])
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("spec_rest: cannot read {}: {e}", args[1]);
            return ExitCode::from(1);
        }
    };
    let result = if args[2] == "f32" { run::<f32>(&body) } else { run::<f64>(&body) };
    match result {
        Ok((steps, converged, _, displacements)) => {
            println!(
                "{}",
                serde_json::json!({"precision": args[2], "steps": steps, "converged": converged, "displacements": displacements})
            );
            if converged {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            }
        }
        Err(e) => {
            eprintln!("spec_rest: {e}");
            ExitCode::from(2)
        }
    }
}
