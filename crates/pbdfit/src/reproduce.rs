//! `pbdfit reproduce`: the thesis study, every figure and the report, in one command.

use std::path::{Path, PathBuf};

use pbdfit_fit::{FitStatus, read_records};
use pbdfit_mesh::SceneSet;
use pbdfit_pbd::Model;
use pbdfit_pbd::{PbdSystem, RestOptions, SimParams};
use pbdfit_plot::{Naming, ReportContext, ScenePicture, auto_scale, render_study, write_report};
use pbdfit_study::Study;

use crate::cli::{CliError, CliResult};

/// The thesis study, built in so that `reproduce` works from any directory.
const THESIS_STUDY: &str = include_str!("../../../fits/thesis.toml");

/// Arguments of `pbdfit reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// A coarse nu grid (every 7th value: 0, 0.07, ..., 0.49), written to separate folders
    /// (`fits/results/thesis-quick`, `reports/thesis-quick`): the whole pipeline in about a minute.
    #[arg(long)]
    quick: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where the grid rest states are computed.
    #[arg(long, value_enum, default_value_t = crate::cli::BackendName::Cpu)]
    backend: crate::cli::BackendName,
    /// Study file (default: fits/thesis.toml if present, else the built-in copy).
    #[arg(long)]
    study: Option<PathBuf>,
    /// Results folder (default: fits/results/thesis, or thesis-quick with --quick).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Report folder (default: reports/thesis, or thesis-quick with --quick).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Results of `pbdfit compare` (one folder per variant) used to explain the claims that fail;
    /// skipped when the folder does not exist.
    #[arg(long, default_value = "fits/results/compare")]
    compare: PathBuf,
}

/// The thesis's claims, built in so that the report can be made from any directory.
const THESIS_CLAIMS: &str = include_str!("../../../fits/thesis-claims.toml");

/// The study at `path`, else fits/thesis.toml if present, else the built-in copy.
pub fn thesis_study(path: Option<&Path>) -> Result<Study, CliError> {
    let default_file = Path::new("fits/thesis.toml");
    match path {
        Some(p) => Study::from_file(p),
        None if default_file.exists() => Study::from_file(default_file),
        None => Study::parse(THESIS_STUDY, "built-in fits/thesis.toml"),
    }
    .map_err(crate::cli::fit_error)
}

/// The claims file at `path`, else fits/thesis-claims.toml if present, else the built-in copy.
pub fn thesis_claims(path: Option<&Path>) -> Result<pbdfit_claims::ClaimsFile, CliError> {
    let default_file = Path::new("fits/thesis-claims.toml");
    match path {
        Some(p) => pbdfit_claims::ClaimsFile::from_path(p),
        None if default_file.exists() => pbdfit_claims::ClaimsFile::from_path(default_file),
        None => pbdfit_claims::ClaimsFile::parse(THESIS_CLAIMS, "built-in fits/thesis-claims.toml"),
    }
    .map_err(|e| CliError::Input(e.to_string()))
}

/// The section "Comparison with the thesis" for the results in `results`, explained by the variants in
/// `compare` (in the default variant order, then any others by name), and the reproduction's score.
fn comparison(results: &Path, compare: &Path) -> Result<(String, pbdfit_claims::Score), CliError> {
    let claims = thesis_claims(None)?;
    let open = |dir: &Path| pbdfit_claims::Results::open(dir).map_err(|e| CliError::Internal(e.to_string()));
    let ours = pbdfit_claims::evaluate(&claims, &open(results)?);
    let mut names: Vec<String> = std::fs::read_dir(compare)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("summary.json").exists())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let rank = |n: &String| crate::compare::DEFAULT_VARIANTS.iter().position(|d| d == n).unwrap_or(usize::MAX);
    names.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    let mut variants = Vec::new();
    for name in names {
        let verdicts = pbdfit_claims::evaluate(&claims, &open(&compare.join(&name))?);
        variants.push((name, verdicts));
    }
    let mut section = pbdfit_claims::comparison_section(&ours, &variants);
    // Hand-written findings (what the variants show, with numbers) follow the generated table.
    let findings = Path::new("fits/thesis-findings.md");
    if let Ok(text) = std::fs::read_to_string(findings) {
        section += &format!("\n### What the variants show\n\n(From `{}`.)\n\n{}\n", findings.display(), text.trim());
    }
    Ok((section, pbdfit_claims::Score::of(&ours)))
}

