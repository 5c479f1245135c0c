//! Mass-spring systems (methodology, section Mass-spring systems): a linear spring on every tetrahedron
//! edge, an optional volume penalty per tetrahedron, masses from the scene's mass model, held vertices
//! fixed. The rest state is the static equilibrium `f_int(x) + m g = 0`, solved by Newton with the sparse
//! tangent stiffness (faer's sparse LU: the tangent is indefinite where springs are compressed) and a
//! backtracking line search; the dynamics run with one of four integrators.
//!
//! Units: m, s, kg; `ks` in N/m, `kvol` in Pa, spring damping `c` in N s/m. Lengths and volumes differ
//! from their rest values without cancellation (`l - l0 = (2 e.du + du.du) / (l + l0)`, `V - V0`
//! expanded in the displacements), as in the PBD constraints.

use std::collections::BTreeMap;

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::Lu;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat};
use nalgebra::{DMatrix, Matrix3, SymmetricEigen};

use crate::{PbdSystem, Vec3};

/// The force law of a mass-spring model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringLaw {
    /// Spring constant of every edge (N/m), >= 0.
    pub ks: f64,
    /// Volume penalty of every tetrahedron (Pa), >= 0 (0: none).
    pub kvol: f64,
    /// Spring damping `c` (N s/m), >= 0: force `c ((v2 - v1) . n) n` on the first particle.
    pub damping: f64,
}

impl SpringLaw {
    /// Checks that every constant is finite and >= 0.
    pub fn validate(&self) -> Result<(), SpringError> {
        for (name, value) in [("ks", self.ks), ("kvol", self.kvol), ("damping", self.damping)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(SpringError::InvalidParameter { name, value });
            }
        }
        Ok(())
    }
}

/// An integrator of the mass-spring dynamics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Integrator {
    /// `x += dt v`, `v += dt a(x, v)` (both from the old state).
    ExplicitEuler,
    /// `v += dt a(x, v)`, `x += dt v`.
    SemiImplicitEuler,
    /// Position Verlet: `x_next = x + (x - x_prev) + dt^2 a(x, v)`, `v = (x - x_prev) / dt`.
    Verlet,
    /// Backward Euler in velocity: `M (v1 - v0) = dt f(x0 + dt v1, v1)`, Newton to convergence per step.
    ImplicitEuler,
}

impl Integrator {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Integrator::ExplicitEuler => "explicit-euler",
            Integrator::SemiImplicitEuler => "semi-implicit-euler",
            Integrator::Verlet => "verlet",
            Integrator::ImplicitEuler => "implicit-euler",
        }
    }
}

/// Why a mass-spring computation has no result. Complete sentences; the caller adds model and scene.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpringError {
    /// A constant is negative or not finite.
    #[error("{name} = {value} must be a finite number >= 0")]
    InvalidParameter {
        /// Name (`ks`, `kvol`, `damping`, `dt`).
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// Newton found no equilibrium.
    #[error(
        "Newton's method found no static equilibrium after {iterations} iterations (relative residual \
         {residual:.3e}, needed 1e-12); try a smaller load, stiffer springs or a different model"
    )]
    NewtonFailed {
        /// Iterations done.
        iterations: usize,
        /// Relative residual reached.
        residual: f64,
    },
    /// An explicit run blew up.
    #[error(
        "{integrator} diverged at step {step} with dt = {dt} s: the estimated stability limit is about \
         2 / omega_max = {limit:.3e} s (omega_max^2 the largest eigenvalue of M^-1 K){note}; use a smaller \
         dt, more damping or implicit-euler"
    )]
    Diverged {
        /// Integrator name.
        integrator: &'static str,
        /// The step in s.
        dt: f64,
        /// Step at which it was detected.
        step: usize,
        /// Estimated limit `2 / omega_max` in s.
        limit: f64,
        /// What else limits this integrator (empty when nothing).
        note: &'static str,
    },
}

/// A static equilibrium.
#[derive(Debug, Clone, PartialEq)]
pub struct Equilibrium {
    /// Displacements per vertex (m; 0 for held vertices).
    pub displacements: Vec<Vec3>,
    /// Newton iterations.
    pub iterations: usize,
    /// Final relative residual `|f|_inf / |m g|_inf` over the free vertices.
    pub residual: f64,
    /// The relative residual before each iteration and after the last (to show quadratic convergence).
    pub residuals: Vec<f64>,
}

