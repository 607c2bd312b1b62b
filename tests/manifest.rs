//! `check` against `capacity.toml`, and `init`.

use crate::support::*;

#[test]
fn stage_2_with_its_measured_manifest_passes_and_is_told_it_still_makes_two_waves() {
    let (code, report) = check_json("seed-2-measured", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        rules_and_lines(&report),
        [("cap-below-natural-bound".into(), "src/lib.rs".into(), 5)]
    );
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("14 per backend x 2 backends = 28"),
        "{message}"
    );
    assert!(message.contains("ceil(32 / 28) = 2 waves"), "{message}");
}

#[test]
fn stage_1_against_the_measured_manifest_is_a_mismatch_with_both_labels() {
    let manifest = fixture("seed-1-typed-cap").join("measured.capacity.toml");
    let (code, report) = check_json(
        "seed-1-typed-cap",
        &["--capacity", manifest.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    let mismatch = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "capacity-mismatch")
        .expect("a capacity-mismatch finding");
    assert_eq!(
        (mismatch["file"].as_str(), mismatch["line"].as_u64()),
        (Some("src/lib.rs"), Some(5))
    );
    assert_eq!(mismatch["value"], 8);
    let related = &mismatch["related"][0];
    assert_eq!(
        (related["file"].as_str(), related["line"].as_u64()),
        (Some("measured.capacity.toml"), Some(24))
    );
    assert!(
        related["note"].as_str().unwrap().contains("says 14"),
        "{related}"
    );
}

#[test]
fn stage_3_fuse_is_accepted_and_the_same_value_as_a_cap_is_never_reached() {
    let (code, report) = check_json("seed-3-no-cap", &[]);
    assert_eq!((code, rules_and_lines(&report)), (0, vec![]));
    let manifest = fixture("seed-3-no-cap").join("cap.capacity.toml");
    let (_, report) = check_json("seed-3-no-cap", &["--capacity", manifest.to_str().unwrap()]);
    assert_eq!(
        rules_and_lines(&report),
        [("cap-never-reached".into(), "src/lib.rs".into(), 14)]
    );
}

const PACKAGE: &str =
    "[package]\nname = \"one\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n";

#[test]
fn a_malformed_manifest_lists_every_problem_with_its_line_and_exits_2() {
    let ws = scratch(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "pub const POOL_SIZE: usize = 4;\n"),
        (
            "capacity.toml",
            "[workload]\nnatural_bound = \"lots\"\n\n[[capacity]]\nsite = \"one::POOL_SIZE\"\nvalue = 4\nrole = \"ceiling\"\n\n[[capacity]]\nsite = \"one::X\"\nexpr = \"min(kv / 2\"\nrole = \"cap\"\nmethod = \"measured\"\n",
        ),
    ]);
    let out = capcheck_in(ws.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for expected in [
        "capacity.toml:2:17: [workload]: `natural_bound` must be a positive integer",
        "capacity.toml:7:8: [[capacity]] #1: `role` must be one of cap, fuse, floor, queue",
        "[[capacity]] #1: missing `method`",
        "capacity.toml:11:19: [[capacity]] #2: in `expr`: expected `)`",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    let out = capcheck_in(ws.path(), &["--capacity", "nope.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.toml"));
}

#[test]
fn stale_and_unmatched_entries_are_reported_at_their_manifest_lines() {
    let ws = scratch(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "pub const POOL_SIZE: usize = 4;\n"),
        (
            "capacity.toml",
            "[[capacity]]\nsite = \"one::POOL_SIZE\"\nvalue = 4\nrole = \"cap\"\nmethod = \"measured\"\nre_measure_after = 2000-01-31\n\n[[capacity]]\nsite = \"one::GONE\"\nvalue = 8\nrole = \"cap\"\nmethod = \"measured\"\n",
        ),
    ]);
    let out = capcheck_in(ws.path(), &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        rules_and_lines(&report),
        [
            ("stale-measurement".into(), "capacity.toml".into(), 6),
            ("unmatched-manifest-entry".into(), "capacity.toml".into(), 9),
        ]
    );
    assert_eq!(out.status.code(), Some(1), "an unmatched entry is an error");
}

#[test]
fn init_makes_a_legacy_codebase_green_with_a_to_do_list_and_keeps_existing_comments() {
    let ws = scratch(&[
        ("Cargo.toml", PACKAGE),
        (
            "src/lib.rs",
            "pub const POOL_SIZE: usize = 4;\npub const MAX_CONCURRENCY: usize = 8;\n",
        ),
        (
            "capacity.toml",
            "# our measurements\n[[capacity]]\nsite = \"one::POOL_SIZE\" # measured in March\nvalue = 4\nrole = \"cap\"\nmethod = \"measured\"\n",
        ),
    ]);
    assert_eq!(capcheck_in(ws.path(), &[]).status.code(), Some(1));
    let out = capcheck_in(ws.path(), &["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 unmeasured capacity added"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(ws.path().join("capacity.toml")).unwrap();
    assert!(text.starts_with("# our measurements\n"), "{text}");
    assert!(
        text.contains("site = \"one::POOL_SIZE\" # measured in March"),
        "{text}"
    );
    assert!(
        text.contains(
            "site = \"one::MAX_CONCURRENCY\"\nvalue = 8\nrole = \"cap\"\nmethod = \"unmeasured\""
        ),
        "{text}"
    );

    let out = capcheck_in(ws.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "init then check is green");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let todo = &report["findings"][0];
    assert_eq!(
        (todo["rule"].as_str(), todo["severity"].as_str()),
        (Some("unmeasured-capacity"), Some("note"))
    );

    let again = capcheck_in(ws.path(), &["init"]);
    assert!(stderr(&again).contains("0 unmeasured capacities added"));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("capacity.toml")).unwrap(),
        text,
        "a second init changes nothing"
    );
}

#[test]
fn two_literals_at_one_site_get_two_entries_so_init_stays_green() {
    let ws = scratch(&[
        ("Cargo.toml", PACKAGE),
        (
            "src/lib.rs",
            "pub struct Semaphore;\nimpl Semaphore { pub fn new(_: usize) -> Self { Semaphore } }\npub fn pools() { let _a = Semaphore::new(4); let _b = Semaphore::new(8); }\n",
        ),
    ]);
    let out = capcheck_in(ws.path(), &["init"]);
    assert!(
        stderr(&out).contains("2 unmeasured capacities added"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(ws.path().join("capacity.toml")).unwrap();
    assert!(
        text.contains("site = \"one::pools::Semaphore::new\"\nvalue = 4"),
        "{text}"
    );
    assert!(
        text.contains("site = \"one::pools::Semaphore::new#2\"\nvalue = 8"),
        "{text}"
    );
    assert_eq!(capcheck_in(ws.path(), &[]).status.code(), Some(0));
}
