//! The model registry: every model kind pbdfit knows, one file each.
//!
//! **Adding a model** is one file in this folder (a `static` [`ModelDef`](crate::ModelDef): name,
//! parameters with units, scales and default boxes, and its family with the function that folds the
//! parameter values into the family's rule ([`Fold`](crate::Fold))) plus one entry in [`models!`] below
//! (its doc line and `file::DEF`). The CPU sweep and the GPU encoder both read the rule, the command line
//! and the study files find the model by name, and the fit searches its parameters by their specs. An
//! engine profile's model lives in its engine's file instead, registered by its line in `engines!`.

use std::sync::LazyLock;

use crate::{BodyKind, ModelDef, ModelKind};

/// Where a model's paste lines give the engine other parameters than the fitted ones: each line's name
/// the kind and the parameter values it makes (see [`crate::ModelKind::pasted_bodies`]).
pub(crate) fn pasted_bodies(kind: ModelKind, values: &[f64]) -> Vec<(&'static str, ModelKind, Vec<f64>)> {
    match kind.name() {
        "jolt" => vec![("Godot SoftBody3D", kind, crate::engines::jolt::godot_body(values))],
        "jolt-cloth" => vec![crate::engines::jolt_cloth::godot_body(kind, values)],
        _ => Vec::new(),
    }
}

/// The registry: each entry (its doc, then `file::DEF`) declares the model's file, lists its `static`
/// [`ModelDef`] in [`MODELS`] and names it as a [`ModelKind`] constant.
macro_rules! models {
    ($($(#[$doc:meta])* $file:ident::$def:ident),+ $(,)?) => {
        $(mod $file;)+

        /// Every registered model, in the order the command line lists them: the solids' models of this
        /// list, the solids' engine profiles (`engines!`), then the same for sheets, each in its list's order.
        pub(crate) static MODELS: LazyLock<Vec<&ModelDef>> = LazyLock::new(|| {
            let mut all: Vec<(bool, &ModelDef)> = [$(&$file::$def),+].map(|d| (false, d)).into();
            all.extend(crate::engines::MODELS.iter().map(|&d| (true, d)));
            all.sort_by_key(|&(engine, d)| (d.rule.body_kind() == BodyKind::Sheet, engine));
            all.into_iter().map(|(_, d)| d).collect()
        });

        impl ModelKind {
            $($(#[$doc])* pub const $def: ModelKind = ModelKind::of(&$file::$def);)+
        }
    };
}

models! {
    /// The reference library's PBD (the default model).
    pbd::PBD,
    /// PBD with the linearised stiffness.
    pbd_linearised::PBD_LINEARISED,
    /// PBD with the textbook volume gradient.
    pbd_textbook_volume::PBD_TEXTBOOK_VOLUME,
    /// XPBD with compliances.
    xpbd::XPBD,
    /// XPBD with the Hookean spring potential.
    xpbd_hookean::XPBD_HOOKEAN,
    /// XPBD with the St. Venant-Kirchhoff spring potential.
    xpbd_stvk::XPBD_STVK,
    /// XPBD with the modified Morse spring potential.
    xpbd_morse::XPBD_MORSE,
    /// XPBD with per-tetrahedron Green-strain constraints.
    xpbd_strain::XPBD_STRAIN,
    /// Mass-spring.
    mass_spring::MASS_SPRING,
    /// Mass-spring with a volume penalty.
    mass_spring_volume::MASS_SPRING_VOLUME,
    /// Sheets: the reference library's PBD cloth (distance, dihedral bending).
    cloth_pbd::CLOTH_PBD,
    /// Sheets: PBD cloth with isometric bending.
    cloth_pbd_isometric::CLOTH_PBD_ISOMETRIC,
    /// Sheets: XPBD cloth (distance, isometric bending).
    cloth_xpbd::CLOTH_XPBD,
    /// Sheets: XPBD Hookean edge springs with isometric bending.
    cloth_xpbd_hookean::CLOTH_XPBD_HOOKEAN,
    /// Sheets: XPBD St. Venant-Kirchhoff edge springs with isometric bending.
    cloth_xpbd_stvk::CLOTH_XPBD_STVK,
    /// Sheets: XPBD modified Morse edge springs with isometric bending.
    cloth_xpbd_morse::CLOTH_XPBD_MORSE,
    /// Sheets: the library's FEM triangles with dihedral bending.
    cloth_fem::CLOTH_FEM,
    /// Sheets: the library's strain triangles with dihedral bending.
    cloth_strain::CLOTH_STRAIN,
    /// Sheets: mass-spring cloth (structural, shear and bending springs).
    cloth_mass_spring::CLOTH_MASS_SPRING,
}
