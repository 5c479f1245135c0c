//! The results folder: per-fit appends, repair of a partial last line, the check that results on disk
//! belong to this study's setup, the final sort, and `summary.json`.

use std::path::Path;

use pbdfit_results::{FitRecord, FitStatus, ResultsError, StudyLayout, append_record, read_records, write_records};

use crate::FitError;

/// Reads the finished rows of a results CSV. A partial last line (a run killed mid-write) is dropped and
/// the file truncated to its last complete row, so appending can go on.
pub fn load_rows(path: &Path) -> Result<Vec<FitRecord>, FitError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ResultsError::Io { action: "cannot read", path: path.into(), source: e }.into()),
    };
    let complete = repair(&text);
    if complete.len() != text.len() {
        std::fs::write(path, complete).map_err(|e| ResultsError::Io {
            action: "cannot write",
            path: path.into(),
            source: e,
        })?;
    }
    if complete.is_empty() {
        return Ok(Vec::new());
    }
    let rows = pbdfit_results::parse_records(complete, path)?;
    if pbdfit_results::is_legacy(complete) {
        // Results from before the identifiability columns: rewrite them in today's format (those fields
        // empty) so that new rows can be appended to the same file.
        if let Some(first) = rows.first() {
            write_records(path, &first.parameter_names(), &rows)?;
        }
    }
    Ok(rows)
}

/// The complete lines of a results file: everything up to the last line end.
pub fn repair(text: &str) -> &str {
    match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    }
}

/// Appends one row and flushes it; one write per row, so a kill leaves at most a partial last line.
pub fn append_row(path: &Path, record: &FitRecord) -> Result<(), FitError> {
    Ok(append_record(path, record)?)
}

/// Checks that results already on disk belong to a study of this model, parameters and masses.
pub fn check_rows(
    path: &Path,
    rows: &[FitRecord],
    model: &str,
    parameters: &[&str],
    mass_model: &dyn Fn(&str) -> Option<String>,
    origin: &str,
) -> Result<(), FitError> {
    for r in rows {
        let expected_mass = mass_model(&r.scene);
        let mass_ok = expected_mass.as_ref().is_none_or(|m| *m == r.mass_model);
        if r.model != model || r.parameter_names() != parameters || !mass_ok {
            return Err(FitError::ResultsMismatch {
                path: path.display().to_string(),
                found: format!("model {} ({}) with {} masses", r.model, r.parameter_names().join(", "), r.mass_model),
                expected: format!(
                    "model {model} ({}){}",
                    parameters.join(", "),
                    expected_mass.map(|m| format!(" with {m} masses")).unwrap_or_default()
                ),
                origin: origin.into(),
            });
        }
    }
    Ok(())
}

/// Checks that an earlier `summary.json` in the folder (if any) used the same model and search box.
pub fn check_layout(out_dir: &Path, layout: &StudyLayout, origin: &str) -> Result<(), FitError> {
    let Ok(previous) = pbdfit_results::read_summary(out_dir) else { return Ok(()) };
    let describe = |l: &StudyLayout| {
        let boxes: Vec<String> =
            l.parameters.iter().map(|p| format!("{} in [{:e}, {:e}]", p.name, p.lower, p.upper)).collect();
        // Results from before references were selectable name the one reference there was so.
        let reference = if l.reference == "linear static FEM" { "linear static" } else { &l.reference };
        format!("model {} ({}) with {}, reference {reference}", l.model, l.precision, boxes.join(", "))
    };
    let (found, expected) = (describe(&previous.layout), describe(layout));
    if found != expected {
        return Err(FitError::ResultsMismatch {
            path: out_dir.join("summary.json").display().to_string(),
            found,
            expected,
            origin: origin.into(),
        });
    }
    Ok(())
}

/// Rewrites a results file sorted by (value, nu) (then E, dt, N, nit, for a file of explicit
/// configurations), keeping one row of a repeated (value, nu, configuration);
/// returns the number of failed fits in it. Written to a temporary file and renamed, so a kill during the
/// rewrite loses nothing.
pub fn sort_file(path: &Path, parameters: &[&str]) -> Result<usize, FitError> {
    let mut rows = load_rows(path)?;
    // Inside a study experiment's file the value fixes the configuration, so the configuration only
    // orders (and tells apart) the rows of a file written from explicit configurations (a table).
    let order =
        |r: &FitRecord| (r.value.unwrap_or(f64::NEG_INFINITY), r.poisson, r.young, r.dt, r.n as f64, r.nit as f64);
    rows.sort_by(|a, b| order(a).partial_cmp(&order(b)).unwrap_or(std::cmp::Ordering::Equal));
    rows.dedup_by(|a, b| order(a) == order(b));
    let failed = rows.iter().filter(|r| r.status == FitStatus::Failed).count();
    let tmp = path.with_extension("csv.tmp");
    write_records(&tmp, parameters, &rows)?;
    std::fs::rename(&tmp, path).map_err(|e| ResultsError::Io {
        action: "cannot write",
        path: path.into(),
        source: e,
    })?;
    Ok(failed)
}

