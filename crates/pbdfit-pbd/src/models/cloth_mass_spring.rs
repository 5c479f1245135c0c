//! Mass-spring cloth (Provot 1995): structural springs on the sheet's grid rows and columns, shear
//! springs on its cells' diagonals, bending (flexion) springs two apart along rows and columns, each group
//! with its own constant (`mass_spring/sheet_springs.rs` says which spring is which on a mesh). Its rest
//! state is the static equilibrium of spring forces and gravity, solved by Newton as for `mass-spring`; it
//! depends on neither dt nor nit.

use crate::{Fold, ModelDef, ParameterSpec, SpringLaw};

/// The three spring constants on log10 boxes. Stretch and shear around `ks ~ E h` (a square grid of
/// springs `E h` has the tensile stiffness of a membrane `E h`): E h from 1e-1 N/m (a thin film) to 1e9
/// N/m (a steel plate of 5 mm) with margin. A bending spring's energy is quartic in the curvature, so a
/// shell's bending stiffness gives no estimate of `ks_bend`: the same box.
const PARAMETERS: [ParameterSpec; 3] = [
    ParameterSpec::log10("ks_stretch", "N/m", "spring constant of the structural springs (grid rows and columns)", (1e-2, 1e10)),
    ParameterSpec::log10("ks_shear", "N/m", "spring constant of the shear springs (cell diagonals)", (1e-2, 1e10)),
    ParameterSpec::log10("ks_bend", "N/m", "spring constant of the bending springs (two apart along rows and columns)", (1e-2, 1e10)),
];

/// Structural, shear and bending springs.
pub(crate) static CLOTH_MASS_SPRING: ModelDef = ModelDef {
    name: "cloth-mass-spring",
    description: "sheets: mass-spring cloth, structural, shear and bending springs (ks_stretch, ks_shear, ks_bend, \
                  N/m); rest state by Newton",
    parameters: &PARAMETERS,
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::SheetSprings(|p, _| SpringLaw { ks: p[0], ks_shear: p[1], ks_bend: p[2], ..SpringLaw::NONE }),
    example: &[1e3, 3e2, 1e2],
    masses: None,
};
