//! The compile-once engine. One instrumented build (`switch`) serves every runtime mutant;
//! a traced baseline records which tests reach which sites; each mutant then runs only the
//! tests that reach it, fastest first (the fast ones one process each, the rest of each binary
//! in one process: see `groups`), stopping at the first failure that is not a capacity pin. Mutants the switch cannot hold (const contexts, macro bodies, sites
//! rustc rejects in switched form) go through the rebuild path afterwards, on the original text.
//!
//! Outcome policy:
//! - no test (unit, integration or doc) reaches the site in the traced baseline: `uncovered`,
//!   nothing runs;
//! - a reaching test fails: `killed` (`killed_by` lists the failures seen before the first one
//!   that is not a pin; after a pin failure the rest keep running, so `killed_only_by_pins` is
//!   exact);
//! - a test runs past its own limit (its baseline time times the multiplier, at least the floor),
//!   or falls silent that long: `timeout`;
//! - a test aborts on an allocation past the memory ceiling: `oom`;
//! - every reaching test passes: `survived`;
//! - a test whose two baseline runs disagree is flaky: it never kills, and is listed; so is a
//!   test that fails with a mutant in place and again, right after, without it (`confirmed`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::mutate::engine::{self, Event, Options, Ran, Stop};
use crate::mutate::outcome::{Baseline, MAX_RAN, MutantResult, Outcome, test_names};
use crate::mutate::scratch::Scratch;
use crate::mutate::switch::{self, ErrorSpan, Plan};
use crate::operators::mutant::Mutant;
use crate::sys::process::{self, Ended, Limits};

/// How many times the instrumented build is redone without what rustc rejected.
const ROUNDS: usize = 4;
/// The baseline may take as long as a cold build of a large workspace; Ctrl-C still works.
const BASELINE_TIMEOUT: Duration = Duration::from_secs(3 * 3600);
/// The memory ceiling: this many times the baseline's largest test, and never below the floor.
const MEMORY_FACTOR: u64 = 8;
const MEMORY_FLOOR: u64 = 2 << 30;
/// At most this many mutants per job run at once, when their tests mostly wait (see `Load`).
const MAX_OVERLAP: usize = 4;
/// The least processor demand a mutant's run is counted at, in processors.
const MIN_DEMAND: f64 = 1.0 / MAX_OVERLAP as f64;

/// A test binary of the instrumented build.
#[derive(Debug, Clone)]
struct Binary {
    exe: PathBuf,
    /// `cargo test` runs a binary in its package's folder.
    cwd: PathBuf,
    env: Vec<(String, String)>,
}

/// One test: a test of a binary, or all doctests of the selection together.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Test {
    Case { binary: usize, name: String },
    Doc,
}

/// What the traced baseline knows about one test.
#[derive(Debug, Clone)]
struct Traced {
    test: Test,
    ms: u64,
    /// Processor time of its traced run (user and system, every thread): far below `ms`, the
    /// test mostly waits.
    cpu_ms: u64,
    /// The sites it reached.
    sites: BTreeSet<u32>,
}

/// One test's traced baseline run: its index in the cases, whether it passed, its wall and
/// processor milliseconds, its peak memory in KiB.
type TracedRun = (usize, bool, u64, u64, u64);

/// Everything the mutant runs need from the baseline.
struct Suite {
    binaries: Vec<Binary>,
    tests: Vec<Traced>,
    flaky: BTreeSet<Test>,
    /// Tests that failed again with no mutant active right after "killing" one: flaky too, from
    /// then on.
    suspect: Mutex<BTreeSet<Test>>,
    memory: Option<u64>,
    /// How many doctests the doctest group holds (0 when none ran).
    doctests: usize,
    /// The baseline times of the tests the switched mutants ran, summed (what they take one
    /// after another; a group in libtest's threads takes less).
    selected_ms: std::sync::atomic::AtomicU64,
}

