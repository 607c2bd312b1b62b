//! cargo-capcheck: find hard-coded capacity constants and the tests that pin them, hold them to a
//! measured-capacity manifest, and mutate capacity logic to see which tests notice.
//!
//! See ARCHITECTURE.md for the map.

pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod finding;
pub mod fixtures;
pub mod index;
pub mod init;
pub mod lint;
pub mod manifest;
pub mod measure;
pub mod mutate;
pub mod operators;
pub mod project;
pub mod report;
pub mod site;
pub mod source;
pub mod syntax;
pub mod sys;
pub mod workspace;
