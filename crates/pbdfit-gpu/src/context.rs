//! The device: adapter discovery, error capture, and the few buffer and pipeline helpers every kernel uses.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

use crate::GpuError;

/// An opened GPU device and its queue. Cheap to clone (the handles are reference counted).
///
/// Validation errors and device loss never panic: they are collected and turned into [`GpuError`]s by
/// the operation that caused them.
#[derive(Clone)]
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pub(crate) limits: wgpu::Limits,
    errors: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext").field("adapter", &self.info.name).field("backend", &self.info.backend).finish()
    }
}

impl GpuContext {
    /// Opens the best adapter (high-performance preference) on the primary backends (Vulkan, Metal,
    /// DX12); `WGPU_BACKEND` (e.g. `gl`) overrides the backends. No adapter, or any failure while
    /// opening it, is an error, never a panic.
    ///
    /// ```
    /// match pbdfit_gpu::GpuContext::new() {
    ///     Ok(ctx) => println!("GPU: {}", ctx.adapter_name()),
    ///     Err(e) => println!("CPU path: {e}"),
    /// }
    /// ```
    pub fn new() -> Result<Self, GpuError> {
        // Quietly: the panic hook would print wgpu's panic and a backtrace note before the error (issue
        // 26). The later calls need no such guard: validation errors go to `on_uncaptured_error` and
        // pipeline creation runs in an error scope, so they are `GpuError`s, not panics.
        match pbdfit_mesh::import::quietly(AssertUnwindSafe(Self::open)) {
            Ok(result) => result,
            Err(panic) => {
                let reason = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "wgpu panicked".into());
                Err(GpuError::NoAdapter { reason: one_line(&reason) })
            }
        }
    }

    fn open() -> Result<Self, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .map_err(|e| GpuError::NoAdapter { reason: one_line(&e.to_string()) })?;
        let info = adapter.get_info();
        // Ask for everything the adapter offers: workgroup memory and storage-buffer sizes decide which
        // meshes the kernels take, and software adapters offer more than WebGPU's defaults.
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("pbdfit"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device { adapter: info.name.clone(), reason: one_line(&e.to_string()) })?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut list) = sink.lock() {
                list.push(e.to_string());
            }
        }));
        Ok(Self { device, queue, info, limits, errors })
    }

    /// The adapter's name (e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`, `NVIDIA H100 80GB HBM3`).
    pub fn adapter_name(&self) -> &str {
        &self.info.name
    }

    /// Adapter name, type and backend in one line, e.g. `llvmpipe (LLVM 15.0.6, 256 bits), Cpu, Vulkan`.
    pub fn describe(&self) -> String {
        format!("{}, {:?}, {:?}", self.info.name, self.info.device_type, self.info.backend)
    }

    /// Whether the adapter is a software renderer on the CPU (Mesa's lavapipe/llvmpipe, WARP, SwiftShader):
    /// correct, but slower than the native CPU path.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// The adapter's details as wgpu reports them.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The first error collected since the last call, as a [`GpuError`].
    pub(crate) fn take_error(&self, during: &str) -> Result<(), GpuError> {
        let mut list = self.errors.lock().map_err(|_| self.failed(during, "error list poisoned".into()))?;
        if list.is_empty() {
            return Ok(());
        }
        let reason = list.remove(0);
        list.clear();
        Err(self.failed(during, reason))
    }

    /// A [`GpuError::Failed`]; wgpu's multi-line reports are folded into one line.
    pub(crate) fn failed(&self, during: &str, reason: String) -> GpuError {
        GpuError::Failed { adapter: self.info.name.clone(), during: during.into(), reason: one_line(&reason) }
    }

    /// A storage buffer holding `words` (at least 16 bytes: empty bindings are invalid).
    pub(crate) fn storage(&self, label: &str, words: &[u32], extra: wgpu::BufferUsages) -> wgpu::Buffer {
        let mut data = words.to_vec();
        data.resize(data.len().max(4), 0);
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | extra,
        })
    }

    /// A uniform buffer holding `words`.
    pub(crate) fn uniform(&self, label: &str, words: &[u32]) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(words),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// Compiles `source` and builds one compute pipeline per entry point on `layouts`; shader errors come
    /// back as [`GpuError::Failed`].
    pub(crate) fn pipelines(
        &self,
        label: &str,
        source: &str,
        layouts: &[&wgpu::BindGroupLayout],
        entry_points: &[&str],
    ) -> Result<Vec<wgpu::ComputePipeline>, GpuError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let layouts: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(|l| Some(*l)).collect();
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &layouts,
            immediate_size: 0,
        });
        let pipelines = entry_points
            .iter()
            .map(|entry| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(self.failed(&format!("compiling the {label} kernels"), e.to_string()));
        }
        Ok(pipelines)
    }

    /// Submits `encoder`, then copies `size` bytes of `source` from `offset` back to the host and waits.
    pub(crate) fn read(
        &self,
        mut encoder: wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        offset: u64,
        size: u64,
        during: &str,
    ) -> Result<Vec<u8>, GpuError> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(source, offset, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| self.failed(during, e.to_string()))?;
        self.take_error(during)?;
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(self.failed(during, e.to_string())),
            Err(e) => return Err(self.failed(during, e.to_string())),
        }
        let bytes = staging.slice(..).get_mapped_range().map_err(|e| self.failed(during, e.to_string()))?.to_vec();
        staging.unmap();
        Ok(bytes)
    }
}

/// `text` with every run of whitespace (newlines included) replaced by one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bind-group layout entries for compute shaders.
pub(crate) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn uniform_entry(binding: u32, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Little-endian words to f32.
pub(crate) fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// Little-endian words to u32.
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}
