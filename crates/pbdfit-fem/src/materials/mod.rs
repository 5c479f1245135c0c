//! Constitutive laws of the FEM reference, behind one trait: the energy density, the first
//! Piola-Kirchhoff stress and its differential as functions of the deformation gradient `F`
//! (docs/rest-states-and-references.md).
//!
//! Each law is one file plus one line in [`MATERIALS`]. All take the Lame parameters of a
//! [`YoungPoisson`](crate::YoungPoisson) (Pa), so every law has the same small-strain limit: as the
//! load goes to zero each tends to the linear solution (checked by the tests, the difference is
//! O(load^2)).
//!
//! Conventions: `F = I + grad u` (dimensionless), the energy density `psi` in J/m^3 = Pa, the first
//! Piola-Kirchhoff stress `P = d psi / d F` in Pa (force per reference area). The nodal internal force
//! of a linear tetrahedron with reference volume `V` and shape-function gradients `g_a` is
//! `f_a = V P g_a` (N): the gradient of the element energy `V psi(F)`.

mod corotational;
mod linear;
mod neo_hookean;
mod stvk;

use nalgebra::{Matrix3, Vector3};

pub use corotational::Corotational;
pub use linear::Linear;
pub use neo_hookean::NeoHookean;
pub use stvk::StVenantKirchhoff;

use crate::LameParameters;

/// A constitutive law: energy density, stress and stress differential of the deformation gradient.
pub trait Material: Send + Sync + std::fmt::Debug {
    /// The name in scene files, study files and on the command line (`linear`, `stvk`, ...).
    fn name(&self) -> &'static str;

    /// One line for help texts and reports.
    fn description(&self) -> &'static str;

    /// Whether the internal force is linear in the displacements (one linear solve is exact). Such a
    /// law's tangent must not depend on `F` at all, to the bit: the dynamic solve factors it once
    /// (tested for every registered law that says so).
    fn is_linear(&self) -> bool {
        false
    }

    /// Whether the law is undefined for inverted elements (`J = det F <= 0`), as neo-Hookean's `ln J`.
    fn needs_positive_volume(&self) -> bool {
        false
    }

    /// Energy density `psi(F)` in J/m^3.
    fn energy_density(&self, f: &Matrix3<f64>, lame: LameParameters) -> f64;

