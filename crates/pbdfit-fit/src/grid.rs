//! The grid sweep over a search box: every point's rest state, computed once per (scene, settings,
//! box) and shared by the fits of every material (a PBD rest state does not depend on E or nu); and the
//! search's rest states, shared the same way ([`SharedRestStates`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use pbdfit_pbd::{PbdSystem, RestOptions, RestStateBackend, Vec3};

use crate::problem::{RestResult, displacements_or_reason};
use crate::{FitError, FitOptions, SearchBox, Settings};

/// Bytes a grid point's rest state costs per vertex while the grid is computed: the backend's rest state
/// (positions and displacements, 48 bytes) and the displacements kept for the fit (24 bytes).
const GRID_BYTES_PER_VERTEX: f64 = 72.0;
/// Bytes a grid point costs besides its vertices: its unit coordinates, the rest state's vectors and
/// result, the backend's per-point parameters.
const GRID_BYTES_PER_POINT: f64 = 512.0;

/// Refuses a grid of `points` points (`per_axis` per axis) on `system`'s body whose rest states would not
/// fit in the memory available ([`pbdfit_mesh::available_memory`]; no refusal where it is unknown): the
/// grid's twin of the scene's size guard for bodies ([`pbdfit_mesh::SizeEstimate`]). The number of
/// points itself is bounded by [`MAX_GRID_POINTS`](crate::MAX_GRID_POINTS) when the options are
/// checked.
pub fn check_grid_memory(system: &PbdSystem, points: usize, per_axis: usize) -> Result<(), FitError> {
    check_grid_memory_in(
        system.scene(),
        system.rest_positions().len(),
        points,
        per_axis,
        pbdfit_mesh::available_memory(),
    )
}

/// [`check_grid_memory`] against `available` bytes.
pub(crate) fn check_grid_memory_in(
    scene: &str,
    vertices: usize,
    points: usize,
    per_axis: usize,
    available: Option<u64>,
) -> Result<(), FitError> {
    let needed = points as f64 * (vertices as f64 * GRID_BYTES_PER_VERTEX + GRID_BYTES_PER_POINT);
    match available {
        Some(limit) if needed > limit as f64 => Err(FitError::GridTooLarge {
            scene: scene.to_string(),
            points,
            per_axis,
            vertices,
            needed: pbdfit_mesh::human_bytes(needed),
            available: pbdfit_mesh::human_bytes(limit as f64),
        }),
        _ => Ok(()),
    }
}

/// Rest displacements of one scene at every grid point (`Err` with the reason where there is none).
#[derive(Debug, Clone)]
pub struct GridRestStates {
    /// Scene name.
    pub scene: String,
    /// The box the grid spans.
    pub search_box: SearchBox,
    /// Grid resolution per axis.
    pub resolution: usize,
    /// The grid's points in unit coordinates (the order of `states`).
    pub points: Vec<Vec<f64>>,
    /// One entry per point of [`SearchBox::grid`], same order.
    pub states: Vec<RestResult>,
    /// The search's rest states on this scene, shared by every fit that uses this grid.
    pub shared: std::sync::Arc<SharedRestStates>,
}

impl GridRestStates {
    /// Computes every point's rest state of the pattern search's grid ([`SearchBox::grid`]) on `backend`
    /// (which spreads them over threads or a GPU).
    pub fn compute(
        system: &PbdSystem,
        settings: &Settings,
        search_box: &SearchBox,
        resolution: usize,
        backend: &dyn RestStateBackend,
        options: &RestOptions,
    ) -> Self {
        Self::compute_at(system, settings, search_box, resolution, search_box.grid(resolution), backend, options)
    }

    /// The grid a fit with `fit`'s options starts from (its search's grid, [`FitOptions::grid_points`]).
    pub fn for_fit(
        system: &PbdSystem,
        settings: &Settings,
        fit: &FitOptions,
        backend: &dyn RestStateBackend,
        options: &RestOptions,
    ) -> Self {
        let options = fit.rest_options(options);
        Self::compute_at(system, settings, &fit.search_box, fit.resolution(), fit.grid_points(), backend, &options)
    }

    fn compute_at(
        system: &PbdSystem,
        settings: &Settings,
        search_box: &SearchBox,
        resolution: usize,
        points: Vec<Vec<f64>>,
        backend: &dyn RestStateBackend,
        options: &RestOptions,
    ) -> Self {
        let params: Vec<_> = points.iter().map(|t| settings.at(&search_box.values(t))).collect();
        let states: Vec<RestResult> = backend
            .rest_states(system, &params, options)
            .into_iter()
            .zip(&params)
            .map(|(r, p)| displacements_or_reason(system, p, r))
            .collect();
        let shared = std::sync::Arc::new(SharedRestStates::new(states.len()));
        Self { scene: system.scene().to_string(), search_box: search_box.clone(), resolution, points, states, shared }
    }

