//! The real-output corpus in fixtures/measure/real: short excerpts of startup logs and /metrics
//! scrapes people pasted into public issues and docs, each with its provenance and the figures
//! the server printed about itself (labelled by reading it, in expected.json). Every one of
//! those figures must be capcheck's, through the real binary. A failed start exits 2 at the
//! server's own failure line; run beside a box that started, its figures are in the report and
//! the run still exits 2.

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
    assert!(expected.len() >= 56, "{} excerpts", expected.len());

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
    // A log that started, to run a failed start beside.
    let good = root.join("vllm/v1_enginecore_dp0.log");
    let mut forms = std::collections::BTreeSet::new();
    for e in expected.iter().filter(|e| e["log"].is_string()) {
        let log = e["log"].as_str().unwrap();
        let path = root.join(log);
        for f in e["forms"].as_array().into_iter().flatten() {
            forms.insert(f.as_str().unwrap().to_string());
        }
        let started = e["started"] == Value::Bool(true);
        let mut args = vec![
            "measure".to_string(),
            "--log".into(),
            format!("box={}", path.display()),
        ];
        if !started {
            // Alone, a failed start is refused at its failure line.
            let mut alone = args.clone();
            alone.extend(["--format".into(), "json".into()]);
            let out = capcheck(&alone.iter().map(String::as_str).collect::<Vec<_>>());
            let (code, got) = json_of(&out);
            let p = &got["error"]["problems"][0];
            if code != 2
                || p["line"] != e["failure_line"]
                || p["file"] != path.display().to_string()
            {
                wrong.push(format!(
                    "{log}: a failed start alone should exit 2 at line {}, got exit {code}: {got:#}",
                    e["failure_line"]
                ));
            }
            args.extend(["--log".into(), format!("ok={}", good.display())]);
        }
        args.extend(["--p90-prompt-tokens", "1000", "--format", "json"].map(String::from));
        let out = capcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let (code, got) = json_of(&out);
        assert_eq!(code, if started { 0 } else { 2 }, "{log}: {got:#}");
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
        for key in [
            "max_num_seqs",
            "block_size",
            "block_size_source",
            "max_concurrent_requests",
            "max_concurrent_requests_source",
        ] {
            if !e[key].is_null() {
                check(key, &b[key], &e[key]);
            }
        }
        if let Some(lines) = e["foreign_lines"].as_array() {
            let at = |l: &Value| format!("{}:{l}", path.display());
            let said = got["warnings"].to_string();
            for l in lines {
                check(
                    "a warning that a line is not server output",
                    &Value::Bool(said.contains(&format!("{}: not server output", at(l)))),
                    &Value::Bool(true),
                );
            }
        }
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
            check(
                "the failed boxes",
                &got["failed_boxes"],
                &serde_json::json!(["box"]),
            );
            let at = format!("{}:{}:", path.display(), e["failure_line"]);
            check(
                "the failure at its line",
                &Value::Bool(b["failure"].as_str().is_some_and(|f| f.starts_with(&at))),
                &Value::Bool(true),
            );
        } else if b["capacity"].is_null() {
            wrong.push(format!("{log}: a started box with a p90 has no capacity"));
        }
    }
    for form in [
        "out_of_order",
        "device_blocks",
        "concurrency_block_size",
        "shell_command",
        "tgi_admission",
        "failed_start",
    ] {
        assert!(forms.contains(form), "no real log of the form `{form}`");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
