//! Outcomes: what happened to each mutant, the run's summary, and reading test names out of
//! `cargo test` and `cargo nextest` output.

use serde::{Deserialize, Serialize};

use crate::operators::mutant::Mutant;

/// What running one mutant showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    /// Some test failed: the tests notice this change.
    Killed,
    /// Every test passed: the tests do not notice this change.
    Survived,
    /// The build or the tests ran past the timeout (often a loop that no longer ends).
    Timeout,
    /// A test aborted on an allocation past the memory ceiling (a runaway allocation).
    Oom,
    /// The mutated code does not compile.
    Unviable,
    /// No test reached it. Without coverage data this is claimed only when the baseline ran no
    /// test at all.
    Uncovered,
}

impl Outcome {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Killed => "killed",
            Outcome::Survived => "survived",
            Outcome::Timeout => "timeout",
            Outcome::Oom => "oom",
            Outcome::Unviable => "unviable",
            Outcome::Uncovered => "uncovered",
        }
    }
}

/// One mutant and what happened to it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MutantResult {
    #[serde(flatten)]
    pub(crate) mutant: Mutant,
    pub(crate) outcome: Outcome,
    pub(crate) duration_ms: u64,
    /// The tests that failed with the mutant in place.
    pub(crate) killed_by: Vec<String>,
    /// How many tests ran with the mutant in place.
    #[serde(default)]
    pub(crate) tests_run: usize,
    /// For survivors, the tests that ran it and passed (at most `MAX_RAN`).
    #[serde(default)]
    pub(crate) ran: Vec<String>,
    /// Every killing test is an assertion that pins a capacity: the kill proves the constant,
    /// not the behaviour.
    #[serde(default)]
    pub(crate) killed_only_by_pins: bool,
    /// Why it survived, from the fixture analysis; null until that analysis runs.
    pub(crate) explanation: Option<String>,
    /// For survivors and failed guards, what to do next (`mutate::advice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next_step: Option<crate::mutate::advice::NextStep>,
    /// The per-mutant log, relative to the output folder.
    #[serde(default)]
    pub(crate) log: String,
    /// Which engine gave the verdict: `switch` (the one instrumented build, `Context::Runtime`
    /// and `Context::Uses` mutants) or `rebuild` (a build of its own).
    #[serde(default)]
    pub(crate) engine: String,
}

pub(crate) const MAX_RAN: usize = 20;

impl MutantResult {
    /// A user-declared guard the tests did not kill (a timeout counts as killed): it fails the
    /// run and is reported like a survivor.
    pub(crate) fn failed_guard(&self) -> bool {
        self.mutant.guard
            && !matches!(
                self.outcome,
                Outcome::Killed | Outcome::Timeout | Outcome::Oom
            )
    }
}

/// The baseline run of the unmutated copy.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Baseline {
    pub(crate) build_ms: u64,
    pub(crate) test_ms: u64,
    pub(crate) tests: usize,
    /// `switch` (compile once) or `rebuild`.
    #[serde(default)]
    pub(crate) engine: String,
    /// Mutants the one instrumented build switches (the rest are rebuilt).
    #[serde(default)]
    pub(crate) switched: usize,
    /// Tests whose two baseline runs disagreed: they kill no mutant.
    #[serde(default)]
    pub(crate) flaky: Vec<String>,
    /// (`switch`) The baseline times of the tests the switched mutants ran, summed: what they
    /// take one after another (a group run in libtest's threads takes less).
    #[serde(default)]
    pub(crate) selected_test_ms: u64,
}

/// Counts and score of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Summary {
    pub(crate) mutants: usize,
    pub(crate) killed: usize,
    pub(crate) survived: usize,
    pub(crate) timeout: usize,
    /// Stopped at the memory ceiling: detected, like a timeout.
    #[serde(default)]
    pub(crate) oom: usize,
    pub(crate) unviable: usize,
    pub(crate) uncovered: usize,
    /// Detected (killed + timeout + oom) over every mutant that compiled, in percent.
    pub(crate) score: f64,
    /// Ids of guard mutants that were not killed.
    pub(crate) guards_failed: Vec<String>,
    pub(crate) baseline: Baseline,
    pub(crate) elapsed_ms: u64,
    /// When this run is one shard of several.
    pub(crate) shard: Option<crate::mutate::select::Shard>,
}