    /// First Piola-Kirchhoff stress `P(F) = d psi / d F` in Pa.
    fn stress(&self, f: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64>;

    /// The stress differential `dP = (d P / d F) : dF` in Pa, for the tangent stiffness.
    fn stress_differential(&self, f: &Matrix3<f64>, df: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64>;
}

/// Every material, in the order help texts list them. The first is the default.
pub static MATERIALS: &[&dyn Material] = &[&Linear, &Corotational, &StVenantKirchhoff, &NeoHookean];

/// The material called `name`, or `None`.
pub fn material(name: &str) -> Option<&'static dyn Material> {
    MATERIALS.iter().copied().find(|m| m.name() == name)
}

/// The names of all materials, comma separated, for error messages.
pub fn material_names() -> String {
    MATERIALS.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
}

/// The small-strain stress `2 mu eps + lambda tr(eps) I` of a symmetric strain `eps` (Pa).
pub(crate) fn linear_stress(eps: &Matrix3<f64>, lame: LameParameters) -> Matrix3<f64> {
    eps * (2.0 * lame.mu) + Matrix3::identity() * (lame.lambda * eps.trace())
}

/// The vector `a` of a skew matrix `A = [a]_x` (`A v = a x v`), from the skew part of any matrix.
pub(crate) fn axial(m: &Matrix3<f64>) -> Vector3<f64> {
    Vector3::new(m[(2, 1)] - m[(1, 2)], m[(0, 2)] - m[(2, 0)], m[(1, 0)] - m[(0, 1)]) * 0.5
}

/// The skew matrix `[a]_x`.
pub(crate) fn cross_matrix(a: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::YoungPoisson;

    fn gradients() -> Vec<Matrix3<f64>> {
        vec![
            Matrix3::identity(),
            Matrix3::new(1.1, 0.05, -0.02, 0.03, 0.95, 0.08, -0.04, 0.02, 1.02),
            Matrix3::new(0.8, 0.3, 0.1, -0.2, 1.3, 0.05, 0.15, -0.1, 0.9),
            // A large rotation of a stretched state.
            nalgebra::Rotation3::from_axis_angle(&Vector3::y_axis(), 1.2).matrix()
                * Matrix3::new(1.2, 0.1, 0.0, 0.1, 0.9, 0.05, 0.0, 0.05, 1.05),
        ]
    }

    fn direction() -> Matrix3<f64> {
        Matrix3::new(0.3, -0.7, 0.2, 0.5, 0.1, -0.4, -0.6, 0.9, 0.25)
    }

    #[test]
    fn stress_is_the_gradient_of_the_energy() {
        let lame = YoungPoisson::new(1e3, 0.3).unwrap().lame();
        for m in MATERIALS {
            for f in gradients() {
                let p = m.stress(&f, lame);
                let d = direction();
                let h = 1e-6;
                let fd = (m.energy_density(&(f + d * h), lame) - m.energy_density(&(f - d * h), lame)) / (2.0 * h);
                let analytic = p.dot(&d);
                assert!((fd - analytic).abs() < 1e-6 * (1.0 + analytic.abs()), "{}: {fd} vs {analytic}", m.name());
            }
        }
    }

    #[test]
    fn stress_differential_matches_finite_differences() {
        let lame = YoungPoisson::new(1e3, 0.3).unwrap().lame();
        for m in MATERIALS {
            for f in gradients() {
                let d = direction();
                let h = 1e-6;
                let fd = (m.stress(&(f + d * h), lame) - m.stress(&(f - d * h), lame)) / (2.0 * h);
                let analytic = m.stress_differential(&f, &d, lame);
                let scale = analytic.amax().max(1.0);
                assert!((fd - analytic).amax() < 1e-6 * scale, "{}: {fd} vs {analytic}", m.name());
            }
        }
    }

    #[test]
    fn the_reference_state_is_stress_free_and_has_the_linear_tangent() {
        let lame = YoungPoisson::new(2e3, 0.27).unwrap().lame();
        let d = direction();
        let linear = Linear.stress_differential(&Matrix3::identity(), &d, lame);
        for m in MATERIALS {
            assert!(m.stress(&Matrix3::identity(), lame).amax() < 1e-12, "{}", m.name());
            assert!(m.energy_density(&Matrix3::identity(), lame).abs() < 1e-12, "{}", m.name());
            let tangent = m.stress_differential(&Matrix3::identity(), &d, lame);
            assert!((tangent - linear).amax() < 1e-9 * linear.amax(), "{}", m.name());
        }
    }

    #[test]
    fn nonlinear_laws_are_frame_indifferent_and_linear_is_not() {
        let lame = YoungPoisson::new(1e3, 0.3).unwrap().lame();
        let q = *nalgebra::Rotation3::from_euler_angles(0.4, -1.1, 0.7).matrix();
        for m in MATERIALS {
            for f in gradients() {
                let before = m.energy_density(&f, lame);
                let after = m.energy_density(&(q * f), lame);
                let differs = (before - after).abs() > 1e-9 * (1.0 + before.abs());
                assert_eq!(differs, m.is_linear(), "{}: psi(F) = {before}, psi(QF) = {after}", m.name());
            }
        }
    }

    #[test]
    fn lookup_by_name() {
        assert_eq!(material("stvk").unwrap().name(), "stvk");
        assert!(material("rubber").is_none());
        // Every registered law, in registration order; the four the thesis study's variants use among them.
        let names: Vec<&str> = MATERIALS.iter().map(|m| m.name()).collect();
        assert_eq!(material_names(), names.join(", "));
        for name in ["linear", "corotational", "stvk", "neo-hookean"] {
            assert_eq!(material(name).unwrap().name(), name);
        }
    }
}