/// Runs `pbdfit reproduce`: the study (resuming what exists), the figures, the report.
pub fn run(args: ReproduceArgs) -> CliResult {
    let mut study = thesis_study(args.study.as_deref())?;
    let suffix = if args.quick { "-quick" } else { "" };
    if args.quick {
        let coarse = study.poisson.iter().step_by(7).copied().collect();
        study = study.with_poisson(coarse);
    }
    let results = args.results.clone().unwrap_or_else(|| PathBuf::from(format!("fits/results/{}{suffix}", study.name)));
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("reports/{}{suffix}", study.name)));
    // The report's folder is written after the study: checked before it, so no run ends unreported.
    crate::cli::check_output_folder("--out", &out)?;
    eprintln!(
        "pbdfit reproduce: study {} ({} values of nu) -> {}",
        study.origin,
        study.poisson.len(),
        results.display()
    );
    let prepared =
        pbdfit_study::PreparedStudy { study, out: results.clone(), only: Vec::new(), note: None, lockstep: None };
    crate::cli::run_on::<pbdfit_jobs::StudyKeywords>((vec![prepared.clone()], args.jobs), false, args.backend, None)?;
    let study = prepared.study;

    let pictures = scene_pictures(&study, &results)?;
    let figures =
        render_study(&results, &out, Naming::Thesis, &pictures).map_err(|e| CliError::Internal(e.to_string()))?;
    let command = format!("pbdfit reproduce{}", if args.quick { " --quick" } else { "" });
    let nu = &study.poisson;
    let (section, score) = comparison(&results, &args.compare)?;
    let context = ReportContext {
        title: format!(
            "pbdfit: the figures of the thesis, and {} of its {} claims that hold{}",
            score.holds,
            score.total(),
            if args.quick { " (quick run)" } else { "" }
        ),
        sections: vec![section],
        results_dir: results.display().to_string(),
        notes: vec![
            format!(
                "Generated by `{command}` from the study `{}`: {} scenes, nu from {} to {} ({} values), \
                 model {}, grid {}x{} then compass search to a step of {:e}.",
                study.origin,
                study.scenes.len(),
                nu.first().copied().unwrap_or_default(),
                nu.last().copied().unwrap_or_default(),
                nu.len(),
                study.kind.name(),
                study.fit.resolution(),
                study.fit.resolution(),
                study.fit.min_step
            ),
            "The error is the mean squared relative displacement error over the vertices the FEM moves \
             (docs/method.md, section The error); for the compound scene Gravity, the Euclidean norm of the three \
             scenes' errors."
                .into(),
            format!(
                "**This is not a faithful reproduction.** The figures below are drawn with the setup \
                 docs/method.md describes (linear static FEM on the same mesh as PBD, lumped mass, f64), and of the \
                 thesis's {} claims (F1 to K2) {} hold, {} do not and {} are undecided (decided only by a margin \
                 smaller than the fits' 1 % ranges){}. The section Comparison with the thesis lists each claim \
                 with the thesis's statement, our numbers, the verdict, and what is known of the cause of each \
                 difference.",
                score.total(),
                score.holds,
                score.fails,
                score.undecided,
                if score.not_run + score.untestable > 0 {
                    format!(" ({} not tested)", score.not_run + score.untestable)
                } else {
                    String::new()
                }
            ),
        ],
    };
    let report = out.join("README.md");
    write_report(&figures, &report, &context).map_err(|e| CliError::Internal(e.to_string()))?;
    println!("drew {} of {} figures; report: {}", figures.drawn(), figures.figures.len(), report.display());
    Ok(())
}

/// Scene pictures (thesis 4.1, 4.11, 4.21): the N = 4 cube's initial state and rest state with the study's
/// model at the parameters fitted for nu = 0.3 in the N experiment (the middle of the default box when that
/// fit is not there).
fn scene_pictures(study: &Study, results: &Path) -> Result<Vec<ScenePicture>, CliError> {
    let n = 4;
    let mut pictures = Vec::new();
    for set in &study.scenes {
        if set.is_compound() {
            continue;
        }
        let (model, source) = fitted(study, results, set.name(), n, 0.3).unwrap_or_else(|| {
            let middle: Vec<f64> = study.fit.search_box.values(&vec![0.5; study.fit.search_box.dimensions()]);
            (study.kind.with(&middle).expect("box dimension"), "not fitted".into())
        });
        let basic = SceneSet::load(set.name()).map_err(|e| CliError::Input(e.to_string()))?;
        let body = basic.scenes()[0].body(n).map_err(|e| CliError::Input(e.to_string()))?;
        let system = PbdSystem::new(&body);
        let params = SimParams::new(study.base.dt, study.base.nit, model);
        let rest = system
            .rest_state(&params, &RestOptions::default(), None)
            .map_err(|e| CliError::Internal(format!("scene picture: {e}")))?;
        let initial: Vec<[f64; 3]> = body.mesh.vertices().iter().map(|p| [p.x, p.y, p.z]).collect();
        let rest_positions: Vec<[f64; 3]> = rest.positions.iter().map(|p| [p.x, p.y, p.z]).collect();
        let scale = auto_scale(&initial, &rest_positions);
        let values: Vec<String> = model.named_values().iter().map(|(n, v)| format!("{n} = {v:.3}")).collect();
        let title = pbdfit_results::SceneLayout { name: set.name().into(), parts: vec![] }.title();
        pictures.push(ScenePicture {
            scene: set.name().to_string(),
            title: format!("{title}: N = {n}, {} rest state, {} ({source})", model.name(), values.join(", ")),
            initial,
            rest: rest_positions,
            edges: body.mesh.edges(),
            held: body.held.clone(),
            scale,
        });
    }
    Ok(pictures)
}

/// The fitted parameters of `<scene>-n.csv` at resolution `n` and the nu nearest to `nu`.
fn fitted(study: &Study, results: &Path, scene: &str, n: usize, nu: f64) -> Option<(Model, String)> {
    let rows = read_records(&results.join(format!("{scene}-n.csv"))).ok()?;
    let row = rows
        .iter()
        .filter(|r| r.n == n && r.status == FitStatus::Ok)
        .min_by(|a, b| (a.poisson - nu).abs().total_cmp(&(b.poisson - nu).abs()))?;
    let values: Option<Vec<f64>> = study.kind.parameters().iter().map(|p| row.parameter(p.name)).collect();
    let model = study.kind.with(&values?).ok()?;
    Some((model, format!("fit at E = {:e} Pa, ν = {}", row.young, row.poisson)))
}
