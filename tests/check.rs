//! `check`: the rules on annotated fixtures, the seed's three stages, exit codes, output shape.

use std::collections::BTreeMap;

use crate::support::*;

fn found(report: &serde_json::Value) -> BTreeMap<(String, usize), Vec<String>> {
    let mut out: BTreeMap<(String, usize), Vec<String>> = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        let key = (
            f["file"].as_str().unwrap().to_string(),
            f["line"].as_u64().unwrap() as usize,
        );
        out.entry(key)
            .or_default()
            .push(f["rule"].as_str().unwrap().to_string());
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

#[test]
fn every_annotated_case_is_flagged_and_every_other_line_is_silent() {
    let (code, report) = check_json("rules", &[]);
    assert_eq!(found(&report), annotations("rules"));
    assert_eq!(
        report["summary"]["suppressed"], 8,
        "the `capcheck: allow` cases of src/not_capacity.rs, src/allowed_file.rs and capacity.toml"
    );
    assert_eq!(code, 1, "error-level findings exit 1");
}

#[test]
fn every_rule_has_docs_and_a_should_flag_fixture() {
    let out = capcheck(&["rules", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let rules: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let annotated: Vec<String> = annotations("rules").into_values().flatten().collect();
    for rule in rules.iter().filter(|r| r["kind"] == "rule") {
        let id = rule["id"].as_str().unwrap();
        assert!(
            annotated.iter().any(|a| a == id),
            "rule {id} has no `//~ {id}` case in fixtures/rules"
        );
        let docs = stdout(&capcheck(&["explain", id]));
        for heading in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
        ] {
            assert!(docs.contains(heading), "explain {id} lacks {heading}");
        }
    }
}

#[test]
fn a_constant_passed_through_a_cast_flows_into_the_api_once() {
    let (_, report) = check_json("rules", &[]);
    let slots = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["item"] == "SLOTS")
        .expect("SLOTS is reported");
    let related: Vec<(&str, u64)> = slots["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["note"].as_str().unwrap(), r["line"].as_u64().unwrap()))
        .collect();
    let api_line = std::fs::read_to_string(fixture("rules").join("src/apis.rs"))
        .unwrap()
        .lines()
        .position(|l| l.contains("Semaphore::new(SLOTS as usize)"))
        .unwrap() as u64
        + 1;
    assert_eq!(related, [("flows into Semaphore::new", api_line)]);
}

fn redacted_snapshot(name: &str, report: serde_json::Value) {
    insta::assert_json_snapshot!(name, report, { ".summary.elapsed_ms" => "[elapsed]" });
}

#[test]
fn seed_stage_1_reports_the_typed_8_and_the_test_that_pins_it() {
    let (code, report) = check_json("seed-1-typed-cap", &[]);
    assert_eq!(code, 1);
    redacted_snapshot("seed_1_typed_cap", report);
}

#[test]
fn seed_stage_2_reports_only_the_unrecorded_measurement() {
    let (_, report) = check_json("seed-2-measured", &[]);
    redacted_snapshot("seed_2_measured", report);
}

#[test]
fn seed_stage_3_reports_the_fuse_and_the_floor() {
    let (_, report) = check_json("seed-3-no-cap", &[]);
    redacted_snapshot("seed_3_no_cap", report);
}

#[test]
fn two_runs_give_the_same_bytes_but_for_elapsed_time() {
    let run = || {
        let (_, mut r) = check_json("rules", &[]);
        r["summary"]["elapsed_ms"] = 0.into();
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn human_output_names_the_constant_and_the_arithmetic_and_works_as_a_cargo_subcommand() {
    let manifest = fixture("seed-1-typed-cap").join("Cargo.toml");
    let out = capcheck(&["capcheck", "--manifest-path", manifest.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("`PER_BACKEND = 8` is a capacity nobody measured"),
        "{text}"
    );
    assert!(text.contains("pins 16 = 2 x PER_BACKEND"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour when not a terminal");
}

#[test]
fn a_missing_manifest_path_is_a_usage_error_for_every_job() {
    for job in [
        &["check"][..],
        &["fixtures"],
        &["init"],
        &["mutants", "--list"],
    ] {
        let mut args = job.to_vec();
        args.extend(["--manifest-path", "no/such/Cargo.toml"]);
        let out = capcheck(&args);
        assert_eq!(out.status.code(), Some(2), "{job:?}");
        assert!(
            stderr(&out).contains("no/such/Cargo.toml"),
            "{job:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_unknown_rule_is_a_usage_error_listing_the_known_ones() {
    let out = capcheck(&["explain", "no-such-rule"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unmeasured-capacity"));
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
    // A near miss gets the closest id, as cargo suggests a subcommand.
    for (typo, meant) in [
        ("swap-min-mux", "swap-min-max"),
        ("unmeasured-capacty", "unmeasured-capacity"),
        ("pinned-capacity", "pinned-capacity-assertion"),
    ] {
        let out = capcheck(&["explain", typo]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("did you mean `{meant}`?")),
            "{typo}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn rules_refuses_a_format_it_cannot_print() {
    let out = capcheck(&["rules", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(2), "not JSON under another name");
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("check --format sarif"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_summary_counts_every_level_it_prints() {
    // The rule cases print every level.
    let out = capcheck(&[
        "check",
        "--color",
        "never",
        "--manifest-path",
        "fixtures/rules/Cargo.toml",
    ]);
    let text = stdout(&out);
    let summary = text.lines().last().unwrap();
    // `capcheck: N findings (E errors, W warnings, K notes) in ..`: the number before a word.
    let count = |word: &str| {
        let words: Vec<&str> = summary.split([' ', ',', '(', ')']).collect();
        let at = words
            .iter()
            .position(|w| w.trim_end_matches('s') == word.trim_end_matches('s'))
            .unwrap_or_else(|| panic!("no {word} in {summary}"));
        words[at - 1].parse::<usize>().unwrap()
    };
    let shown = |kind: &str| {
        text.lines()
            .filter(|l| l.contains(&format!("] {kind}:")))
            .count()
    };
    assert_eq!(count("errors"), shown("Error"), "{summary}");
    assert_eq!(count("warnings"), shown("Warning"), "{summary}");
    assert_eq!(count("notes"), shown("Note"), "{summary}");
    assert!(count("notes") > 0 && count("warnings") > 0, "{summary}");
    assert!(
        !text.contains("Advice"),
        "the level is called a note everywhere"
    );
}

const MEMBER: &str = "[package]\nname = \"NAME\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

#[test]
fn packages_are_selected_as_cargo_selects_them() {
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
        ),
        ("a/Cargo.toml", &MEMBER.replace("NAME", "a")),
        ("a/src/lib.rs", "pub const POOL_SIZE: usize = 4;\n"),
        ("b/Cargo.toml", &MEMBER.replace("NAME", "b")),
        ("b/src/lib.rs", "pub const WORKERS: usize = 2;\n"),
    ]);
    let files = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        let (_, r) = json_of(&capcheck_in(ws.path(), &all));
        rules_and_lines(&r).into_iter().map(|(_, f, _)| f).collect()
    };
    assert_eq!(
        files(&[]),
        ["a/src/lib.rs", "b/src/lib.rs"],
        "a virtual workspace checks every member"
    );
    assert_eq!(files(&["-p", "b"]), ["b/src/lib.rs"]);
    assert_eq!(files(&["--workspace", "--exclude", "a"]), ["b/src/lib.rs"]);
    let out = capcheck_in(ws.path(), &["-p", "zzz"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("members: a, b"), "{}", stderr(&out));
}

#[test]
fn a_harness_package_a_developers_binary_an_example_or_a_support_module_is_test_code() {
    // greptimedb's `tests-integration` and `tests-fuzz`, pgdog's `integration_tests_rust`,
    // chroma's `chroma-benchmark`, linkerd's `linkerd-pool-mock`, neon's `pagebench`, iggy's
    // `iggy_examples` and its deterministic `simulator`, pumpkin's `pumpkin-fuzzer` (a network
    // fuzzer's `concurrency: 8` sized its own load), ironclaw's `ironclaw_stress` (a stress
    // tool, read as a harness by the blind labeller and judge of 2026-12-06h): harnesses whose
    // settings are no product's capacity; a package whose name merely holds such letters is
    // product code (`distress-signals`), and so is one named for running tests (buck2's
    // `buck2_test_runner`): a product of its own. A word ending in `tests` names tests a harness
    // runs (cnosdb's `sqllogicaltests`).
    let lib = "pub const POOL_SIZE: usize = 4;\n";
    let names = [
        "engine",
        "tests-integration",
        "integration_tests_rust",
        "chroma-benchmark",
        "pool-mock",
        "e2e_test",
        "testcontainers",
        "pagebench",
        "iggy_examples",
        "simulator",
        "proto-fuzzer",
        "ironclaw_stress",
        "distress-signals",
        "workbenchmarks-not",
        "build_test_runner",
        "sqllogicaltests",
    ];
    let mut files: Vec<(String, String)> = vec![(
        "Cargo.toml".into(),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            names.map(|n| format!("\"{n}\"")).join(", ")
        ),
    )];
    for n in names {
        files.push((format!("{n}/Cargo.toml"), MEMBER.replace("NAME", n)));
        files.push((format!("{n}/src/lib.rs"), lib.into()));
    }
    // A package in the workspace's test folder, and a binary built only with developers'
    // features (its root and its module folder), are harness code too; the package's other
    // binary is not.
    files[0].1 = files[0].1.replace(
        "members = [",
        "members = [\"tests/runner\", \"examples/rust\", \"cmd\", \"tools/ci/lint\", \"xtask\", ",
    );
    // The project's own CI tools and cargo's `xtask` (spacetimedb's `tools/ci/commands/lint`,
    // restate's `tools/xtask`) are developers' tools too.
    for (dir, name) in [("tools/ci/lint", "lint"), ("xtask", "xtask")] {
        files.push((format!("{dir}/Cargo.toml"), MEMBER.replace("NAME", name)));
        files.push((format!("{dir}/src/lib.rs"), lib.into()));
    }
    files.push((
        "examples/rust/Cargo.toml".into(),
        MEMBER.replace("NAME", "getting-started"),
    ));
    files.push(("examples/rust/src/lib.rs".into(), lib.into()));
    files.push((
        "tests/runner/Cargo.toml".into(),
        MEMBER.replace("NAME", "sqlness-runner"),
    ));
    files.push(("tests/runner/src/lib.rs".into(), lib.into()));
    files.push((
        "cmd/Cargo.toml".into(),
        MEMBER.replace("NAME", "cmd")
            + "[features]\ndev-tools = []\n\n[[bin]]\nname = \"perf_fixture\"\n\
               required-features = [\"dev-tools\"]\n",
    ));
    files.push(("cmd/src/main.rs".into(), format!("{lib}fn main() {{}}\n")));
    files.push((
        "cmd/src/bin/perf_fixture.rs".into(),
        format!("mod case;\n{lib}fn main() {{}}\n"),
    ));
    files.push(("cmd/src/bin/perf_fixture/case.rs".into(), lib.into()));
    // A package's own examples (cargo's example targets, a file or a folder with `main.rs`)
    // are code users read, not code they run: test code, as the labelling guide has it.
    files.push((
        "cmd/examples/demo.rs".into(),
        format!("{lib}fn main() {{}}\n"),
    ));
    files.push((
        "cmd/examples/advanced/main.rs".into(),
        format!("{lib}fn main() {{}}\n"),
    ));
    // A package whose description calls it a load-testing or benchmark tool (kanidm's
    // `orca`, "load testing for LDAP and Kanidm"), a test harness (ballista's chaos crate) or
    // test support (arti's mock runtime) is a harness; one that merely names load is product
    // code.
    files[0].1 = files[0].1.replace(
        "members = [",
        "members = [\"orca\", \"chaos\", \"tor-rtmock\", \"balancer\", \"kvstore\", ",
    );
    for (n, d) in [
        ("orca", "Orca - load testing for LDAP and Kanidm"),
        (
            "chaos",
            "Fault-injection harness for testing the cluster's high availability",
        ),
        ("tor-rtmock", "Testing mock support for tor-rtcompat"),
        ("balancer", "A load balancer, tested under stress"),
        ("kvstore", "A key-value store benchmarked against Redis"),
    ] {
        files.push((
            format!("{n}/Cargo.toml"),
            MEMBER.replace("NAME", n)
                + &format!("description = \"{d}\"\n")
                + "repository = \"https://github.com/kanidm/kanidm.git\"\n",
        ));
        files.push((format!("{n}/src/lib.rs"), lib.into()));
    }
    // A module of test support in product code (lighthouse's `http_api/src/test_utils.rs`,
    // qdrant's `model_testing/`) or of a benchmark (pegainfer's `src/kernel_bench.rs`, forest's
    // `benchmark_cmd.rs`) or of examples by its last word (`request_examples.rs`) is test
    // code; a word that merely holds `test` is not, nor a module that runs an example (hook0's
    // `example_run.rs`).
    for f in [
        "test_utils.rs",
        "testing/harness.rs",
        "kernel_bench.rs",
        "benchmarks/load.rs",
        "request_examples.rs",
        "attestation.rs",
        "example_run.rs",
    ] {
        files.push((format!("engine/src/{f}"), lib.into()));
    }
    // Each is a module the engine declares (a file no module declares is not read at all).
    for (path, text) in &mut files {
        if path == "engine/src/lib.rs" {
            text.push_str(
                "mod attestation;\nmod example_run;\nmod kernel_bench;\nmod request_examples;\n\
                 mod test_utils;\n",
            );
        }
    }
    let pairs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (&a[..], &b[..])).collect();
    let ws = scratch(&pairs);
    let (_, r) = json_of(&capcheck_in(ws.path(), &["--format", "json"]));
    let found: Vec<String> = rules_and_lines(&r).into_iter().map(|(_, f, _)| f).collect();
    assert_eq!(
        found,
        [
            "balancer/src/lib.rs",
            "build_test_runner/src/lib.rs",
            "cmd/src/main.rs",
            "distress-signals/src/lib.rs",
            "engine/src/attestation.rs",
            "engine/src/example_run.rs",
            "engine/src/lib.rs",
            "kvstore/src/lib.rs",
            "testcontainers/src/lib.rs",
            "workbenchmarks-not/src/lib.rs"
        ]
    );
    // A repository whose product is itself a load tool (DataDog's `lading`, "A tool for load
    // testing daemons", named as its repository) has no harness by description: its parts that
    // say the same (`lading-capture`) are the product too.
    let lading = |name: &str| {
        MEMBER.replace("NAME", name)
            + "description = \"A tool for load testing daemons.\"\n\
               repository = \"https://github.com/datadog/lading/\"\n"
    };
    let load_tool = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"lading\", \"lading_capture\"]\nresolver = \"2\"\n",
        ),
        ("lading/Cargo.toml", &lading("lading")),
        ("lading/src/lib.rs", lib),
        ("lading_capture/Cargo.toml", &lading("lading-capture")),
        ("lading_capture/src/lib.rs", lib),
    ]);
    let (_, r) = json_of(&capcheck_in(load_tool.path(), &["--format", "json"]));
    let found: Vec<String> = rules_and_lines(&r).into_iter().map(|(_, f, _)| f).collect();
    assert_eq!(found, ["lading/src/lib.rs", "lading_capture/src/lib.rs"]);
    // A library no binary runs that requires test support (nox's `connected-client` on its
    // `test-constants`), or requires one that does (`swarm`), is test support too, though the
    // binary dev-depends on it. A library the binary runs (`core`), one that takes test support
    // only through a feature (`plugin`) and one another language loads (`pyext`, a `cdylib`
    // like pants's engine) stay product code.
    let dep = |name: &str, deps: &[&str]| {
        let mut t = MEMBER.replace("NAME", name) + "\n[dependencies]\n";
        for d in deps {
            let (d, optional) = d.split_once('?').map_or((*d, false), |(d, _)| (d, true));
            t += &format!("{d} = {{ path = \"../{d}\", optional = {optional} }}\n");
        }
        t
    };
    let server =
        dep("server", &["core"]) + "\n[dev-dependencies]\nclient = { path = \"../client\" }\n";
    let on_support = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"server\", \"core\", \"plugin\", \"client\", \"swarm\", \
             \"test-constants\", \"pyext\"]\nresolver = \"2\"\n",
        ),
        ("server/Cargo.toml", &server),
        ("server/src/main.rs", &format!("{lib}fn main() {{}}\n")),
        ("core/Cargo.toml", &dep("core", &["test-constants"])),
        ("core/src/lib.rs", lib),
        ("plugin/Cargo.toml", &dep("plugin", &["test-constants?"])),
        ("plugin/src/lib.rs", lib),
        (
            "pyext/Cargo.toml",
            &(dep("pyext", &["test-constants"]) + "\n[lib]\ncrate-type = [\"cdylib\"]\n"),
        ),
        ("pyext/src/lib.rs", lib),
        ("client/Cargo.toml", &dep("client", &["test-constants"])),
        ("client/src/lib.rs", lib),
        ("swarm/Cargo.toml", &dep("swarm", &["client"])),
        ("swarm/src/lib.rs", lib),
        ("test-constants/Cargo.toml", &dep("test-constants", &[])),
        ("test-constants/src/lib.rs", lib),
    ]);
    let (_, r) = json_of(&capcheck_in(
        on_support.path(),
        &["--format", "json", "--workspace"],
    ));
    let found: Vec<String> = rules_and_lines(&r).into_iter().map(|(_, f, _)| f).collect();
    assert_eq!(
        found,
        [
            "core/src/lib.rs",
            "plugin/src/lib.rs",
            "pyext/src/lib.rs",
            "server/src/main.rs"
        ]
    );
}

/// A field set in a test helper outside `cfg(test)` that only tests call (`TestServer::start`
/// building a `Config { workers: 4 }`) is test set-up, even where nothing else in the package is
/// named for tests: the function that writes the field says so, not the field's own type.
#[test]
fn a_field_set_only_by_a_test_helper_is_test_set_up() {
    let ws = scratch(&[
        ("Cargo.toml", &MEMBER.replace("NAME", "one")),
        (
            "src/lib.rs",
            "pub struct Config {\n    pub workers: usize,\n}\n\npub struct TestServer;\n\nimpl TestServer {\n    pub fn start() -> Config {\n        Config { workers: 4 }\n    }\n}\n\npub fn serve() -> Config {\n    Config { workers: 8 }\n}\n",
        ),
        (
            "tests/it.rs",
            "#[test]\nfn starts() {\n    let _ = one::TestServer::start();\n}\n",
        ),
    ]);
    let (_, r) = json_of(&capcheck_in(ws.path(), &["--format", "json"]));
    let found: Vec<(String, String, u64)> = rules_and_lines(&r);
    assert_eq!(
        found,
        [(
            "unmeasured-capacity".to_string(),
            "src/lib.rs".to_string(),
            14
        )]
    );
}

#[test]
fn gitignored_files_target_and_nested_crates_are_skipped_and_bad_files_do_not_stop_the_scan() {
    let ws = scratch(&[
        ("Cargo.toml", &MEMBER.replace("NAME", "one")),
        (".gitignore", "generated.rs\n"),
        (
            "src/lib.rs",
            "pub const POOL_SIZE: usize = 4;\nmod latin1;\n",
        ),
        ("src/generated.rs", "pub const WORKERS: usize = 2;\n"),
        ("target/debug/x.rs", "pub const WORKERS: usize = 2;\n"),
        ("vendored/Cargo.toml", &MEMBER.replace("NAME", "vendored")),
        ("vendored/src/lib.rs", "pub const WORKERS: usize = 2;\n"),
    ]);
    std::fs::write(
        ws.path().join("src/latin1.rs"),
        b"// caf\xe9\npub const X: u8 = 1;\n",
    )
    .unwrap();
    let out = capcheck_in(ws.path(), &["--format", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = rules_and_lines(&r);
    assert_eq!(
        got,
        [
            ("parse-error".to_string(), "src/latin1.rs".to_string(), 1),
            (
                "unmeasured-capacity".to_string(),
                "src/lib.rs".to_string(),
                1
            ),
        ]
    );
}

#[test]
fn levels_are_configurable_in_cargo_metadata_and_typos_are_errors() {
    let lib = "pub fn cap(healthy: usize) -> usize { healthy * 8 }\n";
    let ws = scratch(&[
        (
            "Cargo.toml",
            &(MEMBER.replace("NAME", "one")
                + "\n[package.metadata.capcheck.levels]\nper-unit-cap = \"error\"\n"),
        ),
        ("src/lib.rs", lib),
    ]);
    assert_eq!(
        capcheck_in(ws.path(), &[]).status.code(),
        Some(1),
        "per-unit-cap raised to error"
    );
    let ws = scratch(&[
        (
            "Cargo.toml",
            &(MEMBER.replace("NAME", "one")
                + "\n[package.metadata.capcheck]\ncapacity-nmes = [\"slots\"]\n"),
        ),
        ("src/lib.rs", lib),
    ]);
    let out = capcheck_in(ws.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("capacity-nmes"), "{}", stderr(&out));
}

#[test]
fn a_test_pins_only_the_capacities_of_its_own_package() {
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
        ),
        ("a/Cargo.toml", &MEMBER.replace("NAME", "a")),
        ("a/src/lib.rs", "pub const MAX_WORKERS: usize = 4;\n"),
        (
            "a/tests/t.rs",
            "#[test]\nfn t() { let max_seen = 2 * a::MAX_WORKERS; assert!(max_seen <= 8); }\n",
        ),
        ("b/Cargo.toml", &MEMBER.replace("NAME", "b")),
        ("b/src/lib.rs", ""),
        (
            "b/tests/t.rs",
            "#[test]\nfn t() { let max_seen = 2; assert!(max_seen <= 8); }\n",
        ),
    ]);
    let (_, r) = json_of(&capcheck_in(ws.path(), &["--format", "json"]));
    let pins: Vec<String> = rules_and_lines(&r)
        .into_iter()
        .filter(|(rule, _, _)| rule == "pinned-capacity-assertion")
        .map(|(_, f, _)| f)
        .collect();
    assert_eq!(pins, ["a/tests/t.rs"]);
}

#[test]
fn github_format_annotates_each_finding_at_its_path_in_the_checkout() {
    let manifest = fixture("seed-1-typed-cap").join("Cargo.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args([
            "check",
            "--format",
            "github",
            "--manifest-path",
            manifest.to_str().unwrap(),
        ])
        .env("GITHUB_WORKSPACE", env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[0],
        "::error file=fixtures/seed-1-typed-cap/src/lib.rs,line=5,col=32,title=unmeasured-capacity::`PER_BACKEND = 8` is a capacity nobody measured"
    );
    assert!(
        lines[3].starts_with("::warning file=fixtures/seed-1-typed-cap/tests/controller.rs,line=19,col=46,title=pinned-capacity-assertion::"),
        "{}",
        lines[3]
    );
}

#[test]
fn each_subcommand_accepts_only_the_flags_it_uses() {
    let out = capcheck(&[
        "rules",
        "--full-parse",
        "-p",
        "nonexistent",
        "--exclude",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let help = stdout(&capcheck(&["measure", "--help"]));
    for flag in ["--full-parse", "--package", "--exclude"] {
        assert!(!help.contains(flag), "measure --help lists {flag}:\n{help}");
    }
    let help = stdout(&capcheck(&["mutants", "--help"]));
    assert!(!help.contains("--full-parse"), "{help}");
    assert!(stdout(&capcheck(&["check", "--help"])).contains("--full-parse"));
}

/// A function only tests call sets no capacity in a package a binary of the workspace runs
/// (kiwi's `RuntimeConfig::high_throughput()`), whatever its name; one named in a serde
/// attribute's string stays, and so does a library's no binary runs.
#[test]
fn a_preset_only_tests_call_is_test_set_up_where_a_binary_runs_its_package() {
    let (_, report) = check_json("presets", &["--workspace"]);
    assert_eq!(found(&report), annotations("presets"));
}

#[test]
fn a_pin_is_a_value_the_test_s_code_takes_from_the_capacity_never_a_coincidence() {
    let (_, report) = check_json("pins-traced", &[]);
    assert_eq!(found(&report), annotations("pins-traced"));
    let pin = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "pinned-capacity-assertion" && f["value"] == 16)
        .unwrap();
    // Not MAX_QUEUE_DEPTH, another module's 16 that the test never reaches.
    assert_eq!(pin["item"], "PER_BACKEND");
    let message = pin["message"].as_str().unwrap();
    assert!(message.contains("pins 16 = 2 x PER_BACKEND"), "{message}");
    assert!(
        message.contains(
            "`never_exceeds_the_fleet_ceiling` -> `Config::default`, which reads `PER_BACKEND`"
        ),
        "{message}"
    );
}

#[test]
fn suppressions_need_a_reason_are_reported_when_unused_and_never_read_from_strings() {
    let rules_of = |lib: &str| {
        let ws = one_crate(lib);
        let (code, report) = json_of(&capcheck_in(ws.path(), &["check", "--format", "json"]));
        let found: Vec<(String, u64, String)> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let rule = f["rule"].as_str().unwrap().to_string();
                let level = f["severity"].as_str().unwrap().to_string();
                (rule, f["line"].as_u64().unwrap(), level)
            })
            .collect();
        (code, found)
    };
    let cap = "pub fn cap(healthy: usize) -> usize { healthy * 8 }\n";
    let with_reason =
        format!("// capcheck: allow(per-unit-cap, reason = \"eight bits per byte\")\n{cap}");
    assert_eq!(rules_of(&with_reason), (0, vec![]));
    let (code, found) = rules_of(&format!("// capcheck: allow(per-unit-cap)\n{cap}"));
    assert_eq!(code, 1, "a suppression without a reason is an error");
    assert_eq!(found, [("invalid-suppression".into(), 1, "error".into())]);
    let (_, found) = rules_of(&format!(
        "// capcheck: allow(per-unit-cap, reason = \"gone\")\npub fn f() {{}}\n{cap}"
    ));
    assert_eq!(
        found,
        [
            ("unused-suppression".into(), 1, "warning".into()),
            ("per-unit-cap".into(), 3, "warning".into())
        ]
    );
    let (_, found) = rules_of(&format!(
        "pub const S: &str = \"// capcheck: allow(per-unit-cap, reason = \\\"x\\\")\";\n{cap}"
    ));
    assert_eq!(
        found,
        [("per-unit-cap".into(), 2, "warning".into())],
        "text in a string is not a suppression"
    );
}

#[test]
fn level_flags_override_the_config_like_clippy_s_and_colour_follows_cargo() {
    let ws = one_crate("pub fn cap(healthy: usize) -> usize { healthy * 8 }\n");
    let run = |args: &[&str]| {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        let (code, report) = json_of(&capcheck_in(ws.path(), &all));
        let levels: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["severity"].as_str().unwrap().to_string())
            .collect();
        (code, levels)
    };
    assert_eq!(run(&[]), (0, vec!["warning".to_string()]));
    assert_eq!(run(&["-D", "per-unit-cap"]), (1, vec!["error".to_string()]));
    assert_eq!(run(&["-D", "warnings"]), (1, vec!["error".to_string()]));
    assert_eq!(run(&["-D", "warnings", "-A", "per-unit-cap"]), (0, vec![]));
    assert_eq!(
        run(&["--allow", "per-unit-cap", "-W", "per-unit-cap"]).1,
        ["warning"]
    );
    let out = capcheck_in(ws.path(), &["check", "-D", "per-unit-capp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown rule `per-unit-capp`"),
        "{}",
        stderr(&out)
    );

    let human = |env: &[(&str, &str)], args: &[&str]| {
        let out = capcheck_env(ws.path(), env, args);
        stdout(&out).contains("\u{1b}[")
    };
    assert!(!human(&[], &["check"]), "not a terminal, NO_COLOR set");
    assert!(human(&[("CARGO_TERM_COLOR", "always")], &["check"]));
    assert!(!human(
        &[("CARGO_TERM_COLOR", "always")],
        &["check", "--color", "never"]
    ));
    assert!(human(&[], &["check", "--color", "always"]));
}

