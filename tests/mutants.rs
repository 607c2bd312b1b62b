//! `mutants`: listing without building, the seed's outcomes, the nasty cases (a hanging mutant,
//! Ctrl-C, a failing baseline, a mutant that does not compile), shards and merge. Every run works
//! on a temp copy of a fixture; each test keeps its own build folder per fixture under the test
//! target folder, so runs stay incremental across `cargo test` invocations and parallel tests
//! never share a build folder (waiting on each other's cargo lock eats into the short timeouts
//! used here, and two copies of one fixture with different sources must not reuse each other's
//! test binaries).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::*;

/// A fixture copied to a temp folder, and a scratch parent of its own outside it.
pub(crate) struct Copy {
    ws: tempfile::TempDir,
    pub(crate) scratch: tempfile::TempDir,
    name: &'static str,
}

pub(crate) fn copy(name: &'static str) -> Copy {
    Copy {
        ws: copy_fixture(name),
        scratch: tempfile::tempdir().unwrap(),
        name,
    }
}

impl Copy {
    pub(crate) fn root(&self) -> &Path {
        self.ws.path()
    }

    pub(crate) fn build_dir(&self) -> PathBuf {
        // libtest names each test's thread after the test.
        let test = std::thread::current()
            .name()
            .unwrap_or("main")
            .replace("::", "-");
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("mutants")
            .join(self.name)
            .join(test)
    }

