//! Model kinds (one file each under `models/`, an engine profile's in its engine's file under `engines/`),
//! their parameters, and their family's rule they fold into ([`Fold`]: projection, engine profile or
//! mass-spring): the one place where a model's parameters become the constants the CPU sweep, the engines'
//! steps, the spring forces and the GPU kernels read.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use crate::cloth::ClothRule;
use crate::engines::EngineRule;
use crate::models::MODELS;
use crate::{MAX_TETRAHEDRON_TERMS, PbdError, SpringLaw, SpringPotential, TetrahedronTerm};

/// How a parameter is searched: the value itself, or its base-10 logarithm (for parameters spanning
/// decades, like compliances).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scale {
    /// Search the value on a linear scale.
    Linear,
    /// Search `log10` of the value; the value must stay > 0.
    Log10,
}

/// One parameter of a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParameterSpec {
    /// Name on the command line (`--box NAME=LO:HI`), in results columns and in JSON, e.g. `kd`.
    pub name: &'static str,
    /// Unit (`1` for dimensionless), unless one of [`Self::units_when`] applies.
    pub unit: &'static str,
    /// Other units the parameter takes under some settings (`jolt-cloth`'s `bend_compliance` is m/N with
    /// `bend=distance`, rad/(N m) with `bend=dihedral`): [`ModelKind::parameters`] gives each parameter the
    /// unit of the kind's settings ([`Self::unit_for`]).
    pub units_when: &'static [UnitWhen],
    /// A setting and its value under which the parameter acts on nothing (`jolt-cloth`'s `bend_compliance`
    /// with `bend=none`, which makes no bend constraints): a fit cannot determine it there
    /// ([`ModelKind::inert_parameters`]).
    pub inert_when: Option<(&'static str, f64)>,
    /// What it is, for help texts.
    pub description: &'static str,
    /// Search scale.
    pub scale: Scale,
    /// The box searched when the user gives none: `(lower, upper)`.
    pub default_box: (f64, f64),
    /// Smallest allowed value.
    pub minimum: f64,
    /// Largest allowed value.
    pub maximum: f64,
    /// Largest allowed value with the unbounded flag (experimental stiffness above 1).
    pub maximum_unbounded: f64,
}

impl ParameterSpec {
    /// A positive parameter searched on a log10 scale (compliances, spring constants): allowed from 0
    /// to infinity, `default_box` searched when the user gives none.
    pub const fn log10(
        name: &'static str,
        unit: &'static str,
        description: &'static str,
        default_box: (f64, f64),
    ) -> Self {
        ParameterSpec {
            name,
            unit,
            units_when: &[],
            inert_when: None,
            description,
            scale: Scale::Log10,
            default_box,
            minimum: 0.0,
            maximum: f64::INFINITY,
            maximum_unbounded: f64::INFINITY,
        }
    }

    /// The parameter with other units under some settings ([`Self::units_when`]).
    pub const fn with_units_when(self, units_when: &'static [UnitWhen]) -> Self {
        ParameterSpec { units_when, ..self }
    }

    /// The parameter acting on nothing while the setting `setting` has the value `value`
    /// ([`Self::inert_when`]).
    pub const fn inert_when(self, setting: &'static str, value: f64) -> Self {
        ParameterSpec { inert_when: Some((setting, value)), ..self }
    }

    /// The unit under `kind`'s settings: the first of [`Self::units_when`] whose setting has its value, else
    /// [`Self::unit`].
    pub fn unit_for(&self, kind: ModelKind) -> &'static str {
        let settings = kind.settings();
        let applies =
            |w: &&UnitWhen| settings.iter().any(|&(name, v)| name == w.setting && v.to_bits() == w.value.to_bits());
        self.units_when.iter().find(applies).map_or(self.unit, |w| w.unit)
    }

    /// Checks a value against the allowed range.
    pub fn check(&self, value: f64, unbounded: bool) -> Result<(), PbdError> {
        let maximum = if unbounded { self.maximum_unbounded } else { self.maximum };
        if value.is_finite() && value >= self.minimum && value <= maximum {
            return Ok(());
        }
        // The parameter's own range (every refusal said "[0, 1]", a compliance's too).
        let range = if maximum == f64::INFINITY {
            format!("must be a finite number >= {}", self.minimum)
        } else {
            format!("must be in [{}, {maximum}]", self.minimum)
        };
        let allowed = if !unbounded && self.maximum_unbounded > self.maximum && value.is_finite() && value > maximum {
            format!("{range}; above {maximum} needs the unbounded flag (--unbounded), up to {}", self.maximum_unbounded)
        } else {
            format!("{range} for model parameter {}", self.name)
        };
        Err(PbdError::InvalidParameter { name: self.name, value, allowed })
    }
}

/// A unit a parameter takes when one of its model's settings has one value ([`ParameterSpec::units_when`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitWhen {
    /// The setting's name ([`SettingSpec::name`]).
    pub setting: &'static str,
    /// Its value (a worded setting's number: `bend=dihedral` is 1).
    pub value: f64,
    /// The parameter's unit then.
    pub unit: &'static str,
}

/// The settings a projection rule may depend on besides the parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleSettings {
    /// Time step in s.
    pub dt: f64,
    /// Solver iterations per step (for an engine profile: what the engine calls its iterations or
    /// substeps, see [`ModelDef::nit_means`]).
    pub nit: usize,
    /// The model's own settings ([`ModelDef::settings`], in that order; unused slots 0).
    pub settings: [f64; MAX_SETTINGS],
}

impl RuleSettings {
    /// Settings with a time step and iteration count and the model's settings at `kind`'s values.
    pub fn new(dt: f64, nit: usize, kind: ModelKind) -> Self {
        RuleSettings { dt, nit, settings: kind.settings }
    }
}

