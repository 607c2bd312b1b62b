//! Evidence that cannot be right is a located error (exit 2), never a number: scrapes out of
//! order or from two server lives, empty scrapes and bodies, non-cumulative buckets, duplicate
//! series, impossible values, histograms without `+Inf`, pages that are not Prometheus text,
//! numeric flags that make no sense; and with `--format json` the error is JSON on stdout.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::measure::serve;
use crate::support::{capcheck, fixture, json_of, scratch, stderr};

const LOG: &str = "fixtures/measure/vllm/vllm_v1_startup_latest.log";

fn scrape(name: &str) -> String {
    std::fs::read_to_string(fixture("measure/vllm").join(name)).unwrap()
}

/// `measure --log LOG --scrape-before B --scrape-after A --format json`, with `after` changed.
fn window(before: &str, after: &str) -> (i32, Value, String) {
    let dir = scratch(&[("t0.prom", before), ("t1.prom", after)]);
    let (b, a) = (dir.path().join("t0.prom"), dir.path().join("t1.prom"));
    let out = capcheck(&[
        "measure",
        "--log",
        LOG,
        "--scrape-before",
        b.to_str().unwrap(),
        "--scrape-after",
        a.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let (code, v) = json_of(&out);
    (code, v, stderr(&out))
}

/// `measure ARGS --format json` from the repository root: the exit code and the JSON.
fn json_run(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["measure"];
    all.extend(args);
    all.extend(["--format", "json"]);
    json_of(&capcheck(&all))
}

/// The located problems of a JSON error, as `line:column message`.
fn problems(v: &Value) -> Vec<String> {
    v["error"]["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no error object: {v:#}"))
        .iter()
        .map(|p| {
            format!(
                "{}:{} {}",
                p["line"],
                p["column"],
                p["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn scrapes_in_the_wrong_order_or_from_two_lives_are_refused() {
    let (t0, t1) = (
        scrape("vllm_v1_metrics_t0.prom"),
        scrape("vllm_v1_metrics_t1.prom"),
    );
    let (code, v, err) = window(&t1, &t0);
    assert_eq!(code, 2, "{v:#}");
    let p = problems(&v);
    assert!(p[0].contains("out of order"), "{p:?}");
    assert!(err.contains("the scrapes are out of order"), "{err}");
    let restarted = t1.replace(
        "process_start_time_seconds 1.79386199064e+09",
        "process_start_time_seconds 1.79386299064e+09",
    );
    let (code, v, _) = window(&t0, &restarted);
    assert_eq!(code, 2);
    assert!(
        problems(&v)[0].starts_with("14:28 expected both scrapes from one server life"),
        "{:?}",
        problems(&v)
    );
}

#[test]
fn impossible_samples_are_located_at_their_column() {
    let t1 = scrape("vllm_v1_metrics_t1.prom");
    let lines: Vec<&str> = t1.lines().collect();
    let line_of = |needle: &str| lines.iter().position(|l| l.starts_with(needle)).unwrap() + 1;
    let bucket = "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"0.5\"";
    let inf = "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"+Inf\"";
    let counter = "vllm:num_preemptions_total{";
    let (b, i, c) = (line_of(bucket), line_of(inf), line_of(counter));
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[b - 1] = edited[b - 1].replace("12145.0", "100.0");
    let brace = edited[c - 1].rfind('}').unwrap();
    edited[c - 1] = format!("{} NaN", &edited[c - 1][..=brace]);
    edited.remove(i - 1);
    let dup = edited[2].clone();
    edited.push(dup);
    let (code, v, _) = window(
        &scrape("vllm_v1_metrics_t0.prom"),
        &(edited.join("\n") + "\n"),
    );
    assert_eq!(code, 2);
    let p = problems(&v).join("\n");
    let value_column = lines[b - 1].rfind(' ').unwrap() + 2;
    for want in [
        format!("{b}:{value_column} expected cumulative buckets"),
        format!("{c}:{} expected a finite, non-negative value for `vllm:num_preemptions_total`, found NaN", brace + 3),
        "expected a `le=\"+Inf\"` bucket for `vllm:request_queue_time_seconds_bucket{engine=\"0\",model_name=".to_string(),
        "expected each series once, found `python_gc_objects_collected_total{generation=\"0\"}` again (first at line 3)".to_string(),
    ] {
        assert!(p.contains(&want), "missing `{want}` in:\n{p}");
    }
}

#[test]
fn an_empty_scrape_or_a_cut_one_is_no_server_at_zero() {
    let t0 = scrape("vllm_v1_metrics_t0.prom");
    let (code, v, _) = window(&t0, "");
    assert_eq!(code, 2);
    assert!(
        problems(&v)[0].starts_with("1:1 expected Prometheus samples, found none"),
        "{v:#}"
    );
    let cut = &t0[..t0.len() - 3];
    let (code, v, _) = window(&t0, cut);
    assert_eq!(code, 2);
    assert!(problems(&v)[0].contains("cut off"), "{v:#}");
}

#[test]
fn a_live_scrape_that_is_not_prometheus_text_fails_at_once() {
    for body in ["<!DOCTYPE html>\n<html><body>Not Found</body></html>\n", ""] {
        let (url, _heads) = serve(vec![body.to_string(), body.to_string()]);
        let start = Instant::now();
        let (code, v) = json_run(&["--log", LOG, "--scrape-url", &url, "--window", "60s"]);
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited the window out"
        );
        assert_eq!(code, 2);
        let p = problems(&v).join("\n");
        let want = if body.is_empty() {
            "the scrape is empty"
        } else {
            "found HTML"
        };
        assert!(p.contains(want), "{p}");
        assert_eq!(
            v["error"]["problems"][0]["file"],
            format!("{url} (first scrape)")
        );
    }
}

#[test]
fn a_run_with_queue_quantiles_names_only_the_phases_it_lacks() {
    let text = "# TYPE vllm:request_queue_time_seconds histogram\n\
                vllm:request_queue_time_seconds_bucket{le=\"1.0\"} 5\n\
                vllm:request_queue_time_seconds_bucket{le=\"+Inf\"} 10\n\
                vllm:request_queue_time_seconds_sum 12\n\
                vllm:request_queue_time_seconds_count 10\n";
    let dir = scratch(&[("after.prom", text)]);
    let after = dir.path().join("after.prom");
    let (code, v) = json_run(&["--log", LOG, "--scrape-after", after.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(v["queue_p50_s"].is_number(), "{v:#}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("no prefill or decode histogram"),
        "{warnings}"
    );
    assert!(!warnings.contains("no queue"), "{warnings}");
}

#[test]
fn numeric_flags_are_checked_when_parsed() {
    for bad in [
        ["--p90-prompt-tokens", "0"],
        ["--p90-prompt-tokens", "nan"],
        ["--p90-prompt-tokens", "inf"],
        ["--window", "0s"],
        ["--what-if", "prefill=+50%"],
        ["--what-if", "prefill=50%"],
    ] {
        let mut args = vec!["measure", "--log", LOG];
        args.extend(bad);
        let out = capcheck(&args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(bad[1]), "{bad:?}: {}", stderr(&out));
    }
}

#[test]
fn json_errors_are_json_on_stdout_and_human_on_stderr() {
    let out = capcheck(&[
        "measure",
        "--log",
        "fixtures/measure/malformed.log",
        "--scrape-after",
        "fixtures/measure/malformed.prom",
        "--format",
        "json",
    ]);
    let (code, v) = json_of(&out);
    assert_eq!(code, 2);
    let first = &v["error"]["problems"][0];
    assert_eq!(first["file"], "fixtures/measure/malformed.log");
    assert_eq!(
        (first["line"].clone(), first["column"].clone()),
        (2.into(), 43.into())
    );
    assert_eq!(first["expected"], "`GPU KV cache size: N tokens`");
    assert_eq!(v["error"]["problems"].as_array().unwrap().len(), 5);
    assert!(
        stderr(&out).contains("fixtures/measure/malformed.prom:5:38: expected a number"),
        "{}",
        stderr(&out)
    );
    let (code, v) = json_run(&["--log", "fixtures/measure/no-such.log"]);
    assert_eq!(code, 2);
    assert!(
        v["error"]["unlocated"][0]
            .as_str()
            .unwrap()
            .contains("no-such.log: cannot read"),
        "{v:#}"
    );
}