    pub(crate) fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<String> {
        let mut args: Vec<String> = vec![
            "mutants".into(),
            "--build-dir".into(),
            self.build_dir().display().to_string(),
            "--scratch-dir".into(),
            self.scratch.path().display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    fn run(&self, extra: &[&str]) -> Output {
        self.run_in(self.root(), extra)
    }

    fn run_in(&self, dir: &Path, extra: &[&str]) -> Output {
        self.run_env(dir, &[], extra)
    }

    fn run_env(&self, dir: &Path, env: &[(&str, &str)], extra: &[&str]) -> Output {
        let args = self.args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        capcheck_env(dir, env, &args)
    }

    /// `mutants ..` started in its own process group (so a test can signal it), output discarded.
    fn spawn(&self, extra: &[&str]) -> std::process::Child {
        Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
            .args(self.args(extra))
            .current_dir(self.root())
            .env("NO_COLOR", "1")
            .env_remove("CARGO_TARGET_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// `mutants --format json ..`: exit code and report.
    fn json(&self, extra: &[&str]) -> (i32, Value) {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        json_of(&out)
    }

    fn add_guard(&self, replacement: &str) {
        let manifest = self.root().join("Cargo.toml");
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        text.push_str(&format!(
            "\n[workspace.metadata.capcheck]\nguards = [{{ function = \"Controller::fleet_ceiling\", replacement = \"{replacement}\", expect = \"killed\" }}]\n"
        ));
        std::fs::write(manifest, text).unwrap();
    }
}

/// Every file of a tree but `target/`, with its bytes.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != "target")
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Processes whose working folder or command line mentions `dir`.
pub(crate) fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) || pid == std::process::id().to_string() {
            continue;
        }
        let cwd = std::fs::read_link(entry.path().join("cwd"))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let cmdline = std::fs::read(entry.path().join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        if cwd.contains(&needle) || cmdline.contains(&needle) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

fn assert_clean_after(copy: &Copy, before: &BTreeMap<PathBuf, Vec<u8>>) {
    assert!(
        tree(copy.root()) == *before,
        "the user's tree changed during the run"
    );
    assert_eq!(processes_in(copy.scratch.path()), Vec::<String>::new());
    let left: Vec<_> = std::fs::read_dir(copy.scratch.path()).unwrap().collect();
    assert!(left.is_empty(), "scratch copies left behind: {left:?}");
}

fn outcomes(report: &Value) -> BTreeMap<String, (String, String)> {
    report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                (
                    m["outcome"].as_str().unwrap().to_string(),
                    m["function"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

fn listed_ids(copy: &Copy, extra: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["--list"];
    args.extend_from_slice(extra);
    let (code, list) = copy.json(&args);
    assert_eq!(code, 0);
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_prints_stable_ids_without_building() {
    let c = copy("seed-2-measured");
    let (code, list) = c.json(&["--list"]);
    assert_eq!(code, 0);
    assert!(!c.root().join("target").exists(), "--list built something");
    insta::assert_json_snapshot!("mutants_list_seed_2", list);
}

#[test]
fn in_diff_keeps_only_mutants_on_changed_lines() {
    let c = copy("seed-2-measured");
    let patch = c.root().join("change.patch");
    std::fs::write(
        &patch,
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -30,1 +30,1 @@\n\
         -        self.boxes.iter().map(BoxSpec::capacity).max().unwrap_or(PER_BACKEND)\n\
         +        self.boxes.iter().map(BoxSpec::capacity).min().unwrap_or(PER_BACKEND)\n",
    )
    .unwrap();
    let (code, list) = c.json(&["--list", "--in-diff", patch.to_str().unwrap()]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(ids[0].starts_with("swap-min-max:src/lib.rs:Controller::per_box:"));
}

#[test]
fn from_history_puts_back_the_deleted_per_unit_cap() {
    let c = copy("seed-1-typed-cap");
    let git = |args: &[&str]| git(c.root(), args);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "typed cap"]);
    std::fs::copy(
        fixture("seed-3-no-cap").join("src/lib.rs"),
        c.root().join("src/lib.rs"),
    )
    .unwrap();
    git(&["commit", "-qam", "delete the cap"]);
    let (code, list) = c.json(&["--list", "--from-history", "--operator", "history-revert"]);
    assert_eq!(code, 0);
    let replacements: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["function"] == "fleet_controller::Controller::fleet_ceiling")
        .map(|m| m["replacement"].as_str().unwrap())
        .collect();
    assert_eq!(replacements, ["healthy * self.cfg.per_backend"]);
}

/// `mutants --list --operator reinstate-cap` on a scratch crate `fleet`: each mutated function
/// with the text it mutates.
fn reinstate_cap_functions(lib_rs: &str) -> BTreeSet<String> {
    let dir = scratch(&[
        (
            "Cargo.toml",
            "[package]\nname = \"fleet\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        ("src/lib.rs", lib_rs),
    ]);
    let out = capcheck_in(
        dir.path(),
        &[
            "mutants",
            "--list",
            "--format",
            "json",
            "--operator",
            "reinstate-cap",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m["function"].as_str().unwrap(),
                m["original"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn reinstate_cap_reaches_a_trait_default_method() {
    // Regression: the index records no ceiling for a trait's default method and the operator
    // named it `Fleet::fleet_ceiling`, so it got no mutant.
    let found = reinstate_cap_functions(
        "pub trait Fleet {\n    fn per_box(&self) -> usize;\n    \
         fn fleet_ceiling(&self, healthy: usize) -> usize {\n        healthy * self.per_box()\n    }\n}\n",
    );
    assert_eq!(
        found,
        BTreeSet::from(["fleet::Fleet::fleet_ceiling: healthy * self.per_box()".to_string()])
    );
}

#[test]
fn reinstate_cap_finds_every_ceiling_the_index_finds_in_impl_blocks() {
    // Each ceiling the index finds in an impl block must be found again by the operator's
    // walker, whatever the impl's shape, even when an inherent and a trait method share a site.
    let found = reinstate_cap_functions(
        "pub struct Plain;\npub struct Generic<T>(T);\npub trait Fleet {\n    \
         fn fleet_ceiling(&self, healthy: usize) -> usize;\n}\n\
         fn per() -> usize { 3 }\n\
         pub fn fleet_ceiling(healthy: usize) -> usize { healthy * per() }\n\
         impl Plain {\n    pub fn fleet_ceiling(&self, healthy: usize) -> usize { healthy * per() }\n}\n\
         impl<T> Generic<T> {\n    pub fn max_concurrency(&self, healthy: usize) -> usize { healthy * per() }\n}\n\
         impl Fleet for Plain {\n    fn fleet_ceiling(&self, healthy: usize) -> usize { healthy * per() + 1 }\n}\n\
         impl Fleet for &Generic<u8> {\n    fn fleet_ceiling(&self, healthy: usize) -> usize { healthy * per() }\n}\n\
         pub mod inner {\n    pub struct Pool;\n    impl crate::Fleet for Pool {\n        \
         fn fleet_ceiling(&self, healthy: usize) -> usize { healthy * super::per() }\n    }\n}\n",
    );
    let expected = [
        "fleet::fleet_ceiling: healthy * per()",
        "fleet::Plain::fleet_ceiling: healthy * per()",
        "fleet::Plain::fleet_ceiling: healthy * per() + 1",
        "fleet::Generic::max_concurrency: healthy * per()",
        // Through the reference, as every visitor names it (syntax::scope::type_name).
        "fleet::Generic::fleet_ceiling: healthy * per()",
        "fleet::inner::Pool::fleet_ceiling: healthy * super::per()",
    ];
    assert_eq!(found, expected.iter().map(|s| s.to_string()).collect());
}

#[test]
fn seed_2_only_the_narrowest_box_swap_survives() {
    let c = copy("seed-2-measured");
    let before = tree(c.root());
    let (code, report) = c.json(&["--operator", "swap-min-max"]);
    assert_eq!(
        report["version"], 1,
        "mutants.json is versioned like check's JSON"
    );
    let found = outcomes(&report);
    let survived: Vec<&str> = found
        .values()
        .filter(|(o, _)| o == "survived")
        .map(|(_, f)| f.as_str())
        .collect();
    assert_eq!(survived, ["fleet_controller::Controller::per_box"]);
    let survivor = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["outcome"] == "survived")
        .unwrap();
    assert_eq!(
        survivor["explanation"],
        "survived because both boxes in `two_boxes()` (tests/controller.rs:3) have the same \
         kv_cache_tokens, max_num_seqs and p90_prompt_tokens, so the narrowest and the widest box \
         are the same box: vary one of them"
    );
    // The run itself (not only `merge`) writes the step: the fixture's input to vary.
    assert_eq!(survivor["next_step"]["kind"], "fixture", "{survivor:#}");
    assert_eq!(
        found.values().filter(|(o, _)| o == "killed").count(),
        found.len() - 1,
        "{found:?}"
    );
    assert_eq!(code, 1, "a survivor exits 1");
    assert_eq!(
        found.keys().cloned().collect::<BTreeSet<_>>(),
        listed_ids(&c, &["--operator", "swap-min-max"]),
        "--list agrees with what ran"
    );
    for file in ["mutants.json", "mutation-report.json", "survivors.sarif"] {
        assert!(c.root().join("target/capcheck/mutants").join(file).exists());
    }
    // cargo-mutants' habits: the ids of each verdict, and a diff per mutant that applies.
    let out = c.root().join("target/capcheck/mutants");
    let missed = std::fs::read_to_string(out.join("missed.txt")).unwrap();
    assert_eq!(
        missed.lines().collect::<Vec<_>>(),
        [survivor["id"].as_str().unwrap()]
    );
    let caught = std::fs::read_to_string(out.join("caught.txt")).unwrap();
    assert_eq!(caught.lines().count(), found.len() - 1, "{caught}");
    let diff_name = format!(
        "{}.diff",
        survivor["id"].as_str().unwrap().replace([':', '/'], "_")
    );
    let diff = std::fs::read_to_string(out.join("diff").join(diff_name)).unwrap();
    assert!(
        diff.contains("--- a/src/lib.rs\n+++ b/src/lib.rs\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+        self.boxes.iter().map(BoxSpec::capacity).max()"),
        "{diff}"
    );
    let sarif = std::fs::read_to_string(c.root().join("target/capcheck/mutants/survivors.sarif"));
    let sarif: Value = serde_json::from_str(&sarif.unwrap()).unwrap();
    crate::sarif::assert_valid(&sarif);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(
        result["level"], "warning",
        "a survivor is a warning, not an error"
    );
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .contains("survived because both boxes in `two_boxes()`"),
        "{sarif:#}"
    );
    // The same report as GitHub annotations (re-rendered by `merge`, nothing is rebuilt).
    let from = c
        .root()
        .join("target/capcheck/mutants")
        .display()
        .to_string();
    let into = c.root().join("target/gh").display().to_string();
    let gh = stdout(&c.run(&["merge", &from, "--into", &into, "--format", "github"]));
    let lines: Vec<&str> = gh.lines().collect();
    assert_eq!(lines.len(), 1, "{gh}");
    assert!(
        lines[0].starts_with("::warning file=src/lib.rs,line="),
        "{gh}"
    );
    assert!(lines[0].contains("title=swap-min-max::"), "{gh}");
    assert!(
        lines[0].contains(
            "%0Anext step: vary one of them (survived because both boxes in `two_boxes()`"
        ),
        "{gh}"
    );
    assert_clean_after(&c, &before);
}

#[test]
fn a_third_different_box_in_the_fixture_kills_the_narrowest_box_swap() {
    let c = copy("seed-2-measured");
    let tests = c.root().join("tests/controller.rs");
    let text = std::fs::read_to_string(&tests).unwrap().replace(
        "    ]\n}",
        "        BoxSpec { name: \"box-c\", kv_cache_tokens: 2_981_636, max_num_seqs: 160, p90_prompt_tokens: 100_000 },\n    ]\n}",
    );
    std::fs::write(&tests, text).unwrap();
    let (code, report) = c.json(&["--operator", "swap-min-max"]);
    let found = outcomes(&report);
    assert!(!found.is_empty(), "no swap-min-max mutant ran");
    assert!(found.values().all(|(o, _)| o == "killed"), "{found:?}");
    assert_eq!(code, 0);
}

#[test]
fn seed_3_reinstate_cap_is_killed_and_weak_tests_let_it_survive() {
    // The guard puts the cap back but keeps the all-down fallback, as a careful revert would.
    let guard = "if healthy == 0 { self.cfg.min_limit } else { healthy * 8 }";
    let ops = ["--operator", "reinstate-cap", "--operator", "guard"];
    let strong = copy("seed-3-no-cap");
    strong.add_guard(guard);
    let (code, report) = strong.json(&ops);
    let found = outcomes(&report);
    assert!(found.len() >= 3, "{found:?}");
    assert!(
        found
            .values()
            .all(|(o, f)| o == "killed" && f == "fleet_controller::Controller::fleet_ceiling"),
        "{found:?}"
    );
    assert_eq!(code, 0);

    let weak = copy("seed-3-weak-tests");
    weak.add_guard(guard);
    let (code, report) = weak.json(&ops);
    let found = outcomes(&report);
    assert!(!found.is_empty(), "no mutant ran on the weak tests");
    assert!(found.values().all(|(o, _)| o == "survived"), "{found:?}");
    assert_eq!(
        report["summary"]["guards_failed"].as_array().unwrap().len(),
        1
    );
    assert_eq!(code, 1, "survivors and a surviving guard exit 1");
}

#[test]
fn a_hanging_mutant_times_out_and_leaves_nothing_behind() {
    let c = copy("mutants-hang");
    let before = tree(c.root());
    let (code, report) = c.json(&["--operator", "perturb-capacity", "--timeout-floor", "8"]);
    let by_replacement: BTreeMap<&str, &str> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["replacement"].as_str().unwrap(),
                m["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        by_replacement,
        BTreeMap::from([("0", "timeout"), ("2", "killed")])
    );
    assert_eq!(code, 4, "timeouts only exit 4");
    assert_clean_after(&c, &before);
}

#[test]
fn sigint_mid_run_kills_every_child_and_removes_the_scratch_copy() {
    let c = copy("mutants-hang");
    let before = tree(c.root());
    let mut child = c.spawn(&["--operator", "perturb-capacity", "--timeout-floor", "120"]);
    // Wait until the hanging mutant's tests are running: its log names the replacement `0`,
    // and the test binary shows up as a process in the scratch copy.
    let logs = c.root().join("target/capcheck/mutants/logs");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(
            Instant::now() < deadline,
            "the hanging mutant never started"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        let hanging = std::fs::read_dir(&logs)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                std::fs::read_to_string(e.path())
                    .is_ok_and(|t| t.contains("\nwith: 0\n") && t.contains("Running"))
            });
        if hanging {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: signals the process group of the child this test spawned.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, libc::SIGINT);
    }
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "one Ctrl-C must be enough"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    assert_clean_after(&c, &before);
}

#[test]
fn a_failing_baseline_exits_3_and_mutates_nothing() {
    let c = copy("mutants-failing-baseline");
    let before = tree(c.root());
    let out = c.run(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("baseline failed"), "{}", stderr(&out));
    let logs: Vec<String> = std::fs::read_dir(c.root().join("target/capcheck/mutants/logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(logs, ["baseline.log"]);
    assert_clean_after(&c, &before);
}

#[test]
fn an_output_folder_with_foreign_files_is_refused_and_kept() {
    // Regression: `--output .` removed the user's `./logs` folder.
    let c = copy("mutants-unviable");
    std::fs::create_dir(c.root().join("logs")).unwrap();
    std::fs::write(c.root().join("logs/important.txt"), "precious").unwrap();
    let before = tree(c.root());
    let out = c.run(&["--output", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let root = c.root().display().to_string();
    assert!(
        stderr(&out).contains("not empty") && stderr(&out).contains(&root),
        "the message names the folder: {}",
        stderr(&out)
    );
    assert_clean_after(&c, &before);
}

#[test]
fn shards_together_run_one_unsharded_run_and_merge_reproduces_it() {
    let c = copy("mutants-unviable");
    let out = |name: &str| c.root().join("target").join(name).display().to_string();
    let (code, whole) = c.json(&["--output", &out("whole")]);
    assert_eq!(code, 0, "{whole}");
    let (_, first) = c.json(&["--shard", "0/2", "--output", &out("s0")]);
    let (_, second) = c.json(&["--shard", "1/2", "--output", &out("s1")]);
    let (a, b) = (outcomes(&first), outcomes(&second));
    assert!(!a.is_empty() && !b.is_empty());
    assert!(a.keys().all(|k| !b.contains_key(k)), "shards overlap");
    let mut joined = a.clone();
    joined.extend(b);
    assert_eq!(joined, outcomes(&whole));
    assert!(
        outcomes(&whole).values().any(|(o, _)| o == "unviable"),
        "the u8 overflow does not compile"
    );

    let (code, merged) = c.json(&["merge", &out("s0"), &out("s1"), "--into", &out("merged")]);
    assert_eq!(code, 0);
    let strip = |r: &Value| {
        let mut r = r.clone();
        for m in r["mutants"].as_array_mut().unwrap() {
            m["duration_ms"] = Value::Null;
        }
        for key in ["elapsed_ms", "baseline", "shard"] {
            r["summary"][key] = Value::Null;
        }
        r
    };
    assert_eq!(strip(&merged), strip(&whole));
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(c.root().join("target/merged/mutants.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(strip(&written), strip(&whole));
}

#[test]
fn a_kill_by_an_assertion_that_pins_the_capacity_is_called_out() {
    // seed-1's `max(&seq) <= 16` pins 16 = 2 x PER_BACKEND: raising the 8 to 9 turns it red, which
    // proves the constant, not the behaviour.
    let c = copy("seed-1-typed-cap");
    let (_, report) = c.json(&["--operator", "perturb-capacity"]);
    let plus_one = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["function"] == "fleet_controller::PER_BACKEND" && m["replacement"] == "9")
        .expect("PER_BACKEND + 1 is a mutant");
    assert_eq!(plus_one["outcome"], "killed");
    assert_eq!(
        plus_one["killed_by"],
        serde_json::json!(["never_exceeds_the_fleet_ceiling"])
    );
    assert_eq!(plus_one["killed_only_by_pins"], true);
}

#[test]
fn mutants_that_no_test_reaches_are_holes_and_exit_1() {
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[package]\nname = \"untested\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
        ),
        ("src/lib.rs", "pub const MAX_CONCURRENCY: usize = 8;\n"),
    ]);
    let scratch_parent = tempfile::tempdir().unwrap();
    let build = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("mutants")
        .join("untested");
    let out = capcheck_in(
        ws.path(),
        &[
            "mutants",
            "--format",
            "json",
            "--build-dir",
            build.to_str().unwrap(),
            "--scratch-dir",
            scratch_parent.path().to_str().unwrap(),
        ],
    );
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    assert!(
        report["summary"]["uncovered"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_path_dependency_outside_the_workspace_still_builds_in_the_scratch_copy() {
    // `app` depends on `../shared`, which the scratch copy (elsewhere) does not contain.
    let copy = copy("mutants-path-dep");
    let before = tree(copy.root());
    let out = copy.run_in(&copy.root().join("app"), &["--format", "json"]);
    let (code, report) = json_of(&out);
    assert_ne!(
        code,
        3,
        "the baseline must build and pass: {}",
        stderr(&out)
    );
    let killed = outcomes(&report)
        .values()
        .filter(|(outcome, _)| outcome == "killed")
        .count();
    assert!(killed >= 1, "{report:#}");
    assert_eq!(tree(copy.root()), before, "neither crate was written");
}

#[test]
fn a_survivor_in_a_trait_default_method_is_explained_and_each_file_is_parsed_once() {
    let c = copy("mutants-trait-default");
    let out = c.run_env(
        c.root(),
        &[("CAPCHECK_TRACE", "parse")],
        &["--format", "json", "--operator", "swap-min-max"],
    );
    let (code, report) = json_of(&out);
    assert_eq!(code, 1, "a survivor exits 1: {}", stderr(&out));
    let survivors: Vec<&Value> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "survived")
        .collect();
    assert_eq!(survivors.len(), 1, "{report}");
    assert_eq!(survivors[0]["function"], "trait_default::Fleet::narrowest");
    assert_eq!(
        survivors[0]["explanation"],
        "survived because both boxes in `two_boxes()` (tests/fleet.rs:3) have the same \
         max_num_seqs, so the narrowest and the widest box are the same box: vary one of them"
    );
    // The whole run (index, operators, fixture analysis for the explanation) parsed each file
    // of the workspace once.
    let err = stderr(&out);
    let mut parsed: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("capcheck: parse "))
        .collect();
    parsed.sort();
    assert_eq!(parsed, ["src/lib.rs", "tests/fleet.rs"], "{err}");
}

#[test]
fn guards_and_manifest_entries_name_sites_by_the_same_rule() {
    // `Controller::fleet_ceiling` names the function for a guard, as `Config::max_limit`
    // names a field for a manifest entry (a `::`-aligned suffix of two segments or more).
    let c = copy("seed-3-no-cap");
    c.add_guard("healthy * 8");
    let (code, list) = c.json(&["--list", "--operator", "guard"]);
    assert_eq!(code, 0);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let (_, report) = check_json("seed-3-no-cap", &[]);
    let unmatched = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "unmatched-manifest-entry")
        .count();
    assert_eq!(unmatched, 0, "{report}");
    // One segment alone names no site, for a guard as for a manifest entry.
    let manifest = c.root().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("Controller::fleet_ceiling", "fleet_ceiling"),
    )
    .unwrap();
    let out = c.run(&["--list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`fleet_ceiling` is one segment"),
        "{}",
        stderr(&out)
    );
}

/// A constant is switched at its uses (`context: uses`, each use listed) exactly when every use
/// runs at run time; `//~ uses` and `//~ fixed` in fixtures/mutants-const-uses say which, one
/// reason each (an array length, a format string, an integration test's use).
#[test]
fn constants_are_switched_at_their_uses_only_when_every_use_runs() {
    let out = capcheck(&[
        "mutants",
        "--list",
        "--format",
        "json",
        "--operator",
        "perturb-capacity",
        "--manifest-path",
        fixture("mutants-const-uses")
            .join("Cargo.toml")
            .to_str()
            .unwrap(),
    ]);
    let (code, list) = json_of(&out);
    assert_eq!(code, 0, "{}", stderr(&out));
    let mut found: BTreeMap<(String, usize), Vec<String>> = BTreeMap::new();
    for m in list.as_array().unwrap() {
        let key = (
            m["file"].as_str().unwrap().to_string(),
            m["line"].as_u64().unwrap() as usize,
        );
        let context = m["context"].as_str().unwrap().to_string();
        let uses = m["at_uses"]["uses"].as_array().map_or(0, Vec::len);
        assert_eq!(context == "uses", uses > 0, "{m}");
        let seen = found.entry(key).or_default();
        if !seen.contains(&context) {
            seen.push(context);
        }
    }
    assert_eq!(found, annotations("mutants-const-uses"));
    // `POOL_SIZE`: through a module path, an import and a test.
    let pool = list
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["function"].as_str().unwrap().ends_with("POOL_SIZE"))
        .unwrap();
    let lines: Vec<u64> = pool["at_uses"]["uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [30, 36, 76], "{pool}");
}

/// The compile-once engine gives the rebuild engine's outcomes on every fixture with mutants and
/// tests (the hanging one has its own test). One difference is by design: a mutant no test
/// reaches is `uncovered` without running anything, where the rebuild engine runs the whole
/// suite and reports `survived`.
#[test]
fn both_engines_agree_on_every_fixture() {
    let fixtures = [
        "seed-1-typed-cap",
        "seed-2-measured",
        "seed-3-weak-tests",
        "mutants-unviable",
        "mutants-trait-default",
        "operators",
        "mutants-const-uses",
        "mutants-doctest",
    ];
    for name in fixtures {
        let c = copy(name);
        let before = tree(c.root());
        let (_, switch) = c.json(&["--engine", "switch"]);
        let (_, rebuild) = c.json(&["--engine", "rebuild"]);
        assert_clean_after(&c, &before);
        let verdicts = |r: &Value| -> BTreeMap<String, (String, bool)> {
            r["mutants"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {r}"))
                .iter()
                .map(|m| {
                    (
                        m["id"].as_str().unwrap().to_string(),
                        (
                            m["outcome"].as_str().unwrap().to_string(),
                            m["killed_only_by_pins"].as_bool().unwrap(),
                        ),
                    )
                })
                .collect()
        };
        let (s, r) = (verdicts(&switch), verdicts(&rebuild));
        assert_eq!(
            s.keys().collect::<Vec<_>>(),
            r.keys().collect::<Vec<_>>(),
            "{name}"
        );
        for (id, (outcome, pins)) in &s {
            let expected = match (outcome.as_str(), r[id].0.as_str()) {
                ("uncovered", "survived") => ("uncovered".to_string(), r[id].1),
                _ => r[id].clone(),
            };
            assert_eq!((outcome.clone(), *pins), expected, "{name}: {id}");
        }
        // A constant whose every use runs at run time is switched at its uses: its mutants
        // join the one build (`context: uses`), and the verdicts above say they agree.
        // (A switch rustc rejects goes back to the rebuild path, so only `fixed` is certain.)
        for m in switch["mutants"].as_array().unwrap() {
            if m["context"] == "fixed" {
                assert_eq!(m["engine"], "rebuild", "{name}: {m}");
            }
        }
        if name == "mutants-doctest" {
            // Only the doctest checks the depth: it is traced, reaches the switched sites
            // (the constant's use included) and kills.
            let killed: Vec<&Value> = switch["mutants"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["outcome"] == "killed")
                .collect();
            assert!(killed.len() >= 4, "{switch}");
            for m in killed {
                assert_eq!(m["engine"], "switch", "{m}");
                assert_eq!(
                    m["killed_by"],
                    serde_json::json!(["src/lib.rs - depth (line 8)"]),
                    "{m}"
                );
            }
        }
        if name == "seed-2-measured" {
            let at_uses = switch["mutants"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["context"] == "uses" && m["engine"] == "switch")
                .count();
            assert_eq!(at_uses, 5, "PER_BACKEND's five mutants: {switch}");
        }
        let baseline = &switch["summary"]["baseline"];
        assert_eq!(baseline["engine"], "switch", "{name}");
        assert!(
            baseline["switched"].as_u64().unwrap() > 0,
            "{name}: {baseline}"
        );
    }
}

/// A baseline test whose two runs disagree is flaky: listed, and never used to kill (the batch
/// cap only it reaches is uncovered); so is one that "kills" a mutant and then fails without it
/// (the queue cap's mutant survives); a mutant that lifts the buffer cap asks for 3 GiB and
/// stops at the memory ceiling (2 GiB here) as `oom`, counted as detected.
#[test]
fn a_flaky_test_never_kills_and_a_runaway_allocation_is_oom() {
    let c = copy("mutants-limits");
    let before = tree(c.root());
    let (code, report) = c.json(&["--operator", "swap-min-max"]);
    assert_clean_after(&c, &before);
    // The second fails for the first time with the queue mutant in place, and again without it.
    assert_eq!(
        report["summary"]["baseline"]["flaky"],
        serde_json::json!(["breaks_after_two_runs", "flips_every_run"]),
        "{report}"
    );
    let got: BTreeMap<String, (String, String)> = outcomes(&report)
        .into_values()
        .map(|(outcome, function)| (function, (outcome, String::new())))
        .collect();
    assert_eq!(got["mutants_limits::buffer"].0, "oom", "{report}");
    assert_eq!(got["mutants_limits::batch_size"].0, "uncovered", "{report}");
    assert_eq!(got["mutants_limits::queue_depth"].0, "survived", "{report}");
    assert_eq!(report["summary"]["oom"], 1);
    assert_eq!(code, 1, "the uncovered mutant is a hole");
}

/// A report without its timings (and the baseline, which holds timings).
fn untimed(r: &Value) -> Value {
    let mut r = r.clone();
    for m in r["mutants"].as_array_mut().unwrap() {
        m["duration_ms"] = Value::Null;
    }
    for key in ["elapsed_ms", "baseline"] {
        r["summary"][key] = Value::Null;
    }
    r
}

/// Two identical runs report the same but for timings; a run interrupted after a few verdicts
/// is completed by `--resume`, which runs only the mutants without a verdict and reports what
/// the uninterrupted run reported.
#[test]
fn resume_completes_an_interrupted_run_to_the_uninterrupted_result() {
    let c = copy("seed-1-typed-cap");
    let out = |name: &str| c.root().join("target").join(name).display().to_string();
    let (_, whole) = c.json(&["--output", &out("whole")]);
    let (_, again) = c.json(&["--output", &out("again")]);
    assert_eq!(untimed(&again), untimed(&whole));
    let total = whole["mutants"].as_array().unwrap().len();

    let mut child = c.spawn(&["--format", "json", "--output", &out("cut")]);
    let verdicts = Path::new(&out("cut")).join("verdicts.jsonl");
    // Verdict lines (the first line names the code they were given on).
    let count = || {
        std::fs::read_to_string(&verdicts)
            .map(|t| t.lines().filter(|l| l.contains("\"outcome\"")).count())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while count() < 3 {
        assert!(Instant::now() < deadline, "no verdicts");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: signals the process group of the child this test spawned.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, libc::SIGINT);
    }
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let kept = count();
    assert!(kept < total, "the run was cut: {kept} of {total}");

    let resumed = c.run(&["--format", "json", "--output", &out("cut"), "--resume"]);
    let ran = stderr(&resumed)
        .lines()
        .filter(|l| l.starts_with('['))
        .count();
    assert_eq!(ran, total - kept, "{}", stderr(&resumed));
    let (_, resumed) = json_of(&resumed);
    assert_eq!(untimed(&resumed), untimed(&whole));

    // A test added since (to kill a survivor, say): no verdict was given on this code, so
    // `--resume` runs every mutant again, and says why.
    let test = c.root().join("tests").join("added.rs");
    std::fs::write(&test, "#[test]\nfn added() {}\n").unwrap();
    let again = c.run(&["--format", "json", "--output", &out("cut"), "--resume"]);
    let ran = stderr(&again)
        .lines()
        .filter(|l| l.starts_with('['))
        .count();
    assert_eq!(ran, total, "{}", stderr(&again));
    assert!(
        stderr(&again).contains("were given on other code"),
        "{}",
        stderr(&again)
    );
}

/// On a terminal the progress is a live line: the phase before the mutants, then done/total,
/// the time left and the mutant running now; in a log, plain lines with the same facts. The
/// terminal is a real pseudo-terminal (util-linux `script`).
#[test]
fn progress_shows_phases_the_running_mutant_and_the_time_left() {
    let c = copy("seed-2-measured");
    let args = c.args(&["--operator", "swap-min-max", "--color", "never"]);
    let bin = env!("CARGO_BIN_EXE_cargo-capcheck");
    let typescript = c.scratch.path().join("typescript");
    let shell = format!(
        "cd '{}' && '{bin}' {} > /dev/null",
        c.root().display(),
        args.join(" ")
    );
    let out = Command::new("script")
        .args(["-qfec", &shell])
        .arg(&typescript)
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("util-linux `script` runs (a pseudo-terminal for this test)");
    assert_eq!(out.status.code(), Some(1), "a survivor exits 1");
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    for shown in [
        "build the instrumented copy",
        "baseline: build and test the unmutated copy",
        "[0/3] about ",
        " left; running swap-min-max:src/lib.rs:",
        "in all)",
        "[3/3] ",
    ] {
        assert!(
            screen.contains(shown),
            "no `{shown}` on the terminal:\n{screen}"
        );
    }
    // A log gets plain lines: no control sequences, each phase once with the time it began.
    let log = stderr(&c.run(&["--operator", "swap-min-max"]));
    assert!(!log.contains('\r') && !log.contains('\u{1b}'), "{log:?}");
    assert!(
        log.contains("\nbaseline: build and test the unmutated copy (at "),
        "{log}"
    );
    assert!(log.contains("[1/3] "), "{log}");
    assert!(log.contains(" left\n"), "{log}");
}

/// Mutants whose tests wait on timers overlap, even with `-j 1`: sixteen survivors of a test
/// that sleeps a second take far less than sixteen seconds. Run one after another, the mutants'
/// own times could never add up to more than the run's wall after the build.
#[test]
fn mutants_whose_tests_wait_run_together() {
    let c = copy("mutants-overlap");
    let (_, r) = c.json(&["-j", "1"]);
    let s = &r["summary"];
    assert_eq!(s["survived"], 16, "{r}");
    let own: u64 = r["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["duration_ms"].as_u64().unwrap())
        .sum();
    let after_build =
        s["elapsed_ms"].as_u64().unwrap() - s["baseline"]["build_ms"].as_u64().unwrap();
    assert!(
        own * 2 > after_build * 3,
        "the mutants' own {own} ms fit in {after_build} ms only if they overlapped: {s}"
    );
}

/// A `harness = false` test target is one test, run whole, its exit status the verdict: both
/// engines count it in the baseline and kill with it (before, both saw no test at all and called
/// every mutant `uncovered`).
#[test]
fn a_custom_harness_test_kills_in_both_engines() {
    let c = copy("mutants-custom-harness");
    let mut verdicts = Vec::new();
    for engine in ["switch", "rebuild"] {
        let (_, r) = c.json(&["--engine", engine]);
        assert_eq!(r["summary"]["baseline"]["tests"], 1, "{engine}: {r}");
        let v: BTreeMap<String, (String, Vec<String>)> = r["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let by = m["killed_by"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_str().unwrap().to_string())
                    .collect();
                (
                    m["id"].as_str().unwrap().to_string(),
                    (m["outcome"].as_str().unwrap().to_string(), by),
                )
            })
            .collect();
        let killed: Vec<&(String, Vec<String>)> =
            v.values().filter(|(o, _)| o == "killed").collect();
        assert!(killed.len() >= 4, "{engine}: {v:?}");
        assert!(
            killed
                .iter()
                .all(|(_, by)| by == &["custom (harness = false)".to_string()]),
            "{engine}: {v:?}"
        );
        verdicts.push(v);
    }
    assert_eq!(verdicts[0], verdicts[1]);
}
