//! The per-tetrahedron constraint registry: constraint functions of a tetrahedron's deformation (a
//! strain measure, an invariant of the deformation gradient `F`) that an XPBD rule projects once per
//! tetrahedron, after the tetrahedron's volume constraint, each with its own compliance (up to
//! [`MAX_TETRAHEDRON_TERMS`] [`TetrahedronTerm`]s per rule, in order). One file each, like the spring potentials of `potentials/`.
//!
//! **Adding one** is one file in this folder plus one line in the [`tetrahedron_constraints!`] list
//! below. The file holds everything about the constraint:
//! - `NAME`, its name in messages;
//! - `value(g: &TetGeometry, constant) -> (C, [g1, g2, g3])`: the constraint and its gradients with
//!   respect to the particles 1, 2, 3 on the CPU, in f64, with the rule's constant for it (a shift the
//!   model's parameters set; 0 where unused) (particle 0's is `-(g1 + g2 + g3)`: every such constraint is
//!   invariant under translation), free of cancellation near the rest shape (work from the displacement
//!   differences `W_k = u_k - u_0`, not from deformed positions);
//! - `WGSL`: the same function for the GPU's f32 kernels, a WGSL function named `tetrahedron_<file name>`
//!   taking `(e1, e2, e3, c31, c12, wa, wb, wc: vec3<f32>, constant: f32)` (the rest edges, `E3 x E1`,
//!   `E1 x E2`, the displacement differences and the constant) and returning `TetValue(c, g1, g2, g3)`;
//!   `rest_rows(e1, e2, e3, c31, c12) -> RestRows` (`6 V0` and the rows `r_k` of `Dm^-1`, as
//!   [`TetGeometry::rest_inverse`]) and `displacement_gradient(wa, wb, wc, r1, r2, r3) -> mat3x3<f32>`
//!   (`H = sum_k W_k r_k^T`) are there to use.
//!
//! The list generates the [`TetrahedronConstraint`] enum, the CPU dispatch (a `match`: the sweep stays
//! statically dispatched), the GPU code each constraint is sent as, and the shaders' dispatch
//! ([`TetrahedronConstraint::wgsl`]): a `switch` over every registered code whose default returns NaN, which
//! the rest test reports as a simulation that left the body's extent. The projection itself is shared:
//! a rule's constraints are solved together per tetrahedron (XPBD's
//! `sum_k (sum_i w_i g_ji . g_ki + alpha~_j delta_jk) d_lambda_k = -C_j - alpha~_j lambda_j`,
//! `dp_i = w_i sum_j d_lambda_j g_ji`), `VolumeHot::xpbd_tetrahedra` on the CPU and `tetrahedra_delta` in
//! the shaders. A model uses constraints through its rule (`ProjectionRule::Xpbd`'s `tetrahedra`, with
//! `distances` and `volumes` saying whether the edge and volume constraints stay; `models/xpbd_strain.rs`);
//! the registry's own tests check every constraint's gradients against its value and its frame
//! indifference, and the sweep, lanes, thread-count and CPU/GPU tests run every registered model.

use crate::Vec3;

/// A tetrahedron `(X0, X1, X2, X3)` as a per-tetrahedron constraint reads it: rest edges
/// `E_k = X_k - X_0` (m), the rest cross products `E3 x E1`, `E1 x E2` (m^2), and the displacement
/// differences `W_k = u_k - u_0` (m). The deformed edges are `E_k + W_k`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TetGeometry {
    /// `E1, E2, E3` (m).
    pub rest_edges: [Vec3; 3],
    /// `E3 x E1`, `E1 x E2` (m^2).
    pub rest_cross: [Vec3; 2],
    /// `W1, W2, W3` (m).
    pub displacements: [Vec3; 3],
}

