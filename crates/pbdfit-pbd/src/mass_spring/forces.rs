//! The forces of a mass-spring body: the springs' and tetrahedra's geometry (length and volume changes
//! without cancellation), the total force on the free DOFs (springs, volume penalty, spring damping,
//! load), and the total energy.

use super::{SpringBody, SpringLaw};
use crate::Vec3;

impl SpringBody {
    /// Spring geometry: `(d, l, l - l0, n)`.
    pub(super) fn spring(&self, u: &[f64], (e, rest_edge, l0): &([usize; 2], Vec3, f64)) -> (f64, f64, Vec3) {
        let du = self.vertex(u, e[1]) - self.vertex(u, e[0]);
        let d = rest_edge + du;
        let l = d.norm();
        let stretch = (2.0 * rest_edge.dot(&du) + du.norm_squared()) / (l + l0);
        (l, stretch, d / l)
    }

    /// `V - V0` and the gradient of V per vertex.
    pub(super) fn volume(&self, u: &[f64], (t, e, _): &([usize; 4], [Vec3; 3], f64)) -> (f64, [Vec3; 4], [Vec3; 3]) {
        let u0 = self.vertex(u, t[0]);
        let w = [self.vertex(u, t[1]) - u0, self.vertex(u, t[2]) - u0, self.vertex(u, t[3]) - u0];
        let d = [e[0] + w[0], e[1] + w[1], e[2] + w[2]];
        let g1 = d[1].cross(&d[2]);
        let six_dv =
            w[0].dot(&g1) + w[1].dot(&e[2].cross(&e[0])) + w[2].dot(&e[0].cross(&e[1])) + e[0].dot(&w[1].cross(&w[2]));
        let grad = [g1 / 6.0, d[2].cross(&d[0]) / 6.0, d[0].cross(&d[1]) / 6.0];
        (six_dv / 6.0, [-(grad[0] + grad[1] + grad[2]), grad[0], grad[1], grad[2]], d)
    }

    pub(super) fn add(&self, out: &mut [f64], p: usize, f: Vec3) {
        if let i @ 0..usize::MAX = self.slot[p] {
            out[3 * i] += f.x;
            out[3 * i + 1] += f.y;
            out[3 * i + 2] += f.z;
        }
    }

    /// Total force (N) on the free vertices at displacements `u` and velocities `v`: springs, volume
    /// penalty, neo-Hookean tetrahedra, MuJoCo's flex shell, spring damping and gravity.
    pub(super) fn forces(&self, law: &SpringLaw, u: &[f64], v: Option<&[f64]>) -> Vec<f64> {
        let mut f = vec![0.0; self.dofs()];
        for (i, &p) in self.free.iter().enumerate() {
            let g = self.accelerations[p] * self.masses[p];
            f[3 * i] += g.x;
            f[3 * i + 1] += g.y;
            f[3 * i + 2] += g.z;
        }
        for (spring, &group) in self.edges.iter().zip(&self.groups) {
            let (_, stretch, n) = self.spring(u, spring);
            let mut fa = n * (law.spring_constant(group) * stretch);
            if let (Some(v), true) = (v, law.damping > 0.0) {
                let dv = self.velocity(v, spring.0[1]) - self.velocity(v, spring.0[0]);
                fa += n * (law.damping * dv.dot(&n));
            }
            self.add(&mut f, spring.0[0], fa);
            self.add(&mut f, spring.0[1], -fa);
        }
        if law.kvol > 0.0 {
            for tet in &self.tets {
                let (dv, grad, _) = self.volume(u, tet);
                let s = -law.kvol * dv / tet.2;
                for (k, &p) in tet.0.iter().enumerate() {
                    self.add(&mut f, p, grad[k] * s);
                }
            }
        }
        if law.has_neo_hookean() {
            self.add_neo_hookean_forces(law, u, &mut f);
        }
        self.add_flex_forces(law.flex_constants(), u, &mut f);
        f
    }

    /// Total energy (J): kinetic, springs, volume penalty, neo-Hookean tetrahedra and gravity's potential.
    pub fn energy(&self, law: &SpringLaw, u: &[Vec3], v: &[Vec3]) -> f64 {
        let (uf, mut e) = (self.flatten(u), 0.0);
        for &p in &self.free {
            e += 0.5 * self.masses[p] * v[p].norm_squared() - self.masses[p] * self.accelerations[p].dot(&u[p]);
        }
        for (spring, &group) in self.edges.iter().zip(&self.groups) {
            let (_, stretch, _) = self.spring(&uf, spring);
            e += 0.5 * law.spring_constant(group) * stretch * stretch;
        }
        for tet in &self.tets {
            let (dv, _, _) = self.volume(&uf, tet);
            e += 0.5 * law.kvol * dv * dv / tet.2;
        }
        if law.has_neo_hookean() {
            e += self.neo_hookean_energy(law, &uf);
        }
        e + self.flex_energy(law.flex_constants(), &uf)
    }
}
