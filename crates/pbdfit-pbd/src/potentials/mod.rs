//! The spring-potential registry: every distance constraint function an XPBD model can project, one file
//! each (docs/models.md, section Equations).
//!
//! **Adding a potential** is one file in this folder plus one line in the [`spring_potentials!`] list
//! below. The file holds everything about the potential:
//! - `NAME`, its name in messages;
//! - `value(stretch, numerator, length, rest_length) -> (C, gamma)`: the constraint and its gradient
//!   factor on the CPU, in f64, free of cancellation (the inputs are `l - l0`, `l^2 - l0^2`, `l` and `l0`);
//! - `WGSL`: the same function for the GPU's f32 kernels, a WGSL function named `potential_<file name>`
//!   with the same four arguments returning `vec2<f32>(C, gamma)`;
//! - `direct(l, l0)`: `C` as docs/method.md's table writes it, which the tests differentiate.
//!
//! The list generates the [`SpringPotential`] enum, the CPU dispatch (a `match`, so the sweep stays
//! statically dispatched and bit-identical), the GPU code each potential is sent as, and the shader's
//! dispatch ([`SpringPotential::wgsl`]): a `switch` over every registered code whose default is
//! unreachable from the host, which only sends codes of this list. A model uses a potential through its
//! rule (`models/xpbd_hookean.rs`); the tests of the CPU sweep, the lanes and the GPU iterate
//! [`SpringPotential::ALL`] and the model registry, so a new potential is tested everywhere by default.

macro_rules! spring_potentials {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident ),+ $(,)?) => {
        $(mod $module;)+

        /// The distance constraint function of an XPBD model (docs/models.md, section Equations
        /// constraints). With `l = |p2 - p1|`, `n = (p2 - p1) / l` and rest length `l0`, the constraint
        /// `C` and its gradient `gamma n` with respect to `p2` (the one for `p1` is its negative) are
        /// given per variant; each lives in its own file of `potentials/`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum SpringPotential {
            $( $(#[$doc])* $variant, )+
        }

        impl SpringPotential {
            /// Every registered potential, in registration order (the GPU codes are 1, 2, ... in it).
            pub const ALL: &'static [SpringPotential] = &[$(SpringPotential::$variant),+];

            /// The name in messages.
            pub fn name(self) -> &'static str {
                match self {
                    $(SpringPotential::$variant => $module::NAME,)+
                }
            }

            /// `(C, gamma)` from `stretch = l - l0`, `numerator = l^2 - l0^2`, the length `l` and the rest
            /// length `l0` (m). The gradient with respect to `p2` is `gamma n`.
            #[inline(always)]
            pub(crate) fn value(self, stretch: f64, numerator: f64, length: f64, rest_length: f64) -> (f64, f64) {
                match self {
                    $(SpringPotential::$variant => $module::value(stretch, numerator, length, rest_length),)+
                }
            }

            /// `C` as docs/method.md's table writes it, from the length and the rest length (tests).
            #[cfg(test)]
            pub(crate) fn direct(self, length: f64, rest_length: f64) -> f64 {
                match self {
                    $(SpringPotential::$variant => $module::direct(length, rest_length),)+
                }
            }

            /// The WGSL function of this potential (named `potential_<file name>`).
            pub fn wgsl_function(self) -> &'static str {
                match self {
                    $(SpringPotential::$variant => $module::WGSL,)+
                }
            }

            /// The WGSL function's name.
            pub fn wgsl_name(self) -> &'static str {
                match self {
                    $(SpringPotential::$variant => concat!("potential_", stringify!($module)),)+
                }
            }
        }
    };
}

spring_potentials! {
    /// `C = l - l0`, `gamma = 1` (plain XPBD stretching constraint).
    Stretch => stretch,
    /// `C = (l - l0)^2 / 2`, `gamma = l - l0`.
    Hookean => hookean,
    /// St. Venant-Kirchhoff: `C = l0 eps^2 / 2` with `eps = (l^2 - l0^2) / (2 l0^2)`, `gamma = eps l / l0`.
    Stvk => stvk,
    /// Modified Morse: `C = (1 - exp(l - l0))^2`, `gamma = 2 exp(l - l0) (exp(l - l0) - 1)`.
    Morse => morse,
}

impl SpringPotential {
    /// The code the GPU kernels receive for this potential (1, 2, ... in [`Self::ALL`]'s order).
    pub fn code(self) -> u32 {
        let i = Self::ALL.iter().position(|p| *p == self).expect("every variant is in ALL");
        i as u32 + 1
    }

    /// The WGSL the kernels need for every registered potential: each potential's function, and
    /// `potential_value(code, stretch, numerator, length, rest_length) -> vec2<f32>`, which dispatches on
    /// the code. Its `default` is unreachable from the host (it sends only [`Self::code`]s); were it
    /// reached, it returns NaN, which the rest test reports as a simulation that left the body's extent.
    pub fn wgsl() -> String {
        let mut out = String::from("// Generated from pbdfit-pbd's potentials/ (SpringPotential::wgsl).\n");
        for p in Self::ALL {
            out.push_str(p.wgsl_function().trim());
            out.push('\n');
        }
        out.push_str(
            "fn potential_value(code: u32, stretch: f32, numerator: f32, length: f32, rest_length: f32) -> vec2<f32> {\n    switch code {\n",
        );
        for p in Self::ALL {
            out.push_str(&format!(
                "        case {}u: {{ return {}(stretch, numerator, length, rest_length); }}\n",
                p.code(),
                p.wgsl_name()
            ));
        }
        out.push_str("        default: { return vec2<f32>(bitcast<f32>(0x7fc00000u), 0.0); }\n    }\n}\n");
        out.push_str(&format!("const POTENTIAL_STRETCH: u32 = {}u;\n", SpringPotential::Stretch.code()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_potential_has_a_code_a_name_and_a_wgsl_case() {
        let wgsl = SpringPotential::wgsl();
        let mut codes: Vec<u32> = SpringPotential::ALL.iter().map(|p| p.code()).collect();
        codes.dedup();
        assert_eq!(codes, (1..=SpringPotential::ALL.len() as u32).collect::<Vec<_>>());
        for p in SpringPotential::ALL {
            let name = p.wgsl_name();
            assert!(p.wgsl_function().contains(&format!("fn {name}(")), "{p:?}: its WGSL defines {name}");
            assert_eq!(wgsl.matches(&format!("case {}u: {{ return {name}(", p.code())).count(), 1, "{p:?}");
            assert!(!p.name().is_empty());
        }
        assert_eq!(wgsl.matches("case ").count(), SpringPotential::ALL.len());
    }
}