/// What `nit` means for the textbook models.
pub(crate) const SOLVER_ITERATIONS: &str = "solver iterations (Gauss-Seidel sweeps) per time step";

/// [`ModelDef::usage`] of a model that is no engine's.
pub(crate) fn no_usage(_: &[f64], _: RuleSettings) -> Vec<String> {
    Vec::new()
}

/// The most engine settings a model may have.
pub const MAX_SETTINGS: usize = 5;

/// The setting by which a sheet profile chooses its masses: 0 lumped, 1 uniform (the sheet's total mass
/// over its vertex count) ([`ModelKind::sheet_masses`]).
pub const MASSES_SETTING: &str = "masses";

/// A setting of an engine profile that is not fitted (relaxation, damping, ...): the engine's own name,
/// its default and allowed range. Given on the command line as `--setting NAME=VALUE`, in study and
/// table files under `[model.settings]`, in Python as `settings={...}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SettingSpec {
    /// The engine's name for it (`relaxation`, `linear_damping`, ...).
    pub name: &'static str,
    /// Unit (`1` for dimensionless).
    pub unit: &'static str,
    /// What it is and where the engine keeps it, for help texts.
    pub description: &'static str,
    /// The engine's default.
    pub default: f64,
    /// Smallest allowed value.
    pub minimum: f64,
    /// Largest allowed value.
    pub maximum: f64,
    /// Whether the upper end is excluded (`[0, 1)`).
    pub maximum_open: bool,
    /// Whether only whole numbers are allowed (iteration counts).
    pub integer: bool,
    /// Whether this is the engine's damping: the knob a motion fit's damping search turns
    /// (`pbdfit motion --fit-damping`); at most one per model.
    pub damps: bool,
    /// Words the command line takes for some values (`order=sorted`), with the values they stand for.
    pub words: &'static [(&'static str, f64)],
}

impl SettingSpec {
    /// A setting of any real value in `[0, 1]` (other ranges: [`Self::within`]), not the damping.
    pub const fn new(name: &'static str, unit: &'static str, description: &'static str, default: f64) -> Self {
        let (minimum, maximum, maximum_open, integer, damps) = (0.0, 1.0, false, false, false);
        SettingSpec { name, unit, description, default, minimum, maximum, maximum_open, integer, damps, words: &[] }
    }

    /// The setting taking only whole numbers.
    pub const fn whole(self) -> Self {
        SettingSpec { integer: true, ..self }
    }

    /// The setting with words for some of its values ([`Self::words`]).
    pub const fn with_words(self, words: &'static [(&'static str, f64)]) -> Self {
        SettingSpec { words, ..self }
    }

    /// The setting with the range `[minimum, maximum]`.
    pub const fn within(self, minimum: f64, maximum: f64) -> Self {
        SettingSpec { minimum, maximum, ..self }
    }

    /// The setting as the engine's damping ([`Self::damps`]).
    pub const fn damping(self) -> Self {
        SettingSpec { damps: true, ..self }
    }

    /// A factor in `[0, 1]` (a relaxation).
    pub const fn fraction(name: &'static str, description: &'static str, default: f64) -> Self {
        SettingSpec::new(name, "1", description, default)
    }

    /// A whole number of passes in `[minimum, 1000]`.
    pub const fn count(name: &'static str, description: &'static str, default: f64, minimum: f64) -> Self {
        SettingSpec { integer: true, ..SettingSpec::new(name, "1", description, default).within(minimum, 1000.0) }
    }

    /// The word this setting has for `value` (`dihedral` for `bend`'s 1), if any.
    pub fn word(&self, value: f64) -> Option<&'static str> {
        self.words.iter().find(|(_, w)| w.to_bits() == value.to_bits()).map(|&(word, _)| word)
    }

    /// The allowed range, for messages: `[0, 1)`.
    pub fn range(&self) -> String {
        let whole = if self.integer { " (a whole number)" } else { "" };
        let words = if self.words.is_empty() {
            String::new()
        } else {
            let words: Vec<String> = self.words.iter().map(|(w, v)| format!("{w} = {v}")).collect();
            format!(", or {}", words.join(", "))
        };
        format!("[{}, {}{}{whole}{words}", self.minimum, self.maximum, if self.maximum_open { ")" } else { "]" })
    }

    /// Checks a value against the range.
    pub fn check(&self, value: f64) -> Result<(), PbdError> {
        let inside = value.is_finite()
            && value >= self.minimum
            && (value < self.maximum || (!self.maximum_open && value == self.maximum))
            && (!self.integer || value.fract() == 0.0);
        if inside { Ok(()) } else { Err(PbdError::InvalidSetting { name: self.name, value, range: self.range() }) }
    }
}

