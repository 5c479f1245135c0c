//! Building a table: every node's fit through the study runner, leave-one-out, the table files.

use std::path::Path;
use std::time::Instant;

use pbdfit_fit::{FitError, FitStatus, PartCache};
use pbdfit_pbd::RestStateBackend;
use pbdfit_results::{Scale, StudySummary};
use pbdfit_study::{Configuration, LockedFolder, Plan, Progress, RunOptions, run_plan_in, store};
use rayon::prelude::*;

use crate::axes::{DIMS, flat};
use crate::format::{LooStats, LooSummary, Node, NodeLoo, NodeStatus, Stats, Table, TableMeta};
use crate::{TableDef, TableError};

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildSummary {
    /// The table written.
    pub table: Table,
    /// Fits computed in this run.
    pub computed: usize,
    /// Fits found finished from an earlier run.
    pub resumed: usize,
    /// Leave-one-out predictions simulated.
    pub simulated: usize,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
}

/// The configurations (E, dt, N, nit) of a table's nodes, each fitted at every nu of the table.
pub fn node_configurations(def: &TableDef) -> Vec<Configuration> {
    let a = &def.axes;
    let mut out = Vec::new();
    for &young in &a.young {
        for &dt in &a.dt {
            for &nit in &a.nit {
                for &n in &a.n {
                    out.push(Configuration { dt, n: n as usize, nit: nit as usize, young, thickness: None });
                }
            }
        }
    }
    out
}