#[test]
fn quiet_drops_the_summary_and_verbose_adds_counts_per_rule() {
    let ws = one_crate("pub fn cap(healthy: usize) -> usize { healthy * 8 }\n");
    let normal = stdout(&capcheck_in(ws.path(), &["check"]));
    let quiet = stdout(&capcheck_in(ws.path(), &["check", "-q"]));
    let verbose = stdout(&capcheck_in(ws.path(), &["check", "--verbose"]));
    assert!(normal.contains("capcheck: 1 finding"), "{normal}");
    assert!(
        quiet.contains("per-unit-cap") && !quiet.contains("capcheck: 1 finding"),
        "{quiet}"
    );
    assert!(
        verbose.starts_with(&normal) && verbose.contains("  per-unit-cap: 1\n"),
        "{verbose}"
    );
    let out = capcheck_in(ws.path(), &["check", "-q", "-v"]);
    assert_eq!(out.status.code(), Some(2), "-q and -v conflict");
}

#[test]
fn a_capacity_found_by_its_flow_carries_the_path_in_json() {
    let (_, report) = check_json("rules", &[]);
    let outbox = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["item"] == "Limits::new(outbox)")
        .expect("the literal given to Limits::new is reported");
    assert_eq!(outbox["value"], 65536, "1024 * 64 is one literal");
    let path: Vec<(&str, u64)> = outbox["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["note"].as_str().unwrap(), s["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        path,
        [
            ("flows into outbox", 15),
            ("flows into Limits.outbox", 16),
            ("flows into mpsc::channel", 24)
        ]
    );
    // A capacity a name found has no path.
    let named = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["item"] == "MAX_INFLIGHT_DECODES")
        .unwrap();
    assert!(named.get("path").is_none());
}

