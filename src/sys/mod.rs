//! Plumbing at the bottom of the stack: child processes (process groups, timeouts, the stop
//! signals, liveness), files written without harming what they replace, and the memory the
//! machine has available. It names no other module of the crate.

pub(crate) mod fs;
pub(crate) mod memory;
pub(crate) mod process;
