//! Child processes: each in its own process group, killed as a group on timeout or on a signal,
//! so a test binary that cargo started never outlives the run. SIGINT, SIGTERM and SIGHUP only
//! record which signal came (signal-hook); the wait loop polls it, so one signal is enough and
//! cleanup always runs. A second signal ends the tool at once (the next run cleans what it left,
//! see `scratch::clean_stale` and [`end_orphans_of_dead_runs`]).
//!
//! What leaves the group (a test's daemon that calls `setsid`, or forks twice) is still found:
//! every child carries [`TAG`] in its environment (`pid:start-time:run:scope`), which all it starts
//! inherits, and on Linux the tool is the child subreaper of what it starts
//! (`PR_SET_CHILD_SUBREAPER`: an orphan is reparented to us, not to init). When a child's run
//! ends, every process that carries its tag is killed ([`end_strays`]) and those reparented to
//! us are reaped; at the end of a job, every process with our tag or our pid as parent.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The signal that asked the run to stop (0: none yet).
static SIGNAL: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal; a second one then gets the default action (the tool ends).
static ARMED: AtomicBool = AtomicBool::new(false);

/// The environment variable every child of a run carries: `pid:start-time:run:scope` (the tool's
/// pid and start time, the run's number, the folder its scratch copies go in; see [`set_scope`]).
pub(crate) const TAG: &str = "CAPCHECK_OWNER";
/// The scope of this process's tags: the folder its scratch copies go in (empty: not set).
static SCOPE: OnceLock<String> = OnceLock::new();
/// The number of the next child run, for its tag.
static NEXT_RUN: AtomicUsize = AtomicUsize::new(1);

/// How often the wait loop looks at the child, the clock and the signal flag.
const POLL: Duration = Duration::from_millis(50);
/// How long a group gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// The signals that stop a run: Ctrl-C, `kill`/`timeout`/`docker stop`/CI cancellation, and a
/// closed terminal.
pub(crate) const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Set once the handlers are installed (`Ok`) or failed to be.
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Whether the stop signals are routed to the flag (else they end the tool at once, and a child
/// in our own process group, which a terminal's Ctrl-C reaches, is the safer place).
fn handled() -> bool {
    INSTALLED.get().is_some_and(Result::is_ok)
}

/// Route SIGINT, SIGTERM and SIGHUP to the flag. Idempotent.
pub(crate) fn install_interrupt_handler() -> anyhow::Result<()> {
    INSTALLED
        .get_or_init(|| {
            STOP_SIGNALS
                .iter()
                .try_for_each(|&sig| {
                    // The order matters: the conditional default sees the flag the first signal
                    // has not set yet.
                    signal_hook::flag::register_conditional_default(sig, &ARMED)?;
                    signal_hook::flag::register(sig, &ARMED)?;
                    signal_hook::flag::register_usize(sig, &SIGNAL, sig as usize)?;
                    Ok::<_, std::io::Error>(())
                })
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| anyhow::anyhow!("cannot install the signal handlers: {e}"))
}

/// A child of ours died of a stop signal (Ctrl-C reached the whole process group): count it as
/// received here, whether or not our handler has run yet. Only the handler arms the default
/// action for a second signal: our own copy of this one may still be on its way.
pub(crate) fn note_stop(signal: libc::c_int) {
    if STOP_SIGNALS.contains(&signal) {
        SIGNAL.store(signal as usize, Ordering::SeqCst);
    }
}

/// Set by `request_stop`: the run stops as on a signal, though none came.
static STOP: AtomicBool = AtomicBool::new(false);

/// Ask the run to stop at its next poll, as a stop signal would (children ended, scratch copies
/// removed), without a signal: the caller (a lost stderr) decides the exit code.
pub(crate) fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

pub(crate) fn interrupted() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0 || STOP.load(Ordering::SeqCst)
}

/// The signal that stopped the run, if one did.
pub(crate) fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => i32::try_from(s).ok(),
    }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Interrupted,
}

impl Ended {
    pub(crate) fn success(self) -> bool {
        matches!(self, Ended::Exited(s) if s.success())
    }
}

