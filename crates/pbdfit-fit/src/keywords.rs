//! What the jobs' keyword forms share: the FEM reference's options checked, the body's, loading a job's scene, and
//! reading a job from JSON with its keywords checked.

use clap::builder::TypedValueParser;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use pbdfit_mesh::ReferenceOptions;

/// The reference options validated ([`ReferenceSpec::validate`](pbdfit_fem::ReferenceSpec::validate)):
/// a misspelt material, mass or split is refused before anything runs, and the names come back canonical.
pub fn checked_reference(options: &ReferenceOptions) -> Result<ReferenceOptions, crate::FitJobError> {
    pbdfit_fem::ReferenceSpec::validate(options)
        .map_err(|e| crate::FitJobError::Input(format!("the reference options: {e}")))
}

/// How a front end names its options in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// The command line: `--max-seconds`.
    Flag,
    /// Python's keywords: `max_seconds`.
    Keyword,
}

impl Spelling {
    /// The option `name` (in Python's spelling, `max_seconds`) as this front end spells it.
    pub fn name(self, name: &str) -> String {
        match self {
            Spelling::Flag => format!("--{}", name.replace('_', "-")),
            Spelling::Keyword => name.to_string(),
        }
    }
}

/// `(name, value)` pairs as one JSON object, in their order.
pub fn ordered_map<S: serde::Serializer, V: Serialize>(
    pairs: &[(String, V)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// A start of the gradient search from `(name, value)` pairs: every parameter of the model once, in any
/// order; the values in the model's order. The message says what is wrong (the front end adds which
/// option it is).
pub fn start_from_pairs(kind: pbdfit_pbd::ModelKind, pairs: &[(String, f64)]) -> Result<Vec<f64>, String> {
    let names: Vec<&str> = kind.parameters().iter().map(|p| p.name).collect();
    let mut values: Vec<Option<f64>> = vec![None; names.len()];
    for (name, value) in pairs {
        let i = names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| format!("expected NAME=VALUE for each of {}", kind.parameter_names()))?;
        if values[i].is_some() {
            // The last would silently win.
            return Err(format!("{} is given twice; give each parameter once", names[i]));
        }
        values[i] = Some(*value);
    }
    values
        .into_iter()
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| format!("give every parameter ({})", kind.parameter_names()))
}

/// Young's modulus in Pa of the FEM reference where a job does not say.
pub const YOUNG: f64 = 1e3;
/// Poisson ratio of the FEM reference where a job does not say.
pub const POISSON: f64 = 0.3;
/// Time step in s where a job does not say.
pub const DT: f64 = 0.01;

/// The body a job runs on: its scene, resolution, masses, orientation repair, density and size, as the
/// command line's options and Python's keywords of the same names give them (flattened into each job's
/// keywords).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Body {
    /// Built-in scene name (a compound such as `gravity` runs all its parts) or a scene TOML file.
    #[arg(long)]
    pub scene: String,
    /// Mesh resolution N (hexahedra per cube edge; a sheet's cells along its longer side; default: the
    /// scene's).
    #[arg(long)]
    pub n: Option<usize>,
    /// The masses, lumped or uniform [default: the scene file's `[material] mass_model`, else the engine's
    /// own for an engine profile (uniform for genesis-pbd and pybullet-neohookean, lumped for newton-xpbd),
    /// else lumped]. Masses other than the engine's are warned about, with the rest-state difference they
    /// make.
    #[arg(long, value_name = "lumped|uniform", value_parser = |s: &str| s.parse::<pbdfit_mesh::MassModel>().map(|m| m.name().to_string()))]
    pub mass_model: Option<String>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh (and say how many) instead of
    /// refusing the mesh.
    #[arg(long)]
    pub fix_orientation: bool,
    /// The body's density and size over the scene's (`density`, `size`).
    #[serde(flatten)]
    #[command(flatten)]
    pub scale: BodyKeywords,
}

