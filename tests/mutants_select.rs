//! `mutants` selection by the user: `--mutant`, `--skip-mutant`, `--exclude-file`,
//! `--exclude-re`, `[workspace.metadata.capcheck.mutants]`, `capcheck: skip-mutants(..)`
//! comments, and `--in-diff -`. Each case runs the real binary on a copy of the story's
//! measured stage.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Stdio;

use crate::mutants::copy;
use crate::support::*;

const LIB: &str = "src/lib.rs";

/// A case: its name, a source edit of src/lib.rs (`from`, `to`; empty: none), a config
/// `[..capcheck.mutants]` table (empty: none), the flags, and what should happen.
type Case<'a, T> = (&'a str, (&'a str, &'a str), &'a str, &'a [&'a str], T);

/// `--list` of a copy: the ids that would run (JSON) and `(id, what skipped it)` of the
/// skipped ones (the human list's `skipped ID (BY)` lines).
fn listed(c: &crate::mutants::Copy, extra: &[&str]) -> (BTreeSet<String>, Vec<(String, String)>) {
    let args = |fmt: &'static str| {
        let mut a = vec!["--list", "--format", fmt];
        a.extend_from_slice(extra);
        a
    };
    let run = |a: Vec<&str>| {
        let args = c.args(&a);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        capcheck_in(c.root(), &args)
    };
    let (code, list) = json_of(&run(args("json")));
    assert_eq!(code, 0, "{extra:?}");
    let ids = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    let human = run(args("human"));
    let skipped = stdout(&human)
        .lines()
        .filter_map(|l| l.strip_prefix("skipped   "))
        .map(|l| {
            let (id, by) = l.split_once(" (").unwrap();
            (id.to_string(), by.trim_end_matches(')').to_string())
        })
        .collect();
    (ids, skipped)
}

fn edit(c: &crate::mutants::Copy, file: &str, from: &str, to: &str) {
    let path = c.root().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has no `{from}`");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn config(c: &crate::mutants::Copy, table: &str) {
    let path = c.root().join("Cargo.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "\n[workspace.metadata.capcheck.mutants]\n{table}\n"
    ));
    std::fs::write(path, text).unwrap();
}

/// Each case: a source edit and a config table (either may be empty), the flags, and which
/// mutants end up skipped, by operator and function, with what skipped them. Everything not
/// skipped still runs.
#[test]
fn skips_and_exclusions_choose_what_runs_and_say_what_skipped_it() {
    let per_box = "        self.boxes.iter().map(BoxSpec::capacity).min().unwrap_or(PER_BACKEND)";
    let cases: &[Case<&[(&str, &str)]>] = &[
        ("nothing skipped", ("", ""), "", &[], &[]),
        (
            "a comment after code covers its line",
            (
                per_box,
                "__ // capcheck: skip-mutants(reason = \"equivalent: one box\")",
            ),
            "",
            &[],
            &[("swap-min-max", "comment src/lib.rs:30: equivalent: one box")],
        ),
        (
            "a comment above a fn covers the fn, for the operators it names",
            (
                "    pub fn per_box(",
                "    // capcheck: skip-mutants(swap-min-max, reason = \"narrowest == widest here\")\n    pub fn per_box(",
            ),
            "",
            &[],
            &[(
                "swap-min-max",
                "comment src/lib.rs:29: narrowest == widest here",
            )],
        ),
        (
            "--exclude-file skips a whole file",
            ("", ""),
            "",
            &["--exclude-file", "src/*.rs"],
            &[("*", "--exclude-file src/*.rs")],
        ),
        (
            "--exclude-re matches the name --list prints",
            ("", ""),
            "",
            &["--exclude-re", "halve `PER_BACKEND`"],
            &[("perturb-capacity", "--exclude-re halve `PER_BACKEND`")],
        ),
        (
            "the config's exclusions",
            ("", ""),
            "exclude-re = [\"^drop-clamp:\"]",
            &[],
            &[
                ("drop-clamp", "config exclude-re ^drop-clamp:"),
                ("drop-clamp", "config exclude-re ^drop-clamp:"),
            ],
        ),
    ];
    for (name, (from, to), table, flags, expected) in cases {
        let c = copy("seed-2-measured");
        let (all, _) = listed(&c, &[]);
        if !from.is_empty() {
            let to = to.replace("__", from);
            edit(&c, LIB, from, &to);
        }
        // `check` reads the skip comment as the mutants' and reports nothing about it.
        let (_, report) = json_of(&capcheck_in(c.root(), &["check", "--format", "json"]));
        let about_suppressions: Vec<_> = rules_and_lines(&report)
            .into_iter()
            .filter(|(rule, _, _)| rule.ends_with("-suppression"))
            .collect();
        assert_eq!(about_suppressions, vec![], "{name}: {report}");
        if !table.is_empty() {
            config(&c, table);
        }
        let (kept, skipped) = listed(&c, flags);
        let mut got: Vec<(String, String)> = skipped
            .iter()
            .map(|(id, by)| (id.split(':').next().unwrap().to_string(), by.clone()))
            .collect();
        let mut want: Vec<(String, String)> = expected
            .iter()
            .flat_map(|(op, by)| {
                if *op == "*" {
                    all.iter()
                        .map(|id| (id.split(':').next().unwrap().to_string(), by.to_string()))
                        .collect()
                } else {
                    vec![(op.to_string(), by.to_string())]
                }
            })
            .collect();
        got.sort();
        want.sort();
        if !expected.iter().any(|(op, _)| *op == "*") {
            // A comment names the mutants of its own line or item only.
            let ops: Vec<&str> = expected.iter().map(|e| e.0).collect();
            assert!(
                got.iter().all(|(op, _)| ops.contains(&op.as_str())),
                "{name}"
            );
        }
        assert_eq!(got, want, "{name}");
        let skipped_ids: BTreeSet<String> = skipped.into_iter().map(|s| s.0).collect();
        assert_eq!(kept.len() + skipped_ids.len(), all.len(), "{name}");
        assert!(kept.is_disjoint(&skipped_ids), "{name}");
    }
}

