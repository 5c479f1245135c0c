//! Jolt 5.6's soft body on a sheet, as Godot's SoftBody3D and a user of `CreateConstraints` build it: the
//! edge, shear and bend constraints that `SoftBodySharedSettings::CreateConstraints` makes of the sheet's
//! triangles (`engines/jolt_faces.rs`, bend type `Distance`: every constraint an `Edge`), in the order it
//! creates them, ordered for the solve by `Optimize` (`engines/jolt.rs`'s [`Order`]), and projected by
//! Jolt's substep (`engines/jolt.rs`: `mNumIterations` substeps of one Gauss-Seidel pass, XPBD with no
//! multiplier kept, the damping scaling the gravity increment).
//!
//! Each edge takes the compliance of its kind (m/N, `C = l - l0`): a face edge `mCompliance`, a quad's
//! diagonal or the edge across it `mShearCompliance`, an edge between the opposite vertices of two faces
//! that do not form a quad `mBendCompliance` (Jolt's `VertexAttributes`, one set for every vertex; Jolt
//! takes the larger compliance of an edge's two vertices, which one set makes the same).
//!
//! Not reproduced: bend type `Dihedral` (its dihedral constraints are not projected here, so a sheet
//! created with it is not this body), per-vertex attributes, LRA and pressure constraints.

use std::sync::Arc;

use super::jolt::{Order, project_edge};
use super::jolt_faces::{EdgeKind, JoltBend, create_constraints};
use super::{EngineBody, EngineEdge, EngineStep};
use crate::{Dynamics, PbdSystem};

/// Jolt's `SoftBodySharedSettings::VertexAttributes` compliances (m/N).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JoltCloth {
    /// `mCompliance`: the face edges.
    pub compliance: f64,
    /// `mShearCompliance`: the quads' diagonals.
    pub shear_compliance: f64,
    /// `mBendCompliance`: the `Distance` bend edges.
    pub bend_compliance: f64,
}

/// The sheet's constraints as `CreateConstraints` makes them, and `Optimize`'s order of them.
#[derive(Debug, Clone, Default)]
pub struct SheetEdges {
    inner: Arc<Built>,
}

#[derive(Debug, Default)]
struct Built {
    /// The edges in creation order, each with its kind.
    edges: Vec<(EngineEdge, EdgeKind)>,
    /// Per update group, the edges (indices into `edges`).
    groups: Vec<Vec<usize>>,
}

impl SheetEdges {
    /// The number of edge constraints of each kind: (face edges, shear, bend).
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |k: EdgeKind| self.inner.edges.iter().filter(|(_, kind)| *kind == k).count();
        (count(EdgeKind::Edge), count(EdgeKind::Shear), count(EdgeKind::Bend))
    }
}

impl EngineStep for JoltCloth {
    type Cache = SheetEdges;
    const JACOBI: Option<&'static str> = None;

    /// `CreateConstraints` on the sheet's triangles (none on a solid), then `Optimize`.
    fn cache(system: &PbdSystem, _: &EngineBody) -> SheetEdges {
        let Some(cloth) = system.cloth_body() else { return SheetEdges::default() };
        let movable: Vec<bool> = system.inverse_masses.iter().map(|&w| w > 0.0).collect();
        let made = create_constraints(&cloth.triangles(), &system.rest, &movable, JoltBend::Distance);
        let pairs: Vec<[usize; 2]> = made.edges.iter().map(|(p, _)| *p).collect();
        let created: Vec<usize> = (0..pairs.len()).collect();
        let order = Order::optimize(system, &pairs, &created, &created, &[]);
        let edges = made.edges.iter().map(|&(p, kind)| (EngineEdge::of(system, p), kind)).collect();
        let groups = order.groups.into_iter().map(|(_, edges)| edges).collect();
        SheetEdges { inner: Arc::new(Built { edges, groups }) }
    }

    fn solve(&self, _: &PbdSystem, _: &EngineBody, cache: &SheetEdges, passes: usize, d: &mut Dynamics, h: f64) {
        let inv_h2 = 1.0 / (h * h);
        let alpha = |kind: EdgeKind| {
            inv_h2
                * match kind {
                    EdgeKind::Edge => self.compliance,
                    EdgeKind::Shear => self.shear_compliance,
                    EdgeKind::Bend => self.bend_compliance,
                }
        };
        let alphas = [alpha(EdgeKind::Edge), alpha(EdgeKind::Shear), alpha(EdgeKind::Bend)];
        let slot = |kind: EdgeKind| match kind {
            EdgeKind::Edge => 0,
            EdgeKind::Shear => 1,
            EdgeKind::Bend => 2,
        };
        let u = &mut d.predicted;
        for _ in 0..passes {
            for group in &cache.inner.groups {
                for &i in group {
                    let (edge, kind) = &cache.inner.edges[i];
                    project_edge(edge, alphas[slot(*kind)], u);
                }
            }
        }
    }
}
