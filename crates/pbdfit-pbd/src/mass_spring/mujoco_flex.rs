//! MuJoCo 4's flex shell (a `<flex dim="2">` with `<elasticity young poisson thickness elastic2d>`) as a
//! force law of [`SpringBody`], whose static equilibrium under the load is the `mujoco-flex` profile's rest
//! state (`engines/mujoco_flex.rs` says why a static solve). The forms are MuJoCo's source
//! (`src/user/user_mesh.cc`: `ComputeStiffness<Stencil2D>`, `MetricTensor`, `ComputeBasis`,
//! `CreateFlapStencil`, `ComputeBending`; `src/engine/engine_passive.c`: `mj_flexPassiveStretch`,
//! `mj_flexPassiveBend`); the moduli in them are MuJoCo 4.0.1's, read off its compiled model
//! (`flex_stiffness`, `flex_bending`), which differ from the 3.x source's (below).
//!
//! **Membrane** (`elastic2d` `stretch` or `both`), per triangle with rest area `A`: a 3 x 3 metric on the
//! triangle's edges at the rest positions (edge `e` opposite local vertex `e`, `n` the unit normal),
//!
//! ```text
//! K_ee' = A h (mu tr(B_e B_e') + lambda/2 tr(B_e) tr(B_e'))
//! B_e   = (b_L b_R^T + b_R b_L^T) / (8 A^2),  b_L = n x (x_{e+2} - x_e),  b_R = (x_{e+1} - x_e) x n
//! ```
//!
//! with `mu = E / (2 (1 + nu))` and plane stress's `lambda = E nu / (1 - nu^2)`, and the membrane force is
//! `f = -grad (1/4 s^T K s)` with `s_e = l_e^2 - L_e^2` the change of each edge's squared length (computed as
//! `2 L_e . du_e + |du_e|^2`, without cancellation). `sum_e s_e B_e = -2 G` with `G` the triangle's Green
//! strain in its plane, so the energy is `A h (mu tr(G^2) + lambda/2 tr(G)^2)`: St. Venant-Kirchhoff in
//! plane stress, whose small-strain membrane is `E h` with Poisson's ratio `nu` (a test below checks the
//! energy against that form). MuJoCo 3.x's source (`user_mesh.cc` of 3.12) has `A h / 4` and the 3-D
//! `lambda = E nu / ((1 + nu)(1 - 2 nu))` instead: St. Venant-Kirchhoff with `(mu/4, lambda_3D/2)`, whose
//! membrane is `E (1 + 2 nu) / (4 (1 + nu))` with Poisson's ratio `2 nu`; MuJoCo 4.0.1's compiled metric is
//! 4 `mu` and 2 plane-stress `lambda` times 3.12's form to round-off, the plane-stress form here.
//!
//! **Bending** (`elastic2d` `bend` or `both`), per interior edge: MuJoCo's flap `[v0, v1, v2, v3]` (the edge
//! as the first triangle that has it lists it, that triangle's third vertex, the other triangle's), the
//! cotangent weights `c = [a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04)]` of Wardetzky et al., a factor
//! `cos_theta` of Garg et al.'s cubic shells and the stiffness `D / (A_1 + A_2)` with the plate's
//! `D = E h^3 / (12 (1 - nu^2))` (MuJoCo 3.12's source: `3 mu h^3 / (24 (A_1 + A_2))`, `4 / (3 (1 - nu))`
//! times less; 4.0.1's compiled `flex_bending` is `D`'s), all at rest: the energy `1/2 k cos_theta
//! (sum_i c_i x_i)^2`, quadratic in the positions, its force `-k cos_theta c_i sum_j c_j x_j`
//! (`flex_bending`'s 4 x 4 block times the positions). On a flat rest sheet `sum_j c_j X_j = 0`, so the
//! force is computed from the displacements alone; MuJoCo's curved-reference term (its 17th number per
//! edge) is zero there and is left out: a sheet that is not flat at rest gets the flat-reference bending
//! here (the profile's module doc says so).
//!
//! Damping (`elasticity damping`) scales velocities and vanishes at rest; pinned vertices are held.

