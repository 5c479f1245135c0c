//! Renders a results folder and its report without the rest of pbdfit:
//! `cargo run -p pbdfit-plot --example render -- RESULTS_DIR OUT_DIR [generic|thesis]`.

use std::path::PathBuf;

use pbdfit_plot::{Naming, ReportContext, render_study, write_report};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [results, out, rest @ ..] = args.as_slice() else {
        return Err("usage: render RESULTS_DIR OUT_DIR [generic|thesis]".into());
    };
    let naming = match rest.first().map(String::as_str) {
        None | Some("generic") => Naming::Generic,
        Some("thesis") => Naming::Thesis,
        Some(other) => return Err(format!("naming `{other}`: expected generic or thesis").into()),
    };
    let (results, out) = (PathBuf::from(results), PathBuf::from(out));
    let study = render_study(&results, &out, naming, &[])?;
    write_report(&study, &out.join("README.md"), &ReportContext::default())?;
    println!("drew {} of {} figures into {}", study.drawn(), study.figures.len(), out.display());
    for (f, reason) in study.missing() {
        println!("  missing {}: {reason}", f.label());
    }
    Ok(())
}