/// Controls of a dynamic run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntegrateOptions {
    /// Largest number of steps.
    pub max_steps: usize,
    /// Settled when the largest per-step displacement is at most `tolerance` times the largest
    /// displacement (0: run all `max_steps`).
    pub tolerance: f64,
    /// Call the frame callback every `every` steps (and at step 0).
    pub every: usize,
}

/// Where a dynamic run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// Displacements per vertex (m).
    pub displacements: Vec<Vec3>,
    /// Velocities per vertex (m/s).
    pub velocities: Vec<Vec3>,
    /// Steps done.
    pub steps: usize,
    /// Whether the settling test was met.
    pub settled: bool,
    /// Total energy (J) at step 0 and after every step.
    pub energies: Vec<f64>,
}

/// Sparse matrix entries over the free DOFs, `(row, column) -> value`, summed as they are added.
type Entries = BTreeMap<(usize, usize), f64>;

/// A body as springs, built from the PBD system's edges (rest lengths) and tetrahedra (rest volumes).
#[derive(Debug, Clone)]
pub struct SpringBody {
    rest: Vec<Vec3>,
    free: Vec<usize>,
    /// Index of each vertex among the free ones (`usize::MAX` when held).
    slot: Vec<usize>,
    masses: Vec<f64>,
    /// Load acceleration per vertex (m/s^2): gravity plus traction over mass.
    accelerations: Vec<Vec3>,
    /// Displacement of each vertex where held (m; zero where free or plainly held).
    prescribed: Vec<Vec3>,
    extent: f64,
    /// `(a, b, X_b - X_a, l0)`.
    edges: Vec<([usize; 2], Vec3, f64)>,
    /// `(vertices, E1, E2, E3, V0)`.
    tets: Vec<([usize; 4], [Vec3; 3], f64)>,
}

/// `[a]_x`, the cross-product matrix: `[a]_x b = a x b`.
fn cross_matrix(a: Vec3) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

fn inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, a| m.max(a.abs()))
}

impl SpringBody {
    /// The springs of a PBD system's body: its distance constraints' edges and its tetrahedra.
    pub fn new(system: &PbdSystem) -> Self {
        let rest = system.rest.clone();
        let free = system.free.clone();
        let mut slot = vec![usize::MAX; rest.len()];
        for (i, &p) in free.iter().enumerate() {
            slot[p] = i;
        }
        let masses = system.inverse_masses.iter().map(|&w| if w > 0.0 { 1.0 / w } else { 0.0 }).collect();
        let mut edges: Vec<_> = system.distances.iter().map(|c| (c.particles, c.rest_edge, c.rest_length)).collect();
        edges.sort_by_key(|e| e.0);
        let mut tets: Vec<_> = system.volumes.iter().map(|c| (c.particles, c.rest_edges, c.rest_volume)).collect();
        tets.sort_by_key(|t| t.0);
        Self {
            rest,
            free,
            slot,
            masses,
            accelerations: system.accelerations.clone(),
            prescribed: system.prescribed.clone(),
            extent: system.extent,
            edges,
            tets,
        }
    }

    fn dofs(&self) -> usize {
        3 * self.free.len()
    }

