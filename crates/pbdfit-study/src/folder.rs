//! The results folder as one run's: its lock, and the check that the fits already in it were made with
//! this study's fit-deciding settings.
//!
//! The lock is the operating system's advisory lock on `<folder>/.pbdfit.lock` (`File::try_lock`, in the
//! standard library since Rust 1.89, this workspace's `rust-version`: `flock` on Unix, `LockFileEx` on
//! Windows), not a crate such as `fs4` or `fd-lock`, which wrap the same calls: the standard library's is
//! as well kept and adds no dependency. The OS releases it when the process ends however it ends, so a
//! killed run never blocks the next one; a second run on a locked folder is refused at once, naming the
//! folder, the lock file and the holder's pid. The lock file is removed when the run ends (a killed run
//! leaves it, unlocked and harmless).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use pbdfit_results::{MANIFEST_FILE, StudyLayout, read_manifest, read_summary};

use pbdfit_fit::FitError;

/// The lock file's name inside a results folder.
pub const LOCK_FILE: &str = ".pbdfit.lock";

/// A results folder this process writes alone until the value is dropped.
#[derive(Debug)]
pub struct LockedFolder {
    dir: PathBuf,
    lock: PathBuf,
    // Held for the lock: closing it releases the lock.
    _file: File,
}

impl LockedFolder {
    /// Creates the folder if needed, checks that it can be written (before any fit: a folder that is a
    /// file or not writable is the input's fault, not a failure after work was done) and takes its lock.
    pub fn lock(dir: &Path) -> Result<Self, FitError> {
        let fail = |source| FitError::ResultsFolder { path: dir.display().to_string(), source };
        std::fs::create_dir_all(dir).map_err(fail)?;
        let lock = dir.join(LOCK_FILE);
        // A run that ends removes the lock file while it still holds the lock; a run that opened the file
        // just before may then lock a file no longer in the folder, and so may a third run that creates a
        // new one. Whoever finds its locked file no longer at the path tries again.
        for _ in 0..8 {
            let file =
                OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&lock).map_err(fail)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(&lock).unwrap_or_default();
                    let holder =
                        if holder.trim().is_empty() { "pid unknown".to_string() } else { holder.trim().to_string() };
                    return Err(FitError::FolderInUse {
                        folder: dir.display().to_string(),
                        lock: lock.display().to_string(),
                        holder,
                    });
                }
                Err(TryLockError::Error(e)) => return Err(fail(e)),
            }
            if !same_file(&file, &lock) {
                continue;
            }
            file.set_len(0).map_err(fail)?;
            (&file).write_all(format!("pid {}\n", std::process::id()).as_bytes()).map_err(fail)?;
            return Ok(Self { dir: dir.to_path_buf(), lock, _file: file });
        }
        Err(fail(std::io::Error::other("its lock file keeps being replaced by other runs")))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for LockedFolder {
    fn drop(&mut self) {
        // Removed while still locked (the file closes after this): see `lock`.
        let _ = std::fs::remove_file(&self.lock);
    }
}

/// Whether the open `file` is the one at `path` now.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether the open `file` is the one at `path` now (Windows does not remove a file another process
/// holds open, so the file at the path is the one opened).
#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

/// The settings of `found` (a folder's record) that differ from `expected` (the study's), as
/// `(found, expected)` descriptions. Settings a record does not hold (the search in a `summary.json`
/// of the pattern search or from before the gradient search, the masses of a study without an override)
/// are not compared; the rows' own columns check those.
pub fn differences(found: &StudyLayout, expected: &StudyLayout) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut compare = |name: &str, a: String, b: String| {
        if a != b {
            out.push((format!("{name} {a}"), format!("{name} {b}")));
        }
    };
    let parameters = |l: &StudyLayout| l.parameters.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
    compare(
        "model",
        format!("{} ({})", found.model, parameters(found)),
        format!("{} ({})", expected.model, parameters(expected)),
    );
    let boxes = |l: &StudyLayout| {
        l.parameters
            .iter()
            .map(|p| format!("{} in [{:e}, {:e}]", p.name, p.lower, p.upper))
            .collect::<Vec<_>>()
            .join(", ")
    };
    compare("box", boxes(found), boxes(expected));
    // Results from before references were selectable name the one reference there was so.
    let reference = |l: &StudyLayout| {
        if l.reference == "linear static FEM" { "linear static".to_string() } else { l.reference.clone() }
    };
    compare("reference", reference(found), reference(expected));
    compare("precision", found.precision.clone(), expected.precision.clone());
    compare("grid", found.grid.to_string(), expected.grid.to_string());
    compare("min_step", format!("{:e}", found.min_step), format!("{:e}", expected.min_step));
    if let (Some(a), Some(b)) = (&found.search, &expected.search) {
        compare("search", a.clone(), b.clone());
    }
    compare("neighbour_starts", found.neighbour_starts.to_string(), expected.neighbour_starts.to_string());
    if let (Some(a), Some(b)) = (&found.mass_model, &expected.mass_model) {
        compare("masses", a.clone(), b.clone());
    }
    out
}

/// Checks the folder's manifest (a run that started) and `summary.json` (a run that finished) against
/// `layout`, the study's; `search` is the study's search, which the layout names only when it is not
/// the pattern search.
pub fn check_settings(dir: &Path, layout: &StudyLayout, search: &str, origin: &str) -> Result<(), FitError> {
    let mut expected = layout.clone();
    expected.search = Some(search.to_string());
    let mut records: Vec<(String, StudyLayout)> = Vec::new();
    if let Some(manifest) = read_manifest(dir)? {
        records.push((MANIFEST_FILE.to_string(), manifest));
    }
    // A summary.json that does not parse is rewritten at the end, as before; its rows are still checked.
    if let Ok(summary) = read_summary(dir) {
        records.push(("summary.json".to_string(), summary.layout));
    }
    for (record, found) in records {
        let differ = differences(&found, &expected);
        if !differ.is_empty() {
            let (found, expected): (Vec<String>, Vec<String>) = differ.into_iter().unzip();
            return Err(FitError::FolderMismatch {
                folder: dir.display().to_string(),
                record,
                found: found.join(", "),
                expected: expected.join(", "),
                origin: origin.into(),
            });
        }
    }
    Ok(())
}