impl Body {
    /// The scene (an imported mesh reoriented where asked) with its masses resolved for the job's model
    /// `kind` ([`resolve_mass_model`](crate::resolve_mass_model): the job's mass model, a bad name refused
    /// in `spelling`, else the scene's, else the engine's), its density and size ([`with_body`]), and the
    /// notes about its imported meshes for the user.
    pub fn load(
        &self,
        kind: Option<pbdfit_pbd::ModelKind>,
        spelling: crate::Spelling,
    ) -> Result<(pbdfit_mesh::SceneSet, Vec<String>), crate::FitJobError> {
        let input = crate::FitJobError::Input;
        let mass_model = self.mass_model().map_err(|e| input(format!("{}: {e}", spelling.name("mass_model"))))?;
        let set =
            pbdfit_mesh::SceneSet::load_with(&self.scene, self.fix_orientation).map_err(|e| scene_error(e, kind))?;
        let notes = crate::mesh_notes(&set);
        let set = crate::with_resolved_masses(set, mass_model, kind);
        Ok((with_body(set, self.scale, spelling)?, notes))
    }

    /// The one loading of a job's body, whichever it is: a sheet scene as [`load_sheet`](crate::load_sheet)
    /// loads it (its material `elastic` over the sheet's own), any other as [`load`](Self::load) does.
    pub fn load_any(
        &self,
        kind: Option<pbdfit_pbd::ModelKind>,
        elastic: Material,
        spelling: crate::Spelling,
    ) -> Result<LoadedBody, crate::FitJobError> {
        if pbdfit_mesh::SheetScene::names_sheet(&self.scene) {
            let (scene, body, material) = crate::load_sheet(self, elastic, spelling)?;
            return Ok(LoadedBody::Sheet(Box::new(LoadedSheet { scene, body, material })));
        }
        let (set, notes) = self.load(kind, spelling)?;
        Ok(LoadedBody::Solid { set, notes })
    }

    /// The mass model asked, if any.
    pub fn mass_model(&self) -> Result<Option<pbdfit_mesh::MassModel>, String> {
        self.mass_model.as_deref().map(str::parse).transpose()
    }

    /// The resolution: the job's, else the scene's (a refusal naming `n` in `spelling`).
    pub fn resolution(
        &self,
        set: &pbdfit_mesh::SceneSet,
        spelling: crate::Spelling,
    ) -> Result<usize, crate::FitJobError> {
        set.resolution(self.n).map_err(|e| crate::FitJobError::Input(format!("{}: {e}", spelling.name("n"))))
    }
}

/// A job's body as [`Body::load_any`] loads it: a solid scene's tetrahedral parts, or a sheet.
#[derive(Debug, Clone)]
pub enum LoadedBody {
    /// A solid scene (every part of a compound), with the notes about its imported meshes for the user.
    Solid {
        /// The scene with its masses, density and size resolved.
        set: pbdfit_mesh::SceneSet,
        /// The size and repairs of each imported mesh.
        notes: Vec<String>,
    },
    /// A sheet scene.
    Sheet(Box<LoadedSheet>),
}

/// A sheet scene loaded for a job ([`load_sheet`](crate::load_sheet)).
#[derive(Debug, Clone)]
pub struct LoadedSheet {
    /// The scene, with the job's density, size and thickness.
    pub scene: pbdfit_mesh::SheetScene,
    /// Its body at the job's resolution.
    pub body: pbdfit_mesh::SheetBody,
    /// The material: the job's over the sheet's own.
    pub material: pbdfit_fem::YoungPoisson,
}

/// A scene that cannot be loaded as a solid, as the job's error: a sheet given to a solid's model names
/// the model ([`check_cloth_model`](crate::check_cloth_model)); a cloth model on a sheet reaches here only
/// through a job that does not take sheets, which says so.
pub fn scene_error(e: pbdfit_mesh::SceneError, kind: Option<pbdfit_pbd::ModelKind>) -> crate::FitJobError {
    match (&e, kind) {
        (pbdfit_mesh::SceneError::Sheet { origin }, Some(kind)) => match crate::check_cloth_model(kind, origin) {
            Err(refusal) => refusal,
            Ok(()) => crate::FitJobError::Input(format!(
                "scene {origin} is a sheet: this command takes tetrahedral solids (`pbdfit fit`, `evaluate` and `simulate` take a \
                 cloth model on a sheet)"
            )),
        },
        _ => crate::FitJobError::Input(e.to_string()),
    }
}

/// The FEM reference's material, as the command line's `--young` and `--poisson` and Python's keywords of
/// the same names give it (flattened into each job's keywords).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Material {
    /// Young's modulus E in Pa of the FEM reference [default: 1e3; a sheet scene's own material].
    #[arg(long, allow_negative_numbers = true)]
    pub young: Option<f64>,
    /// Poisson ratio nu, -1 < nu < 0.5, of the FEM reference [default: 0.3; a sheet scene's own material].
    #[arg(long, allow_negative_numbers = true)]
    pub poisson: Option<f64>,
}

