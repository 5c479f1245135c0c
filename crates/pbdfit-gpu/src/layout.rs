//! Host-side packing: constraint data in projection order and per-simulation parameters, as the f32 and
//! u32 words the kernels read (the layouts are documented in `shaders/constraints.wgsl`).

#[cfg(doc)]
use pbdfit_pbd::SpringPotential;
use pbdfit_pbd::{MAX_TETRAHEDRON_TERMS, PbdError, PbdSystem, ProjectionRule, SimParams, TetrahedronTerm};

/// Constraint and particle data of one body, in the CPU's projection order.
#[derive(Debug, Clone)]
pub(crate) struct MeshData {
    pub particle_count: usize,
    /// Free (not held) particles, ascending.
    pub free: Vec<u32>,
    /// Inverse masses (1/kg), 0 for held particles.
    pub inverse_masses: Vec<f32>,
    /// Per colour group: distance start, distance count, volume start, volume count.
    pub groups: Vec<[u32; 4]>,
    /// Two particles per distance constraint.
    pub dist_idx: Vec<u32>,
    /// Rest edge (3) and rest length (1) per distance constraint.
    pub dist_geo: Vec<f32>,
    /// Four particles per volume constraint.
    pub vol_idx: Vec<u32>,
    /// E1, E2, E3, E3 x E1, E1 x E2 per volume constraint (rounded from f64).
    pub vol_geo: Vec<f32>,
    /// Largest extent of the body (m), the divergence threshold of the CPU path.
    pub extent: f32,
    /// Largest number of constraints in one colour group.
    pub max_group: usize,
}

