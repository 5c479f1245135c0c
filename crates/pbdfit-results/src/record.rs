//! One fitted result as a CSV row, with parameter columns named by the model.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ResultsError;

/// Whether a fit produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FitStatus {
    /// The search finished; the parameters and error are the fitted values.
    Ok,
    /// The fit could not be made (every evaluation failed, bad input...); see `message`.
    Failed,
}

impl FitStatus {
    fn as_str(self) -> &'static str {
        match self {
            FitStatus::Ok => "ok",
            FitStatus::Failed => "failed",
        }
    }
}

/// The columns before the parameter columns, in order.
pub const FIXED_COLUMNS_BEFORE: [&str; 10] =
    ["scene", "experiment", "value", "young", "poisson", "dt", "n", "nit", "model", "mass_model"];
/// The columns after the parameter columns, in order.
pub const FIXED_COLUMNS_AFTER: [&str; 12] = [
    "error",
    "scene_errors",
    "evaluations",
    "failed_evaluations",
    "at_bound",
    "condition",
    "hessian",
    "ranges",
    "seconds",
    "status",
    "message",
    "reference",
];

/// The columns after the parameters in results written before the reference was selectable (with
/// identifiability, without `reference`, the last current column): still read, with `reference` set to
/// [`DEFAULT_REFERENCE`].
pub const UNREFERENCED_COLUMNS_AFTER: &[&str] = FIXED_COLUMNS_AFTER.split_last().expect("columns").1;

/// The reference of every result written before the reference was selectable.
pub const DEFAULT_REFERENCE: &str = "linear static";

/// One fitted result: the row of a study CSV (`fits/results/<study>/<scene>-<experiment>.csv`).
///
/// Every row carries all its settings, so a row is self-describing whatever the experiment. The
/// parameter columns sit between `mass_model` and `error` and are named by the model: `kd,kv` for the
/// PBD models, `alpha_d,alpha_v` for XPBD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitRecord {
    /// Scene name, e.g. `gravity-floor`, or `gravity` for the compound.
    pub scene: String,
    /// Experiment name, e.g. `base`, `dt`, `n`, `nit` or `young` in the thesis study.
    pub experiment: String,
    /// Value of the experiment's varied setting (`None` for an experiment that varies nothing).
    pub value: Option<f64>,
    /// Young's modulus E in Pa.
    pub young: f64,
    /// Poisson ratio nu.
    pub poisson: f64,
    /// Time step in s.
    pub dt: f64,
    /// Mesh resolution N.
    pub n: usize,
    /// Solver iterations per step.
    pub nit: usize,
    /// Model name (`pbd`, `pbd-linearised`, `pbd-textbook-volume`, `xpbd`, ...).
    pub model: String,
    /// Mass model (`lumped` or `uniform`).
    pub mass_model: String,
    /// Fitted parameters `(name, value)` in the model's order (NaN for a failed fit).
    pub parameters: Vec<(String, f64)>,
    /// Mean squared relative error at the fitted point (compound: Euclidean norm of the parts' errors).
    pub error: f64,
    /// For a compound scene, each part's error `(scene, error)` (empty otherwise).
    pub scene_errors: Vec<(String, f64)>,
    /// Error evaluations the fit made (grid + pattern search).
    pub evaluations: usize,
    /// Evaluations without a rest state (diverged or no equilibrium), counted as infinite error.
    pub failed_evaluations: usize,
    /// The parameters whose fitted value lies on the edge of the search box.
    pub at_bound: Vec<String>,
    /// Identifiability: the condition number of the error's Hessian at the optimum in the search
    /// coordinates (`inf`: not positive definite, some direction is not determined; `None`: not
    /// measured). Column `condition`.
    pub condition: Option<f64>,
    /// That Hessian, row-major (`d x d` numbers; empty when not measured). Column `hessian`, the numbers
    /// separated by `;`.
    pub hessian: Vec<f64>,
    /// Per parameter, the values between which the error rises by at most 1 % (the others at their
    /// fitted values): `(name, low, high)`. Column `ranges`, as `kd=0.21:0.25;kv=0:1`.
    pub ranges: Vec<(String, f64, f64)>,
    /// Wall-clock seconds the fit took.
    pub seconds: f64,
    /// Whether the fit produced a result.
    pub status: FitStatus,
    /// Why a fit failed, or notes (empty when there is nothing to say).
    pub message: String,
    /// The reference the fit matched, e.g. `linear static`, `stvk dynamic lumped rest` (pbdfit-fem's
    /// `ReferenceSpec::id`). Column `reference`.
    pub reference: String,
    /// The search that made the fit, where it is not the thesis's pattern search: columns `search` and
    /// `starts` after `reference`, present only in files of such searches (so the pinned pattern results
    /// keep their bytes). `None`: the pattern search.
    pub search: Option<SearchRecord>,
    /// A sheet's thickness h in m: column `thickness`, the last, present only in a sheet study's files (so
    /// the solids' results keep their bytes). `None`: a solid.
    pub thickness: Option<f64>,
}

