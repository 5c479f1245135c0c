//! The linear (4-node) tetrahedron: shape-function gradients, strain-displacement matrix `B`, elasticity
//! matrix `D` and element stiffness `Ke = V B^T D B`.
//!
//! Voigt order of strains and stresses: `[xx, yy, zz, yz, xz, xy]`, with *engineering* shear strains
//! (`gamma_yz = 2 eps_yz`, ...). Consistently with that, the shear diagonal of `D` is the shear modulus
//! `mu = E / (2 (1 + nu))`, not `2 mu` (docs/rest-states-and-references.md).
//!
//! Element degrees of freedom are ordered vertex-major: `[u0x, u0y, u0z, u1x, ..., u3z]`.

use nalgebra::{Matrix3, Matrix6, SMatrix, Vector3};

use crate::{FemError, LameParameters, YoungPoisson};

/// Strain-displacement matrix of a linear tetrahedron: `eps = B ue` (Voigt, engineering shear).
pub type BMatrix = SMatrix<f64, 6, 12>;

/// Element stiffness matrix of a linear tetrahedron, N/m, vertex-major DOF order.
pub type ElementStiffness = SMatrix<f64, 12, 12>;

/// Gradients (1/m) of the four barycentric shape functions of a tetrahedron and its signed volume (m^3).
///
/// The gradients are constant over the element and sum to zero. Fails for a tetrahedron whose signed
/// volume is not positive (degenerate or inverted).
pub fn shape_gradients(points: &[Vector3<f64>; 4]) -> Result<([Vector3<f64>; 4], f64), FemError> {
    let dm = Matrix3::from_columns(&[points[1] - points[0], points[2] - points[0], points[3] - points[0]]);
    let volume = dm.determinant() / 6.0;
    let inverse = match dm.try_inverse() {
        Some(inv) if volume > 0.0 && volume.is_finite() => inv,
        _ => return Err(FemError::DegenerateElement { tet: 0, volume }),
    };
    // x = p0 + Dm (N1, N2, N3): the rows of Dm^-1 are the gradients of N1..N3.
    let g1 = inverse.row(0).transpose();
    let g2 = inverse.row(1).transpose();
    let g3 = inverse.row(2).transpose();
    Ok(([-(g1 + g2 + g3), g1, g2, g3], volume))
}

/// The strain-displacement matrix `B` (6 x 12) from the shape-function gradients.
pub fn b_matrix(gradients: &[Vector3<f64>; 4]) -> BMatrix {
    let mut b = BMatrix::zeros();
    for (a, g) in gradients.iter().enumerate() {
        let c = 3 * a;
        b[(0, c)] = g.x;
        b[(1, c + 1)] = g.y;
        b[(2, c + 2)] = g.z;
        // gamma_yz = du_y/dz + du_z/dy
        b[(3, c + 1)] = g.z;
        b[(3, c + 2)] = g.y;
        // gamma_xz = du_x/dz + du_z/dx
        b[(4, c)] = g.z;
        b[(4, c + 2)] = g.x;
        // gamma_xy = du_x/dy + du_y/dx
        b[(5, c)] = g.y;
        b[(5, c + 1)] = g.x;
    }
    b
}

/// The isotropic elasticity matrix `D` (Pa) for engineering shear strains: `sigma = D eps`.
pub fn d_matrix(material: YoungPoisson) -> Matrix6<f64> {
    let lame = material.lame();
    let mut d = Matrix6::zeros();
    for i in 0..3 {
        for j in 0..3 {
            d[(i, j)] = lame.lambda;
        }
        d[(i, i)] += 2.0 * lame.mu;
        d[(i + 3, i + 3)] = lame.mu;
    }
    d
}