use nalgebra::Matrix3;

use super::SpringBody;
use super::tangent::Element;
use crate::Vec3;

/// A membrane triangle: its vertices, each local edge's rest vector `X_p1 - X_p0` (m) for its vertex pair
/// ([`EDGES`]), and the two parts of MuJoCo's metric per unit `mu h` and `lambda h` (1/m^2:
/// `A tr(B_e B_e')` and `A/2 tr(B_e) tr(B_e')`).
#[derive(Debug, Clone)]
pub(super) struct FlexTriangle {
    vertices: [usize; 3],
    rest: [Vec3; 3],
    metric_mu: Matrix3<f64>,
    metric_lambda: Matrix3<f64>,
}

/// An interior edge's bending: the flap's four vertices and `cos_theta c c^T / (A_1 + A_2)` per unit `D`
/// (N m), i.e. MuJoCo's `flex_bending` block over `D`.
#[derive(Debug, Clone)]
pub(super) struct FlexHinge {
    vertices: [usize; 4],
    /// `c_i sqrt(|k cos_theta|)` per unit `D`, and the sign of `cos_theta` (the block is `sign w w^T`).
    weights: [f64; 4],
    sign: f64,
}

/// MuJoCo's flex shell of a sheet: its membrane triangles and bending hinges, from the rest positions.
#[derive(Debug, Clone, Default)]
pub(super) struct FlexShell {
    triangles: Vec<FlexTriangle>,
    hinges: Vec<FlexHinge>,
}

/// The local edges of a triangle as MuJoCo numbers them (`Stencil2D::edge`): edge `e` opposite vertex `e`.
const EDGES: [[usize; 2]; 3] = [[1, 2], [2, 0], [0, 1]];

/// `cot` of `user_mesh.cc`: the cotangent of the angle at `v0` between the edges to `v1` and `v2`.
fn cot(x: &[Vec3], v0: usize, v1: usize, v2: usize) -> f64 {
    let (e1, e2) = (x[v1] - x[v0], x[v2] - x[v0]);
    e1.dot(&e2) / e1.cross(&e2).norm()
}

fn area(x: &[Vec3], v: [usize; 3]) -> f64 {
    (x[v[1]] - x[v[0]]).cross(&(x[v[2]] - x[v[0]])).norm() / 2.0
}

impl FlexShell {
    /// The vertices of each membrane triangle, in the shell's order.
    pub(super) fn triangle_vertices(&self) -> impl Iterator<Item = &[usize]> {
        self.triangles.iter().map(|t| &t.vertices[..])
    }

    /// The vertices of each bending hinge, in the shell's order.
    pub(super) fn hinge_vertices(&self) -> impl Iterator<Item = &[usize]> {
        self.hinges.iter().map(|h| &h.vertices[..])
    }

