//! Many simulations of one small mesh in one dispatch, and the [`GpuBackend`] built on it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pbdfit_pbd::{
    CpuBackend, MAX_TETRAHEDRON_TERMS, PbdError, PbdSystem, RestJob, RestOptions, RestState, RestStateBackend,
    SimParams, Vec3,
};

use crate::context::{floats, storage_entry, uniform_entry, words};
use crate::handoff::{Handoff, HandoffObserver, handoff_before};
use crate::layout::{MeshData, SIM_WORDS, bits, has_tetrahedron_terms, shader_source, sim_words};
use crate::rest::{Body, DeviceOutcome, RUNNING};
use crate::{GpuContext, GpuError, GpuSimulation};

/// The kernel's own part of the source (see [`shader_source`]).
const KERNEL: &str = include_str!("shaders/batch.wgsl");
/// Threads per workgroup of the batched kernel.
const WORKGROUP: usize = 64;
/// The most free particles one lane keeps in registers.
const MAX_OWNED: usize = 16;
/// Wall time one chunk of steps should take: long enough that the status read-back is rare, short
/// enough to stay far below display-driver watchdogs (about 2 s on some systems).
const CHUNK_TARGET: Duration = Duration::from_millis(150);
/// The most steps one dispatch of the wall-clock sizing runs: eight rest-test windows. A longer dispatch
/// changes the trajectory, for a reason not yet found: PBD on gravity-wall N = 2 at dt = 0.001 s, nit = 1,
/// kd = 0.11, kv = 0.5 rests after 1,891 steps, bit for bit the same, in chunks of any length from 17 to
/// 600 steps, while in chunks of 700 or more it never rests within 200,000 sweeps (lavapipe, 2026-11-28);
/// the sizing grew its chunks past that (64, 128, 256, 512, 1,024: doubling while a dispatch is quick), so
/// the result followed the wall clock (the CI's slower host gave other last bits than this machine). Below
/// the cap the chunks' ends change no result (`chunks_do_not_change_the_rest_states`,
/// `the_wall_clock_sizing_gives_the_fixed_chunks_results`); the cause is not found yet.
const MAX_CHUNK_STEPS: u32 = 8 * 61;
/// Words per simulation in the status buffer (batch.wgsl `Status`: 9 words, padded to its 16-byte
/// alignment).
const STATUS_WORDS: usize = 12;
/// Vectors per free particle in the state buffer: hi and lo of u, v, hi and lo of the window snapshot.
const STATE_VECTORS: usize = 5;

/// How simulations map onto workgroups for one mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// Threads per simulation (a power of two, at least the largest colour group where possible).
    tps: usize,
    /// Simulations per workgroup.
    spw: usize,
    /// Free particles per lane (registers).
    max_owned: usize,
    /// Multipliers per simulation: one per constraint, plus two per tetrahedron when the batch projects
    /// per-tetrahedron constraints.
    multipliers: usize,
}

impl Plan {
    /// Workgroup memory of one simulation: hi and lo of every particle (32 bytes), its XPBD multipliers,
    /// and the per-simulation scalars.
    fn bytes_per_simulation(mesh: &MeshData, multipliers: usize) -> usize {
        32 * mesh.particle_count + 4 * multipliers + 32
    }

    /// The plan for `mesh`, or `None` when it does not fit in one workgroup's memory (the single-mesh
    /// kernels take it then); `tetrahedron_terms`: whether some simulation projects per-tetrahedron
    /// constraints.
    fn new(mesh: &MeshData, limits: &wgpu::Limits, tetrahedron_terms: bool) -> Option<Self> {
        let multipliers =
            mesh.distance_count() + mesh.volume_count() * if tetrahedron_terms { 1 + MAX_TETRAHEDRON_TERMS } else { 1 };
        let tps = mesh.max_group.max(1).next_power_of_two().min(WORKGROUP);
        let max_owned = mesh.free.len().div_ceil(tps).max(1);
        if max_owned > MAX_OWNED {
            return None;
        }
        let memory = limits.max_compute_workgroup_storage_size as usize;
        let per_sim = Self::bytes_per_simulation(mesh, multipliers);
        let mut spw = WORKGROUP / tps;
        while spw > 1 && spw * per_sim + 16 > memory {
            spw /= 2;
        }
        (spw * per_sim + 16 <= memory).then_some(Self { tps, spw, max_owned, multipliers })
    }

