use crate::TetMesh;

/// How a body's mass is spread over its vertices. The same masses serve PBD (inverse masses) and the
/// FEM load vector. The choice changes fitted stiffness noticeably: lighter vertices get softer PBD
/// constraints, so results always record which model they used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MassModel {
    /// Each tetrahedron gives a quarter of its mass to each of its vertices (the default).
    Lumped,
    /// Every vertex gets the same mass, as SOFA's UniformMass and the PBD library's default particle mass.
    Uniform,
}

impl MassModel {
    /// Per-vertex masses in kg for a body of the given density (kg/m^3).
    pub fn masses(self, mesh: &TetMesh, density: f64) -> Vec<f64> {
        let nv = mesh.vertices().len();
        match self {
            MassModel::Lumped => {
                let mut m = vec![0.0; nv];
                for (t, tet) in mesh.tets().iter().enumerate() {
                    let quarter = density * mesh.tet_volume(t) / 4.0;
                    for &v in tet {
                        m[v] += quarter;
                    }
                }
                m
            }
            MassModel::Uniform => {
                let total: f64 = (0..mesh.tets().len()).map(|t| density * mesh.tet_volume(t)).sum();
                vec![total / nv as f64; nv]
            }
        }
    }

    /// The name used in scene files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            MassModel::Lumped => "lumped",
            MassModel::Uniform => "uniform",
        }
    }
}

impl std::str::FromStr for MassModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "lumped" => Ok(Self::Lumped),
            "uniform" => Ok(Self::Uniform),
            _ => Err(format!("unknown mass model `{s}`: expected `lumped` or `uniform`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_models_sum_to_the_body_mass() {
        for n in 1..=5 {
            let mesh = crate::unit_cube(n).unwrap();
            for model in [MassModel::Lumped, MassModel::Uniform] {
                let total: f64 = model.masses(&mesh, 2.5).iter().sum();
                assert!((total - 2.5).abs() < 1e-12, "{model:?} n = {n}: {total}");
            }
        }
    }

    #[test]
    fn lumped_masses_for_n1() {
        // Central tetrahedron volume 1/3, corners 1/6 each: vertex 0 is in the central one and three
        // corners, vertex 1 only in its own corner.
        let m = MassModel::Lumped.masses(&crate::unit_cube(1).unwrap(), 1.0);
        assert!((m[0] - (1.0 / 3.0 + 3.0 / 6.0) / 4.0).abs() < 1e-15);
        assert!((m[1] - 1.0 / 24.0).abs() < 1e-15);
    }
}