/// A model's definition: what the registries `models!` and `engines!` list.
#[derive(Debug)]
pub struct ModelDef {
    /// Name on the command line and in results (`pbd`, `xpbd`, ...).
    pub name: &'static str,
    /// One line for help texts.
    pub description: &'static str,
    /// The parameters, in order (1 to [`MAX_PARAMETERS`]).
    pub parameters: &'static [ParameterSpec],
    /// The engine settings that are not fitted (0 to [`MAX_SETTINGS`]; none for the textbook models).
    pub settings: &'static [SettingSpec],
    /// What `nit` is for this model, for help texts and results (`solver iterations per step` for the
    /// textbook models; an engine's own name for it, e.g. Jolt's `mNumIterations` substeps).
    pub nit_means: &'static str,
    /// For an engine profile, the lines a user pastes into the engine to get these parameters at this
    /// dt and nit (the engine's own calls and names); none for the textbook models ([`no_usage`]).
    pub usage: fn(&[f64], RuleSettings) -> Vec<String>,
    /// The model's family and how it folds parameter values (in [`Self::parameters`] order) into its rule.
    pub rule: Fold,
    /// A parameter set inside the default box whose rest state the shipped cubes reach in a few thousand
    /// steps at most: the tests that iterate the registry (CPU against GPU, lanes against scalar sweeps)
    /// run every model at it, so a new model is tested there by default.
    pub example: &'static [f64],
    /// The masses of the engine an engine profile reproduces (Genesis and PyBullet: every particle the
    /// same, [`MassModel::Uniform`](pbdfit_mesh::MassModel); Newton's `add_soft_mesh`: lumped), which its
    /// runs use unless the user or the scene file gives other masses (`pbdfit_fit::resolve_mass_model`);
    /// `None` where the model has no convention of its own (the textbook models, the thesis's lumped masses;
    /// Jolt, whose vertices take the masses they are given).
    pub masses: Option<pbdfit_mesh::MassModel>,
}

/// A model's family, and the function that folds its parameter values into the family's rule. The family
/// is the definition's data: every parameter point of a model is of the same family, so the rest state,
/// the sensitivity and the step choose a family's stage once and never rule another family out at run
/// time.
#[derive(Debug, Clone, Copy)]
pub enum Fold {
    /// A projection model's sweep rule.
    Projection(fn(&[f64], RuleSettings) -> ProjectionRule),
    /// An engine profile's step.
    Engine(fn(&[f64], RuleSettings) -> EngineRule),
    /// A mass-spring force law.
    Springs(fn(&[f64], RuleSettings) -> SpringLaw),
    /// A mass-spring force law on a sheet (the mass-spring cloth's structural, shear and bending springs,
    /// `mass_spring/sheet_springs.rs`).
    SheetSprings(fn(&[f64], RuleSettings) -> SpringLaw),
    /// A cloth model's constraints on a sheet (`cloth/`).
    Cloth(fn(&[f64], RuleSettings) -> ClothRule),
    /// An engine profile's step on a sheet (`engines/`, the engine's constraints made of the triangles).
    SheetEngine(fn(&[f64], RuleSettings) -> EngineRule),
}

/// The kind of body a model simulates: its family decides ([`Fold::body_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// A tetrahedral solid (`PbdSystem::new`).
    Solid,
    /// A triangle-mesh sheet (`PbdSystem::sheet`).
    Sheet,
}

impl BodyKind {
    /// `solid (tetrahedra)` or `sheet (triangles)`, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            BodyKind::Solid => "a solid (tetrahedra)",
            BodyKind::Sheet => "a sheet (triangles)",
        }
    }
}

impl std::fmt::Display for BodyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

impl Fold {
    /// The rule at these values and settings.
    pub fn rule(self, values: &[f64], settings: RuleSettings) -> ModelRule {
        match self {
            Fold::Projection(fold) => ModelRule::Projection(fold(values, settings)),
            Fold::Engine(fold) | Fold::SheetEngine(fold) => ModelRule::Engine(fold(values, settings)),
            Fold::Springs(fold) | Fold::SheetSprings(fold) => ModelRule::Springs(fold(values, settings)),
            Fold::Cloth(fold) => ModelRule::Cloth(fold(values, settings)),
        }
    }

    /// The kind of body the family simulates: sheets for cloth, sheet springs and sheet engine profiles,
    /// solids for every other family.
    pub fn body_kind(self) -> BodyKind {
        match self {
            Fold::Cloth(_) | Fold::SheetEngine(_) | Fold::SheetSprings(_) => BodyKind::Sheet,
            Fold::Projection(_) | Fold::Engine(_) | Fold::Springs(_) => BodyKind::Solid,
        }
    }
}

/// What a model's parameters fold into: how its rest state and dynamics are computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ModelRule {
    /// Constraint projection (PBD, XPBD and its spring potentials): the rest state is the fixed point of
    /// one time step, `u* = P(u* + dt^2 g)`, and depends on dt and nit.
    Projection(ProjectionRule),
    /// An engine profile's own step (`engines/`): its solve, substeps, passes and constants; the rest
    /// state is the fixed point of one substep from rest.
    Engine(EngineRule),
    /// A mass-spring force law: the rest state is the static equilibrium of spring forces and gravity,
    /// solved by Newton; it depends on neither dt nor nit (docs/models.md, section Equations). The
    /// law is the model's whole story: the rest state, the sensitivity and the command line's dynamics
    /// read it from here, never from parameter names. Its damping is 0 (damping shapes the path to rest,
    /// not the rest state; a dynamics run sets its own).
    Springs(SpringLaw),
    /// A cloth model's constraints on a sheet (`cloth/`): stepped and projected like the projection
    /// models, with the constraint kinds of its [`ClothRule`]; the rest state is the fixed point of one
    /// step, as theirs.
    Cloth(ClothRule),
}

/// The most parameters a model may have (the search works in 1 to 4 dimensions).
pub const MAX_PARAMETERS: usize = 4;

