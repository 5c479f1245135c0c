//! # pbdfit (command line)
//!
//! The thin binary at the right end of the data flow: it parses arguments (clap), calls the library
//! crates and prints. No physics lives here.
//!
//! Exit codes: 0 success, 2 bad input (the message on stderr names what was wrong), 1 internal failure.

mod cli;
mod fem;
mod plot;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Fit Position Based Dynamics stiffness parameters to a linear-elastic FEM reference.
#[derive(Debug, Parser)]
#[command(name = "pbdfit", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in scenes.
    Scenes,
    /// FEM rest state (linear elasticity, static solve under gravity) of a scene: summary, JSON or VTK.
    Fem(fem::FemArgs),
    /// Draw every thesis figure (4.1 to 4.39) from a study's results CSVs, as PNG and SVG, and a report.
    Plot(plot::PlotArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Scenes => cli::list_scenes(),
        Command::Fem(args) => fem::run(args),
        Command::Plot(args) => plot::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pbdfit: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
