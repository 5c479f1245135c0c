//! `pbdfit motion`: the release test, the FEM body (Newmark, no numerical damping) against a model at
//! your dt and iterations: frequency, logarithmic decrement and trajectory error, at parameters you give
//! or at the rest-state fit's (`--fit`).

use clap::Args;
use pbdfit_mesh::Vec3;
use pbdfit_mesh::vtk::{PointData, write_pvd, write_vtu};

use pbdfit_jobs::{Context, Job, MotionKeywords, Spelling};

use crate::cli::{CliError, CliResult};

/// Arguments of `pbdfit motion`: the motion job's keywords beside the outputs.
#[derive(Debug, Args)]
#[command(about = <pbdfit_jobs::MotionKeywords as pbdfit_jobs::Job>::ABOUT)]
pub struct MotionArgs {
    #[command(flatten)]
    job: MotionKeywords,
    /// Print one JSON object (with both tracks over time) instead of a summary.
    #[arg(long)]
    json: bool,
    /// Also write both bodies side by side, FEM then model, at every --frame-every-th sample as a VTK time
    /// series into this folder (motion-*.vtu and motion.pvd, for ParaView; point data displacement and
    /// body: 0 FEM, 1 model).
    #[arg(long, value_name = "DIR")]
    frames: Option<std::path::PathBuf>,
    /// With --frames: write every K-th sample (model step).
    #[arg(long, default_value_t = 1, value_name = "K", requires = "frames")]
    frame_every: usize,
    /// Also draw the tracked vertex over time, FEM against model, to this PNG (and an SVG beside it).
    #[arg(long, value_name = "OUT.png")]
    figure: Option<std::path::PathBuf>,
}

/// Runs `pbdfit motion`.
pub fn run(args: MotionArgs) -> CliResult {
    if args.frame_every == 0 {
        return Err(CliError::Input("--frame-every must be at least 1".to_string()));
    }
    // Every output path checked before the work: an unwritable one found after it lost the result.
    let figure = match &args.figure {
        Some(path) if path.extension().and_then(|e| e.to_str()) != Some("png") => {
            return Err(CliError::Input(format!("--figure {}: the file name must end in .png", path.display())));
        }
        Some(path) => {
            crate::cli::check_output_file("--figure", path, true)?;
            crate::cli::check_output_file("--figure", &path.with_extension("svg"), true)?;
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("motion").to_string();
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            Some((dir.to_path_buf(), stem))
        }
        None => None,
    };
    let prepared = args.job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    for warning in &prepared.warnings {
        eprintln!("warning: {warning}");
    }
    if let Some(dir) = &args.frames {
        crate::cli::check_output_folder("--frames", dir)?;
        crate::cli::clear_old_frames("--frames", dir, "motion-", "motion.pvd")?;
    }
    // A file that cannot be written after all (the disk filled, say) is reported after the result is
    // printed, never instead of it.
    let mut write_error: Option<CliError> = None;
    let report = match &args.frames {
        None => Context::run::<MotionKeywords>(prepared, &pbdfit_pbd::CpuBackend),
        Some(dir) => {
            let body = prepared
                .body()
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--frames: the release's frames are written for tetrahedral solids, and scene {} is a sheet",
                        args.job.body.scene
                    ))
                })?
                .clone();
            let mut writer = SideBySide::new(&body, dir, args.frame_every);
            let frames = &mut |t: f64, fem: &[Vec3], model: &[Vec3]| {
                if writer.failed.is_none()
                    && let Err(e) = writer.frame(t, fem, model)
                {
                    writer.failed = Some(e);
                }
                Ok(())
            };
            let (backend, choose, lines) = (&pbdfit_pbd::CpuBackend, &pbdfit_jobs::cpu, &mut |_: &str| {});
            let context =
                &mut Context { backend, choose, progress: &mut |_| {}, frames, lines, fits: &|_| {}, cancel: None };
            let report = MotionKeywords::run(prepared, context);
            // The frames written so far are kept and listed, whatever stopped the run.
            if !writer.written.is_empty() {
                let pvd = dir.join("motion.pvd");
                match write_pvd(&pvd, &writer.written) {
                    Ok(()) => eprintln!("pbdfit: wrote {} frames and {}", writer.written.len(), pvd.display()),
                    Err(e) => write_error = Some(CliError::Input(format!("--frames: {e}"))),
                }
            }
            if let Some(e) = writer.failed.take() {
                write_error = Some(CliError::Input(e));
            }
            report
        }
    }
    .map_err(crate::fit::job_error)?;
    crate::cli::print_report(&report, args.json)?;
    if let Some((dir, stem)) = figure {
        let e = report.tracked_direction;
        let along = |track: &[[f64; 3]]| track.iter().map(|u| u[0] * e[0] + u[1] * e[1] + u[2] * e[2]).collect();
        let parameters: Vec<String> =
            report.parameters.iter().map(|(k, v)| format!("{k} = {}", pbdfit_mesh::display::number(*v))).collect();
        let tracks = pbdfit_plot::MotionTracks {
            title: format!(
                "{} (N = {}), E = {} Pa: release from rest, vertex {}",
                report.scene,
                report.n,
                pbdfit_mesh::display::number(report.young),
                report.tracked_vertex
            ),
            times: report.times.clone(),
            fem: along(&report.fem_track),
            model: along(&report.model_track),
            rest: report.rest_levels,
            labels: [
                format!("FEM ({}, Newmark)", report.material),
                format!("{} ({}), dt = {} s, nit = {}", report.model, parameters.join(", "), report.dt, report.nit),
            ],
        };
        match pbdfit_plot::draw_motion(&tracks, &dir, &stem) {
            Ok(files) => eprintln!("pbdfit: wrote {} and {}", files.png.display(), files.svg.display()),
            Err(e) => write_error = write_error.or(Some(CliError::Input(format!("--figure: {e}")))),
        }
    }
    match write_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The frames of `--frames`: both bodies in one mesh, the model's copy beside the FEM's along the axis
