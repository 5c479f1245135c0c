//! The `[body] mesh = "<file>"` of a scene: reading and validating an imported mesh.

use std::collections::BTreeMap;
use std::path::Path;

use crate::TetMesh;
use crate::import::{ImportOptions, ImportReport, MeshFormat, RawMesh, parse_single_file, read_mesh};

/// The meshes the built-in scenes name, compiled in so that built-in scenes work from any directory.
/// Their sources are the files under `scenes/meshes/`, written by `scenes/meshes/make_meshes.py`.
pub const BUILTIN_MESHES: [(&str, &[u8]); 1] = [("meshes/beam.msh", include_bytes!("../../../scenes/meshes/beam.msh"))];

/// A validated mesh with its named vertex groups and what validation changed.
pub(crate) type Loaded = (TetMesh, BTreeMap<String, Vec<usize>>, ImportReport);

/// Reads the mesh a scene names, validated: relative to the scene file's folder `dir`, or from the
/// compiled-in meshes for a built-in scene (`dir` is `None`). The message says what is wrong; the
/// caller names the scene and key.
pub(crate) fn load(file: &str, dir: Option<&Path>, fix_orientation: bool) -> Result<Loaded, String> {
    let raw: RawMesh = match dir {
        None => {
            let (_, bytes) = BUILTIN_MESHES.iter().find(|(name, _)| *name == file).ok_or_else(|| {
                let known: Vec<&str> = BUILTIN_MESHES.iter().map(|(n, _)| *n).collect();
                format!(
                    "`{file}` is not a built-in mesh ({}); a scene file names its mesh relative to itself",
                    known.join(", ")
                )
            })?;
            // Built-in meshes are single files (a test checks each parses).
            let format = MeshFormat::from_path(Path::new(file)).map_err(|e| e.to_string())?;
            parse_single_file(format, bytes, file).map_err(|e| e.to_string())?
        }
        Some(dir) => read_mesh(&dir.join(file)).map_err(|e| e.to_string())?,
    };
    let origin = match dir {
        Some(dir) => dir.join(file).display().to_string(),
        None => file.to_string(),
    };
    let imported = raw.validate(&origin, ImportOptions { fix_orientation }).map_err(|e| e.to_string())?;
    Ok((imported.mesh, imported.groups, imported.report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_mesh_is_one_valid_file() {
        for (name, _) in BUILTIN_MESHES {
            let (mesh, _, report) = load(name, None, false).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!mesh.tets().is_empty(), "{name}");
            assert_eq!(report.orientation_fixed, 0, "{name}");
        }
        let e = load("meshes/nope.msh", None, false).unwrap_err();
        assert!(e.contains("not a built-in mesh") && e.contains("meshes/beam.msh"), "{e}");
    }
}
