//! The `[body] mesh = "<file>"` of a scene: reading and validating an imported mesh.

use std::collections::BTreeMap;
use std::path::Path;

use crate::TetMesh;
use crate::import::{
    ImportOptions, ImportReport, MeshFormat, RawMesh, parse_gmsh, parse_legacy_vtk, parse_vtu, read_mesh,
};

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
            let format = MeshFormat::from_path(Path::new(file)).map_err(|e| e.to_string())?;
            match format {
                MeshFormat::Gmsh => parse_gmsh(bytes, file),
                MeshFormat::Vtu => parse_vtu(bytes, file),
                MeshFormat::LegacyVtk => parse_legacy_vtk(bytes, file),
                MeshFormat::TetGen => unreachable!("no built-in TetGen mesh"),
            }
            .map_err(|e| e.to_string())?
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