/// Run `cmd` in its own process group with stdout and stderr appended to `log`, until it exits,
/// `timeout` passes, or a stop signal. On timeout or a signal the whole group is killed and reaped.
pub(crate) fn run(
    cmd: &mut Command,
    log: &Path,
    timeout: Duration,
) -> std::io::Result<(Ended, Duration)> {
    let ran = run_limited(cmd, log, &Limits::time(timeout))?;
    Ok((ran.ended, ran.took))
}

/// Like `run`, for a command whose stdout the caller has set (a file of JSON messages): only
/// stderr goes to `log`.
pub(crate) fn run_split(
    cmd: &mut Command,
    log: &Path,
    timeout: Duration,
) -> std::io::Result<Ended> {
    let err = crate::sys::fs::append(log)?;
    cmd.stdin(Stdio::null()).stderr(err).process_group(0);
    wait(cmd, log, &Limits::time(timeout)).map(|r| r.ended)
}

/// Run `cmd` (a short query such as `cargo metadata`) with its stdout and stderr captured, until
/// it exits or a stop signal comes (then it is ended, with all it started, within `GRACE`): the
/// same tag and stray cleanup as every other child. With the stop signals handled the child gets
/// a process group of its own (we end it on a signal); without, it stays in ours, where a
/// terminal's Ctrl-C reaches it as it reaches us.
pub(crate) fn output(cmd: &mut Command) -> std::io::Result<(Ended, std::process::Output)> {
    use std::io::Read;
    become_subreaper();
    let own_group = handled();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if own_group {
        cmd.process_group(0);
    }
    let run = NEXT_RUN.fetch_add(1, Ordering::SeqCst);
    cmd.env(TAG, tag(run));
    if interrupted() {
        return Ok((Ended::Interrupted, empty_output()));
    }
    let mut child = spawn(cmd)?;
    let leader = child.id();
    // Each drain says when its pipe is closed: a child that closed its stdout is about to exit.
    let (closed, on_close) = std::sync::mpsc::channel::<()>();
    let drain = |pipe: Option<Box<dyn Read + Send>>,
                 closed: Option<std::sync::mpsc::Sender<()>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            if let Some(c) = closed {
                let _ = c.send(());
            }
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        Some(closed),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        None,
    );
    // A short query ends in tens of milliseconds: the loop wakes when its stdout closes, else
    // soon at first, then at `POLL` (`cargo metadata` on the bench corpus: 52 ms of `check`'s
    // wall time at a fixed 50 ms poll, 22 ms with the first looks soon).
    let mut pause = Duration::from_millis(1);
    let mut stdout_open = true;
    let ended = loop {
        if let Some(status) = child.try_wait()? {
            break Ended::Exited(status);
        }
        if interrupted() {
            if own_group {
                terminate(&mut child)?;
            } else {
                let _ = child.kill();
                child.wait()?;
            }
            break Ended::Interrupted;
        }
        if stdout_open {
            match on_close.recv_timeout(pause) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => pause = (pause * 2).min(POLL),
                _ => {
                    stdout_open = false;
                    pause = Duration::from_millis(1);
                }
            }
        } else {
            std::thread::sleep(pause);
            pause = (pause * 2).min(POLL);
        }
    };
    done(leader);
    end_strays(Some(run));
    let status = match ended {
        Ended::Exited(s) => s,
        _ => std::os::unix::process::ExitStatusExt::from_raw(0),
    };
    Ok((
        ended,
        std::process::Output {
            status,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        },
    ))
}

fn empty_output() -> std::process::Output {
    std::process::Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(0),
        stdout: Vec::new(),
        stderr: Vec::new(),
    }
}

/// What a child may use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Wall time from the start.
    pub(crate) timeout: Duration,
    /// Time without a byte of output: a hung child is told from a slow one by its silence.
    pub(crate) silence: Option<Duration>,
    /// Bytes of data (heap and other private writable memory, `RLIMIT_DATA`): an allocation past
    /// it fails, and Rust aborts with `memory allocation of N bytes failed`.
    pub(crate) memory: Option<u64>,
}

