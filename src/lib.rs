//! cargo-capcheck: find hard-coded capacity constants and the tests that pin them, hold them to a
//! measured-capacity manifest, and mutate capacity logic to see which tests notice.
//!
//! See ARCHITECTURE.md for the map.

pub mod cli;
pub mod exit;
pub mod measure;