impl TetGeometry {
    /// `6 V0` (m^3, positive for a positively oriented tetrahedron) and the rows `r_k` of the inverse rest
    /// edge matrix `Dm^-1` (`Dm = [E1 E2 E3]`, so `r_j . E_k = delta_jk`): the deformation gradient is
    /// `F = I + H` with `H = sum_k W_k r_k^T`, and `dC/d(particle k) = (dC/dF) r_k`.
    pub fn rest_inverse(&self) -> (f64, [Vec3; 3]) {
        let [e1, e2, e3] = self.rest_edges;
        let c23 = e2.cross(&e3);
        let six_v0 = e1.dot(&c23);
        (six_v0, [c23 / six_v0, self.rest_cross[0] / six_v0, self.rest_cross[1] / six_v0])
    }

    /// The displacement gradient `H = F - I = sum_k W_k r_k^T` and the rows `r_k` (see
    /// [`Self::rest_inverse`]), with `6 V0`.
    pub fn displacement_gradient(&self) -> (nalgebra::Matrix3<f64>, [Vec3; 3], f64) {
        let (six_v0, r) = self.rest_inverse();
        let [w1, w2, w3] = self.displacements;
        (w1 * r[0].transpose() + w2 * r[1].transpose() + w3 * r[2].transpose(), r, six_v0)
    }
}

macro_rules! tetrahedron_constraints {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident ),+ $(,)?) => {
        $(mod $module;)+

        /// A constraint function of one tetrahedron's deformation, projected per tetrahedron by an XPBD
        /// rule's [`TetrahedronTerm`]; each lives in its own file of `tetrahedra/`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum TetrahedronConstraint {
            $( $(#[$doc])* $variant, )+
        }

        impl TetrahedronConstraint {
            /// Every registered constraint, in registration order (the GPU codes are 1, 2, ... in it).
            pub const ALL: &'static [TetrahedronConstraint] = &[$(TetrahedronConstraint::$variant),+];

            /// The name in messages.
            pub fn name(self) -> &'static str {
                match self {
                    $(TetrahedronConstraint::$variant => $module::NAME,)+
                }
            }

            /// `(C, [g1, g2, g3])`: the constraint and its gradients with respect to particles 1, 2, 3
            /// (particle 0's is `-(g1 + g2 + g3)`).
            #[inline(always)]
            pub fn value(self, geometry: &TetGeometry, constant: f64) -> (f64, [Vec3; 3]) {
                match self {
                    $(TetrahedronConstraint::$variant => $module::value(geometry, constant),)+
                }
            }

            /// The WGSL function of this constraint (named `tetrahedron_<file name>`).
            pub fn wgsl_function(self) -> &'static str {
                match self {
                    $(TetrahedronConstraint::$variant => $module::WGSL,)+
                }
            }

            /// The WGSL function's name.
            pub fn wgsl_name(self) -> &'static str {
                match self {
                    $(TetrahedronConstraint::$variant => concat!("tetrahedron_", stringify!($module)),)+
                }
            }
        }
    };
}

tetrahedron_constraints! {
    /// The volumetric Green strain, `C = sqrt(V0) tr E` (compliance `1 / K` for St. Venant-Kirchhoff).
    StrainVolumetric => strain_volumetric,
    /// The deviatoric Green strain's norm, `C = sqrt(V0) |dev E|` (compliance `1 / (2 mu)`).
    StrainDeviatoric => strain_deviatoric,
}

/// The most per-tetrahedron constraints one rule projects per tetrahedron.
pub const MAX_TETRAHEDRON_TERMS: usize = 2;

/// A per-tetrahedron constraint with its compliance and constant, as an XPBD rule carries it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TetrahedronTerm {
    /// The constraint function.
    pub constraint: TetrahedronConstraint,
    /// `alpha / dt^2` (`alpha` in m^3/J for the shipped constraints, whose `C` is in m^(3/2)).
    pub alpha_tilde: f64,
    /// The constraint's constant (its file says what it is; 0 where unused).
    pub constant: f64,
}

