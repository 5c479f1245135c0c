//! Host-side packing: constraint data in projection order and per-simulation parameters, as the f32 and
//! u32 words the kernels read (the constraint layouts are documented in `shaders/constraints.wgsl`; the
//! parameters' `struct Sim` is generated here from [`SIM_FIELDS`], with the packing).

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

/// One simulation's parameters before packing: the model's [`ProjectionRule`] folded by pbdfit-pbd (in
/// f64) and the run's settings; [`SIM_FIELDS`] says which word of `struct Sim` each becomes.
struct SimValues {
    dt: f64,
    gravity: [f64; 3],
    /// PBD `distance_k`, or XPBD `alpha~` of the distance constraints.
    distance_k: f64,
    /// PBD `volume_k` (for the unscaled `6 dV/dp` gradients), or XPBD `alpha~` of the volume constraints.
    volume_k: f64,
    /// 0 for PBD, the distance potential's [`SpringPotential::code`] for XPBD.
    rule: u32,
    gradient_scale: f64,
    damping: f64,
    nit: u32,
    tolerance: f64,
    max_steps: u32,
    /// Bit 0: distance constraints projected; bit 1: volume constraints.
    families: u32,
    terms: [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS],
}

impl SimValues {
    /// `dt g` and `dt`.
    fn dv(&self) -> [f64; 4] {
        let [x, y, z] = self.gravity.map(|g| g * self.dt);
        [x, y, z, self.dt]
    }

    /// Term `j`'s [`TetrahedronConstraint::code`](pbdfit_pbd::TetrahedronConstraint::code), 0 for none.
    fn code(&self, j: usize) -> u32 {
        self.terms[j].map_or(0, |t| t.constraint.code())
    }

    /// Term `j`'s `alpha~`, 0 for none.
    fn alpha_tilde(&self, j: usize) -> f64 {
        self.terms[j].map_or(0.0, |t| t.alpha_tilde)
    }

    /// Term `j`'s constant, 0 for none.
    fn constant(&self, j: usize) -> f64 {
        self.terms[j].map_or(0.0, |t| t.constant)
    }
}

/// A field of `struct Sim`: its WGSL type and how its value comes from [`SimValues`] (f64 values are
/// rounded once to f32).
#[derive(Clone, Copy)]
enum SimValue {
    F32(fn(&SimValues) -> f64),
    U32(fn(&SimValues) -> u32),
    Vec4F32(fn(&SimValues) -> [f64; 4]),
}

use SimValue::{F32, U32, Vec4F32};

impl SimValue {
    const fn wgsl_type(self) -> &'static str {
        match self {
            F32(_) => "f32",
            U32(_) => "u32",
            Vec4F32(_) => "vec4<f32>",
        }
    }

    /// Size in words.
    const fn words(self) -> usize {
        match self {
            F32(_) | U32(_) => 1,
            Vec4F32(_) => 4,
        }
    }

    /// WGSL's alignment in words (`AlignOf` in the WGSL specification's memory layout).
    const fn align(self) -> usize {
        match self {
            F32(_) | U32(_) => 1,
            Vec4F32(_) => 4,
        }
    }
}

/// One line of `struct Sim`: name, value, and the comment put above it in the WGSL (empty: none).
struct SimField(&'static str, SimValue, &'static str);

/// The per-simulation parameters as the kernels read them, one field a line: the WGSL `struct Sim`
/// ([`sim_struct_wgsl`]) and the host's packing ([`sim_words`]) are both generated from this list, so
/// adding a field is one line here (and its use in the kernels).
const SIM_FIELDS: &[SimField] = &[
    SimField("dv", Vec4F32(|s| s.dv()), "dt g (m/s), and dt (s) in w."),
    SimField("distance_k", F32(|s| s.distance_k), ""),
    SimField("volume_k", F32(|s| s.volume_k), ""),
    SimField("xpbd", U32(|s| s.rule), ""),
    SimField("gradient_scale", F32(|s| s.gradient_scale), ""),
    SimField("keep", F32(|s| 1.0 - s.damping), ""),
    SimField("nit", U32(|s| s.nit), ""),
    SimField("tolerance", F32(|s| s.tolerance), ""),
    SimField("max_steps", U32(|s| s.max_steps), ""),
    SimField("families", U32(|s| s.families), "Bit 0: distances projected, bit 1: volumes (XPBD: either off)."),
    SimField("tet_code0", U32(|s| s.code(0)), "Per-tetrahedron terms j = 0, 1: code (0: none), alpha/dt^2, constant."),
    SimField("tet_code1", U32(|s| s.code(1)), ""),
    SimField("tet_k0", F32(|s| s.alpha_tilde(0)), ""),
    SimField("tet_k1", F32(|s| s.alpha_tilde(1)), ""),
    SimField("tet_constant0", F32(|s| s.constant(0)), ""),
    SimField("tet_constant1", F32(|s| s.constant(1)), ""),
];

