//! The order in which an engine's user creates a body's constraints, where the engine reads it: Jolt's
//! `SoftBodySharedSettings::Optimize` sorts the edges of an update group by their distance to the nearest
//! kinematic vertex, then their lowest vertex index, then the index they were created with, and groups
//! its vertices by a connectivity listed in creation order; so two programs that create the same edges in
//! different orders project them in different orders and rest in different places (in Jolt itself, on
//! pbdfit's cubes, by 4.4e-3 to 0.18 in relative L2: `benchmarks/engines/results/jolt_order.txt`). The
//! order is therefore part of the body, a setting of the profile (`order`), and printed with the lines to
//! paste.
//!
//! Jolt's own `CreateConstraints` builds edges from a body's faces only (its sheets and closed surfaces,
//! as Godot's SoftBody3D makes them; `jolt_faces.rs` reproduces it and its order); for tetrahedra it makes
//! none, so a solid's edges are the user's own loop, in one of the orders below.

/// How a body's edges are created, in the engine's terms; the setting `order` (a number, see
/// [`CreationOrder::from_setting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CreationOrder {
    /// pbdfit's order: each edge where it is first met walking the tetrahedra in mesh order, a tetrahedron
    /// `[a, b, c, d]`'s edges as `(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)` (the order
    /// `simulate --json` lists its distance `constraints` in). Setting 0, the default.
    #[default]
    Profile,
    /// The unique edges as `(min, max)` vertex pairs, sorted by the first vertex, then the second (what a
    /// program that collects the edges in a sorted set creates). Setting -1.
    Sorted,
    /// A shuffle of the profile's order by a seed >= 1 (SplitMix64 driving a Fisher-Yates shuffle):
    /// an order no rule predicts, for the spread over orders. Setting: the seed.
    Shuffled(u64),
}

/// The setting's name.
pub const SETTING: &str = "order";

/// The setting's words on the command line (`--setting order=sorted`) and their values.
pub const WORDS: &[(&str, f64)] = &[("profile", 0.0), ("sorted", -1.0)];

/// The largest seed the setting takes.
pub const MAX_SEED: f64 = 4_294_967_295.0;

impl CreationOrder {
    /// The order a setting value names: 0 the profile's, -1 sorted pairs, a whole number >= 1 the shuffle
    /// with that seed (the setting's range check refuses every other value first).
    pub fn from_setting(value: f64) -> Self {
        if value == 0.0 {
            CreationOrder::Profile
        } else if value < 0.0 {
            CreationOrder::Sorted
        } else {
            CreationOrder::Shuffled(value as u64)
        }
    }

    /// The setting value naming this order.
    pub fn setting(self) -> f64 {
        match self {
            CreationOrder::Profile => 0.0,
            CreationOrder::Sorted => -1.0,
            CreationOrder::Shuffled(seed) => seed as f64,
        }
    }

    /// `profile`, `sorted`, `shuffled (seed 3)`.
    pub fn name(self) -> String {
        match self {
            CreationOrder::Profile => "profile".to_string(),
            CreationOrder::Sorted => "sorted".to_string(),
            CreationOrder::Shuffled(seed) => format!("shuffled (seed {seed})"),
        }
    }

    /// How a program creates the edges in this order, for the lines to paste.
    pub fn how(self) -> String {
        match self {
            CreationOrder::Profile => {
                "each edge where first met walking the tetrahedra in mesh order, tetrahedron [a, b, c, d]'s as \
                 (a, b), (a, c), (a, d), (b, c), (b, d), (c, d), skipping edges made before"
                    .to_string()
            }
            CreationOrder::Sorted => {
                "the unique edges as (min, max) vertex pairs, sorted by the first vertex, then the second".to_string()
            }
            CreationOrder::Shuffled(seed) => format!(
                "the profile's edges shuffled by seed {seed}: in the order `pbdfit simulate --json` lists as `creation_order`"
            ),
        }
    }

    /// The creation sequence of `edges` (given in the profile's order, as vertex pairs): the indices into
    /// `edges` of the first, second, ... edge created.
    pub fn sequence(self, edges: &[[usize; 2]]) -> Vec<usize> {
        let mut sequence: Vec<usize> = (0..edges.len()).collect();
        match self {
            CreationOrder::Profile => {}
            CreationOrder::Sorted => {
                sequence.sort_by_key(|&i| {
                    let [a, b] = edges[i];
                    (a.min(b), a.max(b), i)
                });
            }
            CreationOrder::Shuffled(seed) => shuffle(&mut sequence, &mut SplitMix64(seed)),
        }
        sequence
    }

