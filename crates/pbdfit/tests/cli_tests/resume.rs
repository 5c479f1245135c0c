//! A results folder is resumed only by a study with the same fit-deciding
//! settings (search, grid, min_step, box, reference, model, precision, masses), checked against the
//! manifest a run writes first or the `summary.json` a finished run wrote; one run at a time writes a
//! folder; rows whose poisson is not a number are removed, not kept beside their recomputed fits.

use std::path::{Path, PathBuf};

use crate::common::{Study, assert_input_error, files, pbdfit, repo, rows_without_seconds, scratch, stderr};

/// Three fits on the smallest mesh, a grid of 5 points per axis: seconds.
fn tiny() -> String {
    Study {
        model: Some("pbd"),
        poisson: ["0.0", "0.1", "0.05"],
        fit: "search = \"pattern\"\ngrid = 5",
        ..Study::default()
    }
    .toml()
}

fn study(dir: &Path, text: &str) -> PathBuf {
    let file = dir.join("tiny.toml");
    std::fs::write(&file, text).unwrap();
    file
}

/// A study with another grid than the folder's finished one is refused, naming both grids, and the
/// folder is left as it was (it resumed every row of the grid-5 study and claimed grid 21).
#[test]
fn a_folder_of_another_grid_is_refused_naming_both() {
    let dir = scratch("grid");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = files(&out);
    assert!(before.iter().all(|(name, _)| name != "manifest.json" && name != ".pbdfit.lock"), "{before:?}");
    std::fs::write(&file, tiny().replace("grid = 5", "grid = 21")).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_input_error(&o, &[out.to_str().unwrap(), "was made with grid 5", "has grid 21", "another --out"]);
    // Another min_step and another search are refused too.
    std::fs::write(&file, tiny().replace("grid = 5", "grid = 5\nmin_step = 1e-3")).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_input_error(&o, &["min_step 1e-4", "min_step 1e-3"]);
    // The gradient search (a summary.json of the pattern search does not name its search; the rows do).
    std::fs::write(&file, tiny()).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--search", "gradient"]);
    assert_input_error(&o, &["the pattern search", "the gradient search", "another --out"]);
    assert_eq!(files(&out), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run killed before `summary.json` leaves its manifest (and a lock file no process holds): the next
/// run with another reference is refused by the manifest, and the same study resumes through the stale
/// lock.
#[test]
fn an_interrupted_run_is_checked_by_its_manifest_and_its_lock_goes_stale() {
    let dir = scratch("manifest");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let o =
        pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--jobs", "1", "--abort-after", "1"]);
    assert!(!o.status.success(), "the run was aborted");
    assert!(!out.join("summary.json").exists());
    assert!(out.join("manifest.json").exists() && out.join(".pbdfit.lock").exists());
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--material", "stvk"]);
    assert_input_error(&o, &["was made with reference linear static", "manifest.json", "stvk"]);
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 resumed"), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(!out.join("manifest.json").exists() && !out.join(".pbdfit.lock").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rows of another reference are refused even where no manifest or summary says so (a folder from
/// before the manifest, interrupted).
#[test]
fn rows_of_another_reference_are_refused_without_a_summary() {
    let dir = scratch("rows");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(out.join("summary.json")).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--material", "stvk"]);
    assert_input_error(&o, &["gravity-floor-base.csv", "the linear static reference", "stvk"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// While a run holds a folder, a second run on it exits 2 naming the lock file, the folder and the
/// holder; once the holder lets go it runs.
#[test]
fn a_folder_in_use_is_refused_naming_the_lock() {
    let dir = scratch("lock");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let held = pbdfit_study::LockedFolder::lock(&out).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let pid = format!("pid {}", std::process::id());
    assert_input_error(&o, &[out.to_str().unwrap(), ".pbdfit.lock", &pid, "another pbdfit run"]);
    assert!(!out.join("gravity-floor-base.csv").exists());
    drop(held);
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A row whose poisson is NaN or not a number is removed (and said so on stderr), and its fit done
/// again: the final file is the uninterrupted run's, not that plus the broken rows.
#[test]
fn rows_whose_poisson_is_not_a_number_are_removed_and_redone() {
    let dir = scratch("nan");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = rows_without_seconds(&out);
    let csv = out.join("gravity-floor-base.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 4);
    // gravity-floor,base,,1000,<poisson>,...
    for (line, bad) in [(1, "NaN"), (3, "zero point one")] {
        let mut cells: Vec<String> = lines[line].split(',').map(str::to_string).collect();
        cells[4] = bad.into();
        lines[line] = cells.join(",");
    }
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("gravity-floor-base.csv") && e.contains("removed 2 row(s) that cannot be resumed"), "{e}");
    assert!(e.contains("poisson `NaN` is not a finite number") && e.contains("`zero point one`"), "{e}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("2 computed now, 1 resumed"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(rows_without_seconds(&out), reference);
    let _ = std::fs::remove_dir_all(&dir);
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

/// The committed thesis results (a folder from before the manifest) pass the check against their
/// summary.json and resume: nothing computed, every CSV byte-identical, no manifest or lock left.
#[test]
fn the_committed_thesis_results_resume_unchanged() {
    let dir = scratch("thesis");
    let copy = dir.join("thesis");
    copy_folder(&repo().join("fits/results/thesis"), &copy);
    let before = files(&copy);
    let o = pbdfit(&[
        "study",
        "fits/thesis.toml",
        "--only",
        "gravity-floor/base",
        "--poisson-stride",
        "10",
        "--out",
        copy.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout.contains("0 computed now, 5 resumed"), "{stdout}");
    let after = files(&copy);
    assert_eq!(after.len(), before.len(), "{:?}", after.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, old), (_, new)) in before.iter().zip(&after).filter(|((name, _), _)| name.ends_with(".csv")) {
        assert!(old == new, "{name} changed");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A resumed row is checked as a new fit's is: a row with status ok and kd = 1.5 (outside PBD's [0, 1],
/// a value no fit of the study gives) was trusted and resumed. It is removed, said so on stderr, and its
/// fit done again: the final rows are the uninterrupted run's.
#[test]
fn a_resumed_row_outside_the_models_range_is_fitted_again() {
    let dir = scratch("range");
    let out = dir.join("out");
    let file = study(&dir, &tiny());
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = rows_without_seconds(&out);
    let csv = out.join("gravity-floor-base.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<Vec<String>> = text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let kd = lines[0].iter().position(|c| c == "kd").unwrap();
    lines[2][kd] = "1.5".into();
    std::fs::write(&csv, lines.iter().map(|l| l.join(",") + "\n").collect::<String>()).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("removed 1 row(s) that cannot be resumed") && e.contains("status ok with kd `1.5`"), "{e}");
    assert!(e.contains("must be in [0, 1]"), "{e}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("1 computed now, 2 resumed"), "{stdout}");
    assert_eq!(rows_without_seconds(&out), reference);
    let _ = std::fs::remove_dir_all(&dir);
}
