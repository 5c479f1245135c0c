//! Studies and stiffness tables as jobs: `pbdfit study` / `pbdfit.study` ([`StudyKeywords`], pbdfit-study's
//! one runner) and `pbdfit table` / `pbdfit.table` ([`TableKeywords`], pbdfit-table's). Each runs its fits
//! on a pool of the keywords' `jobs` threads, on the backend the front end chooses for its largest body
//! ([`Context::choose`]), telling its fits to [`Context::fits`] and stopping on [`Context::cancel`]; its report
//! is one summary per study (a file with `models = [...]` has one per model), or the table build's.

use serde::Serialize;

use pbdfit_fit::{FitJobError, Spelling};
use pbdfit_study::{PreparedStudy, Progress, Study, StudyKeywords, on_threads};
use pbdfit_table::{LooSummary, PreparedTable, TableError, TableKeywords};

use crate::{Context, Job, Report};

/// The backend for `study`'s fits at resolution `largest` (the largest they meet): chosen for that body
/// and a grid sweep of rest states.
fn backend(
    study: &Study,
    largest: usize,
    context: &Context<'_>,
) -> Result<Box<dyn pbdfit_pbd::RestStateBackend>, FitJobError> {
    if study.is_sheet() {
        // A sheet study's fits run `pbdfit fit`'s path on the CPU (pbdfit-study's `fit_one`).
        return Ok(Box::new(pbdfit_pbd::CpuBackend));
    }
    let body = study.scenes[0].scenes()[0].body(largest).map_err(|e| FitJobError::Input(e.to_string()))?;
    let grid = study.fit.resolution().pow(study.fit.search_box.dimensions() as u32);
    Ok((context.choose)(&pbdfit_pbd::PbdSystem::new(&body), grid))
}

/// One study's run: its summary as Python's `pbdfit.study` returns it.
#[derive(Debug, Clone, Serialize)]
pub struct StudyRun {
    /// The study's name.
    pub name: String,
    /// What the run did (`fits`, `computed`, `resumed`, `failed`, `at_bound`, `seconds`, `threads`), as
    /// `summary.json` says.
    #[serde(flatten)]
    pub run: pbdfit_results::RunCounts,
    /// The results files.
    pub files: Vec<String>,
    /// The results folder.
    pub out: String,
    /// The release test's file, where the study has a `[motion]` pass (the text's line).
    #[serde(skip)]
    pub motion: Option<String>,
}

impl StudyRun {
    /// The run of a study into `out` that `summary` sums up, with its release test's file.
    pub fn new(s: pbdfit_results::StudySummary, out: &std::path::Path, motion: Option<String>) -> Self {
        Self { name: s.layout.name, run: s.run, files: s.files, out: out.display().to_string(), motion }
    }
}

/// A study job's report: one [`StudyRun`] per study of the file.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct StudyReport {
    /// The studies' runs, in the file's order.
    pub studies: Vec<StudyRun>,
}

impl Job for StudyKeywords {
    const NAME: &'static str = "study";
    const ABOUT: &'static str =
        "Run or resume a study file (a matrix of fits), writing one CSV per scene and experiment";
    const EXAMPLE: &'static [&'static str] = &["{study}", "--out", "{out}", "--jobs", "1"];
    type Prepared = (Vec<PreparedStudy>, Option<usize>);
    type Report = StudyReport;

    fn prepare(&self, spelling: Spelling) -> Result<Self::Prepared, FitJobError> {
        Ok((StudyKeywords::prepare(self, spelling)?, self.jobs))
    }

    fn run((prepared, jobs): Self::Prepared, context: &mut Context<'_>) -> Result<StudyReport, FitJobError> {
        let mut studies = Vec::new();
        for p in prepared {
            if let Some(note) = &p.note {
                // A notice, which every front end shows (Python's `progress=False` too).
                (context.fits)(&Progress { done: 0, total: 0, resumed: 0, message: note.clone(), notice: true });
            }
            if let Some(warning) = p.study.mass_warning() {
                (context.lines)(&format!("warning: {warning}"));
            }
            let largest = p.study.base_and_experiment_resolutions().into_iter().max().unwrap_or(1);
            let backend = backend(&p.study, largest, context)?;
            let (cancel, fits) = (context.cancel.clone(), context.fits);
            let s = on_threads(jobs, |_| p.run(backend.as_ref(), cancel, fits))??;
            let motion = p.study.motion.as_ref().map(|_| p.motion_file().display().to_string());
            studies.push(StudyRun::new(s, &p.out, motion));
        }
        Ok(StudyReport { studies })
    }
}

