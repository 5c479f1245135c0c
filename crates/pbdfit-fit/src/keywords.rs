//! What the jobs' keyword forms share ([`FitKeywords`](crate::FitKeywords),
//! [`IdentifyKeywords`](crate::IdentifyKeywords), [`FemKeywords`](crate::FemKeywords)): the FEM reference's
//! options, and reading a job from JSON with its keywords checked.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use pbdfit_mesh::ReferenceTable;

/// The FEM reference's options, as the command line's `--material`, `--dynamic`, `--time`, `--fem-mass`,
/// `--rayleigh` and `--split` and Python's keywords of the same names give them (unset: the scene's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReferenceKeywords {
    /// The constitutive law.
    pub material: Option<String>,
    /// A dynamic reference.
    pub dynamic: bool,
    /// Its simulated time in s.
    pub time: Option<f64>,
    /// Its mass matrix.
    pub fem_mass: Option<String>,
    /// Its Rayleigh damping `(A, B)`.
    pub rayleigh: Option<[f64; 2]>,
    /// The FEM mesh's split.
    pub split: Option<String>,
}

impl ReferenceKeywords {
    /// The options as a `[reference]` table (unset options left empty).
    pub fn table(&self) -> ReferenceTable {
        ReferenceTable {
            material: self.material.clone(),
            solve: self.dynamic.then(|| "dynamic".to_string()),
            time: self.time,
            mass: self.fem_mass.clone(),
            damping: self.rayleigh,
            split: self.split.clone(),
        }
    }
}

/// The keywords of a job type (Python's spelling), sorted: the fields of its default value.
pub fn keyword_names<T: Serialize + Default>() -> Vec<String> {
    match serde_json::to_value(T::default()) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A job from a JSON object of its keywords: an unknown keyword is refused naming it and the known ones,
/// a value of the wrong type naming its keyword (serde's own check of unknown fields does not see
/// through the shared [`ReferenceKeywords`]).
pub fn keywords_from_json<T: Serialize + DeserializeOwned + Default>(text: &str) -> Result<T, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let names = keyword_names::<T>();
    if let serde_json::Value::Object(map) = &value
        && let Some(unknown) = map.keys().find(|k| !names.contains(k))
    {
        return Err(format!("unknown field `{unknown}`, expected one of {}", names.join(", ")));
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}
