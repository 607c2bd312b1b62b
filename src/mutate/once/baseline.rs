//! The traced baseline: the whole suite twice, once per binary as a whole (the verdicts) and
//! once test by test with the reach recorded (the verdicts again, the times, the sites), doctests
//! as one group beside them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::build::test_cmd;
use super::switched::decade;
use super::{
    Binary, MEMORY_FACTOR, MEMORY_FLOOR, Suite, Test, Traced, TracedRun, append, len, name_of,
    read_from,
};
use crate::mutate::engine::{self, Options, Stop};
use crate::mutate::outcome::test_names;
use crate::mutate::switch::{self, Plan};
use crate::sys::process::{self, Ended, Limits};

/// Run the whole suite twice: once per binary as a whole (the verdicts), once test by test with
/// the reach recorded (the verdicts again, the times, the sites). Doctests run as one group.
pub(super) fn run(
    scratch: &Path,
    target: &Path,
    opts: &Options,
    log: &Path,
    mut binaries: Vec<Binary>,
    has_lib: bool,
    plan: &Plan,
) -> Result<Suite, Stop> {
    let reach = opts.build_dir.join("reach");
    let _ = std::fs::remove_dir_all(&reach);
    std::fs::create_dir_all(&reach)?;
    // Doctests: both runs one after the other in a thread of their own, each in its own log,
    // alongside the binaries' runs (rustdoc compiles while test binaries often wait); their logs
    // join the baseline log once everything ran.
    let doc_logs = [reach.join("doc-1.log"), reach.join("doc-2.log")];
    let doc_hits = reach.join("doc.hits");
    let doc = Doctests {
        scratch,
        target,
        opts,
    };
    let doc_runs = || doc.twice(&doc_logs, &doc_hits);
    let (cases_run, doc_run) = std::thread::scope(|s| {
        let doc_thread = (has_lib && opts.doctests).then(|| s.spawn(doc_runs));
        let cases_run = (|| -> Result<_, Stop> {
            let (first, cases) = first_runs(&mut binaries, log, opts)?;
            let traced = traced_runs(&binaries, &cases, &reach, opts)?;
            Ok((first, cases, traced))
        })();
        let doc_run = match doc_thread {
            Some(h) => h.join().expect("doctest thread"),
            None => Ok(None),
        };
        (cases_run, doc_run)
    });
    for own in &doc_logs {
        if let Ok(text) = std::fs::read_to_string(own) {
            append(log, &text)?;
        }
    }
    let (first, cases, mut traced) = cases_run?;
    let doc_run = doc_run?;
    let mut tests = Vec::new();
    let mut flaky = BTreeSet::new();
    let mut peak = 0u64;
    traced.sort();
    for (n, ok, ms, cpu_ms, kib) in traced {
        let t = cases[n].clone();
        let was = first.get(&t).copied().unwrap_or(ok);
        if ok != was {
            flaky.insert(t.clone());
        } else if !ok {
            append(
                log,
                &format!(
                    "\ncapcheck: test `{}` failed in both baseline runs\n",
                    name_of(&t)
                ),
            )?;
            return Err(Stop::BaselineFailed {
                log: log.to_path_buf(),
                step: "test",
            });
        }
        peak = peak.max(kib);
        tests.push(Traced {
            sites: read_hits(&hits_of(&reach, n), plan.sites),
            test: t,
            ms,
            cpu_ms,
        });
    }
    let mut doctests = 0;
    if let Some((count, ok, again, ms, cpu_ms)) = doc_run {
        doctests = count;
        if ok != again {
            flaky.insert(Test::Doc);
        } else if !ok {
            return Err(Stop::BaselineFailed {
                log: log.to_path_buf(),
                step: "test",
            });
        }
        tests.push(Traced {
            test: Test::Doc,
            ms,
            cpu_ms,
            sites: read_hits(&doc_hits, plan.sites),
        });
    }
    for t in &flaky {
        append(
            log,
            &format!(
                "\ncapcheck: `{}` is flaky (the two baseline runs disagree): it kills no mutant\n",
                name_of(t)
            ),
        )?;
    }
    // Fastest first, by decade of baseline time, then by name: a killer is found soon, and the
    // order (so `killed_by` and `tests_run`) does not change with a run's timing noise.
    tests.sort_by_key(|t| (decade(t.ms), t.test.clone()));
    Ok(Suite {
        binaries,
        tests,
        flaky,
        suspect: Mutex::new(BTreeSet::new()),
        selected_ms: Default::default(),
        memory: (peak > 0).then(|| (peak * 1024 * MEMORY_FACTOR).max(MEMORY_FLOOR)),
        doctests,
    })
}

