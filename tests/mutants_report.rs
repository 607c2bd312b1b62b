//! The survivor report a reviewer acts on: one severity per verdict in every format, the mutants
//! of one span grouped, and a next step for every survivor. The run is data (the verdicts below,
//! given to the real list of a fixture's mutants), rendered by `mutants merge` without building
//! anything; `tests/mutants.rs` runs real mutants and checks the step reaches `mutants.json`.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{capcheck_in, copy_fixture, json_of, merge_run, stdout};

/// The story's measured controller: which of its listed mutants survive, and with what fixture
/// explanation (the sentence the fixture analysis gives; `None`: it explains nothing).
const VERDICTS: &[(&str, &str, Option<&str>)] = &[
    // Three of PER_BACKEND's five perturbations pass: one finding, not three.
    (
        "perturb-capacity:src/lib.rs:PER_BACKEND:402ad460",
        "survived",
        None,
    ),
    (
        "perturb-capacity:src/lib.rs:PER_BACKEND:5d9b02c2",
        "survived",
        None,
    ),
    (
        "perturb-capacity:src/lib.rs:PER_BACKEND:9d35e72e",
        "survived",
        None,
    ),
    (
        "swap-min-max:src/lib.rs:Controller::per_box:42d9eb30",
        "survived",
        Some(
            "survived because both boxes in `two_boxes()` (tests/controller.rs:3) have the same \
             kv_cache_tokens, p90_prompt_tokens and max_num_seqs, so the narrowest and the widest \
             box are the same box: vary one of them",
        ),
    ),
    (
        "reinstate-cap:src/lib.rs:Controller::fleet_ceiling:f5cce371",
        "survived",
        None,
    ),
    (
        "boundary-shift:src/lib.rs:run_burst:93369ce2",
        "survived",
        None,
    ),
];

/// Write the run as `mutants` would (every other listed mutant killed) and return the folder.
fn run_of(ws: &Path) -> std::path::PathBuf {
    let (_, listed) = json_of(&capcheck_in(ws, &["mutants", "--list", "--format", "json"]));
    let mutants: Vec<Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let id = m["id"].as_str().unwrap();
            let verdict = VERDICTS.iter().find(|(v, _, _)| *v == id);
            let (outcome, explanation) = match verdict {
                Some((_, o, e)) => (*o, Some(e.unwrap_or("no fixture explanation"))),
                None => ("killed", None),
            };
            let killed_by: Vec<&str> = if outcome == "killed" {
                vec!["burst_of_29"]
            } else {
                vec![]
            };
            let mut m = m.clone();
            let extra = json!({"outcome": outcome, "duration_ms": 1, "killed_by": killed_by,
                "tests_run": 3, "ran": ["burst_of_29", "fleet_ceiling"], "explanation": explanation,
                "log": format!("logs/{}.log", id.replace([':', '/'], "_"))});
            m.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            m
        })
        .collect();
    assert!(
        VERDICTS
            .iter()
            .all(|(id, _, _)| mutants.iter().any(|m| m["id"] == *id)),
        "every verdict names a listed mutant"
    );
    let n = mutants.len();
    let survived = VERDICTS.len();
    let report = json!({"version": 1, "mutants": mutants, "summary": {
        "mutants": n, "killed": n - survived, "survived": survived, "timeout": 0, "unviable": 0,
        "uncovered": 0, "score": 0.0, "guards_failed": [],
        "baseline": {"build_ms": 1, "test_ms": 1, "tests": 3}, "elapsed_ms": 1, "shard": null}});
    let dir = ws.join("target/fake-run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mutants.json"), report.to_string()).unwrap();
    dir
}

fn merged(ws: &Path, run: &Path, format: &str) -> String {
    let into = ws.join(format!("target/merged-{format}"));
    let out = merge_run(ws, run, &into, format);
    assert_eq!(out.status.code(), Some(1), "survivors fail the run");
    stdout(&out)
}

#[test]
fn survivors_are_grouped_by_span_with_one_severity_and_a_next_step_in_every_format() {
    let ws = copy_fixture("seed-2-measured");
    let run = run_of(ws.path());

    // JSON keeps one entry per mutant (the data), each survivor with its step.
    let report: Value = serde_json::from_str(&merged(ws.path(), &run, "json")).unwrap();
    let steps: Vec<Value> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "survived")
        .map(|m| json!({"id": m["id"], "next_step": m["next_step"]}))
        .collect();
    insta::assert_json_snapshot!("survivor_steps", steps);
    assert!(
        report["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["outcome"] == "killed")
            .all(|m| m.get("next_step").is_none()),
        "a killed mutant needs no step"
    );

    // SARIF: one warning per span; the three perturbations of PER_BACKEND are one result.
    let sarif: Value = serde_json::from_str(&merged(ws.path(), &run, "sarif")).unwrap();
    let results: Vec<Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!({
                "rule": r["ruleId"], "level": r["level"],
                "line": r["locations"][0]["physicalLocation"]["region"]["startLine"],
                "message": r["message"]["text"], "mutantIds": r["properties"]["mutantIds"],
                "kind": r["properties"]["nextStep"]["kind"],
            })
        })
        .collect();
    insta::assert_json_snapshot!("survivor_sarif", results);

    // GitHub annotations: the same groups, the same level.
    let github = merged(ws.path(), &run, "github");
    let annotations: Vec<&str> = github.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), results.len(), "{github}");
    assert!(
        annotations.iter().all(|a| a.starts_with("::warning ")),
        "{github}"
    );
    insta::assert_snapshot!("survivor_github", annotations.join("\n"));

    // The terminal: warnings, as elsewhere; no "no fixture explanation" note.
    let human = merged(ws.path(), &run, "human");
    assert!(!human.contains("Error"), "{human}");
    assert!(!human.contains("no fixture explanation"), "{human}");
    assert_eq!(human.matches("Warning").count(), results.len(), "{human}");
    insta::assert_snapshot!(
        "survivor_human",
        human.replace(ws.path().to_str().unwrap(), "[ws]")
    );
}
