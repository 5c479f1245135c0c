use crate::Vec3;

/// Selects the vertices on an axis-aligned plane, such as `y = 0`: every vertex whose coordinate on
/// `axis` is within `tolerance` (m) of `value` (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneSelector {
    /// 0 for x, 1 for y, 2 for z.
    pub axis: usize,
    /// Plane position in m.
    pub value: f64,
    /// Distance from the plane within which a vertex counts as on it: in m, or, when `relative`, as a
    /// fraction of the body's largest bounding-box side.
    pub tolerance: f64,
    /// Whether `tolerance` is relative to the body's size (the default tolerance is: an absolute 1e-9 m
    /// held every vertex of a mesh scaled to 1e-100 m).
    pub relative: bool,
}

impl PlaneSelector {
    /// Default tolerance, relative to the body's largest bounding-box side (1e-9 m on the unit cube):
    /// far below any mesh spacing, far above rounding of `i / N`.
    pub const DEFAULT_TOLERANCE: f64 = 1e-9;

    /// Parses `"<axis> = <value>"` with axis `x`, `y` or `z`, with an absolute `tolerance` in m.
    ///
    /// ```
    /// let p = pbdfit_mesh::PlaneSelector::parse("y = 1", 1e-9).unwrap();
    /// assert_eq!((p.axis, p.value), (1, 1.0));
    /// assert!(pbdfit_mesh::PlaneSelector::parse("w = 1", 1e-9).is_err());
    /// ```
    pub fn parse(text: &str, tolerance: f64) -> Result<Self, String> {
        let Some((lhs, rhs)) = text.split_once('=') else {
            return Err(format!("`{text}` is not a plane: expected `<axis> = <value>`, e.g. `y = 0`"));
        };
        let axis = match lhs.trim() {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            other => return Err(format!("`{other}` is not an axis: expected x, y or z")),
        };
        let value: f64 =
            rhs.trim().parse().map_err(|_| format!("`{}` is not a number in plane `{text}`", rhs.trim()))?;
        if !value.is_finite() {
            return Err(format!("plane `{text}` has a non-finite position"));
        }
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(format!("tolerance {tolerance} must be a finite number >= 0"));
        }
        Ok(Self { axis, value, tolerance, relative: false })
    }

    /// Whether the point lies on the plane, for a body whose largest bounding-box side is `size` (m).
    pub fn contains(&self, p: &Vec3, size: f64) -> bool {
        (p[self.axis] - self.value).abs() <= if self.relative { self.tolerance * size } else { self.tolerance }
    }
}

impl std::fmt::Display for PlaneSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", ["x", "y", "z"][self.axis], self.value)
    }
}