/// What the new declaration forms say, as a user reads them: a factor in its product, with the
/// API it sizes; an environment helper's fallback by its variable; a newtype by its path.
#[test]
fn a_factor_is_shown_in_its_product_and_a_helper_s_fallback_by_its_variable() {
    let (_, report) = check_json("rules", &[]);
    let messages: Vec<(&str, u64, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap(),
            )
        })
        .collect();
    let said = |file: &str, text: &str| {
        assert!(
            messages.iter().any(|(f, _, m)| *f == file && *m == text),
            "{file}: no finding says {text:?}"
        );
    };
    said(
        "src/apis.rs",
        "the factor 2 in `n * 2` is a capacity nobody measured (it sizes Semaphore::new)",
    );
    said(
        "src/apis.rs",
        "the factor 2 in `max * 2` is a capacity nobody measured (it sizes \
         .max_concurrent_uni_streams())",
    );
    said(
        "src/declared.rs",
        "`$S3_MAX_CONCURRENCY` falling back to 10000 is a capacity nobody measured",
    );
    said(
        "src/declared.rs",
        "`queue::Capacity` with 1000 is a capacity nobody measured",
    );
    // The CPU count scaled into a capacity-named place, and a capacity constant's multiple.
    said(
        "src/declared.rs",
        "the factor 2 in `divide_num_cpus(2)` is a capacity nobody measured (it sizes \
         EngineConfig.num_workers)",
    );
    said(
        "src/declared.rs",
        "the factor 3 in `cpu_count() / 3` is a capacity nobody measured (it sizes \
         default_merge_concurrency())",
    );
    said(
        "src/apis.rs",
        "the factor 2 in `REQUEST_BATCH_SIZE * 2` is a capacity nobody measured (it sizes \
         PRODUCER_CHANNEL_SIZE)",
    );
    // The count's factor is the per-unit cap's finding alone.
    let gate = messages
        .iter()
        .filter(|(f, _, m)| *f == "src/per_unit.rs" && m.starts_with("the factor 8"))
        .count();
    assert_eq!(gate, 0, "{messages:?}");
}

