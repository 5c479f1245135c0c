//! `pbdfit motion`: the release test, the FEM body (Newmark, no numerical damping) against a model at
//! your dt and iterations: frequency, logarithmic decrement and trajectory error, at parameters you give
//! or at the rest-state fit's (`--fit`).

use clap::Args;
use pbdfit_mesh::Vec3;
use pbdfit_mesh::vtk::{PointData, write_pvd, write_vtu};

use pbdfit_fit::{MotionKeywords, Spelling};

use crate::cli::{CliError, CliResult, SimulationArgs};

/// Arguments of `pbdfit motion`.
#[derive(Debug, Args)]
pub struct MotionArgs {
    #[command(flatten)]
    body: pbdfit_fit::Body,
    #[command(flatten)]
    elastic: pbdfit_fit::Material,
    /// The FEM law: linear, corotational, stvk or neo-hookean (default: the scene's, else linear).
    #[arg(long, value_name = "NAME")]
    material: Option<String>,
    #[command(flatten)]
    simulation: SimulationArgs,
    /// The model's parameters by name (repeatable; all of them unless --fit), e.g. `--param kd=0.4`.
    #[arg(long = "param", value_parser = crate::cli::parse_param)]
    param: Vec<(String, f64)>,
    /// Fit the model's rest state to the FEM first and release at the fitted parameters: how wrong the
    /// motion is at the stiffness that gives the right sag.
    #[arg(long)]
    fit: bool,
    /// Fit the parameters to the motion (the trajectory error, pattern search in the model's default box)
    /// from the rest-state fit (with --fit) or from --param: the best motion the model can give, and what it
    /// costs in sag.
    #[arg(long)]
    fit_motion: bool,
    /// PBD models' velocity damping per step in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    damping: f64,
    /// The FEM body's damping ratio in its first mode, in [0, 1) (mass-proportional Rayleigh damping,
    /// the form of an engine's linear damping); 0: the reference does not damp.
    #[arg(long, default_value_t = 0.0)]
    fem_damping: f64,
    /// Search the model's damping knob for the FEM's decay (needs --fem-damping): the engine's damping
    /// setting (Jolt's linear_damping, Newton's k_damp), else --damping; says so where the model's numerical
    /// damping alone is already too much.
    #[arg(long)]
    fit_damping: bool,
    /// The window in periods of the FEM's first mode.
    #[arg(long, default_value_t = pbdfit_fit::DEFAULT_PERIODS)]
    periods: f64,
    /// How the body is released: gravity (undeformed at rest, the load switched on) or unload (at its
    /// loaded rest state, the load switched off).
    #[arg(long, value_name = "gravity|unload", default_value = "gravity")]
    release: String,
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
    let job = MotionKeywords {
        scene: args.body.scene.clone(),
        n: args.body.n,
        mass_model: args.body.mass_model.clone(),
        fix_orientation: args.body.fix_orientation,
        body: args.body.scale,
        young: args.elastic.young,
        poisson: args.elastic.poisson,
        material: args.material.clone(),
        model: Some(args.simulation.model.name().to_string()),
        settings: args.simulation.settings_map()?,
        params: crate::cli::unique_pairs("--param", &args.param)?,
        fit: args.fit,
        fit_motion: args.fit_motion,
        dt: Some(args.simulation.dt),
        nit: Some(args.simulation.nit),
        damping: Some(args.damping),
        fem_damping: Some(args.fem_damping),
        fit_damping: args.fit_damping,
        periods: Some(args.periods),
        release: Some(args.release.clone()),
    };
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
    let prepared = job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    for warning in &prepared.warnings {
        eprintln!("warning: {warning}");
    }
    if args.frame_every == 0 {
        return Err(CliError::Input("--frame-every must be at least 1".to_string()));
    }
    if let Some(dir) = &args.frames {
        crate::cli::check_output_folder("--frames", dir)?;
        crate::cli::clear_old_frames("--frames", dir, "motion-", "motion.pvd")?;
    }
    // A file that cannot be written after all (the disk filled, say) is reported after the result is
    // printed, never instead of it.
    let mut write_error: Option<CliError> = None;
    let report = match &args.frames {
        None => prepared.run(Spelling::Flag),
        Some(dir) => {
            let body = prepared.body().clone();
            let mut writer = SideBySide::new(&body, dir, args.frame_every);
            let report = prepared.run_with_frames(Spelling::Flag, &mut |t, fem, model| {
                if writer.failed.is_none()
                    && let Err(e) = writer.frame(t, fem, model)
                {
                    writer.failed = Some(e);
                }
                Ok(())
            });
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
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", report.text());
    }
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
