//! Cloth by the reference library's strain triangles (strain based dynamics, `cloth/strain_triangle.rs`;
//! `addClothConstraints` method 3) with dihedral bending (`cloth/dihedral.rs`): `xxStiffness =
//! yyStiffness = k_stretch`, `xyStiffness = k_shear`; the library's two normalisations are settings.

use crate::cloth::{ClothRule, ClothTerm, StrainStiffness};
use crate::models::cloth_pbd::BENDING;
use crate::{Fold, ModelDef, ParameterSpec, SettingSpec};

/// Stretch, shear and bending stiffnesses.
const PARAMETERS: [ParameterSpec; 3] = [
    ParameterSpec::stiffness("k_stretch", "stretch stiffness: the factor on the strain triangle's S_xx, S_yy corrections"),
    ParameterSpec::stiffness("k_shear", "shear stiffness: the factor on the strain triangle's S_xy correction"),
    BENDING,
];

/// The library's `normalizeStretch` and `normalizeShear` (0: off, 1: on).
const SETTINGS: [SettingSpec; 2] = [
    SettingSpec::count("normalize_stretch", "project the stretches sqrt(S_ii) instead of S_ii (0 or 1)", 0.0, 0.0)
        .within(0.0, 1.0),
    SettingSpec::count("normalize_shear", "normalise the shear by the deformed axes' lengths (0 or 1)", 0.0, 0.0)
        .within(0.0, 1.0),
];

/// Triangles then hinges.
pub(crate) static CLOTH_STRAIN: ModelDef = ModelDef {
    name: "cloth-strain",
    description: "sheets: the library's strain triangles (k_stretch, k_shear) and dihedral bending (kb)",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, s| ClothRule {
        terms: [
            Some(ClothTerm::StrainTriangle(StrainStiffness {
                xx: p[0],
                yy: p[0],
                xy: p[1],
                normalize_stretch: s.settings[0] != 0.0,
                normalize_shear: s.settings[1] != 0.0,
            })),
            Some(ClothTerm::Dihedral(p[2])),
        ],
        volume: None,
    }),
    example: &[0.9, 0.5, 0.1],
    masses: None,
};
