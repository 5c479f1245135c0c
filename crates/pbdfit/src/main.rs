//! # pbdfit (command line)
//!
//! The thin binary at the right end of the data flow: it parses arguments (clap), calls the library
//! crates and prints. No physics lives here.
//!
//! Exit codes: 0 success, 2 bad input (the message on stderr names what was wrong), 1 internal failure.

// Every print of the binary goes through `output::write`, which ends the process quietly when the
// reader has gone (a broken pipe) instead of panicking as std's macros do. These shadow std's macros in
// every module declared below (macro_rules scope is textual), so a new print cannot bring the panic back.
macro_rules! println {
    () => { $crate::output::write($crate::output::Stream::Out, format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::write($crate::output::Stream::Out, format_args!($($arg)*), true) };
}
macro_rules! print {
    ($($arg:tt)*) => { $crate::output::write($crate::output::Stream::Out, format_args!($($arg)*), false) };
}
macro_rules! eprintln {
    () => { $crate::output::write($crate::output::Stream::Err, format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::write($crate::output::Stream::Err, format_args!($($arg)*), true) };
}

mod output;

mod baseline;
mod bench;
mod cli;
mod compare;
mod fem;
mod fit;
mod lookup;
mod modes;
mod motion;
mod plot;
mod reproduce;
mod settings;
mod simulate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Fit Position Based Dynamics stiffness parameters to an FEM reference.
#[derive(Debug, Parser)]
#[command(name = "pbdfit", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands: each entry, its doc (the command's help) and attributes, then `Name(Args) => run`, is a
/// variant of [`Command`] and its arm in [`Command::run`], so a command is one entry here.
macro_rules! commands {
    ($($(#[$attr:meta])* $name:ident($args:ty) => $run:path),+ $(,)?) => {
        #[derive(Debug, Subcommand)]
        enum Command {
            $($(#[$attr])* $name($args),)+
        }

        impl Command {
            /// Runs the command.
            fn run(self) -> cli::CliResult {
                match self {
                    $(Command::$name(args) => $run(args),)+
                }
            }
        }
    };
}

commands! {
    /// List the built-in scenes.
    Scenes(cli::NoArgs) => cli::list_scenes,
    /// FEM rest state of a scene (linear or nonlinear material, static or dynamic): summary, JSON or VTK.
    Fem(fem::FemArgs) => fem::run,
    /// The lowest natural frequencies and mode shapes of a scene's FEM body (the reference for motion):
    /// table, JSON or VTK.
    Modes(modes::ModesArgs) => modes::run,
    /// The release test: the FEM body (Newmark, no numerical damping) against a model at your dt and
    /// iterations, from rest under gravity: frequency, damping and trajectory error.
    Motion(motion::MotionArgs) => motion::run,
    /// Draw any study from its results folder (summary.json + CSVs): error and parameter figures, a report.
    Plot(plot::PlotArgs) => plot::run,
    /// A model's rest state on a scene (PBD, XPBD, mass-spring or an engine profile): summary, JSON, VTK, or
    /// a VTK time series.
    Simulate(simulate::SimulateArgs) => simulate::run,
    /// Fit a model's parameters (PBD's kd, kv; XPBD's compliances; an engine profile's) so that its rest
    /// state matches the FEM rest state of a material, or measured markers.
    Fit(fit::FitArgs) => fit::run,
    /// The cheapest engine settings (dt, iterations or substeps) at which a model reaches a material's FEM
    /// within a target error, and where it cannot at all: one fit per setting, cheapest first.
    Settings(settings::SettingsArgs) => settings::run,
    /// Identify E and nu of an FEM law from measured markers, with 95 % intervals (Gauss-Newton covariance).
    Identify(cli::JobArgs<pbdfit_jobs::IdentifyJob>) => cli::run_job,
    /// The error a fit minimises at given parameters: what a lookup's or any choice of parameters is worth.
    Evaluate(cli::JobArgs<pbdfit_jobs::EvaluateKeywords>) => cli::run_job,
    /// Run or resume a study file (a matrix of fits), writing one CSV per scene and experiment.
    Study(cli::FitsArgs<pbdfit_jobs::StudyKeywords>) => cli::run_fits,
    /// Build (or resume) a stiffness table: fits over a grid of (E, nu, dt, nit, N), with leave-one-out.
    Table(cli::FitsArgs<pbdfit_jobs::TableKeywords>) => cli::run_fits,
    /// Look a model's parameters up in a stiffness table (interpolated), with an error estimate.
    Lookup(lookup::LookupArgs) => lookup::run,
    /// A closed-form mapping's parameters for (E, nu) (Van Gelder springs, bulk-modulus and Macklin-Mueller
    /// volume compliances, Godot-Jolt's constant, their PBD equivalents, xpbd-strain's inverse moduli): the
    /// baselines the lookup is measured against. `--mapping list` lists them.
    #[command(visible_alias = "baseline")]
    Mapping(baseline::MappingArgs) => baseline::run,
    /// Run a study under named variants of the setup (reference material, solve, mesh split, mass, load,
    /// arithmetic) and score each against the thesis's claims.
    Compare(compare::CompareArgs) => compare::run,
    /// Reproduce the thesis: run the study (resuming), draw every figure, write the report.
    Reproduce(reproduce::ReproduceArgs) => reproduce::run,
    /// Print benchmark figures.
    #[command(subcommand)]
    Bench(bench::BenchArgs) => bench::run,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = cli.command.run();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pbdfit: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
