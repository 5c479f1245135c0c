//! `cloth-pbd-van-gelder-shells`: the `cloth-pbd` model's stiffnesses (distance `kd`, dihedral bending `kb`,
//! each a fraction in [0, 1]) from a sheet's `(E, nu, h)`, through the compliances the membrane and the
//! discrete shells give and the PBD-from-XPBD fraction of the module docs ([`pbd_stiffness`]).
//!
//! - **Stretch**: Van Gelder's edge compliance `|e|^2 / (E h sum_{t ∋ e} A_t)` (m/N, as in
//!   `cloth-xpbd-van-gelder-bergou`), averaged over the edges, into `kd` with the edges' mean `w1 + w2`.
//! - **Bending**: the discrete-shells hinge energy (Grinspun et al., "Discrete shells", SCA 2003:
//!   `k (theta - theta0)^2 |e| / h_e` per hinge, `h_e` a third of the mean of the triangles' heights) with
//!   its constant from the plate, derived here (not checked against a paper's text): the isometric plate
//!   stores `D (2H)^2 / 2` per area, the hinge's region is a third of its two triangles, `(A0 + A1) / 3`,
//!   and its integrated mean curvature is `theta |e| / 2`, so a hinge of edge `e` stores
//!   `3 D |e|^2 theta^2 / (2 (A0 + A1))` for a small dihedral angle `theta` away from flat. As a constraint `C = theta - theta0` with energy `C^2 / (2 alpha)` that is the
//!   compliance `alpha_theta = (A0 + A1) / (3 D |e|^2)` (1/J per rad^2), averaged over the hinges
//!   ([`SheetMeasures::hinge_compliance_times_bending_stiffness`] over `D`), into `kb` with the hinges'
//!   mean `sum w |grad theta|^2` at the flat rest shape ([`SheetMeasures::mean_dihedral_inverse_mass`]).
//!
//! The library's PBD dihedral projection uses `theta`'s exact gradients, so the fraction of one
//! projection is the XPBD one's; like every PBD-from-XPBD mapping it treats each constraint alone.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "cloth-pbd-van-gelder-shells",
    model: ModelKind::CLOTH_PBD,
    description: "kd, kb: PBD fractions of Van Gelder's edge compliance |e|^2 / (E h sum A_t) and the discrete \
                  shells' hinge compliance (A0 + A1) / (3 D |e|^2), each a mean over the sheet",
    source: "Van Gelder 1998 (membrane, modulus E h); Grinspun et al. 2003 discrete shells, constant from the \
             plate's D; Mueller et al. 2007's iteration correction",
    units: &["1", "1"],
    uses_young: true,
    uses_step: true,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    let sheet = g.sheet()?;
    let h = sheet.thickness;
    let alpha_d = sheet.membrane_compliance_times_young_thickness / (q.young * h);
    let alpha_theta = sheet.hinge_compliance_times_bending_stiffness / q.bending_stiffness(h);
    Ok(vec![
        pbd_stiffness(alpha_d, g.mean_distance_inverse_mass, q.dt, q.nit),
        pbd_stiffness(alpha_theta, sheet.mean_dihedral_inverse_mass, q.dt, q.nit),
    ])
}
