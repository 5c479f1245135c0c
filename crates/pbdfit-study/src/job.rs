//! One study job: `pbdfit study`, Python's `pbdfit.study` and the Dask driver and its workers fill a
//! [`StudyKeywords`] (the command line's options under their Python names), checked here
//! ([`StudyKeywords::prepare`]: the file's studies with the options applied over them) and run by one
//! cancellable runner ([`PreparedStudy::run`] on a pool of [`on_threads`]), so a study means the same
//! fits whichever front end starts it. Python's copy had lost `--only`, `--poisson-stride`, the reference
//! options, `--precision` and `--search`, and refused a file with `models = [...]`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pbdfit_pbd::{Precision, RestStateBackend};
use pbdfit_results::StudySummary;
use serde::{Deserialize, Serialize};

use super::{Progress, RunOptions, Study, run_study};
use pbdfit_fit::{FitError, FitJobError, PartCache, Search, Spelling};
use pbdfit_mesh::ReferenceOptions;

/// A study run as the command line and Python ask it: `pbdfit study`'s options (clap) and Python's
/// keywords (serde), the doc comments their help.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct StudyKeywords {
    /// Study file (TOML), e.g. fits/thesis.toml.
    #[arg(value_name = "STUDY")]
    pub study: String,
    /// Only these parts: `scene`, `scene/experiment` or `*/experiment` (repeatable).
    #[arg(long)]
    pub only: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Results folder (default: `results/<study name>` next to the study file).
    #[arg(long)]
    pub out: Option<String>,
    /// Use every k-th value of the study's nu range (a quick, coarse run).
    #[arg(long, default_value = "1")]
    pub poisson_stride: Option<usize>,
    /// The FEM reference's options, over the study file's `[reference]`.
    #[serde(flatten)]
    #[command(flatten)]
    pub reference: ReferenceOptions,
    /// Arithmetic of the model's rest states, over the study file's `precision`: f64 or f32 (the
    /// reference library's own; PBD models only).
    #[arg(long, value_parser = ["f64", "f32"])]
    pub precision: Option<String>,
    /// The search, over the study file's `[fit] search`: `gradient` or `pattern`. Choosing another
    /// search than the file's also drops the file's `grid` (each search has its own default grid).
    #[arg(long, value_parser = |s: &str| Search::parse(s).map(|_| s.to_string()))]
    pub search: Option<String>,
    /// Run K fits at once in lockstep: each turn of their gradient searches hands its trial rest states
    /// to the backend as one shared batch (what a GPU needs to be busy; on the CPU only the schedule
    /// changes). The same rows as without.
    #[arg(long, value_name = "K")]
    pub lockstep: Option<usize>,
}

/// A study job: [`StudyKeywords`] under another name.
pub type StudyJob = StudyKeywords;

/// One study of a job, the options applied, with its results folder.
#[derive(Debug, Clone)]
pub struct PreparedStudy {
    /// The study.
    pub study: Study,
    /// Its results folder.
    pub out: PathBuf,
    /// The `only` filters.
    pub only: Vec<String>,
    /// A file with `models = [...]`: which model this is and where its results go, for the user.
    pub note: Option<String>,
    /// Fits at once in lockstep ([`RunOptions::lockstep`]).
    pub lockstep: Option<usize>,
}

impl StudyKeywords {
    /// Reads the study file and applies the options over each of its studies (one per model).
    pub fn prepare(&self, spelling: Spelling) -> Result<Vec<PreparedStudy>, FitJobError> {
        let text = super::file::read_study_file(Path::new(&self.study))?;
        self.prepare_text(&text, spelling)
    }

    /// [`Self::prepare`] on the study file's `text` (read before, as a Dask worker receives it); the file's
    /// path still names it in errors and places the default results folder.
    pub fn prepare_text(&self, text: &str, spelling: Spelling) -> Result<Vec<PreparedStudy>, FitJobError> {
        let input = FitJobError::Input;
        if self.jobs == Some(0) {
            return Err(input(format!("{} must be at least 1", spelling.name("jobs"))));
        }
        if self.lockstep == Some(0) {
            return Err(input(format!("{} must be at least 1", spelling.name("lockstep"))));
        }
        let stride = self.poisson_stride.unwrap_or(1);
        if stride == 0 {
            return Err(input(format!("{} must be at least 1", spelling.name("poisson_stride"))));
        }
        let precision = self
            .precision
            .as_deref()
            .map(|p| {
                Precision::parse(p)
                    .ok_or_else(|| input(format!("{}: `{p}` is neither f64 nor f32", spelling.name("precision"))))
            })
            .transpose()?;
        let search = self
            .search
            .as_deref()
            .map(Search::parse)
            .transpose()
            .map_err(|e| input(format!("{}: {e}", spelling.name("search"))))?;
        let path = Path::new(&self.study);
        let studies = Study::parse_all(text, &self.study)?;
        let mut prepared = Vec::new();
        for (i, mut study) in studies.into_iter().enumerate() {
            study.reference = pbdfit_fit::checked_reference(&self.reference.over(&study.reference))?;
            if let Some(p) = precision {
                study.precision = p;
            }
            if let Some(search) = search {
                study.fit.use_search(search);
            }
            if self.lockstep.is_some() && study.fit.search != Search::Gradient {
                return Err(input(format!(
                    "{}: study {} runs the {} search, which batches no trial rest states (lockstep is for the gradient search)",
                    spelling.name("lockstep"),
                    study.name,
                    study.fit.search.name()
                )));
            }
            study.check_reference()?;
            if stride > 1 {
                let coarse = study.poisson.iter().step_by(stride).copied().collect();
                study = study.with_poisson(coarse);
            }
            let mut out = self
                .out
                .as_ref()
                .map(PathBuf::from)
                .unwrap_or_else(|| path.parent().unwrap_or(Path::new(".")).join("results").join(&study.name));
            let mut note = None;
            if study.model_folder {
                out = out.join(study.kind.name());
                note = Some(format!("model {} ({}): results in {}", study.kind, i + 1, out.display()));
            }
            prepared.push(PreparedStudy { study, out, only: self.only.clone(), note, lockstep: self.lockstep });
        }
        Ok(prepared)
    }
}

