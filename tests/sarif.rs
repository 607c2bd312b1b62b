//! `--format sarif` of every job: valid against the official SARIF 2.1.0 schema
//! (tests/data/sarif-schema-2.1.0.json), repository-relative paths, and fingerprints that a blank
//! line above a finding does not change.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::*;

/// Panics with every schema error of `doc`.
pub fn assert_valid(doc: &Value) {
    let schema: Value = serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let wrong = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{}]}]});
    assert!(!validator.is_valid(&wrong), "the schema is enforced");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
}

fn sarif_in(dir: &Path, args: &[&str]) -> Value {
    let out = capcheck_in(dir, args);
    json_of(&out).1
}

fn results(doc: &Value) -> &Vec<Value> {
    doc["runs"][0]["results"].as_array().unwrap()
}

/// `(rule, fingerprint)` of every result.
fn prints(doc: &Value) -> Vec<(String, String)> {
    results(doc)
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap().to_string(),
                r["partialFingerprints"]["capcheck/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

fn start_lines(doc: &Value) -> Vec<u64> {
    results(doc)
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

fn prepend_blank_line(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, format!("\n{text}")).unwrap();
}

const LIB: &str = "pub fn cap(healthy: usize) -> usize { healthy * 8 }\n\
                   pub fn cap_again(healthy: usize) -> usize { healthy * 8 }\n";

#[test]
fn check_sarif_is_valid_repository_relative_and_its_fingerprints_survive_a_line_shift() {
    let repo = scratch(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "tools/ws/Cargo.toml",
            "[package]\nname = \"one\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        ("tools/ws/src/lib.rs", LIB),
    ]);
    let ws = repo.path().join("tools/ws");
    let before = sarif_in(&ws, &["check", "--format", "sarif"]);
    assert_valid(&before);
    let run = &before["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "cargo-capcheck");
    assert_eq!(
        run["tool"]["driver"]["informationUri"],
        env!("CARGO_PKG_REPOSITORY")
    );
    assert_eq!(
        run["automationDetails"]["id"],
        "cargo-capcheck/check/tools/ws/"
    );
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let per_unit = rules.iter().find(|r| r["id"] == "per-unit-cap").unwrap();
    assert_eq!(per_unit["name"], "PerUnitCap");
    assert!(
        per_unit["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Why is this bad?")
    );
    assert_eq!(per_unit["defaultConfiguration"]["level"], "warning");
    let found = results(&before);
    assert_eq!(found.len(), 2, "{before:#}");
    let loc = &found[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "tools/ws/src/lib.rs");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(base.starts_with("file://") && base.ends_with('/'), "{base}");
    assert!(loc["region"]["endColumn"].as_u64() > loc["region"]["startColumn"].as_u64());
    assert_eq!(found[0]["level"], "warning");
    let p = prints(&before);
    assert_ne!(p[0].1, p[1].1, "two identical expressions are two findings");

    insta::assert_json_snapshot!("sarif_check_in_a_subfolder", before, {
        ".runs[0].originalUriBaseIds.*.uri" => "[repository root]",
        ".runs[0].tool.driver.version" => "[version]",
        ".runs[0].tool.driver.semanticVersion" => "[version]",
        ".runs[0].tool.driver.rules[].help" => "[rules/<id>.toml]",
        ".runs[0].tool.driver.rules[].fullDescription" => "[rules/<id>.toml]",
    });

    prepend_blank_line(&ws.join("src/lib.rs"));
    let after = sarif_in(&ws, &["check", "--format", "sarif"]);
    assert_eq!(prints(&after), p);
    assert_eq!(start_lines(&after), vec![2, 3]);

    // A new finding of the same text in a new function above keeps the others' identities.
    let lib = std::fs::read_to_string(ws.join("src/lib.rs")).unwrap();
    let first = "pub fn cap_first(healthy: usize) -> usize { healthy * 8 }\n";
    std::fs::write(ws.join("src/lib.rs"), format!("{first}{lib}")).unwrap();
    let more = prints(&sarif_in(&ws, &["check", "--format", "sarif"]));
    assert_eq!(more.len(), 3);
    assert_eq!(more[1..], p[..]);
}

#[test]
fn every_rule_s_findings_are_valid_sarif_with_their_related_places() {
    let doc = sarif_in(&fixture("rules"), &["check", "--format", "sarif"]);
    assert_valid(&doc);
    let found = results(&doc);
    let rules: std::collections::BTreeSet<&str> = found
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(rules.contains("invalid-suppression") && rules.contains("stale-measurement"));
    assert!(found.iter().any(|r| r["relatedLocations"].is_array()));
    assert!(found.iter().any(|r| r["level"] == "error"));
    // A capacity the flow found carries its path as a code flow: the literal, then each place.
    let fetches = found
        .iter()
        .find(|r| r["properties"]["item"] == "DEFAULT_FETCHES")
        .expect("DEFAULT_FETCHES is reported");
    let steps: Vec<(&str, u64)> = fetches["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .expect("a code flow")
        .iter()
        .map(|l| {
            (
                l["location"]["message"]["text"].as_str().unwrap(),
                l["location"]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("typed by hand: 50", 7),
            ("flows into Limits::new(fetches)", 30),
            ("flows into fetches", 15),
            ("flows into Limits.fetches", 16),
            ("flows into Semaphore::new", 20)
        ]
    );
}

#[test]
fn fixtures_sarif_is_valid_and_its_fingerprints_survive_a_line_shift() {
    let ws = copy_fixture("seed-2-measured");
    std::fs::create_dir_all(ws.path().join(".git")).unwrap();
    let before = sarif_in(ws.path(), &["fixtures", "--format", "sarif"]);
    assert_valid(&before);
    assert_eq!(
        before["runs"][0]["automationDetails"]["id"],
        "cargo-capcheck/fixtures/"
    );
    assert!(!results(&before).is_empty(), "{before:#}");
    assert!(results(&before).iter().all(|r| r["level"] == "note"));
    let lines = start_lines(&before);
    prepend_blank_line(&ws.path().join("tests/controller.rs"));
    let after = sarif_in(ws.path(), &["fixtures", "--format", "sarif"]);
    assert_eq!(prints(&after), prints(&before));
    assert_eq!(
        start_lines(&after),
        lines.iter().map(|l| l + 1).collect::<Vec<_>>()
    );
}

/// A mutants report in which every listed mutant survived, as `mutants` would write it: `merge`
/// renders it without building anything.
fn all_survive(ws: &Path) -> Value {
    let (_, listed) = json_of(&capcheck_in(ws, &["mutants", "--list", "--format", "json"]));
    let mutants: Vec<Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mut m = m.clone();
            let extra = json!({"outcome": "survived", "duration_ms": 1, "killed_by": [],
                "tests_run": 3, "ran": ["t"], "explanation": "survived because both boxes match",
                "log": "logs/x.log"});
            m.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            m
        })
        .collect();
    let n = mutants.len();
    let report = json!({"version": 1, "mutants": mutants, "summary": {
        "mutants": n, "killed": 0, "survived": n, "timeout": 0, "unviable": 0, "uncovered": 0,
        "score": 0.0, "guards_failed": [], "baseline": {"build_ms": 1, "test_ms": 1, "tests": 3},
        "elapsed_ms": 1, "shard": null}});
    let dir = ws.join("target/fake-run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mutants.json"), report.to_string()).unwrap();
    let into = ws.join("target/merged");
    let _ = std::fs::remove_dir_all(&into);
    let out = merge_run(ws, &dir, &into, "sarif");
    let doc = json_of(&out).1;
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(into.join("survivors.sarif")).unwrap())
            .unwrap();
    assert_eq!(written, doc, "survivors.sarif is the same generator");
    doc
}

