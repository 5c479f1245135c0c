//! The contact solve's report of a converged increment: every vertex-obstacle pair in contact or
//! touching with its state, gap, normal, normal and friction forces and slip; the reactions of the held
//! vertices and of the rollers.

use nalgebra::Vector3;

use super::types::{ContactSetup, GAP_TOLERANCE, Increment, Pair};
use crate::materials::Material;
use crate::{FemError, StaticProblem, YoungPoisson};

impl StaticProblem {
    /// The report of an unloaded problem (no increment ran).
    pub(super) fn converged_state(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        setup: &ContactSetup,
        u: &[Vector3<f64>],
        pairs: &[Pair],
    ) -> Result<Increment, FemError> {
        let (_, forces) = self.assembler.nonlinear_system(law, material, u)?;
        Ok(self.report(setup, u, pairs, &forces, 1.0, 0, 0.0, Vec::new()))
    }

    /// The converged increment's report.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report(
        &self,
        setup: &ContactSetup,
        u: &[Vector3<f64>],
        pairs: &[Pair],
        forces: &[Vector3<f64>],
        t: f64,
        iterations: usize,
        residual: f64,
        solvers: Vec<&'static str>,
    ) -> Increment {
        let map = self.assembler.dof_map();
        let nv = map.vertices();
        let no = setup.obstacles.len();
        let touch = GAP_TOLERANCE * setup.size;
        let mut contacts = Vec::new();
        for v in 0..nv {
            if map.is_constrained(v) {
                continue;
            }
            contacts.extend((0..no).filter_map(|j| pairs[v * no + j].reported(v, j, touch)));
        }
        let reactions =
            (0..nv).filter(|&v| map.is_constrained(v)).map(|v| (v, forces[v] - self.loads[v] * t)).collect();
        let roller_reactions = setup
            .rollers
            .iter()
            .map(|(v, n)| {
                let mut f = forces[*v] - self.loads[*v] * t;
                for p in &pairs[v * no..(v + 1) * no] {
                    if p.active {
                        f -= p.normal * p.lambda + p.friction;
                    }
                }
                (*v, n * n.dot(&f))
            })
            .collect();
        Increment { u: u.to_vec(), contacts, reactions, roller_reactions, iterations, residual, solvers }
    }
}
