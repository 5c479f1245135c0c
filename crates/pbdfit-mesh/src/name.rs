//! Names that become file names: a scene's (its results are `<scene>-<experiment>.csv`) and a study's
//! (its results folder). One rule for both, here at the left end of the data flow.

/// Checks that `name` can be used as one file name in a results folder: not empty, not `.` or `..`, no
/// path separator (`/`, `\`) and no control character. A study named `../../escaped` wrote outside the
/// results folder. `Err` says what is wrong.
///
/// ```
/// assert!(pbdfit_mesh::check_file_name("gravity-floor").is_ok());
/// assert!(pbdfit_mesh::check_file_name("../../escaped").unwrap_err().contains("path"));
/// ```
pub fn check_file_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." {
        return Err(format!("`{name}` cannot name a file; give a name such as `my-part`"));
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '/' | '\\') || c.is_control()) {
        return Err(format!(
            "`{}` is not a file name: it contains {c:?} (names are file names in a results folder, not paths)",
            name.escape_debug()
        ));
    }
    Ok(())
}