    fn header(&self, mesh: &MeshData) -> String {
        let (np, nf, nd, nv, ng) =
            (mesh.particle_count, mesh.free.len(), mesh.distance_count(), mesh.volume_count(), mesh.groups.len());
        let off_groups = nf + np;
        let off_dist = off_groups + 4 * ng;
        let consts = [
            ("NP", np),
            ("NF", nf),
            ("ND", nd),
            ("NV", nv),
            ("NC", nd + nv),
            ("NL", self.multipliers),
            ("NG", ng),
            ("TPS", self.tps),
            ("SPW", self.spw),
            ("WG", self.tps * self.spw),
            ("MAXOWN", self.max_owned),
            ("SPW_NP", self.spw * np),
            ("SPW_NC", (self.spw * self.multipliers).max(1)),
            ("OFF_FREE", 0),
            ("OFF_MASS", nf),
            ("OFF_GROUPS", off_groups),
            ("OFF_DIST", off_dist),
            ("OFF_VOL", off_dist + 2 * nd),
            ("GEO_VOL", 4 * nd),
        ];
        consts.iter().map(|(name, value)| format!("const {name}: u32 = {value}u;\n")).collect()
    }
}

/// A compiled batched kernel for one mesh shape.
struct BatchPipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// Rest states on the GPU, for [`RestStateBackend`] users (grid sweeps, fits, studies).
///
/// Small meshes (those whose particles fit in one workgroup's memory: N <= 4 cubes on any adapter,
/// more on adapters with more workgroup memory) run as one batched dispatch per chunk of steps, one
/// workgroup per simulation (several per workgroup for tiny meshes), each simulation with its own
/// parameters; the rest test runs on the device, and the host reads a status word per simulation per
/// chunk. Larger meshes run one after the other on the single-mesh kernels ([`GpuSimulation`]).
///
/// Results come back in `params` order, as f64. Rest states are computed by stepping from a cold start
/// with a windowed rest test (see [`crate::F32_TOLERANCE_FLOOR`]); diverged points come back as
/// [`PbdError::Diverged`], points that reach the step cap as `converged: false`. A device failure sends
/// the whole batch to the CPU backend, with a one-line message on stderr.
pub struct GpuBackend {
    ctx: GpuContext,
    pipelines: Mutex<HashMap<String, Arc<BatchPipeline>>>,
    /// Told of every batch handed to the CPU, and why ([`Handoff`]); none: nobody is told.
    observer: Option<HandoffObserver>,
    /// Steps per dispatch, fixed (tests: results must not depend on it); none: aimed at
    /// [`CHUNK_TARGET`] of wall time.
    chunk_steps: Option<u32>,
}

impl std::fmt::Debug for GpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuBackend").field("adapter", &self.ctx.adapter_name()).finish()
    }
}

impl GpuBackend {
    /// A backend on an opened device.
    pub fn new(ctx: GpuContext) -> Self {
        Self { ctx, pipelines: Mutex::new(HashMap::new()), observer: None, chunk_steps: None }
    }

    /// The backend running exactly `steps` steps per dispatch of the batched kernel (at least 1) instead
    /// of aiming each dispatch at a wall time: for tests, which check that the rest states do not depend
    /// on where the dispatches end.
    #[doc(hidden)]
    pub fn with_chunk_steps(mut self, steps: u32) -> Self {
        self.chunk_steps = Some(steps.max(1));
        self
    }

    /// The backend telling `observer` of every batch it hands to the CPU, and why: the library prints
    /// nothing; the caller decides what the user hears.
    pub fn with_observer(mut self, observer: HandoffObserver) -> Self {
        self.observer = Some(observer);
        self
    }

    fn hand_off(&self, handoff: Handoff) {
        if let Some(observer) = &self.observer {
            observer(&handoff);
        }
    }

    /// The device.
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Whether `system` runs on the batched kernel on this device (otherwise on the single-mesh kernels),
    /// for models without per-tetrahedron constraints (those need two more multipliers per tetrahedron).
    pub fn batches(&self, system: &PbdSystem) -> bool {
        Plan::new(&MeshData::new(system), &self.ctx.limits, false).is_some()
    }

    /// [`RestStateBackend::rest_states`] with device failures reported instead of handled.
    pub fn try_rest_states(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        options: &RestOptions,
    ) -> Result<Vec<Result<RestState, PbdError>>, GpuError> {
        self.try_rest_states_from(system, params, &vec![None; params.len()], options)
    }

