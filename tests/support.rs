//! Running the real binary hermetically, and finding fixtures.

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
    Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args(args)
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
