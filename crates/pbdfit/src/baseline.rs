//! `pbdfit baseline`: a closed-form mapping's parameters for (E, nu), the formulas engines and papers
//! apply without an error estimate (`pbdfit_table::mapping`).

use pbdfit_table::mapping::{MAPPINGS, MappingError, map};

use crate::cli::{BodyArgs, CliError, CliResult, load_scene, to_json};

/// Arguments of `pbdfit baseline`.
#[derive(Debug, clap::Args)]
#[command(allow_negative_numbers = true, after_help = mapping_list_help())]
pub struct BaselineArgs {
    /// The mapping (see the list below), or `list` to print the mappings.
    #[arg(long)]
    mapping: String,
    /// Young's modulus E in Pa (> 0).
    #[arg(long)]
    young: Option<f64>,
    /// Poisson ratio nu (-1 < nu <= 0.5).
    #[arg(long)]
    poisson: Option<f64>,
    /// Time step in s (a decimal or a fraction such as 1/300); used by the PBD mappings.
    #[arg(long, value_parser = |s: &str| pbdfit_table::axes::parse_number(s), allow_hyphen_values = true)]
    dt: Option<f64>,
    /// Solver iterations per step (>= 1); used by the PBD mappings.
    #[arg(long)]
    nit: Option<usize>,
    /// Mesh resolution N (>= 1) of the scene's body whose geometry the formulas read.
    #[arg(long)]
    n: Option<usize>,
    /// The scene whose body gives the geometry (a built-in name or a scene file); default the tables'
    /// scene, the unit cube `gravity`.
    #[arg(long, default_value = "gravity")]
    scene: String,
    #[command(flatten)]
    body: BodyArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn mapping_list_help() -> String {
    let mut s = String::from("Mappings:\n");
    for m in MAPPINGS {
        s.push_str(&format!("  {} ({}): {}\n", m.name, m.model.name(), m.description));
    }
    s
}

/// Maps a library error to the command line's: the user's input (exit 2) or a mapping's defect (exit 1).
fn mapping_error(e: MappingError) -> CliError {
    if e.is_input() { CliError::Input(e.to_string()) } else { CliError::Internal(e.to_string()) }
}

/// Runs `pbdfit baseline`.
pub fn run(args: BaselineArgs) -> CliResult {
    if args.mapping == "list" {
        return list(args.json);
    }
    // The name is checked first: an unknown mapping is the mistake to report, whatever else is missing.
    let m = pbdfit_table::mapping::mapping(&args.mapping).map_err(mapping_error)?;
    // dt, nit and N only where the formula reads them (they were required for mappings that
    // ignore them); a value given anyway is checked and recorded.
    let query = m
        .query(args.young, args.poisson, args.dt, args.nit, args.n)
        .map_err(|name| CliError::Input(format!("--{name} is required with --mapping {}", args.mapping)))?;
    query.check().map_err(mapping_error)?;
    let set = load_scene(&args.scene, args.body)?;
    let m = map(&args.mapping, &query, &set).map_err(mapping_error)?;
    if args.json {
        let mut value = serde_json::to_value(&m).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        value["body"] =
            serde_json::to_value(set.bodies()).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        println!("{}", to_json(&value)?);
        return Ok(());
    }
    println!("{}", set.body_line());
    println!("mapping {} (model {}): {}", m.mapping, m.model, m.description);
    println!("  source: {}", m.source);
    let q = &m.query;
    let step = if m.uses_step {
        format!(", dt = {} s, nit = {}", pbdfit_mesh::display::number(q.dt), q.nit)
    } else {
        String::new()
    };
    let mesh = if m.uses_mesh { format!(", N = {}, scene {}", q.n, m.scene) } else { String::new() };
    println!("E = {:e} Pa, nu = {}{step}{mesh}", q.young, q.poisson);
    if !m.uses_step || !m.uses_mesh {
        let unused: Vec<&str> = [(!m.uses_step, "dt and nit"), (!m.uses_mesh, "N")]
            .into_iter()
            .filter_map(|(unused, what)| unused.then_some(what))
            .collect();
        println!("  ({} not used by this formula)", unused.join(" and "));
    }
    let values: Vec<String> =
        m.parameters.iter().map(|p| pbdfit_table::parameter_text(&p.name, p.value, &p.unit)).collect();
    println!("  {}", values.join("  "));
    let g = &m.geometry;
    println!(
        "  geometry: {} tetrahedra (mean volume {:.6e} m^3), {} edges (mean length {:.6e} m)",
        g.tets, g.mean_tet_volume, g.edges, g.mean_edge_length
    );
    if !m.uses_young {
        println!("  NOTE: a fixed constant: it does not depend on E (nor nu)");
    }
    if !m.outside_range.is_empty() {
        println!("  WARNING: outside model {}'s allowed range: {}", m.model, m.outside_range.join(", "));
    }
    Ok(())
}

fn list(json: bool) -> CliResult {
    if json {
        let list: Vec<serde_json::Value> = MAPPINGS
            .iter()
            .map(|m| {
                serde_json::json!({
                    "name": m.name,
                    "model": m.model.name(),
                    "description": m.description,
                    "source": m.source,
                    "uses_young": m.uses_young,
                })
            })
            .collect();
        println!("{}", to_json(&list)?);
        return Ok(());
    }
    for m in MAPPINGS {
        println!("{} ({}): {}", m.name, m.model.name(), m.description);
        println!("    source: {}", m.source);
    }
    Ok(())
}
