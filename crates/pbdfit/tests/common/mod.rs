//! Helpers shared by the CLI integration tests (each test binary compiles this module; not every binary
//! uses every helper, hence `dead_code` allowed here alone).
#![allow(dead_code)]

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

/// An empty scratch folder, unique to this test binary, process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdfit-{}-{}-{name}", env!("CARGO_CRATE_NAME"), std::process::id()));
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
