//! The results folder: per-fit appends, repair of a partial last line, the check that results on disk
//! belong to this study's setup, the final sort, and `summary.json`.

use std::path::Path;

use pbdfit_results::{FitRecord, FitStatus, ResultsError, append_record, read_records, write_records};

use pbdfit_fit::FitError;

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

/// The rows of a results CSV that a run can resume, read without changing the file: its complete lines
/// less every row it cannot trust, each named in a sentence (`None` when the file has none) and its fit
/// done again:
///
/// - a row whose `poisson` cell is not a finite number (`NaN`, `inf`, text): it matches no fit of a study,
///   so it was never resumed, and it stayed in the file beside the row that recomputed it;
/// - a row with status `ok` whose error or a parameter is not a finite number: no finished fit writes
///   one, and resumed it went into a table's `table.csv` (exit 0), which every lookup then refused;
/// - rows of one fit (scene, experiment, value, material and setting) that disagree in their results:
///   which one is right cannot be told, and the last one silently won ("97 resumed" of 96 nodes). Rows
///   that agree bit for bit are one fit written twice; the first is kept.
///
/// - a row with status `ok` that `check` refuses: the study's check of a finished fit ([`finished_row`]:
///   a parameter outside the model's range or the study's box, which no fit of the study gives).
///
/// Returns the rows, the file's text without those rows, and the sentence.
pub fn read_resumable(
    path: &Path,
    check: &dyn Fn(&FitRecord) -> Option<String>,
) -> Result<(Vec<FitRecord>, String, Option<String>), FitError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), String::new(), None)),
        Err(e) => return Err(ResultsError::Io { action: "cannot read", path: path.into(), source: e }.into()),
    };
    let complete = repair(&text);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(complete.as_bytes());
    let column = reader.headers().ok().and_then(|h| h.iter().position(|c| c == "poisson"));
    let Some(column) = column else {
        let rows = if complete.is_empty() { Vec::new() } else { pbdfit_results::parse_records(complete, path)? };
        return Ok((rows, complete.to_string(), None));
    };
    // Byte ranges of the rows: from each record's start to the next one's.
    let mut starts = Vec::new();
    let mut bad: Vec<Option<String>> = Vec::new();
    let mut record = csv::StringRecord::new();
    while let Ok(true) = reader.read_record(&mut record) {
        let cell = record.get(column).unwrap_or("");
        let finite = cell.parse::<f64>().is_ok_and(f64::is_finite);
        starts.push(record.position().map_or(0, |p| p.byte() as usize));
        bad.push((!finite).then(|| format!("poisson `{cell}` is not a finite number")));
    }
    let header_end = starts.first().copied().unwrap_or(complete.len());
    let keep = |bad: &[Option<String>]| {
        let mut kept = complete[..header_end].to_string();
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(complete.len());
            if bad[i].is_none() {
                kept.push_str(&complete[start..end]);
            }
        }
        kept
    };
    // The rows with a finite poisson, checked as records (one record per row kept, in order).
    let kept = keep(&bad);
    let parsed = if starts.is_empty() { Vec::new() } else { pbdfit_results::parse_records(&kept, path)? };
    let indices: Vec<usize> = (0..starts.len()).filter(|&i| bad[i].is_none()).collect();
    if parsed.len() == indices.len() {
        let mut first_of: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
        for (r, &i) in parsed.iter().zip(&indices) {
            if r.status == FitStatus::Ok
                && let Some((name, v)) = std::iter::once(("error", r.error))
                    .chain(r.parameters.iter().map(|(n, v)| (n.as_str(), *v)))
                    .find(|(_, v)| !v.is_finite())
            {
                bad[i] = Some(format!("status ok with {name} `{v}`"));
                continue;
            }
            if r.status == FitStatus::Ok
                && let Some(why) = check(r)
            {
                bad[i] = Some(why);
                continue;
            }
            let key: Vec<u64> = [r.value.unwrap_or(f64::NAN), r.poisson, r.young, r.dt]
                .iter()
                .map(|v| v.to_bits())
                .chain([r.n as u64, r.nit as u64])
                .chain(r.scene.bytes().map(u64::from))
                .chain([u64::MAX])
                .chain(r.experiment.bytes().map(u64::from))
                .collect();
            match first_of.get(&key) {
                None => {
                    first_of.insert(key, i);
                }
                Some(&j) => {
                    let other = &parsed[indices.iter().position(|&k| k == j).expect("an earlier row")];
                    if same_result(r, other) {
                        // The same fit written twice: one copy is enough.
                        bad[i] = Some(format!("a copy of row {}", j + 1));
                    } else {
                        bad[i] = Some(format!("another result of the fit of row {}", j + 1));
                        if bad[j].is_none() {
                            bad[j] = Some(format!("another result of the fit of row {}", i + 1));
                        }
                    }
                }
            }
        }
    }
    let dropped: Vec<String> =
        bad.iter().enumerate().filter_map(|(i, b)| b.as_ref().map(|why| format!("row {} ({why})", i + 1))).collect();
    if dropped.is_empty() {
        return Ok((parsed, kept, None));
    }
    let kept = keep(&bad);
    let rows = if kept.len() == header_end { Vec::new() } else { pbdfit_results::parse_records(&kept, path)? };
    let note = format!(
        "{}: removed {} row(s) that cannot be resumed, {}; their fits are done again",
        path.display(),
        dropped.len(),
        dropped.join(", ")
    );
    Ok((rows, kept, Some(note)))
}

