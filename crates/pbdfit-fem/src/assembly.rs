//! Global assembly: the reduced stiffness matrix `K_ff` (held / constrained DOFs eliminated), the
//! right-hand side `f_f - K_fc u_c`, the gravity load, and internal forces for reactions.
//!
//! Unknowns are numbered vertex-major over the free vertices in vertex order: free vertex number `i`
//! (counting free vertices only) owns DOFs `3i, 3i+1, 3i+2` (x, y, z). The matrix is stored with both
//! triangles (nalgebra-sparse CSC, rows sorted in each column), so that any solver can use it.
//!
//! The sparsity pattern is computed once per mesh and constraint set ([`Assembler::new`]); assembling
//! for a material then only fills values, locating each 3 x 3 vertex block by a binary search in its
//! column. No per-element scatter table is stored, so memory stays at the matrix plus 13 numbers per
//! tetrahedron.

use nalgebra::{Matrix3, Vector3};
use nalgebra_sparse::{CscMatrix, pattern::SparsityPattern};
use pbdfit_mesh::{Tet, TetMesh};

use crate::element::{ElementStiffness, shape_gradients, stiffness_from_gradients};
use crate::materials::Material;
use crate::{FemError, YoungPoisson};

const CONSTRAINED: usize = usize::MAX;

/// Which DOFs are unknown: maps a vertex to the index of its x DOF in the reduced system.
#[derive(Debug, Clone, PartialEq)]
pub struct DofMap {
    first: Vec<usize>,
    dofs: usize,
}

impl DofMap {
    /// Numbers the free vertices (those with `constrained[v] == false`) in vertex order.
    pub fn new(constrained: &[bool]) -> Self {
        let mut dofs = 0;
        let first = constrained
            .iter()
            .map(|&c| {
                if c {
                    CONSTRAINED
                } else {
                    dofs += 3;
                    dofs - 3
                }
            })
            .collect();
        Self { first, dofs }
    }

    /// Number of unknowns (3 per free vertex).
    pub fn dofs(&self) -> usize {
        self.dofs
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.first.len()
    }

    /// The reduced index of `component` (0 = x, 1 = y, 2 = z) of `vertex`, `None` if it is constrained.
    pub fn dof(&self, vertex: usize, component: usize) -> Option<usize> {
        let f = self.first[vertex];
        (f != CONSTRAINED).then_some(f + component)
    }

    /// Whether the vertex is constrained (held).
    pub fn is_constrained(&self, vertex: usize) -> bool {
        self.first[vertex] == CONSTRAINED
    }
}

/// Per-element data precomputed once: vertices, shape-function gradients (1/m), volume (m^3).
#[derive(Debug, Clone)]
struct Element {
    tet: Tet,
    gradients: [Vector3<f64>; 4],
    volume: f64,
}

/// Assembles the reduced stiffness system of one mesh with one constraint set, for any material.
#[derive(Debug, Clone)]
pub struct Assembler {
    elements: Vec<Element>,
    dof_map: DofMap,
    pattern: SparsityPattern,
}