/// How every constraint's correction is computed for one parameter set, with the model's constants
/// folded in. The CPU sweep specialises on it (no branch on the model in the inner loops) and the GPU
/// encoder packs it into the kernels' parameter words: neither folds stiffness into constants itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProjectionRule {
    /// PBD: `dp = distance_k * (library distance step)`; volume `dp_i = -volume_k 6(V - V0) w_i g_i /
    /// sum_j w_j |g_j|^2` on the unscaled gradients `g = 6 dV/dp` (so `volume_k = kv / (6 scale)` for
    /// gradients `scale * 6 dV/dp`).
    Pbd {
        /// Factor on the distance correction.
        distance_k: f64,
        /// Factor on the volume correction with unscaled gradients.
        volume_k: f64,
        /// `scale` of the volume gradients `scale * 6 dV/dp` (1 for the library, 1/6 for the textbook).
        volume_gradient_scale: f64,
    },
    /// XPBD: `d_lambda = (-C - alpha~ lambda) / (sum w |grad C|^2 + alpha~)`, `alpha~ = alpha / dt^2`;
    /// a constraint whose denominator is 0 is skipped.
    Xpbd {
        /// The distance constraint function (`C = l - l0` for plain XPBD).
        distance_potential: SpringPotential,
        /// `alpha_d / dt^2`.
        distance_alpha_tilde: f64,
        /// `alpha_v / dt^2`.
        volume_alpha_tilde: f64,
        /// `scale` of the volume gradients `scale * 6 dV/dp` (1/6: the true gradient).
        volume_gradient_scale: f64,
        /// Whether the distance constraints are projected (false for a model whose per-tetrahedron
        /// constraints carry its whole elasticity; `distance_*` are then unused).
        distances: bool,
        /// Whether the volume constraints are projected (`volume_alpha_tilde` is then unused).
        volumes: bool,
        /// Per-tetrahedron constraints (`tetrahedra/`, one file per constraint) projected in this order
        /// after each tetrahedron's volume constraint, each with its own compliance; none for plain XPBD.
        tetrahedra: [Option<TetrahedronTerm>; MAX_TETRAHEDRON_TERMS],
    },
}

impl ProjectionRule {
    /// PBD's degenerate threshold on `sum w |6 dV/dp|^2`: the reference's 1e-300 on the scaled sum.
    pub fn volume_degenerate_threshold(&self) -> f64 {
        match *self {
            ProjectionRule::Pbd { volume_gradient_scale: s, .. }
            | ProjectionRule::Xpbd { volume_gradient_scale: s, .. } => 1e-300 / (s * s),
        }
    }

    /// Whether no constraint moves a particle: PBD with `kd = kv = 0`, whose corrections are all
    /// multiplied by 0. A sweep of such a rule leaves every position as it was (up to the sign of a zero
    /// coordinate, and a correction that is not finite, which 0 would turn into NaN: neither arises from a
    /// valid configuration moving rigidly, which is all an inert rule lets the body do), so
    /// [`PbdSystem::sweep`](crate::PbdSystem) skips it. At nit = 32, dt = 0.001 the stepping that finds
    /// such a point's free fall leaving the body took 0.23 s at N = 4, for nothing.
    pub fn is_inert(&self) -> bool {
        matches!(*self, ProjectionRule::Pbd { distance_k, volume_k, .. } if distance_k == 0.0 && volume_k == 0.0)
    }
}

/// A model kind: a registered [`ModelDef`] with values for its engine settings (the defaults unless
/// changed with [`ModelKind::with_setting`]). Parse one by name (`"xpbd".parse::<ModelKind>()`), list
/// them with [`ModelKind::all`], or name a built-in one (`ModelKind::PBD`). The settings travel with the
/// kind through fits, studies and tables, so every rest state of a fit uses them.
#[derive(Clone, Copy)]
pub struct ModelKind {
    pub(crate) def: &'static ModelDef,
    settings: [f64; MAX_SETTINGS],
}

impl ModelKind {
    /// The kind of a registered definition, with its settings at their defaults.
    pub(crate) const fn of(def: &'static ModelDef) -> ModelKind {
        let mut settings = [0.0; MAX_SETTINGS];
        let mut i = 0;
        while i < def.settings.len() {
            settings[i] = def.settings[i].default;
            i += 1;
        }
        ModelKind { def, settings }
    }