    /// A sheet's faces (vertex triples, in the mesh's order: an imported sheet's file order) as a program
    /// hands them to Jolt's `CreateConstraints` in this order: the profile's, the mesh's order; sorted, each
    /// face turned to start at its smallest vertex and the faces sorted by their triples; shuffled, the faces
    /// shuffled by the seed and each face turned by a seeded 0, 1 or 2 places. A face is only ever turned,
    /// never reflected, so its winding (which decides `CreateConstraints`' coplanarity test) is kept.
    pub fn faces(self, faces: &[[usize; 3]]) -> Vec<[usize; 3]> {
        let turn = |f: [usize; 3], k: usize| [f[k % 3], f[(k + 1) % 3], f[(k + 2) % 3]];
        match self {
            CreationOrder::Profile => faces.to_vec(),
            CreationOrder::Sorted => {
                let mut sorted: Vec<[usize; 3]> =
                    faces.iter().map(|&f| turn(f, (0..3).min_by_key(|&k| f[k]).expect("three corners"))).collect();
                sorted.sort();
                sorted
            }
            CreationOrder::Shuffled(seed) => {
                let mut rng = SplitMix64(seed);
                let mut sequence: Vec<usize> = (0..faces.len()).collect();
                shuffle(&mut sequence, &mut rng);
                sequence.into_iter().map(|i| turn(faces[i], (rng.next() % 3) as usize)).collect()
            }
        }
    }

    /// How a program hands a sheet's faces to `CreateConstraints` in this order, for the lines to paste.
    pub fn how_faces(self) -> String {
        match self {
            CreationOrder::Profile => "the faces in the mesh's order (an imported mesh's: its file's)".to_string(),
            CreationOrder::Sorted => {
                "each face turned to start at its smallest vertex, the faces sorted by their vertex triples".to_string()
            }
            CreationOrder::Shuffled(seed) => {
                format!("the mesh's faces shuffled and turned by seed {seed} (engines::creation::CreationOrder::faces)")
            }
        }
    }

    /// `edges` (the profile's order) in this order, sorted pairs as `(min, max)`: what the user creates.
    pub fn edges(self, edges: &[[usize; 2]]) -> Vec<[usize; 2]> {
        self.sequence(edges)
            .into_iter()
            .map(|i| {
                let [a, b] = edges[i];
                if self == CreationOrder::Sorted { [a.min(b), a.max(b)] } else { [a, b] }
            })
            .collect()
    }

    /// The creation rank of every edge: `rank[i]` is when edge `i` (of the profile's order) is created.
    pub fn ranks(self, edges: &[[usize; 2]]) -> Vec<usize> {
        let mut rank = vec![0; edges.len()];
        for (k, i) in self.sequence(edges).into_iter().enumerate() {
            rank[i] = k;
        }
        rank
    }
}

impl crate::ModelKind {
    /// The order the model's engine creates the edges in, for a profile with the `order` setting (Jolt's);
    /// `None` for the others, whose engines do not read it.
    pub fn creation_order(self) -> Option<CreationOrder> {
        self.settings().into_iter().find(|(name, _)| *name == SETTING).map(|(_, v)| CreationOrder::from_setting(v))
    }
}

impl crate::PbdSystem {
    /// The body's edges as an engine's user creates them in `order` (vertex pairs, first created first).
    pub fn edges_in_creation_order(&self, order: CreationOrder) -> Vec<[usize; 2]> {
        let pairs: Vec<[usize; 2]> = self.engine_body().edges.iter().map(|e| e.particles).collect();
        order.edges(&pairs)
    }
}

/// Fisher-Yates on `v`, driven by `rng`.
fn shuffle(v: &mut [usize], rng: &mut SplitMix64) {
    for i in (1..v.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a seeded stream that is the same on every platform.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The setting names each order and back; a shuffle is a permutation fixed by its seed.
    #[test]
    fn orders_round_trip_and_shuffles_are_fixed_permutations() {
        for order in [CreationOrder::Profile, CreationOrder::Sorted, CreationOrder::Shuffled(7)] {
            assert_eq!(CreationOrder::from_setting(order.setting()), order);
        }
        let edges: Vec<[usize; 2]> = (0..40).map(|i| [(i * 7) % 13, 20 + i]).collect();
        let a = CreationOrder::Shuffled(3).sequence(&edges);
        assert_eq!(a, CreationOrder::Shuffled(3).sequence(&edges));
        assert_ne!(a, CreationOrder::Shuffled(4).sequence(&edges));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..40).collect::<Vec<_>>());
        // SplitMix64's first output for seed 0 (the published reference value).
        assert_eq!(SplitMix64(0).next(), 0xE220_A839_7B1D_CDAF);
        let s = CreationOrder::Sorted.edges(&[[3, 1], [0, 2], [1, 0]]);
        assert_eq!(s, vec![[0, 1], [0, 2], [1, 3]]);
        let ranks = CreationOrder::Sorted.ranks(&[[3, 1], [0, 2], [1, 0]]);
        assert_eq!(ranks, vec![2, 1, 0]);
    }
}
