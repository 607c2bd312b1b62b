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

mod baseline;
mod build;
mod switched;
mod tail;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::mutate::engine::{self, Event, Options, Ran, Stop};
use crate::mutate::outcome::{Baseline, MutantResult, Outcome};
use crate::mutate::scratch::Scratch;
use crate::operators::mutant::Mutant;

/// How many times the instrumented build is redone without what rustc rejected.
pub(super) const ROUNDS: usize = 4;
/// The baseline may take as long as a cold build of a large workspace; Ctrl-C still works.
pub(super) const BASELINE_TIMEOUT: Duration = Duration::from_secs(3 * 3600);
/// The memory ceiling: this many times the baseline's largest test, and never below the floor.
pub(super) const MEMORY_FACTOR: u64 = 8;
pub(super) const MEMORY_FLOOR: u64 = 2 << 30;
/// At most this many mutants per job run at once, when their tests mostly wait (see `Load`).
pub(super) const MAX_OVERLAP: usize = 4;
/// The least processor demand a mutant's run is counted at, in processors.
pub(super) const MIN_DEMAND: f64 = 1.0 / MAX_OVERLAP as f64;

/// A test binary of the instrumented build.
#[derive(Debug, Clone)]
pub(super) struct Binary {
    pub(super) exe: PathBuf,
    /// `cargo test` runs a binary in its package's folder.
    pub(super) cwd: PathBuf,
    pub(super) env: Vec<(String, String)>,
    /// The test target's name (`controller` for tests/controller.rs).
    pub(super) target: String,
    /// A target with `harness = false` (found in the baseline: its run prints no libtest
    /// report): its `main` is one test, run whole, passed by its exit status.
    pub(super) custom: bool,
}

impl Binary {
    /// The one test of a `harness = false` binary, as reports name it.
    pub(super) fn whole(&self) -> String {
        format!("{} (harness = false)", self.target)
    }

    /// The arguments that run `names` of this binary: libtest's exact filters, or nothing for a
    /// custom harness (it runs whole).
    pub(super) fn args<'a>(&self, names: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
        if self.custom {
            return Vec::new();
        }
        let mut args = vec!["--exact"];
        args.extend(names.iter().map(String::as_str));
        args.extend_from_slice(extra);
        args
    }
}

/// One test: a test of a binary, or all doctests of the selection together.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Test {
    Case { binary: usize, name: String },
    Doc,
}

/// What the traced baseline knows about one test.
#[derive(Debug, Clone)]
pub(super) struct Traced {
    pub(super) test: Test,
    pub(super) ms: u64,
    /// Processor time of its traced run (user and system, every thread): far below `ms`, the
    /// test mostly waits.
    pub(super) cpu_ms: u64,
    /// The sites it reached.
    pub(super) sites: BTreeSet<u32>,
}

/// One test's traced baseline run: its index in the cases, whether it passed, its wall and
/// processor milliseconds, its peak memory in KiB.
pub(super) type TracedRun = (usize, bool, u64, u64, u64);

/// Everything the mutant runs need from the baseline.
pub(super) struct Suite {
    pub(super) binaries: Vec<Binary>,
    pub(super) tests: Vec<Traced>,
    pub(super) flaky: BTreeSet<Test>,
    /// Tests that failed again with no mutant active right after "killing" one: flaky too, from
    /// then on.
    pub(super) suspect: Mutex<BTreeSet<Test>>,
    pub(super) memory: Option<u64>,
    /// How many doctests the doctest group holds (0 when none ran).
    pub(super) doctests: usize,
    /// The baseline times of the tests the switched mutants ran, summed (what they take one
    /// after another; a group in libtest's threads takes less).
    pub(super) selected_ms: std::sync::atomic::AtomicU64,
}

