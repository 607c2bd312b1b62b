//! The manifest loop closed through the binary: `init` -> `measure --write` -> `check` binds the
//! story's first controller to the measured number with no hand edit; `--bind` names the rest;
//! `check` suggests the binding a measured quantity fits. Every run works on a scratch copy.

use std::path::Path;

use crate::support::*;

/// The story's evidence: two boxes' startup logs and the two scrapes of the window, copied into
/// the scratch workspace as (path there, fixture it comes from).
const EVIDENCE: &[(&str, &str)] = &[
    ("logs/box-a.log", "measure/vllm/vllm_v1_startup_latest.log"),
    ("logs/box-b.log", "measure/vllm/vllm_v1_startup_latest.log"),
    ("scrapes/t0.prom", "measure/vllm/vllm_v1_metrics_t0.prom"),
    ("scrapes/t1.prom", "measure/vllm/vllm_v1_metrics_t1.prom"),
];

/// A scratch copy of the story's first controller with the evidence beside its code.
fn story() -> tempfile::TempDir {
    let ws = copy_fixture("seed-1-typed-cap");
    for (to, from) in EVIDENCE {
        let to = ws.path().join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture(from), to).unwrap();
    }
    ws
}

/// `measure` on the story's evidence, the paths given absolute (as a user's shell completes
/// them), plus `extra`.
fn measure_story(ws: &Path, extra: &[&str]) -> std::process::Output {
    let at = |p: &str| ws.join(p).to_str().unwrap().to_string();
    let mut args: Vec<String> = vec![
        "measure".into(),
        "--log".into(),
        format!("box-a={}", at("logs/box-a.log")),
        "--log".into(),
        format!("box-b={}", at("logs/box-b.log")),
        "--scrape-before".into(),
        at("scrapes/t0.prom"),
        "--scrape-after".into(),
        at("scrapes/t1.prom"),
        "--roster".into(),
        "32".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    capcheck_in(ws, &args)
}

fn run_ok(out: std::process::Output) -> std::process::Output {
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    out
}

/// The manifest's `[[capacity]]` entry for `site`, parsed.
fn entry(ws: &Path, site: &str) -> toml::Value {
    let text = std::fs::read_to_string(ws.join("capacity.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    doc["capacity"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["site"].as_str() == Some(site))
        .unwrap_or_else(|| panic!("no entry for {site} in\n{text}"))
        .clone()
}

fn findings<'a>(report: &'a serde_json::Value, rule: &str) -> Vec<&'a serde_json::Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

#[test]
fn init_measure_write_check_binds_per_backend_to_14_and_reports_the_8() {
    let ws = story();
    run_ok(capcheck_in(ws.path(), &["init"]));
    let (code, measured) = json_of(&measure_story(ws.path(), &["--write", "--format", "json"]));
    assert_eq!(code, 0, "{measured}");
    // What it bound and what it could not, as data.
    let bound: Vec<(&str, &str, u64, u64)> = measured["bindings"]["bound"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["site"].as_str().unwrap(),
                b["expr"].as_str().unwrap(),
                b["value"].as_u64().unwrap(),
                b["was"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bound,
        [("fleet_controller::PER_BACKEND", "per_box_capacity", 14, 8)]
    );
    let unbound = &measured["bindings"]["unbound"];
    assert_eq!(unbound.as_array().unwrap().len(), 1, "{unbound}");
    assert_eq!(unbound[0]["site"], "fleet_controller::Config::min_limit");
    assert!(
        unbound[0]["reason"].as_str().unwrap().contains("floor"),
        "{unbound}"
    );

    let e = entry(ws.path(), "fleet_controller::PER_BACKEND");
    assert_eq!(e["expr"].as_str(), Some("per_box_capacity"));
    assert_eq!(e["method"].as_str(), Some("measured"));
    assert_eq!(e["per"].as_str(), Some("backend"));
    assert!(e.get("value").is_none(), "{e}");
    // The evidence, cited relative to the workspace (the paths were given absolute).
    assert_eq!(
        e["source"].as_str(),
        Some("box-a logs/box-a.log:9, box-b logs/box-b.log:9, prompt scrapes/t1.prom:70-87")
    );
    let text = std::fs::read_to_string(ws.path().join("capacity.toml")).unwrap();
    let root = ws.path().to_str().unwrap();
    assert!(
        !text.contains(root),
        "an absolute path was written:\n{text}"
    );

    let (code, report) = json_of(&capcheck_in(ws.path(), &["check", "--format", "json"]));
    assert_eq!(code, 1, "{report}");
    let mismatch = findings(&report, "capacity-mismatch");
    assert_eq!(mismatch.len(), 1, "{report}");
    assert_eq!(mismatch[0]["item"], "PER_BACKEND");
    assert_eq!(mismatch[0]["value"], 8);
    let note = mismatch[0]["related"][0]["note"].as_str().unwrap();
    assert_eq!(note, "capacity.toml says 14 = per_box_capacity (measured)");
    // 8 per backend x 2 backends is below the roster of 32: the waves the story lived.
    let waves = findings(&report, "cap-below-natural-bound");
    assert!(
        waves[0]["message"]
            .as_str()
            .unwrap()
            .contains("8 per backend x 2 backends = 16"),
        "{report}"
    );
}

#[test]
fn check_suggests_the_binding_and_bind_makes_it() {
    let ws = story();
    // Measured first, listed after: the entries are unmeasured and the manifest holds a 14.
    run_ok(measure_story(ws.path(), &["--write"]));
    let (_, before) = json_of(&capcheck_in(ws.path(), &["check", "--format", "json"]));
    let help = |report: &serde_json::Value, item: &str| {
        findings(report, "unmeasured-capacity")
            .into_iter()
            .find(|f| f["item"] == item)
            .and_then(|f| f["help"].as_str().map(String::from))
    };
    let no_entry = help(&before, "PER_BACKEND").expect("a suggestion");
    assert!(
        no_entry.contains(
            r#"site = "fleet_controller::PER_BACKEND", expr = "per_box_capacity", role = "cap", method = "measured", per = "backend""#
        ),
        "{no_entry}"
    );
    assert_eq!(
        help(&before, "min_limit"),
        None,
        "no quantity fits a fleet-wide floor"
    );

    run_ok(capcheck_in(ws.path(), &["init"]));
    let (_, listed) = json_of(&capcheck_in(ws.path(), &["check", "--format", "json"]));
    let suggested = help(&listed, "PER_BACKEND").expect("a suggestion");
    let command =
        "cargo capcheck measure --write --bind fleet_controller::PER_BACKEND=per_box_capacity";
    assert!(suggested.contains(command), "{suggested}");
    assert!(suggested.contains("per_box_capacity = 14"), "{suggested}");

    // The suggested command, as printed (no evidence: it binds with the manifest's numbers),
    // and `--bind` for the site no quantity fits.
    let args: Vec<&str> = command.split(' ').skip(2).collect();
    let out = run_ok(capcheck_in(ws.path(), &args));
    assert!(stdout(&out).starts_with("wrote "), "{}", stdout(&out));
    assert_eq!(
        stdout(&out).lines().skip(1).collect::<Vec<_>>(),
        [
            "bound `fleet_controller::PER_BACKEND` to per_box_capacity = 14 (was 8): named by --bind",
            "not bound `fleet_controller::Config::min_limit`: a floor that is not per box (measure derives only a per-box floor); bind it with --bind fleet_controller::Config::min_limit=EXPR",
        ]
    );
    run_ok(capcheck_in(
        ws.path(),
        &["measure", "--write", "--bind", "Config::min_limit=1"],
    ));
    assert_eq!(
        entry(ws.path(), "fleet_controller::Config::min_limit")["method"].as_str(),
        Some("measured")
    );
    let (_, after) = json_of(&capcheck_in(ws.path(), &["check", "--format", "json"]));
    assert!(
        findings(&after, "unmeasured-capacity").is_empty(),
        "{after}"
    );
    assert_eq!(findings(&after, "capacity-mismatch").len(), 1, "{after}");
}

#[test]
fn a_bind_that_cannot_be_made_exits_2_and_writes_nothing() {
    let ws = story();
    run_ok(capcheck_in(ws.path(), &["init"]));
    run_ok(measure_story(ws.path(), &["--write"]));
    let manifest = ws.path().join("capacity.toml");
    let before = std::fs::read_to_string(&manifest).unwrap();
    // (--bind value, what the error says)
    let cases = [
        (
            "fleet_controller::NOPE=per_box_capacity",
            "no [[capacity]] entry",
        ),
        (
            "Config::min_limit=per_box_capacityy",
            "`per_box_capacityy` is not a quantity",
        ),
        ("Config::min_limit=1/0", "divides by zero"),
        ("Config::min_limit=min(", "expected"),
        ("PER_BACKEND=14", "one segment"),
        ("Config::min_limit", "expected SITE=EXPR"),
    ];
    for (bind, says) in cases {
        let out = capcheck_in(ws.path(), &["measure", "--write", "--bind", bind]);
        assert_eq!(out.status.code(), Some(2), "{bind}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{bind}: {}", stderr(&out));
        assert_eq!(
            std::fs::read_to_string(&manifest).unwrap(),
            before,
            "{bind}"
        );
    }
    // A SITE no entry names is refused before any evidence is read (no scrape window is waited
    // out for a typo): the missing log is never opened.
    let out = capcheck_in(
        ws.path(),
        &[
            "measure",
            "--log",
            "no-such.log",
            "--write",
            "--bind",
            "c::NOPE=1",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no [[capacity]] entry"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("no-such.log"), "{}", stderr(&out));
}