    /// The settings' specs, in order.
    pub fn setting_specs(self) -> &'static [SettingSpec] {
        self.def.settings
    }

    /// The engine's damping setting, where it has one ([`SettingSpec::damps`]), and its value.
    pub fn damping_setting(self) -> Option<(&'static SettingSpec, f64)> {
        self.def.settings.iter().zip(self.settings).find(|(s, _)| s.damps)
    }

    /// `(name, value)` of every setting, in order.
    pub fn settings(self) -> Vec<(&'static str, f64)> {
        self.def.settings.iter().zip(self.settings).map(|(s, v)| (s.name, v)).collect()
    }

    /// The settings that differ from the engine's defaults, `name=value` joined by `, ` (empty: none); a
    /// value the setting has a word for is written as the word (`order=sorted`, `bend=dihedral`).
    pub fn changed_settings(self) -> String {
        self.def
            .settings
            .iter()
            .zip(self.settings)
            .filter(|(s, v)| s.default.to_bits() != v.to_bits())
            .map(|(s, v)| match s.word(v) {
                Some(word) => format!("{}={word}", s.name),
                None => format!("{}={}", s.name, pbdfit_mesh::display::exact(v)),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The kind with the setting `name` at `value`: an error naming the setting and its range when the
    /// model has no such setting or the value is outside the range.
    pub fn with_setting(mut self, name: &str, value: f64) -> Result<ModelKind, PbdError> {
        let i = self.setting_index(name)?;
        self.def.settings[i].check(value)?;
        self.settings[i] = value;
        Ok(self)
    }

    /// The index of this kind's setting `name`; a name it lacks is refused with the settings it has.
    fn setting_index(self, name: &str) -> Result<usize, PbdError> {
        self.def.settings.iter().position(|s| s.name == name).ok_or_else(|| PbdError::UnknownSetting {
            model: self.def.name,
            name: name.to_string(),
            allowed: if self.def.settings.is_empty() {
                "it has no settings".to_string()
            } else {
                format!(
                    "its settings are {}",
                    self.def
                        .settings
                        .iter()
                        .map(|s| format!("{} in {} (default {})", s.name, s.range(), s.default))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        })
    }

    /// The value `text` gives this kind's setting `name`: a number, or a word of that setting's
    /// (`order=sorted`: -1), the one lookup of a setting's words (the command line's `--setting`, a
    /// result's spec). A name the kind lacks, or a word its setting lacks, is refused naming both.
    pub fn setting_value(self, name: &str, text: &str) -> Result<f64, PbdError> {
        let text = text.trim();
        if let Ok(value) = text.parse::<f64>() {
            return Ok(value);
        }
        let setting = &self.def.settings[self.setting_index(name)?];
        let word = setting.words.iter().find(|(w, _)| *w == text);
        word.map(|(_, value)| *value).ok_or_else(|| PbdError::SettingWord {
            model: self.def.name,
            name: setting.name,
            word: text.to_string(),
            words: match setting.words {
                [] => "none".to_string(),
                words => words.iter().map(|(w, v)| format!("{w} = {v}")).collect::<Vec<_>>().join(", "),
            },
        })
    }

    /// The kind with every `(name, value)` applied in order; a name given twice is refused.
    pub fn with_settings(self, settings: &[(String, f64)]) -> Result<ModelKind, PbdError> {
        let mut kind = self;
        for (i, (name, value)) in settings.iter().enumerate() {
            if settings[..i].iter().any(|(n, _)| n == name) {
                return Err(PbdError::RepeatedSetting { name: name.clone() });
            }
            kind = kind.with_setting(name, *value)?;
        }
        Ok(kind)
    }

    /// The kind as results record it: the name, and the settings that differ from the engine's defaults
    /// in brackets (`newton-xpbd[relaxation=0.8]`). [`FromStr`] reads it back, so a results folder, a
    /// table or a summary written with changed settings is read with the same settings, and a folder
    /// made with other settings is refused as another model's.
    pub fn spec(self) -> String {
        let changed = self.changed_settings();
        if changed.is_empty() {
            self.def.name.to_string()
        } else {
            format!("{}[{}]", self.def.name, changed.replace(", ", ","))
        }
    }

    /// What `nit` means for this model.
    pub fn nit_means(self) -> &'static str {
        self.def.nit_means
    }

    /// The masses of the model's engine ([`ModelDef::masses`]); `None`: no convention of its own.
    pub fn engine_masses(self) -> Option<pbdfit_mesh::MassModel> {
        self.def.masses
    }

    /// The masses a sheet's particles have under this model: its engine's where it has a convention
    /// (`genesis-cloth`'s step gives every particle the same mass), else lumped, as every sheet model's.
    /// A profile with the setting `masses` ([`MASSES_SETTING`]: `jolt-cloth`) has lumped masses at 0 and
    /// uniform ones at 1.
    pub fn sheet_masses(self) -> pbdfit_mesh::MassModel {
        match self.settings().into_iter().find(|(name, _)| *name == MASSES_SETTING) {
            Some((_, uniform)) => {
                if uniform == 1.0 {
                    pbdfit_mesh::MassModel::Uniform
                } else {
                    pbdfit_mesh::MassModel::Lumped
                }
            }
            None => self.def.masses.unwrap_or(pbdfit_mesh::MassModel::Lumped),
        }
    }

    /// The parameters that act on nothing under this kind's settings ([`ParameterSpec::inert_when`]), each
    /// with the setting that makes it so, as `NAME=VALUE` (the value's word where it has one: `bend=none`).
    pub fn inert_parameters(self) -> Vec<(&'static str, String)> {
        let settings = self.settings();
        self.def
            .parameters
            .iter()
            .filter_map(|p| {
                let (name, value) = p.inert_when?;
                settings.iter().any(|&(n, v)| n == name && v == value).then(|| {
                    let spec = self.setting_specs().iter().find(|s| s.name == name);
                    let shown = spec.and_then(|s| s.word(value)).map_or_else(|| value.to_string(), str::to_string);
                    (p.name, format!("{name}={shown}"))
                })
            })
            .collect()
    }

    /// Every registered model kind.
    pub fn all() -> &'static [ModelKind] {
        static ALL: LazyLock<Vec<ModelKind>> = LazyLock::new(|| MODELS.iter().map(|d| ModelKind::of(d)).collect());
        &ALL
    }

    /// The definition.
    pub fn def(self) -> &'static ModelDef {
        self.def
    }

    /// The name on the command line and in results.
    pub fn name(self) -> &'static str {
        self.def.name
    }

    /// The parameters, in order, each with its unit under this kind's settings ([`ParameterSpec::unit_for`]).
    pub fn parameters(self) -> Vec<ParameterSpec> {
        self.def.parameters.iter().map(|p| ParameterSpec { unit: p.unit_for(self), ..*p }).collect()
    }

    /// The parameter called `name`, with its index (and its unit under this kind's settings).
    pub fn parameter(self, name: &str) -> Option<(usize, ParameterSpec)> {
        self.parameters().into_iter().enumerate().find(|(_, p)| p.name == name)
    }

    /// Whether the model projects constraints (PBD, XPBD) rather than applying spring forces
    /// (mass-spring: Newton rest state, integrators).
    pub fn has_projection(self) -> bool {
        !matches!(self.def.rule, Fold::Springs(_) | Fold::SheetSprings(_))
    }

    /// The kind of body the model simulates ([`Fold::body_kind`]).
    pub fn body_kind(self) -> BodyKind {
        self.def.rule.body_kind()
    }

    /// Whether the model is an engine profile (`newton-xpbd`, `jolt`, `genesis-pbd`): its own step, not the
    /// colour-order sweep of the textbook models.
    pub fn is_engine_profile(self) -> bool {
        matches!(self.def.rule, Fold::Engine(_) | Fold::SheetEngine(_))
    }

    /// Where one of the model's paste lines gives the engine other parameters than `values`, the fitted
    /// ones: the line's name and the parameter values it makes (Jolt's Godot line: the printed
    /// `linear_stiffness`, clamped to [0, 1], and no volume constraint), for the fit to evaluate. Empty
    /// where every line carries the fitted values.
    /// Each comes with the kind it runs under (Godot's sheet: `jolt-cloth` with `bend=none` and uniform
    /// masses).
    pub fn pasted_bodies(self, values: &[f64]) -> Vec<(&'static str, ModelKind, Vec<f64>)> {
        crate::models::pasted_bodies(self, values)
    }

    /// The parameter names joined by `, ` (for messages).
    pub fn parameter_names(self) -> String {
        self.def.parameters.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
    }

    /// The model at its registered example parameters ([`ModelDef::example`]).
    pub fn example(self) -> Model {
        self.with(self.def.example).expect("a registered example has one value per parameter")
    }

    /// The model with these parameter values (in [`Self::parameters`] order).
    pub fn with(self, values: &[f64]) -> Result<Model, PbdError> {
        if values.len() != self.def.parameters.len() {
            return Err(PbdError::ParameterCount {
                model: self.name(),
                expected: self.def.parameters.len(),
                got: values.len(),
            });
        }
        let mut v = [0.0; MAX_PARAMETERS];
        v[..values.len()].copy_from_slice(values);
        Ok(Model { kind: self, values: v })
    }
}

