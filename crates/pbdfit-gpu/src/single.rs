//! One simulation of one (large) mesh: one thread per particle or constraint, one dispatch per colour
//! group per sweep, all data resident on the device.

use std::num::NonZeroU64;

use pbdfit_pbd::{PbdError, PbdSystem, RestOptions, RestState, SimParams, Vec3};

use crate::context::{floats, storage_entry, uniform_entry, words};
use crate::layout::{MeshData, bits, shader_source, sim_words};
use crate::rest::{Body, DeviceOutcome, RUNNING};
use crate::{GpuContext, GpuError};

/// The kernel's own part of the source (see [`shader_source`]).
const KERNEL: &str = include_str!("shaders/single.wgsl");
const WORKGROUP: u32 = 64;
const STATS_BYTES: u64 = 48;

/// The largest step and displacement of the last time step (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepStats {
    /// Largest per-particle displacement of the step, `max |u_{n+1} - u_n|` (m).
    pub step: f64,
    /// Largest displacement from the initial configuration, `max |u_{n+1}|` (m).
    pub largest: f64,
}

/// One PBD simulation on the GPU, following `PbdSystem::step` exactly (f32): per step one prediction
/// dispatch, per sweep one dispatch per colour group (its distances and its volumes) in the CPU's
/// order, one velocity-update dispatch. Displacements, velocities and constraint data stay on the
/// device; only what is asked for is read back.
///
/// ```no_run
/// use pbdfit_gpu::{GpuContext, GpuSimulation};
/// use pbdfit_pbd::{Model, PbdSystem, SimParams};
/// let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(16).unwrap();
/// let system = PbdSystem::new(&body);
/// let ctx = GpuContext::new()?;
/// let mut sim = GpuSimulation::new(&ctx, &system, &SimParams::new(0.01, 1, Model::pbd(0.5, 0.5)))?;
/// sim.step(100)?;
/// let u = sim.displacements()?; // m, f64 from the f32 device state
/// # Ok::<(), pbdfit_gpu::GpuError>(())
/// ```
pub struct GpuSimulation {
    ctx: GpuContext,
    params: SimParams,
    body: Body,
    mesh: MeshData,
    state: wgpu::Buffer,
    stats: wgpu::Buffer,
    sim: wgpu::Buffer,
    initial_state: Vec<u32>,
    pipelines: Vec<wgpu::ComputePipeline>,
    bind0: wgpu::BindGroup,
    bind1: wgpu::BindGroup,
    group_stride: u32,
    gravity: [f64; 3],
    steps: usize,
}

impl std::fmt::Debug for GpuSimulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuSimulation")
            .field("adapter", &self.ctx.adapter_name())
            .field("particles", &self.mesh.particle_count)
            .field("steps", &self.steps)
            .finish()
    }
}

fn groups_of(n: usize) -> u32 {
    n.div_ceil(WORKGROUP as usize) as u32
}

