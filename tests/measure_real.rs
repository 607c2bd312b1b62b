//! The real-output corpus in fixtures/measure/real: short excerpts of startup logs and /metrics
//! scrapes people pasted into public issues and docs, each with its provenance and the figures
//! the server printed about itself (labelled by reading it, in expected.json). Every one of
//! those figures must be capcheck's, through the real binary.

use std::path::Path;

use serde_json::Value;

use crate::support::{capcheck, fixture, json_of};

fn logs_under(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            logs_under(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "log" || e == "prom") {
            let rel = path.strip_prefix(root).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn every_figure_the_servers_printed_is_capchecks() {
    let root = fixture("measure/real");
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
            .unwrap();
    let file = |e: &Value| {
        e["log"]
            .as_str()
            .or(e["scrape"].as_str())
            .unwrap()
            .to_string()
    };
    let mut listed: Vec<String> = expected.iter().map(file).collect();
    let mut found = Vec::new();
    logs_under(&root, &root, &mut found);
    listed.sort();
    found.sort();
    assert_eq!(
        listed, found,
        "every excerpt has one expectation, and no more"
    );
    let servers: std::collections::BTreeSet<&str> = expected
        .iter()
        .map(|e| e["server"].as_str().unwrap())
        .collect();
    assert_eq!(servers.len(), 3, "{servers:?}");
    assert!(expected.len() >= 20, "{} excerpts", expected.len());

    for e in &expected {
        for key in ["source", "version", "printed"] {
            assert!(
                e[key].as_str().is_some_and(|s| !s.is_empty()),
                "{}: no {key}",
                file(e)
            );
        }
    }
    let mut wrong = Vec::new();
    for e in expected.iter().filter(|e| e["scrape"].is_string()) {
        let scrape = root.join(file(e));
        let out = capcheck(&[
            "measure",
            "--scrape-after",
            scrape.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let (code, got) = json_of(&out);
        assert_eq!(code, 0, "{}: {got:#}", file(e));
        if got["scrape_kv_cache_tokens"] != e["scrape_kv_cache_tokens"] {
            wrong.push(format!(
                "{}: the scrape's KV cache tokens are {}, the server printed {}",
                file(e),
                got["scrape_kv_cache_tokens"],
                e["scrape_kv_cache_tokens"]
            ));
        }
    }
    for e in expected.iter().filter(|e| e["log"].is_string()) {
        let log = e["log"].as_str().unwrap();
        let path = root.join(log);
        let out = capcheck(&[
            "measure",
            "--log",
            &format!("box={}", path.display()),
            "--p90-prompt-tokens",
            "1000",
            "--format",
            "json",
        ]);
        let (code, got) = json_of(&out);
        assert_eq!(code, 0, "{log}: {got:#}");
        let b = &got["boxes"][0];
        let mut check = |what: &str, actual: &Value, want: &Value| {
            if actual != want {
                wrong.push(format!(
                    "{log}: {what} is {actual}, the server printed {want}"
                ));
            }
        };
        for key in [
            "started",
            "kv_cache_tokens",
            "max_model_len",
            "max_num_seqs_source",
        ] {
            check(key, &b[key], &e[key]);
        }
        if !e["max_num_seqs"].is_null() {
            check("max_num_seqs", &b["max_num_seqs"], &e["max_num_seqs"]);
        }
        let started = e["started"] == Value::Bool(true);
        if let Some(x) = e["max_concurrency"].as_f64() {
            check(
                "server_max_concurrency",
                &b["server_max_concurrency"],
                &e["max_concurrency"],
            );
            if started {
                let floor = Value::from(x.floor() as u64);
                check(
                    "pessimistic_floor (vLLM's own maximum concurrency)",
                    &b["pessimistic_floor"],
                    &floor,
                );
            }
        }
        if !started {
            check("capacity of a failed start", &b["capacity"], &Value::Null);
            check(
                "floor of a failed start",
                &b["pessimistic_floor"],
                &Value::Null,
            );
            let said = got["warnings"].to_string().contains("did not start");
            check(
                "a warning that it did not start",
                &Value::Bool(said),
                &Value::Bool(true),
            );
        } else if b["capacity"].is_null() {
            wrong.push(format!("{log}: a started box with a p90 has no capacity"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