/// `check --format json` on fixtures/rules with `CAPCHECK_TRACE` set to `trace`.
fn traced_rules_check(trace: &str) -> std::process::Output {
    let manifest = fixture("rules").join("Cargo.toml");
    capcheck_env(
        &fixture("rules"),
        &[("CAPCHECK_TRACE", trace)],
        &[
            "check",
            "--format",
            "json",
            "--manifest-path",
            manifest.to_str().unwrap(),
        ],
    )
}

#[test]
fn the_phase_trace_names_each_phase_of_a_load_on_stderr_only() {
    let out = traced_rules_check("phases");
    let err = stderr(&out);
    for phase in [
        "discover",
        "prescan",
        "walk",
        "index",
        "late pass",
        "pin trace",
    ] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("capcheck: phase {phase} "))
                    && l.contains(" ms, cpu ")
                    && l.ends_with(" ms")),
            "no {phase} line in {err}"
        );
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["findings"].as_array().is_some_and(|f| !f.is_empty()));
}

/// A file no module declares is left out of the run, silently (`fixtures/rules/src/left_behind.rs`
/// holds two capacity-named constants and no finding), and `CAPCHECK_TRACE=undeclared` names it
/// on stderr, and only it.
#[test]
fn the_undeclared_trace_names_the_files_no_module_declares() {
    let out = traced_rules_check("undeclared");
    let err = stderr(&out);
    let traced: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("capcheck: no module declares "))
        .collect();
    assert_eq!(
        traced,
        ["capcheck: no module declares src/left_behind.rs: not read"],
        "{err}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    assert!(
        findings
            .iter()
            .all(|f| f["file"].as_str() != Some("src/left_behind.rs")),
        "{findings:?}"
    );
}