impl TetrahedronConstraint {
    /// The code the GPU kernels receive for this constraint (1, 2, ... in [`Self::ALL`]'s order; 0 means
    /// no per-tetrahedron term).
    pub fn code(self) -> u32 {
        let i = Self::ALL.iter().position(|c| *c == self).expect("every variant is in ALL");
        i as u32 + 1
    }

    /// The WGSL the kernels need for every registered constraint: each one's function, and
    /// `tetrahedron_value(code, e1, e2, e3, c31, c12, wa, wb, wc) -> TetValue`, which dispatches on the
    /// code. Its `default` is unreachable from the host (it sends only [`Self::code`]s); were it reached,
    /// it returns NaN, which the rest test reports as a simulation that left the body's extent.
    pub fn wgsl() -> String {
        let mut out = String::from(
            "// Generated from pbdfit-pbd's tetrahedra/ (TetrahedronConstraint::wgsl).\n\
             struct TetValue {\n    c: f32,\n    g1: vec3<f32>,\n    g2: vec3<f32>,\n    g3: vec3<f32>,\n}\n\
             // 6 V0 and the rows r_k of Dm^-1 (TetGeometry::rest_inverse).\n\
             struct RestRows {\n    six_v0: f32,\n    r1: vec3<f32>,\n    r2: vec3<f32>,\n    r3: vec3<f32>,\n}\n\
             fn rest_rows(e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>, c12: vec3<f32>) -> RestRows {\n\
             \x20   let c23 = cross(e2, e3);\n\
             \x20   let six_v0 = dot(e1, c23);\n\
             \x20   return RestRows(six_v0, c23 / six_v0, c31 / six_v0, c12 / six_v0);\n}\n\
             // H = sum_k W_k r_k^T (column-major: column j is sum_k W_k r_k[j]).\n\
             fn displacement_gradient(wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, r1: vec3<f32>, r2: vec3<f32>,\n\
             \x20                        r3: vec3<f32>) -> mat3x3<f32> {\n\
             \x20   return mat3x3<f32>(wa * r1.x + wb * r2.x + wc * r3.x, wa * r1.y + wb * r2.y + wc * r3.y,\n\
             \x20                      wa * r1.z + wb * r2.z + wc * r3.z);\n}\n",
        );
        for c in Self::ALL {
            out.push_str(c.wgsl_function().trim());
            out.push('\n');
        }
        out.push_str(
            "fn tetrahedron_value(code: u32, e1: vec3<f32>, e2: vec3<f32>, e3: vec3<f32>, c31: vec3<f32>,\n                     c12: vec3<f32>, wa: vec3<f32>, wb: vec3<f32>, wc: vec3<f32>, constant: f32) -> TetValue {\n    switch code {\n",
        );
        for c in Self::ALL {
            out.push_str(&format!(
                "        case {}u: {{ return {}(e1, e2, e3, c31, c12, wa, wb, wc, constant); }}\n",
                c.code(),
                c.wgsl_name()
            ));
        }
        out.push_str(
            "        default: { return TetValue(bitcast<f32>(0x7fc00000u), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)); }\n    }\n}\n",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(w: [Vec3; 3]) -> TetGeometry {
        let e = [Vec3::new(1.0, 0.1, 0.0), Vec3::new(-0.2, 0.9, 0.1), Vec3::new(0.1, 0.2, 1.1)];
        TetGeometry { rest_edges: e, rest_cross: [e[2].cross(&e[0]), e[0].cross(&e[1])], displacements: w }
    }

    #[test]
    fn every_constraint_has_a_code_a_name_and_a_wgsl_case() {
        let wgsl = TetrahedronConstraint::wgsl();
        let codes: Vec<u32> = TetrahedronConstraint::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(codes, (1..=TetrahedronConstraint::ALL.len() as u32).collect::<Vec<_>>());
        for c in TetrahedronConstraint::ALL {
            let name = c.wgsl_name();
            assert!(c.wgsl_function().contains(&format!("fn {name}(")), "{c:?}: its WGSL defines {name}");
            assert_eq!(wgsl.matches(&format!("case {}u: {{ return {name}(", c.code())).count(), 1, "{c:?}");
            assert!(!c.name().is_empty());
        }
        assert_eq!(wgsl.matches("case ").count(), TetrahedronConstraint::ALL.len());
    }

    /// Every registered constraint's gradients are those of its value (central differences), and the
    /// value is invariant under rotation of the deformed shape (a constraint of the deformation, not of
    /// the orientation); translation invariance is built in (particle 0's gradient is minus the others').
    #[test]
    fn gradients_are_the_derivatives_and_the_value_is_frame_indifferent() {
        let w = [Vec3::new(0.013, -0.004, 0.007), Vec3::new(-0.006, 0.011, 0.002), Vec3::new(0.003, 0.005, -0.012)];
        for c in TetrahedronConstraint::ALL {
            let constant = 0.3;
            let (value, grads) = c.value(&geometry(w), constant);
            assert!(value.is_finite() && value != 0.0, "{c:?}");
            let h = 1e-6;
            let scale = grads.iter().map(|g| g.norm()).fold(0.0, f64::max);
            assert!(scale > 0.0, "{c:?}");
            for k in 0..3 {
                for axis in 0..3 {
                    let (mut plus, mut minus) = (w, w);
                    plus[k][axis] += h;
                    minus[k][axis] -= h;
                    let numeric =
                        (c.value(&geometry(plus), constant).0 - c.value(&geometry(minus), constant).0) / (2.0 * h);
                    assert!((numeric - grads[k][axis]).abs() <= 1e-7 * scale, "{c:?} d/dW{k}[{axis}]");
                }
            }
            // Rotate the deformed shape: d_k -> R d_k, so W_k -> R (E_k + W_k) - E_k.
            let r = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1);
            let g = geometry(w);
            let rotated = std::array::from_fn(|k| r * (g.rest_edges[k] + w[k]) - g.rest_edges[k]);
            let (turned, _) = c.value(&geometry(rotated), constant);
            assert!((turned - value).abs() <= 1e-9 * value.abs(), "{c:?}: {turned} vs {value}");
        }
    }

    /// The strain pair is St. Venant-Kirchhoff: with `alpha_vol = 1 / K`, `alpha_dev = 1 / (2 mu)` the
    /// constraint energy `C_vol^2 / (2 alpha_vol) + C_dev^2 / (2 alpha_dev)` equals
    /// `V0 (lambda / 2 (tr E)^2 + mu E:E)` for any deformation, and both constraints vanish at rest.
    #[test]
    fn the_strain_pair_is_st_venant_kirchhoff() {
        let w = [Vec3::new(0.013, -0.004, 0.007), Vec3::new(-0.006, 0.011, 0.002), Vec3::new(0.003, 0.005, -0.012)];
        let g = geometry(w);
        let (young, poisson) = (3.0e4, 0.3);
        let mu = young / (2.0 * (1.0 + poisson));
        let lambda = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
        let bulk = lambda + 2.0 * mu / 3.0;
        let (cv, _) = TetrahedronConstraint::StrainVolumetric.value(&g, 0.0);
        let (cd, _) = TetrahedronConstraint::StrainDeviatoric.value(&g, 0.0);
        let energy = cv * cv * bulk / 2.0 + cd * cd * mu;
        let (h, _, six_v0) = g.displacement_gradient();
        let e = (h + h.transpose() + h.transpose() * h) * 0.5;
        let stvk = six_v0 / 6.0 * (lambda / 2.0 * e.trace().powi(2) + mu * e.norm_squared());
        assert!((energy - stvk).abs() <= 1e-12 * stvk, "{energy} vs {stvk}");
        for c in [TetrahedronConstraint::StrainVolumetric, TetrahedronConstraint::StrainDeviatoric] {
            assert_eq!(c.value(&geometry([Vec3::zeros(); 3]), 0.0).0, 0.0, "{c:?} vanishes at rest");
        }
    }
}
