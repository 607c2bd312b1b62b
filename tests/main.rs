//! One integration-test binary of small modules (saves link time); each runs the real binary.

mod check;
mod mutants;
mod support;
