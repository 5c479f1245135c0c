//! `cloth-xpbd-van-gelder-bergou`: the `cloth-xpbd` model's compliances from a sheet's `(E, nu, h)`.
//!
//! - **Stretch**, `alpha_d` (m/N): Van Gelder's triangle springs for a membrane of thickness `h`. The spring
//!   of edge `e` gets `k_e = E h sum_{t ∋ e} A_t / |e|^2` (N/m): his 2D rule (A. Van Gelder, "Approximate
//!   simulation of elastic membranes by triangulated spring meshes", J. Graphics Tools 3(2), 1998) for a
//!   membrane whose 2D modulus is `E h` (N/m). The model has one compliance for every edge, so it gets the
//!   mean over the edges of `1 / k_e` ([`SheetMeasures::membrane_compliance_times_young_thickness`] over
//!   `E h`), as the solids' `xpbd-van-gelder-bulk` does. No Poisson ratio.
//! - **Bending**, `alpha_b` (1/J): `1 / D` with the plate's `D = E h^3 / (12 (1 - nu^2))` (J). Bergou et
//!   al. ("A quadratic bending model for inextensible surfaces", SGP 2006) scale their isometric bending
//!   energy by the bending stiffness, and Jan Bender's library, whose `IsometricBendingConstraint_XPBD`
//!   `cloth-xpbd` is, takes that stiffness as `1 / alpha`: a user who follows both sets it to `D`. The
//!   library's constraint `C` is the quadratic energy itself (dimensionless), and XPBD stores
//!   `C^2 / (2 alpha_b)`, quartic in the displacement, so `1 / D` has the right unit but not the plate's
//!   law: how far it is off is what `reports/sheets/` measures.

use super::*;

/// The registry entry.
pub(super) const MAPPING: Mapping = Mapping {
    name: "cloth-xpbd-van-gelder-bergou",
    model: ModelKind::CLOTH_XPBD,
    description: "alpha_d: mean over edges of |e|^2 / (E h sum of adjacent triangle areas); alpha_b = 1 / D, \
                  D = E h^3 / (12 (1 - nu^2))",
    source: "Van Gelder 1998 (J. Graphics Tools 3(2)), 2D springs with modulus E h; Bergou et al. 2006 with \
             Bender's library stiffness 1 / alpha_b set to D",
    units: &["m/N", "1/J"],
    uses_young: true,
    uses_step: false,
    uses_mesh: true,
    map,
};

pub(super) fn map(q: &MappingQuery, g: &Geometry) -> Result<Vec<f64>, String> {
    let sheet = g.sheet()?;
    let h = sheet.thickness;
    Ok(vec![sheet.membrane_compliance_times_young_thickness / (q.young * h), 1.0 / q.bending_stiffness(h)])
}