    /// The shell of triangles `triangles` (in MuJoCo's element order) at rest positions `x` (m).
    pub(super) fn new(triangles: &[[usize; 3]], x: &[Vec3]) -> Self {
        let triangles_out = triangles
            .iter()
            .map(|&v| {
                let a = area(x, v);
                let normal = (x[v[1]] - x[v[0]]).cross(&(x[v[2]] - x[v[0]])).normalize();
                let basis: [Matrix3<f64>; 3] = std::array::from_fn(|e| {
                    let (left, right) = (x[v[(e + 2) % 3]] - x[v[e]], x[v[(e + 1) % 3]] - x[v[e]]);
                    let (bl, br) = (normal.cross(&left), right.cross(&normal));
                    (bl * br.transpose() + br * bl.transpose()) / (8.0 * a * a)
                });
                let metric_mu = Matrix3::from_fn(|i, j| a * (basis[i] * basis[j]).trace());
                let metric_lambda = Matrix3::from_fn(|i, j| a / 2.0 * basis[i].trace() * basis[j].trace());
                FlexTriangle { vertices: v, rest: EDGES.map(|[p0, p1]| x[v[p1]] - x[v[p0]]), metric_mu, metric_lambda }
            })
            .collect();
        // CreateFlapStencil: the first triangle with an edge gives its vertices and the third; the second
        // triangle's third vertex completes the flap.
        let mut flaps: Vec<[Option<usize>; 4]> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for v in triangles {
            for [p0, p1] in EDGES {
                let key = (v[p0].min(v[p1]), v[p0].max(v[p1]));
                let third = v[(p1 + 1) % 3];
                match index.get(&key) {
                    None => {
                        index.insert(key, flaps.len());
                        flaps.push([Some(v[p0]), Some(v[p1]), Some(third), None]);
                    }
                    Some(&i) => flaps[i][3] = Some(third),
                }
            }
        }
        let hinges = flaps
            .into_iter()
            .filter_map(|f| {
                let v = [f[0]?, f[1]?, f[2]?, f[3]?];
                let (a01, a02, a03, a04) = (
                    cot(x, v[0], v[1], v[2]),
                    cot(x, v[0], v[3], v[1]),
                    cot(x, v[1], v[2], v[0]),
                    cot(x, v[1], v[0], v[3]),
                );
                let c = [a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04)];
                let volume = area(x, [v[0], v[1], v[2]]) + area(x, [v[1], v[0], v[3]]);
                let stiffness = 1.0 / volume;
                let (e0, e1, e2) = (x[v[1]] - x[v[0]], x[v[2]] - x[v[0]], x[v[3]] - x[v[0]]);
                let (e3, e4) = (x[v[2]] - x[v[1]], x[v[3]] - x[v[1]]);
                let t0 = -(e1 * a03 + e3 * a01);
                let t1 = -(e2 * a04 + e4 * a02);
                let cos_theta = -t0.dot(&t1) / e0.norm_squared();
                let k = cos_theta * stiffness;
                Some(FlexHinge { vertices: v, weights: c.map(|ci| ci * k.abs().sqrt()), sign: k.signum() })
            })
            .collect();
        FlexShell { triangles: triangles_out, hinges }
    }

    /// Interior edges with a bending block.
    #[cfg(test)]
    pub(super) fn hinge_count(&self) -> usize {
        self.hinges.len()
    }
}

/// One triangle's current state: each edge's vector `d_e` (m), `s_e = l^2 - L^2` (m^2) and the metric
/// times `s`, `sigma = K s` (N/m: `K` with `mu h`, `lambda h` in N/m).
struct MembraneState {
    d: [Vec3; 3],
    s: [f64; 3],
    k: Matrix3<f64>,
    sigma: [f64; 3],
}

impl SpringBody {
    fn membrane_state(&self, t: &FlexTriangle, u: &[f64], mu_h: f64, lambda_h: f64) -> MembraneState {
        let k = t.metric_mu * mu_h + t.metric_lambda * lambda_h;
        let mut d = [Vec3::zeros(); 3];
        let mut s = [0.0; 3];
        for (e, [p0, p1]) in EDGES.into_iter().enumerate() {
            let du = self.vertex(u, t.vertices[p1]) - self.vertex(u, t.vertices[p0]);
            d[e] = t.rest[e] + du;
            s[e] = 2.0 * t.rest[e].dot(&du) + du.norm_squared();
        }
        let sigma = std::array::from_fn(|e| (0..3).map(|f| k[(e, f)] * s[f]).sum());
        MembraneState { d, s, k, sigma }
    }

    /// `sum_j w_j u_j` over a hinge's vertices (m times its weights).
    fn hinge_curvature(&self, h: &FlexHinge, u: &[f64]) -> Vec3 {
        (0..4).map(|i| self.vertex(u, h.vertices[i]) * h.weights[i]).sum()
    }

