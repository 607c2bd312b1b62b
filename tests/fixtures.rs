//! `fixtures`: annotated cases, the seed's measured-capacity stage, and the third box that makes
//! its report disappear.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::*;

/// `fixtures --format json` on the workspace whose manifest is `manifest`.
fn fixtures_json(manifest: &Path) -> (i32, serde_json::Value) {
    let out = capcheck(&[
        "fixtures",
        "--format",
        "json",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]);
    json_of(&out)
}

type Expected = BTreeMap<(String, usize), (String, Vec<String>)>;

/// `(file, line) -> (scope, identical fields)` from the `//~ SCOPE: FIELDS` annotations.
fn annotations(root: &Path) -> Expected {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap();
        let rel = rel.to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some((_, note)) = line.split_once("//~ ") {
                let (scope, fields) = note.split_once(':').expect("`//~ SCOPE: FIELDS`");
                let fields = fields.split_whitespace().map(String::from).collect();
                out.insert((rel.clone(), i + 1), (scope.to_string(), fields));
            }
        }
    }
    out
}

/// The reports on Rust sources, in the annotations' shape.
fn found(report: &serde_json::Value) -> Expected {
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    report["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"].as_str().unwrap().ends_with(".rs"))
        .map(|f| {
            let key = (
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap() as usize,
            );
            let scope = f["scope"].as_str().unwrap().to_string();
            (key, (scope, strings(&f["identical"])))
        })
        .collect()
}

#[test]
fn every_annotated_case_is_reported_and_every_other_line_is_silent() {
    let root = fixture("diversity");
    let (code, report) = fixtures_json(&root.join("Cargo.toml"));
    assert_eq!(code, 0, "reports are information");
    assert_eq!(found(&report), annotations(&root));
    insta::assert_json_snapshot!("diversity", report);
}

#[test]
fn seed_stage_2_reports_two_boxes_identical_along_every_capacity_input() {
    let (code, report) = fixtures_json(&fixture("seed-2-measured").join("Cargo.toml"));
    assert_eq!(code, 0);
    insta::assert_json_snapshot!("seed_2_measured", report);
    let all = report["fixtures"].as_array().unwrap();
    assert_eq!(all.len(), 1, "{report:#}");
    let two = &all[0];
    assert_eq!(two["function"], "two_boxes");
    assert_eq!(
        (two["file"].as_str(), two["line"].as_u64()),
        (Some("tests/controller.rs"), Some(3))
    );
    assert_eq!(
        two["identical"],
        serde_json::json!(["kv_cache_tokens", "max_num_seqs", "p90_prompt_tokens"])
    );
    assert_eq!(two["varying"], serde_json::json!(["name"]));
}

#[test]
fn a_third_different_box_makes_the_two_boxes_report_disappear() {
    let copy = copy_fixture("seed-2-measured");
    let tests = copy.path().join("tests/controller.rs");
    let text = std::fs::read_to_string(&tests).unwrap();
    let third = "        BoxSpec { name: \"box-c\", kv_cache_tokens: 3_000_000, max_num_seqs: 256, p90_prompt_tokens: 50_000 },\n    ]";
    let edited = text.replacen("\n    ]", &format!("\n{third}"), 1);
    assert_ne!(edited, text, "the fixture's vec! closes with `    ]`");
    std::fs::write(&tests, edited).unwrap();
    let (code, report) = fixtures_json(&copy.path().join("Cargo.toml"));
    assert_eq!(code, 0);
    assert_eq!(report["fixtures"], serde_json::json!([]), "{report:#}");
}

#[test]
fn human_output_labels_the_identical_fields_without_colour() {
    let manifest = fixture("seed-2-measured").join("Cargo.toml");
    let out = capcheck(&["fixtures", "--manifest-path", manifest.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "`two_boxes()` are identical along kv_cache_tokens, max_num_seqs and p90_prompt_tokens"
        ),
        "{text}"
    );
    assert!(text.contains("`max_num_seqs` is 160 in both"), "{text}");
    assert!(text.contains("capcheck: 1 fixture report"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour when not a terminal");
}

#[test]
fn explain_prints_the_identical_fixture_docs() {
    let out = capcheck(&["explain", "identical-fixture"]);
    assert_eq!(out.status.code(), Some(0));
    let docs = stdout(&out);
    assert!(
        docs.starts_with("# identical-fixture (report, default level: note)"),
        "{docs}"
    );
    assert!(docs.contains("## Why is this bad?"), "{docs}");
}

#[test]
fn github_format_gives_one_notice_per_report() {
    let manifest = fixture("seed-2-measured").join("Cargo.toml");
    let out = capcheck(&[
        "fixtures",
        "--format",
        "github",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "::notice file=tests/controller.rs,line=3,col=1,title=identical-fixture::the 2 `BoxSpec` \
         values of `two_boxes` are identical along kv_cache_tokens, max_num_seqs, \
         p90_prompt_tokens\n"
    );
}

/// A report with its place left out: what it says about the fixture.
fn without_place(report: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out = report["fixtures"].as_array().unwrap().clone();
    for r in &mut out {
        let r = r.as_object_mut().unwrap();
        r.remove("file");
        r.remove("line");
    }
    out
}

#[test]
fn an_out_of_line_test_module_is_test_code_like_an_inline_one() {
    let (code, inline) = fixtures_json(&fixture("test-module-inline").join("Cargo.toml"));
    assert_eq!(code, 0);
    let (code, outline) = fixtures_json(&fixture("test-module-outline").join("Cargo.toml"));
    assert_eq!(code, 0);
    let reports = without_place(&inline);
    assert_eq!(reports.len(), 2, "{inline}");
    assert_eq!(without_place(&outline), reports);
    let files: Vec<&str> = outline["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["src/tests.rs", "src/tests.rs"]);
}