/// `V B^T D B` evaluated block by block in closed form, as assembly uses it (about a third of the flops
/// of the matrix product, no `B` built): for vertices a, b and components i, j,
/// `K_ab,ij = V (lambda g_a,i g_b,j + mu g_a,j g_b,i + mu (g_a . g_b) delta_ij)`, which is `B^T D B` with
/// engineering shear (derivation: the Hessian of `V (lambda/2 (tr eps)^2 + mu eps:eps)`). The unit
/// test `closed_form_matches_b_t_d_b` checks the two agree.
pub(crate) fn stiffness_from_gradients(
    gradients: &[Vector3<f64>; 4],
    volume: f64,
    lame: LameParameters,
) -> ElementStiffness {
    let mut k = ElementStiffness::zeros();
    let (lambda, mu) = (lame.lambda * volume, lame.mu * volume);
    for a in 0..4 {
        for b in a..4 {
            let (ga, gb) = (&gradients[a], &gradients[b]);
            let block =
                ga * gb.transpose() * lambda + gb * ga.transpose() * mu + Matrix3::identity() * (mu * ga.dot(gb));
            k.fixed_view_mut::<3, 3>(3 * a, 3 * b).copy_from(&block);
            if a != b {
                k.fixed_view_mut::<3, 3>(3 * b, 3 * a).copy_from(&block.transpose());
            }
        }
    }
    k
}

/// Element stiffness `Ke = V B^T D B` (N/m) of the tetrahedron with vertices `points` (m), DOFs ordered
/// vertex-major. Symmetric, positive semi-definite, with the six rigid motions as its null space.
///
/// ```
/// use nalgebra::Vector3;
/// use pbdfit_fem::{YoungPoisson, element_stiffness};
/// let p = [Vector3::zeros(), Vector3::x(), Vector3::y(), Vector3::z()];
/// let k = element_stiffness(&p, YoungPoisson::new(1e3, 0.3).unwrap()).unwrap();
/// assert!((k - k.transpose()).amax() < 1e-12 * k.amax());
/// // A rigid translation produces no force.
/// let t = nalgebra::SVector::<f64, 12>::from_fn(|i, _| [1.0, 2.0, 3.0][i % 3]);
/// assert!((k * t).amax() < 1e-12 * k.amax());
/// ```
pub fn element_stiffness(points: &[Vector3<f64>; 4], material: YoungPoisson) -> Result<ElementStiffness, FemError> {
    let (gradients, volume) = shape_gradients(points)?;
    let b = b_matrix(&gradients);
    Ok(b.transpose() * (d_matrix(material) * b) * volume)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skewed() -> [Vector3<f64>; 4] {
        [
            Vector3::new(0.1, -0.2, 0.05),
            Vector3::new(1.3, 0.1, -0.2),
            Vector3::new(0.4, 0.9, 0.3),
            Vector3::new(-0.1, 0.35, 1.7),
        ]
    }

    #[test]
    fn gradients_interpolate_linear_functions_exactly() {
        let p = skewed();
        let (g, volume) = shape_gradients(&p).unwrap();
        assert!(volume > 0.0);
        // sum_a x_a grad N_a = I (the gradient of x).
        let mut grad_x = Matrix3::zeros();
        for a in 0..4 {
            grad_x += p[a] * g[a].transpose();
        }
        assert!((grad_x - Matrix3::identity()).amax() < 1e-14);
    }

    #[test]
    fn degenerate_and_inverted_tets_are_rejected() {
        let mut p = skewed();
        p.swap(2, 3);
        assert!(matches!(shape_gradients(&p), Err(FemError::DegenerateElement { .. })));
        let flat = [Vector3::zeros(), Vector3::x(), Vector3::y(), Vector3::new(1.0, 1.0, 0.0)];
        assert!(shape_gradients(&flat).is_err());
    }

    #[test]
    fn closed_form_matches_b_t_d_b() {
        // K_ab,ij = V (lambda g_a,i g_b,j + mu g_a,j g_b,i + mu (g_a . g_b) delta_ij) for engineering shear.
        let m = YoungPoisson::new(2.5e3, 0.27).unwrap();
        let l = m.lame();
        let p = skewed();
        let (g, v) = shape_gradients(&p).unwrap();
        let k = element_stiffness(&p, m).unwrap();
        let closed = stiffness_from_gradients(&g, v, l);
        assert!((k - closed).amax() < 1e-13 * k.amax());
        for a in 0..4 {
            for b in 0..4 {
                for i in 0..3 {
                    for j in 0..3 {
                        let delta = if i == j { 1.0 } else { 0.0 };
                        let expected = v
                            * (l.lambda * g[a][i] * g[b][j]
                                + l.mu * g[a][j] * g[b][i]
                                + l.mu * g[a].dot(&g[b]) * delta);
                        assert!((k[(3 * a + i, 3 * b + j)] - expected).abs() < 1e-12 * k.amax());
                    }
                }
            }
        }
    }
}