/// Builds (or resumes) a table into `out_dir`.
///
/// The fits are those of a study ([`TableDef::study`]) planned at the table's nodes
/// ([`Plan::from_configurations`]) and run by [`run_plan_in`] in the folder locked for the whole build: grid rest states once per (dt, N, nit) and
/// shared by every (E, nu), fits in parallel on rayon's current pool, each appended to
/// `<scene>-table.csv` as it finishes (a rerun skips finished nodes), the file sorted when all are done
/// and `summary.json` written. Then every interior node is predicted from its neighbours (leave-one-out)
/// and the prediction simulated, and `table.csv` and `table.json` are written (atomically). The table's
/// files depend on the fits' results alone (not on their timing, which stays in the fits' CSV and
/// `summary.json`), so a resumed or re-threaded build writes the same bytes.
pub fn build(
    def: &TableDef,
    out_dir: &Path,
    options: &RunOptions,
    backend: &dyn RestStateBackend,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<BuildSummary, TableError> {
    let start = Instant::now();
    let plan = node_plan(def, out_dir);
    // Locked for the whole build, table.csv and table.json included: a second build into the folder is
    // refused until this one has written them.
    let folder = LockedFolder::lock(out_dir)?;
    let run = run_plan_in(&def.study, &plan, &folder, options, backend, cache, observer)?;
    complete(def, &plan, &folder, &run, options, cache, observer, start)
}

/// Writes a part-built table (`pbdfit table --partial`): `table.csv` and `table.json` from the fits
/// already finished in `out_dir` (by an interrupted or time-limited build, or a build of a slice of the
/// axes into the same folder), fitting nothing. The nodes without a fit get status
/// [`NodeStatus::Missing`] (NaN parameters and error) and `table.json` counts them; leave-one-out runs
/// on the fitted nodes as in a full build, a missing neighbour treated as a failed one. A lookup whose
/// cell needs a missing node names it ([`TableError::MissingNodes`]); a later [`build`] into the same
/// folder fits only the missing nodes and writes the complete table.
pub fn build_partial(
    def: &TableDef,
    out_dir: &Path,
    options: &RunOptions,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
) -> Result<BuildSummary, TableError> {
    let start = Instant::now();
    let plan = node_plan(def, out_dir);
    let folder = LockedFolder::lock(out_dir)?;
    // The rows a resumed build would trust (a row with status ok and a NaN or a parameter the study's
    // fits cannot give, or rows of one node that disagree, are taken out and their nodes left missing), as the full build's resume does.
    let (rows, note) = store::load_resumable(&plan.files[0], &|r| def.study.finished_row(r))?;
    if let Some(note) = note {
        observer(&Progress { done: 0, total: 0, resumed: 0, message: note, notice: true });
    }
    if rows.is_empty() {
        return Err(TableError::Format {
            origin: out_dir.display().to_string(),
            message: format!(
                "no finished fits in {} to write a part-built table from; run `pbdfit table` first",
                plan.files[0].display()
            ),
        });
    }
    let reference = pbdfit_fit::reference_id(&def.study.scenes[0], cache.overrides());
    let run = StudySummary {
        layout: def.study.layout(&reference),
        pbdfit_version: env!("CARGO_PKG_VERSION").into(),
        run: pbdfit_results::RunCounts {
            fits: rows.len(),
            computed: 0,
            resumed: rows.len(),
            failed: rows.iter().filter(|r| r.status != FitStatus::Ok).count(),
            at_bound: rows.iter().filter(|r| !r.at_bound.is_empty()).count(),
            seconds: 0.0,
            threads: rayon::current_num_threads(),
        },
        backend: "none (part-built table: no fits run)".into(),
        files: Vec::new(),
    };
    finish(def, &plan, &folder, &run, options, cache, observer, start, true)
}

/// The plan of a table's fits: every node's (E, dt, N, nit) at every nu, into `<scene>-table.csv`.
pub fn node_plan(def: &TableDef, out_dir: &Path) -> Plan {
    Plan::from_configurations(&def.study, out_dir, "table", &node_configurations(def))
}

/// What a build does after its fits ([`node_plan`], all written and `summary.json` written as `run`):
/// reads the rows back, leave-one-out, `table.csv` and `table.json`. A distributed build (Python's
/// `pbdfit.table(..., client=...)`) calls it after the fits the cluster ran, so it writes the same files.
/// `start` is when the build began (for its seconds).
pub fn complete(
    def: &TableDef,
    plan: &Plan,
    folder: &LockedFolder,
    run: &StudySummary,
    options: &RunOptions,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
    start: Instant,
) -> Result<BuildSummary, TableError> {
    finish(def, plan, folder, run, options, cache, observer, start, false)
}

/// [`complete`], or with `partial` the nodes without a fit written as missing.
#[allow(clippy::too_many_arguments)]
fn finish(
    def: &TableDef,
    plan: &Plan,
    folder: &LockedFolder,
    run: &StudySummary,
    options: &RunOptions,
    cache: &PartCache,
    observer: &(dyn Fn(&Progress) + Sync),
    start: Instant,
    partial: bool,
) -> Result<BuildSummary, TableError> {
    let study = &def.study;
    let out_dir = folder.path();
    let rows = store::load_rows(&plan.files[0])?;
    let kind = study.kind;
    let axes = &def.axes;
    let shape = axes.shape();
    let names: Vec<&str> = kind.parameters().iter().map(|p| p.name).collect();
    let mut nodes: Vec<Option<Node>> = vec![None; axes.nodes()];
    for r in &rows {
        let settings = [r.young, r.poisson, r.dt, r.nit as f64, r.n as f64];
        let Some(index) = axes.index_of(&settings) else { continue };
        let slot = &mut nodes[flat(&shape, &index)];
        if slot.is_some() {
            // `load_resumable` and the sort keep one row per fit: a second one is not to be trusted.
            return Err(TableError::Format {
                origin: plan.files[0].display().to_string(),
                message: format!(
                    "two rows for the node E = {}, nu = {}, dt = {}, nit = {}, N = {}: remove one and run the \
                     build again",
                    r.young, r.poisson, r.dt, r.nit, r.n
                ),
            });
        }
        let parameters: Vec<f64> = names.iter().map(|n| r.parameter(n).unwrap_or(f64::NAN)).collect();
        // A fit is a table node only with a finite error and parameters (an `ok` row without them is a
        // failed node, never a NaN in table.csv).
        let ok = r.status == FitStatus::Ok && r.error.is_finite() && parameters.iter().all(|v| v.is_finite());
        *slot = Some(Node {
            young: r.young,
            poisson: r.poisson,
            dt: r.dt,
            nit: r.nit,
            n: r.n,
            parameters,
            error: r.error,
            at_bound: names.iter().map(|n| r.at_bound.iter().any(|b| b == n)).collect(),
            status: if ok { NodeStatus::Ok } else { NodeStatus::Failed },
            loo: None,
        });
    }
    let missing = nodes.iter().filter(|n| n.is_none()).count();
    if missing > 0 && !partial {
        return Err(FitError::Internal(format!("{missing} table nodes have no fit after the run")).into());
    }
    let mut nodes: Vec<Node> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            n.unwrap_or_else(|| {
                let s = axes.at(&crate::axes::unflat(&shape, i));
                Node {
                    young: s[0],
                    poisson: s[1],
                    dt: s[2],
                    nit: s[3] as usize,
                    n: s[4] as usize,
                    parameters: vec![f64::NAN; names.len()],
                    error: f64::NAN,
                    at_bound: vec![false; names.len()],
                    status: NodeStatus::Missing,
                    loo: None,
                }
            })
        })
        .collect();

    // The parameters (names, units, scales, box) and scene parts as the study's summary.json has them.
    let set = &study.scenes[0];
    let reference = pbdfit_fit::reference_id(set, cache.overrides());
    let layout = study.layout(&reference);
    // Leave-one-out in the interpolation coordinates (deviations in search coordinates).
    let scales: Vec<Scale> = layout.parameters.iter().map(|p| p.scale).collect();
    let values: Vec<Vec<f64>> =
        nodes.iter().map(|n| n.parameters.iter().map(|v| if n.is_ok() { *v } else { f64::NAN }).collect()).collect();
    let predictions = crate::loo::predictions(&axes.coordinates(), &values, &scales);
    observer(&Progress {
        done: run.run.fits,
        total: run.run.fits,
        resumed: run.run.resumed,
        message: format!("leave-one-out: simulating {} predictions of interior nodes", predictions.len()),
        notice: false,
    });
    let errors: Vec<Result<f64, FitError>> = predictions
        .par_iter()
        .map(|p| {
            if options.cancelled() {
                return Err(FitError::Interrupted { done: 0, total: 0 });
            }
            let node = &nodes[p.node];
            let c = Configuration { dt: node.dt, n: node.n, nit: node.nit, young: node.young, thickness: None };
            Ok(study.problem(set, &c, node.poisson, cache)?.evaluate(&p.values, None).error)
        })
        .collect();
    let errors: Vec<f64> = errors.into_iter().collect::<Result<_, _>>()?;
    for (p, e) in predictions.iter().zip(&errors) {
        let fitted = nodes[p.node].error;
        let loo = nodes[p.node].loo.get_or_insert_with(|| NodeLoo {
            axes: Vec::new(),
            deviation: vec![0.0; names.len()],
            error: f64::NEG_INFINITY,
            increase: f64::NEG_INFINITY,
        });
        loo.axes.push(DIMS[p.axis]);
        for (d, x) in loo.deviation.iter_mut().zip(&p.deviation) {
            *d = d.max(x.abs());
        }
        loo.error = loo.error.max(*e);
        loo.increase = loo.increase.max(e - fitted);
    }
    let with_loo: Vec<(&Node, &NodeLoo)> = nodes.iter().filter_map(|n| n.loo.as_ref().map(|l| (n, l))).collect();
    let leave_one_out = LooSummary {
        method: "each node with a neighbour on both sides along an axis is predicted by linear interpolation \
                 between those two neighbours (the node dropped), along each such axis, in the interpolation \
                 coordinates as lookup: the axis's coordinate (log10 E, nu, log10 dt, log2 nit, log2 N) and per \
                 parameter log10 of the value where both neighbours' values are > 0, else the search coordinate \
                 (the value for kd, kv); the prediction is compared with the node's fitted parameters in search \
                 coordinates (the value, log10 for compliances) and simulated (one rest state per scene, cold \
                 start) for the error it gives; per node the worst over its axes, statistics over the nodes"
            .into(),
        nodes: with_loo.len(),
        predictions: predictions.len(),
        parameters: names
            .iter()
            .enumerate()
            .map(|(i, n)| LooStats {
                name: n.to_string(),
                stats: Stats::of(&with_loo.iter().map(|(_, l)| l.deviation[i]).collect::<Vec<_>>()),
            })
            .collect(),
        error_increase: Stats::of(&with_loo.iter().map(|(_, l)| l.increase).collect::<Vec<_>>()),
        relative_error_increase: Stats::of(&with_loo.iter().map(|(n, l)| l.increase / n.error).collect::<Vec<_>>()),
    };
    let meta = TableMeta {
        name: def.name.clone(),
        description: def.description.clone(),
        definition: Path::new(&def.origin).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        model: kind.spec(),
        parameters: layout.parameters,
        scene: layout.scenes[0].name.clone(),
        parts: layout.scenes[0].parts.clone(),
        reference,
        mass_model: set.scenes().first().map(|s| s.mass_model().name().to_string()).unwrap_or_default(),
        search: (study.fit.search != pbdfit_fit::Search::Pattern).then(|| study.fit.search.name().to_string()),
        grid: study.fit.resolution(),
        min_step: study.fit.min_step,
        axes: axes.clone(),
        interpolation: "multilinear on the cell containing the query in (log10 E, nu, log10 dt, log2 nit, log2 N); \
                        each parameter in log10 of its value where the values at all the cell's corners with a \
                        non-zero weight are > 0 (exact for power laws in E), else in its search coordinate (the \
                        value for kd, kv; compliances are always > 0, so always log10); at a node the node's value"
            .into(),
        nodes: nodes.len(),
        failed: nodes.iter().filter(|n| n.status == NodeStatus::Failed).count(),
        missing,
        at_bound: nodes.iter().filter(|n| n.at_bound.iter().any(|b| *b)).count(),
        pbdfit_version: env!("CARGO_PKG_VERSION").into(),
        leave_one_out,
    };
    let table = Table { meta, nodes, source: out_dir.display().to_string() };
    table.write(out_dir)?;
    Ok(BuildSummary {
        table,
        computed: run.run.computed,
        resumed: run.run.resumed,
        simulated: predictions.len(),
        seconds: start.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    })
}