/// Whether two rows of one fit hold the same result (status, error, parameters, to the bit).
fn same_result(a: &FitRecord, b: &FitRecord) -> bool {
    let bits = |r: &FitRecord| -> Vec<u64> {
        std::iter::once(r.error.to_bits()).chain(r.parameters.iter().map(|(_, v)| v.to_bits())).collect()
    };
    a.status == b.status && bits(a) == bits(b)
}

/// [`read_resumable`], then the file rewritten without the rows it leaves out (when there are any) and
/// read by [`load_rows`] (which repairs a partial last line and upgrades a legacy file).
pub fn load_resumable(
    path: &Path,
    check: &dyn Fn(&FitRecord) -> Option<String>,
) -> Result<(Vec<FitRecord>, Option<String>), FitError> {
    let (_, kept, note) = read_resumable(path, check)?;
    if note.is_some() {
        let io = |e| ResultsError::Io { action: "cannot write", path: path.into(), source: e };
        let tmp = path.with_extension(format!("csv.{}.tmp", std::process::id()));
        std::fs::write(&tmp, kept).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)?;
    }
    Ok((load_rows(path)?, note))
}

/// How far (in unit coordinates of the search box) a finished row's value may lie outside the box: the
/// round trip through a log axis and the results file's decimal text, not a value of another box.
const BOX_SLACK: f64 = 1e-9;

/// The check of a finished (`ok`) row that a new fit's record passes: each parameter of `kind` inside the
/// model's range (`unbounded`: the experimental stiffness above 1) and inside the study's search box.
/// `Some(what is wrong)` otherwise; rows of other statuses are not checked.
pub fn finished_row(
    r: &FitRecord,
    kind: pbdfit_pbd::ModelKind,
    unbounded: bool,
    search_box: &pbdfit_fit::SearchBox,
) -> Option<String> {
    if r.status != FitStatus::Ok {
        return None;
    }
    for (name, value) in &r.parameters {
        if let Some((_, spec)) = kind.parameter(name)
            && let Err(e) = spec.check(*value, unbounded)
        {
            return Some(format!("status ok with {name} `{value}`, which model {} refuses: {e}", kind.spec()));
        }
    }
    let values: Vec<f64> = search_box.axes().iter().map(|a| r.parameter(a.name).unwrap_or(f64::NAN)).collect();
    for ((axis, t), value) in search_box.axes().iter().zip(search_box.unit(&values)).zip(&values) {
        if !(t.is_finite() && (-BOX_SLACK..=1.0 + BOX_SLACK).contains(&t)) {
            return Some(format!(
                "status ok with {} `{value}`, outside the study's box [{}, {}]",
                axis.name, axis.lower, axis.upper
            ));
        }
    }
    None
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

/// What a study expects of the rows already in its results files.
pub struct Expected<'a> {
    /// Model name.
    pub model: &'a str,
    /// The model's parameters, in column order.
    pub parameters: &'a [&'a str],
    /// The search's name (`pattern`, `gradient`); a row without search columns is the pattern search's.
    pub search: &'a str,
    /// The mass model of a scene (by name), `None` for a scene not in the study.
    pub mass_model: &'a dyn Fn(&str) -> Option<String>,
    /// The reference id of a scene (by name), `None` for a scene not in the study.
    pub reference: &'a dyn Fn(&str) -> Option<String>,
    /// The study file.
    pub origin: &'a str,
}

