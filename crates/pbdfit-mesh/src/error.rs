use std::path::PathBuf;

/// A mesh that cannot be simulated.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MeshError {
    /// The resolution must be at least 1.
    #[error("mesh resolution N must be at least 1, got {0}")]
    ZeroResolution(usize),
    /// A tetrahedron refers to a vertex that does not exist.
    #[error("tetrahedron {tet} refers to vertex {vertex}, but the mesh has only {count} vertices")]
    VertexOutOfRange {
        /// Tetrahedron index.
        tet: usize,
        /// Offending vertex index.
        vertex: usize,
        /// Number of vertices.
        count: usize,
    },
    /// A tetrahedron has zero or negative volume (inverted or degenerate).
    #[error(
        "tetrahedron {tet} {vertices:?} is inverted or degenerate (signed volume {volume:e} m^3); \
         tetrahedra must be positively oriented: ((p1-p0) x (p2-p0)) . (p3-p0) > 0"
    )]
    InvertedTet {
        /// Tetrahedron index.
        tet: usize,
        /// Its vertices.
        vertices: [usize; 4],
        /// Its signed volume.
        volume: f64,
    },
}

/// A scene file that cannot be used. Every variant names the file (or built-in scene) it came from.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file {path}: {source}")]
    Io {
        /// File path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed, has an unknown key, a missing field or a wrong type.
    #[error("scene {origin}: {message}")]
    Parse {
        /// File path or built-in name.
        origin: String,
        /// What the TOML parser said (names the key and the line).
        message: String,
    },
    /// A value is out of its allowed range.
    #[error("scene {origin}: key `{key}`: {message}")]
    Invalid {
        /// File path or built-in name.
        origin: String,
        /// The offending key.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// No built-in scene of that name, and no such file.
    #[error("unknown scene `{0}`: not a built-in scene ({builtins}) and no such file", builtins = crate::scene::builtin_names())]
    Unknown(String),
    /// The body would not fit in memory (see [`SizeEstimate`](crate::SizeEstimate)).
    #[error("scene {origin}: {message}")]
    TooLarge {
        /// File path or built-in name.
        origin: String,
        /// The estimate and the limit.
        message: String,
    },
    /// A compound scene's part is itself compound, or names a file of the chain that led to it again
    /// (which would never end). `chain` lists the files from the scene named first to the offending part.
    #[error(
        "compound scene {chain}: {problem}; a compound scene lists basic scenes only (nesting is not supported)",
        chain = chain.join(" -> "),
        problem = if *cycle { "includes itself" } else { "its last part is itself compound" }
    )]
    Compound {
        /// The files (or built-in names) from the first scene to the offending part.
        chain: Vec<String>,
        /// Whether the last file of the chain is one of the files before it.
        cycle: bool,
    },
    /// The mesh built from the scene is unusable.
    #[error("scene {origin}: {source}")]
    Mesh {
        /// File path or built-in name.
        origin: String,
        /// The mesh problem.
        source: MeshError,
    },
    /// A sheet scene (a `[sheet]` table: a triangle mesh with a thickness) where a solid is needed.
    #[error(
        "scene {origin} is a sheet (a triangle mesh with a thickness), not a tetrahedral solid, and this takes \
         solids only (docs/sheets.md says which commands and models take a sheet)"
    )]
    Sheet {
        /// File path or built-in name.
        origin: String,
    },
    /// A solid scene where a sheet is needed.
    #[error("scene {origin} is a tetrahedral solid, not a sheet (a sheet scene has a [sheet] table)")]
    NotSheet {
        /// File path or built-in name.
        origin: String,
    },
}