impl Report for StudyReport {
    fn text(&self) -> String {
        let mut text = String::new();
        for study in &self.studies {
            let (s, name, out) = (&study.run, &study.name, &study.out);
            text += &format!(
                "study {}: {} fits ({} computed now, {} resumed, {} failed, {} at the edge of the box) in {:.1} s on {} threads; results in {}\n",
                name, s.fits, s.computed, s.resumed, s.failed, s.at_bound, s.seconds, s.threads, out
            );
            if let Some(motion) = &study.motion {
                text += &format!("  motion: the release test at every fit in {motion}\n");
            }
            if s.at_bound > 0 || s.failed > 0 {
                // Whether those counts are normal ("214 at the edge of the box" with no word).
                text += "  a fit at the edge of the box is kept with its parameter on the bound (the CSVs' at_bound column): \
                         usual where the material lies beyond what the model reaches at a dt and nit; a failed fit has no point \
                         with a rest state (its reason is in the CSV's status)\n";
            }
        }
        text
    }
}

/// A table job's report: the build's summary as Python's `pbdfit.table` returns it, and for the text its
/// leave-one-out statistics.
#[derive(Debug, Clone, Serialize)]
pub struct TableReport {
    /// The table's name.
    pub name: String,
    /// Nodes of the table.
    pub nodes: usize,
    /// Fits computed in this run.
    pub computed: usize,
    /// Fits found finished from an earlier run.
    pub resumed: usize,
    /// Nodes whose fit failed.
    pub failed: usize,
    /// Nodes with a parameter on the box's bound.
    pub at_bound: usize,
    /// Leave-one-out predictions simulated.
    pub simulated: usize,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The table folder.
    pub out: String,
    /// Nodes without a fit (a part-built table).
    #[serde(skip)]
    pub missing: usize,
    /// The definition file (the command that fits the missing nodes).
    #[serde(skip)]
    pub file: String,
    /// The leave-one-out statistics (`table.json`'s).
    #[serde(skip)]
    pub leave_one_out: LooSummary,
}

/// A table's error as a job's: the user's, a fit's, or the machine's.
fn table_error(e: TableError) -> FitJobError {
    match e {
        TableError::Fit(e) => FitJobError::Fit(e),
        e if e.is_input() => FitJobError::Input(e.to_string()),
        e => FitJobError::Internal(e.to_string()),
    }
}

impl Job for TableKeywords {
    const NAME: &'static str = "table";
    const ABOUT: &'static str =
        "Build (or resume) a stiffness table: fits over a grid of (E, nu, dt, nit, N), with leave-one-out";
    const EXAMPLE: &'static [&'static str] = &["{table}", "--out", "{out}", "--jobs", "1"];
    type Prepared = (PreparedTable, TableKeywords);
    type Report = TableReport;

    fn prepare(&self, spelling: Spelling) -> Result<Self::Prepared, FitJobError> {
        Ok((TableKeywords::prepare(self, spelling).map_err(table_error)?, self.clone()))
    }

    fn run((prepared, job): Self::Prepared, context: &mut Context<'_>) -> Result<TableReport, FitJobError> {
        if let Some(warning) = prepared.def.study.mass_warning() {
            (context.lines)(&format!("warning: {warning}"));
        }
        let backend = backend(&prepared.def.study, prepared.largest_n(), context)?;
        let (cancel, fits) = (context.cancel.clone(), context.fits);
        let s = on_threads(job.jobs, |_| prepared.run(backend.as_ref(), cancel, fits))?.map_err(table_error)?;
        Ok(TableReport::new(s, &prepared.out, job.file))
    }
}

impl TableReport {
    /// The report of a build into `out` that `s` sums up, from the definition `file`.
    pub fn new(s: pbdfit_table::BuildSummary, out: &std::path::Path, file: String) -> Self {
        let m = s.table.meta;
        Self {
            name: m.name,
            nodes: m.nodes,
            computed: s.computed,
            resumed: s.resumed,
            failed: m.failed,
            at_bound: m.at_bound,
            simulated: s.simulated,
            seconds: s.seconds,
            threads: s.threads,
            out: out.display().to_string(),
            missing: m.missing,
            file,
            leave_one_out: m.leave_one_out,
        }
    }
}

impl Report for TableReport {
    fn text(&self) -> String {
        let loo = &self.leave_one_out;
        let missing = if self.missing > 0 {
            format!(", {} MISSING (part-built: `pbdfit table {}` fits them)", self.missing, self.file)
        } else {
            String::new()
        };
        let mut text = format!(
            "table {}: {} nodes ({} fitted now, {} resumed, {} failed{missing}, {} at the edge of the box), {} \
             leave-one-out predictions simulated, in {:.1} s on {} threads; written to {}\n",
            self.name,
            self.nodes,
            self.computed,
            self.resumed,
            self.failed,
            self.at_bound,
            self.simulated,
            self.seconds,
            self.threads,
            self.out
        );
        let fmt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3e}"));
        for p in &loo.parameters {
            text += &format!(
                "  leave-one-out {}: |predicted - fitted| median {}, 90th percentile {}, max {} (search coordinates)\n",
                p.name,
                fmt(p.stats.median),
                fmt(p.stats.p90),
                fmt(p.stats.max)
            );
        }
        text += &format!(
            "  leave-one-out error increase when simulated: median {}, 90th percentile {}, max {} ({} nodes)\n",
            fmt(loo.error_increase.median),
            fmt(loo.error_increase.p90),
            fmt(loo.error_increase.max),
            loo.nodes
        );
        text
    }
}
