//! The FEM reference's options, one type for every place they are given: a scene's or study's or table's
//! `[reference]` table, the command line's flags and Python's keywords. This crate only carries them;
//! pbdfit-fem validates them (`ReferenceSpec::validate`, `ReferenceSpec::from_options`) into the static or
//! dynamic reference and owns the physics, so a new material is a change there alone.

use serde::{Deserialize, Deserializer, Serialize};

/// Which FEM reference a fit matches. Every option is optional; an absent one falls back to the next
/// source (command line or Python over study or table file over scene file over the default, a linear
/// static FEM on the same mesh as the model).
///
/// The command line's flags are `--material`, `--dynamic`, `--time`, `--fem-mass`, `--rayleigh` and
/// `--split`; Python's keywords are the fields' names. A file's table spells three of them its own way,
/// and takes either spelling:
///
/// ```toml
/// [reference]
/// material = "stvk"          # linear | corotational | stvk | neo-hookean
/// solve = "dynamic"          # static | dynamic (or dynamic = true)
/// time = 5.0                 # dynamic only: simulated time in s (absent: run to rest)
/// mass = "lumped"            # dynamic only: lumped | consistent (or fem_mass)
/// damping = [0.0, 0.0]       # dynamic only: Rayleigh a (1/s), b (s) (or rayleigh)
/// split = "same"             # FEM mesh: same (as the model) | opposite (other 5-tet parity) | six
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default, deny_unknown_fields)]
pub struct ReferenceOptions {
    /// Reference material: linear, corotational, stvk or neo-hookean (default: the scene's, else
    /// linear).
    #[arg(long, value_name = "NAME")]
    pub material: Option<String>,
    /// Reach the reference's rest state dynamically (implicit Euler with the fit's dt) instead of by a
    /// static solve.
    #[arg(long)]
    #[serde(alias = "solve", deserialize_with = "solve_or_flag")]
    pub dynamic: bool,
    /// With --dynamic: stop after this simulated time in s instead of at rest.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// With --dynamic: the mass matrix, lumped or consistent.
    #[arg(long, value_name = "lumped|consistent")]
    #[serde(alias = "mass")]
    pub fem_mass: Option<String>,
    /// With --dynamic: Rayleigh damping `A,B` (C = A M + B K; A in 1/s, B in s).
    #[arg(long, value_name = "A,B", value_parser = parse_pair, allow_hyphen_values = true)]
    #[serde(alias = "damping")]
    pub rayleigh: Option<[f64; 2]>,
    /// The FEM mesh's tetrahedral split relative to the model's: same, opposite (the other 5-tet
    /// parity) or six.
    #[arg(long, value_name = "same|opposite|six")]
    pub split: Option<String>,
}

/// `dynamic` as Python and JSON give it (a bool) or a file's `solve` (`"static"` or `"dynamic"`).
fn solve_or_flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Flag(bool),
        Solve(String),
    }
    match Given::deserialize(d)? {
        Given::Flag(b) => Ok(b),
        Given::Solve(s) if s == "static" => Ok(false),
        Given::Solve(s) if s == "dynamic" => Ok(true),
        Given::Solve(s) => {
            Err(serde::de::Error::custom(format!("reference solve = {s} is not supported: allowed static, dynamic")))
        }
    }
}

/// `A,B` (`--rayleigh`).
fn parse_pair(text: &str) -> Result<[f64; 2], String> {
    let (a, b) = text.split_once(',').ok_or_else(|| format!("`{text}`: expected A,B, e.g. 0.1,0"))?;
    let num = |s: &str| s.trim().parse::<f64>().map_err(|_| format!("`{text}`: `{s}` is not a number"));
    Ok([num(a)?, num(b)?])
}

impl ReferenceOptions {
    /// These options, with `lower`'s where this one has none.
    pub fn over(&self, lower: &ReferenceOptions) -> ReferenceOptions {
        ReferenceOptions {
            material: self.material.clone().or_else(|| lower.material.clone()),
            dynamic: self.dynamic || lower.dynamic,
            time: self.time.or(lower.time),
            fem_mass: self.fem_mass.clone().or_else(|| lower.fem_mass.clone()),
            rayleigh: self.rayleigh.or(lower.rayleigh),
            split: self.split.clone().or_else(|| lower.split.clone()),
        }
    }

    /// Only the constitutive law (a model's own FEM in the release test, Python's `material=`).
    pub fn material_only(&self) -> ReferenceOptions {
        ReferenceOptions { material: self.material.clone(), ..Default::default() }
    }

    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        *self == ReferenceOptions::default()
    }

    /// The options set, by their keyword names (`material`, `fem_mass`, ...), sorted.
    pub fn given(&self) -> Vec<&'static str> {
        let set = [
            ("dynamic", self.dynamic),
            ("fem_mass", self.fem_mass.is_some()),
            ("material", self.material.is_some()),
            ("rayleigh", self.rayleigh.is_some()),
            ("split", self.split.is_some()),
            ("time", self.time.is_some()),
        ];
        set.into_iter().filter(|(_, given)| *given).map(|(name, _)| name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_fields_win_and_missing_ones_fall_through() {
        let scene = ReferenceOptions { material: Some("stvk".into()), time: Some(2.0), ..Default::default() };
        let cli = ReferenceOptions { dynamic: true, time: Some(5.0), ..Default::default() };
        let merged = cli.over(&scene);
        assert_eq!(merged.material.as_deref(), Some("stvk"));
        assert!(merged.dynamic);
        assert_eq!(merged.time, Some(5.0));
        assert!(merged.fem_mass.is_none());
        assert!(ReferenceOptions::default().is_empty() && !merged.is_empty());
        assert_eq!(merged.given(), ["dynamic", "material", "time"]);
    }

    /// A file's spelling and Python's give the same options; a solve other than static or dynamic is
    /// refused naming it.
    #[test]
    fn files_and_keywords_spell_the_same_options() {
        let file: ReferenceOptions =
            toml::from_str("solve = \"dynamic\"\nmass = \"consistent\"\ndamping = [0.1, 0.0]").unwrap();
        let keywords: ReferenceOptions =
            toml::from_str("dynamic = true\nfem_mass = \"consistent\"\nrayleigh = [0.1, 0.0]").unwrap();
        assert_eq!(file, keywords);
        let fixed: ReferenceOptions = toml::from_str("solve = \"static\"").unwrap();
        assert!(fixed.is_empty());
        let e = toml::from_str::<ReferenceOptions>("solve = \"quasi\"").unwrap_err().to_string();
        assert!(e.contains("solve = quasi") && e.contains("static, dynamic"), "{e}");
        assert!(toml::from_str::<ReferenceOptions>("materail = \"stvk\"").is_err());
    }

    #[test]
    fn rayleigh_pairs_parse_or_are_refused() {
        assert_eq!(parse_pair("0.1, 0"), Ok([0.1, 0.0]));
        assert!(parse_pair("0.1").unwrap_err().contains("expected A,B"));
        assert!(parse_pair("a,0").unwrap_err().contains("`a` is not a number"));
    }
}
