//! `--backend cpu|gpu|auto`: which backend computes rest states, and the one line saying so.

use std::fmt;
use std::str::FromStr;

use pbdfit_pbd::{CpuBackend, PbdSystem, RestStateBackend};

use crate::context::one_line;
use crate::{GpuBackend, GpuContext, HandoffObserver};

/// The backend a command asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The f64 CPU path (threads over parameter points).
    Cpu,
    /// The GPU (f32 kernels); the CPU path with a one-line message when there is no adapter.
    Gpu,
    /// The GPU when a hardware adapter exists and the work is large enough to gain, else the CPU.
    #[default]
    Auto,
}

impl BackendChoice {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Cpu => "cpu",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Auto => "auto",
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "cpu" => Ok(BackendChoice::Cpu),
            "gpu" => Ok(BackendChoice::Gpu),
            "auto" => Ok(BackendChoice::Auto),
            other => Err(format!("unknown backend `{other}`: expected cpu, gpu or auto")),
        }
    }
}

/// How much rest-state work a command is about to do: `rest_states` rest states of a body with
/// `particles` particles (a grid sweep is 441 of them; a study many grid sweeps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkSize {
    /// Particles of the body.
    pub particles: usize,
    /// Rest states per call to the backend (a grid sweep: 441).
    pub rest_states: usize,
}

impl WorkSize {
    /// The work of `rest_states` rest states of `system`.
    pub fn new(system: &PbdSystem, rest_states: usize) -> Self {
        Self { particles: system.particle_count(), rest_states }
    }

    /// Whether a hardware GPU is expected to beat the CPU path on this work.
    ///
    /// The rule, from the CPU figures measured on the development machine (2 cores, rest states by
    /// Anderson fixed point; `pbdfit bench gpu` prints them): a 441-point grid costs the CPU about 15 ms
    /// at N = 1 (8 particles), 0.2 s at N = 2 (27) and 4 s at N = 4 (125), i.e. roughly 4-80 us per
    /// particle and rest state, growing with N. A GPU call has a fixed cost of several milliseconds
    /// (kernel compilation on first use, uploads, a status read-back per chunk of steps) and its
    /// stepping needs more sweeps per rest state than Anderson does, so it only pays once the CPU would
    /// spend about a second: from `rest_states x particles >= 20000` (a grid at N >= 3), or for any
    /// single body with at least 4096 particles (N >= 15), where one rest state alone takes the CPU
    /// seconds. Only the CPU side of this rule was measured here (the task had no hardware GPU);
    /// software adapters never qualify (see [`choose_backend`]).
    pub fn gains_on_gpu(&self) -> bool {
        self.particles >= 4096 || self.rest_states.saturating_mul(self.particles) >= 20_000
    }
}

/// The backend for `requested` and `work`, and one line saying which was chosen and why (for the
/// command to print).
///
/// - `cpu`: the CPU backend; no adapter is probed.
/// - `gpu`: the GPU backend on the best adapter, even a software one (the user asked); with no adapter,
///   the CPU backend and a message saying so.
/// - `auto`: the GPU backend when a hardware adapter exists and [`WorkSize::gains_on_gpu`]; else the CPU.
///   A software adapter (wgpu `DeviceType::Cpu`: Mesa's lavapipe, WARP, SwiftShader) never wins: it
///   runs the same kernels on the same cores the CPU path uses, hundreds of times slower (see the
///   crate's benchmark figures).
///
/// ```
/// use pbdfit_gpu::{BackendChoice, WorkSize, choose_backend};
/// let (backend, message) = choose_backend(BackendChoice::Cpu, WorkSize { particles: 8, rest_states: 441 }, None);
/// assert!(backend.name().starts_with("cpu"));
/// assert!(message.starts_with("backend: cpu"));
/// ```
pub fn choose_backend(
    requested: BackendChoice,
    work: WorkSize,
    observer: Option<HandoffObserver>,
) -> (Box<dyn RestStateBackend>, String) {
    let gpu = |ctx: GpuContext| -> Box<dyn RestStateBackend> {
        let backend = GpuBackend::new(ctx);
        Box::new(match &observer {
            Some(o) => backend.with_observer(o.clone()),
            None => backend,
        })
    };
    let cpu = || -> Box<dyn RestStateBackend> { Box::new(CpuBackend) };
    match requested {
        BackendChoice::Cpu => {
            (cpu(), format!("backend: {} (the default; --backend gpu or auto for a GPU)", CpuBackend.name()))
        }
        BackendChoice::Gpu => match GpuContext::new() {
            Ok(ctx) => {
                let note = if ctx.is_software() { ", a software renderer: slower than the CPU path" } else { "" };
                let message = format!("backend: gpu ({}{note}) (--backend gpu)", ctx.describe());
                (gpu(ctx), message)
            }
            Err(e) => {
                (cpu(), format!("backend: {} (--backend gpu, but {})", CpuBackend.name(), one_line(&e.to_string())))
            }
        },
        BackendChoice::Auto => {
            let ctx = match GpuContext::new() {
                Ok(ctx) => ctx,
                Err(e) => {
                    let message = format!("backend: {} (auto: {})", CpuBackend.name(), one_line(&e.to_string()));
                    return (cpu(), message);
                }
            };
            if ctx.is_software() {
                let message = format!(
                    "backend: {} (auto: the only GPU adapter is a software renderer, {})",
                    CpuBackend.name(),
                    ctx.adapter_name()
                );
                return (cpu(), message);
            }
            if !work.gains_on_gpu() {
                let message = format!(
                    "backend: {} (auto: {} rest states of {} particles are too little work for the GPU, {})",
                    CpuBackend.name(),
                    work.rest_states,
                    work.particles,
                    ctx.adapter_name()
                );
                return (cpu(), message);
            }
            let message = format!(
                "backend: gpu ({}) (auto: {} rest states of {} particles)",
                ctx.describe(),
                work.rest_states,
                work.particles
            );
            (gpu(ctx), message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print() {
        for choice in [BackendChoice::Cpu, BackendChoice::Gpu, BackendChoice::Auto] {
            assert_eq!(choice.name().parse::<BackendChoice>(), Ok(choice));
        }
        assert_eq!("GPU".parse::<BackendChoice>(), Ok(BackendChoice::Gpu));
        assert!("cuda".parse::<BackendChoice>().unwrap_err().contains("cpu, gpu or auto"));
    }

    #[test]
    fn the_work_rule() {
        // Grids: N = 1 and 2 stay on the CPU, N >= 3 go to a hardware GPU.
        assert!(!WorkSize { particles: 8, rest_states: 441 }.gains_on_gpu());
        assert!(!WorkSize { particles: 27, rest_states: 441 }.gains_on_gpu());
        assert!(WorkSize { particles: 64, rest_states: 441 }.gains_on_gpu());
        assert!(WorkSize { particles: 125, rest_states: 441 }.gains_on_gpu());
        // A pattern-search poll (4 points) of a small body stays on the CPU; one large body does not.
        assert!(!WorkSize { particles: 125, rest_states: 4 }.gains_on_gpu());
        assert!(WorkSize { particles: 17 * 17 * 17, rest_states: 1 }.gains_on_gpu());
    }

    #[test]
    fn one_line_messages() {
        assert_eq!(one_line("a\n  b\tc"), "a b c");
        let (_, message) = choose_backend(BackendChoice::Cpu, WorkSize { particles: 8, rest_states: 1 }, None);
        assert!(!message.contains('\n'));
    }
}
