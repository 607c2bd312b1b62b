//! Fault injection: hostile trees, hostile manifests and signals, through the real binary. Each
//! case is data (a small crate, what is done to it, the exit code and what stderr must say); every
//! case also checks that the user's tree is unchanged (every file's bytes and mode, every link's
//! target), but for the one file the action names, which gets its own check, and that nothing it
//! started is left running or left in the scratch folder.
//!
//! The cases that run cargo on a crate share one build folder per crate and stay few and small.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::mutants::{Copy, copy, processes_in};
use crate::support::*;

const CARGO_TOML: &str =
    "[package]\nname = \"faults\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
const LIB_RS: &str = "pub const MAX_CONCURRENCY: u64 = 8;\n";

/// One entry of a tree: a file's bytes, a link's target, or another kind, with the mode.
#[derive(Debug, PartialEq)]
enum Node {
    File(Vec<u8>, u32),
    Link(PathBuf),
    Dir(u32),
    Special(u32),
}

/// Every entry under `root` but `target/`.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Node> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| e.file_name() != "target")
        .map(|e| e.unwrap())
        .map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let mode = meta.mode() & 0o7777;
            let t = meta.file_type();
            let node = if t.is_symlink() {
                Node::Link(std::fs::read_link(e.path()).unwrap())
            } else if t.is_dir() {
                Node::Dir(mode)
            } else if t.is_file() {
                Node::File(std::fs::read(e.path()).unwrap(), mode)
            } else {
                Node::Special(mode)
            };
            (e.path().strip_prefix(root).unwrap().to_path_buf(), node)
        })
        .collect()
}

/// What changed between two snapshots, as paths.
fn changes(before: &BTreeMap<PathBuf, Node>, after: &BTreeMap<PathBuf, Node>) -> Vec<PathBuf> {
    let changed: std::collections::BTreeSet<PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .cloned()
        .collect();
    changed.into_iter().collect()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// The manifest `init` wrote at `path`, which must bind the crate's capacity.
fn init_wrote(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.contains("site = \"faults::MAX_CONCURRENCY\""),
        "{text}"
    );
    text
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A manifest entry for the crate's one capacity, with `value` as written.
fn entry(site: &str, value: &str) -> String {
    format!(
        "[[capacity]]\nsite = \"{site}\"\nvalue = {value}\nrole = \"cap\"\nmethod = \"measured\"\n"
    )
}

/// A case: the workspace's files (beside Cargo.toml and src/lib.rs), a set-up step for what files
/// cannot say (links, FIFOs, modes), the command, the exit code, what stderr must contain, and
/// the paths the command may change, with a check of what it wrote.
struct Case {
    name: &'static str,
    files: Vec<(&'static str, String)>,
    setup: fn(&Path),
    args: &'static [&'static str],
    code: i32,
    stderr: &'static [&'static str],
    stdout: &'static [&'static str],
    writes: &'static [&'static str],
    after: fn(&Path),
}

fn none(_: &Path) {}

impl Case {
    fn new(name: &'static str, manifest: impl Into<String>) -> Case {
        Case {
            name,
            files: vec![("capacity.toml", manifest.into())],
            setup: none,
            args: &["check"],
            code: 2,
            stderr: &[],
            stdout: &[],
            writes: &[],
            after: none,
        }
    }
}

fn workspace(files: &[(&str, String)]) -> tempfile::TempDir {
    let mut all: Vec<(&str, &str)> = vec![("Cargo.toml", CARGO_TOML), ("src/lib.rs", LIB_RS)];
    all.extend(files.iter().map(|(p, t)| (*p, t.as_str())));
    scratch(&all)
}

/// `capcheck ARGS` in `dir`, killed when it runs past `limit` (a FIFO must never hang a job).
fn bounded(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish_within(child, limit, &format!("{args:?}"))
}

/// `child`'s output once it exits; it is SIGKILLed, and the test fails, when it runs past `limit`.
fn finish_within(child: Child, limit: Duration, what: &str) -> Output {
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    rx.recv_timeout(limit).unwrap_or_else(|_| {
        // SAFETY: the child this test spawned.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("{what}: still running after {limit:?}")
    })
}

fn run_case(case: &Case) {
    let ws = workspace(&case.files);
    let root = ws.path();
    (case.setup)(root);
    let before = snapshot(root);
    let out = bounded(root, case.args, Duration::from_secs(60));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(case.code), "{}: {err}", case.name);
    for want in case.stderr {
        let want = want.replace("{root}", &root.display().to_string());
        assert!(
            err.contains(&want),
            "{}: stderr lacks {want:?}: {err}",
            case.name
        );
    }
    let got = stdout(&out);
    for want in case.stdout {
        assert!(
            got.contains(want),
            "{}: stdout lacks {want:?}: {got}",
            case.name
        );
    }
    let changed = changes(&before, &snapshot(root));
    let allowed: Vec<PathBuf> = case.writes.iter().map(PathBuf::from).collect();
    assert_eq!(changed, allowed, "{}: the tree changed: {err}", case.name);
    (case.after)(root);
    let temps: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("capcheck-tmp"))
        .collect();
    assert!(
        temps.is_empty(),
        "{}: temp files left: {temps:?}",
        case.name
    );
}

/// Every manifest value that cannot be a capacity is a located error (exit 2).
#[test]
fn bad_manifest_values_are_located_errors() {
    let value = |v: &str| entry("faults::MAX_CONCURRENCY", v);
    let quantity = |q: &str| format!("[derived]\nper_box = {q}\n\n{}", value("8"));
    let digits = "9".repeat(300);
    let cases = [
        Case {
            stderr: &["capacity.toml:3:9:", "non-negative integer"],
            ..Case::new("negative value", value("-8"))
        },
        Case {
            stderr: &["capacity.toml:3:9:", "overflow"],
            ..Case::new("300-digit value", value(&digits))
        },
        Case {
            stderr: &[
                "capacity.toml:2:11:",
                "`per_box` must be a number at least 0",
            ],
            ..Case::new("negative quantity", quantity("-3"))
        },
        Case {
            stderr: &["capacity.toml:2:11:", "found nan"],
            ..Case::new("NaN quantity", quantity("nan"))
        },
        Case {
            stderr: &["capacity.toml:2:11:", "found inf"],
            ..Case::new("infinite quantity", quantity("inf"))
        },
        Case {
            stderr: &["capacity.toml:2:11:", "found 1e300"],
            ..Case::new("1e300 quantity", quantity("1e300"))
        },
        Case {
            stderr: &["capacity.toml:2:11:"],
            ..Case::new("300-digit float quantity", quantity(&format!("{digits}.0")))
        },
        Case {
            stderr: &[
                "capacity.toml:8:8:",
                "already bound by the entry at line 2",
                "lines 2 and 8",
            ],
            ..Case::new("duplicate site", format!("{}\n{}", value("8"), value("9")))
        },
        Case {
            stderr: &["capacity.toml:6:20:", "real date"],
            ..Case::new(
                "impossible date",
                format!("{}re_measure_after = \"2026-02-31\"\n", value("8")),
            )
        },
        Case {
            stderr: &["capacity.toml:6:20:", "invalid date"],
            ..Case::new(
                "impossible TOML date",
                format!("{}re_measure_after = 2027-02-29\n", value("8")),
            )
        },
        Case {
            // toml_edit 0.23 panics on it (found by the manifest fuzz target).
            stderr: &["capacity.toml:1:1:", "not valid TOML"],
            ..Case::new(
                "text the TOML parser panics on",
                "==\n.value = ".to_string(),
            )
        },
        Case {
            stderr: &["capacity.toml:2:8:", "at least two `::`"],
            ..Case::new("one-segment site", entry("MAX_CONCURRENCY", "8"))
        },
        Case {
            stderr: &["capacity.toml:2:8:", "at least two `::`"],
            ..Case::new("empty site", entry("", "8"))
        },
        Case {
            stderr: &["capacity.toml:2:8:", "at least two `::`"],
            ..Case::new("empty segment", entry("faults::", "8"))
        },
        Case {
            stderr: &["capacity.toml:3:11:", "divides by zero"],
            ..Case::new(
                "division by zero",
                "[[capacity]]\nsite = \"faults::MAX_CONCURRENCY\"\nexpr = \"8 / (2 - 2)\"\nrole = \"cap\"\nmethod = \"derived\"\n",
            )
        },
        Case {
            // A cap per backend and no backend: the fleet's cap would be 8 x 0, silently.
            stderr: &["capacity.toml:6:7:", "lists no [[backend]]"],
            ..Case::new(
                "per backend without a backend",
                format!("{}per = \"backend\"\n", value("8")),
            )
        },
        Case {
            // A dangling link is a manifest meant to be there, not "no manifest" (exit 1).
            files: vec![],
            setup: |root| {
                std::os::unix::fs::symlink("gone.toml", root.join("capacity.toml")).unwrap()
            },
            stderr: &["capacity.toml` is a link to `gone.toml`, which does not exist"],
            ..Case::new("a dangling capacity.toml link", "")
        },
    ];
    for case in &cases {
        run_case(case);
    }
}