#[test]
fn mutants_sarif_is_valid_explains_survivors_and_its_fingerprints_survive_a_line_shift() {
    let ws = copy_fixture("seed-2-measured");
    std::fs::create_dir_all(ws.path().join(".git")).unwrap();
    let before = all_survive(ws.path());
    assert_valid(&before);
    assert_eq!(
        before["runs"][0]["automationDetails"]["id"],
        "cargo-capcheck/mutants/"
    );
    let found = results(&before);
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|r| r["level"] == "warning"),
        "a survivor is a warning"
    );
    let text = found[0]["message"]["text"].as_str().unwrap();
    assert!(text.contains("survived because both boxes match"), "{text}");
    prepend_blank_line(&ws.path().join("src/lib.rs"));
    let after = all_survive(ws.path());
    assert_eq!(prints(&after), prints(&before));
    assert_eq!(
        start_lines(&after),
        start_lines(&before)
            .iter()
            .map(|l| l + 1)
            .collect::<Vec<_>>()
    );
}

#[test]
fn github_format_appends_a_step_summary_with_counts_per_rule() {
    let ws = one_crate(LIB);
    let summary = ws.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = capcheck_env(
        ws.path(),
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
        &["check", "--format", "github"],
    );
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n### cargo capcheck check"),
        "{md}"
    );
    assert!(md.contains("| `per-unit-cap` | warning | 2 |"), "{md}");
    assert!(md.contains("src/lib.rs:1:"), "{md}");
}