/// A method called through a trait in the package that defines it (`c.queue_size()` in `sys`)
/// returns what the impls in the packages that depend on it return: the literal given to
/// `Count::new` in `worker` sizes `sys`'s channel. A package that does not depend on `sys`
/// (`other`) has a `queue_size` of its own, which sizes nothing.
#[test]
fn a_value_returned_through_a_trait_of_another_package_is_followed() {
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"sys\", \"worker\", \"other\"]\nresolver = \"2\"\n",
        ),
        ("sys/Cargo.toml", &member_of("sys", "")),
        (
            "sys/src/lib.rs",
            "pub trait Component {\n    fn queue_size(&self) -> usize;\n}\n\npub fn start<C: Component>(c: &C) -> std::sync::mpsc::Receiver<u8> {\n    let (_tx, rx) = std::sync::mpsc::sync_channel(c.queue_size());\n    rx\n}\n",
        ),
        (
            "worker/Cargo.toml",
            &member_of("worker", "sys = { path = \"../sys\" }\n"),
        ),
        (
            "worker/src/lib.rs",
            "pub struct Count {\n    queue: usize,\n}\n\nimpl Count {\n    pub fn new(queue: usize) -> Self {\n        Count { queue }\n    }\n}\n\nimpl sys::Component for Count {\n    fn queue_size(&self) -> usize {\n        self.queue\n    }\n}\n\npub fn make() -> Count {\n    Count::new(1000)\n}\n",
        ),
        ("other/Cargo.toml", &member_of("other", "")),
        (
            "other/src/lib.rs",
            "pub trait Sized2 {\n    fn queue_size(&self) -> usize;\n}\n\npub struct Other {\n    queue: usize,\n}\n\nimpl Sized2 for Other {\n    fn queue_size(&self) -> usize {\n        self.queue\n    }\n}\n\npub fn make() -> Other {\n    Other { queue: 77 }\n}\n",
        ),
    ]);
    let notes = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        capacities_in_both_parses(ws.path()),
        [(
            "worker/src/lib.rs".to_string(),
            18,
            notes(&[
                "flows into queue",
                "flows into Count.queue",
                "flows into .queue_size()",
                "flows into sync_channel",
            ])
        )]
    );
}

