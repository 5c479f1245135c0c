//! The table definition file (TOML) and its validation. Every error names the file and the key.

use std::path::Path;

use pbdfit_fit::{FitOptions, Search};
use pbdfit_mesh::{MassModel, ReferenceOptions, SceneSet};
use pbdfit_pbd::{ModelKind, Precision};
use pbdfit_study::{BoxDef, Configuration, Experiment, FitDef, Study};
use serde::Deserialize;

use crate::TableError;
use crate::axes::{Axes, parse_number};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    name: String,
    #[serde(default)]
    description: String,
    /// Model (default `pbd`): a name, or `[model]` with `name` and `[model.settings]`.
    model: Option<pbdfit_study::ModelEntry>,
    /// The scene set fitted (default the compound `gravity`).
    scene: Option<String>,
    mass_model: Option<MassModel>,
    #[serde(default)]
    fit: FitDef,
    /// Search box overrides: `name = [lower, upper]`.
    #[serde(default, rename = "box")]
    search_box: BoxDef,
    reference: Option<ReferenceOptions>,
    axes: AxesDef,
}

/// A number, or a fraction as text (`"1/30"`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Number {
    Value(f64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AxesDef {
    young: Vec<Number>,
    poisson: Vec<Number>,
    dt: Vec<Number>,
    nit: Vec<Number>,
    n: Vec<Number>,
}

/// A validated table definition: what to fit, where, and on which nodes.
#[derive(Debug, Clone)]
pub struct TableDef {
    /// Table name (its folder is `<name>/` next to the definition file).
    pub name: String,
    /// What the table is, including what it does not cover.
    pub description: String,
    /// Where it was read from.
    pub origin: String,
    /// The node values.
    pub axes: Axes,
    /// The fits as a study: the scene set, model, box, fit controls, reference and the nu axis; its
    /// experiments are not used (the table's nodes are planned explicitly).
    pub study: Study,
}

impl TableDef {
    /// Reads and validates a table definition file.
    pub fn from_file(path: &Path) -> Result<Self, TableError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TableError::File {
            origin: origin.clone(),
            key: "file".into(),
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, &origin)
    }

    /// Parses and validates table TOML; `origin` names the source in errors.
    ///
    /// ```
    /// use pbdfit_table::TableDef;
    /// let text = "name = \"t\"\n[axes]\nyoung = [1e3]\npoisson = [0.0, 0.3]\ndt = [\"1/100\"]\nnit = [1]\nn = [1]\n";
    /// let def = TableDef::parse(text, "t.toml").unwrap();
    /// assert_eq!(def.axes.dt, vec![0.01]);
    /// let e = TableDef::parse(&text.replace("[0.0, 0.3]", "[]"), "t.toml").unwrap_err().to_string();
    /// assert!(e.contains("t.toml") && e.contains("axes.poisson") && e.contains("empty"), "{e}");
    /// ```
    pub fn parse(text: &str, origin: &str) -> Result<Self, TableError> {
        let bad =
            |key: &str, message: String| TableError::File { origin: origin.to_string(), key: key.to_string(), message };
        let file: TableFile = toml::from_str(text).map_err(|e| bad("file", e.to_string().trim().to_string()))?;
        if file.name.is_empty() || !file.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(bad("name", format!("`{}`: names use letters, digits, '-' and '_' only", file.name)));
        }
        let kind: ModelKind = match &file.model {
            Some(entry) => entry.kind().map_err(|(key, e)| bad(key, e.to_string()))?,
            None => ModelKind::PBD,
        };
        let scene_name = file.scene.as_deref().unwrap_or("gravity");
        let relative = Path::new(origin).parent().map(|d| d.join(scene_name)).filter(|p| p.exists());
        let named = relative.map_or_else(|| scene_name.to_string(), |p| p.to_string_lossy().into_owned());
        if pbdfit_mesh::SheetScene::names_sheet(&named) {
            // A table's axes, its leave-one-out and `lookup` read a solid's scene set; a sheet's fits run in
            // studies (`pbdfit study`), whose thickness axis a table has no axis for.
            return Err(bad(
                "scene",
                format!(
                    "`{scene_name}` is a sheet: tables take tetrahedral solids only (a table has no thickness \
                     axis, and lookup and its refining fit read a solid scene); run a sheet's fits over dt, nit, N \
                     and thickness as a study (`pbdfit study`, docs/sheets.md)"
                ),
            ));
        }
        let set = SceneSet::load_from(scene_name, Path::new(origin))
            .map_err(|e| bad("scene", format!("`{scene_name}`: {e}")))?;
        let set = pbdfit_fit::with_resolved_masses(set, file.mass_model, Some(kind));
        let number = |key: String, n: &Number| match n {
            Number::Value(v) => Ok(*v),
            Number::Text(t) => parse_number(t).map_err(|m| bad(&key, m)),
        };
        let list = |name: &str, values: &[Number]| -> Result<Vec<f64>, TableError> {
            values.iter().enumerate().map(|(i, v)| number(format!("axes.{name}[{i}]"), v)).collect()
        };
        let a = &file.axes;
        let axes = Axes {
            young: list("young", &a.young)?,
            poisson: list("poisson", &a.poisson)?,
            dt: list("dt", &a.dt)?,
            nit: list("nit", &a.nit)?,
            n: list("n", &a.n)?,
        };
        axes.validate().map_err(|(key, m)| bad(&format!("axes.{key}"), m))?;
        // Each N against the scene's size guard, named by its entry (N = 5000 was refused naming
        // the scene, not `axes.n`).
        for (i, &n) in axes.n.iter().enumerate() {
            for scene in set.scenes() {
                scene.check_resolution(n as usize).map_err(|m| bad(&format!("axes.n[{i}]"), format!("{n}: {m}")))?;
            }
        }
        // A table without `[fit] search` runs the fits' default search (keeping any grid the file gives).
        let fit = file
            .fit
            .options(kind, &file.search_box, false, false, Search::FIT_DEFAULT)
            .map_err(|(key, m)| bad(&key, m))?;
        // A fit's identifiability never changes the fit; tables do not record it, so it is not measured.
        let fit = FitOptions { identifiability: false, ..fit };
        let study = Study {
            name: file.name.clone(),
            description: file.description.clone(),
            origin: origin.to_string(),
            scenes: vec![set],
            sheets: Vec::new(),
            mass_model: file.mass_model,
            kind,
            unbounded: false,
            base: Configuration {
                dt: axes.dt[0],
                n: axes.n[0] as usize,
                nit: axes.nit[0] as usize,
                young: axes.young[0],
                thickness: None,
            },
            poisson: axes.poisson.clone(),
            experiments: vec![Experiment { name: "table".into(), varies: None }],
            fit,
            model_folder: false,
            reference: pbdfit_fem::ReferenceSpec::validate(&file.reference.clone().unwrap_or_default())
                .map_err(|e| bad("reference", e.to_string()))?,
            precision: Precision::F64,
            motion: None,
        };
        study.check_reference().map_err(|e| bad("reference", e.to_string()))?;
        Ok(Self { name: file.name, description: file.description, origin: origin.to_string(), axes, study })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table definition in `fits/tables/` reads, and the cluster tables have their full
    /// coverage (12,288 fits each): a file meant for a cluster must not fail there on its first line.
    #[test]
    fn the_shipped_table_definitions_read() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fits/tables"));
        let mut full = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("toml") {
                continue;
            }
            let def = TableDef::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if def.name.ends_with("-full") {
                let a = &def.axes;
                let fits = a.young.len() * a.poisson.len() * a.dt.len() * a.nit.len() * a.n.len();
                assert_eq!((fits, a.n.clone()), (12_288, vec![1.0, 2.0, 4.0, 8.0]), "{}", path.display());
                full += 1;
            }
        }
        assert_eq!(full, 2, "pbd-full and xpbd-full");
    }

    const TABLE: &str = r#"