/// The last column of a sheet study's files.
pub const THICKNESS_COLUMN: &str = "thickness";

/// How a gradient fit searched: its name and how many of its starts reached the minimum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchRecord {
    /// The search's name (`gradient`).
    pub name: String,
    /// Descents that ended within the fit's margin of the best error.
    pub reached: usize,
    /// Descents run.
    pub starts: usize,
}

/// The columns after `reference` in the files of a search other than the pattern search.
pub const SEARCH_COLUMNS: [&str; 2] = ["search", "starts"];

impl FitRecord {
    /// The value of the parameter `name`, if the record has it.
    pub fn parameter(&self, name: &str) -> Option<f64> {
        self.parameters.iter().find(|(n, _)| n == name).map(|p| p.1)
    }

    /// The parameter names, in column order.
    pub fn parameter_names(&self) -> Vec<&str> {
        self.parameters.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The row's fields as text, in column order (see [`csv_header`]).
    pub fn fields(&self) -> Vec<String> {
        let mut out = vec![
            self.scene.clone(),
            self.experiment.clone(),
            self.value.map(format_number).unwrap_or_default(),
            format_number(self.young),
            format_number(self.poisson),
            format_number(self.dt),
            self.n.to_string(),
            self.nit.to_string(),
            self.model.clone(),
            self.mass_model.clone(),
        ];
        out.extend(self.parameters.iter().map(|(_, v)| format_number(*v)));
        out.extend([
            format_number(self.error),
            self.scene_errors.iter().map(|(n, e)| format!("{n}={}", format_number(*e))).collect::<Vec<_>>().join(";"),
            self.evaluations.to_string(),
            self.failed_evaluations.to_string(),
            self.at_bound.join(";"),
            self.condition.map(format_number).unwrap_or_default(),
            self.hessian.iter().map(|v| format_number(*v)).collect::<Vec<_>>().join(";"),
            self.ranges
                .iter()
                .map(|(n, lo, hi)| format!("{n}={}:{}", format_number(*lo), format_number(*hi)))
                .collect::<Vec<_>>()
                .join(";"),
            format_number(self.seconds),
            self.status.as_str().to_string(),
            self.message.clone(),
            self.reference.clone(),
        ]);
        if let Some(search) = &self.search {
            out.extend([search.name.clone(), format!("{}/{}", search.reached, search.starts)]);
        }
        if let Some(h) = self.thickness {
            out.push(format_number(h));
        }
        out
    }
}

/// A float as the shortest text that parses back to the same bits: plain decimals for magnitudes in
/// [1e-4, 1e15) and zero, scientific notation otherwise (`1e-12`, not twelve zeros).
///
/// ```
/// use pbdfit_results::format_number;
/// assert_eq!(format_number(0.25), "0.25");
/// assert_eq!(format_number(1e-12), "1e-12");
/// assert_eq!(format_number(1000.0), "1000");
/// assert_eq!(format_number(f64::INFINITY), "inf");
/// for v in [0.1954915028125263, 1.5e-300, -3.0e17, f64::MIN_POSITIVE] {
///     assert_eq!(format_number(v).parse::<f64>().unwrap().to_bits(), v.to_bits());
/// }
/// ```
pub fn format_number(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() || a == 0.0 || (1e-4..1e15).contains(&a) { format!("{v}") } else { format!("{v:e}") }
}

/// The columns after the parameters in results written before identifiability was measured (pbdfit
/// 0.1 up to the `condition`, `hessian`, `ranges` columns): still read, with those fields empty.
pub const LEGACY_COLUMNS_AFTER: [&str; 8] =
    ["error", "scene_errors", "evaluations", "failed_evaluations", "at_bound", "seconds", "status", "message"];

/// Whether a results CSV's text starts with an older header (without the identifiability columns, or
/// without `reference`): such files are read, and rewritten in the current format before rows are
/// appended to them.
pub fn is_legacy(text: &str) -> bool {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    reader
        .headers()
        .ok()
        .and_then(|h| parameter_columns(h).ok())
        .is_some_and(|(_, f, _)| !matches!(f, Format::Current | Format::Searched))
}

/// Which of the known column sets a file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// No identifiability columns, no reference.
    Legacy,
    /// Identifiability columns, no reference.
    Unreferenced,
    /// The current columns.
    Current,
    /// The current columns and the search's (`search`, `starts`).
    Searched,
}

