//! Which FEM reference a fit matches: a constitutive law, a static or dynamic solve, and the FEM
//! mesh's tetrahedral split, validated from a `[reference]` table
//! ([`ReferenceTable`](pbdfit_mesh::ReferenceTable)).

use nalgebra::Vector3;
use pbdfit_mesh::{CubeSplit, ReferenceTable};

use crate::materials::{Material, material, material_names};
use crate::{DynamicProgress, DynamicSettings, FemError, MassMatrix, RestRule, StaticProblem, YoungPoisson};

/// How the reference reaches its rest state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solve {
    /// Static equilibrium (one linear solve, or Newton for a nonlinear law).
    Static,
    /// Implicit Euler with the study's dt, to rest or for a fixed time.
    Dynamic,
}

/// A validated reference choice.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceSpec {
    /// The constitutive law.
    pub material: &'static dyn Material,
    /// Static or dynamic.
    pub solve: Solve,
    /// Dynamic only: simulated time in s (`None`: until rest).
    pub time: Option<f64>,
    /// Dynamic only: the mass matrix.
    pub mass: MassMatrix,
    /// Dynamic only: Rayleigh damping `[a (1/s), b (s)]`.
    pub damping: [f64; 2],
    /// The FEM mesh's split relative to the model's mesh.
    pub split: CubeSplit,
}

impl Default for ReferenceSpec {
    /// Linear static FEM on the model's mesh: the thesis reproduction's reference.
    fn default() -> Self {
        Self {
            material: crate::materials::MATERIALS[0],
            solve: Solve::Static,
            time: None,
            mass: MassMatrix::Lumped,
            damping: [0.0, 0.0],
            split: CubeSplit::Five,
        }
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

/// Reference choices given above a scene's own `[reference]` table (by the command line, a study or
/// table file, or Python), validated where they are given: each field is parsed into its type when the
/// overrides are made, so a misspelt material or split is refused before anything runs, with the key
/// named. The rules between fields (time, mass and damping only with a dynamic solve) are checked on the
/// merged choice ([`Self::spec_over`]), since the scene may be the one that asks for the dynamic solve.
///
/// ```
/// use pbdfit_fem::{ReferenceOverrides, Solve};
/// use pbdfit_mesh::ReferenceTable;
/// let t = ReferenceTable { material: Some("stvk".into()), solve: Some("dynamic".into()), ..Default::default() };
/// let o = ReferenceOverrides::from_table(&t).unwrap();
/// assert_eq!((o.material().unwrap().name(), o.solve()), ("stvk", Some(Solve::Dynamic)));
/// let scene = ReferenceTable { time: Some(2.0), ..Default::default() };
/// assert_eq!(o.spec_over(&scene).unwrap().id(), "stvk dynamic lumped t=2");
/// let bad = ReferenceTable { split: Some("diagonal".into()), ..Default::default() };
/// assert!(ReferenceOverrides::from_table(&bad).unwrap_err().to_string().contains("split"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReferenceOverrides {
    material: Option<&'static dyn Material>,
    solve: Option<Solve>,
    time: Option<f64>,
    mass: Option<MassMatrix>,
    damping: Option<[f64; 2]>,
    split: Option<CubeSplit>,
}

impl PartialEq for ReferenceOverrides {
    fn eq(&self, other: &Self) -> bool {
        self.table() == other.table()
    }
}

impl ReferenceOverrides {
    /// No overrides: every scene's own `[reference]` table decides.
    pub fn none() -> Self {
        Self::default()
    }

    /// Parses every field of `table` that is set (the same checks as [`ReferenceSpec::from_table`] per
    /// field).
    pub fn from_table(table: &ReferenceTable) -> Result<Self, FemError> {
        let material = match &table.material {
            Some(name) => Some(material(name).ok_or_else(|| invalid("material", name, material_names()))?),
            None => None,
        };
        let solve = match table.solve.as_deref() {
            None => None,
            Some("static") => Some(Solve::Static),
            Some("dynamic") => Some(Solve::Dynamic),
            Some(other) => return Err(invalid("solve", other, "static, dynamic")),
        };
        if let Some(t) = table.time
            && !(t.is_finite() && t > 0.0)
        {
            return Err(invalid("time", t, "a finite time > 0 s"));
        }
        let mass = match &table.mass {
            Some(m) => Some(MassMatrix::parse(m).ok_or_else(|| invalid("mass", m, "lumped, consistent"))?),
            None => None,
        };
        if let Some(d) = table.damping
            && d.iter().any(|c| !(c.is_finite() && *c >= 0.0))
        {
            return Err(invalid("damping", format!("[{}, {}]", d[0], d[1]), "finite Rayleigh a, b >= 0"));
        }
        let split = match &table.split {
            Some(s) => Some(CubeSplit::parse(s).ok_or_else(|| invalid("split", s, "same, opposite, six"))?),
            None => None,
        };
        Ok(Self { material, solve, time: table.time, mass, damping: table.damping, split })
    }

