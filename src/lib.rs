//! cargo-capcheck: find hard-coded capacity constants and the tests that pin them, hold them to a
//! measured-capacity manifest, and mutate capacity logic to see which tests notice.
//!
//! The library exists for the binary: its one public item is [`main`] (and the stack size every
//! parsing thread needs). Modules are listed bottom to top; each names only those above it in
//! this list (ARCHITECTURE.md, "Layers"; `tests/layers.rs` checks it).
#![warn(unreachable_pub)]

// Plumbing and core data.
mod sys;
mod catalog;
mod source;
mod site;
mod diag;
mod finding;
mod config;
// Reading code.
mod syntax;
mod workspace;
mod index;
mod manifest;
// Analyses over the parsed workspace.
mod fixture_model;
mod operators;
// The one load.
mod project;
// Jobs: options in, data out, no printing.
mod lint;
mod check;
mod init;
mod mutate;
mod measure;
// Rendering, then the command line.
mod report;
mod cli;

#[cfg(test)]
mod fuzz;

pub use cli::main;
/// The stack every thread that parses needs (`syntax::depth`).
pub const STACK: usize = syntax::depth::STACK;