impl Format {
    fn after(self) -> &'static [&'static str] {
        match self {
            Format::Legacy => &LEGACY_COLUMNS_AFTER,
            Format::Unreferenced => UNREFERENCED_COLUMNS_AFTER,
            Format::Current => &FIXED_COLUMNS_AFTER,
            Format::Searched => &SEARCHED_COLUMNS_AFTER,
        }
    }
}

const SEARCHED_COLUMNS_AFTER: [&str; 14] = {
    let mut out = [""; 14];
    let mut i = 0;
    while i < 12 {
        out[i] = FIXED_COLUMNS_AFTER[i];
        i += 1;
    }
    out[12] = SEARCH_COLUMNS[0];
    out[13] = SEARCH_COLUMNS[1];
    out
};

/// The header of a results CSV for a model with the given parameter names (pattern-search rows).
pub fn csv_header(parameter_names: &[&str]) -> Vec<String> {
    header(parameter_names, false, false)
}

/// The header for rows with or without the search columns, and with or without a sheet's thickness.
fn header(parameter_names: &[&str], searched: bool, sheet: bool) -> Vec<String> {
    let after: &[&str] = if searched { &SEARCHED_COLUMNS_AFTER } else { &FIXED_COLUMNS_AFTER };
    let thickness: &[&str] = if sheet { &[THICKNESS_COLUMN] } else { &[] };
    FIXED_COLUMNS_BEFORE
        .iter()
        .chain(parameter_names)
        .chain(after.iter())
        .chain(thickness.iter())
        .map(|s| s.to_string())
        .collect()
}

/// The parameter names a header declares, its format and whether it ends in a sheet's thickness, or what
/// is wrong with it.
fn parameter_columns(header: &csv::StringRecord) -> Result<(Vec<String>, Format, bool), String> {
    let mut names: Vec<&str> = header.iter().collect();
    let sheet = names.last() == Some(&THICKNESS_COLUMN);
    if sheet {
        names.pop();
    }
    let before = FIXED_COLUMNS_BEFORE.len();
    let matches = |after: &[&str]| {
        names.len() >= before + after.len()
            && names[..before] == FIXED_COLUMNS_BEFORE
            && names[names.len() - after.len()..] == *after
    };
    let format = [Format::Searched, Format::Current, Format::Unreferenced, Format::Legacy]
        .into_iter()
        .find(|f| matches(f.after()))
        .ok_or_else(|| {
            format!(
                "not a pbdfit results header: expected {}, <parameters>, {}; found {}",
                FIXED_COLUMNS_BEFORE.join(","),
                FIXED_COLUMNS_AFTER.join(","),
                names.join(",")
            )
        })?;
    let params: Vec<String> = names[before..names.len() - format.after().len()].iter().map(|s| s.to_string()).collect();
    if params.iter().any(|p| p.is_empty()) {
        return Err("a parameter column has no name".into());
    }
    Ok((params, format, sheet))
}