    /// Only the constitutive law (Python's `material=`), or none.
    pub fn with_material(name: Option<&str>) -> Result<Self, FemError> {
        Self::from_table(&ReferenceTable { material: name.map(String::from), ..Default::default() })
    }

    /// The law, if overridden.
    pub fn material(&self) -> Option<&'static dyn Material> {
        self.material
    }

    /// The solve, if overridden.
    pub fn solve(&self) -> Option<Solve> {
        self.solve
    }

    /// The overrides as a `[reference]` table with canonical names (what results and messages show).
    pub fn table(&self) -> ReferenceTable {
        ReferenceTable {
            material: self.material.map(|m| m.name().to_string()),
            solve: self.solve.map(|s| match s {
                Solve::Static => "static".into(),
                Solve::Dynamic => "dynamic".into(),
            }),
            time: self.time,
            mass: self.mass.map(|m| m.name().into()),
            damping: self.damping,
            split: self.split.map(|s| s.name().into()),
        }
    }

    /// The reference of a scene whose own table is `scene`, with these overrides on top.
    pub fn spec_over(&self, scene: &ReferenceTable) -> Result<ReferenceSpec, FemError> {
        ReferenceSpec::from_table(&self.table().over(scene))
    }
}

impl ReferenceSpec {
    /// Validates a `[reference]` table; absent fields take the default's values.
    ///
    /// ```
    /// use pbdfit_fem::ReferenceSpec;
    /// use pbdfit_mesh::ReferenceTable;
    /// let t = ReferenceTable { material: Some("stvk".into()), solve: Some("dynamic".into()), ..Default::default() };
    /// assert_eq!(ReferenceSpec::from_table(&t).unwrap().id(), "stvk dynamic lumped rest");
    /// assert_eq!(ReferenceSpec::default().id(), "linear static");
    /// let bad = ReferenceTable { material: Some("rubber".into()), ..Default::default() };
    /// assert!(ReferenceSpec::from_table(&bad).unwrap_err().to_string().contains("neo-hookean"));
    /// ```
    pub fn from_table(table: &ReferenceTable) -> Result<Self, FemError> {
        let mut spec = Self::default();
        if let Some(name) = &table.material {
            spec.material = material(name).ok_or_else(|| invalid("material", name, material_names()))?;
        }
        spec.solve = match table.solve.as_deref() {
            None | Some("static") => Solve::Static,
            Some("dynamic") => Solve::Dynamic,
            Some(other) => return Err(invalid("solve", other, "static, dynamic")),
        };
        if spec.solve == Solve::Static {
            for (key, set) in
                [("time", table.time.is_some()), ("mass", table.mass.is_some()), ("damping", table.damping.is_some())]
            {
                if set {
                    return Err(invalid(key, "given", "only with solve = \"dynamic\""));
                }
            }
        }
        if let Some(t) = table.time {
            if !(t.is_finite() && t > 0.0) {
                return Err(invalid("time", t, "a finite time > 0 s"));
            }
            spec.time = Some(t);
        }
        if let Some(m) = &table.mass {
            spec.mass = MassMatrix::parse(m).ok_or_else(|| invalid("mass", m, "lumped, consistent"))?;
        }
        if let Some(d) = table.damping {
            if d.iter().any(|c| !(c.is_finite() && *c >= 0.0)) {
                return Err(invalid("damping", format!("[{}, {}]", d[0], d[1]), "finite Rayleigh a, b >= 0"));
            }
            spec.damping = d;
        }
        if let Some(s) = &table.split {
            spec.split = CubeSplit::parse(s).ok_or_else(|| invalid("split", s, "same, opposite, six"))?;
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
            Solve::Dynamic => {
                words.push("dynamic".into());
                words.push(self.mass.name().into());
                words.push(self.time.map_or("rest".into(), |t| format!("t={t}")));
                if self.damping != [0.0, 0.0] {
                    words.push(format!("a={}", self.damping[0]));
                    words.push(format!("b={}", self.damping[1]));
                }
            }
        }
        if self.split != CubeSplit::Five {
            words.push(format!("split={}", self.split.name()));
        }
        words.join(" ")
    }

    /// Whether the rest state depends on the time step (a dynamic solve).
    pub fn needs_dt(&self) -> bool {
        self.solve == Solve::Dynamic
    }

    /// The dynamic settings for time step `dt` (s).
    pub fn dynamic_settings(&self, dt: f64) -> DynamicSettings {
        DynamicSettings {
            mass: self.mass,
            rayleigh_mass: self.damping[0],
            rayleigh_stiffness: self.damping[1],
            stop: self.time.map_or(RestRule::AtRest { tolerance: 1e-13 }, RestRule::Time),
            ..DynamicSettings::to_rest(dt)
        }
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
            Solve::Dynamic => Err(FemError::ContactUnsupported(problem.obstacles().len())),
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
        let u = match self.solve {
            Solve::Static if self.material.is_linear() => problem.solve(material)?.displacements,
            Solve::Static => problem.solve_law(self.material, material)?.displacements,
            Solve::Dynamic => {
                problem
                    .solve_dynamic_observed(self.material, material, self.dynamic_settings(dt), progress)?
                    .displacements
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
