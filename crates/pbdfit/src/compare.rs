//! `pbdfit compare`: a study (by default the thesis's base and dt experiments) under named variants of
//! the setup, each scored against the thesis's claims (`fits/thesis-claims.toml`).

use std::path::{Path, PathBuf};

use pbdfit_claims::{Results, Score, comparison_markdown, evaluate, markdown_table};
use pbdfit_study::{Study, Variant};

use crate::cli::{BackendName, CliError, CliResult, fit_error};

/// The variants run when none are named: one atom at a time, and the mesh split combined with the
/// other candidates.
pub const DEFAULT_VARIANTS: &[&str] = &[
    "baseline",
    "opposite",
    "six",
    "corotational",
    "stvk",
    "neo-hookean",
    "dynamic-t1",
    "uniform",
    "load8",
    "f32",
    "opposite+corotational",
    "opposite+f32",
];

/// Arguments of `pbdfit compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The study to vary (default: fits/thesis.toml if present, else the built-in copy).
    #[arg(long)]
    study: Option<PathBuf>,
    /// The claims to score, predicates on results (default: fits/thesis-claims.toml if present, else the
    /// built-in copy).
    #[arg(long)]
    claims: Option<PathBuf>,
    /// Variants, comma separated; each is atoms joined by `+` (`--list` shows them). Default: the
    /// standard list (`--list`).
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// The study's experiments to run, comma separated.
    #[arg(long, value_delimiter = ',', default_values_t = ["base".to_string(), "dt".to_string()])]
    experiments: Vec<String>,
    /// Results folder; each variant's study goes to `<out>/<variant>/` (resumable), the comparison to
    /// `<out>/comparison.md`.
    #[arg(long, default_value = "fits/results/compare")]
    out: PathBuf,
    /// Use every k-th nu of the study (a quick, coarse comparison).
    #[arg(long, default_value_t = 1)]
    poisson_stride: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// List the variant atoms and the default variants, and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `pbdfit compare`.
pub fn run(args: CompareArgs) -> CliResult {
    if args.list {
        println!("variant atoms (combine with +):\n{}\n", Variant::known());
        println!("default variants: {}", DEFAULT_VARIANTS.join(", "));
        return Ok(());
    }
    // Everything is checked before any work: variants, claims, experiments, the output folder.
    crate::cli::check_output_folder("--out", &args.out)?;
    let names: Vec<String> =
        if args.variants.is_empty() { DEFAULT_VARIANTS.iter().map(|s| s.to_string()).collect() } else { args.variants };
    let variants: Vec<Variant> =
        names.iter().map(|n| Variant::parse(n)).collect::<Result<_, _>>().map_err(fit_error)?;
    let claims = crate::reproduce::thesis_claims(args.claims.as_deref())?;
    let mut study = crate::reproduce::thesis_study(args.study.as_deref())?;
    if args.poisson_stride == 0 {
        return Err(CliError::Input("--poisson-stride must be at least 1".into()));
    }
    if args.poisson_stride > 1 {
        let coarse = study.poisson.iter().step_by(args.poisson_stride).copied().collect();
        study = study.with_poisson(coarse);
    }
    for e in &args.experiments {
        if !study.experiments.iter().any(|x| &x.name == e) {
            let known: Vec<&str> = study.experiments.iter().map(|x| x.name.as_str()).collect();
            return Err(CliError::Input(format!(
                "--experiments: study {} has no experiment `{e}`; it has {}",
                study.origin,
                known.join(", ")
            )));
        }
    }
    // Identifiability stays on (about a fifth of the time): a claim whose fitted values' 1 % ranges
    // straddle its threshold is undecided, for the variants as for the thesis results.
    let studies: Vec<Study> = variants.iter().map(|v| v.apply(&study)).collect::<Result<_, _>>().map_err(fit_error)?;
    let only: Vec<String> = args.experiments.iter().map(|e| format!("*/{e}")).collect();
    let mut scored = Vec::new();
    for (variant, study) in variants.iter().zip(&studies) {
        let out = args.out.join(&variant.name);
        eprintln!("variant {}: results in {}", variant.name, out.display());
        let prepared = pbdfit_study::PreparedStudy {
            study: study.clone(),
            out: out.clone(),
            only: only.clone(),
            note: None,
            lockstep: None,
        };
        crate::cli::run_on::<pbdfit_jobs::StudyKeywords>((vec![prepared], args.jobs), false, BackendName::Cpu, None)?;
        let results = Results::open(&out).map_err(|e| CliError::Internal(e.to_string()))?;
        let verdicts = evaluate(&claims, &results);
        write(
            &out.join("claims.md"),
            &format!("# Claims under variant {}\n\n{}", variant.name, markdown_table(&verdicts)),
        )?;
        println!("variant {:28} {}", variant.name, Score::of(&verdicts));
        scored.push((variant.name.clone(), verdicts));
    }
    let table = comparison_markdown(&scored);
    // What each folder holds: earlier runs into the same folder may have added experiments, whose
    // claims then count too.
    let mut held = String::new();
    for (variant, study) in variants.iter().zip(&studies) {
        let dir = args.out.join(&variant.name);
        let present: Vec<&str> = study
            .experiments
            .iter()
            .filter(|e| study.scenes.iter().any(|s| dir.join(format!("{}-{}.csv", s.name(), e.name)).exists()))
            .map(|e| e.name.as_str())
            .collect();
        held += &format!("- `{}`: {}\n", variant.name, present.join(", "));
    }
    let text = format!(
        "# Variants of {} scored against {}\n\nThis run: experiments {}, nu stride {}. Experiments in each variant's \
         folder (all count):\n\n{held}\nEach variant's verdicts with our numbers: `<variant>/claims.md`.\n\n{table}",
        study.origin,
        claims.origin,
        args.experiments.join(", "),
        args.poisson_stride
    );
    write(&args.out.join("comparison.md"), &text)?;
    println!("\n{table}");
    println!("comparison written to {}", args.out.join("comparison.md").display());
    Ok(())
}

fn write(path: &Path, text: &str) -> CliResult {
    std::fs::write(path, text).map_err(|e| CliError::Internal(format!("cannot write {}: {e}", path.display())))
}
