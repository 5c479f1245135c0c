//! The flat shell facet: CST membrane, DKT bending and the drilling penalty in the facet's own frame,
//! rotated to the global frame.
//!
//! Local DOFs per node, in order: `u, v, w` (translations along the facet's `e1, e2, e3`) and
//! `theta_x, theta_y, theta_z` (the components of the small rotation vector along the same axes). The
//! rotation of the normal is `beta = theta x e3`, so `beta_x = theta_y` and `beta_y = -theta_x`, and
//! Kirchhoff's condition `beta = -grad w` reads `theta_x = w_,y`, `theta_y = -w_,x` (Batoz, Bathe and
//! Ho 1980, with the rotations as the vector components that transform like the translations).

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

use super::ShellError;
use crate::YoungPoisson;

/// The global stiffness of one facet: 18 x 18 over `[u_x, u_y, u_z, theta_x, theta_y, theta_z]` of its
/// three nodes, in N/m (translations), N (mixed) and N m (rotations).
pub type FacetStiffness = SMatrix<f64, 18, 18>;

/// The drilling penalty's factor: the energy `DRILLING_FACTOR / 2 * E h A * sum_i (theta_z,i - omega)^2`
/// ties each node's drilling rotation to the membrane's rotation `omega = (v_,x - u_,y) / 2`.
pub const DRILLING_FACTOR: f64 = 1e-3;

/// A facet's orthonormal frame: `e1` along the edge from node 0 to node 1, `e3` the unit normal of the
/// winding `(p1 - p0) x (p2 - p0)`, `e2 = e3 x e1`; and the nodes' in-plane coordinates (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FacetFrame {
    /// Rows `e1, e2, e3`: maps global components to local ones.
    pub rotation: Matrix3<f64>,
    /// Local `x` of the three nodes (node 0 at the origin).
    pub x: [f64; 3],
    /// Local `y` of the three nodes.
    pub y: [f64; 3],
    /// Area in m^2.
    pub area: f64,
}

impl FacetFrame {
    /// The frame of the triangle `p`; [`ShellError::DegenerateFacet`] (with `triangle` 0) if its area
    /// is not positive.
    pub fn new(p: [Vector3<f64>; 3]) -> Result<Self, ShellError> {
        let a = p[1] - p[0];
        let b = p[2] - p[0];
        let normal = a.cross(&b);
        let area = 0.5 * normal.norm();
        if area.is_nan() || area <= 0.0 || a.norm() == 0.0 {
            return Err(ShellError::DegenerateFacet { triangle: 0, area });
        }
        let e1 = a / a.norm();
        let e3 = normal / normal.norm();
        let e2 = e3.cross(&e1);
        let rotation = Matrix3::from_rows(&[e1.transpose(), e2.transpose(), e3.transpose()]);
        Ok(Self { rotation, x: [0.0, a.dot(&e1), b.dot(&e1)], y: [0.0, 0.0, b.dot(&e2)], area })
    }

    /// `(b_i, c_i)` with `dL_i/dx = b_i / (2A)`, `dL_i/dy = c_i / (2A)` for the area coordinates `L_i`.
    pub(crate) fn gradients(&self) -> ([f64; 3], [f64; 3]) {
        let (x, y) = (self.x, self.y);
        let two_a = 2.0 * self.area;
        let b = [(y[1] - y[2]) / two_a, (y[2] - y[0]) / two_a, (y[0] - y[1]) / two_a];
        let c = [(x[2] - x[1]) / two_a, (x[0] - x[2]) / two_a, (x[1] - x[0]) / two_a];
        (b, c)
    }
}

/// Plane-stress elasticity matrix `E / (1 - nu^2) [[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]]`
/// (engineering shear), in Pa.
pub(crate) fn plane_stress(material: YoungPoisson) -> Matrix3<f64> {
    let (e, nu) = (material.young(), material.poisson());
    let s = e / (1.0 - nu * nu);
    Matrix3::new(s, s * nu, 0.0, s * nu, s, 0.0, 0.0, 0.0, s * (1.0 - nu) / 2.0)
}