pub(crate) fn run(
    root: &Path,
    mutants: &[Mutant],
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Ran, Stop> {
    engine::start(opts, progress)?;
    let scratch = Scratch::copy(root, &opts.target_dir, opts.scratch_parent.as_deref())?;
    let target = opts.build_dir.join("0");
    let log = opts.log_dir.join("baseline.log");
    engine::write_log(&log, crate::mutate::output::BASELINE_HEADER)?;
    let original = |rel: &str| std::fs::read_to_string(root.join(rel)).ok();
    let mut results: Vec<Option<MutantResult>> = vec![None; mutants.len()];
    let mut rebuild: BTreeSet<usize> = BTreeSet::new();
    let mut written: BTreeSet<String> = BTreeSet::new();
    // Instrument and build, withdrawing what rustc rejects.
    let mut built = None;
    let mut build_ms = 0;
    for round in 0.. {
        let plan = switch::plan(mutants, &original, &rebuild, &opts.roots);
        write_plan(scratch.root(), &plan, &original, &mut written)?;
        let started = Instant::now();
        let b = build(scratch.root(), &target, opts, &log)?;
        build_ms = started.elapsed().as_millis() as u64;
        if b.ok {
            built = Some((plan, b.binaries, b.has_lib));
            break;
        }
        let mut blame = switch::attribute(&plan, &b.errors);
        // A build that failed with no error rustc placed (a linker, a build script): nothing to
        // withdraw.
        blame.elsewhere |= b.errors.iter().all(Vec::is_empty);
        let progress_made = !blame.unviable.is_empty() || !blame.rebuild.is_empty();
        if plan.switched() == 0 {
            // The original fails to build: the baseline fails.
            return Err(Stop::BaselineFailed { log, step: "build" });
        }
        for &i in &blame.unviable {
            results[i] = Some(engine::result(
                &mutants[i],
                Outcome::Unviable,
                0,
                String::new(),
            ));
            rebuild.insert(i);
        }
        rebuild.extend(&blame.rebuild);
        if blame.elsewhere || !progress_made || round + 1 >= ROUNDS {
            // What rustc rejects is not any one site's: everything takes the rebuild path.
            append(
                &log,
                "\ncapcheck: the instrumented build failed where no mutant's switch explains it \
                 (or rounds ran out); every remaining mutant takes the rebuild path\n",
            )?;
            rebuild.extend(0..mutants.len());
            let plan = switch::plan(mutants, &original, &rebuild, &opts.roots);
            write_plan(scratch.root(), &plan, &original, &mut written)?;
            let started = Instant::now();
            let b = build(scratch.root(), &target, opts, &log)?;
            build_ms = started.elapsed().as_millis() as u64;
            if !b.ok {
                return Err(Stop::BaselineFailed { log, step: "build" });
            }
            built = Some((plan, b.binaries, b.has_lib));
            break;
        }
        append(
            &log,
            &format!(
                "\ncapcheck: rustc rejected {} switched mutant(s) in their own code (unviable) and \
                 the switch of {} more (rebuilt one by one instead); building again\n",
                blame.unviable.len(),
                blame.rebuild.len()
            ),
        )?;
    }
    let (plan, binaries, has_lib) = built.expect("the loop ends with a build");
    if plan.switched() == 0 {
        // Nothing is switched: no reach to trace, every mutant is rebuilt (the rebuild engine,
        // on a copy of the original), after the verdicts rustc already gave.
        drop(scratch);
        // The rebuild engine writes its own baseline log; this one holds the build that found
        // nothing to switch.
        std::fs::rename(&log, opts.log_dir.join("switch-build.log"))?;
        let rest: Vec<Mutant> = mutants
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.is_none())
            .map(|(m, _)| m.clone())
            .collect();
        let given: Vec<MutantResult> = results.into_iter().flatten().collect();
        for r in &given {
            engine::record(&opts.verdicts, r)?;
        }
        let mut ran = engine::rebuild_all(root, &rest, opts, pins, progress)?;
        ran.results.extend(given);
        return Ok(ran);
    }
    let suite = baseline(
        scratch.root(),
        &target,
        opts,
        &log,
        binaries,
        has_lib,
        &plan,
    )?;
    let test_ms: u64 = suite.tests.iter().map(|t| t.ms).sum();
    let mut baseline = Baseline {
        build_ms,
        test_ms,
        // Doctests one by one, as the rebuild path counts them.
        tests: suite
            .tests
            .iter()
            .filter(|t| matches!(t.test, Test::Case { .. }))
            .count()
            + suite.doctests,
        engine: "switch".into(),
        switched: plan.switched(),
        flaky: suite.flaky.iter().map(name_of).collect(),
        selected_test_ms: 0,
    };
    progress(Event::Baseline(&baseline));
    if suite.tests.is_empty() {
        // Nothing can notice any mutant; say so without running them.
        for (i, m) in mutants.iter().enumerate() {
            results[i]
                .get_or_insert_with(|| engine::result(m, Outcome::Uncovered, 0, String::new()));
        }
    }
    let total = mutants.len();
    let done = AtomicUsize::new(results.iter().flatten().count());
    for r in results.iter().flatten() {
        engine::record(&opts.verdicts, r)?;
    }
    let finished = |r: &MutantResult| {
        let d = done.fetch_add(1, Ordering::SeqCst) + 1;
        progress(Event::Done {
            done: d,
            total,
            result: r,
        });
    };
    // Switched mutants, in parallel: they share the one build.
    let switched: Vec<usize> = (0..mutants.len())
        .filter(|&i| plan.switches[i].is_some() && results[i].is_none())
        .collect();
    let next = AtomicUsize::new(0);
    let shared: Mutex<&mut Vec<Option<MutantResult>>> = Mutex::new(&mut results);
    let stops: Mutex<Vec<Stop>> = Mutex::new(Vec::new());
    let load = Load::new(opts.jobs.max(1));
    let workers = (opts.jobs.max(1) * MAX_OVERLAP).min(switched.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let work = || -> Result<(), Stop> {
                    loop {
                        let n = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&i) = switched.get(n) else {
                            return Ok(());
                        };
                        if !stops.lock().expect("stops lock").is_empty() {
                            return Ok(());
                        }
                        let sw = plan.switches[i].expect("switched");
                        let Some(_claim) = load.claim(demand(&suite, sw.site)) else {
                            return Ok(());
                        };
                        let r = run_switched(
                            &mutants[i],
                            sw,
                            scratch.root(),
                            &target,
                            &suite,
                            opts,
                            pins,
                        )?;
                        finished(&r);
                        let mut results = shared.lock().expect("results lock");
                        engine::record(&opts.verdicts, &r)?;
                        results[i] = Some(r);
                    }
                };
                if let Err(stop) = work() {
                    stops.lock().expect("stops lock").push(stop);
                }
            });
        }
    });
    if process::interrupted() {
        return Err(Stop::Interrupted);
    }
    if let Some(stop) = stops.into_inner().expect("stops lock").into_iter().next() {
        return Err(stop);
    }
    let suspect = suite.suspect.lock().expect("suspect lock").clone();
    baseline.flaky.extend(suspect.iter().map(name_of));
    baseline.flaky.sort();
    baseline.flaky.dedup();
    // The rebuild path, on the original text.
    let rest: Vec<usize> = (0..mutants.len())
        .filter(|&i| results[i].is_none())
        .collect();
    if !rest.is_empty() {
        write_plan(scratch.root(), &Plan::default(), &original, &mut written)?;
        let timeouts = engine::Timeouts {
            build: engine::limit(opts, build_ms),
            test: engine::limit(opts, test_ms),
        };
        for i in rest {
            let r = engine::run_one(&mutants[i], scratch.root(), &target, opts, &timeouts, pins)?;
            finished(&r);
            engine::record(&opts.verdicts, &r)?;
            results[i] = Some(r);
        }
    }
    drop(scratch);
    baseline.selected_test_ms = suite.selected_ms.load(Ordering::Relaxed);
    Ok(Ran {
        baseline,
        results: results.into_iter().flatten().collect(),
    })
}

