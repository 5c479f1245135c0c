//! Isotropic linear-elastic material parameters as validated types, with their conversions.

use crate::MaterialError;

/// Above this Poisson ratio linear tetrahedra lock (volumetric locking): the discrete body becomes far
/// stiffer than the continuum, and displacements are underestimated.
pub const LOCKING_POISSON: f64 = 0.499;

/// Young's modulus and Poisson ratio of an isotropic linear-elastic material, validated on construction.
///
/// ```
/// use pbdfit_fem::YoungPoisson;
/// let m = YoungPoisson::new(1e3, 0.3).unwrap();
/// let lame = m.lame();
/// assert!((lame.mu - 1e3 / 2.6).abs() < 1e-12);
/// assert!(YoungPoisson::new(1e3, 0.5).is_err());
/// assert!(YoungPoisson::new(-1.0, 0.3).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YoungPoisson {
    young: f64,
    poisson: f64,
}

impl YoungPoisson {
    /// Validates `young_pa` (Young's modulus in Pa, finite and > 0) and `poisson` (dimensionless,
    /// -1 < nu < 0.5).
    pub fn new(young_pa: f64, poisson: f64) -> Result<Self, MaterialError> {
        if !(young_pa.is_finite() && young_pa > 0.0) {
            return Err(MaterialError::Young(young_pa));
        }
        // The negated form also rejects NaN.
        if !(poisson > -1.0 && poisson < 0.5) {
            return Err(MaterialError::Poisson(poisson));
        }
        Ok(Self { young: young_pa, poisson })
    }

    /// Young's modulus E in Pa.
    pub fn young(&self) -> f64 {
        self.young
    }

    /// Poisson ratio nu (dimensionless).
    pub fn poisson(&self) -> f64 {
        self.poisson
    }

    /// Whether nu > [`LOCKING_POISSON`], where linear tetrahedra lock and the FEM reference is too stiff.
    pub fn locks(&self) -> bool {
        self.poisson > LOCKING_POISSON
    }

    /// A warning for the user when [`locks`](Self::locks) holds, `None` otherwise.
    pub fn locking_warning(&self) -> Option<String> {
        self.locks().then(|| {
            format!(
                "Poisson ratio nu = {} > {LOCKING_POISSON}: linear tetrahedra lock for nearly incompressible \
                 materials, so the FEM reference underestimates displacements",
                self.poisson
            )
        })
    }

    /// The Lame parameters: lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)).
    pub fn lame(&self) -> LameParameters {
        let (e, nu) = (self.young, self.poisson);
        LameParameters { lambda: e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), mu: e / (2.0 * (1.0 + nu)) }
    }
}

impl std::fmt::Display for YoungPoisson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "E = {} Pa, nu = {}", self.young, self.poisson)
    }
}

/// Lame parameters in Pa. `mu` is the shear modulus. Obtained from [`YoungPoisson::lame`], so always
/// within the range where the elasticity tensor is positive definite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LameParameters {
    /// First Lame parameter lambda in Pa.
    pub lambda: f64,
    /// Shear modulus mu in Pa.
    pub mu: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_values_with_the_value_and_range() {
        for e in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let msg = YoungPoisson::new(e, 0.3).unwrap_err().to_string();
            assert!(msg.contains("> 0"), "{msg}");
        }
        for nu in [0.5, 0.7, -1.0, -2.0, f64::NAN] {
            let msg = YoungPoisson::new(1e3, nu).unwrap_err().to_string();
            assert!(msg.contains("-1 < nu < 0.5") && msg.contains(&nu.to_string()), "{msg}");
        }
        assert!(YoungPoisson::new(1e3, 0.4999).is_ok());
        assert!(YoungPoisson::new(1e3, -0.99).is_ok());
    }

    #[test]
    fn locking_warning_above_0_499() {
        assert!(!YoungPoisson::new(1.0, 0.499).unwrap().locks());
        assert!(YoungPoisson::new(1.0, 0.4995).unwrap().locks());
        assert!(YoungPoisson::new(1.0, 0.4995).unwrap().locking_warning().unwrap().contains("lock"));
    }

    #[test]
    fn lame_parameters_reproduce_young_and_poisson() {
        // E = mu (3 lambda + 2 mu) / (lambda + mu), nu = lambda / (2 (lambda + mu)).
        for nu in [-0.5, 0.0, 0.25, 0.3, 0.49] {
            let LameParameters { lambda, mu } = YoungPoisson::new(2e5, nu).unwrap().lame();
            assert!((mu * (3.0 * lambda + 2.0 * mu) / (lambda + mu) - 2e5).abs() < 1e-9 * 2e5);
            assert!((lambda / (2.0 * (lambda + mu)) - nu).abs() < 1e-14);
        }
    }
}
