//! Studies (see the crate doc).