    /// The same grid with an empty [`SharedRestStates`]: fits on it share nothing with fits on `self`.
    pub fn unshared(&self) -> Self {
        Self { shared: std::sync::Arc::new(SharedRestStates::new(self.states.len())), ..self.clone() }
    }
}

/// Which computation produced a rest state: a grid point (its index), or a searched point computed from
/// a warm start with a given lineage. Equal lineages mean equal inputs, hence bit-identical states.
pub type Lineage = u64;

/// A searched rest state's inputs: the parameter point's exact bits (unit coordinates) and the warm
/// start's lineage.
type SharedKey = (Vec<u64>, Lineage);

/// The search's rest states on one scene at one (dt, N, nit), shared across the fits of a study group.
///
/// Why: the fits of one group (every E and nu at one dt, N, nit) search the same rest map, and those
/// that start from the same grid point poll the same points from the same warm starts; [`hits`]
/// counts the rest states one fit took from another.
///
/// [`hits`]: SharedRestStates::hits
///
/// Why results cannot change: a rest state is a deterministic function of the system, the rest options,
/// the exact parameter point and the warm start's displacements. An entry is keyed by the parameter
/// point's exact bits (in unit coordinates, not the fit's rounded memo key) and the warm start's
/// [`Lineage`]; a lineage is a grid index or the id of an entry, so equal keys mean the same chain of
/// computations from the same grid states, and a hit returns the very bits a fresh computation would.
/// Which fit computes an entry first (thread timing) decides only which copy is kept; both are equal.
/// Entries stop being added at [`SharedRestStates::MAX_BYTES`] (a miss is always safe).
#[derive(Debug)]
pub struct SharedRestStates {
    entries: Mutex<HashMap<SharedKey, (Lineage, RestResult)>>,
    next: AtomicU64,
    bytes: AtomicUsize,
    hits: AtomicUsize,
}

impl SharedRestStates {
    /// Memory bound of one scene's shared states (bytes of displacements).
    pub const MAX_BYTES: usize = 256 << 20;

    /// An empty store for a grid of `grid_points` points (their lineages are `0..grid_points`).
    pub fn new(grid_points: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            next: AtomicU64::new(grid_points as u64),
            bytes: AtomicUsize::new(0),
            hits: AtomicUsize::new(0),
        }
    }

    /// The rest state at the point `t` (unit coordinates) warm-started from the state of lineage `warm`,
    /// from the store or computed by `compute` (outside the lock) and stored; with its lineage.
    pub fn get_or_compute(
        &self,
        t: &[f64],
        warm: Lineage,
        compute: impl FnOnce() -> RestResult,
    ) -> (Lineage, RestResult) {
        let key = (t.iter().map(|x| x.to_bits()).collect::<Vec<u64>>(), warm);
        if let Some((id, r)) = self.entries.lock().expect("shared rest states lock").get(&key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return (*id, r.clone());
        }
        let result = compute();
        let size = result.as_ref().map_or(0, |u| u.len() * std::mem::size_of::<Vec3>());
        let mut entries = self.entries.lock().expect("shared rest states lock");
        if let Some((id, r)) = entries.get(&key) {
            return (*id, r.clone());
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if self.bytes.load(Ordering::Relaxed) + size <= Self::MAX_BYTES {
            self.bytes.fetch_add(size, Ordering::Relaxed);
            entries.insert(key, (id, result.clone()));
        }
        (id, result)
    }

    /// A lineage no entry has: for a rest state computed without a warm start, which no later lookup
    /// can match.
    pub fn fresh_lineage(&self) -> Lineage {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Lookups answered from the store so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid whose rest states would not fit in memory is refused
    /// naming the scene, the points, the memory needed and available and what to lower; the bound is
    /// the body's vertices times the points, and no refusal where the memory is unknown.
    #[test]
    fn a_grid_beyond_the_memory_is_refused() {
        // N = 8: 729 vertices; 100,000 points need about 5.3 GB.
        let e = check_grid_memory_in("gravity-floor", 729, 100_000, 316, Some(4_000_000_000)).unwrap_err();
        let text = e.to_string();
        assert!(e.is_input(), "{text}");
        for word in ["gravity-floor", "100000 points", "316 per axis", "729 vertices", "5.3 GB", "4.0 GB", "--grid"] {
            assert!(text.contains(word), "`{word}` missing from: {text}");
        }
        assert!(check_grid_memory_in("gravity-floor", 729, 441, 21, Some(4_000_000_000)).is_ok());
        assert!(check_grid_memory_in("gravity-floor", 729, 100_000, 316, None).is_ok());
        assert!(check_grid_memory_in("gravity-floor", 8, usize::MAX, usize::MAX, Some(u64::MAX)).is_err());
    }
}
