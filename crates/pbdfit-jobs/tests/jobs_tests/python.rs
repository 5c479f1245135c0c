//! The Python package cannot drift from the jobs: each job's Python function (`pbdfit.<name>` in
//! `python/pbdfit/__init__.py`) takes exactly the job's keywords and leaves the defaults of `young`,
//! `poisson`, `dt`, `nit` and `model` to the job ([`YOUNG`], [`POISSON`], [`DT`], [`NIT`], [`MODEL`]), and
//! every native function the package calls is declared in `_native.pyi`. Read from the files, so no Python
//! is needed.

use std::collections::BTreeSet;

use pbdfit_fit::{DT, MODEL, NIT, POISSON, YOUNG};
use pbdfit_jobs::{JOBS, keywords_of, signature_of};

fn package(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/pbdfit").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The parameters of `def name(...)` as `(name, default)`, from its text: a signature over several lines,
/// one parameter a line, as the package writes its public functions (none for a one-line `def`).
fn signature(text: &str, name: &str) -> Vec<(String, Option<String>)> {
    let start = text.find(&format!("\ndef {name}(\n")).unwrap_or_else(|| panic!("no def {name} in the package"));
    let body = &text[start + name.len() + 7..];
    let body = &body[..body.find("\n)").expect("the signature's end")];
    body.split(",\n")
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('*'))
        .map(|p| {
            let name = p.split([':', '=']).next().unwrap_or(p).trim().to_string();
            (name, p.split_once(" = ").map(|(_, d)| d.trim().trim_end_matches(',').to_string()))
        })
        .collect()
}

/// What Python's functions take beside a job's keywords, as the command line's `--backend` and `--json`
/// are beside them: a study's or table's progress display, and the Dask client with its retries.
const FRONT_END: &[&str] = &["progress", "client", "retries"];

/// Whether the package makes `pbdfit.<name>` from the job itself (`name = _job_function("name")`).
fn made_from_the_job(text: &str, name: &str) -> bool {
    text.contains(&format!("\n{name} = _job_function(\"{name}\")\n"))
}

#[test]
fn every_job_s_python_function_takes_its_keywords() {
    let text = package("__init__.py");
    let mut made = 0;
    for name in JOBS {
        let job: BTreeSet<String> = keywords_of(name).expect("a job").into_iter().collect();
        // A function made from the job has the parameters of the job's signature: each keyword, once.
        let from_job: Vec<String> = signature_of(name).expect("a job").keywords.into_iter().map(|k| k.name).collect();
        assert_eq!(from_job.iter().cloned().collect::<BTreeSet<_>>(), job, "{name}'s signature against its keywords");
        assert_eq!(from_job.len(), job.len(), "{name}'s signature names a keyword twice");
        if made_from_the_job(&text, name) {
            made += 1;
            continue;
        }
        let python: BTreeSet<String> =
            signature(&text, name).into_iter().map(|(n, _)| n).filter(|n| !FRONT_END.contains(&n.as_str())).collect();
        assert_eq!(python, job, "pbdfit.{name} against the {name} job's keywords");
    }
    assert!(made > 0, "no function made from its job: the reading of the package is broken");
}

/// A function made from its job: the required keywords first, then the job's positional ones, each by
/// position too, the rest by keyword only; no keyword's default is written in Python (every default the
/// job's), and the docstring opens with the command's help.
#[test]
fn a_function_made_from_its_job_takes_the_required_and_positional_keywords_first() {
    let signature = signature_of("evaluate").expect("a job");
    let names: Vec<&str> = signature.keywords.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names[..4], ["scene", "young", "poisson", "parameters"]);
    let positional: Vec<bool> = signature.keywords.iter().map(|k| k.positional).collect();
    assert_eq!(positional.iter().filter(|p| **p).count(), 4, "{names:?}");
    assert!(signature.keywords[0].required && !signature.keywords[1].required);
    let kind = |name: &str| signature.keywords.iter().find(|k| k.name == name).map(|k| k.kind);
    use pbdfit_jobs::signature::Kind;
    let names = ["young", "n", "parameters", "settings", "rayleigh", "dynamic", "model", "scene"];
    let kinds =
        [Kind::Number, Kind::Count, Kind::Numbers, Kind::Settings, Kind::Pair, Kind::Flag, Kind::Text, Kind::Scene];
    assert_eq!(names.map(kind), kinds.map(Some));
    // A file's path is its own kind (identify's markers).
    let identify = signature_of("identify").expect("a job");
    assert_eq!(identify.keywords.iter().find(|k| k.name == "measured").map(|k| k.kind), Some(Kind::Path));
    let about = <pbdfit_jobs::EvaluateKeywords as pbdfit_jobs::Job>::ABOUT;
    assert!(signature.doc.starts_with(&format!("{about}.\n")), "{}", signature.doc);
    assert!(signature.doc.contains("nit: Solver iterations per time step"), "{}", signature.doc);
    assert!(signature.doc.contains(&format!("[default: {NIT}]")), "{}", signature.doc);
}

/// The defaults of the material, the step and the model are the jobs' alone: a job's Python function
/// leaves them `None` (the job's default), and a function that is no job yet writes the jobs' values.
#[test]
fn the_python_defaults_of_the_material_the_step_and_the_model_are_the_jobs() {
    let text = package("__init__.py");
    let mut seen = 0;
    for def in text.split("\ndef ").skip(1) {
        let name = def.split('(').next().unwrap_or_default();
        if !def.starts_with(&format!("{name}(\n")) {
            continue;
        }
        for (param, default) in signature(&format!("\ndef {def}"), name) {
            let want = match param.as_str() {
                "young" => YOUNG.to_string(),
                "poisson" => POISSON.to_string(),
                "dt" => DT.to_string(),
                "nit" => NIT.to_string(),
                "model" => format!("\"{MODEL}\""),
                _ => continue,
            };
            let Some(default) = default else { continue };
            seen += 1;
            if JOBS.contains(&name) {
                assert_eq!(default, "None", "pbdfit.{name}'s {param}: a job's default is written in the job only");
            } else if default != "None" {
                let written = default.parse::<f64>().map_or(default.clone(), |v| v.to_string());
                assert_eq!(written, want, "pbdfit.{name}'s {param} = {default}");
            }
        }
    }
    assert!(seen >= 20, "{seen} defaults read: the reading of the signatures is broken");
}

#[test]
fn every_native_function_the_package_calls_is_declared() {
    let (text, stubs) = (package("__init__.py"), package("_native.pyi"));
    for call in text.split("_native.").skip(1) {
        let name: String = call.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let declared = stubs.contains(&format!("def {name}(")) || stubs.contains(&format!("{name}:"));
        assert!(declared, "_native.{name} is called by the package but not declared in _native.pyi");
    }
}
