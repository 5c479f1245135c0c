//! The global volume constraint of a closed sheet (Mueller et al. 2007, "Position based dynamics",
//! section 4.4, the closed meshes' overpressure), in XPBD form, projected beside a cloth model's edge
//! constraints: the morse study's "edge constraints coupled with a volume-preservation constraint".
//!
//! `C(x) = V(x) - k V0` with `V(x) = sum over triangles (x1 x x2) . x3 / 6` (m^3: the volume the surface
//! encloses for outward winding, `pbdfit_mesh::sheet::enclosed_volume`), `V0` its rest volume and `k` the
//! pressure factor (1: keep the volume; above 1 a balloon inflates). Its gradient at vertex `i` is
//! `sum over the triangles (a, b, c) that hold it, cyclically placed as a, of (x_b x x_c) / 6` (m^2), and
//! one projection is XPBD's: `dlambda = (-C - alpha~ lambda) / (sum_i w_i |grad_i C|^2 + alpha~)`,
//! `dx_i = w_i grad_i C dlambda`, with `alpha~ = alpha_V / dt^2` (`alpha_V` in m^6/J: the energy is
//! `C^2 / (2 alpha_V)`; 0 is a hard constraint). The multiplier resets each step, as the edges' do.
//!
//! A cloth model takes it by its three settings ([`SETTINGS`]: `volume` off or on, `pressure` k,
//! `volume_compliance` alpha_V); the constraint is projected once after each sweep over the model's
//! other constraints, before the contacts. It needs a closed surface (every edge on two triangles):
//! [`PbdSystem::check_body`](crate::PbdSystem::check_body) refuses an open sheet, naming its edge.
//! With it on the rule has no static tangent (its stiffness couples every vertex), so the root solve goes
//! unpreconditioned; the rest state's sensitivity (GMRES on differences of the rest map) needs nothing of
//! it and works as for every cloth rule.

use crate::{RuleSettings, SettingSpec, Vec3};

/// The settings a cloth model with the volume constraint lists, in this order.
pub(crate) const SETTINGS: [SettingSpec; 3] = [
    SettingSpec::new(
        "volume",
        "1",
        "the global volume constraint on a closed sheet (off or on; Mueller et al. 2007's overpressure)",
        0.0,
    )
    .whole()
    .with_words(&[("off", 0.0), ("on", 1.0)]),
    SettingSpec::new(
        "pressure",
        "1",
        "the volume constraint's pressure factor k: the target volume is k V0 (1 keeps the rest volume)",
        1.0,
    )
    .within(0.01, 100.0),
    SettingSpec::new(
        "volume_compliance",
        "m^6/J",
        "the volume constraint's XPBD compliance alpha_V (0: hard; energy C^2 / (2 alpha_V), C in m^3)",
        0.0,
    )
    .within(0.0, 1e12),
];

/// The volume constraint's constants at one parameter point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeTerm {
    /// The pressure factor `k` (1).
    pub pressure: f64,
    /// `alpha_V / dt^2` (m^6/(J s^2) ... in the units of `C / lambda`: m^3 / (kg m^2)).
    pub alpha_tilde: f64,
}

impl VolumeTerm {
    /// The term a model's settings ask for ([`SETTINGS`] first in its list), `None` where `volume` is off.
    pub(crate) fn from_settings(settings: RuleSettings) -> Option<Self> {
        let s = settings.settings;
        (s[0] != 0.0).then(|| VolumeTerm { pressure: s[1], alpha_tilde: s[2] / (settings.dt * settings.dt) })
    }

    /// One XPBD projection of `C = V - k V0` on the positions `rest + predicted` (m) with inverse masses `w`
    /// (1/kg), moving `predicted`; `lambda` is the step's multiplier, `grad` scratch of the particles' length.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn project(
        &self,
        triangles: &[[usize; 3]],
        v0: f64,
        rest: &[Vec3],
        predicted: &mut [Vec3],
        w: &[f64],
        lambda: &mut f64,
        grad: &mut Vec<Vec3>,
    ) {
        let x: Vec<Vec3> = rest.iter().zip(predicted.iter()).map(|(r, u)| r + u).collect();
        let c = pbdfit_mesh::sheet::enclosed_volume(&x, triangles) - self.pressure * v0;
        gradient(&x, triangles, grad);
        let denominator: f64 = grad.iter().zip(w).map(|(g, w)| w * g.norm_squared()).sum::<f64>() + self.alpha_tilde;
        if denominator <= 0.0 {
            return;
        }
        let dlambda = (-c - self.alpha_tilde * *lambda) / denominator;
        *lambda += dlambda;
        for ((u, g), &w) in predicted.iter_mut().zip(grad.iter()).zip(w) {
            if w != 0.0 {
                *u += g * (w * dlambda);
            }
        }
    }
}