impl Material {
    /// `(E, nu)` with the defaults [`YOUNG`] and [`POISSON`] for those not given.
    pub fn values(self) -> (f64, f64) {
        (self.young.unwrap_or(YOUNG), self.poisson.unwrap_or(POISSON))
    }

    /// The material checked.
    pub fn checked(self) -> Result<pbdfit_fem::YoungPoisson, crate::FitJobError> {
        let (young, poisson) = self.values();
        pbdfit_fem::YoungPoisson::new(young, poisson).map_err(|e| crate::FitJobError::Input(e.to_string()))
    }
}

/// A job's time step, as the command line's `--dt` and Python's `dt` give it (flattened into each job's
/// keywords).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Step {
    /// Time step in s, as a decimal or a fraction (`0.005`, `1/200`).
    #[arg(long, default_value_t = DT, value_parser = parse_number, allow_hyphen_values = true)]
    pub dt: f64,
}

impl Default for Step {
    fn default() -> Self {
        Step { dt: DT }
    }
}

/// A number given as a decimal or as a fraction `a/b` (time steps such as `1/30`).
pub fn parse_number(text: &str) -> Result<f64, String> {
    let t = text.trim();
    if let Some((a, b)) = t.split_once('/') {
        let a: f64 = a.trim().parse().map_err(|_| format!("`{text}`: `{a}` is not a number"))?;
        let b: f64 = b.trim().parse().map_err(|_| format!("`{text}`: `{b}` is not a number"))?;
        return Ok(a / b);
    }
    t.parse().map_err(|_| format!("`{text}` is not a number (or a fraction such as 1/30)"))
}

/// The model kind where a job does not say.
pub const MODEL: &str = "pbd";
/// Solver iterations per step where a job does not say.
pub const NIT: usize = 1;

/// The model a job runs and how it steps, as the command line's `--model`, `--setting` (repeated) and
/// `--nit` and Python's `model`, `settings` (a dict) and `nit` give them (flattened into each job's
/// keywords).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Model {
    /// Model kind: a textbook model or an engine profile; the list below says what each one is.
    #[arg(long, default_value = MODEL, value_parser = clap::builder::EnumValueParser::<pbdfit_pbd::ModelKind>::new().map(|k| k.name().to_string()))]
    pub model: String,
    /// An engine profile's setting, under the engine's own name (repeatable): e.g. `relaxation=0.9` for
    /// newton-xpbd, `linear_damping=0.1` for jolt. An unknown name or a value outside its range is
    /// refused with the allowed range.
    #[arg(long = "setting", value_name = "NAME=VALUE", value_parser = parse_setting)]
    #[serde(serialize_with = "crate::ordered_map", deserialize_with = "sorted_pairs")]
    pub settings: Vec<(String, SettingValue)>,
    /// Solver iterations per time step: Gauss-Seidel sweeps for the textbook models; for an engine
    /// profile the engine's own count (Newton: iterations; Jolt: mNumIterations, substeps of dt/nit with
    /// one pass each; Genesis: substeps).
    #[arg(long, default_value_t = NIT)]
    pub nit: usize,
}

impl Default for Model {
    fn default() -> Self {
        Model { model: MODEL.to_string(), settings: Vec::new(), nit: NIT }
    }
}

impl Model {
    /// The model kind with its settings; a refusal names `model`, or the settings as `spelling` writes
    /// them (the command line's repeated `--setting`, Python's dict `settings`).
    pub fn kind(&self, spelling: crate::Spelling) -> Result<pbdfit_pbd::ModelKind, crate::FitJobError> {
        let input = crate::FitJobError::Input;
        let kind: pbdfit_pbd::ModelKind =
            self.model.parse().map_err(|e| input(format!("{}: {e}", spelling.name("model"))))?;
        let option = match spelling {
            crate::Spelling::Flag => "--setting",
            crate::Spelling::Keyword => "settings",
        };
        let values: Result<Vec<(String, f64)>, _> = self
            .settings
            .iter()
            .map(|(name, value)| match value {
                SettingValue::Number(x) => Ok((name.clone(), *x)),
                SettingValue::Word(word) => kind.setting_value(name, word).map(|x| (name.clone(), x)),
            })
            .collect();
        values.and_then(|v| kind.with_settings(&v)).map_err(|e| input(format!("{option}: {e}")))
    }
}