impl Assembler {
    /// Precomputes element gradients and the sparsity pattern of `K_ff`. `constrained[v]` marks vertices
    /// whose displacement is prescribed (held vertices). Fails for a degenerate tetrahedron, a length
    /// mismatch, or a free vertex that belongs to no tetrahedron (its rows would be empty).
    pub fn new(mesh: &TetMesh, constrained: &[bool]) -> Result<Self, FemError> {
        let nv = mesh.vertices().len();
        if constrained.len() != nv {
            return Err(FemError::SizeMismatch { what: "constrained flags", expected: nv, got: constrained.len() });
        }
        let mut elements = Vec::with_capacity(mesh.tets().len());
        for (t, tet) in mesh.tets().iter().enumerate() {
            let (gradients, volume) = shape_gradients(&mesh.tet_points(t)).map_err(|e| match e {
                FemError::DegenerateElement { volume, .. } => FemError::DegenerateElement { tet: t, volume },
                other => other,
            })?;
            elements.push(Element { tet: *tet, gradients, volume });
        }
        let dof_map = DofMap::new(constrained);

        // Free neighbours (including itself) of every free vertex, sorted: the block rows of its columns.
        let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); nv];
        for e in &elements {
            for &a in &e.tet {
                if dof_map.is_constrained(a) {
                    continue;
                }
                for &b in &e.tet {
                    if !dof_map.is_constrained(b) {
                        neighbours[a].push(b);
                    }
                }
            }
        }
        let mut offsets = Vec::with_capacity(dof_map.dofs() + 1);
        offsets.push(0);
        let mut rows = Vec::new();
        for (v, list) in neighbours.iter_mut().enumerate() {
            if dof_map.is_constrained(v) {
                continue;
            }
            if list.is_empty() {
                return Err(FemError::OrphanVertex(v));
            }
            list.sort_unstable();
            list.dedup();
            for _ in 0..3 {
                for &w in list.iter() {
                    let first = dof_map.first[w];
                    rows.extend([first, first + 1, first + 2]);
                }
                offsets.push(rows.len());
            }
        }
        let n = dof_map.dofs();
        let pattern = SparsityPattern::try_from_offsets_and_indices(n, n, offsets, rows)
            .map_err(|e| FemError::Solver { solver: "assembly", detail: format!("sparsity pattern: {e}") })?;
        Ok(Self { elements, dof_map, pattern })
    }

    /// The DOF numbering.
    pub fn dof_map(&self) -> &DofMap {
        &self.dof_map
    }

    /// Number of stored entries of `K_ff` (both triangles).
    pub fn nnz(&self) -> usize {
        self.pattern.nnz()
    }

    /// Where the 3 x 3 block (rows of `row_vertex`, columns of `col_vertex`) lives in the value array:
    /// entry (i, j) is at `base + j * stride + i`. The three columns of a vertex share one row structure,
    /// so one binary search locates the whole block.
    fn block_position(&self, row_vertex: usize, col_vertex: usize) -> (usize, usize) {
        let col = self.dof_map.first[col_vertex];
        let lane = self.pattern.lane(col);
        let within = lane.binary_search(&self.dof_map.first[row_vertex]).expect("pattern holds every element block");
        (self.pattern.major_offsets()[col] + within, lane.len())
    }

    /// Assembles `K_ff` (N/m) and the right-hand side `f_f - K_fc u_c` (N) for nodal `loads` (N) and
    /// `prescribed` displacements (m, read at constrained vertices only).
    pub fn assemble(
        &self,
        material: YoungPoisson,
        loads: &[Vector3<f64>],
        prescribed: &[Vector3<f64>],
    ) -> Result<(CscMatrix<f64>, Vec<f64>), FemError> {
        let nv = self.dof_map.vertices();
        if loads.len() != nv {
            return Err(FemError::SizeMismatch { what: "loads", expected: nv, got: loads.len() });
        }
        if prescribed.len() != nv {
            return Err(FemError::SizeMismatch {
                what: "prescribed displacements",
                expected: nv,
                got: prescribed.len(),
            });
        }
        let lame = material.lame();
        let mut values = vec![0.0; self.pattern.nnz()];
        let mut rhs = vec![0.0; self.dof_map.dofs()];
        for (v, load) in loads.iter().enumerate() {
            if let Some(first) = self.dof_map.dof(v, 0) {
                rhs[first..first + 3].copy_from_slice(load.as_slice());
            }
        }
        for e in &self.elements {
            let ke = stiffness_from_gradients(&e.gradients, e.volume, lame);
            for (b, &vb) in e.tet.iter().enumerate() {
                let col_free = !self.dof_map.is_constrained(vb);
                for (a, &va) in e.tet.iter().enumerate() {
                    let Some(row0) = self.dof_map.dof(va, 0) else { continue };
                    if col_free {
                        self.add_block(&mut values, va, vb, &ke, a, b);
                    } else {
                        let uc = &prescribed[vb];
                        for i in 0..3 {
                            let coupling: f64 = (0..3).map(|j| ke[(3 * a + i, 3 * b + j)] * uc[j]).sum();
                            rhs[row0 + i] -= coupling;
                        }
                    }
                }
            }
        }
        let k = CscMatrix::try_from_pattern_and_values(self.pattern.clone(), values)
            .map_err(|e| FemError::Solver { solver: "assembly", detail: e.to_string() })?;
        Ok((k, rhs))
    }

    /// Adds block `(a, b)` of the element matrix `ke` to the values of `K_ff` at vertices `(va, vb)`.
    fn add_block(&self, values: &mut [f64], va: usize, vb: usize, ke: &ElementStiffness, a: usize, b: usize) {
        let (base, stride) = self.block_position(va, vb);
        for j in 0..3 {
            for i in 0..3 {
                values[base + j * stride + i] += ke[(3 * a + i, 3 * b + j)];
            }
        }
    }

    /// The deformation gradient `F = I + sum_a u_a g_a^T` of every element at `displacements` (m).
    pub fn deformation_gradients(&self, displacements: &[Vector3<f64>]) -> Vec<Matrix3<f64>> {
        self.elements
            .iter()
            .map(|e| {
                let mut f = Matrix3::identity();
                for (a, &v) in e.tet.iter().enumerate() {
                    f += displacements[v] * e.gradients[a].transpose();
                }
                f
            })
            .collect()
    }

    /// The law's stored energy `sum_e V_e psi(F_e)` (J) at `displacements` (m).
    pub fn strain_energy(&self, law: &dyn Material, material: YoungPoisson, displacements: &[Vector3<f64>]) -> f64 {
        let lame = material.lame();
        self.elements
            .iter()
            .zip(self.deformation_gradients(displacements))
            .map(|(e, f)| e.volume * law.energy_density(&f, lame))
            .sum()
    }

    /// The nonlinear system at `displacements` (m, prescribed values at constrained vertices) for a
    /// constitutive law: internal forces `f_a = V P g_a` (N) at every vertex, and the tangent stiffness
    /// `K_ff = d f / d u` (N/m) over the free DOFs, with the same sparsity pattern as [`assemble`]
    /// (so a Cholesky factorisation's symbolic analysis is shared). Fails with
    /// [`FemError::InvertedElement`] if the law needs `det F > 0` and an element violates it.
    ///
    /// [`assemble`]: Self::assemble
    pub fn nonlinear_system(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        displacements: &[Vector3<f64>],
    ) -> Result<(CscMatrix<f64>, Vec<Vector3<f64>>), FemError> {
        let (k, forces) = self.nonlinear_parts(law, material, displacements, true)?;
        Ok((k.expect("the tangent was asked for"), forces))
    }

    /// The internal forces of [`nonlinear_system`](Self::nonlinear_system) alone (N, the same arithmetic
    /// bit for bit), for a law whose tangent is known already ([`Material::is_linear`]).
    pub fn nonlinear_forces(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        displacements: &[Vector3<f64>],
    ) -> Result<Vec<Vector3<f64>>, FemError> {
        Ok(self.nonlinear_parts(law, material, displacements, false)?.1)
    }

    /// The forces, and the tangent where `tangent` is set ([`NonlinearParts`]).
    fn nonlinear_parts(
        &self,
        law: &dyn Material,
        material: YoungPoisson,
        displacements: &[Vector3<f64>],
        tangent: bool,
    ) -> Result<NonlinearParts, FemError> {
        let lame = material.lame();
        let mut values = if tangent { vec![0.0; self.pattern.nnz()] } else { Vec::new() };
        let mut forces = vec![Vector3::zeros(); self.dof_map.vertices()];
        for (t, (e, f)) in self.elements.iter().zip(self.deformation_gradients(displacements)).enumerate() {
            let det = f.determinant();
            if law.needs_positive_volume() && (det.is_nan() || det <= 0.0) {
                return Err(FemError::InvertedElement { tet: t, det, load: None });
            }
            let p = law.stress(&f, lame);
            for (a, &v) in e.tet.iter().enumerate() {
                forces[v] += p * e.gradients[a] * e.volume;
            }
            if !tangent {
                continue;
            }
            let mut ke = ElementStiffness::zeros();
            for b in 0..4 {
                for j in 0..3 {
                    let mut df = Matrix3::zeros();
                    df.set_row(j, &e.gradients[b].transpose());
                    let dp = law.stress_differential(&f, &df, lame);
                    for a in 0..4 {
                        let column = dp * e.gradients[a] * e.volume;
                        for i in 0..3 {
                            ke[(3 * a + i, 3 * b + j)] = column[i];
                        }
                    }
                }
            }
            for (b, &vb) in e.tet.iter().enumerate() {
                if self.dof_map.is_constrained(vb) {
                    continue;
                }
                for (a, &va) in e.tet.iter().enumerate() {
                    if !self.dof_map.is_constrained(va) {
                        self.add_block(&mut values, va, vb, &ke, a, b);
                    }
                }
            }
        }
        if !tangent {
            return Ok((None, forces));
        }
        let k = CscMatrix::try_from_pattern_and_values(self.pattern.clone(), values)
            .map_err(|e| FemError::Solver { solver: "assembly", detail: e.to_string() })?;
        Ok((Some(k), forces))
    }

    /// The consistent mass matrix of linear tetrahedra over the free DOFs (kg), with density `density`
    /// (kg/m^3): `M_ab = rho V (1 + delta_ab) / 20` times the 3 x 3 identity, same pattern as `K_ff`.
    pub fn consistent_mass(&self, density: f64) -> Result<CscMatrix<f64>, FemError> {
        let mut values = vec![0.0; self.pattern.nnz()];
        for e in &self.elements {
            let mut me = ElementStiffness::zeros();
            for a in 0..4 {
                for b in 0..4 {
                    let m = density * e.volume * if a == b { 2.0 } else { 1.0 } / 20.0;
                    for i in 0..3 {
                        me[(3 * a + i, 3 * b + i)] = m;
                    }
                }
            }
            for (b, &vb) in e.tet.iter().enumerate() {
                for (a, &va) in e.tet.iter().enumerate() {
                    if !self.dof_map.is_constrained(va) && !self.dof_map.is_constrained(vb) {
                        self.add_block(&mut values, va, vb, &me, a, b);
                    }
                }
            }
        }
        CscMatrix::try_from_pattern_and_values(self.pattern.clone(), values)
            .map_err(|e| FemError::Solver { solver: "assembly", detail: e.to_string() })
    }

    /// The lumped (diagonal) mass matrix over the free DOFs from vertex masses (kg), stored in the
    /// pattern of `K_ff` so that it adds to the stiffness value by value.
    pub fn lumped_mass(&self, masses: &[f64]) -> Result<CscMatrix<f64>, FemError> {
        let mut values = vec![0.0; self.pattern.nnz()];
        for (v, &m) in masses.iter().enumerate() {
            if self.dof_map.is_constrained(v) {
                continue;
            }
            let (base, stride) = self.block_position(v, v);
            for i in 0..3 {
                values[base + i * stride + i] = m;
            }
        }
        CscMatrix::try_from_pattern_and_values(self.pattern.clone(), values)
            .map_err(|e| FemError::Solver { solver: "assembly", detail: e.to_string() })
    }

    /// Total reference volume of the mesh (m^3).
    pub fn volume(&self) -> f64 {
        self.elements.iter().map(|e| e.volume).sum()
    }

    /// The elements' typical edge: the cube root of their mean volume (m).
    pub(crate) fn element_size(&self) -> f64 {
        (self.volume() / self.elements.len().max(1) as f64).cbrt()
    }

    /// Internal forces `K u` (N) of the full, unreduced system at every vertex, computed element by
    /// element. At a constrained vertex, `K u - f` is the reaction the support exerts on the body.
    pub fn internal_forces(&self, material: YoungPoisson, displacements: &[Vector3<f64>]) -> Vec<Vector3<f64>> {
        let lame = material.lame();
        let mut forces = vec![Vector3::zeros(); self.dof_map.vertices()];
        for e in &self.elements {
            let ke = stiffness_from_gradients(&e.gradients, e.volume, lame);
            let ue = nalgebra::SVector::<f64, 12>::from_fn(|r, _| displacements[e.tet[r / 3]][r % 3]);
            let fe = ke * ue;
            for (a, &v) in e.tet.iter().enumerate() {
                forces[v] += fe.fixed_rows::<3>(3 * a);
            }
        }
        forces
    }
}

