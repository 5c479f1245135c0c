//! The reference library's own arithmetic in f32: positions (not displacements) stored and projected
//! in single precision, stepped from the initial configuration until the motion stops. This is what
//! the source study ran if its library was built with `Real = float`, and what its "precision problems"
//! at dt = 0.002 and 0.001 would come from (docs/fits-and-studies.md, Backends, and reports/thesis): at
//! dt = 0.001 the rest displacements are about 1e-5 m, so positions near 1 keep only two or three
//! digits of them.
//!
//! Deterministic on the CPU (one thread, fixed order: the colour order of [`PbdSystem`]); every
//! operation is the library's (`PositionBasedDynamics::solve_DistanceConstraint` and
//! `solve_VolumeConstraint`, semi-implicit Euler, first-order velocity update), in f32. Only the PBD
//! projection rules exist in that library; XPBD rules are refused.
//!
//! Rest: stepping stops when a step moves nothing (an exact f32 fixed point), or when the relative
//! step falls below the tolerance, or, since f32 states can settle into a small limit cycle instead,
//! when the largest step has not reached a new minimum for [`STALL_STEPS`] steps; the state is then
//! the mean position over the following [`AVERAGE_STEPS`] steps (recorded as converged, with the
//! relative step at the end as its residual).

use nalgebra::Vector3;

use crate::{ModelRule, PbdError, PbdSystem, ProjectionRule, RestMethod, RestOptions, RestState, SimParams, Vec3};

/// Steps without a new smallest step after which a limit cycle is assumed.
pub const STALL_STEPS: usize = 2000;
/// Steps averaged once a limit cycle is assumed.
pub const AVERAGE_STEPS: usize = 1000;

type V32 = Vector3<f32>;

fn to32(v: &Vec3) -> V32 {
    V32::new(v.x as f32, v.y as f32, v.z as f32)
}

/// The library's body in f32: positions, velocities, rest lengths and volumes computed in f32.
struct Body32 {
    x: Vec<V32>,
    v: Vec<V32>,
    w: Vec<f32>,
    free: Vec<usize>,
    /// (particles, rest length) in projection order, per group.
    distances: Vec<([usize; 2], f32)>,
    /// (particles, rest volume) in projection order, per group.
    volumes: Vec<([usize; 4], f32)>,
    groups: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
}

fn volume(p: [V32; 4]) -> f32 {
    (1.0 / 6.0) * (p[1] - p[0]).cross(&(p[2] - p[0])).dot(&(p[3] - p[0]))
}

impl Body32 {
    fn new(system: &PbdSystem) -> Self {
        let x: Vec<V32> = system.rest.iter().map(to32).collect();
        let distances =
            system.distances.iter().map(|c| (c.particles, (x[c.particles[1]] - x[c.particles[0]]).norm())).collect();
        let volumes = system.volumes.iter().map(|c| (c.particles, volume(c.particles.map(|p| x[p])))).collect();
        Self {
            v: vec![V32::zeros(); x.len()],
            w: system.inverse_masses.iter().map(|&w| w as f32).collect(),
            free: system.free.clone(),
            x,
            distances,
            volumes,
            groups: system.groups.clone(),
        }
    }

    /// One sweep in colour order with the library's projections; `kd` and `kv` as the library takes
    /// them, `s_min` the degenerate threshold of the volume constraint.
    fn sweep(&mut self, kd: f32, kv: f32, s_min: f32) {
        for (dr, vr) in &self.groups {
            for &([a, b], rest_length) in &self.distances[dr.clone()] {
                let (w0, w1) = (self.w[a], self.w[b]);
                let w_sum = w0 + w1;
                if w_sum == 0.0 {
                    continue;
                }
                let n = self.x[b] - self.x[a];
                let d = n.norm();
                if d == 0.0 {
                    continue;
                }
                let corr = (n / d) * kd * (d - rest_length) / w_sum;
                self.x[a] += corr * w0;
                self.x[b] -= corr * w1;
            }
            for &(t, rest_volume) in &self.volumes[vr.clone()] {
                let p = t.map(|i| self.x[i]);
                let g0 = (p[1] - p[2]).cross(&(p[3] - p[2]));
                let g1 = (p[2] - p[0]).cross(&(p[3] - p[0]));
                let g2 = (p[0] - p[1]).cross(&(p[3] - p[1]));
                let g3 = (p[1] - p[0]).cross(&(p[2] - p[0]));
                let w = t.map(|i| self.w[i]);
                let s = w[0] * g0.norm_squared()
                    + w[1] * g1.norm_squared()
                    + w[2] * g2.norm_squared()
                    + w[3] * g3.norm_squared();
                if s.is_nan() || s <= s_min {
                    continue;
                }
                let lambda = kv * (volume(p) - rest_volume) / s;
                self.x[t[0]] += g0 * (-lambda * w[0]);
                self.x[t[1]] += g1 * (-lambda * w[1]);
                self.x[t[2]] += g2 * (-lambda * w[2]);
                self.x[t[3]] += g3 * (-lambda * w[3]);
            }
        }
    }
}

