//! The reference a scene or study asks for, as written in its `[reference]` table. This crate only
//! carries the table; pbdfit-fem validates it (`ReferenceSpec::from_table`) and owns the physics, so a
//! new material is a change there alone.

use serde::{Deserialize, Serialize};

/// A `[reference]` table: which FEM reference a fit matches. Every field is optional; an absent field
/// falls back to the next source (command line over study file over scene file over the default, a
/// linear static FEM on the same mesh as the model).
///
/// ```toml
/// [reference]
/// material = "stvk"          # linear | corotational | stvk | neo-hookean
/// solve = "dynamic"          # static | dynamic
/// time = 5.0                 # dynamic only: simulated time in s (absent: run to rest)
/// mass = "lumped"            # dynamic only: lumped | consistent
/// damping = [0.0, 0.0]       # dynamic only: Rayleigh a (1/s), b (s)
/// split = "same"             # FEM mesh: same (as the model) | opposite (other 5-tet parity) | six
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceTable {
    /// Constitutive law name.
    pub material: Option<String>,
    /// `static` or `dynamic`.
    pub solve: Option<String>,
    /// Simulated time in s for a dynamic solve (absent: until rest).
    pub time: Option<f64>,
    /// Mass matrix of a dynamic solve: `lumped` or `consistent`.
    pub mass: Option<String>,
    /// Rayleigh damping `[a, b]` of a dynamic solve: `C = a M + b K`.
    pub damping: Option<[f64; 2]>,
    /// The FEM mesh's tetrahedral split relative to the model's: `same`, `opposite` or `six`.
    pub split: Option<String>,
}

impl ReferenceTable {
    /// This table's fields, with `lower`'s where this one has none.
    pub fn over(&self, lower: &ReferenceTable) -> ReferenceTable {
        ReferenceTable {
            material: self.material.clone().or_else(|| lower.material.clone()),
            solve: self.solve.clone().or_else(|| lower.solve.clone()),
            time: self.time.or(lower.time),
            mass: self.mass.clone().or_else(|| lower.mass.clone()),
            damping: self.damping.or(lower.damping),
            split: self.split.clone().or_else(|| lower.split.clone()),
        }
    }

    /// Whether no field is set.
    pub fn is_empty(&self) -> bool {
        *self == ReferenceTable::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_fields_win_and_missing_ones_fall_through() {
        let scene = ReferenceTable { material: Some("stvk".into()), time: Some(2.0), ..Default::default() };
        let cli = ReferenceTable { solve: Some("dynamic".into()), time: Some(5.0), ..Default::default() };
        let merged = cli.over(&scene);
        assert_eq!(merged.material.as_deref(), Some("stvk"));
        assert_eq!(merged.solve.as_deref(), Some("dynamic"));
        assert_eq!(merged.time, Some(5.0));
        assert!(merged.mass.is_none());
        assert!(ReferenceTable::default().is_empty() && !merged.is_empty());
    }
}
