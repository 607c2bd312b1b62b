//! Child processes: each in its own process group, killed as a group on timeout or Ctrl-C, so a
//! test binary that cargo started never outlives the run. Ctrl-C only sets a flag; the wait loop
//! polls it, so one Ctrl-C is enough and cleanup always runs.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How often the wait loop looks at the child, the clock and the Ctrl-C flag.
const POLL: Duration = Duration::from_millis(50);
/// How long a group gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// Route Ctrl-C (SIGINT) to the flag. Idempotent.
pub fn install_interrupt_handler() -> anyhow::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Interrupted,
}

impl Ended {
    pub fn success(self) -> bool {
        matches!(self, Ended::Exited(s) if s.success())
    }
}

/// Run `cmd` in its own process group with stdout and stderr appended to `log`, until it exits,
/// `timeout` passes, or Ctrl-C. On timeout or Ctrl-C the whole group is killed and reaped.
pub fn run(cmd: &mut Command, log: &Path, timeout: Duration) -> std::io::Result<(Ended, Duration)> {
    let out = File::options().create(true).append(true).open(log)?;
    let err = out.try_clone()?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let start = Instant::now();
    if interrupted() {
        return Ok((Ended::Interrupted, start.elapsed()));
    }
    let mut child = cmd.spawn()?;
    loop {
        if let Some(status) = child.try_wait()? {
            // The leader is gone; anything it left in its group goes too.
            kill_group(&child, libc::SIGKILL);
            return Ok((Ended::Exited(status), start.elapsed()));
        }
        let ended = if interrupted() {
            Some(Ended::Interrupted)
        } else if start.elapsed() > timeout {
            Some(Ended::TimedOut)
        } else {
            None
        };
        if let Some(ended) = ended {
            terminate(&mut child)?;
            return Ok((ended, start.elapsed()));
        }
        std::thread::sleep(POLL);
    }
}

/// SIGTERM the group, give it a moment, SIGKILL what is left, reap the leader.
fn terminate(child: &mut Child) -> std::io::Result<()> {
    kill_group(child, libc::SIGTERM);
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline && child.try_wait()?.is_none() {
        std::thread::sleep(POLL);
    }
    kill_group(child, libc::SIGKILL);
    child.wait()?;
    Ok(())
}

fn kill_group(child: &Child, signal: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: killpg only sends a signal; the group id is the child's pid because it was spawned
    // with `process_group(0)`. A group that no longer exists gives ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid, signal);
    }
}