/// Word offsets of [`SIM_FIELDS`] under WGSL's layout rules (each field at the next multiple of its
/// alignment), and the struct's size in words (rounded up to the largest alignment).
const SIM_LAYOUT: ([usize; SIM_FIELDS.len()], usize) = {
    let mut offsets = [0; SIM_FIELDS.len()];
    let (mut end, mut align, mut i) = (0usize, 1, 0);
    while i < SIM_FIELDS.len() {
        let v = SIM_FIELDS[i].1;
        let a = v.align();
        offsets[i] = end.div_ceil(a) * a;
        end = offsets[i] + v.words();
        if a > align {
            align = a;
        }
        i += 1;
    }
    (offsets, end.div_ceil(align) * align)
};

/// Words of one simulation's parameters (`struct Sim`).
pub(crate) const SIM_WORDS: usize = SIM_LAYOUT.1;

/// The WGSL `struct Sim` generated from [`SIM_FIELDS`]; every padding word is written out (`_padN: u32`),
/// so the struct holds exactly [`SIM_WORDS`] words, each where [`sim_words`] puts it.
pub(crate) fn sim_struct_wgsl() -> String {
    let mut out = format!(
        "// Per-simulation parameters, generated from layout.rs's SIM_FIELDS (sim_words packs them): {SIM_WORDS} \
         words.\nstruct Sim {{\n"
    );
    let (offsets, size) = SIM_LAYOUT;
    let mut end = 0;
    let pad = |out: &mut String, end: &mut usize, to: usize| {
        while *end < to {
            out.push_str(&format!("    _pad{end}: u32,\n"));
            *end += 1;
        }
    };
    for (SimField(name, value, comment), offset) in SIM_FIELDS.iter().zip(offsets) {
        pad(&mut out, &mut end, offset);
        for line in comment.lines() {
            out.push_str(&format!("    // {line}\n"));
        }
        out.push_str(&format!("    {name}: {},\n", value.wgsl_type()));
        end = offset + value.words();
    }
    pad(&mut out, &mut end, size);
    out.push_str("}\n");
    out
}