/// `mutants --list --in-diff FILE` with `patch` as FILE: exit 2 and `stderr`.
fn in_diff(
    name: &'static str,
    (file, patch): (&'static str, &str),
    stderr: &'static [&'static str],
) -> Case {
    let args: &'static [&'static str] =
        Box::leak(vec!["mutants", "--list", "--in-diff", file].into_boxed_slice());
    Case {
        files: vec![
            ("capacity.toml", entry("faults::MAX_CONCURRENCY", "8")),
            (file, patch.to_string()),
        ],
        args,
        stderr,
        ..Case::new(name, "")
    }
}

/// A file that nests past what the parser takes: a `parse-error` finding for `check`, skipped by
/// `fixtures` and `mutants`, never a stack overflow; a manifest `expr` too large to evaluate and
/// an `--in-diff` file that is not a diff are located errors. Inputs are generated here.
#[test]
fn hostile_inputs_are_findings_or_located_errors_never_aborts() {
    let n = 20_000;
    let lib = || format!("{LIB_RS}pub mod deep;\n");
    let deep = |body: String| {
        vec![
            ("capacity.toml", entry("faults::MAX_CONCURRENCY", "8")),
            ("src/lib.rs", lib()),
            ("src/deep.rs", body),
        ]
    };
    let parens = format!(
        "pub fn f() -> u64 {{ {}1{} }}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let braces = format!("pub fn f() {{ {}{} }}\n", "{".repeat(n), "}".repeat(n));
    let sum = format!("pub fn f() -> u64 {{ 1{} }}\n", " + 1".repeat(n));
    let cases = [
        Case {
            files: deep(parens.clone()),
            args: &["check", "--format", "json"],
            code: 0,
            stdout: &[
                "\"parse-error\"",
                "src/deep.rs",
                "nesting deeper than 3000 levels",
            ],
            ..Case::new("20,000 nested parentheses", "")
        },
        Case {
            files: deep(braces.clone()),
            args: &["check", "--format", "json"],
            code: 0,
            stdout: &["\"parse-error\"", "src/deep.rs", "\"line\": 1"],
            ..Case::new("20,000 nested braces", "")
        },
        Case {
            files: deep(sum.clone()),
            args: &["mutants", "--list"],
            code: 0,
            stdout: &["MAX_CONCURRENCY"],
            ..Case::new("mutants --list beside a 20,000-term sum", "")
        },
        Case {
            files: deep(parens),
            args: &["fixtures"],
            code: 0,
            ..Case::new("fixtures beside 20,000 nested parentheses", "")
        },
        in_diff(
            "--in-diff with a file that is not a diff",
            ("notes.txt", "these are my notes\n+ not a diff\n"),
            &["notes.txt:1:1:", "not a unified diff"],
        ),
        in_diff(
            "--in-diff with a broken hunk header",
            (
                "bad.diff",
                "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +x @@\n+x\n",
            ),
            &["bad.diff:3:1:", "expected a hunk header"],
        ),
        Case {
            stderr: &["capacity.toml:3:209:", "expression too large"],
            ..Case::new(
                "expr with 10,000 nested parentheses",
                format!(
                    "[[capacity]]\nsite = \"faults::MAX_CONCURRENCY\"\nexpr = \"{}8{}\"\nrole = \"cap\"\nmethod = \"derived\"\n",
                    "(".repeat(10_000),
                    ")".repeat(10_000)
                ),
            )
        },
    ];
    for case in &cases {
        run_case(case);
    }
}

/// Large inputs take time linear in their size: a 20,000-entry manifest binds in seconds (it
/// tried every capacity against every entry, and converted each entry's location from the top
/// of the file: 2,000 entries took 30 s), and 20,000 findings come out in seconds too.
#[test]
fn large_manifests_and_many_findings_stay_linear() {
    let n = 20_000;
    let lib: String = (0..n)
        .map(|i| format!("pub const MAX_CONCURRENCY_{i}: u64 = {};\n", i + 1))
        .collect();
    let manifest: String = (0..n)
        .map(|i| {
            entry(
                &format!("faults::MAX_CONCURRENCY_{i}"),
                &(i + 1).to_string(),
            )
        })
        .collect();
    for (files, findings) in [
        (
            vec![("src/lib.rs", lib.clone()), ("capacity.toml", manifest)],
            0,
        ),
        (vec![("src/lib.rs", lib)], n),
    ] {
        let ws = workspace(&files);
        let out = bounded(
            ws.path(),
            &["check", "--format", "json"],
            Duration::from_secs(60),
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            report["findings"].as_array().unwrap().len(),
            findings,
            "{}",
            stderr(&out)
        );
    }
}

/// A closed stdout (`| true`) ends every report quietly with exit 0; a full one (`> /dev/full`)
/// with one message and exit 2 (the report was lost: not "findings"); a full stderr
/// (`2> /dev/full`) under a job that has something to say ends it with exit 2 too. Never a panic
/// (101), never the findings' exit code; and the tree is left as it was.
#[test]
fn closed_or_full_stdout_or_stderr_ends_loudly_never_panics() {
    // `src/bad.rs` does not parse: `fixtures` and `mutants --list` warn on stderr about it.
    let ws = workspace(&[
        ("capacity.toml", entry("faults::MAX_CONCURRENCY", "8")),
        ("src/bad.rs", "fn (".into()),
        ("src/lib.rs", format!("{LIB_RS}mod bad;\n")),
    ]);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/measure/vllm/vllm_v1_startup_latest.log"),
        ws.path().join("vllm.log"),
    )
    .unwrap();
    let before = snapshot(ws.path());
    let runs: [&[&str]; 7] = [
        &["check"],
        &["check", "--format", "json"],
        &["fixtures"],
        &["rules"],
        &["explain", "parse-error"],
        &["mutants", "--list"],
        &["measure", "--log", "vllm.log"],
    ];
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let run = |args: &[&str], stdout: Stdio, stderr: Stdio| {
        let child = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
            .args(args)
            .current_dir(ws.path())
            .env("NO_COLOR", "1")
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap();
        let out = finish_within(child, Duration::from_secs(60), &format!("{args:?}"));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        (out.status.code(), err)
    };
    for args in runs {
        // A pipe whose reading end is closed before the tool writes: EPIPE on the first write.
        let (read, write) = std::io::pipe().unwrap();
        drop(read);
        let (code, err) = run(args, write.into(), Stdio::piped());
        assert_eq!(code, Some(0), "{args:?} to a closed pipe: {err}");
        let (code, err) = run(args, full().into(), Stdio::piped());
        assert_eq!(code, Some(2), "{args:?} to /dev/full: {err}");
        assert_eq!(
            err.matches("cannot write the report to stdout").count(),
            1,
            "{args:?}: {err}"
        );
    }
    // Jobs with something to say on stderr: an error, a warning, clap's usage message.
    let says: [&[&str]; 7] = [
        &["measure", "--log", "/nonexistent"],
        &["explain", "no-such-rule"],
        &["check", "--no-such-flag"],
        &["fixtures"],
        &["mutants", "--list"],
        &["check", "--capacity", "missing.toml"],
        &["rules", "--format", "nope"],
    ];
    for args in says {
        let (code, _) = run(args, Stdio::null(), full().into());
        assert_eq!(code, Some(2), "{args:?} with stderr on /dev/full");
        // Both streams full: still exit 2, still no panic.
        let (code, _) = run(args, full().into(), full().into());
        assert_eq!(code, Some(2), "{args:?} with both streams on /dev/full");
    }
    // `--help` is a result: on a full stdout, exit 2 too.
    let (code, err) = run(&["--help"], full().into(), Stdio::piped());
    assert_eq!(code, Some(2), "--help to /dev/full: {err}");
    assert_eq!(
        changes(&before, &snapshot(ws.path())),
        Vec::<PathBuf>::new()
    );
}

