//! `pbdfit modes`: the lowest natural frequencies and mode shapes of a scene's FEM body (the reference for
//! motion), as a table, JSON or a VTK file with one displacement field per mode.

use std::path::PathBuf;

use clap::Args;
use pbdfit_mesh::MassModel;
use pbdfit_mesh::vtk::{PointData, write_vtu};

use pbdfit_fit::{ModesKeywords, ModesReport, Spelling};

use crate::cli::{BodyArgs, CliError, CliResult};

/// Arguments of `pbdfit modes`.
#[derive(Debug, Args)]
pub struct ModesArgs {
    /// Built-in scene name or a scene TOML file.
    #[arg(long)]
    scene: String,
    /// Mesh resolution N (hexahedra per cube edge); default: the scene's own.
    #[arg(long)]
    n: Option<usize>,
    /// Young's modulus E in Pa (> 0).
    #[arg(long, default_value_t = 1e3, allow_negative_numbers = true)]
    young: f64,
    /// Poisson ratio nu (-1 < nu < 0.5).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    poisson: f64,
    /// How many modes, lowest first.
    #[arg(long, default_value_t = pbdfit_fit::DEFAULT_MODE_COUNT)]
    count: usize,
    /// The law whose small-strain stiffness the modes use: linear, corotational, stvk or neo-hookean
    /// (default: the scene's, else linear; all four have the same stiffness at rest).
    #[arg(long, value_name = "NAME")]
    material: Option<String>,
    /// The mass matrix: lumped (the body's vertex masses) or consistent (linear tetrahedra).
    #[arg(long, value_name = "lumped|consistent")]
    fem_mass: Option<String>,
    /// Override the scene's mass model: lumped or uniform.
    #[arg(long, value_name = "lumped|uniform")]
    mass_model: Option<MassModel>,
    /// The FEM mesh's tetrahedral split: same, opposite or six.
    #[arg(long, value_name = "same|opposite|six")]
    split: Option<String>,
    /// Reorient the negatively oriented tetrahedra of an imported mesh instead of refusing the mesh.
    #[arg(long)]
    fix_orientation: bool,
    #[command(flatten)]
    body: BodyArgs,
    /// Print one JSON object per part (an array for a compound scene), with every mode's shape.
    #[arg(long)]
    json: bool,
    /// Write the mesh with one point-data vector per mode (`mode_1`, ..., mass-normalised) to this `.vtu`
    /// file (ParaView's Warp By Vector shows a mode); for a compound scene one file per part.
    #[arg(long, value_name = "OUT.vtu")]
    vtk: Option<PathBuf>,
}

/// Runs `pbdfit modes`.
pub fn run(args: ModesArgs) -> CliResult {
    if let Some(path) = &args.vtk
        && path.extension().and_then(|e| e.to_str()) != Some("vtu")
    {
        return Err(CliError::Input(format!("--vtk {}: the file name must end in .vtu", path.display())));
    }
    let job = ModesKeywords {
        scene: args.scene.clone(),
        n: args.n,
        young: Some(args.young),
        poisson: Some(args.poisson),
        mass_model: args.mass_model.map(|m| m.name().to_string()),
        fix_orientation: args.fix_orientation,
        body: args.body.keywords(),
        material: args.material.clone(),
        fem_mass: args.fem_mass.clone(),
        split: args.split.clone(),
        count: Some(args.count),
    };
    let prepared = job.prepare(Spelling::Flag).map_err(crate::fit::job_error)?;
    let (compound, material, count) = (prepared.set.is_compound(), prepared.material, prepared.count);
    // The output path checked before the solve; the result printed before the file is written.
    if let Some(path) = &args.vtk {
        for scene in prepared.set.scenes() {
            crate::cli::check_output_file("--vtk", &crate::cli::part_path(path, &scene.name, compound), false)?;
        }
    }
    let mut reports: Vec<ModesReport> = Vec::new();
    let mut files = Vec::new();
    for setup in prepared.parts {
        let body = setup.body.clone();
        let report = setup.run(material, count).map_err(crate::fit::job_error)?;
        files.push((body, report.clone()));
        reports.push(report);
    }
    if args.json {
        let text = if compound { serde_json::to_string(&reports) } else { serde_json::to_string(&reports[0]) }
            .map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        println!("{text}");
    } else {
        for r in &reports {
            print!("{}", r.text());
        }
    }
    for (body, report) in files {
        if let Some(path) = &args.vtk {
            let file = crate::cli::part_path(path, &body.scene, compound);
            let names: Vec<String> = (1..=count).map(|i| format!("mode_{i}")).collect();
            let fields: Vec<(&str, PointData)> = report
                .modes
                .iter()
                .zip(&names)
                .map(|(m, name)| {
                    let shape = m.shape.iter().map(|u| pbdfit_mesh::Vec3::new(u[0], u[1], u[2])).collect();
                    (name.as_str(), PointData::Vectors(shape))
                })
                .collect();
            write_vtu(&file, body.mesh.vertices(), body.mesh.tets(), &fields)
                .map_err(|e| CliError::Input(format!("--vtk: {e}")))?;
        }
    }
    Ok(())
}
