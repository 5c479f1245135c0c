//! A release's trajectory: the motion fit's target ([`crate::motion`]). The model's response compared is
//! its release rather than its rest state: `u` holds its displacement field at every sample of the window
//! (the start included), one after another. The error has the rest-state fit's form over the samples after
//! the start: the mean over them and the vertices the FEM moves of `|u_model(t) - u_fem(t)|^2 /
//! |u_fem,rest|^2`. No file names it (it is no kind of the registry): the release test makes it.

use pbdfit_mesh::Vec3;

use super::{FemTarget, Target};

/// The FEM's release as a fit target.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryTarget {
    /// The FEM's rest state: each vertex's scale, and the vertices it moves.
    pub rest: FemTarget,
    /// The FEM's displacement field at every sample (m, per vertex), the start included.
    pub fields: Vec<Vec<Vec3>>,
}

impl TrajectoryTarget {
    /// The samples compared of a model's release `u` (the fewer of the two releases'), and each field's
    /// length.
    fn samples(&self, u: &[Vec3]) -> (usize, usize) {
        let n = self.rest.reference.len();
        (self.fields.len().min(u.len() / n.max(1)), n)
    }
}

impl Target for TrajectoryTarget {
    fn describe(&self) -> String {
        format!("the release of {} ({} samples)", self.rest.id, self.fields.len())
    }

    fn error(&self, u: &[Vec3]) -> f64 {
        let ((samples, n), (rest, moved)) = (self.samples(u), (&self.rest.reference, &self.rest.moved));
        let mut sum = 0.0;
        for (j, fem) in self.fields.iter().enumerate().take(samples).skip(1) {
            let model = &u[j * n..];
            sum += moved.iter().map(|&v| (model[v] - fem[v]).norm_squared() / rest[v].norm_squared()).sum::<f64>()
                / moved.len().max(1) as f64;
        }
        sum / (samples - 1).max(1) as f64
    }

    /// Every moved vertex at every sample after the start (a model's release has the FEM's samples).
    fn terms(&self) -> f64 {
        (self.rest.moved.len() * self.fields.len().saturating_sub(1)).max(1) as f64
    }

    /// Residuals per sample and moved vertex, scaled by the vertex's rest displacement; `sensitivity[j]`
    /// is a release's, laid out as `u`.
    fn linearise(&self, u: &[Vec3], sensitivity: &[Vec<Vec3>], chain: &[f64], add: &mut dyn FnMut(Vec3, &[Vec3])) {
        let (samples, n) = self.samples(u);
        for (j, fem) in self.fields.iter().enumerate().take(samples).skip(1) {
            for &v in &self.rest.moved {
                let (i, scale) = (j * n + v, 1.0 / self.rest.reference[v].norm());
                let columns: Vec<_> = sensitivity.iter().zip(chain).map(|(s, c)| s[i] * (c * scale)).collect();
                add((u[i] - fem[v]) * scale, &columns);
            }
        }
    }
}
