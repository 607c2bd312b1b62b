//! The engine: copy the workspace, build and test the unmutated copy (the baseline), then for
//! each mutant splice it into the scratch copy (`strategy`), build, test and record the outcome. Workers each
//! own a scratch copy and a build folder; every child runs under `process::run`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::mutate::outcome::{Baseline, MAX_RAN, MutantResult, Outcome, test_names};
use crate::mutate::output;
use crate::mutate::scratch::{self, Scratch};
use crate::mutate::strategy::{splice, unsplice};
use crate::operators::mutant::Mutant;
use crate::sys::process::{self, Ended};

/// How mutants become builds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum EngineKind {
    /// Compile once: runtime mutants switched in one instrumented build, tests selected by
    /// reach (`mutate::once`); the rest rebuilt.
    #[default]
    Switch,
    /// One rebuild and the whole test suite per mutant.
    Rebuild,
}

/// Which tool runs the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TestTool {
    #[default]
    Cargo,
    Nextest,
}

#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) engine: EngineKind,
    /// Target roots of the selected packages, relative to the workspace root (where the switch
    /// module goes).
    pub(crate) roots: Vec<String>,
    pub(crate) jobs: usize,
    /// Whether doctests run (`--no-doctests` turns them off).
    pub(crate) doctests: bool,
    pub(crate) test_tool: TestTool,
    /// Timeouts are max(multiplier x baseline, floor), for the build and the tests separately.
    pub(crate) timeout_multiplier: f64,
    pub(crate) timeout_floor: Duration,
    /// The bound on each of the baseline's test runs (its builds get `BASELINE_TIMEOUT`).
    pub(crate) baseline_timeout: Duration,
    /// Build folders of the scratch copies, one per job, kept between runs so builds stay warm.
    pub(crate) build_dir: PathBuf,
    /// Where scratch copies are made (the system temp folder when `None`).
    pub(crate) scratch_parent: Option<PathBuf>,
    /// The user's target folder, never copied.
    pub(crate) target_dir: PathBuf,
    /// Package selection for cargo, valid in the scratch copy's root.
    pub(crate) cargo_args: Vec<String>,
    pub(crate) log_dir: PathBuf,
    /// One JSON line per finished mutant, appended as each finishes, so an interrupted run keeps
    /// its verdicts.
    pub(crate) verdicts: PathBuf,
    /// The verdicts file already holds a resumed run's verdicts: append to it.
    pub(crate) verdicts_kept: bool,
    /// The fingerprint of the workspace's code the verdicts are given on (`--resume` keeps a
    /// verdict only for the same code: a test added since may kill a survivor).
    pub(crate) tree: String,
}

/// Progress, for the caller to print.
pub(crate) enum Event<'a> {
    /// A scratch copy a killed earlier run left was removed (no report would say so).
    RemovedStale(&'a crate::mutate::scratch::Stale),
    /// A phase before the mutants begins.
    Phase(Phase),
    /// `--resume` found verdicts given on other code: every mutant runs again.
    ResumeStale(usize),
    /// The first scratch copy left these links out (to a FIFO, socket or device), each with why.
    LeftOut(&'a [String]),
    Baseline(&'a Baseline),
    /// A mutant starts (several may run at once).
    Started {
        mutant: &'a Mutant,
        done: usize,
        total: usize,
    },
    Done {
        done: usize,
        total: usize,
        result: &'a MutantResult,
    },
}

/// The phases of a run before its mutants, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Copying the workspace into a scratch folder.
    Copy,
    /// Building the instrumented copy (the compile-once engine).
    Build,
    /// Building (rebuild engine) and testing the unmutated copy.
    Baseline,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Copy => "copy the workspace",
            Phase::Build => "build the instrumented copy",
            Phase::Baseline => "baseline: build and test the unmutated copy",
        }
    }
}

/// Counts the mutants that finished and tells the caller of each one's start and end.
pub(crate) struct Tally<'a> {
    done: AtomicUsize,
    total: usize,
    progress: &'a (dyn Fn(Event) + Sync),
}

impl<'a> Tally<'a> {
    pub(crate) fn new(done: usize, total: usize, progress: &'a (dyn Fn(Event) + Sync)) -> Self {
        Tally {
            done: AtomicUsize::new(done),
            total,
            progress,
        }
    }

    pub(crate) fn started(&self, mutant: &Mutant) {
        (self.progress)(Event::Started {
            mutant,
            done: self.done.load(Ordering::SeqCst),
            total: self.total,
        });
    }

    pub(crate) fn finished(&self, result: &MutantResult) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        (self.progress)(Event::Done {
            done,
            total: self.total,
            result,
        });
    }
}