impl Limits {
    pub(crate) fn time(timeout: Duration) -> Limits {
        Limits {
            timeout,
            silence: None,
            memory: None,
        }
    }
}

/// How a limited run ended, how long it took, the processor time it used and its peak resident
/// memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ran {
    pub(crate) ended: Ended,
    pub(crate) took: Duration,
    /// User and system time of the child and the children it waited for (zero when unknown):
    /// far below `took`, the run mostly waited (timers, sockets), not computed.
    pub(crate) cpu: Duration,
    /// Peak resident set of the child, in KiB (0 when unknown).
    pub(crate) peak_kib: u64,
}

/// `run` with a silence limit and a memory ceiling, reporting the child's peak memory.
pub(crate) fn run_limited(cmd: &mut Command, log: &Path, limits: &Limits) -> std::io::Result<Ran> {
    let out = crate::sys::fs::append(log)?;
    let err = out.try_clone()?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    wait(cmd, log, limits)
}

/// Spawn the prepared command and wait for it within `limits`.
fn wait(cmd: &mut Command, log: &Path, limits: &Limits) -> std::io::Result<Ran> {
    if let Some(bytes) = limits.memory {
        let limit = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: bytes as libc::rlim_t,
        };
        // No core file either: an abort at the ceiling would write one as large.
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: setrlimit is async-signal-safe and only changes the child's own limits.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0
                    || libc::setrlimit(libc::RLIMIT_CORE, &no_core) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let start = Instant::now();
    if interrupted() {
        return Ok(Ran {
            ended: Ended::Interrupted,
            took: start.elapsed(),
            cpu: Duration::ZERO,
            peak_kib: 0,
        });
    }
    let run = NEXT_RUN.fetch_add(1, Ordering::SeqCst);
    cmd.env(TAG, tag(run));
    let child = spawn(cmd)?;
    let leader = child.id();
    let ran = watch(child, log, limits, start);
    done(leader);
    // Whatever the run left outside its group (a daemon), wherever it was reparented.
    end_strays(Some(run));
    ran
}

/// The direct children being waited for (their leaders' pids): never reaped by `end_strays`.
/// Held while a child is spawned and while `end_strays` looks and reaps, so a child that exits
/// the moment it starts is never taken for an orphan.
static ACTIVE: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

fn lock_active() -> std::sync::MutexGuard<'static, Vec<u32>> {
    ACTIVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Spawn `cmd` and count it among the children being waited for, in one step.
fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    let mut all = lock_active();
    let child = cmd.spawn()?;
    all.push(child.id());
    Ok(child)
}

/// The child `pid` was reaped: no longer one being waited for.
fn done(pid: u32) {
    lock_active().retain(|&p| p != pid);
}

/// This process as a tag's owner: `pid:start-time`.
fn owner() -> String {
    let me = std::process::id();
    format!("{me}:{}", start_time(me).unwrap_or(0))
}

/// The tag of run `run` of this process.
fn tag(run: usize) -> String {
    format!(
        "{}:{run}:{}",
        owner(),
        SCOPE.get().map_or("", String::as_str)
    )
}

/// Scope this process's tags to `scratch_parent`, the folder its scratch copies go in, before the
/// first child starts: [`end_orphans_of_dead_runs`] then ends only what dead runs of the same
/// folder left, as `scratch::clean_stale` removes only their copies. Every run that keeps the
/// default (the system temp folder) shares one scope; runs given their own `--scratch-dir`
/// (separate CI jobs, tests run side by side) leave each other's leftovers to their own next run.
/// The first call wins.
pub(crate) fn set_scope(scratch_parent: &Path) {
    let dir = std::fs::canonicalize(scratch_parent).unwrap_or_else(|_| scratch_parent.into());
    let _ = SCOPE.set(dir.to_string_lossy().into_owned());
}