    /// [`try_rest_states`](Self::try_rest_states) with each simulation started from `starts[i]` (its
    /// displacements, one per particle; `None`: the undeformed body) instead of from rest: the batched
    /// kernel takes its state from the state buffer at every chunk, so a warm start is that buffer's first
    /// contents (u in two floats, v = 0). The device path of a lockstep's warm batches, for a session with
    /// a GPU to measure ([`RestStateBackend::warm_rest_states`] still hands them to the CPU: f32 trials
    /// would steer a fit's descent). A body too large for the batched kernel with a warm start is refused
    /// ([`GpuError::TooLarge`]): the single-mesh kernels start from rest.
    pub fn try_rest_states_from(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        starts: &[Option<&[Vec3]>],
        options: &RestOptions,
    ) -> Result<Vec<Result<RestState, PbdError>>, GpuError> {
        assert_eq!(starts.len(), params.len(), "one start (or none) per parameter point");
        let mut results: Vec<Option<Result<RestState, PbdError>>> = vec![None; params.len()];
        let mut valid = Vec::new();
        for (i, p) in params.iter().enumerate() {
            match p.validate() {
                Ok(()) => valid.push(i),
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        if !valid.is_empty() {
            let mesh = MeshData::new(system);
            let chosen: Vec<SimParams> = valid.iter().map(|&i| params[i]).collect();
            let from: Vec<Option<&[Vec3]>> = valid.iter().map(|&i| starts[i]).collect();
            let computed = match Plan::new(&mesh, &self.ctx.limits, has_tetrahedron_terms(&chosen)) {
                Some(plan) => self.run_batches(system, &mesh, plan, &chosen, &from, options)?,
                None if from.iter().any(Option::is_some) => {
                    return Err(GpuError::TooLarge {
                        what: format!("a warm-started batch on a mesh with {} particles", mesh.particle_count),
                        adapter: self.ctx.adapter_name().to_string(),
                        reason: "warm starts need the batched kernel (one simulation per workgroup's memory)".into(),
                    });
                }
                None => self.run_one_by_one(system, &chosen, options)?,
            };
            for (i, r) in valid.into_iter().zip(computed) {
                results[i] = Some(r);
            }
        }
        Ok(results.into_iter().map(|r| r.expect("every point has a result")).collect())
    }

    fn run_one_by_one(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        options: &RestOptions,
    ) -> Result<Vec<Result<RestState, PbdError>>, GpuError> {
        let mut sim = GpuSimulation::new(&self.ctx, system, &params[0])?;
        let mut out = Vec::with_capacity(params.len());
        for p in params {
            sim.set_params(p)?;
            out.push(sim.rest_state(options)?);
        }
        Ok(out)
    }

    fn pipeline(&self, header: String) -> Result<Arc<BatchPipeline>, GpuError> {
        let mut cache = self.pipelines.lock().map_err(|_| self.ctx.failed("compiling", "cache poisoned".into()))?;
        if let Some(p) = cache.get(&header) {
            return Ok(Arc::clone(p));
        }
        let layout = self.ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("batch"),
            entries: &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
                storage_entry(4, true),
                storage_entry(5, true),
            ],
        });
        let source = format!("{header}{}", shader_source(KERNEL));
        let pipeline = self.ctx.pipelines("batched", &source, &[&layout], &["main"])?.remove(0);
        let compiled = Arc::new(BatchPipeline { layout, pipeline });
        cache.insert(header, Arc::clone(&compiled));
        Ok(compiled)
    }

    fn run_batches(
        &self,
        system: &PbdSystem,
        mesh: &MeshData,
        plan: Plan,
        params: &[SimParams],
        starts: &[Option<&[Vec3]>],
        options: &RestOptions,
    ) -> Result<Vec<Result<RestState, PbdError>>, GpuError> {
        let limits = &self.ctx.limits;
        let state_bytes = STATE_VECTORS * 16 * mesh.free.len().max(1);
        let by_memory = limits.max_storage_buffer_binding_size as usize / state_bytes;
        let by_dispatch = limits.max_compute_workgroups_per_dimension as usize * plan.spw;
        let most = by_memory.min(by_dispatch).max(1);
        let pipeline = self.pipeline(plan.header(mesh))?;
        let mut out = Vec::with_capacity(params.len());
        for (part, from) in params.chunks(most).zip(starts.chunks(most)) {
            out.extend(self.run_batch(system, mesh, plan, &pipeline, part, from, options)?);
        }
        Ok(out)
    }

    fn run_batch(
        &self,
        system: &PbdSystem,
        mesh: &MeshData,
        plan: Plan,
        compiled: &BatchPipeline,
        params: &[SimParams],
        starts: &[Option<&[Vec3]>],
        options: &RestOptions,
    ) -> Result<Vec<Result<RestState, PbdError>>, GpuError> {
        let ctx = &self.ctx;
        let b = params.len();
        let nf = mesh.free.len();
        let gravity = system.gravity();
        let tolerance = crate::device_tolerance(options);
        let mut sims: Vec<u32> = Vec::with_capacity(SIM_WORDS * params.len());
        for p in params {
            let g = [gravity.x, gravity.y, gravity.z];
            sims.extend(sim_words(p, g, tolerance, crate::device_max_steps(options, p.nit))?);
        }
        let mut mesh_u32 = mesh.free.clone();
        mesh_u32.extend(bits(&mesh.inverse_masses));
        mesh_u32.extend(mesh.groups.iter().flatten());
        mesh_u32.extend(&mesh.dist_idx);
        mesh_u32.extend(&mesh.vol_idx);
        let mut geo = bits(&mesh.dist_geo);
        geo.extend(bits(&mesh.vol_geo));
        let max_nit = params.iter().map(|p| p.nit).max().unwrap_or(1) as u32;
        let none = wgpu::BufferUsages::empty();
        let control = ctx.uniform("control", &[b as u32, 0, max_nit, mesh.extent.to_bits()]);
        let sims = ctx.storage("sims", &sims, none);
        let state = ctx.storage("state", &initial_state(mesh, starts), none);
        let status = ctx.storage("status", &vec![0; b * STATUS_WORDS], none);
        let mesh_u32 = ctx.storage("mesh", &mesh_u32, none);
        let geo = ctx.storage("geometry", &geo, none);
        let entries: Vec<wgpu::BindGroupEntry> = [&control, &sims, &state, &status, &mesh_u32, &geo]
            .iter()
            .enumerate()
            .map(|(i, buffer)| wgpu::BindGroupEntry { binding: i as u32, resource: buffer.as_entire_binding() })
            .collect();
        let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("batch"),
            layout: &compiled.layout,
            entries: &entries,
        });
        ctx.take_error("uploading the batch")?;
        let workgroups = b.div_ceil(plan.spw) as u32;
        let status_bytes = (b * STATUS_WORDS * 4) as u64;
        let mut chunk: u32 = self.chunk_steps.unwrap_or(64);
        let outcomes = loop {
            ctx.queue.write_buffer(&control, 4, bytemuck::cast_slice(&[chunk]));
            let started = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass =
                    encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
                pass.set_pipeline(&compiled.pipeline);
                pass.set_bind_group(0, &bind, &[]);
                pass.dispatch_workgroups(workgroups, 1, 1);
            }
            let w = words(&ctx.read(encoder, &status, 0, status_bytes, "running the batch")?);
            let outcomes: Vec<DeviceOutcome> = w
                .chunks_exact(STATUS_WORDS)
                .map(|s| DeviceOutcome {
                    status: s[0],
                    steps: s[1],
                    residual: f32::from_bits(s[2]),
                    largest: f32::from_bits(s[3]),
                })
                .collect();
            // A fit's time limit (`RestOptions::deadline`) ends the batch as it ends a CPU rest state: the
            // points still running come back unconverged.
            if outcomes.iter().all(|o| o.status != RUNNING) || options.deadline.is_some_and(|d| Instant::now() >= d) {
                break outcomes;
            }
            if self.chunk_steps.is_some() {
                continue;
            }
            // Aim the next chunk at CHUNK_TARGET of wall time (at most doubling, to learn the speed). Where
            // the chunks end changes no result (the kernel keeps every per-simulation quantity across
            // dispatches; `chunks_do_not_change_the_rest_states` checks it).
            let elapsed = started.elapsed().as_secs_f64().max(1e-4);
            let scaled = chunk as f64 * CHUNK_TARGET.as_secs_f64() / elapsed;
            chunk = scaled.clamp(16.0, 2.0 * chunk as f64).min(MAX_CHUNK_STEPS as f64) as u32;
        };
        let encoder = ctx.device.create_command_encoder(&Default::default());
        let values =
            floats(&ctx.read(encoder, &state, 0, (b * nf * STATE_VECTORS * 16) as u64, "reading the rest states")?);
        let body = Body::new(system, mesh.extent);
        let np = mesh.particle_count;
        Ok(params
            .iter()
            .zip(outcomes)
            .enumerate()
            .map(|(s, (p, outcome))| {
                let mut u = vec![Vec3::zeros(); np];
                for (j, &particle) in mesh.free.iter().enumerate() {
                    let o = 4 * STATE_VECTORS * (s * nf + j);
                    let (h, l) = (&values[o..o + 3], &values[o + 4..o + 7]);
                    u[particle as usize] =
                        Vec3::new(h[0] as f64 + l[0] as f64, h[1] as f64 + l[1] as f64, h[2] as f64 + l[2] as f64);
                }
                body.finish(p, u, outcome)
            })
            .collect())
    }
}

