//! `mujoco-flex`: MuJoCo 4's flex shell, a sheet as a `<flexcomp type="direct" dim="2">` (or `<flex
//! dim="2">`) with `<elasticity young poisson thickness elastic2d>`, each vertex a body of three slide
//! joints and held vertices pinned (`<pin id>`). Its forces are MuJoCo's passive flex forces
//! (`mass_spring/mujoco_flex.rs`: the membrane metric of `ComputeStiffness<Stencil2D>` on the squared edge
//! lengths, the cotangent bending of `ComputeBending`) with MuJoCo 4.0.1's moduli: plane stress's
//! `mu = E / (2 (1 + nu))`, `lambda = E nu / (1 - nu^2)` in the membrane and the plate's `D = E h^3 / (12
//! (1 - nu^2))` over the flap's area in the bending (MuJoCo 3.x's source has the 3-D `lambda`, a quarter of
//! the membrane and `3 mu h^3 / 24` instead: `mass_spring/mujoco_flex.rs` says how 4.0.1 was read).
//!
//! **Why a static solve and not a step.** MuJoCo integrates `M a = f_passive(x, v) + m g + J^T f_constraint`;
//! a flex vertex has no constraint but its pin (a pinned vertex has no degrees of freedom at all), and the
//! flex's damping (`elasticity damping`, Rayleigh on the stretch and on the bending) and any joint damping
//! are proportional to velocities. A state MuJoCo rests at has `v = 0` and `a = 0`, so it is a zero of
//! `f_passive(x, 0) + m g`, whatever the integrator (Euler, implicit, implicitfast), the time step and the
//! damping that led there: the rest state is the static equilibrium of the flex's energy under gravity,
//! solved here by Newton in f64 (`SpringBody`), as PyBullet's profile is. `dt` and `nit` are ignored. (A
//! MuJoCo run that has not come to rest, or an equilibrium that is unstable in MuJoCo's dynamics, is not
//! this state; `benchmarks/engines/mujoco_flex.py` runs MuJoCo to rest and compares.)
//!
//! **Masses**: the sheet's lumped masses (a third of each triangle's on its corners), as every sheet in
//! pbdfit has. `flexcomp`'s `mass` is spread evenly over its points instead (`user_flexcomp.cc`: `mass /
//! npnt` per vertex body): the paste lines set each vertex body's mass after compiling
//! (`model.body_mass[...]`), and `benchmarks/engines/mujoco_flex.py` measures how far flexcomp's even masses
//! move the rest state.
//!
//! **Units**: `young` in Pa, `thickness` in m, `poisson` dimensionless in `[0, 0.5)` (MuJoCo refuses
//! others). Not reproduced: contacts (build the flex with `contype="0" conaffinity="0"`, `selfcollide="none"`,
//! or none within reach), MuJoCo's curved-reference bending term (zero on a flat rest sheet, which pbdfit's
//! built-in sheets are; an imported sheet that is not flat gets the flat-reference bending), interpolated
//! flexes (`dof="trilinear"`/`"quadratic"`) and edge equality constraints.

use crate::{Fold, ModelDef, ParameterSpec, RuleSettings, SettingSpec, SpringLaw};

/// `<elasticity young>` (Pa): a fabric of 1e4 Pa to a steel of 1e12 Pa, with margin.
const PARAMETERS: [ParameterSpec; 1] = [ParameterSpec::log10(
    "young",
    "Pa",
    "<elasticity young>: the flex's Young's modulus (its membrane and bending scale with it)",
    (1e2, 1e13),
)];

/// The setting naming `elastic2d`.
const ELASTIC2D: &str = "elastic2d";

/// `elastic2d`'s values by MuJoCo's names (`none`, 0, has no elasticity: not a body to fit).
const ELASTIC2D_WORDS: &[(&str, f64)] = &[("bend", 1.0), ("stretch", 2.0), ("both", 3.0)];

/// `<elasticity poisson>`, `<elasticity thickness>` and `<elasticity elastic2d>`.
const SETTINGS: [SettingSpec; 3] = [
    SettingSpec {
        maximum_open: true,
        ..SettingSpec::new(
            "poisson",
            "1",
            "<elasticity poisson>: Poisson's ratio in [0, 0.5) (MuJoCo's default 0), entering through plane \
             stress's lambda = E nu / (1 - nu^2) and the plate's D = E h^3 / (12 (1 - nu^2))",
            0.0,
        )
        .within(0.0, 0.5)
    },
    SettingSpec::new(
        "thickness",
        "m",
        "<elasticity thickness>: the shell's thickness h (the membrane scales with E h, the bending with E h^3); \
         MuJoCo has no default (2-D elasticity requires one): 1 mm here",
        1e-3,
    )
    .within(1e-6, 1.0),
    SettingSpec::new(
        ELASTIC2D,
        "1",
        "<elasticity elastic2d>: which 2-D passive forces act: bend (1, the cotangent bending only), stretch (2, the \
         membrane only) or both (3); none (0) has no elasticity",
        3.0,
    )
    .within(1.0, 3.0)
    .whole()
    .with_words(ELASTIC2D_WORDS),
];