/// A setting's value as given: a number, or a word the model's setting takes (`order=sorted`), looked up
/// once the model is known ([`ModelKind::setting_value`](pbdfit_pbd::ModelKind::setting_value)), so a word
/// of another model's setting is refused naming this model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SettingValue {
    /// A value in the setting's unit.
    Number(f64),
    /// A word of the setting's.
    Word(String),
}

/// A `NAME=VALUE` setting (`--setting`): the value a number, or else a word for the model to look up.
pub fn parse_setting(text: &str) -> Result<(String, SettingValue), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("`{text}`: expected NAME=VALUE, e.g. linear_damping=0.1"))?;
    let (name, value) = (name.trim(), value.trim());
    let value = value.parse().map_or_else(|_| SettingValue::Word(value.to_string()), SettingValue::Number);
    Ok((name.to_string(), value))
}

/// A `NAME=VALUE` pair (`--setting`, `--param`).
pub fn parse_named_value(text: &str) -> Result<(String, f64), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("`{text}`: expected NAME=VALUE, e.g. alpha_d=1e-6"))?;
    let (name, value) = (name.trim(), value.trim());
    let value = value.parse::<f64>().map_err(|_| format!("`{text}`: `{value}` is not a number"))?;
    Ok((name.to_string(), value))
}

/// `(name, value)` pairs from a JSON object (Python's dict), sorted by name.
pub fn sorted_pairs<'de, D: serde::Deserializer<'de>, V: Deserialize<'de>>(d: D) -> Result<Vec<(String, V)>, D::Error> {
    Ok(std::collections::BTreeMap::<String, V>::deserialize(d)?.into_iter().collect())
}

/// Repeated `NAME=VALUE` options (`--param`) by name, a name given twice refused naming `option`.
pub fn unique_pairs(
    option: &str,
    pairs: &[(String, f64)],
) -> Result<std::collections::BTreeMap<String, f64>, crate::FitJobError> {
    let mut map = std::collections::BTreeMap::new();
    for (name, value) in pairs {
        if let Some(first) = map.insert(name.clone(), *value) {
            return Err(crate::FitJobError::Input(format!(
                "{option}: {name} is given twice ({first} and {value}); give each once"
            )));
        }
    }
    Ok(map)
}

/// The size and repairs of each imported mesh of `set`, for the user.
pub fn mesh_notes(set: &pbdfit_mesh::SceneSet) -> Vec<String> {
    set.scenes()
        .iter()
        .filter_map(|scene| match &scene.shape {
            pbdfit_mesh::Shape::Mesh { file, mesh, report, .. } => {
                let changes = if *report == Default::default() { String::new() } else { format!("; {report}") };
                Some(format!(
                    "scene {}: mesh {file}: {} vertices, {} tetrahedra{changes}",
                    scene.name,
                    mesh.vertices().len(),
                    mesh.tets().len()
                ))
            }
            _ => None,
        })
        .collect()
}

/// A job's body over its scene's: `density` in kg/m^3 and `size` (the largest extent) in m, as the command
/// line's `--density` and `--size` and Python's `density=` and `size=` give them (unset: the scene's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct BodyKeywords {
    /// The body's density in kg/m^3 (default: the scene's; the built-in solid scenes' is 1).
    #[arg(long, value_parser = parse_number, allow_hyphen_values = true)]
    pub density: Option<f64>,
    /// The body's size in m: its largest extent (the longest side of its bounding box). The scene's
    /// geometry is scaled uniformly to it: the mesh, obstacles and prescribed displacements; the held
    /// and load selectors pick the same vertices; tractions (Pa) and gravity stay. Default: the
    /// scene's (the built-in scenes: a 1 m cube).
    #[arg(long, value_parser = parse_number, allow_hyphen_values = true)]
    pub size: Option<f64>,
    /// A sheet's thickness in m (default: the sheet scene's). Sheet scenes only: a solid's size is
    /// `size`.
    #[arg(long, value_parser = parse_number, allow_hyphen_values = true)]
    pub thickness: Option<f64>,
}

