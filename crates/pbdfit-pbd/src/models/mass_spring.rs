//! A classic mass-spring system: a linear spring on every tetrahedron edge (docs/method.md, section
//! Mass-spring systems). Its rest state is the static equilibrium of spring forces and gravity, solved by
//! Newton; it depends on neither dt nor nit.

use crate::{Fold, ModelDef, ParameterSpec, SpringLaw};

/// The spring constant `ks` (N/m), on a log10 box around the estimate `ks ~ E h` (h = 1/N; E from 1e2 to
/// 1e7 Pa) with margin.
pub(crate) const SPRING_CONSTANT: ParameterSpec =
    ParameterSpec::log10("ks", "N/m", "spring constant of every tetrahedron edge", (1e-3, 1e9));

/// Mass-spring: one parameter.
pub(crate) static MASS_SPRING: ModelDef = ModelDef {
    name: "mass-spring",
    description: "springs on every tetrahedron edge, spring constant ks (N/m); rest state by Newton",
    parameters: &[SPRING_CONSTANT],
    settings: &[],
    nit_means: crate::model::SOLVER_ITERATIONS,
    usage: crate::model::no_usage,
    rule: Fold::Springs(|p, _| SpringLaw { ks: p[0], ..SpringLaw::NONE }),
    example: &[100.0],
    masses: None,
};
