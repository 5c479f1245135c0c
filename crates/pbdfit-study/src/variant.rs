//! Study variants: a study run under a changed setup (the reference's material, solve, mass matrix and
//! mesh split; the scenes' mass model and load level; the model's arithmetic), to find out what
//! explains a difference from a published result. A variant is named by atoms joined with `+`, e.g.
//! `opposite+corotational+f32`; `baseline` changes nothing.

use pbdfit_mesh::{MassModel, ReferenceOptions};
use pbdfit_pbd::Precision;

use crate::Study;
use pbdfit_fit::FitError;

/// One atom of a variant name and what it changes.
struct Atom {
    name: &'static str,
    what: &'static str,
    apply: fn(&mut Variant),
}

/// The atoms a variant name may combine besides the materials. Every registered FEM material but the
/// default (`pbdfit_fem::materials::MATERIALS`: `corotational`, `stvk`, `neo-hookean`, ...) is an atom
/// too, read from that registry, so a new material is a variant without an edit here.
/// `dynamic-t<seconds>` (e.g. `dynamic-t2`) and `load<factor>` (e.g. `load8`) take a number and are
/// listed by [`Variant::known`] separately.
const ATOMS: &[Atom] = &[
    Atom { name: "baseline", what: "the study as written", apply: |_| {} },
    Atom {
        name: "dynamic",
        what: "FEM rest state by implicit Euler with the study's dt, to rest",
        apply: |v| v.reference.dynamic = true,
    },
    Atom {
        name: "consistent",
        what: "consistent FEM mass matrix (with a dynamic solve)",
        apply: |v| v.reference.fem_mass = Some("consistent".into()),
    },
    Atom {
        name: "opposite",
        what: "FEM mesh with the other 5-tet parity",
        apply: |v| v.reference.split = Some("opposite".into()),
    },
    Atom { name: "six", what: "FEM mesh of 6 tets per hexahedron", apply: |v| v.reference.split = Some("six".into()) },
    Atom {
        name: "uniform",
        what: "uniform mass per vertex (both sides)",
        apply: |v| v.mass_model = Some(MassModel::Uniform),
    },
    Atom {
        name: "f32",
        what: "the PBD library's arithmetic in f32 (positions, stepped)",
        apply: |v| v.precision = Some(Precision::F32),
    },
];

/// A study variant: what it changes relative to the study.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Variant {
    /// The name as given (atoms joined by `+`).
    pub name: String,
    /// Reference fields set by the variant (over the study's and the scenes').
    pub reference: ReferenceOptions,
    /// Mass model of both sides.
    pub mass_model: Option<MassModel>,
    /// Gravity multiplied by this factor.
    pub load: Option<f64>,
    /// Arithmetic of the model's rest states.
    pub precision: Option<Precision>,
}

/// The FEM materials that are variant atoms: every registered one but the default (the first).
fn material_atoms() -> impl Iterator<Item = &'static dyn pbdfit_fem::materials::Material> {
    pbdfit_fem::materials::MATERIALS.iter().copied().skip(1)
}

impl Variant {
    /// Every atom with what it does, one per line, for help and error messages.
    pub fn known() -> String {
        let mut lines: Vec<String> = ATOMS[..1].iter().map(|a| format!("{:14} {}", a.name, a.what)).collect();
        lines.extend(material_atoms().map(|m| format!("{:14} {} FEM", m.name(), m.description())));
        lines.extend(ATOMS[1..].iter().map(|a| format!("{:14} {}", a.name, a.what)));
        lines.push(format!("{:14} {}", "dynamic-t<S>", "dynamic FEM stopped after S seconds (e.g. dynamic-t2)"));
        lines.push(format!(
            "{:14} {}",
            "load<F>", "every load (gravity, tractions, prescribed displacements) times F on both sides (e.g. load8)"
        ));
        lines.join("\n")
    }