    /// Adds the flex shell's forces (N) at displacements `u` to `out`: membrane with `mu h`, `lambda h`
    /// (N/m), bending with `D` (N m).
    pub(super) fn add_flex_forces(&self, (mu_h, lambda_h, bend): (f64, f64, f64), u: &[f64], out: &mut [f64]) {
        let Some(shell) = &self.flex else { return };
        if mu_h > 0.0 || lambda_h > 0.0 {
            for t in &shell.triangles {
                let m = self.membrane_state(t, u, mu_h, lambda_h);
                for (e, [p0, p1]) in EDGES.into_iter().enumerate() {
                    let f = m.d[e] * m.sigma[e];
                    self.add(out, t.vertices[p0], f);
                    self.add(out, t.vertices[p1], -f);
                }
            }
        }
        if bend > 0.0 {
            for h in &shell.hinges {
                let kappa = self.hinge_curvature(h, u) * (bend * h.sign);
                for i in 0..4 {
                    self.add(out, h.vertices[i], -kappa * h.weights[i]);
                }
            }
        }
    }

    /// The flex shell's elastic energy (J) at displacements `u`.
    pub(super) fn flex_energy(&self, (mu_h, lambda_h, bend): (f64, f64, f64), u: &[f64]) -> f64 {
        let Some(shell) = &self.flex else { return 0.0 };
        let mut e = 0.0;
        if mu_h > 0.0 || lambda_h > 0.0 {
            for t in &shell.triangles {
                let m = self.membrane_state(t, u, mu_h, lambda_h);
                e += 0.25 * (0..3).map(|i| m.s[i] * m.sigma[i]).sum::<f64>();
            }
        }
        if bend > 0.0 {
            for h in &shell.hinges {
                e += 0.5 * bend * h.sign * self.hinge_curvature(h, u).norm_squared();
            }
        }
        e
    }