/// The constant-strain membrane's strain-displacement matrix over `(u0, v0, u1, v1, u2, v2)`: rows
/// `eps_xx, eps_yy, gamma_xy`.
pub fn membrane_b(frame: &FacetFrame) -> SMatrix<f64, 3, 6> {
    let (b, c) = frame.gradients();
    let mut m = SMatrix::<f64, 3, 6>::zeros();
    for i in 0..3 {
        m[(0, 2 * i)] = b[i];
        m[(1, 2 * i + 1)] = c[i];
        m[(2, 2 * i)] = c[i];
        m[(2, 2 * i + 1)] = b[i];
    }
    m
}

/// The DKT curvature matrix at the area coordinates `l` over `(w_i, theta_x,i, theta_y,i)` of the three
/// nodes: rows `beta_x,x`, `beta_y,y`, `beta_x,y + beta_y,x` (= `-w_,xx`, `-w_,yy`, `-2 w_,xy` for a
/// Kirchhoff field).
///
/// The rotations `beta` are quadratic over the six-node triangle. At the corners they are the nodal
/// rotations. At the mid-side node of edge `i -> j` (length `l`, unit tangent `s`, normal `n`) the
/// tangential rotation is minus the slope of the cubic Hermite `w` along the edge,
/// `beta_s = -3 / (2 l) (w_j - w_i) - (beta_s,i + beta_s,j) / 4`, and the normal rotation is the mean
/// `beta_n = (beta_n,i + beta_n,j) / 2`: the discrete Kirchhoff constraints of Batoz, Bathe and Ho
/// (1980), built here as a 12 x 9 map from the nodal DOFs to the six nodes' rotations rather than
/// from the paper's expanded coefficients.
pub fn dkt_b(frame: &FacetFrame, l: [f64; 3]) -> SMatrix<f64, 3, 9> {
    type Row = SVector<f64, 9>;
    let unit = |k: usize| Row::from_fn(|r, _| if r == k { 1.0 } else { 0.0 });
    // beta_x and beta_y of the six quadratic nodes as rows over the nine DOFs.
    let mut beta_x = [Row::zeros(); 6];
    let mut beta_y = [Row::zeros(); 6];
    for i in 0..3 {
        beta_x[i] = unit(3 * i + 2);
        beta_y[i] = -unit(3 * i + 1);
    }
    // Mid-side node 3 + k lies on the edge opposite corner k: (1, 2), (2, 0), (0, 1).
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let (dx, dy) = (frame.x[j] - frame.x[i], frame.y[j] - frame.y[i]);
        let length = dx.hypot(dy);
        let (sx, sy) = (dx / length, dy / length);
        let (nx, ny) = (sy, -sx);
        let beta_s = |a: usize| beta_x[a] * sx + beta_y[a] * sy;
        let beta_n = |a: usize| beta_x[a] * nx + beta_y[a] * ny;
        let s = (unit(3 * j) - unit(3 * i)) * (-1.5 / length) - (beta_s(i) + beta_s(j)) * 0.25;
        let n = (beta_n(i) + beta_n(j)) * 0.5;
        beta_x[3 + k] = s * sx + n * nx;
        beta_y[3 + k] = s * sy + n * ny;
    }
    // Derivatives of the quadratic shape functions: corners L_i (2 L_i - 1), mid-sides 4 L_i L_j.
    let (b, c) = frame.gradients();
    let mut dn_dx = [0.0; 6];
    let mut dn_dy = [0.0; 6];
    for i in 0..3 {
        dn_dx[i] = (4.0 * l[i] - 1.0) * b[i];
        dn_dy[i] = (4.0 * l[i] - 1.0) * c[i];
    }
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        dn_dx[3 + k] = 4.0 * (l[i] * b[j] + l[j] * b[i]);
        dn_dy[3 + k] = 4.0 * (l[i] * c[j] + l[j] * c[i]);
    }
    let mut m = SMatrix::<f64, 3, 9>::zeros();
    for a in 0..6 {
        let rows = [beta_x[a] * dn_dx[a], beta_y[a] * dn_dy[a], beta_x[a] * dn_dy[a] + beta_y[a] * dn_dx[a]];
        for (r, row) in rows.iter().enumerate() {
            for col in 0..9 {
                m[(r, col)] += row[col];
            }
        }
    }
    m
}