/// Run `mutants` with the compile-once engine: instrument and build ([`build`]), trace the
/// baseline ([`baseline`]), run the switched mutants ([`switched`]), then what the switch could
/// not hold on the original text ([`tail`]).
pub(crate) fn run(
    root: &Path,
    mutants: &[Mutant],
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Ran, Stop> {
    engine::start(opts, progress)?;
    progress(Event::Phase(engine::Phase::Copy));
    let scratch = Scratch::copy(root, &opts.target_dir, opts.scratch_parent.as_deref())?;
    if !scratch.left_out.is_empty() {
        progress(Event::LeftOut(&scratch.left_out));
    }
    let target = opts.build_dir.join("0");
    let log = opts.log_dir.join("baseline.log");
    engine::write_log(&log, crate::mutate::output::BASELINE_HEADER)?;
    let original = |rel: &str| std::fs::read_to_string(root.join(rel)).ok();
    let mut results: Vec<Option<MutantResult>> = vec![None; mutants.len()];
    let mut sources = build::Sources::new(&original);
    progress(Event::Phase(engine::Phase::Build));
    let built = build::instrumented(
        mutants,
        &mut sources,
        scratch.root(),
        &target,
        opts,
        &log,
        &mut results,
    )?;
    if built.plan.switched() == 0 {
        drop(scratch);
        return tail::rebuild_unswitched(root, mutants, results, opts, &log, pins, progress);
    }
    progress(Event::Phase(engine::Phase::Baseline));
    let suite = baseline::run(
        scratch.root(),
        &target,
        opts,
        &log,
        built.binaries,
        built.has_lib,
        &built.plan,
    )?;
    let test_ms: u64 = suite.tests.iter().map(|t| t.ms).sum();
    let mut baseline = Baseline {
        build_ms: built.build_ms,
        test_ms,
        // Doctests one by one, as the rebuild path counts them.
        tests: suite
            .tests
            .iter()
            .filter(|t| matches!(t.test, Test::Case { .. }))
            .count()
            + suite.doctests,
        engine: "switch".into(),
        switched: built.plan.switched(),
        flaky: suite.flaky.iter().map(name_of).collect(),
        selected_test_ms: 0,
    };
    progress(Event::Baseline(&baseline));
    if suite.tests.is_empty() {
        // Nothing can notice any mutant; say so without running them.
        for (i, m) in mutants.iter().enumerate() {
            results[i].get_or_insert_with(|| MutantResult {
                engine: "switch".into(),
                ..engine::result(m, Outcome::Uncovered, 0, String::new())
            });
        }
    }
    let tally = engine::Tally::new(results.iter().flatten().count(), mutants.len(), progress);
    for r in results.iter().flatten() {
        engine::record(&opts.verdicts, r)?;
    }
    let run = switched::Run {
        mutants,
        plan: &built.plan,
        suite: &suite,
        scratch: scratch.root(),
        target: &target,
        opts,
        pins,
    };
    run.all(&tally, &mut results)?;
    let suspect = suite.suspect.lock().expect("suspect lock").clone();
    baseline.flaky.extend(suspect.iter().map(name_of));
    baseline.flaky.sort();
    baseline.flaky.dedup();
    let timeouts = engine::Timeouts {
        build: engine::limit(opts, built.build_ms),
        test: engine::limit(opts, test_ms),
    };
    tail::rebuild_rest(
        mutants,
        scratch.root(),
        &target,
        opts,
        &mut sources,
        &timeouts,
        pins,
        &tally,
        &mut results,
    )?;
    drop(scratch);
    baseline.selected_test_ms = suite.selected_ms.load(Ordering::Relaxed);
    Ok(Ran {
        baseline,
        results: results.into_iter().flatten().collect(),
    })
}

pub(super) fn name_of(t: &Test) -> String {
    match t {
        Test::Case { name, .. } => name.clone(),
        Test::Doc => "doctests".into(),
    }
}

pub(super) fn len(log: &Path) -> usize {
    std::fs::metadata(log).map_or(0, |m| m.len() as usize)
}

pub(super) fn read_from(log: &Path, at: usize) -> String {
    let bytes = std::fs::read(log).unwrap_or_default();
    String::from_utf8_lossy(bytes.get(at..).unwrap_or_default()).into_owned()
}

pub(super) fn append(log: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    crate::sys::fs::append(log)?.write_all(text.as_bytes())
}
