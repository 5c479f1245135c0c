//! The error between a PBD and a FEM rest state (docs/method.md, section The error).

use pbdfit_mesh::Vec3;

/// The vertices the FEM moves: `|u_fem| > threshold * max |u_fem|` over the free vertices, with a
/// relative threshold of 1e-12. Held vertices (`held[i]`), whether fixed in place or moved by a
/// prescribed displacement, are never in the set: the reference does not move them, the load does.
pub fn moved_vertices(fem: &[Vec3], held: &[bool]) -> Vec<usize> {
    let free = || (0..fem.len()).filter(|&i| !held[i]);
    let largest = free().map(|i| fem[i].norm()).fold(0.0, f64::max);
    free().filter(|&i| fem[i].norm() > 1e-12 * largest && fem[i].norm() > 0.0).collect()
}

/// What makes reference displacements `fem` unusable for a fit, if anything: a non-finite component,
/// no free vertex moved, or displacements whose squared norms under- or overflow (so that `moved`, the
/// result of [`moved_vertices`], is empty although a free vertex moves). A fit of such a reference would
/// report an error of 0.
pub fn reference_fault(fem: &[Vec3], held: &[bool], moved: &[usize]) -> Option<crate::error::ReferenceFault> {
    use crate::error::ReferenceFault;
    if let Some((vertex, value)) =
        fem.iter().enumerate().find_map(|(v, u)| u.iter().find(|x| !x.is_finite()).map(|x| (v, *x)))
    {
        return Some(ReferenceFault::NotFinite { vertex, value });
    }
    if !moved.is_empty() {
        return None;
    }
    let largest = (0..fem.len()).filter(|&i| !held[i]).map(|i| fem[i].amax()).fold(0.0, f64::max);
    Some(if largest == 0.0 { ReferenceFault::NoMotion } else { ReferenceFault::OutOfRange { largest } })
}

/// Mean squared relative error `e = (1/|D|) sum_{i in D} (|u_pbd,i - u_fem,i| / |u_fem,i|)^2` over the
/// moved vertices `D` (dimensionless).
///
/// ```
/// use pbdfit_mesh::Vec3;
/// let fem = [Vec3::zeros(), Vec3::new(0.0, -2.0, 0.0), Vec3::new(0.0, -4.0, 0.0)];
/// let pbd = [Vec3::zeros(), Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, -4.0, 0.0)];
/// let d = pbdfit_fit::moved_vertices(&fem, &[true, false, false]);
/// assert_eq!(d, [1, 2]);
/// // A held vertex that a load moves is left out.
/// assert_eq!(pbdfit_fit::moved_vertices(&fem, &[true, false, true]), [1]);
/// // vertex 1 is off by half its displacement, vertex 2 exact: (0.25 + 0) / 2
/// assert_eq!(pbdfit_fit::relative_error(&pbd, &fem, &d), 0.125);
/// ```
pub fn relative_error(pbd: &[Vec3], fem: &[Vec3], moved: &[usize]) -> f64 {
    if moved.is_empty() {
        return 0.0;
    }
    let sum: f64 = moved.iter().map(|&i| vertex_error(&pbd[i], &fem[i]).powi(2)).sum();
    sum / moved.len() as f64
}

/// One vertex's relative displacement error `|u_pbd - u_fem| / |u_fem|`: the term [`relative_error`]
/// averages (squared), and what `--vtk` writes per vertex. Meaningful for a vertex the FEM moves.
#[inline]
pub fn vertex_error(pbd: &Vec3, fem: &Vec3) -> f64 {
    (pbd - fem).norm() / fem.norm()
}

/// The compound scene's error: the Euclidean norm of its parts' errors.
pub fn compound_error(parts: &[f64]) -> f64 {
    parts.iter().map(|e| e * e).sum::<f64>().sqrt()
}