impl Summary {
    pub(crate) fn new(
        results: &[MutantResult],
        baseline: Baseline,
        elapsed_ms: u64,
        shard: Option<crate::mutate::select::Shard>,
    ) -> Summary {
        let count = |o: Outcome| results.iter().filter(|r| r.outcome == o).count();
        let (killed, survived, timeout, oom, uncovered) = (
            count(Outcome::Killed),
            count(Outcome::Survived),
            count(Outcome::Timeout),
            count(Outcome::Oom),
            count(Outcome::Uncovered),
        );
        let valid = killed + survived + timeout + oom + uncovered;
        let score = if valid == 0 {
            100.0
        } else {
            ((killed + timeout + oom) as f64 * 1000.0 / valid as f64).round() / 10.0
        };
        Summary {
            mutants: results.len(),
            killed,
            survived,
            timeout,
            oom,
            unviable: count(Outcome::Unviable),
            uncovered,
            score,
            guards_failed: results
                .iter()
                .filter(|r| r.failed_guard())
                .map(|r| r.mutant.id.clone())
                .collect(),
            baseline,
            elapsed_ms,
            shard,
        }
    }
}

impl Summary {}

/// Test names from a test run's output.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TestNames {
    pub(crate) passed: Vec<String>,
    pub(crate) failed: Vec<String>,
}

/// Read `test NAME ... ok|FAILED` (libtest) and `PASS [..] (i/n) NAME` / `FAIL [..] NAME`
/// (nextest). When nextest lines are present the libtest lines are its captured output (the
/// failing test's own run, printed again) and are ignored.
pub(crate) fn test_names(output: &str) -> TestNames {
    let mut libtest = TestNames::default();
    let mut nextest = TestNames::default();
    for line in output.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("test ") {
            if let Some(name) = rest.strip_suffix(" ... ok") {
                libtest.passed.push(name.to_string());
            } else if let Some(name) = rest.strip_suffix(" ... FAILED") {
                libtest.failed.push(name.to_string());
            }
        } else if let Some((status, rest)) = line.split_once(" [") {
            let Some((_, name)) = rest.split_once("] ") else {
                continue;
            };
            // Newer nextest prints a `(i/n)` counter before the name.
            let name = match name.trim().strip_prefix('(') {
                Some(counted) => counted.split_once(") ").map_or(counted, |(_, n)| n),
                None => name.trim(),
            }
            .to_string();
            match status.trim() {
                "PASS" => nextest.passed.push(name),
                "FAIL" | "SIGSEGV" | "SIGABRT" | "TIMEOUT" => nextest.failed.push(name),
                _ => {}
            }
        }
    }
    custom_harness(output, &mut libtest);
    let mut names = if nextest.passed.is_empty() && nextest.failed.is_empty() {
        libtest
    } else {
        nextest
    };
    // nextest repeats failures in its final summary.
    let mut seen = std::collections::HashSet::new();
    names.failed.retain(|n| seen.insert(n.clone()));
    names
}

/// libtest's first line of a binary's run, `running 3 tests` (trimmed): a binary whose output
/// has none runs a custom harness.
pub(crate) fn libtest_running(line: &str) -> bool {
    line.starts_with("running ") && (line.ends_with(" tests") || line.ends_with(" test"))
}

/// The `harness = false` binaries in `cargo test`'s output: a `Running tests/x.rs
/// (target/debug/deps/x-HASH)` section with no libtest report is one test, named `x (harness =
/// false)` as the compile-once engine names it, failed when cargo says `to rerun pass `--test
/// x``.
fn custom_harness(output: &str, names: &mut TestNames) {
    let mut sections: Vec<(String, bool)> = Vec::new();
    for line in output.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Running ") {
            let exe = rest
                .rsplit_once(" (")
                .map_or(rest, |(_, e)| e.trim_end_matches(')'));
            let file = exe.rsplit(['/', '\\']).next().unwrap_or(exe);
            let target = file.rsplit_once('-').map_or(file, |(t, _)| t);
            sections.push((target.to_string(), false));
        } else if line.starts_with("Doc-tests ") {
            sections.push((String::new(), true));
        } else if libtest_running(line) {
            if let Some(last) = sections.last_mut() {
                last.1 = true;
            }
        }
    }
    let norm = |t: &str| t.replace('-', "_");
    for (target, libtest) in sections {
        if libtest || target.is_empty() {
            continue;
        }
        let name = format!("{target} (harness = false)");
        let failed = output.lines().any(|l| {
            l.split_once("to rerun pass `--test ")
                .and_then(|(_, rest)| rest.split_once('`'))
                .is_some_and(|(t, _)| norm(t) == norm(&target))
        });
        if failed {
            names.failed.push(name);
        } else {
            names.passed.push(name);
        }
    }
}