    /// The displacement of vertex `p` (m): from the free DOFs `x`, or its prescribed value where held.
    fn vertex(&self, x: &[f64], p: usize) -> Vec3 {
        match self.slot[p] {
            usize::MAX => self.prescribed[p],
            i => Vec3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]),
        }
    }

    /// The velocity of vertex `p` (m/s): from the free DOFs `v`, zero where held.
    fn velocity(&self, v: &[f64], p: usize) -> Vec3 {
        match self.slot[p] {
            usize::MAX => Vec3::zeros(),
            i => Vec3::new(v[3 * i], v[3 * i + 1], v[3 * i + 2]),
        }
    }

    /// Spring geometry: `(d, l, l - l0, n)`.
    fn spring(&self, u: &[f64], (e, rest_edge, l0): &([usize; 2], Vec3, f64)) -> (f64, f64, Vec3) {
        let du = self.vertex(u, e[1]) - self.vertex(u, e[0]);
        let d = rest_edge + du;
        let l = d.norm();
        let stretch = (2.0 * rest_edge.dot(&du) + du.norm_squared()) / (l + l0);
        (l, stretch, d / l)
    }

    /// `V - V0` and the gradient of V per vertex.
    fn volume(&self, u: &[f64], (t, e, _): &([usize; 4], [Vec3; 3], f64)) -> (f64, [Vec3; 4], [Vec3; 3]) {
        let u0 = self.vertex(u, t[0]);
        let w = [self.vertex(u, t[1]) - u0, self.vertex(u, t[2]) - u0, self.vertex(u, t[3]) - u0];
        let d = [e[0] + w[0], e[1] + w[1], e[2] + w[2]];
        let g1 = d[1].cross(&d[2]);
        let six_dv =
            w[0].dot(&g1) + w[1].dot(&e[2].cross(&e[0])) + w[2].dot(&e[0].cross(&e[1])) + e[0].dot(&w[1].cross(&w[2]));
        let grad = [g1 / 6.0, d[2].cross(&d[0]) / 6.0, d[0].cross(&d[1]) / 6.0];
        (six_dv / 6.0, [-(grad[0] + grad[1] + grad[2]), grad[0], grad[1], grad[2]], d)
    }

    fn add(&self, out: &mut [f64], p: usize, f: Vec3) {
        if let i @ 0..usize::MAX = self.slot[p] {
            out[3 * i] += f.x;
            out[3 * i + 1] += f.y;
            out[3 * i + 2] += f.z;
        }
    }

    /// Total force (N) on the free vertices at displacements `u` and velocities `v`: springs, volume
    /// penalty, spring damping and gravity.
    fn forces(&self, law: &SpringLaw, u: &[f64], v: Option<&[f64]>) -> Vec<f64> {
        let mut f = vec![0.0; self.dofs()];
        for (i, &p) in self.free.iter().enumerate() {
            let g = self.accelerations[p] * self.masses[p];
            f[3 * i] += g.x;
            f[3 * i + 1] += g.y;
            f[3 * i + 2] += g.z;
        }
        for spring in &self.edges {
            let (_, stretch, n) = self.spring(u, spring);
            let mut fa = n * (law.ks * stretch);
            if let (Some(v), true) = (v, law.damping > 0.0) {
                let dv = self.velocity(v, spring.0[1]) - self.velocity(v, spring.0[0]);
                fa += n * (law.damping * dv.dot(&n));
            }
            self.add(&mut f, spring.0[0], fa);
            self.add(&mut f, spring.0[1], -fa);
        }
        if law.kvol > 0.0 {
            for tet in &self.tets {
                let (dv, grad, _) = self.volume(u, tet);
                let s = -law.kvol * dv / tet.2;
                for (k, &p) in tet.0.iter().enumerate() {
                    self.add(&mut f, p, grad[k] * s);
                }
            }
        }
        f
    }

    /// The tangents `K = df/du` and (for damping) `D = df/dv`, as summed entries over the free DOFs.
    fn tangents(&self, law: &SpringLaw, u: &[f64]) -> (Entries, Entries) {
        let mut k = BTreeMap::new();
        let mut d = BTreeMap::new();
        let put = |m: &mut Entries, a: usize, b: usize, block: &Matrix3<f64>| {
            let (sa, sb) = (self.slot[a], self.slot[b]);
            if sa == usize::MAX || sb == usize::MAX {
                return;
            }
            for r in 0..3 {
                for c in 0..3 {
                    *m.entry((3 * sa + r, 3 * sb + c)).or_insert(0.0) += block[(r, c)];
                }
            }
        };
        for spring in &self.edges {
            let (l, stretch, n) = self.spring(u, spring);
            let nn = n * n.transpose();
            let ke = (nn + (Matrix3::identity() - nn) * (stretch / l)) * law.ks;
            let [a, b] = spring.0;
            put(&mut k, a, a, &-ke);
            put(&mut k, b, b, &-ke);
            put(&mut k, a, b, &ke);
            put(&mut k, b, a, &ke);
            if law.damping > 0.0 {
                let de = nn * law.damping;
                put(&mut d, a, a, &-de);
                put(&mut d, b, b, &-de);
                put(&mut d, a, b, &de);
                put(&mut d, b, a, &de);
            }
        }
        if law.kvol > 0.0 {
            for tet in &self.tets {
                let (dv, grad, dd) = self.volume(u, tet);
                // Hessian of V in the edge vectors d1, d2, d3 (d_k = x_k - x_0), then in the vertices.
                let mut h = [[Matrix3::zeros(); 4]; 4];
                let x = |a: Vec3| cross_matrix(a) / 6.0;
                let inner = [
                    [Matrix3::zeros(), -x(dd[2]), x(dd[1])],
                    [x(dd[2]), Matrix3::zeros(), -x(dd[0])],
                    [-x(dd[1]), x(dd[0]), Matrix3::zeros()],
                ];
                for i in 0..3 {
                    for j in 0..3 {
                        h[i + 1][j + 1] = inner[i][j];
                        h[0][j + 1] -= inner[i][j];
                        h[i + 1][0] -= inner[i][j];
                        h[0][0] += inner[i][j];
                    }
                }
                let s = law.kvol / tet.2;
                for i in 0..4 {
                    for j in 0..4 {
                        let block = -(grad[i] * grad[j].transpose() + h[i][j] * dv) * s;
                        put(&mut k, tet.0[i], tet.0[j], &block);
                    }
                }
            }
        }
        (k, d)
    }

    /// The sensitivities `du*/dp_j` of the equilibrium `u` (m per unit of `p_j`) for parameters that change
    /// `(ks, kvol)` at the rates `rates[j] = (d ks/dp_j, d kvol/dp_j)`: `K s_j = -df/dp_j` with the tangent
    /// `K = df/du` at `u`, factored once. The force is linear in both constants, so `df/dks` is the spring
    /// force at unit `ks` (and likewise for `kvol`). `None` when the tangent is singular.
    pub(crate) fn parameter_sensitivities(
        &self,
        law: &SpringLaw,
        u: &[Vec3],
        rates: &[(f64, f64)],
    ) -> Option<Vec<Vec<Vec3>>> {
        let statics = SpringLaw { damping: 0.0, ..*law };
        let x = self.flatten(u);
        let (k, _) = self.tangents(&statics, &x);
        let weight = self.forces(&SpringLaw { ks: 0.0, kvol: 0.0, damping: 0.0 }, &x, None);
        let unit = |ks, kvol| -> Vec<f64> {
            let f = self.forces(&SpringLaw { ks, kvol, damping: 0.0 }, &x, None);
            f.iter().zip(&weight).map(|(a, b)| a - b).collect()
        };
        let (per_ks, per_kvol) = (unit(1.0, 0.0), unit(0.0, 1.0));
        let lu = self.factor(&[(&k, 1.0)], None)?;
        let n = self.dofs();
        let mut rhs = Mat::<f64>::from_fn(n, rates.len(), |i, j| -(rates[j].0 * per_ks[i] + rates[j].1 * per_kvol[i]));
        lu.solve_in_place_with_conj(Conj::No, rhs.as_mut());
        let columns: Vec<Vec<Vec3>> = (0..rates.len())
            .map(|j| self.expand(&(0..n).map(|i| rhs[(i, j)]).collect::<Vec<_>>()))
            .map(|c| c.iter().zip(&self.prescribed).map(|(a, p)| a - p).collect())
            .collect();
        columns.iter().flatten().all(|v| v.iter().all(|c| c.is_finite())).then_some(columns)
    }

    /// The sparse LU of `A = sum of scaled entry maps + diag`.
    fn factor(&self, parts: &[(&Entries, f64)], diagonal: Option<&[f64]>) -> Option<Lu<usize, f64>> {
        let n = self.dofs();
        let mut entries: Entries = BTreeMap::new();
        for (m, s) in parts {
            for (&rc, &v) in m.iter() {
                *entries.entry(rc).or_insert(0.0) += s * v;
            }
        }
        if let Some(diag) = diagonal {
            for (i, &v) in diag.iter().enumerate() {
                *entries.entry((i, i)).or_insert(0.0) += v;
            }
        }
        let triplets: Vec<_> = entries.iter().map(|(&(r, c), &v)| Triplet::new(r, c, v)).collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).ok()?;
        a.sp_lu().ok()
    }

    /// Solves `A x = b` for `A = sum of scaled entry maps` (sparse LU).
    fn solve(&self, parts: &[(&Entries, f64)], diagonal: Option<&[f64]>, b: &[f64]) -> Option<Vec<f64>> {
        let n = self.dofs();
        let lu = self.factor(parts, diagonal)?;
        let mut x = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        lu.solve_in_place_with_conj(Conj::No, x.as_mut());
        let out: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
        out.iter().all(|v| v.is_finite()).then_some(out)
    }

    fn expand(&self, x: &[f64]) -> Vec<Vec3> {
        (0..self.rest.len()).map(|p| self.vertex(x, p)).collect()
    }

    fn expand_velocities(&self, v: &[f64]) -> Vec<Vec3> {
        (0..self.rest.len()).map(|p| self.velocity(v, p)).collect()
    }

    fn flatten(&self, u: &[Vec3]) -> Vec<f64> {
        self.free.iter().flat_map(|&p| [u[p].x, u[p].y, u[p].z]).collect()
    }

    /// The static equilibrium by Newton's method from `warm` (or the undeformed body): relative residual
    /// `|f|_inf / |f_0|_inf <= 1e-12` over the free vertices (`f_0`: the force on the undeformed free
    /// vertices, their weight and tractions plus what a prescribed displacement pulls), at most 100 iterations, backtracking line
    /// search on the residual norm.
    pub fn equilibrium(&self, law: &SpringLaw, warm: Option<&[Vec3]>) -> Result<Equilibrium, SpringError> {
        law.validate()?;
        let statics = SpringLaw { damping: 0.0, ..*law };
        // The force scale: the load on the undeformed free vertices, i.e. their weight and tractions plus
        // the springs a prescribed displacement stretches (for gravity alone, exactly the weight).
        let load = inf(&self.forces(&statics, &vec![0.0; self.dofs()], None));
        let scale = if load > 0.0 { load } else { 1.0 };
        let mut u = warm.map(|w| self.flatten(w)).unwrap_or_else(|| vec![0.0; self.dofs()]);
        let mut f = self.forces(&statics, &u, None);
        let mut residual = inf(&f) / scale;
        let mut residuals = vec![residual];
        let norm = |f: &[f64]| f.iter().map(|x| x * x).sum::<f64>().sqrt();
        for iteration in 0..100 {
            if residual <= 1e-12 {
                return Ok(Equilibrium { displacements: self.expand(&u), iterations: iteration, residual, residuals });
            }
            let (k, _) = self.tangents(&statics, &u);
            // -K du = f
            let Some(du) = self.solve(&[(&k, -1.0)], None, &f) else {
                return Err(SpringError::NewtonFailed { iterations: iteration, residual });
            };
            let (mut step, start) = (1.0, norm(&f));
            loop {
                let trial: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + step * b).collect();
                let ft = self.forces(&statics, &trial, None);
                if norm(&ft) < (1.0 - 1e-4 * step) * start || (step < 1e-9 && norm(&ft) <= start) {
                    u = trial;
                    f = ft;
                    break;
                }
                step *= 0.5;
                if step < 1e-12 {
                    return Err(SpringError::NewtonFailed { iterations: iteration + 1, residual });
                }
            }
            residual = inf(&f) / scale;
            residuals.push(residual);
        }
        if residual <= 1e-12 {
            return Ok(Equilibrium { displacements: self.expand(&u), iterations: 100, residual, residuals });
        }
        Err(SpringError::NewtonFailed { iterations: 100, residual })
    }

    /// `2 / omega_max` (s), with `omega_max^2` the largest eigenvalue of `M^-1 K` at displacements `u`
    /// (`K = -df/du`, symmetric; computed as the eigenvalues of `M^-1/2 K M^-1/2`, dense).
    pub fn stability_limit(&self, law: &SpringLaw, u: &[Vec3]) -> f64 {
        let (k, _) = self.tangents(&SpringLaw { damping: 0.0, ..*law }, &self.flatten(u));
        let n = self.dofs();
        let inv_sqrt_m: Vec<f64> = (0..n).map(|i| 1.0 / self.masses[self.free[i / 3]].sqrt()).collect();
        let mut a = DMatrix::<f64>::zeros(n, n);
        for (&(r, c), &v) in &k {
            a[(r, c)] = -v * inv_sqrt_m[r] * inv_sqrt_m[c];
        }
        let largest = SymmetricEigen::new(a).eigenvalues.iter().fold(0.0f64, |m, &e| m.max(e));
        if largest > 0.0 { 2.0 / largest.sqrt() } else { f64::INFINITY }
    }

    /// Total energy (J): kinetic, springs, volume penalty and gravity's potential.
    pub fn energy(&self, law: &SpringLaw, u: &[Vec3], v: &[Vec3]) -> f64 {
        let (uf, mut e) = (self.flatten(u), 0.0);
        for &p in &self.free {
            e += 0.5 * self.masses[p] * v[p].norm_squared() - self.masses[p] * self.accelerations[p].dot(&u[p]);
        }
        for spring in &self.edges {
            let (_, stretch, _) = self.spring(&uf, spring);
            e += 0.5 * law.ks * stretch * stretch;
        }
        for tet in &self.tets {
            let (dv, _, _) = self.volume(&uf, tet);
            e += 0.5 * law.kvol * dv * dv / tet.2;
        }
        e
    }

    /// Runs the dynamics from the undeformed body at rest with `integrator` and step `dt` (s) until it
    /// settles (see [`IntegrateOptions`]) or `max_steps`; `frame(step, u)` is called every `every` steps.
    /// A displacement larger than the body or not finite is divergence, reported with the estimated
    /// stability limit.
    pub fn integrate(
        &self,
        law: &SpringLaw,
        integrator: Integrator,
        dt: f64,
        options: &IntegrateOptions,
        mut frame: impl FnMut(usize, &[Vec3]),
    ) -> Result<Trajectory, SpringError> {
        law.validate()?;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SpringError::InvalidParameter { name: "dt", value: dt });
        }
        let n = self.dofs();
        let mass: Vec<f64> = (0..n).map(|i| self.masses[self.free[i / 3]]).collect();
        let (mut u, mut v, mut previous) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let every = options.every.max(1);
        let mut energies = vec![self.energy(law, &self.expand(&u), &self.expand_velocities(&v))];
        frame(0, &self.expand(&u));
        let mut settled = false;
        let mut steps = 0;
        while steps < options.max_steps {
            let before = u.clone();
            match integrator {
                Integrator::ExplicitEuler => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        u[i] += dt * v[i];
                        v[i] += dt * f[i] / mass[i];
                    }
                }
                Integrator::SemiImplicitEuler => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        v[i] += dt * f[i] / mass[i];
                        u[i] += dt * v[i];
                    }
                }
                Integrator::Verlet => {
                    let f = self.forces(law, &u, Some(&v));
                    for i in 0..n {
                        let next = u[i] + (u[i] - previous[i]) + dt * dt * f[i] / mass[i];
                        previous[i] = u[i];
                        u[i] = next;
                        v[i] = (u[i] - previous[i]) / dt;
                    }
                }
                Integrator::ImplicitEuler => {
                    let v0 = v.clone();
                    let mut v1 = v.clone();
                    for _ in 0..50 {
                        let x1: Vec<f64> = u.iter().zip(&v1).map(|(a, b)| a + dt * b).collect();
                        let f = self.forces(law, &x1, Some(&v1));
                        let r: Vec<f64> = (0..n).map(|i| dt * f[i] - mass[i] * (v1[i] - v0[i])).collect();
                        let size = (0..n).map(|i| mass[i] * v1[i].abs() + dt * f[i].abs()).fold(0.0, f64::max);
                        if inf(&r) <= 1e-13 * size.max(f64::MIN_POSITIVE) {
                            break;
                        }
                        let (k, d) = self.tangents(law, &x1);
                        // (M - dt^2 K - dt D) dv = r
                        let Some(dv) = self.solve(&[(&k, -dt * dt), (&d, -dt)], Some(&mass), &r) else { break };
                        for i in 0..n {
                            v1[i] += dv[i];
                        }
                    }
                    v = v1;
                    for i in 0..n {
                        u[i] += dt * v[i];
                    }
                }
            }
            steps += 1;
            let largest = self
                .free
                .iter()
                .enumerate()
                .map(|(i, _)| Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]).norm())
                .fold(0.0, f64::max);
            if !largest.is_finite() || largest > self.extent {
                let limit = self.stability_limit(law, &vec![Vec3::zeros(); self.rest.len()]);
                let note = if integrator == Integrator::ExplicitEuler {
                    "; explicit Euler also amplifies every undamped oscillation at any dt: with spring damping c \
                     it needs dt below about c / ks as well"
                } else {
                    ""
                };
                return Err(SpringError::Diverged { integrator: integrator.name(), dt, step: steps, limit, note });
            }
            energies.push(self.energy(law, &self.expand(&u), &self.expand_velocities(&v)));
            if steps % every == 0 {
                frame(steps, &self.expand(&u));
            }
            let moved = (0..self.free.len())
                .map(|i| {
                    Vec3::new(
                        u[3 * i] - before[3 * i],
                        u[3 * i + 1] - before[3 * i + 1],
                        u[3 * i + 2] - before[3 * i + 2],
                    )
                    .norm()
                })
                .fold(0.0, f64::max);
            if options.tolerance > 0.0 && moved <= options.tolerance * largest && steps > 1 {
                settled = true;
                break;
            }
        }
        Ok(Trajectory {
            displacements: self.expand(&u),
            velocities: self.expand_velocities(&v),
            steps,
            settled,
            energies,
        })
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::SceneSet;

    use super::*;

    fn body(scene: &str, n: usize) -> SpringBody {
        SpringBody::new(&PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap()))
    }

    /// The tangents equal central differences of the forces: `K` of the elastic forces (springs, volume
    /// penalty), `D` of the damping forces in the velocities, at a deformed state with compressed and
    /// stretched springs. (The damping force's dependence on positions, through `n`, is left out of the
    /// implicit-Euler Jacobian: it slows Newton down near large velocities, never changes its solution.)
    #[test]
    fn tangents_are_the_derivatives_of_the_forces() {
        let b = body("gravity-wall", 2);
        let law = SpringLaw { ks: 700.0, kvol: 2500.0, damping: 3.0 };
        let n = b.dofs();
        let u: Vec<f64> = (0..n).map(|i| 0.03 * ((i * 7 % 11) as f64 / 11.0 - 0.5)).collect();
        let v: Vec<f64> = (0..n).map(|i| 0.2 * ((i * 5 % 13) as f64 / 13.0 - 0.5)).collect();
        let (k, d) = b.tangents(&law, &u);
        let dense = |m: &Entries| {
            let mut a = DMatrix::<f64>::zeros(n, n);
            for (&(r, c), &x) in m {
                a[(r, c)] = x;
            }
            a
        };
        let (k, d) = (dense(&k), dense(&d));
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for j in 0..n {
            let shifted = |x: &[f64], s: f64| {
                let mut y = x.to_vec();
                y[j] += s;
                y
            };
            let elastic = SpringLaw { damping: 0.0, ..law };
            let fk_plus = b.forces(&elastic, &shifted(&u, h), None);
            let fk_minus = b.forces(&elastic, &shifted(&u, -h), None);
            let fd_plus = b.forces(&law, &u, Some(&shifted(&v, h)));
            let fd_minus = b.forces(&law, &u, Some(&shifted(&v, -h)));
            for i in 0..n {
                let dk = (fk_plus[i] - fk_minus[i]) / (2.0 * h);
                let dd = (fd_plus[i] - fd_minus[i]) / (2.0 * h);
                worst = worst.max((k[(i, j)] - dk).abs() / k.abs().max()).max((d[(i, j)] - dd).abs() / d.abs().max());
            }
        }
        assert!(worst < 1e-6, "tangent vs finite differences: {worst:e}");
        assert!((k.clone() - k.transpose()).abs().max() < 1e-9 * k.abs().max(), "K is symmetric");
    }

    /// Newton converges quadratically to a state where the forces balance gravity, and the volume
    /// penalty stiffens the body.
    #[test]
    fn newton_converges_quadratically_to_force_balance() {
        let b = body("gravity-floor", 2);
        let springs = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 0.0, damping: 0.0 }, None).unwrap();
        let r = &springs.residuals;
        println!("residuals {r:?}");
        assert!(springs.residual <= 1e-12 && springs.iterations <= 8, "{r:?}");
        // Quadratic: each residual below C r^2 once in the basin (C ~ 1 for these scales).
        for w in r.windows(2).skip(1) {
            if w[0] < 1e-3 {
                assert!(w[1] <= 10.0 * w[0] * w[0] + 1e-14, "not quadratic: {r:?}");
            }
        }
        let f = b.forces(&SpringLaw { ks: 250.0, kvol: 0.0, damping: 0.0 }, &b.flatten(&springs.displacements), None);
        let weight: f64 = b.free.iter().map(|&p| b.masses[p] * 9.81).sum();
        assert!(inf(&f) <= 1e-12 * weight);
        let stiffer = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, damping: 0.0 }, None).unwrap();
        let size = |e: &Equilibrium| e.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        assert!(size(&stiffer) < 0.99 * size(&springs), "{} vs {}", size(&stiffer), size(&springs));
        // Twice the same computation gives the same bits.
        let again = b.equilibrium(&SpringLaw { ks: 250.0, kvol: 5e3, damping: 0.0 }, None).unwrap();
        assert_eq!(again, stiffer);
    }

    /// With damping, every integrator at a stable step settles to the Newton equilibrium (1e-9).
    #[test]
    fn damped_integrators_settle_to_the_equilibrium() {
        let b = body("gravity-wall", 1);
        let elastic = SpringLaw { ks: 400.0, kvol: 1e3, damping: 0.0 };
        let limit = b.stability_limit(&elastic, &[Vec3::zeros(); 8]);
        // Spring damping c = ks / omega_max: explicit Euler's underdamped modes need dt < c / ks and its
        // overdamped ones dt < 2 ks / (c omega_max^2): both are limit / 2.
        let law = SpringLaw { damping: elastic.ks * limit / 2.0, ..elastic };
        let eq = b.equilibrium(&law, None).unwrap();
        let scale = eq.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        for integrator in
            [Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Verlet, Integrator::ImplicitEuler]
        {
            let dt = if integrator == Integrator::ImplicitEuler { 0.01 } else { 0.2 * limit };
            let options = IntegrateOptions { max_steps: 2_000_000, tolerance: 1e-14, every: 1 };
            let t = b.integrate(&law, integrator, dt, &options, |_, _| {}).unwrap();
            let diff = t.displacements.iter().zip(&eq.displacements).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
            println!("{integrator:?} dt = {dt:.2e}: {} steps, settled {}, {:.1e}", t.steps, t.settled, diff / scale);
            assert!(t.settled && diff <= 1e-9 * scale, "{integrator:?}: {:e}", diff / scale);
        }
    }

    /// The estimated limit 2 / omega_max separates stable from unstable undamped semi-implicit Euler,
    /// and explicit Euler above it reports divergence with the limit in the message.
    #[test]
    fn the_stability_limit_is_where_explicit_schemes_diverge() {
        let b = body("gravity-ceiling", 1);
        let law = SpringLaw { ks: 1e3, kvol: 0.0, damping: 0.0 };
        let limit = b.stability_limit(&law, &[Vec3::zeros(); 8]);
        let options = IntegrateOptions { max_steps: 20_000, tolerance: 0.0, every: 1000 };
        assert!(b.integrate(&law, Integrator::SemiImplicitEuler, 0.95 * limit, &options, |_, _| {}).is_ok());
        let e = b.integrate(&law, Integrator::SemiImplicitEuler, 1.05 * limit, &options, |_, _| {}).unwrap_err();
        assert!(matches!(e, SpringError::Diverged { .. }), "{e}");
        let e = b.integrate(&law, Integrator::ExplicitEuler, 2.0 * limit, &options, |_, _| {}).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("explicit-euler") && text.contains(&format!("{limit:.3e}")), "{text}");
    }

    /// Undamped Verlet conserves energy up to a bounded oscillation (no drift) over 20,000 steps.
    #[test]
    fn undamped_verlet_keeps_its_energy() {
        let b = body("gravity-wall", 1);
        let law = SpringLaw { ks: 500.0, kvol: 800.0, damping: 0.0 };
        let limit = b.stability_limit(&law, &[Vec3::zeros(); 8]);
        let options = IntegrateOptions { max_steps: 20_000, tolerance: 0.0, every: 1 };
        let t = b.integrate(&law, Integrator::Verlet, 0.1 * limit, &options, |_, _| {}).unwrap();
        let e0 = t.energies[0];
        let swing = t.energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
        let eq = b.equilibrium(&law, None).unwrap();
        let depth = (b.energy(&law, &eq.displacements, &[Vec3::zeros(); 8]) - e0).abs();
        let (first, last) = (&t.energies[1..10_000], &t.energies[10_000..]);
        let spread = |s: &[f64]| {
            s.iter().fold(f64::NEG_INFINITY, |m: f64, e| m.max(*e))
                - s.iter().fold(f64::INFINITY, |m: f64, e| m.min(*e))
        };
        println!(
            "energy swing {:.2e} J of a well {depth:.2e} J; spreads {:.2e}, {:.2e}",
            swing,
            spread(first),
            spread(last)
        );
        assert!(swing < 0.05 * depth, "{swing:e} vs {depth:e}");
        assert!(spread(last) < 1.5 * spread(first), "no secular growth");
    }

    #[test]
    fn bad_constants_are_errors() {
        let b = body("gravity-floor", 1);
        for law in [
            SpringLaw { ks: -1.0, kvol: 0.0, damping: 0.0 },
            SpringLaw { ks: f64::NAN, kvol: 0.0, damping: 0.0 },
            SpringLaw { ks: 1.0, kvol: f64::INFINITY, damping: 0.0 },
            SpringLaw { ks: 1.0, kvol: 0.0, damping: -2.0 },
        ] {
            assert!(matches!(b.equilibrium(&law, None), Err(SpringError::InvalidParameter { .. })), "{law:?}");
        }
        let ok = SpringLaw { ks: 1.0, kvol: 0.0, damping: 0.0 };
        let options = IntegrateOptions { max_steps: 1, tolerance: 0.0, every: 1 };
        for dt in [0.0, -1.0, f64::NAN] {
            let e = b.integrate(&ok, Integrator::Verlet, dt, &options, |_, _| {}).unwrap_err();
            assert!(e.to_string().contains("dt"), "{e}");
        }
        // No springs at all: nothing holds the body up; Newton says so instead of panicking.
        let e = b.equilibrium(&SpringLaw { ks: 0.0, kvol: 0.0, damping: 0.0 }, None).unwrap_err();
        assert!(matches!(e, SpringError::NewtonFailed { .. }), "{e}");
    }
}