impl PreparedStudy {
    /// Runs (or resumes) the study's fits on the current thread pool, then its motion pass where it has
    /// one (`[motion]`: [`Self::run_motion`]): `cancel`, when set by another thread or by `observer`, starts
    /// no further fit (those in flight are written; the run returns [`FitError::Interrupted`] and a later
    /// run resumes).
    pub fn run(
        &self,
        backend: &dyn RestStateBackend,
        cancel: Option<Arc<AtomicBool>>,
        observer: &(dyn Fn(&Progress) + Sync),
    ) -> Result<StudySummary, FitError> {
        let options = RunOptions { only: self.only.clone(), cancel: cancel.clone(), lockstep: self.lockstep };
        let summary = run_study(
            &self.study,
            &self.out,
            &options,
            backend,
            &PartCache::new(self.study.reference.clone()),
            observer,
        )?;
        self.run_motion(cancel.as_deref(), observer)?;
        Ok(summary)
    }
}

/// Runs `work` on a pool of `jobs` worker threads (default: one per core), giving it the pool's size: the
/// pool every front end runs its studies and tables on.
pub fn on_threads<T: Send>(jobs: Option<usize>, work: impl FnOnce(usize) -> T + Send) -> Result<T, FitError> {
    if jobs == Some(0) {
        return Err(FitError::Internal("a pool of 0 worker threads (the front ends refuse jobs = 0)".into()));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| FitError::Internal(format!("thread pool: {e}")))?;
    Ok(pool.install(|| work(rayon::current_num_threads())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_apply_over_the_file_and_bad_ones_are_refused_by_name() {
        let text = std::fs::read_to_string("../../fits/thesis.toml").expect("the thesis study");
        let job = StudyKeywords {
            study: "../../fits/thesis.toml".into(),
            poisson_stride: Some(3),
            precision: Some("f32".into()),
            search: Some("gradient".into()),
            ..Default::default()
        };
        let plain =
            StudyKeywords { study: job.study.clone(), ..Default::default() }.prepare_text(&text, Spelling::Flag);
        let plain = &plain.expect("the thesis study")[0];
        let prepared = &job.prepare_text(&text, Spelling::Flag).expect("the options")[0];
        let every_third: Vec<f64> = plain.study.poisson.iter().step_by(3).copied().collect();
        assert_eq!(prepared.study.poisson, every_third);
        assert_eq!(prepared.study.precision, Precision::F32);
        assert_eq!(prepared.study.fit.search, Search::Gradient);
        assert_eq!(prepared.out, Path::new("../../fits/results").join(&plain.study.name));
        let refused = |job: StudyKeywords, spelling| match job.prepare_text(&text, spelling) {
            Err(FitJobError::Input(message)) => message,
            other => panic!("refused expected, got {other:?}"),
        };
        let zero = StudyKeywords { poisson_stride: Some(0), ..job.clone() };
        assert_eq!(refused(zero.clone(), Spelling::Flag), "--poisson-stride must be at least 1");
        assert_eq!(refused(zero, Spelling::Keyword), "poisson_stride must be at least 1");
        let f16 = StudyKeywords { precision: Some("f16".into()), ..job.clone() };
        assert!(refused(f16, Spelling::Keyword).starts_with("precision: `f16`"));
        let lockstep = StudyKeywords { lockstep: Some(8), ..job.clone() };
        assert_eq!(lockstep.prepare_text(&text, Spelling::Flag).expect("lockstep")[0].lockstep, Some(8));
        let zero = StudyKeywords { lockstep: Some(0), ..job.clone() };
        assert_eq!(refused(zero, Spelling::Flag), "--lockstep must be at least 1");
        // The thesis's own search is the pattern search, which has no trial batches.
        let pattern = StudyKeywords { lockstep: Some(8), search: None, ..job.clone() };
        assert!(refused(pattern, Spelling::Keyword).starts_with("lockstep: study thesis runs the pattern search"));
        let material = StudyKeywords {
            reference: ReferenceOptions { material: Some("rubber".into()), ..Default::default() },
            ..job
        };
        assert!(refused(material, Spelling::Flag).starts_with("the reference options:"));
    }
}