impl MeshData {
    pub fn new(system: &PbdSystem) -> Self {
        let rest = system.rest_positions();
        let (mut lo, mut hi) = (rest[0], rest[0]);
        for p in rest {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        let extent = (hi - lo).max() as f32;
        let mut dist_idx = Vec::new();
        let mut dist_geo = Vec::new();
        for c in system.distance_constraints() {
            dist_idx.extend(c.particles.map(|p| p as u32));
            dist_geo.extend([c.rest_edge.x, c.rest_edge.y, c.rest_edge.z, c.rest_length].map(|x| x as f32));
        }
        let mut vol_idx = Vec::new();
        let mut vol_geo = Vec::new();
        for c in system.volume_constraints() {
            vol_idx.extend(c.particles.map(|p| p as u32));
            for v in c.rest_edges.iter().chain(&c.rest_cross[1..]) {
                vol_geo.extend([v.x as f32, v.y as f32, v.z as f32]);
            }
        }
        let groups: Vec<[u32; 4]> = system
            .group_ranges()
            .iter()
            .map(|(d, v)| [d.start as u32, d.len() as u32, v.start as u32, v.len() as u32])
            .collect();
        let max_group = groups.iter().map(|g| (g[1] + g[3]) as usize).max().unwrap_or(0);
        Self {
            particle_count: rest.len(),
            free: system.free_particles().iter().map(|&p| p as u32).collect(),
            inverse_masses: system.inverse_masses().iter().map(|&w| w as f32).collect(),
            groups,
            dist_idx,
            dist_geo,
            vol_idx,
            vol_geo,
            extent,
            max_group,
        }
    }

    pub fn distance_count(&self) -> usize {
        self.dist_idx.len() / 2
    }

    pub fn volume_count(&self) -> usize {
        self.vol_idx.len() / 4
    }
}

/// One simulation's parameters as the kernels read them (`struct Sim` in constraints.wgsl, 20 words).
///
/// The constants come from the model's [`ProjectionRule`] (pbdfit-pbd folds the parameters, in f64),
/// rounded once to f32: PBD factors `distance_k`, `volume_k` (for the unscaled `6 dV/dp` gradients) or
/// XPBD `alpha~ = alpha / dt^2`, and the volume gradient scale. The rule word is 0 for PBD and, for XPBD,
/// the distance constraint function's [`SpringPotential::code`] (every registered potential has a case
/// in the kernels' generated `potential_value`). The families word says which of the distance (bit 0) and
/// volume (bit 1) constraints are projected; then the per-tetrahedron constraints' codes
/// ([`TetrahedronConstraint::code`](pbdfit_pbd::TetrahedronConstraint::code), 0 for none), `alpha~` and
/// constants, and a padding word. A mass-spring model has no projection rule and no kernel: its rest
/// state is a Newton solve on the CPU (the error names the model).
pub(crate) fn sim_words(
    params: &SimParams,
    gravity: [f64; 3],
    tolerance: f64,
    max_steps: u32,
) -> Result<[u32; 20], PbdError> {
    let dt = params.dt;
    let none = [None; MAX_TETRAHEDRON_TERMS];
    let (distance_k, volume_k, rule, gradient_scale, families, terms) = match params.projection_rule()? {
        ProjectionRule::Pbd { distance_k, volume_k, volume_gradient_scale } => {
            (distance_k, volume_k, 0, volume_gradient_scale, 3, none)
        }
        ProjectionRule::Xpbd {
            distance_potential,
            distance_alpha_tilde,
            volume_alpha_tilde,
            volume_gradient_scale,
            distances,
            volumes,
            tetrahedra,
        } => (
            distance_alpha_tilde,
            volume_alpha_tilde,
            distance_potential.code(),
            volume_gradient_scale,
            u32::from(distances) | (u32::from(volumes) << 1),
            tetrahedra,
        ),
        // `handoff_before` gives every engine profile to the CPU before any words are packed.
        ProjectionRule::Engine(_) => {
            return Err(PbdError::NoProjection { model: params.model.name() });
        }
    };
    let f = |x: f64| (x as f32).to_bits();
    let code = |j: usize| terms[j].map_or(0, |t: TetrahedronTerm| t.constraint.code());
    let k = |j: usize| terms[j].map_or(0, |t| f(t.alpha_tilde));
    let constant = |j: usize| terms[j].map_or(0, |t| f(t.constant));
    Ok([
        f(gravity[0] * dt),
        f(gravity[1] * dt),
        f(gravity[2] * dt),
        f(dt),
        f(distance_k),
        f(volume_k),
        rule,
        f(gradient_scale),
        f(1.0 - params.damping),
        params.nit as u32,
        f(tolerance),
        max_steps,
        families,
        code(0),
        code(1),
        k(0),
        k(1),
        constant(0),
        constant(1),
        0,
    ])
}

/// Whether a batch of simulations projects per-tetrahedron constraints (the kernels then keep two more
/// multipliers per tetrahedron).
pub(crate) fn has_tetrahedron_terms(params: &[SimParams]) -> bool {
    params.iter().any(|p| {
        matches!(p.projection_rule(), Ok(ProjectionRule::Xpbd { tetrahedra, .. }) if tetrahedra.iter().any(Option::is_some))
    })
}

/// A kernel's WGSL source: the spring potentials' and the per-tetrahedron constraints' functions and
/// dispatch generated from pbdfit-pbd's registries ([`pbdfit_pbd::SpringPotential::wgsl`],
/// [`pbdfit_pbd::TetrahedronConstraint::wgsl`]), the shared constraint projections
/// (`shaders/constraints.wgsl`), then the kernel itself.
pub(crate) fn shader_source(kernel: &str) -> String {
    format!(
        "{}{}{}{kernel}",
        pbdfit_pbd::SpringPotential::wgsl(),
        pbdfit_pbd::TetrahedronConstraint::wgsl(),
        include_str!("shaders/constraints.wgsl")
    )
}

/// f32 bit patterns of a float slice.
pub(crate) fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|x| x.to_bits()).collect()
}

#[cfg(test)]
mod tests {
    use pbdfit_pbd::{Model, ModelKind};

    use super::*;

    fn word(w: u32) -> f64 {
        f32::from_bits(w) as f64
    }

