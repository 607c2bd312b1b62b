//! Mutation operators on annotated fixtures: `//~ OP` in fixtures/operators names each mutant
//! `mutants --list` must find on that line, and no other line may get one; every operator in
//! the catalog has docs and a case there.

use std::collections::BTreeMap;

use crate::support::*;

/// The fixture as a repository whose history holds `history/lib.rs.old` as an earlier
/// `src/lib.rs` (for `history-revert`).
fn repository() -> tempfile::TempDir {
    let ws = copy_fixture("operators");
    let lib = std::fs::read_to_string(ws.path().join("src/lib.rs")).unwrap();
    let old = ws.path().join("history/lib.rs.old");
    std::fs::copy(&old, ws.path().join("src/lib.rs")).unwrap();
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-qm", "a per-unit cap"]);
    std::fs::write(ws.path().join("src/lib.rs"), lib).unwrap();
    git(ws.path(), &["commit", "-qam", "the cap is gone"]);
    ws
}

/// `mutants --list --from-history` on the repository.
fn listed() -> serde_json::Value {
    let ws = repository();
    let out = capcheck_in(
        ws.path(),
        &["mutants", "--list", "--from-history", "--format", "json"],
    );
    let (code, list) = json_of(&out);
    assert_eq!(code, 0, "{}", stderr(&out));
    list
}

#[test]
fn every_annotated_mutant_is_listed_and_no_other() {
    let mut found: BTreeMap<(String, usize), Vec<String>> = BTreeMap::new();
    for m in listed().as_array().unwrap() {
        let key = (
            m["file"].as_str().unwrap().to_string(),
            m["line"].as_u64().unwrap() as usize,
        );
        found
            .entry(key)
            .or_default()
            .push(m["operator"].as_str().unwrap().to_string());
    }
    for v in found.values_mut() {
        v.sort();
    }
    assert_eq!(found, annotations("operators"));
}

#[test]
fn every_operator_has_docs_and_a_case() {
    let out = capcheck(&["rules", "--format", "json"]);
    let entries: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let annotated: Vec<String> = annotations("operators").into_values().flatten().collect();
    let operators: Vec<&str> = entries
        .iter()
        .filter(|r| r["kind"] == "operator")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(operators.len() >= 8, "{operators:?}");
    for id in operators {
        assert!(
            annotated.iter().any(|a| a == id),
            "operator {id} has no `//~ {id}` case in fixtures/operators"
        );
        assert!(stdout(&capcheck(&["explain", id])).contains("## What it does"));
    }
}

#[test]
fn an_unknown_operator_is_a_usage_error() {
    let out = capcheck(&[
        "mutants",
        "--list",
        "--operator",
        "swap-min-mx",
        "--manifest-path",
        "fixtures/operators/Cargo.toml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown operator `swap-min-mx`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn every_listed_mutant_compiles() {
    // Each mutant is built and tested in a scratch copy: a mutant rustc rejects would be
    // `unviable`, which an operator must never make where a viable form exists.
    let ws = repository();
    let (build, scratch) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = capcheck_in(
        ws.path(),
        &[
            "mutants",
            "--from-history",
            "--format",
            "json",
            "--build-dir",
            build.path().to_str().unwrap(),
            "--scratch-dir",
            scratch.path().to_str().unwrap(),
        ],
    );
    let (_, report) = json_of(&out);
    let mutants = report["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), listed().as_array().unwrap().len());
    let unviable: Vec<&str> = mutants
        .iter()
        .filter(|m| m["outcome"] == "unviable")
        .map(|m| m["replacement"].as_str().unwrap())
        .collect();
    assert_eq!(unviable, Vec::<&str>::new(), "{}", stderr(&out));
}