name = "t"
model = "xpbd"
scene = "gravity-floor"
[axes]
young = [1e2, 1e3]
poisson = [0.0, 0.3]
dt = [0.001, "1/30"]
nit = [1, 4]
n = [1]
"#;

    #[test]
    fn a_table_reads_its_model_scene_and_axes() {
        let d = TableDef::parse(TABLE, "t.toml").unwrap();
        assert_eq!(d.study.kind, ModelKind::XPBD);
        assert_eq!(d.study.scenes[0].name(), "gravity-floor");
        assert_eq!(d.axes.dt, vec![0.001, 1.0 / 30.0]);
        assert_eq!(d.axes.nodes(), 16);
        assert!(!d.study.fit.identifiability);
        let d = TableDef::parse(&TABLE.replace("scene = \"gravity-floor\"\n", ""), "t.toml").unwrap();
        assert_eq!(d.study.scenes[0].name(), "gravity");
    }

    /// An engine profile's settings under `[model.settings]` travel with the table's model (and into its
    /// results' model name); a bad one names the key and the range.
    #[test]
    fn a_table_reads_engine_settings() {
        let with = |settings: &str| {
            TABLE.replace(
                "model = \"xpbd\"\nscene = \"gravity-floor\"\n",
                &format!("scene = \"gravity-floor\"\n[model]\nname = \"jolt\"\n[model.settings]\n{settings}\n"),
            )
        };
        let d = TableDef::parse(&with("linear_damping = 0.0"), "t.toml").unwrap();
        assert_eq!(d.study.kind, ModelKind::JOLT.with_setting("linear_damping", 0.0).unwrap());
        assert_eq!(d.study.kind.spec(), "jolt[linear_damping=0]");
        let e = TableDef::parse(&with("linear_damping = -1.0"), "dir/t.toml").unwrap_err().to_string();
        assert!(e.contains("model.settings") && e.contains("[0, 1000000]"), "{e}");
        let e = TableDef::parse(&with("relaxation = 0.5"), "dir/t.toml").unwrap_err().to_string();
        assert!(e.contains("model.settings") && e.contains("no setting `relaxation`"), "{e}");
    }

    /// A table file's `scene` path was resolved against the working directory; it is relative
    /// to the table file's folder, as a scene file's `mesh` is to the scene file (the test's working
    /// directory, the crate's, holds no `wall.toml`, so the old resolution fails here).
    #[test]
    fn a_scene_path_is_relative_to_the_table_file() {
        let dir = std::env::temp_dir().join(format!("pbdfit-table-scene-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tables")).unwrap();
        let wall = "name = \"wall\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"z = 0\"\n[load]\n\
                    gravity = [0, -9.81, 0]\n";
        std::fs::write(dir.join("tables").join("wall.toml"), wall).unwrap();
        let table = dir.join("tables").join("t.toml");
        std::fs::write(&table, TABLE.replace("scene = \"gravity-floor\"", "scene = \"wall.toml\"")).unwrap();
        let def = TableDef::from_file(&table).unwrap();
        assert_eq!(def.study.scenes[0].name(), "wall");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn bad_axes_name_the_file_and_the_key() {
        let cases = [
            ("poisson = [0.0, 0.3]", "poisson = []", "axes.poisson", "empty"),
            ("poisson = [0.0, 0.3]", "poisson = [0.0, 0.5]", "axes.poisson[1]", "incompressible"),
            ("young = [1e2, 1e3]", "young = [0, 1e3]", "axes.young[0]", "E must be a Young's modulus > 0 Pa"),
            ("young = [1e2, 1e3]", "young = [1e3, 1e2]", "axes.young[1]", "ascending"),
            ("dt = [0.001, \"1/30\"]", "dt = [0.001, \"1/x\"]", "axes.dt[1]", "not a number"),
            ("nit = [1, 4]", "nit = [0, 4]", "axes.nit[0]", "integer iteration count from 1 to 1000000"),
            ("n = [1]", "n = [1.5]", "axes.n[0]", "integer mesh resolution from 1 to 1000000"),
            // A resolution past the scene's size guard is the axis entry's fault.
            ("n = [1]", "n = [1, 5000]", "axes.n[1]", "5000: a body of"),
            ("n = [1]\n", "", "file", "missing field `n`"),
            ("model = \"xpbd\"", "model = \"xpdb\"", "model", "pbd"),
        ];
        for (from, to, key, message) in cases {
            let e = TableDef::parse(&TABLE.replace(from, to), "dir/t.toml").unwrap_err().to_string();
            assert!(e.starts_with("dir/t.toml: ") && e.contains(key) && e.contains(message), "{to}: {e}");
        }
    }
}
