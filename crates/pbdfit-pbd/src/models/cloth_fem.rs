//! Cloth by the reference library's FEM triangles (an orthotropic St. Venant-Kirchhoff membrane energy
//! per triangle, `cloth/fem_triangle.rs`; `addClothConstraints` method 2) with dihedral bending
//! (`cloth/dihedral.rs`). Isotropic here: the library's `xxStiffness = yyStiffness = young`,
//! `xyStiffness = shear`, both Poisson ratios `poisson`. The projection depends on `young` and `shear`
//! only through their ratio (module doc of `fem_triangle.rs`), so a fit determines `shear / young`,
//! `poisson` and `kb`; `young` keeps the library's scale.

use crate::cloth::{ClothRule, ClothTerm, FemMaterial};
use crate::models::cloth_pbd::BENDING;
use crate::{Fold, ModelDef, ParameterSpec, Scale};

/// The library's moduli and the bending stiffness.
const PARAMETERS: [ParameterSpec; 4] = [
    ParameterSpec::log10("young", "N/m", "membrane Young's modulus (the library's xx and yy stiffness)", (1e-2, 1e6)),
    ParameterSpec {
        name: "poisson",
        unit: "1",
        units_when: &[],
        inert_when: None,
        description: "Poisson ratio (the library's xy and yx Poisson ratios)",
        scale: Scale::Linear,
        default_box: (0.0, 0.49),
        minimum: -0.99,
        maximum: 0.99,
        maximum_unbounded: 0.99,
    },
    ParameterSpec::log10("shear", "N/m", "membrane shear modulus (the library's xy stiffness)", (1e-2, 1e6)),
    BENDING,
];

/// Triangles then hinges.
pub(crate) static CLOTH_FEM: ModelDef = ModelDef {
    name: "cloth-fem",
    description: "sheets: the library's FEM triangles (young, poisson, shear) and dihedral bending (kb)",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Cloth(|p, _| ClothRule {
        terms: [
            Some(ClothTerm::FemTriangle(FemMaterial {
                young_x: p[0],
                young_y: p[0],
                shear: p[2],
                poisson_xy: p[1],
                poisson_yx: p[1],
            })),
            Some(ClothTerm::Dihedral(p[3])),
        ],
        volume: None,
    }),
    example: &[1.0, 0.3, 0.5, 0.1],
    masses: None,
};
