use crate::PbdError;

/// The PBD model variant and its two parameters (one for distance constraints, one for volume).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Model {
    /// The reference library's PBD (the default): `k` in [0, 1] multiplies the correction; volume
    /// gradients are `6 dV/dp` (one sixth of the textbook step).
    Pbd {
        /// Distance stiffness.
        kd: f64,
        /// Volume stiffness.
        kv: f64,
    },
    /// As [`Model::Pbd`], with the original paper's iteration-count correction `k' = 1 - (1 - k)^(1/nit)`.
    PbdLinearised {
        /// Distance stiffness before the correction.
        kd: f64,
        /// Volume stiffness before the correction.
        kv: f64,
    },
    /// As [`Model::Pbd`], with the true volume gradient `dV/dp` (the textbook step).
    PbdTextbookVolume {
        /// Distance stiffness.
        kd: f64,
        /// Volume stiffness.
        kv: f64,
    },
    /// XPBD (Macklin, Mueller, Chentanez 2016) with true gradients and multipliers reset each step.
    /// Compliances: distance in m/N (`C` in m), volume in m^3/(N m) = m^2/N... precisely: the constraint
    /// energy is `C^2 / (2 alpha)` in J, so `alpha_d` is in m^2/J = m/N and `alpha_v` in m^6/J.
    Xpbd {
        /// Distance compliance `alpha_d` (m/N), >= 0.
        compliance_distance: f64,
        /// Volume compliance `alpha_v` (m^6/J), >= 0.
        compliance_volume: f64,
    },
}

impl Model {
    /// The model's name on the command line and in results files.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Pbd { .. } => "pbd",
            Model::PbdLinearised { .. } => "pbd-linearised",
            Model::PbdTextbookVolume { .. } => "pbd-textbook-volume",
            Model::Xpbd { .. } => "xpbd",
        }
    }

    /// The two fitted parameters: (kd, kv), or (alpha_d, alpha_v) for XPBD.
    pub fn parameters(&self) -> (f64, f64) {
        match *self {
            Model::Pbd { kd, kv } | Model::PbdLinearised { kd, kv } | Model::PbdTextbookVolume { kd, kv } => (kd, kv),
            Model::Xpbd { compliance_distance, compliance_volume } => (compliance_distance, compliance_volume),
        }
    }

    /// The same variant with other parameters.
    pub fn with_parameters(&self, a: f64, b: f64) -> Model {
        match self {
            Model::Pbd { .. } => Model::Pbd { kd: a, kv: b },
            Model::PbdLinearised { .. } => Model::PbdLinearised { kd: a, kv: b },
            Model::PbdTextbookVolume { .. } => Model::PbdTextbookVolume { kd: a, kv: b },
            Model::Xpbd { .. } => Model::Xpbd { compliance_distance: a, compliance_volume: b },
        }
    }
}

/// Everything a PBD run needs besides the body: time step, iterations, model, damping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimParams {
    /// Time step in s, > 0.
    pub dt: f64,
    /// Solver iterations (Gauss-Seidel sweeps) per step, >= 1.
    pub nit: usize,
    /// Model and its parameters.
    pub model: Model,
    /// Velocity damping per step in [0, 1) (0: off, the reference library's default). It scales the
    /// previous step's velocity before gravity is added, so it changes the path to rest, never the rest
    /// state (at rest that velocity is zero).
    pub damping: f64,
    /// Allow stiffness above 1 for the PBD variants (experimental: it can overshoot).
    pub allow_unbounded: bool,
}

impl SimParams {
    /// Parameters with no damping and bounded stiffness.
    pub fn new(dt: f64, nit: usize, model: Model) -> Self {
        Self { dt, nit, model, damping: 0.0, allow_unbounded: false }
    }

    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), PbdError> {
        let bad = |name, value, allowed| Err(PbdError::InvalidParameter { name, value, allowed });
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return bad("dt", self.dt, "the time step must be a finite number > 0 s");
        }
        if self.nit == 0 {
            return bad("nit", 0.0, "at least one solver iteration per step");
        }
        if !(self.damping.is_finite() && (0.0..1.0).contains(&self.damping)) {
            return bad("damping", self.damping, "velocity damping must be in [0, 1)");
        }
        match self.model {
            Model::Xpbd { compliance_distance, compliance_volume } => {
                for (name, v) in
                    [("compliance_distance", compliance_distance), ("compliance_volume", compliance_volume)]
                {
                    if !(v.is_finite() && v >= 0.0) {
                        return bad(name, v, "compliance must be a finite number >= 0");
                    }
                }
            }
            m => {
                let (kd, kv) = m.parameters();
                for (name, k) in [("kd", kd), ("kv", kv)] {
                    if !k.is_finite() || k < 0.0 {
                        return bad(name, k, "stiffness must be a finite number >= 0");
                    }
                    if k > 1.0 && !self.allow_unbounded {
                        return bad(name, k, "stiffness must be in [0, 1]; stiffness above 1 needs the unbounded flag");
                    }
                    if k > 1.0 && matches!(m, Model::PbdLinearised { .. }) {
                        return bad(name, k, "the linearised model needs k in [0, 1]");
                    }
                }
            }
        }
        Ok(())
    }

    /// The parameters formatted for messages.
    pub fn describe(&self) -> String {
        let (a, b) = self.model.parameters();
        let (na, nb) = match self.model {
            Model::Xpbd { .. } => ("alpha_d", "alpha_v"),
            _ => ("kd", "kv"),
        };
        format!("model {}, {na} = {a}, {nb} = {b}, dt = {}, nit = {}", self.model.name(), self.dt, self.nit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        let ok = SimParams::new(0.01, 1, Model::Pbd { kd: 0.5, kv: 1.0 });
        assert!(ok.validate().is_ok());
        assert!(SimParams { dt: -0.01, ..ok }.validate().is_err());
        assert!(SimParams { dt: 0.0, ..ok }.validate().is_err());
        assert!(SimParams { nit: 0, ..ok }.validate().is_err());
        assert!(SimParams { damping: 1.0, ..ok }.validate().is_err());
        let stiff = SimParams::new(0.01, 1, Model::Pbd { kd: 1.5, kv: 0.5 });
        let e = stiff.validate().unwrap_err().to_string();
        assert!(e.contains("kd") && e.contains("unbounded"), "{e}");
        assert!(SimParams { allow_unbounded: true, ..stiff }.validate().is_ok());
        assert!(SimParams::new(0.01, 1, Model::Pbd { kd: -0.1, kv: 0.5 }).validate().is_err());
        let x = SimParams::new(0.01, 1, Model::Xpbd { compliance_distance: -1.0, compliance_volume: 0.0 });
        assert!(x.validate().unwrap_err().to_string().contains("compliance_distance"));
    }
}
