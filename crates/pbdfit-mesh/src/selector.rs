//! Vertex selectors: which vertices a held set or a load acts on. A selector is an axis-aligned plane,
//! an axis-aligned box, or a named vertex group of an imported mesh (a Gmsh physical group).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::{PlaneSelector, Vec3};

/// An axis-aligned box `[min, max]` (m); a vertex is inside when every coordinate is within
/// `tolerance` of the box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxSelector {
    /// Lower corner (m).
    pub min: Vec3,
    /// Upper corner (m).
    pub max: Vec3,
    /// Slack on every face: in m, or, when `relative`, as a fraction of the body's largest bounding-box
    /// side.
    pub tolerance: f64,
    /// Whether `tolerance` is relative to the body's size (the default tolerance is).
    pub relative: bool,
}

impl BoxSelector {
    /// Whether the point lies in the box (with the tolerance), for a body whose largest bounding-box side
    /// is `size` (m).
    pub fn contains(&self, p: &Vec3, size: f64) -> bool {
        let tolerance = if self.relative { self.tolerance * size } else { self.tolerance };
        (0..3).all(|a| p[a] >= self.min[a] - tolerance && p[a] <= self.max[a] + tolerance)
    }
}

/// The largest side of the points' bounding box, m (1 for the unit cube; 0 for no points).
fn largest_side(vertices: &[Vec3]) -> f64 {
    let Some(first) = vertices.first() else { return 0.0 };
    let (lo, hi) = vertices.iter().fold((*first, *first), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    (hi - lo).max()
}

/// Which vertices something acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    /// The vertices on an axis-aligned plane.
    Plane(PlaneSelector),
    /// The vertices in an axis-aligned box.
    Box(BoxSelector),
    /// A named vertex group of an imported mesh (a Gmsh physical group, by name or by number).
    Group(String),
}

impl Selector {
    /// The selected vertices of a mesh with the given vertex positions and named groups, ascending.
    /// Empty when nothing is selected (callers refuse that, naming the selector). A group the mesh does
    /// not have is an error listing the groups it has.
    pub fn select(&self, vertices: &[Vec3], groups: &BTreeMap<String, Vec<usize>>) -> Result<Vec<usize>, String> {
        let size = largest_side(vertices);
        Ok(match self {
            Selector::Plane(p) => (0..vertices.len()).filter(|&v| p.contains(&vertices[v], size)).collect(),
            Selector::Box(b) => (0..vertices.len()).filter(|&v| b.contains(&vertices[v], size)).collect(),
            Selector::Group(name) => match groups.get(name) {
                Some(members) => members.clone(),
                None if groups.is_empty() => {
                    return Err(format!("group `{name}`: the mesh has no named groups (only Gmsh meshes carry them)"));
                }
                None => {
                    let known: Vec<&str> = groups.keys().map(String::as_str).collect();
                    return Err(format!("the mesh has no group `{name}`; it has: {}", known.join(", ")));
                }
            },
        })
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selector::Plane(p) => write!(f, "plane `{p}`"),
            Selector::Box(b) => {
                write!(f, "box [{}, {}, {}] to [{}, {}, {}]", b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z)
            }
            Selector::Group(g) => write!(f, "group `{g}`"),
        }
    }
}

/// The selector keys of a scene-file table: exactly one of `plane`, `box` or `group`, and an optional
/// `tolerance` (m).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectorKeys {
    pub plane: Option<String>,
    #[serde(rename = "box")]
    pub bounds: Option<BoxKeys>,
    pub group: Option<String>,
    pub tolerance: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoxKeys {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

impl SelectorKeys {
    /// The selector these keys describe; the message says what is wrong (the caller names the key).
    pub fn selector(&self) -> Result<Selector, String> {
        // Given: in m. Default: relative to the body's size, so that scaling a mesh scales what it
        // selects (1e-9 m on the unit cube, as before).
        let tolerance = self.tolerance.unwrap_or(PlaneSelector::DEFAULT_TOLERANCE);
        let relative = self.tolerance.is_none();
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(format!("tolerance {tolerance} must be a finite number >= 0"));
        }
        match (&self.plane, &self.bounds, &self.group) {
            (Some(plane), None, None) => {
                Ok(Selector::Plane(PlaneSelector { relative, ..PlaneSelector::parse(plane, tolerance)? }))
            }
            (None, Some(b), None) => {
                if b.min.iter().chain(&b.max).any(|x| !x.is_finite()) {
                    return Err("box corners must be finite".into());
                }
                if (0..3).any(|a| b.min[a] > b.max[a]) {
                    return Err(format!("box min {:?} is above max {:?} on some axis", b.min, b.max));
                }
                Ok(Selector::Box(BoxSelector { min: Vec3::from(b.min), max: Vec3::from(b.max), tolerance, relative }))
            }
            (None, None, Some(group)) => {
                if self.tolerance.is_some() {
                    return Err("a group selector takes no tolerance".into());
                }
                Ok(Selector::Group(group.clone()))
            }
            (None, None, None) => Err("selects nothing: give one of `plane`, `box` or `group`".into()),
            _ => Err("give only one of `plane`, `box` or `group`".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_pick_the_right_vertices() {
        let vertices = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.5, 0.5, 1.0)];
        let groups = BTreeMap::from([("clamp".to_string(), vec![0, 2])]);
        let keys = |text: &str| toml::from_str::<SelectorKeys>(text).unwrap().selector();
        assert_eq!(keys("plane = \"y = 0\"").unwrap().select(&vertices, &groups).unwrap(), [0, 1]);
        let b = keys("box = { min = [0.4, 0.0, 0.0], max = [1.0, 1.0, 1.0] }").unwrap();
        assert_eq!(b.select(&vertices, &groups).unwrap(), [1, 2]);
        assert_eq!(keys("group = \"clamp\"").unwrap().select(&vertices, &groups).unwrap(), [0, 2]);
        let e = keys("group = \"tip\"").unwrap().select(&vertices, &groups).unwrap_err();
        assert!(e.contains("tip") && e.contains("clamp"), "{e}");
        assert!(keys("").unwrap_err().contains("one of"));
        assert!(keys("plane = \"y = 0\"\ngroup = \"a\"").unwrap_err().contains("only one"));
        assert!(keys("box = { min = [1, 0, 0], max = [0, 1, 1] }").unwrap_err().contains("above"));
        assert!(keys("plane = \"y = 0\"\ntolerance = -1").unwrap_err().contains("tolerance"));
    }
}