impl BodyKeywords {
    /// Whether any option is given.
    pub fn given(self) -> bool {
        self.density.is_some() || self.size.is_some() || self.thickness.is_some()
    }
}

/// `set` with the job's body ([`SceneSet::with_body`](pbdfit_mesh::SceneSet::with_body)), a refusal
/// naming the option in the front end's spelling.
pub fn with_body(
    set: pbdfit_mesh::SceneSet,
    body: BodyKeywords,
    spelling: crate::Spelling,
) -> Result<pbdfit_mesh::SceneSet, crate::FitJobError> {
    if let Some(h) = body.thickness {
        return Err(crate::FitJobError::Input(format!(
            "{} = {h}: a thickness is a sheet's, and scene {} is a tetrahedral solid (its size is {})",
            spelling.name("thickness"),
            set.name(),
            spelling.name("size")
        )));
    }
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
/// through the shared [`ReferenceOptions`]).
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
        assert!(ReferenceOptions::default().given().is_empty());
        let all = ReferenceOptions {
            material: Some("stvk".into()),
            dynamic: true,
            time: Some(1.0),
            fem_mass: Some("consistent".into()),
            rayleigh: Some([0.1, 0.0]),
            split: Some("six".into()),
        };
        assert_eq!(all.given(), keyword_names::<ReferenceOptions>());
        let one = ReferenceOptions { fem_mass: Some("lumped".into()), ..Default::default() };
        assert_eq!(one.given(), ["fem_mass"]);
    }

    proptest::proptest! {
        /// Any text as a `NAME=VALUE` pair: a pair or a refusal, never a panic; a pair written is read back.
        #[test]
        fn named_values_parse_or_are_refused(text in ".{0,40}", name in "[a-z_]{1,8}", value in -1e9f64..1e9) {
            let _ = parse_named_value(&text);
            let (read, at) = parse_named_value(&format!("{name}={value}")).unwrap();
            proptest::prop_assert_eq!((read.as_str(), at), (name.as_str(), value));
        }
    }

    /// A setting's words stand for its values in the model's own setting (`order=sorted` is Jolt's -1, the
    /// sorted creation order); a word of another model's setting, or of none, is refused naming the model.
    #[test]
    fn setting_words_read_as_their_model_s_values() {
        let kind = |model: &str, setting: &str| {
            let settings = vec![parse_setting(setting).unwrap()];
            Model { model: model.into(), settings, nit: 1 }.kind(crate::Spelling::Flag).map_err(|e| e.to_string())
        };
        assert_eq!(
            kind("jolt", " order = sorted ").unwrap(),
            pbdfit_pbd::ModelKind::JOLT.with_setting("order", -1.0).unwrap()
        );
        assert_eq!(kind("jolt", "order=profile").unwrap(), pbdfit_pbd::ModelKind::JOLT);
        assert_eq!(kind("jolt-cloth", "bend=dihedral").unwrap().spec(), "jolt-cloth[bend=dihedral]");
        let e = kind("jolt", "order=dihedral").unwrap_err();
        assert!(e.starts_with("--setting: setting order = dihedral: `dihedral` is not a number"), "{e}");
        assert!(kind("jolt", "bend=dihedral").unwrap_err().contains("model jolt has no setting `bend`"));
        assert!(kind("newton-xpbd", "relaxation=sorted").unwrap_err().contains("`sorted` is not a number"));
        assert!(parse_named_value("kd=sorted").unwrap_err().contains("`sorted` is not a number"));
        let json: Model =
            keywords_from_json(r#"{"model": "jolt", "settings": {"order": "sorted", "linear_damping": 0.2}}"#).unwrap();
        assert_eq!(json.kind(crate::Spelling::Keyword).unwrap().spec(), "jolt[linear_damping=0.2,order=sorted]");
    }

    #[test]
    fn an_unknown_keyword_is_refused_by_name() {
        let e = keywords_from_json::<ReferenceOptions>(r#"{"materail": "stvk"}"#).unwrap_err();
        assert!(e.contains("unknown field `materail`") && e.contains("material"), "{e}");
        let k: ReferenceOptions = keywords_from_json(r#"{"split": "six"}"#).unwrap();
        assert_eq!(k.split.as_deref(), Some("six"));
        assert!(checked_reference(&ReferenceOptions { split: Some("diagonal".into()), ..k }).is_err());
    }
}
