//! Sheets in a fit: a sheet scene ([`SheetScene`]) loaded with a job's body and material, its shell
//! reference (`pbdfit_fem::shell`: the linear CST + DKT shell, or the corotational one solved by Newton
//! with load stepping) and the fit problem of a cloth model against the shell's rest translations.
//!
//! The one solve of a sheet's shell reference: `pbdfit fem` on a sheet (pbdfit-jobs) reports it, and a
//! cloth fit, `evaluate` and `simulate` compare a cloth model's rest state with its translations (the
//! shell has six DOFs per node; a cloth particle has the three translations).

use std::sync::Arc;

use pbdfit_fem::shell::{
    CorotationalShell, LinearShell, MembraneLaw, SHELL_NEWTON, ShellConstraints, ShellContactSolution, ShellError,
    ShellLoad, ShellSolution, Support,
};
use pbdfit_fem::{ContactSettings, YoungPoisson};
use pbdfit_mesh::{SheetBody, SheetScene, SheetSupport, Vec3};
use pbdfit_pbd::{BodyKind, ModelKind, PbdSystem, RestOptions};

use crate::{FemTarget, FitError, FitJobError, FitProblem, Part, Settings, Spelling, moved_vertices, reference_fault};

/// The shell reference a sheet is solved with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellReference {
    /// The linear shell: small displacements and rotations.
    Linear,
    /// The corotational shell (large rotations, small strains) with this membrane law.
    Corotational(MembraneLaw),
}

impl ShellReference {
    /// From the reference material's name: `linear`, `corotational` (a linear membrane) or `stvk` (a
    /// Saint Venant-Kirchhoff membrane).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "linear" => Some(Self::Linear),
            "corotational" => Some(Self::Corotational(MembraneLaw::Linear)),
            "stvk" => Some(Self::Corotational(MembraneLaw::StVenantKirchhoff)),
            _ => None,
        }
    }

    /// The reference's id in reports.
    pub fn id(self) -> &'static str {
        match self {
            Self::Linear => "linear shell",
            Self::Corotational(MembraneLaw::Linear) => "corotational shell",
            Self::Corotational(MembraneLaw::StVenantKirchhoff) => "corotational shell, stvk membrane",
        }
    }

    /// The job's reference on `scene`: the `material` keyword given, else the scene's `[reference]`, else
    /// the corotational shell; the solids' reference options (a dynamic reference, a mass, a split) are
    /// refused naming the first given.
    pub fn of_job(
        reference: &pbdfit_mesh::ReferenceOptions,
        scene: &SheetScene,
        spelling: Spelling,
    ) -> Result<Self, FitJobError> {
        let given = [
            (reference.dynamic, "dynamic"),
            (reference.time.is_some(), "time"),
            (reference.fem_mass.is_some(), "fem_mass"),
            (reference.rayleigh.is_some(), "rayleigh"),
            (reference.split.is_some(), "split"),
        ];
        let solid: Vec<&str> = given.iter().filter(|(g, _)| *g).map(|(_, name)| *name).collect();
        refuse_solid_options(&solid, &scene.name, spelling)?;
        let name =
            reference.material.clone().or_else(|| scene.reference.clone()).unwrap_or_else(|| "corotational".into());
        let parsed = Self::parse(&name).ok_or_else(|| {
            FitJobError::Input(format!(
                "{} = {name}: a sheet's reference is the linear, corotational or stvk shell",
                spelling.name("material")
            ))
        })?;
        if parsed == Self::Linear && !scene.obstacles.is_empty() {
            return Err(FitJobError::Input(format!(
                "{} = linear: the linear shell has no contact, and scene {} has obstacles (use corotational or stvk)",
                spelling.name("material"),
                scene.name
            )));
        }
        Ok(parsed)
    }
}