/// Why a run stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    BaselineFailed {
        log: PathBuf,
        step: &'static str,
    },
    /// A baseline test run passed `--baseline-timeout`: the tests with no verdict by then.
    BaselineHung {
        log: PathBuf,
        tests: Vec<String>,
        after: Duration,
    },
    Interrupted,
    Error(anyhow::Error),
}

/// An error after a stop signal is the signal's doing (a child killed mid-step, a copy cut short):
/// the run reports the interruption, not the error.
impl From<anyhow::Error> for Stop {
    fn from(e: anyhow::Error) -> Self {
        if process::interrupted() {
            Stop::Interrupted
        } else {
            Stop::Error(e)
        }
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        anyhow::Error::from(e).into()
    }
}

pub(crate) struct Ran {
    pub(crate) baseline: Baseline,
    pub(crate) results: Vec<MutantResult>,
}

/// The baseline's build may take as long as a cold build of a large workspace; Ctrl-C still
/// works. Its tests are bounded by `--baseline-timeout`.
pub(crate) const BASELINE_TIMEOUT: Duration = Duration::from_secs(3 * 3600);

/// Run every mutant. `pins` says whether a list of failing tests are all capacity pins.
pub(crate) fn run(
    root: &Path,
    mutants: &[Mutant],
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Ran, Stop> {
    if opts.engine == EngineKind::Switch {
        return crate::mutate::once::run(root, mutants, opts, pins, progress);
    }
    start(opts, progress)?;
    rebuild_all(root, mutants, opts, pins, progress)
}

/// What every run does first: the log folder, stale scratch copies of killed runs, the verdicts
/// file.
pub(crate) fn start(opts: &Options, progress: &(dyn Fn(Event) + Sync)) -> Result<(), Stop> {
    std::fs::create_dir_all(&opts.log_dir)?;
    for stale in scratch::clean_stale(opts.scratch_parent.as_deref()) {
        progress(Event::RemovedStale(&stale));
    }
    if !opts.verdicts_kept {
        output::create_new(&opts.verdicts)?;
        write_tree(opts)?;
    }
    Ok(())
}

/// The verdicts file's first line: the fingerprint of the code its verdicts were given on.
pub(crate) fn write_tree(opts: &Options) -> Result<(), Stop> {
    use std::io::Write;
    let line = serde_json::json!({ TREE_KEY: opts.tree }).to_string() + "\n";
    crate::sys::fs::append(&opts.verdicts)?.write_all(line.as_bytes())?;
    Ok(())
}

/// The key of the verdicts file's first line.
pub(crate) const TREE_KEY: &str = "tree";

/// The rebuild engine: baseline, then one build and the whole suite per mutant.
pub(crate) fn rebuild_all(
    root: &Path,
    mutants: &[Mutant],
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Ran, Stop> {
    progress(Event::Phase(Phase::Copy));
    let first = Scratch::copy(root, &opts.target_dir, opts.scratch_parent.as_deref())?;
    if !first.left_out.is_empty() {
        progress(Event::LeftOut(&first.left_out));
    }
    progress(Event::Phase(Phase::Baseline));
    let baseline = baseline(first.root(), &target_of(opts, 0), opts)?;
    progress(Event::Baseline(&baseline));
    if baseline.tests == 0 {
        // Nothing can notice any mutant; say so without building them.
        return Ok(Ran {
            results: mutants
                .iter()
                .map(|m| result(m, Outcome::Uncovered, 0, String::new()))
                .collect(),
            baseline,
        });
    }
    let timeouts = Timeouts {
        build: limit(opts, baseline.build_ms),
        test: limit(opts, baseline.test_ms),
    };
    let jobs = opts.jobs.clamp(1, mutants.len().max(1));
    let mut scratches = vec![first];
    for j in 1..jobs {
        scratches.push(Scratch::copy(
            root,
            &opts.target_dir,
            opts.scratch_parent.as_deref(),
        )?);
        let target = target_of(opts, j);
        if !target.exists() {
            scratch::copy_dir(&target_of(opts, 0), &target)?;
        }
    }
    let next = AtomicUsize::new(0);
    let tally = Tally::new(0, mutants.len(), progress);
    let abort = AtomicBool::new(false);
    let results: Mutex<Vec<Option<MutantResult>>> = Mutex::new(vec![None; mutants.len()]);
    let stops: Mutex<Vec<Stop>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for (j, scratch) in scratches.iter().enumerate() {
            let (next, tally, abort, results, stops) = (&next, &tally, &abort, &results, &stops);
            let timeouts = &timeouts;
            s.spawn(move || {
                let work = || -> Result<(), Stop> {
                    let target = target_of(opts, j);
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= mutants.len() || abort.load(Ordering::SeqCst) {
                            return Ok(());
                        }
                        tally.started(&mutants[i]);
                        let r =
                            run_one(&mutants[i], scratch.root(), &target, opts, timeouts, pins)?;
                        tally.finished(&r);
                        let mut results = results.lock().expect("results lock");
                        record(&opts.verdicts, &r)?;
                        results[i] = Some(r);
                    }
                };
                if let Err(stop) = work() {
                    abort.store(true, Ordering::SeqCst);
                    stops.lock().expect("stops lock").push(stop);
                }
            });
        }
    });
    drop(scratches);
    if process::interrupted() {
        return Err(Stop::Interrupted);
    }
    if let Some(stop) = stops.into_inner().expect("stops lock").into_iter().next() {
        return Err(stop);
    }
    Ok(Ran {
        baseline,
        results: results
            .into_inner()
            .expect("results lock")
            .into_iter()
            .flatten()
            .collect(),
    })
}

