//! Size guards: what a body will cost before it is built. `pbdfit fem --n 2000` would otherwise ask for a
//! 192 GB vertex array and abort; with the guard it is refused with the estimate and the limit.
//!
//! The estimate covers the whole pipeline on one body: the mesh, the PBD system (constraints in two
//! layouts, colours, rest-state scratch and Anderson history) and the FEM reference (the sparse stiffness
//! and its Cholesky factor, whose fill grows faster than the vertex count). The constants were measured
//! as peak resident memory (`/usr/bin/time -f %M`) of `pbdfit fem` and `pbdfit simulate` on the unit cube
//! at N = 16 and 32; the sum errs on the high side (1.4 GB estimated at N = 32, where the FEM alone
//! peaks at 1.0 GB and PBD at 0.15 GB).

/// Bytes per vertex of the mesh and the PBD system (constraints in two layouts, colours, rest-state
/// scratch, Anderson history). Measured: 149 MB peak for `pbdfit simulate` at N = 32 (35,937 vertices),
/// 4.1 kB per vertex.
const BYTES_PER_VERTEX: f64 = 4_500.0;
/// The FEM's sparse Cholesky factor dominates large bodies: its fill grows as vertices^(4/3) (nested
/// dissection in 3D). Measured peak of `pbdfit fem`: 70 MB at N = 16 (4,913 vertices), 996 MB at N = 32,
/// i.e. 845 and 844 bytes x vertices^(4/3); rounded up.
const FEM_BYTES_PER_VERTEX_POW_4_3: f64 = 1_000.0;
/// Fixed cost of the process (binary, allocator, thread pool), bytes.
const BASE_BYTES: f64 = 30e6;

/// What a body of a given size will need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeEstimate {
    /// Vertices.
    pub vertices: u64,
    /// Tetrahedra.
    pub tets: u64,
    /// Peak memory of building and solving it (FEM reference and PBD rest states), bytes.
    pub bytes: f64,
}

impl SizeEstimate {
    /// The estimate for a mesh of `vertices` and `tets`.
    pub fn new(vertices: u64, tets: u64) -> Self {
        let v = vertices as f64;
        Self {
            vertices,
            tets,
            bytes: BASE_BYTES + v * BYTES_PER_VERTEX + FEM_BYTES_PER_VERTEX_POW_4_3 * v.powf(4.0 / 3.0),
        }
    }

    /// The unit cube at resolution N: (N + 1)^3 vertices, 5 N^3 tetrahedra (saturating, so a huge N
    /// gives a huge estimate rather than an overflow).
    pub fn unit_cube(n: usize) -> Self {
        let n = n as u64;
        let side = n.saturating_add(1);
        let vertices = side.saturating_mul(side).saturating_mul(side);
        let tets = n.saturating_mul(n).saturating_mul(n).saturating_mul(5);
        Self::new(vertices, tets)
    }

    /// Refuses a body that cannot fit in `available` bytes, naming the estimate and the limit.
    pub fn check(&self, available: Option<u64>) -> Result<(), String> {
        match available {
            Some(limit) if self.bytes > limit as f64 => Err(format!(
                "a body of {} vertices and {} tetrahedra needs about {} of memory (FEM factorisation and PBD \
                 system), but only {} is available; use a smaller resolution",
                self.vertices,
                self.tets,
                human_bytes(self.bytes),
                human_bytes(limit as f64)
            )),
            _ => Ok(()),
        }
    }
}

/// Memory available to a new allocation, bytes: `MemAvailable` from `/proc/meminfo` (Linux), capped by
/// the cgroup limit where one is set. `None` where neither can be read (no guard there).
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let available = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb.saturating_mul(1024))?;
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|s| s.trim().parse::<u64>().ok());
    Some(cgroup.map_or(available, |c| c.min(available)))
}

/// `1.5 GB`, `320 MB`, `12 kB` (decimal units).
pub fn human_bytes(bytes: f64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (unit, size) in units {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes / size);
        }
    }
    format!("{bytes:.0} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_covers_the_measured_peaks() {
        // Measured peaks (FEM + PBD) at N = 16 and 32: 70 + 25 MB and 996 + 149 MB.
        for (n, measured) in [(16, 95e6), (32, 1145e6)] {
            let e = SizeEstimate::unit_cube(n).bytes;
            assert!(e >= measured && e <= 2.0 * measured, "N = {n}: {e:e} vs {measured:e}");
        }
    }

    #[test]
    fn the_cube_that_aborted_is_refused_and_small_cubes_pass() {
        let huge = SizeEstimate::unit_cube(2000);
        assert_eq!(huge.vertices, 2001u64.pow(3));
        assert_eq!(huge.tets, 5 * 2000u64.pow(3));
        let e = huge.check(Some(24_000_000_000)).unwrap_err();
        assert!(e.contains("8012006001 vertices") && e.contains("24.0 GB"), "{e}");
        assert!(SizeEstimate::unit_cube(16).check(Some(24_000_000_000)).is_ok());
        // Saturates instead of overflowing.
        assert_eq!(SizeEstimate::unit_cube(usize::MAX).vertices, u64::MAX);
        assert!(SizeEstimate::unit_cube(4).check(None).is_ok(), "no limit known: no refusal");
    }

    #[test]
    fn memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_memory().is_some_and(|b| b > 0));
        }
    }
}