/// Refuses the first given option of `given` (their keyword names): `split` and a mass other than lumped
/// as a solid's; a dynamic reference's options because a sheet's fits and evaluations compare with the
/// static shell (`fem --dynamic` runs the shell's transient).
pub fn refuse_solid_options(given: &[&str], scene: &str, spelling: Spelling) -> Result<(), FitJobError> {
    let Some(&option) = given.first() else { return Ok(()) };
    let why = match option {
        "split" | "fem_mass" => "applies to tetrahedral solids".to_string(),
        _ => "a sheet's fits and evaluations compare with the static shell (`fem --dynamic` runs its transient)"
            .to_string(),
    };
    Err(FitJobError::Input(format!(
        "{}: {why}, and scene {scene} is a sheet (its reference is the shell, with lumped masses)",
        spelling.name(option)
    )))
}

/// A sheet scene loaded for a job: its body options applied (a refusal naming the option), the options a
/// sheet has no use for refused, the material resolved over the scene's (`young` and `poisson` default to
/// the scene's material where the job gives none).
pub fn load_sheet(
    body: &crate::Body,
    elastic: crate::Material,
    spelling: Spelling,
) -> Result<(SheetScene, SheetBody, YoungPoisson), FitJobError> {
    let input = FitJobError::Input;
    let scene = SheetScene::load(&body.scene).map_err(|e| input(e.to_string()))?;
    if body.fix_orientation {
        return Err(input(format!(
            "{}: applies to imported tetrahedral meshes, and scene {} is a sheet",
            spelling.name("fix_orientation"),
            scene.name
        )));
    }
    if let Some(m) = body.mass_model.as_deref().filter(|m| *m != "lumped") {
        return Err(input(format!(
            "{} = {m}: a sheet's masses are lumped (a third of each triangle's to each of its vertices)",
            spelling.name("mass_model")
        )));
    }
    let scale = body.scale;
    let scene = scene
        .with_body(scale.density, scale.size, scale.thickness)
        .map_err(|e| input(format!("{} {e}", spelling.name(e.option()))))?;
    let n = scene.resolution(body.n).map_err(|e| input(format!("{}: {e}", spelling.name("n"))))?;
    let sheet = scene.body(Some(n)).map_err(|e| input(e.to_string()))?;
    let young = elastic.young.or(scene.young).unwrap_or(crate::YOUNG);
    let poisson = elastic.poisson.or(scene.poisson).unwrap_or(crate::POISSON);
    let material = YoungPoisson::new(young, poisson).map_err(|e| input(e.to_string()))?;
    Ok((scene, sheet, material))
}

/// Refuses a model that does not take sheets, naming it and the scene (exit 2 from the command line).
pub fn check_cloth_model(kind: ModelKind, scene: &str) -> Result<(), FitJobError> {
    if kind.body_kind() == BodyKind::Sheet {
        return Ok(());
    }
    // The sheet models from the registry, so a new one is named here without a line of its own.
    let sheet_models: Vec<&str> =
        ModelKind::all().iter().filter(|k| k.body_kind() == BodyKind::Sheet).map(|k| k.name()).collect();
    Err(FitJobError::Input(format!(
        "model `{}` works on tetrahedral solids, and scene {scene} is a sheet (a triangle mesh with a thickness): \
         fit a cloth model to it ({})",
        kind.spec(),
        sheet_models.join(", ")
    )))
}

/// Refuses to fit a model whose settings leave a parameter acting on nothing
/// ([`ModelKind::inert_parameters`]: `jolt-cloth` with `bend=none` makes no bend constraints, so no rest
/// state determines `bend_compliance`), naming the parameter and the setting.
pub fn check_fitted_parameters(kind: ModelKind) -> Result<(), FitJobError> {
    match kind.inert_parameters().first() {
        None => Ok(()),
        Some((parameter, setting)) => Err(FitJobError::Input(format!(
            "model `{}`: {parameter} acts on nothing with {setting}, so a fit cannot determine it: fit under \
             another value of that setting, or run {setting} in simulate",
            kind.spec()
        ))),
    }
}

/// Refuses a cloth model on a tetrahedral solid, naming it and the scene.
pub fn check_solid_model(kind: ModelKind, scene: &str) -> Result<(), FitJobError> {
    if kind.body_kind() == BodyKind::Solid {
        return Ok(());
    }
    Err(FitJobError::Input(format!(
        "model `{}` works on sheets (triangle meshes with a thickness), and scene {scene} is a tetrahedral solid: \
         give it a sheet scene (hanging-sheet, clamped-strip, clamped-plate, supported-plate, draped-sheet)",
        kind.spec()
    )))
}