    #[test]
    fn rules_follow_the_cpu_rules() {
        let g = [0.0, -9.81, 0.0];
        let w = sim_words(&SimParams::new(0.01, 1, Model::pbd(0.5, 0.3)), g, 1e-7, 99).unwrap();
        assert_eq!((word(w[1]), word(w[3])), ((-9.81f64 * 0.01) as f32 as f64, 0.01f32 as f64));
        assert_eq!((word(w[4]), word(w[5]), w[6], word(w[7])), (0.5, (0.3f64 / 6.0) as f32 as f64, 0, 1.0));
        assert_eq!((word(w[8]), w[9], w[11]), (1.0, 1, 99));
        let w = sim_words(&SimParams::new(0.01, 4, ModelKind::PBD_LINEARISED.with(&[0.5, 0.5]).unwrap()), g, 1e-7, 1)
            .unwrap();
        let k = 1.0 - 0.5f64.powf(0.25);
        assert_eq!((word(w[4]), word(w[5])), (k as f32 as f64, (k / 6.0) as f32 as f64));
        let w =
            sim_words(&SimParams::new(0.01, 1, ModelKind::PBD_TEXTBOOK_VOLUME.with(&[0.5, 0.6]).unwrap()), g, 1e-7, 1)
                .unwrap();
        assert_eq!((word(w[5]), word(w[7])), (0.6f32 as f64, (1.0f64 / 6.0) as f32 as f64));
        let x = Model::xpbd(1e-4, 2e-6);
        let w = sim_words(&SimParams { damping: 0.25, ..SimParams::new(0.01, 2, x) }, g, 1e-7, 1).unwrap();
        assert_eq!((word(w[4]), word(w[5]), w[6]), ((1e-4f64 / 1e-4) as f32 as f64, (2e-6f64 / 1e-4) as f32 as f64, 1));
        assert_eq!(word(w[8]), 0.75);
        assert_eq!(&w[12..], &[3, 0, 0, 0, 0, 0, 0, 0], "both families, no tetrahedron terms");
        // Every XPBD model sends its potential's registered code, its families and its per-tetrahedron
        // constraints' codes, alpha~ and constants.
        for kind in ModelKind::all().iter().filter(|k| k.has_projection()) {
            let params = SimParams::new(0.01, 1, kind.with(&vec![1e-6; kind.parameters().len()]).unwrap());
            if let Ok(ProjectionRule::Engine(_)) = params.projection_rule() {
                // An engine profile has no kernel words: the hand-off gives it to the CPU first.
                assert!(sim_words(&params, g, 1e-7, 1).is_err(), "{kind}");
                continue;
            }
            let w = sim_words(&params, g, 1e-7, 1).unwrap();
            if let ProjectionRule::Xpbd { distance_potential, distances, volumes, tetrahedra, .. } =
                params.projection_rule().unwrap()
            {
                assert_eq!(w[6], distance_potential.code(), "{kind}");
                if distances {
                    assert_eq!(word(w[4]), (1e-6f64 / 1e-4) as f32 as f64, "{kind}");
                }
                assert_eq!(w[12], u32::from(distances) | u32::from(volumes) << 1, "{kind}");
                for (j, term) in tetrahedra.iter().enumerate() {
                    let expected = term.map_or([0; 3], |t| {
                        [t.constraint.code(), (t.alpha_tilde as f32).to_bits(), (t.constant as f32).to_bits()]
                    });
                    assert_eq!([w[13 + j], w[15 + j], w[17 + j]], expected, "{kind} term {j}");
                }
            } else {
                assert_eq!((w[6], w[12]), (0, 3), "{kind}");
            }
        }
        let springs = SimParams::new(0.01, 1, ModelKind::MASS_SPRING.with(&[100.0]).unwrap());
        let e = sim_words(&springs, g, 1e-7, 1).unwrap_err().to_string();
        assert!(e.contains("mass-spring") && e.contains("no projection step"), "{e}");
    }

    #[test]
    fn mesh_data_keeps_the_projection_order() {
        let body = pbdfit_mesh::SceneSet::builtin("gravity-wall").unwrap().scenes()[0].body(2).unwrap();
        let system = PbdSystem::new(&body);
        let mesh = MeshData::new(&system);
        assert_eq!(mesh.distance_count(), system.distance_constraints().len());
        assert_eq!(mesh.volume_count(), system.volume_constraints().len());
        assert_eq!(mesh.groups.len(), system.group_count());
        for (g, (d, v)) in mesh.groups.iter().zip(system.group_ranges()) {
            assert_eq!(*g, [d.start as u32, d.len() as u32, v.start as u32, v.len() as u32]);
        }
        let c = &system.volume_constraints()[3];
        assert_eq!(&mesh.vol_idx[12..16], &c.particles.map(|p| p as u32));
        assert_eq!(mesh.vol_geo[45 + 9] as f64, c.rest_cross[1].x as f32 as f64);
        assert_eq!(mesh.extent, 1.0);
        assert_eq!(mesh.free.len(), 18);
    }
}