impl PbdSystem {
    /// The rest state with the library's arithmetic in f32 ([`RestMethod::LibraryF32`]), stepped from
    /// the initial configuration (a warm start would change which f32 state is reached, so none is
    /// used).
    pub(crate) fn rest_in_f32(&self, params: &SimParams, options: &RestOptions) -> Result<RestState, PbdError> {
        let ModelRule::Projection(rules @ ProjectionRule::Pbd { distance_k, volume_k, .. }) = params.rule() else {
            return Err(PbdError::Unsupported {
                model: params.model.kind().name().to_string(),
                what: "f32 library arithmetic exists for the PBD models only (the reference library has no XPBD)",
            });
        };
        if !self.is_gravity_only() {
            return Err(PbdError::Unsupported {
                model: params.model.kind().name().to_string(),
                what: "f32 library arithmetic supports gravity loads only (no traction, no prescribed displacement)",
            });
        }
        let s_min = rules.volume_degenerate_threshold() as f32;
        // The library's volume step is k (V - V0) / sum w |g|^2 with g = 6 dV/dp: volume_k is per 6 (V - V0).
        let (kd, kv) = (distance_k as f32, (6.0 * volume_k) as f32);
        let dt = params.dt as f32;
        let g = to32(&self.gravity);
        let mut body = Body32::new(self);
        let mut old = body.x.clone();
        let mut spent = 0;
        let mut smallest = f32::INFINITY;
        let mut since_smallest = 0;
        let mut averaging: Option<(usize, Vec<Vec3>)> = None;
        let displacement_of =
            |x: &[V32], p: usize| -> Vec3 { Vec3::new(x[p].x as f64, x[p].y as f64, x[p].z as f64) - self.rest[p] };
        let displacement = |x: &[V32]| -> Vec<Vec3> { (0..x.len()).map(|p| displacement_of(x, p)).collect() };
        loop {
            pbdfit_mesh::cancel::check()?;
            for &p in &body.free {
                old[p] = body.x[p];
                body.v[p] += g * dt;
                body.x[p] += body.v[p] * dt;
            }
            for _ in 0..params.nit {
                body.sweep(kd, kv, s_min);
            }
            let mut step: f32 = 0.0;
            for &p in &body.free {
                let d = body.x[p] - old[p];
                step = step.max(d.norm());
                body.v[p] = d * (1.0 / dt);
            }
            spent += params.nit;
            // The largest displacement without building the whole field: that happens only once a state
            // is returned or averaged.
            let largest = self.free.iter().map(|&p| displacement_of(&body.x, p).norm()).fold(0.0, f64::max);
            if !largest.is_finite() || largest > self.extent {
                return Err(crate::diverged(&self.scene, params, spent, largest, self.extent));
            }
            let residual = if largest > 0.0 { step as f64 / largest } else { step as f64 };
            let finish = |u: Vec<Vec3>, converged: bool| {
                self.accept(params, u, spent, converged, residual, RestMethod::LibraryF32)
            };
            if let Some((count, sum)) = &mut averaging {
                for (p, s) in sum.iter_mut().enumerate() {
                    *s += displacement_of(&body.x, p);
                }
                *count += 1;
                if *count == AVERAGE_STEPS {
                    let mean = sum.iter().map(|s| s / AVERAGE_STEPS as f64).collect();
                    return finish(mean, true);
                }
                continue;
            }
            if step == 0.0 || residual <= options.tolerance {
                return finish(displacement(&body.x), true);
            }
            if spent >= options.max_sweeps {
                return finish(displacement(&body.x), false);
            }
            if step < smallest {
                smallest = step;
                since_smallest = 0;
            } else {
                since_smallest += 1;
                if since_smallest >= STALL_STEPS {
                    averaging = Some((0, vec![Vec3::zeros(); body.x.len()]));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Model, PbdSystem, RestMethod, RestOptions, SimParams};

    fn system(scene: &str, n: usize) -> PbdSystem {
        PbdSystem::new(&pbdfit_mesh::SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap())
    }

    fn f32_options() -> RestOptions {
        RestOptions { method: RestMethod::LibraryF32, ..RestOptions::default() }
    }

    #[test]
    fn f32_rest_state_is_close_to_f64_at_large_dt_and_noisy_at_small_dt() {
        let s = system("gravity-wall", 1);
        let mut relative = Vec::new();
        for dt in [0.01, 0.001] {
            let params = SimParams::new(dt, 1, Model::pbd(0.5, 0.5));
            let exact = s.rest_state(&params, &RestOptions::default(), None).unwrap();
            let single = s.rest_state(&params, &f32_options(), None).unwrap();
            assert_eq!(single.method, RestMethod::LibraryF32);
            assert!(single.converged);
            let d =
                exact.displacements.iter().zip(&single.displacements).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
            relative.push(d / exact.max_displacement());
        }
        println!("f32 vs f64 relative difference at dt = 0.01, 0.001: {relative:?}");
        // f32 resolves positions near 1 to 6e-8 m, a far larger share of the rest displacement at small
        // dt (which scales with dt^2): measured 5.5e-5 at dt = 0.01 and 3.3e-3 at dt = 0.001.
        assert!(relative[0] < 1e-3, "{relative:?}");
        assert!(relative[1] > 10.0 * relative[0], "{relative:?}");
    }

    #[test]
    fn f32_rest_state_is_deterministic_and_refuses_xpbd() {
        let s = system("gravity-floor", 2);
        let params = SimParams::new(0.002, 2, Model::pbd(0.3, 0.7));
        let a = s.rest_state(&params, &f32_options(), None).unwrap();
        let b = s.rest_state(&params, &f32_options(), Some(&a.displacements)).unwrap();
        assert_eq!(a.displacements, b.displacements, "bit-identical, and no warm start");
        let xpbd = SimParams::new(0.01, 1, Model::xpbd(1e-4, 1e-4));
        let e = s.rest_state(&xpbd, &f32_options(), None).unwrap_err().to_string();
        assert!(e.contains("PBD models only"), "{e}");
    }
}