/// The held DOFs of a sheet body: clamped vertices hold six, pinned ones their translations.
pub fn shell_constraints(body: &SheetBody) -> ShellConstraints {
    let mut c = ShellConstraints::new(body.held.len());
    for (v, held) in body.held.iter().enumerate() {
        match held {
            Some(SheetSupport::Clamped) => c.support(v, Support::Clamped),
            Some(SheetSupport::Pinned) => c.support(v, Support::SimplySupported),
            None => &mut c,
        };
    }
    c
}

/// The shell reference's static solution under the sheet's weight and pressures, and for the corotational shell a note
/// of its Newton solve (load increments, halvings, iterations).
pub fn solve_shell(
    body: &SheetBody,
    material: YoungPoisson,
    reference: ShellReference,
) -> Result<(ShellSolution, Option<String>), ShellError> {
    solve_shell_with_contact(body, material, reference).map(|(solution, note, _)| (solution, note))
}

/// [`solve_shell`] with the contact solution where the sheet has obstacles (the corotational shell's
/// contact solve, [`CorotationalShell::solve_contact`]: the contacts' forces and the supports' reactions);
/// the linear shell has no contact ([`ShellError::LinearContact`]).
pub fn solve_shell_with_contact(
    body: &SheetBody,
    material: YoungPoisson,
    reference: ShellReference,
) -> Result<(ShellSolution, Option<String>, Option<ShellContactSolution>), ShellError> {
    if !body.wind.is_none() {
        return Err(ShellError::Wind);
    }
    let held = shell_constraints(body);
    let load = ShellLoad::of_sheet(&body.sheet, body.gravity, &body.pressure);
    Ok(match reference {
        ShellReference::Linear if !body.obstacles.is_empty() => return Err(ShellError::LinearContact),
        ShellReference::Linear => (LinearShell::new(&body.sheet, material)?.solve(&held, &load)?, None, None),
        ShellReference::Corotational(membrane) => {
            let shell = CorotationalShell::with_membrane(&body.sheet, material, membrane)?;
            let (s, contact) = if body.obstacles.is_empty() {
                (shell.solve(&held, &load, &SHELL_NEWTON)?, None)
            } else {
                let c = shell.solve_contact(&held, &load, &body.obstacles, &ContactSettings::default())?;
                (c.solution.clone(), Some(c))
            };
            let note =
                format!("{} load increments ({} halved), {} Newton iterations", s.increments, s.halvings, s.iterations);
            (s.displacements, Some(note), contact)
        }
    })
}

/// The shell reference's transient under the sheet's weight and pressures from the flat sheet at rest, by `settings`
/// (its integrator, step, Rayleigh damping, stop), telling `progress` after every step; with a note of its
/// steps and Newton iterations. The corotational shell only: the linear shell's small rotations are no
/// motion of a sheet that swings ([`ShellError`] otherwise is the caller's refusal to make).
pub fn solve_shell_dynamic(
    body: &SheetBody,
    material: YoungPoisson,
    membrane: MembraneLaw,
    settings: &pbdfit_fem::DynamicSettings,
    progress: &mut dyn FnMut(&pbdfit_fem::DynamicProgress),
) -> Result<(ShellSolution, String), ShellError> {
    if !body.wind.is_none() {
        return Err(ShellError::Wind);
    }
    let held = shell_constraints(body);
    let load = ShellLoad::of_sheet(&body.sheet, body.gravity, &body.pressure);
    let shell = CorotationalShell::with_membrane(&body.sheet, material, membrane)?;
    let s = shell.integrate(&held, &load, settings, None, progress, None)?;
    let note = format!(
        "{} steps of {} s ({} s, last step {:.3e} of the displacement), {} Newton iterations",
        s.steps, settings.dt, s.time, s.last_step_ratio, s.newton_iterations
    );
    Ok((s.displacements, note))
}