/// `--mutant` runs only the ids given, `--skip-mutant` skips by id, and both are checked: an
/// id no mutant has is an error naming it.
#[test]
fn mutant_ids_select_and_skip_and_an_unknown_id_is_exit_2() {
    let c = copy("seed-2-measured");
    let (all, _) = listed(&c, &[]);
    let ids: Vec<&str> = all.iter().map(String::as_str).take(3).collect();
    let (kept, skipped) = listed(
        &c,
        &[
            "--mutant",
            ids[0],
            "--mutant",
            ids[1],
            "--skip-mutant",
            ids[1],
        ],
    );
    assert_eq!(kept, BTreeSet::from([ids[0].to_string()]));
    assert_eq!(skipped, [(ids[1].to_string(), "--skip-mutant".to_string())]);
    for flag in ["--mutant", "--skip-mutant"] {
        let args = c.args(&["--list", flag, "swap-min-max:src/lib.rs:nowhere:00000000"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = capcheck_in(c.root(), &args);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&out).contains(&format!(
                "{flag} swap-min-max:src/lib.rs:nowhere:00000000: no such mutant"
            )),
            "{flag}: {}",
            stderr(&out)
        );
    }
}

/// Bad skips are refused before anything runs, each saying where and what is wrong.
#[test]
fn malformed_skips_are_located_errors_with_exit_2() {
    let per_box = "    pub fn per_box(";
    let cases: &[Case<&str>] = &[
        (
            "a comment without a reason",
            (
                per_box,
                "    // capcheck: skip-mutants(swap-min-max)\n    pub fn per_box(",
            ),
            "",
            &[],
            "src/lib.rs:29:5: a skip needs a reason",
        ),
        (
            "a comment naming no operator",
            (
                per_box,
                "    // capcheck: skip-mutants(swap-max-min, reason = \"x\")\n    pub fn per_box(",
            ),
            "",
            &[],
            "src/lib.rs:29:5: `swap-max-min` is not a mutation operator",
        ),
        (
            "a config skip with an empty reason",
            ("", ""),
            "skip-mutants = [{ id = \"x\", reason = \" \" }]",
            &[],
            "[workspace.metadata.capcheck.mutants] skip-mutants[0]: `x`: the reason is empty",
        ),
        (
            "a config skip without a reason",
            ("", ""),
            "skip-mutants = [{ id = \"x\" }]",
            &[],
            "missing field `reason`",
        ),
        (
            "a config glob that is not one",
            ("", ""),
            "exclude-files = [\"src/[\"]",
            &[],
            "[workspace.metadata.capcheck.mutants] exclude-files[0]: `src/[` is not a glob",
        ),
        (
            "an unknown config key",
            ("", ""),
            "exclude-file = [\"src/*.rs\"]",
            &[],
            "unknown field `exclude-file`",
        ),
        (
            "a flag regex that is not one",
            ("", ""),
            "",
            &["--exclude-re", "(unclosed"],
            "invalid value '(unclosed' for '--exclude-re <REGEX>'",
        ),
    ];
    for (name, (from, to), table, flags, says) in cases {
        let c = copy("seed-2-measured");
        if !from.is_empty() {
            edit(&c, LIB, from, to);
        }
        if !table.is_empty() {
            config(&c, table);
        }
        let mut extra = vec!["--list"];
        extra.extend_from_slice(flags);
        let args = c.args(&extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = capcheck_in(c.root(), &args);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
    }
}

/// A run with one mutant skipped by a comment: it is not built or tested, and the report lists
/// it with its reason (mutants.json, `--format json` and the human summary).
#[test]
fn a_skipped_mutant_is_not_run_and_is_listed_as_skipped() {
    let c = copy("seed-2-measured");
    let (all, _) = listed(&c, &[]);
    edit(
        &c,
        LIB,
        "        let wave = left.min(ceiling);",
        "        let wave = left.min(ceiling); // capcheck: skip-mutants(swap-min-max, reason = \"a wave above the ceiling is caught by the fleet test\")",
    );
    let run_burst: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|id| id.contains(":run_burst:"))
        .collect();
    assert!(run_burst.len() >= 2, "{run_burst:?}");
    let mut extra = vec!["--format", "json"];
    for id in &run_burst {
        extra.extend(["--mutant", id]);
    }
    let args = c.args(&extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = capcheck_in(c.root(), &args);
    let (_, report) = json_of(&out);
    let ran: BTreeSet<&str> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report:#}");
    let id = skipped[0]["id"].as_str().unwrap();
    assert!(id.starts_with("swap-min-max:src/lib.rs:run_burst:"), "{id}");
    assert!(!ran.contains(id), "the skipped mutant ran");
    assert_eq!(ran.len(), run_burst.len() - 1);
    assert_eq!(report["summary"]["mutants"], ran.len());
    insta::assert_json_snapshot!("mutants_skipped_by_comment", skipped, {"[].byte_range" => "[range]"});
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(c.root().join("target/capcheck/mutants/mutants.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["skipped"], report["skipped"]);
    // mutation-testing-elements: an `Ignored` mutant with what skipped it and why.
    let elements: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            c.root()
                .join("target/capcheck/mutants/mutation-report.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let ignored: Vec<&serde_json::Value> = elements["files"]["src/lib.rs"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "Ignored")
        .collect();
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0]["id"], id);
    assert_eq!(
        ignored[0]["statusReason"],
        "skipped by comment src/lib.rs:43: a wave above the ceiling is caught by the fleet test"
    );
}

/// `--in-diff -` reads the patch from standard input and selects what the same file selects.
#[test]
fn in_diff_dash_reads_the_patch_from_stdin() {
    let c = copy("seed-2-measured");
    let patch = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -43,1 +43,1 @@\n\
                 -        let wave = left.max(ceiling);\n+        let wave = left.min(ceiling);\n";
    let file = c.root().join("change.patch");
    std::fs::write(&file, patch).unwrap();
    let (from_file, _) = listed(&c, &["--in-diff", file.to_str().unwrap()]);
    assert!(!from_file.is_empty());
    let run = |stdin: &str| {
        let args = c.args(&["--list", "--format", "json", "--in-diff", "-"]);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
            .args(&args)
            .current_dir(c.root())
            .env("NO_COLOR", "1")
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let (code, list) = json_of(&run(patch));
    assert_eq!(code, 0);
    let from_stdin: BTreeSet<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(from_stdin, from_file);
    let out = run("not a diff\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("<stdin>:1:1: not a unified diff"),
        "{}",
        stderr(&out)
    );
}

/// A two-file crate for the include filters: `src/lib.rs` (8 mutants) and `src/pool.rs` (6).
const TWO_FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"sel\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    ),
    (
        "src/lib.rs",
        "pub mod pool;\n\npub const PER_BACKEND: usize = 8;\n\npub fn ceiling(healthy: usize) -> usize {\n    healthy * PER_BACKEND\n}\n\npub fn wave(left: usize, cap: usize) -> usize {\n    left.min(cap)\n}\n",
    ),
    (
        "src/pool.rs",
        "pub const MAX_CONNECTIONS: usize = 16;\n\npub fn admit(n: usize) -> usize {\n    n.min(MAX_CONNECTIONS)\n}\n",
    ),
];

/// `mutants ARGS` in `dir`.
fn mutants_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["mutants"];
    all.extend_from_slice(args);
    capcheck_in(dir, &all)
}

/// The listed mutants as `operator:file:item` (the id without its hash), sorted.
fn listed_keys(dir: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--list", "--format", "json"];
    all.extend_from_slice(args);
    let (code, list) = json_of(&mutants_in(dir, &all));
    assert_eq!(code, 0, "{args:?}");
    let mut keys: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let id = m["id"].as_str().unwrap();
            id.rsplit_once(':').unwrap().0.to_string()
        })
        .collect();
    keys.sort();
    keys
}