/// The batched kernel's state buffer before its first chunk: per simulation and free particle the
/// vectors hi and lo of u (u = hi + lo, each f32), v, and the window snapshot's hi and lo; zero for a start
/// from rest, the start's displacements otherwise (at rest: v = 0, the snapshot where u is).
fn initial_state(mesh: &MeshData, starts: &[Option<&[Vec3]>]) -> Vec<u32> {
    let nf = mesh.free.len();
    let mut words = vec![0u32; starts.len() * nf * STATE_VECTORS * 4];
    for (s, start) in starts.iter().enumerate() {
        let Some(u) = start else { continue };
        for (j, &particle) in mesh.free.iter().enumerate() {
            let w = u[particle as usize];
            let hi = [w.x as f32, w.y as f32, w.z as f32];
            let lo = [(w.x - hi[0] as f64) as f32, (w.y - hi[1] as f64) as f32, (w.z - hi[2] as f64) as f32];
            let o = 4 * STATE_VECTORS * (s * nf + j);
            for (vector, value) in [(0, hi), (1, lo), (3, hi), (4, lo)] {
                for (k, x) in value.iter().enumerate() {
                    words[o + 4 * vector + k] = x.to_bits();
                }
            }
        }
    }
    words
}

impl RestStateBackend for GpuBackend {
    fn name(&self) -> String {
        format!("gpu ({})", self.ctx.adapter_name())
    }

