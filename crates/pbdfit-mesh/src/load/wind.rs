//! A steady, uniform wind on a sheet: `[[load.wind]]` with `wind = [wx, wy, wz]` (the air's velocity,
//! m/s) and optionally `air_density` (kg/m^3, 1.2: air at 20 C), `drag` (the normal drag coefficient
//! `C_d`, 1.0) and `tangential` (a tangential drag coefficient `C_t`, 0: none). It acts on the triangles
//! whose three vertices are all selected.
//!
//! The force on a triangle of current area `A`, unit normal `n` and mean vertex velocity `v` is the usual
//! quadratic drag of cloth simulation on the air's velocity relative to the cloth, `r = w - v`:
//!
//! ```text
//! f = 1/2 rho_air C_d A |r.n| (r.n) n  +  1/2 rho_air C_t A |r_t| r_t,   r_t = r - (r.n) n
//! ```
//!
//! a third of it to each vertex. The normal part is the pressure drag of a flat plate at the normal
//! component of the relative wind (the aerodynamic force of Keckeisen et al. 2004, "Interactive cloth
//! simulation in virtual environments", and of the drag-lift model of Wilson et al. 2014, "Simulation of
//! wind cloth interaction", without its lift); it does not depend on the winding of the triangle (`n` and
//! `-n` give the same force), is zero for a wind along the plane and zero for cloth moving with the wind.
//! The tangential part is a skin friction, off by default.
//!
//! It depends on the positions and the velocities, so it is evaluated explicitly: the cloth models and the
//! engine profiles take it at each step's (substep's) start, and a rest map (at zero velocity) at its
//! positions, so a rest state in steady wind is the balance of the wind on the still cloth. A wind acts on
//! sheets only: on a tetrahedral solid it is refused, and the shell reference (whose implicit Newmark step
//! would need the force's velocity tangent) refuses it too.

use super::{Keys, LoadCase};
use crate::{Selector, TetMesh, Vec3};

/// The density of air at 20 C and sea level (kg/m^3), a wind's default `air_density`.
pub const AIR_DENSITY: f64 = 1.2;

/// A uniform wind on the selected triangles of a sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Wind {
    /// The selected vertices; triangles made of them feel the wind.
    pub on: Selector,
    /// The air's velocity, m/s.
    pub wind: Vec3,
    /// The air's density, kg/m^3.
    pub air_density: f64,
    /// The normal drag coefficient `C_d`.
    pub drag: f64,
    /// The tangential drag coefficient `C_t` (0: none).
    pub tangential: f64,
}

impl LoadCase for Wind {
    const NAME: &'static str = "wind";
    const KEYS: &'static [&'static str] = &["wind", "air_density", "drag", "tangential"];
    const HOLDS: bool = false;

    fn parse(on: Selector, keys: &Keys) -> Result<Self, String> {
        let wind = keys.vector("wind")?;
        let air_density = keys.scalar_or("air_density", AIR_DENSITY)?;
        let drag = keys.scalar_or("drag", 1.0)?;
        let tangential = keys.scalar_or("tangential", 0.0)?;
        for (key, value, unit) in
            [("air_density", air_density, " kg/m^3"), ("drag", drag, ""), ("tangential", tangential, "")]
        {
            if !(value.is_finite() && value >= 0.0) {
                return Err(format!("`{key}` must be a finite number >= 0{unit}, got {value}"));
            }
        }
        Ok(Wind { on, wind, air_density, drag, tangential })
    }

    fn selector(&self) -> &Selector {
        &self.on
    }

    /// The force at any relative velocity is linear in the air's density: a load level scales it.
    fn scaled(&self, factor: f64) -> Self {
        Wind { air_density: self.air_density * factor, ..self.clone() }
    }

    fn prescribed_at(&self, _: &Vec3) -> Option<Vec3> {
        None
    }

    fn forces(&self, _: &TetMesh, _: &[bool], _: &[bool], _: &[Option<String>]) -> Result<Option<Vec<Vec3>>, String> {
        Err("a wind acts on sheets (triangle meshes with a thickness, [sheet] scenes): a tetrahedral solid takes \
             no wind; its surface load is a traction, [[load.traction]]"
            .into())
    }
}

/// The wind on a sheet's triangles: per triangle the air's velocity and the two drag factors
/// `1/2 rho_air C` (kg/m^3); zero factors where no wind acts. Empty when the sheet has no wind load.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriangleWind {
    /// The air's velocity per triangle, m/s.
    pub velocity: Vec<Vec3>,
    /// `1/2 rho_air C_d` per triangle, kg/m^3.
    pub normal: Vec<f64>,
    /// `1/2 rho_air C_t` per triangle, kg/m^3.
    pub tangential: Vec<f64>,
}

impl TriangleWind {
    /// Whether no wind acts.
    pub fn is_none(&self) -> bool {
        self.normal.iter().chain(&self.tangential).all(|&k| k == 0.0)
    }

