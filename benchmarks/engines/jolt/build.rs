//! Records the oxijolt version that Cargo.lock pins (and Jolt's, from its build metadata) for the report.
use std::{env, fs, path::Path};

fn main() {
    let lock = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    let mut version = String::from("unknown");
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"oxijolt\"" {
            if let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = \"")) {
                version = v.trim_end_matches('"').to_string();
            }
        }
    }
    let jolt = version.split("+jolt-").nth(1).unwrap_or("unknown").to_string();
    println!("cargo:rustc-env=OXIJOLT_VERSION={version}");
    println!("cargo:rustc-env=JOLT_VERSION={jolt}");
}