/// Make this process the child subreaper of what it starts (Linux: an orphaned descendant is
/// reparented to us, so [`end_strays`] finds it by its parent too). Idempotent; elsewhere a
/// no-op (the tag still finds them).
pub(crate) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_CHILD_SUBREAPER only changes how this process's orphans are reparented.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// One process of /proc: its pid, parent, state and the tag in its environment (`None` when it
/// has none or cannot be read: another user's, a zombie).
struct Proc {
    pid: libc::pid_t,
    ppid: libc::pid_t,
    zombie: bool,
    tag: Option<String>,
}

/// Every process /proc shows but this one.
fn procs() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id();
    let prefix = format!("{TAG}=");
    let mut out = Vec::new();
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // After the command name (in parentheses, maybe with spaces): state, ppid.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let zombie = fields.next() == Some("Z");
        let Some(ppid) = fields.next().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let tag = std::fs::read(e.path().join("environ"))
            .ok()
            .and_then(|env| {
                env.split(|&b| b == 0)
                    .find_map(|kv| kv.strip_prefix(prefix.as_bytes()))
                    .map(|v| String::from_utf8_lossy(v).into_owned())
            });
        out.push(Proc {
            pid: libc::pid_t::try_from(pid).unwrap_or(0),
            ppid,
            zombie,
            tag,
        });
    }
    out
}

