//! The tests of pbdfit-mesh, in one test binary (one link, not one per file). Each module of `mesh_tests/`
//! checks one behaviour; their fixtures are in `data/`. One module: `cargo test -p pbdfit-mesh --test mesh import::`.

mod mesh_tests;