/// Reads every record of a results CSV (for callers outside the study).
pub fn read(path: &Path) -> Result<Vec<FitRecord>, FitError> {
    Ok(read_records(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(nu: f64) -> FitRecord {
        FitRecord {
            scene: "gravity-floor".into(),
            experiment: "base".into(),
            value: None,
            young: 1e3,
            poisson: nu,
            dt: 0.01,
            n: 1,
            nit: 1,
            model: "pbd".into(),
            mass_model: "lumped".into(),
            parameters: vec![("kd".into(), 0.25), ("kv".into(), 1.0)],
            error: 0.1,
            scene_errors: vec![],
            evaluations: 450,
            failed_evaluations: 21,
            at_bound: vec!["kv".into()],
            condition: None,
            hessian: Vec::new(),
            ranges: Vec::new(),
            seconds: 0.01,
            status: FitStatus::Ok,
            message: String::new(),
            reference: "linear static".into(),
            search: None,
        }
    }

    /// A file whose last line was cut mid-write keeps its complete rows and is truncated to them, so
    /// that appending goes on cleanly.
    #[test]
    fn a_partial_last_line_is_repaired() {
        let dir = std::env::temp_dir().join(format!("pbdfit-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gravity-floor-base.csv");
        append_row(&path, &record(0.0)).unwrap();
        append_row(&path, &record(0.1)).unwrap();
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}gravity-floor,base,,1000,0.2,0.01,1,1,pb")).unwrap();
        let rows = load_rows(&path).unwrap();
        assert_eq!(rows, vec![record(0.0), record(0.1)]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        append_row(&path, &record(0.2)).unwrap();
        assert_eq!(load_rows(&path).unwrap().len(), 3);
        // A header cut in the middle leaves nothing to keep.
        std::fs::write(&path, "scene,experi").unwrap();
        assert!(load_rows(&path).unwrap().is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A results file from before the identifiability columns is rewritten in today's format on resume,
    /// so new rows append to a consistent file.
    #[test]
    fn legacy_files_are_upgraded_before_appending() {
        let dir = std::env::temp_dir().join(format!("pbdfit-store-legacy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gravity-floor-base.csv");
        let old = record(0.1);
        let mut fields = old.fields();
        let at = pbdfit_results::FIXED_COLUMNS_BEFORE.len() + 2 + 5;
        fields.drain(at..at + 3);
        fields.pop(); // no reference column either: it reads as linear static, as the record has
        let header: Vec<&str> = pbdfit_results::FIXED_COLUMNS_BEFORE
            .iter()
            .chain(&["kd", "kv"])
            .chain(&pbdfit_results::LEGACY_COLUMNS_AFTER)
            .copied()
            .collect();
        std::fs::write(&path, format!("{}\n{}\n", header.join(","), fields.join(","))).unwrap();
        assert_eq!(load_rows(&path).unwrap(), vec![old.clone()]);
        assert!(!pbdfit_results::is_legacy(&std::fs::read_to_string(&path).unwrap()));
        append_row(&path, &record(0.2)).unwrap();
        assert_eq!(read_records(&path).unwrap(), vec![old, record(0.2)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_of_another_model_are_refused_naming_both() {
        let rows = vec![record(0.0)];
        let lumped = |_: &str| Some("lumped".to_string());
        assert!(check_rows(Path::new("f.csv"), &rows, "pbd", &["kd", "kv"], &lumped, "s.toml").is_ok());
        let e = check_rows(Path::new("f.csv"), &rows, "xpbd", &["alpha_d", "alpha_v"], &lumped, "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("model pbd (kd, kv)") && e.contains("model xpbd (alpha_d, alpha_v)"), "{e}");
        let uniform = |_: &str| Some("uniform".to_string());
        assert!(check_rows(Path::new("f.csv"), &rows, "pbd", &["kd", "kv"], &uniform, "s.toml").is_err());
    }
}
