//! One table job: `pbdfit table`, Python's `pbdfit.table` and the Dask driver and its workers fill a
//! [`TableKeywords`] (the command line's options under their Python names), checked here
//! ([`TableKeywords::prepare`]) and built by one cancellable runner ([`PreparedTable::run`], on the study
//! runner's pool [`pbdfit_study::on_threads`]). Python's copy had no `--search` and no `--partial`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pbdfit_fit::{PartCache, Search, Spelling};
use pbdfit_pbd::RestStateBackend;
use pbdfit_study::{Progress, RunOptions};
use serde::{Deserialize, Serialize};

use crate::{BuildSummary, TableDef, TableError, build, build_partial};

/// A table build as the command line and Python ask it: `pbdfit table`'s options (clap) and Python's
/// keywords (serde), the doc comments their help.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct TableKeywords {
    /// Table definition file (TOML), e.g. fits/tables/pbd.toml.
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Table folder (default: `<name>/` next to the definition file).
    #[arg(long)]
    pub out: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, visible_alias = "threads")]
    pub jobs: Option<usize>,
    /// The search, over the table file's `[fit] search`: `gradient` or `pattern`. Choosing another
    /// search than the file's also drops the file's `grid` (each search has its own default grid).
    #[arg(long, value_parser = |s: &str| Search::parse(s).map(|_| s.to_string()))]
    pub search: Option<String>,
    /// Fit nothing: write table.csv and table.json from the fits already finished in the table folder (an
    /// interrupted or time-limited build), the nodes without a fit marked `missing`. A lookup whose cell
    /// needs a missing node names it; running `pbdfit table` again (without --partial) fits only those.
    #[arg(long)]
    pub partial: bool,
    /// Run K fits at once in lockstep: each turn of their gradient searches hands its trial rest states
    /// to the backend as one shared batch (what a GPU needs to be busy; on the CPU only the schedule
    /// changes). The same table as without.
    #[arg(long, value_name = "K")]
    pub lockstep: Option<usize>,
}

/// A table job: [`TableKeywords`] under another name.
pub type TableJob = TableKeywords;

/// A table job checked: the definition with the options applied, and its folder.
#[derive(Debug, Clone)]
pub struct PreparedTable {
    /// The definition.
    pub def: TableDef,
    /// The table folder.
    pub out: PathBuf,
    /// Fit nothing (see [`TableKeywords::partial`]).
    pub partial: bool,
    /// Fits at once in lockstep ([`RunOptions::lockstep`]).
    pub lockstep: Option<usize>,
}

impl TableKeywords {
    /// Reads the definition file and applies the options.
    pub fn prepare(&self, spelling: Spelling) -> Result<PreparedTable, TableError> {
        let def = TableDef::from_file(Path::new(&self.file))?;
        self.prepare_def(def, spelling)
    }

    /// [`Self::prepare`] on the definition file's `text` (read before, as a Dask worker receives it).
    pub fn prepare_text(&self, text: &str, spelling: Spelling) -> Result<PreparedTable, TableError> {
        self.prepare_def(TableDef::parse(text, &self.file)?, spelling)
    }

    fn prepare_def(&self, mut def: TableDef, spelling: Spelling) -> Result<PreparedTable, TableError> {
        if self.jobs == Some(0) {
            return Err(TableError::Option { option: spelling.name("jobs"), message: "must be at least 1".into() });
        }
        if let Some(search) = &self.search {
            let search = Search::parse(search)
                .map_err(|e| TableError::Option { option: spelling.name("search"), message: e.to_string() })?;
            def.study.fit.use_search(search);
        }
        if self.lockstep == Some(0) {
            return Err(TableError::Option { option: spelling.name("lockstep"), message: "must be at least 1".into() });
        }
        if self.lockstep.is_some() && def.study.fit.search != Search::Gradient {
            return Err(TableError::Option {
                option: spelling.name("lockstep"),
                message: format!(
                    "table {} runs the {} search, which batches no trial rest states (lockstep is for the gradient search)",
                    def.name,
                    def.study.fit.search.name()
                ),
            });
        }
        let out = self
            .out
            .as_ref()
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(&self.file).parent().unwrap_or(Path::new(".")).join(&def.name));
        Ok(PreparedTable { def, out, partial: self.partial, lockstep: self.lockstep })
    }
}

impl PreparedTable {
    /// Builds (or resumes) the table on the current thread pool; `cancel`, when set by another thread or by
    /// `observer`, starts no further fit (those in flight are written, a later build resumes).
    pub fn run(
        &self,
        backend: &dyn RestStateBackend,
        cancel: Option<Arc<AtomicBool>>,
        observer: &(dyn Fn(&Progress) + Sync),
    ) -> Result<BuildSummary, TableError> {
        let options = RunOptions { cancel, lockstep: self.lockstep, ..RunOptions::default() };
        let cache = PartCache::new(self.def.study.reference.clone());
        if self.partial {
            build_partial(&self.def, &self.out, &options, &cache, observer)
        } else {
            build(&self.def, &self.out, &options, backend, &cache, observer)
        }
    }

    /// The largest resolution the table's nodes meet (the rest-state backend is chosen for it).
    pub fn largest_n(&self) -> usize {
        self.def.axes.n.iter().fold(1.0f64, |a, &b| a.max(b)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_applies_over_the_file_and_a_bad_one_is_refused_by_name() {
        let job = TableKeywords {
            file: "../../fits/tables/pbd.toml".into(),
            search: Some("pattern".into()),
            ..Default::default()
        };
        let prepared = job.prepare(Spelling::Flag).expect("the shipped table");
        assert_eq!(prepared.def.study.fit.search, Search::Pattern);
        assert_eq!(prepared.out, Path::new("../../fits/tables").join(&prepared.def.name));
        let refused = |job: &TableKeywords| job.prepare(Spelling::Flag).expect_err("refused").to_string();
        let lockstep = TableKeywords { lockstep: Some(4), ..job.clone() };
        assert!(
            refused(&lockstep).starts_with("--lockstep: table pbd runs the pattern search"),
            "{}",
            refused(&lockstep)
        );
        let gradient = TableKeywords { search: Some("gradient".into()), ..lockstep };
        assert_eq!(gradient.prepare(Spelling::Flag).expect("the gradient search").lockstep, Some(4));
        let bad = TableKeywords { search: Some("newton".into()), ..job };
        for (spelling, name) in [(Spelling::Flag, "--search: "), (Spelling::Keyword, "search: ")] {
            let message = bad.prepare(spelling).expect_err("refused").to_string();
            assert!(message.starts_with(name), "{message}");
        }
    }
}