impl PartialEq for ModelKind {
    fn eq(&self, other: &Self) -> bool {
        (std::ptr::eq(self.def, other.def) || self.def.name == other.def.name)
            && self.settings.iter().zip(&other.settings).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}
impl Eq for ModelKind {}

impl fmt::Debug for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ModelKind({})", self.def.name)
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.def.name)
    }
}

impl FromStr for ModelKind {
    type Err = PbdError;

    /// A model by name, optionally with settings as [`ModelKind::spec`] writes them
    /// (`newton-xpbd[relaxation=0.8,k_damp=0]`); the error lists the names allowed, or names the setting.
    fn from_str(s: &str) -> Result<Self, PbdError> {
        let (name, settings) = match s.strip_suffix(']').and_then(|s| s.split_once('[')) {
            Some((name, list)) => (name, Some(list)),
            None => (s, None),
        };
        let kind =
            ModelKind::all().iter().copied().find(|k| k.name() == name).ok_or_else(|| PbdError::UnknownModel {
                name: s.to_string(),
                allowed: ModelKind::all().iter().map(|k| k.name()).collect::<Vec<_>>().join(", "),
            })?;
        let Some(list) = settings else { return Ok(kind) };
        let mut pairs = Vec::new();
        for item in list.split(',').filter(|i| !i.trim().is_empty()) {
            let Some((name, value)) = item.split_once('=') else {
                return Err(PbdError::UnknownSetting {
                    model: kind.def.name,
                    name: item.to_string(),
                    allowed: "settings are written NAME=VALUE, separated by commas".to_string(),
                });
            };
            // A value, or a word of the setting's (`order=sorted`, as `spec` writes it).
            pairs.push((name.trim().to_string(), kind.setting_value(name.trim(), value)?));
        }
        kind.with_settings(&pairs)
    }
}

impl clap::ValueEnum for ModelKind {
    fn value_variants<'a>() -> &'a [Self] {
        ModelKind::all()
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.def.name).help(self.def.description))
    }
}

/// A model kind with values for all its parameters.
#[derive(Clone, Copy, PartialEq)]
pub struct Model {
    kind: ModelKind,
    values: [f64; MAX_PARAMETERS],
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {{", self.kind.name())?;
        for (p, v) in self.kind.parameters().iter().zip(self.values()) {
            write!(f, " {} = {v}", p.name)?;
        }
        write!(f, " }}")
    }
}

impl Model {
    /// The reference library's PBD with stiffness (kd, kv).
    pub fn pbd(kd: f64, kv: f64) -> Model {
        ModelKind::PBD.with(&[kd, kv]).expect("two parameters")
    }

    /// XPBD with compliances `alpha_d` (m/N) and `alpha_v` (m^6/J).
    pub fn xpbd(alpha_d: f64, alpha_v: f64) -> Model {
        ModelKind::XPBD.with(&[alpha_d, alpha_v]).expect("two parameters")
    }

    /// The kind.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The model's name on the command line and in results files.
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The parameter values, in the kind's order.
    pub fn values(&self) -> &[f64] {
        &self.values[..self.kind.def.parameters.len()]
    }

    /// `(name, value)` pairs.
    pub fn named_values(&self) -> Vec<(&'static str, f64)> {
        self.kind.def.parameters.iter().map(|p| p.name).zip(self.values().iter().copied()).collect()
    }

    /// The value of the parameter called `name`.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.kind.def.parameters.iter().position(|p| p.name == name).map(|i| self.values[i])
    }

    /// The lines to paste into the engine this model profiles, at `dt` and `nit` (empty for the textbook
    /// models).
    pub fn usage(&self, dt: f64, nit: usize) -> Vec<String> {
        (self.kind.def.usage)(self.values(), RuleSettings::new(dt, nit, self.kind))
    }

    /// The model's rule at these settings.
    pub fn rule(&self, settings: RuleSettings) -> ModelRule {
        self.kind.def.rule.rule(self.values(), settings)
    }
}