/// Write the plan's files into the scratch copy, and put back the original of every file
/// `written` says an earlier plan instrumented and this one does not.
fn write_plan(
    scratch: &Path,
    plan: &Plan,
    original: &dyn Fn(&str) -> Option<String>,
    written: &mut BTreeSet<String>,
) -> std::io::Result<()> {
    for rel in written.iter().filter(|rel| !plan.files.contains_key(*rel)) {
        if let Some(text) = original(rel) {
            std::fs::write(scratch.join(rel), text)?;
        }
    }
    written.clear();
    for (rel, f) in &plan.files {
        std::fs::write(scratch.join(rel), &f.text)?;
        written.insert(rel.clone());
    }
    Ok(())
}

fn append(log: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    crate::sys::fs::append(log)?.write_all(text.as_bytes())
}

struct Build {
    ok: bool,
    /// A selected package has a library (so doctests may exist).
    has_lib: bool,
    binaries: Vec<Binary>,
    errors: Vec<Vec<ErrorSpan>>,
}

/// `cargo test --no-run` with JSON messages: the test binaries, or the errors' spans.
fn build(scratch: &Path, target: &Path, opts: &Options, log: &Path) -> Result<Build, Stop> {
    let json = target.join("capcheck-build.json");
    if let Some(dir) = json.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _ = std::fs::remove_file(&json);
    let mut cmd = engine::cargo(
        scratch,
        target,
        opts,
        &["test", "--no-run", "--message-format", "json"],
    );
    cmd.stdout(std::fs::File::create(&json)?);
    let ran = process::run_split(&mut cmd, log, BASELINE_TIMEOUT)?;
    if ran == Ended::Interrupted {
        return Err(Stop::Interrupted);
    }
    let text = std::fs::read(&json)?;
    let mut out = Build {
        ok: ran.success(),
        has_lib: false,
        binaries: Vec::new(),
        errors: Vec::new(),
    };
    let mut rendered = String::new();
    for msg in cargo_metadata::Message::parse_stream(text.as_slice()).flatten() {
        match msg {
            cargo_metadata::Message::CompilerArtifact(a)
                if !a.profile.test && a.manifest_path.starts_with(scratch) =>
            {
                out.has_lib |= a.target.is_lib();
            }
            cargo_metadata::Message::CompilerArtifact(a) if a.profile.test => {
                if let Some(exe) = a.executable {
                    let cwd = a
                        .manifest_path
                        .parent()
                        .map(|p| p.as_std_path().to_path_buf())
                        .unwrap_or_else(|| scratch.to_path_buf());
                    out.binaries.push(Binary {
                        exe: exe.into_std_path_buf(),
                        env: package_env(&a.package_id.repr, &a.target.name, &cwd, target),
                        cwd,
                    });
                }
            }
            cargo_metadata::Message::CompilerMessage(m) => {
                if let Some(r) = &m.message.rendered {
                    rendered.push_str(r);
                }
                if m.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error {
                    out.errors.push(spans(scratch, &m.message));
                }
            }
            _ => {}
        }
    }
    append(log, &rendered)?;
    Ok(out)
}

