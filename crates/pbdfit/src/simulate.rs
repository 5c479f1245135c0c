//! `pbdfit simulate`: the PBD rest state of a scene, as a summary, JSON, VTK, or a VTK time series.

use std::path::PathBuf;
use std::time::Instant;

use pbdfit_mesh::MassModel;
use pbdfit_mesh::vtk::{PointData, write_pvd, write_vtu};
use pbdfit_pbd::{
    ConstraintRef, IntegrateOptions, Integrator, ModelRule, PbdSystem, RestMethod, RestOptions, RuleSettings,
    SensitivityOptions, SimParams, SpringBody, SpringLaw,
};
use serde_json::json;

use crate::cli::{BackendName, CliError, CliResult, SimulationArgs, load_scene, resolution, to_json};

/// Arguments of `pbdfit simulate`.
#[derive(Debug, clap::Args)]
#[command(allow_negative_numbers = true)]
pub struct SimulateArgs {
    /// Built-in scene name or path to a scene TOML file.
    #[arg(long)]
    scene: String,
    /// Mesh resolution N (default: the scene's).
    #[arg(long)]
    n: Option<usize>,
    /// Override the scene's mass model.
    #[arg(long, value_parser = parse_mass_model)]
    mass_model: Option<MassModel>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh (and say how many) instead of
    /// refusing the mesh.
    #[arg(long)]
    fix_orientation: bool,
    #[command(flatten)]
    sim: SimulationArgs,
    /// Distance stiffness kd in [0, 1] (PBD models) [default: 0.5].
    #[arg(long)]
    kd: Option<f64>,
    /// Volume stiffness kv in [0, 1] (PBD models) [default: 0.5].
    #[arg(long)]
    kv: Option<f64>,
    /// XPBD distance compliance alpha_d in m/N [default: 0].
    #[arg(long)]
    compliance_distance: Option<f64>,
    /// XPBD volume compliance alpha_v in m^6/J [default: 0].
    #[arg(long)]
    compliance_volume: Option<f64>,
    /// Mass-spring spring constant ks in N/m.
    #[arg(long)]
    ks: Option<f64>,
    /// Mass-spring volume penalty kvol in Pa (mass-spring-volume).
    #[arg(long)]
    kvol: Option<f64>,
    /// Mass-spring models: run the dynamics with this integrator (until they settle or --steps) instead
    /// of solving the Newton rest state.
    #[arg(long, value_enum)]
    integrator: Option<Integrator>,
    /// With --integrator: the largest number of steps.
    #[arg(long, default_value_t = 1_000_000)]
    steps: usize,
    /// Any model parameter by name, e.g. `--param alpha_d=1e-6` (repeatable; wins over the flags above).
    #[arg(long = "param", value_parser = crate::cli::parse_param)]
    param: Vec<(String, f64)>,
    /// Allow stiffness above 1 (experimental: it can overshoot).
    #[arg(long)]
    unbounded: bool,
    /// PBD models: velocity damping per step in [0, 1); mass-spring models: spring damping in N s/m (>= 0).
    /// It changes the path to rest, not the rest state.
    #[arg(long, default_value_t = 0.0)]
    damping: f64,
    /// Rest-state method: fixed point (Anderson, falls back to stepping) or stepping the dynamics.
    #[arg(long, value_enum, default_value_t = Method::FixedPoint)]
    method: Method,
    /// Where the rest state is computed (the GPU steps the dynamics to rest in f32; --method is the CPU's).
    #[arg(long, value_enum, default_value_t = BackendName::Cpu)]
    backend: BackendName,
    /// Print one JSON object (an array of them for a compound scene).
    #[arg(long)]
    json: bool,
    /// Also the rest state's sensitivity to each parameter, `du*/dp` (m per unit of the parameter; the
    /// implicit function theorem at the fixed point, or the Newton tangent for mass-spring models): JSON
    /// key `sensitivity`, one array per parameter with a row per vertex.
    #[arg(long)]
    sensitivity: bool,
    /// Write the rest state with its displacement to this .vtu file.
    #[arg(long)]
    vtk: Option<PathBuf>,
    /// Write the dynamics from the initial state as a VTK time series (frames + .pvd) into this folder.
    #[arg(long)]
    frames: Option<PathBuf>,
    /// With --frames: write every K-th step.
    #[arg(long, default_value_t = 5)]
    frame_every: usize,
    /// With --frames: number of steps to simulate.
    #[arg(long, default_value_t = 500)]
    frame_steps: usize,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Method {
    FixedPoint,
    Stepping,
}

fn parse_mass_model(s: &str) -> Result<MassModel, String> {
    s.parse()
}

/// Runs `pbdfit simulate`.
pub fn run(args: SimulateArgs) -> CliResult {
    let set = load_scene(&args.scene, args.mass_model, args.fix_orientation)?;
    let n = resolution(&set, args.n)?;
    let springs = !args.sim.model.has_projection();
    let kind = args.sim.kind()?;
    // A parameter flag the model does not have is refused, not ignored (`--model xpbd --kd 0.3` used to run
    // with compliance 0).
    let given = [
        ("kd", args.kd, "--kd"),
        ("kv", args.kv, "--kv"),
        ("alpha_d", args.compliance_distance, "--compliance-distance"),
        ("alpha_v", args.compliance_volume, "--compliance-volume"),
        ("ks", args.ks, "--ks"),
        ("kvol", args.kvol, "--kvol"),
    ];
    for (name, value, flag) in given {
        if value.is_some() && kind.parameter(name).is_none() {
            return Err(CliError::Input(format!(
                "{flag}: model {kind} has no parameter `{name}`; its parameters are {} (give them with --param \
                 NAME=VALUE)",
                kind.parameter_names()
            )));
        }
    }
    let defaults = [("kd", 0.5), ("kv", 0.5), ("alpha_d", 0.0), ("alpha_v", 0.0)];
    let mut named: Vec<(&str, f64)> = defaults
        .iter()
        .map(|&(name, d)| (name, given.iter().find(|g| g.0 == name).and_then(|g| g.1).unwrap_or(d)))
        .collect();
    named.extend(args.ks.map(|v| ("ks", v)));
    named.extend(args.kvol.map(|v| ("kvol", v)));
    let model = crate::cli::model_from_flags(kind, &args.param, &named)?;
    if args.integrator.is_some() && !springs {
        return Err(CliError::Input(format!(
            "--integrator: model {} has no integrator (its dynamics are the PBD step); integrators are for the \
             mass-spring models",
            model.name()
        )));
    }
    if let ModelRule::Springs(law) = model.rule(RuleSettings::new(args.sim.dt, args.sim.nit, model.kind())) {
        // The model's own law; the dynamics add the spring damping asked for.
        let law = SpringLaw { damping: args.damping, ..law };
        law.validate().map_err(|e| CliError::Input(format!("scene {}: model {}: {e}", set.name(), model.name())))?;
        if let Some(integrator) = args.integrator {
            return run_springs_dynamics(&args, &set, n, &model, law, integrator);
        }
        if args.frames.is_some() {
            return Err(CliError::Input(format!(
                "--frames: model {} has no PBD step; give --integrator to write its dynamics",
                model.name()
            )));
        }
    }
    let params = SimParams {
        damping: if springs { 0.0 } else { args.damping },
        allow_unbounded: args.unbounded,
        ..SimParams::new(args.sim.dt, args.sim.nit, model)
    };
    params.validate().map_err(|e| CliError::Input(format!("scene {}: {e}", set.name())))?;
    let options = RestOptions {
        method: match args.method {
            Method::FixedPoint => RestMethod::FixedPoint,
            Method::Stepping => RestMethod::Stepping,
        },
        ..RestOptions::default()
    };
    let mut outputs = Vec::new();
    for scene in set.scenes() {
        let body = scene.body(n).map_err(|e| CliError::Input(e.to_string()))?;
        let system = PbdSystem::new(&body);
        if let Some(dir) = &args.frames {
            write_frames(&system, &body, &params, dir, args.frame_every.max(1), args.frame_steps, set.is_compound())?;
        }
        let start = Instant::now();
        let rest = match args.backend {
            BackendName::Cpu => system.rest_state(&params, &options, None),
            other => crate::cli::backend(other, &system, 1).rest_states(&system, &[params], &options).remove(0),
        }
        .map_err(|e| CliError::Input(e.to_string()))?;
        let seconds = start.elapsed().as_secs_f64();
        let sensitivity = if args.sensitivity {
            if !rest.converged {
                return Err(CliError::Input(format!(
                    "scene {}: --sensitivity needs a converged rest state (relative residual {:e})",
                    scene.name, rest.residual
                )));
            }
            let s = system
                .sensitivity(&params, &rest.displacements, &SensitivityOptions::default())
                .map_err(|e| CliError::Input(e.to_string()))?;
            Some(s)
        } else {
            None
        };
        if let Some(path) = &args.vtk {
            let path = crate::cli::part_path(path, &scene.name, set.is_compound());
            write_vtu(
                &path,
                body.mesh.vertices(),
                body.mesh.tets(),
                &[
                    ("displacement", PointData::Vectors(rest.displacements.clone())),
                    ("held", PointData::Scalars(body.held.iter().map(|&h| f64::from(u8::from(h))).collect())),
                    ("mass", PointData::Scalars(body.masses.clone())),
                ],
            )
            .map_err(CliError::Input)?;
        }
        if args.json {
            let constraints: Vec<_> = system
                .constraints_in_list_order()
                .into_iter()
                .map(|(c, particles)| {
                    let kind = match c {
                        ConstraintRef::Distance(_) => "distance",
                        ConstraintRef::Volume(_) => "volume",
                    };
                    json!({"type": kind, "particles": particles})
                })
                .collect();
            outputs.push(json!({
                "scene": scene.name,
                "n": n,
                "model": params.model.name(),
                "dt": params.dt,
                "nit": params.nit,
                "parameters": params.model.values(),
                "parameter_names": params.model.kind().parameters().iter().map(|p| p.name).collect::<Vec<_>>(),
                "mass_model": body.mass_model.name(),
                "vertices": body.mesh.vertices().iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
                "tets": body.mesh.tets(),
                "fixed": body.held_indices(),
                "masses": body.masses,
                "constraints": constraints,
                "solve_order": system.solve_order(),
                "rest_positions": rest.positions.iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
                "displacements": rest.displacements.iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
                "iterations": rest.iterations,
                "converged": rest.converged,
                "residual": rest.residual,
            }));
            if let Some(s) = &sensitivity {
                let columns: serde_json::Map<String, serde_json::Value> = params
                    .model
                    .kind()
                    .parameters()
                    .iter()
                    .zip(&s.columns)
                    .map(|(p, c)| (p.name.to_string(), json!(c.iter().map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>())))
                    .collect();
                let last = outputs.last_mut().expect("just pushed");
                last["sensitivity"] = serde_json::Value::Object(columns);
                last["sensitivity_map_evaluations"] = json!(s.map_evaluations);
            }
        } else {
            let describe = if springs { params.describe_springs() } else { params.describe() };
            println!("scene {} (N = {n}, {} mass): {describe}", scene.name, body.mass_model.name());
            println!(
                "  {} particles ({} held), {} constraints in {} colour groups",
                system.particle_count(),
                body.held_indices().len(),
                system.constraint_count(),
                system.group_count()
            );
            println!(
                "  rest state: max |u| = {:.10e} m, {} after {} {} ({:?}, relative residual {:.1e}), {:.3} ms",
                rest.max_displacement(),
                if rest.converged { "converged" } else { "NOT converged" },
                rest.iterations,
                if springs { "Newton iterations" } else { "projection sweeps" },
                rest.method,
                rest.residual,
                seconds * 1e3
            );
            if let Some(s) = &sensitivity {
                for (p, c) in params.model.kind().parameters().iter().zip(&s.columns) {
                    let largest = c.iter().map(|v| v.norm()).fold(0.0, f64::max);
                    println!("  sensitivity: max |du/d{}| = {largest:.6e} m per {}", p.name, p.unit);
                }
            }
        }
    }
    if args.json {
        let value = if set.is_compound() { serde_json::Value::Array(outputs) } else { outputs.remove(0) };
        println!("{}", to_json(&value)?);
    }
    Ok(())
}

fn write_frames(
    system: &PbdSystem,
    body: &pbdfit_mesh::Body,
    params: &SimParams,
    dir: &std::path::Path,
    every: usize,
    steps: usize,
    compound: bool,
) -> CliResult {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Input(format!("cannot create {}: {e}", dir.display())))?;
    let prefix = if compound { format!("{}-", body.scene) } else { String::new() };
    let mut frames = Vec::new();
    system.run_dynamics(params, steps, every, |step, d| {
        let name = format!("{prefix}frame-{step:06}.vtu");
        write_vtu(
            &dir.join(&name),
            body.mesh.vertices(),
            body.mesh.tets(),
            &[("displacement", PointData::Vectors(d.u.clone())), ("velocity", PointData::Vectors(d.v.clone()))],
        )
        .map_err(CliError::Input)?;
        frames.push((step as f64 * params.dt, name));
        Ok(())
    })?;
    let pvd = dir.join(format!("{prefix}dynamics.pvd"));
    write_pvd(&pvd, &frames).map_err(CliError::Input)?;
    eprintln!("wrote {} frames and {}", frames.len(), pvd.display());
    Ok(())
}