/// Everything a PBD run needs besides the body: time step, iterations, model, damping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimParams {
    /// Time step in s, > 0.
    pub dt: f64,
    /// Solver iterations (Gauss-Seidel sweeps) per step, >= 1.
    pub nit: usize,
    /// Model and its parameters.
    pub model: Model,
    /// Velocity damping per step in [0, 1) (0: off, the reference library's default). It scales the
    /// previous step's velocity before gravity is added, so it changes the path to rest, never the rest
    /// state (at rest that velocity is zero).
    pub damping: f64,
    /// Allow stiffness above 1 for the PBD variants (experimental: it can overshoot).
    pub allow_unbounded: bool,
}

impl SimParams {
    /// Parameters with no damping and bounded stiffness.
    pub fn new(dt: f64, nit: usize, model: Model) -> Self {
        Self { dt, nit, model, damping: 0.0, allow_unbounded: false }
    }

    /// The model's rule at this dt and nit.
    pub fn rule(&self) -> ModelRule {
        self.model.rule(RuleSettings::new(self.dt, self.nit, self.model.kind()))
    }

    /// The sweep rule of a projection model; an error naming the model for an engine profile (its own
    /// step, no colour-order sweep) or a mass-spring model (its rest state a Newton equilibrium).
    pub fn projection_rule(&self) -> Result<ProjectionRule, PbdError> {
        match self.rule() {
            ModelRule::Projection(rule) => Ok(rule),
            ModelRule::Engine(_) | ModelRule::Springs(_) | ModelRule::Cloth(_) => {
                Err(PbdError::NoProjection { model: self.model.name() })
            }
        }
    }

    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), PbdError> {
        let bad = |name, value, allowed: &str| Err(PbdError::InvalidParameter { name, value, allowed: allowed.into() });
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return bad("dt", self.dt, "the time step must be a finite number > 0 s");
        }
        if self.nit == 0 {
            return bad("nit", 0.0, "at least one solver iteration per step");
        }
        if !(self.damping.is_finite() && (0.0..1.0).contains(&self.damping)) {
            return bad("damping", self.damping, "velocity damping must be in [0, 1)");
        }
        for (spec, &v) in self.model.kind().def.parameters.iter().zip(self.model.values()) {
            spec.check(v, self.allow_unbounded)?;
        }
        Ok(())
    }

    /// The parameters of a model whose rest state depends on neither dt nor nit (mass-spring), for
    /// messages: `model mass-spring, ks = 100`.
    pub fn describe_springs(&self) -> String {
        let number = pbdfit_mesh::display::number;
        let values: Vec<String> =
            self.model.named_values().iter().map(|(n, v)| format!("{n} = {}", number(*v))).collect();
        format!("model {}, {}", self.model.name(), values.join(", "))
    }

    /// The parameters formatted for messages: `model pbd, kd = 0.5, kv = 0.5, dt = 0.01, nit = 1`.
    /// Numbers with six significant digits ([`pbdfit_mesh::display::number`]): results files keep them
    /// exactly, messages are read.
    pub fn describe(&self) -> String {
        let number = pbdfit_mesh::display::number;
        format!("{}, dt = {}, nit = {}", self.describe_springs(), number(self.dt), self.nit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        let ok = SimParams::new(0.01, 1, Model::pbd(0.5, 1.0));
        assert!(ok.validate().is_ok());
        assert!(SimParams { dt: -0.01, ..ok }.validate().is_err());
        assert!(SimParams { dt: 0.0, ..ok }.validate().is_err());
        assert!(SimParams { nit: 0, ..ok }.validate().is_err());
        assert!(SimParams { damping: 1.0, ..ok }.validate().is_err());
        let stiff = SimParams::new(0.01, 1, Model::pbd(1.5, 0.5));
        let e = stiff.validate().unwrap_err().to_string();
        assert!(e.contains("kd") && e.contains("unbounded"), "{e}");
        assert!(SimParams { allow_unbounded: true, ..stiff }.validate().is_ok());
        assert!(SimParams::new(0.01, 1, Model::pbd(-0.1, 0.5)).validate().is_err());
        let lin = ModelKind::PBD_LINEARISED.with(&[1.5, 0.5]).unwrap();
        let e = SimParams { allow_unbounded: true, ..SimParams::new(0.01, 1, lin) }.validate().unwrap_err();
        assert!(e.to_string().contains("must be in [0, 1] for model parameter kd"), "{e}");
        let x = SimParams::new(0.01, 1, Model::xpbd(-1.0, 0.0));
        assert!(x.validate().unwrap_err().to_string().contains("alpha_d"));
    }

    #[test]
    fn kinds_parse_by_name_and_list_what_is_allowed() {
        for kind in ModelKind::all() {
            assert_eq!(kind.name().parse::<ModelKind>().unwrap(), *kind);
            assert_eq!(kind.to_string(), kind.name());
            assert!((1..=MAX_PARAMETERS).contains(&kind.parameters().len()), "{kind}");
            for p in kind.parameters() {
                let (lo, hi) = p.default_box;
                assert!(lo < hi && (p.scale == Scale::Linear || lo > 0.0), "{kind} {}", p.name);
                // A unit that follows a setting names one of the kind's settings at an allowed value.
                for w in p.units_when {
                    let spec = kind.setting_specs().iter().find(|s| s.name == w.setting);
                    assert!(spec.is_some_and(|s| s.check(w.value).is_ok()), "{kind} {}: {w:?}", p.name);
                }
            }
            assert_eq!(kind.def().example.len(), kind.parameters().len(), "{kind}: example");
            for (p, v) in kind.parameters().iter().zip(kind.example().values()) {
                assert!((p.default_box.0..=p.default_box.1).contains(v), "{kind}: example {} = {v}", p.name);
            }
            assert!(SimParams::new(0.01, 1, kind.example()).validate().is_ok(), "{kind}");
            assert!(kind.setting_specs().iter().filter(|s| s.damps).count() <= 1, "{kind}: one damping setting");
        }
        assert_eq!(ModelKind::JOLT.damping_setting().map(|(s, v)| (s.name, v)), Some(("linear_damping", 0.1)));
        assert_eq!(ModelKind::NEWTON_XPBD.damping_setting().map(|(s, v)| (s.name, v)), Some(("k_damp", 0.0)));
        assert!(ModelKind::XPBD.damping_setting().is_none() && ModelKind::GENESIS_PBD.damping_setting().is_none());
        let e = "pbx".parse::<ModelKind>().unwrap_err().to_string();
        let names: Vec<&str> = ModelKind::all().iter().map(|k| k.name()).collect();
        assert!(e.contains("pbx") && e.contains(&names.join(", ")), "every registered model is listed: {e}");
        assert_eq!(ModelKind::XPBD.parameter_names(), "alpha_d, alpha_v");
        assert!(ModelKind::PBD.with(&[0.5]).is_err());
    }

    /// A parameter's unit follows the setting that changes what it is: `jolt-cloth`'s `bend_compliance` is the
    /// compliance of an edge (m/N) with `bend=distance` and of an angle (rad/(N m)) with `bend=dihedral`, in
    /// `parameters` and `parameter` alike; the other parameters keep theirs, and a kind without such a setting
    /// its declared units.
    #[test]
    fn a_parameter_s_unit_follows_its_setting() {
        let units = |kind: ModelKind| kind.parameters().iter().map(|p| p.unit).collect::<Vec<_>>();
        let dihedral: ModelKind = "jolt-cloth[bend=dihedral]".parse().unwrap();
        assert_eq!(units(ModelKind::JOLT_CLOTH), ["m/N", "m/N", "m/N"]);
        assert_eq!(units(dihedral), ["m/N", "m/N", "rad/(N m)"]);
        assert_eq!(dihedral.parameter("bend_compliance").map(|(i, p)| (i, p.unit)), Some((2, "rad/(N m)")));
        let back = dihedral.with_setting("bend", 0.0).unwrap();
        assert_eq!(back.parameter("bend_compliance").unwrap().1.unit, "m/N");
        for kind in ModelKind::all() {
            let declared: Vec<&str> = kind.def().parameters.iter().map(|p| p.unit).collect();
            assert_eq!(units(*kind), declared, "{kind}: its defaults give the declared units");
        }
    }

    /// The folding of parameters into constants, per model (the GPU encoder reads the same rule).
    #[test]
    fn rules_fold_the_parameters() {
        let s = RuleSettings { dt: 0.01, nit: 4, settings: [0.0; MAX_SETTINGS] };
        assert_eq!(
            Model::pbd(0.5, 0.3).rule(s),
            ModelRule::Projection(ProjectionRule::Pbd {
                distance_k: 0.5,
                volume_k: 0.3 / 6.0,
                volume_gradient_scale: 1.0
            })
        );
        let k = 1.0 - 0.5f64.powf(0.25);
        let lin = ModelKind::PBD_LINEARISED.with(&[0.5, 0.5]).unwrap();
        assert_eq!(
            lin.rule(s),
            ModelRule::Projection(ProjectionRule::Pbd { distance_k: k, volume_k: k / 6.0, volume_gradient_scale: 1.0 })
        );
        let tb = SimParams::new(0.01, 4, ModelKind::PBD_TEXTBOOK_VOLUME.with(&[0.5, 0.6]).unwrap())
            .projection_rule()
            .unwrap();
        assert_eq!(
            tb,
            ProjectionRule::Pbd { distance_k: 0.5, volume_k: 0.6 / (6.0 / 6.0), volume_gradient_scale: 1.0 / 6.0 }
        );
        assert_eq!(tb.volume_degenerate_threshold(), 1e-300 / (1.0 / 36.0));
        assert_eq!(
            Model::xpbd(1e-4, 2e-6).rule(s),
            ModelRule::Projection(ProjectionRule::Xpbd {
                distance_potential: SpringPotential::Stretch,
                distance_alpha_tilde: 1e-4 / 1e-4,
                volume_alpha_tilde: 2e-6 / 1e-4,
                volume_gradient_scale: 1.0 / 6.0,
                distances: true,
                volumes: true,
                tetrahedra: [None; 2],
            })
        );
        for (kind, potential) in [
            (ModelKind::XPBD_HOOKEAN, SpringPotential::Hookean),
            (ModelKind::XPBD_STVK, SpringPotential::Stvk),
            (ModelKind::XPBD_MORSE, SpringPotential::Morse),
        ] {
            let rule = SimParams::new(0.01, 4, kind.with(&[1e-4, 2e-6]).unwrap()).projection_rule().unwrap();
            assert!(
                matches!(rule, ProjectionRule::Xpbd { distance_potential: p, distance_alpha_tilde: a, .. }
                    if p == potential && a == 1e-4 / 1e-4),
                "{kind}: {rule:?}"
            );
        }
        let springs = ModelKind::MASS_SPRING_VOLUME.with(&[200.0, 3e3]).unwrap();
        assert_eq!(springs.rule(s), ModelRule::Springs(SpringLaw { ks: 200.0, kvol: 3e3, ..SpringLaw::NONE }));
        let e = SimParams::new(0.01, 1, springs).projection_rule().unwrap_err().to_string();
        assert!(e.contains("mass-spring-volume") && e.contains("Newton"), "{e}");
        assert_eq!(
            ModelKind::MASS_SPRING.with(&[5.0]).unwrap().rule(s),
            ModelRule::Springs(SpringLaw { ks: 5.0, ..SpringLaw::NONE })
        );
    }
}