/// The primary spans of an error (where rustc says it is, not the labels that explain it), with
/// the call sites of macro expansions, as workspace-relative files.
fn spans(scratch: &Path, d: &cargo_metadata::diagnostic::Diagnostic) -> Vec<ErrorSpan> {
    let mut out = Vec::new();
    let mut todo: Vec<&cargo_metadata::diagnostic::DiagnosticSpan> =
        d.spans.iter().filter(|s| s.is_primary).collect();
    while let Some(s) = todo.pop() {
        let path = Path::new(&s.file_name);
        let rel = path
            .strip_prefix(scratch)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        out.push(ErrorSpan {
            file: rel,
            bytes: s.byte_start as usize..s.byte_end as usize,
        });
        if let Some(e) = &s.expansion {
            todo.push(&e.span);
        }
    }
    out
}

/// The environment `cargo test` gives a test binary at run time.
fn package_env(
    package_id: &str,
    target: &str,
    dir: &Path,
    target_dir: &Path,
) -> Vec<(String, String)> {
    // `path+file:///..#name@1.2.3` or `path+file:///../name#1.2.3`.
    let tail = package_id.rsplit('#').next().unwrap_or("");
    let (name, version) = match tail.split_once('@') {
        Some((n, v)) => (n.to_string(), v.to_string()),
        None => (
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            tail.to_string(),
        ),
    };
    let mut env = vec![
        ("CARGO_MANIFEST_DIR".to_string(), dir.display().to_string()),
        ("CARGO_PKG_NAME".to_string(), name),
        ("CARGO_CRATE_NAME".to_string(), target.replace('-', "_")),
        ("CARGO_PKG_VERSION".to_string(), version.clone()),
    ];
    let mut parts = version.split(['.', '-']);
    for key in ["MAJOR", "MINOR", "PATCH"] {
        env.push((
            format!("CARGO_PKG_VERSION_{key}"),
            parts.next().unwrap_or("").to_string(),
        ));
    }
    if let Some(cargo) = std::env::var_os("CARGO") {
        env.push(("CARGO".into(), cargo.to_string_lossy().into_owned()));
    }
    let deps = target_dir.join("debug").join("deps");
    let lib_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", deps.display()),
        _ => deps.display().to_string(),
    };
    env.push(("LD_LIBRARY_PATH".into(), lib_path));
    env
}

