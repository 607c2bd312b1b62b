//! The integration tests: one binary of small modules, each running the real `cargo-capcheck`.

mod measure;