/// The gradient of the enclosed volume at the positions `x` (m^2 per vertex) into `grad`.
pub fn gradient(x: &[Vec3], triangles: &[[usize; 3]], grad: &mut Vec<Vec3>) {
    grad.clear();
    grad.resize(x.len(), Vec3::zeros());
    for &[a, b, c] in triangles {
        grad[a] += x[b].cross(&x[c]) / 6.0;
        grad[b] += x[c].cross(&x[a]) / 6.0;
        grad[c] += x[a].cross(&x[b]) / 6.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbdfit_mesh::sheet::enclosed_volume;

    fn cube_surface(n: usize) -> (Vec<Vec3>, Vec<[usize; 3]>) {
        let (x, t, _) = pbdfit_mesh::unit_cube(n).unwrap().boundary_surface();
        (x, t)
    }

    /// A deformed, shifted cube surface (every vertex moved differently).
    fn deformed(x: &[Vec3]) -> Vec<Vec3> {
        x.iter()
            .enumerate()
            .map(|(i, p)| {
                let s = i as f64;
                p + Vec3::new(0.05 * (1.3 * s).sin() + 2.0, 0.04 * (0.7 * s).cos() - 1.0, 0.03 * (2.1 * s).sin())
            })
            .collect()
    }

    #[test]
    fn the_closed_unit_cube_surface_encloses_one_cubic_metre() {
        let (x, t) = cube_surface(3);
        let v = enclosed_volume(&x, &t);
        println!("V = {v:.17} m^3");
        assert!((v - 1.0).abs() < 1e-14);
    }

    #[test]
    fn the_gradient_agrees_with_central_differences() {
        let (x, t) = cube_surface(2);
        let x = deformed(&x);
        let mut grad = Vec::new();
        gradient(&x, &t, &mut grad);
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for i in 0..x.len() {
            for k in 0..3 {
                let (mut plus, mut minus) = (x.clone(), x.clone());
                plus[i][k] += h;
                minus[i][k] -= h;
                let fd = (enclosed_volume(&plus, &t) - enclosed_volume(&minus, &t)) / (2.0 * h);
                worst = worst.max((fd - grad[i][k]).abs());
            }
        }
        println!("largest |dV/dx - central difference| = {worst:e} m^2");
        assert!(worst < 1e-9, "{worst}");
        // Translation invariance of a closed surface: the gradients sum to zero.
        let sum: Vec3 = grad.iter().sum();
        assert!(sum.norm() < 1e-14, "{sum}");
    }

    #[test]
    fn one_hard_projection_restores_the_volume_where_it_is_linear_in_the_step() {
        // Only vertex `free` moves: V is linear in one vertex's position (each triangle holds it at most
        // once), so one projection along the gradient lands on V = k V0 up to rounding.
        let (rest, t) = cube_surface(2);
        let v0 = enclosed_volume(&rest, &t);
        let free = rest.iter().position(|p| (p - Vec3::new(0.5, 1.0, 0.5)).norm() < 1e-12).unwrap();
        let mut w = vec![0.0; rest.len()];
        w[free] = 2.0;
        let mut u = vec![Vec3::zeros(); rest.len()];
        u[free] = Vec3::new(0.1, -0.2, 0.05);
        for pressure in [1.0, 1.1] {
            let term = VolumeTerm { pressure, alpha_tilde: 0.0 };
            let mut p = u.clone();
            let (mut lambda, mut grad) = (0.0, Vec::new());
            term.project(&t, v0, &rest, &mut p, &w, &mut lambda, &mut grad);
            let x: Vec<Vec3> = rest.iter().zip(&p).map(|(r, u)| r + u).collect();
            let v = enclosed_volume(&x, &t);
            println!("k = {pressure}: V / V0 after one projection {:.17}", v / v0);
            assert!((v - pressure * v0).abs() < 1e-14, "{v}");
            assert!(p.iter().enumerate().all(|(i, d)| i == free || *d == Vec3::zeros()));
        }
        // With compliance the step is XPBD's: the constraint keeps C = -alpha~ lambda.
        let term = VolumeTerm { pressure: 1.0, alpha_tilde: 0.5 };
        let mut p = u.clone();
        let (mut lambda, mut grad) = (0.0, Vec::new());
        term.project(&t, v0, &rest, &mut p, &w, &mut lambda, &mut grad);
        let x: Vec<Vec3> = rest.iter().zip(&p).map(|(r, u)| r + u).collect();
        let c = enclosed_volume(&x, &t) - v0;
        assert!((c + 0.5 * lambda).abs() < 1e-14, "C {c}, lambda {lambda}");
    }
}
