//! A job as its front ends declare it, read from the job alone: its keywords' command-line declaration
//! (clap's `Args`, which carries each keyword's name, help, default and value type) gives Python's
//! function its parameters, their kinds and its docstring (`pbdfit._native.job_signature`, which
//! `pbdfit._job_function` turns into the function), and the command line's options of a case give the
//! keywords Python sends for it ([`keywords_from_args`]).

use std::any::TypeId;

use clap::{ArgAction, Args, FromArgMatches};
use serde::Serialize;

use crate::Job;

/// How Python checks a keyword before the job reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A switch (`--dynamic`): Python's `bool`, default `False`.
    Flag,
    /// A real number (`f64`): finite.
    Number,
    /// A count (`usize`): an integer of at least 1.
    Count,
    /// Two real numbers (`[f64; 2]`, `--rayleigh A,B`).
    Pair,
    /// Real numbers by name (repeated `--param NAME=VALUE`): a dict.
    Numbers,
    /// An engine's settings by name (repeated `--setting NAME=VALUE`): a dict of numbers or words.
    Settings,
    /// The body's scene (`scene`): a built-in name, a scene file's path, or a Python `Scene` (its source).
    Scene,
    /// A file's path (`PathBuf`): text or a path object.
    Path,
    /// Text: a name.
    Text,
}

impl Kind {
    fn of(arg: &clap::Arg) -> Kind {
        if matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
            return Kind::Flag;
        }
        let id = arg.get_value_parser().type_id();
        let is = |t: TypeId| id == t;
        if is(TypeId::of::<f64>()) {
            Kind::Number
        } else if is(TypeId::of::<usize>()) || is(TypeId::of::<u64>()) || is(TypeId::of::<u32>()) {
            Kind::Count
        } else if is(TypeId::of::<[f64; 2]>()) {
            Kind::Pair
        } else if is(TypeId::of::<(String, f64)>()) {
            Kind::Numbers
        } else if is(TypeId::of::<(String, pbdfit_fit::SettingValue)>()) {
            Kind::Settings
        } else if is(TypeId::of::<std::path::PathBuf>()) {
            Kind::Path
        } else if arg.get_id() == "scene" {
            Kind::Scene
        } else {
            Kind::Text
        }
    }
}

/// One keyword of a job's Python function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Keyword {
    /// Its name (the job's keyword).
    pub name: String,
    /// How Python checks it.
    pub kind: Kind,
    /// Whether the job needs it (no default).
    pub required: bool,
    /// Whether Python takes it by position too (the required ones, then [`Job::POSITIONAL`]).
    pub positional: bool,
    /// Its help, as `--help` prints it beside the option, with the job's default where it has one.
    pub help: String,
}

/// A job's Python function: its name, keywords in the function's order, and docstring.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Signature {
    /// The job's name, the function's.
    pub name: &'static str,
    /// The parameters: the required keywords in the command's order, then [`Job::POSITIONAL`], then the
    /// rest (keyword-only) in the command's order.
    pub keywords: Vec<Keyword>,
    /// The docstring: [`Job::ABOUT`], what the call returns, and each keyword's help.
    pub doc: String,
}

impl Signature {
    /// The signature of the job `J`, from its keywords' command-line declaration.
    pub fn of<J: Job + Args>() -> Signature {
        let command = J::augment_args(clap::Command::new(J::NAME));
        let mut keywords: Vec<Keyword> = command
            .get_arguments()
            .map(|arg| {
                let name = arg.get_id().to_string();
                let mut help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                let defaults: Vec<String> =
                    arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
                if !defaults.is_empty() && !matches!(Kind::of(arg), Kind::Flag) {
                    help += &format!(" [default: {}]", defaults.join(","));
                }
                let required = arg.is_required_set();
                let positional = required || J::POSITIONAL.contains(&name.as_str());
                Keyword { name, kind: Kind::of(arg), required, positional, help }
            })
            .collect();
        // Required first, then the listed positional ones in their order, then the rest.
        let rank = |k: &Keyword| match (k.required, J::POSITIONAL.iter().position(|p| *p == k.name)) {
            (true, _) => 0,
            (false, Some(i)) => 1 + i,
            (false, None) => usize::MAX,
        };
        keywords.sort_by_key(rank);
        let mut doc = format!(
            "{}.\n\nReturns ``pbdfit {} --json``'s report as a dict (the same job). Keywords (``None``: the \
             job's default):\n",
            J::ABOUT,
            J::NAME
        );
        for k in &keywords {
            doc += &format!("\n    {}: {}", k.name, k.help.replace('\n', " "));
        }
        doc.push('\n');
        Signature { name: J::NAME, keywords, doc }
    }
}

/// The keywords of `J` from its command line's options `args` (without the command's name), as the JSON
/// object Python sends; a refused option is clap's message.
pub fn keywords_from_args<J: Job + Args + FromArgMatches>(args: &[&str]) -> Result<String, String> {
    let command = J::augment_args(clap::Command::new(J::NAME).no_binary_name(true));
    let matches = command.try_get_matches_from(args).map_err(|e| e.to_string())?;
    let job = J::from_arg_matches(&matches).map_err(|e| e.to_string())?;
    serde_json::to_string(&job).map_err(|e| e.to_string())
}
