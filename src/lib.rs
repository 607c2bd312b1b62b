//! cargo-capcheck: find hard-coded capacity constants and the tests that pin them, hold them to a
//! measured-capacity manifest, and mutate capacity logic to see which tests notice.
//!
//! See ARCHITECTURE.md for the map.

pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod diversity;
pub mod exit;
pub mod finding;
pub mod index;
pub mod lint;
pub mod manifest;
pub mod measure;
pub mod mutate;
pub mod report;
pub mod syntax;
pub mod workspace;