/// A server reads its config crate's field without naming the type
/// (`cfg.server.request_buffer_size`): a field name of three words or more is followed into the
/// packages the reader depends on; a two-word one (`read_lanes`) is anyone's and is not.
#[test]
fn a_distinctive_field_read_from_a_config_crate_is_followed() {
    let found = found_in_config_and_server(
        "pub struct Server {\n    pub request_buffer_size: usize,\n    pub read_lanes: usize,\n}\n\nimpl Default for Server {\n    fn default() -> Self {\n        Server {\n            request_buffer_size: 50,\n            read_lanes: 6,\n        }\n    }\n}\n\npub struct Settings {\n    pub server: Server,\n}\n",
        "pub fn gates(cfg: &config::Settings) -> (tokio::sync::Semaphore, tokio::sync::Semaphore) {\n    (\n        tokio::sync::Semaphore::new(cfg.server.request_buffer_size),\n        tokio::sync::Semaphore::new(cfg.server.read_lanes),\n    )\n}\n",
    );
    assert_eq!(found, [("config/src/lib.rs".to_string(), 9)]);
}

/// A server reads its config crate's setting through a getter (restate's
/// `storage.rocksdb_max_sub_compactions()` into rocksdb's `set_max_subcompactions`): a method
/// name of three words or more is one type's, and its result is followed into the packages the
/// caller depends on; a two-word getter (`read_lanes()`) is anyone's and is not. The getter's
/// zero guard (`if n == 0 { 1 } else { n }`) is a floor, not a capacity.
#[test]
fn a_distinctive_getter_of_a_config_crate_is_followed() {
    let found = found_in_config_and_server(
        "pub struct Storage {\n    max_sub_compactions: u32,\n    lanes: u32,\n}\n\nimpl Default for Storage {\n    fn default() -> Self {\n        Storage {\n            max_sub_compactions: 3,\n            lanes: 6,\n        }\n    }\n}\n\nimpl Storage {\n    pub fn rocksdb_max_sub_compactions(&self) -> u32 {\n        if self.max_sub_compactions == 0 {\n            1\n        } else {\n            self.max_sub_compactions\n        }\n    }\n\n    pub fn read_lanes(&self) -> u32 {\n        self.lanes\n    }\n}\n",
        "pub fn open(cfg: &config::Storage, db: &mut rocksdb::Options) {\n    db.set_max_subcompactions(cfg.rocksdb_max_sub_compactions());\n    db.set_max_subcompactions(cfg.read_lanes());\n}\n",
    );
    assert_eq!(found, [("config/src/lib.rs".to_string(), 9)]);
}