/// `simulate --integrator`: the mass-spring dynamics from rest, until they settle (largest per-step
/// displacement below 1e-13 of the largest displacement) or `--steps`.
fn run_springs_dynamics(
    args: &SimulateArgs,
    set: &pbdfit_mesh::SceneSet,
    n: usize,
    model: &pbdfit_pbd::Model,
    law: SpringLaw,
    integrator: Integrator,
) -> CliResult {
    // The model's own parameters, by its registry's names and units (not a list of the law's fields).
    let named: Vec<String> = model
        .kind()
        .parameters()
        .iter()
        .zip(model.values())
        .map(|(p, v)| format!("{} = {v} {}", p.name, p.unit))
        .collect();
    let mut outputs = Vec::new();
    for scene in set.scenes() {
        let body = scene.body(n).map_err(|e| CliError::Input(e.to_string()))?;
        let system = PbdSystem::new(&body);
        let springs = SpringBody::new(&system);
        let every = args.frame_every.max(1);
        let options = IntegrateOptions { max_steps: args.steps, tolerance: 1e-13, every };
        let prefix = if set.is_compound() { format!("{}-", body.scene) } else { String::new() };
        let mut frames = Vec::new();
        let mut write_error = None;
        let start = Instant::now();
        let run = springs.integrate(&law, integrator, args.sim.dt, &options, |step, u| {
            let Some(dir) = &args.frames else { return };
            if write_error.is_some() {
                return;
            }
            let name = format!("{prefix}frame-{step:06}.vtu");
            let written = std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))
                .and_then(|_| {
                    write_vtu(
                        &dir.join(&name),
                        body.mesh.vertices(),
                        body.mesh.tets(),
                        &[("displacement", PointData::Vectors(u.to_vec()))],
                    )
                });
            match written {
                Ok(()) => frames.push((step as f64 * args.sim.dt, name)),
                Err(e) => write_error = Some(e),
            }
        });
        let seconds = start.elapsed().as_secs_f64();
        if let Some(e) = write_error {
            return Err(CliError::Input(e));
        }
        let t = run.map_err(|e| {
            CliError::Input(format!(
                "scene {}: model {}, {}, damping = {}: {e}",
                scene.name,
                model.name(),
                named.join(", "),
                law.damping
            ))
        })?;
        if let Some(dir) = &args.frames {
            let pvd = dir.join(format!("{prefix}dynamics.pvd"));
            write_pvd(&pvd, &frames).map_err(CliError::Input)?;
            eprintln!("wrote {} frames and {}", frames.len(), pvd.display());
        }
        let largest = t.displacements.iter().map(|u| u.norm()).fold(0.0, f64::max);
        if args.json {
            outputs.push(json!({
                "scene": scene.name,
                "n": n,
                "model": args.sim.model.name(),
                "integrator": integrator.name(),
                "dt": args.sim.dt,
                "parameters": model.values(),
                "parameter_names": model.kind().parameters().iter().map(|p| p.name).collect::<Vec<_>>(),
                "damping": law.damping,
                "mass_model": body.mass_model.name(),
                "steps": t.steps,
                "settled": t.settled,
                "displacements": t.displacements.iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
                "rest_positions": body.mesh.vertices().iter().zip(&t.displacements).map(|(x, u)| [x.x + u.x, x.y + u.y, x.z + u.z]).collect::<Vec<_>>(),
                "energy": t.energies.last(),
                "seconds": seconds,
            }));
        } else {
            println!(
                "scene {} (N = {n}, {} mass): model {}, {}, damping = {} N s/m, {} with dt = {} s",
                scene.name,
                body.mass_model.name(),
                model.name(),
                named.join(", "),
                law.damping,
                integrator.name(),
                args.sim.dt
            );
            println!(
                "  {} after {} steps: max |u| = {:.10e} m, energy {:.6e} J, {:.3} ms",
                if t.settled { "settled" } else { "NOT settled (raise --steps or --damping)" },
                t.steps,
                largest,
                t.energies.last().copied().unwrap_or(f64::NAN),
                seconds * 1e3
            );
        }
    }
    if args.json {
        let value = if set.is_compound() { serde_json::Value::Array(outputs) } else { outputs.remove(0) };
        println!("{}", to_json(&value)?);
    }
    Ok(())
}