/// Manifests that are valid, or named and missing, get the answer they deserve.
#[test]
fn valid_and_named_manifests_are_read_as_written() {
    let exact = "[derived]\nbig = 9007199254740993\n\n[[capacity]]\nsite = \"faults::MAX_CONCURRENCY\"\nexpr = \"big * 3 / 3\"\nrole = \"cap\"\nmethod = \"derived\"\n";
    let cases = [
        Case {
            files: vec![
                ("capacity.toml", exact.to_string()),
                (
                    "src/lib.rs",
                    "pub const MAX_CONCURRENCY: u64 = 9007199254740993;\n".to_string(),
                ),
            ],
            code: 0,
            ..Case::new("integers stay exact in expr", "")
        },
        Case {
            code: 0,
            ..Case::new(
                "inline tables",
                "workload = { natural_bound = 64 }\ncapacity = [{ site = \"faults::MAX_CONCURRENCY\", value = 8, role = \"cap\", method = \"measured\" }]\n",
            )
        },
        Case {
            files: vec![(
                "Cargo.toml",
                format!(
                    "{CARGO_TOML}\n[workspace.metadata.capcheck]\nmanifest = \"missing.toml\"\n"
                ),
            )],
            stderr: &["missing.toml` does not exist"],
            ..Case::new("config names a missing manifest", "")
        },
        Case {
            args: &["check", "--capacity", "pipe.toml"],
            setup: |root| mkfifo(&root.join("pipe.toml")),
            stderr: &["not a regular file"],
            ..Case::new("a FIFO as the manifest never blocks", "")
        },
    ];
    for case in &cases {
        run_case(case);
    }
}

/// `init` writes the manifest the way the user set it up, and refuses what it must not replace.
#[test]
fn init_keeps_links_mode_line_endings_and_refuses_what_it_must_not_replace() {
    let existing = "\u{feff}# mine\r\n[workload]\r\nnatural_bound = 64\r\n";
    let cases = [
        Case {
            args: &["init", "--capacity", "new.toml"],
            code: 0,
            writes: &["new.toml"],
            after: |root| {
                init_wrote(&root.join("new.toml"));
            },
            ..Case::new("init --capacity creates the file", "")
        },
        Case {
            files: vec![(
                "Cargo.toml",
                format!("{CARGO_TOML}\n[workspace.metadata.capcheck]\nmanifest = \"ops.toml\"\n"),
            )],
            args: &["init"],
            code: 0,
            writes: &["ops.toml"],
            after: |root| {
                init_wrote(&root.join("ops.toml"));
            },
            ..Case::new("init creates the manifest the config names", "")
        },
        Case {
            args: &["init"],
            code: 0,
            writes: &["capacity.toml"],
            after: |root| {
                let text = init_wrote(&root.join("capacity.toml"));
                assert!(text.contains("# mine"), "{text}");
                let out = capcheck_in(root, &["check"]);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            },
            ..Case::new(
                "init extends an inline-table manifest",
                "workload = { natural_bound = 64 }\ncapacity = [ # mine\n]\n",
            )
        },
        Case {
            setup: |root| {
                std::fs::create_dir(root.join("shared")).unwrap();
                std::fs::rename(root.join("capacity.toml"), root.join("shared/cap.toml")).unwrap();
                chmod(&root.join("shared/cap.toml"), 0o640);
                std::fs::hard_link(root.join("shared/cap.toml"), root.join("hard.toml")).unwrap();
                std::os::unix::fs::symlink("shared/cap.toml", root.join("capacity.toml")).unwrap();
                // A killed writer's temp file: its pid cannot run.
                std::fs::write(root.join("shared/.cap.toml.4194305.capcheck-tmp"), "half").unwrap();
            },
            args: &["init"],
            code: 0,
            writes: &[
                "hard.toml",
                "shared/.cap.toml.4194305.capcheck-tmp",
                "shared/cap.toml",
            ],
            stderr: &["1 unmeasured capacity added"],
            after: |root| {
                let real = root.join("shared/cap.toml");
                assert_eq!(
                    std::fs::read_link(root.join("capacity.toml")).unwrap(),
                    Path::new("shared/cap.toml")
                );
                let text = std::fs::read_to_string(&real).unwrap();
                assert!(
                    text.starts_with("\u{feff}# mine\r\n[workload]\r\n"),
                    "{text:?}"
                );
                assert!(
                    text.contains("site = \"faults::MAX_CONCURRENCY\"\r\n"),
                    "{text:?}"
                );
                assert!(
                    !text.replace("\r\n", "").contains('\n'),
                    "mixed endings: {text:?}"
                );
                assert_eq!(
                    std::fs::read_to_string(root.join("hard.toml")).unwrap(),
                    text
                );
                let meta = std::fs::metadata(&real).unwrap();
                assert_eq!((meta.mode() & 0o777, meta.nlink()), (0o640, 2));
                let left: Vec<_> = std::fs::read_dir(root.join("shared")).unwrap().collect();
                assert_eq!(
                    left.len(),
                    1,
                    "the stale temp file was not removed: {left:?}"
                );
            },
            ..Case::new("init through a symlink and a hard link", existing)
        },
        Case {
            // As root (CI), the manifest belongs to another user, whom the new file must keep;
            // elsewhere it is ours, which must be kept as well.
            setup: |root| {
                if is_root() {
                    std::os::unix::fs::chown(root.join("capacity.toml"), Some(65534), Some(65534))
                        .unwrap();
                }
            },
            args: &["init"],
            code: 0,
            writes: &["capacity.toml"],
            after: |root| {
                let meta = std::fs::metadata(root.join("capacity.toml")).unwrap();
                // SAFETY: geteuid and getegid have no preconditions.
                let me = unsafe { (libc::geteuid(), libc::getegid()) };
                let owner = if is_root() { (65534, 65534) } else { me };
                assert_eq!((meta.uid(), meta.gid()), owner);
            },
            ..Case::new("init keeps the owner", existing)
        },
        Case {
            setup: |root| chmod(&root.join("capacity.toml"), 0o444),
            args: &["init"],
            stderr: &["is read-only; nothing was written"],
            ..Case::new("init refuses a read-only manifest", existing)
        },
        Case {
            args: &["init", "--capacity", "pipe.toml"],
            setup: |root| mkfifo(&root.join("pipe.toml")),
            stderr: &["not a regular file"],
            ..Case::new("init refuses a FIFO", "")
        },
        Case {
            args: &["init", "--capacity", "/dev/null"],
            stderr: &["not a regular file"],
            after: |_| assert!(!Path::new("/dev/null").is_file()),
            ..Case::new("init refuses a device", "")
        },
        Case {
            args: &["init", "--capacity", "no/such/dir.toml"],
            stderr: &["cannot create the capacity manifest"],
            ..Case::new("init into a missing folder", "")
        },
    ];
    for case in &cases {
        run_case(case);
    }
}