/// Checks that results already on disk belong to a study of this model, parameters, search, masses and
/// reference.
pub fn check_rows(path: &Path, rows: &[FitRecord], expected: &Expected) -> Result<(), FitError> {
    // Results from before references were selectable name the one reference there was so.
    let same_reference = |a: &str, b: &str| {
        let plain = |r: &str| if r == "linear static FEM" { "linear static".to_string() } else { r.to_string() };
        plain(a) == plain(b)
    };
    for r in rows {
        let expected_mass = (expected.mass_model)(&r.scene);
        let expected_reference = (expected.reference)(&r.scene);
        let search = r.search.as_ref().map_or("pattern", |s| s.name.as_str());
        let mass_ok = expected_mass.as_ref().is_none_or(|m| *m == r.mass_model);
        let reference_ok = expected_reference.as_ref().is_none_or(|e| same_reference(e, &r.reference));
        if r.model != expected.model
            || r.parameter_names() != expected.parameters
            || !mass_ok
            || search != expected.search
            || !reference_ok
        {
            return Err(FitError::ResultsMismatch {
                path: path.display().to_string(),
                found: format!(
                    "model {} ({}) with {} masses, the {search} search and the {} reference",
                    r.model,
                    r.parameter_names().join(", "),
                    r.mass_model,
                    r.reference
                ),
                expected: format!(
                    "model {} ({}){}, the {} search{}",
                    expected.model,
                    expected.parameters.join(", "),
                    expected_mass.map(|m| format!(" with {m} masses")).unwrap_or_default(),
                    expected.search,
                    expected_reference.map(|e| format!(" and the {e} reference")).unwrap_or_default()
                ),
                origin: expected.origin.into(),
            });
        }
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
    // The process id in the name: no two processes share a temporary file, even where the folder's lock
    // is not honoured (another pbdfit version).
    let tmp = path.with_extension(format!("csv.{}.tmp", std::process::id()));
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
    use pbdfit_fit::SearchBox;
    use pbdfit_pbd::ModelKind;

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
            thickness: None,
        }
    }

    /// Resume trusted every row. A row with status ok and a NaN
    /// error or parameter, and rows of one fit that disagree, are left out with a sentence naming them
    /// (their fits are done again); a row written twice alike is kept once.
    #[test]
    fn untrustworthy_rows_are_not_resumed() {
        let dir = std::env::temp_dir().join(format!("pbdfit-store-d12-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gravity-floor-table.csv");
        let write = |rows: &[FitRecord]| {
            let _ = std::fs::remove_file(&path);
            for r in rows {
                append_row(&path, r).unwrap();
            }
        };
        let nan = FitRecord { parameters: vec![("kd".into(), f64::NAN), ("kv".into(), 0.5)], ..record(0.1) };
        write(&[record(0.0), nan.clone(), record(0.2)]);
        let (rows, _, note) = read_resumable(&path, &|_| None).unwrap();
        assert_eq!(rows, vec![record(0.0), record(0.2)]);
        let note = note.unwrap();
        assert!(note.contains("removed 1 row(s)") && note.contains("row 2 (status ok with kd `NaN`)"), "{note}");
        // A failed fit's NaN is what a failed row holds: kept.
        let failed = FitRecord { status: FitStatus::Failed, error: f64::NAN, ..nan };
        write(&[failed]);
        let (rows, _, note) = read_resumable(&path, &|_| None).unwrap();
        assert!(rows.len() == 1 && rows[0].status == FitStatus::Failed && note.is_none());
        // Two results of one fit: neither is trusted.
        let other = FitRecord { error: record(0.1).error * 2.0, ..record(0.1) };
        write(&[record(0.1), record(0.2), other]);
        let (rows, kept, note) = read_resumable(&path, &|_| None).unwrap();
        assert_eq!(rows, vec![record(0.2)]);
        let note = note.unwrap();
        assert!(note.contains("row 1 (another result of the fit of row 3)"), "{note}");
        assert!(note.contains("row 3 (another result of the fit of row 1)"), "{note}");
        assert_eq!(pbdfit_results::parse_records(&kept, &path).unwrap(), rows);
        // The same fit written twice: one copy.
        write(&[record(0.1), record(0.1)]);
        let (rows, _, note) = read_resumable(&path, &|_| None).unwrap();
        assert_eq!(rows, vec![record(0.1)]);
        assert!(note.unwrap().contains("row 2 (a copy of row 1)"));
        // load_resumable rewrites the file without them.
        write(&[record(0.0), FitRecord { error: f64::INFINITY, ..record(0.3) }]);
        let (rows, note) = load_resumable(&path, &|_| None).unwrap();
        assert!(note.is_some() && rows == vec![record(0.0)]);
        assert_eq!(load_rows(&path).unwrap(), vec![record(0.0)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A finished row whose parameter no fit of the study gives (PBD's kd = 1.5 with status ok, outside
    /// the model's [0, 1]; kd = 0.7 in a study whose box ends at 0.5) is not resumed: it is named and its
    /// fit done again. The same value in an unbounded study with a box to 2 is a fit that study gives, and
    /// a failed row is not checked; a log axis's value at its bound passes as written.
    #[test]
    fn a_finished_row_outside_the_models_range_or_the_box_is_not_resumed() {
        let dir = std::env::temp_dir().join(format!("pbdfit-store-range-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gravity-floor-base.csv");
        let pbd = SearchBox::default_for(ModelKind::PBD);
        let check = |r: &FitRecord| finished_row(r, ModelKind::PBD, false, &pbd);
        let stiff = FitRecord { parameters: vec![("kd".into(), 1.5), ("kv".into(), 0.5)], ..record(0.1) };
        for r in [record(0.0), stiff.clone(), record(0.2)] {
            append_row(&path, &r).unwrap();
        }
        let (rows, note) = load_resumable(&path, &check).unwrap();
        assert_eq!(rows, vec![record(0.0), record(0.2)]);
        let note = note.unwrap();
        assert!(note.contains("removed 1 row(s)") && note.contains("row 2 (status ok with kd `1.5`"), "{note}");
        assert!(note.contains("must be in [0, 1]"), "{note}");
        // Inside the model's range but outside the study's box.
        let half = pbd.clone().with_bounds("kd", 0.0, 0.5).unwrap();
        let inside = FitRecord { parameters: vec![("kd".into(), 0.7), ("kv".into(), 0.5)], ..record(0.1) };
        let why = finished_row(&inside, ModelKind::PBD, false, &half).unwrap();
        assert!(why.contains("kd `0.7`") && why.contains("outside the study's box [0, 0.5]"), "{why}");
        assert_eq!(finished_row(&inside, ModelKind::PBD, false, &pbd), None);
        // An unbounded study with a box to 2 gives kd = 1.5; a failed row is not checked.
        let wide = pbd.clone().with_bounds("kd", 0.0, 2.0).unwrap();
        assert_eq!(finished_row(&stiff, ModelKind::PBD, true, &wide), None);
        assert!(finished_row(&stiff, ModelKind::PBD, false, &wide).is_some());
        assert_eq!(finished_row(&FitRecord { status: FitStatus::Failed, ..stiff }, ModelKind::PBD, false, &pbd), None);
        // A log axis's upper bound, as a fit at the box's edge writes it.
        let xpbd = SearchBox::default_for(ModelKind::XPBD);
        let edge = xpbd.values(&[1.0, 0.0]);
        let at_edge = FitRecord {
            model: "xpbd".into(),
            parameters: vec![("alpha_d".into(), edge[0]), ("alpha_v".into(), edge[1])],
            ..record(0.1)
        };
        assert_eq!(finished_row(&at_edge, ModelKind::XPBD, false, &xpbd), None);
        std::fs::remove_dir_all(&dir).unwrap();
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
        let linear = |_: &str| Some("linear static".to_string());
        let pbd = Expected {
            model: "pbd",
            parameters: &["kd", "kv"],
            search: "pattern",
            mass_model: &lumped,
            reference: &linear,
            origin: "s.toml",
        };
        assert!(check_rows(Path::new("f.csv"), &rows, &pbd).is_ok());
        let xpbd = Expected { model: "xpbd", parameters: &["alpha_d", "alpha_v"], ..pbd };
        let e = check_rows(Path::new("f.csv"), &rows, &xpbd).unwrap_err().to_string();
        assert!(e.contains("model pbd (kd, kv)") && e.contains("model xpbd (alpha_d, alpha_v)"), "{e}");
        let uniform = |_: &str| Some("uniform".to_string());
        assert!(check_rows(Path::new("f.csv"), &rows, &Expected { mass_model: &uniform, ..pbd }).is_err());
    }

    /// Rows of another search or another reference are refused too, naming them.
    #[test]
    fn rows_of_another_search_or_reference_are_refused() {
        let rows = vec![record(0.0)];
        let lumped = |_: &str| Some("lumped".to_string());
        let linear = |_: &str| Some("linear static".to_string());
        let stvk = |_: &str| Some("stvk static".to_string());
        let pbd = Expected {
            model: "pbd",
            parameters: &["kd", "kv"],
            search: "pattern",
            mass_model: &lumped,
            reference: &linear,
            origin: "s.toml",
        };
        let e = check_rows(Path::new("f.csv"), &rows, &Expected { search: "gradient", ..pbd }).unwrap_err().to_string();
        assert!(e.contains("the pattern search") && e.contains("the gradient search"), "{e}");
        let e = check_rows(Path::new("f.csv"), &rows, &Expected { reference: &stvk, ..pbd }).unwrap_err().to_string();
        assert!(e.contains("the linear static reference") && e.contains("the stvk static reference"), "{e}");
    }
}
