//! `pbdfit lookup`: a model's parameters interpolated from a stiffness table, with an error estimate.

use pbdfit_table::{Query, Table, lookup};

use crate::cli::{BodyArgs, CliError, CliResult, load_scene, to_json};
use crate::table::table_error;

/// Arguments of `pbdfit lookup`.
#[derive(Debug, clap::Args)]
#[command(allow_negative_numbers = true)]
pub struct LookupArgs {
    /// A built-in table (`pbd`, `xpbd`; part-built: `pbd-full`, `xpbd-full`) or a table folder (with
    /// table.csv and table.json).
    #[arg(long)]
    table: String,
    /// Young's modulus E in Pa (> 0).
    #[arg(long)]
    young: f64,
    /// Poisson ratio nu (< 0.5).
    #[arg(long)]
    poisson: f64,
    /// Time step in s (a decimal or a fraction such as 1/300).
    #[arg(long, value_parser = |s: &str| pbdfit_table::axes::parse_number(s), allow_hyphen_values = true)]
    dt: f64,
    /// Solver iterations per step (>= 1).
    #[arg(long)]
    nit: usize,
    /// Mesh resolution N (>= 1).
    #[arg(long)]
    n: usize,
    /// Outside the table's range, use the table's nearest edge for each such setting instead of refusing
    /// (the output flags it).
    #[arg(long)]
    extrapolate: bool,
    /// Refine the looked-up parameters by a short gradient fit started from them (a 2 x 2 grid plus the
    /// lookup as start): on the table's own scene it reaches a direct fit's error for about 15 rest states
    /// (fits/tables/accuracy.py), where the lookup alone is up to several times worse.
    #[arg(long)]
    refine: bool,
    /// With --refine: fit on this scene (a built-in name or a scene file) instead of the table's, e.g. your
    /// own part, starting from the table's parameters.
    #[arg(long, requires = "refine")]
    scene: Option<String>,
    /// With --refine: the body's density and size for the refining fit (a table's fits are for its own
    /// body, the built-in tables' a 1 m cube of 1 kg/m^3).
    #[command(flatten)]
    body: BodyArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `pbdfit lookup`.
pub fn run(args: LookupArgs) -> CliResult {
    if args.body.given() && !args.refine {
        return Err(CliError::Input(
            "--density and --size apply to --refine only: a table holds fits of its own body (the built-in \
             tables': a 1 m cube of 1 kg/m^3) and cannot be rescaled; add --refine to fit on your body from the \
             table's parameters, or fit it with `pbdfit fit`"
                .into(),
        ));
    }
    let query = Query { young: args.young, poisson: args.poisson, dt: args.dt, nit: args.nit, n: args.n };
    // The query is checked before the table is read: a bad material is the same mistake for any table.
    query.check().map_err(table_error)?;
    let table = Table::open(&args.table).map_err(table_error)?;
    let l = lookup(&table, &query, args.extrapolate).map_err(table_error)?;
    let refined = match args.refine {
        true => {
            let set = load_scene(args.scene.as_deref().unwrap_or(&l.scene), args.body)?;
            Some((pbdfit_table::refine(&l, &set).map_err(table_error)?, set))
        }
        false => None,
    };
    if args.json {
        let mut value = serde_json::to_value(&l).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        if let Some((r, set)) = &refined {
            value["refined"] = serde_json::to_value(r).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
            value["refined"]["body"] =
                serde_json::to_value(set.bodies()).map_err(|e| CliError::Internal(format!("JSON output: {e}")))?;
        }
        println!("{}", to_json(&value)?);
        return Ok(());
    }
    if l.extrapolated_any {
        for x in &l.extrapolated {
            println!(
                "EXTRAPOLATED: {} = {} lies outside the table's [{}, {}]; the table's edge {} = {} was used",
                x.parameter, x.value, x.range[0], x.range[1], x.parameter, x.used
            );
        }
    }
    println!(
        "table {} ({}, model {}, scene {}, reference {}, {} masses, pbdfit {})",
        l.table, l.source, l.model, l.scene, l.reference, l.mass_model, l.pbdfit_version
    );
    if l.missing_nodes > 0 {
        println!(
            "  part-built table: {} of its nodes have no fit yet (this query's cell has all of its own)",
            l.missing_nodes
        );
    }
    let number = pbdfit_mesh::display::number;
    println!(
        "E = {:e} Pa, nu = {}, dt = {} s, nit = {}, N = {}",
        l.query.young,
        l.query.poisson,
        number(l.query.dt),
        l.query.nit,
        l.query.n
    );
    let values: Vec<String> = l
        .parameters
        .iter()
        .map(|p| {
            if p.unit == "1" {
                format!("{} = {:.6}", p.name, p.value)
            } else {
                format!("{} = {:.6e} {}", p.name, p.value, p.unit)
            }
        })
        .collect();
    println!("  {}", values.join("  "));
    println!("  fit error interpolated from the cell's nodes: {:.4e}", l.interpolated_fit_error);
    let e = &l.estimate;
    let deviations: Vec<String> = e.parameters.iter().filter_map(|(n, d)| d.map(|d| format!("{n} {d:.2e}"))).collect();
    match e.error_increase {
        Some(inc) => println!(
            "  error estimate (leave-one-out, worst of {} of the cell's {} nodes): parameters off by up to {} \
             (search coordinates), error up by up to {:.3e} when simulated",
            e.nodes_with_estimate,
            e.nodes,
            deviations.join(", "),
            inc
        ),
        None => println!(
            "  error estimate: none (the cell's {} nodes lie on the table's edge, where leave-one-out cannot predict)",
            e.nodes
        ),
    }
    // Where interpolation may cost more than a tenth of the error, the closer answer is a short fit from
    // here (a lookup whose estimate was poor did not say so).
    let uncertain = e.error_increase.is_none_or(|inc| inc > 0.1 * l.interpolated_fit_error);
    if uncertain && refined.is_none() {
        println!(
            "  for a closer answer add --refine (a short fit started from these parameters, about a second), or fit \
             the query itself with `pbdfit fit`"
        );
    }
    let n = &l.nearest;
    println!(
        "  nearest node: E = {:e}, nu = {}, dt = {}, nit = {}, N = {}: fit error {:.4e}",
        n.young,
        n.poisson,
        number(n.dt),
        n.nit,
        n.n,
        n.error
    );
    println!("  cell nodes ({}):", l.corners.len());
    for c in &l.corners {
        println!(
            "    E = {:e}, nu = {}, dt = {}, nit = {}, N = {}: weight {:.3}, fit error {:.4e}{}",
            c.young,
            c.poisson,
            number(c.dt),
            c.nit,
            c.n,
            c.weight,
            c.error,
            if c.at_bound.is_empty() {
                String::new()
            } else {
                format!(", at the box's edge: {}", c.at_bound.join(", "))
            }
        );
    }
    if !l.at_bound.is_empty() {
        println!(
            "  WARNING: on the search box's edge at a node of this cell: {}; the table cannot reach the target \
             there (the best fit may lie outside the box)",
            l.at_bound.join(", ")
        );
    }
    if l.extrapolated_any {
        println!("  WARNING: extrapolated (see above): the values are the table edge's, not a fit at this query");
    }
    if !l.description.is_empty() {
        println!("  about the table: {}", l.description);
    }
    if let Some((r, set)) = &refined {
        println!("{}", set.body_line());
        let values: Vec<String> = r.parameters.iter().map(|(n, v)| format!("{n} = {v:.6e}")).collect();
        println!(
            "refined on scene {} ({}): {}, error {:.4e} ({} rest states, {:.2} s){}",
            r.scene,
            r.reference,
            values.join(", "),
            r.error,
            r.evaluations,
            r.seconds,
            if r.at_bound.is_empty() {
                String::new()
            } else {
                format!(", at the box's edge: {}", r.at_bound.join(", "))
            }
        );
        if let Some(note) = &r.note {
            println!("  NOTE: {note}");
        }
    }
    Ok(())
}
