//! The switched mutants: each runs the tests that reach its site (in `groups`), one build for
//! all, as many at once as their processor demand fits the `--jobs` budget (`Load`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::build::test_cmd;
use super::{MAX_OVERLAP, MIN_DEMAND, Suite, Test, Traced, append, len, name_of, read_from};
use crate::mutate::engine::{self, Options, Stop};
use crate::mutate::outcome::{MAX_RAN, MutantResult, Outcome, test_names};
use crate::mutate::switch::{self, Plan};
use crate::operators::mutant::Mutant;
use crate::sys::process::{self, Ended, Limits};

/// What every switched mutant's run shares.
pub(super) struct Run<'a> {
    pub(super) mutants: &'a [Mutant],
    pub(super) plan: &'a Plan,
    pub(super) suite: &'a Suite,
    pub(super) scratch: &'a Path,
    pub(super) target: &'a Path,
    pub(super) opts: &'a Options,
    pub(super) pins: &'a (dyn Fn(&[String]) -> bool + Sync),
}

impl Run<'_> {
    /// Run every switched mutant without a verdict yet, in parallel: they share the one build.
    /// `tally` hears of each as it starts and ends.
    pub(super) fn all(
        &self,
        tally: &engine::Tally,
        results: &mut Vec<Option<MutantResult>>,
    ) -> Result<(), Stop> {
        let Run {
            mutants,
            plan,
            suite,
            scratch,
            target,
            opts,
            pins,
        } = *self;
        let switched: Vec<usize> = (0..mutants.len())
            .filter(|&i| plan.switches[i].is_some() && results[i].is_none())
            .collect();
        let next = AtomicUsize::new(0);
        let shared: Mutex<&mut Vec<Option<MutantResult>>> = Mutex::new(results);
        let stops: Mutex<Vec<Stop>> = Mutex::new(Vec::new());
        let load = Load::new(opts.jobs.max(1), crate::sys::memory::available());
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
                            let sw = plan.switches[i].as_ref().expect("switched");
                            let claimed = load
                                .claim(demand(suite, &sw.sites), memory_demand(suite, &sw.sites));
                            let Some(_claim) = claimed else {
                                return Ok(());
                            };
                            tally.started(&mutants[i]);
                            let r =
                                run_switched(&mutants[i], sw, scratch, target, suite, opts, pins)?;
                            tally.finished(&r);
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
        match stops.into_inner().expect("stops lock").into_iter().next() {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }
}

/// The failures of a group that are the mutant's: each failing test runs again with no mutant
/// active, and one that fails again is flaky (it joins `suite.suspect` and kills nothing).
/// Doctests are not run again (a `cargo test --doc` costs seconds).
pub(super) fn confirmed(
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
        let b = &suite.binaries[binary];
        let one_name = [name.clone()];
        let mut cmd = test_cmd(b, &b.args(&one_name, &[]));
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
pub(super) fn groups<'t>(reaching: &[&'t Traced]) -> Vec<Vec<&'t Traced>> {
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
pub(super) fn decade(ms: u64) -> u32 {
    (ms.max(1) as f64 / 10.0).log10().max(0.0).floor() as u32
}

/// The processors of this machine, as libtest counts its threads (one when it cannot tell).
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The tests that reach any of `sites` and may kill: neither flaky nor suspect.
pub(super) fn reaching<'s>(suite: &'s Suite, sites: &[u32]) -> Vec<&'s Traced> {
    let suspect = suite.suspect.lock().expect("suspect lock");
    suite
        .tests
        .iter()
        .filter(|t| sites.iter().any(|s| t.sites.contains(s)))
        .filter(|t| !suite.flaky.contains(&t.test) && !suspect.contains(&t.test))
        .collect()
}

/// The processors a mutant's run keeps busy, estimated from its reaching tests' baseline: their
/// processor time over the slowest one's wall time (a binary's tests share one process, and a
/// survivor waits for the slowest), between `MIN_DEMAND` and the whole machine. The doctests
/// count as measured too (rustdoc's compiles and the doctests' runs, as `cargo test --doc` took
/// them in the baseline), or as the whole machine when their processor time is not known.
pub(super) fn demand(suite: &Suite, sites: &[u32]) -> f64 {
    let threads = threads() as f64;
    let reaching = reaching(suite, sites);
    if reaching
        .iter()
        .any(|t| t.test == Test::Doc && t.cpu_ms == 0)
    {
        return threads;
    }
    let cpu: u64 = reaching.iter().map(|t| t.cpu_ms).sum();
    let wall = reaching.iter().map(|t| t.ms).max().unwrap_or(0).max(1);
    (cpu as f64 / wall as f64).clamp(MIN_DEMAND, threads)
}

/// The processors the running mutants keep busy, against the budget of `--jobs`, and the memory
/// their runs may take at their ceilings, against what the machine has available. A run starts
/// when both fit, or when nothing else runs: mutants whose tests wait on timers or sockets run
/// several per job (up to `MAX_OVERLAP`), mutants whose tests compute one per job, and no more
/// run together than the machine could hold were every one of them to reach its memory ceiling.
pub(super) struct Load {
    pub(super) budget: f64,
    /// Bytes; `None` when the machine does not say (no memory bound on overlap).
    pub(super) memory: Option<u64>,
    pub(super) used: Mutex<(f64, u64)>,
    pub(super) freed: std::sync::Condvar,
}

/// A running mutant's share of `Load`, given back when dropped.
pub(super) struct Claim<'l> {
    load: &'l Load,
    demand: f64,
    bytes: u64,
}