/// `--file GLOB` and `--re REGEX` include: any glob, any regex, both kinds together, and with
/// `--operator`; a selection that ends empty says which filter emptied it.
#[test]
fn file_and_re_include_and_an_empty_selection_says_why() {
    let ws = scratch(TWO_FILES);
    let perturb = |file: &str, item: &str| vec![format!("perturb-capacity:{file}:{item}"); 4];
    let pool: Vec<String> = [
        vec!["drop-clamp:src/pool.rs:pool::admit".to_string()],
        perturb("src/pool.rs", "pool::MAX_CONNECTIONS"),
        vec!["swap-min-max:src/pool.rs:pool::admit".to_string()],
    ]
    .concat();
    let cases: &[(&[&str], Vec<String>)] = &[
        (&["--file", "src/pool.rs"], pool.clone()),
        (&["--file", "pool.rs"], pool.clone()),
        (&["--file", "src/nope.rs", "--file", "src/pool.rs"], pool),
        (
            &["--re", "swap-min-max"],
            vec![
                "swap-min-max:src/lib.rs:wave".into(),
                "swap-min-max:src/pool.rs:pool::admit".into(),
            ],
        ),
        (
            &["--re", "^drop-clamp", "--re", r"`MAX_CONNECTIONS` \+ 1"],
            vec![
                "drop-clamp:src/lib.rs:wave".into(),
                "drop-clamp:src/pool.rs:pool::admit".into(),
                "perturb-capacity:src/pool.rs:pool::MAX_CONNECTIONS".into(),
            ],
        ),
        (
            &["--file", "src/lib.rs", "--re", r"\.min\("],
            vec![
                "drop-clamp:src/lib.rs:wave".into(),
                "reinstate-cap:src/lib.rs:ceiling".into(),
                "swap-min-max:src/lib.rs:wave".into(),
            ],
        ),
        (
            &["--file", "src/lib.rs", "--operator", "swap-min-max"],
            vec!["swap-min-max:src/lib.rs:wave".into()],
        ),
    ];
    for (args, want) in cases {
        assert_eq!(&listed_keys(ws.path(), args), want, "{args:?}");
    }

    // (flags, the filter the message names)
    let empty: &[(&[&str], &str)] = &[
        (&["--file", "src/nope.rs"], "--file left none"),
        (&["--re", "no-such-operator"], "--re left none"),
        (
            &["--operator", "reinstate-cap", "--file", "src/pool.rs"],
            "--operator left 2, --file left none",
        ),
    ];
    for (args, says) in empty {
        let mut all = vec!["--list"];
        all.extend_from_slice(args);
        let out = mutants_in(ws.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(stdout(&out), "0 mutants\n", "{args:?}");
        assert!(
            stderr(&out).contains(&format!(
                "capcheck mutants: no mutants selected: 14 found in the selected packages; {says}"
            )),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    for (args, says) in [(["--file", "src/["], "--file"), (["--re", "("], "--re")] {
        let out = mutants_in(ws.path(), &[&["--list"][..], &args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
}

/// `--list-files`: the files with selected mutants and their counts, after every filter.
#[test]
fn list_files_names_the_files_with_selected_mutants() {
    let ws = scratch(TWO_FILES);
    let out = mutants_in(ws.path(), &["--list-files"]);
    assert_eq!(
        (out.status.code(), stdout(&out).as_str()),
        (Some(0), "src/lib.rs (8 mutants)\nsrc/pool.rs (6 mutants)\n")
    );
    let (code, json) = json_of(&mutants_in(
        ws.path(),
        &[
            "--list-files",
            "--re",
            "MAX_CONNECTIONS",
            "--format",
            "json",
        ],
    ));
    assert_eq!(code, 0);
    assert_eq!(
        json,
        serde_json::json!([{"file": "src/pool.rs", "mutants": 6}])
    );
}

/// A diff whose new side is not the file's text is an error at the patch's first such line,
/// naming both texts (exit 2); a diff that matches selects; one naming files the workspace does
/// not hold is not checked and selects nothing.
#[test]
fn a_diff_that_does_not_match_the_source_is_exit_2_at_its_first_mismatch() {
    let ws = scratch(TWO_FILES);
    let head = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n";
    // (patch after the header, Err(what stderr says) or Ok(the keys it selects))
    let cases: &[(&str, Result<&[&str], &str>)] = &[
        (
            "@@ -9,3 +9,3 @@\n pub fn wave(left: usize, cap: usize) -> usize {\n-    left.max(cap)\n+    left.min(cap)\n }\n",
            Ok(&["drop-clamp:src/lib.rs:wave", "swap-min-max:src/lib.rs:wave"]),
        ),
        (
            "@@ -10,1 +10,1 @@\n-    left.min(cap)\n+    left.max(cap)\n",
            Err(
                "change.patch:6:1: the diff does not match the source: it has `left.max(cap)` at src/lib.rs:10, the file has `left.min(cap)`",
            ),
        ),
        (
            "@@ -9,2 +9,2 @@\n pub fn wave(a: usize) -> usize {\n-    left.max(cap)\n+    left.min(cap)\n",
            Err(
                "change.patch:5:1: the diff does not match the source: it has `pub fn wave(a: usize) -> usize {` at src/lib.rs:9",
            ),
        ),
        (
            "@@ -40,1 +40,1 @@\n-    x\n+    y\n",
            Err("at src/lib.rs:40, the file has nothing (it has 11 lines)"),
        ),
        (
            "@@ -10,1 +10,1 @@\n-    x\n+    y\n@@ no sides @@\n",
            Err("change.patch:7:1: expected a hunk header"),
        ),
    ];
    let patch = ws.path().join("change.patch");
    for (body, want) in cases {
        std::fs::write(&patch, format!("{head}{body}")).unwrap();
        let flags = ["--in-diff", patch.to_str().unwrap()];
        match want {
            Ok(keys) => assert_eq!(listed_keys(ws.path(), &flags), *keys, "{body}"),
            Err(says) => {
                let out = mutants_in(ws.path(), &[&["--list"][..], &flags].concat());
                assert_eq!(out.status.code(), Some(2), "{body}: {}", stderr(&out));
                assert!(stderr(&out).contains(says), "{body}: {}", stderr(&out));
            }
        }
    }
    let other = "--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,1 @@\n-old\n+new\n";
    std::fs::write(&patch, other).unwrap();
    let flags = ["--in-diff", patch.to_str().unwrap()];
    assert_eq!(listed_keys(ws.path(), &flags), Vec::<String>::new());
}

/// A run with nothing selected builds nothing and gives no score: it says why and exits 0 (as
/// cargo-mutants does); JSON has `"score": null`.
#[test]
fn a_run_with_an_empty_selection_builds_nothing_and_gives_no_score() {
    let ws = scratch(TWO_FILES);
    let patch = ws.path().join("empty.patch");
    std::fs::write(&patch, "").unwrap();
    let output = ws.path().join("out");
    let args = [
        "--in-diff",
        patch.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ];
    let out = mutants_in(ws.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let says = format!(
        "capcheck mutants: no mutants selected: 14 found in the selected packages; --in-diff {} left none; nothing built, no score\n",
        patch.display()
    );
    assert_eq!(stderr(&out), says);
    assert!(!ws.path().join("target").exists(), "something was built");
    assert!(!output.join("mutants.json").exists());
    let (code, json) = json_of(&mutants_in(
        ws.path(),
        &[&args[..], &["--format", "json", "--min-score", "90"]].concat(),
    ));
    assert_eq!(code, 0);
    assert_eq!(json["selected"], 0);
    assert_eq!(json["score"], serde_json::Value::Null);
}