/// The facet's stiffness in its own frame (local DOF order of the module documentation).
pub fn local_stiffness(frame: &FacetFrame, material: YoungPoisson, thickness: f64) -> FacetStiffness {
    let c = plane_stress(material);
    let area = frame.area;
    let mut k = FacetStiffness::zeros();

    // Membrane: A h B^T C B on (u, v).
    let bm = membrane_b(frame);
    let km = bm.transpose() * (c * (area * thickness)) * bm;
    for a in 0..3 {
        for b in 0..3 {
            for (r, s) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                k[(6 * a + r, 6 * b + s)] += km[(2 * a + r, 2 * b + s)];
            }
        }
    }

    // Bending: the curvature is linear, so the mid-edge rule (weights A / 3) integrates B^T D B exactly.
    let d = c * (thickness.powi(3) / 12.0);
    let mut kb = SMatrix::<f64, 9, 9>::zeros();
    for l in [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]] {
        let bb = dkt_b(frame, l);
        kb += bb.transpose() * d * bb * (area / 3.0);
    }
    for a in 0..3 {
        for b in 0..3 {
            for r in 0..3 {
                for s in 0..3 {
                    k[(6 * a + 2 + r, 6 * b + 2 + s)] += kb[(3 * a + r, 3 * b + s)];
                }
            }
        }
    }

    // Drilling: DRILLING_FACTOR * E h A * sum_i g_i g_i^T with g_i . q = theta_z,i - omega.
    let (bx, cy) = frame.gradients();
    let mut omega = SVector::<f64, 18>::zeros();
    for i in 0..3 {
        omega[6 * i] = -0.5 * cy[i];
        omega[6 * i + 1] = 0.5 * bx[i];
    }
    let weight = DRILLING_FACTOR * material.young() * thickness * area;
    for i in 0..3 {
        let mut g = -omega;
        g[6 * i + 5] += 1.0;
        k += g * g.transpose() * weight;
    }
    k
}

/// The facet's block-diagonal rotation (six 3 x 3 blocks, rows `e1, e2, e3`): local DOFs = `T` global DOFs.
pub fn facet_rotation(frame: &FacetFrame) -> FacetStiffness {
    let mut t = FacetStiffness::zeros();
    for block in 0..6 {
        t.fixed_view_mut::<3, 3>(3 * block, 3 * block).copy_from(&frame.rotation);
    }
    t
}

/// The stiffness of the facet with nodes `p` (m) in the global frame, `T^T K_local T`.
pub fn facet_stiffness(
    p: [Vector3<f64>; 3],
    material: YoungPoisson,
    thickness: f64,
) -> Result<FacetStiffness, ShellError> {
    let frame = FacetFrame::new(p)?;
    let t = facet_rotation(&frame);
    Ok(t.transpose() * local_stiffness(&frame, material, thickness) * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> FacetFrame {
        FacetFrame::new([Vector3::new(0.1, 0.2, 0.0), Vector3::new(1.3, 0.1, 0.0), Vector3::new(0.4, 0.9, 0.0)])
            .unwrap()
    }

    #[test]
    fn dkt_reproduces_the_curvature_of_a_quadratic_w_at_any_point() {
        // w = a x^2 / 2 + b y^2 / 2 + c x y: theta_x = w_,y, theta_y = -w_,x; kappa = -(a, b, 2c).
        let f = frame();
        let (a, b, c) = (0.7, -1.3, 0.4);
        let mut q = SVector::<f64, 9>::zeros();
        for i in 0..3 {
            let (x, y) = (f.x[i], f.y[i]);
            q[3 * i] = a * x * x / 2.0 + b * y * y / 2.0 + c * x * y;
            q[3 * i + 1] = b * y + c * x;
            q[3 * i + 2] = -(a * x + c * y);
        }
        for l in [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.0, 0.5, 0.5]] {
            let k = dkt_b(&f, l) * q;
            let expected = [-a, -b, -2.0 * c];
            for r in 0..3 {
                assert!((k[r] - expected[r]).abs() < 1e-13, "{k} at {l:?}");
            }
        }
    }

    #[test]
    fn local_stiffness_is_symmetric_with_six_zero_energy_modes() {
        let k = local_stiffness(&frame(), YoungPoisson::new(2e11, 0.3).unwrap(), 1e-2);
        assert!((k - k.transpose()).abs().max() < 1e-12 * k.abs().max());
        let eig = k.symmetric_eigen().eigenvalues;
        let mut v: Vec<f64> = eig.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let scale = v[17];
        assert!(v[..6].iter().all(|e| e.abs() < 1e-10 * scale), "{v:?}");
        assert!(v[6] > 1e-8 * scale, "{v:?}");
    }
}
