//! Helpers shared by the modules of the CLI test binary (`cli.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `pbdfit` in the repository root.
pub fn pbdfit(args: &[&str]) -> Output {
    pbdfit_in(&repo(), args)
}

/// Runs the built `pbdfit` in `dir`.
pub fn pbdfit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbdfit")).current_dir(dir).args(args).output().expect("run pbdfit")
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON a successful run printed.
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// An empty scratch folder, unique to this test binary, process, calling test file and `name`: the modules
/// run in one process, and two of them may use the same `name`.
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    let file = Path::new(std::panic::Location::caller().file()).file_stem().unwrap().to_string_lossy();
    let dir =
        std::env::temp_dir().join(format!("pbdfit-{}-{file}-{}-{name}", env!("CARGO_CRATE_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit 2 with a message containing every one of `words`, and no panic.
pub fn assert_input_error(o: &Output, words: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    for w in words {
        assert!(e.contains(w), "`{w}` missing from: {e}");
    }
}

/// Every file of a folder (name, bytes), sorted by name.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// The CSV rows of a folder without the `seconds` column (the one column that depends on timing).
pub fn rows_without_seconds(dir: &Path) -> Vec<(String, Vec<String>)> {
    files(dir)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".csv"))
        .map(|(name, bytes)| {
            let text = String::from_utf8(bytes).unwrap();
            let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
            let seconds = header.iter().position(|h| *h == "seconds").unwrap();
            let rows = text
                .lines()
                .map(|l| {
                    l.split(',')
                        .enumerate()
                        .filter(|(i, _)| *i != seconds)
                        .map(|(_, f)| f)
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            (name, rows)
        })
        .collect()
}

/// The rows of one results CSV as maps from column to field (fields without commas only: the
/// columns these tests read).
pub fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("a results CSV");
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().map(String::from).zip(r.unwrap().iter().map(String::from)).collect())
        .collect()
}

/// A small study file for the CLI tests: the smallest mesh on the base case (dt 0.01 s, E 1e3 Pa) unless
/// told otherwise, one `base` experiment plus `experiments`. Values are written as given, so a test can
/// `replace` one (`"to = 0.45"`) to make a variant of it.
#[derive(Debug, Clone, Copy)]
pub struct Study {
    pub name: &'static str,
    pub scenes: &'static [&'static str],
    /// `model = ...`, when the study names one.
    pub model: Option<&'static str>,
    pub n: u32,
    pub nit: u32,
    /// `[poisson]` from, to, step.
    pub poisson: [&'static str; 3],
    /// The `[fit]` table's lines (none: no table).
    pub fit: &'static str,
    /// `[[experiment]]` tables after the base one.
    pub experiments: &'static str,
}

impl Default for Study {
    fn default() -> Self {
        Study {
            name: "tiny",
            scenes: &["gravity-floor"],
            model: None,
            n: 1,
            nit: 1,
            poisson: ["0.0", "0.3", "0.3"],
            fit: "",
            experiments: "",
        }
    }
}

impl Study {
    /// The study file's text.
    pub fn toml(&self) -> String {
        let scenes: Vec<String> = self.scenes.iter().map(|s| format!("\"{s}\"")).collect();
        let mut t = format!("name = \"{}\"\nscenes = [{}]\n", self.name, scenes.join(", "));
        if let Some(m) = self.model {
            t += &format!("model = \"{m}\"\n");
        }
        t += &format!("[base]\ndt = 0.01\nn = {}\nnit = {}\nyoung = 1e3\n", self.n, self.nit);
        let [from, to, step] = self.poisson;
        t += &format!("[poisson]\nfrom = {from}\nto = {to}\nstep = {step}\n");
        if !self.fit.is_empty() {
            t += &format!("[fit]\n{}\n", self.fit.trim());
        }
        t += "[[experiment]]\nname = \"base\"\n";
        if !self.experiments.is_empty() {
            t += &format!("{}\n", self.experiments.trim());
        }
        t
    }
}

/// The `displacements` array of `fem --json` or `simulate --json` output (m).
pub fn displacements(json: &serde_json::Value) -> Vec<[f64; 3]> {
    json["displacements"]
        .as_array()
        .expect("a displacements array")
        .iter()
        .map(|u| {
            let u = u.as_array().unwrap();
            [u[0].as_f64().unwrap(), u[1].as_f64().unwrap(), u[2].as_f64().unwrap()]
        })
        .collect()
}

/// The largest displacement norm (m).
pub fn max_norm(u: &[[f64; 3]]) -> f64 {
    u.iter().map(|u| (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt()).fold(0.0, f64::max)
}

/// The largest distance between corresponding displacements (m).
pub fn max_difference(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt())
        .fold(0.0, f64::max)
}

/// A file `name` with `contents` in `dir`, its path as text.
pub fn write(dir: &Path, name: &str, contents: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p.display().to_string()
}

/// `pbdfit args` refuses its input: exit 2, a message containing every one of `words` and no panic on
/// stderr, nothing on stdout.
pub fn assert_refused(args: &[&str], words: &[&str]) {
    let o = pbdfit(args);
    assert_input_error(&o, words);
    assert!(o.stdout.is_empty(), "{args:?}: nothing on stdout, got {}", stdout(&o));
}