// ---- mutants: links, special files, the output folder, signals --------------------------------

/// A copy of a fixture crate in a temp folder, with its own scratch parent and build folder
/// (`mutants.rs`'s, shared by the runs of one test).
struct Run(Copy);

impl Run {
    fn of_fixture(name: &'static str) -> Run {
        Run(copy(name))
    }

    fn root(&self) -> &Path {
        self.0.root()
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"));
        cmd.args(self.0.args(extra))
            .current_dir(self.root())
            .env("NO_COLOR", "1")
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::null());
        cmd
    }

    fn output(&self, extra: &[&str]) -> Output {
        self.command(extra).output().unwrap()
    }

    /// Start in the background (its own process group, as a shell would), stderr to a file.
    fn spawn(&self, extra: &[&str]) -> (Child, PathBuf) {
        let log = self.root().join("target/stderr.log");
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        let child = self
            .command(extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .process_group(0)
            .spawn()
            .unwrap();
        (child, log)
    }

    fn logs(&self) -> PathBuf {
        self.root().join("target/capcheck/mutants/logs")
    }

    fn scratch(&self) -> &Path {
        self.0.scratch.path()
    }

    /// No process of the run is left, nor any scratch copy. The tool kills its children's
    /// process group and reaps its own child; a killed grandchild (a test binary cargo started)
    /// is reaped by init a moment later, so the check allows it a few seconds to go.
    fn assert_nothing_left(&self) {
        for dir in [self.scratch(), self.0.build_dir().as_path()] {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !processes_in(dir).is_empty() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
            }
            assert_eq!(processes_in(dir), Vec::<String>::new(), "left running");
        }
        let left: Vec<_> = std::fs::read_dir(self.scratch()).unwrap().collect();
        assert!(left.is_empty(), "scratch copies left behind: {left:?}");
    }
}

/// Wait until `ready` holds (the run must still be going), at most two minutes.
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !ready() {
        assert!(Instant::now() < deadline, "{what} never happened");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn any_log(dir: &Path, pred: impl Fn(&str) -> bool) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| pred(&t)))
}