pub(crate) struct Timeouts {
    pub(crate) build: Duration,
    pub(crate) test: Duration,
}

pub(crate) fn limit(opts: &Options, baseline_ms: u64) -> Duration {
    Duration::from_millis((baseline_ms as f64 * opts.timeout_multiplier) as u64)
        .max(opts.timeout_floor)
}

fn target_of(opts: &Options, job: usize) -> PathBuf {
    opts.build_dir.join(job.to_string())
}

pub(crate) fn cargo(scratch: &Path, target: &Path, opts: &Options, args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(args)
        .args(&opts.cargo_args)
        .current_dir(scratch)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("CARGO_BUILD_TARGET_DIR");
    cmd
}

fn build_cmd(scratch: &Path, target: &Path, opts: &Options) -> Command {
    cargo(scratch, target, opts, &["test", "--no-run"])
}

fn test_cmd(scratch: &Path, target: &Path, opts: &Options) -> Command {
    match opts.test_tool {
        TestTool::Cargo if !opts.doctests => cargo(
            scratch,
            target,
            opts,
            &["test", "--no-fail-fast", "--tests"],
        ),
        TestTool::Cargo => cargo(scratch, target, opts, &["test", "--no-fail-fast"]),
        TestTool::Nextest => cargo(scratch, target, opts, &["nextest", "run", "--no-fail-fast"]),
    }
}

fn baseline(scratch: &Path, target: &Path, opts: &Options) -> Result<Baseline, Stop> {
    let log = opts.log_dir.join("baseline.log");
    write_log(&log, output::BASELINE_HEADER)?;
    let (ended, build) = process::run(
        &mut build_cmd(scratch, target, opts),
        &log,
        BASELINE_TIMEOUT,
    )?;
    check_baseline(ended, &log, "build")?;
    let before = std::fs::metadata(&log)?.len() as usize;
    let (ended, test) = process::run(
        &mut test_cmd(scratch, target, opts),
        &log,
        opts.baseline_timeout,
    )?;
    if ended == Ended::TimedOut {
        // cargo ran the binaries one after another: the hung test is in the last one it began.
        let text = read_from(&log, before);
        let exe = text
            .lines()
            .rev()
            .find_map(|l| l.trim_start().strip_prefix("Running "))
            .and_then(|l| Some(l[l.rfind('(')? + 1..l.rfind(')')?].to_string()));
        let tests = match exe {
            Some(exe) => {
                let mut list = Command::new(scratch.join(&exe));
                list.current_dir(scratch);
                unfinished(&mut list, &text, &opts.build_dir)
            }
            None => Vec::new(),
        };
        return Err(Stop::BaselineHung {
            log,
            tests,
            after: opts.baseline_timeout,
        });
    }
    check_baseline(ended, &log, "test")?;
    let names = test_names(&read_from(&log, before));
    Ok(Baseline {
        build_ms: build.as_millis() as u64,
        test_ms: test.as_millis() as u64,
        tests: names.passed.len() + names.failed.len(),
        engine: "rebuild".into(),
        ..Baseline::default()
    })
}

fn check_baseline(ended: Ended, log: &Path, step: &'static str) -> Result<(), Stop> {
    match ended {
        Ended::Interrupted => Err(Stop::Interrupted),
        e if e.success() => Ok(()),
        _ => Err(Stop::BaselineFailed {
            log: log.to_path_buf(),
            step,
        }),
    }
}