fn test_cmd(b: &Binary, args: &[&str]) -> Command {
    let mut cmd = Command::new(&b.exe);
    cmd.args(args)
        .current_dir(&b.cwd)
        .envs(b.env.iter().map(|(k, v)| (k, v)))
        .env_remove(switch::HITS_ENV)
        .env(switch::ENV, "0");
    cmd
}

/// Run the whole suite twice: once per binary as a whole (the verdicts), once test by test with
/// the reach recorded (the verdicts again, the times, the sites). Doctests run as one group.
fn baseline(
    scratch: &Path,
    target: &Path,
    opts: &Options,
    log: &Path,
    binaries: Vec<Binary>,
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
    let hits_of = |n: usize| reach.join(format!("{n}.hits"));
    let doc_hits = reach.join("doc.hits");
    // How many doctests ran, whether they all passed, and the run's time.
    let doc = |hits: Option<&Path>, own: &Path| -> Result<(usize, bool, u64), Stop> {
        let mut cmd = engine::cargo(scratch, target, opts, &["test", "--doc"]);
        cmd.env(switch::ENV, "0");
        match hits {
            Some(h) => cmd.env(switch::HITS_ENV, h),
            None => cmd.env_remove(switch::HITS_ENV),
        };
        engine::write_log(own, "")?;
        let (ended, took) = process::run(&mut cmd, own, BASELINE_TIMEOUT)?;
        if ended == Ended::Interrupted {
            return Err(Stop::Interrupted);
        }
        let names = test_names(&read_from(own, 0));
        let count = names.passed.len() + names.failed.len();
        Ok((count, ended.success(), took.as_millis() as u64))
    };
    // `Some((doctests, first run passed, second run passed, second run's time))` when there are
    // doctests.
    let doc_runs = || -> Result<Option<(usize, bool, bool, u64)>, Stop> {
        let (count, ok, _) = doc(None, &doc_logs[0])?;
        if count == 0 {
            return Ok(None);
        }
        let (_, again, ms) = doc(Some(&doc_hits), &doc_logs[1])?;
        Ok(Some((count, ok, again, ms)))
    };
    let (cases_run, doc_run) = std::thread::scope(|s| {
        let doc_thread = (has_lib && opts.doctests).then(|| s.spawn(doc_runs));
        let cases_run = (|| -> Result<_, Stop> {
            // First run: each binary whole, in parallel threads as `cargo test` would.
            let mut first: BTreeMap<Test, bool> = BTreeMap::new();
            let mut cases: Vec<Test> = Vec::new();
            for (bi, b) in binaries.iter().enumerate() {
                let before = len(log);
                let (ended, _) = process::run(&mut test_cmd(b, &[]), log, BASELINE_TIMEOUT)?;
                if ended == Ended::Interrupted {
                    return Err(Stop::Interrupted);
                }
                let names = test_names(&read_from(log, before));
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
            // Second run: test by test, traced.
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
                            let mut cmd = test_cmd(
                                &binaries[*binary],
                                &["--exact", name, "--test-threads", "1"],
                            );
                            cmd.env(switch::HITS_ENV, hits_of(n));
                            let one = reach.join(format!("{n}.log"));
                            let ran = engine::write_log(&one, "").and_then(|()| {
                                process::run_limited(
                                    &mut cmd,
                                    &one,
                                    &Limits::time(BASELINE_TIMEOUT),
                                )
                            });
                            match ran {
                                Ok(r) if r.ended == Ended::Interrupted => {
                                    *stop.lock().expect("stop lock") = Some(Stop::Interrupted);
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
    let (first, cases, traced) = cases_run?;
    let doc_run = doc_run?;
    let mut tests = Vec::new();
    let mut flaky = BTreeSet::new();
    let mut peak = 0u64;
    let mut traced = traced.into_inner().expect("traced lock");
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
            sites: read_hits(&hits_of(n), plan.sites),
            test: t,
            ms,
            cpu_ms,
        });
    }
    let mut doctests = 0;
    if let Some((count, ok, again, ms)) = doc_run {
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
            cpu_ms: ms,
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

/// The failures of a group that are the mutant's: each failing test runs again with no mutant
/// active, and one that fails again is flaky (it joins `suite.suspect` and kills nothing).
/// Doctests are not run again (a `cargo test --doc` costs seconds).
fn confirmed(
    group: &[&Traced],
    bad: Vec<String>,
    suite: &Suite,
    opts: &Options,
    log: &Path,
) -> Result<Vec<String>, Stop> {
    let mut kept = Vec::new();
    for name in bad {
        let found = group.iter().find_map(|t| match &t.test {
            Test::Case { binary, name: n } if *n == name => Some((t, *binary)),
            _ => None,
        });
        let Some((t, binary)) = found else {
            kept.push(name);
            continue;
        };
        append(
            log,
            &format!("\ncapcheck: `{name}` again, with no mutant active:\n"),
        )?;
        let mut cmd = test_cmd(&suite.binaries[binary], &["--exact", &name]);
        // The mutant's limits but the time: a failure at the memory ceiling without the mutant
        // is the ceiling's, not the mutant's.
        let limits = Limits {
            memory: suite.memory,
            ..Limits::time(engine::limit(opts, t.ms.saturating_mul(4)))
        };
        match process::run_limited(&mut cmd, log, &limits)?.ended {
            Ended::Interrupted => return Err(Stop::Interrupted),
            e if e.success() => kept.push(name),
            _ => {
                append(
                    log,
                    &format!(
                        "\ncapcheck: `{name}` fails without the mutant too: flaky, it kills nothing\n"
                    ),
                )?;
                suite
                    .suspect
                    .lock()
                    .expect("suspect lock")
                    .insert(t.test.clone());
            }
        }
    }
    Ok(kept)
}

/// The runs of one mutant's reaching tests (in the suite's order, fastest first): the first test
/// and every test under 100 ms alone, one process each (a kill is found at the first failing
/// test, for a few milliseconds of process start each); then the rest of each binary in one
/// process, in libtest's threads as `cargo test` runs them (a survivor pays the slowest test, not
/// the sum); doctests last, as one group.
fn groups<'t>(reaching: &[&'t Traced]) -> Vec<Vec<&'t Traced>> {
    let mut out: Vec<Vec<&Traced>> = Vec::new();
    let mut by_binary: BTreeMap<usize, Vec<&Traced>> = BTreeMap::new();
    let mut doc = Vec::new();
    for (i, t) in reaching.iter().enumerate() {
        match &t.test {
            Test::Case { .. } if i == 0 || decade(t.ms) == 0 => out.push(vec![*t]),
            Test::Case { binary, .. } => by_binary.entry(*binary).or_default().push(*t),
            Test::Doc => doc.push(*t),
        }
    }
    out.extend(by_binary.into_values());
    if !doc.is_empty() {
        out.push(doc);
    }
    out
}

/// 0 below 100 ms, 1 below 1 s, 2 below 10 s, and so on.
fn decade(ms: u64) -> u32 {
    (ms.max(1) as f64 / 10.0).log10().max(0.0).floor() as u32
}

fn name_of(t: &Test) -> String {
    match t {
        Test::Case { name, .. } => name.clone(),
        Test::Doc => "doctests".into(),
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

fn len(log: &Path) -> usize {
    std::fs::metadata(log).map_or(0, |m| m.len() as usize)
}

fn read_from(log: &Path, at: usize) -> String {
    let bytes = std::fs::read(log).unwrap_or_default();
    String::from_utf8_lossy(bytes.get(at..).unwrap_or_default()).into_owned()
}

/// The processors of this machine, as libtest counts its threads (one when it cannot tell).
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The tests that reach `site` and may kill: neither flaky nor suspect.
fn reaching(suite: &Suite, site: u32) -> Vec<&Traced> {
    let suspect = suite.suspect.lock().expect("suspect lock");
    suite
        .tests
        .iter()
        .filter(|t| t.sites.contains(&site))
        .filter(|t| !suite.flaky.contains(&t.test) && !suspect.contains(&t.test))
        .collect()
}

/// The processors a mutant's run keeps busy, estimated from its reaching tests' baseline: their
/// processor time over the slowest one's wall time (a binary's tests share one process, and a
/// survivor waits for the slowest), between `MIN_DEMAND` and the whole machine. Doctests count
/// as the whole machine (rustdoc compiles them).
fn demand(suite: &Suite, site: u32) -> f64 {
    let threads = threads() as f64;
    let reaching = reaching(suite, site);
    if reaching.iter().any(|t| t.test == Test::Doc) {
        return threads;
    }
    let cpu: u64 = reaching.iter().map(|t| t.cpu_ms).sum();
    let wall = reaching.iter().map(|t| t.ms).max().unwrap_or(0).max(1);
    (cpu as f64 / wall as f64).clamp(MIN_DEMAND, threads)
}

/// The processors the running mutants keep busy, against the budget of `--jobs`. A run starts
/// when its demand fits, or when nothing else runs: mutants whose tests wait on timers or
/// sockets run several per job (up to `MAX_OVERLAP`), mutants whose tests compute one per job.
struct Load {
    budget: f64,
    used: Mutex<f64>,
    freed: std::sync::Condvar,
}

/// A running mutant's share of `Load`, given back when dropped.
struct Claim<'l> {
    load: &'l Load,
    demand: f64,
}

impl Load {
    fn new(jobs: usize) -> Load {
        Load {
            budget: jobs as f64,
            used: Mutex::new(0.0),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Wait until `demand` fits; `None` when interrupted meanwhile.
    fn claim(&self, demand: f64) -> Option<Claim<'_>> {
        let mut used = self.used.lock().expect("load lock");
        while *used > 0.0 && *used + demand > self.budget + 1e-9 {
            if process::interrupted() {
                return None;
            }
            used = self
                .freed
                .wait_timeout(used, Duration::from_millis(100))
                .expect("load lock")
                .0;
        }
        *used += demand;
        Some(Claim { load: self, demand })
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut used = self.load.used.lock().expect("load lock");
        *used = (*used - self.demand).max(0.0);
        self.load.freed.notify_all();
    }
}

/// Run one switched mutant: the tests that reach its site, fastest first.
fn run_switched(
    m: &Mutant,
    sw: switch::Switch,
    scratch: &Path,
    target: &Path,
    suite: &Suite,
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
) -> Result<MutantResult, Stop> {
    let start = Instant::now();
    let reaching = reaching(suite, sw.site);
    if reaching.is_empty() {
        return Ok(engine::result(m, Outcome::Uncovered, 0, String::new()));
    }
    let name = engine::log_name(&m.id);
    let log = opts.log_dir.join(&name);
    engine::write_log(&log, &engine::mutant_header(m))?;
    let mut outcome = Outcome::Survived;
    let (mut passed, mut failed) = (Vec::new(), Vec::new());
    let mut run = 0;
    for group in groups(&reaching) {
        let ms: Vec<u64> = group.iter().map(|t| t.ms).collect();
        let (mut cmd, memory, names) = match &group[0].test {
            Test::Doc => (
                engine::cargo(scratch, target, opts, &["test", "--doc"]),
                None,
                Vec::new(),
            ),
            Test::Case { binary, .. } => {
                let names: Vec<String> = group.iter().map(|t| name_of(&t.test)).collect();
                let mut args = vec!["--exact"];
                args.extend(names.iter().map(String::as_str));
                // Tests of one process share its memory, as many at once as libtest's threads.
                let threads = threads();
                let memory = suite
                    .memory
                    .map(|m| m * group.len().clamp(1, threads) as u64);
                (test_cmd(&suite.binaries[*binary], &args), memory, names)
            }
        };
        cmd.env(switch::ENV, sw.number.to_string());
        let before = len(&log);
        let limits = Limits {
            timeout: engine::limit(opts, ms.iter().sum()),
            silence: Some(engine::limit(opts, ms.iter().copied().max().unwrap_or(0))),
            memory,
        };
        let ended = process::run_limited(&mut cmd, &log, &limits)?.ended;
        let out = read_from(&log, before);
        let oom = memory.is_some() && out.contains("memory allocation of");
        let seen = test_names(&out);
        // A test binary that aborts names no failure: every test of it that did not pass.
        let (ok, bad) = if names.is_empty() {
            (seen.passed, seen.failed)
        } else {
            let bad: Vec<String> = names
                .iter()
                .filter(|n| !seen.passed.contains(n))
                .cloned()
                .collect();
            (seen.passed, bad)
        };
        run += group.len();
        suite
            .selected_ms
            .fetch_add(ms.iter().sum(), Ordering::Relaxed);
        match ended {
            Ended::Interrupted => return Err(Stop::Interrupted),
            Ended::TimedOut => {
                outcome = Outcome::Timeout;
                break;
            }
            e if e.success() => passed.extend(ok),
            _ if oom => {
                outcome = Outcome::Oom;
                break;
            }
            _ => {
                passed.extend(ok);
                let bad = confirmed(&group, bad, suite, opts, &log)?;
                if bad.is_empty() {
                    continue;
                }
                outcome = Outcome::Killed;
                let pin = pins(&bad);
                failed.extend(bad);
                if !pin {
                    break;
                }
            }
        }
    }
    let mut r = engine::result(m, outcome, start.elapsed().as_millis() as u64, name);
    r.tests_run = run;
    // By name: a group's tests finish in any order, the report must not.
    passed.sort();
    failed.sort();
    if outcome == Outcome::Survived {
        r.ran = passed.into_iter().take(MAX_RAN).collect();
    }
    if outcome == Outcome::Killed {
        r.killed_only_by_pins = pins(&failed);
    }
    r.killed_by = failed;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(binary: usize, name: &str, ms: u64, cpu_ms: u64, sites: &[u32]) -> Traced {
        Traced {
            test: Test::Case {
                binary,
                name: name.into(),
            },
            ms,
            cpu_ms,
            sites: sites.iter().copied().collect(),
        }
    }

    fn suite(tests: Vec<Traced>) -> Suite {
        Suite {
            binaries: Vec::new(),
            tests,
            flaky: BTreeSet::new(),
            suspect: Mutex::new(BTreeSet::new()),
            memory: None,
            doctests: 0,
            selected_ms: Default::default(),
        }
    }

    #[test]
    fn decades_of_baseline_time() {
        for (ms, want) in [(0, 0), (99, 0), (100, 1), (999, 1), (1_000, 2), (25_000, 3)] {
            assert_eq!(decade(ms), want, "{ms} ms");
        }
    }

    #[test]
    fn the_first_and_the_fast_tests_run_alone_the_rest_per_binary_and_doctests_last() {
        let tests = [
            case(0, "first", 500, 1, &[]),
            case(1, "fast", 5, 1, &[]),
            case(0, "a", 2_000, 1, &[]),
            case(1, "b", 3_000, 1, &[]),
            case(0, "c", 4_000, 1, &[]),
            Traced {
                test: Test::Doc,
                ms: 9_000,
                cpu_ms: 9_000,
                sites: BTreeSet::new(),
            },
        ];
        let reaching: Vec<&Traced> = tests.iter().collect();
        let names: Vec<Vec<String>> = groups(&reaching)
            .iter()
            .map(|g| g.iter().map(|t| name_of(&t.test)).collect())
            .collect();
        assert_eq!(
            names,
            [
                vec!["first"],
                vec!["fast"],
                vec!["a", "c"],
                vec!["b"],
                vec!["doctests"]
            ]
        );
    }

    #[test]
    fn demand_is_processor_time_over_the_slowest_wall_and_leaves_out_flaky_tests() {
        let threads = threads() as f64;
        let mut s = suite(vec![
            // Waits: 10 s of wall for 100 ms of processor.
            case(0, "sleeps", 10_000, 100, &[1, 2]),
            // Computes on one processor.
            case(0, "computes", 2_000, 2_000, &[2]),
            case(0, "flaky", 1_000, 50_000, &[1]),
        ]);
        s.flaky.insert(s.tests[2].test.clone());
        assert_eq!(demand(&s, 1), MIN_DEMAND, "the floor, flaky left out");
        assert!((demand(&s, 2) - (2_100.0 / 10_000.0f64).max(MIN_DEMAND)).abs() < 1e-9);
        s.tests.push(Traced {
            test: Test::Doc,
            ms: 1,
            cpu_ms: 1,
            sites: [3].into_iter().collect(),
        });
        assert_eq!(demand(&s, 3), threads, "doctests count as the machine");
        s.tests.push(case(1, "threads", 1_000, 64_000, &[4]));
        assert_eq!(demand(&s, 4), threads, "at most the machine");
    }

    #[test]
    fn load_admits_runs_while_their_demand_fits_and_one_run_always() {
        let load = Load::new(1);
        let held: Vec<Claim> = (0..4).map(|_| load.claim(0.25).expect("fits")).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                let c = load.claim(0.25).expect("fits once one is given back");
                tx.send(()).expect("send");
                drop(c);
            });
            assert!(
                rx.recv_timeout(Duration::from_millis(300)).is_err(),
                "a fifth quarter waits while four are held"
            );
            drop(held);
            rx.recv_timeout(Duration::from_secs(5))
                .expect("admitted once the others are given back");
        });
        // A run heavier than the whole budget still runs when nothing else does.
        let big = load.claim(8.0).expect("alone it runs");
        drop(big);
        assert_eq!(*load.used.lock().unwrap(), 0.0);
    }
}
