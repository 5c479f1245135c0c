//! The one home of constraint colouring, used by the serial, threaded and GPU paths alike.

/// Constraints split into groups in which no two constraints share a particle.
///
/// Greedy in list order (docs/method.md, section The model's step): each constraint goes into the first group that
/// holds no constraint sharing a particle with it, or a new group if none. A Gauss-Seidel sweep projects
/// the groups in creation order and, inside a group, the constraints in list order; since no two
/// constraints of a group touch the same particle, a group may be projected in parallel with the same
/// result as serially.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourGroups {
    groups: Vec<Vec<usize>>,
}

impl ColourGroups {
    /// Colours constraints given, in list order, the particles each one touches.
    ///
    /// ```
    /// // Three springs on a chain 0-1-2-3: (0,1) and (2,3) share nothing, (1,2) touches both.
    /// let groups = pbdfit_pbd::ColourGroups::greedy(&[vec![0, 1], vec![1, 2], vec![2, 3]], 4);
    /// assert_eq!(groups.groups(), &[vec![0, 2], vec![1]]);
    /// ```
    pub fn greedy(constraints: &[Vec<usize>], particle_count: usize) -> Self {
        // groups_of[p]: the groups that already hold a constraint touching particle p, ascending.
        let mut groups_of: Vec<Vec<u32>> = vec![Vec::new(); particle_count];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut forbidden: Vec<bool> = Vec::new();
        for (c, particles) in constraints.iter().enumerate() {
            forbidden.clear();
            forbidden.resize(groups.len(), false);
            for &p in particles {
                for &g in &groups_of[p] {
                    forbidden[g as usize] = true;
                }
            }
            let g = forbidden.iter().position(|&f| !f).unwrap_or(groups.len());
            if g == groups.len() {
                groups.push(Vec::new());
            }
            groups[g].push(c);
            for &p in particles {
                groups_of[p].push(g as u32);
            }
        }
        Self { groups }
    }

    /// The groups in creation order, each listing constraint indices in list order.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// All constraint indices in projection order.
    pub fn solve_order(&self) -> Vec<usize> {
        self.groups.iter().flatten().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn groups_share_no_particle_and_cover_every_constraint(
            constraints in proptest::collection::vec(proptest::collection::btree_set(0usize..30, 2..=4), 0..80)
        ) {
            let constraints: Vec<Vec<usize>> = constraints.into_iter().map(|s| s.into_iter().collect()).collect();
            let colours = ColourGroups::greedy(&constraints, 30);
            let mut order = colours.solve_order();
            order.sort_unstable();
            prop_assert_eq!(order, (0..constraints.len()).collect::<Vec<_>>());
            for group in colours.groups() {
                let mut seen = std::collections::HashSet::new();
                for &c in group {
                    for &p in &constraints[c] {
                        prop_assert!(seen.insert(p), "particle {} shared inside a group", p);
                    }
                }
                prop_assert!(group.windows(2).all(|w| w[0] < w[1]), "group not in list order");
            }
        }
    }
}