    /// The flex shell's tangent blocks `df_i/du_j` (3 x 3), passed to `put(element, index, i, j, block)`
    /// with the element's kind and index and the local vertices `i`, `j` (the tangent's [`Element`]s).
    pub(super) fn flex_tangent(
        &self,
        (mu_h, lambda_h, bend): (f64, f64, f64),
        u: &[f64],
        mut put: impl FnMut(Element, usize, usize, usize, &Matrix3<f64>),
    ) {
        let Some(shell) = &self.flex else { return };
        if mu_h > 0.0 || lambda_h > 0.0 {
            for (index, t) in shell.triangles.iter().enumerate() {
                let m = self.membrane_state(t, u, mu_h, lambda_h);
                let mut blocks = [[Matrix3::zeros(); 3]; 3];
                for (e, [p0, p1]) in EDGES.into_iter().enumerate() {
                    // f_p0 = sigma_e d_e, f_p1 = -sigma_e d_e; d(sigma_e) = sum_f K_ef 2 d_f . (dx_q1 - dx_q0).
                    for (f, [q0, q1]) in EDGES.into_iter().enumerate() {
                        let term = m.d[e] * m.d[f].transpose() * (2.0 * m.k[(e, f)]);
                        blocks[p0][q1] += term;
                        blocks[p0][q0] -= term;
                        blocks[p1][q1] -= term;
                        blocks[p1][q0] += term;
                    }
                    let s = Matrix3::identity() * m.sigma[e];
                    blocks[p0][p1] += s;
                    blocks[p0][p0] -= s;
                    blocks[p1][p1] -= s;
                    blocks[p1][p0] += s;
                }
                for i in 0..3 {
                    for j in 0..3 {
                        put(Element::Triangle, index, i, j, &blocks[i][j]);
                    }
                }
            }
        }
        if bend > 0.0 {
            for (index, h) in shell.hinges.iter().enumerate() {
                for i in 0..4 {
                    for j in 0..4 {
                        let b = Matrix3::identity() * (-bend * h.sign * h.weights[i] * h.weights[j]);
                        put(Element::Hinge, index, i, j, &b);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pbdfit_mesh::{Diagonal, SheetMesh};

    use super::*;
    use crate::{PbdSystem, SpringLaw};

    fn sheet(nx: usize, ny: usize, diagonal: Diagonal) -> SpringBody {
        let mesh = SheetMesh::rectangle(0.8, 0.5, nx, ny, diagonal).unwrap();
        let sheet = pbdfit_mesh::Sheet::new(mesh, 1e-3, 1000.0).unwrap();
        let held = vec![false; sheet.mesh.vertices().len()];
        SpringBody::new(&PbdSystem::sheet("flex", &sheet, &held, Vec3::zeros()))
    }

    /// The membrane energy of a sheet under a homogeneous deformation `x = F X` is St. Venant-Kirchhoff's
    /// in plane stress, `A h (mu tr(G^2) + lambda/2 tr(G)^2)` with `lambda = E nu / (1 - nu^2)` and the
    /// Green strain `G = (F^T F - I) / 2` restricted to the sheet's plane.
    #[test]
    fn the_membrane_is_st_venant_kirchhoff_in_plane_stress() {
        let body = sheet(1, 1, Diagonal::Forward);
        let (young, nu, h) = (2e5, 0.3, 1e-3);
        let mu = young / (2.0 * (1.0 + nu));
        let lambda = young * nu / (1.0 - nu * nu);
        let f = Matrix3::new(1.03, 0.02, 0.0, -0.01, 0.98, 0.0, 0.015, -0.02, 1.0);
        let u: Vec<Vec3> = body.rest.iter().map(|x| f * x - x).collect();
        let energy = body.flex_energy((mu * h, lambda * h, 0.0), &body.flatten(&u));
        let g = (f.transpose() * f - Matrix3::identity()) / 2.0;
        let g2 = g.fixed_view::<2, 2>(0, 0).into_owned();
        let total_area = 0.8 * 0.5;
        let expected = total_area * h * (mu * (g2 * g2).trace() + lambda / 2.0 * g2.trace().powi(2));
        println!("energy {energy:e}, St. Venant-Kirchhoff {expected:e}");
        assert!((energy - expected).abs() <= 1e-12 * expected, "{energy:e} vs {expected:e}");
    }

    /// The forces are the energy's negative gradient and the tangent the forces' derivative (central
    /// differences), membrane and bending together, at a deformed state out of the plane; a rigid motion
    /// of the flat sheet costs nothing.
    #[test]
    fn forces_and_tangent_are_the_energys_derivatives() {
        let body = sheet(3, 2, Diagonal::Alternating);
        assert_eq!(body.flex.as_ref().unwrap().hinge_count(), 3 * 2 * 3 - 3 - 2);
        let law = SpringLaw { membrane_mu: 70.0, membrane_lambda: 40.0, bending: 3e-3, ..SpringLaw::NONE };
        let constants = law.flex_constants();
        let n = body.dofs();
        let u: Vec<f64> = (0..n).map(|i| 0.02 * ((i * 7 % 11) as f64 / 11.0 - 0.5)).collect();
        let forces = body.forces(&law, &u, None);
        let weight = body.forces(&SpringLaw::NONE, &u, None);
        let (k, _) = body.tangents(&law, &u);
        let step = 1e-6;
        let mut worst: f64 = 0.0;
        let scale = forces.iter().zip(&weight).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        let k = k.dense();
        let kmax = k.abs().max();
        for j in 0..n {
            let mut plus = u.clone();
            plus[j] += step;
            let mut minus = u.clone();
            minus[j] -= step;
            let de = (body.flex_energy(constants, &plus) - body.flex_energy(constants, &minus)) / (2.0 * step);
            worst = worst.max((de + forces[j] - weight[j]).abs() / scale);
            let (fp, fm) = (body.forces(&law, &plus, None), body.forces(&law, &minus, None));
            for i in 0..n {
                let d = (fp[i] - fm[i]) / (2.0 * step);
                let exact = k[(i, j)];
                worst = worst.max((d - exact).abs() / kmax);
            }
        }
        assert!(worst < 1e-6, "derivatives against differences: {worst:e}");
        let (c, s) = (0.6f64, 0.8f64);
        let turn = Matrix3::new(c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c);
        let moved: Vec<Vec3> = body.rest.iter().map(|x| turn * x - x + Vec3::new(0.1, -0.2, 0.3)).collect();
        let e = body.flex_energy(constants, &body.flatten(&moved));
        assert!(e.abs() <= 1e-12 * 70.0 * 0.4, "a rigid motion costs {e:e} J");
    }
}
