//! Which FEM reference a fit matches: a constitutive law, a static or dynamic solve, and the FEM
//! mesh's tetrahedral split, validated from the reference's options
//! ([`ReferenceOptions`](pbdfit_mesh::ReferenceOptions), one type for files, the command line and Python).

use nalgebra::Vector3;
use pbdfit_mesh::{CubeSplit, ReferenceOptions};

use crate::materials::{Material, material, material_names};
use crate::{DynamicProgress, DynamicSettings, FemError, MassMatrix, RestRule, StaticProblem, YoungPoisson};

/// A dynamic reference's Rayleigh damping `[a (1/s), b (s)]` where the options do not say: none.
pub const DAMPING: [f64; 2] = [0.0, 0.0];

/// How the reference reaches its rest state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Solve {
    /// Static equilibrium (one linear solve, or Newton for a nonlinear law).
    Static,
    /// Implicit Euler with the study's dt, to rest or for a fixed time.
    Dynamic {
        /// Simulated time in s (`None`: until rest).
        time: Option<f64>,
        /// The mass matrix (default lumped).
        mass: MassMatrix,
        /// Rayleigh damping `[a (1/s), b (s)]` ([`DAMPING`] by default).
        damping: [f64; 2],
    },
}

/// A validated reference choice.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceSpec {
    /// The constitutive law.
    pub material: &'static dyn Material,
    /// Static, or dynamic with its time, masses and damping.
    pub solve: Solve,
    /// The FEM mesh's split relative to the model's mesh.
    pub split: CubeSplit,
}

impl Default for ReferenceSpec {
    /// Linear static FEM on the model's mesh: the thesis reproduction's reference.
    fn default() -> Self {
        Self { material: crate::materials::MATERIALS[0], solve: Solve::Static, split: CubeSplit::default() }
    }
}

impl PartialEq for ReferenceSpec {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

fn invalid(key: &'static str, value: impl ToString, allowed: impl ToString) -> FemError {
    FemError::InvalidReference { key, value: value.to_string(), allowed: allowed.to_string() }
}

fn parse_material(name: &str) -> Result<&'static dyn Material, FemError> {
    material(name).ok_or_else(|| invalid("material", name, material_names()))
}

fn parse_mass(name: &str) -> Result<MassMatrix, FemError> {
    MassMatrix::parse(name).ok_or_else(|| invalid("mass", name, "lumped, consistent"))
}

fn parse_split(name: &str) -> Result<CubeSplit, FemError> {
    CubeSplit::parse(name).ok_or_else(|| invalid("split", name, "same, opposite, six"))
}

fn check_time(t: f64) -> Result<f64, FemError> {
    if t.is_finite() && t > 0.0 { Ok(t) } else { Err(invalid("time", t, "a finite time > 0 s")) }
}

fn check_damping(d: [f64; 2]) -> Result<[f64; 2], FemError> {
    if d.iter().all(|c| c.is_finite() && *c >= 0.0) {
        Ok(d)
    } else {
        Err(invalid("damping", format!("[{}, {}]", d[0], d[1]), "finite Rayleigh a, b >= 0"))
    }
}

impl ReferenceSpec {
    /// Options given above a scene's own `[reference]` table (by the command line, a study or table file,
    /// or Python), validated where they are given: each option set is parsed, so a misspelt material or
    /// split is refused before anything runs, with the key named, and the options come back with
    /// canonical names (what results and messages show). The rules between options (time, mass and
    /// damping only with a dynamic solve) are checked on the merged choice ([`Self::from_options`]),
    /// since the scene may be the one that asks for the dynamic solve.
    ///
    /// ```
    /// use pbdfit_fem::ReferenceSpec;
    /// use pbdfit_mesh::ReferenceOptions;
    /// let o = ReferenceOptions { material: Some("stvk".into()), dynamic: true, ..Default::default() };
    /// let o = ReferenceSpec::validate(&o).unwrap();
    /// let scene = ReferenceOptions { time: Some(2.0), ..Default::default() };
    /// assert_eq!(ReferenceSpec::from_options(&o.over(&scene)).unwrap().id(), "stvk dynamic lumped t=2");
    /// let bad = ReferenceOptions { split: Some("diagonal".into()), ..Default::default() };
    /// assert!(ReferenceSpec::validate(&bad).unwrap_err().to_string().contains("split"));
    /// ```
    pub fn validate(options: &ReferenceOptions) -> Result<ReferenceOptions, FemError> {
        Ok(ReferenceOptions {
            material: options.material.as_deref().map(parse_material).transpose()?.map(|m| m.name().to_string()),
            dynamic: options.dynamic,
            time: options.time.map(check_time).transpose()?,
            fem_mass: options.fem_mass.as_deref().map(parse_mass).transpose()?.map(|m| m.name().to_string()),
            rayleigh: options.rayleigh.map(check_damping).transpose()?,
            split: options.split.as_deref().map(parse_split).transpose()?.map(|s| s.name().to_string()),
        })
    }