/// fixtures/faults-links, whose tests write through links that lead back into the workspace,
/// with a FIFO and a socket in its tree: the scratch copy must redirect the links and skip the
/// special files, and the user's tree must come out byte-identical.
#[test]
fn links_back_into_the_tree_and_special_files_never_reach_the_user_s_files() {
    let run = Run::of_fixture("faults-links");
    let root = run.root();
    let link = |to: &Path, at: &str| std::os::unix::fs::symlink(to, root.join(at)).unwrap();
    link(&root.join("snapshots"), "tests/abs");
    link(Path::new("../snapshots"), "tests/rel");
    link(&root.join("snapshots/new.snap"), "tests/new.snap"); // dangling
    // A test target that is a link out of the tree to a device: a build would read it forever.
    link(Path::new("/dev/zero"), "tests/zero.rs");
    mkfifo(&root.join("pipe"));
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let before = snapshot(root);
    let out = finish_within(
        run.command(&["--format", "json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(300),
        "mutants on a tree with a FIFO",
    );
    let (code, report) = json_of(&out);
    assert_ne!(code, 3, "the baseline must pass: {}", stderr(&out));
    assert_eq!(
        stderr(&out)
            .matches(
                "note: left out of the scratch copy: tests/zero.rs: a link to /dev/zero, a device"
            )
            .count(),
        1,
        "{}",
        stderr(&out)
    );
    let outcomes: Vec<&str> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap())
        .collect();
    assert!(outcomes.contains(&"killed"), "{report:#}");
    assert_eq!(changes(&before, &snapshot(root)), Vec::<PathBuf>::new());
    run.assert_nothing_left();

    // A link to a folder that holds the workspace cannot be redirected: refused before any build.
    std::os::unix::fs::symlink("..", root.join("up")).unwrap();
    let before = snapshot(root);
    let out = run.output(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a folder that holds the workspace"),
        "{}",
        stderr(&out)
    );
    assert_eq!(changes(&before, &snapshot(root)), Vec::<PathBuf>::new());
}

/// The processes whose environment holds `key=value` (what a child of a run, and everything it
/// started, inherits): `pid: command line` each.
fn processes_with_env(key: &str, value: &str) -> Vec<String> {
    let want = format!("{key}={value}").into_bytes();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if env.split(|&b| b == 0).any(|kv| kv == want.as_slice()) {
            let cmdline = std::fs::read(entry.path().join("cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// No process with `key=value` in its environment, within a few seconds (a killed process's
/// parent may take a moment to reap it).
fn assert_none_with_env(key: &str, value: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with_env(key, value).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        processes_with_env(key, value),
        Vec::<String>::new(),
        "{what}: left running"
    );
}

/// A value no other run of this suite uses, to find one run's processes by.
fn unique_marker() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}-{nanos}", std::process::id())
}

/// fixtures/faults-daemon: each run of its test starts two daemons that leave the test's process
/// group (`setsid -f`, and a double fork from `/`) and ignore SIGTERM. After `mutants` with either
/// engine none is left, nor a scratch copy, nor a changed byte of the tree. With `FAULTS_HANG` a
/// test hangs: the baseline is stopped at `--baseline-timeout`, exit 3 with the test named, with
/// either engine. With stderr on `/dev/full` the run stops at its first progress line as on a
/// signal: exit 2, nothing left.
#[test]
fn daemons_a_test_starts_are_ended_with_both_engines() {
    let run = Run::of_fixture("faults-daemon");
    let before = snapshot(run.root());
    let marker = unique_marker();
    for engine in ["switch", "rebuild"] {
        let out = finish_within(
            run.command(&["--engine", engine, "--format", "json"])
                .env("FAULTS_DAEMON_MARKER", &marker)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
            Duration::from_secs(300),
            engine,
        );
        let (code, report) = json_of(&out);
        assert_eq!(code, 0, "{engine}: {}", stderr(&out));
        assert!(
            report["summary"]["killed"].as_u64().unwrap() > 0,
            "{engine}: {report:#}"
        );
        assert_none_with_env("FAULTS_DAEMON_MARKER", &marker, engine);
        run.assert_nothing_left();
        let started = Instant::now();
        let out = finish_within(
            run.command(&["--engine", engine, "--baseline-timeout", "3"])
                .env("FAULTS_DAEMON_MARKER", &marker)
                .env("FAULTS_HANG", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
            Duration::from_secs(120),
            "a hanging baseline",
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{engine}: {err}");
        assert!(
            err.contains(
                "the unmutated baseline hung: `waits_for_its_server` still running after 3s"
            ),
            "{engine}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(60), "{engine}");
        assert_none_with_env("FAULTS_DAEMON_MARKER", &marker, engine);
        run.assert_nothing_left();
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = finish_within(
        run.command(&[])
            .env("FAULTS_DAEMON_MARKER", &marker)
            .stdout(Stdio::null())
            .stderr(full)
            .spawn()
            .unwrap(),
        Duration::from_secs(300),
        "stderr on /dev/full",
    );
    assert_eq!(out.status.code(), Some(2), "stderr on /dev/full");
    assert_none_with_env("FAULTS_DAEMON_MARKER", &marker, "stderr on /dev/full");
    run.assert_nothing_left();
    assert_eq!(
        changes(&before, &snapshot(run.root())),
        Vec::<PathBuf>::new()
    );
}

/// Two `mutants` runs on one workspace: while the first runs, a second with another `--output`
/// (the same build folder) or another `--build-dir` (the same output folder) is refused at once,
/// exit 2, naming the folder whose lock the first holds; it removes nothing of the first's. The
/// first, stopped, leaves nothing behind.
#[test]
fn a_second_run_on_the_same_folders_says_the_first_holds_the_lock() {
    let run = Run::of_fixture("mutants-hang");
    let before = snapshot(run.root());
    let (mut first, err_log) =
        run.spawn(&["--operator", "perturb-capacity", "--timeout-floor", "120"]);
    let logs = run.logs();
    wait_for(&mut first, "the baseline build", || {
        any_log(&logs, |t| t.starts_with("baseline"))
    });
    let other_build = tempfile::tempdir().unwrap();
    let other_output = run.root().join("target/other");
    let mut other_output_run = run.command(&["--output", other_output.to_str().unwrap()]);
    let mut other_build_run = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"));
    other_build_run
        .args(["mutants", "--build-dir"])
        .arg(other_build.path())
        .arg("--scratch-dir")
        .arg(run.scratch())
        .current_dir(run.root())
        .stdin(Stdio::null());
    let cases = [
        (&mut other_output_run, "as its build folder"),
        (&mut other_build_run, "as its output folder"),
    ];
    for (second, folder) in cases {
        let out = finish_within(
            second
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
            Duration::from_secs(60),
            "a second run",
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("another `cargo capcheck mutants` is running with")
                && err.contains(folder),
            "{err}"
        );
        assert!(
            logs.join("baseline.log").exists(),
            "the first run's log was removed"
        );
    }
    // SAFETY: signals the process this test spawned.
    unsafe { libc::kill(first.id() as libc::pid_t, libc::SIGTERM) };
    let status = finish_within(first, Duration::from_secs(20), "SIGTERM").status;
    let err = std::fs::read_to_string(&err_log).unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    run.assert_nothing_left();
    assert_eq!(
        changes(&before, &snapshot(run.root())),
        Vec::<PathBuf>::new()
    );
}

/// A marked output folder whose `logs/` became a link: nothing is removed through it.
#[test]
fn an_output_folder_whose_logs_became_a_link_is_refused() {
    let ws = workspace(&[]);
    let out_dir = ws.path().join("out");
    let elsewhere = ws.path().join("elsewhere");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join(".capcheck-mutants"), "marked\n").unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.log"), "mutant: looks like ours\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, out_dir.join("logs")).unwrap();
    let before = snapshot(ws.path());
    let scratch_parent = tempfile::tempdir().unwrap();
    let out = bounded(
        ws.path(),
        &[
            "mutants",
            "--output",
            "out",
            "--scratch-dir",
            scratch_parent.path().to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a folder (a link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        changes(&before, &snapshot(ws.path())),
        Vec::<PathBuf>::new()
    );
}

/// SIGTERM, SIGHUP and SIGINT, each at three moments of a run, end it with 128 + the signal,
/// kill every child, remove the scratch copy, keep the verdicts that finished and leave the tree
/// as it was. SIGKILL leaves processes and a copy behind: the next run removes both and says so.
#[test]
fn signals_stop_the_run_cleanly_and_the_next_run_cleans_up_after_sigkill() {
    // libtest's `running N tests`, from cargo's test run or a test binary run directly.
    let hanging = |t: &str| t.contains("\nwith: 0\n") && t.contains("running");
    // (signal, when, exit code)
    const CLAIMED: &str = "the output folder is claimed";
    const BASELINE: &str = "the baseline tests run";
    const HANGING: &str = "the hanging mutant runs";
    // (signal, when, exit code): each stop signal at each moment, then SIGKILL.
    let mut moments: Vec<(libc::c_int, &str, i32)> = Vec::new();
    for when in [CLAIMED, BASELINE, HANGING] {
        for (signal, code) in [
            (libc::SIGTERM, 143),
            (libc::SIGHUP, 129),
            (libc::SIGINT, 130),
        ] {
            moments.push((signal, when, code));
        }
    }
    moments.extend([BASELINE, HANGING].map(|when| (libc::SIGKILL, when, -1)));
    for (signal, when, code) in moments {
        let run = Run::of_fixture("mutants-hang");
        let before = snapshot(run.root());
        let (mut child, err_log) =
            // One mutant at a time (`-j 1`), so the order the verdicts come in is canonical.
            run.spawn(&["--operator", "perturb-capacity", "--timeout-floor", "120", "-j", "1"]);
        let logs = run.logs();
        match when {
            HANGING => wait_for(&mut child, when, || any_log(&logs, hanging)),
            BASELINE => wait_for(&mut child, when, || {
                any_log(&logs, |t| {
                    t.starts_with("baseline") && t.contains("running")
                })
            }),
            _ => wait_for(&mut child, when, || logs.is_dir()),
        }
        // SAFETY: signals the process this test spawned.
        let pid = child.id();
        unsafe { libc::kill(pid as libc::pid_t, signal) };
        let status =
            finish_within(child, Duration::from_secs(20), "one signal must be enough").status;
        let err = std::fs::read_to_string(&err_log).unwrap();
        assert_eq!(
            changes(&before, &snapshot(run.root())),
            Vec::<PathBuf>::new()
        );
        if signal != libc::SIGKILL {
            assert_eq!(status.code(), Some(code), "{when}: {err}");
            run.assert_nothing_left();
            // Every verdict the run printed was written as it finished.
            let verdicts =
                std::fs::read_to_string(logs.with_file_name("verdicts.jsonl")).unwrap_or_default();
            let printed = err.lines().filter(|l| l.starts_with('[')).count();
            let verdict_lines = verdicts
                .lines()
                .filter(|l| l.contains("\"outcome\""))
                .count();
            assert_eq!(verdict_lines, printed, "{when}: {err}");
            if when == HANGING {
                // The `+ 1` mutant comes first in canonical order and was done by then.
                assert_eq!(printed, 1, "{err}");
            }
            continue;
        }
        // SIGKILL: the copy, and while a mutant hangs its test binary, are still there (which is
        // why the next run must clean them up)...
        let copies = std::fs::read_dir(run.scratch()).unwrap().count();
        assert_eq!(copies, 1, "{when}: the killed run's scratch copy is there");
        // A hanging test binary runs until killed; what the baseline left may end by itself.
        if when == HANGING {
            assert!(
                !processes_in(run.scratch()).is_empty(),
                "nothing was left running to clean"
            );
        }
        if when == HANGING {
            // A run given another scratch folder (a test or CI job beside this one) leaves them
            // to the run that works where they were left.
            let elsewhere = tempfile::tempdir().unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
                .args(["mutants", "--file", "nothing.rs", "--scratch-dir"])
                .arg(elsewhere.path())
                .current_dir(run.root())
                .env_remove("CARGO_TARGET_DIR")
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(0), "{err}");
            assert!(!err.contains("left running"), "{err}");
            assert!(
                !processes_in(run.scratch()).is_empty(),
                "ended by a foreign run"
            );
        }
        // ...and it does, and says so.
        let out = run.output(&["--operator", "perturb-capacity", "--timeout-floor", "5"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "timeouts only: {err}");
        let removed = format!("a scratch copy left by an earlier run (pid {pid})");
        assert!(err.contains(&removed), "{when}: {err}");
        if when == HANGING {
            // Found by the tag its environment carries, before the copy is looked at.
            let ended = format!("left running by an earlier run (pid {pid}) that was killed");
            assert!(err.contains(&ended), "{when}: {err}");
        }
        run.assert_nothing_left();
        assert_eq!(
            changes(&before, &snapshot(run.root())),
            Vec::<PathBuf>::new()
        );
    }
}

/// Signals while `cargo metadata` runs (`$CARGO` is a wrapper that sleeps a minute): Ctrl-C from
/// a terminal (the whole foreground group, so cargo dies too) exits 130, not 2 with cargo's empty
/// complaint; SIGTERM or SIGHUP to the tool alone ends it and its cargo within seconds (143, 129)
/// rather than when cargo returns. After a SIGKILL the cargo runs on, and the next run ends it
/// and says so. Nothing is left running and no byte of the tree changes.
#[test]
fn signals_while_cargo_metadata_runs_end_it_at_once() {
    let run = Run::of_fixture("mutants-hang");
    let bin = tempfile::tempdir().unwrap();
    let (cargo, started) = (bin.path().join("cargo"), bin.path().join("started"));
    std::fs::write(
        &cargo,
        format!("#!/bin/sh\ntouch '{}'\nsleep 60\n", started.display()),
    )
    .unwrap();
    chmod(&cargo, 0o755);
    let before = snapshot(run.root());
    // (signal, to the whole group, exit code)
    let cases = [
        (libc::SIGINT, true, Some(130)),
        (libc::SIGTERM, false, Some(143)),
        (libc::SIGHUP, false, Some(129)),
        (libc::SIGKILL, false, None),
    ];
    for (signal, group, code) in cases {
        let marker = unique_marker();
        let _ = std::fs::remove_file(&started);
        let mut child = run
            .command(&[])
            .env("CARGO", &cargo)
            .env("FAULTS_METADATA_MARKER", &marker)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        wait_for(&mut child, "cargo metadata", || started.exists());
        let pid = child.id() as libc::pid_t;
        // SAFETY: signals the process (or the group, as a terminal would) this test spawned.
        unsafe {
            if group {
                libc::killpg(pid, signal);
            } else {
                libc::kill(pid, signal);
            }
        }
        let sent = Instant::now();
        let out = finish_within(child, Duration::from_secs(20), "one signal must be enough");
        assert_eq!(out.status.code(), code, "{signal}: {}", stderr(&out));
        if code.is_some() {
            // The wrapper's `sleep 60` gets SIGTERM, then SIGKILL after a grace of two seconds.
            assert!(
                sent.elapsed() < Duration::from_secs(5),
                "{signal}: {:?}",
                sent.elapsed()
            );
            assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
            assert_none_with_env("FAULTS_METADATA_MARKER", &marker, "after a stop signal");
        } else {
            assert!(
                !processes_with_env("FAULTS_METADATA_MARKER", &marker).is_empty(),
                "SIGKILL: the wrapper should still run, for the next run to end"
            );
            // The next run (whose own cargo fails at once) ends what the killed one left.
            let fail = bin.path().join("fail");
            std::fs::write(&fail, "#!/bin/sh\nexit 1\n").unwrap();
            chmod(&fail, 0o755);
            let out = run.command(&[]).env("CARGO", &fail).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            let said = format!("left running by an earlier run (pid {pid}) that was killed");
            assert!(stderr(&out).contains(&said), "{}", stderr(&out));
            assert_none_with_env("FAULTS_METADATA_MARKER", &marker, "after the next run");
        }
        assert_eq!(
            changes(&before, &snapshot(run.root())),
            Vec::<PathBuf>::new()
        );
        run.assert_nothing_left();
    }
}

/// SIGTERM while `mutants` reads a large workspace (120 files of 40 capacities each, seconds
/// of parsing and listing in a debug build) ends the run within a file's time, not when the whole
/// load is done: the load polls the stop flag per file and between its passes.
#[test]
fn sigterm_while_the_workspace_loads_ends_the_run_promptly() {
    let mut files: Vec<(String, String)> = vec![(
        "Cargo.toml".into(),
        "[package]\nname = \"bigload\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
            .into(),
    )];
    let mut lib = String::new();
    for i in 0..120 {
        lib.push_str(&format!("pub mod m{i};\n"));
        let body: String = (0..40)
            .map(|j| {
                format!(
                    "pub const MAX_CONNECTIONS_{j}: usize = {};\npub fn pool_{j}(n: usize) -> usize {{ n.min(MAX_CONNECTIONS_{j}) * 2 }}\n",
                    j + 2
                )
            })
            .collect();
        files.push((format!("src/m{i}.rs"), body));
    }
    files.push(("src/lib.rs".into(), lib));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let ws = scratch(&refs);
    // How long the load takes to the end (listing builds and runs nothing).
    let whole = Instant::now();
    let out = capcheck_in(ws.path(), &["mutants", "--list", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let load = whole.elapsed();
    let child = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args(["capcheck", "mutants", "--format", "json"])
        .current_dir(ws.path())
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    std::thread::sleep((load / 4).min(Duration::from_millis(400)));
    // SAFETY: signals the child this test spawned.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let sent = Instant::now();
    let out = finish_within(child, Duration::from_secs(60), "SIGTERM during the load");
    let after = sent.elapsed();
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    assert!(
        after < load / 2,
        "ended {after:?} after the signal; the whole load takes {load:?}: {}",
        stderr(&out)
    );
}

/// `mutants merge` of folders that are not the shards of one run (one missing, one twice, one
/// of another selection or another count, a whole run among them, one cut short): exit 2, each
/// problem named with its folder and what was expected, nothing written. The full set merges.
#[test]
fn merge_refuses_incomplete_foreign_or_duplicated_shard_sets() {
    let run = Run::of_fixture("mutants-unviable");
    let root = run.root();
    let dir = |name: &str| format!("target/{name}");
    let mut runs: Vec<(&str, Vec<&str>)> = ["0/3", "1/3", "2/3"]
        .iter()
        .zip(["s0", "s1", "s2"])
        .map(|(s, name)| (name, vec!["--shard", s]))
        .collect();
    runs.push((
        "other",
        vec!["--shard", "2/3", "--operator", "perturb-capacity"],
    ));
    runs.push(("half", vec!["--shard", "1/2"]));
    runs.push(("whole", vec![]));
    for (name, flags) in &runs {
        let out_dir = dir(name);
        let mut args = flags.clone();
        args.extend(["--output", &out_dir]);
        let out = run.output(&args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: {}",
            stderr(&out)
        );
    }
    // A copy of a shard under another name, and a shard whose report lost a mutant.
    std::fs::create_dir_all(root.join("target/copy")).unwrap();
    std::fs::copy(
        root.join("target/s1/mutants.json"),
        root.join("target/copy/mutants.json"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("target/cut")).unwrap();
    let mut cut: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("target/s1/mutants.json")).unwrap())
            .unwrap();
    cut["mutants"].as_array_mut().unwrap().pop();
    std::fs::write(root.join("target/cut/mutants.json"), cut.to_string()).unwrap();

    let cases: [(&str, &[&str], &[&str]); 7] = [
        (
            "a shard missing",
            &["s0", "s1"],
            &["shard 2/3 missing", "all 3 (given: 0/3, 1/3)"],
        ),
        (
            "a folder twice",
            &["s0", "s1", "s1", "s2"],
            &["target/s1/mutants.json: given twice"],
        ),
        (
            "a shard twice",
            &["s0", "s1", "copy", "s2"],
            &["target/copy/mutants.json: shard 1/3 again (also target/s1/mutants.json)"],
        ),
        (
            "a shard of another selection",
            &["s0", "s1", "other"],
            &[
                "target/other/mutants.json: from another run",
                "of 4 mutants, those of target/s0/mutants.json from list",
                "of 5 mutants",
            ],
        ),
        (
            "a shard of another count",
            &["s0", "s1", "s2", "half"],
            &["target/half/mutants.json: shard 1/2, but target/s0/mutants.json is shard 0/3"],
        ),
        (
            "a whole run among shards",
            &["s0", "s1", "s2", "whole"],
            &["target/whole/mutants.json: a whole run, not a shard"],
        ),
        (
            "a shard cut short",
            &["s0", "cut", "s2"],
            &["target/cut/mutants.json: shard 1/3 holds 1 mutant, but its share of list"],
        ),
    ];
    let before = snapshot(root);
    for (name, dirs, want) in cases {
        let mut args = vec!["merge".to_string()];
        args.extend(dirs.iter().map(|d| dir(d)));
        args.extend(["--into".to_string(), dir("merged")]);
        let out = run.output(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        for w in want {
            assert!(err.contains(w), "{name}: stderr lacks {w:?}: {err}");
        }
        assert!(err.contains("nothing was written"), "{name}: {err}");
        assert!(!root.join("target/merged").exists(), "{name}: written");
        assert_eq!(changes(&before, &snapshot(root)), Vec::<PathBuf>::new());
    }
    let out = run.output(&[
        "merge",
        "target/s2",
        "target/s0",
        "target/s1",
        "--into",
        "target/merged",
    ]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "the full set merges: {}",
        stderr(&out)
    );
    let read = |p: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(root.join(p)).unwrap()).unwrap()
    };
    let (merged, whole) = (
        read("target/merged/mutants.json"),
        read("target/whole/mutants.json"),
    );
    assert_eq!(merged["list"], whole["list"]);
    assert_eq!(merged["summary"]["mutants"], 5);
}

/// seed-1 as a repository whose second commit deletes the per-unit cap (`history-revert` puts
/// it back), in `dir`.
fn history_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "typed cap"]);
    std::fs::copy(
        fixture("seed-3-no-cap").join("src/lib.rs"),
        dir.join("src/lib.rs"),
    )
    .unwrap();
    git(dir, &["commit", "-qam", "delete the cap"]);
}

/// A clone of `history_repo` holding its last `depth` commits, in place of `dir`'s files.
fn shallow_clone(dir: &Path, depth: &str) {
    let from = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        std::fs::rename(e.path(), from.path().join(e.file_name())).unwrap();
    }
    history_repo(from.path());
    let url = format!("file://{}", from.path().display());
    git(dir, &["clone", "-q", "--depth", depth, &url, "."]);
}

/// Remove the object `rev` names from the repository in `dir`.
fn lose_object(dir: &Path, rev: &str) {
    let out = Command::new("git")
        .args(["rev-parse", rev])
        .current_dir(dir)
        .output()
        .unwrap();
    let sha = String::from_utf8(out.stdout).unwrap();
    let sha = sha.trim();
    std::fs::remove_file(dir.join(".git/objects").join(&sha[..2]).join(&sha[2..])).unwrap();
}

/// A case of `from_history_without_usable_history_says_so`: its name, the set-up of the
/// repository, the exit code, what stderr must say and how many history mutants are listed.
type HistoryCase = (&'static str, fn(&Path), i32, &'static [&'static str], usize);

/// `mutants --list --from-history` where there is no history to search is exit 2 with the
/// reason (no repository, none without commits, an unreadable one, a clone of depth 1); where
/// only part of it can be searched, a warning says which part was not (a shallow clone, a file
/// whose old contents are gone). It never silently lists no history mutant.
#[test]
fn from_history_without_usable_history_says_so() {
    let cases: [HistoryCase; 7] = [
        ("the whole history", history_repo, 0, &[], 1),
        (
            "not a repository",
            |_| {},
            2,
            &["is not in a git repository, so there is no history to search"],
            0,
        ),
        (
            "a repository without a commit",
            |d| git(d, &["init", "-q"]),
            2,
            &["has no commit yet"],
            0,
        ),
        (
            "a repository whose HEAD is gone",
            |d| {
                history_repo(d);
                lose_object(d, "HEAD");
            },
            2,
            &[
                "git cannot read the history of the repository at",
                "bad object HEAD",
            ],
            0,
        ),
        (
            "a clone of depth 1",
            |d| shallow_clone(d, "1"),
            2,
            &[
                "is a shallow clone of one commit",
                "git fetch --unshallow",
                "fetch-depth: 0",
            ],
            0,
        ),
        (
            "a clone of depth 2",
            |d| shallow_clone(d, "2"),
            0,
            &[
                "warning: --from-history:",
                "shallow clone: only its last 2 commits were searched",
            ],
            1,
        ),
        (
            "a file whose old contents are gone",
            |d| {
                history_repo(d);
                lose_object(d, "HEAD~1:src/lib.rs");
            },
            0,
            &["warning: --from-history: the history of src/lib.rs was not searched (fatal:"],
            0,
        ),
    ];
    for (name, setup, code, want, listed) in cases {
        let ws = copy_fixture("seed-1-typed-cap");
        let root = ws.path();
        setup(root);
        let before = snapshot(root);
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
            .args(["mutants", "--list", "--from-history", "--operator"])
            .args(["history-revert", "--format", "json"])
            .current_dir(root)
            // A temp folder inside some repository must not lend it its history.
            .env("GIT_CEILING_DIRECTORIES", root.parent().unwrap())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{name}: {err}");
        for w in want {
            assert!(err.contains(w), "{name}: stderr lacks {w:?}: {err}");
        }
        if want.is_empty() {
            assert_eq!(err, "", "{name}");
        }
        if code == 0 {
            let list = json_of(&out).1;
            assert_eq!(list.as_array().unwrap().len(), listed, "{name}: {list:#}");
        }
        assert_eq!(
            changes(&before, &snapshot(root)),
            Vec::<PathBuf>::new(),
            "{name}"
        );
    }
}

/// Put a file named `src/\xff.rs` and one named `tests/\xfa.rs` (not UTF-8) in `root`.
fn non_utf8_names(root: &Path) {
    use std::os::unix::ffi::OsStrExt;
    for (dir, name) in [("src", b"\xff.rs"), ("tests", b"\xfa.rs")] {
        let path = root.join(dir).join(std::ffi::OsStr::from_bytes(name));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "pub const MAX_BATCH: usize = 4;\n").unwrap();
    }
}

/// A test that, each time it runs (the baseline, then every mutant), writes files whose names
/// are not UTF-8 into the tree it runs in.
const WRITES_NON_UTF8: &str = r#"
use std::os::unix::ffi::OsStrExt;
#[test]
fn writes_odd_names() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for d in ["src", "tests"] {
        let name = std::ffi::OsStr::from_bytes(b"new\xff.rs");
        std::fs::write(dir.join(d).join(name), "pub const MAX_X: usize = 3;\n").unwrap();
    }
}
"#;

/// Files whose names are not UTF-8 (cargo builds no such file, no `mod` can name one): `check`
/// reports each as a `parse-error` at its name, shown with `\xNN` for the odd bytes; `fixtures`
/// and `mutants --list` skip them with a located warning; `mutants` never aborts, also when such
/// files appear in its copy after the baseline. None of it panics.
#[test]
fn files_whose_names_are_not_utf8_are_skipped_with_their_location() {
    let manifest = entry("faults::MAX_CONCURRENCY", "8");
    let warned: &[&str] = &[
        "warning: src/\\xff.rs:1:1: file name is not UTF-8",
        "warning: tests/\\xfa.rs:1:1: file name is not UTF-8",
        "the file was skipped",
    ];
    let cases = [
        Case {
            setup: non_utf8_names,
            args: &["check", "--format", "json"],
            code: 0,
            stdout: &[
                "\"file\": \"src/\\\\xff.rs\"",
                "\"file\": \"tests/\\\\xfa.rs\"",
                "file name is not UTF-8 (cargo does not build such a file",
            ],
            ..Case::new("check", manifest.clone())
        },
        Case {
            setup: non_utf8_names,
            args: &["check"],
            code: 0,
            stdout: &["src/\\xff.rs:1:1", "file name is not UTF-8"],
            ..Case::new("check, human", manifest.clone())
        },
        Case {
            setup: non_utf8_names,
            args: &["fixtures"],
            code: 0,
            stderr: warned,
            ..Case::new("fixtures", manifest.clone())
        },
        Case {
            setup: non_utf8_names,
            args: &["mutants", "--list", "--format", "json"],
            code: 0,
            stderr: warned,
            stdout: &["\"file\": \"src/lib.rs\""],
            ..Case::new("mutants --list", manifest.clone())
        },
        Case {
            files: vec![
                ("capacity.toml", manifest.clone()),
                ("tests/odd.rs", WRITES_NON_UTF8.to_string()),
            ],
            setup: non_utf8_names,
            args: &["mutants", "--format", "json"],
            code: 1,
            stdout: &["\"outcome\": \"survived\"", "\"mutants\": 4"],
            ..Case::new("mutants, and names that appear after the baseline", "")
        },
    ];
    for case in &cases {
        run_case(case);
    }
}

/// `measure --write` onto a FIFO, a link to one, a device or a folder: refused before any
/// evidence or manifest is read (a FIFO would block the read forever), exit 2, nothing written.
/// The evidence itself (`--log`, `--scrape-before/after`) is opened without blocking and refused,
/// located, when it is a FIFO, a device or a link to one.
#[test]
fn measure_refuses_special_files_before_reading_anything() {
    let log = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/measure/vllm/vllm_v1_startup_latest.log"),
    )
    .unwrap();
    let measure = |name, args: &'static [&'static str], setup: fn(&Path), stderr| Case {
        files: vec![("vllm.log", log.clone())],
        setup,
        args,
        stderr,
        ..Case::new(name, "")
    };
    let cases = [
        measure(
            "a FIFO given",
            &["measure", "--log", "vllm.log", "--write", "pipe.toml"],
            |root| mkfifo(&root.join("pipe.toml")),
            &["`pipe.toml` is a FIFO, not a manifest file; nothing was read or written"],
        ),
        measure(
            "a FIFO as the workspace's capacity.toml",
            &["measure", "--log", "vllm.log", "--write"],
            |root| mkfifo(&root.join("capacity.toml")),
            &["{root}/capacity.toml` is a FIFO"],
        ),
        measure(
            "a link to a FIFO",
            &["measure", "--log", "vllm.log", "--write", "link.toml"],
            |root| {
                mkfifo(&root.join("pipe.toml"));
                std::os::unix::fs::symlink("pipe.toml", root.join("link.toml")).unwrap();
            },
            &["`link.toml` is a FIFO"],
        ),
        measure(
            "a device, with --format json",
            &[
                "measure",
                "--log",
                "vllm.log",
                "--write",
                "/dev/null",
                "--format",
                "json",
            ],
            none,
            &["`/dev/null` is a device"],
        ),
        measure(
            "a folder",
            &["measure", "--log", "vllm.log", "--write", "src"],
            none,
            &["`src` is a folder"],
        ),
        measure(
            "a FIFO as --scrape-after",
            &[
                "measure",
                "--scrape-before",
                "vllm.log",
                "--scrape-after",
                "pipe",
            ],
            |root| mkfifo(&root.join("pipe")),
            &["pipe: cannot read: not a regular file (a FIFO)"],
        ),
        measure(
            "a link to a FIFO as --log",
            &["measure", "--log", "link.log"],
            |root| {
                mkfifo(&root.join("pipe"));
                std::os::unix::fs::symlink("pipe", root.join("link.log")).unwrap();
            },
            &["link.log: cannot read: not a regular file (a FIFO)"],
        ),
        measure(
            "a device as --scrape-before",
            &[
                "measure",
                "--scrape-before",
                "/dev/zero",
                "--scrape-after",
                "vllm.log",
            ],
            none,
            &["/dev/zero: cannot read: not a regular file (a device)"],
        ),
    ];
    for case in &cases {
        run_case(case);
    }
}

