//! Plumbing at the bottom of the stack: child processes (process groups, timeouts, the stop
//! signals, liveness) and files written without harming what they replace. It names no other
//! module of the crate.

pub(crate) mod fs;
pub(crate) mod process;