    fn rest_states(
        &self,
        system: &PbdSystem,
        params: &[SimParams],
        options: &RestOptions,
    ) -> Vec<Result<RestState, PbdError>> {
        if let Some(handoff) = handoff_before(system, params) {
            self.hand_off(handoff);
            return CpuBackend.rest_states(system, params, options);
        }
        match self.try_rest_states(system, params, options) {
            Ok(results) => results,
            Err(e) => {
                self.hand_off(Handoff::Failed { error: e.to_string(), rest_states: params.len() });
                CpuBackend.rest_states(system, params, options)
            }
        }
    }

    fn warm_rest_states(&self, jobs: &[RestJob]) -> Vec<Result<RestState, PbdError>> {
        self.hand_off(Handoff::WarmStarts);
        CpuBackend.warm_rest_states(jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(n: usize) -> MeshData {
        let body = pbdfit_mesh::SceneSet::builtin("gravity-floor").unwrap().scenes()[0].body(n).unwrap();
        MeshData::new(&PbdSystem::new(&body))
    }

    #[test]
    fn plans_fit_the_workgroup() {
        let limits = wgpu::Limits::default(); // 16 KiB of workgroup memory
        let tiny = Plan::new(&mesh(1), &limits, false).unwrap();
        assert_eq!((tiny.tps, tiny.spw), (4, 16), "N = 1: groups of at most 4 constraints");
        let small = Plan::new(&mesh(4), &limits, false).unwrap();
        assert_eq!((small.tps, small.spw, small.max_owned), (64, 1, 2));
        assert!(small.spw * Plan::bytes_per_simulation(&mesh(4), small.multipliers) <= 16384);
        // Per-tetrahedron constraints keep two more multipliers per tetrahedron.
        let m = mesh(4);
        let with_terms = Plan::new(&m, &limits, true).unwrap();
        assert_eq!(small.multipliers, m.distance_count() + m.volume_count());
        assert_eq!(with_terms.multipliers, small.multipliers + 2 * m.volume_count());
        assert!(with_terms.header(&m).contains(&format!("const NL: u32 = {}u;", with_terms.multipliers)));
        assert!(Plan::new(&mesh(6), &limits, false).is_none(), "N = 6 needs more than 16 KiB");
        let header = tiny.header(&mesh(1));
        assert!(header.contains("const NP: u32 = 8u;") && header.contains("const SPW: u32 = 16u;"));
    }
}