fn parse_row(row: &csv::StringRecord, params: &[String], format: Format, sheet: bool) -> Result<FitRecord, String> {
    let after = format.after().len();
    let legacy = format == Format::Legacy;
    let expected = FIXED_COLUMNS_BEFORE.len() + params.len() + after + usize::from(sheet);
    if row.len() != expected {
        return Err(format!("{} fields, expected {expected}", row.len()));
    }
    let mut fields = row.iter();
    let mut next = || fields.next().unwrap_or_default();
    fn num(name: &str, s: &str) -> Result<f64, String> {
        s.parse::<f64>().map_err(|_| format!("{name}: `{s}` is not a number"))
    }
    fn int(name: &str, s: &str) -> Result<usize, String> {
        s.parse::<usize>().map_err(|_| format!("{name}: `{s}` is not a non-negative integer"))
    }
    // A fit's setting (its material and time step) is a finite number (> 0 for E and dt): a row with NaN
    // or inf there is not a fit's, and the readers sort and group by it (a NaN dt made `pbdfit plot`
    // panic).
    fn setting(name: &str, s: &str, positive: bool) -> Result<f64, String> {
        let v = num(name, s)?;
        if !v.is_finite() || (positive && v <= 0.0) {
            let what = if positive { "a finite number > 0" } else { "a finite number" };
            return Err(format!("{name}: `{s}` is not a fit's setting ({name} must be {what})"));
        }
        Ok(v)
    }
    fn list(s: &str) -> Vec<String> {
        s.split(';').filter(|p| !p.is_empty()).map(str::to_string).collect()
    }
    let scene = next().to_string();
    let experiment = next().to_string();
    let value = match next() {
        "" => None,
        s => Some(setting("value", s, false)?),
    };
    let young = setting("young", next(), true)?;
    let poisson = setting("poisson", next(), false)?;
    let dt = setting("dt", next(), true)?;
    let n = int("n", next())?;
    let nit = int("nit", next())?;
    let model = next().to_string();
    let mass_model = next().to_string();
    let mut parameters = Vec::with_capacity(params.len());
    for p in params {
        parameters.push((p.clone(), num(p, next())?));
    }
    let error = num("error", next())?;
    let scene_errors = list(next())
        .into_iter()
        .map(|part| {
            let (name, value) =
                part.split_once('=').ok_or_else(|| format!("scene_errors: `{part}` is not name=value"))?;
            Ok((name.to_string(), num("scene_errors", value)?))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let evaluations = int("evaluations", next())?;
    let failed_evaluations = int("failed_evaluations", next())?;
    let at_bound = list(next());
    for name in &at_bound {
        if !params.contains(name) {
            return Err(format!("at_bound names `{name}`, which is not a parameter column"));
        }
    }
    let (condition_text, hessian_text, ranges_text) = if legacy { ("", "", "") } else { (next(), next(), next()) };
    let condition = match condition_text {
        "" => None,
        s => Some(num("condition", s)?),
    };
    let hessian = list(hessian_text).iter().map(|v| num("hessian", v)).collect::<Result<Vec<_>, String>>()?;
    if !hessian.is_empty() && hessian.len() != params.len() * params.len() {
        return Err(format!("hessian: {} numbers for {} parameters", hessian.len(), params.len()));
    }
    let ranges = list(ranges_text)
        .into_iter()
        .map(|part| {
            let parsed = part.split_once('=').and_then(|(n, r)| r.split_once(':').map(|(lo, hi)| (n, lo, hi)));
            let (name, lo, hi) = parsed.ok_or_else(|| format!("ranges: `{part}` is not name=low:high"))?;
            if !params.iter().any(|p| p == name) {
                return Err(format!("ranges names `{name}`, which is not a parameter column"));
            }
            Ok((name.to_string(), num("ranges", lo)?, num("ranges", hi)?))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let seconds = num("seconds", next())?;
    let status = match next() {
        "ok" => FitStatus::Ok,
        "failed" => FitStatus::Failed,
        s => return Err(format!("status: `{s}` is neither ok nor failed")),
    };
    let message = next().to_string();
    let reference = if matches!(format, Format::Current | Format::Searched) {
        next().to_string()
    } else {
        DEFAULT_REFERENCE.to_string()
    };
    let search = if format == Format::Searched {
        let name = next().to_string();
        let starts = next();
        let (reached, total) = starts
            .split_once('/')
            .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("starts: `{starts}` is not reached/total"))?;
        Some(SearchRecord { name, reached, starts: total })
    } else {
        None
    };
    let thickness = if sheet { Some(setting(THICKNESS_COLUMN, next(), true)?) } else { None };
    Ok(FitRecord {
        scene,
        experiment,
        value,
        young,
        poisson,
        dt,
        n,
        nit,
        model,
        mass_model,
        parameters,
        error,
        scene_errors,
        evaluations,
        failed_evaluations,
        at_bound,
        condition,
        hessian,
        ranges,
        seconds,
        status,
        message,
        reference,
        search,
        thickness,
    })
}

/// Reads every record of a results CSV (from text; `path` only names it in errors).
pub fn parse_records(text: &str, path: &Path) -> Result<Vec<FitRecord>, ResultsError> {
    let format = |row: usize, message: String| ResultsError::Format { path: path.to_path_buf(), row, message };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| format(1, e.to_string()))?.clone();
    let (params, columns, sheet) = parameter_columns(&header).map_err(|m| format(1, m))?;
    let mut out = Vec::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| format(i + 2, e.to_string()))?;
        out.push(parse_row(&row, &params, columns, sheet).map_err(|m| format(i + 2, m))?);
    }
    Ok(out)
}

