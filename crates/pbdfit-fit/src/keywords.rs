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
    /// The options set, by their keyword names (`material`, `fem_mass`, ...), sorted.
    pub fn given(&self) -> Vec<String> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map
                .into_iter()
                .filter(|(_, v)| !(v.is_null() || *v == serde_json::Value::Bool(false)))
                .map(|(k, _)| k)
                .collect(),
            _ => Vec::new(),
        }
    }

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

/// The scene a job names (a built-in name or a scene file, an imported mesh reoriented where asked) with
/// its masses resolved for the job's model `kind` ([`resolve_mass_model`](crate::resolve_mass_model): the
/// job's mass model (`lumped`, `uniform`; a bad name refused as `mass_model` in the front end's spelling),
/// else the scene's, else the engine's), its body (`density`, `size`: [`with_body`]), and the notes about
/// its imported meshes for the user.
pub fn load_scene(
    scene: &str,
    fix_orientation: bool,
    mass_model: Option<&str>,
    body: BodyKeywords,
    kind: Option<pbdfit_pbd::ModelKind>,
    spelling: crate::Spelling,
) -> Result<(pbdfit_mesh::SceneSet, Vec<String>), crate::FitJobError> {
    let input = crate::FitJobError::Input;
    let mass_model = mass_model
        .map(str::parse::<pbdfit_mesh::MassModel>)
        .transpose()
        .map_err(|e| input(format!("{}: {e}", spelling.name("mass_model"))))?;
    let set = pbdfit_mesh::SceneSet::load_with(scene, fix_orientation).map_err(|e| input(e.to_string()))?;
    let notes = crate::mesh_notes(&set);
    let set = crate::with_resolved_masses(set, mass_model, kind);
    let set = with_body(set, body, spelling)?;
    Ok((set, notes))
}

/// A job's body over its scene's: `density` in kg/m^3 and `size` (the largest extent) in m, as the command
/// line's `--density` and `--size` and Python's `density=` and `size=` give them (unset: the scene's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BodyKeywords {
    /// Density in kg/m^3.
    pub density: Option<f64>,
    /// The body's largest extent in m.
    pub size: Option<f64>,
}

/// `set` with the job's body ([`SceneSet::with_body`](pbdfit_mesh::SceneSet::with_body)), a refusal
/// naming the option in the front end's spelling.
pub fn with_body(
    set: pbdfit_mesh::SceneSet,
    body: BodyKeywords,
    spelling: crate::Spelling,
) -> Result<pbdfit_mesh::SceneSet, crate::FitJobError> {
    set.with_body(body.density, body.size)
        .map_err(|e| crate::FitJobError::Input(format!("{} {e}", spelling.name(e.option()))))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `given` names exactly the options set, and every option can be: a field added without a name in
    /// the keywords would be missed by the measured-markers refusal.
    #[test]
    fn given_names_the_options_set() {
        assert!(ReferenceKeywords::default().given().is_empty());
        let all = ReferenceKeywords {
            material: Some("stvk".into()),
            dynamic: true,
            time: Some(1.0),
            fem_mass: Some("consistent".into()),
            rayleigh: Some([0.1, 0.0]),
            split: Some("six".into()),
        };
        assert_eq!(all.given(), keyword_names::<ReferenceKeywords>());
        let one = ReferenceKeywords { fem_mass: Some("lumped".into()), ..Default::default() };
        assert_eq!(one.given(), ["fem_mass"]);
    }

    #[test]
    fn an_unknown_keyword_is_refused_by_name() {
        let e = keywords_from_json::<ReferenceKeywords>(r#"{"materail": "stvk"}"#).unwrap_err();
        assert!(e.contains("unknown field `materail`") && e.contains("material"), "{e}");
        let k: ReferenceKeywords = keywords_from_json(r#"{"split": "six"}"#).unwrap();
        assert_eq!(k.table().split.as_deref(), Some("six"));
    }
}