/// A method of two words defined in a crate the caller depends on (pathfinder's
/// `storage_manager.create_pool(NonZeroU32::new(5 + cpus))` in its binary, the pool built in its
/// `storage` crate) is followed into that crate, as one of three words is; a one-word method
/// (`.pool(..)`) may be anyone's and is not. A 1 given to a parameter some definition of the
/// method names for a minimum is a floor, even where another definition names it otherwise
/// (tikv's `thread_count(min_thread_count, ..)` beside `thread_count(thread_count)`).
#[test]
fn a_two_word_method_of_a_dependency_crate_is_followed() {
    let found = found_in_config_and_server(
        "pub struct Manager;\n\nimpl Manager {\n    pub fn create_pool(&self, capacity: usize) {\n        let _ = tokio::sync::Semaphore::new(capacity);\n    }\n\n    pub fn pool(&self, capacity: usize) {\n        let _ = tokio::sync::Semaphore::new(capacity);\n    }\n\n    pub fn thread_count(&self, min_thread_count: usize, max_thread_count: usize) {\n        let _ = tokio::sync::Semaphore::new(min_thread_count.max(max_thread_count));\n    }\n}\n\npub struct Workers;\n\nimpl Workers {\n    pub fn thread_count(&self, thread_count: usize) {\n        let _ = tokio::sync::Semaphore::new(thread_count);\n    }\n}\n",
        "pub fn open(m: &config::Manager) {\n    m.create_pool(8);\n    m.pool(9);\n    m.thread_count(1, 4);\n}\n",
    );
    assert_eq!(
        found,
        [
            ("server/src/lib.rs".to_string(), 2),
            ("server/src/lib.rs".to_string(), 4)
        ]
    );
}

/// Where `check --workspace` finds capacities (file, line) in a workspace of a `config` crate
/// and a `server` crate that depends on it, the same with and without `--full-parse`.
fn found_in_config_and_server(config: &str, server: &str) -> Vec<(String, u64)> {
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"config\", \"server\"]\nresolver = \"2\"\n",
        ),
        ("config/Cargo.toml", &member_of("config", "")),
        ("config/src/lib.rs", config),
        (
            "server/Cargo.toml",
            &member_of("server", "config = { path = \"../config\" }\n"),
        ),
        ("server/src/lib.rs", server),
    ]);
    capacities_in_both_parses(ws.path())
        .into_iter()
        .map(|(f, l, _)| (f, l))
        .collect()
}

/// A call of another crate's associated function with a capacity parameter
/// (`AsyncLru::new(rt, size, 8, 200, ..)`, `queue_size: usize` in the `lru` crate the caller
/// depends on) sets that capacity, even where the caller's crate has functions of the same name;
/// a crate the caller does not depend on is not looked in.
#[test]
fn a_capacity_parameter_of_a_dependency_crate_is_set_by_its_callers() {
    let lru = "pub struct AsyncLru;\n\nimpl AsyncLru {\n    pub fn new(max_size: u64, queue_size: usize, label: &'static str) -> Self {\n        let _ = (max_size, queue_size, label);\n        AsyncLru\n    }\n}\n";
    let ws = scratch(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"lru\", \"other\", \"search\"]\nresolver = \"2\"\n",
        ),
        ("lru/Cargo.toml", &member_of("lru", "")),
        ("lru/src/lib.rs", lru),
        ("other/Cargo.toml", &member_of("other", "")),
        ("other/src/lib.rs", &lru.replace("AsyncLru", "Lane")),
        (
            "search/Cargo.toml",
            &member_of("search", "lru = { path = \"../lru\" }\n"),
        ),
        (
            "search/src/lib.rs",
            "pub struct Index;\n\nimpl Index {\n    pub fn new(workers: usize) -> Self {\n        let _ = workers;\n        Index\n    }\n}\n\npub fn cache(size: u64) -> lru::AsyncLru {\n    let _ = Lane::new(size, 50, \"lane\");\n    lru::AsyncLru::new(size, 200, \"cache\")\n}\n\npub struct Lane;\n",
        ),
    ]);
    let found = capacities_in_both_parses(ws.path());
    let at: Vec<(&str, u64)> = found.iter().map(|(f, l, _)| (f.as_str(), *l)).collect();
    assert_eq!(at, [("search/src/lib.rs", 12)]);
}

