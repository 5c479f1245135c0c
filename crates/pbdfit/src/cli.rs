//! What every subcommand shares: the error type with its exit codes, and scene loading.

use pbdfit_mesh::{BUILTIN_SCENES, MassModel, SceneSet};

/// A failed command. `Input` is the user's to fix (exit 2); `Internal` is ours (exit 1).
#[derive(Debug)]
pub enum CliError {
    /// Bad input: a scene, a parameter or a file the user gave.
    Input(String),
    /// Something failed that the input does not explain.
    Internal(String),
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Internal(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m) => write!(f, "error: {m}"),
            CliError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

/// Result of a subcommand.
pub type CliResult = Result<(), CliError>;

/// Loads `--scene` (a built-in name or a TOML path), with an optional mass-model override.
#[allow(dead_code)]
pub fn load_scene(name: &str, mass_model: Option<MassModel>) -> Result<SceneSet, CliError> {
    let set = SceneSet::load(name).map_err(|e| CliError::Input(e.to_string()))?;
    Ok(match mass_model {
        Some(m) => set.with_mass_model(m),
        None => set,
    })
}

/// `pbdfit scenes`: the built-in scenes and what they hold.
pub fn list_scenes() -> CliResult {
    for (name, _) in BUILTIN_SCENES {
        let set = SceneSet::builtin(name).map_err(|e| CliError::Internal(e.to_string()))?;
        if set.is_compound() {
            let parts: Vec<_> = set.scenes().iter().map(|s| s.name.as_str()).collect();
            println!("{name:16} compound of {}", parts.join(", "));
        } else {
            let s = &set.scenes()[0];
            let held: Vec<_> = s.held.iter().map(|p| p.to_string()).collect();
            println!("{name:16} held at {}; {}", held.join(" and "), s.description);
        }
    }
    Ok(())
}