/// The flex's constants at `young` (Pa) and the settings: `(mu h, lambda h, D)` as `elastic2d` keeps them.
fn law(p: &[f64], s: RuleSettings) -> SpringLaw {
    let (young, nu, h) = (p[0], s.settings[0], s.settings[1]);
    let mu = young / (2.0 * (1.0 + nu));
    let lambda = young * nu / (1.0 - nu * nu);
    let which = s.settings[2];
    let (stretch, bend) = (which >= 2.0, which == 1.0 || which == 3.0);
    SpringLaw {
        membrane_mu: if stretch { mu * h } else { 0.0 },
        membrane_lambda: if stretch { lambda * h } else { 0.0 },
        bending: if bend { young * h * h * h / (12.0 * (1.0 - nu * nu)) } else { 0.0 },
        ..SpringLaw::NONE
    }
}

fn elastic2d_name(value: f64) -> &'static str {
    ELASTIC2D_WORDS.iter().find(|(_, v)| *v == value).map_or("both", |(name, _)| name)
}

fn usage(p: &[f64], s: RuleSettings) -> Vec<String> {
    let number = pbdfit_mesh::display::number;
    vec![
        "<flexcomp name=\"sheet\" type=\"direct\" dim=\"2\" point=\"the sheet's vertices\" element=\"its triangles\" \
         mass=\"the sheet's mass\" radius=\"0.001\">"
            .to_string(),
        format!(
            "  <elasticity young=\"{:.6e}\" poisson=\"{}\" thickness=\"{}\" elastic2d=\"{}\" damping=\"...\"/>",
            p[0],
            number(s.settings[0]),
            number(s.settings[1]),
            elastic2d_name(s.settings[2])
        ),
        "  <contact contype=\"0\" conaffinity=\"0\" selfcollide=\"none\"/> <pin id=\"the held vertices\"/>".to_string(),
        "</flexcomp>".to_string(),
        "# flexcomp spreads mass evenly over the points; this body's masses are the sheet's lumped ones: after \
         compiling, model.body_mass[model.flex_vertbodyid[v]] = the lumped mass of each free vertex v"
            .to_string(),
        "# the rest state is the static equilibrium of the flex's passive forces: damping, the integrator, the time \
         step do not move it"
            .to_string(),
    ]
}

/// MuJoCo's flex shell.
pub(crate) static MUJOCO_FLEX: ModelDef = ModelDef {
    name: "mujoco-flex",
    description: "sheets: MuJoCo 4 flex shell (dim 2, <elasticity young poisson thickness elastic2d>): young (Pa); \
                  rest state by Newton, dt and nit ignored",
    parameters: &PARAMETERS,
    settings: &SETTINGS,
    nit_means: "ignored: the rest state is the static equilibrium of MuJoCo's flex forces",
    usage,
    rule: Fold::SheetSprings(law),
    example: &[1e5],
    // A sheet's masses are lumped (flexcomp's even masses are set per vertex body after compiling).
    masses: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ModelKind, ModelRule};

    /// The settings fold into MuJoCo 4's constants: `mu h` and `lambda h` of plane stress, the plate's `D`,
    /// each kept or dropped by `elastic2d`.
    #[test]
    fn the_constants_are_mujocos() {
        let kind = ModelKind::MUJOCO_FLEX;
        let mut settings = RuleSettings::new(0.01, 10, kind);
        settings.settings[0] = 0.3;
        settings.settings[1] = 2e-3;
        let l = law(&[1.3e5], settings);
        let (mu, lambda) = (1.3e5 / 2.6, 1.3e5 * 0.3 / 0.91);
        let d = 1.3e5 * 8e-9 / (12.0 * 0.91);
        assert!((l.membrane_mu - mu * 2e-3).abs() <= 1e-12 * mu);
        assert!((l.membrane_lambda - lambda * 2e-3).abs() <= 1e-12 * lambda);
        assert!((l.bending - d).abs() <= 1e-12 * d);
        settings.settings[2] = 1.0;
        let bend = law(&[1.3e5], settings);
        assert_eq!((bend.membrane_mu, bend.membrane_lambda), (0.0, 0.0));
        assert_eq!(bend.bending, l.bending);
        settings.settings[2] = 2.0;
        assert_eq!(law(&[1.3e5], settings).bending, 0.0);
        assert!(matches!(MUJOCO_FLEX.rule.rule(&[1e5], RuleSettings::new(0.01, 1, kind)), ModelRule::Springs(_)));
    }
}