/// A workspace member's manifest with these `[dependencies]` lines.
fn member_of(name: &str, deps: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"
    )
}

/// The `unmeasured-capacity` findings of `check --workspace` in `ws` (file, line, the notes of
/// its path), the same with and without `--full-parse`.
fn capacities_in_both_parses(ws: &std::path::Path) -> Vec<(String, u64, Vec<String>)> {
    let run = |extra: &[&str]| {
        let mut args = vec!["--format", "json", "--workspace"];
        args.extend_from_slice(extra);
        let out = capcheck_in(ws, &args);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "unmeasured-capacity")
            .map(|f| {
                let notes = f["path"].as_array().map_or_else(Vec::new, |p| {
                    p.iter()
                        .map(|s| s["note"].as_str().unwrap().to_string())
                        .collect()
                });
                (
                    f["file"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                    notes,
                )
            })
            .collect::<Vec<_>>()
    };
    let sparse = run(&[]);
    assert_eq!(
        sparse,
        run(&["--full-parse"]),
        "sparse and full parse differ"
    );
    sparse
}

/// A root package without a `[workspace]` table is its own workspace, and cargo makes none of
/// its path dependencies members. Those inside its folder are still the project's code, compiled
/// into its binary: `check` reads them, and theirs in turn (`pool` -> `limits`). A
/// dev-dependency is test support, and a path dependency outside the folder is someone else's.
#[test]
fn a_single_package_root_s_path_dependencies_inside_its_folder_are_checked() {
    let cap = |name: &str, n: u32| {
        format!(
            "pub fn {name}() -> tokio_like::Semaphore {{\n    tokio_like::Semaphore::new({n})\n}}\n\npub mod tokio_like {{\n    pub struct Semaphore;\n    impl Semaphore {{\n        pub fn new(_n: u32) -> Self {{ Semaphore }}\n    }}\n}}\n"
        )
    };
    let ws = scratch(&[
        (
            "app/Cargo.toml",
            &member_of(
                "gateway",
                "pool = { path = \"crates/pool\" }\nshared = { path = \"../shared\" }\n\n[dev-dependencies]\ntestkit = { path = \"crates/testkit\" }\n",
            ),
        ),
        (
            "app/src/main.rs",
            &format!("fn main() {{}}\n\n{}", cap("gate", 8)),
        ),
        (
            "app/crates/pool/Cargo.toml",
            &member_of("pool", "limits = { path = \"../limits\" }\n"),
        ),
        ("app/crates/pool/src/lib.rs", &cap("pool", 16)),
        ("app/crates/limits/Cargo.toml", &member_of("limits", "")),
        ("app/crates/limits/src/lib.rs", &cap("limits", 32)),
        ("app/crates/testkit/Cargo.toml", &member_of("testkit", "")),
        ("app/crates/testkit/src/lib.rs", &cap("testkit", 64)),
        ("shared/Cargo.toml", &member_of("shared", "")),
        ("shared/src/lib.rs", &cap("shared", 128)),
    ]);
    let out = capcheck_in(&ws.path().join("app"), &["--format", "json"]);
    let (code, report) = json_of(&out);
    assert_eq!(code, 1, "{}", stderr(&out));
    let mut values: Vec<(String, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["value"].as_u64().unwrap(),
            )
        })
        .collect();
    values.sort();
    assert_eq!(
        values,
        [
            ("crates/limits/src/lib.rs".to_string(), 32),
            ("crates/pool/src/lib.rs".to_string(), 16),
            ("src/main.rs".to_string(), 8),
        ]
    );
    // `mutants` reads them too but mutates only the root package: `cargo test` at the root runs
    // none of their tests.
    let out = capcheck_in(
        &ws.path().join("app"),
        &["mutants", "--list", "--format", "json"],
    );
    let (code, list) = json_of(&out);
    assert_eq!(code, 0, "{}", stderr(&out));
    let files: std::collections::BTreeSet<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        ["src/main.rs".to_string()].into_iter().collect(),
        "{list:#}"
    );
}

#[test]
fn a_mock_only_another_packages_tests_name_is_test_support() {
    // cnosdb's `impl DatabaseManagerSystem for DatabaseManagerSystemMock`, named only by the
    // test modules of the server crate that depends on it: its bound is test set-up. Where that
    // crate's production code names the type too, the bound is a capacity like any other.
    let spi = "pub struct Semaphore;\n\
               impl Semaphore { pub fn new(_n: usize) -> Self { Semaphore } }\n\
               pub trait Dbms { fn permits(&self) -> Semaphore; }\n\
               pub struct DbmsMock;\n\
               impl Dbms for DbmsMock {\n    fn permits(&self) -> Semaphore { Semaphore::new(2) }\n}\n";
    let app_tests = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn serves() {\n        \
                     let _m = spi::DbmsMock;\n    }\n}\n";
    let dep = "[dependencies]\nspi = { path = \"../spi\" }\n";
    for (production, expected) in [
        ("", vec![]),
        (
            "pub fn backend() -> spi::DbmsMock { spi::DbmsMock }\n",
            vec!["spi/src/lib.rs".to_string()],
        ),
    ] {
        let app = format!("{production}{app_tests}");
        let ws = scratch(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"spi\", \"app\"]\nresolver = \"2\"\n",
            ),
            ("spi/Cargo.toml", &MEMBER.replace("NAME", "spi")),
            ("spi/src/lib.rs", spi),
            ("app/Cargo.toml", &(MEMBER.replace("NAME", "app") + dep)),
            ("app/src/lib.rs", &app),
        ]);
        let (_, r) = json_of(&capcheck_in(
            ws.path(),
            &["--workspace", "--format", "json"],
        ));
        let found: Vec<String> = rules_and_lines(&r).into_iter().map(|(_, f, _)| f).collect();
        assert_eq!(found, expected, "production names it: {production:?}");
    }
}