/// Reads every record of a results CSV.
pub fn read_records(path: &Path) -> Result<Vec<FitRecord>, ResultsError> {
    let text = std::fs::read_to_string(path).map_err(|e| ResultsError::io("cannot read", path, e))?;
    parse_records(&text, path)
}

/// The CSV text of one row (with its line end).
fn row_bytes(fields: &[String]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    w.write_record(fields).expect("in-memory CSV");
    w.into_inner().expect("in-memory CSV")
}

/// Writes records to a CSV file with a header row, replacing the file. All records must have the same
/// parameter names (the header takes them from the first record, or `parameter_names` when empty).
pub fn write_records(path: &Path, parameter_names: &[&str], records: &[FitRecord]) -> Result<(), ResultsError> {
    let bytes = records_text(path, parameter_names, records)?;
    std::fs::write(path, bytes).map_err(|e| ResultsError::io("cannot write", path, e))
}

/// The text [`write_records`] writes (header row, then the records), for records that travel between
/// processes: [`parse_records`] reads them back bit for bit (the numbers are round-trip decimals).
/// `path` only names the records in errors.
pub fn records_text(path: &Path, parameter_names: &[&str], records: &[FitRecord]) -> Result<String, ResultsError> {
    let searched = records.first().is_some_and(|r| r.search.is_some());
    let sheet = records.first().is_some_and(|r| r.thickness.is_some());
    let mut bytes = row_bytes(&header(parameter_names, searched, sheet));
    for (i, r) in records.iter().enumerate() {
        if r.thickness.is_some() != sheet {
            return Err(ResultsError::Format {
                path: path.to_path_buf(),
                row: i + 2,
                message: "rows of a sheet (with a thickness) and of a solid in one file".into(),
            });
        }
        if r.search.is_some() != searched {
            return Err(ResultsError::Format {
                path: path.to_path_buf(),
                row: i + 2,
                message: "rows of the pattern search and of another search in one file".into(),
            });
        }
        if r.parameter_names() != parameter_names {
            return Err(ResultsError::Format {
                path: path.to_path_buf(),
                row: i + 2,
                message: format!(
                    "record has parameters {}, the file {}",
                    r.parameter_names().join(","),
                    parameter_names.join(",")
                ),
            });
        }
        bytes.extend(row_bytes(&r.fields()));
    }
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields"))
}

/// Appends one record to a results CSV and flushes it; writes the header first if the file is new or
/// empty. One `write` call per row, so a process killed mid-run leaves at most a partial last line.
pub fn append_record(path: &Path, record: &FitRecord) -> Result<(), ResultsError> {
    let io = |e| ResultsError::io("cannot write", path, e);
    let fresh = std::fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
    let mut bytes = Vec::new();
    if fresh {
        bytes.extend(row_bytes(&header(
            &record.parameter_names(),
            record.search.is_some(),
            record.thickness.is_some(),
        )));
    }
    bytes.extend(row_bytes(&record.fields()));
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    file.write_all(&bytes).map_err(io)?;
    file.flush().map_err(io)
}