impl GpuSimulation {
    /// Uploads the body and the parameters; the body starts at rest in its initial configuration.
    /// Errors: invalid parameters (as on the CPU), a body beyond the device's limits, shader failures.
    pub fn new(ctx: &GpuContext, system: &PbdSystem, params: &SimParams) -> Result<Self, GpuError> {
        params.validate()?;
        if !system.is_gravity_only() {
            return Err(GpuError::Parameters(pbdfit_pbd::PbdError::Unsupported {
                model: params.model.kind().name().to_string(),
                what: "the GPU kernels take gravity as the only load: a scene with tractions or prescribed \
                       displacements runs on the CPU (--backend cpu)",
            }));
        }
        let mesh = MeshData::new(system);
        let np = mesh.particle_count;
        let (nd, nv) = (mesh.distance_count(), mesh.volume_count());
        let limits = &ctx.limits;
        let largest_binding = [6 * np * 16, nv * 15 * 4, nd * 16, nv * 16].into_iter().max().unwrap_or(0) as u64;
        let largest_dispatch = groups_of(mesh.free.len().max(nd + nv).max(mesh.max_group));
        if largest_binding > limits.max_storage_buffer_binding_size
            || largest_dispatch > limits.max_compute_workgroups_per_dimension
        {
            return Err(GpuError::TooLarge {
                what: format!("a mesh with {np} particles and {} constraints", nd + nv),
                adapter: ctx.adapter_name().into(),
                reason: format!(
                    "needs a {largest_binding}-byte storage binding and {largest_dispatch} workgroups per dispatch \
                     (limits {} bytes, {} workgroups)",
                    limits.max_storage_buffer_binding_size, limits.max_compute_workgroups_per_dimension
                ),
            });
        }
        let gravity = system.gravity();
        // Blocks of np vec4: hi of u, lo of u, v, lo of the prediction, hi and lo of the window snapshot
        // (single.wgsl); the lo parts of u and the prediction carry the inverse masses in w.
        let mut initial = vec![0f32; 24 * np];
        for (p, &w) in mesh.inverse_masses.iter().enumerate() {
            initial[4 * (np + p) + 3] = w;
            initial[4 * (3 * np + p) + 3] = w;
        }
        let initial_state = bits(&initial);
        let usage = wgpu::BufferUsages::empty();
        let sim = ctx.uniform("sim", &sim_words(params, [gravity.x, gravity.y, gravity.z], 0.0, u32::MAX)?);
        let mesh_words = [np as u32, mesh.free.len() as u32, nd as u32, nv as u32, mesh.extent.to_bits(), 0, 0, 0];
        let mesh_buf = ctx.uniform("mesh", &mesh_words);
        let state = ctx.storage("state", &initial_state, usage);
        let free = ctx.storage("free", &mesh.free, usage);
        let dist_idx = ctx.storage("dist_idx", &mesh.dist_idx, usage);
        let dist_geo = ctx.storage("dist_geo", &bits(&mesh.dist_geo), usage);
        let vol_idx = ctx.storage("vol_idx", &mesh.vol_idx, usage);
        let vol_geo = ctx.storage("vol_geo", &bits(&mesh.vol_geo), usage);
        // Distances, volumes, then two per tetrahedron for its own constraints (single.wgsl).
        let lambdas = ctx.storage("lambdas", &vec![0; nd + nv * (1 + pbdfit_pbd::MAX_TETRAHEDRON_TERMS)], usage);
        let stats = ctx.storage("stats", &[0; STATS_BYTES as usize / 4], usage);
        let group_stride = limits.min_uniform_buffer_offset_alignment.max(16);
        let mut ranges = vec![0u32; mesh.groups.len() * (group_stride as usize / 4)];
        for (g, range) in mesh.groups.iter().enumerate() {
            let o = g * group_stride as usize / 4;
            ranges[o..o + 4].copy_from_slice(range);
        }
        let ranges = ctx.uniform("group ranges", &ranges);

        let layout0 = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("single mesh"),
            entries: &[
                uniform_entry(0, false),
                uniform_entry(1, false),
                storage_entry(2, false),
                storage_entry(3, true),
                storage_entry(4, true),
                storage_entry(5, true),
                storage_entry(6, true),
                storage_entry(7, true),
                storage_entry(8, false),
                storage_entry(9, false),
            ],
        });
        let layout1 = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("colour group"),
            entries: &[uniform_entry(0, true)],
        });
        let pipelines = ctx.pipelines(
            "single-mesh",
            &shader_source(KERNEL),
            &[&layout0, &layout1],
            &["predict", "project", "velocity", "check"],
        )?;
        let buffers = [&sim, &mesh_buf, &state, &free, &dist_idx, &dist_geo, &vol_idx, &vol_geo, &lambdas, &stats];
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        let bind0 = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout0,
            entries: &entries,
        });
        let bind1 = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout1,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &ranges,
                    offset: 0,
                    size: NonZeroU64::new(16),
                }),
            }],
        });
        ctx.take_error("uploading the mesh")?;
        Ok(Self {
            ctx: ctx.clone(),
            params: *params,
            body: Body::new(system, mesh.extent),
            mesh,
            state,
            stats,
            sim,
            initial_state,
            pipelines,
            bind0,
            bind1,
            group_stride,
            gravity: [gravity.x, gravity.y, gravity.z],
            steps: 0,
        })
    }

    /// Changes the parameters (same body, buffers reused) and puts the body back at rest.
    pub fn set_params(&mut self, params: &SimParams) -> Result<(), GpuError> {
        params.validate()?;
        self.params = *params;
        let words = sim_words(params, self.gravity, 0.0, u32::MAX)?;
        self.ctx.queue.write_buffer(&self.sim, 0, bytemuck::cast_slice(&words));
        self.reset();
        Ok(())
    }

    /// Time steps done since the start (or the last rest-state computation).
    pub fn steps_done(&self) -> usize {
        self.steps
    }

    /// Projections (constraint projections) per time step: constraints x nit.
    pub fn projections_per_step(&self) -> usize {
        (self.mesh.distance_count() + self.mesh.volume_count()) * self.params.nit
    }

    /// Records `n` time steps; with `check`, each is followed by the device-side rest test.
    fn encode(&self, encoder: &mut wgpu::CommandEncoder, n: usize, check: bool) {
        let [predict, project, velocity, rest_test] = [0, 1, 2, 3].map(|i| &self.pipelines[i]);
        let particles_or_constraints =
            groups_of(self.mesh.free.len().max(self.mesh.distance_count() + self.mesh.volume_count()));
        let free = groups_of(self.mesh.free.len());
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_bind_group(0, &self.bind0, &[]);
        pass.set_bind_group(1, &self.bind1, &[0]);
        for _ in 0..n {
            pass.set_pipeline(predict);
            pass.dispatch_workgroups(particles_or_constraints, 1, 1);
            pass.set_pipeline(project);
            for _ in 0..self.params.nit {
                for (g, range) in self.mesh.groups.iter().enumerate() {
                    pass.set_bind_group(1, &self.bind1, &[g as u32 * self.group_stride]);
                    pass.dispatch_workgroups(groups_of((range[1] + range[3]) as usize), 1, 1);
                }
            }
            pass.set_pipeline(velocity);
            pass.dispatch_workgroups(free, 1, 1);
            if check {
                pass.set_pipeline(rest_test);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
    }

    /// Submits `n` steps in command buffers of at most `chunk` steps.
    fn submit_steps(&mut self, n: usize, check: bool) {
        // Keep command buffers moderate: a step of a large mesh is dozens of dispatches.
        let chunk = (4096 / (self.mesh.groups.len() * self.params.nit + 3)).max(1);
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk);
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            self.encode(&mut encoder, k, check);
            self.ctx.queue.submit([encoder.finish()]);
            left -= k;
        }
        self.steps += n;
    }

    /// Runs `n` time steps (docs/method.md, section The model's step), waiting for the device to finish.
    pub fn step(&mut self, n: usize) -> Result<(), GpuError> {
        self.ctx.queue.write_buffer(&self.stats, 0, &[0; STATS_BYTES as usize]);
        self.submit_steps(n, false);
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.ctx.failed("stepping", e.to_string()))?;
        self.ctx.take_error("stepping")
    }

    fn outcome(&self) -> Result<DeviceOutcome, GpuError> {
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        let bytes = self.ctx.read(encoder, &self.stats, 0, STATS_BYTES, "reading the step statistics")?;
        let w = words(&bytes);
        Ok(DeviceOutcome { status: w[3], steps: w[4], residual: f32::from_bits(w[5]), largest: f32::from_bits(w[6]) })
    }

    /// The largest step and displacement of the last step run (m).
    pub fn last_step(&self) -> Result<StepStats, GpuError> {
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        let w = words(&self.ctx.read(encoder, &self.stats, 0, STATS_BYTES, "reading the step statistics")?);
        Ok(StepStats { step: f32::from_bits(w[0]) as f64, largest: f32::from_bits(w[1]) as f64 })
    }

    fn read_vectors(&self, block: usize, during: &str) -> Result<Vec<Vec3>, GpuError> {
        let np = self.mesh.particle_count as u64;
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        let bytes = self.ctx.read(encoder, &self.state, block as u64 * np * 16, np * 16, during)?;
        Ok(floats(&bytes).chunks_exact(4).map(|v| Vec3::new(v[0] as f64, v[1] as f64, v[2] as f64)).collect())
    }

    /// Displacements from the initial configuration, per particle (m): the device's two-float value
    /// `hi + lo`, summed in f64.
    pub fn displacements(&self) -> Result<Vec<Vec3>, GpuError> {
        let np = self.mesh.particle_count as u64;
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        let v = floats(&self.ctx.read(encoder, &self.state, 0, 2 * np * 16, "reading the displacements")?);
        let (hi, lo) = v.split_at(v.len() / 2);
        Ok(hi
            .chunks_exact(4)
            .zip(lo.chunks_exact(4))
            .map(|(h, l)| Vec3::new(h[0] as f64 + l[0] as f64, h[1] as f64 + l[1] as f64, h[2] as f64 + l[2] as f64))
            .collect())
    }

    /// Velocities, per particle (m/s).
    pub fn velocities(&self) -> Result<Vec<Vec3>, GpuError> {
        self.read_vectors(2, "reading the velocities")
    }

    /// Puts the body back at rest in its initial configuration.
    pub fn reset(&mut self) {
        self.ctx.queue.write_buffer(&self.state, 0, bytemuck::cast_slice(&self.initial_state));
        self.ctx.queue.write_buffer(&self.stats, 0, &[0; STATS_BYTES as usize]);
        self.steps = 0;
    }

    /// The rest state from a cold start by stepping, with the windowed rest test on the device (see the
    /// crate documentation; tolerance at least [`crate::F32_TOLERANCE_FLOOR`]). The host records many
    /// steps ahead (kernels return at once after rest) and reads back a status word between batches
    /// of steps only. The outer error is a device failure; the inner one the CPU path's verdict for
    /// these parameters (divergence, inverted tetrahedron).
    pub fn rest_state(&mut self, options: &RestOptions) -> Result<Result<RestState, PbdError>, GpuError> {
        self.reset();
        let gravity = self.gravity;
        let tolerance = crate::device_tolerance(options);
        let max_steps = crate::device_max_steps(options, self.params.nit);
        let words = sim_words(&self.params, gravity, tolerance, max_steps)?;
        self.ctx.queue.write_buffer(&self.sim, 0, bytemuck::cast_slice(&words));
        let mut chunk = 16usize;
        let outcome = loop {
            self.submit_steps(chunk, true);
            let outcome = self.outcome()?;
            // A fit's time limit ends the stepping as on the CPU: unconverged.
            if outcome.status != RUNNING || options.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                break outcome;
            }
            chunk = (chunk * 2).min(1024);
        };
        self.steps = outcome.steps as usize;
        let u = self.displacements()?;
        Ok(self.body.finish(&self.params, u, outcome))
    }
}
