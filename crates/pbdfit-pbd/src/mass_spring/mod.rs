//! Mass-spring systems (docs/models.md, section Equations): a linear spring on every tetrahedron
//! edge, an optional volume penalty per tetrahedron, masses from the scene's mass model, held vertices
//! fixed. On a sheet (a [`PbdSystem::sheet`]) the springs are the mass-spring cloth's structural, shear
//! and bending springs ([`SpringGroup`], `sheet_springs.rs`), each group with its own constant. The rest state is the static equilibrium `f_int(x) + m g = 0`, solved by Newton with the sparse
//! tangent stiffness (faer's sparse Cholesky where it is positive definite, LU where it is not: the
//! tangent is indefinite where springs are compressed) and a backtracking line search; the dynamics run
//! with one of four integrators. With obstacles the dynamics are Verlet's with microcollisions and dry friction, and the rest state is where they settle
//! (`SpringBody::settle`).
//!
//! Units: m, s, kg; `ks` in N/m, `kvol` in Pa, spring damping `c` in N s/m. Lengths and volumes differ
//! from their rest values without cancellation (`l - l0 = (2 e.du + du.du) / (l + l0)`, `V - V0`
//! expanded in the displacements), as in the PBD constraints.
//!
//! Files by job: `law.rs` holds the force law and the errors, `forces.rs` the forces and the energy,
//! `tangent.rs` the tangents' sparsity pattern (one per body, with its symbolic LU), the sparse tangents
//! and their LU solves, `newton.rs` the static equilibrium and its
//! parameter sensitivities, `integrators.rs` the dynamics; this file holds [`SpringBody`], its constructor
//! and the layout of its free DOFs.

mod forces;
mod integrators;
mod law;
mod mujoco_flex;
mod neo_hookean;
mod newton;
mod sheet_springs;
mod tangent;

pub use integrators::{ContactTally, IntegrateOptions, Integrator, Trajectory};
pub use law::{SpringError, SpringLaw};
pub use newton::Equilibrium;
pub use sheet_springs::SpringGroup;

use crate::{PbdSystem, Vec3};

/// A spring: its vertices `(a, b)`, its rest vector `X_b - X_a` (m) and its rest length `l0` (m).
pub(super) type Spring = ([usize; 2], Vec3, f64);

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
    edges: Vec<Spring>,
    /// The group of each edge's spring, whose constant it takes (every edge of a solid is structural).
    groups: Vec<SpringGroup>,
    /// Whether the body is a sheet: its tangent is singular out of its plane where it is flat and no spring
    /// is stretched, and Newton regularises where the plain solve fails (`newton.rs`).
    sheet: bool,
    /// `(vertices, E1, E2, E3, V0)`.
    tets: Vec<([usize; 4], [Vec3; 3], f64)>,
    /// `Dm^-1` of each tetrahedron (`Dm = [E1, E2, E3]`), for the neo-Hookean tetrahedra.
    dm_inv: Vec<nalgebra::Matrix3<f64>>,
    /// MuJoCo's flex shell of a sheet (its membrane triangles and bending hinges; `None` on a solid).
    flex: Option<mujoco_flex::FlexShell>,
    /// The sparsity pattern of the tangents and its symbolic LU, built on the first tangent (`tangent.rs`).
    pattern: std::sync::OnceLock<tangent::Pattern>,
    /// The rigid obstacles at their placed position, with friction (empty: none): Verlet's
    /// microcollisions and dry friction (`integrators.rs`).
    contacts: Vec<crate::contact::Contact>,
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
        let flex = system.cloth_body().map(|cloth| mujoco_flex::FlexShell::new(&cloth.triangles(), &system.rest));
        let (edges, groups) = match system.cloth_body() {
            None => {
                let mut edges: Vec<_> =
                    system.distances.iter().map(|c| (c.particles, c.rest_edge, c.rest_length)).collect();
                edges.sort_by_key(|e| e.0);
                let groups = vec![SpringGroup::Structural; edges.len()];
                (edges, groups)
            }
            Some(cloth) => sheet_springs::springs(&cloth.triangles(), &system.rest),
        };
        let mut tets: Vec<_> = system.volumes.iter().map(|c| (c.particles, c.rest_edges, c.rest_volume)).collect();
        tets.sort_by_key(|t| t.0);
        let dm_inv = tets
            .iter()
            .map(|(_, e, _)| {
                nalgebra::Matrix3::from_columns(e)
                    .try_inverse()
                    .expect("a validated mesh has no degenerate tetrahedron")
            })
            .collect();
        Self {
            rest,
            free,
            slot,
            masses,
            accelerations: system.accelerations.clone(),
            prescribed: system.prescribed.clone(),
            extent: system.extent,
            edges,
            groups,
            sheet: system.cloth_body().is_some(),
            tets,
            dm_inv,
            flex,
            pattern: std::sync::OnceLock::new(),
            contacts: system.contacts.clone(),
        }
    }

    /// The springs of `group`: `(a, b)` and the rest length (m), in the body's order.
    pub fn springs(&self, group: SpringGroup) -> Vec<([usize; 2], f64)> {
        self.edges.iter().zip(&self.groups).filter(|(_, g)| **g == group).map(|(e, _)| (e.0, e.2)).collect()
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

    fn expand(&self, x: &[f64]) -> Vec<Vec3> {
        (0..self.rest.len()).map(|p| self.vertex(x, p)).collect()
    }

    fn expand_velocities(&self, v: &[f64]) -> Vec<Vec3> {
        (0..self.rest.len()).map(|p| self.velocity(v, p)).collect()
    }

    fn flatten(&self, u: &[Vec3]) -> Vec<f64> {
        self.free.iter().flat_map(|&p| [u[p].x, u[p].y, u[p].z]).collect()
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::SceneSet;

    use super::*;

    pub(super) fn body(scene: &str, n: usize) -> SpringBody {
        SpringBody::new(&PbdSystem::new(&SceneSet::builtin(scene).unwrap().scenes()[0].body(n).unwrap()))
    }

    #[test]
    fn bad_constants_are_errors() {
        let b = body("gravity-floor", 1);
        for law in [
            SpringLaw { ks: -1.0, ..SpringLaw::NONE },
            SpringLaw { ks: f64::NAN, ..SpringLaw::NONE },
            SpringLaw { ks: 1.0, kvol: f64::INFINITY, ..SpringLaw::NONE },
            SpringLaw { ks: 1.0, damping: -2.0, ..SpringLaw::NONE },
        ] {
            assert!(matches!(b.equilibrium(&law, None), Err(SpringError::InvalidParameter { .. })), "{law:?}");
        }
        let ok = SpringLaw { ks: 1.0, ..SpringLaw::NONE };
        let options = IntegrateOptions { max_steps: 1, tolerance: 0.0, every: 1 };
        for dt in [0.0, -1.0, f64::NAN] {
            let e = b.integrate(&ok, Integrator::Verlet, dt, &options, |_, _| {}).unwrap_err();
            assert!(e.to_string().contains("dt"), "{e}");
        }
        // No springs at all: nothing holds the body up; Newton says so instead of panicking.
        let e = b.equilibrium(&SpringLaw { ks: 0.0, ..SpringLaw::NONE }, None).unwrap_err();
        assert!(matches!(e, SpringError::NewtonFailed { .. }), "{e}");
    }
}