    /// The reference the options choose; absent options take the default's values, and time, mass and
    /// damping are refused without a dynamic solve.
    ///
    /// ```
    /// use pbdfit_fem::ReferenceSpec;
    /// use pbdfit_mesh::ReferenceOptions;
    /// let t = ReferenceOptions { material: Some("stvk".into()), dynamic: true, ..Default::default() };
    /// assert_eq!(ReferenceSpec::from_options(&t).unwrap().id(), "stvk dynamic lumped rest");
    /// assert_eq!(ReferenceSpec::default().id(), "linear static");
    /// let bad = ReferenceOptions { material: Some("rubber".into()), ..Default::default() };
    /// assert!(ReferenceSpec::from_options(&bad).unwrap_err().to_string().contains("neo-hookean"));
    /// ```
    pub fn from_options(options: &ReferenceOptions) -> Result<Self, FemError> {
        let mut spec = Self::default();
        if let Some(name) = &options.material {
            spec.material = parse_material(name)?;
        }
        if !options.dynamic {
            for (key, set) in [
                ("time", options.time.is_some()),
                ("mass", options.fem_mass.is_some()),
                ("damping", options.rayleigh.is_some()),
            ] {
                if set {
                    return Err(invalid(key, "given", "only with solve = \"dynamic\""));
                }
            }
        } else {
            spec.solve = Solve::Dynamic {
                time: options.time.map(check_time).transpose()?,
                mass: options.fem_mass.as_deref().map(parse_mass).transpose()?.unwrap_or_default(),
                damping: options.rayleigh.map(check_damping).transpose()?.unwrap_or(DAMPING),
            };
        }
        if let Some(s) = &options.split {
            spec.split = parse_split(s)?;
        }
        Ok(spec)
    }

    /// The canonical text of the reference, as in the results' `reference` column: the law, the
    /// solve, for a dynamic solve the mass, `rest` or `t=<s>` and any damping, and a split other than
    /// the model's (`linear static`, `stvk dynamic lumped rest`, `linear static split=opposite`).
    pub fn id(&self) -> String {
        let mut words = vec![self.material.name().to_string()];
        match self.solve {
            Solve::Static => words.push("static".into()),
            Solve::Dynamic { time, mass, damping } => {
                words.push("dynamic".into());
                words.push(mass.name().into());
                words.push(time.map_or("rest".into(), |t| format!("t={t}")));
                if damping != DAMPING {
                    words.push(format!("a={}", damping[0]));
                    words.push(format!("b={}", damping[1]));
                }
            }
        }
        if self.split != CubeSplit::default() {
            words.push(format!("split={}", self.split.name()));
        }
        words.join(" ")
    }

    /// Whether the rest state depends on the time step (a dynamic solve).
    pub fn needs_dt(&self) -> bool {
        matches!(self.solve, Solve::Dynamic { .. })
    }

    /// The mass matrix a dynamic solve uses (lumped for a static one, where it is unused).
    pub fn mass(&self) -> MassMatrix {
        match self.solve {
            Solve::Dynamic { mass, .. } => mass,
            Solve::Static => MassMatrix::default(),
        }
    }

    /// The dynamic settings for time step `dt` (s); `None` for a static solve.
    pub fn dynamic_settings(&self, dt: f64) -> Option<DynamicSettings> {
        let Solve::Dynamic { time, mass, damping } = self.solve else { return None };
        let to_rest = DynamicSettings::to_rest(dt);
        Some(DynamicSettings {
            mass,
            rayleigh_mass: damping[0],
            rayleigh_stiffness: damping[1],
            stop: time.map_or(to_rest.stop, RestRule::Time),
            ..to_rest
        })
    }

    /// Rest displacements (m) of `problem` for `material`; `dt` (s) is used by dynamic solves only. The
    /// linear static reference is the plain linear solve (bit-identical to [`StaticProblem::solve`]).
    pub fn displacements(
        &self,
        problem: &StaticProblem,
        material: YoungPoisson,
        dt: f64,
    ) -> Result<Vec<Vector3<f64>>, FemError> {
        self.displacements_observed(problem, material, dt, &mut |_| {})
    }

    /// The contact report (contact and friction forces per vertex and obstacle, held vertices'
    /// reactions) of this reference for a body with obstacles: the solve [`displacements`](Self::displacements)
    /// makes, with its forces, and the same displacements (checked finite as there). `None` where the
    /// problem has no contact; a dynamic reference refuses obstacles ([`FemError::ContactUnsupported`]).
    pub fn contact(
        &self,
        problem: &StaticProblem,
        material: YoungPoisson,
    ) -> Result<Option<crate::contact::ContactSolution>, FemError> {
        if !problem.has_contact() {
            return Ok(None);
        }
        match self.solve {
            Solve::Static => {
                let solution = problem.solve_contact(self.material, material)?;
                finite(&solution.displacements)?;
                Ok(Some(solution))
            }
            Solve::Dynamic { .. } => Err(FemError::ContactUnsupported(problem.obstacles().len())),
        }
    }

    /// [`displacements`](Self::displacements), telling `progress` after each step of a dynamic solve.
    pub fn displacements_observed(
        &self,
        problem: &StaticProblem,
        material: YoungPoisson,
        dt: f64,
        progress: &mut dyn FnMut(&DynamicProgress),
    ) -> Result<Vec<Vector3<f64>>, FemError> {
        let u = match self.dynamic_settings(dt) {
            None if self.material.is_linear() => problem.solve(material)?.displacements,
            None => problem.solve_law(self.material, material)?.displacements,
            Some(settings) => {
                problem.solve_dynamic_observed(self.material, material, settings, progress)?.displacements
            }
        };
        finite(&u)?;
        Ok(u)
    }
}

/// Every consumer measures displacements by their norms: a NaN, an infinity or a norm that overflows
/// would print as "max |u| 0" or "inf m", or fit as a perfect error of 0.
fn finite(u: &[Vector3<f64>]) -> Result<(), FemError> {
    match u.iter().enumerate().find(|(_, d)| !d.norm().is_finite()) {
        Some((vertex, d)) => Err(FemError::NotFinite { vertex, displacement: [d.x, d.y, d.z] }),
        None => Ok(()),
    }
}
