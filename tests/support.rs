//! Running the real binary hermetically, and finding fixtures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's `fixtures/NAME` folder.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// `cargo-capcheck ARGS` in `dir`, colour off, with cargo's environment of the test run removed
/// so the child sees what a user's shell would give it.
pub fn capcheck_in(dir: &Path, args: &[&str]) -> Output {
    capcheck_env(dir, &[], args)
}

/// [`capcheck_in`] with extra environment variables.
pub fn capcheck_env(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .expect("the binary runs")
}

/// `cargo-capcheck ARGS` from the repository root.
pub fn capcheck(args: &[&str]) -> Output {
    capcheck_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// The exit code and the JSON a run printed; panics with both streams when it is not JSON.
pub fn json_of(out: &Output) -> (i32, serde_json::Value) {
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            stdout(out),
            stderr(out)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// `(rule, file, line)` of every finding in a `check --format json` report, in report order.
pub fn rules_and_lines(report: &serde_json::Value) -> Vec<(String, String, u64)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `check --format json` on a fixture; returns the exit code and the parsed report.
pub fn check_json(fixture_name: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let manifest = fixture(fixture_name).join("Cargo.toml");
    let mut args = vec![
        "check",
        "--format",
        "json",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    json_of(&capcheck(&args))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A scratch workspace made of `(path, contents)` pairs.
pub fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// A one-package workspace (`one`, its own `[workspace]`) whose `src/lib.rs` is `lib`.
pub fn one_crate(lib: &str) -> tempfile::TempDir {
    scratch(&[
        (
            "Cargo.toml",
            "[package]\nname = \"one\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        ("src/lib.rs", lib),
    ])
}

/// `(file, line) -> rules` from the `//~ RULE` annotations of the Rust files under a fixture
/// and the `#~ RULE` annotations of its TOML files; `ID=N` stands for N of them.
pub fn annotations(name: &str) -> BTreeMap<(String, usize), Vec<String>> {
    let root = fixture(name);
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.unwrap();
        let marker = match entry.path().extension().and_then(|e| e.to_str()) {
            Some("rs") => "//~",
            Some("toml") => "#~",
            _ => continue,
        };
        let rel = entry
            .path()
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some((_, rules)) = line.split_once(marker) {
                let mut rules: Vec<String> = rules
                    .split_whitespace()
                    .flat_map(|r| match r.split_once('=') {
                        Some((id, n)) => vec![id.to_string(); n.parse().expect("ID=N")],
                        None => vec![r.to_string()],
                    })
                    .collect();
                rules.sort();
                out.insert((rel.clone(), i + 1), rules);
            }
        }
    }
    out
}

/// A copy of a fixture (without its `target/`) in a temporary folder.
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let from = fixture(name);
    for entry in walkdir::WalkDir::new(&from)
        .into_iter()
        .filter_entry(|e| e.file_name() != "target")
    {
        let entry = entry.unwrap();
        let to = ws.path().join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    ws
}

/// `git ARGS` in `dir`, as a user with a name and no signing; panics when git fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// `mutants merge RUN --into INTO --format FORMAT` in `ws`: a mutants report given as data
/// rendered without building anything.
pub fn merge_run(ws: &Path, run: &Path, into: &Path, format: &str) -> Output {
    capcheck_in(
        ws,
        &[
            "mutants",
            "merge",
            run.to_str().unwrap(),
            "--into",
            into.to_str().unwrap(),
            "--format",
            format,
        ],
    )
}