impl Load {
    pub(super) fn new(jobs: usize, memory: Option<u64>) -> Load {
        Load {
            budget: jobs as f64,
            memory,
            used: Mutex::new((0.0, 0)),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Wait until `demand` processors and `bytes` of memory fit; `None` when interrupted
    /// meanwhile.
    pub(super) fn claim(&self, demand: f64, bytes: u64) -> Option<Claim<'_>> {
        let mut used = self.used.lock().expect("load lock");
        let fits = |u: &(f64, u64)| {
            u.0 + demand <= self.budget + 1e-9
                && self.memory.is_none_or(|m| u.1.saturating_add(bytes) <= m)
        };
        while used.0 > 0.0 && !fits(&used) {
            if process::interrupted() {
                return None;
            }
            used = self
                .freed
                .wait_timeout(used, Duration::from_millis(100))
                .expect("load lock")
                .0;
        }
        used.0 += demand;
        used.1 = used.1.saturating_add(bytes);
        Some(Claim {
            load: self,
            demand,
            bytes,
        })
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut used = self.load.used.lock().expect("load lock");
        used.0 = (used.0 - self.demand).max(0.0);
        used.1 = used.1.saturating_sub(self.bytes);
        self.load.freed.notify_all();
    }
}

/// The memory a mutant's run may take at once: the ceiling of one test process times the tests
/// its largest group runs together in libtest's threads (0 when there is no ceiling).
pub(super) fn memory_demand(suite: &Suite, sites: &[u32]) -> u64 {
    let Some(per_test) = suite.memory else {
        return 0;
    };
    let widest = groups(&reaching(suite, sites))
        .iter()
        .map(|g| g.len().clamp(1, threads()) as u64)
        .max()
        .unwrap_or(1);
    per_test.saturating_mul(widest)
}

/// Run one switched mutant: the tests that reach its site, fastest first.
fn run_switched(
    m: &Mutant,
    sw: &switch::Switch,
    scratch: &Path,
    target: &Path,
    suite: &Suite,
    opts: &Options,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
) -> Result<MutantResult, Stop> {
    let start = Instant::now();
    let reaching = reaching(suite, &sw.sites);
    if reaching.is_empty() {
        return Ok(MutantResult {
            engine: "switch".into(),
            ..engine::result(m, Outcome::Uncovered, 0, String::new())
        });
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
                let args = suite.binaries[*binary].args(&names, &[]);
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
        let custom = match &group[0].test {
            Test::Case { binary, .. } => suite.binaries[*binary].custom,
            Test::Doc => false,
        };
        let (ok, bad) = if custom {
            // `harness = false`: the exit status is the one test's verdict.
            if ended.success() {
                (names.clone(), Vec::new())
            } else {
                (Vec::new(), names.clone())
            }
        } else if names.is_empty() {
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
    r.engine = "switch".into();
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
    use crate::mutate::once::Suite;
    use std::collections::BTreeSet;

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
        assert_eq!(demand(&s, &[1]), MIN_DEMAND, "the floor, flaky left out");
        assert!((demand(&s, &[2]) - (2_100.0 / 10_000.0f64).max(MIN_DEMAND)).abs() < 1e-9);
        // Doctests that compile for 6 s and then wait on a connection timeout for 34 s.
        s.tests.push(Traced {
            test: Test::Doc,
            ms: 40_000,
            cpu_ms: 6_000,
            sites: [3].into_iter().collect(),
        });
        assert_eq!(demand(&s, &[3]), MIN_DEMAND, "doctests count as measured");
        s.tests.push(Traced {
            test: Test::Doc,
            ms: 40_000,
            cpu_ms: 0,
            sites: [5].into_iter().collect(),
        });
        assert_eq!(demand(&s, &[5]), threads, "unknown: the machine");
        s.tests.push(case(1, "threads", 1_000, 64_000, &[4]));
        assert_eq!(demand(&s, &[4]), threads, "at most the machine");
    }

    /// A claim of `(demand, bytes)` waits while `held` is held, and is admitted once it is
    /// given back.
    fn waits_until_given_back(load: &Load, held: Vec<Claim>, claim: (f64, u64), why: &str) {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                let c = load
                    .claim(claim.0, claim.1)
                    .expect("fits once one is given back");
                tx.send(()).expect("send");
                drop(c);
            });
            assert!(
                rx.recv_timeout(Duration::from_millis(300)).is_err(),
                "{why}"
            );
            drop(held);
            rx.recv_timeout(Duration::from_secs(5))
                .expect("admitted once the others are given back");
        });
    }

    #[test]
    fn load_admits_runs_while_their_demand_fits_and_one_run_always() {
        let load = Load::new(1, None);
        let held: Vec<Claim> = (0..4).map(|_| load.claim(0.25, 0).expect("fits")).collect();
        waits_until_given_back(
            &load,
            held,
            (0.25, 0),
            "a fifth quarter waits while four are held",
        );
        // A run heavier than the whole budget still runs when nothing else does.
        let big = load.claim(8.0, 0).expect("alone it runs");
        drop(big);
        assert_eq!(*load.used.lock().unwrap(), (0.0, 0));
    }

    #[test]
    fn runs_overlap_only_while_their_memory_ceilings_fit_the_machine() {
        // Room for two runs at a 2 GiB ceiling each: a third waits, though processors are free.
        let gib = 1u64 << 30;
        let load = Load::new(4, Some(5 * gib));
        let held: Vec<Claim> = (0..2)
            .map(|_| load.claim(0.25, 2 * gib).expect("fits"))
            .collect();
        let why = "a third 2 GiB run waits with 5 GiB available";
        waits_until_given_back(&load, held, (0.25, 2 * gib), why);
        // One run above everything the machine has still runs alone.
        drop(load.claim(0.25, 9 * gib).expect("alone it runs"));
    }
}
