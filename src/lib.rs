//! cargo-capcheck: find hard-coded capacity constants and the tests that pin them, hold them to a
//! measured-capacity manifest, and mutate capacity logic to see which tests notice.
//!
//! The library exists for the binary: its one public item is [`main`] (and the stack size every
//! parsing thread needs). Modules are listed bottom to top; each names only those above it in
//! this list (ARCHITECTURE.md, "Layers"; `tests/layers.rs` checks it).
#![warn(unreachable_pub)]

// Plumbing and core data.
mod catalog;
mod config;
mod diag;
mod finding;
mod site;
mod source;
mod sys;
// Reading code.
mod index;
mod manifest;
mod syntax;
mod workspace;
// Analyses over the parsed workspace.
mod fixture_model;
mod operators;
// The one load.
mod project;
// Jobs: options in, data out, no printing.
mod check;
mod init;
mod lint;
mod measure;
mod mutate;
// Rendering, then the command line.
mod cli;
mod report;

#[cfg(test)]
mod fuzz;

pub use cli::main;
/// The stack every thread that parses needs (`syntax::depth`).
pub const STACK: usize = syntax::depth::STACK;
