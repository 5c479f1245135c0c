//! Error types of the FEM reference.

/// Material parameters outside the range where small-strain isotropic linear elasticity is defined.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MaterialError {
    /// Young's modulus not a finite number > 0.
    #[error("Young's modulus E = {0} Pa is not allowed: E must be a finite number > 0 Pa")]
    Young(f64),
    /// Poisson ratio outside the open interval (-1, 0.5).
    #[error(
        "Poisson ratio nu = {0} is not allowed: nu must satisfy -1 < nu < 0.5 \
         (at 0.5 the material is incompressible and the Lame parameter lambda is infinite)"
    )]
    Poisson(f64),
}

/// Why a static FEM solve failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FemError {
    /// The material parameters are invalid.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// A tetrahedron has zero or negative volume, so its shape-function gradients do not exist.
    #[error("tetrahedron {tet} is degenerate or inverted (signed volume {volume:e} m^3)")]
    DegenerateElement {
        /// Tetrahedron index (or 0 for a lone element).
        tet: usize,
        /// Its signed volume in m^3.
        volume: f64,
    },
    /// The constrained (held) vertices do not stop rigid motion, so the stiffness matrix is singular.
    #[error(
        "the body is not held well enough: {0}. Hold at least three vertices that are not on one line \
         (e.g. a whole face of the cube)"
    )]
    NotHeld(String),
    /// The body has rigid obstacles, and this solve does not model contact: the dynamic reference, or a
    /// linear solve with an explicitly chosen solver ([`StaticProblem::solve_with`](crate::StaticProblem::solve_with)).
    #[error(
        "the body has {0} obstacle(s): this solve does not model contact (only the static reference does: \
         solve = \"static\"), and a rest state without it would be wrong"
    )]
    ContactUnsupported(usize),
    /// The held vertices and the contacts leave a rigid motion of the body free (a frictionless body
    /// resting on an obstacle can slide or spin; a body touching nothing can fall), so it has no
    /// unique static equilibrium.
    #[error(
        "the body is not held: {free} rigid motion(s) stay free with {contacts} vertex contact(s) at load factor \
         {load:.4} {}",
        free_motion_remedy(*contacts, *frictional)
    )]
    FreeRigidMotion {
        /// Rigid motions (of six) left free.
        free: usize,
        /// Active vertex-obstacle contacts.
        contacts: usize,
        /// Load factor (0..1) of the increment.
        load: f64,
        /// Whether a touching obstacle has friction (which then cannot be the remedy).
        frictional: bool,
    },
    /// Friction is at its limit on slipping contacts and nothing else holds the body: it slides, so
    /// there is no static equilibrium (a block on an incline steeper than its friction angle).
    #[error(
        "the body slides: at load factor {load:.4}, {slipping} of {contacts} contact(s) slip and the rest cannot \
         hold it, so there is no static equilibrium (the load's tangential part exceeds what friction carries; \
         raise static_friction or hold vertices)"
    )]
    Sliding {
        /// Load factor (0..1) of the increment.
        load: f64,
        /// Slipping vertex-obstacle contacts.
        slipping: usize,
        /// Active vertex-obstacle contacts.
        contacts: usize,
    },
    /// The contact iteration (active set, stick/slip and Newton) did not settle even on the smallest
    /// load increment.
    #[error(
        "the contact solve did not converge at load factor {load:.4}: relative residual {residual:.3e} after \
         {iterations} iterations with {changes} changes of contact state; try more load increments"
    )]
    ContactNotConverged {
        /// Load factor (0..1) reached.
        load: f64,
        /// Iterations of the last attempt.
        iterations: usize,
        /// Projected relative residual at the end.
        residual: f64,
        /// Contact state changes (open/closed, stick/slip) during the attempt.
        changes: usize,
    },
    /// A free vertex belongs to no tetrahedron, so nothing resists its motion.
    #[error("vertex {0} is free but belongs to no tetrahedron: the stiffness matrix would be singular")]
    OrphanVertex(usize),
    /// An input array has the wrong length.
    #[error("{what} has {got} entries, expected {expected} (one per vertex)")]
    SizeMismatch {
        /// Which input.
        what: &'static str,
        /// Required length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// The sparse Cholesky factorisation failed (the matrix is not symmetric positive definite).
    #[error("{solver}: the stiffness matrix is not positive definite ({detail})")]
    NotPositiveDefinite {
        /// Solver name.
        solver: &'static str,
        /// What the factorisation reported.
        detail: String,
    },
    /// The iterative solver stopped before reaching its tolerance.
    #[error(
        "{solver} did not converge: relative residual {residual:e} after {iterations} iterations \
         (tolerance {tolerance:e})"
    )]
    NotConverged {
        /// Solver name.
        solver: &'static str,
        /// Iterations done.
        iterations: usize,
        /// Final relative residual |f - K u| / |f|.
        residual: f64,
        /// Required relative residual.
        tolerance: f64,
    },
    /// A `[reference]` field (or the matching command-line option) has a value the reference does not
    /// support.
    #[error("reference {key} = {value} is not supported: allowed {allowed}")]
    InvalidReference {
        /// The field (`material`, `solve`, `time`, `mass`, `damping`, `split`).
        key: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// An element turned inside out (`det F <= 0`) for a law that is undefined there.
    #[error(
        "tetrahedron {tet} inverted (det F = {det:.3e}){}: the load is too large for one step; \
         use more load steps (or a smaller load), or a material defined for inverted elements",
        load.map(|l| format!(" at load factor {l:.4}")).unwrap_or_default()
    )]
    InvertedElement {
        /// Tetrahedron index.
        tet: usize,
        /// Its `det F`.
        det: f64,
        /// The load factor (0..1) of the load step in which it happened, where known.
        load: Option<f64>,
    },
    /// Newton's method failed on a load step even with the smallest allowed increment.
    #[error(
        "Newton's method failed for {material} at load factor {load:.4} (increment {increment:.3e}): \
         relative residual {residual:.3e} after {iterations} iterations (tolerance {tolerance:.0e}); \
         the load may exceed what the material can carry (e.g. St. Venant-Kirchhoff collapses under \
         strong compression), try a smaller load"
    )]
    NewtonFailed {
        /// Material name.
        material: &'static str,
        /// Load factor (0..1) reached.
        load: f64,
        /// The last increment tried.
        increment: f64,
        /// The relative residual at the end.
        residual: f64,
        /// Iterations of the last attempt.
        iterations: usize,
        /// Required relative residual.
        tolerance: f64,
    },
    /// A dynamic solve did not come to rest within its step budget.
    #[error(
        "the dynamic solve did not come to rest in {steps} steps of dt = {dt} s ({time:.3} s simulated): \
         the largest step displacement is still {ratio:.3e} of the largest displacement (rest below \
         {tolerance:.0e}); add damping or give a fixed time"
    )]
    NotAtRest {
        /// Steps taken.
        steps: usize,
        /// Time step (s).
        dt: f64,
        /// Simulated time (s).
        time: f64,
        /// The last step's ratio.
        ratio: f64,
        /// The rest rule's ratio.
        tolerance: f64,
    },
    /// A dynamic solve for a fixed time would take more steps than its budget.
    #[error(
        "the dynamic solve would take {steps:.3e} steps of dt = {dt} s to simulate {time:e} s; at most {limit} \
         (give a larger dt or a shorter time)"
    )]
    TooManySteps {
        /// Steps the time asks for.
        steps: f64,
        /// The budget.
        limit: usize,
        /// Time step (s).
        dt: f64,
        /// Simulated time asked for (s).
        time: f64,
    },
    /// The solution is not a finite number at some vertex: the material, density and loads are
    /// outside what f64 can solve (or a displacement's squared norm overflows).
    #[error(
        "the displacement of vertex {vertex} ({displacement:?} m) or its length is not finite in f64: Young's \
         modulus (young) is too small for the loads (material.density with load.gravity, load.traction), or \
         they too large for it"
    )]
    NotFinite {
        /// The first such vertex.
        vertex: usize,
        /// Its displacement, m.
        displacement: [f64; 3],
    },
    /// The linear solver failed for another reason (out of memory, index overflow).
    #[error("{solver}: {detail}")]
    Solver {
        /// Solver name.
        solver: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// The computation was asked to stop ([`pbdfit_mesh::cancel`]).
    #[error(transparent)]
    Cancelled(#[from] pbdfit_mesh::cancel::Cancelled),
}

impl FemError {
    /// Whether the user's input explains the failure (a material, a body held too little, a load the
    /// material cannot carry, a reference option), rather than pbdfit or the machine: an input array of
    /// the wrong length, a degenerate element in a body the scene loader has already validated, a linear
    /// solver that failed for want of memory.
    ///
    /// Every variant is named (no wildcard), so a new one must be classified where it is added.
    pub fn is_input(&self) -> bool {
        match self {
            FemError::Material(_)
            | FemError::NotHeld(_)
            | FemError::ContactUnsupported(_)
            | FemError::FreeRigidMotion { .. }
            | FemError::Sliding { .. }
            | FemError::ContactNotConverged { .. }
            | FemError::OrphanVertex(_)
            | FemError::NotPositiveDefinite { .. }
            | FemError::NotConverged { .. }
            | FemError::InvalidReference { .. }
            | FemError::InvertedElement { .. }
            | FemError::NewtonFailed { .. }
            | FemError::NotAtRest { .. }
            | FemError::TooManySteps { .. }
            | FemError::NotFinite { .. }
            // The user's doing (Ctrl-C), not pbdfit's.
            | FemError::Cancelled(_) => true,
            FemError::DegenerateElement { .. } | FemError::SizeMismatch { .. } | FemError::Solver { .. } => false,
        }
    }
}

/// What holds a body whose rigid motions stay free ([`FemError::FreeRigidMotion`]): the cause differs
/// with what it touches, and so does the remedy.
fn free_motion_remedy(contacts: usize, frictional: bool) -> &'static str {
    if contacts == 0 {
        "(it touches no obstacle, so nothing carries its load); hold vertices, or place an obstacle where it rests"
    } else if frictional {
        "(the contacts' friction holds only what they touch: a body on too few contacts can still turn or lift \
         off); hold vertices, or let the body rest on more of its surface"
    } else {
        "(frictionless contact only pushes along the normal); hold vertices, or give the obstacle friction \
         (static_friction > 0)"
    }
}
