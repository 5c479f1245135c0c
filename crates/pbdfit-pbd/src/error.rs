/// Why a PBD simulation has no usable result. Messages name the parameters and the scene.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum PbdError {
    /// A parameter is outside its allowed range.
    #[error("invalid parameter {name} = {}: {allowed}", pbdfit_mesh::display::exact(*.value))]
    InvalidParameter {
        /// Parameter name (e.g. `kd`, `dt`).
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is allowed.
        allowed: String,
    },
    /// The simulation blew up: NaN, or a displacement larger than the body.
    #[error("scene {scene}: simulation diverged with {params} after {sweeps} projection sweeps ({reason})")]
    Diverged {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// Sweeps done when it was detected.
        sweeps: usize,
        /// What was seen.
        reason: String,
    },
    /// A stepped rest state that failed because the body turns rigidly about its held particles: its free
    /// part's motion is mostly a rotation about them (a rotation fitted about the held particles' centre
    /// leaves at most a quarter of its mass-weighted squared displacement), by at least 10 degrees, about an
    /// axis within 30 degrees of gravity's (about which gravity exerts no torque: a body drooping about its
    /// hold stays [`PbdError::Diverged`]).
    /// Not a blow-up: the sweeps' false torque (a Gauss-Seidel sweep in a fixed order leaves a net moment,
    /// as the solids' spin on a frictionless floor) turns a body that one particle holds. Fewer iterations
    /// may give a rest state (the draped film held at its centre particle rests at one iteration per step).
    #[error(
        "scene {scene}: no rest state with {params}: the body turns about its hold ({} degrees after {} s; \
         a rigid rotation about the held particles makes {}% of the free part's motion) after {sweeps} \
         projection sweeps (the sweeps' false torque turns a body its hold does not stop from turning; fewer \
         iterations may let it rest)",
        pbdfit_mesh::display::number((*.degrees * 10.0).round() / 10.0),
        pbdfit_mesh::display::number((*.seconds * 1e3).round() / 1e3),
        pbdfit_mesh::display::number((100.0 * *.rigid).round())
    )]
    Turns {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// Sweeps done when it was detected.
        sweeps: usize,
        /// The free part's rotation about the held particles (degrees, 0 to 180).
        degrees: f64,
        /// Simulated time from the start of the run (s).
        seconds: f64,
        /// The share of the free part's motion (mass-weighted squared displacement) that the rotation makes.
        rigid: f64,
    },
    /// The gradient search's give-up of an engine profile's point whose body went beyond its own size and
    /// stayed there without coming to rest: not a divergence (the point may rest further out, which
    /// `simulate` finds), but no fit's minimum, so the search does not spend its budget on it.
    #[error(
        "scene {scene}: with {params} the body went {} m out, beyond its own size ({} m), and stayed beyond it \
         for {} s without coming to rest after {sweeps} projection sweeps: the search leaves such a point out \
         (no fit's minimum; simulate finds its rest state, if it has one)",
        pbdfit_mesh::display::number(*largest),
        pbdfit_mesh::display::number(*extent),
        pbdfit_mesh::display::number(*seconds)
    )]
    OutOfReach {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// Sweeps done when the point was left out.
        sweeps: usize,
        /// The largest displacement then (m).
        largest: f64,
        /// The body's size (m).
        extent: f64,
        /// How long (simulated s) the body stayed beyond its size.
        seconds: f64,
    },
    /// The step map's fixed point repels (an engine's Jacobi overshoot): the engine's simulation never
    /// settles there, so there is no rest state.
    #[error(
        "scene {scene}: no stable rest state with {params}: the engine's step moves away from its fixed point \
         (spectral radius of the step map about {radius:.4} > 1: its simulation oscillates or blows up there); \
         {}a smaller dt or softer parameters may have one", lower_relaxation(.relaxation)
    )]
    Unstable {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// The estimated spectral radius.
        radius: f64,
        /// The engine's relaxation setting (`relaxation`, `stretch_relaxation`; `None` for Jacobi passes
        /// without one, as Newton's cloth).
        relaxation: Option<&'static str>,
    },
    /// A tetrahedron inverted (non-positive volume) in the rest state.
    #[error("scene {scene}: tetrahedron {tet} inverted (volume {volume:e} m^3) with {params}")]
    InvertedTet {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// Tetrahedron index.
        tet: usize,
        /// Its volume in the rest state.
        volume: f64,
    },
    /// A setting outside its range.
    #[error("invalid setting {name} = {}: allowed {range}", pbdfit_mesh::display::exact(*.value))]
    InvalidSetting {
        /// Setting name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The allowed range, e.g. `[0, 1)`.
        range: String,
    },
    /// A setting given as a word that is neither a number nor one of the setting's words.
    #[error("setting {name} = {word}: `{word}` is not a number, nor a word of model {model}'s {name} ({words})")]
    SettingWord {
        /// Model name.
        model: &'static str,
        /// Setting name.
        name: &'static str,
        /// The word given.
        word: String,
        /// The setting's words and the values they stand for (`none` where it has none).
        words: String,
    },
    /// A setting the model does not have.
    #[error("model {model} has no setting `{name}`: {allowed}")]
    UnknownSetting {
        /// Model name.
        model: &'static str,
        /// The name given.
        name: String,
        /// The settings it has, with their ranges and defaults.
        allowed: String,
    },
    /// A setting given twice.
    #[error("setting `{name}` is given twice")]
    RepeatedSetting {
        /// The name.
        name: String,
    },
    /// A model name that is not registered.
    #[error("unknown model `{name}`: the models are {allowed}")]
    UnknownModel {
        /// The name given.
        name: String,
        /// The registered names.
        allowed: String,
    },
    /// A model was given the wrong number of parameter values.
    #[error("model {model} takes {expected} parameters, got {got}")]
    ParameterCount {
        /// Model name.
        model: &'static str,
        /// Its parameter count.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// No rest state within the step budget.
    #[error(
        "scene {scene}: no rest state with {params} within {sweeps} projection sweeps (last relative step {residual:e})"
    )]
    NotConverged {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// Sweeps done.
        sweeps: usize,
        /// Last relative per-step displacement.
        residual: f64,
    },
    /// The linear solve of a rest state's sensitivity did not converge (a rest state at the edge of
    /// stability, where `I - dPhi/du` is nearly singular), or a mass-spring tangent is singular.
    #[error(
        "scene {scene}: no sensitivity to {parameter} at the rest state with {params} ({products} Jacobian-vector \
         products, relative residual {residual:e})"
    )]
    SensitivityNotConverged {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// The parameter whose derivative failed.
        parameter: &'static str,
        /// Jacobian-vector products spent (0 for a singular tangent).
        products: usize,
        /// Last relative residual.
        residual: f64,
    },
    /// A rest-state method that does not exist for the model.
    #[error("model {model}: {what}")]
    Unsupported {
        /// Model name.
        model: String,
        /// What is not supported, and what is.
        what: &'static str,
    },
    /// The body has rigid obstacles and the computation asked for does not model contact.
    #[error("scene {scene} has {obstacles} obstacle(s): {what}")]
    Contact {
        /// Scene name.
        scene: String,
        /// Its obstacles.
        obstacles: usize,
        /// What is not available with contact, and what to use instead.
        what: &'static str,
    },
    /// A projection step was asked of a model that has none (mass-spring: Newton rest state, integrators).
    #[error(
        "model {model} has no projection step: its rest state is a Newton equilibrium and its dynamics use an \
         integrator (--integrator)"
    )]
    NoProjection {
        /// Model name.
        model: &'static str,
    },
    /// A model given a body of the other kind: a cloth model on a solid, or a solid model on a sheet.
    #[error(
        "scene {scene}: model {model} simulates {model_body}, and this scene's body is {body}; choose a model \
         for {body} (pbdfit's model list says which body each takes)"
    )]
    BodyKind {
        /// Scene name.
        scene: String,
        /// Model name.
        model: &'static str,
        /// The kind of body the model simulates.
        model_body: crate::BodyKind,
        /// The kind of body the scene has.
        body: crate::BodyKind,
    },
    /// A volume constraint asked of a sheet whose surface is open (`volume=on` on a cloth model).
    #[error("scene {scene}: model {model} with volume=on needs a closed surface: {source}")]
    OpenSurface {
        /// Scene name.
        scene: String,
        /// Model name.
        model: &'static str,
        /// The open edge (boxed: the error stays small).
        source: Box<pbdfit_mesh::SheetError>,
    },
    /// A time step whose load motion vanishes against the body (`crate::MIN_STEP_MOTION`): the rest
    /// state's test cannot tell rest from a body that has not moved yet.
    #[error(
        "scene {scene}: dt = {dt:e} s is too small for this body: one step from rest moves it by {motion:.3e} m \
         under its load, which the rest state cannot resolve against the body's size ({size} m); the smallest \
         step resolved is {smallest:.3e} s",
        size = pbdfit_mesh::display::number(*.extent)
    )]
    UnresolvedStep {
        /// Scene name.
        scene: String,
        /// The time step (s).
        dt: f64,
        /// The load's motion over one step (or an engine's substep) from rest (m).
        motion: f64,
        /// The body's extent (m).
        extent: f64,
        /// The smallest time step whose motion the rest state resolves (s).
        smallest: f64,
    },
    /// An engine's settings remove the body's load (a gravity factor of 0): every state is at rest and
    /// every parameter fits alike.
    #[error(
        "scene {scene}: model {model}: {cause}: the settings remove the load, so the body never moves from its \
         undeformed shape and every parameter scores the same; give a gravity factor > 0"
    )]
    NoLoad {
        /// Scene name.
        scene: String,
        /// Model name.
        model: &'static str,
        /// Which setting removes it, with its value (`gravity_factor = 0 removes gravity`).
        cause: String,
    },
    /// A mass-spring model found no rest state or its dynamics failed.
    #[error("scene {scene}: {params}: {error}")]
    MassSpring {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// What happened.
        error: Box<crate::SpringError>,
    },
    /// The computation was asked to stop ([`pbdfit_mesh::cancel`]).
    #[error(transparent)]
    Cancelled(#[from] pbdfit_mesh::cancel::Cancelled),
}

/// The advice on an engine's relaxation setting for [`PbdError::Unstable`] (none where it has none).
fn lower_relaxation(relaxation: &Option<&str>) -> String {
    relaxation.map_or_else(String::new, |r| format!("a smaller {r} (--setting {r}=...), "))
}

#[cfg(test)]
mod unstable_message {
    use super::PbdError;

    #[test]
    fn an_unstable_point_suggests_the_relaxation_only_where_the_engine_has_one() {
        let message = |relaxation| {
            PbdError::Unstable { scene: "s".into(), params: "p".into(), radius: 1.2, relaxation }.to_string()
        };
        let with = message(Some("relaxation"));
        assert!(with.contains("; a smaller relaxation (--setting relaxation=...), a smaller dt or softer"), "{with}");
        let without = message(None);
        assert!(without.contains("blows up there); a smaller dt or softer parameters"), "{without}");
    }
}