    /// The force (N) of the wind on one triangle at positions `p` moving at `v` (its vertices' mean
    /// velocity), air velocity `w`, factors `kn = 1/2 rho C_d`, `kt = 1/2 rho C_t` (see the module doc).
    /// Zero for a degenerate triangle.
    pub fn triangle_force(p: [Vec3; 3], v: Vec3, w: Vec3, kn: f64, kt: f64) -> Vec3 {
        let cross = (p[1] - p[0]).cross(&(p[2] - p[0]));
        let twice_area = cross.norm();
        if twice_area == 0.0 {
            return Vec3::zeros();
        }
        let n = cross / twice_area;
        let area = 0.5 * twice_area;
        let r = w - v;
        let rn = r.dot(&n);
        let mut f = n * (kn * area * rn.abs() * rn);
        if kt != 0.0 {
            let rt = r - n * rn;
            f += rt * (kt * area * rt.norm());
        }
        f
    }

    /// The nodal forces (N, per vertex) of the wind at positions `x` and velocities `v` (one per vertex;
    /// empty: the sheet at rest): a third of each triangle's force to each of its vertices.
    pub fn nodal_forces(&self, triangles: &[[usize; 3]], x: &[Vec3], v: &[Vec3]) -> Vec<Vec3> {
        let mut f = vec![Vec3::zeros(); x.len()];
        for (t, &[a, b, c]) in triangles.iter().enumerate() {
            let (kn, kt) = (self.normal.get(t).copied().unwrap_or(0.0), self.tangential.get(t).copied().unwrap_or(0.0));
            if kn == 0.0 && kt == 0.0 {
                continue;
            }
            let mean = if v.is_empty() { Vec3::zeros() } else { (v[a] + v[b] + v[c]) / 3.0 };
            let third = Self::triangle_force([x[a], x[b], x[c]], mean, self.velocity[t], kn, kt) / 3.0;
            for i in [a, b, c] {
                f[i] += third;
            }
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One triangle in z = 0 of area 0.5 m^2: the force against the formula (magnitude and sign), zero
    /// for a wind along the plane, zero for a cloth moving with the wind, and the same for either winding.
    #[test]
    fn one_triangles_wind_force_is_the_quadratic_drag_of_the_relative_normal_velocity() {
        let p = [Vec3::zeros(), Vec3::x(), Vec3::y()];
        let (rho, cd) = (1.2, 1.3);
        let kn = 0.5 * rho * cd;
        // 10 m/s along +z, normal to the plane: 1/2 rho C_d A w^2 = 0.5 * 1.2 * 1.3 * 0.5 * 100 = 39 N along +z.
        let w = Vec3::new(0.0, 0.0, 10.0);
        let f = TriangleWind::triangle_force(p, Vec3::zeros(), w, kn, 0.0);
        println!("normal wind: {f:?}");
        assert!((f - Vec3::new(0.0, 0.0, 39.0)).norm() < 1e-12, "{f:?}");
        // Either winding gives the same force (the wind pushes downwind).
        let g = TriangleWind::triangle_force([p[0], p[2], p[1]], Vec3::zeros(), w, kn, 0.0);
        assert!((f - g).norm() < 1e-12, "{g:?}");
        // Against -z: the force reverses, same magnitude.
        let g = TriangleWind::triangle_force(p, Vec3::zeros(), -w, kn, 0.0);
        assert!((f + g).norm() < 1e-12, "{g:?}");
        // At 60 degrees from the normal: the normal component 5 m/s, a quarter of the force, along n.
        let oblique = Vec3::new(10.0 * 3f64.sqrt() / 2.0, 0.0, 5.0);
        let g = TriangleWind::triangle_force(p, Vec3::zeros(), oblique, kn, 0.0);
        assert!((g - Vec3::new(0.0, 0.0, 39.0 / 4.0)).norm() < 1e-12, "{g:?}");
        // Along the plane: no normal force (exactly, by rounding of a zero dot product).
        let g = TriangleWind::triangle_force(p, Vec3::zeros(), Vec3::new(7.0, -3.0, 0.0), kn, 0.0);
        assert_eq!(g, Vec3::zeros());
        // Moving with the wind: no relative velocity, no force, with the tangential term too.
        let g = TriangleWind::triangle_force(p, w + Vec3::x(), w + Vec3::x(), kn, 0.4);
        assert_eq!(g, Vec3::zeros());
        // The tangential term: 1/2 rho C_t A |r_t| r_t, along the plane's wind.
        let g = TriangleWind::triangle_force(p, Vec3::zeros(), Vec3::new(4.0, 0.0, 0.0), kn, 0.25);
        assert!((g - Vec3::new(0.25 * 0.5 * 16.0, 0.0, 0.0)).norm() < 1e-12, "{g:?}");
        // Nodal forces: a third of the triangle's to each vertex, summing to it.
        let wind = TriangleWind { velocity: vec![w], normal: vec![kn], tangential: vec![0.0] };
        let nodal = wind.nodal_forces(&[[0, 1, 2]], &p, &[]);
        let sum: Vec3 = nodal.iter().sum();
        assert!((sum - f).norm() < 1e-12 && (nodal[0] - f / 3.0).norm() < 1e-12, "{nodal:?}");
        // A sheet moving at the wind's speed along it feels none.
        let nodal = wind.nodal_forces(&[[0, 1, 2]], &p, &[w; 3]);
        assert!(nodal.iter().all(|f| *f == Vec3::zeros()), "{nodal:?}");
    }
}