/// The vertices a particle model holds that the shell leaves free ([`SheetBody::particle_held`] less the
/// supported vertices), ascending: the second row of each clamp.
pub fn clamp_row(body: &SheetBody) -> Vec<usize> {
    let held = body.particle_held();
    (0..held.len()).filter(|&v| held[v] && body.held[v].is_none()).collect()
}

/// What a report says of a clamp made with particles ([`clamp_row`]): which vertices the model holds that
/// the shell does not, and what they cost in the error (they count: each vertex the shell moves adds 1,
/// its relative error, to the error's sum, so the error's floor is their share of the moved vertices).
/// `None` where the sheet has no clamped vertex.
pub fn clamp_note(body: &SheetBody, moved: usize, held_moved: usize) -> Option<String> {
    let extra = clamp_row(body);
    if extra.is_empty() {
        return None;
    }
    let listed: Vec<String> = extra.iter().take(12).map(usize::to_string).collect();
    let more = if extra.len() > 12 { format!(", ... ({} in all)", extra.len()) } else { String::new() };
    Some(format!(
        "scene {}: a particle carries no rotation, so the cloth model holds each clamped vertex's neighbours too \
         (the clamp's first cell): {} vertices the shell leaves free ({}{more}); they count in the error, where \
         the shell moves {held_moved} of them each adds its relative error 1, a floor of {:.3e} over {moved} \
         moved vertices",
        body.scene,
        extra.len(),
        listed.join(", "),
        if moved == 0 { 0.0 } else { held_moved as f64 / moved as f64 }
    ))
}

/// The fit problem of a cloth model (`settings.kind`) on a sheet against its shell reference's rest
/// translations for `material` (m, per vertex; the rotations are the shell's own and are not compared):
/// the error is the FEM target's, the mean squared relative error over the vertices the shell moves,
/// those the particles hold beyond the shell's supports ([`clamp_row`]) included: the same vertices for
/// every model, so that a clamp made with particles does not shrink its own yardstick. With it, the note
/// of [`clamp_note`] (`None` without a clamp).
pub fn sheet_problem_with_note(
    body: &SheetBody,
    settings: Settings,
    material: YoungPoisson,
    reference: ShellReference,
) -> Result<(FitProblem, Option<String>), FitError> {
    let problem = sheet_problem(body, settings, material, reference)?;
    let moved = problem.parts[0].target.field().map_or(&[][..], |(_, m)| m);
    let extra = clamp_row(body);
    let held_moved = moved.iter().filter(|v| extra.binary_search(v).is_ok()).count();
    let note = clamp_note(body, moved.len(), held_moved);
    Ok((problem, note))
}

/// [`sheet_problem_with_note`] without the note.
pub fn sheet_problem(
    body: &SheetBody,
    settings: Settings,
    material: YoungPoisson,
    reference: ShellReference,
) -> Result<FitProblem, FitError> {
    let system = Arc::new(PbdSystem::sheet_body(body));
    settings.check_step(&system)?;
    let failed = |source| FitError::Shell { scene: body.scene.clone(), n: body.n, source };
    let (solution, _) = solve_shell(body, material, reference).map_err(failed)?;
    let displacements: Vec<Vec3> = (0..body.held.len()).map(|v| solution.translation(v)).collect();
    // The shell's supports, not the particles' (which hold a clamp's next row too): see above.
    let held: Vec<bool> = body.held.iter().map(Option::is_some).collect();
    let moved = moved_vertices(&displacements, &held);
    if let Some(fault) = reference_fault(&displacements, &held, &moved) {
        return Err(FitError::UnusableReference { scene: body.scene.clone(), reference: reference.id().into(), fault });
    }
    let target = FemTarget { reference: displacements, moved, id: reference.id().into() };
    Ok(FitProblem {
        scene: body.scene.clone(),
        compound: false,
        parts: vec![Part { scene: body.scene.clone(), system, target: Arc::new(target) }],
        settings,
        reference: reference.id().into(),
        rest_options: RestOptions::default(),
    })
}