/// End what a child run left behind: every process that carries run `run`'s tag (`None`: any
/// run of ours, and every process reparented to us that is not a child being waited for), by
/// SIGKILL, repeated until none is left (a fork between two looks is found by the next); those
/// reparented to us are reaped. Returns how many were killed.
pub(crate) fn end_strays(run: Option<usize>) -> usize {
    let me = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
    let ours = match run {
        Some(r) => tag(r),
        None => format!("{}:", owner()),
    };
    let mut killed = std::collections::HashSet::new();
    for _ in 0..100 {
        let waited = lock_active();
        let busy = |p: &Proc| waited.contains(&u32::try_from(p.pid).unwrap_or(0));
        let mut found = false;
        for p in procs() {
            let tagged = p.tag.as_deref().is_some_and(|t| match run {
                Some(_) => t == ours,
                None => t.starts_with(&ours),
            });
            let orphan = p.ppid == me && !busy(&p) && (run.is_none() || p.zombie);
            if !tagged && !orphan {
                continue;
            }
            if !p.zombie {
                // SAFETY: signals a process this run started (its tag or its parent says so).
                unsafe { libc::kill(p.pid, libc::SIGKILL) };
                killed.insert(p.pid);
                found = true;
            }
            if p.ppid == me && !busy(&p) {
                reap_pid(p.pid);
            }
        }
        drop(waited);
        if !found {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    killed.len()
}

/// Reap our child `pid` (SIGKILLed or already a zombie), waiting a moment at most.
fn reap_pid(pid: libc::pid_t) {
    for _ in 0..100 {
        let mut status = 0;
        // SAFETY: waitpid on one pid of ours, without blocking.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r != 0 {
            return; // reaped, or not ours to reap
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Kill every process whose tag names a run of a tool process that no longer runs (a run killed
/// by SIGKILL, whose children and their daemons ran on: a `cargo metadata`, a test's server), in
/// this process's scope ([`set_scope`]). Returns how many, by the pid of the run that left them.
pub(crate) fn end_orphans_of_dead_runs() -> Vec<(u32, usize)> {
    let ours = SCOPE.get().map_or("", String::as_str);
    let mut by_owner: Vec<(u32, usize)> = Vec::new();
    let mut killed = std::collections::HashSet::new();
    for _ in 0..100 {
        let mut found = false;
        for p in procs() {
            let Some(tag) = &p.tag else { continue };
            // The scope is last and may hold colons; a tag without one (a run that was not
            // scoped) is anyone's to end.
            let mut parts = tag.splitn(4, ':');
            let (Some(Ok(pid)), Some(Ok(started)), _, scope) = (
                parts.next().map(str::parse::<u32>),
                parts.next().map(str::parse::<u64>),
                parts.next(),
                parts.next().unwrap_or(""),
            ) else {
                continue;
            };
            let foreign = !scope.is_empty() && !ours.is_empty() && scope != ours;
            if foreign || alive(pid, started) || p.zombie {
                continue;
            }
            // SAFETY: signals a process a dead run of this tool started (its tag says so).
            unsafe { libc::kill(p.pid, libc::SIGKILL) };
            found = true;
            if !killed.insert(p.pid) {
                continue;
            }
            match by_owner.iter_mut().find(|(o, _)| *o == pid) {
                Some((_, n)) => *n += 1,
                None => by_owner.push((pid, 1)),
            }
        }
        if !found {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    by_owner
}

/// Wait for the spawned `child` within `limits`.
fn watch(mut child: Child, log: &Path, limits: &Limits, start: Instant) -> std::io::Result<Ran> {
    let mut heard = (
        std::fs::metadata(log).map_or(0, |m| m.len()),
        Instant::now(),
    );
    loop {
        if let Some(reaped) = reap(&child)? {
            // The leader is gone; anything it left in its group goes too.
            kill_group(&child, libc::SIGKILL);
            return Ok(Ran {
                ended: Ended::Exited(reaped.status),
                took: start.elapsed(),
                cpu: reaped.cpu,
                peak_kib: reaped.peak_kib,
            });
        }
        let silent = limits.silence.is_some_and(|limit| {
            let len = std::fs::metadata(log).map_or(0, |m| m.len());
            if len != heard.0 {
                heard = (len, Instant::now());
            }
            heard.1.elapsed() > limit
        });
        let ended = if interrupted() {
            Some(Ended::Interrupted)
        } else if start.elapsed() > limits.timeout || silent {
            Some(Ended::TimedOut)
        } else {
            None
        };
        if let Some(ended) = ended {
            terminate(&mut child)?;
            return Ok(Ran {
                ended,
                took: start.elapsed(),
                cpu: Duration::ZERO,
                peak_kib: 0,
            });
        }
        std::thread::sleep(POLL);
    }
}

/// What `wait4` tells of a reaped child.
struct Reaped {
    status: ExitStatus,
    cpu: Duration,
    peak_kib: u64,
}

/// Reap the child if it has exited: its status, processor time and peak resident memory.
fn reap(child: &Child) -> std::io::Result<Option<Reaped>> {
    use std::os::unix::process::ExitStatusExt;
    let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for the reaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child's pid with WNOHANG only reaps that child.
    let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
    match r {
        0 => Ok(None),
        r if r == pid => {
            let time = |t: libc::timeval| {
                Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
                    + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
            };
            Ok(Some(Reaped {
                status: ExitStatus::from_raw(status),
                cpu: time(usage.ru_utime) + time(usage.ru_stime),
                peak_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
            }))
        }
        _ => Err(std::io::Error::last_os_error()),
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

/// The start time of process `pid` (clock ticks since boot, /proc's field 22), to tell a live
/// owner from a new process that reuses its pid. `None` where /proc does not say.
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid`, started at `started` (0: unknown), still runs.
pub(crate) fn alive(pid: u32, started: u64) -> bool {
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let exists = unsafe { libc::kill(id, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && (started == 0 || start_time(pid).is_none_or(|s| s == started))
}

/// SIGKILL the process group of every process whose working folder is inside `dir` (what a
/// killed run left building or testing in its scratch copy); returns how many processes were
/// found. Never our own group. Linux (/proc); elsewhere nothing is found.
pub(crate) fn kill_groups_working_in(dir: &Path) -> usize {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    // SAFETY: getpgrp has no preconditions.
    let own_group = unsafe { libc::getpgrp() };
    let mut found = 0;
    for p in procs.flatten() {
        let Some(pid) = p
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if !std::fs::read_link(p.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&dir)) {
            continue;
        }
        // SAFETY: getpgid and killpg only look up or signal processes. Every child of a run has
        // a group of its own (`process_group(0)`), never ours.
        unsafe {
            let group = libc::getpgid(pid);
            if group > 1 && group != own_group {
                libc::killpg(group, libc::SIGKILL);
                found += 1;
            }
        }
    }
    found
}