/// gravity has least of, 1.5 body widths apart.
struct SideBySide<'a> {
    body: &'a pbdfit_mesh::Body,
    dir: &'a std::path::Path,
    every: usize,
    offset: Vec3,
    tets: Vec<pbdfit_mesh::Tet>,
    sample: usize,
    written: Vec<(f64, String)>,
    /// The first frame that could not be written (no further one is tried).
    failed: Option<String>,
}

impl<'a> SideBySide<'a> {
    fn new(body: &'a pbdfit_mesh::Body, dir: &'a std::path::Path, every: usize) -> Self {
        let vertices = body.mesh.vertices();
        let g = body.gravity;
        let axis = (0..3).min_by(|&a, &b| g[a].abs().total_cmp(&g[b].abs())).unwrap_or(0);
        let (lo, hi) =
            vertices.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p[axis]), hi.max(p[axis])));
        let mut offset = Vec3::zeros();
        offset[axis] = 1.5 * (hi - lo).max(1e-3);
        let count = vertices.len();
        let tets =
            body.mesh.tets().iter().copied().chain(body.mesh.tets().iter().map(|t| t.map(|v| v + count))).collect();
        SideBySide { body, dir, every, offset, tets, sample: 0, written: Vec::new(), failed: None }
    }

    fn frame(&mut self, t: f64, fem: &[Vec3], model: &[Vec3]) -> Result<(), String> {
        let sample = self.sample;
        self.sample += 1;
        if !sample.is_multiple_of(self.every) {
            return Ok(());
        }
        let vertices = self.body.mesh.vertices();
        let points: Vec<Vec3> = vertices.iter().copied().chain(vertices.iter().map(|p| p + self.offset)).collect();
        let displacement: Vec<Vec3> = fem.iter().chain(model).copied().collect();
        let which: Vec<f64> = (0..points.len()).map(|i| if i < vertices.len() { 0.0 } else { 1.0 }).collect();
        let name = format!("motion-{sample:06}.vtu");
        write_vtu(
            &self.dir.join(&name),
            &points,
            &self.tets,
            &[("displacement", PointData::Vectors(displacement)), ("body", PointData::Scalars(which))],
        )
        .map_err(|e| format!("--frames: {e}"))?;
        self.written.push((t, name));
        Ok(())
    }
}
