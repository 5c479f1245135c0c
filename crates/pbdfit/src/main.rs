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

/// The commands: each entry, its attributes, then `Name(Args) => run`, is a variant of [`Command`] and its
/// arm in [`Command::run`], so a command is one entry here. A job's command takes its help from the job
/// ([`pbdfit_jobs::Job::ABOUT`], which `cli::JobArgs` and each job's own arguments apply), so its entry is
/// one line; a command that is no job has its help as its doc line here.
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
    Fem(fem::FemArgs) => fem::run,
    Modes(modes::ModesArgs) => modes::run,
    Motion(motion::MotionArgs) => motion::run,
    /// Draw any study from its results folder (summary.json + CSVs): error and parameter figures, a report.
    Plot(plot::PlotArgs) => plot::run,
    Simulate(simulate::SimulateArgs) => simulate::run,
    Fit(fit::FitArgs) => fit::run,
    Settings(settings::SettingsArgs) => settings::run,
    Identify(cli::JobArgs<pbdfit_jobs::IdentifyKeywords>) => cli::run_job,
    Evaluate(cli::JobArgs<pbdfit_jobs::EvaluateKeywords>) => cli::run_job,
    Study(cli::FitsArgs<pbdfit_jobs::StudyKeywords>) => cli::run_fits,
    Table(cli::FitsArgs<pbdfit_jobs::TableKeywords>) => cli::run_fits,
    Lookup(lookup::LookupArgs) => lookup::run,
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