/// The tangent stiffness (when asked for) and the internal forces at every vertex.
type NonlinearParts = (Option<CscMatrix<f64>>, Vec<Vector3<f64>>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduced_matrix_is_symmetric_and_skips_constrained_dofs() {
        let mesh = pbdfit_mesh::unit_cube(2).unwrap();
        let constrained: Vec<bool> = mesh.vertices().iter().map(|p| p.y == 0.0).collect();
        let asm = Assembler::new(&mesh, &constrained).unwrap();
        assert_eq!(asm.dof_map().dofs(), 3 * (27 - 9));
        let zero = vec![Vector3::zeros(); 27];
        let (k, _) = asm.assemble(YoungPoisson::new(1e3, 0.3).unwrap(), &zero, &zero).unwrap();
        let dense = nalgebra::DMatrix::from(&k);
        assert!((&dense - dense.transpose()).amax() < 1e-12 * dense.amax());
        assert!(dense.diagonal().iter().all(|&d| d > 0.0));
    }

    #[test]
    fn orphan_vertex_is_an_error() {
        let mut vertices = pbdfit_mesh::unit_cube(1).unwrap().vertices().to_vec();
        vertices.push(Vector3::new(2.0, 2.0, 2.0));
        let tets = pbdfit_mesh::unit_cube(1).unwrap().tets().to_vec();
        let mesh = TetMesh::new(vertices, tets).unwrap();
        let mut constrained = vec![false; 9];
        constrained[0] = true;
        assert!(matches!(Assembler::new(&mesh, &constrained), Err(FemError::OrphanVertex(8))));
    }
}