/// Whether two values read back from results text are the same value: equal up to a relative 1e-9 (the
/// CSV keeps 17 significant digits, so a value round-trips exactly; the margin covers values a person
/// typed, such as an experiment's `dt = 0.001` against the `0.001` a CSV holds). The one comparison the
/// plots and the claims use.
pub fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// One comparison for plots and claims: relative, so values far below 1 (XPBD compliances, 1e-12) are
    /// told apart; the claims' old copy compared absolutely below 1 and took 1e-12 for 2e-12.
    #[test]
    fn same_value_is_relative() {
        assert!(same_value(0.001, "0.001".parse().unwrap()));
        assert!(same_value(0.0, 0.0) && same_value(1e6, 1e6 * (1.0 + 1e-12)));
        assert!(!same_value(1e-12, 2e-12) && !same_value(0.001, 0.002) && !same_value(0.0, 1e-300));
    }

    fn sample() -> FitRecord {
        FitRecord {
            scene: "gravity".into(),
            experiment: "dt".into(),
            value: Some(0.005),
            young: 1e3,
            poisson: 0.27,
            dt: 0.005,
            n: 1,
            nit: 1,
            model: "xpbd".into(),
            mass_model: "lumped".into(),
            parameters: vec![("alpha_d".into(), 1.234567890123e-7), ("alpha_v".into(), 1e-12)],
            error: 1.5e-3,
            scene_errors: vec![("gravity-floor".into(), 1e-3), ("gravity-wall".into(), 2e-3)],
            evaluations: 480,
            failed_evaluations: 21,
            at_bound: vec!["alpha_v".into()],
            condition: Some(1.25e7),
            hessian: vec![0.5, -1e-3, -1e-3, 2.5e-9],
            ranges: vec![("alpha_d".into(), 1.1e-7, 1.4e-7), ("alpha_v".into(), 1e-14, 3e-12)],
            seconds: 0.25,
            status: FitStatus::Ok,
            message: "a note, with a comma and \"quotes\"".into(),
            reference: "stvk dynamic lumped rest".into(),
            search: None,
            thickness: None,
        }
    }

    #[test]
    fn csv_round_trip_keeps_every_field_bit_for_bit() {
        let r = sample();
        let mut base = r.clone();
        base.experiment = "base".into();
        base.value = None;
        base.at_bound.clear();
        base.scene_errors.clear();
        base.condition = None;
        base.hessian.clear();
        base.ranges.clear();
        base.status = FitStatus::Failed;
        base.parameters = vec![("alpha_d".into(), f64::NAN), ("alpha_v".into(), f64::NAN)];
        base.error = f64::INFINITY;
        let dir = std::env::temp_dir().join(format!("pbdfit-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.csv");
        write_records(&path, &["alpha_d", "alpha_v"], &[r.clone(), base.clone()]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(
            "scene,experiment,value,young,poisson,dt,n,nit,model,mass_model,alpha_d,alpha_v,error,scene_errors,\
             evaluations,failed_evaluations,at_bound,condition,hessian,ranges,seconds,status,message,reference\n"
        ));
        let back = read_records(&path).unwrap();
        assert_eq!(back[0], r);
        assert!(back[1].parameters.iter().all(|(_, v)| v.is_nan()) && back[1].error == f64::INFINITY);
        assert_eq!(back[1].value, None);
        // Appending to a new file writes the header once.
        let appended = dir.join("a.csv");
        append_record(&appended, &r).unwrap();
        append_record(&appended, &r).unwrap();
        assert_eq!(read_records(&appended).unwrap(), vec![r.clone(), r]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_files_name_the_row_and_the_problem() {
        let path = Path::new("x.csv");
        let e = parse_records("scene,experiment\n", path).unwrap_err().to_string();
        assert!(e.contains("x.csv") && e.contains("row 1") && e.contains("not a pbdfit results header"), "{e}");
        let header = csv_header(&["kd", "kv"]).join(",");
        let mut row = sample();
        row.parameters = vec![("kd".into(), 0.5), ("kv".into(), 0.25)];
        row.at_bound = vec!["kv".into()];
        row.ranges = vec![("kd".into(), 0.4, 0.6), ("kv".into(), 0.0, 1.0)];
        let line = String::from_utf8(row_bytes(&row.fields())).unwrap();
        assert_eq!(parse_records(&format!("{header}\n{line}"), path).unwrap(), vec![row.clone()]);
        let bad = line.replacen(",0.5,", ",half,", 1);
        let e = parse_records(&format!("{header}\n{bad}"), path).unwrap_err().to_string();
        assert!(e.contains("row 2") && e.contains("kd") && e.contains("half"), "{e}");
        let e = parse_records(&format!("{header}\n{line}{line}a,b\n"), path).unwrap_err().to_string();
        assert!(e.contains("row 4"), "{e}");
        let bad = line.replacen("kd=0.4:0.6", "kd=0.4", 1);
        let e = parse_records(&format!("{header}\n{bad}"), path).unwrap_err().to_string();
        assert!(e.contains("ranges") && e.contains("name=low:high"), "{e}");
        let bad = line.replacen(";-0.001;-0.001;", ";-0.001;", 1);
        let e = parse_records(&format!("{header}\n{bad}"), path).unwrap_err().to_string();
        assert!(e.contains("hessian") && e.contains("3 numbers for 2 parameters"), "{e}");
        // A setting that is no fit's (a NaN dt made `pbdfit plot` panic sorting the settings).
        for (field, value) in [("dt", f64::NAN), ("dt", 0.0), ("young", f64::INFINITY), ("poisson", f64::NAN)] {
            let mut r = row.clone();
            match field {
                "dt" => r.dt = value,
                "young" => r.young = value,
                _ => r.poisson = value,
            }
            let bad = String::from_utf8(row_bytes(&r.fields())).unwrap();
            let e = parse_records(&format!("{header}\n{bad}"), path).unwrap_err().to_string();
            assert!(e.contains("row 2") && e.contains(field) && e.contains("is not a fit's setting"), "{e}");
        }
    }

    /// Files written before the identifiability columns still read, with those fields empty.
    #[test]
    fn legacy_files_still_read() {
        let mut r = sample();
        r.condition = None;
        r.hessian.clear();
        r.ranges.clear();
        r.reference = DEFAULT_REFERENCE.into();
        let header = FIXED_COLUMNS_BEFORE.iter().chain(&["alpha_d", "alpha_v"]).chain(&LEGACY_COLUMNS_AFTER).copied();
        let header = header.collect::<Vec<_>>().join(",");
        let mut fields = r.fields();
        let at = FIXED_COLUMNS_BEFORE.len() + 2 + 5;
        fields.drain(at..at + 3);
        fields.pop();
        let text = format!("{header}\n{}", String::from_utf8(row_bytes(&fields)).unwrap());
        assert!(is_legacy(&text));
        assert_eq!(parse_records(&text, Path::new("old.csv")).unwrap(), vec![r]);
    }

    /// Files written before the reference column read as the one reference there was, linear static.
    #[test]
    fn files_without_a_reference_column_read_as_linear_static() {
        let mut r = sample();
        r.reference = DEFAULT_REFERENCE.into();
        let header = FIXED_COLUMNS_BEFORE.iter().chain(&["alpha_d", "alpha_v"]).chain(UNREFERENCED_COLUMNS_AFTER);
        let header = header.copied().collect::<Vec<_>>().join(",");
        let mut fields = r.fields();
        fields.pop();
        let text = format!("{header}\n{}", String::from_utf8(row_bytes(&fields)).unwrap());
        assert!(is_legacy(&text));
        assert_eq!(parse_records(&text, Path::new("old.csv")).unwrap(), vec![r.clone()]);
        let current = format!("{}\n", csv_header(&["alpha_d", "alpha_v"]).join(","));
        assert!(!is_legacy(&current));
    }

    proptest! {
        /// Random and mutated input is an error or a record, never a panic.
        #[test]
        fn mutated_rows_never_panic(cut in 0usize..400, insert in "[a-z0-9,;=\"\n.-]{0,12}") {
            let header = csv_header(&["kd", "kv"]).join(",");
            let mut r = sample();
            r.parameters = vec![("kd".into(), 0.5), ("kv".into(), 0.25)];
            r.at_bound.clear();
            r.ranges = vec![("kd".into(), 0.4, 0.6), ("kv".into(), 0.0, 1.0)];
            let line = String::from_utf8(row_bytes(&r.fields())).unwrap();
            let text = format!("{header}\n{line}");
            let at = cut.min(text.len());
            let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let mutated = format!("{}{}{}", &text[..at], insert, &text[at..]);
            let _ = parse_records(&mutated, Path::new("m.csv"));
        }

        #[test]
        fn numbers_round_trip(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            let back: f64 = format_number(v).parse().unwrap();
            prop_assert!(back.to_bits() == v.to_bits() || (v.is_nan() && back.is_nan()));
        }
    }
}