/// The JSON document of a run: what `--format json` prints and `mutants.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MutantsReport {
    /// The document's format version, as in `check --format json`. Reports written before it
    /// existed read back as version 1.
    #[serde(default = "version")]
    pub(crate) version: u32,
    pub(crate) mutants: Vec<MutantResult>,
    pub(crate) summary: Summary,
    /// Mutants the user's skips and exclusions kept from running (not in `summary`'s counts).
    #[serde(default)]
    pub(crate) skipped: Vec<crate::mutate::select::Skipped>,
    /// The list this run's mutants were taken from (before `--shard`), which `merge` holds
    /// every shard to. Absent from reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) list: Option<ListId>,
}

fn version() -> u32 {
    1
}

impl MutantsReport {
    pub(crate) fn new(mutants: Vec<MutantResult>, summary: Summary) -> MutantsReport {
        MutantsReport {
            version: version(),
            mutants,
            summary,
            skipped: Vec::new(),
            list: None,
        }
    }
}

/// A list of mutants, by its length and the FNV-1a of its ids in canonical order: two shards
/// come from one run when their lists are the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ListId {
    pub(crate) mutants: usize,
    pub(crate) fingerprint: String,
}

impl ListId {
    /// The id of `ids`, given in canonical order.
    pub(crate) fn of<'a>(ids: impl IntoIterator<Item = &'a str>) -> ListId {
        let mut joined = Vec::new();
        let mut mutants = 0;
        for id in ids {
            joined.extend_from_slice(id.as_bytes());
            joined.push(b'\n');
            mutants += 1;
        }
        ListId {
            mutants,
            fingerprint: format!("{:016x}", crate::source::fnv1a(&joined)),
        }
    }
}

impl std::fmt::Display for ListId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "list {} of {} mutant{}",
            self.fingerprint,
            self.mutants,
            crate::diag::plural(self.mutants)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(outcomes: &[Outcome]) -> Summary {
        let results: Vec<MutantResult> = outcomes
            .iter()
            .map(|&outcome| MutantResult {
                mutant: Mutant {
                    id: String::new(),
                    operator: crate::catalog::Operator::Guard,
                    file: String::new(),
                    line: 1,
                    column: 1,
                    end_line: 1,
                    end_column: 1,
                    byte_range: (0, 0),
                    function: String::new(),
                    original: String::new(),
                    replacement: String::new(),
                    description: String::new(),
                    guard: false,
                    context: Default::default(),
                    also: Vec::new(),
                    at_uses: None,
                },
                outcome,
                duration_ms: 0,
                killed_by: Vec::new(),
                tests_run: 0,
                ran: Vec::new(),
                killed_only_by_pins: false,
                explanation: None,
                next_step: None,
                log: String::new(),
                engine: "rebuild".into(),
            })
            .collect();
        Summary::new(&results, Baseline::default(), 0, None)
    }

    #[test]
    fn uncovered_mutants_are_holes_not_a_clean_run() {
        // Regression: a crate without tests reported "2 uncovered; score 0.0%" and exited 0.
        let s = summary(&[Outcome::Uncovered, Outcome::Uncovered]);
        assert_eq!(s.score, 0.0);
        assert_eq!(s.uncovered, 2);
    }

    #[test]
    fn reads_libtest_lines() {
        let out = "running 2 tests\ntest a::b ... ok\ntest c ... FAILED\n\
                   test src/lib.rs - f (line 3) ... FAILED\n";
        let names = test_names(out);
        assert_eq!(names.passed, ["a::b"]);
        assert_eq!(names.failed, ["c", "src/lib.rs - f (line 3)"]);
    }

    #[test]
    fn reads_nextest_lines_and_ignores_its_captured_libtest_output() {
        let out = "        PASS [   0.005s] (1/2) pkg::controller ok_one\n\
                   \x20       FAIL [   0.130s] (2/2) pkg::controller bad_one\n\
                   \x20   test bad_one ... FAILED\n\
                   \x20       FAIL [   0.130s] (2/2) pkg::controller bad_one\n\
                   \x20       PASS [   0.004s] old::format\n";
        let names = test_names(out);
        assert_eq!(names.passed, ["pkg::controller ok_one", "old::format"]);
        assert_eq!(names.failed, ["pkg::controller bad_one"]);
    }
}