    /// Parses `atom+atom+...`; an unknown atom is an error listing the known ones.
    ///
    /// ```
    /// use pbdfit_study::Variant;
    /// let v = Variant::parse("opposite+corotational+f32").unwrap();
    /// assert_eq!(v.reference.split.as_deref(), Some("opposite"));
    /// assert_eq!(v.reference.material.as_deref(), Some("corotational"));
    /// assert!(Variant::parse("opposite+rubber").unwrap_err().to_string().contains("neo-hookean"));
    /// ```
    pub fn parse(name: &str) -> Result<Self, FitError> {
        let mut variant = Variant { name: name.to_string(), ..Default::default() };
        let unknown = |atom: &str| FitError::UnknownVariant {
            name: name.to_string(),
            atom: atom.to_string(),
            known: Self::known(),
        };
        for atom in name.split('+') {
            if let Some(a) = ATOMS.iter().find(|a| a.name == atom) {
                (a.apply)(&mut variant);
            } else if let Some(m) = material_atoms().find(|m| m.name() == atom) {
                variant.reference.material = Some(m.name().into());
            } else if let Some(t) = atom.strip_prefix("dynamic-t") {
                let t: f64 = t.parse().map_err(|_| unknown(atom))?;
                variant.reference.dynamic = true;
                variant.reference.time = Some(t);
            } else if let Some(f) = atom.strip_prefix("load") {
                let f: f64 = f.parse().map_err(|_| unknown(atom))?;
                if !(f.is_finite() && f > 0.0) {
                    return Err(unknown(atom));
                }
                variant.load = Some(f);
            } else {
                return Err(unknown(atom));
            }
        }
        Ok(variant)
    }

    /// The study with this variant's changes; the reference is checked for every scene.
    pub fn apply(&self, study: &Study) -> Result<Study, FitError> {
        let mut out = study.clone();
        out.name = format!("{}-{}", study.name, self.name);
        out.reference =
            pbdfit_fit::reference_overrides(&format!("variant {}", self.name), &self.reference.over(&study.reference))?;
        if let Some(m) = self.mass_model {
            out.mass_model = Some(m);
            out.scenes = out.scenes.into_iter().map(|s| s.with_mass_model(m)).collect();
        }
        if let Some(f) = self.load {
            out.scenes = out.scenes.into_iter().map(|s| s.with_load_scale(f)).collect();
        }
        if let Some(p) = self.precision {
            out.precision = p;
        }
        out.check_reference()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoms_combine_and_numbers_parse() {
        let v = Variant::parse("dynamic-t2+consistent+load8+uniform").unwrap();
        assert!(v.reference.dynamic);
        assert_eq!(v.reference.time, Some(2.0));
        assert_eq!(v.reference.fem_mass.as_deref(), Some("consistent"));
        assert_eq!(v.load, Some(8.0));
        assert_eq!(v.mass_model, Some(MassModel::Uniform));
        assert_eq!(Variant::parse("baseline").unwrap().reference, ReferenceOptions::default());
        for bad in ["load-1", "loadx", "dynamic-tx", "sofa", ""] {
            let e = Variant::parse(bad).unwrap_err().to_string();
            assert!(e.contains("opposite") && e.contains("f32"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_variant_changes_the_study_it_applies_to() {
        let study =
            Study::from_file(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fits/thesis.toml")))
                .unwrap();
        let v = Variant::parse("six+f32+load8").unwrap().apply(&study).unwrap();
        assert_eq!(v.name, "thesis-six+f32+load8");
        assert_eq!(v.precision, Precision::F32);
        assert_eq!(v.reference.split.as_deref(), Some("six"));
        let g = |s: &Study| s.scenes[0].scenes()[0].gravity.y;
        assert_eq!(g(&v), 8.0 * g(&study));
        // Static solve with a time is refused, naming the field.
        let bad = Variant::parse("consistent").unwrap().apply(&study).unwrap_err().to_string();
        assert!(bad.contains("mass") && bad.contains("dynamic"), "{bad}");
    }

    /// Every registered FEM material but the default is an atom (read from the material registry, not
    /// listed here), setting the reference's material; `known` lists each with its description.
    #[test]
    fn every_registered_material_is_a_variant_atom() {
        let known = Variant::known();
        for m in pbdfit_fem::materials::MATERIALS.iter().skip(1) {
            let v = Variant::parse(m.name()).unwrap();
            assert_eq!(v.reference.material.as_deref(), Some(m.name()));
            assert!(known.contains(m.name()) && known.contains(m.description()), "{known}");
            let combined = Variant::parse(&format!("opposite+{}", m.name())).unwrap();
            assert_eq!(combined.reference.material.as_deref(), Some(m.name()));
            assert_eq!(combined.reference.split.as_deref(), Some("opposite"));
        }
    }
}