/// One simulation's parameters as the kernels read them (`struct Sim`, [`SIM_FIELDS`]).
///
/// The constants come from the model's [`ProjectionRule`] (pbdfit-pbd folds the parameters, in f64),
/// rounded once to f32: PBD factors `distance_k`, `volume_k` (for the unscaled `6 dV/dp` gradients) or
/// XPBD `alpha~ = alpha / dt^2`, and the volume gradient scale. The rule word is 0 for PBD and, for XPBD,
/// the distance constraint function's [`SpringPotential::code`] (every registered potential has a case
/// in the kernels' generated `potential_value`). The families word says which of the distance (bit 0) and
/// volume (bit 1) constraints are projected; then the per-tetrahedron constraints' codes
/// ([`TetrahedronConstraint::code`](pbdfit_pbd::TetrahedronConstraint::code), 0 for none), `alpha~` and
/// constants, and padding words (0). A mass-spring model or an engine profile has no projection rule and
/// no kernel: its rest state is solved on the CPU (the error names the model).
pub(crate) fn sim_words(
    params: &SimParams,
    gravity: [f64; 3],
    tolerance: f64,
    max_steps: u32,
) -> Result<[u32; SIM_WORDS], PbdError> {
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
    };
    let values = SimValues {
        dt: params.dt,
        gravity,
        distance_k,
        volume_k,
        rule,
        gradient_scale,
        damping: params.damping,
        nit: params.nit as u32,
        tolerance,
        max_steps,
        families,
        terms,
    };
    let f = |x: f64| (x as f32).to_bits();
    let mut words = [0; SIM_WORDS];
    for (SimField(_, value, _), offset) in SIM_FIELDS.iter().zip(SIM_LAYOUT.0) {
        match value {
            F32(v) => words[offset] = f(v(&values)),
            U32(v) => words[offset] = v(&values),
            Vec4F32(v) => {
                for (w, x) in words[offset..offset + 4].iter_mut().zip(v(&values)) {
                    *w = f(x);
                }
            }
        }
    }
    Ok(words)
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
/// [`pbdfit_pbd::TetrahedronConstraint::wgsl`]), `struct Sim` generated from [`SIM_FIELDS`]
/// ([`sim_struct_wgsl`]), the shared constraint projections (`shaders/constraints.wgsl`), then the
/// kernel itself.
pub(crate) fn shader_source(kernel: &str) -> String {
    format!(
        "{}{}{}{}{kernel}",
        pbdfit_pbd::SpringPotential::wgsl(),
        pbdfit_pbd::TetrahedronConstraint::wgsl(),
        sim_struct_wgsl(),
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

    /// The word of `struct Sim`'s field `name` (a vector's first).
    fn at(name: &str) -> usize {
        SIM_FIELDS.iter().zip(SIM_LAYOUT.0).find(|(f, _)| f.0 == name).unwrap_or_else(|| panic!("{name}")).1
    }

    #[test]
    fn rules_follow_the_cpu_rules() {
        let g = [0.0, -9.81, 0.0];
        let w = sim_words(&SimParams::new(0.01, 1, Model::pbd(0.5, 0.3)), g, 1e-7, 99).unwrap();
        assert_eq!((word(w[at("dv") + 1]), word(w[at("dv") + 3])), ((-9.81f64 * 0.01) as f32 as f64, 0.01f32 as f64));
        assert_eq!(
            (word(w[at("distance_k")]), word(w[at("volume_k")]), w[at("xpbd")], word(w[at("gradient_scale")])),
            (0.5, (0.3f64 / 6.0) as f32 as f64, 0, 1.0)
        );
        assert_eq!((word(w[at("keep")]), w[at("nit")], w[at("max_steps")]), (1.0, 1, 99));
        let w = sim_words(&SimParams::new(0.01, 4, ModelKind::PBD_LINEARISED.with(&[0.5, 0.5]).unwrap()), g, 1e-7, 1)
            .unwrap();
        let k = 1.0 - 0.5f64.powf(0.25);
        assert_eq!((word(w[at("distance_k")]), word(w[at("volume_k")])), (k as f32 as f64, (k / 6.0) as f32 as f64));
        let w =
            sim_words(&SimParams::new(0.01, 1, ModelKind::PBD_TEXTBOOK_VOLUME.with(&[0.5, 0.6]).unwrap()), g, 1e-7, 1)
                .unwrap();
        assert_eq!(
            (word(w[at("volume_k")]), word(w[at("gradient_scale")])),
            (0.6f32 as f64, (1.0f64 / 6.0) as f32 as f64)
        );
        let x = Model::xpbd(1e-4, 2e-6);
        let w = sim_words(&SimParams { damping: 0.25, ..SimParams::new(0.01, 2, x) }, g, 1e-7, 1).unwrap();
        assert_eq!(
            (word(w[at("distance_k")]), word(w[at("volume_k")]), w[at("xpbd")]),
            ((1e-4f64 / 1e-4) as f32 as f64, (2e-6f64 / 1e-4) as f32 as f64, 1)
        );
        assert_eq!(word(w[at("keep")]), 0.75);
        let terms = ["tet_code0", "tet_code1", "tet_k0", "tet_k1", "tet_constant0", "tet_constant1"];
        assert_eq!((w[at("families")], terms.map(|n| w[at(n)])), (3, [0; 6]), "both families, no tetrahedron terms");
        // Every XPBD model sends its potential's registered code, its families and its per-tetrahedron
        // constraints' codes, alpha~ and constants.
        for kind in ModelKind::all().iter().filter(|k| k.has_projection()) {
            let params = SimParams::new(0.01, 1, kind.with(&vec![1e-6; kind.parameters().len()]).unwrap());
            if kind.is_engine_profile() || kind.body_kind() == pbdfit_pbd::BodyKind::Sheet {
                // An engine profile or a cloth model has no kernel words: the hand-off gives it to the CPU first.
                assert!(sim_words(&params, g, 1e-7, 1).is_err(), "{kind}");
                continue;
            }
            let w = sim_words(&params, g, 1e-7, 1).unwrap();
            if let ProjectionRule::Xpbd { distance_potential, distances, volumes, tetrahedra, .. } =
                params.projection_rule().unwrap()
            {
                assert_eq!(w[at("xpbd")], distance_potential.code(), "{kind}");
                if distances {
                    assert_eq!(word(w[at("distance_k")]), (1e-6f64 / 1e-4) as f32 as f64, "{kind}");
                }
                assert_eq!(w[at("families")], u32::from(distances) | u32::from(volumes) << 1, "{kind}");
                for (j, term) in tetrahedra.iter().enumerate() {
                    let expected = term.map_or([0; 3], |t| {
                        [t.constraint.code(), (t.alpha_tilde as f32).to_bits(), (t.constant as f32).to_bits()]
                    });
                    let term = ["tet_code", "tet_k", "tet_constant"].map(|n| w[at(&format!("{n}{j}"))]);
                    assert_eq!(term, expected, "{kind} term {j}");
                }
            } else {
                assert_eq!((w[at("xpbd")], w[at("families")]), (0, 3), "{kind}");
            }
        }
        let springs = SimParams::new(0.01, 1, ModelKind::MASS_SPRING.with(&[100.0]).unwrap());
        let e = sim_words(&springs, g, 1e-7, 1).unwrap_err().to_string();
        assert!(e.contains("mass-spring") && e.contains("no projection step"), "{e}");
    }

    /// The generated `struct Sim` as WGSL lays it out (naga, wgpu's shader compiler, parsing the kernels'
    /// source): the same size as the words `sim_words` packs, and every field of `SIM_FIELDS` at the
    /// word where `sim_words` puts it.
    #[test]
    fn the_generated_sim_struct_matches_the_packed_words() {
        let source = shader_source(include_str!("shaders/single.wgsl"));
        let module = wgpu::naga::front::wgsl::parse_str(&source).expect("the kernel's source parses");
        let (members, span) = module
            .types
            .iter()
            .find_map(|(_, t)| match (&t.name, &t.inner) {
                (Some(name), wgpu::naga::TypeInner::Struct { members, span }) if name == "Sim" => {
                    Some((members.clone(), *span))
                }
                _ => None,
            })
            .expect("struct Sim");
        let words = sim_words(&SimParams::new(0.01, 1, Model::pbd(0.5, 0.3)), [0.0, -9.81, 0.0], 1e-7, 9).unwrap();
        assert_eq!(span as usize, 4 * words.len(), "struct size in bytes");
        let offsets: Vec<(&str, u32)> = members
            .iter()
            .map(|m| (m.name.as_deref().unwrap(), m.offset))
            .filter(|(n, _)| !n.starts_with("_pad"))
            .collect();
        let expected: Vec<(&str, u32)> = SIM_FIELDS
            .iter()
            .zip(SIM_LAYOUT.0)
            .map(|(SimField(name, ..), offset)| (*name, 4 * offset as u32))
            .collect();
        assert_eq!(offsets, expected);
        // Padding words fill every gap, so WGSL adds none of its own: the members tile the struct.
        let mut end = 0;
        for m in &members {
            assert_eq!(m.offset, end, "{:?}", m.name);
            end += module.types[m.ty].inner.size(module.to_ctx());
        }
        assert_eq!(end, span);
        // The words land where the struct reads them, the padding words are 0.
        assert_eq!((words[at("dv") + 3], words[at("nit")], words[at("max_steps")]), (0.01f32.to_bits(), 1, 9));
        for m in members.iter().filter(|m| m.name.as_deref().is_some_and(|n| n.starts_with("_pad"))) {
            assert_eq!(words[m.offset as usize / 4], 0, "{:?}", m.name);
        }
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