/// A case of `many_findings_on_one_line_or_in_one_file_stay_linear`: its name, src/lib.rs, the
/// format, how many findings JSON holds, and how often stdout must hold each text.
type LinearCase = (
    &'static str,
    String,
    &'static str,
    usize,
    &'static [(&'static str, usize)],
);

/// Thousands of findings on one line, or in one file, come out in seconds in every format:
/// suppressions are matched to findings in one sweep down the lines (20,000 findings beside
/// 20,000 suppressions on one line took 40 s), and human output builds each file's source once
/// and does not draw a line over 1,000 chars (5,000 findings one per line took 173 s, on one line
/// over 300 s). Inputs are generated here; docs/benchmarks.md has the measurements.
#[test]
fn many_findings_on_one_line_or_in_one_file_stay_linear() {
    let consts = |n: usize, sep: &str, comment: &str| -> String {
        (0..n)
            .map(|i| format!("pub const MAX_CONCURRENCY_{i}: u64 = {}; {comment}", i + 1))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let allow = |rule: &str| format!("/* capcheck: allow({rule}, reason = \"generated\") */");
    // n constants and n tests, each pinning one: every assertion is explained by looking its
    // literal up, not by trying every capacity (and every pair of them) per assertion.
    let pins = |n: usize| {
        let tests: String = (0..n)
            .map(|i| {
                format!(
                    "    #[test]\n    fn t{i}() {{\n        let max_concurrency = super::MAX_CONCURRENCY_{i};\n        assert_eq!(max_concurrency, {});\n    }}\n",
                    i + 1
                )
            })
            .collect();
        format!(
            "{}\n#[cfg(test)]\nmod tests {{\n{tests}}}\n",
            consts(n, "\n", "")
        )
    };
    let cases: [LinearCase; 7] = [
        (
            "20,000 findings and 20,000 unused suppressions on one line",
            consts(20_000, " ", &allow("per-unit-cap")),
            "json",
            40_000,
            &[("\"rule\": \"unused-suppression\"", 20_000)],
        ),
        (
            "20,000 findings, each suppressed, on one line",
            consts(20_000, " ", &allow("unmeasured-capacity")),
            "json",
            0,
            &[("\"suppressed\": 20000", 1)],
        ),
        (
            "20,000 findings, one per line, as SARIF",
            consts(20_000, "\n", ""),
            "sarif",
            20_000,
            &[("\"ruleId\": \"unmeasured-capacity\"", 20_000)],
        ),
        (
            "10,000 findings on one line, as SARIF",
            consts(10_000, " ", ""),
            "sarif",
            10_000,
            &[("\"ruleId\": \"unmeasured-capacity\"", 10_000)],
        ),
        (
            "4,000 tests, each pinning one of 4,000 constants",
            pins(4_000),
            "json",
            // Each constant is a finding, each assertion but `assert_eq!(_, 1)` a pin.
            7_999,
            &[("\"rule\": \"pinned-capacity-assertion\"", 3_999)],
        ),
        (
            "5,000 findings, one per line, drawn",
            consts(5_000, "\n", ""),
            "human",
            5_000,
            &[("src/lib.rs:5000:", 1), ("5000 findings", 1)],
        ),
        (
            "5,000 findings on one line, not drawn",
            consts(5_000, " ", ""),
            "human",
            5_000,
            &[
                ("(a line over 1000 chars is not drawn)", 5_000),
                ("--> src/lib.rs:1:", 5_000),
                (
                    "note: `cargo capcheck explain unmeasured-capacity` says why",
                    5_000,
                ),
            ],
        ),
    ];
    for (name, lib, format, findings, want) in cases {
        let ws = workspace(&[("src/lib.rs", lib)]);
        let out = bounded(
            ws.path(),
            &["check", "--format", format],
            Duration::from_secs(20),
        );
        let text = stdout(&out);
        if format == "json" {
            let report: serde_json::Value = serde_json::from_str(&text).unwrap();
            let got = report["findings"].as_array().unwrap().len();
            assert_eq!(got, findings, "{name}: {}", stderr(&out));
        }
        for (w, times) in want {
            assert_eq!(text.matches(w).count(), *times, "{name}: {w:?}");
        }
    }
}
