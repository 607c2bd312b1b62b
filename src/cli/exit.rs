//! Exit codes, in one place: only `cli` decides them, from the data the jobs return.
//! `cli::out` is the only caller of `std::process::exit` (a report that cannot be written ends
//! the run there); everything else returns its code to `main`, which turns any code into 2 when
//! stderr refused a line.

use std::process::ExitCode;

/// Every exit status the tool uses, with its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// No error-level finding; no surviving mutant (or no mutant selected: no score).
    Clean = 0,
    /// Error-level findings, surviving or uncovered mutants, a score under `--min-score`, or a
    /// guard survived.
    Findings = 1,
    /// Usage error or bad input (manifest, evidence, workspace): a located message was printed.
    /// Also a lost stream: stdout refused the report (`cli::out`: a full disk) or stderr refused
    /// a line (`cli::err`), whatever the run found.
    Usage = 2,
    /// `mutants`: the unmutated baseline failed to build or test.
    BaselineFailed = 3,
    /// `mutants`: no survivor, but some mutants timed out.
    TimeoutsOnly = 4,
    /// Stopped by SIGHUP (128 + 1); scratch copies and children were cleaned up.
    HungUp = 129,
    /// Interrupted by Ctrl-C (SIGINT, 128 + 2); scratch copies and children were cleaned up.
    Interrupted = 130,
    /// Stopped by SIGTERM (128 + 15); scratch copies and children were cleaned up.
    Terminated = 143,
}

impl Exit {
    /// The exit status after a run stopped for `signal` (the shell's 128 + n); Ctrl-C's when the
    /// signal is unknown.
    pub(crate) fn interrupted_by(signal: Option<i32>) -> Exit {
        match signal {
            Some(libc::SIGHUP) => Exit::HungUp,
            Some(libc::SIGTERM) => Exit::Terminated,
            _ => Exit::Interrupted,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}