/// A baseline test run that passed `--baseline-timeout`, with the tests it left unfinished.
fn hung(log: &Path, tests: Vec<String>, opts: &Options) -> Stop {
    Stop::BaselineHung {
        log: log.to_path_buf(),
        tests,
        after: opts.baseline_timeout,
    }
}

/// Where the traced run of case `n` records the sites it reached.
fn hits_of(reach: &Path, n: usize) -> std::path::PathBuf {
    reach.join(format!("{n}.hits"))
}

/// The first baseline run: each binary whole, as `cargo test` runs it; every test's verdict, and
/// the tests in the order they were found.
fn first_runs(
    binaries: &mut [Binary],
    log: &Path,
    opts: &Options,
) -> Result<(BTreeMap<Test, bool>, Vec<Test>), Stop> {
    let mut first: BTreeMap<Test, bool> = BTreeMap::new();
    let mut cases: Vec<Test> = Vec::new();
    for (bi, b) in binaries.iter_mut().enumerate() {
        let before = len(log);
        let (ended, _) = process::run(&mut test_cmd(b, &[]), log, opts.baseline_timeout)?;
        if ended == Ended::Interrupted {
            return Err(Stop::Interrupted);
        }
        if ended == Ended::TimedOut {
            let tests = engine::unfinished(
                &mut test_cmd(b, &[]),
                &read_from(log, before),
                &opts.build_dir,
            );
            return Err(hung(log, tests, opts));
        }
        let out = read_from(log, before);
        if !libtest_report(&out) {
            // `harness = false`: the binary's `main` is the test, its exit status the verdict.
            b.custom = true;
            let t = Test::Case {
                binary: bi,
                name: b.whole(),
            };
            first.insert(t.clone(), ended.success());
            cases.push(t);
            continue;
        }
        let names = test_names(&out);
        for (name, ok) in names
            .passed
            .iter()
            .map(|n| (n, true))
            .chain(names.failed.iter().map(|n| (n, false)))
        {
            let t = Test::Case {
                binary: bi,
                name: name.clone(),
            };
            first.insert(t.clone(), ok);
            cases.push(t);
        }
        if names.passed.is_empty() && names.failed.is_empty() && !ended.success() {
            return Err(Stop::BaselineFailed {
                log: log.to_path_buf(),
                step: "test",
            });
        }
    }
    Ok((first, cases))
}

/// Whether a test binary's output is libtest's: `running N tests` and the `test result:` line.
fn libtest_report(out: &str) -> bool {
    out.lines()
        .any(|l| crate::mutate::outcome::libtest_running(l.trim()))
        && out.lines().any(|l| l.trim().starts_with("test result: "))
}

