use crate::{MassModel, Obstacle, TetMesh, Vec3};

/// A body ready to simulate: the mesh, its per-vertex masses, which vertices are held (and where), and
/// the loads: gravity and nodal forces. Both the FEM reference and PBD consume this; neither changes it.
#[derive(Debug, Clone)]
pub struct Body {
    /// Name of the scene the body was built from.
    pub scene: String,
    /// Mesh resolution N (hexahedra per cube edge).
    pub n: usize,
    /// The mesh, rest positions in m.
    pub mesh: TetMesh,
    /// Per-vertex mass in kg.
    pub masses: Vec<f64>,
    /// Which mass model produced `masses`.
    pub mass_model: MassModel,
    /// `held[v]`: vertex v is fixed at `prescribed[v]` (inverse mass 0 in PBD, Dirichlet in FEM).
    pub held: Vec<bool>,
    /// Displacement (m) of each held vertex: zero for a plain held vertex, the load's value for a
    /// prescribed displacement or rotation; zero at free vertices.
    pub prescribed: Vec<Vec3>,
    /// Nodal forces (N) besides gravity, from tractions; zero where none act.
    pub forces: Vec<Vec3>,
    /// Gravitational acceleration in m/s^2.
    pub gravity: Vec3,
    /// Density in kg/m^3.
    pub density: f64,
    /// Rigid obstacles at their starting places (`Obstacle::placed` is where the load takes them);
    /// empty for a body held only by its held vertices.
    pub obstacles: Vec<Obstacle>,
}

impl Body {
    /// Total mass in kg.
    pub fn total_mass(&self) -> f64 {
        self.masses.iter().sum()
    }

    /// The body's size in m: the diagonal of its rest bounding box.
    pub fn size(&self) -> f64 {
        crate::load::extent(self.mesh.vertices())
    }

    /// Indices of the held vertices, ascending.
    pub fn held_indices(&self) -> Vec<usize> {
        (0..self.held.len()).filter(|&v| self.held[v]).collect()
    }

    /// External force on every vertex (N): its weight `masses[v] * gravity` plus `forces[v]`.
    pub fn external_forces(&self) -> Vec<Vec3> {
        self.masses.iter().zip(&self.forces).map(|(&m, f)| self.gravity * m + f).collect()
    }

    /// Whether the only load is gravity on plain held vertices (no traction, no prescribed
    /// displacement): what every backend supports.
    pub fn is_gravity_only(&self) -> bool {
        self.forces.iter().all(|f| *f == Vec3::zeros())
            && self.prescribed.iter().all(|u| *u == Vec3::zeros())
            && self.obstacles.is_empty()
    }

    /// Inverse masses for PBD: 0 for held vertices, 1/m otherwise (1/kg).
    pub fn inverse_masses(&self) -> Vec<f64> {
        self.masses.iter().zip(&self.held).map(|(&m, &h)| if h { 0.0 } else { 1.0 / m }).collect()
    }
}