/// The tests of a test binary (`list`, a command that runs it) that `log` shows no verdict for:
/// those still running when a baseline run timed out. The binary lists its tests
/// (`--list --format terse`) into a file of the build folder `dir`, removed after.
pub(crate) fn unfinished(list: &mut Command, log: &str, dir: &Path) -> Vec<String> {
    let _ = std::fs::create_dir_all(dir);
    let listing = dir.join("list.log");
    let _ = std::fs::remove_file(&listing);
    list.args(["--list", "--format", "terse"]);
    let listed = write_log(&listing, "")
        .and_then(|()| process::run(list, &listing, Duration::from_secs(60)))
        .ok()
        .filter(|(ended, _)| ended.success())
        .map(|_| std::fs::read_to_string(&listing).unwrap_or_default())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&listing);
    let done = test_names(log);
    listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .filter(|n| !done.passed.iter().chain(&done.failed).any(|d| d == n))
        .map(str::to_string)
        .collect()
}

/// A log file's name for a mutant id.
pub(crate) fn log_name(id: &str) -> String {
    format!("{}.log", file_stem(id))
}

/// A mutant id as a file name's stem (its log's, its diff's).
pub(crate) fn file_stem(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The head of a mutant's log.
pub(crate) fn mutant_header(m: &Mutant) -> String {
    format!(
        "{}{}\nat: {}:{}:{}\nin: {}\nchange: {}\nreplaced: {}\nwith: {}\n\n",
        output::MUTANT_HEADER,
        m.id,
        m.file,
        m.line,
        m.column,
        m.function,
        m.description,
        m.original,
        m.replacement
    )
}

pub(crate) fn run_one(
    m: &Mutant,
    scratch: &Path,
    target: &Path,
    opts: &Options,
    timeouts: &Timeouts,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
) -> Result<MutantResult, Stop> {
    let name = log_name(&m.id);
    let log = opts.log_dir.join(&name);
    write_log(&log, &mutant_header(m))?;
    let start = Instant::now();
    splice(scratch, m)?;
    let tested = (|| -> Result<(Outcome, usize), Stop> {
        let (ended, _) = process::run(&mut build_cmd(scratch, target, opts), &log, timeouts.build)?;
        match ended {
            Ended::Interrupted => return Err(Stop::Interrupted),
            Ended::TimedOut => return Ok((Outcome::Timeout, 0)),
            e if !e.success() => return Ok((Outcome::Unviable, 0)),
            _ => {}
        }
        let before = std::fs::metadata(&log)?.len() as usize;
        let (ended, _) = process::run(&mut test_cmd(scratch, target, opts), &log, timeouts.test)?;
        Ok(match ended {
            Ended::Interrupted => return Err(Stop::Interrupted),
            Ended::TimedOut => (Outcome::Timeout, before),
            e if e.success() => (Outcome::Survived, before),
            _ => (Outcome::Killed, before),
        })
    })();
    unsplice(scratch, m)?;
    let (outcome, test_output_at) = tested?;
    let mut r = result(m, outcome, start.elapsed().as_millis() as u64, name);
    if matches!(
        outcome,
        Outcome::Killed | Outcome::Survived | Outcome::Timeout
    ) {
        let mut names = test_names(&read_from(&log, test_output_at));
        // By name: parallel tests finish in any order, the report must not.
        names.passed.sort();
        names.failed.sort();
        r.tests_run = names.passed.len() + names.failed.len();
        if outcome == Outcome::Survived {
            r.ran = names.passed.into_iter().take(MAX_RAN).collect();
        }
        if outcome == Outcome::Killed {
            r.killed_only_by_pins = !names.failed.is_empty() && pins(&names.failed);
        }
        r.killed_by = names.failed;
    }
    Ok(r)
}

/// Start a new log with `text`, never through a symlink nor over a file the tool did not write.
pub(crate) fn write_log(log: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    output::create_new(log)?.write_all(text.as_bytes())
}

pub(crate) fn result(m: &Mutant, outcome: Outcome, duration_ms: u64, log: String) -> MutantResult {
    MutantResult {
        mutant: m.clone(),
        outcome,
        duration_ms,
        killed_by: Vec::new(),
        tests_run: 0,
        ran: Vec::new(),
        killed_only_by_pins: false,
        explanation: None,
        next_step: None,
        log: if log.is_empty() {
            log
        } else {
            format!("logs/{log}")
        },
        engine: "rebuild".into(),
    }
}

/// Append one finished verdict to the verdicts file (callers hold the results lock, so lines
/// never interleave).
pub(crate) fn record(verdicts: &Path, r: &MutantResult) -> Result<(), Stop> {
    use std::io::Write;
    let mut line = serde_json::to_string(r).map_err(anyhow::Error::from)?;
    line.push('\n');
    crate::sys::fs::append(verdicts)?.write_all(line.as_bytes())?;
    Ok(())
}

fn read_from(log: &Path, at: usize) -> String {
    let bytes = std::fs::read(log).unwrap_or_default();
    String::from_utf8_lossy(bytes.get(at..).unwrap_or_default()).into_owned()
}