/// The second baseline run: test by test, each in its own process with the reach recorded, on
/// `--jobs` threads.
fn traced_runs(
    binaries: &[Binary],
    cases: &[Test],
    reach: &Path,
    opts: &Options,
) -> Result<Vec<TracedRun>, Stop> {
    let traced: Mutex<Vec<TracedRun>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let stop: Mutex<Option<Stop>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.clamp(1, cases.len().max(1)) {
            s.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    let Some(Test::Case { binary, name }) = cases.get(n) else {
                        return;
                    };
                    let b = &binaries[*binary];
                    let one_name = [name.clone()];
                    // capcheck: allow(unmeasured-capacity, reason = "one test per process, alone, so that its hits are its own: a design, not a tuned capacity")
                    let mut cmd = test_cmd(b, &b.args(&one_name, &["--test-threads", "1"]));
                    cmd.env(switch::HITS_ENV, hits_of(reach, n));
                    let one = reach.join(format!("{n}.log"));
                    let ran = engine::write_log(&one, "").and_then(|()| {
                        process::run_limited(&mut cmd, &one, &Limits::time(opts.baseline_timeout))
                    });
                    match ran {
                        Ok(r) if r.ended == Ended::Interrupted => {
                            *stop.lock().expect("stop lock") = Some(Stop::Interrupted);
                            return;
                        }
                        Ok(r) if r.ended == Ended::TimedOut => {
                            *stop.lock().expect("stop lock") =
                                Some(hung(&one, vec![name.clone()], opts));
                            return;
                        }
                        Ok(r) => traced.lock().expect("traced lock").push((
                            n,
                            r.ended.success(),
                            r.took.as_millis() as u64,
                            r.cpu.as_millis() as u64,
                            r.peak_kib,
                        )),
                        Err(e) => {
                            *stop.lock().expect("stop lock") = Some(e.into());
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(s) = stop.into_inner().expect("stop lock") {
        return Err(s);
    }
    Ok(traced.into_inner().expect("traced lock"))
}

/// The doctests of the selection, run by `cargo test --doc` (rustdoc compiles them).
struct Doctests<'a> {
    scratch: &'a Path,
    target: &'a Path,
    opts: &'a Options,
}

/// The doctests' baseline: how many, whether each run passed, the traced run's wall and
/// processor milliseconds.
type DocRun = (usize, bool, bool, u64, u64);

impl Doctests<'_> {
    /// One run: how many doctests ran, whether they all passed, the run's time and its
    /// processor time (rustdoc's compiles and the doctests', every process cargo waited for).
    fn once(&self, hits: Option<&Path>, own: &Path) -> Result<(usize, bool, u64, u64), Stop> {
        let mut cmd = engine::cargo(self.scratch, self.target, self.opts, &["test", "--doc"]);
        cmd.env(switch::ENV, "0");
        match hits {
            Some(h) => cmd.env(switch::HITS_ENV, h),
            None => cmd.env_remove(switch::HITS_ENV),
        };
        engine::write_log(own, "")?;
        let ran = process::run_limited(
            &mut cmd,
            own,
            &process::Limits::time(self.opts.baseline_timeout),
        )?;
        let (ended, took) = (ran.ended, ran.took);
        if ended == Ended::Interrupted {
            return Err(Stop::Interrupted);
        }
        if ended == Ended::TimedOut {
            return Err(hung(own, vec!["doctests".into()], self.opts));
        }
        let names = test_names(&read_from(own, 0));
        let count = names.passed.len() + names.failed.len();
        Ok((
            count,
            ended.success(),
            took.as_millis() as u64,
            ran.cpu.as_millis() as u64,
        ))
    }

    /// Both runs, the second traced: `Some((doctests, first run passed, second run passed,
    /// second run's time, its processor time))` when there are doctests.
    fn twice(&self, logs: &[std::path::PathBuf; 2], hits: &Path) -> Result<Option<DocRun>, Stop> {
        let (count, ok, _, _) = self.once(None, &logs[0])?;
        if count == 0 {
            return Ok(None);
        }
        let (_, again, ms, cpu_ms) = self.once(Some(hits), &logs[1])?;
        Ok(Some((count, ok, again, ms, cpu_ms)))
    }
}

fn read_hits(path: &Path, sites: usize) -> BTreeSet<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<u32>().ok())
        .filter(|&s| (s as usize) < sites)
        .collect()
}
