/// Why a PBD simulation has no usable result. Messages name the parameters and the scene.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum PbdError {
    /// A parameter is outside its allowed range.
    #[error("invalid parameter {name} = {value}: {allowed}")]
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
         (spectral radius of the step map about {radius:.4} > 1; its simulation oscillates or blows up there, as \
         Newton's Jacobi passes do on tetrahedra in compression); a smaller {relaxation} (--setting \
         {relaxation}=...), a smaller dt or softer parameters may have one"
    )]
    Unstable {
        /// Scene name.
        scene: String,
        /// The parameters, formatted.
        params: String,
        /// The estimated spectral radius.
        radius: f64,
        /// The engine's relaxation setting (`relaxation`, `stretch_relaxation`).
        relaxation: &'static str,
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
    #[error("invalid setting {name} = {value}: allowed {range}")]
    InvalidSetting {
        /// Setting name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The allowed range, e.g. `[0, 1)`.
        range: String,
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
}
